/* norms.c - LayerNorm, RMSNorm and QK-norm over the last dimension, forward and backward.
 *
 * Forward saves the per-row statistics (mean and 1/std, or 1/rms) so backward needs no second
 * pass over the statistics; the formulas are those of llm.c's layernorm_backward:
 *   xhat = (x - mean) * rstd,  dnorm = dy * w
 *   dx  += rstd * (dnorm - mean(dnorm) - xhat * mean(dnorm * xhat))     (LayerNorm)
 *   dx  += rstd * (dnorm - xhat * mean(dnorm * xhat))                   (RMSNorm: no mean)
 *   dw  += sum over rows of dy * xhat,   db += sum over rows of dy
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/vmath.h"
#include <math.h>
#include <string.h>

/* Which normalisation: LayerNorm, or RMSNorm (no mean, no bias). */
enum { NORM_LAYER = 0, NORM_RMS = 1 };

/* Rows are handled in blocks of NORM_BLK by kernels compiled for AVX-512 / AVX2 / baseline
 * (BL_SIMD_CLONES; OpenMP regions themselves are not cloned), blocks spread over threads.
 * Row sums use NORM_LANES partial sums added in a fixed order (GCC does not vectorise an
 * `omp simd reduction` nested in the row loop), so every clone gives the same bits. */
enum { NORM_BLK = 32, NORM_LANES = BL_NN_LANES };

/* Forward of rows [r0, r1): statistics in double (D can be large and the variance small),
 * y = (x - mean) * rstd (* w) (+ b). mean == NULL for RMSNorm. */
BL_SIMD_CLONES static void norm_fw_rows(const float *restrict x, float *restrict y,
                                        float *restrict mean, float *restrict rstd,
                                        const float *restrict w, const float *restrict b,
                                        size_t r0, size_t r1, int D, float eps)
{
    for (size_t r = r0; r < r1; r++) {
        const float *xr = x + r * D;
        float *yr = y + r * D;
        float mf, s;
        bl_nn_norm_row_stats(xr, D, mean != NULL, eps, &mf, &s);
        if (mean) mean[r] = mf;
        rstd[r] = s;
        if (w || b) {
            for (int i = 0; i < D; i++) {
                float o = (xr[i] - mf) * s;
                if (w) o *= w[i];
                if (b) o += b[i];
                yr[i] = o;
            }
        } else {
#pragma omp simd
            for (int i = 0; i < D; i++) yr[i] = (xr[i] - mf) * s;
        }
    }
}

/* dx of rows [r0, r1), written (assign) or added into dx (mean == NULL: RMSNorm).
 * dn = dy * w is formed in `dn` (D floats of scratch) first when there is a weight. */
BL_SIMD_CLONES static void norm_bw_rows(const float *restrict x, const float *restrict dy,
                                        float *restrict dx, const float *restrict mean,
                                        const float *restrict rstd, const float *restrict w,
                                        size_t r0, size_t r1, int D, float *restrict dn, int assign)
{
    for (size_t r = r0; r < r1; r++) {
        const float *g = dy + r * D;
        if (w) {
            for (int i = 0; i < D; i++) dn[i] = g[i] * w[i];
            g = dn;
        }
        bl_nn_norm_row_bw(x + r * D, g, dx + r * D, mean ? mean[r] : 0.0f, rstd[r], D, mean != NULL, assign);
    }
}

/* dw += sum dy * xhat, db += sum dy over rows [r0, r1) into per-thread accumulators. */
BL_SIMD_CLONES static void norm_bw_params(const float *restrict x, const float *restrict dy,
                                          const float *restrict mean, const float *restrict rstd,
                                          float *restrict dw, float *restrict db, size_t r0,
                                          size_t r1, int D)
{
    for (size_t r = r0; r < r1; r++) {
        const float *xr = x + r * D, *dyr = dy + r * D;
        float m = mean ? mean[r] : 0.0f, s = rstd[r];
        if (dw) {
#pragma omp simd
            for (int i = 0; i < D; i++) dw[i] += dyr[i] * ((xr[i] - m) * s);
        }
        if (db) {
#pragma omp simd
            for (int i = 0; i < D; i++) db[i] += dyr[i];
        }
    }
}

typedef struct {
    int kind;               /* NORM_LAYER or NORM_RMS */
    int D;                  /* the normalised (last) dimension */
    float eps;
} norm_args;

/* node: in = {x, w, b}, save = {mean (LayerNorm only), rstd, dy * w scratch} */
static void norm_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    norm_args a;
    BL_NODE_LOAD(n, a);
    int kind = a.kind, D = a.D;
    size_t N = bl_nn_rows(x), nblk = (N + NORM_BLK - 1) / NORM_BLK;
    const float *mean = kind == NORM_LAYER ? n->save[0]->data : NULL;
    const float *rstd = n->save[1]->data;
    const float *dy = y->grad;

    if (x->grad) {
        float *dn = w ? n->save[2]->data : NULL;   /* [threads, D] scratch for dy * w */
        int assign = bl_grad_take(x);               /* x's grad still zero: write it */
#pragma omp parallel for schedule(static) if (N * (size_t)D > BL_NN_PAR_MIN)
        for (size_t k = 0; k < nblk; k++)
            norm_bw_rows(x->data, dy, x->grad, mean, rstd, w ? w->data : NULL, k * NORM_BLK,
                         k * NORM_BLK + NORM_BLK < N ? k * NORM_BLK + NORM_BLK : N, D,
                         dn ? dn + (size_t)bl_nn_thread() * D : NULL, assign);
    }
    /* the parameter grads: one pass over the rows (few rows per parameter: no threads) */
    if ((w && w->grad) || (b && b->grad))
        norm_bw_params(x->data, dy, mean, rstd, w && w->grad ? w->grad : NULL,
                       b && b->grad ? b->grad : NULL, 0, N, D);
}

/* The forward of both norms; `id` is the op on the tape and names it in errors. */
static bl_tensor *norm_forward(bl_graph *g, bl_op id, int kind, bl_tensor *x, bl_tensor *w,
                               bl_tensor *b, float eps)
{
    const char *op = bl_op_name(id);
    if (!x || x->ndim < 1) {
        bl_fail("%s: x must have at least 1 dimension", op);
        return NULL;
    }
    int D = x->shape[x->ndim - 1];
    if (bl_nn_check_vec(op, "weight", w, D) < 0 || bl_nn_check_vec(op, "bias", b, D) < 0)
        return NULL;
    if (!(eps >= 0.0f) || isinf(eps)) {
        bl_fail("%s: eps must be a finite number >= 0, got %g", op, (double)eps);
        return NULL;
    }
    size_t N = bl_nn_rows(x);
    int grad = BL_WANTS_GRAD(g, x, w, b);
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, grad);
    if (!y) return NULL;
    int rows = (int)N;
    bl_tensor *mean = kind == NORM_LAYER ? bl_graph_tensor(g, 1, &rows, 0) : NULL;
    bl_tensor *rstd = bl_graph_tensor(g, 1, &rows, 0);
    if ((kind == NORM_LAYER && !mean) || !rstd) return NULL;
    /* backward's per-thread dy * w rows, sized now so that backward never allocates */
    bl_tensor *dn = w && grad ? bl_graph_tensor(g, 2, (int[]){bl_nn_max_threads(), D}, 0) : NULL;
    if (w && grad && !dn) return NULL;

    size_t nblk = (N + NORM_BLK - 1) / NORM_BLK;
#pragma omp parallel for schedule(static) if (N * (size_t)D > BL_NN_PAR_MIN)
    for (size_t k = 0; k < nblk; k++)
        norm_fw_rows(x->data, y->data, mean ? mean->data : NULL, rstd->data, w ? w->data : NULL,
                     b ? b->data : NULL, k * NORM_BLK,
                     k * NORM_BLK + NORM_BLK < N ? k * NORM_BLK + NORM_BLK : N, D, eps);

    bl_node *n = bl_graph_node(g, id, norm_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
        n->save[0] = mean;
        n->save[1] = rstd;
        n->save[2] = dn;
        n->assigns = 1u;
        BL_NODE_SAVE(n, ((norm_args){kind, D, eps}));
    }
    return y;
}

bl_tensor *bl_layernorm(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, float eps)
{
    return norm_forward(g, BL_OP_LAYERNORM, NORM_LAYER, x, w, b, eps);
}

bl_tensor *bl_rmsnorm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps)
{
    return norm_forward(g, BL_OP_RMSNORM, NORM_RMS, x, w, NULL, eps);
}

bl_tensor *bl_qk_norm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps)
{
    return norm_forward(g, BL_OP_QK_NORM, NORM_RMS, x, w, NULL, eps);
}

/* ---------------------------------------------------------------------------------------
 * norm_modulate: DiT's modulate(norm(x), shift, scale) as one op, image by image:
 *   y = xhat (1 + scale[b]) + shift[b],   xhat = (x - mean) rstd   (LayerNorm, or RMSNorm
 *   without the mean), no affine weights (the modulation plays that role).
 * Backward per row:  dshift[b] += dy,  dscale[b] += dy xhat,  then the norm's backward with
 * g = dy (1 + scale[b]). The same formulas, in the same order, as bl_layernorm/bl_rmsnorm
 * followed by bl_modulate, without the [B, T, D] norm output in between.
 */
BL_SIMD_CLONES static void normmod_fw_img(const float *restrict x, float *restrict y,
                                          float *restrict mean, float *restrict rstd,
                                          const float *restrict sh, const float *restrict sc,
                                          float *restrict tap, int T, int D, int layer, float eps)
{
    for (int t = 0; t < T; t++) {
        const float *xr = x + (size_t)t * D;
        float *yr = y + (size_t)t * D, m, s;
        bl_nn_norm_row_stats(xr, D, layer, eps, &m, &s);
        if (mean) mean[t] = m;
        rstd[t] = s;
#pragma omp simd
        for (int i = 0; i < D; i++) yr[i] = (xr[i] - m) * s * (1.0f + sc[i]) + sh[i];
        if (tap) {
#pragma omp simd
            for (int i = 0; i < D; i++) tap[(size_t)t * D + i] = (xr[i] - m) * s;
        }
    }
}

BL_SIMD_CLONES static void normmod_bw_img(const float *restrict x, const float *restrict dy,
                                          float *restrict dx, const float *restrict mean,
                                          const float *restrict rstd, const float *restrict sc,
                                          float *restrict dsh, float *restrict dsc,
                                          float *restrict dn, int T, int D, int layer, int assign)
{
    for (int t = 0; t < T; t++) {
        const float *xr = x + (size_t)t * D, *g = dy + (size_t)t * D;
        float m = mean ? mean[t] : 0.0f, s = rstd[t];
        if (dsh) {
#pragma omp simd
            for (int i = 0; i < D; i++) dsh[i] += g[i];
        }
        if (dsc) {
#pragma omp simd
            for (int i = 0; i < D; i++) dsc[i] += g[i] * ((xr[i] - m) * s);
        }
        if (dx) {
#pragma omp simd
            for (int i = 0; i < D; i++) dn[i] = g[i] * (1.0f + sc[i]);
            bl_nn_norm_row_bw(xr, dn, dx + (size_t)t * D, m, s, D, layer, assign);
        }
    }
}

/* node: in = {x, shift, scale}, save = {mean (LayerNorm) or NULL, rstd, scratch [threads, D]};
 * assigns x */
static void norm_modulate_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *sh = n->in[1], *sc = n->in[2], *y = n->out;
    norm_args a;
    BL_NODE_LOAD(n, a);
    int B = x->shape[0], T = x->shape[1], D = x->shape[2], layer = a.kind == NORM_LAYER;
    int assign = x->grad && bl_grad_take(x);
    const float *mean = n->save[0] ? n->save[0]->data : NULL, *rstd = n->save[1]->data;
    float *scratch = n->save[2]->data;
#pragma omp parallel for schedule(static) if (x->numel > BL_NN_PAR_MIN)
    for (int b = 0; b < B; b++) {
        size_t o = (size_t)b * T * D, ob = (size_t)b * D, ot = (size_t)b * T;
        normmod_bw_img(x->data + o, y->grad + o, x->grad ? x->grad + o : NULL,
                       mean ? mean + ot : NULL, rstd + ot, sc->data + ob,
                       sh->grad ? sh->grad + ob : NULL, sc->grad ? sc->grad + ob : NULL,
                       scratch + (size_t)bl_nn_thread() * D, T, D, layer, assign);
    }
}

/* The forward of both fused norms; `id` is the op on the tape and names it in errors. */
static bl_tensor *norm_modulate(bl_graph *g, bl_op id, int kind, bl_tensor *x, bl_tensor *shift,
                                bl_tensor *scale, float eps, bl_tensor **tap)
{
    char bx[64], b1[64], b2[64];
    int rms = kind == NORM_RMS;
    const char *op = bl_op_name(id);
    if (tap) *tap = NULL;
    if (!x || x->ndim != 3 || !shift || !scale || shift->ndim != 2 ||
        !bl_same_shape(shift, scale) || shift->shape[0] != x->shape[0] ||
        shift->shape[1] != x->shape[2]) {
        bl_fail("%s: x must be [B, T, D] with shift and scale [B, D], got x %s shift %s scale %s",
                op, bl_nn_shape(x, bx, sizeof bx), bl_nn_shape(shift, b1, sizeof b1),
                bl_nn_shape(scale, b2, sizeof b2));
        return NULL;
    }
    if (!(eps >= 0.0f) || isinf(eps)) {
        bl_fail("%s: eps must be a finite number >= 0, got %g", op, (double)eps);
        return NULL;
    }
    int B = x->shape[0], T = x->shape[1], D = x->shape[2], layer = !rms, rows = B * T;
    int grad = BL_WANTS_GRAD(g, x, shift, scale);
    bl_tensor *y = bl_graph_tensor(g, 3, x->shape, grad);
    bl_tensor *mean = layer ? bl_graph_tensor(g, 1, &rows, 0) : NULL;
    bl_tensor *rstd = bl_graph_tensor(g, 1, &rows, 0);
    bl_tensor *scratch = grad ? bl_graph_tensor(g, 2, (int[]){bl_nn_max_threads(), D}, 0) : NULL;
    bl_tensor *tp = tap ? bl_graph_tensor(g, 3, (int[]){1, T, D}, 0) : NULL;
    if (!y || (layer && !mean) || !rstd || (grad && !scratch) || (tap && !tp)) return NULL;
#pragma omp parallel for schedule(static) if (x->numel > BL_NN_PAR_MIN)
    for (int b = 0; b < B; b++) {
        size_t o = (size_t)b * T * D, ob = (size_t)b * D, ot = (size_t)b * T;
        normmod_fw_img(x->data + o, y->data + o, mean ? mean->data + ot : NULL, rstd->data + ot,
                       shift->data + ob, scale->data + ob, b == 0 && tp ? tp->data : NULL, T, D,
                       layer, eps);
    }
    if (tap) *tap = tp;
    bl_node *n = bl_graph_node(g, id, norm_modulate_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = shift;
        n->in[2] = scale;
        n->save[0] = mean;
        n->save[1] = rstd;
        n->save[2] = scratch;
        BL_NODE_SAVE(n, ((norm_args){layer ? NORM_LAYER : NORM_RMS, D, eps}));
        n->assigns = 1u;
    }
    return y;
}

bl_tensor *bl_layernorm_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale, float eps,
                                 bl_tensor **tap)
{
    return norm_modulate(g, BL_OP_LAYERNORM_MODULATE, NORM_LAYER, x, shift, scale, eps, tap);
}

bl_tensor *bl_rmsnorm_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale, float eps,
                               bl_tensor **tap)
{
    return norm_modulate(g, BL_OP_RMSNORM_MODULATE, NORM_RMS, x, shift, scale, eps, tap);
}

/* ---------------------------------------------------------------------------------------
 * The norms the `norm` switch picks from (nn.h), one row each: its value and its kernels.
 */
static bl_tensor *layernorm_row(bl_graph *g, bl_tensor *x, const bl_norm_params *p, float eps)
{
    return bl_layernorm(g, x, p->weight, p->bias, eps);
}

static bl_tensor *rmsnorm_row(bl_graph *g, bl_tensor *x, const bl_norm_params *p, float eps)
{
    return bl_rmsnorm(g, x, p->weight, eps);
}

/* DiT's adaLN norms carry no affine parameters (elementwise_affine=False): p is unused */
static bl_tensor *layernorm_modulate_row(bl_graph *g, bl_tensor *x, const bl_norm_params *p,
                                         bl_tensor *shift, bl_tensor *scale, float eps, bl_tensor **tap)
{
    (void)p;
    return bl_layernorm_modulate(g, x, shift, scale, eps, tap);
}

static bl_tensor *rmsnorm_modulate_row(bl_graph *g, bl_tensor *x, const bl_norm_params *p,
                                       bl_tensor *shift, bl_tensor *scale, float eps, bl_tensor **tap)
{
    (void)p;
    return bl_rmsnorm_modulate(g, x, shift, scale, eps, tap);
}

const bl_norm_def bl_norm_defs[] = {
    { "layernorm", BL_NORM_WEIGHT | BL_NORM_BIAS, 0.0f, layernorm_row, layernorm_modulate_row },
    { "rmsnorm", BL_NORM_WEIGHT, 0.0f, rmsnorm_row, rmsnorm_modulate_row },
    { NULL, 0, 0.0f, NULL, NULL },
};
