/* cmd_show.c - `show [MODEL]`: the model's switches, sizes and training settings, then its
 * data and run. */
#include "repl/modelvars.h"
#include "repl/trainstate.h"
#include "core/error.h"
#include "models/config.h"

static void show_keys(FILE *out, const bl_config *cfg, unsigned want, unsigned avoid, const char *title)
{
    int col = fprintf(out, "  %-9s", title);
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        char buf[64], item[128];
        if (!(k->flags & want) || (k->flags & avoid) || !bl_config_key_applies(k, cfg->kind)) continue;
        if (bl_config_get(cfg, k->name, buf, sizeof buf) < 0) continue;
        int n = snprintf(item, sizeof item, " %s=%s", k->name, buf);
        if (col + n > 78) col = fprintf(out, "\n  %-9s", "");
        col += fprintf(out, "%s", item);
    }
    fputc('\n', out);
}

static int cmd_show(bl_cmdargs *a)
{
    int used = a->n > 0 && !a->w[0].key && bl_is_model_value(bl_session_get(a->s, a->w[0].text));
    if (bl_models_not_a_model(a, used) < 0) return -1;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    if (a->n > used) {
        bl_fail("show: too many arguments (show [MODEL])");
        return bl_session_errat(a->s, a->w[used].pos);
    }
    FILE *o = a->s->out;
    fprintf(o, "%s model, %zu parameters\n", bl_kind_of(m->kind)->title,
            bl_model_param_count(m));
    show_keys(o, &m->cfg, BL_KEY_SWITCH, 0, "switches");
    show_keys(o, &m->cfg, ~0u, BL_KEY_SWITCH | BL_KEY_TRAIN, "shape");
    show_keys(o, &m->cfg, BL_KEY_TRAIN, 0, "training");
    bl_train_show(m, o);
    return 0;
}

static const char help[] =
    "Show the switches, sizes and training settings.\n"
    "Then the attached data and the run (step, last loss and val loss); a model loaded from\n"
    "a checkpoint whose data is not attached shows the checkpoint's run and its data.";

const bl_command bl_cmd_show_entry = {
    .name = "show",
    .synopsis = "show [MODEL]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_show,
};
