/* test_rope.c - RoPE tables (1-D and 2-D with prefix tokens) against hand-computed angles, the
 * rotation against the formula, backward against finite differences, bad arguments. */
#include "nn_test.h"

typedef struct { bl_tensor *cos, *sin; } rope_ctx;

static bl_tensor *f_rope(bl_graph *g, bl_tensor **in, void *c)
{
    rope_ctx *r = c;
    return bl_rope(g, in[0], r->cos, r->sin);
}

BL_TEST(test_table_1d)
{
    /* hd 4, base 10000: pair 0 turns by 1 rad per position, pair 1 by 10000^(-1/2) = 0.01 */
    float c[3 * 4], s[3 * 4];
    CHECK(bl_rope_table_1d(3, 4, 10000.0f, 5, c, s) == 0, "%s", bl_error());
    for (int t = 0; t < 3; t++) {
        double pos = 5 + t;
        CHECK_CLOSE(c[t * 4 + 0], cos(pos), 1e-6);
        CHECK_CLOSE(c[t * 4 + 1], cos(pos), 1e-6);
        CHECK_CLOSE(s[t * 4 + 0], sin(pos), 1e-6);
        CHECK_CLOSE(s[t * 4 + 1], sin(pos), 1e-6);
        CHECK_CLOSE(c[t * 4 + 2], cos(0.01 * pos), 1e-6);
        CHECK_CLOSE(s[t * 4 + 3], sin(0.01 * pos), 1e-6);
    }
}

BL_TEST(test_table_2d)
{
    /* hd 8, base 100: 2 pairs per half with frequencies 1 and 100^(-1/2) = 0.1; one prefix
     * token, then a 3x4 grid. Token 1 + 2*4 + 3 is (row 2, col 3). */
    enum { P = 1, GH = 3, GW = 4, HD = 8, N = P + GH * GW };
    float c[N * HD], s[N * HD];
    CHECK(bl_rope_table_2d(GH, GW, P, HD, 100.0f, c, s) == 0, "%s", bl_error());
    for (int f = 0; f < HD; f++) {
        CHECK_CLOSE(c[f], 1.0, 0);
        CHECK_CLOSE(s[f], 0.0, 0);
    }
    const float *cr = c + (P + 2 * GW + 3) * HD, *sr = s + (P + 2 * GW + 3) * HD;
    double want[HD] = {2, 2, 0.2, 0.2, 3, 3, 0.3, 0.3};
    for (int f = 0; f < HD; f++) {
        CHECK_CLOSE(cr[f], cos(want[f]), 1e-6);
        CHECK_CLOSE(sr[f], sin(want[f]), 1e-6);
    }
}

BL_TEST(test_rope_rotation)
{
    /* x = [1, 0, 0, 2] at position 1 (angles 1 and 0.01): [cos 1, sin 1, -2 sin .01, 2 cos .01] */
    float c[2 * 4], s[2 * 4];
    bl_rope_table_1d(2, 4, 10000.0f, 0, c, s);
    bl_tensor *ct = bl_tensor_from(2, (int[]){2, 4}, c), *st = bl_tensor_from(2, (int[]){2, 4}, s);
    bl_tensor *x = bl_tensor_from(4, (int[]){1, 1, 2, 4}, (float[]){1, 0, 0, 2, 1, 0, 0, 2});
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_rope(g, x, ct, st);
    CHECK(y != NULL, "%s", bl_error());
    double want[8] = {1, 0, 0, 2, cos(1.0), sin(1.0), -2 * sin(0.01), 2 * cos(0.01)};
    CHECK(nn_maxdiff(y->data, want, 8) < 1e-6, "rotation off by %g", nn_maxdiff(y->data, want, 8));
    bl_graph_free(g);
    bl_tensor *all[] = {ct, st, x};
    FREE_ALL(all);
}

BL_TEST(test_rope_grad_1d)
{
    enum { T = 6, HD = 8 };
    bl_tensor *ct = bl_tensor_new2(T, HD), *st = bl_tensor_new2(T, HD);
    bl_rope_table_1d(T, HD, 10.0f, 3, ct->data, st->data);
    rope_ctx rc = {ct, st};
    bl_tensor *in[1] = {MK("rope.x", 1, 2, 3, T, HD)};
    GRADCHECK("rope 1-D", f_rope, in, &rc);
    FREE_ALL(in);
    bl_tensor_free(ct);
    bl_tensor_free(st);
}

BL_TEST(test_rope_grad_2d_prefix)
{
    enum { P = 2, GH = 3, GW = 2, HD = 8, N = P + GH * GW };
    bl_tensor *ct = bl_tensor_new2(N, HD), *st = bl_tensor_new2(N, HD);
    CHECK(bl_rope_table_2d(GH, GW, P, HD, 100.0f, ct->data, st->data) == 0, "%s", bl_error());
    rope_ctx rc = {ct, st};
    bl_tensor *in[1] = {MK("rope2.x", 1, 2, 2, N, HD)};
    GRADCHECK("rope 2-D with prefix", f_rope, in, &rc);
    /* the prefix tokens pass through unchanged */
    bl_graph *g = bl_graph_new();
    bl_tensor *y = bl_rope(g, in[0], ct, st);
    for (int i = 0; i < P * HD; i++) CHECK(y->data[i] == in[0]->data[i], "prefix token moved");
    bl_graph_free(g);
    FREE_ALL(in);
    bl_tensor_free(ct);
    bl_tensor_free(st);
}

BL_TEST(test_rope_errors)
{
    float c[64], s[64];
    CHECK(bl_rope_table_1d(4, 7, 10000.0f, 0, c, s) < 0, "odd head_dim accepted");
    CHECK_ERR("rope: head_dim must be even and >= 2, got 7");
    CHECK(bl_rope_table_1d(4, 8, 0.0f, 0, c, s) < 0, "base 0 accepted");
    CHECK_ERR("rope: base must be > 0");
    CHECK(bl_rope_table_2d(2, 2, 0, 6, 100.0f, c, s) < 0, "head_dim 6 accepted for 2-D");
    CHECK_ERR("rope2d: head_dim must be a multiple of 4, got 6");
    CHECK(bl_rope_table_2d(2, 2, 0, 8, -1.0f, c, s) < 0, "negative base accepted");
    CHECK_ERR("rope2d: base must be > 0");
    bl_graph *g = bl_graph_new();
    bl_tensor *x = MK("re.x", 0, 1, 2, 4, 8), *xo = MK("re.xo", 0, 1, 2, 4, 7);
    bl_tensor *ct = bl_tensor_new2(3, 8), *st = bl_tensor_new2(3, 8);
    CHECK(bl_rope(g, x, ct, st) == NULL, "table of 3 rows accepted for 4 tokens");
    CHECK_ERR("rope: tables cos [3, 8] and sin [3, 8] must both be [4, 8]");
    CHECK(bl_rope(g, xo, ct, st) == NULL, "odd head_dim accepted");
    CHECK_ERR("rope: head_dim must be even, got 7");
    bl_graph_free(g);
    bl_tensor *all[] = {x, xo, ct, st};
    FREE_ALL(all);
}

int main(void)
{
    RUN(test_table_1d);
    RUN(test_table_2d);
    RUN(test_rope_rotation);
    RUN(test_rope_grad_1d);
    RUN(test_rope_grad_2d_prefix);
    RUN(test_rope_errors);
    return bl_test_done();
}
