/* rope.c - rotary position embedding: the cos/sin tables (1-D and 2-D) and the rotation op.
 *
 * Pairs are adjacent features (interleaved, RoFormer / Meta LLaMA), see the picture in nn.h:
 *   [x0 x1][x2 x3] ...   (x_2i, x_2i+1) -> (x_2i c - x_2i+1 s, x_2i s + x_2i+1 c)
 * The rotation is orthogonal, so backward applies its transpose (the rotation by -a):
 *   dx_2i += dy_2i c + dy_2i+1 s,   dx_2i+1 += -dy_2i s + dy_2i+1 c
 * Angles are computed in double and rounded once, so long contexts keep their accuracy.
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include <math.h>

/* Write angle a for the pair starting at feature f of row `row` of the [*, hd] tables. */
static void put_angle(float *cos_t, float *sin_t, int hd, int row, int f, double a)
{
    size_t o = (size_t)row * hd + f;
    cos_t[o] = cos_t[o + 1] = (float)cos(a);
    sin_t[o] = sin_t[o + 1] = (float)sin(a);
}

int bl_rope_table_1d(int T, int hd, float base, int offset, float *cos_t, float *sin_t)
{
    if (T < 1) return bl_fail("rope: the table needs at least 1 position, got %d", T);
    if (hd < 2 || hd % 2) return bl_fail("rope: head_dim must be even and >= 2, got %d", hd);
    if (!(base > 0.0f) || isinf(base)) return bl_fail("rope: base must be > 0, got %g", (double)base);
    if (offset < 0) return bl_fail("rope: position offset must be >= 0, got %d", offset);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < hd / 2; i++) {
            /* theta_i = base^(-2i/hd) (RoFormer eq. 15; LLaMA precompute_freqs_cis) */
            double theta = pow((double)base, -2.0 * i / hd);
            put_angle(cos_t, sin_t, hd, t, 2 * i, (double)(offset + t) * theta);
        }
    return 0;
}

int bl_rope_table_2d(int gh, int gw, int prefix, int hd, float base, float *cos_t, float *sin_t)
{
    if (gh < 1 || gw < 1) return bl_fail("rope2d: the grid must be at least 1x1, got %dx%d", gh, gw);
    if (prefix < 0) return bl_fail("rope2d: prefix tokens must be >= 0, got %d", prefix);
    if (hd < 4 || hd % 4)
        return bl_fail("rope2d: head_dim must be a multiple of 4, got %d", hd);
    if (!(base > 0.0f) || isinf(base)) return bl_fail("rope2d: base must be > 0, got %g", (double)base);
    int q = hd / 4; /* pairs per half */
    for (int t = 0; t < prefix; t++)
        for (int f = 0; f < hd; f += 2) put_angle(cos_t, sin_t, hd, t, f, 0.0);
    for (int r = 0; r < gh; r++)
        for (int c = 0; c < gw; c++) {
            int t = prefix + r * gw + c;
            for (int i = 0; i < q; i++) {
                /* a_i = pos * base^(-i/(hd/4)); first half turns with the row, second with the
                 * column (axial 2-D RoPE, Heo et al. 2024 "Rotary Position Embedding for ViT") */
                double theta = pow((double)base, -(double)i / q);
                put_angle(cos_t, sin_t, hd, t, 2 * i, r * theta);
                put_angle(cos_t, sin_t, hd, t, hd / 2 + 2 * i, c * theta);
            }
        }
    return 0;
}

/* Rotate every [T, hd] slice of src by the tables into dst; dir = +1 forward, -1 the inverse.
 * dst may be a grad buffer that is added into (accumulate = 1). */
static void rotate(const float *src, float *dst, const float *cos_t, const float *sin_t,
                   size_t slices, int T, int hd, float dir, int accumulate)
{
    size_t total = slices * (size_t)T;
#pragma omp parallel for schedule(static) if (total * (size_t)hd > BL_NN_PAR_MIN)
    for (size_t st = 0; st < total; st++) {
        int t = (int)(st % (size_t)T);
        const float *x = src + st * hd, *c = cos_t + (size_t)t * hd, *s = sin_t + (size_t)t * hd;
        float *y = dst + st * hd;
        bl_nn_rope_row(x, y, c, s, hd, dir, accumulate);
    }
}

/* node: in = {x} */
typedef struct {
    const bl_tensor *cos, *sin;     /* the caller's tables [T, head_dim], valid until backward */
} rope_args;

static void rope_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    rope_args a;
    BL_NODE_LOAD(n, a);
    const bl_tensor *c = a.cos, *s = a.sin;
    int T = x->shape[x->ndim - 2], hd = x->shape[x->ndim - 1];
    rotate(y->grad, x->grad, c->data, s->data, x->numel / ((size_t)T * hd), T, hd, -1.0f, 1);
}

bl_tensor *bl_rope(bl_graph *g, bl_tensor *x, const bl_tensor *cos_t, const bl_tensor *sin_t)
{
    char bx[64], bc[64], bs[64];
    if (!x || x->ndim < 2) {
        bl_fail("%s: x must be [..., T, head_dim], got %s", BL_OPN(ROPE), bl_nn_shape(x, bx, sizeof bx));
        return NULL;
    }
    int T = x->shape[x->ndim - 2], hd = x->shape[x->ndim - 1];
    if (hd % 2) {
        bl_fail("%s: head_dim must be even, got %d (x %s)", BL_OPN(ROPE), hd, bl_nn_shape(x, bx, sizeof bx));
        return NULL;
    }
    if (!cos_t || !sin_t || cos_t->ndim != 2 || !bl_same_shape(cos_t, sin_t) ||
        cos_t->shape[0] != T || cos_t->shape[1] != hd) {
        bl_fail("%s: tables cos %s and sin %s must both be [%d, %d] for x %s", BL_OPN(ROPE),
                bl_nn_shape(cos_t, bc, sizeof bc), bl_nn_shape(sin_t, bs, sizeof bs), T, hd,
                bl_nn_shape(x, bx, sizeof bx));
        return NULL;
    }
    bl_tensor *y = bl_graph_tensor(g, x->ndim, x->shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    rotate(x->data, y->data, cos_t->data, sin_t->data, x->numel / ((size_t)T * hd), T, hd, 1.0f, 0);
    bl_node *n = bl_graph_node(g, BL_OP_ROPE, rope_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((rope_args){cos_t, sin_t}));
    }
    return y;
}
