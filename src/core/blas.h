/* blas.h - the only place blocklab calls BLAS, so threading is decided in one spot.
 *
 * Threading (DESIGN.md section 4: never two thread pools on the same cores at once): blocklab is
 * meant to run on Debian's OpenMP build of OpenBLAS (libopenblas0-openmp), so OpenBLAS and our own
 * `#pragma omp` loops share one pool; a BLAS call made inside an OpenMP region then runs on the
 * calling thread. If the pthreads build is what the loader found, bl_blas_init() notices
 * (openblas_get_parallel() == 1) and bl_par_begin()/bl_par_end() switch OpenBLAS to one thread
 * around our parallel regions, so the pools never run at the same time.
 */
#ifndef BL_BLAS_H
#define BL_BLAS_H

#include <cblas.h>
#include <stddef.h>

/* Debian 12's OpenBLAS (0.3.21) does not know recent Xeons (Sapphire Rapids) and falls back to
 * its Prescott (SSE3) kernels, 8-10x slower than the AVX-512 ones on these machines (measured:
 * 7.5 vs 75 GFLOP/s single-threaded at 4096x384x128). The kernel is chosen when the library
 * loads, so a program calls this first thing in main(): when OPENBLAS_CORETYPE is unset and the
 * detected core is a generic fallback while the CPU has AVX-512 (SkylakeX kernels) or AVX2 +
 * FMA (Haswell kernels), it sets OPENBLAS_CORETYPE and re-executes the program once
 * (/proc/self/exe, same argv). A value the user or the machine set is always respected; so is
 * BLOCKLAB_BLAS_AUTO=0. Returns only when nothing needed changing or the exec failed.
 * The same re-execution sets GOMP_SPINCOUNT=3000 when neither it nor OMP_WAIT_POLICY is set
 * (and removes it again from the environment of the re-executed program, so children such as
 * a PyTorch reference do not inherit it). libgomp's default lets an idle thread spin 300,000
 * PAUSEs (about 20 ms on these Xeons) between parallel regions: on a shared 2-core machine the
 * spinning worker steals the CPU share of the thread doing the work. Measured on a TinyDiT
 * step at batch 64, 2 threads, machine load 8-10: 3.6 s default, 0.80-0.84 s at 3000 (and
 * 0.80-0.89 s passive), 0.79-0.94 s with one thread. */
void bl_blas_pick_kernel(char **argv);
/* The kernel OpenBLAS is running ("SkylakeX", "Haswell", "Prescott", ...). */
const char *bl_blas_kernel(void);

/* Detect the OpenBLAS threading model once; safe to call many times. */
void bl_blas_init(void);
/* "openmp", "pthreads" or "sequential". */
const char *bl_blas_threading(void);
/* Bracket an OpenMP region whose threads call BLAS (see above). */
void bl_par_begin(void);
void bl_par_end(void);

/* Which library multiplies matrices: "onednn" (oneDNN's dnnl_sgemm, when configure found
 * libdnnl and its CPU runtime is OpenMP, so it shares blocklab's pool) or "openblas"
 * (cblas_sgemm). oneDNN is the default where present: at TinyDiT's shapes on these Xeons it
 * runs 130-150 GFLOP/s on one thread against OpenBLAS's 100-130, and 190-225 on two against
 * 130-185 (its packing and threading suit K = 128 better), which makes a training step 12-17%
 * faster. The environment variable BLOCKLAB_GEMM=openblas (or =onednn) chooses at start-up. */
const char *bl_gemm_backend(void);
/* Choose the backend by name ("onednn" or "openblas"); returns 0, or -1 (reported through
 * bl_fail, nothing changed) for an unknown name or oneDNN when it is not available. For
 * benchmarks and tests that compare the two. */
int bl_gemm_set_backend(const char *name);

/* What multiplies the matrices, as one line for --version, e.g. "matrix products: oneDNN 2.6.3
 * (dnnl_sgemm); BLAS: OpenBLAS 0.3.21, SkylakeX kernels, openmp threading; 2 threads".
 * Writes at most n bytes into buf and returns buf. */
char *bl_blas_describe(char *buf, size_t n);

/* 1 when two independent products are best run side by side, one per thread with
 * single-threaded products (OpenBLAS on two threads: 10-25% faster than it threading each at
 * TinyDiT's shapes), 0 when one after the other with the backend threading each (oneDNN: as
 * fast for the GELU model, 4% faster for the SwiGLU one, alternating A/B in one process). */
int bl_gemm_pairs_side_by_side(void);

/* oneDNN 2.6's AVX-512 sgemm kernel points the stack pointer at a heap buffer while it runs
 * (oneDNN issue #4845, fixed in later releases): a signal handled on that thread pushes its frame
 * into the heap, and a later free() aborts (seen here: Ctrl-C during `train` crashed 1 run in 6,
 * status 134/139). So no thread takes a signal while oneDNN multiplies: an OpenMP worker blocks
 * the asynchronous signals for good on its first oneDNN product (process signals then go to the
 * main thread), and the main thread blocks them around each product, or once around a whole
 * region bracketed by bl_signals_hold()/bl_signals_release() (a training step), so a Ctrl-C or a
 * terminal resize is handled between products, at most one region late. Nesting is allowed;
 * calls from other threads than the main one are ignored. Nothing is blocked with OpenBLAS. */
void bl_signals_hold(void);
void bl_signals_release(void);

/* C[M,N] = alpha * op(A) op(B) + beta * C, row-major, op = transpose when ta/tb is nonzero.
 * A is [M,K] (or [K,M] when ta), B is [K,N] (or [N,K] when tb). A wrapper on the backend's sgemm
 * (bl_gemm_backend; BLAS semantics, so no error to report: should oneDNN refuse a call, it is
 * made again through cblas_sgemm) with one policy: on exactly two OpenMP threads (the OpenMP OpenBLAS), outside a parallel region, a
 * tall product (M >= 1024, M N K >= 2^22) is split into two row halves, one per thread with
 * single-threaded products: 10-25% faster than OpenBLAS splitting it itself at TinyDiT's shapes
 * on the 2-core machines, and as fast as oneDNN doing so (bench_train prints both figures). Inside a parallel region BLAS runs on
 * the calling thread. */
void bl_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, const float *B,
              float beta, float *C);
/* The same with explicit leading dimensions (row strides, in floats) lda, ldb, ldc, for
 * products on blocks inside larger row-major matrices (one head's columns of a fused qkv). */
void bl_sgemm_ld(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc);

#endif
