/* blas.c - BLAS threading policy and the sgemm wrapper (see blas.h). */
#include "core/blas.h"

int openblas_get_parallel(void);
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);

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
