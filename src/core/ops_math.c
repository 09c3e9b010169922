/* ops_math.c - the math and tensor functions of the language, forward and backward (see
 * ops_math.h for the semantics; formulas are torch's, derivatives the textbook ones written next
 * to each backward, with torch 1.13's choices at the non-differentiable points).
 *
 * Broadcasting: every operand is padded to 4-D on the left and a broadcast dimension gets
 * stride 0 (as tensor_math.c): the output is walked row by row (its last dimension), each row
 * reading its operands at their strides. Backward walks the same way and adds into the operand
 * at its (possibly repeated) position, which sums the gradient over the broadcast dims.
 * These ops serve the prompt (small tensors): single-threaded, plain loops.
 */
#include "core/ops_math.h"
#include "core/ops.h"
#include "core/ops_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- broadcasting ------------------------------------------------------------------------ */

typedef struct {
    int o[4];                   /* output shape padded to 4-D */
    size_t st[3][4];            /* per operand: strides padded to 4-D, 0 where broadcast */
    size_t rows, len;           /* rows of the output (product of o[0..2]) and their length */
} bc_t;

static void bc_init(bc_t *b, int nd, const int *shape, int n, const bl_tensor *const *ts)
{
    for (int i = 0; i < 4; i++) b->o[i] = i - (4 - nd) >= 0 ? shape[i - (4 - nd)] : 1;
    for (int k = 0; k < n; k++) {
        const bl_tensor *t = ts[k];
        size_t acc = 1;
        for (int i = 3; i >= 0; i--) {
            int j = i - (4 - t->ndim), size = j >= 0 ? t->shape[j] : 1;
            b->st[k][i] = size == 1 ? 0 : acc;
            acc *= (size_t)size;
        }
    }
    b->len = (size_t)b->o[3];
    b->rows = (size_t)b->o[0] * b->o[1] * b->o[2];
}

/* Offset of operand k's first element in output row r. */
static size_t bc_off(const bc_t *b, int k, size_t r)
{
    size_t i2 = r % (size_t)b->o[2], q = r / (size_t)b->o[2], i1 = q % (size_t)b->o[1], i0 = q / (size_t)b->o[1];
    return i0 * b->st[k][0] + i1 * b->st[k][1] + i2 * b->st[k][2];
}

/* The broadcast shape of n tensors (n <= 3) into *nd, shape; error names op. */
static int bc_shape(const char *op, int n, bl_tensor *const *ts, int *nd, int *shape)
{
    for (int k = 0; k < n; k++)
        if (bl_ops_need(op, k == 0 ? "a" : k == 1 ? "b" : "c", ts[k])) return -1;
    *nd = ts[0]->ndim;
    memcpy(shape, ts[0]->shape, sizeof(int) * (size_t)ts[0]->ndim);
    for (int k = 1; k < n; k++) {
        bl_tensor cur = {0};
        cur.ndim = *nd;
        memcpy(cur.shape, shape, sizeof cur.shape);
        if (bl_broadcast_shape(op, &cur, ts[k], nd, shape) < 0) return -1;
    }
    return 0;
}

/* grad of t, made real (zeroed if still logically zero): for inputs the walk does not prepare
 * (those beyond node.in) and harmless for the others. */
static float *grad_of(bl_tensor *t) { return t && t->grad ? bl_grad_ready(t) : NULL; }

/* ---- binary -------------------------------------------------------------------------------- */

static float bin_f(bl_binop op, float a, float b)
{
    switch (op) {
    case BL_ADD: return a + b;
    case BL_SUB: return a - b;
    case BL_MUL: return a * b;
    case BL_DIV: return a / b;             /* IEEE: x/0 = +-inf, 0/0 = nan */
    case BL_POW: return powf(a, b);
    case BL_MAXIMUM: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case BL_MINIMUM: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case BL_FLOORDIV: return (float)bl_floordiv(a, b);
    case BL_REMAINDER: return (float)bl_remainder(a, b);
    case BL_EQ: return a == b;
    case BL_NE: return a != b;
    case BL_LT: return a < b;
    case BL_LE: return a <= b;
    case BL_GT: return a > b;
    case BL_GE: return a >= b;
    }
    return NAN;
}

void bl_math_binary_fw(bl_binop op, const bl_tensor *a, const bl_tensor *b, bl_tensor *y)
{
    bc_t bc;
    bc_init(&bc, y->ndim, y->shape, 2, (const bl_tensor *[]){a, b});
    size_t sa = bc.st[0][3], sb = bc.st[1][3];
    for (size_t r = 0; r < bc.rows; r++) {
        const float *pa = a->data + bc_off(&bc, 0, r), *pb = b->data + bc_off(&bc, 1, r);
        float *py = y->data + r * bc.len;
        switch (op) {  /* the common ones without a call per element */
        case BL_ADD: for (size_t j = 0; j < bc.len; j++) py[j] = pa[j * sa] + pb[j * sb]; break;
        case BL_SUB: for (size_t j = 0; j < bc.len; j++) py[j] = pa[j * sa] - pb[j * sb]; break;
        case BL_MUL: for (size_t j = 0; j < bc.len; j++) py[j] = pa[j * sa] * pb[j * sb]; break;
        case BL_DIV: for (size_t j = 0; j < bc.len; j++) py[j] = pa[j * sa] / pb[j * sb]; break;
        default: for (size_t j = 0; j < bc.len; j++) py[j] = bin_f(op, pa[j * sa], pb[j * sb]); break;
        }
    }
}

/* d(a OP b)/da and /db times dy (y = a OP b):
 *   add: dy, dy   sub: dy, -dy   mul: dy b, dy a   div: dy / b, -dy a / b^2
 *   remainder: dy, -dy floor_divide(a, b) (torch's derivatives.yaml); floor_divide: none (torch
 *   has no derivative for it: the language refuses it on tensors that need a gradient)
 *   pow: dy b a^(b-1) (0 where b == 0), dy y log a (0 where a == 0 and b >= 0)
 *   maximum: dy to the larger, dy/2 to each when equal; minimum likewise */
static void bin_grad(bl_binop op, float a, float b, float y, float dy, float *ga, float *gb)
{
    switch (op) {
    case BL_ADD: *ga = dy; *gb = dy; break;
    case BL_SUB: *ga = dy; *gb = -dy; break;
    case BL_MUL: *ga = dy * b; *gb = dy * a; break;
    case BL_DIV: *ga = dy / b; *gb = -dy * a / (b * b); break;
    case BL_POW:
        *ga = b == 0.0f ? 0.0f : dy * b * powf(a, b - 1.0f);
        *gb = a == 0.0f && b >= 0.0f ? 0.0f : dy * y * logf(a);
        break;
    case BL_MAXIMUM: case BL_MINIMUM: {
        int first = op == BL_MAXIMUM ? a > b : a < b;
        if (a == b) *ga = *gb = dy * 0.5f;
        else if (first) { *ga = dy; *gb = 0.0f; }
        else if (isnan(a) || isnan(b)) { *ga = isnan(a) ? dy : 0.0f; *gb = isnan(b) ? dy : 0.0f; }
        else { *ga = 0.0f; *gb = dy; }
        break;
    }
    case BL_REMAINDER: *ga = dy; *gb = -dy * (float)bl_floordiv(a, b); break;
    default: *ga = *gb = 0.0f; break;
    }
}

static void binary_backward(bl_node *n)
{
    bl_tensor *a = n->in[0], *b = n->in[1], *y = n->out;
    bl_binop op = (bl_binop)(n->op - BL_OP_ADD);    /* the node's op names the operator */
    float *da = a->grad, *db = b->grad;
    bc_t bc;
    bc_init(&bc, y->ndim, y->shape, 2, (const bl_tensor *[]){a, b});
    size_t sa = bc.st[0][3], sb = bc.st[1][3];
    for (size_t r = 0; r < bc.rows; r++) {
        size_t oa = bc_off(&bc, 0, r), ob = bc_off(&bc, 1, r);
        for (size_t j = 0; j < bc.len; j++) {
            size_t o = r * bc.len + j, ia = oa + j * sa, ib = ob + j * sb;
            float ga, gb;
            bin_grad(op, a->data[ia], b->data[ib], y->data[o], y->grad[o], &ga, &gb);
            if (da) da[ia] += ga;
            if (db) db[ib] += gb;
        }
    }
}

bl_tensor *bl_binary_op(bl_graph *g, bl_binop op, bl_tensor *a, bl_tensor *b)
{
    if ((unsigned)op > BL_GE) return BL_FAILP("binary: unknown operator %d", (int)op);
    int nd, shape[BL_MAXDIM];
    if (bc_shape(bl_op_name(BL_OP_OF_BINOP(op)), 2, (bl_tensor *[]){a, b}, &nd, shape) < 0) return NULL;
    int diff = op < BL_EQ;
    bl_tensor *y = bl_graph_tensor(g, nd, shape, diff && BL_WANTS_GRAD(g, a, b));
    if (!y) return NULL;
    bl_math_binary_fw(op, a, b, y);
    bl_node *n = bl_graph_node(g, BL_OP_OF_BINOP(op), binary_backward, y);
    if (n) {
        n->in[0] = a;
        n->in[1] = b;
    }
    return y;
}

/* ---- unary --------------------------------------------------------------------------------- */

static float un_f(bl_unop op, float x)
{
    switch (op) {
    case BL_NEG: return -x;
    case BL_ABS: return fabsf(x);
    case BL_SQRT: return sqrtf(x);
    case BL_EXP: return expf(x);
    case BL_LOG: return logf(x);
    case BL_SIN: return sinf(x);
    case BL_COS: return cosf(x);
    case BL_TAN: return tanf(x);
    case BL_TANH: return tanhf(x);
    case BL_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case BL_SIGN: return isnan(x) ? x : (float)((x > 0) - (x < 0));
    case BL_FLOOR: return floorf(x);
    case BL_CEIL: return ceilf(x);
    case BL_ERF: return erff(x);
    }
    return NAN;
}

void bl_math_unary_fw(bl_unop op, const bl_tensor *x, bl_tensor *y)
{
    for (size_t i = 0; i < x->numel; i++) y->data[i] = un_f(op, x->data[i]);
}

/* f'(x) dy with y = f(x):
 *   neg -1   abs sign(x) (0 at 0)   sqrt 1 / (2 y)   exp y   log 1 / x   sin cos x
 *   cos -sin x   tan 1 + y^2   tanh 1 - y^2   sigmoid y (1 - y)   erf 2/sqrt(pi) e^(-x^2)
 *   sign floor ceil 0 */
static float un_grad(bl_unop op, float x, float y, float dy)
{
    switch (op) {
    case BL_NEG: return -dy;
    case BL_ABS: return x > 0 ? dy : x < 0 ? -dy : 0.0f;
    case BL_SQRT: return dy / (2.0f * y);
    case BL_EXP: return dy * y;
    case BL_LOG: return dy / x;
    case BL_SIN: return dy * cosf(x);
    case BL_COS: return -dy * sinf(x);
    case BL_TAN: return dy * (1.0f + y * y);
    case BL_TANH: return dy * (1.0f - y * y);
    case BL_SIGMOID: return dy * y * (1.0f - y);
    case BL_ERF: return dy * (float)M_2_SQRTPI * expf(-x * x);
    default: return 0.0f;
    }
}

static void unary_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    bl_unop op = (bl_unop)(n->op - BL_OP_NEG);
    if (!x->grad || op == BL_SIGN || op == BL_FLOOR || op == BL_CEIL) return;
    for (size_t i = 0; i < x->numel; i++) x->grad[i] += un_grad(op, x->data[i], y->data[i], y->grad[i]);
}

bl_tensor *bl_unary_op(bl_graph *g, bl_unop op, bl_tensor *x)
{
    if ((unsigned)op > BL_ERF) return BL_FAILP("unary: unknown function %d", (int)op);
    if (bl_ops_need(bl_op_name(BL_OP_OF_UNOP(op)), "x", x)) return NULL;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    bl_math_unary_fw(op, x, y);
    bl_node *n = bl_graph_node(g, BL_OP_OF_UNOP(op), unary_backward, y);
    if (n) {
        n->in[0] = x;
    }
    return y;
}

/* pow with a constant exponent p: dx += p x^(p-1) dy, 0 where p == 0 (torch pow_backward) */
typedef struct {
    float p;                /* the exponent */
} pow_scalar_args;

static void pow_scalar_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    pow_scalar_args a;
    BL_NODE_LOAD(n, a);
    float p = a.p;
    if (!x->grad || p == 0.0f) return;
    for (size_t i = 0; i < x->numel; i++) x->grad[i] += y->grad[i] * p * powf(x->data[i], p - 1.0f);
}

bl_tensor *bl_pow_scalar(bl_graph *g, bl_tensor *x, float p)
{
    if (bl_ops_need("pow", "x", x)) return NULL;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    for (size_t i = 0; i < x->numel; i++) y->data[i] = powf(x->data[i], p);
    bl_node *n = bl_graph_node(g, BL_OP_POW, pow_scalar_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((pow_scalar_args){p}));
    }
    return y;
}

/* clamp: dx += dy where lo <= x <= hi (torch clamp_backward; an absent bound always holds) */
typedef struct {
    float lo, hi;           /* the bounds; nan: none */
} clamp_args;

static void clamp_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    clamp_args a;
    BL_NODE_LOAD(n, a);
    float lo = a.lo, hi = a.hi;
    if (!x->grad) return;
    for (size_t i = 0; i < x->numel; i++) {
        float v = x->data[i];
        if ((isnan(lo) || v >= lo) && (isnan(hi) || v <= hi)) x->grad[i] += y->grad[i];
    }
}

bl_tensor *bl_clamp(bl_graph *g, bl_tensor *x, float lo, float hi)
{
    if (bl_ops_need("clamp", "x", x)) return NULL;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    for (size_t i = 0; i < x->numel; i++) {
        float v = x->data[i];
        if (!isnan(lo) && v < lo) v = lo;
        if (!isnan(hi) && v > hi) v = hi;
        y->data[i] = v;
    }
    bl_node *n = bl_graph_node(g, BL_OP_CLAMP, clamp_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((clamp_args){lo, hi}));
    }
    return y;
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* x viewed as [outer, n, inner] around dim (BL_ALL_DIMS: [1, numel, 1]) */
static void red_layout(const bl_tensor *x, int dim, size_t *outer, size_t *n, size_t *inner)
{
    if (dim == BL_ALL_DIMS) {
        *outer = 1, *n = x->numel, *inner = 1;
        return;
    }
    *n = (size_t)x->shape[dim];
    *inner = bl_tensor_inner(x, dim + 1);
    *outer = x->numel / (*n * *inner);
}

int bl_math_reduce_shape(const bl_tensor *x, int dim, int keepdim, int *shape)
{
    int nd = 0;
    if (dim == BL_ALL_DIMS) return 0;
    for (int i = 0; i < x->ndim; i++) {
        if (i != dim) shape[nd++] = x->shape[i];
        else if (keepdim) shape[nd++] = 1;
    }
    return nd;
}

/* The first index of the extreme of n values x[0], x[st], ...: a NaN wins (torch). */
static size_t ext_index(const float *x, size_t n, size_t st, int max)
{
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i * st], b = x[best * st];
        if (isnan(b)) break;
        if (isnan(v) || (max ? v > b : v < b)) best = i;
    }
    return best;
}

/* mean of n strided values, in double */
static double mean_of(const float *x, size_t n, size_t st)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i * st];
    return s / (double)n;
}

static float reduce_strided(bl_reduce op, const float *x, size_t n, size_t st)
{
    double s = 0, m;
    switch (op) {
    case BL_SUM: for (size_t i = 0; i < n; i++) s += x[i * st]; return (float)s;
    case BL_MEAN: return (float)mean_of(x, n, st);
    case BL_VAR: case BL_STD:   /* two passes, biased (divide by n) */
        m = mean_of(x, n, st);
        for (size_t i = 0; i < n; i++) { double d = x[i * st] - m; s += d * d; }
        return (float)(op == BL_VAR ? s / (double)n : sqrt(s / (double)n));
    case BL_RMS:
        for (size_t i = 0; i < n; i++) s += (double)x[i * st] * x[i * st];
        return (float)sqrt(s / (double)n);
    case BL_MIN: case BL_MAX: return x[ext_index(x, n, st, op == BL_MAX) * st];
    }
    return NAN;
}

void bl_math_reduce_fw(bl_reduce op, const bl_tensor *x, int dim, bl_tensor *y)
{
    size_t outer, n, inner;
    red_layout(x, dim, &outer, &n, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++)
            y->data[o * inner + i] = reduce_strided(op, x->data + o * n * inner + i, n, inner);
}

typedef struct {
    int dim;                /* the reduced dimension, or BL_ALL_DIMS */
} reduce_args;             /* also cumsum's: the dimension it runs along */

/* dx_i += dy * d(reduction)/dx_i, per reduced row:
 *   sum 1   mean 1/n   var 2 (x_i - m) / n   std (x_i - m) / (n std) (0 where std == 0)
 *   rms x_i / (n rms) (0 where rms == 0)   max/min over a dim: 1 at the index returned;
 *   over all elements: 1/k at each of the k elements equal to the result */
static void reduce_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    bl_reduce op = (bl_reduce)(n->op - BL_OP_SUM);
    reduce_args a;
    BL_NODE_LOAD(n, a);
    int dim = a.dim;
    if (!x->grad) return;
    size_t outer, len, inner;
    red_layout(x, dim, &outer, &len, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++) {
            const float *xr = x->data + o * len * inner + i;
            float *gr = x->grad + o * len * inner + i;
            float r = y->data[o * inner + i], dy = y->grad[o * inner + i];
            double m = 0;
            if (op == BL_VAR || op == BL_STD) m = mean_of(xr, len, inner);
            if ((op == BL_MIN || op == BL_MAX) && dim != BL_ALL_DIMS) {
                gr[ext_index(xr, len, inner, op == BL_MAX) * inner] += dy;
                continue;
            }
            size_t ties = 0;
            if (op == BL_MIN || op == BL_MAX)
                for (size_t k = 0; k < len; k++) ties += xr[k * inner] == r;
            for (size_t k = 0; k < len; k++) {
                float v = xr[k * inner];
                double d;
                switch (op) {
                case BL_SUM: d = dy; break;
                case BL_MEAN: d = dy / (double)len; break;
                case BL_VAR: d = dy * 2.0 * (v - m) / (double)len; break;
                case BL_STD: d = r == 0 ? 0 : dy * (v - m) / ((double)len * r); break;
                case BL_RMS: d = r == 0 ? 0 : dy * (double)v / ((double)len * r); break;
                default: d = v == r ? dy / (double)ties : 0; break;
                }
                gr[k * inner] += (float)d;
            }
        }
}

/* dim normalised (or BL_ALL_DIMS); -1 + error naming op */
static int norm_dim(const char *op, const bl_tensor *x, int *dim)
{
    if (*dim == BL_ALL_DIMS) return 0;
    if (x->ndim == 0) return bl_fail("%s: dim picks a dimension, but the tensor is 0-D (one number)", op);
    int d = bl_dim_index(op, x, *dim);
    if (d < 0) return -1;
    *dim = d;
    return 0;
}

bl_tensor *bl_reduce_op(bl_graph *g, bl_reduce op, bl_tensor *x, int dim, int keepdim)
{
    if ((unsigned)op > BL_MAX) return BL_FAILP("reduce: unknown reduction %d", (int)op);
    if (bl_ops_need(bl_op_name(BL_OP_OF_REDUCE(op)), "x", x) || norm_dim(bl_op_name(BL_OP_OF_REDUCE(op)), x, &dim) < 0) return NULL;
    int shape[BL_MAXDIM], nd = bl_math_reduce_shape(x, dim, keepdim, shape);
    bl_tensor *y = bl_graph_tensor(g, nd, shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    bl_math_reduce_fw(op, x, dim, y);
    bl_node *n = bl_graph_node(g, BL_OP_OF_REDUCE(op), reduce_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((reduce_args){dim}));
    }
    return y;
}

bl_tensor *bl_argext(bl_graph *g, bl_tensor *x, int dim, int keepdim, int max)
{
    const char *op = max ? "argmax" : "argmin";
    if (bl_ops_need(op, "x", x) || norm_dim(op, x, &dim) < 0) return NULL;
    int shape[BL_MAXDIM], nd = bl_math_reduce_shape(x, dim, keepdim, shape);
    bl_tensor *y = bl_graph_tensor(g, nd, shape, 0);
    if (!y) return NULL;
    size_t outer, n, inner;
    red_layout(x, dim, &outer, &n, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++)
            y->data[o * inner + i] = (float)ext_index(x->data + o * n * inner + i, n, inner, max);
    return y;
}

/* cumsum: y_i = sum_{j <= i} x_j;  dx_j += sum_{i >= j} dy_i (the reversed running sum) */
static void cumsum_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    size_t outer, len, inner;
    reduce_args a;
    BL_NODE_LOAD(n, a);
    red_layout(x, a.dim, &outer, &len, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++) {
            double s = 0;
            for (size_t k = len; k-- > 0;) {
                size_t at = o * len * inner + i + k * inner;
                s += y->grad[at];
                x->grad[at] += (float)s;
            }
        }
}

bl_tensor *bl_cumsum(bl_graph *g, bl_tensor *x, int dim)
{
    if (bl_ops_need("cumsum", "x", x) || norm_dim("cumsum", x, &dim) < 0) return NULL;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    size_t outer, len, inner;
    red_layout(x, dim, &outer, &len, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++) {
            double s = 0;
            for (size_t k = 0; k < len; k++) {
                size_t at = o * len * inner + i + k * inner;
                s += x->data[at];
                y->data[at] = (float)s;
            }
        }
    bl_node *n = bl_graph_node(g, BL_OP_CUMSUM, cumsum_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((reduce_args){dim}));
    }
    return y;
}

typedef struct {
    int dim, k;             /* the dimension picked along, how many */
} topk_args;

/* topk: the values picked; dx[index] += dy (save[0]: the indices) */
static void topk_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out, *idx = n->save[0];
    if (!x->grad) return;
    topk_args a;
    BL_NODE_LOAD(n, a);
    size_t outer, len, inner, k = (size_t)a.k;
    red_layout(x, a.dim, &outer, &len, &inner);
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++)
            for (size_t j = 0; j < k; j++) {
                size_t at = o * k * inner + i + j * inner;
                x->grad[o * len * inner + i + (size_t)idx->data[at] * inner] += y->grad[at];
            }
}

/* order for topk and sort: NaN above every number (first in descending, last in ascending, as
 * torch), equal values by index */
typedef struct { float v; int i; } vi;
static int vi_desc(const void *pa, const void *pb)
{
    const vi *a = pa, *b = pb;
    int an = isnan(a->v), bn = isnan(b->v);
    if (an != bn) return bn - an;
    if (!an && a->v != b->v) return a->v > b->v ? -1 : 1;
    return a->i - b->i;
}
static int vi_asc(const void *pa, const void *pb)     /* NaN above every number, as torch.sort */
{
    const vi *a = pa, *b = pb;
    int an = isnan(a->v), bn = isnan(b->v);
    if (an != bn) return an - bn;
    if (!an && a->v != b->v) return a->v < b->v ? -1 : 1;
    return a->i - b->i;
}

bl_tensor *bl_topk(bl_graph *g, bl_tensor *x, int k, int dim, int largest, bl_tensor **indices)
{
    if (indices) *indices = NULL;
    if (bl_ops_need("topk", "x", x)) return NULL;
    if (x->ndim == 0) return BL_FAILP("topk: x must have at least 1 dimension, got a 0-D tensor");
    if (norm_dim("topk", x, &dim) < 0) return NULL;
    if (k < 1 || k > x->shape[dim])
        return BL_FAILP("topk: k must be in [1, %d] (the size of dimension %d), got %d", x->shape[dim], dim, k);
    int shape[BL_MAXDIM];
    memcpy(shape, x->shape, sizeof shape);
    shape[dim] = k;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, shape, BL_WANTS_GRAD(g, x));
    bl_tensor *ix = y ? bl_graph_tensor(g, x->ndim, shape, 0) : NULL;
    size_t outer, len, inner;
    red_layout(x, dim, &outer, &len, &inner);
    vi *buf = ix ? bl_graph_alloc(g, len * sizeof *buf) : NULL;
    if (!buf) return NULL;
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < inner; i++) {
            const float *xr = x->data + o * len * inner + i;
            for (size_t j = 0; j < len; j++) buf[j] = (vi){xr[j * inner], (int)j};
            qsort(buf, len, sizeof *buf, largest ? vi_desc : vi_asc);
            for (size_t j = 0; j < (size_t)k; j++) {
                size_t at = o * (size_t)k * inner + i + j * inner;
                y->data[at] = buf[j].v;
                ix->data[at] = (float)buf[j].i;
            }
        }
    if (indices) *indices = ix;
    bl_node *n = bl_graph_node(g, BL_OP_TOPK, topk_backward, y);
    if (n) {
        n->in[0] = x;
        n->save[0] = ix;
        BL_NODE_SAVE(n, ((topk_args){dim, k}));
    }
    return y;
}

/* ---- selection --------------------------------------------------------------------------- */

/* where: y = c ? a : b;  da += dy where c, db += dy where not c (summed over broadcast dims) */
static void where_backward(bl_node *n)
{
    bl_tensor *c = n->in[0], *a = n->in[1], *b = n->in[2], *y = n->out;
    bc_t bc;
    bc_init(&bc, y->ndim, y->shape, 3, (const bl_tensor *[]){c, a, b});
    for (size_t r = 0; r < bc.rows; r++) {
        size_t oc = bc_off(&bc, 0, r), oa = bc_off(&bc, 1, r), ob = bc_off(&bc, 2, r);
        for (size_t j = 0; j < bc.len; j++) {
            float dy = y->grad[r * bc.len + j];
            if (c->data[oc + j * bc.st[0][3]] != 0.0f) {
                if (a->grad) a->grad[oa + j * bc.st[1][3]] += dy;
            } else if (b->grad) {
                b->grad[ob + j * bc.st[2][3]] += dy;
            }
        }
    }
}

bl_tensor *bl_where(bl_graph *g, bl_tensor *cond, bl_tensor *a, bl_tensor *b)
{
    int nd, shape[BL_MAXDIM];
    if (bc_shape("where", 3, (bl_tensor *[]){cond, a, b}, &nd, shape) < 0) return NULL;
    bl_tensor *y = bl_graph_tensor(g, nd, shape, BL_WANTS_GRAD(g, a, b));
    if (!y) return NULL;
    bc_t bc;
    bc_init(&bc, nd, shape, 3, (const bl_tensor *[]){cond, a, b});
    for (size_t r = 0; r < bc.rows; r++) {
        const float *pc = cond->data + bc_off(&bc, 0, r), *pa = a->data + bc_off(&bc, 1, r),
                    *pb = b->data + bc_off(&bc, 2, r);
        for (size_t j = 0; j < bc.len; j++)
            y->data[r * bc.len + j] = pc[j * bc.st[0][3]] != 0.0f ? pa[j * bc.st[1][3]] : pb[j * bc.st[2][3]];
    }
    bl_node *n = bl_graph_node(g, BL_OP_WHERE, where_backward, y);
    if (n) {
        n->in[0] = cond;
        n->in[1] = a;
        n->in[2] = b;
    }
    return y;
}

/* masked_fill: dx += dy where the mask is 0 */
static void masked_fill_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *m = n->in[1], *y = n->out;
    if (!x->grad) return;
    bc_t bc;
    bc_init(&bc, y->ndim, y->shape, 1, (const bl_tensor *[]){m});
    for (size_t r = 0; r < bc.rows; r++) {
        const float *pm = m->data + bc_off(&bc, 0, r);
        for (size_t j = 0; j < bc.len; j++)
            if (pm[j * bc.st[0][3]] == 0.0f) x->grad[r * bc.len + j] += y->grad[r * bc.len + j];
    }
}

bl_tensor *bl_masked_fill(bl_graph *g, bl_tensor *x, bl_tensor *mask, float value)
{
    int nd, shape[BL_MAXDIM];
    if (bc_shape("masked_fill", 2, (bl_tensor *[]){x, mask}, &nd, shape) < 0) return NULL;
    bl_tensor full = {0};
    full.ndim = nd;
    memcpy(full.shape, shape, sizeof full.shape);
    if (!bl_same_shape(&full, x))
        return BL_FAILP("masked_fill: the mask %s must broadcast to x's shape %s, it gives %s",
                        BL_SHP(mask), BL_SHP(x), BL_SHP(&full));
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    bc_t bc;
    bc_init(&bc, nd, shape, 1, (const bl_tensor *[]){mask});
    for (size_t r = 0; r < bc.rows; r++) {
        const float *pm = mask->data + bc_off(&bc, 0, r);
        for (size_t j = 0; j < bc.len; j++) {
            size_t o = r * bc.len + j;
            y->data[o] = pm[j * bc.st[0][3]] != 0.0f ? value : x->data[o];
        }
    }
    bl_node *n = bl_graph_node(g, BL_OP_MASKED_FILL, masked_fill_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = mask;
    }
    return y;
}

/* element o of x [.., R, C] is kept by tril/triu with diagonal d */
static int tri_keep(size_t o, int R, int C, int d, int upper)
{
    long j = (long)(o % (size_t)C), i = (long)((o / (size_t)C) % (size_t)R);
    return upper ? j - i >= d : j - i <= d;
}

typedef struct {
    int diagonal;           /* torch's diagonal argument */
    int upper;              /* 1: triu, 0: tril */
} tri_args;

static void tri_backward(bl_node *n)
{
    tri_args a;
    BL_NODE_LOAD(n, a);
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    int R = x->shape[x->ndim - 2], C = x->shape[x->ndim - 1];
    for (size_t o = 0; o < x->numel; o++)
        if (tri_keep(o, R, C, a.diagonal, a.upper)) x->grad[o] += y->grad[o];
}

bl_tensor *bl_tri(bl_graph *g, bl_tensor *x, int diagonal, int upper)
{
    bl_op id = upper ? BL_OP_TRIU : BL_OP_TRIL;
    const char *op = bl_op_name(id);
    if (bl_ops_need(op, "x", x)) return NULL;
    if (x->ndim < 2) return BL_FAILP("%s: x must have at least 2 dimensions, got %s", op, BL_SHP(x));
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    int R = x->shape[x->ndim - 2], C = x->shape[x->ndim - 1];
    for (size_t o = 0; o < x->numel; o++) y->data[o] = tri_keep(o, R, C, diagonal, upper) ? x->data[o] : 0.0f;
    bl_node *n = bl_graph_node(g, id, tri_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((tri_args){diagonal, upper}));
    }
    return y;
}

/* ---- joining ----------------------------------------------------------------------------- */

/* cat: dx_k += its slice of dy */
typedef struct {
    bl_tensor *const *xs;   /* the inputs (an arena copy of the caller's array) */
    int count, dim;
} cat_args;

static void cat_backward(bl_node *n)
{
    cat_args a;
    BL_NODE_LOAD(n, a);
    bl_tensor *const *xs = a.xs, *y = n->out;
    int cnt = a.count, dim = a.dim;
    size_t outer, ylen, inner, at = 0;
    red_layout(y, dim, &outer, &ylen, &inner);
    for (int k = 0; k < cnt; k++) {
        size_t w = (size_t)xs[k]->shape[dim] * inner;
        float *dx = grad_of(xs[k]);
        for (size_t o = 0; dx && o < outer; o++)
            for (size_t j = 0; j < w; j++) dx[o * w + j] += y->grad[o * ylen * inner + at + j];
        at += w;
    }
}

bl_tensor *bl_cat(bl_graph *g, int n, bl_tensor *const *xs, int dim)
{
    if (n < 1) return BL_FAILP("cat: needs at least one tensor");
    for (int k = 0; k < n; k++)
        if (bl_ops_need("cat", "a tensor", xs[k])) return NULL;
    const bl_tensor *x0 = xs[0];
    if (x0->ndim == 0) return BL_FAILP("cat: zero-dimensional tensors cannot be joined (stack them)");
    int d = bl_dim_index("cat", x0, dim);
    if (d < 0) return NULL;
    int shape[BL_MAXDIM];
    memcpy(shape, x0->shape, sizeof shape);
    shape[d] = 0;
    int grad = 0;
    for (int k = 0; k < n; k++) {
        const bl_tensor *t = xs[k];
        int ok = t->ndim == x0->ndim;
        for (int i = 0; ok && i < t->ndim; i++) ok = i == d || t->shape[i] == x0->shape[i];
        if (!ok)
            return BL_FAILP("cat: tensor %d is %s, but tensor 1 is %s: they must match except in "
                            "dimension %d", k + 1, BL_SHP(t), BL_SHP(x0), d);
        shape[d] += t->shape[d];
        grad |= BL_WANTS_GRAD(g, xs[k]);
    }
    bl_tensor *y = bl_graph_tensor(g, x0->ndim, shape, grad);
    if (!y) return NULL;
    size_t outer, ylen, inner, at = 0;
    red_layout(y, d, &outer, &ylen, &inner);
    for (int k = 0; k < n; k++) {
        size_t w = (size_t)xs[k]->shape[d] * inner;
        for (size_t o = 0; o < outer; o++) memcpy(y->data + o * ylen * inner + at, xs[k]->data + o * w, w * sizeof(float));
        at += w;
    }
    if (grad) {
        bl_tensor **keep = bl_graph_alloc(g, (size_t)n * sizeof *keep);
        if (!keep) return NULL;
        memcpy(keep, xs, (size_t)n * sizeof *keep);
        bl_node *nd = bl_graph_node(g, BL_OP_CAT, cat_backward, y);
        if (nd) {
            BL_NODE_SAVE(nd, ((cat_args){keep, n, d}));
        }
    }
    return y;
}

bl_tensor *bl_stack(bl_graph *g, int n, bl_tensor *const *xs, int dim)
{
    if (n < 1) return BL_FAILP("stack: needs at least one tensor");
    for (int k = 0; k < n; k++) {
        if (bl_ops_need("stack", "a tensor", xs[k])) return NULL;
        if (!bl_same_shape(xs[k], xs[0]))
            return BL_FAILP("stack: tensor %d is %s, but tensor 1 is %s: they must have one shape", k + 1,
                            BL_SHP(xs[k]), BL_SHP(xs[0]));
    }
    int nd = xs[0]->ndim;
    if (nd >= BL_MAXDIM) return BL_FAILP("stack: the result would have more than %d dimensions", BL_MAXDIM);
    if (dim < -(nd + 1) || dim > nd)
        return BL_FAILP("stack: dim %d is out of range for %d-D tensors (use -%d to %d)", dim, nd, nd + 1, nd);
    if (dim < 0) dim += nd + 1;
    int shape[BL_MAXDIM];
    for (int i = 0, j = 0; i <= nd; i++) shape[i] = i == dim ? 1 : xs[0]->shape[j++];
    bl_tensor **views = bl_graph_alloc(g, (size_t)n * sizeof *views);
    if (!views) return NULL;
    for (int k = 0; k < n; k++)   /* the views share each input's data and grad */
        if (!(views[k] = bl_graph_view(g, xs[k], nd + 1, shape))) return NULL;
    return bl_cat(g, n, views, dim);
}

/* ---- indices ----------------------------------------------------------------------------- */

/* idx's elements as ints in [0, lim) (lim <= 0: >= 0 only), in the arena; NULL + error */
static int *whole_indices(bl_graph *g, const char *op, const bl_tensor *idx, long lim)
{
    int *ids = bl_graph_alloc(g, idx->numel * sizeof *ids);
    if (!ids) return NULL;
    for (size_t i = 0; i < idx->numel; i++) {
        float v = idx->data[i];
        if (!(v == floorf(v)) || v < 0 || (lim > 0 && v >= (float)lim)) {
            if (lim > 0) return BL_FAILP("%s: index %g (element %zu) is not a whole number in [0, %ld)", op, (double)v, i, lim);
            return BL_FAILP("%s: index %g (element %zu) is not a whole number >= 0", op, (double)v, i);
        }
        ids[i] = (int)v;
    }
    return ids;
}

static bl_tensor *take_rows(bl_graph *g, const char *op, bl_tensor *x, const bl_tensor *idx)
{
    if (bl_ops_need(op, "x", x) || bl_ops_need(op, "idx", idx)) return NULL;
    if (x->ndim < 1) return BL_FAILP("%s: a 0-D tensor has no rows to pick", op);
    if (idx->ndim + x->ndim - 1 > BL_MAXDIM)
        return BL_FAILP("%s: indices %s into %s would give more than %d dimensions", op, BL_SHP(idx), BL_SHP(x),
                        BL_MAXDIM);
    int *ids = whole_indices(g, op, idx, x->shape[0]);
    if (!ids) return NULL;
    int V = x->shape[0], D = (int)(x->numel / (size_t)V), shape[BL_MAXDIM], nd = 0;
    bl_tensor *w = bl_graph_view(g, x, 2, (int[]){V, D});   /* the rows as an embedding table */
    bl_tensor *y = w ? bl_embedding(g, w, ids, (int)idx->numel) : NULL;
    if (!y) return NULL;
    for (int i = 0; i < idx->ndim; i++) shape[nd++] = idx->shape[i];
    for (int i = 1; i < x->ndim; i++) shape[nd++] = x->shape[i];
    return nd ? bl_graph_view(g, y, nd, shape) : bl_graph_view(g, y, 0, shape);
}

bl_tensor *bl_embedding_idx(bl_graph *g, bl_tensor *w, const bl_tensor *idx)
{
    if (bl_ops_need("embedding", "w", w) || bl_ops_need("embedding", "idx", idx)) return NULL;
    if (w->ndim != 2) return BL_FAILP("embedding: the table must be 2-D [rows, dim], got %s", BL_SHP(w));
    return take_rows(g, "embedding", w, idx);
}

bl_tensor *bl_take_rows(bl_graph *g, bl_tensor *x, const bl_tensor *idx) { return take_rows(g, "index", x, idx); }

bl_tensor *bl_one_hot(bl_graph *g, const bl_tensor *idx, int num_classes)
{
    if (bl_ops_need("one_hot", "idx", idx)) return NULL;
    if (idx->ndim > BL_MAXDIM - 1)
        return BL_FAILP("one_hot: indices %s would give more than %d dimensions", BL_SHP(idx), BL_MAXDIM);
    int *ids = whole_indices(g, "one_hot", idx, num_classes);
    if (!ids) return NULL;
    if (num_classes <= 0) {
        num_classes = 0;
        for (size_t i = 0; i < idx->numel; i++) num_classes = ids[i] + 1 > num_classes ? ids[i] + 1 : num_classes;
    }
    int shape[BL_MAXDIM];
    memcpy(shape, idx->shape, sizeof(int) * (size_t)idx->ndim);
    shape[idx->ndim] = num_classes;
    bl_tensor *y = bl_graph_tensor(g, idx->ndim + 1, shape, 0);
    if (!y) return NULL;
    memset(y->data, 0, y->numel * sizeof(float));
    for (size_t i = 0; i < idx->numel; i++) y->data[i * (size_t)num_classes + (size_t)ids[i]] = 1.0f;
    return y;
}

bl_tensor *bl_linspace(bl_graph *g, double start, double end, int steps)
{
    if (steps < 1) return BL_FAILP("linspace: steps must be at least 1, got %d", steps);
    bl_tensor *y = bl_graph_tensor(g, 1, (int[]){steps}, 0);
    if (!y) return NULL;
    double step = steps > 1 ? (end - start) / (steps - 1) : 0;
    int half = steps / 2;
    for (int i = 0; i < steps; i++)
        y->data[i] = (float)(i < half ? start + step * i : end - step * (steps - 1 - i));
    return y;
}

bl_tensor *bl_eye(bl_graph *g, int n, int m)
{
    if (n < 1 || m < 1) return BL_FAILP("eye: sizes must be positive, got %d x %d", n, m);
    bl_tensor *y = bl_graph_tensor(g, 2, (int[]){n, m}, 0);
    if (!y) return NULL;
    memset(y->data, 0, y->numel * sizeof(float));
    for (int i = 0; i < n && i < m; i++) y->data[(size_t)i * m + i] = 1.0f;
    return y;
}
