/* test_golden_math.c - the math functions of core/ops_math.h and the attention mask
 * (bl_attention_masked) against PyTorch values and torch.autograd gradients, and against
 * central finite differences.
 *
 * tests/golden/math.safetensors is made by tests/golden/gen_math.py (gen.py's layout: CASE.NAME
 * inputs, CASE.out and CASE.out.NAME outputs, CASE.gout upstream gradient, CASE.grad.NAME input
 * gradients). Each case runs the op on a graph, compares the outputs, runs
 * bl_graph_backward_from(g, out, gout) and compares every input gradient. The inputs hit torch's
 * conventions at the non-differentiable points (abs and sign at 0, clamp on its bounds, exact
 * ties for max/min/maximum, pow at 0, a fully masked attention row), so a different choice fails.
 * Tolerances, s = max(1, rms of the PyTorch tensor): outputs |a - b| <= 1e-5 s + 1e-5 |b|,
 * gradients |a - b| <= 1e-5 s + 1e-4 |b| (float32 kernels, float64 reference).
 * Cases marked FD are also checked by finite differences (tests/gradcheck.h) on their inputs,
 * which lie away from kinks and ties.
 */
#include "core/error.h"
#include "core/graph.h"
#include "core/ops_math.h"
#include "core/tensor.h"
#include "nn/nn.h"
#include "train/safetensors.h"
#include "../check.h"
#include "../gradcheck.h"

static bl_st_file *G;

enum kind { K_BIN, K_UN, K_POWS, K_CLAMP, K_RED, K_ARG, K_CUMSUM, K_TOPK, K_WHERE, K_MASKED,
            K_TRI, K_CAT, K_STACK, K_EMB, K_ONEHOT, K_LINSPACE, K_EYE, K_ATT };

typedef struct {
    const char *name;
    const char *inputs;     /* space-separated, in the op's argument order */
    enum kind kind;
    int i0, i1, i2;         /* op, dim, keepdim, k, ... (per kind) */
    double f0, f1;          /* bounds, fill value, linspace ends */
    int fd;                 /* also checked by finite differences */
} mcase;

#define ALL BL_ALL_DIMS
static const mcase cases[] = {
    {"add", "a b", K_BIN, BL_ADD, 0, 0, 0, 0, 1},
    {"sub", "a b", K_BIN, BL_SUB, 0, 0, 0, 0, 1},
    {"mul", "a b", K_BIN, BL_MUL, 0, 0, 0, 0, 1},
    {"div", "a b", K_BIN, BL_DIV, 0, 0, 0, 0, 1},
    {"pow", "a b", K_BIN, BL_POW, 0, 0, 0, 0, 1},
    {"maximum", "a b", K_BIN, BL_MAXIMUM, 0, 0, 0, 0, 1},
    {"minimum", "a b", K_BIN, BL_MINIMUM, 0, 0, 0, 0, 1},
    {"pow_zero", "a b", K_BIN, BL_POW, 0, 0, 0, 0, 0},
    {"maximum_ties", "a b", K_BIN, BL_MAXIMUM, 0, 0, 0, 0, 0},
    {"minimum_ties", "a b", K_BIN, BL_MINIMUM, 0, 0, 0, 0, 0},
    {"mul_scalar", "a b", K_BIN, BL_MUL, 0, 0, 0, 0, 1},
    {"div_same", "a b", K_BIN, BL_DIV, 0, 0, 0, 0, 1},
    {"eq", "a b", K_BIN, BL_EQ, 0, 0, 0, 0, 0},
    {"ne", "a b", K_BIN, BL_NE, 0, 0, 0, 0, 0},
    {"lt", "a b", K_BIN, BL_LT, 0, 0, 0, 0, 0},
    {"le", "a b", K_BIN, BL_LE, 0, 0, 0, 0, 0},
    {"gt", "a b", K_BIN, BL_GT, 0, 0, 0, 0, 0},
    {"ge", "a b", K_BIN, BL_GE, 0, 0, 0, 0, 0},
    {"neg", "x", K_UN, BL_NEG, 0, 0, 0, 0, 1},
    {"abs", "x", K_UN, BL_ABS, 0, 0, 0, 0, 0},
    {"sqrt", "x", K_UN, BL_SQRT, 0, 0, 0, 0, 1},
    {"exp", "x", K_UN, BL_EXP, 0, 0, 0, 0, 1},
    {"log", "x", K_UN, BL_LOG, 0, 0, 0, 0, 1},
    {"sin", "x", K_UN, BL_SIN, 0, 0, 0, 0, 1},
    {"cos", "x", K_UN, BL_COS, 0, 0, 0, 0, 1},
    {"tan", "x", K_UN, BL_TAN, 0, 0, 0, 0, 1},
    {"tanh", "x", K_UN, BL_TANH, 0, 0, 0, 0, 1},
    {"sigmoid", "x", K_UN, BL_SIGMOID, 0, 0, 0, 0, 1},
    {"sign", "x", K_UN, BL_SIGN, 0, 0, 0, 0, 0},
    {"floor", "x", K_UN, BL_FLOOR, 0, 0, 0, 0, 0},
    {"ceil", "x", K_UN, BL_CEIL, 0, 0, 0, 0, 0},
    {"erf", "x", K_UN, BL_ERF, 0, 0, 0, 0, 1},
    {"pow_s3", "x", K_POWS, 0, 0, 0, 3.0, 0, 1},
    {"pow_shalf", "x", K_POWS, 0, 0, 0, 0.5, 0, 1},
    {"pow_s0", "x", K_POWS, 0, 0, 0, 0.0, 0, 0},
    {"clamp", "x", K_CLAMP, 0, 0, 0, -1.0, 1.0, 0},
    {"clamp_min", "x", K_CLAMP, 0, 0, 0, -0.5, NAN, 0},
    {"clamp_max", "x", K_CLAMP, 0, 0, 0, NAN, 0.5, 0},
#define RED(nm, op)                                         \
    {nm "_all", "x", K_RED, op, ALL, 0, 0, 0, 1},           \
    {nm "_dim1", "x", K_RED, op, 1, 0, 0, 0, 1},            \
    {nm "_keep", "x", K_RED, op, -1, 1, 0, 0, 1}
    RED("sum", BL_SUM), RED("mean", BL_MEAN), RED("var", BL_VAR), RED("std", BL_STD),
    RED("rms", BL_RMS), RED("min", BL_MIN),
    /* max_dim1's data has two elements of a row within 2 h (a kink inside the finite difference) */
    {"max_all", "x", K_RED, BL_MAX, ALL, 0, 0, 0, 1},
    {"max_dim1", "x", K_RED, BL_MAX, 1, 0, 0, 0, 0},
    {"max_keep", "x", K_RED, BL_MAX, -1, 1, 0, 0, 1},
    {"max_ties_all", "x", K_RED, BL_MAX, ALL, 0, 0, 0, 0},
    {"min_ties_all", "x", K_RED, BL_MIN, ALL, 0, 0, 0, 0},
    {"max_ties_dim1", "x", K_RED, BL_MAX, 1, 0, 0, 0, 0},
    {"min_ties_dim0", "x", K_RED, BL_MIN, 0, 0, 0, 0, 0},
    {"argmax_dim1", "x", K_ARG, 1, 1, 0, 0, 0, 0},
    {"argmin_dim0", "x", K_ARG, 0, 0, 0, 0, 0, 0},
    {"argmax_all", "x", K_ARG, 1, ALL, 0, 0, 0, 0},
    {"cumsum", "x", K_CUMSUM, 0, 1, 0, 0, 0, 1},
    {"cumsum0", "x", K_CUMSUM, 0, 0, 0, 0, 0, 1},
    {"topk", "x", K_TOPK, 2, -1, 1, 0, 0, 1},
    {"topk_small0", "x", K_TOPK, 2, 0, 0, 0, 0, 1},
    {"where", "cond a b", K_WHERE, 0, 0, 0, 0, 0, 1},
    {"masked_fill", "x mask", K_MASKED, 0, 0, 0, -5.0, 0, 1},
    {"tril", "x", K_TRI, 0, 0, 0, 0, 0, 1},
    {"tril_p1", "x", K_TRI, 1, 0, 0, 0, 0, 1},
    {"triu", "x", K_TRI, 0, 1, 0, 0, 0, 1},
    {"triu_m1", "x", K_TRI, -1, 1, 0, 0, 0, 1},
    {"cat", "a b c", K_CAT, 0, 1, 0, 0, 0, 1},
    {"cat0", "a b", K_CAT, 0, 0, 0, 0, 0, 1},
    {"stack", "a b", K_STACK, 0, 0, 0, 0, 0, 1},
    {"stack_last", "a b", K_STACK, 0, -1, 0, 0, 0, 1},
    {"embedding", "w idx", K_EMB, 0, 0, 0, 0, 0, 1},
    {"one_hot", "idx", K_ONEHOT, 5, 0, 0, 0, 0, 0},
    {"one_hot_auto", "idx", K_ONEHOT, 0, 0, 0, 0, 0, 0},
    {"linspace", "", K_LINSPACE, 7, 0, 0, 0.0, 1.0, 0},
    {"linspace_neg", "", K_LINSPACE, 4, 0, 0, -2.0, 3.0, 0},
    {"eye", "", K_EYE, 3, 4, 0, 0, 0, 0},
    {"attention_bool", "q k v mask", K_ATT, 0, 0, 0, 0, 0, 1},
    {"attention_additive", "q k v mask", K_ATT, 1, 0, 0, 0, 0, 1},
    {"attention_additive_causal", "q k v mask", K_ATT, 1, 1, 0, 0, 0, 1},
    {"attention_padding", "q k v mask", K_ATT, 0, 0, 0, 0, 0, 1},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* Run case c on inputs in (n of them); extra: a second output to compare (topk indices,
 * attention weights), or NULL. */
static bl_tensor *run(bl_graph *g, const mcase *c, bl_tensor **in, int n, bl_tensor **extra)
{
    bl_tensor *x = in[0];
    *extra = NULL;
    switch (c->kind) {
    case K_BIN: return bl_binary_op(g, (bl_binop)c->i0, in[0], in[1]);
    case K_UN: return bl_unary_op(g, (bl_unop)c->i0, x);
    case K_POWS: return bl_pow_scalar(g, x, (float)c->f0);
    case K_CLAMP: return bl_clamp(g, x, (float)c->f0, (float)c->f1);
    case K_RED: return bl_reduce_op(g, (bl_reduce)c->i0, x, c->i1, c->i2);
    case K_ARG: return bl_argext(g, x, c->i1, c->i2, c->i0);
    case K_CUMSUM: return bl_cumsum(g, x, c->i1);
    case K_TOPK: return bl_topk(g, x, c->i0, c->i1, c->i2, extra);
    case K_WHERE: return bl_where(g, in[0], in[1], in[2]);
    case K_MASKED: return bl_masked_fill(g, in[0], in[1], (float)c->f0);
    case K_TRI: return bl_tri(g, x, c->i0, c->i1);
    case K_CAT: return bl_cat(g, n, in, c->i1);
    case K_STACK: return bl_stack(g, n, in, c->i1);
    case K_EMB: return bl_embedding_idx(g, in[0], in[1]);
    case K_ONEHOT: return bl_one_hot(g, x, c->i0);
    case K_LINSPACE: return bl_linspace(g, c->f0, c->f1, c->i0);
    case K_EYE: return bl_eye(g, c->i0, c->i1);
    case K_ATT: return bl_attention_masked(g, in[0], in[1], in[2], c->i1, in[3], c->i0, 0.0f, extra);
    }
    return NULL;
}

static const bl_tensor *gfind2(const char *a, const char *b)
{
    char key[256];
    snprintf(key, sizeof key, "%s.%s", a, b);
    return bl_st_get(G, key);
}

/* |a - b| <= atol max(1, rms(want)) + rtol |b| everywhere, shapes equal. */
static void compare(const char *what, const bl_tensor *got, const float *gdata, const bl_tensor *want,
                    double rtol, double atol)
{
    char a[64], b[64];
    if (!bl_same_shape(got, want)) {
        CHECK(0, "%s: shape %s, PyTorch %s", what, bl_shape_str(got, a, sizeof a), bl_shape_str(want, b, sizeof b));
        return;
    }
    double ss = 0;
    for (size_t i = 0; i < want->numel; i++) ss += (double)want->data[i] * want->data[i];
    double scale = fmax(1.0, sqrt(ss / (double)want->numel)), worst = 0;
    size_t wi = 0;
    int bad = 0;
    for (size_t i = 0; i < want->numel; i++) {
        double err = fabs((double)gdata[i] - want->data[i]), lim = atol * scale + rtol * fabs(want->data[i]);
        if (!(err <= lim)) bad++;
        if (!(err / lim <= worst)) { worst = isnan(err) ? INFINITY : err / lim; wi = i; }
    }
    CHECK(bad == 0, "%s: %d of %zu elements off; worst [%zu] %.9g vs PyTorch %.9g", what, bad, want->numel,
          wi, gdata[wi], want->data[wi]);
}

/* The inputs of case c, owned, with a grad where the file has one; returns how many. */
static int load_inputs(const mcase *c, bl_tensor **in, const char **names)
{
    char buf[128];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", c->inputs);
    for (char *tok = strtok(buf, " "); tok && n < 4; tok = strtok(NULL, " ")) {
        const bl_tensor *t = gfind2(c->name, tok);
        CHECK(t != NULL, "%s: input %s missing from the golden file", c->name, tok);
        if (!t) return -1;
        in[n] = bl_tensor_copy(t);
        char gk[64];
        snprintf(gk, sizeof gk, "grad.%s", tok);
        if (gfind2(c->name, gk)) bl_tensor_require_grad(in[n]);
        names[n++] = c->inputs + (tok - buf);
    }
    return n;
}

static void golden_case(const mcase *c)
{
    bl_tensor *in[4] = {0};
    const char *names[4];
    char what[160];
    int n = load_inputs(c, in, names);
    bl_graph *g = bl_graph_new();
    bl_tensor *extra = NULL, *out = n < 0 ? NULL : run(g, c, in, n, &extra);
    CHECK(out != NULL, "%s: op failed: %s", c->name, bl_error());
    const bl_tensor *want = gfind2(c->name, "out");
    CHECK(want != NULL, "%s: no output in the golden file", c->name);
    if (!out || !want) goto done;
    snprintf(what, sizeof what, "%s output", c->name);
    compare(what, out, out->data, want, 1e-5, 1e-5);
    const bl_tensor *wx = gfind2(c->name, c->kind == K_TOPK ? "out.indices" : "out.probs");
    if (wx) {
        CHECK(extra != NULL, "%s: no second output", c->name);
        snprintf(what, sizeof what, "%s second output", c->name);
        if (extra) compare(what, extra, extra->data, wx, 1e-5, 1e-5);
    }
    const bl_tensor *gout = gfind2(c->name, "gout");
    CHECK((gout != NULL) == (out->grad != NULL), "%s: gradient %s in torch but %s here", c->name,
          gout ? "kept" : "none", out->grad ? "kept" : "none");
    if (!gout || !out->grad || gout->numel != out->numel) goto done;
    CHECK(bl_graph_backward_from(g, out, gout->data) == 0, "%s: backward: %s", c->name, bl_error());
    for (int i = 0; i < n; i++) {
        char gk[64];
        int len = (int)strcspn(names[i], " ");
        snprintf(gk, sizeof gk, "grad.%.*s", len, names[i]);
        const bl_tensor *gw = gfind2(c->name, gk);
        if (!gw) continue;
        snprintf(what, sizeof what, "%s d/d%.*s", c->name, len, names[i]);
        compare(what, in[i], in[i]->grad, gw, 1e-4, 1e-5);
    }
done:
    for (int i = 0; i < 4; i++) bl_tensor_free(in[i]);
    bl_graph_free(g);
}

/* gradcheck wrapper: the case is the context */
static bl_tensor *gc_run(bl_graph *g, bl_tensor **in, void *ctx)
{
    const mcase *c = ctx;
    int n = 0;
    for (const char *p = c->inputs; *p; p++) n += *p == ' ';
    bl_tensor *extra;
    return run(g, c, in, n + 1, &extra);
}

static void fd_case(const mcase *c)
{
    bl_tensor *in[4] = {0};
    const char *names[4];
    int n = load_inputs(c, in, names);
    if (n < 0) return;
    double e = gradcheck(c->name, gc_run, in, n, (void *)c, 1e-2f, 100);
    CHECK(e < 2e-3, "%s: finite-difference gradient error %g", c->name, e);
    for (int i = 0; i < 4; i++) bl_tensor_free(in[i]);
}

/* Every case in the file has a line here and every line its data in the file. */
BL_TEST(test_coverage)
{
    for (int i = 0; i < G->n; i++) {
        const char *nm = G->tensors[i].name;
        int found = 0;
        for (int k = 0; k < NCASES && !found; k++) {
            size_t len = strlen(cases[k].name);
            found = !strncmp(nm, cases[k].name, len) && nm[len] == '.' &&
                    (!strchr(nm + len + 1, '.') || !strncmp(nm + len + 1, "grad.", 5) ||
                     !strncmp(nm + len + 1, "out.", 4));
        }
        CHECK(found, "golden tensor %s belongs to no case of this test", nm);
    }
    for (int k = 0; k < NCASES; k++)
        CHECK(gfind2(cases[k].name, "out") != NULL, "case %s has no data in the golden file", cases[k].name);
}

/* Errors: one line naming the op and what is wrong; nothing is made. */
BL_TEST(test_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *a = bl_tensor_new2(2, 3), *b = bl_tensor_new2(2, 4), *i = bl_tensor_new1(2);
    i->data[0] = 7;
    CHECK(!bl_binary_op(g, BL_ADD, a, b) && strstr(bl_error(), "cannot be broadcast"), "%s", bl_error());
    CHECK(!bl_cat(g, 2, (bl_tensor *[]){a, b}, 0) && strstr(bl_error(), "cat: tensor 2"), "%s", bl_error());
    CHECK(bl_cat(g, 2, (bl_tensor *[]){a, b}, 1) != NULL, "cat along 1: %s", bl_error());
    CHECK(!bl_stack(g, 2, (bl_tensor *[]){a, b}, 0) && strstr(bl_error(), "stack:"), "%s", bl_error());
    CHECK(!bl_topk(g, a, 4, -1, 1, NULL) && strstr(bl_error(), "k must be in [1, 3]"), "%s", bl_error());
    CHECK(!bl_embedding_idx(g, a, i) && strstr(bl_error(), "index 7"), "%s", bl_error());
    CHECK(!bl_reduce_op(g, BL_SUM, a, 2, 0), "dim 2 of a 2-D tensor accepted");
    CHECK(!bl_tri(g, i, 0, 0) && strstr(bl_error(), "at least 2"), "%s", bl_error());
    CHECK(!bl_masked_fill(g, a, b, 0) && strstr(bl_error(), "masked_fill"), "%s", bl_error());
    bl_tensor *q = bl_tensor_new4(1, 2, 3, 4), *m = bl_tensor_new2(3, 5);
    CHECK(!bl_attention_masked(g, q, q, q, 0, m, 0, 0, NULL) && strstr(bl_error(), "the mask [3, 5]"), "%s",
          bl_error());
    bl_tensor *all[] = {a, b, i, q, m};
    for (int k = 0; k < 5; k++) bl_tensor_free(all[k]);
    bl_graph_free(g);
}

int main(void)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/math.safetensors", src ? src : ".");
    G = bl_st_read(path);
    if (!G) {
        printf("Bail out! %s not readable (set BL_SRCDIR): %s\n", path, bl_error());
        return 1;
    }
    RUN(test_coverage);
    RUN(test_errors);
    for (int k = 0; k < NCASES; k++) {
        bl_t_cur_failed = 0;
        bl_t_skip = NULL;
        golden_case(&cases[k]);
        if (cases[k].fd) fd_case(&cases[k]);
        bl_t_count++;
        printf("%sok %d - %s\n", bl_t_cur_failed ? "not " : "", bl_t_count, cases[k].name);
        if (bl_t_cur_failed) bl_t_failed++;
        fflush(stdout);
    }
    bl_st_free(G);
    return bl_test_done();
}
