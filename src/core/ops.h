/* ops.h - generic differentiable ops (forward + hand-written backward), recorded on a bl_graph.
 *
 * Every function here: takes the graph first, returns a new arena tensor (NULL + bl_error() on
 * bad shapes or arguments, message starting with the op name), and when recording appends a node
 * whose backward adds into the inputs' grads. The block parts (norms, attention, RoPE, SwiGLU,
 * modulation, patch embedding) live one layer up in src/nn/nn.h.
 *
 * Formulas follow PyTorch (torch.nn.functional) so tests/golden can compare against it.
 */
#ifndef BL_OPS_H
#define BL_OPS_H

#include "core/graph.h"
#include <stdint.h>

/* y = x W^T + b.  x [..., in], w [out, in], b [out] or NULL -> y [..., out].  (F.linear) */
bl_tensor *bl_linear(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b);
/* gelu(x W^T + b) as one op (same shapes and errors as bl_linear): the FFN's first layer
 * (GPT-2 / DiT Mlp c_fc + GELU). Forward keeps gelu'(h) instead of h, so the backward computes
 * no GELU and h is never stored; one exp gives both the normal pdf and, by Abramowitz & Stegun
 * 26.2.17, the cdf (|error| < 7.5e-8: the exact erf form to float precision; tests/unit/test_ops
 * checks values and derivative over [-9, 9] against double erf to 4e-7 max(1, |h|)). */
bl_tensor *bl_linear_gelu(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b);
/* r + (x W^T + b) as one op: r is the residual stream, of the output's shape [..., out] (a
 * block's x + proj(attn) or x + fc2(...)); y takes r's shape. Same errors as bl_linear, and
 * "linear_add: residual [..] does not match the output". */
bl_tensor *bl_linear_add(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, bl_tensor *r);
/* r + dropout(x W^T + b, p) as one op (nanoGPT's x + resid_dropout(c_proj(y)) in training):
 * the same numbers as bl_add(r, bl_dropout(bl_linear(x, w, b), p, key)), element i kept when
 * bl_rng_at(key, i) >= p and then scaled by 1 / (1 - p), but neither the projection nor its
 * dropped copy is stored. Shapes and errors as bl_linear_add, and "linear_dropout_add: p must be
 * in [0, 1)". */
bl_tensor *bl_linear_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, bl_tensor *r,
                                 float p, uint64_t key);
/* r + drop(gelu(x W1^T + b1) W2^T + b2) as one op, drop being dropout(p, key) when p > 0 and
 * nothing when p = 0: the GELU FFN with its residual (GPT-2 / nanoGPT's x + mlp(ln_2(x))). The
 * same numbers as bl_linear_gelu then bl_linear_add (bl_linear_dropout_add when p > 0), but of
 * the [..., H] hidden only x W1^T is kept for backward, which makes gelu and gelu' of it again
 * (one pass) in the graph's shared scratch: one [R, H] tensor per layer instead of three.
 * x [..., in], w1 [H, in], b1 [H] or NULL, w2 [out, H], b2 [out] or NULL, r [..., out] -> r's
 * shape. Errors as bl_linear_add ("mlp_gelu_add: ..."), and p outside [0, 1). */
bl_tensor *bl_mlp_gelu_dropout_add(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1, bl_tensor *w2,
                                   bl_tensor *b2, bl_tensor *r, float p, uint64_t key);

/* Batched matrix product. a [..., M, K], b [..., K, N] -> [..., M, N]; the leading (batch) dims
 * must be equal, or b may be 2-D [K, N] and is then shared by every batch. (torch.matmul) */
bl_tensor *bl_matmul(bl_graph *g, bl_tensor *a, bl_tensor *b);

/* a + b and a * b elementwise. b has a's shape, or a's trailing dims (broadcast over the
 * leading ones: b [D] with a [B, T, D]; b [T, D] with a [B, T, D]). */
bl_tensor *bl_add(bl_graph *g, bl_tensor *a, bl_tensor *b);
bl_tensor *bl_mul(bl_graph *g, bl_tensor *a, bl_tensor *b);
/* s * a for a constant s. */
bl_tensor *bl_scale(bl_graph *g, bl_tensor *a, float s);

/* GELU, exact erf form: 0.5 x (1 + erf(x / sqrt 2)) (F.gelu, approximate='none'). */
bl_tensor *bl_gelu(bl_graph *g, bl_tensor *x);
/* SiLU: x * sigmoid(x) (F.silu). silu(1) = 0.7311, silu(-1) = -0.2689. */
bl_tensor *bl_silu(bl_graph *g, bl_tensor *x);
/* Softmax over the last dimension, max-subtracted (F.softmax(x, -1)). */
bl_tensor *bl_softmax(bl_graph *g, bl_tensor *x);

/* Inverted dropout (F.dropout in training mode; Srivastava et al. 2014): element i of x is kept
 * and scaled by 1 / (1 - p) when bl_rng_at(key, i) >= p (core/rng.h; i the flat index), else 0.
 * 0 <= p < 1; p = 0 returns x itself (no node). Backward: dx += dy times the same factor. */
bl_tensor *bl_dropout(bl_graph *g, bl_tensor *x, float p, uint64_t key);

/* Embedding lookup. w [V, D], ids[n] with 0 <= id < V -> [n, D] (F.embedding). `ids` must stay
 * valid until backward. Error on an id out of range, naming it. */
bl_tensor *bl_embedding(bl_graph *g, bl_tensor *w, const int *ids, int n);

/* Mean cross-entropy of logits [N, V] against targets[N] (F.cross_entropy, reduction 'mean');
 * a target of -1 is ignored (ignore_index=-1) and not counted in the mean. -> scalar []. */
bl_tensor *bl_cross_entropy(bl_graph *g, bl_tensor *logits, const int *targets);

/* Mean squared error over all elements, pred and target of the same shape (F.mse_loss) -> []. */
bl_tensor *bl_mse(bl_graph *g, bl_tensor *pred, bl_tensor *target);

/* y[i0, .., i_{n-1}] = x.data[offset + sum_k i_k stride[k]] for y of the given shape (ndim <= 4;
 * strides may be negative): a slice x[a:b:s], an index x[i] and a transpose are all of this form
 * (torch.as_strided). The elements read must be distinct (backward adds d y back with +=, once
 * per element read) and inside x: else "as_strided: reads outside x". Op name "index". */
bl_tensor *bl_as_strided(bl_graph *g, bl_tensor *x, int ndim, const int *shape, const long *stride,
                         long offset);
/* x with the elements that bl_as_strided(x, ndim, shape, stride, offset) reads replaced by v's
 * (v of that shape; the same restrictions): x[i, a:b] = v as a new tensor (torch's in-place
 * index_put_ / as_strided_scatter, out of place). Backward: dx = dy outside the region, 0
 * inside it; dv = dy at the region. Errors: a region outside x, v of another shape. Op name
 * "index_put". */
bl_tensor *bl_strided_put(bl_graph *g, bl_tensor *x, bl_tensor *v, int ndim, const int *shape,
                          const long *stride, long offset);
/* x with dimensions d0 and d1 swapped (negative count from the end), copied (torch.transpose).
 * Errors: a dimension out of range. Op name "transpose". */
bl_tensor *bl_transpose(bl_graph *g, bl_tensor *x, int d0, int d1);
/* x with its dimensions reordered: dimension k of the result is perm[k] of x (negative counting
 * from the end), x->ndim of them, each once; copied (torch.permute). Errors: perm not a
 * permutation. Op name "transpose". */
bl_tensor *bl_permute(bl_graph *g, bl_tensor *x, const int *perm);
/* Element j of x along dim (negative counts from the end), that dimension dropped, or kept with
 * size 1 when keep (torch.select / x[:, j]; a 1-D x gives a 0-D tensor). Gradient: dy back at
 * those elements. Errors: dim or j out of range. Op name "index". */
bl_tensor *bl_pick(bl_graph *g, bl_tensor *x, int dim, int j, int keep);

#endif
