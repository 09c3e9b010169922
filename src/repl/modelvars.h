/* modelvars.h - models as REPL values: the model value, the current model, what the model
 * commands (cmd_model.c, cmd_use.c, cmd_set.c, cmd_show.c, cmd_params.c) share, and the model
 * functions (dit, gpt, param).
 *
 * Several models live at once as values (`a = dit(...)`, `model gpt` binds m1, m2, ...);
 * one is current (`use a`), and commands act on it or on a model named as their first word.
 */
#ifndef BL_REPL_MODELVARS_H
#define BL_REPL_MODELVARS_H

#include "models/model.h"
#include "repl/repl.h"

extern const bl_handle_type bl_model_type;

void bl_models_init(bl_session *s);
void bl_models_free(bl_session *s);
/* The current model (borrowed) or NULL + "CMD: no model yet ...". */
bl_model *bl_models_current(bl_session *s, const char *cmd);
/* The model a command acts on: its first word when that names a model variable (then *used = 1),
 * else the current model. NULL + error when there is none. */
bl_model *bl_models_pick(bl_cmdargs *a, int *used);
/* help for the model topics ("keys" and each config key). 0 when printed, -1 when unknown. */
int bl_models_help(bl_session *s, const char *topic, FILE *out);
void bl_models_complete_topics(const char *prefix, bl_strlist *out);

/* Bind model m to `name` (NULL: the next free m1, m2, ...), make it current and announce it.
 * Takes m: on an error (-1, out of memory) m and its training state are freed. */
int bl_models_adopt(bl_session *s, bl_model *m, const char *name);

/* The current model's value (borrowed), or NULL. */
bl_value *bl_models_current_value(bl_session *s);
/* Make the model value v current and announce it under name. */
void bl_models_use(bl_session *s, bl_value *v, const char *name);
/* A global name that held `old` now holds v: when old was the current model and v is another
 * model, v becomes the current model (m = gpt(...) again replaces the model commands use). */
void bl_models_rebound(bl_session *s, const bl_value *old, bl_value *v);
/* Is v a model value? */
int bl_is_model_value(const bl_value *v);
/* A model of `kind` with keys[i] = vals[i] (n of them) set all at once; NULL + the config's error. */
bl_model *bl_models_make(bl_model_kind kind, int n, const char *const *keys, const char *const *vals);
/* "NAME: WHAT<summary>, N parameters" on the session's output. */
void bl_models_announce(bl_session *s, const char *name, bl_model *m, const char *what);
/* After bl_models_pick left word `used` unread: is it a plain name meant as a model (`set x
 * dim=64`, `show zz`)? Then -1 + "cmd: 'x' is not a model (it is a number)" or
 * "cmd: unknown model 'zz'" at the word; else 0. */
int bl_models_not_a_model(bl_cmdargs *a, int used);
/* The KEY=VALUE words from index `from` into keys/vals (room for every word): their count, or
 * -1 + "cmd: expected KEY=VALUE, got 'x'" at the first other word. */
int bl_models_kv_words(bl_cmdargs *a, int from, const char **keys, const char **vals);
/* Report the config's last error as the command's, at the word (from index `from`) whose key it
 * names. Returns -1. */
int bl_models_config_error(bl_cmdargs *a, int from);
/* Complete KEY= names of a `kind` model, or after '=' the key's choices that kind accepts. */
void bl_models_complete_kv(bl_model_kind kind, const char *prefix, bl_strlist *out);
int bl_complete_modelvar(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);

#endif
