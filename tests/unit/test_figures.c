/* test_figures.c - the published figures of DESIGN.md sections 2 and 3, reproduced through the
 * library's ops: RMSNorm of [3, 4], silu(+-1), the FFN parameter counts at dim 128, the 2-D and
 * 1-D RoPE relative-position property, RoPE keeping lengths, and QK-norm bounding the logits. */
#include "core/ops.h"
#include "nn_test.h"

BL_TEST(test_rmsnorm_figure)
{
    /* x = [3, 4]: rms = sqrt((9 + 16) / 2) = 3.5355, output [0.8485, 1.1314] (w = 1) */
    bl_tensor *x = bl_tensor_from(1, (int[]){2}, (float[]){3, 4});
    bl_tensor *w = bl_tensor_from(1, (int[]){2}, (float[]){1, 1});
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_rmsnorm(g, x, w, 1e-6f);
    CHECK(y != NULL, "%s", bl_error());
    CHECK_CLOSE(y->data[0], 0.8485, 5e-5);
    CHECK_CLOSE(y->data[1], 1.1314, 5e-5);
    CHECK_CLOSE(3.0 / y->data[0], 3.5355, 5e-5);
    /* RMSNorm keeps the mean direction: no mean subtraction, so the output mean is 0.9899, not 0 */
    CHECK_CLOSE((y->data[0] + y->data[1]) / 2, 0.98995, 5e-5);
    bl_graph_free(g);
    bl_tensor_free(x);
    bl_tensor_free(w);
}

BL_TEST(test_silu_figure)
{
    bl_tensor *a = bl_tensor_from(1, (int[]){2}, (float[]){1, -1});
    bl_tensor *one = bl_tensor_from(1, (int[]){2}, (float[]){1, 1});
    bl_graph *g = bl_graph_new();
    bl_tensor *s = bl_silu(g, a), *gate = bl_swiglu(g, a, one);
    CHECK(s && gate, "%s", bl_error());
    CHECK_CLOSE(s->data[0], 0.7311, 5e-5);
    CHECK_CLOSE(s->data[1], -0.2689, 5e-5);
    /* the SwiGLU gate with value 1 is silu itself */
    CHECK_CLOSE(gate->data[0], 0.7311, 5e-5);
    CHECK_CLOSE(gate->data[1], -0.2689, 5e-5);
    bl_graph_free(g);
    bl_tensor_free(a);
    bl_tensor_free(one);
}

/* Sum of numel over n weight tensors. */
static long count_params(bl_tensor **t, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += (long)t[i]->numel;
    return s;
}

BL_TEST(test_ffn_param_figure)
{
    enum { D = 128 };
    int hg = 4 * D, hs = bl_swiglu_hidden(D, 4.0f, 0);
    CHECK(hs == 341, "swiglu hidden %d", hs);
    /* the weights as the models hold them; the FFNs run on them, so the shapes are the real ones */
    bl_tensor *gw[4] = {bl_tensor_new2(hg, D), bl_tensor_new1(hg), bl_tensor_new2(D, hg), bl_tensor_new1(D)};
    bl_tensor *sw[6] = {bl_tensor_new2(hs, D), bl_tensor_new1(hs), bl_tensor_new2(hs, D),
                        bl_tensor_new1(hs), bl_tensor_new2(D, hs), bl_tensor_new1(D)};
    bl_tensor *x = bl_tensor_new2(2, D);
    bl_graph *g = bl_graph_new();
    bl_tensor *yg = bl_mlp_gelu(g, x, gw[0], gw[1], gw[2], gw[3]);
    bl_tensor *ys = bl_mlp_swiglu(g, x, sw[0], sw[1], sw[2], sw[3], sw[4], sw[5]);
    CHECK(yg && ys && yg->shape[1] == D && ys->shape[1] == D, "%s", bl_error());
    long ng = count_params(gw, 4), ns = count_params(sw, 6);
    CHECK(ng == 131712, "GELU FFN has %ld parameters, published 131,712", ng);
    CHECK(ns == 131754, "SwiGLU FFN has %ld parameters, published 131,754", ns);
    bl_graph_free(g);
    FREE_ALL(gw);
    FREE_ALL(sw);
    bl_tensor_free(x);
}

/* Rotate one vector placed at every token by the tables: out [T, hd]. */
static bl_tensor *rotate_everywhere(bl_graph *g, const float *vec, int T, int hd, bl_tensor *c, bl_tensor *s)
{
    bl_tensor *x = bl_graph_tensor(g, 4, (int[]){1, 1, T, hd}, 0);
    for (int t = 0; t < T; t++) memcpy(x->data + (size_t)t * hd, vec, (size_t)hd * sizeof(float));
    return bl_rope(g, x, c, s);
}

static double dot(const float *a, const float *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

BL_TEST(test_rope2d_relative_figure)
{
    enum { G = 8, HD = 32, T = G * G };
    bl_tensor *c = bl_tensor_new2(T, HD), *s = bl_tensor_new2(T, HD);
    CHECK(bl_rope_table_2d(G, G, 0, HD, 100.0f, c->data, s->data) == 0, "%s", bl_error());
    bl_tensor *qv = MK("fig.q", 0, HD), *kv = MK("fig.k", 0, HD);
    bl_graph *g = bl_graph_new();
    bl_tensor *rq = rotate_everywhere(g, qv->data, T, HD, c, s);
    bl_tensor *rk = rotate_everywhere(g, kv->data, T, HD, c, s);
#define SCORE(r, cc, dr, dc) dot(rq->data + ((r) * G + (cc)) * HD, rk->data + (((r) + (dr)) * G + (cc) + (dc)) * HD, HD)
    double s0 = SCORE(0, 0, 1, 2), s1 = SCORE(3, 4, 1, 2), s2 = SCORE(6, 5, 1, 2);
    double other = SCORE(3, 4, 3, 0);
    printf("# rope2d scores for offset (1, 2): %.6f %.6f %.6f; offset (3, 0): %.6f\n", s0, s1, s2, other);
    CHECK_CLOSE(s1, s0, 1e-5);
    CHECK_CLOSE(s2, s0, 1e-5);
    CHECK(fabs(other - s0) > 1e-2, "offset (3, 0) scores %g, the same as offset (1, 2)", other);
    /* rotations keep vector lengths */
    double lq = sqrt(dot(qv->data, qv->data, HD)), worst = 0;
    for (int t = 0; t < T; t++) {
        double l = sqrt(dot(rq->data + t * HD, rq->data + t * HD, HD));
        if (fabs(l - lq) / lq > worst) worst = fabs(l - lq) / lq;
    }
    CHECK(worst < 1e-6, "2-D rope changes a length by %g (relative)", worst);
#undef SCORE
    bl_graph_free(g);
    bl_tensor *all[] = {c, s, qv, kv};
    FREE_ALL(all);
}

BL_TEST(test_rope1d_relative_figure)
{
    enum { T = 128, HD = 32 };
    bl_tensor *c = bl_tensor_new2(T, HD), *s = bl_tensor_new2(T, HD);
    CHECK(bl_rope_table_1d(T, HD, 10000.0f, 0, c->data, s->data) == 0, "%s", bl_error());
    bl_tensor *qv = MK("fig1.q", 0, HD), *kv = MK("fig1.k", 0, HD);
    bl_graph *g = bl_graph_new();
    bl_tensor *rq = rotate_everywhere(g, qv->data, T, HD, c, s);
    bl_tensor *rk = rotate_everywhere(g, kv->data, T, HD, c, s);
    double scale = sqrt(dot(qv->data, qv->data, HD) * dot(kv->data, kv->data, HD));
    /* for each offset d, the score of q at m with k at m + d is the same for every m */
    double worst = 0, spread = 0;
    for (int d = 0; d < 8; d++) {
        double ref = dot(rq->data, rk->data + d * HD, HD);
        for (int m = 1; m + d < T; m += 7) {
            double e = fabs(dot(rq->data + m * HD, rk->data + (m + d) * HD, HD) - ref) / scale;
            if (e > worst) worst = e;
        }
        double s0 = dot(rq->data, rk->data, HD);
        if (fabs(ref - s0) > spread) spread = fabs(ref - s0);
    }
    CHECK(worst < 1e-5, "1-D rope score depends on the absolute position (relative error %g)", worst);
    CHECK(spread > 1e-2, "1-D rope score does not depend on the offset at all");
    double lq = sqrt(dot(qv->data, qv->data, HD)), wl = 0;
    for (int t = 0; t < T; t++) {
        double l = sqrt(dot(rq->data + t * HD, rq->data + t * HD, HD));
        if (fabs(l - lq) / lq > wl) wl = fabs(l - lq) / lq;
    }
    CHECK(wl < 1e-6, "1-D rope changes a length by %g (relative)", wl);
    bl_graph_free(g);
    bl_tensor *all[] = {c, s, qv, kv};
    FREE_ALL(all);
}

/* Logits q k^T / sqrt(hd) of q, k [1, H, T, hd], written into out [H, T, T]; returns max |logit|. */
static double logits(const bl_tensor *q, const bl_tensor *k, double *out)
{
    int H = q->shape[1], T = q->shape[2], hd = q->shape[3];
    double mx = 0;
    for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++)
            for (int s = 0; s < T; s++) {
                double l = dot(q->data + ((size_t)h * T + t) * hd, k->data + ((size_t)h * T + s) * hd, hd) / sqrt(hd);
                out[((size_t)h * T + t) * T + s] = l;
                if (fabs(l) > mx) mx = fabs(l);
            }
    return mx;
}

BL_TEST(test_qk_norm_figure)
{
    enum { H = 2, T = 8, HD = 16, NL = H * T * T };
    bl_tensor *q = MK("fq.q", 0, 1, H, T, HD), *k = MK("fq.k", 0, 1, H, T, HD);
    bl_tensor *w = bl_tensor_new1(HD), *ones = bl_tensor_new1(HD);
    for (int i = 0; i < HD; i++) w->data[i] = 0.5f + 0.1f * (float)i; /* a trained-looking weight */
    bl_tensor_fill(ones, 1.0f);
    double base_norm[NL], base_raw[NL], l[NL];
    double mx_raw = 0, mx_norm = 0;
    float factors[3] = {1, 4, 16};
    bl_tensor *p0 = NULL;
    bl_graph *g0 = bl_graph_new();
    for (int f = 0; f < 3; f++) {
        bl_tensor *qs = bl_tensor_copy(q), *ks = bl_tensor_copy(k);
        for (size_t i = 0; i < q->numel; i++) {
            qs->data[i] *= factors[f];
            ks->data[i] *= factors[f];
        }
        bl_graph *g = f == 0 ? g0 : bl_graph_new();
        bl_tensor *qn = bl_qk_norm(g, qs, w, 1e-6f), *kn = bl_qk_norm(g, ks, w, 1e-6f), *p;
        CHECK(qn && kn && bl_attention(g, qn, kn, kn, 0, NULL, 0, &p), "%s", bl_error());
        /* without QK-norm: max |logit| grows with the square of the factor (16x and 256x) */
        double m = logits(qs, ks, f == 0 ? base_raw : l);
        if (f == 0) mx_raw = m;
        else CHECK_CLOSE(m / mx_raw, factors[f] * factors[f], 1e-3 * factors[f] * factors[f]);
        /* with QK-norm: the logits and the attention pattern do not change */
        double mn = logits(qn, kn, f == 0 ? base_norm : l);
        if (f == 0) {
            mx_norm = mn;
            p0 = p;
        } else {
            double wd = 0;
            for (int i = 0; i < NL; i++) wd = fmax(wd, fabs(l[i] - base_norm[i]));
            CHECK(wd < 1e-5, "QK-norm logits move by %g when q, k are scaled by %g", wd, factors[f]);
            double pd = 0;
            for (int i = 0; i < NL; i++) pd = fmax(pd, fabs(p->data[i] - p0->data[i]));
            CHECK(pd < 1e-5, "attention pattern moves by %g with QK-norm at factor %g", pd, factors[f]);
            bl_graph_free(g);
        }
        printf("# factor %g: max|logit| %.4f without QK-norm, %.4f with\n", factors[f], m, mn);
        bl_tensor_free(qs);
        bl_tensor_free(ks);
    }
    /* with QK-norm and unit weights the logits are bounded by sqrt(hd) (Cauchy-Schwarz) */
    CHECK(mx_norm > 0, "no logits");
    bl_graph *g = bl_graph_new();
    bl_tensor *q16 = bl_tensor_copy(q);
    for (size_t i = 0; i < q16->numel; i++) q16->data[i] *= 1000.0f;
    bl_tensor *qn = bl_qk_norm(g, q16, ones, 1e-6f), *kn = bl_qk_norm(g, k, ones, 1e-6f);
    CHECK(logits(qn, kn, l) <= sqrt((double)HD) + 1e-4, "QK-norm logit above sqrt(hd)");
    bl_graph_free(g);
    bl_graph_free(g0);
    bl_tensor *all[] = {q, k, w, ones, q16};
    FREE_ALL(all);
}

int main(void)
{
    RUN(test_rmsnorm_figure);
    RUN(test_silu_figure);
    RUN(test_ffn_param_figure);
    RUN(test_rope2d_relative_figure);
    RUN(test_rope1d_relative_figure);
    RUN(test_qk_norm_figure);
    return bl_test_done();
}
