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

/* Which normalisation a node is: iarg[0] of the node. */
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
        double m = mean ? bl_nn_row_moment(xr, D, 0.0, 0) / D : 0.0;
        double v = bl_nn_row_moment(xr, D, m, 1) / D;
        float s = (float)(1.0 / sqrt(v + (double)eps)), mf = (float)m;
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

/* dx of rows [r0, r1), added into dx (llm.c layernorm_backward; mean == NULL: RMSNorm).
 * dn = dy * w is formed in `dn` (D floats of scratch) first when there is a weight. */
BL_SIMD_CLONES static void norm_bw_rows(const float *restrict x, const float *restrict dy,
                                        float *restrict dx, const float *restrict mean,
                                        const float *restrict rstd, const float *restrict w,
                                        size_t r0, size_t r1, int D, float *restrict dn)
{
    for (size_t r = r0; r < r1; r++) {
        const float *xr = x + r * D, *g = dy + r * D;
        float *dxr = dx + r * D;
        float m = mean ? mean[r] : 0.0f, s = rstd[r];
        if (w) {
            for (int i = 0; i < D; i++) dn[i] = g[i] * w[i];
            g = dn;
        }
        /* dnorm_mean = mean(dnorm), dnorm_xhat = mean(dnorm * xhat) */
        float a1[NORM_LANES] = {0}, a2[NORM_LANES] = {0}, dmean = 0.0f, dxhat = 0.0f;
        int i = 0;
        for (; i + NORM_LANES <= D; i += NORM_LANES)
            for (int j = 0; j < NORM_LANES; j++) {
                a1[j] += g[i + j];
                a2[j] += g[i + j] * ((xr[i + j] - m) * s);
            }
        for (; i < D; i++) {
            dmean += g[i];
            dxhat += g[i] * ((xr[i] - m) * s);
        }
        dmean += bl_nn_lanes_sum_f(a1);
        dxhat += bl_nn_lanes_sum_f(a2);
        dmean = mean ? dmean / D : 0.0f;
        dxhat /= D;
#pragma omp simd
        for (i = 0; i < D; i++) dxr[i] += s * (g[i] - dmean - (xr[i] - m) * s * dxhat);
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

/* node: in = {x, w, b}, save = {mean (LayerNorm only), rstd, dy * w scratch}, iarg = {kind, D} */
static void norm_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    int kind = n->iarg[0], D = n->iarg[1];
    size_t N = bl_nn_rows(x), nblk = (N + NORM_BLK - 1) / NORM_BLK;
    const float *mean = kind == NORM_LAYER ? n->save[0]->data : NULL;
    const float *rstd = n->save[1]->data;
    const float *dy = y->grad;

    if (x->grad) {
        float *dn = w ? n->save[2]->data : NULL;   /* [threads, D] scratch for dy * w */
#pragma omp parallel for schedule(static) if (N * (size_t)D > BL_NN_PAR_MIN)
        for (size_t k = 0; k < nblk; k++)
            norm_bw_rows(x->data, dy, x->grad, mean, rstd, w ? w->data : NULL, k * NORM_BLK,
                         k * NORM_BLK + NORM_BLK < N ? k * NORM_BLK + NORM_BLK : N, D,
                         dn ? dn + (size_t)bl_nn_thread() * D : NULL);
    }
    /* the parameter grads: one pass over the rows (few rows per parameter: no threads) */
    if ((w && w->grad) || (b && b->grad))
        norm_bw_params(x->data, dy, mean, rstd, w && w->grad ? w->grad : NULL,
                       b && b->grad ? b->grad : NULL, 0, N, D);
}

/* The forward of both norms; `op` names the op in errors and on the tape. */
static bl_tensor *norm_forward(bl_graph *g, const char *op, int kind, bl_tensor *x, bl_tensor *w,
                               bl_tensor *b, float eps)
{
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

    bl_node *n = bl_graph_node(g, op, norm_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
        n->save[0] = mean;
        n->save[1] = rstd;
        n->save[2] = dn;
        n->iarg[0] = kind;
        n->iarg[1] = D;
        n->farg[0] = eps;
    }
    return y;
}

bl_tensor *bl_layernorm(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, float eps)
{
    return norm_forward(g, "layernorm", NORM_LAYER, x, w, b, eps);
}

bl_tensor *bl_rmsnorm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps)
{
    return norm_forward(g, "rmsnorm", NORM_RMS, x, w, NULL, eps);
}

bl_tensor *bl_qk_norm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps)
{
    return norm_forward(g, "qk_norm", NORM_RMS, x, w, NULL, eps);
}
