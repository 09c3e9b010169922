/* mlp.c - the two feed-forward blocks: the GELU FFN and SwiGLU, with the fused gate
 * silu(a) * b and the SwiGLU hidden-width rule.
 *
 *   gelu:   fc2(gelu(fc1 x))                 (GPT-2 / nanoGPT MLP, DiT Mlp from timm)
 *   swiglu: w3(silu(w1 x) * w2 x)            (Shazeer 2020, "GLU Variants Improve Transformer";
 *                                             LLaMA FeedForward: self.w2(F.silu(self.w1(x)) * self.w3(x)))
 * The GELU FFN is a composition of core ops (bl_linear_gelu, bl_linear_add); the SwiGLU FFN's
 * two input projections and its gate are one op here (bl_linear_swiglu), then bl_linear_add.
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/blas.h"
#include "core/ops.h"
#include "core/ops_internal.h"
#include "core/vmath.h"
#include <math.h>
#include <string.h>

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
                                         float *restrict db, size_t n, int write)
{
    if (write) { /* da, db written, not added (the fused op's scratch) */
#pragma omp simd
        for (size_t i = 0; i < n; i++) {
            float x = a[i], s = 1.0f / (1.0f + bl_vexpf(-x));
            da[i] = dy[i] * b[i] * s * (1.0f + x * (1.0f - s));
            db[i] = dy[i] * (x * s);
        }
        return;
    }
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
                      b->grad ? b->grad + o : NULL, len, 0);
    }
}

bl_tensor *bl_swiglu(bl_graph *g, bl_tensor *a, bl_tensor *b)
{
    char ba[64], bb[64];
    if (!a || !b || !bl_same_shape(a, b)) {
        bl_fail("%s: gate a %s and value b %s must have the same shape", BL_OPN(SWIGLU),
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
    bl_node *n = bl_graph_node(g, BL_OP_SWIGLU, swiglu_backward, y);
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
    if (r) { /* r + ...: one op keeping only x W1^T of the hidden (ops.h) */
        bl_tensor *y = bl_mlp_gelu_dropout_add(g, x, fc1_w, fc1_b, fc2_w, fc2_b, r, 0.0f, 0);
        if (!y) bl_error_prefix("mlp_gelu");
        return y;
    }
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

/* ---------------------------------------------------------------------------------------
 * linear_swiglu: h = silu(x W1^T + b1) * (x W2^T + b2), one node: linear's row-block driver
 * (bl_ops_linear_rows) makes a = x W1^T, and its epilogue the block's second product, the biases
 * and the gate, so with threads each block's two products and gate run on one thread while a
 * and v are still in that core's cache (no pass to copy the biases in first). Backward writes da, dv into the node's
 * scratch (no zeroed buffers to add into), then takes the bias sums and linear's products.
 * node: in = {x, w1, b1, w2, b2}, save = {a, v [R, H] (biases included), da, dv [R, H] scratch}
 */
typedef struct {
    const float *x, *w2, *b1, *b2;
    float *a, *v, *h;
    int in, H;
} swiglu_rows;

/* the epilogue of a = x W1^T on rows [r0, r0 + n): v = x W2^T + b2, a += b1, h = silu(a) v */
static void linear_swiglu_epi(void *ctx, size_t r0, size_t n)
{
    const swiglu_rows *c = ctx;
    size_t o = r0 * (size_t)c->H;
    bl_sgemm(0, 1, (int)n, c->H, c->in, 1.0f, c->x + r0 * (size_t)c->in, c->w2, 0.0f, c->v + o);
    if (c->b1) bl_ops_add_bias_rows(c->a + o, c->b1, n, (size_t)c->H);
    if (c->b2) bl_ops_add_bias_rows(c->v + o, c->b2, n, (size_t)c->H);
    swiglu_fw_run(c->a + o, c->v + o, c->h + o, n * (size_t)c->H);
}

static void linear_swiglu_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w1 = n->in[1], *b1 = n->in[2], *w2 = n->in[3], *b2 = n->in[4];
    bl_tensor *a = n->save[0], *v = n->save[1], *da = n->save[2], *dv = n->save[3], *h = n->out;
    int H = w1->shape[0], in = w1->shape[1], R = (int)(x->numel / (size_t)in);
    size_t N = h->numel, nch = (N + SWIGLU_CHUNK - 1) / SWIGLU_CHUNK;
    /* da = dh v silu'(a), dv = dh silu(a) */
#pragma omp parallel for schedule(static) if (N > BL_NN_PAR_MIN)
    for (size_t c = 0; c < nch; c++) {
        size_t o = c * SWIGLU_CHUNK, len = N - o < SWIGLU_CHUNK ? N - o : SWIGLU_CHUNK;
        swiglu_bw_run(a->data + o, v->data + o, h->grad + o, da->data + o, dv->data + o, len, 1);
    }
    if (b1 && b1->grad) bl_ops_colsum_add(b1->grad, da->data, NULL, (size_t)R, (size_t)H);
    if (b2 && b2->grad) bl_ops_colsum_add(b2->grad, dv->data, NULL, (size_t)R, (size_t)H);
    /* dx = da W1 (written while x's grad is logically zero) + dv W2; dW1 += da^T x, dW2 += dv^T x */
    float beta = x->grad && bl_grad_take(x) ? 0.0f : 1.0f;
    bl_ops_linear_grads(R, in, H, da->data, x->data, w1->data, x->grad, beta, w1->grad);
    bl_ops_linear_grads(R, in, H, dv->data, x->data, w2->data, x->grad, 1.0f, w2->grad);
}

bl_tensor *bl_linear_swiglu(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1,
                            bl_tensor *w2, bl_tensor *b2)
{
    if (bl_ops_linear_check("linear_swiglu", x, w1, b1) < 0 ||
        bl_ops_linear_check("linear_swiglu", x, w2, b2) < 0)
        return NULL;
    if (w2->shape[0] != w1->shape[0]) {
        char s1[64], s2[64];
        bl_fail("%s: gate weight %s and value weight %s must have the same shape", BL_OPN(LINEAR_SWIGLU),
                bl_nn_shape(w1, s1, sizeof s1), bl_nn_shape(w2, s2, sizeof s2));
        return NULL;
    }
    int H = w1->shape[0], in = w1->shape[1], R = (int)(x->numel / (size_t)in);
    int shape[BL_MAXDIM];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = H;
    int grad = BL_WANTS_GRAD(g, x, w1, b1, w2, b2);
    bl_tensor *h = bl_graph_tensor(g, x->ndim, shape, grad);
    bl_tensor *a = h ? bl_graph_tensor(g, 2, (int[]){R, H}, 0) : NULL;
    bl_tensor *v = a ? bl_graph_tensor(g, 2, (int[]){R, H}, 0) : NULL;
    bl_tensor *da = v && grad ? bl_graph_tensor(g, 2, (int[]){R, H}, 0) : NULL;
    bl_tensor *dv = da ? bl_graph_tensor(g, 2, (int[]){R, H}, 0) : NULL;
    if (!v || (grad && !dv)) return NULL;
    swiglu_rows c = {x->data, w2->data, b1 ? b1->data : NULL, b2 ? b2->data : NULL,
                     a->data, v->data, h->data, in, H};
    bl_ops_linear_rows(R, in, H, x->data, w1->data, a->data, linear_swiglu_epi, &c);
    bl_node *n = bl_graph_node(g, BL_OP_LINEAR_SWIGLU, linear_swiglu_backward, h);
    if (n) {
        bl_tensor *ins[] = {x, w1, b1, w2, b2};
        memcpy(n->in, ins, sizeof ins);
        n->save[0] = a; n->save[1] = v; n->save[2] = da; n->save[3] = dv;
        n->assigns = 1u;
    }
    return h;
}

bl_tensor *bl_mlp_swiglu_add(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1,
                             bl_tensor *w2, bl_tensor *b2, bl_tensor *w3, bl_tensor *b3,
                             bl_tensor *r)
{
    /* self.w3(F.silu(self.w1(x)) * self.w2(x)) */
    bl_tensor *h = bl_linear_swiglu(g, x, w1, b1, w2, b2);
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

/* ---------------------------------------------------------------------------------------
 * The FFNs the `mlp` switch picks from (nn.h), one row each: its value, projections and kernels.
 */
static int gelu_hidden(int dim, float mlp_ratio, int multiple_of)
{
    (void)multiple_of;   /* GPT-2 / DiT: 4 D, no rounding */
    return (int)(mlp_ratio * (float)dim);
}

/* self.fc2(F.gelu(self.fc1(x))) */
static bl_tensor *gelu_ffn(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b, bl_tensor *r)
{
    return bl_mlp_gelu_add(g, x, w[0], b[0], w[1], b[1], r);
}

/* the whole FFN one op: its hidden is recomputed in backward */
static bl_tensor *gelu_ffn_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b,
                                       bl_tensor *r, float p, uint64_t key)
{
    return bl_mlp_gelu_dropout_add(g, x, w[0], b[0], w[1], b[1], r, p, key);
}

/* self.w3(F.silu(self.w1(x)) * self.w2(x)) */
static bl_tensor *swiglu_ffn(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b, bl_tensor *r)
{
    return bl_mlp_swiglu_add(g, x, w[0], b[0], w[1], b[1], w[2], b[2], r);
}

/* the gate one op, then the output projection, dropout and add one op */
static bl_tensor *swiglu_ffn_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b,
                                         bl_tensor *r, float p, uint64_t key)
{
    bl_tensor *h = bl_linear_swiglu(g, x, w[0], b[0], w[1], b[1]);
    return h ? bl_linear_dropout_add(g, h, w[2], b[2], r, p, key) : NULL;
}

const bl_mlp_def bl_mlp_defs[] = {
    { "gelu", 2, { NULL, NULL, NULL }, gelu_hidden, gelu_ffn, gelu_ffn_dropout_add },
    { "swiglu", 3, { "w1", "w2", "w3" }, bl_swiglu_hidden, swiglu_ffn, swiglu_ffn_dropout_add },
    { NULL, 0, { NULL, NULL, NULL }, NULL, NULL, NULL },
};
