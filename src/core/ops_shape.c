/* ops_shape.c - the strided gather behind slicing, indexing and transposes at the prompt
 * (torch.as_strided semantics, restricted to reads of distinct elements), and its scatter
 * behind index assignment (x[i, a:b] = v). */
#include "core/ops.h"
#include "core/ops_internal.h"
#include <stdlib.h>
#include <string.h>

/* Walk the output (ndim <= 4, padded to 4-D) and the source offset of each element. */
#define STRIDED_LOOP(out, body)                                                                    \
    do {                                                                                           \
        int d_[BL_MAXDIM] = { 1, 1, 1, 1 };                                                        \
        long s_[BL_MAXDIM] = { 0, 0, 0, 0 };                                                       \
        int off_ = BL_MAXDIM - (out)->ndim;                                                        \
        for (int k_ = 0; k_ < (out)->ndim; k_++) d_[off_ + k_] = (out)->shape[k_], s_[off_ + k_] = stride[k_]; \
        size_t o = 0;                                                                              \
        for (int i0 = 0; i0 < d_[0]; i0++)                                                         \
            for (int i1 = 0; i1 < d_[1]; i1++)                                                     \
                for (int i2 = 0; i2 < d_[2]; i2++) {                                               \
                    long src = offset + i0 * s_[0] + i1 * s_[1] + i2 * s_[2];                      \
                    for (int i3 = 0; i3 < d_[3]; i3++, o++, src += s_[3]) { body; }                \
                }                                                                                  \
    } while (0)

typedef struct {
    long stride[BL_MAXDIM];  /* elements of x per step of each output dimension (0 past ndim) */
    long offset;             /* element of x at output index 0 */
} strided_args;

static void strided_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    strided_args a;
    BL_NODE_LOAD(n, a);
    const long *stride = a.stride, offset = a.offset;
    STRIDED_LOOP(y, x->grad[src] += y->grad[o]);
}

/* 0 when the strided region (ndim <= 4 sizes >= 1, strides, offset) lies inside x; -1 + error. */
static int region_check(const char *what, const bl_tensor *x, int ndim, const int *shape, const long *stride,
                        long offset)
{
    if (ndim < 0 || ndim > BL_MAXDIM) return bl_fail("%s: %d dimensions (at most 4)", what, ndim);
    /* every element read must lie inside x (the extreme offsets of each dimension) */
    long lo = offset, hi = offset;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] < 1) return bl_fail("%s: dimension %d has size %d", what, k, shape[k]);
        long span = (long)(shape[k] - 1) * stride[k];
        if (span < 0) lo += span;
        else hi += span;
    }
    if (lo < 0 || hi >= (long)x->numel || (long)x->numel > 0x7fffffffL)
        return bl_fail("%s: reads outside x %s (elements %ld..%ld)", what, BL_SHP(x), lo, hi);
    return 0;
}

static bl_tensor *strided(bl_graph *g, bl_op op, bl_tensor *x, int ndim, const int *shape,
                          const long *stride, long offset)
{
    if (bl_ops_need("as_strided", "x", x)) return NULL;
    if (region_check("as_strided", x, ndim, shape, stride, offset) < 0) return NULL;
    bl_tensor *y = bl_graph_tensor(g, ndim, shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    STRIDED_LOOP(y, y->data[o] = x->data[src]);
    bl_node *n = bl_graph_node(g, op, strided_backward, y);
    if (n) {
        n->in[0] = x;
        strided_args a = {{0}, offset};
        for (int k = 0; k < ndim; k++) a.stride[k] = stride[k];
        BL_NODE_SAVE(n, a);
    }
    return y;
}

bl_tensor *bl_as_strided(bl_graph *g, bl_tensor *x, int ndim, const int *shape, const long *stride,
                         long offset)
{
    return strided(g, BL_OP_INDEX, x, ndim, shape, stride, offset);
}

/* The row-major strides of x (elements per step of each dimension). */
static void contiguous_strides(const bl_tensor *x, long *st)
{
    long s = 1;
    for (int k = x->ndim - 1; k >= 0; k--) st[k] = s, s *= x->shape[k];
}

bl_tensor *bl_transpose(bl_graph *g, bl_tensor *x, int d0, int d1)
{
    int a = bl_dim_index("transpose", x, d0), b = a < 0 ? -1 : bl_dim_index("transpose", x, d1);
    if (b < 0) return NULL;
    long st[BL_MAXDIM], stride[BL_MAXDIM];
    int shape[BL_MAXDIM];
    contiguous_strides(x, st);
    for (int k = 0; k < x->ndim; k++) {
        int from = k == a ? b : k == b ? a : k;
        shape[k] = x->shape[from];
        stride[k] = st[from];
    }
    return strided(g, BL_OP_TRANSPOSE, x, x->ndim, shape, stride, 0);
}

bl_tensor *bl_permute(bl_graph *g, bl_tensor *x, const int *perm)
{
    long st[BL_MAXDIM], stride[BL_MAXDIM];
    int shape[BL_MAXDIM], seen = 0;
    contiguous_strides(x, st);
    for (int k = 0; k < x->ndim; k++) {
        int d = perm[k] < 0 ? perm[k] + x->ndim : perm[k];
        if (d < 0 || d >= x->ndim || (seen >> d & 1))
            return BL_FAILP("permute: the dims must be each of 0..%d once (negative counting from the end)",
                            x->ndim - 1);
        seen |= 1 << d;
        shape[k] = x->shape[d];
        stride[k] = st[d];
    }
    return strided(g, BL_OP_TRANSPOSE, x, x->ndim, shape, stride, 0);
}

bl_tensor *bl_pick(bl_graph *g, bl_tensor *x, int dim, int j, int keep)
{
    int d = bl_dim_index("pick", x, dim);
    if (d < 0) return NULL;
    if (j < 0 || j >= x->shape[d])
        return BL_FAILP("pick: index %d is out of range for dimension %d of size %d", j, d, x->shape[d]);
    long st[BL_MAXDIM], stride[BL_MAXDIM];
    int shape[BL_MAXDIM], nd = 0;
    contiguous_strides(x, st);
    for (int k = 0; k < x->ndim; k++)
        if (k != d || keep) shape[nd] = k == d ? 1 : x->shape[k], stride[nd++] = st[k];
    return strided(g, BL_OP_INDEX, x, nd, shape, stride, (long)j * st[d]);
}

/* dx: dy outside the region (none of it where v went); dv: dy at the region. */
static void put_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *v = n->in[1], *y = n->out;
    strided_args a;
    BL_NODE_LOAD(n, a);
    const long *stride = a.stride, offset = a.offset;
    if (v->grad) STRIDED_LOOP(v, v->grad[o] += y->grad[src]);
    if (!x->grad) return;
    unsigned char *hit = calloc(y->numel, 1);
    if (!hit) return;   /* out of memory in backward: nothing to report it to (as the others) */
    STRIDED_LOOP(v, hit[src] = 1);
    for (size_t i = 0; i < y->numel; i++)
        if (!hit[i]) x->grad[i] += y->grad[i];
    free(hit);
}

bl_tensor *bl_strided_put(bl_graph *g, bl_tensor *x, bl_tensor *v, int ndim, const int *shape,
                          const long *stride, long offset)
{
    if (bl_ops_need("index_put", "x", x) || bl_ops_need("index_put", "v", v)) return NULL;
    if (region_check("index_put", x, ndim, shape, stride, offset) < 0) return NULL;
    int same = v->ndim == ndim;
    for (int k = 0; same && k < ndim; k++) same = v->shape[k] == shape[k];
    if (!same) return BL_FAILP("index_put: v has shape %s, the region another", BL_SHP(v));
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x, v));
    if (!y) return NULL;
    memcpy(y->data, x->data, x->numel * sizeof *y->data);
    STRIDED_LOOP(v, y->data[src] = v->data[o]);
    bl_node *n = bl_graph_node(g, BL_OP_INDEX_PUT, put_backward, y);
    if (n) {
        n->in[0] = x;
        n->in[1] = v;
        strided_args a = {{0}, offset};
        for (int k = 0; k < ndim; k++) a.stride[k] = stride[k];
        BL_NODE_SAVE(n, a);
    }
    return y;
}
