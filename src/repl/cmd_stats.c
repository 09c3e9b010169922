/* cmd_stats.c - `stats [MODEL|TENSOR]`: per-token mean and rms before and after a norm. */
#include "repl/views.h"
#include "core/error.h"
#include "repl/figures.h"
#include "repl/trainstate.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>

enum { STATS_SERIES = 8 };   /* a tensor and its norms */

/* Mean and rms over the last dim of x [N, D] into mean[N], rms[N]. */
static void row_stats(const float *x, int N, int D, float *mean, float *rms)
{
    for (int i = 0; i < N; i++) {
        double s = 0, q = 0;
        for (int d = 0; d < D; d++) s += x[(size_t)i * D + d], q += (double)x[(size_t)i * D + d] * x[(size_t)i * D + d];
        mean[i] = (float)(s / D);
        rms[i] = (float)sqrt(q / D);
    }
}

/* Two panels (mean, rms per token) of ns series xs[k] [N, D] named names[k]; the table (.csv)
 * "layer,series,token,mean,rms" (no layer column when layer < 0: a tensor's statistics). */
static bl_figure *stats_figure(const char *title, const float *const *xs, const char *const *names, int ns, int N,
                               int D, int layer)
{
    float *st = malloc(sizeof(float) * (size_t)N * 2 * ns);
    bl_figure *f = st ? bl_fig_new(1, 2, title) : NULL;
    static const char *const cols[] = { "layer", "series", "token", "mean", "rms" };
    int rc = f ? bl_fig_table(f, layer < 0 ? cols + 1 : cols, layer < 0 ? "sirr" : "isirr") : -1;
    float top = 0;
    for (int k = 0; rc == 0 && k < ns; k++) {
        float *mean = st + (size_t)2 * k * N, *rms = mean + N;
        row_stats(xs[k], N, D, mean, rms);
        if (bl_panel_line(bl_fig_panel(f, 0), names[k], NULL, mean, N, 0) < 0 ||
            bl_panel_line(bl_fig_panel(f, 1), names[k], NULL, rms, N, 0) < 0)
            rc = -1;
        for (int i = 0; i < N; i++) top = fmaxf(top, rms[i]);
        for (int i = 0; rc == 0 && i < N; i++)
            rc = layer < 0 ? bl_fig_row(f, names[k], i, (double)mean[i], (double)rms[i])
                           : bl_fig_row(f, layer, names[k], i, (double)mean[i], (double)rms[i]);
    }
    /* rms from 0, up to the first labelled tick at or past the largest (the legend finds its
     * own room) */
    if (rc == 0 && top > 0) bl_panel_yfrom(bl_fig_panel(f, 1), 0);
    if (rc == 0 && (bl_panel_labels(bl_fig_panel(f, 0), "mean per token", "token", "mean") < 0 ||
                    bl_panel_labels(bl_fig_panel(f, 1), "rms per token", "token", "rms") < 0))
        rc = -1;
    if (rc == 0) bl_panel_xcount(bl_fig_panel(f, 0), 1), bl_panel_xcount(bl_fig_panel(f, 1), 1);
    free(st);
    if (rc < 0) {
        if (!f && !bl_error()[0]) bl_fail("stats: out of memory");
        bl_fig_free(f);
        return NULL;
    }
    return f;
}

static int stats_tensor(bl_cmdargs *a, const bl_tensor *x, const char *name)
{
    int D = x->shape[x->ndim - 1], N = (int)(x->numel / (size_t)D);
    if (x->ndim < 1 || D < 2 || N > 4096) {
        char sh[64];
        bl_fail("stats: expects a tensor [..., D] with D >= 2 and at most 4096 rows, got %s", bl_shape_str(x, sh, sizeof sh));
        return bl_session_errat(a->s, a->w[0].pos);
    }
    /* the tensor, then each norm of the `norm` switch (nn.h bl_norm_defs) without parameters */
    bl_tensor x2;
    bl_graph_reset(a->s->g);
    const float *xs[STATS_SERIES] = { x->data };
    const char *names[STATS_SERIES] = { name };
    int ns = 1;
    int rc = bl_tensor_view_as(&x2, x, 2, (int[]){ N, D });
    for (const bl_norm_def *nd = bl_norm_defs; rc == 0 && nd->name && ns < STATS_SERIES; nd++, ns++) {
        bl_tensor *y = nd->norm(a->s->g, &x2, &(bl_norm_params){0}, 1e-6f);
        if (!y) return -1;
        xs[ns] = y->data;
        names[ns] = nd->name;
    }
    if (rc < 0) return -1;
    char title[128];
    snprintf(title, sizeof title, "%s before and after a norm (no weights, eps 1e-6)", name);
    bl_figure *f = stats_figure(title, xs, names, ns, N, D, -1);
    bl_graph_reset(a->s->g);
    return bl_cmd_figure(a, f, NULL);
}

static int cmd_stats(bl_cmdargs *a)
{
    static const char *const keys[] = { "layer", "image", BL_FIG_SIZE_KEYS, NULL };
    static const char *const size_keys[] = { BL_FIG_SIZE_KEYS, NULL };
    if (a->n >= 1 && !a->w[0].key) {
        bl_value *v = bl_session_get(a->s, a->w[0].text);
        if (v && v->kind == BL_V_TENSOR) {
            if (a->n > 1 && (!a->w[1].key || bl_opt_find(a, "layer") >= 0 || bl_opt_find(a, "image") >= 0)) {
                int i = bl_opt_find(a, "layer") >= 0 ? bl_opt_find(a, "layer") : bl_opt_find(a, "image") >= 0 ? bl_opt_find(a, "image") : 1;
                bl_fail("stats: a tensor takes only width= height= scale= (layer= is for models), got '%s%s%s'",
                        a->w[i].key ? a->w[i].key : "", a->w[i].key ? "=" : "", a->w[i].text);
                return bl_session_errat(a->s, a->w[i].pos);
            }
            if (bl_opt_check(a, 1, size_keys) < 0) return -1;
            return stats_tensor(a, v->t, a->w[0].text);
        }
    }
    int used;
    bl_model *m = bl_models_pick(a, &used);
    long layer, image;
    if (!m || bl_opt_check(a, used, keys) < 0 || bl_layer_word(a, m, &layer) < 0 ||
        bl_image_word(a, m, &image) < 0)
        return -1;
    bl_fixed_input o;
    if (bl_fixed_forward(m, (int)layer, (int)image, &o, "stats") < 0) return -1;
    const float *xs[2] = { o.tin, o.tnorm };
    char after[64], title[160];
    char norm[32];
    bl_config_get(&m->cfg, "norm", norm, sizeof norm);
    snprintf(after, sizeof after, "after %s", norm);
    const char *names[2] = { "before norm", after };
    snprintf(title, sizeof title, "%s layer %ld: before and after its first norm",
             bl_kind_of(m->kind)->title, layer);
    bl_figure *f = stats_figure(title, xs, names, 2, o.L, o.D, (int)layer);
    bl_fixed_free(&o);
    return bl_cmd_figure(a, f, &m->cfg);
}

static const char help[] =
    "Per-token mean and rms before and after a norm.\n"
    "For a model: the residual stream entering layer N's first norm and\n"
    "that norm's output, on the fixed input of attn. For a tensor [..., D]:\n"
    "the tensor and each value of the norm switch on it ({norm:*}; no\n"
    "parameters): LayerNorm makes every mean 0 and rms 1, RMSNorm only the rms.\n"
    "stats > s.csv: columns layer,series,token,mean,rms (for a tensor\n"
    "series,token,mean,rms).";

const bl_command bl_cmd_stats_entry = {
    .name = "stats",
    .synopsis = "stats [MODEL|TENSOR] [layer=0] [image=0]",
    .help = help,
    .help_more = bl_fig_size_help,
    .complete = bl_complete_modelvar,
    .run = cmd_stats,
    .flags = BL_WRITES_PICTURE,
};
