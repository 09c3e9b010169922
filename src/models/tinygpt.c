/* tinygpt.c - TinyGPT: parameters, forward pass, loss, per-position loss, generation with a
 * KV cache.
 *
 * Mirrors karpathy/nanoGPT model.py (GPT, Block, CausalSelfAttention, MLP) with bias=False,
 * dropout where nanoGPT has it (after the embedding, on the attention weights, after the attention
 * and MLP output projections; training forwards only, masks from core/rng.h) and weight tying (lm_head.weight is transformer.wte.weight), plus the blocklab
 * switches (RMSNorm, RoPE, SwiGLU, QK-norm, grouped-query attention as in llama2.c).
 *
 * Initialisation (DESIGN.md 4): embeddings (wte, wpe) N(0, 0.02) as GPT-2/nanoGPT; every Linear
 * weight U(+-1/sqrt(in_features)) as PyTorch's nn.Linear default (DESIGN's rule; nanoGPT's own
 * N(0, 0.02) with scaled c_proj is not used); norm weights 1. No biases exist.
 *
 * Norm eps: LayerNorm 1e-5 (nn.LayerNorm default, as nanoGPT), RMSNorm and QK-norm 1e-6, unless
 * the user sets eps.
 */
#include "models/tinygpt.h"
#include "models/model_internal.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpt_block {
    bl_norm_params ln1, ln2;    /* transformer.h.i.ln_1, ln_2 (weight [D]; bl_build_norm) */
    bl_attn_params attn;        /* attn.c_attn [D + 2 KVH hd, D], attn.c_proj [D, D] */
    bl_mlp_params mlp;          /* mlp.c_fc/c_proj or mlp.w1/w2/w3 */
} gpt_block;

struct bl_gpt {
    bl_tensor *wte, *wpe;
    bl_norm_params lnf;         /* transformer.ln_f */
    gpt_block blk[BL_MAX_DEPTH];
    int *pos_ids;               /* 0, 1, ..., pos_cap - 1 (wpe lookups) */
    int pos_cap;
    float *cos, *sin;           /* 1-D RoPE tables [rope_cap, hd] for positions 0.. */
    int rope_cap;
    float *kc, *vc;             /* KV cache [depth][KVH][cache_cap][hd] (after RoPE / qk_norm) */
    int cache_cap;
};

int bl_gpt_declare(bl_model *m, bl_builder *b)
{
    const bl_config *c = &m->cfg;
    struct bl_gpt *s = calloc(1, sizeof *s);
    if (!s) return bl_fail("gpt: out of memory");
    m->gpt = s;
    int D = c->dim;
    /* wte = nn.Embedding(vocab_size, n_embd), wpe = nn.Embedding(block_size, n_embd) */
    bl_build_param(b, &s->wte, 2, (int[]){c->vocab, D}, BL_INIT_NORMAL, 0.02f, "transformer.wte.weight");
    if (bl_config_pos(c)->learned)
        bl_build_param(b, &s->wpe, 2, (int[]){c->context, D}, BL_INIT_NORMAL, 0.02f, "transformer.wpe.weight");
    for (int i = 0; i < c->depth; i++) {
        gpt_block *k = &s->blk[i];
        char attn[40], mlp[40];
        snprintf(attn, sizeof attn, "transformer.h.%d.attn", i);
        snprintf(mlp, sizeof mlp, "transformer.h.%d.mlp", i);
        /* Block: ln_1, attn, ln_2, mlp */
        bl_build_norm(b, &k->ln1, c, D, BL_NORM_WEIGHT, "transformer.h.%d.ln_1", i);
        bl_build_attention(b, &k->attn, c, attn, "c_attn", "c_proj", 0);
        bl_build_norm(b, &k->ln2, c, D, BL_NORM_WEIGHT, "transformer.h.%d.ln_2", i);
        bl_build_mlp(b, &k->mlp, c, mlp, "c_fc", "c_proj", 0);
    }
    bl_build_norm(b, &s->lnf, c, D, BL_NORM_WEIGHT, "transformer.ln_f");
    return 0;
}

/* Make the wpe position ids cover n positions. */
static int ensure_positions(struct bl_gpt *s, int n)
{
    if (n <= s->pos_cap) return 0;
    int *p = realloc(s->pos_ids, (size_t)n * sizeof *p);
    if (!p) return bl_fail("gpt: out of memory");
    for (int i = 0; i < n; i++) p[i] = i;
    s->pos_ids = p;
    s->pos_cap = n;
    return 0;
}

/* Make the RoPE tables cover positions 0 .. n-1. */
static int ensure_rope(bl_model *m, int n)
{
    struct bl_gpt *s = m->gpt;
    if (!bl_config_pos(&m->cfg)->rope_axes || n <= s->rope_cap) return 0;
    int hd = bl_config_head_dim(&m->cfg);
    float *c = realloc(s->cos, (size_t)n * hd * sizeof(float));
    if (c) s->cos = c;
    float *sn = c ? realloc(s->sin, (size_t)n * hd * sizeof(float)) : NULL;
    if (!c || !sn) return bl_fail("gpt: out of memory for RoPE tables of %d positions", n);
    s->sin = sn;
    if (bl_rope_table_1d(n, hd, m->cfg.rope_base, 0, s->cos, s->sin) < 0) return -1;
    s->rope_cap = n;
    return 0;
}

int bl_gpt_setup(bl_model *m)
{
    struct bl_gpt *s = m->gpt;
    /* tables for the training context now, so no training step allocates; rebuilt from scratch
     * (rope_base may have changed) */
    free(s->cos);
    free(s->sin);
    s->cos = s->sin = NULL;
    s->rope_cap = 0;
    if (bl_config_pos(&m->cfg)->rope_axes > 1)
        return bl_fail("gpt: pos=%s: TinyGPT makes RoPE tables over the token index only", bl_config_pos(&m->cfg)->name);
    if (ensure_positions(s, m->cfg.context) < 0) return -1;
    return ensure_rope(m, m->cfg.context);
}

void bl_gpt_free(bl_model *m)
{
    struct bl_gpt *s = m->gpt;
    if (!s) return;
    free(s->pos_ids);
    free(s->cos);
    free(s->sin);
    free(s->kc);
    free(s->vc);
    free(s);
    m->gpt = NULL;
}

static int check_gpt(const bl_model *m, const char *what)
{
    if (m->kind != BL_MODEL_GPT || !m->gpt) return bl_fail("%s: the model is not a TinyGPT", what);
    return 0;
}

/* Errors for a window of T tokens at positions pos0 .. pos0 + T - 1. */
static int check_window(const bl_model *m, const char *what, int B, int T, int pos0)
{
    if (B < 1 || T < 1) return bl_fail("%s: need at least one window of one token, got B %d T %d", what, B, T);
    const bl_pos_def *pd = bl_config_pos(&m->cfg);
    if (pd->learned && pos0 + T > m->cfg.context)
        return bl_fail("%s: pos=%s has positions for %d tokens but %d were asked; use pos=%s to run past the "
                       "context", what, pd->name, m->cfg.context, pos0 + T, bl_pos_unbounded(m->kind));
    if ((size_t)B * T > (size_t)1 << 26) return bl_fail("%s: %d windows of %d tokens is too many", what, B, T);
    return 0;
}

static int check_ids(const bl_model *m, const char *what, const int *ids, size_t n, int allow_ignore)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= m->cfg.vocab || ids[i] < (allow_ignore ? -1 : 0))
            return bl_fail("%s: token %d at index %zu is outside the vocabulary (0..%d)", what, ids[i], i,
                           m->cfg.vocab - 1);
    return 0;
}

/* Attention of new queries q [1, H, T, hd] at positions pos0.. over the cached keys and values
 * of `layer` (positions 0 .. pos0 + T - 1, already written): causal, grouped-query, no tape.
 * Inference only: per row one q K^T and one p V product. */
static bl_tensor *cached_attention(bl_model *m, int layer, bl_tensor *q, int pos0)
{
    struct bl_gpt *s = m->gpt;
    int H = m->cfg.heads, KVH = bl_config_kv_heads(&m->cfg), hd = bl_config_head_dim(&m->cfg);
    int T = q->shape[2], S = pos0 + T, kv_mul = H / KVH;
    float scale = 1.0f / sqrtf((float)hd);
    bl_tensor *y = bl_graph_tensor(m->graph, 4, q->shape, 0);
    float *p = bl_graph_alloc(m->graph, (size_t)S * sizeof(float));
    if (!y || !p) return NULL;
    size_t lay = (size_t)layer * KVH * s->cache_cap * hd;
    for (int h = 0; h < H; h++) {
        int kh = h / kv_mul;   /* llama2.c: head h reads kv head h / kv_mul */
        const float *K = s->kc + lay + (size_t)kh * s->cache_cap * hd;
        const float *V = s->vc + lay + (size_t)kh * s->cache_cap * hd;
        for (int t = 0; t < T; t++) {
            int lim = pos0 + t + 1;
            const float *qr = q->data + ((size_t)h * T + t) * hd;
            float *out = y->data + ((size_t)h * T + t) * hd;
            bl_sgemm(0, 1, 1, lim, hd, scale, qr, K, 0.0f, p);    /* scores = scale q K^T */
            float mx = p[0], sum = 0.0f;
            for (int j = 1; j < lim; j++) mx = p[j] > mx ? p[j] : mx;
            for (int j = 0; j < lim; j++) sum += (p[j] = expf(p[j] - mx));
            for (int j = 0; j < lim; j++) p[j] /= sum;
            bl_sgemm(0, 0, 1, hd, lim, 1.0f, p, V, 0.0f, out);    /* out = p V */
        }
    }
    return y;
}

/* Copy k, v [1, KVH, T, hd] into the cache of `layer` at positions pos0 .. pos0 + T - 1. */
static void cache_write(bl_model *m, int layer, const bl_tensor *k, const bl_tensor *v, int pos0)
{
    struct bl_gpt *s = m->gpt;
    int KVH = k->shape[1], T = k->shape[2], hd = k->shape[3];
    size_t lay = (size_t)layer * KVH * s->cache_cap * hd, row = (size_t)T * hd;
    for (int kh = 0; kh < KVH; kh++) {
        size_t dst = lay + ((size_t)kh * s->cache_cap + pos0) * hd;
        memcpy(s->kc + dst, k->data + kh * row, row * sizeof(float));
        memcpy(s->vc + dst, v->data + kh * row, row * sizeof(float));
    }
}

/* The network on ids (arena copy) [B, T] at positions pos0..; with `cached` (B = 1) the keys and
 * values go into the KV cache and attention reads the cache. Returns logits [B, T, V]. */
static bl_tensor *gpt_net(bl_model *m, const int *ids, int B, int T, int pos0, int cached)
{
    bl_graph *g = m->graph;
    struct bl_gpt *s = m->gpt;
    const bl_config *c = &m->cfg;
    int D = c->dim, hd = bl_config_head_dim(c);
    if (ensure_rope(m, pos0 + T) < 0 || ensure_positions(s, pos0 + T) < 0) return NULL;
    /* tok_emb = self.transformer.wte(idx); x = tok_emb + pos_emb */
    bl_tensor *x = bl_embedding(g, s->wte, ids, B * T);
    x = x ? bl_graph_view(g, x, 3, (int[]){B, T, D}) : NULL;
    if (x && s->wpe) {
        bl_tensor *pe = bl_embedding(g, s->wpe, s->pos_ids + pos0, T);
        x = pe ? bl_add(g, x, pe) : NULL;
    }
    x = bl_model_dropout(m, x, 0);      /* x = self.transformer.drop(tok_emb + pos_emb) */
    bl_tensor *cos = NULL, *sin = NULL;
    if (x && s->cos) {
        cos = bl_model_table_view(m, s->cos + (size_t)pos0 * hd, T, hd);
        sin = bl_model_table_view(m, s->sin + (size_t)pos0 * hd, T, hd);
        if (!cos || !sin) return NULL;
    }
    /* lean (an exam): no tape and nobody reads the layers' activations, so each block's are
     * released once the block is done; the residual stream alternates between two buffers made
     * before the first block. The peak is one block's activations instead of depth blocks'. */
    int lean = m->lean && !cached && !bl_graph_recording(g) && x;
    bl_tensor *carry[2] = {NULL, NULL};
    if (lean) {
        carry[0] = bl_graph_tensor(g, 3, x->shape, 0);
        carry[1] = carry[0] ? bl_graph_tensor(g, 3, x->shape, 0) : NULL;
        if (!carry[1]) return NULL;
    }
    bl_graph_mark mark = bl_graph_mark_now(g);
    for (int i = 0; i < c->depth && x; i++) {
        if (lean && i > 0) {
            bl_tensor *keep = carry[i % 2];
            memcpy(keep->data, x->data, x->numel * sizeof(float));
            if (bl_graph_release(g, mark) < 0) return NULL;
            m->attn[i - 1] = m->tap_in[i - 1] = m->tap_norm[i - 1] = NULL;
            m->tap_q[i - 1] = m->tap_k[i - 1] = m->tap_v[i - 1] = NULL;
            x = keep;
        }
        gpt_block *k = &s->blk[i];
        /* x = x + self.attn(self.ln_1(x)) */
        m->tap_in[i] = x;
        bl_tensor *n1 = bl_model_norm(m, x, &k->ln1);
        m->tap_norm[i] = n1;
        bl_tensor *a = NULL;
        if (n1 && !cached) {
            a = bl_model_attention(m, i, n1, &k->attn, cos, sin, 1, x);
        } else if (n1) {
            bl_tensor *q, *kk, *v, *y;
            if (bl_model_qkv(m, i, n1, &k->attn, cos, sin, &q, &kk, &v) < 0) return NULL;
            cache_write(m, i, kk, v, pos0);
            if (pos0 == 0) /* prefill: the fresh keys are the whole cache */
                y = bl_attention(g, q, kk, v, 1, NULL, 0.0f, m->keep_attn ? &m->attn[i] : NULL);
            else
                y = cached_attention(m, i, q, pos0);
            a = y ? bl_model_attn_proj(m, y, &k->attn, x) : NULL;
        }
        x = a;   /* x + attn: the residual add is fused into the output projection */
        /* x = x + self.mlp(self.ln_2(x)) */
        bl_tensor *n2 = x ? bl_model_norm(m, x, &k->ln2) : NULL;
        x = n2 ? bl_model_mlp(m, i, n2, &k->mlp, x) : NULL;   /* x + mlp(ln_2(x)) */
    }
    /* logits = self.lm_head(self.transformer.ln_f(x)), lm_head.weight = wte.weight */
    x = x ? bl_model_norm(m, x, &s->lnf) : NULL;
    return x ? bl_linear(g, x, s->wte, NULL) : NULL;
}

/* An arena copy of n ints (ops keep id pointers until backward). */
static int *arena_ints(bl_model *m, const int *src, size_t n)
{
    int *d = bl_graph_alloc(m->graph, n * sizeof(int));
    if (d && src) memcpy(d, src, n * sizeof(int));
    return d;
}

bl_tensor *bl_gpt_forward(bl_model *m, const int *ids, int B, int T, int record)
{
    if (check_gpt(m, "gpt") < 0 || check_window(m, "gpt", B, T, 0) < 0) return NULL;
    if (check_ids(m, "gpt", ids, (size_t)B * T, 0) < 0) return NULL;
    bl_model_begin(m, record);
    int *in = arena_ints(m, ids, (size_t)B * T);
    return in ? gpt_net(m, in, B, T, 0, 0) : NULL;
}

bl_tensor *bl_gpt_loss_targets(bl_model *m, const int *ids, const int *targets, int B, int T, int record)
{
    if (check_gpt(m, "gpt loss") < 0 || check_window(m, "gpt loss", B, T, 0) < 0) return NULL;
    if (check_ids(m, "gpt loss", ids, (size_t)B * T, 0) < 0 || check_ids(m, "gpt loss", targets, (size_t)B * T, 1) < 0)
        return NULL;
    bl_model_begin(m, record);
    int *in = arena_ints(m, ids, (size_t)B * T), *tg = arena_ints(m, targets, (size_t)B * T);
    bl_tensor *logits = in && tg ? gpt_net(m, in, B, T, 0, 0) : NULL;
    bl_tensor *flat = logits ? bl_graph_view(m->graph, logits, 2, (int[]){B * T, m->cfg.vocab}) : NULL;
    return flat ? bl_cross_entropy(m->graph, flat, tg) : NULL;
}

bl_tensor *bl_gpt_loss(bl_model *m, const int *tokens, int B, int T, int record)
{
    if (check_gpt(m, "gpt loss") < 0 || check_window(m, "gpt loss", B, T, 0) < 0) return NULL;
    if (check_ids(m, "gpt loss", tokens, (size_t)B * (T + 1), 1) < 0) return NULL;
    bl_model_begin(m, record);
    int *in = arena_ints(m, NULL, (size_t)B * T), *tg = arena_ints(m, NULL, (size_t)B * T);
    if (!in || !tg) return NULL;
    for (int b = 0; b < B; b++) {
        /* x = tokens[:, :-1], y = tokens[:, 1:] */
        memcpy(in + (size_t)b * T, tokens + (size_t)b * (T + 1), (size_t)T * sizeof(int));
        memcpy(tg + (size_t)b * T, tokens + (size_t)b * (T + 1) + 1, (size_t)T * sizeof(int));
    }
    for (int i = 0; i < B * T; i++)
        if (in[i] < 0) return BL_FAILP("gpt loss: input token -1 at index %d (only targets may be -1)", i);
    bl_tensor *logits = gpt_net(m, in, B, T, 0, 0);
    bl_tensor *flat = logits ? bl_graph_view(m->graph, logits, 2, (int[]){B * T, m->cfg.vocab}) : NULL;
    return flat ? bl_cross_entropy(m->graph, flat, tg) : NULL;
}

int bl_gpt_window_losses(bl_model *m, const int *tokens, int B, int L, float *loss)
{
    if (check_gpt(m, "position loss") < 0 || check_window(m, "position loss", B, L, 0) < 0) return -1;
    if (check_ids(m, "position loss", tokens, (size_t)B * (L + 1), 0) < 0) return -1;
    bl_model_begin(m, 0);
    int *in = arena_ints(m, NULL, (size_t)B * L);
    if (!in) return -1;
    for (int b = 0; b < B; b++) memcpy(in + (size_t)b * L, tokens + (size_t)b * (L + 1), (size_t)L * sizeof(int));
    bl_tensor *logits = gpt_net(m, in, B, L, 0, 0);
    if (!logits) return -1;
    int V = m->cfg.vocab;
    for (int b = 0; b < B; b++)
        for (int p = 0; p < L; p++) {
            /* cross-entropy = logsumexp(logits) - logits[target] */
            const float *l = logits->data + ((size_t)b * L + p) * V;
            float mx = l[0];
            for (int v = 1; v < V; v++) mx = l[v] > mx ? l[v] : mx;
            double se = 0.0;
            for (int v = 0; v < V; v++) se += exp((double)(l[v] - mx));
            loss[(size_t)b * L + p] = (float)(log(se) + mx - l[tokens[(size_t)b * (L + 1) + p + 1]]);
        }
    return 0;
}

int bl_gpt_position_loss(bl_model *m, const int *tokens, int B, int L, float *loss)
{
    float *all = B > 0 && L > 0 ? malloc((size_t)B * (size_t)L * sizeof *all) : NULL;
    if (B > 0 && L > 0 && !all) return bl_fail("position loss: out of memory");
    int rc = bl_gpt_window_losses(m, tokens, B, L, all);
    for (int p = 0; rc == 0 && p < L; p++) {
        double sum = 0.0;
        for (int b = 0; b < B; b++) sum += all[(size_t)b * L + p];
        loss[p] = (float)(sum / B);
    }
    free(all);
    return rc;
}

bl_gen_opts bl_gen_opts_default(void)
{
    return (bl_gen_opts){.max_new_tokens = 200, .temperature = 1.0f, .top_k = 0, .seed = 0,
                         .use_cache = 1, .sliding_window = 0};
}

/* The next token from logits [V] (nanoGPT generate): temperature 0 is argmax (first maximum);
 * otherwise logits / temperature, keep the top_k largest (ties with the k-th kept), softmax,
 * one uniform draw. buf, tmp: V floats of scratch. */
static int pick_token(const float *logits, int V, float temperature, int top_k, bl_rng *r, float *buf,
                      float *tmp)
{
    if (temperature == 0.0f) {
        int best = 0;
        for (int v = 1; v < V; v++)
            if (logits[v] > logits[best]) best = v;
        return best;
    }
    for (int v = 0; v < V; v++) buf[v] = logits[v] / temperature;
    if (top_k > 0 && top_k < V) {
        /* v = torch.topk(logits, k)[-1]; logits[logits < v] = -inf: the k-th largest by a
         * partial selection sort on a copy (V is a character vocabulary) */
        memcpy(tmp, buf, (size_t)V * sizeof(float));
        for (int i = 0; i < top_k; i++) {
            int mi = i;
            for (int j = i + 1; j < V; j++)
                if (tmp[j] > tmp[mi]) mi = j;
            float t = tmp[i];
            tmp[i] = tmp[mi];
            tmp[mi] = t;
        }
        float kth = tmp[top_k - 1];
        for (int v = 0; v < V; v++)
            if (buf[v] < kth) buf[v] = -INFINITY;
    }
    float mx = -INFINITY;
    for (int v = 0; v < V; v++) mx = buf[v] > mx ? buf[v] : mx;
    double sum = 0.0;
    for (int v = 0; v < V; v++) sum += (buf[v] = expf(buf[v] - mx));
    double u = bl_rng_uniform(r) * sum, acc = 0.0;
    int last = 0;
    for (int v = 0; v < V; v++) {
        if (buf[v] <= 0.0f) continue;
        acc += buf[v];
        last = v;
        if (u < acc) return v;
    }
    return last;
}

/* Make the KV cache hold n positions. */
static int ensure_cache(bl_model *m, int n)
{
    struct bl_gpt *s = m->gpt;
    if (n <= s->cache_cap) return 0;
    size_t sz = (size_t)m->cfg.depth * bl_config_kv_heads(&m->cfg) * n * bl_config_head_dim(&m->cfg);
    free(s->kc);
    free(s->vc);
    s->kc = malloc(sz * sizeof(float));
    s->vc = malloc(sz * sizeof(float));
    s->cache_cap = 0;
    if (!s->kc || !s->vc) return bl_fail("generate: out of memory for a KV cache of %d positions", n);
    s->cache_cap = n;
    return 0;
}

int bl_gpt_generate(bl_model *m, const int *prompt, int n_prompt, const bl_gen_opts *o, int *out)
{
    if (check_gpt(m, "generate") < 0) return -1;
    const bl_config *c = &m->cfg;
    if (n_prompt < 1) return bl_fail("generate: the prompt is empty (give at least one token)");
    if (o->max_new_tokens < 0 || o->max_new_tokens > 1000000)
        return bl_fail("generate: max_new_tokens must be 0..1000000, got %d", o->max_new_tokens);
    if (!(o->temperature >= 0.0f) || !isfinite(o->temperature))
        return bl_fail("generate: temperature must be >= 0 (0 = greedy), got %g", o->temperature);
    if (o->top_k < 0) return bl_fail("generate: top_k must be >= 0 (0 = all), got %d", o->top_k);
    if (check_ids(m, "generate: prompt", prompt, (size_t)n_prompt, 0) < 0) return -1;
    int total = n_prompt + o->max_new_tokens;
    int learned = bl_config_pos(c)->learned;
    if (learned && !o->sliding_window && total - 1 > c->context)
        return bl_fail("generate: pos=%s has positions for %d tokens but %d were asked (prompt %d + %d "
                       "new); use pos=%s to run past the context (or a sliding window)", bl_config_pos(c)->name,
                       c->context, total - 1, n_prompt, o->max_new_tokens, bl_pos_unbounded(c->kind));
    int V = c->vocab;
    float *buf = malloc((size_t)2 * V * sizeof(float));
    if (!buf) return bl_fail("generate: out of memory");
    memcpy(out, prompt, (size_t)n_prompt * sizeof(int));
    bl_rng r;
    bl_rng_named(&r, o->seed, "generate");
    int len = n_prompt, cached = 0, rc = 0;
    int cache_cap = learned && total - 1 > c->context ? c->context : total;
    if (o->use_cache && ensure_cache(m, cache_cap) < 0) rc = -1;
    while (rc == 0 && len < total) {
        if (m->interrupted && m->interrupted()) break;   /* keep what was made so far */
        bl_tensor *logits;
        int start = 0, T;
        if (learned && len > c->context) {            /* sliding window: idx[:, -block_size:] */
            start = len - c->context;
            cached = 0;
        }
        bl_model_begin(m, 0);
        if (o->use_cache && start == 0) {                 /* feed only what the cache lacks */
            T = len - cached;
            int *ids = arena_ints(m, out + cached, (size_t)T);
            logits = ids ? gpt_net(m, ids, 1, T, cached, 1) : NULL;
            cached = len;
        } else {                                          /* recompute the whole window */
            T = len - start;
            int *ids = arena_ints(m, out + start, (size_t)T);
            logits = ids ? gpt_net(m, ids, 1, T, 0, 0) : NULL;
        }
        if (!logits) {
            bl_error_prefix("generate");
            rc = -1;
            break;
        }
        out[len++] = pick_token(logits->data + (size_t)(T - 1) * V, V, o->temperature, o->top_k, &r, buf,
                                buf + V);
    }
    free(buf);
    return rc < 0 ? -1 : len;
}
