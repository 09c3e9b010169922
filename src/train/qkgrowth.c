/* qkgrowth.c - attention-logit growth with and without QK-norm (see qkgrowth.h). */
#include "train/qkgrowth.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/rng.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>

enum { QKG_D = 64 }; /* the model width of the x.W form */

bl_qk_opts bl_qk_opts_default(void)
{
    return (bl_qk_opts){ .random = 1, .tokens = 64, .head_dim = 32, .seed = 0 };
}

static int check_sizes(int T, int hd)
{
    if (T < 2 || T > BL_QK_MAX_TOKENS)
        return bl_fail("qk growth: tokens must be in [2, %d], got %d", BL_QK_MAX_TOKENS, T);
    if (hd < 2 || hd > BL_QK_MAX_HEAD_DIM)
        return bl_fail("qk growth: head_dim must be in [2, %d], got %d", BL_QK_MAX_HEAD_DIM, hd);
    return 0;
}

static int check_scale(double s)
{
    if (!(s > 0 && s <= BL_QK_MAX_SCALE))
        return bl_fail("qk growth: scales must be in (0, %g], got %g", BL_QK_MAX_SCALE, s);
    return 0;
}

int bl_qk_logit_stats(const float *q, const float *k, int T, int hd, double scale, int qk_norm, float *max_logit,
                      float *top_weight)
{
    if (check_sizes(T, hd) < 0 || check_scale(scale) < 0) return -1;
    bl_graph *g = bl_graph_new();
    bl_tensor *q0 = bl_tensor_from(4, (int[]){ 1, 1, T, hd }, q), *k0 = bl_tensor_from(4, (int[]){ 1, 1, T, hd }, k);
    int rc = g && q0 && k0 ? 0 : -1;
    bl_tensor *qs = NULL, *ks = NULL, *probs = NULL;
    if (rc == 0) {
        qs = bl_scale(g, q0, (float)scale);
        ks = qs ? bl_scale(g, k0, (float)scale) : NULL;
        if (ks && qk_norm) {
            qs = bl_rmsnorm(g, qs, NULL, 1e-6f);
            ks = qs ? bl_rmsnorm(g, ks, NULL, 1e-6f) : NULL;
        }
        /* softmax(q k^T / sqrt(hd)) v with v = k: only the weights are used */
        if (!ks || !bl_attention(g, qs, ks, ks, 0, NULL, 0, &probs) || !probs) rc = -1;
    }
    if (rc == 0) {
        double m = 0, top = 0, inv = 1.0 / sqrt((double)hd);
        for (int t = 0; t < T; t++) {
            float best = 0;
            for (int s = 0; s < T; s++) {
                double dot = 0;
                for (int i = 0; i < hd; i++) dot += (double)qs->data[t * hd + i] * ks->data[s * hd + i];
                m = fmax(m, fabs(dot * inv));
                best = fmaxf(best, probs->data[t * T + s]);
            }
            top += best;
        }
        top /= T;
        if (!isfinite(m) || !isfinite(top))
            rc = bl_fail("qk growth: the logits at scale %g are not finite (max |logit| %g)", scale, m);
        else {
            *max_logit = (float)m;
            *top_weight = (float)top;
        }
    }
    if (rc < 0 && !bl_error()[0]) bl_fail("qk growth: out of memory");
    bl_tensor_free(q0);
    bl_tensor_free(k0);
    bl_graph_free(g);
    return rc;
}

/* q, k [T, hd] of the form o selects (see qkgrowth.h), unscaled. */
static int draw_qk(const bl_qk_opts *o, float *q, float *k)
{
    int T = o->tokens, hd = o->head_dim;
    bl_rng r;
    if (o->random) {
        bl_rng_named(&r, o->seed, "qk growth q");
        bl_rng_fill_normal(&r, q, (size_t)T * hd, 0, 1);
        bl_rng_named(&r, o->seed, "qk growth k");
        bl_rng_fill_normal(&r, k, (size_t)T * hd, 0, 1);
        return 0;
    }
    bl_tensor *x = bl_tensor_new2(T, QKG_D), *wq = bl_tensor_new2(hd, QKG_D), *wk = bl_tensor_new2(hd, QKG_D);
    bl_graph *g = bl_graph_new();
    int rc = x && wq && wk && g ? 0 : bl_fail("qk growth: out of memory");
    if (rc == 0) {
        bl_rng_named(&r, o->seed, "qk growth x");
        bl_rng_fill_normal(&r, x->data, x->numel, 0, 1);
        bl_rng_named(&r, o->seed, "qk growth w");
        float b = 1.0f / sqrtf((float)QKG_D);
        bl_rng_fill_uniform(&r, wq->data, wq->numel, -b, b);
        bl_rng_fill_uniform(&r, wk->data, wk->numel, -b, b);
        bl_tensor *tq = bl_linear(g, x, wq, NULL), *tk = tq ? bl_linear(g, x, wk, NULL) : NULL;
        if (!tk) rc = -1;
        for (size_t i = 0; rc == 0 && i < (size_t)T * hd; i++) q[i] = tq->data[i], k[i] = tk->data[i];
    }
    bl_tensor_free(x);
    bl_tensor_free(wq);
    bl_tensor_free(wk);
    bl_graph_free(g);
    return rc;
}

int bl_qk_growth(const bl_qk_opts *o, const double *scales, int n, int qk_norm, float *max_logit, float *top_weight)
{
    bl_qk_opts d = bl_qk_opts_default();
    if (!o) o = &d;
    if (n < 1) return bl_fail("qk growth: no scales");
    if (check_sizes(o->tokens, o->head_dim) < 0) return -1;
    for (int i = 0; i < n; i++)
        if (check_scale(scales[i]) < 0) return -1;
    size_t sz = (size_t)o->tokens * o->head_dim;
    float *q = malloc(sz * sizeof *q), *k = malloc(sz * sizeof *k);
    int rc = q && k ? draw_qk(o, q, k) : bl_fail("qk growth: out of memory");
    for (int i = 0; rc == 0 && i < n; i++)
        rc = bl_qk_logit_stats(q, k, o->tokens, o->head_dim, scales[i], qk_norm, max_logit + i, top_weight + i);
    free(q);
    free(k);
    return rc;
}
