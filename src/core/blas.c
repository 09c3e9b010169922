/* blas.c - BLAS threading policy and the sgemm wrapper (see blas.h). */
#include "config.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/fmt.h"
#ifdef HAVE_ONEDNN
#include <dnnl.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int openblas_get_parallel(void);
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);

const char *bl_blas_kernel(void) { return openblas_get_corename(); }

/* The kernel OpenBLAS should use instead of a generic fallback, or NULL when it is fine. */
static const char *better_kernel(void)
{
    const char *auto_ = getenv("BLOCKLAB_BLAS_AUTO");
    if (getenv("OPENBLAS_CORETYPE") || (auto_ && strcmp(auto_, "0") == 0)) return NULL;
    const char *core = openblas_get_corename();
    static const char *fallbacks[] = {"Prescott", "Core2", "Katmai", "Coppermine", "Northwood",
                                      "Penryn", "Dunnington", "Nehalem", "Sandybridge", "generic"};
    int generic = 0;
    for (size_t i = 0; i < sizeof fallbacks / sizeof *fallbacks; i++)
        if (core && strcasecmp(core, fallbacks[i]) == 0) generic = 1;
    if (!generic) return NULL;
    __builtin_cpu_init();
    const char *pick = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        pick = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        pick = "Haswell";
    return pick && strcasecmp(pick, core) != 0 ? pick : NULL;
}

#define BL_SPINCOUNT "3000"

void bl_blas_pick_kernel(char **argv)
{
    if (getenv("BLOCKLAB_SPIN_SET")) {
        /* our own re-execution: libgomp has read its spin count; children must not inherit it */
        unsetenv("GOMP_SPINCOUNT");
        unsetenv("BLOCKLAB_SPIN_SET");
        return;
    }
    const char *pick = better_kernel();
    const char *auto_ = getenv("BLOCKLAB_BLAS_AUTO");
    int spin = !getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY") &&
               !(auto_ && strcmp(auto_, "0") == 0);
    if (!pick && !spin) return;
    if (pick) setenv("OPENBLAS_CORETYPE", pick, 1);
    if (spin) {
        setenv("GOMP_SPINCOUNT", BL_SPINCOUNT, 1);
        setenv("BLOCKLAB_SPIN_SET", "1", 1);
    }
    execv("/proc/self/exe", argv);
    /* exec failed: carry on with the slow kernel and libgomp's own spin count */
    if (pick) unsetenv("OPENBLAS_CORETYPE");
    if (spin) {
        unsetenv("GOMP_SPINCOUNT");
        unsetenv("BLOCKLAB_SPIN_SET");
    }
}

static int blas_model = -1;     /* 0 sequential, 1 pthreads, 2 openmp */
static int blas_threads = 1;

void bl_blas_init(void)
{
    if (blas_model >= 0) return;
    blas_model = openblas_get_parallel();
    blas_threads = openblas_get_num_threads();
}

const char *bl_blas_threading(void)
{
    bl_blas_init();
    return blas_model == 2 ? "openmp" : blas_model == 1 ? "pthreads" : "sequential";
}

void bl_par_begin(void)
{
    bl_blas_init();
    if (blas_model == 1) openblas_set_num_threads(1);
}

void bl_par_end(void)
{
    if (blas_model == 1) openblas_set_num_threads(blas_threads);
}

/* Two threads and a product this tall: each thread takes half of C's rows with single-threaded
 * BLAS. Measured at TinyDiT's forward shapes (4096 x 384 x 128 and the like, 2 cores): 10-25%
 * above OpenBLAS splitting the product itself, which synchronises inside it. */
static int split_rows(int M, int N, int K)
{
#ifdef _OPENMP
    return blas_model == 2 && M >= 1024 && (size_t)M * N * K >= ((size_t)1 << 22) &&
           omp_get_max_threads() == 2 && !omp_in_parallel();
#else
    (void)M; (void)N; (void)K;
    return 0;
#endif
}

/* 1 when products go through oneDNN, 0 through OpenBLAS, -1 not decided yet. */
static int gemm_onednn = -1;

/* oneDNN can be used: built in, and its CPU runtime is OpenMP (a TBB or threadpool build would
 * be a second pool, DESIGN.md section 4). */
static int onednn_usable(void)
{
#ifdef HAVE_ONEDNN
    const dnnl_version_t *v = dnnl_version();
    return v && v->cpu_runtime == DNNL_RUNTIME_OMP;
#else
    return 0;
#endif
}

/* Decided on first use, possibly on two threads at once: both compute the same value, and the
 * flag is read and written atomically. */
static int gemm_init(void)
{
    int v = __atomic_load_n(&gemm_onednn, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    const char *want = getenv("BLOCKLAB_GEMM");
    v = onednn_usable() && !(want && strcasecmp(want, "openblas") == 0);
    __atomic_store_n(&gemm_onednn, v, __ATOMIC_RELAXED);
    return v;
}

const char *bl_gemm_backend(void)
{
    return gemm_init() ? "onednn" : "openblas";
}

char *openblas_get_config(void);

char *bl_blas_describe(char *buf, size_t n)
{
    char gemm[64] = "OpenBLAS (cblas_sgemm)";
#ifdef HAVE_ONEDNN
    if (gemm_init()) {
        const dnnl_version_t *v = dnnl_version();
        snprintf(gemm, sizeof gemm, "oneDNN %d.%d.%d (dnnl_sgemm)", v->major, v->minor, v->patch);
    }
#endif
    /* "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64": the version word */
    const char *cfg = openblas_get_config();
    char ver[32] = "";
    if (cfg && sscanf(cfg, "OpenBLAS %31s", ver) != 1) ver[0] = 0;
#ifdef _OPENMP
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    snprintf(buf, n, "matrix products: %s; BLAS: OpenBLAS%s%s, %s kernels, %s threading; "
             "%d thread%s", gemm, ver[0] ? " " : "", ver, bl_blas_kernel(), bl_blas_threading(),
             threads, threads == 1 ? "" : "s");
    return buf;
}

int bl_gemm_pairs_side_by_side(void)
{
    return !gemm_init();
}

int bl_gemm_set_backend(const char *name)
{
    if (name && strcasecmp(name, "openblas") == 0) {
        __atomic_store_n(&gemm_onednn, 0, __ATOMIC_RELAXED);
        return 0;
    }
    if (name && strcasecmp(name, "onednn") == 0) {
        if (!onednn_usable())
            return bl_fail("oneDNN is not available in this build (configure found no libdnnl "
                           "with an OpenMP runtime)");
        __atomic_store_n(&gemm_onednn, 1, __ATOMIC_RELAXED);
        return 0;
    }
    char b[48];
    return bl_fail("unknown matrix-product backend '%s' (onednn or openblas)",
                   name ? bl_fmt_shown(name, b, sizeof b) : "(null)");
}

/* The asynchronous signals: all but the ones a fault raises on the faulting thread itself. */
static void async_signals(sigset_t *set)
{
    sigfillset(set);
    int sync[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS};
    for (size_t i = 0; i < sizeof sync / sizeof *sync; i++) sigdelset(set, sync[i]);
}

static __thread int thread_kind;      /* 0 not known yet, 1 the main thread, 2 another */
static __thread int hold_depth;       /* main thread: open bl_signals_hold regions */
static __thread sigset_t hold_saved;  /* main thread: the mask before the outermost hold */

static int on_main_thread(void)
{
    if (!thread_kind) thread_kind = syscall(SYS_gettid) == getpid() ? 1 : 2;
    return thread_kind == 1;
}

void bl_signals_hold(void)
{
    if (!on_main_thread() || !gemm_init()) return;
    if (hold_depth++ == 0) {
        sigset_t set;
        async_signals(&set);
        pthread_sigmask(SIG_BLOCK, &set, &hold_saved);
    }
}

void bl_signals_release(void)
{
    if (!on_main_thread() || hold_depth == 0) return;
    if (--hold_depth == 0) pthread_sigmask(SIG_SETMASK, &hold_saved, NULL);
}

#ifdef HAVE_ONEDNN
/* dnnl_sgemm with no signal handled on this thread while it runs (see blas.h). */
static int onednn_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                        const float *B, int ldb, float beta, float *C, int ldc)
{
    static __thread int worker_masked;
    sigset_t set, old;
    int main_thread = on_main_thread(), restore = 0;
    if (!main_thread && !worker_masked) {   /* a worker: once, for good */
        async_signals(&set);
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        worker_masked = 1;
    } else if (main_thread && hold_depth == 0) {
        async_signals(&set);
        pthread_sigmask(SIG_BLOCK, &set, &old);
        restore = 1;
    }
    dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb,
                                  beta, C, ldc);
    if (restore) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return st == dnnl_success ? 0 : -1;
}
#endif

void bl_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, const float *B,
              float beta, float *C)
{
    int lda = ta ? M : K, ldb = tb ? K : N;
    bl_blas_init();
    if (split_rows(M, N, K)) {
        int h = M / 2;
        /* rows [0, h) and [h, M) of C; op(A)'s rows start at A + m0 lda (or A + m0 when ta) */
#pragma omp parallel num_threads(2)
        {
            int t = omp_get_thread_num(), m0 = t ? h : 0, mr = t ? M - h : h;
            bl_sgemm_ld(ta, tb, mr, N, K, alpha, A + (ta ? (size_t)m0 : (size_t)m0 * lda), lda, B,
                        ldb, beta, C + (size_t)m0 * N, N);
        }
        return;
    }
    bl_sgemm_ld(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
}

void bl_sgemm_ld(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
#ifdef HAVE_ONEDNN
    /* row-major, as cblas; inside an OpenMP region oneDNN runs on the calling thread. K = 0
     * (C = beta C) goes to cblas: oneDNN 2.6 leaves C untouched there for some transposes. */
    if (K > 0 && gemm_init() &&
        onednn_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc) == 0)
        return;
#endif
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
