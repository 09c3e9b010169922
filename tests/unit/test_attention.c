/* test_attention.c - scaled dot-product attention: forward against a naive double-precision
 * loop (causal, masked, grouped-query, S > T), backward against finite differences, a fully
 * masked row, the saved probabilities, no arena growth after the first step, bad shapes; the
 * fused-projection form (bl_attention_qkv) against the same loop on hand-split heads, and
 * qk_norm + RoPE on the fused projection (bl_qkv_prepare). */
#include "nn_test.h"

typedef struct {
    int causal;
    const unsigned char *mask;
    float scale;
} att_ctx;

static bl_tensor *f_att(bl_graph *g, bl_tensor **in, void *c)
{
    att_ctx *a = c;
    return bl_attention(g, in[0], in[1], in[2], a->causal, a->mask, a->scale, NULL);
}

/* Naive attention in double: out [B, H, T, hd], probs [B, H, T, S]. */
static void ref_attention(const bl_tensor *q, const bl_tensor *k, const bl_tensor *v, int causal,
                          const unsigned char *mask, double scale, double *out, double *probs)
{
    int B = q->shape[0], H = q->shape[1], T = q->shape[2], hd = q->shape[3];
    int KVH = k->shape[1], S = k->shape[2];
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            int kh = h / (H / KVH);
            for (int t = 0; t < T; t++) {
                double sc[64], mx = -INFINITY, sum = 0;
                const float *qr = q->data + (((size_t)b * H + h) * T + t) * hd;
                for (int s = 0; s < S; s++) {
                    int ok = (!causal || s <= t + (S - T)) && (!mask || mask[t * S + s]);
                    sc[s] = -INFINITY;
                    if (!ok) continue;
                    const float *kr = k->data + (((size_t)b * KVH + kh) * S + s) * hd;
                    double d = 0;
                    for (int i = 0; i < hd; i++) d += (double)qr[i] * kr[i];
                    sc[s] = d * scale;
                    if (sc[s] > mx) mx = sc[s];
                }
                for (int s = 0; s < S; s++) {
                    sc[s] = mx == -INFINITY ? 0 : exp(sc[s] - mx);
                    sum += sc[s];
                }
                double *o = out + (((size_t)b * H + h) * T + t) * hd;
                double *p = probs + (((size_t)b * H + h) * T + t) * S;
                for (int i = 0; i < hd; i++) o[i] = 0;
                for (int s = 0; s < S; s++) {
                    p[s] = sum > 0 ? sc[s] / sum : 0;
                    const float *vr = v->data + (((size_t)b * KVH + kh) * S + s) * hd;
                    for (int i = 0; i < hd; i++) o[i] += p[s] * vr[i];
                }
            }
        }
}

/* One configuration: forward (output and probs) against the reference, then the gradient. */
static void check_case(const char *what, int B, int H, int KVH, int T, int S, int hd, int causal,
                       const unsigned char *mask, float scale)
{
    bl_tensor *in[3] = {MK("att.q", 1, B, H, T, hd), MK("att.k", 1, B, KVH, S, hd),
                        MK("att.v", 1, B, KVH, S, hd)};
    bl_graph *g = bl_graph_new();
    bl_tensor *probs = NULL;
    bl_tensor *out = bl_attention(g, in[0], in[1], in[2], causal, mask, scale, &probs);
    CHECK(out && probs, "%s: %s", what, bl_error());
    if (out && probs) {
        size_t no = out->numel, np = probs->numel;
        double *ro = malloc(no * sizeof *ro), *rp = malloc(np * sizeof *rp);
        ref_attention(in[0], in[1], in[2], causal, mask,
                      scale > 0 ? scale : 1.0 / sqrt((double)hd), ro, rp);
        CHECK(probs->ndim == 4 && probs->shape[2] == T && probs->shape[3] == S, "%s: probs shape", what);
        CHECK(nn_maxdiff(out->data, ro, no) < 1e-5, "%s: output off by %g", what, nn_maxdiff(out->data, ro, no));
        CHECK(nn_maxdiff(probs->data, rp, np) < 1e-6, "%s: probs off by %g", what, nn_maxdiff(probs->data, rp, np));
        free(ro);
        free(rp);
    }
    bl_graph_free(g);
    att_ctx c = {causal, mask, scale};
    GRADCHECK(what, f_att, in, &c);
    FREE_ALL(in);
}

BL_TEST(test_attention_plain) { check_case("attention non-causal", 2, 2, 2, 5, 5, 8, 0, NULL, 0); }
BL_TEST(test_attention_causal) { check_case("attention causal", 2, 2, 2, 6, 6, 8, 1, NULL, 0); }
BL_TEST(test_attention_gqa) { check_case("attention gqa H=4 KVH=2", 2, 4, 2, 5, 5, 8, 1, NULL, 0); }
BL_TEST(test_attention_mqa) { check_case("attention mqa H=3 KVH=1 scale 0.5", 1, 3, 1, 4, 4, 6, 0, NULL, 0.5f); }
/* a KV cache: 3 new queries after 4 cached keys; query t sees keys s <= t + 4 */
BL_TEST(test_attention_kv_cache) { check_case("attention causal S > T", 2, 2, 1, 3, 7, 4, 1, NULL, 0); }

/* The alignment `help attention` documents, by hand: with q = 0 every visible key gets the same
 * weight, so row t of the weights is 1/n over its n visible keys. Bottom-right (s <= t + S - T):
 * T = 2, S = 4 gives rows [1/3 1/3 1/3 0] and [1/4 ...]; PyTorch's is_causal=True (top-left,
 * s <= t) would give [1 0 0 0] and [1/2 1/2 0 0]. */
BL_TEST(test_attention_causal_bottom_right)
{
    bl_tensor *q = bl_tensor_new(4, (int[]){1, 1, 2, 2});
    bl_tensor *k = bl_tensor_from(4, (int[]){1, 1, 4, 2}, (float[]){1, 2, 3, 4, 5, 6, 7, 8});
    bl_graph *g = bl_graph_new();
    bl_tensor *probs = NULL, *out = bl_attention(g, q, k, k, 1, NULL, 0, &probs);
    CHECK(out && probs, "%s", bl_error());
    const double want[8] = {1 / 3., 1 / 3., 1 / 3., 0, 0.25, 0.25, 0.25, 0.25};
    for (int i = 0; out && i < 8; i++) CHECK_CLOSE(probs->data[i], want[i], 1e-6);
    bl_graph_free(g);
    bl_tensor_free(q); bl_tensor_free(k);
}

BL_TEST(test_attention_masked_row)
{
    enum { T = 4, S = 5 };
    unsigned char mask[T * S] = {
        1, 1, 0, 1, 0,
        0, 0, 0, 0, 0, /* nothing allowed: output 0, no NaN */
        0, 0, 0, 0, 1,
        1, 1, 1, 1, 1,
    };
    check_case("attention fully masked row", 2, 2, 2, T, S, 8, 0, mask, 0);
    /* causal with S < T: the first queries see no key at all */
    check_case("attention causal S < T", 1, 2, 2, 5, 3, 4, 1, NULL, 0);

    bl_tensor *q = MK("m.q", 1, 1, 2, T, 8), *k = MK("m.k", 1, 1, 2, S, 8), *v = MK("m.v", 1, 1, 2, S, 8);
    bl_graph *g = bl_graph_new();
    bl_tensor *probs, *out = bl_attention(g, q, k, v, 0, mask, 0, &probs);
    CHECK(out != NULL, "%s", bl_error());
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 8; i++) {
            float o = out->data[((size_t)h * T + 1) * 8 + i];
            CHECK(o == 0.0f, "masked row output %g", o);
        }
        for (int t = 0; t < T; t++) {
            double sum = 0;
            for (int s = 0; s < S; s++) sum += probs->data[((size_t)h * T + t) * S + s];
            CHECK_CLOSE(sum, t == 1 ? 0.0 : 1.0, 1e-6);
        }
    }
    float *seed = malloc(out->numel * sizeof *seed);
    for (size_t i = 0; i < out->numel; i++) seed[i] = 1.0f;
    bl_graph_backward_from(g, out, seed);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 8; i++) {
            float d = q->grad[((size_t)h * T + 1) * 8 + i];
            CHECK(d == 0.0f, "masked row q grad %g", d);
        }
    for (size_t i = 0; i < k->numel; i++) CHECK(!isnan(k->grad[i]) && !isnan(v->grad[i]), "NaN grad");
    free(seed);
    bl_graph_free(g);
    bl_tensor_free(q);
    bl_tensor_free(k);
    bl_tensor_free(v);
}

/* After the first step has sized the arena, forward + backward allocate nothing more. */
BL_TEST(test_attention_no_alloc)
{
    bl_tensor *q = MK("n.q", 1, 4, 4, 16, 8), *k = MK("n.k", 1, 4, 2, 16, 8), *v = MK("n.v", 1, 4, 2, 16, 8);
    bl_graph *g = bl_graph_new();
    float *seed = malloc((size_t)4 * 4 * 16 * 8 * sizeof *seed);
    for (int i = 0; i < 4 * 4 * 16 * 8; i++) seed[i] = 0.01f * (float)(i % 7);
    size_t m1 = 0;
    for (int step = 0; step < 3; step++) {
        bl_graph_reset(g);
        bl_tensor *out = bl_attention(g, q, k, v, 1, NULL, 0, NULL);
        CHECK(out && bl_graph_backward_from(g, out, seed) == 0, "%s", bl_error());
        if (step == 0) m1 = bl_graph_arena_mallocs(g);
    }
    CHECK(bl_graph_arena_mallocs(g) == m1, "arena grew: %zu mallocs after %zu",
          bl_graph_arena_mallocs(g), m1);
    free(seed);
    bl_graph_free(g);
    bl_tensor_free(q);
    bl_tensor_free(k);
    bl_tensor_free(v);
}

/* bl_attention_qkv: q, k, v read in place from a fused [B, T, (H + 2 KVH) hd] projection and
 * the output merged [B, T, H hd]: against the naive loop on the hand-split heads, and backward
 * against finite differences. */
typedef struct { int H, KVH, causal; } qkv_ctx;

static bl_tensor *f_att_qkv(bl_graph *g, bl_tensor **in, void *c)
{
    qkv_ctx *a = c;
    return bl_attention_qkv(g, in[0], a->H, a->KVH, a->causal, NULL, 0.0f, NULL);
}

static void check_qkv(const char *what, int B, int H, int KVH, int T, int hd, int causal)
{
    int C = (H + 2 * KVH) * hd;
    bl_tensor *in[1] = {MK("att.qkv", 1, B, T, C)};
    bl_tensor *q = MK("q", 0, B, H, T, hd), *k = MK("k", 0, B, KVH, T, hd), *v = MK("v", 0, B, KVH, T, hd);
    for (int b = 0; b < B; b++)      /* q = qkv[..., :H hd] as heads, then k, then v */
        for (int t = 0; t < T; t++)
            for (int j = 0; j < C; j++) {
                int head = j / hd, d = j % hd;
                float x = in[0]->data[((size_t)b * T + t) * C + j];
                if (head < H) q->data[(((size_t)b * H + head) * T + t) * hd + d] = x;
                else if (head < H + KVH) k->data[(((size_t)b * KVH + head - H) * T + t) * hd + d] = x;
                else v->data[(((size_t)b * KVH + head - H - KVH) * T + t) * hd + d] = x;
            }
    bl_graph *g = bl_graph_new();
    bl_tensor *probs = NULL, *out = bl_attention_qkv(g, in[0], H, KVH, causal, NULL, 0, &probs);
    CHECK(out && probs && out->ndim == 3 && out->shape[1] == T && out->shape[2] == H * hd,
          "%s: %s", what, out ? "bad output shape" : bl_error());
    if (out && probs) {
        size_t no = (size_t)B * H * T * hd, np = probs->numel;
        double *ro = malloc(no * sizeof *ro), *rp = malloc(np * sizeof *rp), worst = 0;
        ref_attention(q, k, v, causal, NULL, 1.0 / sqrt((double)hd), ro, rp);
        for (int b = 0; b < B; b++)   /* reference [B, H, T, hd] against merged [B, T, H hd] */
            for (int h = 0; h < H; h++)
                for (int t = 0; t < T; t++)
                    for (int d = 0; d < hd; d++) {
                        double r = ro[(((size_t)b * H + h) * T + t) * hd + d];
                        float o = out->data[((size_t)b * T + t) * H * hd + (size_t)h * hd + d];
                        if (fabs(o - r) > worst) worst = fabs(o - r);
                    }
        CHECK(worst < 1e-5, "%s: output off by %g", what, worst);
        CHECK(nn_maxdiff(probs->data, rp, np) < 1e-6, "%s: probs off by %g", what, nn_maxdiff(probs->data, rp, np));
        free(ro);
        free(rp);
    }
    CHECK(bl_attention_qkv(g, q, H, KVH, 0, NULL, 0, NULL) == NULL, "%s: 4-D qkv accepted", what);
    CHECK_ERR("attention: qkv must be [B, T, (heads + 2 kv_heads) head_dim]");
    bl_graph_free(g);
    qkv_ctx c = {H, KVH, causal};
    GRADCHECK(what, f_att_qkv, in, &c);
    bl_tensor *all[] = {in[0], q, k, v};
    FREE_ALL(all);
}

BL_TEST(test_attention_qkv_plain) { check_qkv("attention_qkv", 2, 2, 2, 5, 8, 0); }
BL_TEST(test_attention_qkv_gqa) { check_qkv("attention_qkv causal gqa", 2, 4, 2, 6, 4, 1); }

/* bl_qkv_prepare: qk_norm and RoPE on the q and k heads of a fused projection, v untouched:
 * against a double loop (RMSNorm with weight, then the pair rotation), and backward against
 * finite differences for the projection and both weights. */
typedef struct { int H, KVH, norm, rope; bl_tensor *cos, *sin; } prep_ctx;

static bl_tensor *f_prep(bl_graph *g, bl_tensor **in, void *c)
{
    prep_ctx *p = c;
    return bl_qkv_prepare(g, in[0], p->H, p->KVH, p->norm ? in[1] : NULL, p->norm ? in[2] : NULL,
                          1e-6f, p->rope ? p->cos : NULL, p->rope ? p->sin : NULL);
}

static void check_prep(const char *what, int B, int H, int KVH, int T, int hd, int norm, int rope)
{
    int C = (H + 2 * KVH) * hd;
    bl_tensor *in[3] = {MK("prep.qkv", 1, B, T, C), MK("prep.qw", 1, hd), MK("prep.kw", 1, hd)};
    for (int i = 0; i < hd; i++) { in[1]->data[i] += 1.0f; in[2]->data[i] += 1.0f; }
    bl_tensor *ct = bl_tensor_new2(T, hd), *st = bl_tensor_new2(T, hd);
    CHECK(bl_rope_table_1d(T, hd, 100.0f, 0, ct->data, st->data) == 0, "tables");
    prep_ctx p = {H, KVH, norm, rope, ct, st};
    bl_graph *g = bl_graph_new();
    bl_tensor *y = f_prep(g, in, &p);
    CHECK(y && bl_same_shape(y, in[0]), "%s: %s", what, y ? "shape" : bl_error());
    double worst = 0;
    for (int r = 0; y && r < B * T; r++)
        for (int j = 0; j < H + 2 * KVH; j++) {
            const float *x = in[0]->data + (size_t)r * C + (size_t)j * hd;
            const float *w = j < H ? in[1]->data : in[2]->data;
            double n[64], ms = 0;
            for (int i = 0; i < hd; i++) ms += (double)x[i] * x[i] / hd;
            for (int i = 0; i < hd; i++) n[i] = j < H + KVH && norm ? x[i] / sqrt(ms + 1e-6) * w[i] : x[i];
            for (int i = 0; i < hd; i += 2) {
                double c = ct->data[(r % T) * hd + i], s_ = st->data[(r % T) * hd + i];
                double y0 = n[i], y1 = n[i + 1];
                if (j < H + KVH && rope) { y0 = n[i] * c - n[i + 1] * s_; y1 = n[i] * s_ + n[i + 1] * c; }
                worst = fmax(worst, fabs(y->data[(size_t)r * C + (size_t)j * hd + i] - y0));
                worst = fmax(worst, fabs(y->data[(size_t)r * C + (size_t)j * hd + i + 1] - y1));
            }
        }
    CHECK(worst < 1e-5, "%s: output off by %g", what, worst);
    bl_graph_free(g);
    if (norm) {
        GRADCHECK(what, f_prep, in, &p);
    } else {
        bl_tensor *in1[1] = {in[0]};
        GRADCHECK(what, f_prep, in1, &p);
    }
    bl_tensor *all[] = {in[0], in[1], in[2], ct, st};
    FREE_ALL(all);
}

BL_TEST(test_qkv_prepare)
{
    check_prep("qkv_prepare qk_norm + rope", 2, 2, 2, 5, 8, 1, 1);
    check_prep("qkv_prepare qk_norm, gqa", 2, 4, 2, 3, 4, 1, 0);
    check_prep("qkv_prepare rope only", 1, 2, 1, 6, 6, 0, 1);
    bl_graph *g = bl_graph_new();
    bl_tensor *qkv = MK("e.qkv", 0, 1, 4, 24), *w5 = MK("e.w", 0, 5);
    CHECK(bl_qkv_prepare(g, qkv, 2, 2, w5, w5, 1e-6f, NULL, NULL) == NULL, "wrong weight accepted");
    CHECK_ERR("qkv_prepare: q_norm weight has shape [5] but x has 4 features");
    CHECK(bl_qkv_prepare(g, qkv, 2, 2, w5, NULL, 1e-6f, NULL, NULL) == NULL, "one weight accepted");
    CHECK_ERR("qkv_prepare: give both q_norm and k_norm weights or neither");
    bl_graph_free(g);
    bl_tensor *all[] = {qkv, w5};
    FREE_ALL(all);
}

BL_TEST(test_attention_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *q = MK("x.q", 0, 1, 3, 4, 8), *k = MK("x.k", 0, 1, 2, 4, 8), *v = MK("x.v", 0, 1, 2, 4, 8);
    bl_tensor *v5 = MK("x.v5", 0, 1, 2, 5, 8), *k6 = MK("x.k6", 0, 1, 3, 4, 6), *q3 = MK("x.q3", 0, 3, 4, 8);
    bl_tensor *probs = (bl_tensor *)1;
    CHECK(bl_attention(g, q, k, v, 0, NULL, 0, &probs) == NULL, "H %% KVH accepted");
    CHECK_ERR("attention: 3 query heads is not a multiple of 2 kv heads");
    CHECK(probs == NULL, "probs left set on error");
    CHECK(bl_attention(g, q, k, v5, 0, NULL, 0, NULL) == NULL, "k/v mismatch accepted");
    CHECK_ERR("attention: k [1, 2, 4, 8] and v [1, 2, 5, 8]");
    CHECK(bl_attention(g, q, k6, k6, 0, NULL, 0, NULL) == NULL, "head_dim mismatch accepted");
    CHECK_ERR("attention: k [1, 3, 4, 6]");
    CHECK(bl_attention(g, q3, k, v, 0, NULL, 0, NULL) == NULL, "3-D q accepted");
    CHECK_ERR("attention: q, k, v must be 4-D");
    CHECK(bl_attention(g, k, k, v, 0, NULL, NAN, NULL) == NULL, "NaN scale accepted");
    CHECK_ERR("attention: scale must be finite");
    bl_graph_free(g);
    bl_tensor *all[] = {q, k, v, v5, k6, q3};
    FREE_ALL(all);
}

int main(void)
{
    RUN(test_attention_plain);
    RUN(test_attention_causal);
    RUN(test_attention_gqa);
    RUN(test_attention_mqa);
    RUN(test_attention_kv_cache);
    RUN(test_attention_causal_bottom_right);
    RUN(test_attention_masked_row);
    RUN(test_attention_no_alloc);
    RUN(test_attention_qkv_plain);
    RUN(test_attention_qkv_gqa);
    RUN(test_qkv_prepare);
    RUN(test_attention_errors);
    return bl_test_done();
}
