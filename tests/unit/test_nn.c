/* test_nn.c - the smaller block parts: head split/merge, slice, modulate, norm_modulate, timestep features,
 * patch embedding, unpatchify, learned 2-D positions, the SwiGLU gate and both FFNs. Forward
 * against index arithmetic or naive double loops, backward against finite differences, errors. */
#include "core/ops.h"
#include "nn_test.h"

/* ---------------------------------------------------------------- heads */

typedef struct { int H, KVH, which; } heads_ctx;

static bl_tensor *f_split(bl_graph *g, bl_tensor **in, void *c)
{
    heads_ctx *h = c;
    bl_tensor *q, *k, *v;
    if (bl_split_heads(g, in[0], h->H, h->KVH, &q, &k, &v) < 0) return NULL;
    return h->which == 0 ? q : h->which == 1 ? k : v;
}
static bl_tensor *f_merge(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_merge_heads(g, in[0]); }

BL_TEST(test_split_merge_heads)
{
    enum { B = 2, T = 3, H = 4, KVH = 2, HD = 5, C = (H + 2 * KVH) * HD };
    bl_tensor *qkv = MK("h.qkv", 1, B, T, C);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++) qkv->data[(b * T + t) * C + c] = (float)(b * 10000 + t * 100 + c);
    bl_graph *g = bl_graph_new();
    bl_tensor *q, *k, *v;
    CHECK(bl_split_heads(g, qkv, H, KVH, &q, &k, &v) == 0, "%s", bl_error());
    CHECK(q->shape[1] == H && k->shape[1] == KVH && v->shape[1] == KVH && q->shape[3] == HD, "shapes");
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int d = 0; d < HD; d++) {
                for (int h = 0; h < H; h++)
                    bad += q->data[((b * H + h) * T + t) * HD + d] != b * 10000 + t * 100 + h * HD + d;
                for (int h = 0; h < KVH; h++) {
                    bad += k->data[((b * KVH + h) * T + t) * HD + d] != b * 10000 + t * 100 + (H + h) * HD + d;
                    bad += v->data[((b * KVH + h) * T + t) * HD + d] != b * 10000 + t * 100 + (H + KVH + h) * HD + d;
                }
            }
    CHECK(bad == 0, "%d misplaced values after the split", bad);
    /* merging q gives back the q part of every row */
    bl_tensor *m = bl_merge_heads(g, q);
    CHECK(m && m->ndim == 3 && m->shape[2] == H * HD, "merge shape");
    bad = 0;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < H * HD; c++) bad += m->data[(b * T + t) * H * HD + c] != qkv->data[(b * T + t) * C + c];
    CHECK(bad == 0, "%d misplaced values after the merge", bad);
    bl_graph_free(g);
    gc_randn(qkv, "h.qkv", 1.0f);
    bl_tensor *in[1] = {qkv};
    for (int w = 0; w < 3; w++) {
        heads_ctx hc = {H, KVH, w};
        GRADCHECK(w == 0 ? "split_heads q" : w == 1 ? "split_heads k" : "split_heads v", f_split, in, &hc);
    }
    bl_tensor *in2[1] = {MK("h.x", 1, B, H, T, HD)};
    GRADCHECK("merge_heads", f_merge, in2, NULL);
    FREE_ALL(in);
    FREE_ALL(in2);
}

BL_TEST(test_heads_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *qkv = MK("he.qkv", 0, 2, 3, 48), *x2 = MK("he.x2", 0, 3, 48), *q, *k, *v;
    CHECK(bl_split_heads(g, qkv, 3, 2, &q, &k, &v) < 0, "H %% KVH accepted");
    CHECK_ERR("split_heads: 3 heads is not a multiple of 2 kv heads");
    CHECK(q == NULL && k == NULL && v == NULL, "outputs set on error");
    CHECK(bl_split_heads(g, qkv, 5, 5, &q, &k, &v) < 0, "48 features for 15 heads accepted");
    CHECK_ERR("split_heads: qkv has 48 features, not a multiple of heads + 2 kv_heads = 5 + 2*5");
    CHECK(bl_split_heads(g, qkv, 0, 1, &q, &k, &v) < 0, "0 heads accepted");
    CHECK_ERR("split_heads: heads and kv_heads must be >= 1");
    CHECK(bl_split_heads(g, x2, 4, 4, &q, &k, &v) < 0, "2-D qkv accepted");
    CHECK_ERR("split_heads: qkv must be [B, T, (heads + 2 kv_heads) head_dim], got [3, 48]");
    CHECK(bl_merge_heads(g, qkv) == NULL, "3-D merge accepted");
    CHECK_ERR("merge_heads: x must be [B, heads, T, head_dim], got [2, 3, 48]");
    bl_graph_free(g);
    bl_tensor_free(qkv);
    bl_tensor_free(x2);
}

/* ---------------------------------------------------------------- slice, modulate, timestep */

static bl_tensor *f_slice(bl_graph *g, bl_tensor **in, void *c) { int *a = c; return bl_slice_last(g, in[0], a[0], a[1]); }
static bl_tensor *f_mod(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_modulate(g, in[0], in[1], in[2]); }

BL_TEST(test_slice)
{
    bl_tensor *x = MK("s.x", 1, 2, 3, 12);
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_slice_last(g, x, 4, 5);
    CHECK(y && y->ndim == 3 && y->shape[2] == 5, "shape");
    int bad = 0;
    for (int r = 0; r < 6; r++)
        for (int i = 0; i < 5; i++) bad += y->data[r * 5 + i] != x->data[r * 12 + 4 + i];
    CHECK(bad == 0, "%d wrong values", bad);
    CHECK(bl_slice_last(g, x, 8, 5) == NULL, "slice past the end accepted");
    CHECK_ERR("slice: [8 : 13] is outside the last dimension of x [2, 3, 12]");
    CHECK(bl_slice_last(g, x, -1, 2) == NULL, "negative start accepted");
    CHECK_ERR("slice: [-1 : 1]");
    CHECK(bl_slice_last(g, x, 0, 0) == NULL, "empty slice accepted");
    bl_graph_free(g);
    bl_tensor *in[1] = {x};
    int a[2] = {4, 5}, whole[2] = {0, 12};
    GRADCHECK("slice [4 : 9]", f_slice, in, a);
    GRADCHECK("slice whole", f_slice, in, whole);
    FREE_ALL(in);
}

BL_TEST(test_modulate)
{
    bl_tensor *x = bl_tensor_from(3, (int[]){2, 1, 2}, (float[]){1, 2, 3, 4});
    bl_tensor *sh = bl_tensor_from(2, (int[]){2, 2}, (float[]){10, 20, 30, 40});
    bl_tensor *sc = bl_tensor_from(2, (int[]){2, 2}, (float[]){0, 1, -1, 0.5f});
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_modulate(g, x, sh, sc);
    /* x * (1 + scale) + shift: [1*1+10, 2*2+20, 3*0+30, 4*1.5+40] */
    double want[4] = {11, 24, 30, 46};
    CHECK(y && nn_maxdiff(y->data, want, 4) == 0, "modulate values");
    bl_tensor *bad = MK("m.bad", 0, 2, 3);
    CHECK(bl_modulate(g, x, sh, bad) == NULL, "bad scale accepted");
    CHECK_ERR("modulate: x must be [B, T, D] with shift and scale [B, D], got x [2, 1, 2] shift [2, 2] scale [2, 3]");
    bl_graph_free(g);
    bl_tensor *all[] = {x, sh, sc, bad};
    FREE_ALL(all);
    bl_tensor *in[3] = {MK("m.x", 1, 3, 4, 6), MK("m.sh", 1, 3, 6), MK("m.sc", 1, 3, 6)};
    GRADCHECK("modulate", f_mod, in, NULL);
    FREE_ALL(in);
}

/* norm_modulate: DiT's modulate(norm(x)) as one op, against a double loop for both norms,
 * the first-image tap, backward against finite differences, and its errors. */
static bl_tensor *f_nm_layer(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_layernorm_modulate(g, in[0], in[1], in[2], 1e-6f, NULL); }
static bl_tensor *f_nm_rms(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_rmsnorm_modulate(g, in[0], in[1], in[2], 1e-6f, NULL); }

BL_TEST(test_norm_modulate)
{
    enum { B = 2, T = 3, D = 20 };
    bl_tensor *in[3] = {MK("nm.x", 1, B, T, D), MK("nm.shift", 1, B, D), MK("nm.scale", 1, B, D)};
    for (int rms = 0; rms <= 1; rms++) {
        bl_graph *g = bl_graph_new();
        bl_tensor *tap = NULL, *y = (rms ? bl_rmsnorm_modulate : bl_layernorm_modulate)(g, in[0], in[1], in[2], 1e-6f, &tap);
        CHECK(y && tap && tap->shape[0] == 1 && tap->shape[1] == T, "norm_modulate: %s", bl_error());
        double worst = 0, worst_tap = 0;
        for (int b = 0; y && b < B; b++)
            for (int t = 0; t < T; t++) {
                const float *x = in[0]->data + ((size_t)b * T + t) * D;
                double m = 0, v = 0;
                for (int i = 0; i < D; i++) m += rms ? 0 : x[i] / (double)D;
                for (int i = 0; i < D; i++) v += (x[i] - m) * (x[i] - m) / D;
                for (int i = 0; i < D; i++) {
                    double n = (x[i] - m) / sqrt(v + 1e-6);
                    double want = n * (1 + in[2]->data[b * D + i]) + in[1]->data[b * D + i];
                    worst = fmax(worst, fabs(y->data[((size_t)b * T + t) * D + i] - want));
                    if (b == 0) worst_tap = fmax(worst_tap, fabs(tap->data[(size_t)t * D + i] - n));
                }
            }
        CHECK(worst < 1e-5 && worst_tap < 1e-5, "norm_modulate (rms %d) off by %g, tap by %g", rms, worst, worst_tap);
        bl_graph_free(g);
    }
    GRADCHECK("layernorm_modulate", f_nm_layer, in, NULL);
    GRADCHECK("rmsnorm_modulate", f_nm_rms, in, NULL);
    bl_graph *g = bl_graph_new();
    CHECK(bl_rmsnorm_modulate(g, in[0], in[1], in[0], 1e-6f, NULL) == NULL, "bad scale accepted");
    CHECK_ERR("rmsnorm_modulate: x must be [B, T, D] with shift and scale [B, D]");
    bl_graph_free(g);
    FREE_ALL(in);
}

BL_TEST(test_timestep_features)
{
    /* nfeat 4, half 2: frequencies 1 and exp(-ln(10000) / 2) = 0.01; t = 0.5 -> 1000 t = 500 */
    float t[2] = {0.5f, 0.0f}, out[8];
    bl_timestep_features(t, 2, 4, out);
    double want[8] = {cos(500.0), cos(5.0), sin(500.0), sin(5.0), 1, 1, 0, 0};
    CHECK(nn_maxdiff(out, want, 8) < 1e-5, "features off by %g", nn_maxdiff(out, want, 8));
    /* DiT's 256 features: the last cos frequency is 10000^(-127/128) */
    float big[256];
    float t1 = 0.25f;
    bl_timestep_features(&t1, 1, 256, big);
    CHECK_CLOSE(big[127], cos(250.0 * pow(10000.0, -127.0 / 128.0)), 1e-6);
    CHECK_CLOSE(big[255], sin(250.0 * pow(10000.0, -127.0 / 128.0)), 1e-6);
}

/* ---------------------------------------------------------------- patches and positions */

static bl_tensor *f_patch(bl_graph *g, bl_tensor **in, void *c) { return bl_patch_embed(g, in[0], in[1], in[2], *(int *)c); }
static bl_tensor *f_patch_nb(bl_graph *g, bl_tensor **in, void *c) { return bl_patch_embed(g, in[0], in[1], NULL, *(int *)c); }
static bl_tensor *f_unpatch(bl_graph *g, bl_tensor **in, void *c)
{
    int *a = c;
    return bl_unpatchify(g, in[0], a[0], a[1], a[2], a[3]);
}
static bl_tensor *f_pos2d(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_pos2d_add(g, in[0], in[1], in[2]); }

BL_TEST(test_patch_embed)
{
    enum { B = 2, C = 3, H = 6, W = 4, P = 2, D = 5, GW = W / P, T = (H / P) * (W / P) };
    int p = P;
    bl_tensor *in[3] = {MK("p.img", 1, B, C, H, W), MK("p.w", 1, D, C, P, P), MK("p.b", 1, D)};
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_patch_embed(g, in[0], in[1], in[2], P);
    CHECK(y && y->ndim == 3 && y->shape[1] == T && y->shape[2] == D, "%s", bl_error());
    /* a direct conv2d with kernel = stride = p */
    double ref[B * T * D];
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int d = 0; d < D; d++) {
                double s = in[2]->data[d];
                int r = t / GW, q = t % GW;
                for (int c = 0; c < C; c++)
                    for (int i = 0; i < P; i++)
                        for (int j = 0; j < P; j++)
                            s += (double)in[1]->data[((d * C + c) * P + i) * P + j] *
                                 in[0]->data[((b * C + c) * H + r * P + i) * W + q * P + j];
                ref[(b * T + t) * D + d] = s;
            }
    if (y) CHECK(nn_maxdiff(y->data, ref, B * T * D) < 1e-5, "conv off by %g", nn_maxdiff(y->data, ref, B * T * D));
    bl_graph_free(g);
    GRADCHECK("patch_embed", f_patch, in, &p);
    GRADCHECK("patch_embed no bias", f_patch_nb, in, &p);
    FREE_ALL(in);
}

BL_TEST(test_unpatchify)
{
    enum { B = 2, C = 3, H = 4, W = 6, P = 2, GW = W / P, T = (H / P) * (W / P), F = P * P * C };
    /* a hand-written patch split in DiT's (p, q, c) order: feature (i p + j) C + c of token
     * r gw + q is pixel (r p + i, q p + j) of channel c; unpatchify must undo it exactly */
    bl_tensor *img = MK("u.img", 0, B, C, H, W);
    bl_tensor *x = bl_tensor_new3(B, T, F);
    for (int b = 0; b < B; b++)
        for (int c = 0; c < C; c++)
            for (int yy = 0; yy < H; yy++)
                for (int xx = 0; xx < W; xx++) {
                    int t = (yy / P) * GW + xx / P, f = ((yy % P) * P + xx % P) * C + c;
                    x->data[(b * T + t) * F + f] = img->data[((b * C + c) * H + yy) * W + xx];
                }
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_unpatchify(g, x, C, H, W, P);
    CHECK(y && bl_same_shape(y, img), "%s", bl_error());
    if (y) CHECK(memcmp(y->data, img->data, img->numel * sizeof(float)) == 0, "not the exact inverse");
    /* feature 1 of token 0 is channel 1 of pixel (0, 0) (the channel is fastest) */
    if (y) CHECK(y->data[(0 * C + 1) * H * W] == x->data[1], "channel order");
    CHECK(bl_unpatchify(g, x, C, H, W + 1, P) == NULL, "width 7 accepted");
    CHECK_ERR("unpatchify: image size 4x7 is not a multiple of the patch size 2");
    CHECK(bl_unpatchify(g, x, 2, H, W, P) == NULL, "wrong channel count accepted");
    CHECK_ERR("unpatchify: x must be [B, 6, 8] for 2x4x6 images and patch 2, got [2, 6, 12]");
    bl_graph_free(g);
    bl_tensor_require_grad(x);
    bl_tensor *in[1] = {x};
    int a[4] = {C, H, W, P};
    GRADCHECK("unpatchify", f_unpatch, in, a);
    bl_tensor_free(img);
    FREE_ALL(in);
}

BL_TEST(test_patch_errors)
{
    bl_graph *g = bl_graph_new();
    bl_tensor *img = MK("pe.img", 0, 1, 3, 10, 8), *w = MK("pe.w", 0, 4, 3, 4, 4), *w2 = MK("pe.w2", 0, 4, 1, 4, 4);
    bl_tensor *img2 = MK("pe.img2", 0, 1, 3, 8, 8), *b = MK("pe.b", 0, 5);
    CHECK(bl_patch_embed(g, img, w, NULL, 4) == NULL, "height 10 accepted for patch 4");
    CHECK_ERR("patch_embed: image size 10x8 is not a multiple of the patch size 4");
    CHECK(bl_patch_embed(g, img2, w2, NULL, 4) == NULL, "1-channel weight accepted for 3 channels");
    CHECK_ERR("patch_embed: weight must be [dim, 3, 4, 4] for img [1, 3, 8, 8] and patch 4, got [4, 1, 4, 4]");
    CHECK(bl_patch_embed(g, img2, w, b, 4) == NULL, "bias [5] accepted for dim 4");
    CHECK_ERR("patch_embed: bias has shape [5]");
    CHECK(bl_patch_embed(g, img2, w, NULL, 0) == NULL, "patch 0 accepted");
    CHECK_ERR("patch_embed: patch size must be >= 1, got 0");
    bl_graph_free(g);
    bl_tensor *all[] = {img, w, w2, img2, b};
    FREE_ALL(all);
}

BL_TEST(test_pos2d)
{
    enum { B = 2, GH = 2, GW = 3, D = 4 };
    bl_tensor *in[3] = {MK("pp.x", 1, B, GH * GW, D), MK("pp.row", 1, GH, D), MK("pp.col", 1, GW, D)};
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_pos2d_add(g, in[0], in[1], in[2]);
    CHECK(y != NULL, "%s", bl_error());
    /* token 5 = (row 1, col 2) */
    for (int d = 0; d < D; d++)
        CHECK_CLOSE(y->data[(1 * 6 + 5) * D + d],
                    in[0]->data[(1 * 6 + 5) * D + d] + in[1]->data[1 * D + d] + in[2]->data[2 * D + d], 1e-6);
    CHECK(bl_pos2d_add(g, in[0], in[2], in[2]) == NULL, "3x3 grid accepted for 6 tokens");
    CHECK_ERR("pos2d: x must be [B, gh*gw, D] with row [gh, D] and col [gw, D], got x [2, 6, 4] row [3, 4] col [3, 4]");
    bl_graph_free(g);
    GRADCHECK("pos2d", f_pos2d, in, NULL);
    FREE_ALL(in);
}

/* ---------------------------------------------------------------- swiglu and the FFNs */

static bl_tensor *f_swiglu(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_swiglu(g, in[0], in[1]); }
static bl_tensor *f_mlp_gelu(bl_graph *g, bl_tensor **in, void *c) { (void)c; return bl_mlp_gelu(g, in[0], in[1], in[2], in[3], in[4]); }
static bl_tensor *f_mlp_swiglu(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_mlp_swiglu(g, in[0], in[1], in[2], in[3], in[4], in[5], in[6]);
}

static double silu_d(double x) { return x / (1.0 + exp(-x)); }
static double gelu_d(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }

/* y = w x + b for one row, in double. */
static void lin_d(const double *x, const bl_tensor *w, const bl_tensor *b, double *y)
{
    int O = w->shape[0], I = w->shape[1];
    for (int o = 0; o < O; o++) {
        double s = b ? b->data[o] : 0;
        for (int i = 0; i < I; i++) s += (double)w->data[o * I + i] * x[i];
        y[o] = s;
    }
}

BL_TEST(test_swiglu_gate)
{
    bl_tensor *in[2] = {MK("sg.a", 1, 3, 7), MK("sg.b", 1, 3, 7)};
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_swiglu(g, in[0], in[1]);
    double ref[21];
    for (int i = 0; i < 21; i++) ref[i] = silu_d(in[0]->data[i]) * in[1]->data[i];
    CHECK(y && nn_maxdiff(y->data, ref, 21) < 1e-6, "gate values");
    bl_tensor *c = MK("sg.c", 0, 7, 3);
    CHECK(bl_swiglu(g, in[0], c) == NULL, "mismatched shapes accepted");
    CHECK_ERR("swiglu: gate a [3, 7] and value b [7, 3] must have the same shape");
    bl_tensor_free(c);
    bl_graph_free(g);
    GRADCHECK("swiglu gate", f_swiglu, in, NULL);
    FREE_ALL(in);
}

BL_TEST(test_mlps)
{
    enum { N = 3, D = 6, HG = 10, HS = 7 };
    bl_tensor *gin[5] = {MK("mg.x", 1, N, D), MK("mg.w1", 1, HG, D), MK("mg.b1", 1, HG),
                         MK("mg.w2", 1, D, HG), MK("mg.b2", 1, D)};
    bl_tensor *sin_[7] = {MK("ms.x", 1, N, D), MK("ms.w1", 1, HS, D), MK("ms.b1", 1, HS),
                          MK("ms.w2", 1, HS, D), MK("ms.b2", 1, HS), MK("ms.w3", 1, D, HS),
                          MK("ms.b3", 1, D)};
    bl_graph *g = bl_graph_new();
    bl_tensor *yg = bl_mlp_gelu(g, gin[0], gin[1], gin[2], gin[3], gin[4]);
    bl_tensor *ys = bl_mlp_swiglu(g, sin_[0], sin_[1], sin_[2], sin_[3], sin_[4], sin_[5], sin_[6]);
    CHECK(yg && ys, "%s", bl_error());
    double rg[N * D], rs[N * D];
    for (int r = 0; r < N; r++) {
        double x[D], h[HG], a[HS], v[HS];
        for (int i = 0; i < D; i++) x[i] = gin[0]->data[r * D + i];
        lin_d(x, gin[1], gin[2], h);
        for (int i = 0; i < HG; i++) h[i] = gelu_d(h[i]);
        lin_d(h, gin[3], gin[4], rg + r * D);
        for (int i = 0; i < D; i++) x[i] = sin_[0]->data[r * D + i];
        lin_d(x, sin_[1], sin_[2], a);
        lin_d(x, sin_[3], sin_[4], v);
        for (int i = 0; i < HS; i++) a[i] = silu_d(a[i]) * v[i];
        lin_d(a, sin_[5], sin_[6], rs + r * D);
    }
    if (yg) CHECK(nn_maxdiff(yg->data, rg, N * D) < 1e-5, "gelu ffn off by %g", nn_maxdiff(yg->data, rg, N * D));
    if (ys) CHECK(nn_maxdiff(ys->data, rs, N * D) < 1e-5, "swiglu ffn off by %g", nn_maxdiff(ys->data, rs, N * D));
    CHECK(bl_mlp_swiglu(g, sin_[0], sin_[1], sin_[2], sin_[5], NULL, sin_[5], NULL) == NULL, "w2 [6, 7] accepted");
    CHECK_ERR("mlp_swiglu: linear_swiglu: x [3, 6] has 6 features");
    CHECK(bl_mlp_gelu(g, gin[0], gin[3], NULL, gin[3], NULL) == NULL, "fc1 [6, 10] accepted for x [3, 6]");
    CHECK_ERR("mlp_gelu: linear_gelu:");
    bl_graph_free(g);
    GRADCHECK("mlp_gelu", f_mlp_gelu, gin, NULL);
    GRADCHECK("mlp_swiglu", f_mlp_swiglu, sin_, NULL);
    FREE_ALL(gin);
    FREE_ALL(sin_);
}

/* x scaled first: an arena tensor whose grad starts logically zero, so the backward writes dx
 * with its first product and adds the second (a leaf's grad is always added to) */
static bl_tensor *f_linear_swiglu_nobias(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_linear_swiglu(g, bl_scale(g, in[0], 1.5f), in[1], NULL, in[2], NULL);
}

/* the residual is x itself: x's grad is already written when linear_swiglu's backward adds */
static bl_tensor *f_mlp_swiglu_res_x(bl_graph *g, bl_tensor **in, void *c)
{
    (void)c;
    return bl_mlp_swiglu_add(g, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[0]);
}

/* The fused SwiGLU front against double sums: 1100 rows (its 256-row blocks on the threads,
 * a short last block), b1 absent; gradients by finite differences without biases and with x
 * also the residual; w1 and w2 of different shapes refused. */
BL_TEST(test_linear_swiglu)
{
    enum { R = 1100, D = 6, H = 7 };
    bl_tensor *x = MK("ls.x", 0, R, D), *w1 = MK("ls.w1", 0, H, D), *w2 = MK("ls.w2", 0, H, D);
    bl_tensor *b2 = MK("ls.b2", 0, H), *w5 = MK("ls.w5", 0, 5, D);
    bl_graph *g = bl_graph_new();
    bl_tensor *h = bl_linear_swiglu(g, x, w1, NULL, w2, b2);
    CHECK(h && h->shape[0] == R && h->shape[1] == H, "%s", bl_error());
    double worst = 0;
    for (int r = 0; h && r < R; r += 7) {
        double xr[D], a[H], v[H];
        for (int i = 0; i < D; i++) xr[i] = x->data[r * D + i];
        lin_d(xr, w1, NULL, a);
        lin_d(xr, w2, b2, v);
        for (int j = 0; j < H; j++) worst = fmax(worst, fabs(h->data[r * H + j] - silu_d(a[j]) * v[j]));
    }
    CHECK(worst < 1e-5, "values off by %g", worst);
    CHECK(bl_linear_swiglu(g, x, w1, NULL, w5, NULL) == NULL, "w2 [5, 6] accepted beside w1 [7, 6]");
    CHECK_ERR("linear_swiglu: gate weight [7, 6] and value weight [5, 6] must have the same shape");
    bl_graph_free(g);
    bl_tensor *nb[3] = {MK("lsn.x", 1, 3, D), MK("lsn.w1", 1, H, D), MK("lsn.w2", 1, H, D)};
    GRADCHECK("linear_swiglu without biases", f_linear_swiglu_nobias, nb, NULL);
    bl_tensor *rx[7] = {MK("lsr.x", 1, 3, D), MK("lsr.w1", 1, H, D), MK("lsr.b1", 1, H),
                        MK("lsr.w2", 1, H, D), MK("lsr.b2", 1, H), MK("lsr.w3", 1, D, H),
                        MK("lsr.b3", 1, D)};
    GRADCHECK("mlp_swiglu_add with x as the residual", f_mlp_swiglu_res_x, rx, NULL);
    FREE_ALL(nb);
    FREE_ALL(rx);
    bl_tensor_free(x); bl_tensor_free(w1); bl_tensor_free(w2); bl_tensor_free(b2); bl_tensor_free(w5);
}

BL_TEST(test_swiglu_hidden)
{
    CHECK(bl_swiglu_hidden(128, 4, 0) == 341, "dim 128: %d", bl_swiglu_hidden(128, 4, 0));
    CHECK(bl_swiglu_hidden(384, 4, 0) == 1024, "dim 384: %d", bl_swiglu_hidden(384, 4, 0));
    /* LLaMA's convention: 2/3 of 4 dim rounded up to a multiple: 341 -> 352 with multiple_of 32 */
    CHECK(bl_swiglu_hidden(128, 4, 32) == 352, "multiple_of 32: %d", bl_swiglu_hidden(128, 4, 32));
    CHECK(bl_swiglu_hidden(96, 4, 256) == 256, "multiple_of 256: %d", bl_swiglu_hidden(96, 4, 256));
    CHECK(bl_swiglu_hidden(0, 4, 0) < 0, "dim 0 accepted");
    CHECK_ERR("swiglu_hidden: dim must be >= 1, got 0");
    CHECK(bl_swiglu_hidden(128, -1, 0) < 0, "negative ratio accepted");
    CHECK_ERR("swiglu_hidden: mlp_ratio must be > 0");
}

int main(void)
{
    RUN(test_split_merge_heads);
    RUN(test_heads_errors);
    RUN(test_slice);
    RUN(test_modulate);
    RUN(test_norm_modulate);
    RUN(test_timestep_features);
    RUN(test_patch_embed);
    RUN(test_unpatchify);
    RUN(test_patch_errors);
    RUN(test_pos2d);
    RUN(test_swiglu_gate);
    RUN(test_mlps);
    RUN(test_linear_swiglu);
    RUN(test_swiglu_hidden);
    return bl_test_done();
}
