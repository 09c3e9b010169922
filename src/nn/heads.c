/* heads.c - splitting a fused qkv projection into heads and merging the heads back.
 *
 *   qkv [B, T, (H + 2 KVH) hd]:   row = [q head 0 .. q head H-1 | k heads | v heads]
 *   q [B, H, T, hd] = qkv[b, t, h hd + d]        (nanoGPT: q.view(B, T, H, hd).transpose(1, 2))
 *   merge: [B, H, T, hd] -> [B, T, H hd]         (y.transpose(1, 2).contiguous().view(B, T, C))
 *
 * Both are the same permutation of hd-float runs, so one kernel moves them either way; backward
 * is the permutation the other way round, added into the grad.
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include <string.h>

/* Between btc [B, T, C] (heads at feature offset off*hd) and bhtd [B, nh, T, hd].
 * to_heads: bhtd (=) btc; otherwise btc (+= when accumulate, else =) bhtd. */
static void move_heads(float *btc, float *bhtd, int B, int T, int nh, int hd, int C, int off,
                       int to_heads, int accumulate)
{
    size_t runs = (size_t)B * nh * T;
#pragma omp parallel for schedule(static) if (runs * (size_t)hd > BL_NN_PAR_MIN)
    for (size_t r = 0; r < runs; r++) {
        int t = (int)(r % (size_t)T), h = (int)(r / (size_t)T % (size_t)nh);
        int b = (int)(r / ((size_t)T * nh));
        float *a = btc + ((size_t)b * T + t) * C + (size_t)(off + h) * hd;
        float *x = bhtd + r * hd;
        if (to_heads && !accumulate)
            memcpy(x, a, (size_t)hd * sizeof *x);
        else if (to_heads)
            for (int d = 0; d < hd; d++) x[d] += a[d];
        else if (!accumulate)
            memcpy(a, x, (size_t)hd * sizeof *x);
        else
            for (int d = 0; d < hd; d++) a[d] += x[d];
    }
}

/* split node: in = {qkv}, out [B, nh, T, hd] */
typedef struct {
    int off;                /* the first head taken */
} split_args;

static void split_backward(bl_node *n)
{
    bl_tensor *qkv = n->in[0], *o = n->out;
    if (!qkv->grad) return;
    split_args a;
    BL_NODE_LOAD(n, a);
    move_heads(qkv->grad, o->grad, o->shape[0], o->shape[2], o->shape[1], o->shape[3],
               qkv->shape[2], a.off, 0, 1);
}

/* One of the three outputs of the split: heads [off, off + nh) of width hd. */
static bl_tensor *split_one(bl_graph *g, bl_tensor *qkv, int nh, int hd, int off)
{
    int B = qkv->shape[0], T = qkv->shape[1];
    bl_tensor *o = bl_graph_tensor(g, 4, (int[]){B, nh, T, hd}, BL_WANTS_GRAD(g, qkv));
    if (!o) return NULL;
    move_heads(qkv->data, o->data, B, T, nh, hd, qkv->shape[2], off, 1, 0);
    bl_node *n = bl_graph_node(g, BL_OP_SPLIT_HEADS, split_backward, o);
    if (n) {
        n->in[0] = qkv;
        BL_NODE_SAVE(n, ((split_args){off}));
    }
    return o;
}

int bl_split_heads(bl_graph *g, bl_tensor *qkv, int H, int KVH, bl_tensor **q, bl_tensor **k,
                   bl_tensor **v)
{
    char buf[64];
    *q = *k = *v = NULL;
    if (H < 1 || KVH < 1)
        return bl_fail("%s: heads and kv_heads must be >= 1, got %d and %d", BL_OPN(SPLIT_HEADS), H, KVH);
    if (H % KVH)
        return bl_fail("%s: %d heads is not a multiple of %d kv heads", BL_OPN(SPLIT_HEADS), H, KVH);
    if (!qkv || qkv->ndim != 3)
        return bl_fail("%s: qkv must be [B, T, (heads + 2 kv_heads) head_dim], got %s", BL_OPN(SPLIT_HEADS),
                       bl_nn_shape(qkv, buf, sizeof buf));
    int C = qkv->shape[2], nh = H + 2 * KVH;
    if (C % nh)
        return bl_fail("%s: qkv has %d features, not a multiple of heads + 2 kv_heads "
                       "= %d + 2*%d", BL_OPN(SPLIT_HEADS), C, H, KVH);
    int hd = C / nh;
    bl_tensor *a = split_one(g, qkv, H, hd, 0);
    bl_tensor *b = a ? split_one(g, qkv, KVH, hd, H) : NULL;
    bl_tensor *c = b ? split_one(g, qkv, KVH, hd, H + KVH) : NULL;
    if (!c) return -1;
    *q = a;
    *k = b;
    *v = c;
    return 0;
}

/* merge node: in = {x [B, H, T, hd]}, out [B, T, H hd] */
static void merge_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *o = n->out;
    if (!x->grad) return;
    move_heads(o->grad, x->grad, x->shape[0], x->shape[2], x->shape[1], x->shape[3],
               o->shape[2], 0, 1, 1);
}

bl_tensor *bl_merge_heads(bl_graph *g, bl_tensor *x)
{
    char buf[64];
    if (!x || x->ndim != 4) {
        bl_fail("%s: x must be [B, heads, T, head_dim], got %s", BL_OPN(MERGE_HEADS),
                bl_nn_shape(x, buf, sizeof buf));
        return NULL;
    }
    int B = x->shape[0], H = x->shape[1], T = x->shape[2], hd = x->shape[3];
    bl_tensor *o = bl_graph_tensor(g, 3, (int[]){B, T, H * hd}, BL_WANTS_GRAD(g, x));
    if (!o) return NULL;
    move_heads(o->data, x->data, B, T, H, hd, H * hd, 0, 0, 0);
    bl_node *n = bl_graph_node(g, BL_OP_MERGE_HEADS, merge_backward, o);
    if (n) n->in[0] = x;
    return o;
}
