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
#include <math.h>
#include <string.h>

/* Which normalisation a node is: iarg[0] of the node. */
enum { NORM_LAYER = 0, NORM_RMS = 1 };

/* node: in = {x, w, b}, save = {mean (LayerNorm only), rstd}, iarg = {kind, D} */
static void norm_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    int kind = n->iarg[0], D = n->iarg[1];
    size_t N = bl_nn_rows(x);
    const float *mean = kind == NORM_LAYER ? n->save[0]->data : NULL;
    const float *rstd = n->save[1]->data;
    const float *dy = y->grad;

    if (x->grad) {
#pragma omp parallel for schedule(static) if (N * (size_t)D > BL_NN_PAR_MIN)
        for (size_t r = 0; r < N; r++) {
            const float *xr = x->data + r * D, *dyr = dy + r * D;
            float *dxr = x->grad + r * D;
            float m = mean ? mean[r] : 0.0f, s = rstd[r];
            /* dnorm_mean = mean(dnorm), dnorm_xhat = mean(dnorm * xhat) */
            float dmean = 0.0f, dxhat = 0.0f;
            for (int i = 0; i < D; i++) {
                float dn = dyr[i] * (w ? w->data[i] : 1.0f);
                dmean += dn;
                dxhat += dn * (xr[i] - m) * s;
            }
            dmean = kind == NORM_LAYER ? dmean / D : 0.0f;
            dxhat /= D;
            for (int i = 0; i < D; i++) {
                float dn = dyr[i] * (w ? w->data[i] : 1.0f);
                dxr[i] += s * (dn - dmean - (xr[i] - m) * s * dxhat);
            }
        }
    }
    if ((w && w->grad) || (b && b->grad)) {
        for (size_t r = 0; r < N; r++) {
            const float *xr = x->data + r * D, *dyr = dy + r * D;
            float m = mean ? mean[r] : 0.0f, s = rstd[r];
            if (w && w->grad)
                for (int i = 0; i < D; i++) w->grad[i] += dyr[i] * (xr[i] - m) * s;
            if (b && b->grad)
                for (int i = 0; i < D; i++) b->grad[i] += dyr[i];
        }
    }
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

#pragma omp parallel for schedule(static) if (N * (size_t)D > BL_NN_PAR_MIN)
    for (size_t r = 0; r < N; r++) {
        const float *xr = x->data + r * D;
        float *yr = y->data + r * D;
        /* statistics in double: D can be large and the variance small */
        double m = 0.0, v = 0.0;
        if (kind == NORM_LAYER) {
            for (int i = 0; i < D; i++) m += xr[i];
            m /= D;
        }
        for (int i = 0; i < D; i++) v += ((double)xr[i] - m) * ((double)xr[i] - m);
        v /= D;
        float s = (float)(1.0 / sqrt(v + (double)eps));
        float mf = (float)m;
        if (mean) mean->data[r] = mf;
        rstd->data[r] = s;
        for (int i = 0; i < D; i++) {
            float o = (xr[i] - mf) * s;
            if (w) o *= w->data[i];
            if (b) o += b->data[i];
            yr[i] = o;
        }
    }

    bl_node *n = bl_graph_node(g, op, norm_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = w;
        n->in[2] = b;
        n->save[0] = mean;
        n->save[1] = rstd;
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
