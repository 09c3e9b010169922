/* ops_pointwise.c - elementwise ops and softmax, forward and backward (see ops.h).
 *
 * Formulas follow torch.nn.functional; derivatives are the textbook ones, written next to each
 * backward. Loops over more than BL_PAR_MIN elements are split across OpenMP threads.
 */
#include "core/ops.h"
#include "core/rng.h"
#include "core/ops_internal.h"
#include "core/vmath.h"
#include <math.h>
#include <string.h>

/* Elementwise kernels run on chunks of this many floats (one call of a cloned kernel each). */
#define BL_PW_CHUNK ((size_t)1 << 14)

/* Run a kernel over N elements in chunks (CALL sees `o` and `len`), the chunks split across
 * threads when N is large. */
#define PW_CHUNKED(N, CALL)                                                                  \
    do {                                                                                     \
        size_t n_ = (N), nch_ = (n_ + BL_PW_CHUNK - 1) / BL_PW_CHUNK;                        \
        _Pragma("omp parallel for schedule(static) if (n_ > BL_PAR_MIN)")                    \
        for (size_t c_ = 0; c_ < nch_; c_++) {                                               \
            size_t o = c_ * BL_PW_CHUNK, len = n_ - o < BL_PW_CHUNK ? n_ - o : BL_PW_CHUNK;  \
            CALL;                                                                            \
        }                                                                                    \
    } while (0)

typedef enum { BC_ADD, BC_MUL, BC_ACC_MUL, BC_ACC, BC_COPY } bc_kind;

/* y = a + b, y = a * b, y += a * b, y += a or y = a (b unused) on n elements, b[i * bs]
 * (bs 0: one scalar b). */
BL_SIMD_CLONES static void bcast_run(bc_kind k, const float *restrict a, const float *restrict b,
                                     size_t bs, float *restrict y, size_t n)
{
    if (k == BC_ADD) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) y[i] = a[i] + b[i * bs];
    } else if (k == BC_MUL) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) y[i] = a[i] * b[i * bs];
    } else if (k == BC_ACC_MUL) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) y[i] += a[i] * b[i * bs];
    } else if (k == BC_ACC) {
#pragma omp simd
        for (size_t i = 0; i < n; i++) y[i] += a[i];
    } else {
        memcpy(y, a, n * sizeof *y);
    }
}

/* acc[j] += sum_r src[r * cols + j] (* other[r * cols + j]), j < w: one block of columns. */
BL_SIMD_CLONES static void colsum_block(double *acc, const float *src, const float *other, size_t rows,
                                        size_t cols, size_t w)
{
    for (size_t r = 0; r < rows; r++) {
        const float *s = src + r * cols;
        if (other) {
            const float *o = other + r * cols;
#pragma omp simd
            for (size_t j = 0; j < w; j++) acc[j] += (double)s[j] * o[j];
        } else {
#pragma omp simd
            for (size_t j = 0; j < w; j++) acc[j] += s[j];
        }
    }
}

/* Row chunks of the streaming column sum: a fixed number, so the result does not depend on
 * the thread count; their partial sums (double, COLSUM_CHUNKS x cols) live on the stack. */
enum { COLSUM_CHUNKS = 8, COLSUM_MAXC = 4096 };

void bl_ops_copy_or_add(float *dst, const float *src, size_t n, int assign)
{
    PW_CHUNKED(n, bcast_run(assign ? BC_COPY : BC_ACC, src + o, src + o, 1, dst + o, len));
}

/* Sum the chunk partials (chunk order, so any thread count gives the same bits) into dst. */
static void colsum_reduce(float *dst, const double *part, size_t cols)
{
    for (size_t j = 0; j < cols; j++) {
        double t = 0;
        for (int c = 0; c < COLSUM_CHUNKS; c++) t += part[(size_t)c * cols + j];
        dst[j] += (float)t;
    }
}

/* Rows [r0, r1) of chunk c of n rows. */
static void colsum_chunk(size_t n, int c, size_t *r0, size_t *r1)
{
    size_t step = (n + COLSUM_CHUNKS - 1) / COLSUM_CHUNKS;
    *r0 = c * step < n ? c * step : n;
    *r1 = *r0 + step < n ? *r0 + step : n;
}

static int colsum_streams(size_t rows, size_t cols)
{
    return cols <= COLSUM_MAXC && rows >= 4 * COLSUM_CHUNKS && rows * cols > BL_PAR_MIN;
}

/* y may be a (in place: linear_gelu's backward turns dy into dh where it lies) */
BL_SIMD_CLONES static void mul_run(const float *a, const float *restrict b, float *y, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) y[i] = a[i] * b[i];
}

/* dst[j] += sum_r src[r, j] (* other[r, j]) over whole rows in order (streams through memory),
 * one chunk of rows per task, 64 rows at a time; with ma, mb (and y == src), each 64 rows are
 * first made as y = ma * mb and summed while in cache. */
static void colsum_streamed(float *dst, const float *src, const float *other, size_t rows,
                            size_t cols, const float *ma, const float *mb, float *y)
{
    double part[COLSUM_CHUNKS * COLSUM_MAXC];
#pragma omp parallel for schedule(static)
    for (int c = 0; c < COLSUM_CHUNKS; c++) {
        double *acc = part + (size_t)c * cols;
        size_t r0, r1;
        colsum_chunk(rows, c, &r0, &r1);
        memset(acc, 0, cols * sizeof *acc);
        for (size_t r = r0; r < r1; r += 64) {
            size_t n = r1 - r < 64 ? r1 - r : 64, o = r * cols;
            if (ma) mul_run(ma + o, mb + o, y + o, n * cols);
            colsum_block(acc, src + o, other ? other + o : NULL, n, cols, cols);
        }
    }
    colsum_reduce(dst, part, cols);
}

void bl_ops_colsum_add(float *dst, const float *src, const float *other, size_t rows, size_t cols)
{
    if (rows == 1 && !other) { /* b of a's own shape: a plain elementwise add */
        bl_ops_copy_or_add(dst, src, cols, 0);
        return;
    }
    if (colsum_streams(rows, cols)) {
        colsum_streamed(dst, src, other, rows, cols, NULL, NULL, NULL);
        return;
    }
    enum { BLK = 64 };
    size_t nblk = (cols + BLK - 1) / BLK;
#pragma omp parallel for schedule(static) if (rows * cols > BL_PAR_MIN && nblk > 1)
    for (size_t blk = 0; blk < nblk; blk++) {
        size_t j0 = blk * BLK, w = cols - j0 < BLK ? cols - j0 : BLK;
        double acc[BLK] = {0};
        colsum_block(acc, src + j0, other ? other + j0 : NULL, rows, cols, w);
        for (size_t j = 0; j < w; j++) dst[j0 + j] += (float)acc[j];
    }
}

/* ---------------------------------------------------------------------------------------
 * add, mul: a [...], b = a's trailing dims (nb elements, repeated over n / nb rows)
 */
/* y = a + b, y = a * b or y += a * b, with b (nb elements) repeated along a (n elements). */
static void bcast_kernel(bc_kind k, const float *a, const float *b, float *y, size_t n, size_t nb)
{
    if (nb == n || nb == 1) {
        size_t bs = nb == 1 ? 0 : 1;
        PW_CHUNKED(n, bcast_run(k, a + o, b + o * bs, bs, y + o, len));
        return;
    }
    size_t rows = n / nb;
#pragma omp parallel for schedule(static) if (n > BL_PAR_MIN)
    for (size_t r = 0; r < rows; r++) bcast_run(k, a + r * nb, b, 1, y + r * nb, nb);
}

void bl_ops_add_rows(const float *a, const float *b, float *y, size_t n, size_t nb)
{
    bcast_kernel(BC_ADD, a, b, y, n, nb);
}

/* b must be a's trailing dims (b [D] or [T, D] with a [B, T, D]; a 0-D b is a scalar). */
static int check_trailing(const char *op, const bl_tensor *a, const bl_tensor *b)
{
    if (bl_ops_need(op, "a", a) || bl_ops_need(op, "b", b)) return -1;
    int ok = b->ndim <= a->ndim;
    for (int i = 0; ok && i < b->ndim; i++) ok = b->shape[i] == a->shape[a->ndim - b->ndim + i];
    if (!ok)
        return bl_fail("%s: b %s must have the shape of a %s or of its trailing dims", op,
                       BL_SHP(b), BL_SHP(a));
    return 0;
}

/* assigns: a (and b when it has a's shape) are written, not added to, while their grads are
 * still logically zero (bl_grad_take): the residual adds of every block. */
static void add_backward(bl_node *n)
{
    bl_tensor *a = n->in[0], *b = n->in[1], *y = n->out;
    /* y = a + b */
    if (a->grad) bl_ops_copy_or_add(a->grad, y->grad, y->numel, bl_grad_take(a));    /* da += dy */
    if (b->grad && b->numel == y->numel) bl_ops_copy_or_add(b->grad, y->grad, y->numel, bl_grad_take(b));
    else if (b->grad) bl_ops_colsum_add(b->grad, y->grad, NULL, y->numel / b->numel, b->numel);
}

static void mul_backward(bl_node *n)
{
    bl_tensor *a = n->in[0], *b = n->in[1], *y = n->out;
    /* y = a * b */
    if (a->grad) bcast_kernel(BC_ACC_MUL, y->grad, b->data, a->grad, y->numel, b->numel);  /* da += dy b */
    if (b->grad) bl_ops_colsum_add(b->grad, y->grad, a->data, y->numel / b->numel, b->numel); /* db += sum dy a */
}

static bl_tensor *bcast_op(bl_graph *g, bl_op op, bc_kind k, bl_backward_fn bw, bl_tensor *a,
                           bl_tensor *b)
{
    if (check_trailing(bl_op_name(op), a, b) < 0) return NULL;
    bl_tensor *y = bl_graph_tensor(g, a->ndim, a->shape, BL_WANTS_GRAD(g, a, b));
    if (!y) return NULL;
    bcast_kernel(k, a->data, b->data, y->data, a->numel, b->numel);
    bl_node *n = bl_graph_node(g, op, bw, y);
    if (n) {
        n->in[0] = a;
        n->in[1] = b;
        if (k == BC_ADD) n->assigns = 1u | (b->numel == a->numel ? 2u : 0u);
    }
    return y;
}

bl_tensor *bl_add(bl_graph *g, bl_tensor *a, bl_tensor *b)
{
    return bcast_op(g, BL_OP_ADD, BC_ADD, add_backward, a, b);
}

bl_tensor *bl_mul(bl_graph *g, bl_tensor *a, bl_tensor *b)
{
    return bcast_op(g, BL_OP_MUL, BC_MUL, mul_backward, a, b);
}

/* ---------------------------------------------------------------------------------------
 * scale, gelu, silu: y = f(x) elementwise; backward dx += f'(x) dy
 */
typedef enum { PW_SCALE, PW_GELU, PW_SILU } pw_kind;

static const bl_op pw_op[] = {BL_OP_SCALE, BL_OP_GELU, BL_OP_SILU};

/* GELU and SiLU kernels on n contiguous elements (vectorised, see BL_SIMD_CLONES):
 *   gelu  y = x Phi(x),   dy/dx = Phi(x) + x phi(x)       Phi(x) = (1 + erf(x / sqrt 2)) / 2
 *   silu  y = x sig(x),   dy/dx = sig (1 + x (1 - sig))
 * Backward kernels add f'(x) dy into dx. */
BL_SIMD_CLONES static void gelu_fw(const float *x, float *y, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + bl_verff(x[i] * (float)M_SQRT1_2));
}

BL_SIMD_CLONES static void gelu_bw(const float *x, const float *dy, float *dx, size_t n)
{
    const float c = (float)(0.5 * M_2_SQRTPI * M_SQRT1_2);   /* 1 / sqrt(2 pi) */
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        float d = 0.5f * (1.0f + bl_verff(v * (float)M_SQRT1_2)) + v * bl_vexpf(-0.5f * v * v) * c;
        dx[i] += d * dy[i];
    }
}

/* Linear + GELU epilogue on one block of rows [rows, cols]: h = acc + b (b NULL: no bias),
 * y = h Phi(h) and acc <- gelu'(h) = Phi(h) + h phi(h), kept for backward. One exp serves both:
 * phi(h) = exp(-h^2 / 2) / sqrt(2 pi), and Phi from it by Abramowitz & Stegun 26.2.17,
 * Phi(|h|) = 1 - phi(h) t (b1 + t (b2 + t (b3 + t (b4 + t b5)))), t = 1 / (1 + p |h|),
 * |error| < 7.5e-8 (Phi(-|h|) = 1 - Phi(|h|) is the product itself, without cancellation). */
BL_SIMD_CLONES static void gelu_bias_block(float *restrict acc, const float *restrict b,
                                           float *restrict y, size_t rows, size_t cols)
{
    const float c = (float)(0.5 * M_2_SQRTPI * M_SQRT1_2);   /* 1 / sqrt(2 pi) */
    for (size_t r = 0; r < rows; r++) {
        float *a = acc + r * cols, *yr = y + r * cols;
#pragma omp simd
        for (size_t j = 0; j < cols; j++) {
            float h = b ? a[j] + b[j] : a[j];
            float phi = c * bl_vexpf(-0.5f * h * h), t = 1.0f / (1.0f + 0.2316419f * fabsf(h));
            float q = t * (0.319381530f + t * (-0.356563782f + t * (1.781477937f +
                      t * (-1.821255978f + t * 1.330274429f))));
            float tail = phi * q, cdf = h >= 0.0f ? 1.0f - tail : tail;
            yr[j] = h * cdf;
            a[j] = cdf + h * phi;
        }
    }
}

void bl_ops_gelu_bias_rows(float *acc, const float *b, float *y, size_t rows, size_t cols)
{
    gelu_bias_block(acc, b, y, rows, cols);
}

BL_SIMD_CLONES static void add_bias_block(float *restrict y, const float *restrict b, size_t rows,
                                          size_t cols)
{
    for (size_t r = 0; r < rows; r++) {
        float *yr = y + r * cols;
#pragma omp simd
        for (size_t j = 0; j < cols; j++) yr[j] += b[j];
    }
}

void bl_ops_add_bias_rows(float *y, const float *b, size_t rows, size_t cols)
{
    add_bias_block(y, b, rows, cols);
}


void bl_ops_mul(const float *a, const float *b, float *y, size_t n)
{
    PW_CHUNKED(n, mul_run(a + o, b + o, y + o, len));
}

void bl_ops_mul_colsum(const float *a, const float *b, float *y, size_t rows, size_t cols,
                       float *dst)
{
    if (!dst || !colsum_streams(rows, cols)) {
        bl_ops_mul(a, b, y, rows * cols);
        if (dst) bl_ops_colsum_add(dst, y, NULL, rows, cols);
        return;
    }
    colsum_streamed(dst, y, NULL, rows, cols, a, b, y);
}

BL_SIMD_CLONES static void silu_fw(const float *x, float *y, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + bl_vexpf(-x[i]));
}

BL_SIMD_CLONES static void silu_bw(const float *x, const float *dy, float *dx, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        float v = x[i], sg = 1.0f / (1.0f + bl_vexpf(-v));
        dx[i] += sg * (1.0f + v * (1.0f - sg)) * dy[i];
    }
}


typedef struct {
    pw_kind kind;
    float s;                /* scale's factor */
} pointwise_args;

static void pointwise_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    pointwise_args a;
    BL_NODE_LOAD(n, a);
    pw_kind k = a.kind;
    float s = a.s;
    const float *xd = x->data, *dy = y->grad;
    float *dx = x->grad;
    size_t N = x->numel;
    if (k == PW_SCALE) {                                /* y = s x */
#pragma omp parallel for simd schedule(static) if (N > BL_PAR_MIN)
        for (size_t i = 0; i < N; i++) dx[i] += s * dy[i];
    } else if (k == PW_GELU) {
        PW_CHUNKED(N, gelu_bw(xd + o, dy + o, dx + o, len));
    } else {
        PW_CHUNKED(N, silu_bw(xd + o, dy + o, dx + o, len));
    }
}

static bl_tensor *pointwise(bl_graph *g, pw_kind k, bl_tensor *x, float s)
{
    if (bl_ops_need(bl_op_name(pw_op[k]), "x", x)) return NULL;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    const float *xd = x->data;
    float *yd = y->data;
    size_t N = x->numel;
    if (k == PW_SCALE) {
#pragma omp parallel for simd schedule(static) if (N > BL_PAR_MIN)
        for (size_t i = 0; i < N; i++) yd[i] = s * xd[i];
    } else if (k == PW_GELU) {
        PW_CHUNKED(N, gelu_fw(xd + o, yd + o, len));
    } else {
        PW_CHUNKED(N, silu_fw(xd + o, yd + o, len));
    }
    bl_node *n = bl_graph_node(g, pw_op[k], pointwise_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((pointwise_args){k, s}));
    }
    return y;
}

bl_tensor *bl_scale(bl_graph *g, bl_tensor *a, float s) { return pointwise(g, PW_SCALE, a, s); }
bl_tensor *bl_gelu(bl_graph *g, bl_tensor *x) { return pointwise(g, PW_GELU, x, 0.0f); }
bl_tensor *bl_silu(bl_graph *g, bl_tensor *x) { return pointwise(g, PW_SILU, x, 0.0f); }

/* ---------------------------------------------------------------------------------------
 * softmax over the last dim: y = exp(x - max) / sum exp(x - max)
 * backward (llm.c softmax_backward): dx_i += y_i (dy_i - sum_j dy_j y_j)
 */
static void softmax_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    size_t V = (size_t)x->shape[x->ndim - 1], rows = x->numel / V;
#pragma omp parallel for schedule(static) if (x->numel > BL_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        const float *yr = y->data + r * V, *dy = y->grad + r * V;
        float *dx = x->grad + r * V;
        double dot = 0;
        for (size_t j = 0; j < V; j++) dot += (double)dy[j] * yr[j];
        for (size_t j = 0; j < V; j++) dx[j] += yr[j] * (dy[j] - (float)dot);
    }
}

bl_tensor *bl_softmax(bl_graph *g, bl_tensor *x)
{
    if (bl_ops_need("softmax", "x", x)) return NULL;
    if (x->ndim < 1) return BL_FAILP("softmax: x must have at least 1 dimension, got a scalar");
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    size_t V = (size_t)x->shape[x->ndim - 1], rows = x->numel / V;
#pragma omp parallel for schedule(static) if (x->numel > BL_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x->data + r * V;
        float *yr = y->data + r * V;
        float mx = xr[0];
        for (size_t j = 1; j < V; j++) mx = xr[j] > mx ? xr[j] : mx;
        double sum = 0;
        for (size_t j = 0; j < V; j++) { yr[j] = expf(xr[j] - mx); sum += yr[j]; }
        float inv = (float)(1.0 / sum);
        for (size_t j = 0; j < V; j++) yr[j] *= inv;
    }
    bl_node *n = bl_graph_node(g, BL_OP_SOFTMAX, softmax_backward, y);
    if (n) n->in[0] = x;
    return y;
}

/* ---------------------------------------------------------------------------------------
 * dropout: y = x * keep / (1 - p), keep = bl_rng_at(key, i) >= p. The mask is drawn again in
 * backward (no mask kept).
 */
typedef struct {
    uint64_t key;           /* the mask's stream */
    float p, s;             /* drop probability, 1 / (1 - p) */
} dropout_args;

static void dropout_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    dropout_args a;
    BL_NODE_LOAD(n, a);
    uint64_t key = a.key;
    float p = a.p, s = a.s;
    long N = (long)x->numel;
#pragma omp parallel for schedule(static) if (x->numel > BL_PAR_MIN)
    for (long i = 0; i < N; i++)
        if (bl_rng_at(key, (uint64_t)i) >= p) x->grad[i] += y->grad[i] * s;
}

bl_tensor *bl_dropout(bl_graph *g, bl_tensor *x, float p, uint64_t key)
{
    if (bl_ops_need("dropout", "x", x)) return NULL;
    if (!(p >= 0.0f && p < 1.0f)) return BL_FAILP("dropout: p must be in [0, 1), got %g", (double)p);
    if (p == 0.0f) return x;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    float s = 1.0f / (1.0f - p);
    long N = (long)x->numel;
#pragma omp parallel for schedule(static) if (x->numel > BL_PAR_MIN)
    for (long i = 0; i < N; i++) y->data[i] = bl_rng_at(key, (uint64_t)i) >= p ? x->data[i] * s : 0.0f;
    bl_node *n = bl_graph_node(g, BL_OP_DROPOUT, dropout_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((dropout_args){key, p, s}));
    }
    return y;
}
