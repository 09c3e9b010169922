/* test_ops.c - every op of core/ops.h: backward against central finite differences (several
 * shape variants each), forward against hand-computed values, errors, and the arena staying
 * put across training-like steps. */
#include "core/blas.h"
#include <math.h>
#include <signal.h>
#include <sys/time.h>
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include "core/op.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "../check.h"
#include "../gradcheck.h"

#define GC_TOL 2e-3
#define GC_H 1e-2f

/* ---------------------------------------------------------------- helpers */

/* A new owned tensor of the given shape, N(0, std) values named `name`, with a grad buffer
 * when grad is nonzero. */
static bl_tensor *mk(const char *name, int grad, float std, int ndim, const int *shape)
{
    bl_tensor *t = bl_tensor_new(ndim, shape);
    gc_randn(t, name, std);
    if (grad) bl_tensor_require_grad(t);
    return t;
}
#define MK(name, grad, ...) \
    mk((name), (grad), 1.0f, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

static void free_all(bl_tensor **t, int n)
{
    for (int i = 0; i < n; i++) bl_tensor_free(t[i]);
}

/* Run gradcheck and CHECK the result against GC_TOL. */
#define GRADCHECK(what, fn, in, ctx)                                                       \
    do {                                                                                   \
        double e_ = gradcheck((what), (fn), (in), (int)(sizeof(in) / sizeof((in)[0])),     \
                              (ctx), GC_H, 60);                                             \
        CHECK(e_ < GC_TOL, "%s: gradient error %g", (what), e_);                          \
    } while (0)

/* ---------------------------------------------------------------- op wrappers for gradcheck */

static bl_tensor *f_linear(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_linear(g, in[0], in[1], in[2]); }
static bl_tensor *f_linear_nb(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_linear(g, in[0], in[1], NULL); }
static bl_tensor *f_linear_add(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_linear_add(g, in[0], in[1], in[2], in[3]); }
static bl_tensor *f_linear_gelu(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_linear_gelu(g, in[0], in[1], in[2]); }
static bl_tensor *f_mlp_gelu_add(bl_graph *g, bl_tensor **in, void *c)
{
    float p = *(float *)c;
    return bl_mlp_gelu_dropout_add(g, in[0], in[1], in[2], in[3], in[4], in[5], p, 999);
}
static bl_tensor *f_linear_dropout_add(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_linear_dropout_add(g, in[0], in[1], in[2], in[3], 0.3f, 12345);
}
static bl_tensor *f_matmul(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_matmul(g, in[0], in[1]); }
static bl_tensor *f_add(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_add(g, in[0], in[1]); }
static bl_tensor *f_mul(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_mul(g, in[0], in[1]); }
static bl_tensor *f_scale(bl_graph *g, bl_tensor **in, void *c) { return bl_scale(g, in[0], *(float *)c); }
static bl_tensor *f_gelu(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_gelu(g, in[0]); }
static bl_tensor *f_silu(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_silu(g, in[0]); }
static bl_tensor *f_softmax(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_softmax(g, in[0]); }
static bl_tensor *f_embedding(bl_graph *g, bl_tensor **in, void *c)
{
    const int *ids = c;
    return bl_embedding(g, in[0], ids + 1, ids[0]);
}
static bl_tensor *f_ce(bl_graph *g, bl_tensor **in, void *c) { return bl_cross_entropy(g, in[0], c); }
static bl_tensor *f_mse(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_mse(g, in[0], in[1]); }

/* x[:, 1:3] = v (x [3, 4], v [3, 2]) and x[::-1, 0] = v (v [3], negative stride) */
static bl_tensor *f_put_cols(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_strided_put(g, in[0], in[1], 2, (int[]){3, 2}, (long[]){4, 1}, 1);
}
static bl_tensor *f_put_rev(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_strided_put(g, in[0], in[1], 1, (int[]){3}, (long[]){-4}, 8);
}

/* ---------------------------------------------------------------- finite-difference checks */

BL_TEST(test_grad_linear)
{
    bl_tensor *in[3] = {MK("x", 1, 3, 5), MK("w", 1, 4, 5), MK("b", 1, 4)};
    GRADCHECK("linear 2-D with bias", f_linear, in, NULL);
    bl_tensor *in2[2] = {MK("x3", 1, 2, 3, 5), MK("w", 1, 4, 5)};
    GRADCHECK("linear 3-D x, no bias", f_linear_nb, in2, NULL);
    bl_tensor *in3[3] = {MK("x3", 1, 2, 3, 5), MK("w", 1, 6, 5), MK("b", 1, 6)};
    GRADCHECK("linear 3-D x with bias", f_linear, in3, NULL);
    bl_tensor *in4[3] = {MK("x1", 1, 5), MK("w", 1, 4, 5), MK("b", 0, 4)};
    GRADCHECK("linear 1-D x, constant bias", f_linear, in4, NULL);
    bl_tensor *in5[4] = {MK("x3", 1, 2, 3, 5), MK("w", 1, 4, 5), MK("b", 1, 4), MK("r", 1, 2, 3, 4)};
    GRADCHECK("linear_add (residual)", f_linear_add, in5, NULL);
    bl_tensor *in6[3] = {MK("x3", 1, 2, 3, 5), MK("w", 1, 4, 5), MK("b", 1, 4)};
    GRADCHECK("linear_gelu", f_linear_gelu, in6, NULL);
    /* the mask is fixed by the key: a smooth function of x, w, b, r */
    bl_tensor *in7[4] = {MK("x3", 1, 2, 3, 5), MK("w", 1, 4, 5), MK("b", 1, 4), MK("r", 1, 2, 3, 4)};
    GRADCHECK("linear_dropout_add", f_linear_dropout_add, in7, NULL);
    float p0 = 0.0f, p3 = 0.3f;
    bl_tensor *in8[6] = {MK("x3", 1, 2, 3, 5), MK("w1", 1, 7, 5), MK("b1", 1, 7), MK("w2", 1, 4, 7),
                         MK("b2", 1, 4), MK("r", 1, 2, 3, 4)};
    GRADCHECK("mlp_gelu_add", f_mlp_gelu_add, in8, &p0);
    GRADCHECK("mlp_gelu_add with dropout", f_mlp_gelu_add, in8, &p3);
    free_all(in8, 6);
    free_all(in, 3); free_all(in2, 2); free_all(in3, 3); free_all(in4, 3); free_all(in5, 4);
    free_all(in6, 3); free_all(in7, 4);
}

/* mlp_gelu_add gives the bits of linear_gelu then linear_add / linear_dropout_add, forward and
 * backward, with and without dropout, on a plain graph and on one with transient grads. */
BL_TEST(test_mlp_gelu_add_is_composition)
{
    for (int transient = 0; transient <= 1; transient++)
        for (int drop = 0; drop <= 1; drop++) {
            bl_tensor *x = MK("x", 1, 2, 70, 48), *w1 = MK("w1", 1, 96, 48), *b1 = MK("b1", 1, 96);
            bl_tensor *w2 = MK("w2", 1, 40, 96), *r = MK("r", 1, 2, 70, 40);
            float p = drop ? 0.2f : 0.0f, *res[2][5];
            for (int fused = 0; fused <= 1; fused++) {
                bl_graph *g = bl_graph_new();
                bl_graph_set_transient_grads(g, transient);
                bl_tensor *gx = bl_graph_input(g, x, 1), *gr = bl_graph_input(g, r, 1);
                bl_tensor_zero_grad(w1); bl_tensor_zero_grad(b1); bl_tensor_zero_grad(w2);
                bl_tensor *y;
                if (fused) {
                    y = bl_mlp_gelu_dropout_add(g, gx, w1, b1, w2, NULL, gr, p, 55);
                } else {
                    bl_tensor *h = bl_linear_gelu(g, gx, w1, b1);
                    y = drop ? bl_linear_dropout_add(g, h, w2, NULL, gr, p, 55) : bl_linear_add(g, h, w2, NULL, gr);
                }
                bl_tensor *loss = y ? bl_mse(g, y, r) : NULL;
                CHECK(loss && bl_graph_backward(g, loss) == 0, "backward: %s", bl_error());
                const bl_tensor *src[5] = {y, gx, w1, b1, w2};
                for (int k = 0; k < 5; k++) {
                    const float *v = k == 0 ? src[k]->data : src[k]->grad;
                    res[fused][k] = malloc(src[k]->numel * sizeof(float));
                    memcpy(res[fused][k], v, src[k]->numel * sizeof(float));
                }
                bl_graph_free(g);
            }
            size_t n[5] = {r->numel, x->numel, w1->numel, b1->numel, w2->numel};
            for (int k = 0; k < 5; k++) {
                CHECK(!memcmp(res[0][k], res[1][k], n[k] * sizeof(float)),
                      "%s differs (transient %d, dropout %d)", k ? "a grad" : "the output", transient, drop);
                free(res[0][k]);
                free(res[1][k]);
            }
            bl_tensor_free(x); bl_tensor_free(w1); bl_tensor_free(b1); bl_tensor_free(w2); bl_tensor_free(r);
        }
}

/* linear_dropout_add gives the bits of its composition linear, dropout, add, forward and
 * backward, on a plain graph and on one with transient grads (in-place backward). */
BL_TEST(test_linear_dropout_add_is_composition)
{
    for (int transient = 0; transient <= 1; transient++) {
        bl_tensor *x = MK("x", 1, 2, 70, 48), *w = MK("w", 1, 40, 48), *r = MK("r", 1, 2, 70, 40);
        float *grads[2][3];
        float *outs[2];
        for (int fused = 0; fused <= 1; fused++) {
            bl_graph *g = bl_graph_new();
            bl_graph_set_transient_grads(g, transient);
            bl_tensor *gx = bl_graph_input(g, x, 1), *gr = bl_graph_input(g, r, 1);
            bl_tensor_zero_grad(w);
            bl_tensor *y = fused ? bl_linear_dropout_add(g, gx, w, NULL, gr, 0.2f, 777)
                                 : bl_add(g, gr, bl_dropout(g, bl_linear(g, gx, w, NULL), 0.2f, 777));
            bl_tensor *loss = bl_mse(g, y, r);
            CHECK(loss && bl_graph_backward(g, loss) == 0, "backward: %s", bl_error());
            outs[fused] = malloc(y->numel * sizeof(float));
            memcpy(outs[fused], y->data, y->numel * sizeof(float));
            bl_tensor *ts[3] = {gx, w, gr};
            for (int k = 0; k < 3; k++) {
                grads[fused][k] = malloc(ts[k]->numel * sizeof(float));
                memcpy(grads[fused][k], ts[k]->grad, ts[k]->numel * sizeof(float));
            }
            bl_graph_free(g);
        }
        CHECK(!memcmp(outs[0], outs[1], r->numel * sizeof(float)), "forward differs (transient %d)", transient);
        size_t n[3] = {x->numel, w->numel, r->numel};
        for (int k = 0; k < 3; k++)
            CHECK(!memcmp(grads[0][k], grads[1][k], n[k] * sizeof(float)), "grad %d differs (transient %d)", k, transient);
        for (int f = 0; f < 2; f++) {
            free(outs[f]);
            for (int k = 0; k < 3; k++) free(grads[f][k]);
        }
        bl_tensor_free(x); bl_tensor_free(w); bl_tensor_free(r);
    }
}

BL_TEST(test_grad_matmul)
{
    bl_tensor *in[2] = {MK("a", 1, 3, 4), MK("b", 1, 4, 5)};
    GRADCHECK("matmul 2-D", f_matmul, in, NULL);
    bl_tensor *in2[2] = {MK("a", 1, 2, 3, 3, 4), MK("b", 1, 2, 3, 4, 2)};
    GRADCHECK("matmul batched 4-D", f_matmul, in2, NULL);
    bl_tensor *in3[2] = {MK("a", 1, 3, 2, 4), MK("b", 1, 4, 5)};
    GRADCHECK("matmul shared 2-D b", f_matmul, in3, NULL);
    bl_tensor *in4[2] = {MK("a", 0, 2, 3, 4), MK("b", 1, 2, 4, 5)};
    GRADCHECK("matmul batched, constant a", f_matmul, in4, NULL);
    free_all(in, 2); free_all(in2, 2); free_all(in3, 2); free_all(in4, 2);
}

BL_TEST(test_grad_add_mul)
{
    bl_tensor *same[2] = {MK("a", 1, 3, 4), MK("b", 1, 3, 4)};
    GRADCHECK("add same shape", f_add, same, NULL);
    GRADCHECK("mul same shape", f_mul, same, NULL);
    bl_tensor *row[2] = {MK("a", 1, 2, 3, 4), MK("b", 1, 4)};
    GRADCHECK("add b [D] over [B, T, D]", f_add, row, NULL);
    GRADCHECK("mul b [D] over [B, T, D]", f_mul, row, NULL);
    bl_tensor *mat[2] = {MK("a", 1, 2, 3, 4), MK("b", 1, 3, 4)};
    GRADCHECK("add b [T, D] over [B, T, D]", f_add, mat, NULL);
    GRADCHECK("mul b [T, D] over [B, T, D]", f_mul, mat, NULL);
    bl_tensor *sc[2] = {MK("a", 1, 3, 4), mk("s", 1, 1.0f, 0, NULL)};
    GRADCHECK("mul by a 0-D b", f_mul, sc, NULL);
    /* one tensor used twice: x * x, whose gradient is 2x; backward must add, not overwrite */
    bl_tensor *x = MK("x", 1, 3, 4);
    bl_tensor *twice[2] = {x, x};
    GRADCHECK("mul x * x", f_mul, twice, NULL);
    GRADCHECK("add x + x", f_add, twice, NULL);
    free_all(same, 2); free_all(row, 2); free_all(mat, 2); free_all(sc, 2); bl_tensor_free(x);
}

BL_TEST(test_grad_index_put)
{
    bl_tensor *in[2] = {MK("x", 1, 3, 4), MK("v", 1, 3, 2)};
    GRADCHECK("index_put x[:, 1:3] = v", f_put_cols, in, NULL);
    bl_tensor *rev[2] = {MK("x", 1, 3, 4), MK("v", 1, 3)};
    GRADCHECK("index_put x[::-1, 0] = v", f_put_rev, rev, NULL);
    /* the values: v where the region is, x elsewhere (written out by hand) */
    bl_graph *g = bl_graph_new();
    bl_tensor *y = f_put_rev(g, rev, NULL);
    int ok = y && y->numel == 12;
    for (int i = 0; ok && i < 12; i++)
        ok = y->data[i] == (i % 4 ? rev[0]->data[i] : rev[1]->data[2 - i / 4]);
    CHECK(ok, "x[::-1, 0] = v: values");
    CHECK(!bl_strided_put(g, rev[0], in[1], 1, (int[]){3}, (long[]){-4}, 8) && strstr(bl_error(), "index_put: v has shape"),
          "a v of another shape: %s", bl_error());
    CHECK(!bl_strided_put(g, rev[0], rev[1], 1, (int[]){3}, (long[]){4}, 8) && strstr(bl_error(), "outside"),
          "a region outside x: %s", bl_error());
    CHECK(g && bl_graph_node_count(g) == 1 && bl_graph_node_at(g, 0)->op == BL_OP_INDEX_PUT, "one index_put node");
    bl_graph_free(g);
    free_all(in, 2); free_all(rev, 2);
}

/* torch.floor_divide and torch.remainder (PyTorch 2: tests/golden/lang_python.py), b = 0 too */
BL_TEST(test_floordiv_remainder)
{
    static const double a[] = {-7, 7, -7.5, 5, 1, -3, 0.5}, b[] = {2, -2, 2, 3, 0, 3, -1};
    static const double fd[] = {-4, -4, -4, 1, INFINITY, -1, -1}, rem[] = {1, -1, 0.5, 2, NAN, -0.0, -0.5};
    for (int i = 0; i < 7; i++) {
        double q = bl_floordiv(a[i], b[i]), r = bl_remainder(a[i], b[i]);
        CHECK(q == fd[i], "%g // %g = %g", a[i], b[i], q);
        CHECK(isnan(rem[i]) ? isnan(r) : r == rem[i] && signbit(r) == signbit(rem[i]), "%g %% %g = %g", a[i], b[i], r);
    }
}

BL_TEST(test_grad_pointwise)
{
    bl_tensor *x[1] = {mk("x", 1, 2.0f, 2, (int[]){3, 7})};
    float s = -1.7f;
    GRADCHECK("scale", f_scale, x, &s);
    GRADCHECK("gelu", f_gelu, x, NULL);
    GRADCHECK("silu", f_silu, x, NULL);
    GRADCHECK("softmax [3, 7]", f_softmax, x, NULL);
    bl_tensor *x3[1] = {mk("x3", 1, 2.0f, 3, (int[]){2, 2, 5})};
    GRADCHECK("softmax [2, 2, 5]", f_softmax, x3, NULL);
    free_all(x, 1); free_all(x3, 1);
}

BL_TEST(test_grad_embedding)
{
    int ids[] = {5, 1, 3, 1, 0, 3};  /* count, then ids; 1 and 3 repeat */
    bl_tensor *w[1] = {MK("wte", 1, 4, 3)};
    GRADCHECK("embedding with repeated ids", f_embedding, w, ids);
    free_all(w, 1);
}

BL_TEST(test_grad_losses)
{
    int t[] = {2, -1, 6, 0, 2};
    bl_tensor *z[1] = {mk("logits", 1, 2.0f, 2, (int[]){5, 7})};
    GRADCHECK("cross_entropy with an ignored target", f_ce, z, t);
    int t3[] = {3, 0, -1, 1, 2, 3};
    bl_tensor *z3[1] = {mk("logits3", 1, 2.0f, 3, (int[]){2, 3, 4})};
    GRADCHECK("cross_entropy 3-D logits", f_ce, z3, t3);
    bl_tensor *zb[1] = {mk("logits_big", 1, 2.0f, 2, (int[]){5, 7})};
    for (size_t i = 0; i < zb[0]->numel; i++) zb[0]->data[i] += 1000.0f;  /* exp overflows unshifted */
    GRADCHECK("cross_entropy logits near 1000", f_ce, zb, t);
    bl_tensor *pt[2] = {MK("pred", 1, 2, 3, 4), MK("target", 1, 2, 3, 4)};
    GRADCHECK("mse", f_mse, pt, NULL);
    free_all(z, 1); free_all(z3, 1); free_all(zb, 1); free_all(pt, 2);
}

/* ---------------------------------------------------------------- known values */

BL_TEST(test_values_activations)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *x = bl_tensor_from(1, (int[]){3}, (float[]){1.0f, -1.0f, 0.0f});
    bl_tensor *s = bl_silu(g, x), *ge = bl_gelu(g, x), *sc = bl_scale(g, x, 2.5f);
    CHECK_CLOSE(s->data[0], 0.7311, 1e-4);        /* DESIGN.md section 2 */
    CHECK_CLOSE(s->data[1], -0.2689, 1e-4);
    CHECK_CLOSE(s->data[2], 0.0, 0);
    CHECK_CLOSE(ge->data[0], 0.8413447, 1e-6);    /* Phi(1) = 0.841344746 */
    CHECK_CLOSE(ge->data[1], -0.1586553, 1e-6);   /* -1 * Phi(-1) */
    CHECK_CLOSE(sc->data[1], -2.5, 0);
    /* softmax of [1, 2, 3] = e^i / (e + e^2 + e^3) */
    bl_tensor *r = bl_tensor_from(2, (int[]){2, 3}, (float[]){1, 2, 3, 1000, 1000, 1000});
    bl_tensor *p = bl_softmax(g, r);
    CHECK_CLOSE(p->data[0], 0.09003057, 1e-6);
    CHECK_CLOSE(p->data[1], 0.24472847, 1e-6);
    CHECK_CLOSE(p->data[2], 0.66524096, 1e-6);
    CHECK_CLOSE(p->data[4], 1.0 / 3.0, 1e-6);     /* large equal logits: no overflow */
    CHECK(bl_graph_node_count(g) == 0, "nodes recorded for constants: %d", bl_graph_node_count(g));
    bl_tensor_free(x); bl_tensor_free(r);
    bl_graph_free(g);
}

BL_TEST(test_values_linear_matmul)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *x = bl_tensor_from(2, (int[]){1, 2}, (float[]){1, 2});
    bl_tensor *w = bl_tensor_from(2, (int[]){3, 2}, (float[]){1, 0, 0, 1, 1, 1});
    bl_tensor *b = bl_tensor_from(1, (int[]){3}, (float[]){0.5f, 0, -1});
    bl_tensor *y = bl_linear(g, x, w, b);
    CHECK(y && y->ndim == 2 && y->shape[0] == 1 && y->shape[1] == 3, "linear shape");
    CHECK_CLOSE(y->data[0], 1.5, 0); CHECK_CLOSE(y->data[1], 2, 0); CHECK_CLOSE(y->data[2], 2, 0);
    bl_tensor *a = bl_tensor_from(2, (int[]){2, 2}, (float[]){1, 2, 3, 4});
    bl_tensor *c = bl_tensor_from(2, (int[]){2, 2}, (float[]){5, 6, 7, 8});
    bl_tensor *m = bl_matmul(g, a, c);
    CHECK_CLOSE(m->data[0], 19, 0); CHECK_CLOSE(m->data[1], 22, 0);
    CHECK_CLOSE(m->data[2], 43, 0); CHECK_CLOSE(m->data[3], 50, 0);
    bl_tensor *r = bl_tensor_from(1, (int[]){2}, (float[]){10, 20});
    bl_tensor *ad = bl_add(g, a, r), *mu = bl_mul(g, a, r);
    CHECK_CLOSE(ad->data[2], 13, 0); CHECK_CLOSE(ad->data[3], 24, 0);
    CHECK_CLOSE(mu->data[2], 30, 0); CHECK_CLOSE(mu->data[3], 80, 0);
    bl_tensor *all[] = {x, w, b, a, c, r};
    free_all(all, 6);
    bl_graph_free(g);
}

BL_TEST(test_values_losses)
{
    bl_graph *g = bl_graph_new();
    /* uniform logits: CE = ln V whatever the target */
    bl_tensor *z = bl_tensor_new2(4, 65);
    int t[] = {0, 64, 7, -1};
    bl_tensor *l = bl_cross_entropy(g, z, t);
    CHECK(l && l->ndim == 0, "scalar loss");
    CHECK_CLOSE(l->data[0], log(65.0), 1e-5);
    /* -log softmax([1, 2, 3])[2] = log(e + e^2 + e^3) - 3 */
    bl_tensor *z2 = bl_tensor_from(2, (int[]){2, 3}, (float[]){1, 2, 3, 9, 9, 9});
    int t2[] = {2, -1};
    l = bl_cross_entropy(g, z2, t2);
    CHECK_CLOSE(l->data[0], 0.40760596, 1e-6);
    /* every row ignored: loss 0 and no gradient */
    bl_tensor_require_grad(z2);
    int none[] = {-1, -1};
    l = bl_cross_entropy(g, z2, none);
    CHECK(l && l->data[0] == 0.0f, "all ignored");
    CHECK(bl_graph_backward(g, l) == 0, "backward: %s", bl_error());
    for (int i = 0; i < 6; i++) CHECK(z2->grad[i] == 0.0f, "grad[%d] = %g", i, z2->grad[i]);
    /* equal logits of any magnitude: CE = ln V, dz = (1/V - [j = t]) / rows, the max subtracted
     * first (at 1e18, max + ln V rounded back to the max and the loss came out 0) */
    const float mags[] = {1e9f, 1e12f, 1e15f, 1e18f, -1e18f, 1e36f};
    for (int k = 0; k < 6; k++) {
        bl_tensor *zb = bl_tensor_new2(2, 88);
        for (size_t i = 0; i < zb->numel; i++) zb->data[i] = mags[k];
        bl_tensor_require_grad(zb);
        int tb[] = {3, 87};
        bl_graph *gb = bl_graph_new();
        l = bl_cross_entropy(gb, zb, tb);
        CHECK(l != NULL, "cross_entropy at %g: %s", mags[k], bl_error());
        CHECK_CLOSE(l->data[0], log(88.0), 1e-6);
        CHECK(bl_graph_backward(gb, l) == 0, "backward: %s", bl_error());
        CHECK_CLOSE(zb->grad[0], 0.5 / 88, 1e-7);
        CHECK_CLOSE(zb->grad[3], 0.5 / 88 - 0.5, 1e-7);
        CHECK_CLOSE(zb->grad[88 + 87], 0.5 / 88 - 0.5, 1e-7);
        bl_graph_free(gb);
        bl_tensor_free(zb);
    }
    /* mse of [1, 2, 3] against 0 = 14 / 3 */
    bl_tensor *p = bl_tensor_from(1, (int[]){3}, (float[]){1, 2, 3}), *q = bl_tensor_new1(3);
    l = bl_mse(g, p, q);
    CHECK_CLOSE(l->data[0], 14.0 / 3.0, 1e-6);
    /* embedding copies rows */
    bl_tensor *w = bl_tensor_from(2, (int[]){3, 2}, (float[]){0, 1, 10, 11, 20, 21});
    bl_tensor *e = bl_embedding(g, w, (int[]){2, 0}, 2);
    CHECK(e && e->shape[0] == 2 && e->shape[1] == 2, "embedding shape");
    CHECK(e->data[0] == 20 && e->data[1] == 21 && e->data[2] == 0 && e->data[3] == 1, "rows");
    bl_tensor_free(z); bl_tensor_free(z2); bl_tensor_free(p); bl_tensor_free(q); bl_tensor_free(w);
    bl_graph_free(g);
}

/* ---------------------------------------------------------------- large sizes (threaded paths) */

/* Naive double-precision reference of a batched a [nb, M, K] @ b [nb, K, N] product. */
static double ref_mm(const bl_tensor *a, const bl_tensor *b, int bi, int i, int j, int M, int N,
                     int K, int shared)
{
    double s = 0;
    const float *A = a->data + (size_t)bi * M * K, *B = b->data + (shared ? 0 : (size_t)bi * K * N);
    for (int k = 0; k < K; k++) s += (double)A[i * K + k] * B[k * N + j];
    return s;
}

BL_TEST(test_large_matmul)
{
    /* attention-like blocks (the thread-per-batch path) and large ones (BLAS-threaded path) */
    int cases[][4] = {{24, 16, 16, 8}, {2, 128, 96, 64}};
    for (int c = 0; c < 2; c++) {
        int nb = cases[c][0], M = cases[c][1], N = cases[c][2], K = cases[c][3];
        bl_graph *g = bl_graph_new();
        bl_tensor *a = mk("a", 1, 1.0f, 3, (int[]){nb, M, K}), *b = mk("b", 1, 1.0f, 3, (int[]){nb, K, N});
        bl_tensor *y = bl_matmul(g, a, b);
        double worst = 0;
        for (int bi = 0; bi < nb; bi += 3)
            for (int i = 0; i < M; i += 5)
                for (int j = 0; j < N; j += 7)
                    worst = fmax(worst, fabs(y->data[((size_t)bi * M + i) * N + j] -
                                             ref_mm(a, b, bi, i, j, M, N, K, 0)));
        CHECK(worst < 1e-4, "case %d: forward error %g", c, worst);
        /* backward with dy = 1: da[i, k] = sum_j b[k, j]; db[k, j] = sum_i a[i, k] */
        float *ones = malloc(y->numel * sizeof(float));
        for (size_t i = 0; i < y->numel; i++) ones[i] = 1.0f;
        bl_graph_backward_from(g, y, ones);
        worst = 0;
        for (int bi = 0; bi < nb; bi += 5)
            for (int k = 0; k < K; k += 3) {
                double sa = 0, sb = 0;
                for (int j = 0; j < N; j++) sa += b->data[((size_t)bi * K + k) * N + j];
                for (int i = 0; i < M; i++) sb += a->data[((size_t)bi * M + i) * K + k];
                worst = fmax(worst, fabs(a->grad[((size_t)bi * M + 1) * K + k] - sa));
                worst = fmax(worst, fabs(b->grad[((size_t)bi * K + k) * N + 2] - sb));
            }
        CHECK(worst < 1e-3, "case %d: backward error %g", c, worst);
        free(ones);
        bl_tensor_free(a); bl_tensor_free(b);
        bl_graph_free(g);
    }
}

/* bl_sgemm / bl_sgemm_ld through each product backend (oneDNN where built in, OpenBLAS always)
 * against a product summed in double: every transpose pair, beta 0 / 0.5 / 1 over a filled C,
 * leading dimensions wider than the matrices, K = 0 (C = beta C), and a product tall enough
 * for bl_sgemm's split of the rows over two threads. Unknown backend names are refused. */
static double sgemm_case(int ta, int tb, int M, int N, int K, int pad, float beta, int whole)
{
    int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
    size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb, nc = (size_t)M * ldc;
    float *A = malloc((na + 1) * sizeof(float)), *B = malloc((nb + 1) * sizeof(float));
    float *C = malloc((nc + 1) * sizeof(float)), *C0 = malloc((nc + 1) * sizeof(float));
    for (size_t i = 0; i < na; i++) A[i] = (float)((i * 7919 % 1000) / 500.0 - 1.0);
    for (size_t i = 0; i < nb; i++) B[i] = (float)((i * 104729 % 997) / 498.5 - 1.0);
    for (size_t i = 0; i < nc; i++) C[i] = C0[i] = (float)((i % 13) - 6.0);
    if (whole) bl_sgemm(ta, tb, M, N, K, 1.5f, A, B, beta, C);
    else bl_sgemm_ld(ta, tb, M, N, K, 1.5f, A, lda, B, ldb, beta, C, ldc);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)(ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k]) *
                     (tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j]);
            double want = 1.5 * s + (beta != 0 ? beta * C0[(size_t)i * ldc + j] : 0.0);
            worst = fmax(worst, fabs(C[(size_t)i * ldc + j] - want) / (1.0 + sqrt((double)K)));
        }
    for (int i = 0; i < M; i++)   /* the padding columns of C are left alone */
        for (int j = N; j < ldc; j++)
            if (C[(size_t)i * ldc + j] != C0[(size_t)i * ldc + j]) worst = INFINITY;
    free(A); free(B); free(C); free(C0);
    return worst;
}

BL_TEST(test_sgemm_backends)
{
    const char *initial = bl_gemm_backend();
    const char *names[] = {"openblas", "onednn"};
    for (int bk = 0; bk < 2; bk++) {
        if (bl_gemm_set_backend(names[bk]) < 0) {
            CHECK(bk == 1, "openblas must always be available: %s", bl_error());
            continue;   /* built without oneDNN */
        }
        CHECK(strcmp(bl_gemm_backend(), names[bk]) == 0, "backend %s", bl_gemm_backend());
        int shapes[][3] = {{7, 5, 3}, {64, 64, 32}, {33, 17, 70}, {3, 4, 0}};
        float betas[] = {0.0f, 0.5f, 1.0f};
        for (int t = 0; t < 4; t++)
            for (int s = 0; s < 4; s++)
                for (int b = 0; b < 3; b++) {
                    double e = sgemm_case(t >> 1, t & 1, shapes[s][0], shapes[s][1], shapes[s][2],
                                          s & 1 ? 5 : 0, betas[b], 0);
                    CHECK(e < 1e-5, "%s ta=%d tb=%d %dx%dx%d beta %g: error %g", names[bk], t >> 1,
                          t & 1, shapes[s][0], shapes[s][1], shapes[s][2], betas[b], e);
                }
        /* tall: bl_sgemm splits the rows over two threads (M >= 1024, M N K >= 2^22) */
        for (int t = 0; t < 4; t++) {
            double e = sgemm_case(t >> 1, t & 1, 1100, 40, 100, 0, t == 3 ? 1.0f : 0.0f, 1);
            CHECK(e < 1e-5, "%s tall ta=%d tb=%d: error %g", names[bk], t >> 1, t & 1, e);
        }
    }
    CHECK(bl_gemm_set_backend("mkl") < 0, "an unknown backend was accepted");
    CHECK_ERR("unknown matrix-product backend 'mkl' (onednn or openblas)");
    CHECK(bl_gemm_set_backend(initial) == 0, "restoring %s: %s", initial, bl_error());
}

/* Signals arriving while oneDNN multiplies must not corrupt memory (its AVX-512 sgemm kernel
 * points the stack pointer at the heap: a signal frame there broke free(); see blas.h). An
 * interval timer fires SIGALRM every 50 us at a counting handler while products run at the top
 * level (rows split over the threads) and inside a parallel region; the products must stay
 * right and the heap whole (many malloc/free after). Crashed within a second before the fix. */
static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

BL_TEST(test_sgemm_under_signals)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval it = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    int M = 2048, N = 512, K = 128;
    float *A = malloc((size_t)M * K * sizeof(float)), *B = malloc((size_t)N * K * sizeof(float));
    float *C = malloc((size_t)M * N * sizeof(float));
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = (float)((i * 7919 % 1000) / 500.0 - 1.0);
    for (size_t i = 0; i < (size_t)N * K; i++) B[i] = (float)((i * 104729 % 997) / 498.5 - 1.0);
    setitimer(ITIMER_REAL, &it, NULL);
    for (int rep = 0; rep < 60; rep++) {
        bl_sgemm(0, 1, M, N, K, 1.0f, A, B, 0.0f, C);
#pragma omp parallel for schedule(static)
        for (int blk = 0; blk < M / 256; blk++)
            bl_sgemm(0, 1, 256, N, K, 1.0f, A + (size_t)blk * 256 * K, B, 0.0f, C + (size_t)blk * 256 * N);
        for (int k = 0; k < 64; k++) free(malloc((size_t)(k + 1) * 4096));
    }
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old, NULL);
    double worst = 0;
    for (int i = 0; i < M; i += 97)
        for (int j = 0; j < N; j += 13) {
            double s = 0;
            for (int k = 0; k < K; k++) s += (double)A[(size_t)i * K + k] * B[(size_t)j * K + k];
            worst = fmax(worst, fabs(C[(size_t)i * N + j] - s));
        }
    CHECK(worst < 1e-3, "products under signals off by %g", worst);
    CHECK(alarms > 100, "only %d signals arrived: the test did not test", (int)alarms);
    free(A); free(B); free(C);
}

BL_TEST(test_large_pointwise)
{
    /* 512 x 256 = 131k elements: the OpenMP paths of add/mul broadcast, gelu, silu, bias grad */
    int R = 512, D = 256;
    bl_graph *g = bl_graph_new();
    bl_tensor *x = mk("x", 1, 2.0f, 2, (int[]){R, D}), *bb = mk("b", 1, 1.0f, 1, (int[]){D});
    bl_tensor *h = bl_mul(g, bl_add(g, x, bb), bb);        /* (x + b) * b */
    bl_tensor *y = bl_silu(g, bl_gelu(g, h));
    float *ones = malloc(y->numel * sizeof(float));
    for (size_t i = 0; i < y->numel; i++) ones[i] = 1.0f;
    CHECK(bl_graph_backward_from(g, y, ones) == 0, "backward: %s", bl_error());
    /* independent scalar chain rule in double */
    double worst = 0, worst_b = 0;
    double *db = calloc((size_t)D, sizeof(double));
    for (int r = 0; r < R; r++)
        for (int j = 0; j < D; j++) {
            double xv = x->data[(size_t)r * D + j], bv = bb->data[j];
            double hv = (xv + bv) * bv;
            double phi = 0.5 * (1 + erf(hv / sqrt(2))), gv = hv * phi;
            double dg = phi + hv * exp(-hv * hv / 2) / sqrt(2 * M_PI);
            double sg = 1 / (1 + exp(-gv)), ds = sg * (1 + gv * (1 - sg));
            double yv = gv * sg, dh = ds * dg;
            worst = fmax(worst, fabs(y->data[(size_t)r * D + j] - yv));
            worst = fmax(worst, fabs(x->grad[(size_t)r * D + j] - dh * bv));
            db[j] += dh * (xv + 2 * bv);                   /* d/db of (x + b) b */
        }
    for (int j = 0; j < D; j++) worst_b = fmax(worst_b, fabs(bb->grad[j] - db[j]) / fmax(1, fabs(db[j])));
    CHECK(worst < 1e-4, "elementwise error %g", worst);
    CHECK(worst_b < 1e-4, "broadcast grad error %g", worst_b);
    /* linear bias gradient over many rows = column sums of dy (dy = 1 -> R) */
    bl_graph_reset(g);
    bl_tensor *w = mk("w", 1, 0.1f, 2, (int[]){D, D});
    bl_tensor_zero_grad(bb);
    y = bl_linear(g, x, w, bb);
    bl_graph_backward_from(g, y, ones);
    for (int j = 0; j < D; j++) CHECK(bb->grad[j] == (float)R, "bias grad[%d] = %g", j, bb->grad[j]);
    free(ones); free(db);
    bl_tensor_free(x); bl_tensor_free(bb); bl_tensor_free(w);
    bl_graph_free(g);
}

BL_TEST(test_large_fused_linear)
{
    /* y = r + x W^T + b and z = gelu(x V^T + c) at 1024 rows (threaded and row-split BLAS
     * paths), values and every gradient against a double loop; seed dy = pattern */
    enum { R = 1024, IN = 64, OUT = 256 };
    bl_graph *g = bl_graph_new();
    bl_tensor *x = mk("x", 1, 1.0f, 2, (int[]){R, IN}), *w = mk("w", 1, 0.2f, 2, (int[]){OUT, IN});
    bl_tensor *b = mk("b", 1, 1.0f, 1, (int[]){OUT}), *r = mk("r", 1, 1.0f, 2, (int[]){R, OUT});
    bl_tensor *v = mk("v", 1, 0.2f, 2, (int[]){OUT, IN}), *c = mk("c", 1, 1.0f, 1, (int[]){OUT});
    bl_tensor *y = bl_linear_add(g, x, w, b, r), *z = bl_linear_gelu(g, x, v, c);
    CHECK(y && z, "fused linears: %s", bl_error());
    if (!y || !z) return;
    float *seed = malloc((size_t)R * OUT * sizeof(float));
    for (size_t i = 0; i < (size_t)R * OUT; i++) seed[i] = (float)((int)(i % 13) - 6) * 0.1f;
    float *gz = bl_grad_ready(z);            /* seed z too, then one walk from y */
    for (size_t i = 0; i < (size_t)R * OUT; i++) gz[i] += seed[i];
    CHECK(bl_graph_backward_from(g, y, seed) == 0, "backward: %s", bl_error());
    double *dx = calloc((size_t)R * IN, sizeof(double)), *dw = calloc((size_t)OUT * IN, sizeof(double));
    double *dv = calloc((size_t)OUT * IN, sizeof(double)), *db = calloc(OUT, sizeof(double));
    double *dc = calloc(OUT, sizeof(double)), worst_y = 0, worst_g = 0;
    for (int i = 0; i < R; i++)
        for (int o = 0; o < OUT; o++) {
            double a = b->data[o], h = c->data[o], gy = seed[(size_t)i * OUT + o];
            for (int k = 0; k < IN; k++) {
                a += (double)x->data[(size_t)i * IN + k] * w->data[(size_t)o * IN + k];
                h += (double)x->data[(size_t)i * IN + k] * v->data[(size_t)o * IN + k];
            }
            double phi = 0.5 * (1 + erf(h / sqrt(2))), dg = phi + h * exp(-h * h / 2) / sqrt(2 * M_PI);
            worst_y = fmax(worst_y, fabs(y->data[(size_t)i * OUT + o] - (r->data[(size_t)i * OUT + o] + a)));
            worst_y = fmax(worst_y, fabs(z->data[(size_t)i * OUT + o] - h * phi));
            worst_g = fmax(worst_g, fabs(r->grad[(size_t)i * OUT + o] - gy));
            db[o] += gy;
            dc[o] += gy * dg;
            for (int k = 0; k < IN; k++) {
                dx[(size_t)i * IN + k] += gy * w->data[(size_t)o * IN + k] + gy * dg * v->data[(size_t)o * IN + k];
                dw[(size_t)o * IN + k] += gy * x->data[(size_t)i * IN + k];
                dv[(size_t)o * IN + k] += gy * dg * x->data[(size_t)i * IN + k];
            }
        }
    for (size_t i = 0; i < (size_t)R * IN; i++) worst_g = fmax(worst_g, fabs(x->grad[i] - dx[i]) / fmax(1, fabs(dx[i])));
    for (size_t i = 0; i < (size_t)OUT * IN; i++) {
        worst_g = fmax(worst_g, fabs(w->grad[i] - dw[i]) / fmax(1, fabs(dw[i])));
        worst_g = fmax(worst_g, fabs(v->grad[i] - dv[i]) / fmax(1, fabs(dv[i])));
    }
    for (int o = 0; o < OUT; o++) {
        worst_g = fmax(worst_g, fabs(b->grad[o] - db[o]) / fmax(1, fabs(db[o])));
        worst_g = fmax(worst_g, fabs(c->grad[o] - dc[o]) / fmax(1, fabs(dc[o])));
    }
    CHECK(worst_y < 1e-4, "fused linear values off by %g", worst_y);
    CHECK(worst_g < 1e-4, "fused linear gradients off by %g", worst_g);
    bl_graph_reset(g);
    CHECK(bl_linear_add(g, x, w, b, x) == NULL, "a residual of the wrong shape accepted");
    CHECK_ERR("linear_add: residual [1024, 64] does not match the output [1024, 256]");
    free(seed); free(dx); free(dw); free(dv); free(db); free(dc);
    bl_tensor *all[] = {x, w, b, r, v, c};
    free_all(all, 6);
    bl_graph_free(g);
}

BL_TEST(test_linear_gelu_accuracy)
{
    /* h on a fine grid over [-9, 9] through a 1x1 identity: y = h Phi(h) and the backward's
     * gelu'(h) = Phi(h) + h phi(h) against double erf, to the documented accuracy of the
     * epilogue (A&S 26.2.17, |Phi error| < 7.5e-8) plus float rounding */
    enum { N = 36001 };
    bl_graph *g = bl_graph_new();
    bl_tensor *x = mk("h", 1, 0.0f, 2, (int[]){N, 1}), *w = mk("one", 0, 0.0f, 2, (int[]){1, 1});
    for (int i = 0; i < N; i++) x->data[i] = -9.0f + 18.0f * (float)i / (N - 1);
    w->data[0] = 1.0f;
    bl_tensor *y = bl_linear_gelu(g, x, w, NULL);
    float *one = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) one[i] = 1.0f;
    CHECK(y && bl_graph_backward_from(g, y, one) == 0, "linear_gelu: %s", bl_error());
    double worst_y = 0, worst_d = 0;
    for (int i = 0; y && i < N; i++) {
        double h = x->data[i], cdf = 0.5 * (1 + erf(h / sqrt(2))), pdf = exp(-h * h / 2) / sqrt(2 * M_PI);
        worst_y = fmax(worst_y, fabs(y->data[i] - h * cdf) / fmax(1, fabs(h)));
        worst_d = fmax(worst_d, fabs(x->grad[i] - (cdf + h * pdf)) / fmax(1, fabs(h)));
    }
    CHECK(worst_y < 4e-7, "gelu values off by %g", worst_y);
    CHECK(worst_d < 4e-7, "gelu derivative off by %g", worst_d);
    printf("# linear_gelu: worst error / max(1, |h|): value %.2g, derivative %.2g\n", worst_y, worst_d);
    free(one);
    bl_tensor_free(x); bl_tensor_free(w);
    bl_graph_free(g);
}

/* ---------------------------------------------------------------- errors */

BL_TEST(test_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *x = bl_tensor_new2(2, 64), *w = bl_tensor_new2(256, 128), *b = bl_tensor_new1(255);
    CHECK(bl_linear(g, x, w, NULL) == NULL, "linear accepted 64 features for [256, 128]");
    CHECK_ERR("linear: x [2, 64] has 64 features but weight [256, 128] expects 128");
    bl_tensor *w2 = bl_tensor_new2(256, 64);
    CHECK(bl_linear(g, x, w2, b) == NULL, "bad bias accepted");
    CHECK_ERR("linear: bias [255]");
    CHECK(bl_linear(g, x, b, NULL) == NULL, "1-D weight accepted");
    CHECK_ERR("weight must be 2-D");
    CHECK(bl_linear(g, NULL, w, NULL) == NULL, "NULL x accepted");
    CHECK_ERR("linear: x is missing");

    bl_tensor *a = bl_tensor_new3(2, 3, 4), *m = bl_tensor_new3(3, 4, 5), *k5 = bl_tensor_new2(5, 2);
    CHECK(bl_matmul(g, a, k5) == NULL, "inner mismatch accepted");
    CHECK_ERR("matmul: a [2, 3, 4] has 4 columns but b [5, 2] has 5 rows");
    CHECK(bl_matmul(g, a, m) == NULL, "batch mismatch accepted");
    CHECK_ERR("batch dims");
    CHECK(bl_matmul(g, b, k5) == NULL, "1-D a accepted");
    CHECK_ERR("at least 2 dimensions");

    bl_tensor *t3 = bl_tensor_new1(3);
    CHECK(bl_add(g, a, t3) == NULL, "add: [3] over [2, 3, 4] accepted");
    CHECK_ERR("add: b [3] must have the shape of a [2, 3, 4]");
    CHECK(bl_mul(g, t3, a) == NULL, "mul: larger b accepted");
    CHECK_ERR("mul: b [2, 3, 4]");

    bl_tensor *wte = bl_tensor_new2(4, 3);
    CHECK(bl_embedding(g, wte, (int[]){0, 9}, 2) == NULL, "id 9 accepted");
    CHECK_ERR("embedding: id 9 at position 1 is out of range");
    CHECK(bl_embedding(g, wte, (int[]){-1}, 1) == NULL, "id -1 accepted");
    CHECK_ERR("id -1");

    bl_tensor *z = bl_tensor_new2(2, 5);
    CHECK(bl_cross_entropy(g, z, (int[]){0, 5}) == NULL, "target 5 of 5 accepted");
    CHECK_ERR("cross_entropy: target 5 at row 1 is out of range for logits [2, 5]");
    CHECK(bl_cross_entropy(g, z, (int[]){-2, 0}) == NULL, "target -2 accepted");
    CHECK_ERR("target -2");

    CHECK(bl_mse(g, z, a) == NULL, "mse shape mismatch accepted");
    CHECK_ERR("mse: pred [2, 5] and target [2, 3, 4]");
    bl_tensor *s = bl_tensor_scalar(1.0f);
    CHECK(bl_softmax(g, s) == NULL, "softmax of a scalar accepted");
    CHECK_ERR("softmax");
    CHECK(bl_gelu(g, NULL) == NULL, "NULL accepted");
    CHECK_ERR("gelu: x is missing");
    CHECK(bl_graph_node_count(g) == 0, "failed ops recorded nodes");
    bl_tensor *all[] = {x, w, b, w2, a, m, k5, t3, wte, z, s};
    free_all(all, 11);
    bl_graph_free(g);
}

/* ---------------------------------------------------------------- arena and recording */

/* one training-like step: linear -> gelu -> linear -> mse, plus an embedding + CE head */
static void train_step(bl_graph *g, bl_tensor **p, bl_tensor *x, bl_tensor *tgt, const int *ids)
{
    bl_graph_reset(g);
    bl_tensor *h = bl_gelu(g, bl_linear(g, x, p[0], p[1]));
    bl_tensor *y = bl_linear(g, h, p[2], p[3]);
    bl_tensor *l1 = bl_mse(g, y, tgt);
    bl_tensor *e = bl_embedding(g, p[4], ids, 8);
    bl_tensor *lg = bl_matmul(g, e, p[5]);
    bl_tensor *l2 = bl_cross_entropy(g, bl_softmax(g, lg), ids);
    bl_tensor *l = bl_add(g, bl_scale(g, l1, 0.5f), bl_mul(g, l2, l2));
    bl_graph_backward(g, l);
}

BL_TEST(test_arena_steady)
{
    bl_tensor *p[6] = {MK("fc1.w", 1, 64, 32), MK("fc1.b", 1, 64), MK("fc2.w", 1, 32, 64),
                       MK("fc2.b", 1, 32), MK("wte", 1, 10, 16), MK("head", 1, 16, 10)};
    bl_tensor *x = MK("x", 0, 4, 16, 32), *tgt = MK("t", 0, 4, 16, 32);
    int ids[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    bl_graph *g = bl_graph_new();
    train_step(g, p, x, tgt, ids);
    train_step(g, p, x, tgt, ids);
    size_t m = bl_graph_arena_mallocs(g);
    int nodes = bl_graph_node_count(g);
    for (int i = 0; i < 3; i++) train_step(g, p, x, tgt, ids);
    CHECK(bl_graph_arena_mallocs(g) == m, "arena allocated again: %zu -> %zu", m, bl_graph_arena_mallocs(g));
    CHECK(nodes == 11, "nodes per step: %d", nodes);
    /* inference: nothing recorded, outputs carry no grad */
    bl_graph_reset(g);
    bl_graph_set_record(g, 0);
    bl_tensor *y = bl_linear(g, x, p[0], p[1]);
    CHECK(y && !y->grad && bl_graph_node_count(g) == 0, "recording off still recorded");
    free_all(p, 6); bl_tensor_free(x); bl_tensor_free(tgt);
    bl_graph_free(g);
}

/* Dropout (bl_dropout, core/rng.h's stream): over 2^20 elements the kept fraction is 1 - p within
 * 5 standard deviations (sqrt(p (1 - p) / n)) for several p, every kept value is x / (1 - p)
 * (PyTorch's inverted dropout) and every other one 0; the same key gives the same mask and
 * another key another; the gradient is the same mask times dy (finite differences); p = 0 is
 * the identity and p outside [0, 1) an error. */
static bl_tensor *f_dropout(bl_graph *g, bl_tensor **in, void *c) { return bl_dropout(g, in[0], 0.3f, *(uint64_t *)c); }

BL_TEST(test_dropout)
{
    const int n = 1 << 20;
    bl_graph *g = bl_graph_new();
    bl_tensor *x = bl_tensor_new(1, (int[]){n});
    for (int i = 0; i < n; i++) x->data[i] = 1.0f + (float)(i % 7);
    const float ps[] = {0.1f, 0.2f, 0.5f, 0.9f};
    for (int k = 0; k < 4; k++) {
        float p = ps[k], s = 1.0f / (1.0f - p);
        bl_graph_reset(g);
        bl_tensor *y = bl_dropout(g, x, p, bl_dropout_key(0, 7, (uint64_t)k));
        CHECK(y != NULL, "%s", bl_error());
        if (!y) continue;
        long kept = 0, bad = 0;
        for (int i = 0; i < n; i++) {
            if (y->data[i] != 0.0f) {
                kept++;
                bad += y->data[i] != x->data[i] * s;
            }
        }
        double rate = (double)kept / n, sd = sqrt(p * (1.0 - p) / n);
        CHECK(fabs(rate - (1.0 - p)) < 5 * sd, "p %g: kept %.5f, expected %.5f +- %.5f", p, rate, 1.0 - p, 5 * sd);
        CHECK(bad == 0, "p %g: %ld kept values are not x / (1 - p)", p, bad);
    }
    /* same key, same mask; another step or site, another */
    bl_graph_reset(g);
    bl_tensor *a = bl_dropout(g, x, 0.5f, bl_dropout_key(0, 1, 2));
    bl_tensor *b = bl_dropout(g, x, 0.5f, bl_dropout_key(0, 1, 2));
    bl_tensor *c = bl_dropout(g, x, 0.5f, bl_dropout_key(0, 2, 2));
    bl_tensor *d = bl_dropout(g, x, 0.5f, bl_dropout_key(0, 1, 3));
    CHECK(a && b && c && d, "%s", bl_error());
    if (a && b && c && d) {
        long same_ab = 0, same_ac = 0, same_ad = 0;
        for (int i = 0; i < n; i++) {
            same_ab += (a->data[i] != 0) == (b->data[i] != 0);
            same_ac += (a->data[i] != 0) == (c->data[i] != 0);
            same_ad += (a->data[i] != 0) == (d->data[i] != 0);
        }
        CHECK(same_ab == n, "the same key gave another mask");
        /* independent masks of p 0.5 agree on half the elements */
        CHECK(fabs((double)same_ac / n - 0.5) < 0.005 && fabs((double)same_ad / n - 0.5) < 0.005,
              "masks of other steps/sites agree on %.4f / %.4f", (double)same_ac / n, (double)same_ad / n);
    }
    CHECK(bl_dropout(g, x, 0.0f, 1) == x, "p 0 is not the identity");
    CHECK(bl_dropout(g, x, 1.0f, 1) == NULL, "p 1 accepted");
    CHECK_ERR("dropout: p must be in [0, 1), got 1");
    bl_graph_free(g);
    bl_tensor_free(x);
    uint64_t key = bl_dropout_key(3, 0, 0);
    bl_tensor *xs[1] = {mk("x", 1, 2.0f, 2, (int[]){4, 9})};
    GRADCHECK("dropout", f_dropout, xs, &key);
    free_all(xs, 1);
}

/* Every op has one name (op.h): distinct, found again by bl_op_lookup; the binary, unary and
 * reduction blocks line up with tensor_math.h's enums (names written out here); a recorded node
 * carries its op, whichever kernel made it. */
BL_TEST(test_op_names)
{
    for (int i = 0; i < BL_OP_COUNT; i++) {
        const char *a = bl_op_name((bl_op)i);
        CHECK(a && a[0] && strcmp(a, "?") && bl_op_lookup(a) == i, "op %d name %s", i, a);
    }
    CHECK(bl_op_lookup("no_such_op") == -1 && bl_op_lookup(NULL) == -1, "unknown name");
    CHECK(!strcmp(bl_op_name(BL_OP_COUNT), "?"), "out of range");
    static const char *bin[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "floor_divide", "remainder", "eq", "ne", "lt", "le", "gt", "ge"};
    static const char *un[] = {"neg", "abs", "sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "sign",
                               "floor", "ceil", "erf"};
    static const char *red[] = {"sum", "mean", "var", "std", "rms", "min", "max"};
    for (int k = 0; k <= BL_GE; k++) CHECK(!strcmp(bl_op_name(BL_OP_OF_BINOP(k)), bin[k]), "binop %d", k);
    for (int k = 0; k <= BL_ERF; k++) CHECK(!strcmp(bl_op_name(BL_OP_OF_UNOP(k)), un[k]), "unop %d", k);
    for (int k = 0; k <= BL_MAX; k++) CHECK(!strcmp(bl_op_name(BL_OP_OF_REDUCE(k)), red[k]), "reduce %d", k);

    bl_graph *g = bl_graph_new();
    bl_tensor *a = bl_tensor_new(2, (int[]){2, 3}), *b = bl_tensor_new(2, (int[]){2, 3});
    bl_tensor_require_grad(a);
    bl_tensor_fill(a, 0.5f);
    bl_tensor_fill(b, 2.0f);
    bl_add(g, a, b);
    bl_binary_op(g, BL_ADD, a, b);
    bl_pow_scalar(g, a, 3.0f);
    bl_binary_op(g, BL_POW, a, b);
    bl_linear(g, a, b, NULL);
    static const bl_op want[] = {BL_OP_ADD, BL_OP_ADD, BL_OP_POW, BL_OP_POW, BL_OP_LINEAR};
    CHECK(bl_graph_node_count(g) == 5, "%d nodes", bl_graph_node_count(g));
    for (int i = 0; i < 5 && i < bl_graph_node_count(g); i++)
        CHECK(bl_graph_node_at(g, i)->op == want[i], "node %d is %s", i, bl_op_name(bl_graph_node_at(g, i)->op));
    bl_graph_free(g);
    bl_tensor_free(a);
    bl_tensor_free(b);
}

int main(void)
{
    RUN(test_op_names);
    RUN(test_grad_linear);
    RUN(test_linear_dropout_add_is_composition);
    RUN(test_mlp_gelu_add_is_composition);
    RUN(test_grad_matmul);
    RUN(test_grad_add_mul);
    RUN(test_grad_pointwise);
    RUN(test_grad_index_put);
    RUN(test_floordiv_remainder);
    RUN(test_grad_embedding);
    RUN(test_dropout);
    RUN(test_grad_losses);
    RUN(test_values_activations);
    RUN(test_values_linear_matmul);
    RUN(test_values_losses);
    RUN(test_large_matmul);
    RUN(test_sgemm_backends);
    RUN(test_sgemm_under_signals);
    RUN(test_large_pointwise);
    RUN(test_large_fused_linear);
    RUN(test_linear_gelu_accuracy);
    RUN(test_errors);
    RUN(test_arena_steady);
    return bl_test_done();
}
