/* test_tensor.c - tensors, views, transpose, rng streams, the graph arena. */
#include <stdlib.h>
#include "core/error.h"
#include "core/graph.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "../check.h"

BL_TEST(test_new_and_shape)
{
    bl_tensor *t = bl_tensor_new3(2, 3, 4);
    CHECK(t && t->numel == 24, "numel");
    char buf[32];
    CHECK(strcmp(bl_shape_str(t, buf, sizeof buf), "[2, 3, 4]") == 0, "%s", buf);
    for (size_t i = 0; i < t->numel; i++) CHECK(t->data[i] == 0.0f, "zeroed");
    bl_tensor_free(t);
}

BL_TEST(test_bad_shapes)
{
    CHECK(bl_tensor_new3(100000, 100000, 100) == NULL, "absurd size accepted");
    CHECK_ERR("absurd size");
    /* a lower limit (the REPL's, while it evaluates an expression) refuses larger shapes in the
     * same words as the REPL's functions, and restores */
    size_t old = bl_tensor_limit((size_t)1 << 28);
    CHECK(old == BL_MAX_NUMEL, "limit %zu", old);
    CHECK(bl_tensor_new2(20000, 20000) == NULL, "4e8 elements accepted under a limit of 2^28");
    CHECK_ERR("tensor: shape [20000, 20000] has 400000000 elements (1.49 GiB of float32), more than the 268435456 "
              "(1 GiB) a tensor may have");
    bl_tensor *ok = bl_tensor_new2(40, 25);
    CHECK(ok != NULL, "%s", bl_error());
    bl_tensor_free(ok);
    CHECK(bl_tensor_limit(old) == (size_t)1 << 28 && bl_tensor_limit(old) == BL_MAX_NUMEL, "limit not restored");
    CHECK(bl_tensor_new2(3, 0) == NULL, "zero dim accepted");
    CHECK_ERR("at least 1");
    CHECK(bl_tensor_new(5, (int[]){1, 1, 1, 1, 1}) == NULL, "5-D accepted");
    CHECK_ERR("at most 4");
}

BL_TEST(test_reshape_view)
{
    bl_tensor *t = bl_tensor_new2(4, 6);
    for (int i = 0; i < 24; i++) t->data[i] = (float)i;
    bl_tensor *v = bl_tensor_reshape(t, 3, (int[]){2, -1, 3});
    CHECK(v && v->shape[1] == 4 && v->data == t->data, "view shares data");
    bl_tensor_free(v);
    CHECK(bl_tensor_reshape(t, 2, (int[]){5, 5}) == NULL, "bad reshape accepted");
    CHECK_ERR("reshape");
    bl_tensor_free(t);
}

BL_TEST(test_transpose)
{
    bl_tensor *t = bl_tensor_new3(2, 3, 4);
    for (int i = 0; i < 24; i++) t->data[i] = (float)i;
    bl_tensor *r = bl_tensor_transpose(t, 0, 2); /* [4, 3, 2] */
    CHECK(r && r->shape[0] == 4 && r->shape[2] == 2, "shape");
    /* r[d][c][b] = t[b][c][d] = b*12 + c*4 + d */
    CHECK_CLOSE(r->data[(3 * 3 + 2) * 2 + 1], 1 * 12 + 2 * 4 + 3, 0);
    bl_tensor_free(r);
    CHECK(bl_tensor_transpose(t, 0, 3) == NULL, "bad dim accepted");
    CHECK_ERR("out of range");
    bl_tensor_free(t);
}

BL_TEST(test_rng_streams)
{
    bl_rng a, b, c;
    bl_rng_named(&a, 42, "blocks.0.attn.qkv.weight");
    bl_rng_named(&b, 42, "blocks.0.attn.qkv.weight");
    bl_rng_named(&c, 42, "blocks.0.attn.proj.weight");
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t x = bl_rng_u32(&a), y = bl_rng_u32(&b), z = bl_rng_u32(&c);
        same &= x == y;
        differ += x != z;
    }
    CHECK(same, "same (seed, name) gives the same stream");
    CHECK(differ > 95, "different names give different streams");
    /* normal draws: mean ~ 0, var ~ 1 over 100k draws (independent check of Box-Muller) */
    double s = 0, s2 = 0;
    for (int i = 0; i < 100000; i++) { double v = bl_rng_normal(&a); s += v; s2 += v * v; }
    CHECK_CLOSE(s / 1e5, 0.0, 0.02);
    CHECK_CLOSE(s2 / 1e5, 1.0, 0.02);
    double u = 0;
    for (int i = 0; i < 100000; i++) u += bl_rng_uniform(&a);
    CHECK_CLOSE(u / 1e5, 0.5, 0.01);
    /* bl_rng_fill_normal (chunked, threaded transform) gives exactly the values of as many
     * bl_rng_normal calls, whatever n and a spare left over from before */
    static const size_t ns[] = {1, 2, 3, 4097, 196608};
    for (int start_odd = 0; start_odd <= 1; start_odd++)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
            size_t n = ns[j];
            float *f = malloc(n * sizeof *f);
            bl_rng_named(&a, 7, "noise");
            bl_rng_named(&b, 7, "noise");
            if (start_odd) { bl_rng_normal(&a); bl_rng_normal(&b); }
            bl_rng_fill_normal(&a, f, n, 0.5f, 2.0f);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += f[i] != 0.5f + 2.0f * bl_rng_normal(&b);
            bad += bl_rng_normal(&a) != bl_rng_normal(&b);   /* the state after, spare included */
            CHECK(bad == 0, "fill_normal n=%zu (spare %d): %zu values differ", n, start_odd, bad);
            free(f);
        }
}

BL_TEST(test_arena_reuse)
{
    bl_graph *g = bl_graph_new();
    for (int step = 0; step < 5; step++) {
        bl_graph_reset(g);
        for (int i = 0; i < 50; i++) CHECK(bl_graph_tensor(g, 2, (int[]){256, 1024}, 1) != NULL, "alloc");
    }
    /* after the first two steps have sized the arena, no further mallocs happen */
    size_t m = bl_graph_arena_mallocs(g);
    for (int step = 0; step < 5; step++) {
        bl_graph_reset(g);
        for (int i = 0; i < 50; i++) bl_graph_tensor(g, 2, (int[]){256, 1024}, 1);
    }
    CHECK(bl_graph_arena_mallocs(g) == m, "arena allocated again: %zu -> %zu", m, bl_graph_arena_mallocs(g));
    bl_graph_free(g);
}

int main(void)
{
    RUN(test_new_and_shape);
    RUN(test_bad_shapes);
    RUN(test_reshape_view);
    RUN(test_transpose);
    RUN(test_rng_streams);
    RUN(test_arena_reuse);
    return bl_test_done();
}
