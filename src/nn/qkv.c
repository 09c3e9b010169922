/* qkv.c - qk_norm and RoPE on the heads of a fused projection, without splitting it.
 *
 *   qkv [B, T, (H + 2 KVH) hd]:  row = [q head 0 .. q head H-1 | k heads | v heads]
 *   out (same layout):           q head -> rope(q_norm(q)),  k head -> rope(k_norm(k)),  v copied
 *
 * The formulas are exactly those of bl_qk_norm (RMSNorm with a weight over head_dim,
 * y = x * rstd * w, rstd = 1 / sqrt(mean(x^2) + eps), statistics in double) followed by bl_rope
 * (pairs (x_2i, x_2i+1) turned by the table angles), the order of the reference
 * (q = self.q_norm(q); k = self.k_norm(k); then RoPE: timm/DiT-style attention with qk_norm,
 * LLaMA apply_rotary_emb). bl_attention_qkv then reads the result in place, so a model with
 * qk_norm or RoPE trains without the head split and merge copies too.
 *
 * Backward per (token, head), from dy:  g = RoPE back (turn by -angle);
 *   RMSNorm back (llm.c layernorm_backward without the mean):  xhat = x rstd,
 *   dx = rstd (g w - xhat mean(g w xhat)),  dw += g xhat;  v: dx = dy.
 * The RMSNorm row formulas (statistics, dx) are the norms' own (bl_nn_norm_row_stats and
 * bl_nn_norm_row_bw in nn_private.h); RoPE's row is bl_nn_rope_row.
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include <math.h>
#include <string.h>

/* Fixed row chunks (threads take whole chunks): the weight-grad partial sums are added in chunk
 * order, so the result does not depend on the thread count. */
enum { QKV_CHUNKS = 8 };

typedef struct {
    int H, KVH, hd, T;
    float eps;
    const float *qw, *kw;           /* qk_norm weights [hd] or NULL */
    const float *cos, *sin;         /* RoPE tables [T, hd] or NULL */
} qkv_args;

/* Forward of rows [r0, r1) (one row = one token, C = (H + 2 KVH) hd floats). tmp: hd floats. */
BL_SIMD_CLONES static void prep_fw(const qkv_args *a, const float *restrict x, float *restrict y,
                                   float *restrict rstd, float *restrict tmp, size_t r0, size_t r1)
{
    int hd = a->hd, nqk = a->H + a->KVH, C = (nqk + a->KVH) * hd;
    for (size_t r = r0; r < r1; r++) {
        const float *xr = x + r * C;
        float *yr = y + r * C;
        int t = (int)(r % (size_t)a->T);
        for (int j = 0; j < nqk; j++) {
            const float *xh = xr + (size_t)j * hd, *w = j < a->H ? a->qw : a->kw, *src = xh;
            float *yh = yr + (size_t)j * hd;
            if (w) { /* q = self.q_norm(q) */
                float *dst = a->cos ? tmp : yh, m, s;
                bl_nn_norm_row_stats(xh, hd, 0, a->eps, &m, &s);
                rstd[r * nqk + j] = s;
#pragma omp simd
                for (int i = 0; i < hd; i++) dst[i] = xh[i] * s * w[i];
                src = dst;
            }
            if (a->cos) /* q = apply_rotary_emb(q) */
                bl_nn_rope_row(src, yh, a->cos + (size_t)t * hd, a->sin + (size_t)t * hd, hd, 1.0f, 0);
        }
        memcpy(yr + (size_t)nqk * hd, xr + (size_t)nqk * hd, (size_t)a->KVH * hd * sizeof(float));
    }
}

/* d = g (assign) or d += g on n floats; inlined into the cloned kernels. */
static inline BL_VMATH_INLINE void add_or_copy(float *restrict d, const float *restrict g, int n,
                                               int assign)
{
    if (assign) {
        memcpy(d, g, (size_t)n * sizeof *d);
    } else {
#pragma omp simd
        for (int i = 0; i < n; i++) d[i] += g[i];
    }
}

/* Backward of rows [r0, r1): dx (= when assign, else +=; NULL: not wanted) from dy; dw partial
 * sums for q (dwp[0, hd)) and k (dwp[hd, 2 hd)). tmp: hd floats (RoPE's turned-back g, then
 * g w for the RMSNorm row). */
BL_SIMD_CLONES static void prep_bw(const qkv_args *a, const float *restrict x,
                                   const float *restrict dy, float *restrict dx,
                                   const float *restrict rstd, float *restrict dwp,
                                   float *restrict tmp, size_t r0, size_t r1, int assign)
{
    int hd = a->hd, nqk = a->H + a->KVH, C = (nqk + a->KVH) * hd;
    for (size_t r = r0; r < r1; r++) {
        int t = (int)(r % (size_t)a->T);
        for (int j = 0; j < nqk; j++) {
            size_t o = r * C + (size_t)j * hd;
            const float *g = dy + o, *w = j < a->H ? a->qw : a->kw;
            float *d = dx ? dx + o : NULL;
            if (a->cos) { /* RoPE back: turn by -angle */
                bl_nn_rope_row(g, tmp, a->cos + (size_t)t * hd, a->sin + (size_t)t * hd, hd, -1.0f, 0);
                g = tmp;
            }
            if (w) {
                const float *xh = x + o;
                float s = rstd[r * nqk + j], *dw = dwp + (j < a->H ? 0 : hd);
#pragma omp simd
                for (int i = 0; i < hd; i++) dw[i] += g[i] * (xh[i] * s);
                if (d) { /* g may be tmp itself: each element read before it is written */
#pragma omp simd
                    for (int i = 0; i < hd; i++) tmp[i] = g[i] * w[i];
                    bl_nn_norm_row_bw(xh, tmp, d, 0.0f, s, hd, 0, assign);
                }
            } else if (d) {
                add_or_copy(d, g, hd, assign);
            }
        }
        size_t o = r * C + (size_t)nqk * hd; /* v: dx = dy */
        if (dx) add_or_copy(dx + o, dy + o, a->KVH * hd, assign);
    }
}

/* Row range of chunk c of n rows. */
static void chunk_rows(size_t n, int c, size_t *r0, size_t *r1)
{
    size_t step = (n + QKV_CHUNKS - 1) / QKV_CHUNKS;
    *r0 = c * step < n ? c * step : n;
    *r1 = *r0 + step < n ? *r0 + step : n;
}

/* What the node keeps: the sizes and eps of qkv_args, the RoPE tables (the caller's, valid
 * until backward) instead of their data. */
typedef struct {
    int H, KVH, hd, T;
    float eps;
    const bl_tensor *cos, *sin;
} qkv_node_args;

/* node: in = {qkv, qw, kw}, save = {rstd [rows, H + KVH] or NULL, scratch [chunks, 3 hd]};
 * assigns qkv */
static void qkv_prepare_backward(bl_node *n)
{
    bl_tensor *x = n->in[0], *qw = n->in[1], *kw = n->in[2], *y = n->out;
    if (!x->grad && !(qw && qw->grad) && !(kw && kw->grad)) return;
    qkv_node_args na;
    BL_NODE_LOAD(n, na);
    const bl_tensor *ct = na.cos, *st = na.sin;
    qkv_args a = {na.H, na.KVH, na.hd, na.T, na.eps,
                  qw ? qw->data : NULL, kw ? kw->data : NULL, ct ? ct->data : NULL,
                  st ? st->data : NULL};
    int hd = a.hd, assign = x->grad && bl_grad_take(x);
    size_t rows = x->numel / ((size_t)(a.H + 2 * a.KVH) * hd);
    float *scratch = n->save[1]->data, *dx = x->grad;   /* NULL: only the weights learn */
#pragma omp parallel for schedule(static)
    for (int c = 0; c < QKV_CHUNKS; c++) {
        size_t r0, r1;
        chunk_rows(rows, c, &r0, &r1);
        float *sc = scratch + (size_t)c * 3 * hd;
        memset(sc, 0, 2 * (size_t)hd * sizeof(float));
        if (r1 > r0)
            prep_bw(&a, x->data, y->grad, dx, n->save[0] ? n->save[0]->data : NULL, sc, sc + 2 * hd,
                    r0, r1, assign);
    }
    for (int c = 0; c < QKV_CHUNKS; c++) {
        const float *sc = scratch + (size_t)c * 3 * hd;
        for (int i = 0; i < hd; i++) {
            if (qw && qw->grad) qw->grad[i] += sc[i];
            if (kw && kw->grad) kw->grad[i] += sc[hd + i];
        }
    }
}

bl_tensor *bl_qkv_prepare(bl_graph *g, bl_tensor *qkv, int H, int KVH, bl_tensor *q_w,
                          bl_tensor *k_w, float eps, const bl_tensor *cos_t, const bl_tensor *sin_t)
{
    char buf[64], bc[64];
    if (H < 1 || KVH < 1 || H % KVH)
        return bl_fail("%s: %d heads is not a multiple of %d kv heads", BL_OPN(QKV_PREPARE), H, KVH), NULL;
    if (!qkv || qkv->ndim != 3 || qkv->shape[2] % (H + 2 * KVH))
        return bl_fail("%s: qkv must be [B, T, (heads + 2 kv_heads) head_dim] with heads "
                       "%d and kv_heads %d, got %s", BL_OPN(QKV_PREPARE), H, KVH, bl_nn_shape(qkv, buf, sizeof buf)), NULL;
    int T = qkv->shape[1], hd = qkv->shape[2] / (H + 2 * KVH);
    if ((q_w == NULL) != (k_w == NULL))
        return bl_fail("%s: give both q_norm and k_norm weights or neither", BL_OPN(QKV_PREPARE)), NULL;
    if (bl_nn_check_vec("qkv_prepare", "q_norm weight", q_w, hd) < 0 ||
        bl_nn_check_vec("qkv_prepare", "k_norm weight", k_w, hd) < 0)
        return NULL;
    if (!(eps >= 0.0f) || isinf(eps))
        return bl_fail("%s: eps must be a finite number >= 0, got %g", BL_OPN(QKV_PREPARE), (double)eps), NULL;
    if ((cos_t == NULL) != (sin_t == NULL) ||
        (cos_t && (cos_t->ndim != 2 || !bl_same_shape(cos_t, sin_t) || cos_t->shape[0] != T ||
                   cos_t->shape[1] != hd || hd % 2)))
        return bl_fail("%s: RoPE tables cos %s and sin %s must both be [%d, %d] (even)", BL_OPN(QKV_PREPARE),
                       bl_nn_shape(cos_t, bc, sizeof bc), bl_nn_shape(sin_t, buf, sizeof buf), T,
                       hd), NULL;
    int grad = BL_WANTS_GRAD(g, qkv, q_w, k_w);
    size_t rows = (size_t)qkv->shape[0] * T;
    bl_tensor *y = bl_graph_tensor(g, 3, qkv->shape, grad);
    bl_tensor *rstd = q_w ? bl_graph_tensor(g, 2, (int[]){(int)rows, H + KVH}, 0) : NULL;
    bl_tensor *scratch = bl_graph_tensor(g, 2, (int[]){QKV_CHUNKS, 3 * hd}, 0);
    if (!y || (q_w && !rstd) || !scratch) return NULL;
    qkv_args a = {H, KVH, hd, T, eps, q_w ? q_w->data : NULL, k_w ? k_w->data : NULL,
                  cos_t ? cos_t->data : NULL, sin_t ? sin_t->data : NULL};
#pragma omp parallel for schedule(static) if (qkv->numel > BL_NN_PAR_MIN)
    for (int c = 0; c < QKV_CHUNKS; c++) {
        size_t r0, r1;
        chunk_rows(rows, c, &r0, &r1);
        if (r1 > r0)
            prep_fw(&a, qkv->data, y->data, rstd ? rstd->data : NULL,
                    scratch->data + (size_t)c * 3 * hd + 2 * hd, r0, r1);
    }
    bl_node *n = bl_graph_node(g, BL_OP_QKV_PREPARE, qkv_prepare_backward, y);
    if (n) {
        n->in[0] = qkv;
        n->in[1] = q_w;
        n->in[2] = k_w;
        n->save[0] = rstd;
        n->save[1] = scratch;
        BL_NODE_SAVE(n, ((qkv_node_args){H, KVH, hd, T, eps, cos_t, sin_t}));
        n->assigns = 1u;
    }
    return y;
}
