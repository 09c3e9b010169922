/* models.h - the model side of the REPL: model values, the model commands of the command table
 * (model, use, set, show, params) and the model functions (dit, gpt, param).
 *
 * Several models live at once as values (`a = dit(...)`, `model gpt` binds m1, m2, ...);
 * one is current (`use a`), and commands act on it or on a model named as their first word.
 */
#ifndef BL_REPL_MODELS_H
#define BL_REPL_MODELS_H

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

int bl_cmd_model(bl_cmdargs *a);
int bl_cmd_use(bl_cmdargs *a);
int bl_cmd_set(bl_cmdargs *a);
int bl_cmd_show(bl_cmdargs *a);
int bl_cmd_params(bl_cmdargs *a);
int bl_complete_model(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_set(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_modelvar(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);

bl_value *bl_fn_model(bl_callargs *a);   /* dit(...), gpt(...) */
bl_value *bl_fn_param(bl_callargs *a);   /* param(m, "name") */

#define BL_MODEL_COMMANDS                                                                       \
    { "model", "model [dit|gpt] [KEY=VALUE...]",                                               \
      "Make a model and make it current, or show it.\n"                                        \
      "dit is TinyDiT (images), gpt TinyGPT (characters); KEY=VALUE words set switches and\n" \
      "sizes (`help keys`). The model is bound to the next free name m1, m2, ...;\n"          \
      "a = dit(...) binds a name of your own.",                                                \
      bl_complete_model, bl_cmd_model, 0 },                                                     \
    { "use", "use MODEL", "Make the model held by a variable the current one.",            \
      bl_complete_modelvar, bl_cmd_use, 0 },                                                    \
    { "set", "set [MODEL] KEY=VALUE...",                                                       \
      "Change switches, sizes or training settings.\n"                                         \
      "Acts on the current model (or MODEL); the switches come first in `help keys`.\n"    \
      "A change of a switch or size rebuilds the model and says so:\n"                         \
      "every parameter starts again from (seed, its name), so parameters that both variants\n" \
      "share get identical initial values, and the training run is discarded. A value the\n"   \
      "model already has changes nothing (`m1: unchanged (norm is already layernorm)`):\n"    \
      "no rebuild, the run is kept. All keys of one `set` apply together or not at all.",     \
      bl_complete_set, bl_cmd_set, 0 },                                                         \
    { "show", "show [MODEL]", "Show the switches, sizes and training settings.\n"                  \
      "Then the attached data and the run (step, last loss and val loss); a model loaded from\n" \
      "a checkpoint whose data is not attached shows the checkpoint's run and its data.",      \
      bl_complete_modelvar, bl_cmd_show, 0 },                                                   \
    { "params", "params [MODEL] [depth=N]",                                                    \
      "Parameter counts per module, then `total N`.\n"                                        \
      "depth=0 lists every tensor by its PyTorch name; `params > p.csv` writes the table.",  \
      bl_complete_modelvar, bl_cmd_params, BL_WRITES_TABLE },

#define BL_MODEL_FUNCTIONS                                                                      \
    { "dit", "dit(key=value, ...)",                                                             \
      "A new TinyDiT model (images, flow matching) with the given keys. For example\n"         \
      "a = dit(pos=\"rope2d\", qk_norm=on). It does not change the current model.", bl_fn_model }, \
    { "gpt", "gpt(key=value, ...)",                                                             \
      "A new TinyGPT model (characters, next-token prediction). The given keys set it up,\n"  \
      "for example b = gpt(norm=\"rmsnorm\"). It does not change the current model.",      \
      bl_fn_model },                                                                            \
    { "param", "param(m, \"name\")",                                                           \
      "A copy of one parameter of model m by its PyTorch name. For example\n"                  \
      "param(m1, \"blocks.0.attn.qkv.weight\"); `params m1 depth=0` lists the names.", bl_fn_param },

#endif
