/* test_norms.c - LayerNorm, RMSNorm and QK-norm: forward against hand-computed values and a
 * double-precision reference, backward against finite differences, bad shapes. */
#include "nn_test.h"

static bl_tensor *f_ln(bl_graph *g, bl_tensor **in, void *c) { return bl_layernorm(g, in[0], in[1], in[2], *(float *)c); }
static bl_tensor *f_ln_w(bl_graph *g, bl_tensor **in, void *c) { return bl_layernorm(g, in[0], in[1], NULL, *(float *)c); }
static bl_tensor *f_ln_plain(bl_graph *g, bl_tensor **in, void *c) { return bl_layernorm(g, in[0], NULL, NULL, *(float *)c); }
static bl_tensor *f_rms(bl_graph *g, bl_tensor **in, void *c) { return bl_rmsnorm(g, in[0], in[1], *(float *)c); }
static bl_tensor *f_rms_plain(bl_graph *g, bl_tensor **in, void *c) { return bl_rmsnorm(g, in[0], NULL, *(float *)c); }
static bl_tensor *f_qkn(bl_graph *g, bl_tensor **in, void *c) { return bl_qk_norm(g, in[0], in[1], *(float *)c); }

/* Norm weights near 1 and biases near 0, like trained ones but not exactly the init. */
static void perturb_around(bl_tensor *t, float centre)
{
    for (size_t i = 0; i < t->numel; i++) t->data[i] = centre + 0.3f * t->data[i];
}

BL_TEST(test_layernorm_values)
{
    /* x = [1, 2, 3, 4]: mean 2.5, biased var 1.25, y = (x - 2.5) / sqrt(1.25 + 1e-5) */
    bl_tensor *x = bl_tensor_from(2, (int[]){1, 4}, (float[]){1, 2, 3, 4});
    bl_tensor *w = bl_tensor_from(1, (int[]){4}, (float[]){1, 2, 1, 1});
    bl_tensor *b = bl_tensor_from(1, (int[]){4}, (float[]){0, 0, 0, 10});
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_layernorm(g, x, w, b, 1e-5f);
    CHECK(y != NULL, "%s", bl_error());
    double s = 1.0 / sqrt(1.25 + 1e-5);
    CHECK_CLOSE(y->data[0], -1.5 * s, 1e-6);
    CHECK_CLOSE(y->data[1], -0.5 * s * 2, 1e-6);
    CHECK_CLOSE(y->data[2], 0.5 * s, 1e-6);
    CHECK_CLOSE(y->data[3], 1.5 * s + 10, 1e-5);
    bl_graph_free(g);
    bl_tensor_free(x);
    bl_tensor_free(w);
    bl_tensor_free(b);
}

/* Against a double reference on random rows with a large mean (catches one-pass variance). */
BL_TEST(test_norms_reference)
{
    bl_tensor *x = MK("nr.x", 0, 6, 20);
    for (size_t i = 0; i < x->numel; i++) x->data[i] = 100.0f + x->data[i];
    bl_graph *g = bl_graph_new();
    bl_tensor *ln = bl_layernorm(g, x, NULL, NULL, 1e-6f), *rms = bl_rmsnorm(g, x, NULL, 1e-6f);
    CHECK(ln && rms, "%s", bl_error());
    double ref_ln[120], ref_rms[120];
    for (int r = 0; r < 6; r++) {
        const float *xr = x->data + r * 20;
        double m = 0, v = 0, q = 0;
        for (int i = 0; i < 20; i++) m += xr[i] / 20.0;
        for (int i = 0; i < 20; i++) v += (xr[i] - m) * (xr[i] - m) / 20.0;
        for (int i = 0; i < 20; i++) q += (double)xr[i] * xr[i] / 20.0;
        for (int i = 0; i < 20; i++) {
            ref_ln[r * 20 + i] = (xr[i] - m) / sqrt(v + 1e-6);
            ref_rms[r * 20 + i] = xr[i] / sqrt(q + 1e-6);
        }
    }
    CHECK(nn_maxdiff(ln->data, ref_ln, 120) < 2e-4, "layernorm off by %g", nn_maxdiff(ln->data, ref_ln, 120));
    CHECK(nn_maxdiff(rms->data, ref_rms, 120) < 1e-6, "rmsnorm off by %g", nn_maxdiff(rms->data, ref_rms, 120));
    bl_graph_free(g);
    bl_tensor_free(x);
}

BL_TEST(test_layernorm_grad)
{
    float eps = 1e-5f;
    bl_tensor *in[3] = {MK("ln.x", 1, 3, 5, 8), MK("ln.w", 1, 8), MK("ln.b", 1, 8)};
    perturb_around(in[1], 1.0f);
    GRADCHECK("layernorm affine", f_ln, in, &eps);
    GRADCHECK("layernorm weight only", f_ln_w, in, &eps);
    GRADCHECK("layernorm no affine", f_ln_plain, in, &eps);
    FREE_ALL(in);
    /* 2-D input, wider rows, DiT eps */
    eps = 1e-6f;
    bl_tensor *in2[3] = {MK("ln2.x", 1, 4, 33), MK("ln2.w", 1, 33), MK("ln2.b", 1, 33)};
    perturb_around(in2[1], 1.0f);
    GRADCHECK("layernorm [4, 33]", f_ln, in2, &eps);
    FREE_ALL(in2);
}

BL_TEST(test_rmsnorm_grad)
{
    float eps = 1e-6f;
    bl_tensor *in[2] = {MK("rms.x", 1, 2, 3, 16), MK("rms.w", 1, 16)};
    perturb_around(in[1], 1.0f);
    GRADCHECK("rmsnorm weight", f_rms, in, &eps);
    GRADCHECK("rmsnorm no weight", f_rms_plain, in, &eps);
    FREE_ALL(in);
    /* a constant x (only w needs a gradient) */
    bl_tensor *in2[2] = {MK("rms2.x", 0, 5, 7), MK("rms2.w", 1, 7)};
    GRADCHECK("rmsnorm weight only", f_rms, in2, &eps);
    FREE_ALL(in2);
}

BL_TEST(test_qk_norm_grad)
{
    float eps = 1e-6f;
    bl_tensor *in[2] = {MK("qkn.x", 1, 2, 3, 4, 8), MK("qkn.w", 1, 8)};
    perturb_around(in[1], 1.0f);
    GRADCHECK("qk_norm", f_qkn, in, &eps);
    /* the tape names the op */
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_qk_norm(g, in[0], in[1], eps);
    CHECK(y && bl_graph_node_count(g) == 1 && bl_graph_node_at(g, 0)->op == BL_OP_QK_NORM,
          "qk_norm node");
    bl_graph_free(g);
    FREE_ALL(in);
}

BL_TEST(test_norm_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *x = MK("e.x", 0, 2, 8), *w = MK("e.w", 0, 7), *w2 = MK("e.w2", 0, 2, 4);
    CHECK(bl_layernorm(g, x, w, NULL, 1e-5f) == NULL, "bad weight accepted");
    CHECK_ERR("layernorm: weight has shape [7] but x has 8 features");
    CHECK(bl_layernorm(g, x, NULL, w, 1e-5f) == NULL, "bad bias accepted");
    CHECK_ERR("layernorm: bias has shape [7]");
    CHECK(bl_rmsnorm(g, x, w2, 1e-6f) == NULL, "2-D weight accepted");
    CHECK_ERR("rmsnorm: weight has shape [2, 4]");
    CHECK(bl_qk_norm(g, x, w, 1e-6f) == NULL, "bad qk_norm weight accepted");
    CHECK_ERR("qk_norm: weight");
    CHECK(bl_rmsnorm(g, x, NULL, -1.0f) == NULL, "negative eps accepted");
    CHECK_ERR("rmsnorm: eps must be");
    bl_graph_free(g);
    bl_tensor_free(x);
    bl_tensor_free(w);
    bl_tensor_free(w2);
}

int main(void)
{
    RUN(test_layernorm_values);
    RUN(test_norms_reference);
    RUN(test_layernorm_grad);
    RUN(test_rmsnorm_grad);
    RUN(test_qk_norm_grad);
    RUN(test_norm_errors);
    return bl_test_done();
}
