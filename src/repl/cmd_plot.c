/* cmd_plot.c - `plot loss [MODELS...]`: the train loss of runs overlaid, or relative to one
 * (the figures are viz/lossplot.c's). */
#include "repl/views.h"
#include "core/error.h"
#include "repl/figures.h"
#include "repl/trainstate.h"
#include "viz/lossplot.h"
#include <stdlib.h>
#include <string.h>

/* The run history behind a value: a run value (`r = m.run`, a snapshot) or a model with a run
 * (repl/trainstate.h keeps one per model) or a checkpoint's run not continued yet. NULL when none. */
static const bl_metrics *value_metrics(const bl_value *v)
{
    if (!v || v->kind != BL_V_HANDLE) return NULL;
    const bl_metrics *r = bl_runval_metrics(v);
    if (r || v->htype != &bl_model_type) return r;
    return bl_train_metrics(v->h);   /* its run, or the run of the checkpoint it was loaded from */
}

static int cmd_plot_loss(bl_cmdargs *a)
{
    static const char *const keys[] = { "smooth", "val", "relative", BL_FIG_SIZE_KEYS, NULL };
    double smooth;
    int val = 1, first_key = a->n, vi = bl_opt_find(a, "val"), ri = bl_opt_find(a, "relative");
    for (int i = 1; i < a->n; i++)
        if (a->w[i].key) {
            first_key = i;
            break;
        }
    if (bl_opt_check(a, first_key, keys) < 0 || bl_opt_num(a, "smooth", 0.9, 0, 0.999, &smooth) < 0)
        return -1;
    if (vi >= 0 && strcmp(a->w[vi].text, "only") && bl_word_bool(a, vi, &val) < 0) {
        bl_fail("plot loss: val= takes on, off or only, not '%s'", a->w[vi].text);
        return bl_word_err(a, vi);
    }
    if (vi >= 0 && !strcmp(a->w[vi].text, "only")) val = 2;   /* val=only: the validation points alone */
    if (ri >= 0 && bl_opt_find(a, "logy") >= 0 && !strcmp(a->w[bl_opt_find(a, "logy")].text, "on")) {
        bl_fail("plot loss: relative= draws differences, below and above 0: no log axis (leave out logy=on)");
        return bl_session_errat(a->s, a->w[bl_opt_find(a, "logy")].pos);
    }
    int n = first_key - 1;
    if (n > 16) {
        bl_fail("plot loss: at most 16 runs at once, got %d", n);
        return bl_session_errat(a->s, a->w[17].pos);
    }
    const bl_metrics *runs[16];
    const char *labels[16];
    const bl_config *cfg = NULL;    /* the model's, when the picture shows one model's run */
    char curname[160];
    int rc = 0;
    if (n == 0) {
        /* the current model, named by its switches */
        bl_model *m = bl_models_current(a->s, "plot loss");
        if (!m) return -1;
        bl_value *cur = NULL;
        snprintf(curname, sizeof curname, "model");
        for (int i = 0; i < a->s->nvars && !cur; i++)
            if (a->s->vals[i]->kind == BL_V_HANDLE && a->s->vals[i]->h == m) {
                cur = a->s->vals[i];
                snprintf(curname, sizeof curname, "%s", a->s->names[i]);
            }
        runs[0] = value_metrics(cur);
        labels[0] = curname;
        cfg = &m->cfg;
        n = 1;
        if (!runs[0]) rc = bl_fail("plot loss: %s has no training run yet (train N first)", curname);
    }
    int k = 0;  /* the runs so far: a name given twice is one run, drawn and listed once */
    for (int i = 0; rc == 0 && i < first_key - 1; i++) {
        const bl_word *w = &a->w[i + 1];
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= !strcmp(labels[j], w->text);
        if (dup) continue;
        bl_value *v = bl_session_get(a->s, w->text);
        labels[k] = w->text;
        runs[k] = value_metrics(v);
        if (v && v->kind == BL_V_HANDLE && v->htype == &bl_model_type) cfg = &((const bl_model *)v->h)->cfg;
        if (!runs[k++]) {
            if (!v) bl_fail("plot loss: no variable '%s'", w->text);
            else bl_fail("plot loss: '%s' is a %s with no training run (train it first)", w->text, bl_val_kind_name(v));
            rc = bl_session_errat(a->s, w->pos);
        }
    }
    if (first_key > 1) {
        n = k;
        if (k > 1) cfg = NULL;
    }
    int base = -1;
    for (int i = 0; ri >= 0 && i < n; i++)     /* a compare's run by its name too: baseline = cmp_baseline */
        if (!strcmp(labels[i], a->w[ri].text) ||
            (!strncmp(labels[i], "cmp_", 4) && !strcmp(labels[i] + 4, a->w[ri].text) && base < 0))
            base = i;
    if (rc == 0 && ri >= 0 && base < 0) {
        char names[512] = "";
        for (int i = 0; i < n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", labels[i]);
        bl_fail("plot loss: relative=%s is not one of the runs drawn (%s)", a->w[ri].text, names);
        rc = bl_session_errat(a->s, a->w[ri].vpos);
    }
    /* log y where the losses span more than a decade (logy=auto), unless logy= says otherwise;
     * differences (relative=) on a linear axis */
    bl_figure *f = rc == 0 ? base >= 0 ? bl_plot_loss_relative_figure(runs, labels, n, (float)smooth, val, base)
                                       : bl_plot_loss_figure(runs, labels, n, (float)smooth, 0, val)
                           : NULL;
    if (f && base < 0) f->logy_auto = 1;
    return bl_cmd_figure(a, f, cfg);
}

static int cmd_plot(bl_cmdargs *a)
{
    if (a->n >= 1 && !a->w[0].key && !strcmp(a->w[0].text, "loss")) return cmd_plot_loss(a);
    bl_fail("plot: expected loss, got '%s' (plot loss [MODELS...])", a->n ? a->w[0].text : "");
    return a->n ? bl_session_errat(a->s, a->w[0].pos) : -1;
}

static int complete_plot(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    static const char *const sub[] = { "loss", NULL };
    static const char *const k[] = { "smooth=", "val=", "relative=", BL_FIG_KEY_WORDS, NULL };
    if (argi == 0) {
        bl_complete_from(sub, prefix, out);
        return 0;
    }
    bl_complete_from(k, prefix, out);
    return bl_complete_modelvar(s, argi, words, prefix, out);
}

static const char help[] =
    "Train loss curves of one or several runs.\n"
    "plot loss [MODELS...] [smooth=0.9] [logy=auto] [val=on|off|only]\n"
    "[relative=NAME]: each model's\n"
    "run in its own colour with a legend: a centred moving average over the\n"
    "faint raw loss (no lag on the first drop; half-width smooth/(1-smooth),\n"
    "9 at 0.9, at most steps/40; smooth=0: raw), validation losses as\n"
    "markers; a log y axis when the losses span more than a decade\n"
    "(logy=on|off).\n"
    "No MODELS: the current model. `plot loss a b > loss.png` saves it.\n"
    "loss.csv: one row per point, columns run,curve,step,loss (curve raw,\n"
    "smooth or val).\n"
    "val=only: the validation losses alone, joined. relative=NAME (one of\n"
    "MODELS; baseline names compare's cmp_baseline): each run minus the\n"
    "baseline NAME (smoothed curves' difference),\n"
    "linear y, the baseline at 0; a run named ...seed2 (compare's cmp_seed2)\n"
    "adds the seed gap as a band around 0. Its csv: run,curve,step,\n"
    "loss_minus_baseline (curve also seed_gap).";

const bl_command bl_cmd_plot_entry = {
    .name = "plot",
    .synopsis = "plot loss [MODELS...] [smooth=0.9]",
    .help = help,
    .help_more = bl_fig_size_help,
    .complete = complete_plot,
    .run = cmd_plot,
    .flags = BL_WRITES_PICTURE,
};
