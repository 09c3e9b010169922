/* ops_linear.c - linear and matmul, forward and backward through bl_sgemm (see ops.h).
 *
 * Formulas (llm.c matmul_forward / matmul_backward; torch.nn.functional.linear, torch.matmul):
 *   linear  y = x W^T + b      dx += dy W      dW += dy^T x      db += sum_rows dy
 *   matmul  y = a b            da += dy b^T    db += a^T dy
 */
#include "core/ops.h"
#include "core/blas.h"
#include "core/ops_internal.h"
#include "core/rng.h"
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

/* Batches whose single product is at most this many multiply-adds (M*N*K) are spread over
 * OpenMP threads, one sgemm per batch on the calling thread; larger ones let BLAS thread
 * itself. Attention's 64x64x32 blocks (131k) fall below, TinyDiT's linears far above. */
#define BL_SMALL_GEMM ((size_t)1 << 19)

/* ---------------------------------------------------------------------------------------
 * Shared: nb independent products C_i = op(A_i) op(B_i) + beta C_i, i < nb, with element
 * strides sa, sb, sc between batches.
 */
static void gemm_batched(int nb, int ta, int tb, int M, int N, int K, const float *A, size_t sa,
                         const float *B, size_t sb, float beta, float *C, size_t sc)
{
    if (nb > 1 && (size_t)M * N * K <= BL_SMALL_GEMM) {
        bl_par_begin();
        /* dynamic: a core shared with another process must not hold the whole batch back */
#pragma omp parallel for schedule(dynamic, 4)
        for (int i = 0; i < nb; i++)
            bl_sgemm(ta, tb, M, N, K, 1.0f, A + i * sa, B + i * sb, beta, C + i * sc);
        bl_par_end();
    } else {
        for (int i = 0; i < nb; i++)
            bl_sgemm(ta, tb, M, N, K, 1.0f, A + i * sa, B + i * sb, beta, C + i * sc);
    }
}

/* (ops_internal.h) */
void bl_ops_linear_grads(int R, int in, int out, const float *dy, const float *x, const float *w,
                         float *dx, float beta_x, float *dw)
{
#ifdef _OPENMP
    if (dx && dw && bl_gemm_pairs_side_by_side() && omp_get_max_threads() == 2 &&
        !omp_in_parallel() && (size_t)R * in * out > BL_SMALL_GEMM) {
        bl_par_begin();
#pragma omp parallel sections num_threads(2)
        {
#pragma omp section
            bl_sgemm(0, 0, R, in, out, 1.0f, dy, w, beta_x, dx);      /* dx = dy W */
#pragma omp section
            bl_sgemm(1, 0, out, in, R, 1.0f, dy, x, 1.0f, dw);        /* dW += dy^T x */
        }
        bl_par_end();
        return;
    }
#endif
    if (dx) bl_sgemm(0, 0, R, in, out, 1.0f, dy, w, beta_x, dx);
    if (dw) bl_sgemm(1, 0, out, in, R, 1.0f, dy, x, 1.0f, dw);
}

/* beta for dx = dy W: 0 (write) while x's grad is still logically zero (the forward set
 * node.assigns bit 0), 1 (add) otherwise; BLAS zeroes C itself for beta 0, inside the product. */
static float x_beta(bl_tensor *x)
{
    return x->grad && bl_grad_take(x) ? 0.0f : 1.0f;
}

/* ---------------------------------------------------------------------------------------
 * linear: x [..., in] = [R, in] rows, w [out, in], b [out] -> y [R, out]
 */
static void linear_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    int in = w->shape[1], out = w->shape[0], R = (int)(x->numel / (size_t)in);
    /* y = x W^T (+ b) */
    /* dx = dy W written (beta 0) while x's grad is logically zero, else added; dW += dy^T x */
    bl_ops_linear_grads(R, in, out, y->grad, x->data, w->data, x->grad, x_beta(x), w->grad);
    if (b && b->grad) bl_ops_colsum_add(b->grad, y->grad, NULL, (size_t)R, (size_t)out);
}

/* (ops_internal.h) */
int bl_ops_linear_check(const char *op, bl_tensor *x, bl_tensor *w, bl_tensor *b)
{
    if (bl_ops_need(op, "x", x) || bl_ops_need(op, "weight", w)) return -1;
    if (w->ndim != 2) return bl_fail("%s: weight must be 2-D [out, in], got %s", op, BL_SHP(w));
    if (x->ndim < 1) return bl_fail("%s: x must have at least 1 dimension, got a scalar", op);
    int out = w->shape[0], in = w->shape[1];
    if (x->shape[x->ndim - 1] != in)
        return bl_fail("%s: x %s has %d features but weight %s expects %d", op, BL_SHP(x),
                       x->shape[x->ndim - 1], BL_SHP(w), in);
    if (b && (b->ndim != 1 || b->shape[0] != out))
        return bl_fail("%s: bias %s does not match weight %s (expected [%d])", op, BL_SHP(b),
                       BL_SHP(w), out);
    if (x->numel / (size_t)in > INT_MAX)
        return bl_fail("%s: x %s has more than %d rows", op, BL_SHP(x), INT_MAX);
    return 0;
}

/* (ops_internal.h) */
void bl_ops_linear_rows(int R, int in, int out, const float *x, const float *w, float *d,
                        bl_rows_epilogue epi, void *ctx)
{
    enum { ROWS = BL_LINEAR_ROWS };
    int nblk = (R + ROWS - 1) / ROWS;
#ifdef _OPENMP
    if (nblk >= 4 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
        bl_par_begin();
#pragma omp parallel for schedule(static)
        for (int k = 0; k < nblk; k++) {
            int r0 = k * ROWS, n = R - r0 < ROWS ? R - r0 : ROWS;
            bl_sgemm(0, 1, n, out, in, 1.0f, x + (size_t)r0 * in, w, 0.0f, d + (size_t)r0 * out);
            epi(ctx, (size_t)r0, (size_t)n);
        }
        bl_par_end();
        return;
    }
#endif
    bl_sgemm(0, 1, R, out, in, 1.0f, x, w, 0.0f, d);   /* x W^T */
    bl_par_begin();   /* an epilogue may multiply too (linear_swiglu's second product) */
#pragma omp parallel for schedule(static) if ((size_t)R * out > BL_PAR_MIN)
    for (int k = 0; k < nblk; k++)
        epi(ctx, (size_t)k * ROWS, (size_t)(R - k * ROWS < ROWS ? R - k * ROWS : ROWS));
    bl_par_end();
}

typedef struct { const float *b; float *d, *y; int out; } lin_epi;

/* linear's epilogue: y = d + b, in place (d == y) */
static void bias_epi(void *ctx, size_t r0, size_t n)
{
    const lin_epi *e = ctx;
    bl_ops_add_bias_rows(e->d + r0 * e->out, e->b, n, (size_t)e->out);
}

/* linear_gelu's: y = gelu(d + b), d <- gelu'(d + b) */
static void gelu_epi(void *ctx, size_t r0, size_t n)
{
    const lin_epi *e = ctx;
    bl_ops_gelu_bias_rows(e->d + r0 * e->out, e->b, e->y + r0 * e->out, n, (size_t)e->out);
}

bl_tensor *bl_linear(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b)
{
    if (bl_ops_linear_check(BL_OPN(LINEAR), x, w, b) < 0) return NULL;
    int out = w->shape[0], in = w->shape[1];
    int shape[BL_MAXDIM];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = out;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, shape, BL_WANTS_GRAD(g, x, w, b));
    if (!y) return NULL;
    int R = (int)(x->numel / (size_t)in);
    if (b) {  /* x W^T, then + b while each block of rows is in cache */
        lin_epi e = {b->data, y->data, y->data, out};
        bl_ops_linear_rows(R, in, out, x->data, w->data, y->data, bias_epi, &e);
    } else {
        bl_sgemm(0, 1, R, out, in, 1.0f, x->data, w->data, 0.0f, y->data);
    }
    bl_node *n = bl_graph_node(g, BL_OP_LINEAR, linear_backward, y);
    if (n) { n->in[0] = x; n->in[1] = w; n->in[2] = b; n->assigns = 1u; }
    return y;
}

/* yd [R, out] = rd + dropout(x W^T + b) (b may be NULL), s = 1 / (1 - p): the projection as
 * bl_linear makes it, the dropout stored, then r + it in a second pass (no multiply-add
 * contraction: the bits of bl_dropout then bl_add). */
static void dropout_add_rows(int R, int in, int out, const float *x, const float *w, const float *b,
                             const float *rd, float *yd, float p, float s, uint64_t key)
{
    if (b) {
        lin_epi e = {b, yd, yd, out};
        bl_ops_linear_rows(R, in, out, x, w, yd, bias_epi, &e);
    } else {
        bl_sgemm(0, 1, R, out, in, 1.0f, x, w, 0.0f, yd);
    }
    long N = (long)R * out;
#pragma omp parallel for schedule(static) if ((size_t)N > BL_PAR_MIN)
    for (long i = 0; i < N; i++) yd[i] = bl_rng_at(key, (uint64_t)i) >= p ? yd[i] * s : 0.0f;
#pragma omp parallel for schedule(static) if ((size_t)N > BL_PAR_MIN)
    for (long i = 0; i < N; i++) yd[i] = rd[i] + yd[i];
}

/* yd [R, out] = rd + x W^T + b as bl_linear_add makes it: r + b, then the product added on top. */
static void add_rows(int R, int in, int out, const float *x, const float *w, const float *b,
                     const float *rd, float *yd)
{
    size_t N = (size_t)R * out;
    if (b) bl_ops_add_rows(rd, b, yd, N, (size_t)out);   /* r + b */
    else bl_ops_copy_or_add(yd, rd, N, 1);
    bl_sgemm(0, 1, R, out, in, 1.0f, x, w, 1.0f, yd);     /* + x W^T */
}

/* dp [R, out] = dy keep s (the dropout's backward: the mask drawn again). dp may be dy. */
static void dropout_grad(float *dp, const float *dy, size_t n, float p, float s, uint64_t key)
{
    long N = (long)n;
#pragma omp parallel for schedule(static) if (n > BL_PAR_MIN)
    for (long i = 0; i < N; i++) dp[i] = bl_rng_at(key, (uint64_t)i) >= p ? dy[i] * s : 0.0f;
}

/* ---------------------------------------------------------------------------------------
 * linear_add: y = r + x W^T + b, one node (a sub-layer's output projection added to the
 * residual stream r). Forward starts y from r + b and lets sgemm add x W^T on top, so neither
 * the projection nor the sum is a separate pass; backward: dr += dy, then linear's backward.
 * node: in = {x, w, b, r}, assigns r (written while its grad is logically zero)
 */
static void linear_add_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *r = n->in[3], *y = n->out;
    int in = w->shape[1], out = w->shape[0], R = (int)(x->numel / (size_t)in);
    if (r->grad) bl_ops_copy_or_add(r->grad, y->grad, y->numel, bl_grad_take(r));   /* dr += dy */
    bl_ops_linear_grads(R, in, out, y->grad, x->data, w->data, x->grad, x_beta(x), w->grad);  /* dx, dW */
    if (b && b->grad) bl_ops_colsum_add(b->grad, y->grad, NULL, (size_t)R, (size_t)out);
}

bl_tensor *bl_linear_add(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, bl_tensor *r)
{
    if (bl_ops_linear_check(BL_OPN(LINEAR_ADD), x, w, b) < 0 || bl_ops_need(BL_OPN(LINEAR_ADD), "residual", r))
        return NULL;
    int out = w->shape[0], in = w->shape[1], R = (int)(x->numel / (size_t)in);
    if (r->numel != (size_t)R * out || r->shape[r->ndim - 1] != out)
        return BL_FAILP("%s: residual %s does not match the output [%d, %d]",
                        BL_OPN(LINEAR_ADD), BL_SHP(r), R, out);
    bl_tensor *y = bl_graph_tensor(g, r->ndim, r->shape, BL_WANTS_GRAD(g, x, w, b, r));
    if (!y) return NULL;
    add_rows(R, in, out, x->data, w->data, b ? b->data : NULL, r->data, y->data);
    bl_node *n = bl_graph_node(g, BL_OP_LINEAR_ADD, linear_add_backward, y);
    if (n) { n->in[0] = x; n->in[1] = w; n->in[2] = b; n->in[3] = r; n->assigns = 1u | 1u << 3; }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * linear_dropout_add: y = r + dropout(x W^T + b) (nanoGPT's x + resid_dropout(c_proj(...))) as
 * one node: the composition linear, dropout, add with the same arithmetic (the projection as
 * bl_linear makes it, dropped as bl_dropout, added as bl_add: r + d), but neither the projection
 * nor its dropped copy is kept (two [R, out] tensors and their grads per sub-layer).
 * Backward: dr += dy; dp = dy keep / (1 - p) (mask drawn again, as bl_dropout's backward); then
 * linear's backward with dp. dp is made in place in dy on a graph with transient grads
 * (graph.h), else in a scratch tensor.
 * node: in = {x, w, b, r}, save = {dp scratch or NULL}, assigns x and r
 */
typedef struct {
    uint64_t key;           /* the mask's stream (bl_rng_at(key, i) >= p keeps element i) */
    float p, s;             /* drop probability, 1 / (1 - p) */
} ldrop_args;

static void linear_dropout_add_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *r = n->in[3], *y = n->out;
    int in = w->shape[1], out = w->shape[0], R = (int)(x->numel / (size_t)in);
    ldrop_args a;
    BL_NODE_LOAD(n, a);
    if (r->grad) bl_ops_copy_or_add(r->grad, y->grad, y->numel, bl_grad_take(r));   /* dr += dy */
    float *dp = n->save[0] ? n->save[0]->data : y->grad;
    dropout_grad(dp, y->grad, y->numel, a.p, a.s, a.key);
    bl_ops_linear_grads(R, in, out, dp, x->data, w->data, x->grad, x_beta(x), w->grad);  /* dx, dW */
    if (b && b->grad) bl_ops_colsum_add(b->grad, dp, NULL, (size_t)R, (size_t)out);
}

bl_tensor *bl_linear_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, bl_tensor *r,
                                 float p, uint64_t key)
{
    if (bl_ops_linear_check(BL_OPN(LINEAR_DROPOUT_ADD), x, w, b) < 0 ||
        bl_ops_need(BL_OPN(LINEAR_DROPOUT_ADD), "residual", r))
        return NULL;
    if (!(p >= 0.0f && p < 1.0f)) return BL_FAILP("%s: p must be in [0, 1), got %g",
                                                  BL_OPN(LINEAR_DROPOUT_ADD), (double)p);
    int out = w->shape[0], in = w->shape[1], R = (int)(x->numel / (size_t)in);
    if (r->numel != (size_t)R * out || r->shape[r->ndim - 1] != out)
        return BL_FAILP("%s: residual %s does not match the output [%d, %d]",
                        BL_OPN(LINEAR_DROPOUT_ADD), BL_SHP(r), R, out);
    int grad = BL_WANTS_GRAD(g, x, w, b, r);
    bl_tensor *y = bl_graph_tensor(g, r->ndim, r->shape, grad);
    int scratch = grad && !bl_graph_transient_grads(g);
    bl_tensor *dp = y && scratch ? bl_graph_tensor(g, 2, (int[]){R, out}, 0) : NULL;
    if (!y || (scratch && !dp)) return NULL;
    float s = 1.0f / (1.0f - p);
    dropout_add_rows(R, in, out, x->data, w->data, b ? b->data : NULL, r->data, y->data, p, s, key);
    bl_node *n = bl_graph_node(g, BL_OP_LINEAR_DROPOUT_ADD, linear_dropout_add_backward, y);
    if (n) {
        n->in[0] = x; n->in[1] = w; n->in[2] = b; n->in[3] = r;
        n->save[0] = dp;
        n->assigns = 1u | 1u << 3;
        BL_NODE_SAVE(n, ((ldrop_args){key, p, s}));
    }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * linear_gelu: y = gelu(x W^T + b), one node. Forward keeps d = gelu'(h) instead of h, so
 * backward needs no erf:  dh = dy * d,  then linear's backward with dh.
 * node: in = {x, w, b}, save = {d [R, out], dh [R, out] scratch}; on a graph with transient grads
 * (graph.h) no scratch: dh is made in place in dy, whose last use this is.
 */
static void linear_gelu_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    bl_tensor *d = n->save[0];
    float *dh = n->save[1] ? n->save[1]->data : y->grad;
    int in = w->shape[1], out = w->shape[0], R = (int)(x->numel / (size_t)in);
    /* dh = dy gelu'(h), with db += column sums of dh on the way */
    bl_ops_mul_colsum(y->grad, d->data, dh, (size_t)R, (size_t)out, b && b->grad ? b->grad : NULL);
    bl_ops_linear_grads(R, in, out, dh, x->data, w->data, x->grad, x_beta(x), w->grad);  /* dx, dW */
}

bl_tensor *bl_linear_gelu(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b)
{
    if (bl_ops_linear_check(BL_OPN(LINEAR_GELU), x, w, b) < 0) return NULL;
    int out = w->shape[0], in = w->shape[1], R = (int)(x->numel / (size_t)in);
    int shape[BL_MAXDIM];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = out;
    int grad = BL_WANTS_GRAD(g, x, w, b);
    bl_tensor *y = bl_graph_tensor(g, x->ndim, shape, grad);
    bl_tensor *d = y ? bl_graph_tensor(g, 2, (int[]){R, out}, 0) : NULL;
    int scratch = grad && !bl_graph_transient_grads(g);
    bl_tensor *dh = d && scratch ? bl_graph_tensor(g, 2, (int[]){R, out}, 0) : NULL;
    if (!d || (scratch && !dh)) return NULL;
    lin_epi e = {b ? b->data : NULL, d->data, y->data, out};
    bl_ops_linear_rows(R, in, out, x->data, w->data, d->data, gelu_epi, &e);
    bl_node *n = bl_graph_node(g, BL_OP_LINEAR_GELU, linear_gelu_backward, y);
    if (n) { n->in[0] = x; n->in[1] = w; n->in[2] = b; n->save[0] = d; n->save[1] = dh; n->assigns = 1u; }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * mlp_gelu_add: y = r + drop(gelu(x W1^T + b1) W2^T + b2) (drop: dropout with p > 0, else none),
 * one node: linear_gelu then linear_add (or linear_dropout_add) with their arithmetic, but the
 * only [R, H] tensor kept per layer is a = x W1^T (before the bias). The hidden h = gelu(a + b1)
 * and d = gelu'(a + b1) live in the graph's shared scratch (bl_graph_scratch) and backward makes
 * them again from a with the same kernel (one pass over [R, H], the same bits), instead of
 * keeping h, d and h's grad for every layer.
 * Backward: dr += dy; dp = dy (keep s with dropout); dh = dp W2, dW2 += dp^T h, db2 += sums of
 * dp; dh *= d (db1 += its sums); dx = dh W1, dW1 += dh^T x.
 * node: in = {x, w1, b1, w2, b2, r}, save = {a, dp scratch or NULL}, assigns x and r
 */
typedef struct {
    uint64_t key;           /* the dropout's stream */
    float p, s;             /* drop probability (0: none), 1 / (1 - p) */
    float *sc;              /* the graph's scratch (3 [R, H] blocks), arena: lives as the tape */
} mlp_args;

typedef struct { const float *b; float *acc, *a, *h; int H; } mlp_epi;

/* the forward's epilogue on rows [r0, r0 + n): keep a, then h = gelu(a + b1), acc <- d */
static void mlp_keep_epi(void *ctx, size_t r0, size_t n)
{
    const mlp_epi *e = ctx;
    size_t o = r0 * (size_t)e->H;
    memcpy(e->a + o, e->acc + o, n * (size_t)e->H * sizeof(float));
    bl_ops_gelu_bias_rows(e->acc + o, e->b, e->h + o, n, (size_t)e->H);
}

static void mlp_gelu_add_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *w1 = n->in[1], *b1 = n->in[2], *w2 = n->in[3], *b2 = n->in[4];
    bl_tensor *r = n->in[5], *y = n->out, *a = n->save[0];
    mlp_args ar;
    BL_NODE_LOAD(n, ar);
    int H = w1->shape[0], in = w1->shape[1], out = w2->shape[0], R = (int)(x->numel / (size_t)in);
    size_t RH = (size_t)R * H;
    float *d = ar.sc, *h = d + RH, *dh = h + RH;
    if (r->grad) bl_ops_copy_or_add(r->grad, y->grad, y->numel, bl_grad_take(r));   /* dr += dy */
    float *dp = y->grad;
    if (ar.p > 0.0f) {
        dp = n->save[1] ? n->save[1]->data : y->grad;
        dropout_grad(dp, y->grad, y->numel, ar.p, ar.s, ar.key);
    }
    /* h and d again from a: the forward's epilogue, block by block */
    memcpy(d, a->data, RH * sizeof(float));
    enum { ROWS = BL_LINEAR_ROWS };
    int nblk = (R + ROWS - 1) / ROWS;
#pragma omp parallel for schedule(static) if (RH > BL_PAR_MIN)
    for (int k = 0; k < nblk; k++) {
        size_t r0 = (size_t)k * ROWS, m = (size_t)(R - k * ROWS < ROWS ? R - k * ROWS : ROWS);
        bl_ops_gelu_bias_rows(d + r0 * H, b1 ? b1->data : NULL, h + r0 * H, m, (size_t)H);
    }
    bl_ops_linear_grads(R, H, out, dp, h, w2->data, dh, 0.0f, w2->grad);          /* dh, dW2 */
    if (b2 && b2->grad) bl_ops_colsum_add(b2->grad, dp, NULL, (size_t)R, (size_t)out);
    bl_ops_mul_colsum(dh, d, dh, (size_t)R, (size_t)H, b1 && b1->grad ? b1->grad : NULL);  /* dh *= d */
    bl_ops_linear_grads(R, in, H, dh, x->data, w1->data, x->grad, x_beta(x), w1->grad);  /* dx, dW1 */
}

bl_tensor *bl_mlp_gelu_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1, bl_tensor *w2,
                                   bl_tensor *b2, bl_tensor *r, float p, uint64_t key)
{
    if (bl_ops_linear_check(BL_OPN(MLP_GELU_ADD), x, w1, b1) < 0 ||
        bl_ops_need(BL_OPN(MLP_GELU_ADD), "weight", w2) || bl_ops_need(BL_OPN(MLP_GELU_ADD), "residual", r))
        return NULL;
    if (!(p >= 0.0f && p < 1.0f)) return BL_FAILP("%s: p must be in [0, 1), got %g",
                                                  BL_OPN(MLP_GELU_ADD), (double)p);
    int H = w1->shape[0], in = w1->shape[1], R = (int)(x->numel / (size_t)in);
    if (w2->ndim != 2 || w2->shape[1] != H)
        return BL_FAILP("%s: weight %s must be [out, %d] after the first weight %s",
                        BL_OPN(MLP_GELU_ADD), BL_SHP(w2), H, BL_SHP(w1));
    int out = w2->shape[0];
    if (b2 && (b2->ndim != 1 || b2->shape[0] != out))
        return BL_FAILP("%s: bias %s does not match weight %s (expected [%d])",
                        BL_OPN(MLP_GELU_ADD), BL_SHP(b2), BL_SHP(w2), out);
    if (r->numel != (size_t)R * out || r->shape[r->ndim - 1] != out)
        return BL_FAILP("%s: residual %s does not match the output [%d, %d]",
                        BL_OPN(MLP_GELU_ADD), BL_SHP(r), R, out);
    int grad = BL_WANTS_GRAD(g, x, w1, b1, w2, b2, r);
    size_t RH = (size_t)R * H;
    bl_tensor *y = bl_graph_tensor(g, r->ndim, r->shape, grad);
    bl_tensor *a = y && grad ? bl_graph_tensor(g, 2, (int[]){R, H}, 0) : NULL;
    int scratch = grad && p > 0.0f && !bl_graph_transient_grads(g);
    bl_tensor *dp = a && scratch ? bl_graph_tensor(g, 2, (int[]){R, out}, 0) : NULL;
    /* scratch: d (the product, then gelu'), h, and backward's dh */
    float *sc = y ? bl_graph_scratch(g, 3 * RH) : NULL;
    if (!sc || (grad && !a) || (scratch && !dp)) return NULL;
    float *d = sc, *h = sc + RH;
    if (a) {
        mlp_epi e = {b1 ? b1->data : NULL, d, a->data, h, H};
        bl_ops_linear_rows(R, in, H, x->data, w1->data, d, mlp_keep_epi, &e);
    } else {
        lin_epi e = {b1 ? b1->data : NULL, d, h, H};
        bl_ops_linear_rows(R, in, H, x->data, w1->data, d, gelu_epi, &e);
    }
    float s = p > 0.0f ? 1.0f / (1.0f - p) : 1.0f;
    if (p > 0.0f) dropout_add_rows(R, H, out, h, w2->data, b2 ? b2->data : NULL, r->data, y->data, p, s, key);
    else add_rows(R, H, out, h, w2->data, b2 ? b2->data : NULL, r->data, y->data);
    bl_node *n = bl_graph_node(g, BL_OP_MLP_GELU_ADD, mlp_gelu_add_backward, y);
    if (n) {
        bl_tensor *ins[] = {x, w1, b1, w2, b2, r};
        memcpy(n->in, ins, sizeof ins);
        n->save[0] = a;
        n->save[1] = dp;
        n->assigns = 1u | 1u << 5;
        BL_NODE_SAVE(n, ((mlp_args){key, p, s, sc}));
    }
    return y;
}

/* ---------------------------------------------------------------------------------------
 * matmul: a [..., M, K], b [..., K, N] (same batch dims) or b [K, N] shared -> [..., M, N]
 */
typedef struct {
    int batches, M, N, K;
    int shared;             /* b is 2-D, one matrix for every batch */
} matmul_args;

static void matmul_backward(bl_node *n)
{
    bl_tensor *a = n->in[0], *b = n->in[1], *y = n->out;
    matmul_args ar;
    BL_NODE_LOAD(n, ar);
    int nb = ar.batches, M = ar.M, N = ar.N, K = ar.K;
    if (ar.shared) {  /* shared b: the batch is just more rows of one product */
        int R = nb * M;
        if (a->grad) bl_sgemm(0, 1, R, K, N, 1.0f, y->grad, b->data, 1.0f, a->grad);  /* da += dy b^T */
        if (b->grad) bl_sgemm(1, 0, K, N, R, 1.0f, a->data, y->grad, 1.0f, b->grad);  /* db += a^T dy */
        return;
    }
    size_t sa = (size_t)M * K, sb = (size_t)K * N, sy = (size_t)M * N;
    if (a->grad) gemm_batched(nb, 0, 1, M, K, N, y->grad, sy, b->data, sb, 1.0f, a->grad, sa);
    if (b->grad) gemm_batched(nb, 1, 0, K, N, M, a->data, sa, y->grad, sy, 1.0f, b->grad, sb);
}

bl_tensor *bl_matmul(bl_graph *g, bl_tensor *a, bl_tensor *b)
{
    if (bl_ops_need(BL_OPN(MATMUL), "a", a) || bl_ops_need(BL_OPN(MATMUL), "b", b)) return NULL;
    if (a->ndim < 2 || b->ndim < 2)
        return BL_FAILP("%s: a %s and b %s must both have at least 2 dimensions", BL_OPN(MATMUL), BL_SHP(a),
                        BL_SHP(b));
    int M = a->shape[a->ndim - 2], K = a->shape[a->ndim - 1];
    int Kb = b->shape[b->ndim - 2], N = b->shape[b->ndim - 1];
    if (K != Kb)
        return BL_FAILP("%s: a %s has %d columns but b %s has %d rows", BL_OPN(MATMUL), BL_SHP(a), K,
                        BL_SHP(b), Kb);
    int shared = b->ndim == 2;
    if (!shared) {
        int same = b->ndim == a->ndim;
        for (int i = 0; same && i < a->ndim - 2; i++) same = a->shape[i] == b->shape[i];
        if (!same)
            return BL_FAILP("%s: batch dims of a %s and b %s differ (b must have a's batch "
                            "dims or be 2-D)", BL_OPN(MATMUL), BL_SHP(a), BL_SHP(b));
    }
    if (a->numel / (size_t)K > INT_MAX)
        return BL_FAILP("%s: a %s has more than %d rows", BL_OPN(MATMUL), BL_SHP(a), INT_MAX);
    int shape[BL_MAXDIM];
    memcpy(shape, a->shape, sizeof shape);
    shape[a->ndim - 1] = N;
    bl_tensor *y = bl_graph_tensor(g, a->ndim, shape, BL_WANTS_GRAD(g, a, b));
    if (!y) return NULL;
    int nb = (int)(a->numel / ((size_t)M * K));
    if (shared)
        bl_sgemm(0, 0, nb * M, N, K, 1.0f, a->data, b->data, 0.0f, y->data);
    else
        gemm_batched(nb, 0, 0, M, N, K, a->data, (size_t)M * K, b->data, (size_t)K * N, 0.0f,
                     y->data, (size_t)M * N);
    bl_node *n = bl_graph_node(g, BL_OP_MATMUL, matmul_backward, y);
    if (n) {
        n->in[0] = a; n->in[1] = b;
        BL_NODE_SAVE(n, ((matmul_args){nb, M, N, K, shared}));
    }
    return y;
}
