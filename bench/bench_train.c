/* bench_train.c - whole training steps and generation, beside PyTorch eager.
 *
 * TinyDiT: one AdamW training step at batch 64 (3x32x32 shapes images) for the six variants of
 * DESIGN.md section 1, timed round-robin in one process (each variant takes a step in turn, so
 * background load hits all alike); median ms, matrix GFLOP/s (forward 2MNK per linear +
 * 4 T^2 dim per image for attention, backward twice the forward) and their share of the
 * cblas_sgemm GFLOP/s at the model's main shape (4096x384x128), measured in every round
 * between the steps (median; the first line gives the best of 5 bursts), and of bl_sgemm's
 * (the product as blocklab makes it: oneDNN's dnnl_sgemm or OpenBLAS, "gemm" names which, rows
 * split over 2 threads).
 * When python3 can import torch, bench/torch_ref.py times the same step in PyTorch eager in
 * lockstep with ours (--serve, 1 intra-op thread, its fastest setting here): in every round each
 * variant takes our step and then PyTorch's, so both sides are timed across the same spells of
 * a shared machine and with the same round-robin; "torch_ms" is that median and the ratio is
 * taken against it. After the rounds it also times consecutive steps of one variant alone with
 * 1 and 2 intra-op threads ("torch_alone_ms": the faster), with Debian's pthreads OpenBLAS
 * (torch hangs on the OpenMP build).
 * TinyGPT: training tokens/s at batch 32 x context 128, and generation tokens/s with and
 * without the KV cache, beside PyTorch eager's (torch_ref.py --what gpt; nanoGPT-style
 * generation there recomputes the window, i.e. no KV cache).
 *
 * One JSON object per line. Usage: bench_train [rounds] (default 6). No assertions.
 */
#include "core/blas.h"
#include "core/error.h"
#include "data/dataset.h"
#include "models/model.h"
#include "nn/nn.h"
#include "models/tinygpt.h"
#include "train/trainer.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

#ifndef BL_SRCDIR
#define BL_SRCDIR "."
#endif


/* Matrix FLOPs of one forward pass of a TinyDiT image (see the header comment). */
static double dit_forward_flops(const bl_config *c)
{
    double T = (double)(c->image_size / c->patch) * (c->image_size / c->patch), D = c->dim;
    double P = (double)c->patch * c->patch * c->channels, hd = D / c->heads;
    double kv = (double)bl_config_kv_heads(c) * hd, hid = bl_config_mlp_hidden(c);
    double f = 2 * T * P * D + 2 * (256 * D + D * D);                 /* patch, t_embedder */
    double blk = 2 * D * 4 * D                                         /* adaLN */
               + 2 * T * D * (D + 2 * kv) + 4 * T * T * D + 2 * T * D * D  /* qkv, attn, proj */
               + bl_mlp_defs[c->mlp].nproj * 2 * T * D * hid;  /* mlp */
    return f + c->depth * blk + 2 * D * 2 * D + 2 * T * D * P;        /* final layer */
}

/* GFLOP/s of one product at the model's main shape (4096x384x128, y = x W^T), best of
 * `bursts` bursts of 60 ms: through cblas_sgemm itself (OpenBLAS threading the product: the
 * reference the 60% target is set against) or through bl_sgemm (blocklab's own split of
 * the rows over the threads). */
static double sgemm_gflops(int direct, int bursts)
{
    int M = 4096, N = 384, K = 128;
    float *a = calloc((size_t)M * K, 4), *b = calloc((size_t)N * K, 4), *c = calloc((size_t)M * N, 4);
    for (int i = 0; i < M * K; i++) a[i] = (float)(i % 7) * 0.1f;
    for (int i = 0; i < N * K; i++) b[i] = (float)(i % 5) * 0.1f;
    double best = 1e30;
    for (int round = 0; round < bursts; round++) {
        int reps = 0;
        double t0 = now_ms();
        while (now_ms() - t0 < 60) {
            if (direct)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, a, K, b, K, 0, c, N);
            else
                bl_sgemm(0, 1, M, N, K, 1, a, b, 0, c);
            reps++;
        }
        double ms = (now_ms() - t0) / reps;
        if (ms < best) best = ms;
    }
    free(a); free(b); free(c);
    return 2.0 * M * N * K / best / 1e6;
}

static const struct { const char *name; const char *k[4]; const char *v[4]; int n; } variants[] = {
    {"baseline", {0}, {0}, 0},
    {"rmsnorm", {"norm"}, {"rmsnorm"}, 1},
    {"qk_norm", {"qk_norm"}, {"on"}, 1},
    {"swiglu", {"mlp"}, {"swiglu"}, 1},
    {"rope2d", {"pos"}, {"rope2d"}, 1},
    {"all", {"norm", "qk_norm", "mlp", "pos"}, {"rmsnorm", "on", "swiglu", "rope2d"}, 4},
};
#define NV 6

/* Run bench/torch_ref.py (--what WHAT, intra-op threads th) when python3 can import torch; its
 * JSON lines are echoed and returned through the callback. Torch runs with Debian's pthreads
 * OpenBLAS (it hangs on the OpenMP build) and the same OpenBLAS kernel as blocklab. */
static const char *torch_python(void)   /* $PYTHON, python3 or Debian's /usr/bin/python3 */
{
    static const char *py;
    static int tried;
    if (!tried) {
        const char *cands[] = {getenv("PYTHON"), "python3", "/usr/bin/python3"};
        for (int i = 0; i < 3 && !py; i++) {
            char cmd[512];
            if (!cands[i]) continue;
            snprintf(cmd, sizeof cmd, "%s -c 'import torch' >/dev/null 2>&1", cands[i]);
            if (system(cmd) == 0) py = cands[i];
        }
        tried = 1;
    }
    return py;
}

/* A number after "key": in a JSON line, or 0. */
static double json_num(const char *line, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(line, k);
    return p ? atof(p + strlen(k)) : 0;
}

/* The shell command running torch_ref.py with arguments args. */
static void torch_cmd(char *cmd, size_t n, const char *args)
{
    snprintf(cmd, n,
             "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_CORETYPE=%s "
             "OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 timeout 900 %s %s/bench/torch_ref.py %s",
             bl_blas_kernel(), torch_python(), BL_SRCDIR, args);
}

static FILE *torch_run(const char *what, int th)
{
    char cmd[1024], args[128];
    snprintf(args, sizeof args, "--what %s --threads %d --steps 5", what, th);
    torch_cmd(cmd, sizeof cmd, args);
    return torch_python() ? popen(cmd, "r") : NULL;
}

/* PyTorch stepping in lockstep with blocklab: torch_ref.py --serve with 1 intra-op thread (its
 * fastest setting here, as the standalone lines show), asked for one step at a time, so that in
 * every round each variant takes our step and then PyTorch's, and a slow or fast spell of the
 * shared machine hits both alike. After each PyTorch step the bench waits LOCK_PAUSE_MS, so
 * the pthreads OpenBLAS workers torch uses stop spinning (about 2^28 cycles) before our step. */
enum { LOCK_PAUSE_MS = 150 };
typedef struct { FILE *to, *from; pid_t pid; } torch_peer;

static int peer_open(torch_peer *p)
{
    char cmd[1024];
    int in[2], out[2];
    if (!torch_python() || pipe(in) < 0) return -1;
    if (pipe(out) < 0) { close(in[0]); close(in[1]); return -1; }
    torch_cmd(cmd, sizeof cmd, "--serve --threads 1");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    p->to = pid > 0 ? fdopen(in[1], "w") : NULL;
    p->from = pid > 0 ? fdopen(out[0], "r") : NULL;
    p->pid = pid;
    if (!p->to || !p->from) {
        if (p->to) fclose(p->to); else close(in[1]);
        if (p->from) fclose(p->from); else close(out[0]);
        if (pid > 0) waitpid(pid, NULL, 0);
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);   /* a dead peer reads as "no figure", not a killed bench */
    return 0;
}

/* ms of one PyTorch step of `variant`, or 0 when the peer failed. */
static double peer_step(torch_peer *p, const char *variant)
{
    char line[256];
    if (fprintf(p->to, "dit %s\n", variant) < 0 || fflush(p->to) != 0) return 0;
    if (!fgets(line, sizeof line, p->from)) return 0;
    struct timespec pause = {0, LOCK_PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
    return json_num(line, "ms");
}

static void peer_close(torch_peer *p)
{
    fclose(p->to);
    fclose(p->from);
    waitpid(p->pid, NULL, 0);
}


/* PyTorch eager ms per step for each variant, fastest thread setting; 0 when unavailable. */
/* PyTorch eager ms per step for each variant with th intra-op threads, folded into out (the
 * fastest setting wins; out[i] == 0: none yet). Returns -1 when torch is not available. */
static int torch_ms(int th, double *out)
{
    FILE *p = torch_run("dit", th);
    if (!p) return -1;
    char line[512];
    while (fgets(line, sizeof line, p)) {
        fputs(line, stdout);
        for (int i = 0; i < NV; i++) {
            char key[64];
            snprintf(key, sizeof key, "\"variant\": \"%s\"", variants[i].name);
            double v = json_num(line, "ms");
            if (strstr(line, key) && v > 0 && (out[i] == 0 || v < out[i])) out[i] = v;
        }
    }
    pclose(p);
    return 0;
}

static void bench_dit(int rounds)
{
    bl_dataset *ds = bl_data_shapes(0);
    bl_model *m[NV];
    bl_run *r[NV];
    double *ms[NV];
    for (int i = 0; i < NV; i++) {
        bl_config c = bl_config_default(BL_MODEL_DIT);
        bl_config_set(&c, "eval_every", "0");
        bl_config_set_many(&c, variants[i].n, variants[i].k, variants[i].v);
        m[i] = bl_model_new(&c);
        r[i] = m[i] ? bl_run_new(m[i], ds, 1) : NULL;
        if (!r[i]) { fprintf(stderr, "bench_train: %s\n", bl_error()); exit(1); }
        ms[i] = calloc((size_t)rounds, sizeof(double));
    }
    /* the sgemm reference is measured in every round too, so a slow or fast spell of the
     * machine moves it and the steps alike; the share uses the median of the rounds */
    double *gemms = calloc((size_t)rounds, sizeof(double)), tms[NV] = {0};
    double *owns = calloc((size_t)rounds, sizeof(double));
    /* PyTorch in lockstep (1 intra-op thread): after each of our steps, the same variant's */
    torch_peer peer = {NULL, NULL, 0};
    int opened = peer_open(&peer) == 0, lock = opened;
    double *lms[NV];
    for (int i = 0; i < NV; i++) lms[i] = calloc((size_t)rounds, sizeof(double));
    for (int k = -2; k < rounds; k++) {        /* two warm-up rounds size the arenas */
        if (k >= 0) gemms[k] = sgemm_gflops(1, 1), owns[k] = sgemm_gflops(0, 1);
        for (int j = 0; j < NV; j++) {
            int i = (j + (k < 0 ? 0 : k)) % NV;   /* each round starts one variant later */
            double t0 = now_ms();
            if (bl_run_step(r[i], NULL, NULL) < 0) { fprintf(stderr, "bench_train: %s\n", bl_error()); exit(1); }
            if (k >= 0) ms[i][k] = now_ms() - t0;
            if (lock) {
                double t = peer_step(&peer, variants[i].name);
                if (t <= 0) lock = 0;   /* the peer failed: no lockstep figures */
                if (k >= 0) lms[i][k] = t;
            }
        }
    }
    if (opened) peer_close(&peer);
    /* and on its own, consecutive steps of one variant at 1 and 2 intra-op threads */
    if (torch_ms(1, tms) == 0) torch_ms(2, tms);
    qsort(gemms, (size_t)rounds, sizeof(double), cmp_d);
    qsort(owns, (size_t)rounds, sizeof(double), cmp_d);
    double gemm = gemms[rounds / 2], own = owns[rounds / 2];
    free(gemms);
    free(owns);
    for (int i = 0; i < NV; i++) {
        qsort(ms[i], (size_t)rounds, sizeof(double), cmp_d);
        double med = ms[i][rounds / 2], gf = 3 * 64 * dit_forward_flops(&m[i]->cfg) / 1e9;
        printf("{\"bench\":\"dit_train_step\",\"variant\":\"%s\",\"batch\":64,\"params\":%zu,"
               "\"ms\":%.1f,\"min_ms\":%.1f,\"gflop\":%.2f,\"gflops\":%.1f,\"sgemm_gflops\":%.1f,"
               "\"share_of_sgemm\":%.2f,\"bl_sgemm_gflops\":%.1f,\"share_of_bl_sgemm\":%.2f",
               variants[i].name, bl_model_param_count(m[i]), med, ms[i][0], gf, gf / med * 1e3,
               gemm, gf / med * 1e3 / gemm, own, gf / med * 1e3 / own);
        qsort(lms[i], (size_t)rounds, sizeof(double), cmp_d);
        double tlock = lock ? lms[i][rounds / 2] : 0;
        if (tlock > 0) printf(",\"torch_ms\":%.1f,\"speedup_vs_torch\":%.2f", tlock, tlock / med);
        if (tms[i] > 0) printf(",\"torch_alone_ms\":%.1f", tms[i]);
        printf(",\"gemm\":\"%s\",\"blas\":\"%s/%s\"}\n", bl_gemm_backend(), bl_blas_kernel(),
               bl_blas_threading());
        fflush(stdout);
        bl_run_free(r[i]);
        bl_model_free(m[i]);
        free(ms[i]);
        free(lms[i]);
    }
    bl_dataset_free(ds);
}

static void bench_gpt(int rounds)
{
    bl_dataset *ds = bl_data_open("text", NULL, 0);
    if (!ds) { fprintf(stderr, "bench_train: %s\n", bl_error()); return; }
    bl_config c = bl_config_default(BL_MODEL_GPT);
    char v[16];
    snprintf(v, sizeof v, "%d", ds->vocab_size);
    const char *k[] = {"vocab", "eval_every", "batch", "lr"}, *val[] = {v, "0", "32", "0.001"};
    bl_config_set_many(&c, 4, k, val);
    bl_model *m = bl_model_new(&c);
    bl_run *r = m ? bl_run_new(m, ds, 1) : NULL;
    if (!r) { fprintf(stderr, "bench_train: %s\n", bl_error()); return; }
    bl_run_step(r, NULL, NULL);
    double t0 = now_ms();
    for (int i = 0; i < rounds; i++) bl_run_step(r, NULL, NULL);
    double ms = (now_ms() - t0) / rounds;
    double torch_train = 0, torch_gen = 0;
    for (int th = 1; th <= 2; th++) {
        FILE *p = torch_run("gpt", th);
        if (!p) break;
        char line[512];
        while (fgets(line, sizeof line, p)) {
            fputs(line, stdout);
            double v = json_num(line, "tokens_per_s");
            if (strstr(line, "torch_gpt_train") && v > torch_train) torch_train = v;
            if (strstr(line, "torch_gpt_generate") && v > torch_gen) torch_gen = v;
        }
        pclose(p);
    }
    printf("{\"bench\":\"gpt_train\",\"batch\":32,\"context\":128,\"ms\":%.1f,\"tokens_per_s\":%.0f",
           ms, 32 * 128 / ms * 1e3);
    if (torch_train > 0) printf(",\"torch_tokens_per_s\":%.0f,\"speedup_vs_torch\":%.2f", torch_train, 32 * 128 / ms * 1e3 / torch_train);
    printf("}\n");
    int prompt[1] = {0}, out[128];
    for (int cache = 1; cache >= 0; cache--) {
        bl_gen_opts o = bl_gen_opts_default();
        o.max_new_tokens = 127;
        o.temperature = 0;
        o.use_cache = cache;
        t0 = now_ms();
        int n = bl_gpt_generate(m, prompt, 1, &o, out);
        double gms = now_ms() - t0;
        if (n < 0) { fprintf(stderr, "bench_train: %s\n", bl_error()); break; }
        printf("{\"bench\":\"gpt_generate\",\"kv_cache\":%s,\"tokens\":127,\"tokens_per_s\":%.0f",
               cache ? "true" : "false", 127 / gms * 1e3);
        if (torch_gen > 0) printf(",\"torch_tokens_per_s_no_cache\":%.0f", torch_gen);
        printf("}\n");
    }
    fflush(stdout);
    bl_run_free(r);
    bl_model_free(m);
    bl_dataset_free(ds);
}

int main(int argc, char **argv)
{
    bl_blas_pick_kernel(argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    if (rounds < 1) rounds = 1;
    double gemm = sgemm_gflops(1, 5), own = sgemm_gflops(0, 5);
    printf("{\"bench\":\"sgemm_model_shape\",\"M\":4096,\"N\":384,\"K\":128,\"gflops\":%.1f,"
           "\"bl_sgemm_gflops\":%.1f,\"gemm\":\"%s\",\"blas\":\"%s/%s\"}\n", gemm, own,
           bl_gemm_backend(), bl_blas_kernel(), bl_blas_threading());
    fflush(stdout);
    bench_gpt(rounds);
    bench_dit(rounds);
    return 0;
}
