/* tinydit.c - TinyDiT: parameters, forward pass, flow-matching loss, Euler sampler.
 *
 * Mirrors facebookresearch/DiT models.py (DiT, DiTBlock, FinalLayer, TimestepEmbedder) without
 * the class embedder and without the gates (our adaLN gives [shift, scale] pairs only, DESIGN.md
 * section 1), and with the blocklab switches.
 *
 * Initialisation (DESIGN.md 4, "or the DiT schemes where stated"): every Linear and the patch
 * conv start as PyTorch does, weight ~ U(+-1/sqrt(fan_in)) with fan_in = in_features (C p p for
 * the conv), biases 0; the learned position tables N(0, 0.02); and, following DiT's
 * initialize_weights ("adaLN-Zero"), every adaLN_modulation layer and final_layer.linear start at
 * zero. So at step 0 each modulation is the identity (shift 0, scale 0) and the model predicts
 * v = 0 (loss = E|e - x0|^2); the zero final layer still gets a gradient from its non-zero input
 * at the first step, after which the whole network learns (tests/unit/test_dit.c overfits a batch).
 * This is the scheme DiT found to train best; it also keeps early training stable at lr 3e-4.
 */
#include "models/tinydit.h"
#include "models/model_internal.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIT_TFEAT 256   /* frequency_embedding_size of DiT's TimestepEmbedder */
#define DIT_SAMPLE_CHUNK 64

typedef struct dit_block {
    bl_tensor *ada_w, *ada_b;   /* blocks.i.adaLN_modulation.1 [4D, D] */
    bl_norm_params norm1, norm2;   /* no affine (bl_build_norm); only a norm's own scalars */
    bl_attn_params attn;
    bl_mlp_params mlp;
} dit_block;

struct bl_dit {
    bl_tensor *xe_w, *xe_b;         /* x_embedder.proj [D, C, p, p], [D] */
    bl_tensor *pos_row, *pos_col;   /* pos_embed.row/col [grid, D] (pos=learned) */
    bl_tensor *t0_w, *t0_b, *t2_w, *t2_b;   /* t_embedder.mlp.0 [D, 256], .2 [D, D] */
    dit_block blk[BL_MAX_DEPTH];
    bl_tensor *fada_w, *fada_b;     /* final_layer.adaLN_modulation.1 [2D, D] */
    bl_norm_params norm_final;      /* final_layer.norm_final, no affine */
    bl_tensor *flin_w, *flin_b;     /* final_layer.linear [p p C, D] */
    int grid;
    float *cos, *sin;               /* rope2d tables [grid^2, hd] */
};

int bl_dit_declare(bl_model *m, bl_builder *b)
{
    const bl_config *c = &m->cfg;
    struct bl_dit *d = calloc(1, sizeof *d);
    if (!d) return bl_fail("dit: out of memory");
    m->dit = d;
    int D = c->dim, C = c->channels, p = c->patch;
    d->grid = c->image_size / p;

    /* self.x_embedder = PatchEmbed(input_size, patch_size, in_channels, hidden_size, bias=True) */
    bl_build_param(b, &d->xe_w, 4, (int[]){D, C, p, p}, BL_INIT_UNIFORM, 1.0f / sqrtf((float)(C * p * p)),
                   "x_embedder.proj.weight");
    bl_build_param(b, &d->xe_b, 1, (int[]){D}, BL_INIT_ZERO, 0, "x_embedder.proj.bias");
    if (bl_config_pos(c)->learned) {
        bl_build_param(b, &d->pos_row, 2, (int[]){d->grid, D}, BL_INIT_NORMAL, 0.02f, "pos_embed.row");
        bl_build_param(b, &d->pos_col, 2, (int[]){d->grid, D}, BL_INIT_NORMAL, 0.02f, "pos_embed.col");
    }
    /* self.t_embedder = TimestepEmbedder(hidden_size): Linear(256, D), SiLU, Linear(D, D) */
    bl_build_linear(b, &d->t0_w, &d->t0_b, DIT_TFEAT, D, 0, "t_embedder.mlp.0");
    bl_build_linear(b, &d->t2_w, &d->t2_b, D, D, 0, "t_embedder.mlp.2");
    for (int i = 0; i < c->depth; i++) {
        char attn[32], mlp[32];
        snprintf(attn, sizeof attn, "blocks.%d.attn", i);
        snprintf(mlp, sizeof mlp, "blocks.%d.mlp", i);
        dit_block *k = &d->blk[i];
        /* DiTBlock: norm1, attn, norm2, mlp, adaLN_modulation (registration order) */
        /* nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6): no affine parameters */
        bl_build_norm(b, &k->norm1, c, D, 0, "blocks.%d.norm1", i);
        bl_build_attention(b, &k->attn, c, attn, "qkv", "proj", 1);
        bl_build_norm(b, &k->norm2, c, D, 0, "blocks.%d.norm2", i);
        bl_build_mlp(b, &k->mlp, c, mlp, "fc1", "fc2", 1);
        bl_build_linear(b, &k->ada_w, &k->ada_b, D, 4 * D, 1, "blocks.%d.adaLN_modulation.1", i);
    }
    /* FinalLayer: norm_final (no affine), linear, adaLN_modulation */
    bl_build_norm(b, &d->norm_final, c, D, 0, "final_layer.norm_final");
    bl_build_linear(b, &d->flin_w, &d->flin_b, D, p * p * C, 1, "final_layer.linear");
    bl_build_linear(b, &d->fada_w, &d->fada_b, D, 2 * D, 1, "final_layer.adaLN_modulation.1");
    return 0;
}

int bl_dit_setup(bl_model *m)
{
    struct bl_dit *d = m->dit;
    const bl_config *c = &m->cfg;
    free(d->cos);
    free(d->sin);
    d->cos = d->sin = NULL;
    const bl_pos_def *pd = bl_config_pos(c);
    if (!pd->rope_axes) return 0;
    if (pd->rope_axes != 2) return bl_fail("dit: pos=%s: TinyDiT makes RoPE tables over rows and columns only", pd->name);
    int T = d->grid * d->grid, hd = bl_config_head_dim(c);
    d->cos = malloc((size_t)T * hd * sizeof(float));
    d->sin = malloc((size_t)T * hd * sizeof(float));
    if (!d->cos || !d->sin) return bl_fail("dit: out of memory for the %s tables", pd->name);
    return bl_rope_table_2d(d->grid, d->grid, 0, hd, c->rope_base, d->cos, d->sin);
}

void bl_dit_free(bl_model *m)
{
    if (!m->dit) return;
    free(m->dit->cos);
    free(m->dit->sin);
    free(m->dit);
    m->dit = NULL;
}

static int check_images(const bl_model *m, const char *what, const bl_tensor *x)
{
    const bl_config *c = &m->cfg;
    if (m->kind != BL_MODEL_DIT || !m->dit) return bl_fail("%s: the model is not a TinyDiT", what);
    if (!x || x->ndim != 4 || x->shape[1] != c->channels || x->shape[2] != c->image_size ||
        x->shape[3] != c->image_size) {
        char buf[48] = "NULL";
        if (x) bl_shape_str(x, buf, sizeof buf);
        return bl_fail("%s: expected images [B, %d, %d, %d], got %s", what, c->channels, c->image_size,
                       c->image_size, buf);
    }
    return 0;
}

/* [shift, scale, ...] = mod.chunk(n, dim=1): part j of mod [B, n D]. */
static bl_tensor *chunk(bl_model *m, bl_tensor *mod, int j)
{
    return bl_slice_last(m->graph, mod, j * m->cfg.dim, m->cfg.dim);
}

/* One DiTBlock on x [B, T, D] with sc = SiLU(c) [B, D]. */
static bl_tensor *dit_block_forward(bl_model *m, int i, bl_tensor *x, bl_tensor *sc,
                                    const bl_tensor *cos, const bl_tensor *sin)
{
    bl_graph *g = m->graph;
    dit_block *k = &m->dit->blk[i];
    /* shift_msa, scale_msa, shift_mlp, scale_mlp = self.adaLN_modulation(c).chunk(4, dim=1) */
    bl_tensor *mod = bl_linear(g, sc, k->ada_w, k->ada_b);
    if (!mod) return NULL;
    bl_tensor *sh1 = chunk(m, mod, 0), *sc1 = chunk(m, mod, 1);
    bl_tensor *sh2 = chunk(m, mod, 2), *sc2 = chunk(m, mod, 3);
    if (!sh1 || !sc1 || !sh2 || !sc2) return NULL;
    /* x = x + self.attn(modulate(self.norm1(x), shift_msa, scale_msa)) */
    m->tap_in[i] = x;
    bl_tensor *a = bl_model_norm_modulate(m, x, &k->norm1, sh1, sc1, &m->tap_norm[i]);
    bl_tensor *h = a ? bl_model_attention(m, i, a, &k->attn, cos, sin, 0, x) : NULL;
    /* x = x + self.mlp(modulate(self.norm2(x), shift_mlp, scale_mlp)) */
    bl_tensor *f = h ? bl_model_norm_modulate(m, h, &k->norm2, sh2, sc2, NULL) : NULL;
    return f ? bl_model_mlp(m, i, f, &k->mlp, h) : NULL;
}

/* The network on x [B, C, H, W] (no reset, no checks). */
static bl_tensor *dit_net(bl_model *m, bl_tensor *x, const float *t)
{
    bl_graph *g = m->graph;
    struct bl_dit *d = m->dit;
    const bl_config *c = &m->cfg;
    int B = x->shape[0], T = d->grid * d->grid;
    /* x = self.x_embedder(x) + pos_embed */
    bl_tensor *h = bl_patch_embed(g, x, d->xe_w, d->xe_b, c->patch);
    if (h && d->pos_row) h = bl_pos2d_add(g, h, d->pos_row, d->pos_col);
    /* c = self.t_embedder(t): sinusoidal features of 1000 t -> Linear -> SiLU -> Linear */
    bl_tensor *tf = bl_graph_tensor(g, 2, (int[]){B, DIT_TFEAT}, 0);
    if (!h || !tf) return NULL;
    bl_timestep_features(t, B, DIT_TFEAT, tf->data);
    bl_tensor *cv = bl_linear(g, tf, d->t0_w, d->t0_b);
    cv = cv ? bl_silu(g, cv) : NULL;
    cv = cv ? bl_linear(g, cv, d->t2_w, d->t2_b) : NULL;
    /* every adaLN_modulation starts with nn.SiLU(): computed once, shared by all of them */
    bl_tensor *sc = cv ? bl_silu(g, cv) : NULL;
    if (!sc) return NULL;
    bl_tensor *cos = NULL, *sin = NULL;
    if (d->cos) {
        int hd = bl_config_head_dim(c);
        cos = bl_model_table_view(m, d->cos, T, hd);
        sin = bl_model_table_view(m, d->sin, T, hd);
        if (!cos || !sin) return NULL;
    }
    for (int i = 0; i < c->depth && h; i++) h = dit_block_forward(m, i, h, sc, cos, sin);
    if (!h) return NULL;
    /* FinalLayer: shift, scale = adaLN_modulation(c).chunk(2); linear(modulate(norm_final(x))) */
    bl_tensor *mod = bl_linear(g, sc, d->fada_w, d->fada_b);
    bl_tensor *sh = mod ? chunk(m, mod, 0) : NULL, *scl = mod ? chunk(m, mod, 1) : NULL;
    bl_tensor *y = sh && scl ? bl_model_norm_modulate(m, h, &d->norm_final, sh, scl, NULL) : NULL;
    y = y ? bl_linear(g, y, d->flin_w, d->flin_b) : NULL;
    /* x = self.unpatchify(x) */
    return y ? bl_unpatchify(g, y, c->channels, c->image_size, c->image_size, c->patch) : NULL;
}

bl_tensor *bl_dit_forward(bl_model *m, const bl_tensor *x, const float *t, int record)
{
    if (check_images(m, "dit", x) < 0) return NULL;
    if (!t) return BL_FAILP("dit: no timesteps given");
    bl_model_begin(m, record);
    /* the patch embedding's backward reads x: a recording forward keeps its own copy */
    bl_tensor *xin = record ? bl_graph_input(m->graph, x, 0) : (bl_tensor *)x;
    return xin ? dit_net(m, xin, t) : NULL;
}

bl_tensor *bl_dit_forward_input_grad(bl_model *m, const bl_tensor *x, const float *t, bl_tensor **x_in)
{
    *x_in = NULL;
    if (check_images(m, "dit", x) < 0) return NULL;
    if (!t) return BL_FAILP("dit: no timesteps given");
    bl_model_begin(m, 1);
    *x_in = bl_graph_input(m->graph, x, 1);
    return *x_in ? dit_net(m, *x_in, t) : NULL;
}

bl_tensor *bl_dit_loss(bl_model *m, const bl_tensor *x0, const bl_tensor *noise, const float *t,
                       int record)
{
    if (check_images(m, "dit loss", x0) < 0) return NULL;
    if (!noise || !bl_same_shape(x0, noise)) {
        char a[48], b[48] = "NULL";
        if (noise) bl_shape_str(noise, b, sizeof b);
        return BL_FAILP("dit loss: noise %s does not match x0 %s", b, bl_shape_str(x0, a, sizeof a));
    }
    if (!t) return BL_FAILP("dit loss: no timesteps given");
    int B = x0->shape[0];
    for (int b = 0; b < B; b++)
        if (!(t[b] >= 0.0f && t[b] <= 1.0f)) return BL_FAILP("dit loss: t[%d] = %g is outside [0, 1]", b, t[b]);
    bl_model_begin(m, record);
    bl_graph *g = m->graph;
    bl_tensor *xt = bl_graph_tensor(g, 4, x0->shape, 0);
    bl_tensor *target = bl_graph_tensor(g, 4, x0->shape, 0);
    if (!xt || !target) return NULL;
    size_t per = x0->numel / (size_t)B;
    for (int b = 0; b < B; b++) {
        /* x_t = (1 - t) x0 + t e;  v = e - x0 */
        const float tb = t[b], *x = x0->data + b * per, *e = noise->data + b * per;
        float *o = xt->data + b * per, *v = target->data + b * per;
        for (size_t i = 0; i < per; i++) {
            o[i] = (1.0f - tb) * x[i] + tb * e[i];
            v[i] = e[i] - x[i];
        }
    }
    bl_tensor *pred = dit_net(m, xt, t);
    return pred ? bl_mse(g, pred, target) : NULL;
}

bl_tensor *bl_dit_sample(bl_model *m, int n, int steps, uint64_t seed)
{
    if (m->kind != BL_MODEL_DIT || !m->dit) return BL_FAILP("sample: the model is not a TinyDiT");
    if (n < 1 || n > 65536) return BL_FAILP("sample: number of images must be 1..65536, got %d", n);
    if (steps < 1 || steps > 100000) return BL_FAILP("sample: steps must be 1..100000, got %d", steps);
    const bl_config *c = &m->cfg;
    bl_tensor *out = bl_tensor_new4(n, c->channels, c->image_size, c->image_size);
    if (!out) return NULL;
    bl_rng r;
    bl_rng_named(&r, seed, "sample");
    bl_rng_fill_normal(&r, out->data, out->numel, 0.0f, 1.0f);   /* x_1 = e ~ N(0, I) */
    size_t per = out->numel / (size_t)n;
    float tv[DIT_SAMPLE_CHUNK];
    const float dt = 1.0f / (float)steps;
    for (int b0 = 0; b0 < n; b0 += DIT_SAMPLE_CHUNK) {
        int nb = n - b0 < DIT_SAMPLE_CHUNK ? n - b0 : DIT_SAMPLE_CHUNK;
        bl_tensor xc = *out;   /* a view of images b0 .. b0 + nb */
        xc.flags = 0;
        xc.shape[0] = nb;
        xc.numel = (size_t)nb * per;
        xc.data = out->data + (size_t)b0 * per;
        for (int s = 0; s < steps; s++) {
            if (m->interrupted && m->interrupted()) {
                bl_tensor_free(out);
                return BL_FAILP("sample: interrupted at Euler step %d of %d for images %d-%d of %d", s + 1, steps,
                                b0 + 1, b0 + nb, n);
            }
            /* Euler from t = 1 to t = 0: x <- x - dt v(x, t) */
            float t = 1.0f - (float)s * dt;
            for (int b = 0; b < nb; b++) tv[b] = t;
            bl_tensor *v = bl_dit_forward(m, &xc, tv, 0);
            if (!v) {
                bl_error_prefix("sample");
                bl_tensor_free(out);
                return NULL;
            }
            for (size_t i = 0; i < xc.numel; i++) xc.data[i] -= dt * v->data[i];
        }
    }
    for (size_t i = 0; i < out->numel; i++) out->data[i] = fminf(1.0f, fmaxf(-1.0f, out->data[i]));
    return out;
}
