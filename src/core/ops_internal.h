/* ops_internal.h - helpers shared by the op kernels in src/core/ops_*.c and the fused layer ops
 * of src/nn (not a public header).
 *
 * Threading: elementwise loops use `#pragma omp parallel for if (n > BL_PAR_MIN)`; below about
 * 64k elements the fork/join costs more than the loop. Regions that call BLAS are bracketed by
 * bl_par_begin()/bl_par_end() (see blas.h).
 */
#ifndef BL_OPS_INTERNAL_H
#define BL_OPS_INTERNAL_H

#include "core/error.h"
#include "core/graph.h"
#include <stddef.h>

/* Smallest loop (in elements) worth splitting across OpenMP threads. */
#define BL_PAR_MIN ((size_t)1 << 16)

/* A shape as text for error messages: SHP(t) expands to a fresh buffer holding "[2, 3]". */
#define BL_SHP(t) bl_shape_str((t), (char[64]){0}, 64)

/* Fail with "op: name is missing" when t is NULL. Returns 0 or -1. */
static inline int bl_ops_need(const char *op, const char *name, const bl_tensor *t)
{
    return t ? 0 : bl_fail("%s: %s is missing (NULL tensor)", op, name);
}

/* dst[j] += sum_r src[r * cols + j] (* other[r * cols + j] when other != NULL), r < rows.
 * The gradient of a tensor broadcast over leading rows (a bias, a b of trailing dims).
 * Accumulates in double; splits the columns across threads when the work is large. */
void bl_ops_colsum_add(float *dst, const float *src, const float *other, size_t rows, size_t cols);

/* The fused linear + GELU epilogue (bl_linear_gelu) on the calling thread (the caller splits
 * the rows): acc [rows, cols] holds x W^T; h = acc + b (b [cols] or NULL), y = gelu(h) =
 * h Phi(h) and acc is overwritten with gelu'(h) = Phi(h) + h phi(h) (Phi, phi: the normal cdf
 * and pdf; Phi by A&S 26.2.17). */
void bl_ops_gelu_bias_rows(float *acc, const float *b, float *y, size_t rows, size_t cols);
/* y [rows, cols] += b [cols] on every row, on the calling thread (a linear layer's bias added
 * to its product block by block while it is in cache). */
void bl_ops_add_bias_rows(float *y, const float *b, size_t rows, size_t cols);

/* dst = src (assign) or dst += src on n floats (threads when large). */
void bl_ops_copy_or_add(float *dst, const float *src, size_t n, int assign);

/* y = a + b with b (nb floats) repeated along a (n floats, a multiple of nb); threads. */
void bl_ops_add_rows(const float *a, const float *b, float *y, size_t n, size_t nb);

/* y = a * b elementwise on n floats (threads when large). */
void bl_ops_mul(const float *a, const float *b, float *y, size_t n);
/* y = a * b on [rows, cols] and dst[j] += sum_r y[r, j] (dst NULL: just the product), the sums
 * taken while the rows are in cache; same summation order as bl_ops_colsum_add. */
void bl_ops_mul_colsum(const float *a, const float *b, float *y, size_t rows, size_t cols,
                       float *dst);

/* d = x W^T over R rows (x [R, in], W [out, in], d [R, out]), then epi(ctx, r0, n) on rows
 * [r0, r0 + n) of d, in blocks of BL_LINEAR_ROWS rows. With threads, each block's product and
 * epilogue run on one thread (single-threaded products), so the epilogue reads the product while
 * it is still in that core's cache; otherwise the whole product, then the epilogue over the
 * blocks on the threads. The epilogue may itself call bl_sgemm (it runs on one thread). The
 * fused epilogues of linear (bias), linear_gelu and linear_swiglu. No errors. */
enum { BL_LINEAR_ROWS = 256 };
typedef void (*bl_rows_epilogue)(void *ctx, size_t r0, size_t n);
void bl_ops_linear_rows(int R, int in, int out, const float *x, const float *w, float *d,
                        bl_rows_epilogue epi, void *ctx);

/* The argument checks of a linear layer y = x W^T + b: x [..., in] (at most INT_MAX rows),
 * w [out, in], b [out] or NULL. Returns 0, or -1 through bl_fail with op naming the op. */
int bl_ops_linear_check(const char *op, bl_tensor *x, bl_tensor *w, bl_tensor *b);

/* The two products of a linear layer's backward (y = x W^T; x [R, in], W [out, in], dy [R, out]):
 * dx = dy W + beta_x dx and dW += dy^T x, either output may be NULL. With OpenBLAS on two
 * threads they run side by side, one per thread with single-threaded products (equal FLOPs, no
 * split of each product, no sync inside it); otherwise one after the other, the backend
 * threading each (bl_gemm_pairs_side_by_side).
 * Formulas: llm.c matmul_backward. No errors (BLAS semantics). */
void bl_ops_linear_grads(int R, int in, int out, const float *dy, const float *x, const float *w,
                         float *dx, float beta_x, float *dw);

#endif
