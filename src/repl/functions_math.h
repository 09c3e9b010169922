/* functions_math.h - the math and tensor functions of the language (issue 15 item 3) and their
 * help: handlers and the table bl_math_functions[] (repl.h) in functions_math.c, whose entries
 * are BL_MATH_FUNCTIONS. Each runs a graph op of core/ops_math.h through
 * repl/autograd.h, so it records when an argument needs a gradient.
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
bl_value *bl_fn_timestep_features(bl_callargs *a);

/* The operators of eval.c on tensors (a or b a tensor or list): + - * / ** and the comparisons
 * < <= > >= == != (0/1 tensors), recorded when an operand needs a gradient; op is the token. */
bl_value *bl_math_operator(bl_session *s, int op, bl_value *a, bl_value *b);
/* -x of a tensor value, recorded. */
bl_value *bl_math_neg(bl_session *s, bl_value *x);
/* x[idx] for an index tensor (or list) idx: the rows of x it names (bl_take_rows), recorded. */
bl_value *bl_math_take(bl_session *s, bl_value *x, bl_value *idx);

#define BL_MATH_FUNCTIONS                                                                        \
    { "sin", "sin(x)", "The sine (radians), elementwise; numbers give numbers.", bl_fn_unary },       \
    { "cos", "cos(x)", "The cosine (radians), elementwise; numbers give numbers.", bl_fn_unary },     \
    { "tan", "tan(x)", "The tangent (radians), elementwise; numbers give numbers.", bl_fn_unary },    \
    { "tanh", "tanh(x)", "The hyperbolic tangent, elementwise; numbers give numbers.", bl_fn_unary }, \
    { "sigmoid", "sigmoid(x)", "1 / (1 + e^-x) elementwise (torch.sigmoid).", bl_fn_unary },         \
    { "sign", "sign(x)", "-1, 0 or 1 elementwise (torch.sign; its gradient is 0).", bl_fn_unary },   \
    { "floor", "floor(x)", "The largest whole number <= x, elementwise (gradient 0).", bl_fn_unary }, \
    { "ceil", "ceil(x)", "The smallest whole number >= x, elementwise (gradient 0).", bl_fn_unary },  \
    { "erf", "erf(x)", "The error function 2/sqrt(pi) int_0^x e^(-t^2) dt, elementwise.",           \
      bl_fn_unary },                                                                             \
    { "pow", "pow(x, p)",                                                                        \
      "x to the power p elementwise (torch.pow; x ** p is the same). p a number or a tensor\n"  \
      "that broadcasts with x. Gradients as torch: 0 for x where p == 0, 0 for p where x == 0\n" \
      "and p >= 0.", bl_fn_pow },                                                               \
    { "clamp", "clamp(x, min=, max=)",                                                           \
      "x limited to [min, max] elementwise (torch.clamp).\n"                                \
      "Either bound may be left out. min > max gives max everywhere. The gradient passes where min <= x <= max (bounds\n"      \
      "included, as torch).", bl_fn_clamp },                                                     \
    { "maximum", "maximum(a, b)",                                                                \
      "The larger of a and b elementwise, broadcast (torch.maximum). Where they are equal\n"     \
      "each gets half the gradient.", bl_fn_binary },                                            \
    { "minimum", "minimum(a, b)",                                                                \
      "The smaller of a and b elementwise, broadcast (torch.minimum). Where they are equal\n"    \
      "each gets half the gradient.", bl_fn_binary },                                            \
    { "where", "where(cond, a, b)",                                                              \
      "a where cond is nonzero, else b, elementwise (torch.where).\n"                        \
      "cond, a and b broadcast together. where(x > 0, x, 0) is relu(x).", bl_fn_where },                                           \
    { "masked_fill", "masked_fill(x, mask, value)",                                              \
      "x with value wherever mask is nonzero (Tensor.masked_fill).\n"                        \
      "mask broadcasts to x's shape. masked_fill(s, triu(ones(T, T), 1), -inf) hides the future of attention scores.",         \
      bl_fn_masked_fill },                                                                       \
    { "tril", "tril(x, diagonal=0)",                                                             \
      "The lower triangle of the last two dims of x, zeros above (torch.tril).\n"            \
      "Element (i, j) is kept where j - i <= diagonal. tril(ones(T, T)) is the causal mask.", bl_fn_tri },  \
    { "triu", "triu(x, diagonal=0)",                                                             \
      "The upper triangle of the last two dims of x, zeros below (torch.triu).\n"            \
      "Element (i, j) is kept where j - i >= diagonal.", bl_fn_tri },                                       \
    { "cat", "cat([a, b, ...], dim=0)",                                                          \
      "The tensors of the list joined along dim (torch.cat).\n"                             \
      "Their other sizes must match.",     \
      bl_fn_join },                                                                              \
    { "stack", "stack([a, b, ...], dim=0)",                                                      \
      "The tensors of the list stacked along a new dimension dim (torch.stack).\n"          \
      "They must all have one shape.", bl_fn_join },                                                            \
    { "embedding", "embedding(w, idx)",                                                          \
      "The rows of w [V, D] that idx names: [idx.shape..., D] (F.embedding).\n"            \
      "idx holds whole numbers in [0, V), any shape. w[idx] does the same. The gradient adds into the\n"   \
      "rows picked.", bl_fn_embedding },                                                         \
    { "one_hot", "one_hot(idx, num_classes=-1)",                                                 \
      "1 at each index, 0 elsewhere: [idx.shape..., num_classes] (F.one_hot).\n"           \
      "num_classes -1 means max(idx) + 1.", bl_fn_one_hot },                                     \
    { "linspace", "linspace(start, end, steps)",                                                 \
      "steps numbers from start to end evenly, both included (torch.linspace).",          \
      bl_fn_linspace },                                                                          \
    { "eye", "eye(n, m=n)", "The n x m identity matrix (torch.eye).", bl_fn_eye },               \
    { "argmax", "argmax(x, dim=, keepdim=off)",                                                  \
      "The index of the largest element along dim (torch.argmax).\n"                       \
      "The first one on ties. Without dim the index into the flattened x, a number.", bl_fn_argext },                   \
    { "argmin", "argmin(x, dim=, keepdim=off)",                                                  \
      "The index of the smallest element along dim (torch.argmin).\n"                      \
      "The first one on ties. Without dim the index into the flattened x, a number.", bl_fn_argext },                   \
    { "cumsum", "cumsum(x, dim)",                                                                \
      "The running sum along dim (torch.cumsum).\n"                                          \
      "Element i is the sum of elements 0..i.",        \
      bl_fn_cumsum },                                                                            \
    { "topk", "topk(x, k, dim=-1, largest=on)",                                                  \
      "The k largest elements along dim, sorted: [values, indices] (torch.topk).\n"        \
      "largest=off gives the smallest; topk(x, 3)[0] are the values. Equal values come in\n"     \
      "index order. The gradient goes to the elements picked.", bl_fn_topk },                     \
    { "timestep_features", "timestep_features(t, n=256)",                                        \
      "TinyDiT's sinusoidal timestep features [B, n], as the model makes them.\n"         \
      "Feature i < n/2 is cos(1000 t f_i), then sin, f_i = exp(-ln(10000) i / (n/2)) (DiT's\n"   \
      "TimestepEmbedder). t is a number or a 1-D tensor of B times.", bl_fn_timestep_features },

#endif
