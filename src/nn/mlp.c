/* mlp.c - the two feed-forward blocks: the GELU FFN and SwiGLU, with the fused gate
 * silu(a) * b and the SwiGLU hidden-width rule.
 *
 *   gelu:   fc2(gelu(fc1 x))                 (GPT-2 / nanoGPT MLP, DiT Mlp from timm)
 *   swiglu: w3(silu(w1 x) * w2 x)            (Shazeer 2020, "GLU Variants Improve Transformer";
 *                                             LLaMA FeedForward: self.w2(F.silu(self.w1(x)) * self.w3(x)))
 * The FFNs are compositions of core ops (bl_linear_gelu, bl_linear) and the gate below, so backward comes
 * from those ops' nodes.
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/ops.h"
#include "core/vmath.h"
#include <math.h>

/* The gate on n elements, compiled for AVX-512 / AVX2 too (bl_vexpf: vectorised expf):
 *   y = silu(a) b,  silu(a) = a sig(a),  silu'(a) = sig(a) (1 + a (1 - sig(a)))
 *   da += dy b silu'(a),  db += dy silu(a)   (either grad may be NULL)
 * as PyTorch's autograd groups them: silu(a) is formed before dy multiplies it, so db at
 * a = -3e38 is dy (-0) = 0, where (dy a) sig overflowed to -inf * 0 = NaN. */
BL_SIMD_CLONES static void swiglu_fw_run(const float *restrict a, const float *restrict b,
                                         float *restrict y, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) y[i] = a[i] / (1.0f + bl_vexpf(-a[i])) * b[i];
}

BL_SIMD_CLONES static void swiglu_bw_run(const float *restrict a, const float *restrict b,
                                         const float *restrict dy, float *restrict da,
                                         float *restrict db, size_t n)
{
    if (da && db) { /* both (training): one sigmoid per element */
#pragma omp simd
        for (size_t i = 0; i < n; i++) {
            float x = a[i], s = 1.0f / (1.0f + bl_vexpf(-x));
            da[i] += dy[i] * b[i] * s * (1.0f + x * (1.0f - s));
            db[i] += dy[i] * (x * s);
        }
        return;
    }
    if (da) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) {
            float x = a[i], s = 1.0f / (1.0f + bl_vexpf(-x));
            da[i] += dy[i] * b[i] * s * (1.0f + x * (1.0f - s));
        }
    }
    if (db) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) db[i] += dy[i] * (a[i] / (1.0f + bl_vexpf(-a[i])));
    }
}

enum { SWIGLU_CHUNK = 1 << 14 };

/* node: in = {a, b} */
static void swiglu_backward(bl_node *n)
{
    bl_tensor *a = n->in[0], *b = n->in[1], *y = n->out;
    size_t N = y->numel, nch = (N + SWIGLU_CHUNK - 1) / SWIGLU_CHUNK;
#pragma omp parallel for schedule(static) if (N > BL_NN_PAR_MIN)
    for (size_t c = 0; c < nch; c++) {
        size_t o = c * SWIGLU_CHUNK, len = N - o < SWIGLU_CHUNK ? N - o : SWIGLU_CHUNK;
        swiglu_bw_run(a->data + o, b->data + o, y->grad + o, a->grad ? a->grad + o : NULL,
                      b->grad ? b->grad + o : NULL, len);
    }
}

bl_tensor *bl_swiglu(bl_graph *g, bl_tensor *a, bl_tensor *b)
{
    char ba[64], bb[64];
    if (!a || !b || !bl_same_shape(a, b)) {
        bl_fail("swiglu: gate a %s and value b %s must have the same shape",
                bl_nn_shape(a, ba, sizeof ba), bl_nn_shape(b, bb, sizeof bb));
        return NULL;
    }
    bl_tensor *y = bl_graph_tensor(g, a->ndim, a->shape, BL_WANTS_GRAD(g, a, b));
    if (!y) return NULL;
    size_t N = y->numel, nch = (N + SWIGLU_CHUNK - 1) / SWIGLU_CHUNK;
#pragma omp parallel for schedule(static) if (N > BL_NN_PAR_MIN)
    for (size_t c = 0; c < nch; c++) {
        size_t o = c * SWIGLU_CHUNK, len = N - o < SWIGLU_CHUNK ? N - o : SWIGLU_CHUNK;
        swiglu_fw_run(a->data + o, b->data + o, y->data + o, len);
    }
    bl_node *n = bl_graph_node(g, "swiglu", swiglu_backward, y);
    if (n) {
        n->in[0] = a;
        n->in[1] = b;
    }
    return y;
}

/* The FFN's output projection, added to the residual r when r != NULL (one op). */
static bl_tensor *ffn_out(bl_graph *g, bl_tensor *h, bl_tensor *w, bl_tensor *b, bl_tensor *r)
{
    return r ? bl_linear_add(g, h, w, b, r) : bl_linear(g, h, w, b);
}

bl_tensor *bl_mlp_gelu_add(bl_graph *g, bl_tensor *x, bl_tensor *fc1_w, bl_tensor *fc1_b,
                           bl_tensor *fc2_w, bl_tensor *fc2_b, bl_tensor *r)
{
    /* self.c_proj(self.gelu(self.c_fc(x))) */
    bl_tensor *a = bl_linear_gelu(g, x, fc1_w, fc1_b);   /* fused: see ops.h */
    bl_tensor *y = a ? ffn_out(g, a, fc2_w, fc2_b, r) : NULL;
    if (!y) bl_error_prefix("mlp_gelu");
    return y;
}

bl_tensor *bl_mlp_gelu(bl_graph *g, bl_tensor *x, bl_tensor *fc1_w, bl_tensor *fc1_b,
                       bl_tensor *fc2_w, bl_tensor *fc2_b)
{
    return bl_mlp_gelu_add(g, x, fc1_w, fc1_b, fc2_w, fc2_b, NULL);
}

bl_tensor *bl_mlp_swiglu_add(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1,
                             bl_tensor *w2, bl_tensor *b2, bl_tensor *w3, bl_tensor *b3,
                             bl_tensor *r)
{
    /* self.w3(F.silu(self.w1(x)) * self.w2(x)) */
    bl_tensor *a = bl_linear(g, x, w1, b1);
    bl_tensor *v = a ? bl_linear(g, x, w2, b2) : NULL;
    bl_tensor *h = v ? bl_swiglu(g, a, v) : NULL;
    bl_tensor *y = h ? ffn_out(g, h, w3, b3, r) : NULL;
    if (!y) bl_error_prefix("mlp_swiglu");
    return y;
}

bl_tensor *bl_mlp_swiglu(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1, bl_tensor *w2,
                         bl_tensor *b2, bl_tensor *w3, bl_tensor *b3)
{
    return bl_mlp_swiglu_add(g, x, w1, b1, w2, b2, w3, b3, NULL);
}

int bl_swiglu_hidden(int dim, float mlp_ratio, int multiple_of)
{
    if (dim < 1) return bl_fail("swiglu_hidden: dim must be >= 1, got %d", dim);
    if (!(mlp_ratio > 0.0f) || isinf(mlp_ratio))
        return bl_fail("swiglu_hidden: mlp_ratio must be > 0, got %g", (double)mlp_ratio);
    if (multiple_of < 0)
        return bl_fail("swiglu_hidden: multiple_of must be >= 0, got %d", multiple_of);
    /* int(2 * mlp_ratio * dim / 3) in double, as Python computes it */
    double h = floor(2.0 * (double)mlp_ratio * dim / 3.0);
    if (h < 1) h = 1;
    if (h > 1 << 30) return bl_fail("swiglu_hidden: hidden width %g is absurd", h);
    int hidden = (int)h;
    if (multiple_of > 0) hidden = multiple_of * ((hidden + multiple_of - 1) / multiple_of);
    return hidden;
}
