/* blas.c - BLAS threading policy and the sgemm wrapper (see blas.h). */
#include "core/blas.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int openblas_get_parallel(void);
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);

const char *bl_blas_kernel(void) { return openblas_get_corename(); }

void bl_blas_pick_kernel(char **argv)
{
    const char *auto_ = getenv("BLOCKLAB_BLAS_AUTO");
    if (getenv("OPENBLAS_CORETYPE") || (auto_ && strcmp(auto_, "0") == 0)) return;
    const char *core = openblas_get_corename();
    static const char *fallbacks[] = {"Prescott", "Core2", "Katmai", "Coppermine", "Northwood",
                                      "Penryn", "Dunnington", "Nehalem", "Sandybridge", "generic"};
    int generic = 0;
    for (size_t i = 0; i < sizeof fallbacks / sizeof *fallbacks; i++)
        if (core && strcasecmp(core, fallbacks[i]) == 0) generic = 1;
    if (!generic) return;
    __builtin_cpu_init();
    const char *pick = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        pick = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        pick = "Haswell";
    if (!pick || strcasecmp(pick, core) == 0) return;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    self[n] = 0;   /* exec the real path, so the process keeps its own name */
    setenv("OPENBLAS_CORETYPE", pick, 1);
    execv(self, argv);
    unsetenv("OPENBLAS_CORETYPE");   /* exec failed: carry on with the slow kernel */
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

void bl_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, const float *B,
              float beta, float *C)
{
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                M, N, K, alpha, A, ta ? M : K, B, tb ? K : N, beta, C, N);
}
