/* model.c - building, rebuilding and freeing models; forward pieces both models share. */
#include "models/model_internal.h"
#include "core/rng.h"
#include "core/error.h"
#include "core/ops.h"
#include "nn/nn.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building ---- */

static void build_vparam(bl_builder *b, bl_tensor **slot, int ndim, const int *shape,
                         bl_init_kind init, float a, const char *fmt, va_list ap)
{
    if (b->failed) return;
    char name[BL_PARAM_NAME_MAX];
    vsnprintf(name, sizeof name, fmt, ap);
    int i = bl_params_declare(b->p, name, ndim, shape, init, a);
    if (i < 0) { b->failed = 1; return; }
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 128;
        bl_tensor ***s = realloc(b->slot, (size_t)cap * sizeof *s);
        int *idx = s ? realloc(b->idx, (size_t)cap * sizeof *idx) : NULL;
        if (s) b->slot = s;
        if (!s || !idx) { bl_fail("model: out of memory"); b->failed = 1; return; }
        b->idx = idx;
        b->cap = cap;
    }
    b->slot[b->n] = slot;
    b->idx[b->n++] = i;
}

void bl_build_param(bl_builder *b, bl_tensor **slot, int ndim, const int *shape, bl_init_kind init,
                    float a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    build_vparam(b, slot, ndim, shape, init, a, fmt, ap);
    va_end(ap);
}

void bl_build_linear(bl_builder *b, bl_tensor **w, bl_tensor **bias, int in, int out, int zero,
                     const char *fmt, ...)
{
    char prefix[BL_PARAM_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* nn.Linear: weight U(-1/sqrt(in), 1/sqrt(in)); bias 0 (DESIGN.md 4) */
    bl_build_param(b, w, 2, (int[]){out, in}, zero ? BL_INIT_ZERO : BL_INIT_UNIFORM,
                   1.0f / sqrtf((float)in), "%s.weight", prefix);
    if (bias) bl_build_param(b, bias, 1, (int[]){out}, BL_INIT_ZERO, 0.0f, "%s.bias", prefix);
}

void bl_build_norm(bl_builder *b, bl_norm_params *p, const bl_config *c, int D, unsigned affine,
                   const char *fmt, ...)
{
    char prefix[BL_PARAM_NAME_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    const bl_norm_def *nd = &bl_norm_defs[c->norm];
    unsigned has = nd->has & (affine | BL_NORM_ALPHA);
    *p = (bl_norm_params){0};
    /* nn.LayerNorm / RMSNorm: weight 1, bias 0 (DESIGN.md 4) */
    if (has & BL_NORM_WEIGHT) bl_build_param(b, &p->weight, 1, (int[]){D}, BL_INIT_ONE, 0, "%s.weight", prefix);
    if (has & BL_NORM_BIAS) bl_build_param(b, &p->bias, 1, (int[]){D}, BL_INIT_ZERO, 0, "%s.bias", prefix);
    if (has & BL_NORM_ALPHA)
        bl_build_param(b, &p->alpha, 1, (int[]){1}, BL_INIT_CONST, nd->alpha_init, "%s.alpha", prefix);
}

void bl_build_attention(bl_builder *b, bl_attn_params *a, const bl_config *c, const char *prefix,
                        const char *qkv_name, const char *proj_name, int bias)
{
    int D = c->dim, hd = bl_config_head_dim(c), kvh = bl_config_kv_heads(c);
    memset(a, 0, sizeof *a);
    /* q heads, then k heads, then v heads: D + 2 KVH hd rows */
    bl_build_linear(b, &a->qkv_w, bias ? &a->qkv_b : NULL, D, D + 2 * kvh * hd, 0, "%s.%s", prefix,
                    qkv_name);
    if (c->qk_norm) {
        bl_build_param(b, &a->q_norm, 1, (int[]){hd}, BL_INIT_ONE, 0, "%s.q_norm.weight", prefix);
        bl_build_param(b, &a->k_norm, 1, (int[]){hd}, BL_INIT_ONE, 0, "%s.k_norm.weight", prefix);
    }
    bl_build_linear(b, &a->proj_w, bias ? &a->proj_b : NULL, D, D, 0, "%s.%s", prefix, proj_name);
}

void bl_build_mlp(bl_builder *b, bl_mlp_params *f, const bl_config *c, const char *prefix,
                  const char *fc1_name, const char *fc2_name, int bias)
{
    const bl_mlp_def *d = &bl_mlp_defs[c->mlp];
    const char *own[2] = {fc1_name, fc2_name};
    int D = c->dim, hid = bl_config_mlp_hidden(c);
    memset(f, 0, sizeof *f);
    for (int i = 0; i < d->nproj; i++) {   /* the input projections D -> hid, then the output hid -> D */
        int out = i == d->nproj - 1;
        bl_build_linear(b, &f->w[i], bias ? &f->b[i] : NULL, out ? hid : D, out ? D : hid, 0, "%s.%s", prefix,
                        d->proj[i] ? d->proj[i] : own[out]);
    }
}

static void free_state(bl_model *m)
{
    if (m->dit) bl_dit_free(m);
    if (m->gpt) bl_gpt_free(m);
    bl_params_free(m->params);
    bl_graph_free(m->graph);
}

bl_model *bl_model_new(const bl_config *cfg)
{
    if (bl_config_check(cfg) < 0) return NULL;
    bl_model *m = calloc(1, sizeof *m);
    if (!m) return BL_FAILP("model: out of memory");
    m->kind = cfg->kind;
    m->cfg = *cfg;
    m->keep_attn = 1;
    m->drop_mode = -1;
    bl_builder b = {0};
    m->params = bl_params_new();
    m->graph = bl_graph_new();
    int rc = m->params && m->graph ? 0 : -1;
    if (rc == 0) {
        bl_graph_set_transient_grads(m->graph, 1);   /* nobody reads an activation's grad */
        b.p = m->params;
        rc = bl_kind_of(cfg->kind)->declare(m, &b);
        if (b.failed) rc = -1;
    }
    if (rc == 0) rc = bl_params_finish(m->params, cfg->seed);
    if (rc == 0) {
        for (int i = 0; i < b.n; i++) *b.slot[i] = &m->params->t[b.idx[i]];
        rc = bl_kind_of(cfg->kind)->setup(m);
    }
    free(b.slot);
    free(b.idx);
    if (rc < 0) {
        free_state(m);
        free(m);
        return NULL;
    }
    return m;
}

void bl_model_free(bl_model *m)
{
    if (!m) return;
    free_state(m);
    free(m);
}

int bl_model_rebuild(bl_model *m, const bl_config *cfg)
{
    bl_model *n = bl_model_new(cfg);
    if (!n) return -1;
    free_state(m);
    int keep = m->keep_attn;
    int (*interrupted)(void) = m->interrupted;
    unsigned version = m->version;
    *m = *n;
    m->version = version + 1;   /* new weights: values computed from the old ones are stale */
    m->keep_attn = keep;
    m->interrupted = interrupted;
    free(n);
    return 0;
}

int bl_model_set(bl_model *m, const char *key, const char *value, int *rebuilt)
{
    if (rebuilt) *rebuilt = 0;
    bl_config c = m->cfg;
    if (bl_config_set(&c, key, value) < 0) return -1;
    if (bl_config_needs_rebuild(key)) {
        if (bl_model_rebuild(m, &c) < 0) return -1;
        if (rebuilt) *rebuilt = 1;
        return 0;
    }
    bl_config old = m->cfg;
    m->cfg = c;
    /* in-place keys: only rope_base changes derived state (the RoPE tables) */
    if (c.rope_base != old.rope_base) {
        int rc = bl_kind_of(m->kind)->setup(m);
        if (rc < 0) {
            m->cfg = old;
            return -1;
        }
        m->version++;   /* new tables: a forward before them is stale */
    }
    return 0;
}

size_t bl_model_param_count(const bl_model *m) { return m->params->total; }

/* ---- forward pieces ---- */

void bl_model_forget_taps(bl_model *m)
{
    memset(m->attn, 0, sizeof m->attn);
    memset(m->tap_in, 0, sizeof m->tap_in);
    memset(m->tap_norm, 0, sizeof m->tap_norm);
    memset(m->tap_q, 0, sizeof m->tap_q);
    memset(m->tap_k, 0, sizeof m->tap_k);
    memset(m->tap_v, 0, sizeof m->tap_v);
}

void bl_model_begin(bl_model *m, int record)
{
    bl_graph_reset(m->graph);
    bl_graph_set_record(m->graph, record);
    bl_model_forget_taps(m);
}

bl_tensor *bl_model_norm(bl_model *m, bl_tensor *x, const bl_norm_params *p)
{
    return bl_norm_defs[m->cfg.norm].norm(m->graph, x, p, bl_config_eps(&m->cfg));
}

bl_tensor *bl_model_norm_modulate(bl_model *m, bl_tensor *x, const bl_norm_params *p, bl_tensor *shift,
                                  bl_tensor *scale, bl_tensor **tap)
{
    return bl_norm_defs[m->cfg.norm].modulate(m->graph, x, p, shift, scale, bl_config_eps(&m->cfg), tap);
}

/* QK-norm is an RMSNorm: eps 1e-6 (DESIGN.md 2) unless the user set eps. */
static float qk_eps(const bl_config *c) { return c->eps > 0 ? c->eps : 1e-6f; }

/* The fused projection with q = rope(q_norm(q)), k = rope(k_norm(k)) applied on its heads in
 * place (bl_qkv_prepare: the reference's order, q_norm after the head split and before RoPE):
 * [B, T, (H + 2 KVH) hd]. Training and inspection both take this one path. */
static bl_tensor *qkv_prepared(bl_model *m, bl_tensor *x, const bl_attn_params *a,
                               const bl_tensor *cos, const bl_tensor *sin)
{
    int H = m->cfg.heads, KVH = bl_config_kv_heads(&m->cfg);
    bl_tensor *qkv = bl_linear(m->graph, x, a->qkv_w, a->qkv_b);
    if (qkv && (a->q_norm || cos))
        qkv = bl_qkv_prepare(m->graph, qkv, H, KVH, a->q_norm, a->k_norm, qk_eps(&m->cfg), cos, sin);
    return qkv;
}

/* The heads of a prepared projection as q, k, v [B, heads, T, hd], kept as the layer's taps. */
static int split_taps(bl_model *m, int layer, bl_tensor *qkv, bl_tensor **q, bl_tensor **k,
                      bl_tensor **v)
{
    int H = m->cfg.heads, KVH = bl_config_kv_heads(&m->cfg);
    if (!qkv || bl_split_heads(m->graph, qkv, H, KVH, q, k, v) < 0) return -1;
    m->tap_q[layer] = *q;
    m->tap_k[layer] = *k;
    m->tap_v[layer] = *v;
    return 0;
}

int bl_model_qkv(bl_model *m, int layer, bl_tensor *x, const bl_attn_params *a,
                 const bl_tensor *cos, const bl_tensor *sin, bl_tensor **q, bl_tensor **k,
                 bl_tensor **v)
{
    return split_taps(m, layer, qkv_prepared(m, x, a, cos, sin), q, k, v);
}

/* The attention's output projection, added to the residual r when r != NULL (one op). */
static bl_tensor *attn_out(bl_model *m, bl_tensor *y, const bl_attn_params *a, bl_tensor *r)
{
    return r ? bl_linear_add(m->graph, y, a->proj_w, a->proj_b, r)
             : bl_linear(m->graph, y, a->proj_w, a->proj_b);
}

bl_tensor *bl_model_attn_proj(bl_model *m, bl_tensor *y, const bl_attn_params *a, bl_tensor *r)
{
    y = bl_merge_heads(m->graph, y);
    return y ? attn_out(m, y, a, r) : NULL;
}

/* The dropout probability of this forward: cfg.dropout when it records, else 0. */
static float drop_p(const bl_model *m)
{
    int on = m->drop_mode >= 0 ? m->drop_mode : bl_graph_recording(m->graph);
    return on ? m->cfg.dropout : 0.0f;
}

static uint64_t drop_key(const bl_model *m, int site)
{
    return bl_dropout_key(m->cfg.seed, m->dropout_step, (uint64_t)site);
}

bl_tensor *bl_model_dropout(bl_model *m, bl_tensor *x, int site)
{
    float p = drop_p(m);
    return x && p > 0.0f ? bl_dropout(m->graph, x, p, drop_key(m, site)) : x;
}

/* r + dropout(h W^T + b) with the dropout of `site` (one op: neither the projection nor its
 * dropped copy is kept); dropout(h W^T + b) when r is NULL. */
static bl_tensor *proj_dropout_add(bl_model *m, bl_tensor *h, bl_tensor *w, bl_tensor *b, bl_tensor *r,
                                   int site)
{
    if (!r) return bl_model_dropout(m, bl_linear(m->graph, h, w, b), site);
    return bl_linear_dropout_add(m->graph, h, w, b, r, drop_p(m), drop_key(m, site));
}

bl_tensor *bl_model_attention(bl_model *m, int layer, bl_tensor *x, const bl_attn_params *a,
                              const bl_tensor *cos, const bl_tensor *sin, int causal, bl_tensor *r)
{
    bl_graph *g = m->graph;
    /* a training step keeps P only for a reader (dash): backward makes it again, which saves
     * its [B, H, T, T] per layer */
    int keep = m->keep_attn && !(m->training && bl_graph_recording(g) && !m->watch_attn);
    bl_tensor **probs = keep ? &m->attn[layer] : NULL;
    int H = m->cfg.heads, KVH = bl_config_kv_heads(&m->cfg);
    int inspect = (!bl_graph_recording(g) && !m->lean) || m->keep_taps;   /* the views read q, k, v */
    float p = inspect && m->drop_mode < 0 ? 0.0f : drop_p(m);
    /* one path for training and inspection: qk_norm, RoPE and attention straight on the fused
     * projection (no merge copy); the taps split the heads off the same prepared projection
     * that the attention reads */
    bl_tensor *qkv = qkv_prepared(m, x, a, cos, sin), *q, *k, *v;
    if (qkv && inspect && split_taps(m, layer, qkv, &q, &k, &v) < 0) return NULL;
    bl_tensor *y = qkv ? bl_attention_qkv_dropout(g, qkv, H, KVH, causal, NULL, 0.0f, probs, p,
                                                  p > 0.0f ? drop_key(m, 1 + 3 * layer) : 0)
                       : NULL;
    if (p > 0.0f) /* training with dropout: r + resid_dropout(proj(attn_dropout(P) v)) */
        return y ? proj_dropout_add(m, y, a->proj_w, a->proj_b, r, 2 + 3 * layer) : NULL;
    return y ? attn_out(m, y, a, r) : NULL;
}

bl_tensor *bl_model_mlp(bl_model *m, int layer, bl_tensor *x, const bl_mlp_params *f, bl_tensor *r)
{
    const bl_mlp_def *d = &bl_mlp_defs[m->cfg.mlp];
    float p = drop_p(m);
    if (p > 0.0f && r) /* r + dropout(mlp(x)): the output projection, dropout and add fused */
        return d->ffn_dropout_add(m->graph, x, f->w, f->b, r, p, drop_key(m, 3 + 3 * layer));
    if (p > 0.0f) /* dropout(mlp(x)) */
        return bl_model_dropout(m, d->ffn(m->graph, x, f->w, f->b, NULL), 3 + 3 * layer);
    return d->ffn(m->graph, x, f->w, f->b, r);   /* + r fused into the output projection */
}

bl_tensor *bl_model_table_view(bl_model *m, float *data, int rows, int cols)
{
    bl_tensor *t = bl_graph_alloc(m->graph, sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->data = data;
    t->ndim = 2;
    t->shape[0] = rows;
    t->shape[1] = cols;
    t->numel = (size_t)rows * cols;
    return t;
}
