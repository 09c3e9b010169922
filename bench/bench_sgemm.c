/* bench_sgemm.c - GFLOP/s of bl_sgemm at the shapes one TinyDiT training step uses, through each
 * product backend built in (oneDNN's dnnl_sgemm, OpenBLAS's cblas_sgemm; "gemm" names it).
 *
 * Prints one JSON object per line, e.g.
 *   {"bench":"sgemm","what":"attn.qkv forward","M":4096,"N":384,"K":128,"ta":0,"tb":1,
 *    "reps":120,"ms":1.61,"gflops":250.1,"threads":2,"blas_threading":"openmp","gemm":"onednn"}
 * Shapes (DESIGN.md section 1 and 4): batch 64 x 64 tokens = 4096 rows, dim 128; a linear
 * y = x W^T is sgemm(0, 1, rows, out, in), its backward dx = dy W is (0, 0, rows, in, out) and
 * dW = dy^T x is (1, 0, out, in, rows). Attention works on 64x64x32 blocks per (image, head);
 * the "matmul" lines time bl_matmul on all 256 of them at once. Each figure runs ~0.2 s.
 * No assertions: the numbers are for reading, not for tests.
 */
#include "core/blas.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/rng.h"
#include "core/tensor.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int openblas_get_num_threads(void);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *randbuf(size_t n, const char *name)
{
    float *p = malloc(n * sizeof(float));
    if (!p) { fprintf(stderr, "bench_sgemm: out of memory\n"); exit(1); }
    bl_rng r;
    bl_rng_named(&r, 1, name);
    bl_rng_fill_normal(&r, p, n, 0.0f, 1.0f);
    return p;
}

static void report(const char *bench, const char *what, int M, int N, int K, int ta, int tb,
                   int batch, long reps, double secs)
{
    double per = secs / (double)reps;
    double gflops = 2.0 * M * N * K * batch / per / 1e9;
    printf("{\"bench\":\"%s\",\"what\":\"%s\",\"M\":%d,\"N\":%d,\"K\":%d,\"ta\":%d,\"tb\":%d,", bench,
           what, M, N, K, ta, tb);
    if (batch > 1) printf("\"batch\":%d,", batch);
    printf("\"reps\":%ld,\"ms\":%.4f,\"gflops\":%.2f,\"threads\":%d,\"blas_threading\":\"%s\","
           "\"gemm\":\"%s\"}\n", reps, per * 1e3, gflops, openblas_get_num_threads(),
           bl_blas_threading(), bl_gemm_backend());
    fflush(stdout);
}

/* Run fn(arg) once to warm up, then often enough for about `target` seconds; returns the
 * repetitions and writes the elapsed time of the timed run to *secs. */
typedef void (*work_fn)(void *arg);

static long time_it(work_fn fn, void *arg, double target, double *secs)
{
    fn(arg);
    double t0 = now();
    fn(arg);
    double one = now() - t0;
    long reps = one > 0 ? (long)(target / one) : 1000;
    if (reps < 3) reps = 3;
    t0 = now();
    for (long i = 0; i < reps; i++) fn(arg);
    *secs = now() - t0;
    return reps;
}

typedef struct { int M, N, K, ta, tb; float *A, *B, *C; } gemm_case;

static void run_gemm(void *arg)
{
    gemm_case *c = arg;
    bl_sgemm(c->ta, c->tb, c->M, c->N, c->K, 1.0f, c->A, c->B, 0.0f, c->C);
}

typedef struct { bl_graph *g; bl_tensor *a, *b; } matmul_case;

static void run_matmul(void *arg)
{
    matmul_case *c = arg;
    bl_graph_reset(c->g);
    bl_matmul(c->g, c->a, c->b);
}

int main(int argc, char **argv)
{
    bl_blas_pick_kernel(argv);
    double target = argc > 1 ? atof(argv[1]) : 0.2;   /* seconds per figure */
    static const struct { const char *what; int M, N, K, ta, tb; } cases[] = {
        /* forward: y = x W^T over 4096 rows */
        {"attn.qkv forward", 4096, 384, 128, 0, 1},
        {"attn.proj forward", 4096, 128, 128, 0, 1},
        {"mlp.fc1 forward", 4096, 512, 128, 0, 1},
        {"mlp.fc2 forward", 4096, 128, 512, 0, 1},
        {"adaLN_modulation forward", 64, 512, 128, 0, 1},
        {"final_layer forward", 4096, 48, 128, 0, 1},
        /* backward: dx = dy W */
        {"attn.qkv backward dx", 4096, 128, 384, 0, 0},
        {"mlp.fc1 backward dx", 4096, 128, 512, 0, 0},
        {"mlp.fc2 backward dx", 4096, 512, 128, 0, 0},
        /* backward: dW = dy^T x */
        {"attn.qkv backward dW", 384, 128, 4096, 1, 0},
        {"attn.proj backward dW", 128, 128, 4096, 1, 0},
        {"mlp.fc1 backward dW", 512, 128, 4096, 1, 0},
        {"mlp.fc2 backward dW", 128, 512, 4096, 1, 0},
        /* attention per (image, head): scores q k^T and att @ v */
        {"attention q k^T", 64, 64, 32, 0, 1},
        {"attention att v", 64, 32, 64, 0, 0},
        /* the shape named in issue 2 (batch 128 of 64 tokens, qkv) */
        {"issue 8192x128x384", 8192, 128, 384, 0, 0},
    };
    bl_blas_init();
    const char *initial = bl_gemm_backend(), *backends[] = {"openblas", "onednn"};
    for (size_t bk = 0; bk < 2; bk++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && bl_gemm_set_backend(backends[bk]) == 0; i++) {
        gemm_case c = {cases[i].M, cases[i].N, cases[i].K, cases[i].ta, cases[i].tb, NULL, NULL, NULL};
        c.A = randbuf((size_t)c.M * c.K, "A");
        c.B = randbuf((size_t)c.K * c.N, "B");
        c.C = randbuf((size_t)c.M * c.N, "C");
        double secs;
        long reps = time_it(run_gemm, &c, target, &secs);
        report("sgemm", cases[i].what, c.M, c.N, c.K, c.ta, c.tb, 1, reps, secs);
        free(c.A); free(c.B); free(c.C);
    }
    bl_gemm_set_backend(initial);
    /* all of attention's blocks at once through bl_matmul: [64 images, 4 heads, 64, 32] */
    static const struct { const char *what; int M, N, K; } att[] = {
        {"attention scores, 256 blocks", 64, 64, 32},
        {"attention att v, 256 blocks", 64, 32, 64},
    };
    for (size_t i = 0; i < sizeof att / sizeof att[0]; i++) {
        matmul_case c = {bl_graph_new(), bl_tensor_new4(64, 4, att[i].M, att[i].K),
                         bl_tensor_new4(64, 4, att[i].K, att[i].N)};
        if (!c.g || !c.a || !c.b) { fprintf(stderr, "bench_sgemm: out of memory\n"); return 1; }
        bl_graph_set_record(c.g, 0);
        double secs;
        long reps = time_it(run_matmul, &c, target, &secs);
        report("matmul", att[i].what, att[i].M, att[i].N, att[i].K, 0, 0, 256, reps, secs);
        bl_tensor_free(c.a); bl_tensor_free(c.b); bl_graph_free(c.g);
    }
    return 0;
}
