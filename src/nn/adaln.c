/* adaln.c - the pieces of DiT's adaptive LayerNorm conditioning: modulate, slicing the
 * modulation vector into its chunks, and the sinusoidal timestep features.
 * (Peebles & Xie 2023, "Scalable Diffusion Models with Transformers", facebookresearch/DiT
 * models.py: modulate(), TimestepEmbedder.timestep_embedding(), adaLN_modulation(c).chunk())
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/vmath.h"
#include <math.h>
#include <string.h>

/* One image's T tokens [T, D] (per-image shift/scale [D]), compiled for AVX-512/AVX2 too:
 *   forward  y = x (1 + scale) + shift
 *   backward dx += dy (1 + scale),  dshift += sum_t dy,  dscale += sum_t dy x */
BL_SIMD_CLONES static void modulate_fw_one(const float *restrict x, float *restrict y,
                                           const float *restrict sh, const float *restrict sc,
                                           int T, int D)
{
    for (int t = 0; t < T; t++)
#pragma omp simd
        for (int d = 0; d < D; d++) y[(size_t)t * D + d] = x[(size_t)t * D + d] * (1.0f + sc[d]) + sh[d];
}

BL_SIMD_CLONES static void modulate_bw_one(const float *restrict x, const float *restrict dy,
                                           float *restrict dx, float *restrict dsh,
                                           float *restrict dsc, const float *restrict sc, int T,
                                           int D, int assign)
{
    for (int t = 0; t < T; t++) {
        const float *g = dy + (size_t)t * D, *xr = x + (size_t)t * D;
        if (dx && assign) {   /* dx still logically zero: write it */
            float *o = dx + (size_t)t * D;
#pragma omp simd
            for (int d = 0; d < D; d++) o[d] = g[d] * (1.0f + sc[d]);
        } else if (dx) {
            float *o = dx + (size_t)t * D;
#pragma omp simd
            for (int d = 0; d < D; d++) o[d] += g[d] * (1.0f + sc[d]);
        }
        if (dsh) {
#pragma omp simd
            for (int d = 0; d < D; d++) dsh[d] += g[d];
        }
        if (dsc) {
#pragma omp simd
            for (int d = 0; d < D; d++) dsc[d] += g[d] * xr[d];
        }
    }
}

/* node: in = {x, shift, scale}
 *   y = x * (1 + scale[b]) + shift[b]
 *   dx += dy (1 + scale),  dshift[b] += sum_t dy,  dscale[b] += sum_t dy x */
static void modulate_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *sh = n->in[1], *sc = n->in[2], *y = n->out;
    int B = x->shape[0], T = x->shape[1], D = x->shape[2];
    int assign = x->grad && bl_grad_take(x);
#pragma omp parallel for schedule(static) if (x->numel > BL_NN_PAR_MIN)
    for (int b = 0; b < B; b++) {
        size_t o = (size_t)b * T * D, ob = (size_t)b * D;
        modulate_bw_one(x->data + o, y->grad + o, x->grad ? x->grad + o : NULL,
                        sh->grad ? sh->grad + ob : NULL, sc->grad ? sc->grad + ob : NULL,
                        sc->data + ob, T, D, assign);
    }
}

bl_tensor *bl_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale)
{
    char bx[64], b1[64], b2[64];
    if (!x || x->ndim != 3 || !shift || !scale || shift->ndim != 2 ||
        !bl_same_shape(shift, scale) || shift->shape[0] != x->shape[0] ||
        shift->shape[1] != x->shape[2]) {
        bl_fail("%s: x must be [B, T, D] with shift and scale [B, D], got x %s shift %s "
                "scale %s", BL_OPN(MODULATE), bl_nn_shape(x, bx, sizeof bx), bl_nn_shape(shift, b1, sizeof b1),
                bl_nn_shape(scale, b2, sizeof b2));
        return NULL;
    }
    int B = x->shape[0], T = x->shape[1], D = x->shape[2];
    bl_tensor *y = bl_graph_tensor(g, 3, x->shape, BL_WANTS_GRAD(g, x, shift, scale));
    if (!y) return NULL;
#pragma omp parallel for schedule(static) if (x->numel > BL_NN_PAR_MIN)
    for (int b = 0; b < B; b++)
        modulate_fw_one(x->data + (size_t)b * T * D, y->data + (size_t)b * T * D,
                        shift->data + (size_t)b * D, scale->data + (size_t)b * D, T, D);
    bl_node *n = bl_graph_node(g, BL_OP_MODULATE, modulate_backward, y);
    if (n) {
        n->assigns = 1u;   /* backward writes dx while it is logically zero */
        n->in[0] = x;
        n->in[1] = shift;
        n->in[2] = scale;
    }
    return y;
}

/* Copy columns [start, start + len) of the [rows, D] matrix a into the [rows, len] matrix s
 * (to_slice) or add s into those columns of a. */
static void slice_move(float *a, float *s, size_t rows, int D, int start, int len, int to_slice)
{
#pragma omp parallel for schedule(static) if (rows * (size_t)len > BL_NN_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        float *ar = a + r * D + start, *sr = s + r * len;
        if (to_slice)
            memcpy(sr, ar, (size_t)len * sizeof *sr);
        else
            for (int i = 0; i < len; i++) ar[i] += sr[i];
    }
}

/* node: in = {x} */
typedef struct {
    int start;              /* first column taken */
} slice_args;

static void slice_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    slice_args a;
    BL_NODE_LOAD(n, a);
    slice_move(x->grad, y->grad, bl_nn_rows(x), x->shape[x->ndim - 1], a.start,
               y->shape[y->ndim - 1], 0);
}

bl_tensor *bl_slice_last(bl_graph *g, bl_tensor *x, int start, int len)
{
    char buf[64];
    if (!x || x->ndim < 1) {
        bl_fail("%s: x must have at least 1 dimension", BL_OPN(SLICE));
        return NULL;
    }
    int D = x->shape[x->ndim - 1];
    if (start < 0 || len < 1 || start > D - len) {
        bl_fail("%s: [%d : %d] is outside the last dimension of x %s", BL_OPN(SLICE), start, start + len,
                bl_nn_shape(x, buf, sizeof buf));
        return NULL;
    }
    int shape[BL_MAXDIM];
    memcpy(shape, x->shape, sizeof shape);
    shape[x->ndim - 1] = len;
    bl_tensor *y = bl_graph_tensor(g, x->ndim, shape, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    slice_move(x->data, y->data, bl_nn_rows(x), D, start, len, 1);
    bl_node *n = bl_graph_node(g, BL_OP_SLICE, slice_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((slice_args){start}));
    }
    return y;
}

void bl_timestep_features(const float *t, int B, int nfeat, float *out)
{
    int half = nfeat / 2;
    for (int b = 0; b < B; b++) {
        float *o = out + (size_t)b * nfeat;
        /* float32 arithmetic like the PyTorch reference: args = t[:, None] * freqs[None] */
        float tt = 1000.0f * t[b];
        for (int i = 0; i < half; i++) {
            float f = (float)exp(-log(10000.0) * i / half);
            float a = tt * f;
            o[i] = cosf(a);
            o[half + i] = sinf(a);
        }
        if (nfeat % 2) o[nfeat - 1] = 0.0f; /* DiT pads an odd dimension with a zero column */
    }
}
