/* lossplot.c - the loss figures of `plot loss` (see lossplot.h): runs overlaid, or relative to
 * a baseline run. */
#include "viz/lossplot.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

bl_figure *bl_plot_loss_figure(const bl_metrics *const *runs, const char *const *labels, int n, float smooth,
                               int logy, int val)
{
    if (!(smooth >= 0 && smooth < 1)) return BL_FAILP("plot loss: smooth must be in [0, 1), got %g", smooth);
    int any = 0;
    for (int i = 0; i < n; i++) any |= runs[i] && (val == 2 ? runs[i]->nval : runs[i]->steps) > 0;
    if (!any && val == 2) return BL_FAILP("plot loss: no validation loss yet (eval, or train with eval_every)");
    if (!any) return BL_FAILP("plot loss: no training steps yet (train N first)");
    char title[192];
    snprintf(title, sizeof title, "%s loss%s%s", val == 2 ? "Validation" : "Train", n > 1 ? "" : ": ", n > 1 ? "" : labels[0]);
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    static const char *const cols[] = { "run", "curve", "step", "loss" };
    int rc = p && bl_fig_table(f, cols, "ssir") == 0 ? bl_panel_labels(p, NULL, "step", "loss") : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        const bl_metrics *m = runs[i];
        if (!m || (val == 2 ? m->nval : m->steps) == 0) continue;
        int first = p->nseries;
        float *x = malloc(sizeof(float) * (size_t)(m->steps + m->nval + 1));
        if (!x) {
            rc = bl_fail("plot loss: out of memory");
            break;
        }
        for (int s = 0; s < m->steps; s++) x[s] = (float)(s + 1);  /* loss of step s+1 */
        if (val != 2) rc = bl_panel_smoothed(p, labels[i], x, m->loss, m->steps, smooth) < 0 ? -1 : 0;
        if (rc == 0 && val && m->nval > 0) {
            /* val=only: the validation points joined, named by the run */
            char lab[160];
            snprintf(lab, sizeof lab, val == 2 ? "%s" : "%s val", labels[i]);
            for (int v = 0; v < m->nval; v++) x[v] = (float)m->val_step[v];
            rc = bl_panel_line(p, lab, x, m->val_loss, m->nval, val == 2 ? BL_MARKERS : BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR) < 0 ? -1 : 0;
        }
        free(x);
        /* the table (.csv): this run's curves as drawn, one row per point */
        for (int s = first; rc == 0 && s < p->nseries; s++) {
            const bl_series *se = &p->series[s];
            const char *curve = (se->flags & BL_NO_LINE) || val == 2 ? "val" : (se->flags & BL_FAINT) || smooth == 0 ? "raw" : "smooth";
            for (int k = 0; rc == 0 && k < se->n; k++)
                rc = bl_fig_row(f, labels[i], curve, (int)se->x[k], (double)se->y[k]);
        }
    }
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    if (logy) bl_panel_log(p, 0, 1);
    bl_panel_xcount(p, 1);
    return f;
}

/* The smoothed curve (bl_loss_smooth, weight smooth, half-width <= n/8; smooth 0: the raw values)
 * of a run's first n losses into out, for relative=. */
static void smooth_of(const bl_metrics *m, int n, float smooth, float *out)
{
    if (smooth > 0) bl_loss_smooth(m->loss, n, smooth, n / 8, out);
    else memcpy(out, m->loss, (size_t)n * sizeof *out);
}

/* the validation loss of m at `step`, NaN when m has none there */
static float val_at(const bl_metrics *m, int step)
{
    for (int v = 0; v < m->nval; v++)
        if (m->val_step[v] == step) return m->val_loss[v];
    return NAN;
}

static int is_seed2(const char *label)
{
    size_t n = strlen(label);
    return n >= 5 && !strcmp(label + n - 5, "seed2");
}

bl_figure *bl_plot_loss_relative_figure(const bl_metrics *const *runs, const char *const *labels, int n, float smooth,
                                        int val, int base)
{
    if (!(smooth >= 0 && smooth < 1)) return BL_FAILP("plot loss: smooth must be in [0, 1), got %g", smooth);
    if (base < 0 || base >= n || !runs[base]) return BL_FAILP("plot loss: no baseline run");
    const bl_metrics *b = runs[base];
    if (val != 2 && b->steps == 0) return BL_FAILP("plot loss: the baseline %s has no training steps yet", labels[base]);
    if (val == 2 && b->nval == 0) return BL_FAILP("plot loss: the baseline %s has no validation loss yet", labels[base]);
    char title[192];
    snprintf(title, sizeof title, "%s loss minus %s's%s", val == 2 ? "Validation" : "Train", labels[base],
             val == 2 ? "" : smooth > 0 ? " (smoothed)" : "");
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    static const char *const cols[] = { "run", "curve", "step", "loss_minus_baseline" };
    char ylab[160];
    snprintf(ylab, sizeof ylab, "loss - %s (nats)", labels[base]);
    int rc = p && bl_fig_table(f, cols, "ssir") == 0 ? bl_panel_labels(p, NULL, "step", ylab) : -1;
    int S = b->steps, cap = b->steps > b->nval ? b->steps : b->nval;
    float *x = malloc(sizeof(float) * (size_t)(cap + 1)), *d = malloc(sizeof(float) * (size_t)(cap + 1));
    float *eb = malloc(sizeof(float) * (size_t)(cap + 1)), *e = malloc(sizeof(float) * (size_t)(cap + 1));
    if (rc == 0 && !(x && d && eb && e)) rc = bl_fail("plot loss: out of memory");
    if (rc == 0 && val != 2) smooth_of(b, S, smooth, eb);
    /* the order: the baseline first (its zero line), then the others as given */
    for (int k = -1; rc == 0 && k < n; k++) {
        int i = k < 0 ? base : k;
        if (k == base || !runs[i]) continue;
        const bl_metrics *m = runs[i];
        int first = p->nseries, npt = 0;
        char lab[160];
        snprintf(lab, sizeof lab, i == base ? "%s (baseline)" : "%s", labels[i]);
        if (val == 2) {
            for (int v = 0; v < m->nval; v++) {
                float vb = val_at(b, m->val_step[v]);
                if (!isfinite(vb)) continue;
                x[npt] = (float)m->val_step[v], d[npt++] = m->val_loss[v] - vb;
            }
        } else {
            npt = m->steps < S ? m->steps : S;
            smooth_of(m, npt, smooth, e);
            for (int s = 0; s < npt; s++) x[s] = (float)(s + 1), d[s] = e[s] - eb[s];
        }
        if (npt == 0) continue;
        rc = bl_panel_line(p, lab, x, d, npt, val == 2 ? BL_MARKERS : 0) < 0 ? -1 : 0;
        /* the seed gap: |seed2 - baseline| either side of 0, in seed2's colour */
        if (rc == 0 && i != base && is_seed2(labels[i])) {
                        float *hi = malloc(sizeof(float) * (size_t)npt);
            if (!hi) rc = bl_fail("plot loss: out of memory");
            for (int s = 0; rc == 0 && s < npt; s++) e[s] = fabsf(d[s]);
            /* the gap is noise itself: a centred mean over about 1/20 of the steps */
            if (rc == 0) bl_centered_average(e, npt, npt / 40, hi);
            for (int s = 0; rc == 0 && s < npt; s++) e[s] = -hi[s];
            int k = rc == 0 ? bl_panel_band(p, x, e, hi, npt) : -1;
            if (k < 0 || bl_series_legend(p, k, "seed gap") < 0) rc = -1;   /* the band named */
            for (int s = 0; rc == 0 && s < npt; s++) rc = bl_fig_row(f, labels[i], "seed_gap", (int)x[s], (double)hi[s]);
            free(hi);
        }
        if (rc == 0 && val == 1 && i != base) {
            /* validation differences as markers in the run's colour (the baseline's are all 0) */
            int nv = 0;
            for (int v = 0; v < m->nval; v++) {
                float vb = val_at(b, m->val_step[v]);
                if (isfinite(vb)) x[nv] = (float)m->val_step[v], d[nv++] = m->val_loss[v] - vb;
            }
            char vl[170];
            snprintf(vl, sizeof vl, "%s val", labels[i]);
            if (nv > 0) rc = bl_panel_line(p, vl, x, d, nv, BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR) < 0 ? -1 : 0;
        }
        for (int s = first; rc == 0 && s < p->nseries; s++) {
            const bl_series *se = &p->series[s];
            if (se->flags & BL_BAND) continue;
            const char *curve = (se->flags & BL_NO_LINE) || val == 2 ? "val" : smooth == 0 ? "raw" : "smooth";
            for (int q = 0; rc == 0 && q < se->n; q++) rc = bl_fig_row(f, labels[i], curve, (int)se->x[q], (double)se->y[q]);
        }
    }
    free(x), free(d), free(eb), free(e);
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    bl_panel_xcount(p, 1);
    return f;
}
