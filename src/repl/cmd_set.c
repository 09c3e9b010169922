/* cmd_set.c - `set [MODEL] KEY=VALUE...`: change switches, sizes or training settings, all at
 * once or none; a switch or size rebuilds the model (and drops its run), a value it already has
 * changes nothing. */
#include "repl/modelvars.h"
#include "repl/trainstate.h"
#include "core/error.h"
#include "models/config.h"
#include <string.h>

/* Do two configs of one kind agree on every key that applies, by effective value (kv_heads
 * and eps as bl_config_get gives them; floats as round-trip text, so equal text is equal value)?
 * only_rebuild: just the keys whose change rebuilds the model. */
static int same_keys(const bl_config *x, const bl_config *y, int only_rebuild)
{
    if (x->kind != y->kind) return 0;
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        if (!bl_config_key_applies(k, x->kind) || (only_rebuild && !(k->flags & BL_KEY_REBUILD))) continue;
        char u[64], v[64];
        bl_config_get(x, k->name, u, sizeof u);
        bl_config_get(y, k->name, v, sizeof v);
        if (strcmp(u, v)) return 0;
    }
    return 1;
}
static int same_config(const bl_config *x, const bl_config *y) { return same_keys(x, y, 0); }
static int same_arch(const bl_config *x, const bl_config *y) { return same_keys(x, y, 1); }

/* The name the model is bound to (the first variable holding it), for messages. */
static const char *model_name(bl_session *s, const bl_model *m)
{
    for (int i = 0; i < s->nvars; i++)
        if (bl_is_model_value(s->vals[i]) && s->vals[i]->h == m) return s->names[i];
    return "the model";
}

static int cmd_set(bl_cmdargs *a)
{
    int used = a->n > 0 && !a->w[0].key && bl_is_model_value(bl_session_get(a->s, a->w[0].text));
    if (bl_models_not_a_model(a, used) < 0) return -1;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    const char *keys[64], *vals[64];
    if (a->n > 64) return bl_fail("set: too many keys");
    int n = bl_models_kv_words(a, used, keys, vals);
    if (n < 0) return -1;
    if (n == 0) {
        bl_fail("set: expected KEY=VALUE... (help keys lists the keys)");
        return -1;
    }
    bl_config cfg = m->cfg;
    if (bl_config_set_many(&cfg, n, keys, vals) < 0) return bl_models_config_error(a, used);
    /* A value the model already has changes nothing: no rebuild, the run is kept (`set
     * pos=learned` on a trained learned-pos model used to throw the run away). Keys are compared
     * by their effective values, so kv_heads=auto with kv_heads = heads is no change either. */
    if (same_config(&m->cfg, &cfg)) {
        m->cfg = cfg;       /* kv_heads=auto, eps=auto: the same model, the key as asked */
        char line[1024];
        size_t len = (size_t)snprintf(line, sizeof line, "%s: unchanged (",
                                      used ? a->w[0].text : model_name(a->s, m));
        for (int i = 0; i < n && len < sizeof line; i++) {
            char buf[64];
            bl_config_get(&m->cfg, keys[i], buf, sizeof buf);
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s is already %s", i ? ", " : "",
                                    keys[i], buf);
        }
        fprintf(a->s->out, "%s)\n", line);
        return 0;
    }
    if (!same_arch(&m->cfg, &cfg)) {
        if (bl_model_rebuild(m, &cfg) < 0) return bl_models_config_error(a, used);
        char sum[512];
        fprintf(a->s->out, "rebuilt %s, %zu parameters\n"
                "  (initial values from seed %llu and each name: shared parameters are unchanged)\n",
                bl_config_summary(&m->cfg, BL_KEYS_BRIEF, sum, sizeof sum), bl_model_param_count(m),
                (unsigned long long)m->cfg.seed);
        bl_train_discard_run(m, a->s->out);
    } else {
        /* in place; a new rope_base also remakes the RoPE tables (bl_model_set does), which
         * setting the config alone left at the old base */
        char base[64];
        int new_base = cfg.rope_base != m->cfg.rope_base;
        bl_config_get(&cfg, "rope_base", base, sizeof base);
        cfg.rope_base = m->cfg.rope_base;
        bl_config old = m->cfg;
        m->cfg = cfg;
        if (new_base && bl_model_set(m, "rope_base", base, NULL) < 0) {
            m->cfg = old;
            return bl_models_config_error(a, used);
        }
        for (int i = 0; i < n; i++) {
            char buf[64];
            bl_config_get(&m->cfg, keys[i], buf, sizeof buf);
            fprintf(a->s->out, "%s = %s\n", keys[i], buf);
        }
    }
    return 0;
}

static int complete_set(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    bl_model_kind kind = bl_kind_at(0)->kind;   /* no model to ask: the first kind's keys */
    bl_value *v = argi > 0 ? bl_session_get(s, words[0]) : NULL;
    if (bl_is_model_value(v)) kind = ((bl_model *)v->h)->kind;
    else if (bl_models_current_value(s)) kind = ((bl_model *)bl_models_current_value(s)->h)->kind;
    if (argi == 0 && !strchr(prefix, '=')) bl_complete_modelvar(s, 0, words, prefix, out);
    bl_models_complete_kv(kind, prefix, out);
    return 0;
}

static const char help[] =
    "Change switches, sizes or training settings.\n"
    "Acts on the current model (or MODEL); the switches come first in `help keys`.\n"
    "A change of a switch or size rebuilds the model and says so:\n"
    "every parameter starts again from (seed, its name), so parameters that both variants\n"
    "share get identical initial values, and the training run is discarded. A value the\n"
    "model already has changes nothing (`m1: unchanged (norm is already {norm:0})`):\n"
    "no rebuild, the run is kept. All keys of one `set` apply together or not at all.";

const bl_command bl_cmd_set_entry = {
    .name = "set",
    .synopsis = "set [MODEL] KEY=VALUE...",
    .help = help,
    .complete = complete_set,
    .run = cmd_set,
};
