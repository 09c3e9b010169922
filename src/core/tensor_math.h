/* tensor_math.h - plain (non-differentiable) tensor arithmetic for the REPL and for tests.
 *
 * Results are new owned tensors (bl_tensor_free them); NULL + bl_error() on bad shapes or
 * arguments. Broadcasting follows NumPy: shapes are aligned from the right and each pair of
 * sizes must be equal or one of them 1.
 */
#ifndef BL_TENSOR_MATH_H
#define BL_TENSOR_MATH_H

#include "core/tensor.h"

/* The elementwise operations (torch's function of the same name; the comparisons give 0/1). */
typedef enum { BL_ADD, BL_SUB, BL_MUL, BL_DIV, BL_POW, BL_MAXIMUM, BL_MINIMUM,
               BL_FLOORDIV, BL_REMAINDER, BL_EQ, BL_NE, BL_LT, BL_LE, BL_GT, BL_GE } bl_binop;
typedef enum { BL_NEG, BL_ABS, BL_SQRT, BL_EXP, BL_LOG, BL_SIN, BL_COS, BL_TAN, BL_TANH,
               BL_SIGMOID, BL_SIGN, BL_FLOOR, BL_CEIL, BL_ERF } bl_unop;
typedef enum { BL_SUM, BL_MEAN, BL_VAR, BL_STD, BL_RMS, BL_MIN, BL_MAX } bl_reduce;

/* a // b and a % b as torch.floor_divide and torch.remainder (and Python's // and % of floats):
 * the quotient rounded down, and a - b * (a // b) with the sign of b (7 % -2 = -1, -7 % 2 = 1),
 * computed as CPython's float_divmod (fmod, then corrected) so no rounding of a / b shows.
 * b == 0: a / b (+-inf, nan) and nan, as torch on float tensors; a zero remainder keeps fmod's
 * sign (torch.remainder(-3., 3.) = -0.). */
double bl_floordiv(double a, double b);
double bl_remainder(double a, double b);

/* The broadcast shape of a and b into out (ndim into *ndim); -1 + "op: shapes [..] and [..]
 * cannot be broadcast" when incompatible. */
int bl_broadcast_shape(const char *op, const bl_tensor *a, const bl_tensor *b, int *ndim, int *out);
/* a OP b with NumPy broadcasting. Scalars are 0-D tensors. */
bl_tensor *bl_binary(bl_binop op, const bl_tensor *a, const bl_tensor *b);
bl_tensor *bl_unary(bl_unop op, const bl_tensor *a);
/* Reduce over dimension `dim` (negative counts from the end; keepdim keeps it as size 1), or
 * over all elements when all is nonzero (result 0-D). VAR/STD are biased (divide by n), as the
 * statistics inside LayerNorm. */
bl_tensor *bl_reduce_dim(bl_reduce op, const bl_tensor *a, int dim, int keepdim);
bl_tensor *bl_reduce_all(bl_reduce op, const bl_tensor *a);
/* Matrix product with torch.matmul rules for 1-D..4-D operands (batch dims broadcast). */
bl_tensor *bl_tensor_matmul(const bl_tensor *a, const bl_tensor *b);
/* |a - b| <= atol + rtol |b| everywhere (shapes broadcast); returns 1/0, or -1 on a shape error. */
int bl_allclose(const bl_tensor *a, const bl_tensor *b, float rtol, float atol);

#endif
