/* functions_math.h - the math and tensor functions of the language (issue 15 item 3) and their
 * help: handlers and the table bl_math_functions[] (repl.h) in functions_math.c. Each runs a
 * graph op of core/ops_math.h through repl/autograd.h, so it records when an argument needs a
 * gradient.
 */
#ifndef BL_REPL_FUNCTIONS_MATH_H
#define BL_REPL_FUNCTIONS_MATH_H

#include "repl/repl.h"
#include "core/tensor_math.h"

bl_value *bl_fn_unary(bl_callargs *a);      /* abs sqrt exp log sin cos ... by a->fname */
bl_value *bl_fn_reduce(bl_callargs *a);     /* sum mean var std rms min max */
bl_value *bl_fn_pow(bl_callargs *a);
bl_value *bl_fn_clamp(bl_callargs *a);
bl_value *bl_fn_binary(bl_callargs *a);     /* maximum minimum */
bl_value *bl_fn_where(bl_callargs *a);
bl_value *bl_fn_masked_fill(bl_callargs *a);
bl_value *bl_fn_tri(bl_callargs *a);
bl_value *bl_fn_join(bl_callargs *a);       /* cat stack */
bl_value *bl_fn_embedding(bl_callargs *a);
bl_value *bl_fn_one_hot(bl_callargs *a);
bl_value *bl_fn_linspace(bl_callargs *a);
bl_value *bl_fn_eye(bl_callargs *a);
bl_value *bl_fn_argext(bl_callargs *a);     /* argmax argmin */
bl_value *bl_fn_cumsum(bl_callargs *a);
bl_value *bl_fn_topk(bl_callargs *a);
bl_value *bl_fn_sort(bl_callargs *a);
bl_value *bl_fn_median(bl_callargs *a);
bl_value *bl_fn_timestep_features(bl_callargs *a);

/* The dimension argument of a call on x: positional argument pos when given (pos >= 0), else
 * dim=, else def (BL_ALL_DIMS: over all elements). In [-ndim, ndim - 1] of x. 0 or -1 + error
 * at it ("dim given twice", out of range, a 0-D x). */
int bl_dim_arg(bl_callargs *a, const bl_tensor *x, int pos, int def, int *dim);

/* A shape from the positional arguments from..n-1 (or one list there): 1 to BL_MAXDIM whole
 * sizes >= 1 (-1, inferred, too when allow_neg), within the size limit. 0, or -1 + error at it. */
int bl_shape_args(bl_callargs *a, int from, int *nd, int *shape, int allow_neg);

/* The call's value: argument 0 (a tensor) viewed with another shape of as many elements
 * (reshape, squeeze, ...; functions_tensor.c), recorded when it needs a gradient. NULL + error. */
bl_value *bl_view_call(bl_callargs *a, int nd, const int *shape);

/* The operators of eval.c on tensors (a or b a tensor or list): + - * / ** // % (torch.floor_divide,
 * torch.remainder) and the comparisons < <= > >= == != (0/1 tensors), recorded when an operand
 * needs a gradient (// refuses one: torch has no derivative for it); op is the token. */
bl_value *bl_math_operator(bl_session *s, int op, bl_value *a, bl_value *b);
/* -x of a tensor value, recorded. */
bl_value *bl_math_neg(bl_session *s, bl_value *x);
/* x[idx] for an index tensor (or list) idx: the rows of x it names (bl_take_rows), recorded. */
bl_value *bl_math_take(bl_session *s, bl_value *x, bl_value *idx);

#endif
