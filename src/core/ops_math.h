/* ops_math.h - the math and tensor functions of the language as graph ops (forward +
 * hand-written backward), each with the semantics of torch's function of the same name.
 *
 * Conventions are those of ops.h: the graph comes first, the result is a new arena tensor (NULL +
 * bl_error() "op: ..." on bad shapes or arguments), and when recording a node is appended whose
 * backward ADDS into the grads of the inputs that have one. Integer results (indices, one-hot,
 * comparisons) are float tensors of whole numbers with no gradient, as blocklab has one dtype.
 *
 * Broadcasting is NumPy's (tensor_math.h): shapes align from the right, each pair of sizes
 * equal or one of them 1; the gradient of a broadcast input is summed over the dims it was
 * broadcast along (torch's sum_to_size).
 *
 * Non-differentiable points follow PyTorch (torch 1.13 derivatives.yaml):
 *   abs'(0) = 0, sign' = floor' = ceil' = 0, clamp passes the gradient where min <= x <= max
 *   (boundaries included), pow: d/da a^b = 0 where b == 0, d/db a^b = 0 where a == 0 and b >= 0,
 *   maximum/minimum split the gradient evenly between equal inputs, max()/min() over all elements
 *   split it evenly among the ties, max(dim)/min(dim) give it to the index they return (the first
 *   extreme; a NaN counts as the extreme), std and rms give 0 where the result is 0.
 */
#ifndef BL_OPS_MATH_H
#define BL_OPS_MATH_H

#include "core/graph.h"
#include "core/tensor_math.h"

/* a OP b elementwise with broadcasting -> the broadcast shape. add sub mul div (IEEE: x/0 =
 * +-inf), pow (torch.pow: powf), maximum/minimum (NaN propagates), and the comparisons eq ne lt
 * le gt ge -> 0/1 with no gradient. Error "op: shapes [..] and [..] cannot be broadcast". */
bl_tensor *bl_binary_op(bl_graph *g, bl_binop op, bl_tensor *a, bl_tensor *b);

/* f(x) elementwise, x of any shape: neg abs sqrt exp log sin cos tan tanh sigmoid
 * (1 / (1 + e^-x)) sign floor ceil erf. sqrt(-1) = nan, log(0) = -inf, as torch. */
bl_tensor *bl_unary_op(bl_graph *g, bl_unop op, bl_tensor *x);
/* x^p for a constant p (torch.pow(x, p)); d/dx = p x^(p-1), 0 where p == 0. */
bl_tensor *bl_pow_scalar(bl_graph *g, bl_tensor *x, float p);
/* min(max(x, lo), hi) (torch.clamp); lo or hi NAN: no bound. lo > hi gives hi everywhere, as
 * torch. The gradient passes where lo <= x <= hi. */
bl_tensor *bl_clamp(bl_graph *g, bl_tensor *x, float lo, float hi);

/* Reductions over all elements (dim BL_ALL_DIMS -> a 0-D result) or over one dimension (negative
 * counts from the end; keepdim keeps it with size 1): sum mean var std (biased: divide by n, as
 * inside LayerNorm; torch's var/std with unbiased=False) rms (sqrt(mean(x^2))) min max (torch.max
 * and torch.max(dim).values). Sums in double. */
#define BL_ALL_DIMS (-100)
bl_tensor *bl_reduce_op(bl_graph *g, bl_reduce op, bl_tensor *x, int dim, int keepdim);
/* Index of the largest (max != 0) or smallest element along dim (the first one on ties, a NaN
 * counting as the extreme; torch.argmax / argmin) as whole numbers; dim BL_ALL_DIMS: the index
 * into the flattened tensor, 0-D. No gradient. */
bl_tensor *bl_argext(bl_graph *g, bl_tensor *x, int dim, int keepdim, int max);
/* Running sum along dim (torch.cumsum), summed in double. */
bl_tensor *bl_cumsum(bl_graph *g, bl_tensor *x, int dim);
/* The k largest (largest != 0) or smallest elements along dim, sorted (torch.topk): values
 * [.., k, ..] (differentiable: the gradient goes back to the elements picked) and, when
 * indices != NULL, *indices their positions (no gradient). Equal values are picked in index
 * order. Error when k is not in [1, size of dim]. */
bl_tensor *bl_topk(bl_graph *g, bl_tensor *x, int k, int dim, int largest, bl_tensor **indices);

/* cond ? a : b elementwise, cond (nonzero = true), a and b broadcast together (torch.where). */
bl_tensor *bl_where(bl_graph *g, bl_tensor *cond, bl_tensor *a, bl_tensor *b);
/* x with value where mask is nonzero; mask broadcasts to x's shape (torch.masked_fill). */
bl_tensor *bl_masked_fill(bl_graph *g, bl_tensor *x, bl_tensor *mask, float value);
/* The lower (upper = 0: j - i <= diagonal) or upper (j - i >= diagonal) triangle of the last two
 * dims of x, zeros elsewhere (torch.tril / torch.triu). x at least 2-D. */
bl_tensor *bl_tri(bl_graph *g, bl_tensor *x, int diagonal, int upper);
/* n tensors joined along dim (torch.cat): equal shapes but in dim. The n pointers are copied. */
bl_tensor *bl_cat(bl_graph *g, int n, bl_tensor *const *xs, int dim);
/* n tensors of one shape stacked along a new dim (torch.stack; dim in [-(ndim+1), ndim]). */
bl_tensor *bl_stack(bl_graph *g, int n, bl_tensor *const *xs, int dim);

/* Embedding lookup w[idx] (F.embedding): w [V, D], idx of whole numbers in [0, V) of any shape
 * with at most 3 dims -> [idx.shape..., D]; the gradient adds into the rows of w picked (bl_embedding's
 * backward). Error naming an index out of range or not whole. */
bl_tensor *bl_embedding_idx(bl_graph *g, bl_tensor *w, const bl_tensor *idx);
/* x[idx] for an index tensor (torch's integer-array indexing along dim 0): x [V, ...], idx of
 * whole numbers in [0, V) -> [idx.shape..., x.shape[1:]...] (at most 4 dims); the gradient adds
 * into the rows picked (bl_embedding on x viewed as [V, rest]). */
bl_tensor *bl_take_rows(bl_graph *g, bl_tensor *x, const bl_tensor *idx);
/* one_hot(idx, C) (F.one_hot): idx of whole numbers in [0, C) -> [idx.shape..., C] of 0/1;
 * num_classes <= 0 means max(idx) + 1. No gradient. */
bl_tensor *bl_one_hot(bl_graph *g, const bl_tensor *idx, int num_classes);
/* steps values from start to end evenly (torch.linspace, its symmetric formula: the first half
 * start + i step, the second end - (steps - 1 - i) step). */
bl_tensor *bl_linspace(bl_graph *g, double start, double end, int steps);
/* The n x m identity (torch.eye). */
bl_tensor *bl_eye(bl_graph *g, int n, int m);

/* The forward kernels, for tensor_math.h's plain (owned, unrecorded) paths: y must have the
 * result's shape (bl_broadcast_shape for binary, x's for unary). */
void bl_math_binary_fw(bl_binop op, const bl_tensor *a, const bl_tensor *b, bl_tensor *y);
void bl_math_unary_fw(bl_unop op, const bl_tensor *x, bl_tensor *y);
/* The shape a reduction over dim (normalised, or BL_ALL_DIMS) gives; returns ndim. */
int bl_math_reduce_shape(const bl_tensor *x, int dim, int keepdim, int *shape);
void bl_math_reduce_fw(bl_reduce op, const bl_tensor *x, int dim, bl_tensor *y);

#endif
