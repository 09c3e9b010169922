/* bench_block.c - forward + backward of one TinyDiT-sized block for each switch setting.
 *
 * The block (DESIGN.md section 1, DiT with adaLN modulation from a conditioning vector c):
 *   [shift1, scale1, shift2, scale2] = Linear(dim, 4 dim)(SiLU(c))
 *   h  = x + proj(attn(split(qkv(modulate(norm1(x), shift1, scale1)))))
 *   x' = h + mlp(modulate(norm2(h), shift2, scale2))
 * at batch 64, 64 tokens (an 8x8 grid), dim 128, 4 heads, mlp_ratio 4; loss = mse(x', 0),
 * built from the fused ops TinyDiT trains with (bl_layernorm_modulate / bl_rmsnorm_modulate, bl_qkv_prepare,
 * bl_attention_qkv, bl_linear_add, bl_mlp_*_add).
 * Variants: baseline (layernorm, gelu), rmsnorm, qk_norm, swiglu (hidden 341), rope2d, all four.
 *
 * Prints one JSON object per variant, e.g.
 *   {"bench":"block_fwd_bwd","variant":"baseline","ms":41.2,"gflops":80.1,"mflop":3300.1,...}
 * ms is the median over the timed rounds; variants are timed round-robin (one step of each in
 * turn) so a slow moment of the machine hits them all alike. gflops counts the matrix products
 * only: forward 2 M N K per linear and 4 T^2 dim per image for attention, backward twice that.
 * No assertions: the numbers are for reading. Usage: bench_block [rounds] (default 15).
 */
#include "core/blas.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/rng.h"
#include "core/error.h"
#include "core/tensor.h"
#include "nn/nn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { B = 64, GRID = 8, T = GRID * GRID, D = 128, HEADS = 4, HD = D / HEADS, RATIO = 4 };

enum { SW_RMS = 1, SW_QKN = 2, SW_SWIGLU = 4, SW_ROPE = 8 };

typedef struct {
    const char *name;
    int sw;
    bl_graph *g;
    /* parameters (with grads) */
    bl_tensor *ada_w, *ada_b, *qkv_w, *qkv_b, *proj_w, *proj_b, *qn_w, *kn_w;
    bl_tensor *fc1_w, *fc1_b, *fc2_w, *fc2_b;                  /* gelu */
    bl_tensor *w1, *b1, *w2, *b2, *w3, *b3;                    /* swiglu */
    double *ms;
    double flop;
} variant;

static bl_tensor *x_in, *c_in, *target, *rope_cos, *rope_sin;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_block: %s: %s\n", what, bl_error());
    exit(1);
}

/* A parameter [out, in] (or [out] when in == 0) with a grad, U(-1/sqrt(fan), 1/sqrt(fan)). */
static bl_tensor *param(const char *name, int out, int in, int fan)
{
    bl_tensor *t = in ? bl_tensor_new2(out, in) : bl_tensor_new1(out);
    if (!t || bl_tensor_require_grad(t) < 0) die(name);
    bl_rng r;
    bl_rng_named(&r, 0, name);
    float a = 1.0f / sqrtf((float)fan);
    bl_rng_fill_uniform(&r, t->data, t->numel, -a, a);
    return t;
}

static void make_params(variant *v, int hs)
{
    v->ada_w = param("ada.w", 4 * D, D, D);
    v->ada_b = param("ada.b", 4 * D, 0, D);
    v->qkv_w = param("qkv.w", 3 * D, D, D);
    v->qkv_b = param("qkv.b", 3 * D, 0, D);
    v->proj_w = param("proj.w", D, D, D);
    v->proj_b = param("proj.b", D, 0, D);
    if (v->sw & SW_QKN) {
        v->qn_w = param("qn.w", HD, 0, 1);
        v->kn_w = param("kn.w", HD, 0, 1);
    }
    if (v->sw & SW_SWIGLU) {
        v->w1 = param("w1.w", hs, D, D);
        v->b1 = param("w1.b", hs, 0, D);
        v->w2 = param("w2.w", hs, D, D);
        v->b2 = param("w2.b", hs, 0, D);
        v->w3 = param("w3.w", D, hs, hs);
        v->b3 = param("w3.b", D, 0, hs);
    } else {
        v->fc1_w = param("fc1.w", RATIO * D, D, D);
        v->fc1_b = param("fc1.b", RATIO * D, 0, D);
        v->fc2_w = param("fc2.w", D, RATIO * D, RATIO * D);
        v->fc2_b = param("fc2.b", D, 0, RATIO * D);
    }
}

/* Matrix FLOPs of one forward pass of the block. */
static double forward_flop(int sw, int hs)
{
    double rows = (double)B * T;
    double f = 2.0 * B * D * 4 * D;                 /* adaLN modulation */
    f += 2.0 * rows * D * 3 * D;                     /* qkv */
    f += 4.0 * B * T * T * D;                        /* q k^T and P v over all heads */
    f += 2.0 * rows * D * D;                         /* proj */
    f += sw & SW_SWIGLU ? 3 * 2.0 * rows * D * hs : 2 * 2.0 * rows * D * RATIO * D;
    return f;
}

/* One training-like step: reset, forward, loss, backward, with the ops TinyDiT trains with
 * (models/tinydit.c): norm + modulation as one op, qk_norm and RoPE on the fused projection,
 * attention reading it in place, the residual adds inside the output projections. */
static void step(variant *v)
{
    bl_graph *g = v->g;
    bl_graph_reset(g);
    bl_tensor *ps[] = {v->ada_w, v->ada_b, v->qkv_w, v->qkv_b, v->proj_w, v->proj_b, v->qn_w, v->kn_w,
                       v->fc1_w, v->fc1_b, v->fc2_w, v->fc2_b, v->w1, v->b1, v->w2, v->b2, v->w3, v->b3,
                       x_in, c_in};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        if (ps[i]) bl_tensor_zero_grad(ps[i]);
    bl_tensor *(*norm_modulate)(bl_graph *, bl_tensor *, bl_tensor *, bl_tensor *, float, bl_tensor **) =
        v->sw & SW_RMS ? bl_rmsnorm_modulate : bl_layernorm_modulate;

    /* self.adaLN_modulation(c).chunk(4, dim=1) */
    bl_tensor *mod = bl_linear(g, bl_silu(g, c_in), v->ada_w, v->ada_b);
    if (!mod) die("adaLN");
    bl_tensor *shift1 = bl_slice_last(g, mod, 0, D), *scale1 = bl_slice_last(g, mod, D, D);
    bl_tensor *shift2 = bl_slice_last(g, mod, 2 * D, D), *scale2 = bl_slice_last(g, mod, 3 * D, D);
    /* x + self.attn(modulate(self.norm1(x), shift_msa, scale_msa)) */
    bl_tensor *qkv = bl_linear(g, norm_modulate(g, x_in, shift1, scale1, 1e-6f, NULL),
                               v->qkv_w, v->qkv_b);
    if (qkv && (v->sw & (SW_QKN | SW_ROPE)))
        qkv = bl_qkv_prepare(g, qkv, HEADS, HEADS, v->qn_w, v->kn_w, 1e-6f,
                             v->sw & SW_ROPE ? rope_cos : NULL, v->sw & SW_ROPE ? rope_sin : NULL);
    bl_tensor *a = qkv ? bl_attention_qkv(g, qkv, HEADS, HEADS, 0, NULL, 0, NULL) : NULL;
    bl_tensor *h = a ? bl_linear_add(g, a, v->proj_w, v->proj_b, x_in) : NULL;
    if (!h) die("attention");
    /* x + self.mlp(modulate(self.norm2(x), shift_mlp, scale_mlp)) */
    bl_tensor *m = norm_modulate(g, h, shift2, scale2, 1e-6f, NULL);
    bl_tensor *out = v->sw & SW_SWIGLU ? bl_mlp_swiglu_add(g, m, v->w1, v->b1, v->w2, v->b2, v->w3, v->b3, h)
                                       : bl_mlp_gelu_add(g, m, v->fc1_w, v->fc1_b, v->fc2_w, v->fc2_b, h);
    bl_tensor *loss = out ? bl_mse(g, out, target) : NULL;
    if (!loss || bl_graph_backward(g, loss) < 0) die("block");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    bl_blas_pick_kernel(argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1) rounds = 1;
    bl_blas_init();
    int hs = bl_swiglu_hidden(D, RATIO, 0);
    variant vs[] = {
        {.name = "baseline", .sw = 0}, {.name = "rmsnorm", .sw = SW_RMS},
        {.name = "qk_norm", .sw = SW_QKN}, {.name = "swiglu", .sw = SW_SWIGLU},
        {.name = "rope2d", .sw = SW_ROPE},
        {.name = "all four", .sw = SW_RMS | SW_QKN | SW_SWIGLU | SW_ROPE},
    };
    int nv = (int)(sizeof vs / sizeof *vs);

    x_in = bl_tensor_new3(B, T, D);
    c_in = bl_tensor_new2(B, D);
    target = bl_tensor_new3(B, T, D);
    rope_cos = bl_tensor_new2(T, HD);
    rope_sin = bl_tensor_new2(T, HD);
    if (!x_in || !c_in || !target || !rope_cos || !rope_sin) die("inputs");
    bl_rng r;
    bl_rng_named(&r, 0, "bench.x");
    bl_rng_fill_normal(&r, x_in->data, x_in->numel, 0.0f, 1.0f);
    bl_rng_fill_normal(&r, c_in->data, c_in->numel, 0.0f, 1.0f);
    bl_tensor_require_grad(x_in);
    bl_tensor_require_grad(c_in);
    if (bl_rope_table_2d(GRID, GRID, 0, HD, 100.0f, rope_cos->data, rope_sin->data) < 0) die("rope table");

    for (int i = 0; i < nv; i++) {
        vs[i].g = bl_graph_new();
        vs[i].ms = calloc((size_t)rounds, sizeof(double));
        if (!vs[i].g || !vs[i].ms) die("setup");
        make_params(&vs[i], hs);
        vs[i].flop = 3.0 * forward_flop(vs[i].sw, hs);
    }
    /* two warm-up rounds size every arena and wake the thread pools */
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < nv; i++) step(&vs[i]);
    size_t mallocs[16];
    for (int i = 0; i < nv; i++) mallocs[i] = bl_graph_arena_mallocs(vs[i].g);
    for (int rd = 0; rd < rounds; rd++)
        for (int i = 0; i < nv; i++) {
            double t0 = now();
            step(&vs[i]);
            vs[i].ms[rd] = (now() - t0) * 1e3;
        }
    for (int i = 0; i < nv; i++) {
        variant *v = &vs[i];
        qsort(v->ms, (size_t)rounds, sizeof(double), cmp_double);
        double med = v->ms[rounds / 2];
        printf("{\"bench\":\"block_fwd_bwd\",\"variant\":\"%s\",\"ms\":%.3f,\"gflops\":%.2f,"
               "\"min_ms\":%.3f,\"mflop\":%.1f,\"rounds\":%d,\"batch\":%d,\"tokens\":%d,\"dim\":%d,"
               "\"heads\":%d,\"arena_mb\":%.1f,\"arena_grew\":%s,\"blas_threading\":\"%s\"}\n",
               v->name, med, v->flop / (med * 1e-3) / 1e9, v->ms[0], v->flop / 1e6, rounds, B, T, D,
               HEADS, (double)bl_graph_arena_bytes(v->g) / (1 << 20),
               bl_graph_arena_mallocs(v->g) != mallocs[i] ? "true" : "false", bl_blas_threading());
    }
    for (int i = 0; i < nv; i++) {
        variant *v = &vs[i];
        bl_tensor *ps[] = {v->ada_w, v->ada_b, v->qkv_w, v->qkv_b, v->proj_w, v->proj_b, v->qn_w,
                           v->kn_w, v->fc1_w, v->fc1_b, v->fc2_w, v->fc2_b, v->w1, v->b1, v->w2,
                           v->b2, v->w3, v->b3};
        for (size_t j = 0; j < sizeof ps / sizeof *ps; j++) bl_tensor_free(ps[j]);
        bl_graph_free(v->g);
        free(v->ms);
    }
    bl_tensor *io[] = {x_in, c_in, target, rope_cos, rope_sin};
    for (int i = 0; i < 5; i++) bl_tensor_free(io[i]);
    return 0;
}
