/* patch.c - images to tokens and back: patch embedding (conv with kernel = stride = p),
 * unpatchify, and learned 2-D (row + column) positions.
 *
 * Patch embedding as one matrix product (the im2col view of a non-overlapping conv):
 *   cols [B T, C p p]: cols[b, t = r gw + q, (c p + i) p + j] = img[b, c, r p + i, q p + j]
 *   out  [B T, D]    = cols w^T + b          (w [D, C, p, p] read as [D, C p p], like conv2d)
 * backward: dw += dout^T cols, db += column sums of dout, dimg = scatter of dout w.
 * (DiT's PatchEmbed from timm: nn.Conv2d(C, D, kernel_size=p, stride=p).flatten(2).transpose(1, 2))
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/blas.h"
#include <string.h>

/* Between img [B, C, H, W] and cols [B T, C p p] (see above): to_cols copies img into cols,
 * otherwise cols is added into img. */
static void im2col(float *img, float *cols, int B, int C, int H, int W, int p, int to_cols)
{
    int gh = H / p, gw = W / p, K = C * p * p;
    size_t tokens = (size_t)B * gh * gw;
#pragma omp parallel for schedule(static) if (tokens * (size_t)K > BL_NN_PAR_MIN)
    for (size_t bt = 0; bt < tokens; bt++) {
        int b = (int)(bt / ((size_t)gh * gw)), t = (int)(bt % ((size_t)gh * gw));
        int r = t / gw, q = t % gw;
        for (int c = 0; c < C; c++)
            for (int i = 0; i < p; i++) {
                float *im = img + (((size_t)b * C + c) * H + (size_t)r * p + i) * W + (size_t)q * p;
                float *col = cols + bt * K + ((size_t)c * p + i) * p;
                if (to_cols)
                    memcpy(col, im, (size_t)p * sizeof *col);
                else
                    for (int j = 0; j < p; j++) im[j] += col[j];
            }
    }
}

/* An image batch's geometry: B images of C channels, H x W pixels, patches p x p. */
typedef struct {
    int B, C, H, W, p;
} patch_args;

/* node: in = {img, w, b}, save = {cols, dcols scratch (when img has a grad)} */
static void patch_embed_backward(bl_node *n)
{
    bl_tensor *img = n->in[0], *w = n->in[1], *b = n->in[2], *y = n->out;
    patch_args a;
    BL_NODE_LOAD(n, a);
    int B = a.B, C = a.C, H = a.H, W = a.W, p = a.p;
    int D = w->shape[0], K = C * p * p, BT = B * (H / p) * (W / p);
    const float *cols = n->save[0]->data, *dy = y->grad;
    if (w->grad) bl_sgemm(1, 0, D, K, BT, 1.0f, dy, cols, 1.0f, w->grad);
    if (b && b->grad)
        for (int t = 0; t < BT; t++)
            for (int d = 0; d < D; d++) b->grad[d] += dy[(size_t)t * D + d];
    if (img->grad) {
        float *dcols = n->save[1]->data;
        bl_sgemm(0, 0, BT, K, D, 1.0f, dy, w->data, 0.0f, dcols);
        im2col(img->grad, dcols, B, C, H, W, p, 0);
    }
}

bl_tensor *bl_patch_embed(bl_graph *g, bl_tensor *img, bl_tensor *w, bl_tensor *b, int p)
{
    char bi[64], bw[64];
    if (p < 1) {
        bl_fail("%s: patch size must be >= 1, got %d", BL_OPN(PATCH_EMBED), p);
        return NULL;
    }
    if (!img || img->ndim != 4) {
        bl_fail("%s: img must be [B, C, H, W], got %s", BL_OPN(PATCH_EMBED), bl_nn_shape(img, bi, sizeof bi));
        return NULL;
    }
    int B = img->shape[0], C = img->shape[1], H = img->shape[2], W = img->shape[3];
    if (H % p || W % p) {
        bl_fail("%s: image size %dx%d is not a multiple of the patch size %d", BL_OPN(PATCH_EMBED), H, W, p);
        return NULL;
    }
    if (!w || w->ndim != 4 || w->shape[1] != C || w->shape[2] != p || w->shape[3] != p) {
        bl_fail("%s: weight must be [dim, %d, %d, %d] for img %s and patch %d, got %s", BL_OPN(PATCH_EMBED),
                C, p, p, bl_nn_shape(img, bi, sizeof bi), p, bl_nn_shape(w, bw, sizeof bw));
        return NULL;
    }
    int D = w->shape[0], T = (H / p) * (W / p), K = C * p * p;
    if (bl_nn_check_vec("patch_embed", "bias", b, D) < 0) return NULL;
    int grad = BL_WANTS_GRAD(g, img, w, b);
    bl_tensor *y = bl_graph_tensor(g, 3, (int[]){B, T, D}, grad);
    bl_tensor *cols = bl_graph_tensor(g, 2, (int[]){B * T, K}, 0);
    bl_tensor *dcols = grad && img->grad ? bl_graph_tensor(g, 2, (int[]){B * T, K}, 0) : NULL;
    if (!y || !cols || (grad && img->grad && !dcols)) return NULL;
    im2col(img->data, cols->data, B, C, H, W, p, 1);
    bl_sgemm(0, 1, B * T, D, K, 1.0f, cols->data, w->data, 0.0f, y->data);
    if (b)
        for (size_t t = 0; t < (size_t)B * T; t++)
            for (int d = 0; d < D; d++) y->data[t * D + d] += b->data[d];
    bl_node *n = bl_graph_node(g, BL_OP_PATCH_EMBED, patch_embed_backward, y);
    if (n) {
        n->in[0] = img;
        n->in[1] = w;
        n->in[2] = b;
        n->save[0] = cols;
        n->save[1] = dcols;
        BL_NODE_SAVE(n, ((patch_args){B, C, H, W, p}));
    }
    return y;
}

/* Between x [B, T, p p C] and img [B, C, H, W]: to_img writes img from x, otherwise img is
 * added into x (the backward). Pixel (i, j) of channel c in patch (r, q) is feature
 * (i p + j) C + c of token r gw + q (DiT unpatchify, einsum "nhwpqc->nchpwq"). */
static void unpatch_move(float *x, float *img, int B, int C, int H, int W, int p, int to_img)
{
    int gw = W / p;
    size_t rows = (size_t)B * C * H;
#pragma omp parallel for schedule(static) if (rows * (size_t)W > BL_NN_PAR_MIN)
    for (size_t row = 0; row < rows; row++) {
        int yy = (int)(row % (size_t)H), c = (int)(row / (size_t)H % (size_t)C);
        int b = (int)(row / ((size_t)H * C));
        int r = yy / p, i = yy % p;
        float *im = img + row * W;
        for (int xx = 0; xx < W; xx++) {
            int q = xx / p, j = xx % p;
            float *f = x + (((size_t)b * (H / p) + r) * gw + q) * ((size_t)p * p * C) +
                       ((size_t)i * p + j) * C + c;
            if (to_img)
                im[xx] = *f;
            else
                *f += im[xx];
        }
    }
}

/* node: in = {x} */
static void unpatchify_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *y = n->out;
    if (!x->grad) return;
    patch_args a;
    BL_NODE_LOAD(n, a);
    unpatch_move(x->grad, y->grad, x->shape[0], a.C, a.H, a.W, a.p, 0);
}

bl_tensor *bl_unpatchify(bl_graph *g, bl_tensor *x, int C, int H, int W, int p)
{
    char bx[64];
    if (p < 1 || C < 1 || H < 1 || W < 1) {
        bl_fail("%s: channels, height, width and patch must be >= 1, got C %d H %d W %d "
                "p %d", BL_OPN(UNPATCHIFY), C, H, W, p);
        return NULL;
    }
    if (H % p || W % p) {
        bl_fail("%s: image size %dx%d is not a multiple of the patch size %d", BL_OPN(UNPATCHIFY), H, W, p);
        return NULL;
    }
    int T = (H / p) * (W / p);
    if (!x || x->ndim != 3 || x->shape[1] != T || x->shape[2] != p * p * C) {
        bl_fail("%s: x must be [B, %d, %d] for %dx%dx%d images and patch %d, got %s", BL_OPN(UNPATCHIFY), T,
                p * p * C, C, H, W, p, bl_nn_shape(x, bx, sizeof bx));
        return NULL;
    }
    int B = x->shape[0];
    bl_tensor *y = bl_graph_tensor(g, 4, (int[]){B, C, H, W}, BL_WANTS_GRAD(g, x));
    if (!y) return NULL;
    unpatch_move(x->data, y->data, B, C, H, W, p, 1);
    bl_node *n = bl_graph_node(g, BL_OP_UNPATCHIFY, unpatchify_backward, y);
    if (n) {
        n->in[0] = x;
        BL_NODE_SAVE(n, ((patch_args){B, C, H, W, p}));
    }
    return y;
}

/* node: in = {x, row, col}
 *   y[b, r gw + c] = x[b, r gw + c] + row[r] + col[c]
 *   dx += dy,  drow[r] += sum_{b, c} dy[b, r gw + c],  dcol[c] += sum_{b, r} dy[b, r gw + c] */
static void pos2d_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *rw = n->in[1], *cl = n->in[2], *y = n->out;
    int B = x->shape[0], gh = rw->shape[0], gw = cl->shape[0], D = x->shape[2];
    if (x->grad) { /* dx = dy: written while x's grad is still zero (node.assigns), else added */
        int assign = bl_grad_take(x);
        float *restrict dx = x->grad;
        const float *restrict g = y->grad;
        size_t N = x->numel;
        if (assign) {
#pragma omp parallel for simd schedule(static) if (N > BL_NN_PAR_MIN)
            for (size_t i = 0; i < N; i++) dx[i] = g[i];
        } else {
#pragma omp parallel for simd schedule(static) if (N > BL_NN_PAR_MIN)
            for (size_t i = 0; i < N; i++) dx[i] += g[i];
        }
    }
    /* d row[r] = sum over images and columns, d col[c] = sum over images and rows; each table row
     * is one thread's (no two threads add into the same one) */
    int work = (rw->grad ? gh : 0) + (cl->grad ? gw : 0);
#pragma omp parallel for schedule(static) if (x->numel > BL_NN_PAR_MIN)
    for (int k = 0; k < work; k++) {
        int is_row = rw->grad && k < gh, idx = is_row ? k : k - (rw->grad ? gh : 0);
        float *acc = is_row ? rw->grad + (size_t)idx * D : cl->grad + (size_t)idx * D;
        for (int b = 0; b < B; b++)
            for (int j = 0; j < (is_row ? gw : gh); j++) {
                int r = is_row ? idx : j, c = is_row ? j : idx;
                const float *dy = y->grad + (((size_t)b * gh + r) * gw + c) * D;
#pragma omp simd
                for (int d = 0; d < D; d++) acc[d] += dy[d];
            }
    }
}

bl_tensor *bl_pos2d_add(bl_graph *g, bl_tensor *x, bl_tensor *row, bl_tensor *col)
{
    char bx[64], br[64], bc[64];
    if (!x || !row || !col || x->ndim != 3 || row->ndim != 2 || col->ndim != 2 ||
        row->shape[1] != x->shape[2] || col->shape[1] != x->shape[2] ||
        (long)row->shape[0] * col->shape[0] != x->shape[1]) {
        bl_fail("%s: x must be [B, gh*gw, D] with row [gh, D] and col [gw, D], got x %s "
                "row %s col %s", BL_OPN(POS2D), bl_nn_shape(x, bx, sizeof bx), bl_nn_shape(row, br, sizeof br),
                bl_nn_shape(col, bc, sizeof bc));
        return NULL;
    }
    int B = x->shape[0], gh = row->shape[0], gw = col->shape[0], D = x->shape[2];
    bl_tensor *y = bl_graph_tensor(g, 3, x->shape, BL_WANTS_GRAD(g, x, row, col));
    if (!y) return NULL;
    for (int b = 0; b < B; b++)
        for (int r = 0; r < gh; r++)
            for (int c = 0; c < gw; c++) {
                size_t o = (((size_t)b * gh + r) * gw + c) * D;
                const float *rr = row->data + (size_t)r * D, *cc = col->data + (size_t)c * D;
                for (int d = 0; d < D; d++) y->data[o + d] = x->data[o + d] + rr[d] + cc[d];
            }
    bl_node *n = bl_graph_node(g, BL_OP_POS2D, pos2d_backward, y);
    if (n) {
        n->assigns = 1u;   /* backward writes dx while it is logically zero */
        n->in[0] = x;
        n->in[1] = row;
        n->in[2] = col;
    }
    return y;
}
