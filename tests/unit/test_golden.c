/* test_golden.c - every op of core/ops.h and nn/nn.h against PyTorch.
 *
 * tests/golden/ops.safetensors is made by tests/golden/gen.py (torch.nn.functional references
 * evaluated in float64, see tests/golden/README.md). For each case CASE the file holds the
 * inputs CASE.NAME, the output CASE.out (and extra outputs CASE.out.NAME), a fixed upstream
 * gradient CASE.gout (CASE.gout.NAME) and the input gradients CASE.grad.NAME. This test runs
 * the blocklab op on a graph, compares the output, runs bl_graph_backward_from(g, out, gout)
 * and compares every input gradient.
 *
 * Tolerances, s = max(1, rms of the PyTorch tensor): outputs |a - b| <= 1e-5 s + 1e-5 |b|,
 * gradients |a - b| <= 1e-5 s + 1e-4 |b| (float32 kernels against the float64 reference rounded
 * to float32), except where a case says why not. Each case prints its worst error / tolerance.
 * The *_ieee cases (inputs at +-1e30, +-3e38, +-inf, NaN, -0, ...) are compared class by class
 * instead (compare_ieee): NaN where PyTorch has NaN, the same infinities, the sign of a zero
 * output, finite outputs to 1e-5 relative with no scale from the tensor's rms.
 * The scalar arguments (eps, scale, p, ...) below are the ones gen.py used (its "args" metadata).
 */
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "nn/nn.h"
#include "train/safetensors.h"
#include "../check.h"
#include "../golden_pattern.h"
#include <stdarg.h>
#include <stdint.h>

#define OUT_RTOL 1e-5
#define OUT_ATOL 1e-5
#define GRAD_RTOL 1e-4
#define GRAD_ATOL 1e-5

static bl_st_file *G;       /* the golden file */
static double worst_out, worst_grad; /* largest error / tolerance of the current case */

#define MAXIN 8
#define MAXEXTRA 4

typedef struct gctx {
    const char *name;
    bl_graph *g;
    int nin;
    const char *in_names[MAXIN];
    bl_tensor *in[MAXIN];
    int nextra;
    const char *extra_names[MAXEXTRA];
    bl_tensor *extra[MAXEXTRA];
    void *scratch[4];
    int nscratch;
} gctx;

typedef bl_tensor *(*case_fn)(gctx *c);

typedef struct gcase {
    const char *name;
    const char *inputs; /* space-separated input names, in the order of the op's arguments */
    case_fn fn;
    double out_atol;    /* 0: OUT_ATOL */
    int big;            /* BIG: inputs from bl_golden_pattern(), outputs and gradients sampled every
                         * SAMPLE; IEEE: compared by compare_ieee */
} gcase;

enum { SMALL = 0, BIG = 1, IEEE = 2 };

/* Big cases (the models' shapes, past every OpenMP threshold) rebuild their inputs and upstream
 * gradients from this hash pattern, exactly as gen.py's pattern() does: values k / 16384 in
 * [-2, 2), exact in float32. CASE.pattern.NAME = [salt, scale, ndim, dims...]; the upstream
 * gradient of the output uses salt 99, of extra output e salt 100 + e. Only elements 0, SAMPLE,
 * 2 SAMPLE, ... of outputs and gradients are stored. */
#define SAMPLE 61


static const bl_tensor *gfind(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const bl_tensor *gfind(const char *fmt, ...)
{
    char key[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    return bl_st_get(G, key);
}

/* The loaded input `name` of the current case (an owned copy, with a grad when the file has
 * one for it). */
static bl_tensor *IN(gctx *c, const char *name)
{
    for (int i = 0; i < c->nin; i++)
        if (strcmp(c->in_names[i], name) == 0) return c->in[i];
    CHECK(0, "%s: no input %s", c->name, name);
    return NULL;
}

/* A constant stored as floats in the file (ids, targets, t), converted to ints. */
static int *INTS(gctx *c, const char *name, int *n)
{
    const bl_tensor *t = gfind("%s.%s", c->name, name);
    CHECK(t != NULL, "%s: no constant %s in the file", c->name, name);
    if (!t || c->nscratch == 4) return NULL;
    int *v = malloc(t->numel * sizeof(int));
    for (size_t i = 0; i < t->numel; i++) v[i] = (int)t->data[i];
    c->scratch[c->nscratch++] = v;
    if (n) *n = (int)t->numel;
    return v;
}

static const float *FLOATS(gctx *c, const char *name)
{
    const bl_tensor *t = gfind("%s.%s", c->name, name);
    CHECK(t != NULL, "%s: no constant %s in the file", c->name, name);
    return t ? t->data : NULL;
}

static void EXTRA(gctx *c, const char *name, bl_tensor *t)
{
    if (c->nextra < MAXEXTRA) {
        c->extra_names[c->nextra] = name;
        c->extra[c->nextra++] = t;
    }
}

/* ---- the cases --------------------------------------------------------------------------- */

static bl_tensor *run_linear(gctx *c) { return bl_linear(c->g, IN(c, "x"), IN(c, "w"), IN(c, "b")); }
static bl_tensor *run_linear_nobias(gctx *c) { return bl_linear(c->g, IN(c, "x"), IN(c, "w"), NULL); }
static bl_tensor *run_matmul(gctx *c) { return bl_matmul(c->g, IN(c, "a"), IN(c, "b")); }
static bl_tensor *run_add(gctx *c) { return bl_add(c->g, IN(c, "a"), IN(c, "b")); }
static bl_tensor *run_mul(gctx *c) { return bl_mul(c->g, IN(c, "a"), IN(c, "b")); }
static bl_tensor *run_scale(gctx *c) { return bl_scale(c->g, IN(c, "a"), -1.75f); }
static bl_tensor *run_gelu(gctx *c) { return bl_gelu(c->g, IN(c, "x")); }
static bl_tensor *run_silu(gctx *c) { return bl_silu(c->g, IN(c, "x")); }
static bl_tensor *run_softmax(gctx *c) { return bl_softmax(c->g, IN(c, "x")); }

static bl_tensor *run_embedding(gctx *c)
{
    int n = 0;
    const int *ids = INTS(c, "ids", &n);
    return ids ? bl_embedding(c->g, IN(c, "w"), ids, n) : NULL;
}

static bl_tensor *run_cross_entropy(gctx *c)
{
    const int *tg = INTS(c, "targets", NULL);
    return tg ? bl_cross_entropy(c->g, IN(c, "logits"), tg) : NULL;
}

static bl_tensor *run_mse(gctx *c) { return bl_mse(c->g, IN(c, "pred"), IN(c, "target")); }

static bl_tensor *run_layernorm(gctx *c)
{
    return bl_layernorm(c->g, IN(c, "x"), IN(c, "w"), IN(c, "b"), 1e-5f);
}
static bl_tensor *run_layernorm_noaffine(gctx *c)
{
    return bl_layernorm(c->g, IN(c, "x"), NULL, NULL, 1e-6f);
}
static bl_tensor *run_rmsnorm(gctx *c) { return bl_rmsnorm(c->g, IN(c, "x"), IN(c, "w"), 1e-6f); }
static bl_tensor *run_rmsnorm_noweight(gctx *c) { return bl_rmsnorm(c->g, IN(c, "x"), NULL, 1e-6f); }
static bl_tensor *run_qk_norm(gctx *c) { return bl_qk_norm(c->g, IN(c, "x"), IN(c, "w"), 1e-6f); }
static bl_tensor *run_swiglu(gctx *c) { return bl_swiglu(c->g, IN(c, "a"), IN(c, "b")); }
static bl_tensor *run_linear_gelu(gctx *c) { return bl_linear_gelu(c->g, IN(c, "x"), IN(c, "w"), IN(c, "b")); }

static bl_tensor *run_mlp_gelu(gctx *c)
{
    return bl_mlp_gelu(c->g, IN(c, "x"), IN(c, "fc1_w"), IN(c, "fc1_b"), IN(c, "fc2_w"), IN(c, "fc2_b"));
}
static bl_tensor *run_mlp_gelu_nobias(gctx *c)
{
    return bl_mlp_gelu(c->g, IN(c, "x"), IN(c, "fc1_w"), NULL, IN(c, "fc2_w"), NULL);
}
static bl_tensor *run_mlp_swiglu(gctx *c)
{
    return bl_mlp_swiglu(c->g, IN(c, "x"), IN(c, "w1"), IN(c, "b1"), IN(c, "w2"), IN(c, "b2"),
                         IN(c, "w3"), IN(c, "b3"));
}
static bl_tensor *run_mlp_swiglu_nobias(gctx *c)
{
    return bl_mlp_swiglu(c->g, IN(c, "x"), IN(c, "w1"), NULL, IN(c, "w2"), NULL, IN(c, "w3"), NULL);
}

static bl_tensor *attention(gctx *c, int causal, const unsigned char *mask, float scale)
{
    bl_tensor *probs = NULL;
    bl_tensor *out = bl_attention(c->g, IN(c, "q"), IN(c, "k"), IN(c, "v"), causal, mask, scale, &probs);
    if (out) {
        CHECK(probs != NULL, "%s: no attention weights returned", c->name);
        if (probs) EXTRA(c, "probs", probs);
    }
    return out;
}
static bl_tensor *run_attention(gctx *c) { return attention(c, 0, NULL, 0.0f); }
static bl_tensor *run_attention_causal(gctx *c) { return attention(c, 1, NULL, 0.0f); }
static bl_tensor *run_attention_mask(gctx *c)
{
    int n = 0;
    const int *m = INTS(c, "mask", &n);
    if (!m || c->nscratch == 4) return NULL;
    unsigned char *mask = malloc((size_t)n);
    for (int i = 0; i < n; i++) mask[i] = (unsigned char)m[i];
    c->scratch[c->nscratch++] = mask;
    return attention(c, 0, mask, 0.3f);
}

static bl_tensor *run_split_heads(gctx *c)
{
    bl_tensor *q, *k, *v;
    if (bl_split_heads(c->g, IN(c, "qkv"), 4, 2, &q, &k, &v) < 0) return NULL;
    EXTRA(c, "k", k);
    EXTRA(c, "v", v);
    return q;
}
static bl_tensor *run_merge_heads(gctx *c) { return bl_merge_heads(c->g, IN(c, "x")); }
static bl_tensor *run_slice_last(gctx *c) { return bl_slice_last(c->g, IN(c, "x"), 3, 4); }

/* RoPE: the tables bl_rope_table_* makes are compared too (extra outputs cos, sin). */
static bl_tensor *rope(gctx *c, int T, int hd, int (*fill)(int, int, float *, float *))
{
    bl_tensor *cs = bl_graph_tensor(c->g, 2, (int[]){T, hd}, 0);
    bl_tensor *sn = bl_graph_tensor(c->g, 2, (int[]){T, hd}, 0);
    if (!cs || !sn || fill(T, hd, cs->data, sn->data) < 0) return NULL;
    EXTRA(c, "cos", cs);
    EXTRA(c, "sin", sn);
    return bl_rope(c->g, IN(c, "x"), cs, sn);
}
static int fill_1d(int T, int hd, float *cs, float *sn) { return bl_rope_table_1d(T, hd, 10000.0f, 3, cs, sn); }
static int fill_2d(int T, int hd, float *cs, float *sn)
{
    (void)T;
    return bl_rope_table_2d(3, 4, 1, hd, 100.0f, cs, sn);
}
static bl_tensor *run_rope1d(gctx *c) { return rope(c, 6, 8, fill_1d); }
static bl_tensor *run_rope2d(gctx *c) { return rope(c, 13, 8, fill_2d); }

static bl_tensor *run_modulate(gctx *c)
{
    return bl_modulate(c->g, IN(c, "x"), IN(c, "shift"), IN(c, "scale"));
}
static bl_tensor *run_patch_embed(gctx *c)
{
    return bl_patch_embed(c->g, IN(c, "img"), IN(c, "w"), IN(c, "b"), 4);
}
static bl_tensor *run_patch_embed_rect(gctx *c)
{
    return bl_patch_embed(c->g, IN(c, "img"), IN(c, "w"), NULL, 2);
}
static bl_tensor *run_unpatchify(gctx *c) { return bl_unpatchify(c->g, IN(c, "x"), 3, 4, 4, 2); }
static bl_tensor *run_unpatchify_rect(gctx *c) { return bl_unpatchify(c->g, IN(c, "x"), 2, 4, 6, 2); }
static bl_tensor *run_pos2d_add(gctx *c)
{
    return bl_pos2d_add(c->g, IN(c, "x"), IN(c, "row"), IN(c, "col"));
}

/* Timestep features of 1000 t: arguments up to 1000 rad, where one float32 ulp of the argument
 * (6e-5) moves cos/sin by as much; the reference is float64, hence the wider tolerance. */
static bl_tensor *run_timestep(gctx *c)
{
    const float *t = FLOATS(c, "t");
    bl_tensor *out = bl_graph_tensor(c->g, 2, (int[]){4, 16}, 0);
    if (!t || !out) return NULL;
    bl_timestep_features(t, 4, 16, out->data);
    return out;
}

/* big cases whose arguments differ from the small ones' */
static bl_tensor *run_layernorm_big(gctx *c)
{
    return bl_layernorm(c->g, IN(c, "x"), IN(c, "w"), IN(c, "b"), 1e-6f);
}
static bl_tensor *run_split_heads_big(gctx *c)
{
    bl_tensor *q, *k, *v;
    if (bl_split_heads(c->g, IN(c, "qkv"), 4, 4, &q, &k, &v) < 0) return NULL;
    EXTRA(c, "k", k);
    EXTRA(c, "v", v);
    return q;
}
static int fill_1d_big(int T, int hd, float *cs, float *sn) { return bl_rope_table_1d(T, hd, 10000.0f, 0, cs, sn); }
static int fill_2d_big(int T, int hd, float *cs, float *sn)
{
    (void)T;
    return bl_rope_table_2d(8, 8, 1, hd, 100.0f, cs, sn);
}
static bl_tensor *run_rope1d_big(gctx *c) { return rope(c, 128, 32, fill_1d_big); }
static bl_tensor *run_rope2d_big(gctx *c) { return rope(c, 65, 32, fill_2d_big); }
static bl_tensor *run_unpatchify_big(gctx *c) { return bl_unpatchify(c->g, IN(c, "x"), 3, 32, 32, 4); }

static const gcase cases[] = {
    {"linear", "x w b", run_linear, 0, 0},
    {"linear_nobias", "x w", run_linear_nobias, 0, 0},
    {"matmul", "a b", run_matmul, 0, 0},
    {"matmul_4d", "a b", run_matmul, 0, 0},
    {"matmul_shared", "a b", run_matmul, 0, 0},
    {"add", "a b", run_add, 0, 0},
    {"add_bcast1", "a b", run_add, 0, 0},
    {"add_bcast2", "a b", run_add, 0, 0},
    {"mul", "a b", run_mul, 0, 0},
    {"mul_bcast1", "a b", run_mul, 0, 0},
    {"mul_bcast2", "a b", run_mul, 0, 0},
    {"scale", "a", run_scale, 0, 0},
    {"gelu", "x", run_gelu, 0, 0},
    {"silu", "x", run_silu, 0, 0},
    {"softmax", "x", run_softmax, 0, 0},
    {"embedding", "w", run_embedding, 0, 0},
    {"cross_entropy", "logits", run_cross_entropy, 0, 0},
    {"mse", "pred target", run_mse, 0, 0},
    {"layernorm", "x w b", run_layernorm, 0, 0},
    {"layernorm_noaffine", "x", run_layernorm_noaffine, 0, 0},
    {"rmsnorm", "x w", run_rmsnorm, 0, 0},
    {"rmsnorm_noweight", "x", run_rmsnorm_noweight, 0, 0},
    {"qk_norm", "x w", run_qk_norm, 0, 0},
    {"swiglu", "a b", run_swiglu, 0, 0},
    {"mlp_gelu", "x fc1_w fc1_b fc2_w fc2_b", run_mlp_gelu, 0, 0},
    {"mlp_gelu_nobias", "x fc1_w fc2_w", run_mlp_gelu_nobias, 0, 0},
    {"mlp_swiglu", "x w1 b1 w2 b2 w3 b3", run_mlp_swiglu, 0, 0},
    {"mlp_swiglu_nobias", "x w1 w2 w3", run_mlp_swiglu_nobias, 0, 0},
    {"attention", "q k v", run_attention, 0, 0},
    {"attention_gqa", "q k v", run_attention, 0, 0},
    {"attention_causal", "q k v", run_attention_causal, 0, 0},
    {"attention_mask", "q k v", run_attention_mask, 0, 0},
    {"attention_cache", "q k v", run_attention_causal, 0, 0},
    {"split_heads", "qkv", run_split_heads, 0, 0},
    {"merge_heads", "x", run_merge_heads, 0, 0},
    {"slice_last", "x", run_slice_last, 0, 0},
    {"rope1d", "x", run_rope1d, 0, 0},
    {"rope2d", "x", run_rope2d, 0, 0},
    {"modulate", "x shift scale", run_modulate, 0, 0},
    {"patch_embed", "img w b", run_patch_embed, 0, 0},
    {"patch_embed_rect", "img w", run_patch_embed_rect, 0, 0},
    {"unpatchify", "x", run_unpatchify, 0, 0},
    {"unpatchify_rect", "x", run_unpatchify_rect, 0, 0},
    {"pos2d_add", "x row col", run_pos2d_add, 0, 0},
    {"timestep", "", run_timestep, 1e-4, 0},
    {"silu_ieee", "x", run_silu, 0, IEEE},
    {"gelu_ieee", "x", run_gelu, 0, IEEE},
    {"swiglu_ieee", "a b", run_swiglu, 0, IEEE},
    {"linear_gelu_ieee", "x w b", run_linear_gelu, 0, IEEE},
    {"softmax_ieee", "x", run_softmax, 0, IEEE},
    {"layernorm_ieee", "x", run_layernorm_noaffine, 0, IEEE},
    {"rmsnorm_ieee", "x", run_rmsnorm_noweight, 0, IEEE},
    {"linear_big", "x w b", run_linear, 0, 1},
    {"matmul_big", "a b", run_matmul, 0, 1},
    {"add_big", "a b", run_add, 0, 1},
    {"mul_big", "a b", run_mul, 0, 1},
    {"gelu_big", "x", run_gelu, 0, 1},
    {"silu_big", "x", run_silu, 0, 1},
    {"softmax_big", "x", run_softmax, 0, 1},
    {"cross_entropy_big", "logits", run_cross_entropy, 0, 1},
    {"mse_big", "pred target", run_mse, 0, 1},
    {"embedding_big", "w", run_embedding, 0, 1},
    {"layernorm_big", "x w b", run_layernorm_big, 0, 1},
    {"rmsnorm_big", "x w", run_rmsnorm, 0, 1},
    {"qk_norm_big", "x w", run_qk_norm, 0, 1},
    {"mlp_swiglu_big", "x w1 b1 w2 b2 w3 b3", run_mlp_swiglu, 0, 1},
    {"mlp_gelu_big", "x fc1_w fc1_b fc2_w fc2_b", run_mlp_gelu, 0, 1},
    {"attention_big", "q k v", run_attention_causal, 0, 1},
    {"split_heads_big", "qkv", run_split_heads_big, 0, 1},
    {"merge_heads_big", "x", run_merge_heads, 0, 1},
    {"rope2d_big", "x", run_rope2d_big, 0, 1},
    {"rope1d_big", "x", run_rope1d_big, 0, 1},
    {"modulate_big", "x shift scale", run_modulate, 0, 1},
    {"patch_embed_big", "img w b", run_patch_embed, 0, 1},
    {"unpatchify_big", "x", run_unpatchify_big, 0, 1},
    {"pos2d_add_big", "x row col", run_pos2d_add, 0, 1},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* ---- the driver -------------------------------------------------------------------------- */

/* Compare got (its data `gdata`) with the golden tensor, every `stride`-th element of got
 * against want's consecutive elements (stride 1: the whole tensor, shapes must match).
 * |a - b| <= atol * max(1, rms(want)) + rtol |b|; reports the worst element. */
static int compare(const char *what, const bl_tensor *got, const bl_tensor *want, const float *gdata,
                   double rtol, double atol, int stride)
{
    char a[64], b[64];
    if (stride == 1 && !bl_same_shape(got, want)) {
        CHECK(0, "%s: shape %s, PyTorch %s", what, bl_shape_str(got, a, sizeof a),
              bl_shape_str(want, b, sizeof b));
        return 0;
    }
    if (want->numel != (got->numel + (size_t)stride - 1) / (size_t)stride) {
        CHECK(0, "%s: %zu elements, PyTorch %zu (every %d-th stored)", what, got->numel,
              want->numel * (size_t)stride, stride);
        return 0;
    }
    double ss = 0;
    for (size_t i = 0; i < want->numel; i++) ss += (double)want->data[i] * want->data[i];
    double scale = fmax(1.0, sqrt(ss / (double)want->numel));
    double worst = 0, wg = 0, ww = 0;
    size_t wi = 0;
    int bad = 0;
    for (size_t i = 0; i < want->numel; i++) {
        double g = gdata[i * (size_t)stride], w = want->data[i], err = fabs(g - w);
        double lim = atol * scale + rtol * fabs(w), r = err / lim;
        if (!(err <= lim)) bad++;
        if (!(r <= worst)) { worst = isnan(r) ? INFINITY : r; wi = i * (size_t)stride; wg = g; ww = w; }
    }
    double *acc = rtol == OUT_RTOL ? &worst_out : &worst_grad;
    if (!(worst <= *acc)) *acc = worst;
    CHECK(bad == 0, "%s: %d of %zu elements off; worst [%zu] %.9g vs PyTorch %.9g (error %.3g x tol)",
          what, bad, want->numel, wi, wg, ww, worst);
    return bad == 0;
}

/* compare() for the IEEE cases, element by element: a NaN for a NaN, the same infinity, and
 * for outputs (strict) a zero of the same sign for a zero and |a - b| <= 1e-30 + rtol |b|
 * otherwise: no atol from the tensor's scale, so -6e-9 for -0 (silu(-1e30) with exp clamped at
 * 88) is an error. Finite gradients get compare()'s tolerance (atol * max(1, rms of the finite
 * values) + rtol |b|): they are sums with cancellation (a norm's d/dx at a 1e30 row is 1e-37
 * in float32 where the reference has 0), and -0 + 0 is +0 in any order of adding. */
static int compare_ieee(const char *what, const bl_tensor *got, const bl_tensor *want,
                        const float *gdata, double rtol, int strict)
{
    char a[64], b[64];
    if (!bl_same_shape(got, want)) {
        CHECK(0, "%s: shape %s, PyTorch %s", what, bl_shape_str(got, a, sizeof a),
              bl_shape_str(want, b, sizeof b));
        return 0;
    }
    double ss = 0, atol = 1e-30;
    size_t nf = 0;
    for (size_t i = 0; i < want->numel; i++)
        if (isfinite(want->data[i])) { ss += (double)want->data[i] * want->data[i]; nf++; }
    if (!strict) atol = GRAD_ATOL * fmax(1.0, nf ? sqrt(ss / (double)nf) : 0);
    int bad = 0;
    for (size_t i = 0; i < want->numel; i++) {
        float g = gdata[i], w = want->data[i];
        int ok;
        if (isnan(w)) ok = isnan(g);
        else if (isinf(w) || (strict && w == 0)) ok = g == w && signbit(g) == signbit(w);
        else {
            double lim = atol + rtol * fabs(w), r = fabs((double)g - w) / lim;
            double *acc = strict ? &worst_out : &worst_grad;
            ok = isfinite(g) && r <= 1;
            if (isfinite(g) && !(r <= *acc)) *acc = r;
        }
        if (!ok && bad++ < 4) CHECK(0, "%s: [%zu] %.9g, PyTorch %.9g", what, i, g, w);
    }
    CHECK(bad <= 4, "%s: %d of %zu elements off", what, bad, want->numel);
    return bad == 0;
}

/* An input of a big case, rebuilt from its CASE.pattern.NAME description. */
static bl_tensor *pattern_input(const char *cname, const char *name)
{
    const bl_tensor *d = gfind("%s.pattern.%s", cname, name);
    CHECK(d != NULL, "%s: input %s missing from the golden file", cname, name);
    if (!d) return NULL;
    int ndim = d->numel >= 3 ? (int)d->data[2] : -1, shape[BL_MAXDIM];
    CHECK(ndim >= 0 && ndim <= BL_MAXDIM && d->numel == (size_t)ndim + 3, "%s: bad pattern for %s", cname, name);
    if (ndim < 0 || ndim > BL_MAXDIM || d->numel != (size_t)ndim + 3) return NULL;
    for (int i = 0; i < ndim; i++) shape[i] = (int)d->data[3 + i];
    bl_tensor *t = bl_tensor_new(ndim, shape);
    if (t)
        for (size_t i = 0; i < t->numel; i++) t->data[i] = bl_golden_pattern(i, (uint32_t)d->data[0]) * d->data[1];
    return t;
}

static void run_case(const gcase *gc)
{
    gctx c = {.name = gc->name, .g = bl_graph_new()};
    float *seed = NULL;
    char names[256], what[128];
    snprintf(names, sizeof names, "%s", gc->inputs);
    for (char *tok = strtok(names, " "); tok && c.nin < MAXIN; tok = strtok(NULL, " ")) {
        bl_tensor *x;
        if (gc->big == BIG) {
            x = pattern_input(gc->name, tok);
        } else {
            const bl_tensor *t = gfind("%s.%s", gc->name, tok);
            CHECK(t != NULL, "%s: input %s missing from the golden file", gc->name, tok);
            x = t ? bl_tensor_copy(t) : NULL;
        }
        if (!x) goto out;
        c.in_names[c.nin] = strdup(tok);
        if (gfind("%s.grad.%s", gc->name, tok)) bl_tensor_require_grad(x);
        c.in[c.nin++] = x;
    }
    bl_clear_error();
    bl_tensor *out = gc->fn(&c);
    CHECK(out != NULL, "%s: op failed: %s", gc->name, bl_error());
    if (!out) goto out;
    const bl_tensor *want = gfind("%s.out", gc->name);
    CHECK(want != NULL, "%s: no output in the golden file", gc->name);
    if (!want) goto out;
    double atol = gc->out_atol > 0 ? gc->out_atol : OUT_ATOL;
    snprintf(what, sizeof what, "%s output", gc->name);
    int stride = gc->big == BIG ? SAMPLE : 1;
    if (gc->big == IEEE) compare_ieee(what, out, want, out->data, OUT_RTOL, 1);
    else compare(what, out, want, out->data, OUT_RTOL, atol, stride);
    for (int e = 0; e < c.nextra; e++) {
        const bl_tensor *w = gfind("%s.out.%s", gc->name, c.extra_names[e]);
        CHECK(w != NULL, "%s: no %s in the golden file", gc->name, c.extra_names[e]);
        snprintf(what, sizeof what, "%s output %s", gc->name, c.extra_names[e]);
        if (w) compare(what, c.extra[e], w, c.extra[e]->data, OUT_RTOL, atol, stride);
    }

    if (gc->big != BIG && !gfind("%s.gout", gc->name)) goto out; /* no gradient (timestep features) */
    /* upstream gradients: from the file, or for big cases from the pattern */
    for (int e = 0; e < c.nextra; e++) {
        const bl_tensor *ge = gfind("%s.gout.%s", gc->name, c.extra_names[e]);
        int has = gc->big == BIG ? c.extra[e]->grad != NULL : ge != NULL;
        if (!has) continue; /* attention weights and RoPE tables carry no gradient */
        CHECK(c.extra[e]->grad != NULL, "%s: output %s has no gradient", gc->name, c.extra_names[e]);
        if (!c.extra[e]->grad || (ge && ge->numel != c.extra[e]->numel)) goto out;
        float *gx = bl_grad_ready(c.extra[e]);   /* an arena grad: real zeros before seeding */
        for (size_t i = 0; i < c.extra[e]->numel; i++)
            gx[i] += ge ? ge->data[i] : bl_golden_pattern(i, 100u + (uint32_t)e);
    }
    const bl_tensor *gout = gfind("%s.gout", gc->name);
    seed = malloc(out->numel * sizeof(float));
    for (size_t i = 0; i < out->numel; i++) seed[i] = gc->big == BIG ? bl_golden_pattern(i, 99) : 0.0f;
    if (gc->big != BIG) {
        CHECK(gout->numel == out->numel, "%s: upstream gradient size", gc->name);
        if (gout->numel != out->numel) goto out;
        memcpy(seed, gout->data, out->numel * sizeof(float));
    }
    CHECK(bl_graph_backward_from(c.g, out, seed) == 0, "%s: backward: %s", gc->name, bl_error());
    for (int i = 0; i < c.nin; i++) {
        const bl_tensor *gw = gfind("%s.grad.%s", gc->name, c.in_names[i]);
        if (!gw) continue;
        snprintf(what, sizeof what, "%s d/d%s", gc->name, c.in_names[i]);
        if (gc->big == IEEE) compare_ieee(what, c.in[i], gw, c.in[i]->grad, GRAD_RTOL, 0);
        else compare(what, c.in[i], gw, c.in[i]->grad, GRAD_RTOL, GRAD_ATOL, stride);
    }
out:
    for (int i = 0; i < c.nin; i++) {
        bl_tensor_free(c.in[i]);
        free((char *)c.in_names[i]);
    }
    for (int i = 0; i < c.nscratch; i++) free(c.scratch[i]);
    free(seed);
    bl_graph_free(c.g);
}

/* Every case in the file has a runner here and every runner has its data in the file, so a new
 * op in gen.py cannot go unchecked. */
BL_TEST(test_coverage)
{
    for (int i = 0; i < G->n; i++) {
        const char *nm = G->tensors[i].name;
        size_t best = 0; /* the longest case name that prefixes it: add_bcast1 before add */
        for (int k = 0; k < NCASES; k++) {
            size_t len = strlen(cases[k].name);
            if (len > best && strncmp(nm, cases[k].name, len) == 0 && nm[len] == '.') best = len;
        }
        int found = best > 0;
        CHECK(found, "golden tensor %s belongs to no case of this test", nm);
    }
    for (int k = 0; k < NCASES; k++)
        CHECK(gfind("%s.out", cases[k].name) != NULL, "case %s has no data in the golden file",
              cases[k].name);
}

static int load(void)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/ops.safetensors", src ? src : ".");
    G = bl_st_read(path);
    if (!G) printf("# %s\n", bl_error());
    return G != NULL;
}

int main(void)
{
    if (!load()) {
        printf("Bail out! tests/golden/ops.safetensors not readable (set BL_SRCDIR)\n");
        return 1;
    }
    RUN(test_coverage);
    for (int k = 0; k < NCASES; k++) {
        /* one TAP line per case, named after it */
        bl_t_cur_failed = 0;
        bl_t_skip = NULL;
        worst_out = worst_grad = 0;
        run_case(&cases[k]);
        printf("# %s: worst error / tolerance: output %.3g, gradients %.3g\n", cases[k].name,
               worst_out, worst_grad);
        bl_t_count++;
        printf("%sok %d - golden %s\n", bl_t_cur_failed ? "not " : "", bl_t_count, cases[k].name);
        if (bl_t_cur_failed) bl_t_failed++;
        fflush(stdout);
    }
    bl_st_free(G);
    return bl_test_done();
}
