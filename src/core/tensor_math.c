/* tensor_math.c - non-differentiable tensor arithmetic for the REPL and tests (see tensor_math.h).
 *
 * Broadcasting follows NumPy ("General broadcasting rules", numpy.org/doc/stable/user/
 * basics.broadcasting.html); matmul follows torch.matmul (1-D operands get a dimension of 1
 * prepended / appended and removed again, batch dimensions broadcast). Every shape is padded to
 * 4-D on the left, and a dimension of size 1 that is broadcast gets stride 0:
 *
 *     a [3, 1, 5]  ->  padded [1, 3, 1, 5], strides [0, 5, 0, 1]
 *     b    [4, 5]  ->  padded [1, 1, 4, 5], strides [0, 0, 5, 1]    -> out [3, 4, 5]
 */
#include "core/tensor_math.h"
#include "core/ops_math.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/op.h"
#include <math.h>
#include <string.h>

double bl_floordiv(double a, double b)
{
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0;
    if (div == 0) return copysign(0.0, a / b);
    double fl = floor(div);
    return div - fl > 0.5 ? fl + 1.0 : fl;
}

double bl_remainder(double a, double b)
{
    double mod = fmod(a, b);
    if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
    return mod;
}

#define SHP(t) bl_shape_str((t), (char[64]){0}, 64)

/* NumPy broadcast of two shapes (as, an) and (bs, bn) into out; returns its ndim or -1. */
static int bcast_dims(const int *as, int an, const int *bs, int bn, int *out)
{
    int nd = an > bn ? an : bn;
    for (int i = 0; i < nd; i++) {  /* i counts from the right */
        int x = i < an ? as[an - 1 - i] : 1, y = i < bn ? bs[bn - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) return -1;
        out[nd - 1 - i] = x == 1 ? y : x;
    }
    return nd;
}

int bl_broadcast_shape(const char *op, const bl_tensor *a, const bl_tensor *b, int *ndim, int *out)
{
    int nd = bcast_dims(a->shape, a->ndim, b->shape, b->ndim, out);
    if (nd < 0) return bl_fail("%s: shapes %s and %s cannot be broadcast", op, SHP(a), SHP(b));
    *ndim = nd;
    return 0;
}

/* Strides of shape (s, n) padded on the left to 4-D, 0 where the size is 1 (broadcast). */
static void bcast_strides(const int *s, int n, size_t st[4])
{
    size_t acc = 1;
    for (int i = 3; i >= 0; i--) {
        int k = i - (4 - n), size = k >= 0 ? s[k] : 1;
        st[i] = size == 1 ? 0 : acc;
        acc *= (size_t)size;
    }
}

/* A row kernel gets the innermost dimension of the broadcast: n elements of a (stride sa), of
 * b (stride sb) and of out (contiguous). */
typedef void (*row_fn)(const float *a, size_t sa, const float *b, size_t sb, float *o, int n, void *ctx);

/* Walk the broadcast of a and b (out shape od[nd]), calling fn once per innermost row. */
static void bcast_walk(const bl_tensor *a, const bl_tensor *b, int nd, const int *od, float *out,
                       row_fn fn, void *ctx)
{
    size_t sa[4], sb[4];
    int o[4];
    bcast_strides(a->shape, a->ndim, sa);
    bcast_strides(b->shape, b->ndim, sb);
    for (int i = 0; i < 4; i++) o[i] = i - (4 - nd) >= 0 ? od[i - (4 - nd)] : 1;
    size_t oi = 0;
    for (int i0 = 0; i0 < o[0]; i0++)
        for (int i1 = 0; i1 < o[1]; i1++)
            for (int i2 = 0; i2 < o[2]; i2++) {
                size_t ao = i0 * sa[0] + i1 * sa[1] + i2 * sa[2];
                size_t bo = i0 * sb[0] + i1 * sb[1] + i2 * sb[2];
                fn(a->data + ao, sa[3], b->data + bo, sb[3], out ? out + oi : NULL, o[3], ctx);
                oi += (size_t)o[3];
            }
}

/* The plain paths run the graph ops' forward kernels (ops_math.c) into an owned tensor. */
bl_tensor *bl_binary(bl_binop op, const bl_tensor *a, const bl_tensor *b)
{
    if ((unsigned)op > BL_GE) return BL_FAILP("binary: unknown operator %d", (int)op);
    if (!a || !b) return BL_FAILP("%s: missing operand (NULL tensor)", bl_op_name(BL_OP_OF_BINOP(op)));
    int nd, od[BL_MAXDIM];
    if (bl_broadcast_shape(bl_op_name(BL_OP_OF_BINOP(op)), a, b, &nd, od) < 0) return NULL;
    bl_tensor *r = bl_tensor_new(nd, od);
    if (r) bl_math_binary_fw(op, a, b, r);
    return r;
}

bl_tensor *bl_unary(bl_unop op, const bl_tensor *a)
{
    if ((unsigned)op > BL_ERF) return BL_FAILP("unary: unknown function %d", (int)op);
    if (!a) return BL_FAILP("%s: missing operand (NULL tensor)", bl_op_name(BL_OP_OF_UNOP(op)));
    bl_tensor *r = bl_tensor_new(a->ndim, a->shape);
    if (r) bl_math_unary_fw(op, a, r);   /* NumPy semantics: sqrt(-1) = nan, log 0 = -inf */
    return r;
}

static bl_tensor *reduce(bl_reduce op, const bl_tensor *a, int dim, int keepdim)
{
    if ((unsigned)op > BL_MAX) return BL_FAILP("reduce: unknown reduction %d", (int)op);
    if (!a) return BL_FAILP("%s: missing operand (NULL tensor)", bl_op_name(BL_OP_OF_REDUCE(op)));
    if (dim != BL_ALL_DIMS && (dim = bl_dim_index(bl_op_name(BL_OP_OF_REDUCE(op)), a, dim)) < 0) return NULL;
    int shape[BL_MAXDIM], nd = bl_math_reduce_shape(a, dim, keepdim, shape);
    bl_tensor *r = bl_tensor_new(nd, shape);
    if (r) bl_math_reduce_fw(op, a, dim, r);
    return r;
}

bl_tensor *bl_reduce_dim(bl_reduce op, const bl_tensor *a, int dim, int keepdim)
{
    return reduce(op, a, dim, keepdim);
}

bl_tensor *bl_reduce_all(bl_reduce op, const bl_tensor *a) { return reduce(op, a, BL_ALL_DIMS, 0); }

/* ---------------------------------------------------------------------------------------
 * matmul with torch.matmul rules
 */
bl_tensor *bl_tensor_matmul(const bl_tensor *a, const bl_tensor *b)
{
    if (!a || !b) return BL_FAILP("matmul: missing operand (NULL tensor)");
    if (a->ndim < 1 || b->ndim < 1)
        return BL_FAILP("matmul: operands must have at least 1 dimension, got %s and %s", SHP(a), SHP(b));
    int a1 = a->ndim == 1, b1 = b->ndim == 1;
    int M = a1 ? 1 : a->shape[a->ndim - 2], K = a->shape[a->ndim - 1];
    int Kb = b1 ? b->shape[0] : b->shape[b->ndim - 2], N = b1 ? 1 : b->shape[b->ndim - 1];
    if (K != Kb)
        return BL_FAILP("matmul: a %s has %d columns but b %s has %d rows", SHP(a), K, SHP(b), Kb);
    /* batch dims: everything before the last two (none for a 1-D operand) */
    int an = a1 ? 0 : a->ndim - 2, bn = b1 ? 0 : b->ndim - 2, batch[BL_MAXDIM];
    int nd = bcast_dims(a->shape, an, b->shape, bn, batch);
    if (nd < 0)
        return BL_FAILP("matmul: batch dims of a %s and b %s cannot be broadcast", SHP(a), SHP(b));
    int shape[BL_MAXDIM], rn = nd;
    memcpy(shape, batch, sizeof(int) * (size_t)nd);
    if (!a1) shape[rn++] = M;
    if (!b1) shape[rn++] = N;
    bl_tensor *r = bl_tensor_new(rn, shape);
    if (!r) return NULL;
    /* batch strides (in matrices) of a and b over the padded 2-D batch grid */
    size_t sa[4], sb[4];
    bcast_strides(a->shape, an, sa);
    bcast_strides(b->shape, bn, sb);
    int B0 = nd >= 2 ? batch[nd - 2] : 1, B1 = nd >= 1 ? batch[nd - 1] : 1;
    size_t am = (size_t)M * K, bm = (size_t)K * N, rm = (size_t)M * N, ri = 0;
    for (int i = 0; i < B0; i++)
        for (int j = 0; j < B1; j++, ri++)
            bl_sgemm(0, 0, M, N, K, 1.0f, a->data + (i * sa[2] + j * sa[3]) * am,
                     b->data + (i * sb[2] + j * sb[3]) * bm, 0.0f, r->data + ri * rm);
    return r;
}

/* ---------------------------------------------------------------------------------------
 * allclose
 */
typedef struct { float rtol, atol; int close; } close_ctx;

static void close_row(const float *a, size_t sa, const float *b, size_t sb, float *o, int n, void *ctx)
{
    close_ctx *c = ctx;
    (void)o;
    for (int j = 0; j < n; j++) {
        float x = a[j * sa], y = b[j * sb];
        /* written so that a nan on either side is "not close" (numpy equal_nan=False) */
        if (!(fabsf(x - y) <= c->atol + c->rtol * fabsf(y)) && x != y) c->close = 0;
    }
}

int bl_allclose(const bl_tensor *a, const bl_tensor *b, float rtol, float atol)
{
    if (!a || !b) return bl_fail("allclose: missing operand (NULL tensor)");
    int nd, od[BL_MAXDIM];
    if (bl_broadcast_shape("allclose", a, b, &nd, od) < 0) return -1;
    close_ctx c = {rtol, atol, 1};
    bcast_walk(a, b, nd, od, NULL, close_row, &c);
    return c.close;
}
