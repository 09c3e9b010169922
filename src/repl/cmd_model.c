/* cmd_model.c - `model [dit|gpt] [KEY=VALUE...]`: make a model, bound to the next free name
 * m1, m2, ... and made current, or show the current one (repl/modelvars.h). */
#include "repl/modelvars.h"
#include "core/error.h"

static int cmd_model(bl_cmdargs *a)
{
    bl_value *cur = bl_models_current_value(a->s);
    if (a->n == 0) {
        if (!cur) {
            fprintf(a->s->out, "no model yet: model dit or model gpt makes one\n");
            return 0;
        }
        for (int i = 0; i < a->s->nvars; i++)
            if (a->s->vals[i] == cur) {
                bl_models_announce(a->s, a->s->names[i], cur->h, "(current) ");
                return 0;
            }
        bl_models_announce(a->s, "current", cur->h, "");
        return 0;
    }
    bl_model_kind kind;
    if (a->w[0].key || bl_model_kind_parse(a->w[0].text, &kind) < 0) {
        bl_fail("model: expected dit or gpt, got '%s'", a->w[0].text);
        return bl_session_errat(a->s, a->w[0].pos);
    }
    const char *keys[64], *vals[64];
    if (a->n > 65) return bl_fail("model: too many keys");
    int n = bl_models_kv_words(a, 1, keys, vals);
    if (n < 0) return -1;
    bl_model *m = bl_models_make(kind, n, keys, vals);
    if (!m) return bl_models_config_error(a, 1);
    return bl_models_adopt(a->s, m, NULL);
}

static int complete_model(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    if (argi == 0) {
        const bl_kind *k;
        for (int i = 0; (k = bl_kind_at(i)); i++)
            if (!strncmp(k->name, prefix, strlen(prefix))) bl_strlist_add(out, k->name);
        return 0;
    }
    bl_model_kind kind;
    if (bl_model_kind_parse(words[0], &kind) < 0) {
        bl_clear_error();
        return 0;
    }
    bl_models_complete_kv(kind, prefix, out);
    return 0;
}

static const char help[] =
    "Make a model and make it current, or show it.\n"
    "dit is TinyDiT (images), gpt TinyGPT (characters); KEY=VALUE words set switches and\n"
    "sizes (`help keys`). The model is bound to the next free name m1, m2, ...;\n"
    "a = dit(...) binds a name of your own.";

const bl_command bl_cmd_model_entry = {
    .name = "model",
    .synopsis = "model [dit|gpt] [KEY=VALUE...]",
    .help = help,
    .complete = complete_model,
    .run = cmd_model,
};
