/* attention.c - fused scaled dot-product attention, causal or masked, grouped-query.
 *
 * One (batch, query head) pair at a time, pairs spread over OpenMP threads, each pair's two
 * products through bl_sgemm (BLAS on the calling thread; bl_par_begin/end keep the pools apart):
 *
 *   P   = softmax(scale * q k^T + mask)     [T, S]   kept: backward and attention maps use it
 *   out = P v                                [T, hd]
 *
 * Backward (the softmax Jacobian applied row by row, as in FlashAttention's reference):
 *   dP  = dout v^T,   dS = P * (dP - rowsum(dP * P))
 *   dq += scale dS k,   dk += scale dS^T q,   dv += P^T dout
 * Backward runs over (batch, kv head) pairs so the query heads that share a kv head add into its
 * gradient one after another, never at the same time. Masked entries have P = 0 and so get no
 * gradient; a row with nothing allowed has P = 0 everywhere (output 0, never NaN).
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/blas.h"
#include "core/vmath.h"
#include <math.h>
#include <string.h>

/* Softmax of one row of scores in place over the allowed keys (mask row m, or keys s < lim when
 * causal); disallowed keys get 0. A row with no allowed key becomes all zeros. */
BL_SIMD_CLONES static void softmax_row(float *p, int S, int lim, const unsigned char *m)
{
    if (!m && lim == S) { /* nothing masked (TinyDiT): vectorised, bl_vexpf */
        float mx = -INFINITY, sum = 0.0f;
#pragma omp simd reduction(max : mx)
        for (int s = 0; s < S; s++) mx = p[s] > mx ? p[s] : mx;
        if (mx == -INFINITY) {
            memset(p, 0, (size_t)S * sizeof *p);
            return;
        }
#pragma omp simd reduction(+ : sum)
        for (int s = 0; s < S; s++) {
            p[s] = bl_vexpf(p[s] - mx);
            sum += p[s];
        }
        float inv = 1.0f / sum;
#pragma omp simd
        for (int s = 0; s < S; s++) p[s] *= inv;
        return;
    }
    float mx = -INFINITY;
    for (int s = 0; s < lim; s++)
        if ((!m || m[s]) && p[s] > mx) mx = p[s];
    if (mx == -INFINITY) { /* nothing allowed (or every score -inf) */
        memset(p, 0, (size_t)S * sizeof *p);
        return;
    }
    float sum = 0.0f;
    for (int s = 0; s < S; s++) {
        float e = (s < lim && (!m || m[s])) ? expf(p[s] - mx) : 0.0f;
        p[s] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (int s = 0; s < S; s++) p[s] *= inv;
}

/* node: in = {q, k, v}, save = {probs, scratch}, iarg = {B, H, KVH, T, S, hd, nthreads},
 * farg = {scale} */
static void attention_backward(bl_node *n)
{
    bl_tensor *q = n->in[0], *k = n->in[1], *v = n->in[2], *out = n->out;
    int B = n->iarg[0], H = n->iarg[1], KVH = n->iarg[2], T = n->iarg[3], S = n->iarg[4];
    int hd = n->iarg[5], nth = n->iarg[6];
    float scale = n->farg[0];
    int kv_mul = H / KVH;
    const float *P = n->save[0]->data;
    float *scratch = n->save[1]->data;
    size_t ts = (size_t)T * S, thd = (size_t)T * hd, shd = (size_t)S * hd;

    bl_par_begin();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (int bk = 0; bk < B * KVH; bk++) {
        float *dS = scratch + (size_t)bl_nn_thread() * ts;
        int b = bk / KVH, kh = bk % KVH;
        const float *kk = k->data + (size_t)bk * shd, *vv = v->data + (size_t)bk * shd;
        for (int h = kh * kv_mul; h < (kh + 1) * kv_mul; h++) {
            size_t bh = (size_t)b * H + h;
            const float *p = P + bh * ts, *dout = out->grad + bh * thd;
            if (v->grad) /* dv += P^T dout */
                bl_sgemm(1, 0, S, hd, T, 1.0f, p, dout, 1.0f, v->grad + (size_t)bk * shd);
            if (!q->grad && !k->grad) continue;
            /* dP = dout v^T, then dS = P * (dP - rowsum(dP * P)) in place */
            bl_sgemm(0, 1, T, S, hd, 1.0f, dout, vv, 0.0f, dS);
            for (int t = 0; t < T; t++) {
                float *d = dS + (size_t)t * S;
                const float *pr = p + (size_t)t * S;
                float dot = 0.0f;
                for (int s = 0; s < S; s++) dot += d[s] * pr[s];
                for (int s = 0; s < S; s++) d[s] = pr[s] * (d[s] - dot);
            }
            if (q->grad) /* dq += scale dS k */
                bl_sgemm(0, 0, T, hd, S, scale, dS, kk, 1.0f, q->grad + bh * thd);
            if (k->grad) /* dk += scale dS^T q */
                bl_sgemm(1, 0, S, hd, T, scale, dS, q->data + bh * thd, 1.0f,
                         k->grad + (size_t)bk * shd);
        }
    }
    bl_par_end();
}

bl_tensor *bl_attention(bl_graph *g, bl_tensor *q, bl_tensor *k, bl_tensor *v, int causal,
                        const unsigned char *mask, float scale, bl_tensor **probs)
{
    char bq[64], bk_[64], bv[64];
    if (probs) *probs = NULL;
    if (!q || !k || !v || q->ndim != 4 || k->ndim != 4 || v->ndim != 4) {
        bl_fail("attention: q, k, v must be 4-D [B, heads, tokens, head_dim], got q %s k %s v %s",
                bl_nn_shape(q, bq, sizeof bq), bl_nn_shape(k, bk_, sizeof bk_),
                bl_nn_shape(v, bv, sizeof bv));
        return NULL;
    }
    int B = q->shape[0], H = q->shape[1], T = q->shape[2], hd = q->shape[3];
    int KVH = k->shape[1], S = k->shape[2];
    if (!bl_same_shape(k, v) || k->shape[0] != B || k->shape[3] != hd) {
        bl_fail("attention: k %s and v %s must both be [%d, kv_heads, S, %d] for q %s",
                bl_nn_shape(k, bk_, sizeof bk_), bl_nn_shape(v, bv, sizeof bv), B, hd,
                bl_nn_shape(q, bq, sizeof bq));
        return NULL;
    }
    if (H % KVH) {
        bl_fail("attention: %d query heads is not a multiple of %d kv heads", H, KVH);
        return NULL;
    }
    if (isnan(scale) || isinf(scale)) {
        bl_fail("attention: scale must be finite, got %g", (double)scale);
        return NULL;
    }
    if (scale <= 0.0f) scale = 1.0f / sqrtf((float)hd);

    int grad = BL_WANTS_GRAD(g, q, k, v);
    bl_tensor *out = bl_graph_tensor(g, 4, q->shape, grad);
    bl_tensor *P = bl_graph_tensor(g, 4, (int[]){B, H, T, S}, 0);
    if (!out || !P) return NULL;
    /* backward's per-thread dS rows, sized now so that backward never allocates */
    int nth = bl_nn_max_threads();
    bl_tensor *scratch = grad ? bl_graph_tensor(g, 2, (int[]){nth, T * S}, 0) : NULL;
    if (grad && !scratch) return NULL;
    int kv_mul = H / KVH;
    size_t ts = (size_t)T * S, thd = (size_t)T * hd, shd = (size_t)S * hd;

    bl_par_begin();
#pragma omp parallel for schedule(dynamic, 1)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        size_t kvo = ((size_t)b * KVH + h / kv_mul) * shd;
        float *p = P->data + (size_t)bh * ts;
        /* scores = scale q k^T, then the masked softmax row by row */
        bl_sgemm(0, 1, T, S, hd, scale, q->data + (size_t)bh * thd, k->data + kvo, 0.0f, p);
        for (int t = 0; t < T; t++) {
            int lim = S;
            if (causal) {
                long l = (long)t + (S - T) + 1;
                lim = l < 0 ? 0 : l > S ? S : (int)l;
            }
            softmax_row(p + (size_t)t * S, S, lim, mask ? mask + (size_t)t * S : NULL);
        }
        bl_sgemm(0, 0, T, hd, S, 1.0f, p, v->data + kvo, 0.0f, out->data + (size_t)bh * thd);
    }
    bl_par_end();

    if (probs) *probs = P;
    bl_node *n = bl_graph_node(g, "attention", attention_backward, out);
    if (n) {
        n->in[0] = q;
        n->in[1] = k;
        n->in[2] = v;
        n->save[0] = P;
        n->save[1] = scratch;
        int ia[7] = {B, H, KVH, T, S, hd, nth};
        memcpy(n->iarg, ia, sizeof ia);
        n->farg[0] = scale;
    }
    return out;
}
