/* attention.c - fused scaled dot-product attention, causal or masked, grouped-query.
 *
 * One (batch, query head) pair at a time, pairs spread over OpenMP threads, each pair's two
 * products through BLAS on the calling thread (bl_par_begin/end keep the pools apart):
 *
 *   P   = softmax(scale * q k^T + mask)     [T, S]   kept: backward and attention maps use it
 *   out = P v                                [T, hd]
 *
 * When nobody asks for P (probs NULL) and there is no mask, P is not kept: the
 * forward makes each (batch, head)'s in a per-thread row and backward makes it again there, by
 * the same products (the same bits), before using it. This saves the [B, H, T, S] tensor per
 * layer (TinyGPT at nanoGPT's size, batch 64: 0.56 GiB over 6 layers) for one more q k^T
 * product and softmax per pair in backward.
 *
 * Backward (the softmax Jacobian applied row by row, as in FlashAttention's reference):
 *   dP  = dout v^T,   dS = P * (dP - rowsum(dP * P))
 *   dq += scale dS k,   dk += scale dS^T q,   dv += P^T dout
 * Backward runs over (batch, kv head) pairs so the query heads that share a kv head add into its
 * gradient one after another, never at the same time. Masked entries have P = 0 and so get no
 * gradient; a row with nothing allowed has P = 0 everywhere (output 0, never NaN).
 *
 * Two layouts share the kernels (an att_shape says where each head's rows are):
 *   bl_attention      q [B, H, T, hd], k, v [B, KVH, S, hd] -> out [B, H, T, hd]
 *   bl_attention_qkv  q, k, v read in place from the fused projection [B, T, (H + 2 KVH) hd],
 *                     out written merged [B, T, H hd]: no head split or merge copies at all.
 *
 * Dropout on the attention weights (bl_attention_qkv_dropout; nanoGPT's attn_dropout, timm's
 * attn_drop): Pd = P * keep / (1 - p), out = Pd v; P (unless not kept) and the keep mask (one bit per weight,
 * 1/32 of Pd) are kept, and each (batch, head)'s Pd is made again from them in a per-thread row
 * where it is needed (the same bits: the same product), so dropout costs no second [B, H, T, S]
 * tensor. Backward: dv += Pd^T dout, dP = (dout v^T) * keep / (1 - p) (taken where Pd != 0), then
 * the softmax Jacobian with P as above (where P = 0, dS = 0 whatever dP).
 */
#include "nn/nn.h"
#include "nn/nn_private.h"
#include "core/blas.h"
#include "core/rng.h"
#include "core/vmath.h"
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Softmax of the first n scores of a row in place, nothing masked: max and sum in BL_NN_LANES
 * partial results combined as a tree (vectorises; the same bits in every clone). A row whose
 * scores are all -inf becomes zeros. */
static inline BL_VMATH_INLINE void softmax_plain(float *p, int n)
{
    float mx[BL_NN_LANES], sm[BL_NN_LANES] = {0}, m = -INFINITY, sum = 0.0f;
    for (int j = 0; j < BL_NN_LANES; j++) mx[j] = -INFINITY;
    int i = 0;
    for (; i + BL_NN_LANES <= n; i += BL_NN_LANES)
        for (int j = 0; j < BL_NN_LANES; j++) mx[j] = p[i + j] > mx[j] ? p[i + j] : mx[j];
    for (; i < n; i++) m = p[i] > m ? p[i] : m;
    for (int w = BL_NN_LANES / 2; w > 0; w /= 2)
        for (int j = 0; j < w; j++) mx[j] = mx[j + w] > mx[j] ? mx[j + w] : mx[j];
    m = mx[0] > m ? mx[0] : m;
    if (m == -INFINITY) {
        memset(p, 0, (size_t)n * sizeof *p);
        return;
    }
    for (i = 0; i + BL_NN_LANES <= n; i += BL_NN_LANES)
        for (int j = 0; j < BL_NN_LANES; j++) {
            float e = bl_vexpf(p[i + j] - m);
            p[i + j] = e;
            sm[j] += e;
        }
    for (; i < n; i++) {
        p[i] = bl_vexpf(p[i] - m);
        sum += p[i];
    }
    sum += bl_nn_lanes_sum_f(sm);
    float inv = 1.0f / sum;
#pragma omp simd
    for (i = 0; i < n; i++) p[i] *= inv;
}

/* Which scores a row may use and what is added to them: a [T, S] byte mask (bl_attention), or a
 * float tensor broadcast over batch and heads (bl_attention_masked), boolean (keep: nonzero = may
 * attend) or additive (add: added to the scaled scores; -inf masks). Element (b, h, t, s) at
 * b sb + h sh + t st + s ss (stride 0 along a broadcast dim). */
typedef struct {
    const unsigned char *bytes;
    const float *keep, *add;
    size_t sb, sh, st, ss;
} att_mask;

/* Softmax of the T rows [T, S] of one (batch, head) in place over the allowed keys: row t sees
 * keys s < lim(t) when causal (query t sees keys s <= t + S - T), and only the keys the mask m
 * (m: its element (b, h, 0, 0); NULL: none) allows, with its additive part added; disallowed keys
 * get 0 and a row with no allowed key (or every score -inf) becomes all zeros. One call per
 * (batch, head): the clone is picked once, not per row. */
BL_SIMD_CLONES static void softmax_rows(float *P, int T, int S, int causal, const att_mask *m, size_t mo)
{
    for (int t = 0; t < T; t++) {
        float *p = P + (size_t)t * S;
        int lim = S;
        if (causal) {
            long l = (long)t + (S - T) + 1;
            lim = l < 0 ? 0 : l > S ? S : (int)l;
        }
        if (!m) { /* TinyDiT (lim = S) and causal TinyGPT: vectorised */
            softmax_plain(p, lim);
            if (lim < S) memset(p + lim, 0, (size_t)(S - lim) * sizeof *p);
            continue;
        }
        size_t ro = mo + (size_t)t * m->st;
        float mx = -INFINITY;
        for (int s = 0; s < S; s++) {
            size_t o = ro + (size_t)s * m->ss;
            int ok = s < lim && (m->bytes ? m->bytes[o] != 0 : m->keep ? m->keep[o] != 0.0f : 1);
            p[s] = ok ? (m->add ? p[s] + m->add[o] : p[s]) : -INFINITY;
            if (p[s] > mx) mx = p[s];
        }
        if (mx == -INFINITY) { /* nothing allowed (or every score -inf) */
            memset(p, 0, (size_t)S * sizeof *p);
            continue;
        }
        float sum = 0.0f;
        for (int s = 0; s < S; s++) {
            float e = p[s] == -INFINITY ? 0.0f : expf(p[s] - mx);
            p[s] = e;
            sum += e;
        }
        float inv = 1.0f / sum;
        for (int s = 0; s < S; s++) p[s] *= inv;
    }
}

/* dS = P * (dP - rowsum(dP * P)) in place on T rows of S (dS holds dP on entry). */
BL_SIMD_CLONES static void softmax_bw_rows(float *restrict dS, const float *restrict p, int T, int S)
{
    for (int t = 0; t < T; t++) {
        float *d = dS + (size_t)t * S;
        const float *pr = p + (size_t)t * S;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int s = 0; s < S; s++) dot += d[s] * pr[s];
#pragma omp simd
        for (int s = 0; s < S; s++) d[s] = pr[s] * (d[s] - dot);
    }
}

/* Where the rows of head h of batch b live: row t of q is q + b*q.sb + h*q.sh + t*q.st. */
typedef struct { size_t sb, sh; int st; } att_lay;
typedef struct {
    int B, H, KVH, T, S, hd;
    size_t qo, ko, vo;              /* offsets of q, k, v from the base pointer */
    att_lay q, kv, o;               /* q rows, k and v rows (one layout), output rows */
} att_shape;

static att_shape att_make(int packed, int B, int H, int KVH, int T, int S, int hd)
{
    att_shape a = {B, H, KVH, T, S, hd, 0, 0, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (packed) { /* [B, T, (H + 2 KVH) hd] in, [B, T, H hd] out, T == S */
        int C = (H + 2 * KVH) * hd;
        a.ko = (size_t)H * hd;
        a.vo = (size_t)(H + KVH) * hd;
        a.q = a.kv = (att_lay){(size_t)T * C, (size_t)hd, C};
        a.o = (att_lay){(size_t)T * H * hd, (size_t)hd, H * hd};
    } else {
        a.q = a.o = (att_lay){(size_t)H * T * hd, (size_t)T * hd, hd};
        a.kv = (att_lay){(size_t)KVH * S * hd, (size_t)S * hd, hd};
    }
    return a;
}

static size_t lay_at(att_lay l, int b, int h) { return b * l.sb + h * l.sh; }

/* Words of keep bits per (batch, head): T * S bits. */
static size_t keep_words(size_t ts) { return (ts + 31) / 32; }

/* Pd = P * keep * s for one (batch, head) from its P row block and keep bits. */
static void dropped_probs(const float *restrict p, const uint32_t *restrict bits, float s,
                          float *restrict pd, size_t ts)
{
    for (size_t j = 0; j < ts; j++) pd[j] = bits[j >> 5] >> (j & 31) & 1u ? p[j] * s : 0.0f;
}

/* Scores and masked softmax of (b, h) into p [T, S]: the one place P is made (forward, and
 * backward when P was not kept, gives the same bits). */
static void att_probs(const att_shape *a, const float *q, const float *k, int b, int h, float *p,
                      int causal, const att_mask *mask, float scale)
{
    const float *qq = q + a->qo + lay_at(a->q, b, h);
    size_t kvo = lay_at(a->kv, b, h / (a->H / a->KVH));
    bl_sgemm_ld(0, 1, a->T, a->S, a->hd, scale, qq, a->q.st, k + a->ko + kvo, a->kv.st, 0.0f, p, a->S);
    softmax_rows(p, a->T, a->S, causal, mask, mask ? b * mask->sb + h * mask->sh : 0);
}

/* Forward over every (b, h): P [B, H, T, S] and out. q, k, v: base pointers (see att_shape).
 * P NULL: each (b, h)'s P in the thread's row of prow (nth rows of T * S floats), not kept.
 * With dropout (keep != NULL): keep bits drawn at the flat index of P, Pd made in the thread's
 * row of pdrow (nth rows of T * S floats), s = 1 / (1 - drop). */
static void att_forward(const att_shape *a, const float *q, const float *k, const float *v,
                        float *P, float *prow, float *out, int causal, const att_mask *mask, float scale,
                        uint32_t *keep, float *pdrow, float drop, float s, uint64_t key)
{
    int B = a->B, H = a->H, T = a->T, S = a->S, hd = a->hd, kv_mul = H / a->KVH;
    size_t ts = (size_t)T * S;
    bl_par_begin();
#pragma omp parallel for schedule(dynamic, 1)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        size_t kvo = lay_at(a->kv, b, h / kv_mul);
        float *p = P ? P + (size_t)bh * ts : prow + (size_t)bl_nn_thread() * ts;
        /* scores = scale q k^T, then the masked softmax row by row */
        att_probs(a, q, k, b, h, p, causal, mask, scale);
        const float *pv = p;
        if (keep) { /* dropout: keep drawn at the flat index of P, Pd = P * keep / (1 - p) */
            uint32_t *bits = keep + (size_t)bh * keep_words(ts);
            uint64_t i0 = (uint64_t)bh * ts;
            memset(bits, 0, keep_words(ts) * sizeof *bits);
            for (size_t j = 0; j < ts; j++)
                if (bl_rng_at(key, i0 + j) >= drop) bits[j >> 5] |= 1u << (j & 31);
            float *pd = pdrow + (size_t)bl_nn_thread() * ts;
            dropped_probs(p, bits, s, pd, ts);
            pv = pd;
        }
        bl_sgemm_ld(0, 0, T, hd, S, 1.0f, pv, S, v + a->vo + kvo, a->kv.st, 0.0f,
                    out + lay_at(a->o, b, h), a->o.st);
    }
    bl_par_end();
}

/* Backward: dq, dk, dv (base pointers of the grads, NULL = not needed) += from dout, or =
 * when assign (all three logically zero: each block's first product then uses beta 0).
 * scratch: nth rows of T*S floats, one per thread (2 nth with dropout: then the second nth hold
 * each thread's Pd, made from P and the keep bits; when P is NULL, not kept, nth more rows
 * after those hold each thread's P, made again (no mask; causal as the forward)). */
static void att_backward(const att_shape *a, const float *q, const float *k, const float *v,
                         float *dq, float *dk, float *dv, const float *dout, const float *P,
                         float *scratch, int nth, int causal, float scale, int assign, const uint32_t *keep,
                         float ds)
{
    int H = a->H, KVH = a->KVH, T = a->T, S = a->S, hd = a->hd, kv_mul = H / KVH;
    size_t ts = (size_t)T * S;
    bl_par_begin();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (int bk = 0; bk < a->B * KVH; bk++) {
        float *dS = scratch + (size_t)bl_nn_thread() * ts;
        int b = bk / KVH, kh = bk % KVH;
        size_t kvo = lay_at(a->kv, b, kh);
        const float *kk = k + a->ko + kvo, *vv = v + a->vo + kvo;
        for (int h = kh * kv_mul; h < (kh + 1) * kv_mul; h++) {
            size_t qo = a->qo + lay_at(a->q, b, h);
            /* beta: dq of (b, h) is written once; dk, dv of (b, kh) by each head of the group */
            float bq = assign ? 0.0f : 1.0f, bkv = assign && h == kh * kv_mul ? 0.0f : 1.0f;
            const float *p = P ? P + ((size_t)b * H + h) * ts : NULL, *g = dout + lay_at(a->o, b, h);
            if (!p) {
                float *row = scratch + (size_t)((keep ? 2 : 1) * nth + bl_nn_thread()) * ts;
                att_probs(a, q, k, b, h, row, causal, NULL, scale);
                p = row;
            }
            float *pd = NULL;
            if (keep) {
                pd = scratch + (size_t)(nth + bl_nn_thread()) * ts;
                dropped_probs(p, keep + ((size_t)b * H + h) * keep_words(ts), ds, pd, ts);
            }
            if (dv) /* dv += P^T dout (Pd^T dout with dropout) */
                bl_sgemm_ld(1, 0, S, hd, T, 1.0f, pd ? pd : p, S, g, a->o.st, bkv, dv + a->vo + kvo, a->kv.st);
            if (!dq && !dk) continue;
            /* dP = dout v^T (times keep / (1 - p) with dropout), then dS = P * (dP - rowsum(dP * P))
             * in place */
            bl_sgemm_ld(0, 1, T, S, hd, 1.0f, g, a->o.st, vv, a->kv.st, 0.0f, dS, S);
            if (pd)
                for (size_t j = 0; j < ts; j++) dS[j] = pd[j] != 0.0f ? dS[j] * ds : 0.0f;
            softmax_bw_rows(dS, p, T, S);
            if (dq) /* dq += scale dS k */
                bl_sgemm_ld(0, 0, T, hd, S, scale, dS, S, kk, a->kv.st, bq, dq + qo, a->q.st);
            if (dk) /* dk += scale dS^T q */
                bl_sgemm_ld(1, 0, S, hd, T, scale, dS, S, q + qo, a->q.st, bkv,
                            dk + a->ko + kvo, a->kv.st);
        }
    }
    bl_par_end();
}

typedef struct {
    int B, H, KVH, T, S, hd;
    int nthreads;           /* rows of the scratch: one per thread */
    int packed;             /* 1: in = {qkv} (bl_attention_qkv), 0: in = {q, k, v} */
    int causal;             /* for P made again in backward (save[0] NULL) */
    float scale;            /* of the scores */
    float keep_scale;       /* 1 / (1 - dropout p), 1 without dropout */
} attention_args;

/* node: in = {q, k, v} (bl_attention) or {qkv} (bl_attention_qkv), save = {probs, scratch,
 * keep bits or NULL} */
static void attention_backward(bl_node *n)
{
    attention_args ar;
    BL_NODE_LOAD(n, ar);
    int packed = ar.packed;
    att_shape a = att_make(packed, ar.B, ar.H, ar.KVH, ar.T, ar.S, ar.hd);
    bl_tensor *q = n->in[0], *k = packed ? q : n->in[1], *v = packed ? q : n->in[2];
    /* packed: the one qkv grad is written whole while logically zero (node.assigns) */
    int assign = packed && q->grad && bl_grad_take(q);
    att_backward(&a, q->data, k->data, v->data, q->grad, k->grad, v->grad, n->out->grad,
                 n->save[0] ? n->save[0]->data : NULL, n->save[1]->data, ar.nthreads, ar.causal, ar.scale, assign,
                 n->save[2] ? (const uint32_t *)n->save[2]->data : NULL, ar.keep_scale);
}

/* The shared second half of both ops: checks the scale, allocates out, P and scratch, runs the
 * forward and records the node. out_shape: 4-D [B, H, T, hd] or 3-D [B, T, H hd]. */
static bl_tensor *att_run(bl_graph *g, const att_shape *a, bl_tensor *q, bl_tensor *k,
                          bl_tensor *v, int out_ndim, const int *out_shape, int causal,
                          const att_mask *mask, float scale, bl_tensor **probs, float drop,
                          uint64_t key)
{
    if (!(drop >= 0.0f && drop < 1.0f)) {
        bl_fail("%s: dropout must be in [0, 1), got %g", BL_OPN(ATTENTION), (double)drop);
        return NULL;
    }
    if (isnan(scale) || isinf(scale)) {
        bl_fail("%s: scale must be finite, got %g", BL_OPN(ATTENTION), (double)scale);
        return NULL;
    }
    if (scale <= 0.0f) scale = 1.0f / sqrtf((float)a->hd);
    int packed = k == NULL;
    int grad = packed ? BL_WANTS_GRAD(g, q) : BL_WANTS_GRAD(g, q, k, v);
    bl_tensor *out = bl_graph_tensor(g, out_ndim, out_shape, grad);
    /* P kept only when asked for, or needed by a backward that could not make it again */
    int keepP = probs || mask;
    bl_tensor *P = keepP ? bl_graph_tensor(g, 4, (int[]){a->B, a->H, a->T, a->S}, 0) : NULL;
    size_t ts = (size_t)a->T * a->S, words = (size_t)a->B * a->H * keep_words(ts);
    if (words > INT_MAX) return BL_FAILP("%s: %d x %d weights are too many for dropout",
                                         BL_OPN(ATTENTION), a->B * a->H, a->T * a->S);
    /* the keep bits as a tensor of as many floats as words (read as uint32_t) */
    bl_tensor *keep = drop > 0.0f ? bl_graph_tensor(g, 1, (int[]){(int)words}, 0) : NULL;
    if (!out || (keepP && !P) || (drop > 0.0f && !keep)) return NULL;
    /* per-thread rows, sized now so that backward never allocates: backward's dS (and with
     * dropout each thread's Pd, which the forward's product reads too; without P kept, each
     * thread's P, made in the forward and again in backward) */
    int nth = bl_nn_max_threads(), rows = nth * (1 + (drop > 0.0f) + !P);
    bl_tensor *scratch = grad || keep || !P ? bl_graph_tensor(g, 2, (int[]){rows, a->T * a->S}, 0) : NULL;
    if ((grad || keep || !P) && !scratch) return NULL;
    float keep_scale = drop > 0.0f ? 1.0f / (1.0f - drop) : 1.0f;
    att_forward(a, q->data, packed ? q->data : k->data, packed ? q->data : v->data, P ? P->data : NULL,
                P ? NULL : scratch->data + (size_t)(rows - nth) * ts,
                out->data, causal, mask, scale, keep ? (uint32_t *)keep->data : NULL,
                keep ? scratch->data + (size_t)nth * ts : NULL, drop, keep_scale, key);
    if (probs) *probs = P;
    bl_node *n = bl_graph_node(g, BL_OP_ATTENTION, attention_backward, out);
    if (n) {
        n->in[0] = q;
        n->in[1] = k;
        n->in[2] = v;
        n->save[0] = P;
        n->save[1] = scratch;
        n->save[2] = keep;
        n->assigns = packed ? 1u : 0u;
        BL_NODE_SAVE(n, ((attention_args){a->B, a->H, a->KVH, a->T, a->S, a->hd, nth, packed, causal, scale,
                                          keep_scale}));
    }
    return out;
}

/* The shape checks of bl_attention: q [B, H, T, hd], k and v [B, KVH, S, hd], H % KVH == 0. */
static int att_check(const bl_tensor *q, const bl_tensor *k, const bl_tensor *v)
{
    char bq[64], bk_[64], bv[64];
    if (!q || !k || !v || q->ndim != 4 || k->ndim != 4 || v->ndim != 4)
        return bl_fail("%s: q, k, v must be 4-D [B, heads, tokens, head_dim], got q %s k %s v %s",
                       BL_OPN(ATTENTION),
                       bl_nn_shape(q, bq, sizeof bq), bl_nn_shape(k, bk_, sizeof bk_),
                       bl_nn_shape(v, bv, sizeof bv));
    if (!bl_same_shape(k, v) || k->shape[0] != q->shape[0] || k->shape[3] != q->shape[3])
        return bl_fail("%s: k %s and v %s must both be [%d, kv_heads, S, %d] for q %s", BL_OPN(ATTENTION),
                       bl_nn_shape(k, bk_, sizeof bk_), bl_nn_shape(v, bv, sizeof bv), q->shape[0],
                       q->shape[3], bl_nn_shape(q, bq, sizeof bq));
    if (q->shape[1] % k->shape[1])
        return bl_fail("%s: %d query heads is not a multiple of %d kv heads",
                       BL_OPN(ATTENTION), q->shape[1], k->shape[1]);
    return 0;
}

bl_tensor *bl_attention(bl_graph *g, bl_tensor *q, bl_tensor *k, bl_tensor *v, int causal,
                        const unsigned char *mask, float scale, bl_tensor **probs)
{
    if (probs) *probs = NULL;
    if (att_check(q, k, v) < 0) return NULL;
    int B = q->shape[0], H = q->shape[1], T = q->shape[2], hd = q->shape[3];
    int KVH = k->shape[1], S = k->shape[2];
    att_shape a = att_make(0, B, H, KVH, T, S, hd);
    att_mask m = {mask, NULL, NULL, 0, 0, (size_t)S, 1};
    return att_run(g, &a, q, k, v, 4, q->shape, causal, mask ? &m : NULL, scale, probs, 0.0f, 0);
}

bl_tensor *bl_attention_masked(bl_graph *g, bl_tensor *q, bl_tensor *k, bl_tensor *v, int causal,
                               const bl_tensor *mask, int additive, float scale, bl_tensor **probs)
{
    if (!mask) return bl_attention(g, q, k, v, causal, NULL, scale, probs);
    if (probs) *probs = NULL;
    if (att_check(q, k, v) < 0) return NULL;
    int want[4] = {q->shape[0], q->shape[1], q->shape[2], k->shape[2]};   /* B, H, T, S */
    size_t st[4], acc = 1;
    int ok = mask->ndim >= 1 && mask->ndim <= 4;
    for (int i = 3; ok && i >= 0; i--) {
        int j = i - (4 - mask->ndim), size = j >= 0 ? mask->shape[j] : 1;
        ok = size == want[i] || size == 1;
        st[i] = size == 1 ? 0 : acc;
        acc *= (size_t)size;
    }
    if (!ok) {
        char ms[64];
        bl_fail("%s: the mask %s must broadcast to [B, H, T, S] = [%d, %d, %d, %d]", BL_OPN(ATTENTION),
                bl_nn_shape(mask, ms, sizeof ms), want[0], want[1], want[2], want[3]);
        return NULL;
    }
    att_mask m = {NULL, additive ? NULL : mask->data, additive ? mask->data : NULL, st[0], st[1], st[2], st[3]};
    att_shape a = att_make(0, q->shape[0], q->shape[1], k->shape[1], q->shape[2], k->shape[2], q->shape[3]);
    return att_run(g, &a, q, k, v, 4, q->shape, causal, &m, scale, probs, 0.0f, 0);
}

bl_tensor *bl_attention_qkv(bl_graph *g, bl_tensor *qkv, int H, int KVH, int causal,
                            const unsigned char *mask, float scale, bl_tensor **probs)
{
    return bl_attention_qkv_dropout(g, qkv, H, KVH, causal, mask, scale, probs, 0.0f, 0);
}

bl_tensor *bl_attention_qkv_dropout(bl_graph *g, bl_tensor *qkv, int H, int KVH, int causal,
                                    const unsigned char *mask, float scale, bl_tensor **probs,
                                    float p, uint64_t key)
{
    char buf[64];
    if (probs) *probs = NULL;
    if (H < 1 || KVH < 1 || H % KVH)
        return bl_fail("%s: %d query heads is not a multiple of %d kv heads", BL_OPN(ATTENTION), H, KVH), NULL;
    if (!qkv || qkv->ndim != 3 || qkv->shape[2] % (H + 2 * KVH))
        return bl_fail("%s: qkv must be [B, T, (heads + 2 kv_heads) head_dim] with heads "
                       "%d and kv_heads %d, got %s",
                       BL_OPN(ATTENTION), H, KVH, bl_nn_shape(qkv, buf, sizeof buf)), NULL;
    int B = qkv->shape[0], T = qkv->shape[1], hd = qkv->shape[2] / (H + 2 * KVH);
    att_shape a = att_make(1, B, H, KVH, T, T, hd);
    att_mask m = {mask, NULL, NULL, 0, 0, (size_t)T, 1};
    return att_run(g, &a, qkv, NULL, NULL, 3, (int[]){B, T, H * hd}, causal, mask ? &m : NULL, scale, probs, p, key);
}
