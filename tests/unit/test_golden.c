/* test_golden.c - every op of core/ops.h and nn/nn.h against PyTorch.
 *
 * tests/golden/ops.safetensors is made by tests/golden/gen.py (torch.nn.functional references
 * evaluated in float64, see tests/golden/README.md). For each case CASE the file holds the
 * inputs CASE.NAME, the output CASE.out (and extra outputs CASE.out.NAME), a fixed upstream
 * gradient CASE.gout (CASE.gout.NAME) and the input gradients CASE.grad.NAME. This test runs
 * the blocklab op on a graph, compares the output, runs bl_graph_backward_from(g, out, gout)
 * and compares every input gradient.
 *
 * Tolerances: outputs |a - b| <= 1e-5 + 1e-5 |b|, gradients |a - b| <= 1e-5 + 1e-4 |b| (float32
 * kernels against the float64 reference rounded to float32), except where a case says why not.
 * The scalar arguments (eps, scale, p, ...) below are the ones gen.py used (its "args" metadata).
 */
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/tensor.h"
#include "nn/nn.h"
#include "train/safetensors.h"
#include "../check.h"
#include <stdarg.h>

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
} gcase;

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

static const gcase cases[] = {
    {"linear", "x w b", run_linear, 0},
    {"linear_nobias", "x w", run_linear_nobias, 0},
    {"matmul", "a b", run_matmul, 0},
    {"matmul_4d", "a b", run_matmul, 0},
    {"matmul_shared", "a b", run_matmul, 0},
    {"add", "a b", run_add, 0},
    {"add_bcast1", "a b", run_add, 0},
    {"add_bcast2", "a b", run_add, 0},
    {"mul", "a b", run_mul, 0},
    {"mul_bcast1", "a b", run_mul, 0},
    {"mul_bcast2", "a b", run_mul, 0},
    {"scale", "a", run_scale, 0},
    {"gelu", "x", run_gelu, 0},
    {"silu", "x", run_silu, 0},
    {"softmax", "x", run_softmax, 0},
    {"embedding", "w", run_embedding, 0},
    {"cross_entropy", "logits", run_cross_entropy, 0},
    {"mse", "pred target", run_mse, 0},
    {"layernorm", "x w b", run_layernorm, 0},
    {"layernorm_noaffine", "x", run_layernorm_noaffine, 0},
    {"rmsnorm", "x w", run_rmsnorm, 0},
    {"rmsnorm_noweight", "x", run_rmsnorm_noweight, 0},
    {"qk_norm", "x w", run_qk_norm, 0},
    {"swiglu", "a b", run_swiglu, 0},
    {"mlp_gelu", "x fc1_w fc1_b fc2_w fc2_b", run_mlp_gelu, 0},
    {"mlp_gelu_nobias", "x fc1_w fc2_w", run_mlp_gelu_nobias, 0},
    {"mlp_swiglu", "x w1 b1 w2 b2 w3 b3", run_mlp_swiglu, 0},
    {"mlp_swiglu_nobias", "x w1 w2 w3", run_mlp_swiglu_nobias, 0},
    {"attention", "q k v", run_attention, 0},
    {"attention_gqa", "q k v", run_attention, 0},
    {"attention_causal", "q k v", run_attention_causal, 0},
    {"attention_mask", "q k v", run_attention_mask, 0},
    {"attention_cache", "q k v", run_attention_causal, 0},
    {"split_heads", "qkv", run_split_heads, 0},
    {"merge_heads", "x", run_merge_heads, 0},
    {"slice_last", "x", run_slice_last, 0},
    {"rope1d", "x", run_rope1d, 0},
    {"rope2d", "x", run_rope2d, 0},
    {"modulate", "x shift scale", run_modulate, 0},
    {"patch_embed", "img w b", run_patch_embed, 0},
    {"patch_embed_rect", "img w", run_patch_embed_rect, 0},
    {"unpatchify", "x", run_unpatchify, 0},
    {"unpatchify_rect", "x", run_unpatchify_rect, 0},
    {"pos2d_add", "x row col", run_pos2d_add, 0},
    {"timestep", "", run_timestep, 1e-4},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* ---- the driver -------------------------------------------------------------------------- */

/* Compare got (numel floats, shape of got) with the golden tensor; report the worst element. */
static int compare(const char *what, const bl_tensor *got, const bl_tensor *want, const float *gdata,
                   double rtol, double atol)
{
    char a[64], b[64];
    if (!bl_same_shape(got, want)) {
        CHECK(0, "%s: shape %s, PyTorch %s", what, bl_shape_str(got, a, sizeof a),
              bl_shape_str(want, b, sizeof b));
        return 0;
    }
    double worst = 0, wg = 0, ww = 0;
    size_t wi = 0;
    int bad = 0;
    for (size_t i = 0; i < want->numel; i++) {
        double g = gdata[i], w = want->data[i], err = fabs(g - w), lim = atol + rtol * fabs(w);
        double r = err / lim;
        if (!(err <= lim)) bad++;
        if (!(r <= worst)) { worst = isnan(r) ? INFINITY : r; wi = i; wg = g; ww = w; }
    }
    double *acc = rtol == OUT_RTOL ? &worst_out : &worst_grad;
    if (!(worst <= *acc)) *acc = worst;
    CHECK(bad == 0, "%s: %d of %zu elements off; worst [%zu] %.9g vs PyTorch %.9g (error %.3g x tol)",
          what, bad, want->numel, wi, wg, ww, worst);
    return bad == 0;
}

static void run_case(const gcase *gc)
{
    gctx c = {.name = gc->name, .g = bl_graph_new()};
    char names[256], what[128];
    snprintf(names, sizeof names, "%s", gc->inputs);
    for (char *tok = strtok(names, " "); tok && c.nin < MAXIN; tok = strtok(NULL, " ")) {
        const bl_tensor *t = gfind("%s.%s", gc->name, tok);
        CHECK(t != NULL, "%s: input %s missing from the golden file", gc->name, tok);
        if (!t) goto out;
        c.in_names[c.nin] = strdup(tok);
        bl_tensor *x = bl_tensor_copy(t);
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
    compare(what, out, want, out->data, OUT_RTOL, atol);
    for (int e = 0; e < c.nextra; e++) {
        const bl_tensor *w = gfind("%s.out.%s", gc->name, c.extra_names[e]);
        CHECK(w != NULL, "%s: no %s in the golden file", gc->name, c.extra_names[e]);
        snprintf(what, sizeof what, "%s output %s", gc->name, c.extra_names[e]);
        if (w) compare(what, c.extra[e], w, c.extra[e]->data, OUT_RTOL, atol);
    }

    const bl_tensor *gout = gfind("%s.gout", gc->name);
    if (!gout) goto out; /* no gradient (timestep features) */
    for (int e = 0; e < c.nextra; e++) { /* upstream gradients of extra outputs (split_heads) */
        const bl_tensor *ge = gfind("%s.gout.%s", gc->name, c.extra_names[e]);
        if (!ge) continue;
        CHECK(c.extra[e]->grad != NULL, "%s: output %s has no gradient", gc->name, c.extra_names[e]);
        if (c.extra[e]->grad && ge->numel == c.extra[e]->numel)
            for (size_t i = 0; i < ge->numel; i++) c.extra[e]->grad[i] += ge->data[i];
    }
    CHECK(gout->numel == out->numel, "%s: upstream gradient size", gc->name);
    if (gout->numel != out->numel) goto out;
    CHECK(bl_graph_backward_from(c.g, out, gout->data) == 0, "%s: backward: %s", gc->name, bl_error());
    for (int i = 0; i < c.nin; i++) {
        const bl_tensor *gw = gfind("%s.grad.%s", gc->name, c.in_names[i]);
        if (!gw) continue;
        snprintf(what, sizeof what, "%s d/d%s", gc->name, c.in_names[i]);
        compare(what, c.in[i], gw, c.in[i]->grad, GRAD_RTOL, GRAD_ATOL);
    }
out:
    for (int i = 0; i < c.nin; i++) {
        bl_tensor_free(c.in[i]);
        free((char *)c.in_names[i]);
    }
    for (int i = 0; i < c.nscratch; i++) free(c.scratch[i]);
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
