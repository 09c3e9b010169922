/* nn.h - the parts of a transformer block as differentiable ops on a bl_graph.
 *
 * Same conventions as core/ops.h: graph first, new arena tensor out, NULL + bl_error() (message
 * starting with the op name) on bad shapes/arguments, backward adds into the inputs' grads.
 * Formulas: DESIGN.md sections 2 and 3; references cited per function.
 *
 * Attention layout: q [B, H, T, hd], k and v [B, KVH, S, hd] with H % KVH == 0; query head h
 * reads kv head h / (H / KVH) (grouped-query attention, Ainslie et al. 2023; llama2.c kv_mul).
 *
 * RoPE pairs adjacent features ("interleaved", as in the RoFormer paper and Meta's LLaMA):
 *
 *     head features  [x0 x1][x2 x3][x4 x5] ...      pair i = (x_2i, x_2i+1) turns by angle a_i
 *     x_2i'   = x_2i cos a_i - x_2i+1 sin a_i
 *     x_2i+1' = x_2i sin a_i + x_2i+1 cos a_i
 *
 *   1-D (pos=rope):   a_i = pos * base^(-2i/hd),                       base 10000
 *   2-D (pos=rope2d): features [0, hd/2) turn with the row, [hd/2, hd) with the column;
 *                     pair i within a half: a_i = pos * base^(-i/(hd/4)),  base 100
 *                     prefix tokens (before the grid) get angle 0.
 *   tables cos, sin: [tokens, hd], each angle written twice (once per feature of its pair).
 */
#ifndef BL_NN_H
#define BL_NN_H

#include "core/graph.h"
#include <stdint.h>

/* LayerNorm over the last dim: (x - mean) / sqrt(var + eps) * w + b, biased variance.
 * x [..., D]; w, b [D] or NULL (no affine). (F.layer_norm; Ba et al. 2016) */
bl_tensor *bl_layernorm(bl_graph *g, bl_tensor *x, bl_tensor *w, bl_tensor *b, float eps);

/* RMSNorm over the last dim: x / sqrt(mean(x^2) + eps) * w. x [..., D]; w [D] or NULL.
 * x = [3, 4] -> [0.8485, 1.1314]. (Zhang & Sennrich 2019; torch.nn.RMSNorm) */
bl_tensor *bl_rmsnorm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps);

/* QK-norm: RMSNorm over each head's hd features of q or k [B, H, T, hd] with weight [hd]
 * (Dehghani et al. 2023, "Scaling Vision Transformers to 22B"). Same as bl_rmsnorm; named for
 * the tape and for help. */
bl_tensor *bl_qk_norm(bl_graph *g, bl_tensor *x, bl_tensor *w, float eps);

/* DiT's modulate(norm(x), shift, scale) as one op: x [B, T, D], shift and scale [B, D] ->
 * norm(x) (1 + scale) + shift, the norm without affine weights (LayerNorm, RMSNorm). Same values
 * as bl_modulate(bl_layernorm / bl_rmsnorm(x)) without the norm output stored.
 * tap (optional): receives the first image's norm(x) [1, T, D] (for activation statistics).
 * Errors as bl_modulate's and the norms', named "layernorm_modulate" / "rmsnorm_modulate". */
bl_tensor *bl_layernorm_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale, float eps,
                                 bl_tensor **tap);
bl_tensor *bl_rmsnorm_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale, float eps,
                               bl_tensor **tap);

/* A norm layer's parameters, NULL where the layer has none: weight [D] (the affine scale), bias
 * [D], alpha [1] (a norm's own learnable scalar, e.g. DyT's). Which exist follows the norm's
 * row (bl_norm_def.has) and the layer (TinyGPT: no biases; TinyDiT's adaLN norms: no affine). */
typedef struct bl_norm_params {
    bl_tensor *weight, *bias, *alpha;
} bl_norm_params;

/* bl_norm_def.has: the parameters a norm layer of that norm may carry. */
enum { BL_NORM_WEIGHT = 1u, BL_NORM_BIAS = 2u, BL_NORM_ALPHA = 4u };

/* The norms the models' `norm` switch picks from: row i is the switch's value i (the choices of
 * its row in src/models/config.c, in order; test_models checks they agree), with its parameters
 * and kernels. A new norm is a row here and its kernels in norms.c; the models declare its
 * parameters from the row (model.c bl_build_norm) and call it through the row. */
typedef struct {
    const char *name;   /* the switch value: "layernorm" */
    unsigned has;       /* BL_NORM_WEIGHT | BL_NORM_BIAS | BL_NORM_ALPHA: what a layer may carry */
    float alpha_init;   /* alpha's initial value (BL_NORM_ALPHA) */
    /* norm(x) (* weight + bias) over the last dim: x [..., D], p's tensors as above (weight NULL:
     * no affine; alpha NULL: alpha_init, so `stats` can draw a norm without parameters) */
    bl_tensor *(*norm)(bl_graph *g, bl_tensor *x, const bl_norm_params *p, float eps);
    /* DiT's fused modulate(norm(x), shift, scale), as bl_rmsnorm_modulate; p as above */
    bl_tensor *(*modulate)(bl_graph *g, bl_tensor *x, const bl_norm_params *p, bl_tensor *shift,
                           bl_tensor *scale, float eps, bl_tensor **tap);
} bl_norm_def;
extern const bl_norm_def bl_norm_defs[];   /* ends with a {NULL} row */

/* The SwiGLU gate: silu(a) * b elementwise, a and b of one shape (Shazeer 2020). */
bl_tensor *bl_swiglu(bl_graph *g, bl_tensor *a, bl_tensor *b);

/* The SwiGLU FFN's front as one op: h = silu(x W1^T + b1) * (x W2^T + b2); x [..., D], w1, w2
 * [Hd, D], b1, b2 [Hd] or NULL -> h [..., Hd]. Same values as bl_swiglu(bl_linear(x, w1, b1),
 * bl_linear(x, w2, b2)) without a and v as graph tensors (kept in the node for backward).
 * Errors (bl_fail, NULL): linear's argument checks, named "linear_swiglu"; w1 and w2 of
 * different shapes. */
bl_tensor *bl_linear_swiglu(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1,
                            bl_tensor *w2, bl_tensor *b2);

/* Feed-forward blocks. x [..., D].
 * GELU FFN: fc2(gelu(fc1 x)); fc1 w [Hd, D] b [Hd], fc2 w [D, Hd] b [D] (biases may be NULL).
 * SwiGLU FFN: w3(silu(w1 x) * w2 x); w1, w2 [Hd, D], w3 [D, Hd] (biases may be NULL). */
bl_tensor *bl_mlp_gelu(bl_graph *g, bl_tensor *x, bl_tensor *fc1_w, bl_tensor *fc1_b,
                       bl_tensor *fc2_w, bl_tensor *fc2_b);
bl_tensor *bl_mlp_swiglu(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1, bl_tensor *w2,
                         bl_tensor *b2, bl_tensor *w3, bl_tensor *b3);
/* r + the FFN of x, the residual add fused into the output projection (bl_linear_add);
 * r [..., D] of the output's shape, or NULL for the plain FFN. */
bl_tensor *bl_mlp_gelu_add(bl_graph *g, bl_tensor *x, bl_tensor *fc1_w, bl_tensor *fc1_b,
                           bl_tensor *fc2_w, bl_tensor *fc2_b, bl_tensor *r);
bl_tensor *bl_mlp_swiglu_add(bl_graph *g, bl_tensor *x, bl_tensor *w1, bl_tensor *b1,
                             bl_tensor *w2, bl_tensor *b2, bl_tensor *w3, bl_tensor *b3,
                             bl_tensor *r);
/* Hidden width of the SwiGLU FFN: int(2 * mlp_ratio * dim / 3), rounded up to a multiple of
 * multiple_of when multiple_of > 0. dim 128, ratio 4 -> 341. */
int bl_swiglu_hidden(int dim, float mlp_ratio, int multiple_of);

/* The FFNs the models' `mlp` switch picks from: row i is the switch's value i (the choices of its
 * row in src/models/config.c, in order; test_models checks they agree), with its kernels, its
 * hidden-width rule and the names of its projections. A new FFN is a row here and its kernels in
 * mlp.c; the models build, run and differentiate it through the row (no per-value test).
 * Projections: w[0 .. nproj - 2] are the input projections [Hd, D], w[nproj - 1] the output
 * projection [D, Hd]; b[i] their biases or NULL. */
#define BL_MLP_MAXPROJ 3
typedef struct {
    const char *name;   /* the switch value: "gelu" */
    int nproj;          /* its projections: 2 (in, out) or 3 (gate, value, out) */
    /* their parameter names under the block's mlp prefix; NULL names: the model's own names of a
     * two-projection FFN (TinyDiT fc1/fc2, TinyGPT c_fc/c_proj) */
    const char *proj[BL_MLP_MAXPROJ];
    /* the hidden width Hd for a residual width dim (>= 1, or -1 + error) */
    int (*hidden)(int dim, float mlp_ratio, int multiple_of);
    /* r + ffn(x), the add fused into the output projection; ffn(x) when r is NULL. x [..., D] */
    bl_tensor *(*ffn)(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b, bl_tensor *r);
    /* r + dropout(ffn(x), p, key) as few ops as it can (training with dropout); r not NULL */
    bl_tensor *(*ffn_dropout_add)(bl_graph *g, bl_tensor *x, bl_tensor *const *w, bl_tensor *const *b,
                                  bl_tensor *r, float p, uint64_t key);
} bl_mlp_def;
extern const bl_mlp_def bl_mlp_defs[];   /* ends with a {NULL} row */

/* Scaled dot-product attention softmax(q k^T * scale + mask) v.
 * q [B, H, T, hd], k, v [B, KVH, S, hd] -> [B, H, T, hd]. scale <= 0 means 1/sqrt(hd).
 * causal: query t sees keys s <= t + (S - T) (so a KV cache of S >= T keys works).
 * mask: NULL or [T, S] bytes, 1 = may attend; a row with nothing allowed gives output 0 (never
 * NaN) and zero gradients. probs (optional): receives the [B, H, T, S] attention weights (an
 * arena tensor valid until reset), for attention maps. (F.scaled_dot_product_attention) */
bl_tensor *bl_attention(bl_graph *g, bl_tensor *q, bl_tensor *k, bl_tensor *v, int causal,
                        const unsigned char *mask, float scale, bl_tensor **probs);
/* The same with a float mask tensor that broadcasts to [B, H, T, S] (NumPy rules: [T, S],
 * [B, 1, T, S], [B, 1, 1, S] for key padding, ...), as scaled_dot_product_attention's attn_mask:
 * additive 0: boolean, nonzero = may attend (a bool attn_mask); additive 1: added to the scaled
 * scores, -inf masks (a float attn_mask). Combined with causal. A row with nothing allowed gives
 * 0, never NaN (torch gives NaN there), with zero gradients. The mask gets no gradient (a
 * constant). mask NULL: bl_attention. Error naming a mask that does not broadcast. */
bl_tensor *bl_attention_masked(bl_graph *g, bl_tensor *q, bl_tensor *k, bl_tensor *v, int causal,
                               const bl_tensor *mask, int additive, float scale, bl_tensor **probs);

/* The same attention reading q, k, v in place from a fused projection qkv
 * [B, T, (H + 2 KVH) hd] (q heads, then k heads, then v heads, as bl_split_heads splits it) and
 * writing the heads merged: -> [B, T, H hd]. Equal to bl_merge_heads(bl_attention(split qkv))
 * without the copies; T == S. Errors: H not a multiple of KVH, qkv not 3-D or its last dim not
 * a multiple of H + 2 KVH. */
bl_tensor *bl_attention_qkv(bl_graph *g, bl_tensor *qkv, int H, int KVH, int causal,
                            const unsigned char *mask, float scale, bl_tensor **probs);

/* bl_attention_qkv with dropout on the attention weights (nanoGPT's attn_dropout, timm's
 * attn_drop; Srivastava et al. 2014): out = (P * keep / (1 - p)) v, keep = bl_rng_at(key, i) >= p
 * at the flat index i of P [B, H, T, S] (core/rng.h). probs receives P before dropout. p = 0 is
 * bl_attention_qkv; p outside [0, 1) is an error. */
bl_tensor *bl_attention_qkv_dropout(bl_graph *g, bl_tensor *qkv, int H, int KVH, int causal,
                                    const unsigned char *mask, float scale, bl_tensor **probs,
                                    float p, uint64_t key);

/* qk_norm and RoPE on the heads of a fused projection, in its layout: qkv [B, T, (H + 2 KVH) hd]
 * -> the same shape with each q head rope(q_norm(q)), each k head rope(k_norm(k)), v copied
 * (bl_qk_norm's and bl_rope's formulas; no head split). q_w, k_w: the RMSNorm weights [hd], both
 * or neither (NULL: no qk_norm); cos, sin: tables [T, hd] or NULL (no RoPE). For
 * bl_attention_qkv. Errors name the bad shape, weight or table. */
bl_tensor *bl_qkv_prepare(bl_graph *g, bl_tensor *qkv, int H, int KVH, bl_tensor *q_w,
                          bl_tensor *k_w, float eps, const bl_tensor *cos, const bl_tensor *sin);

/* Split a fused projection qkv [B, T, (H + 2 KVH) hd] (q heads, then k heads, then v heads)
 * into q [B, H, T, hd], k [B, KVH, T, hd], v [B, KVH, T, hd]. Returns 0 or -1. */
int bl_split_heads(bl_graph *g, bl_tensor *qkv, int H, int KVH, bl_tensor **q, bl_tensor **k,
                   bl_tensor **v);
/* x [B, H, T, hd] -> [B, T, H hd] (the inverse of the head split). */
bl_tensor *bl_merge_heads(bl_graph *g, bl_tensor *x);

/* x[..., start : start + len] of the last dim, copied (torch.chunk / slicing). */
bl_tensor *bl_slice_last(bl_graph *g, bl_tensor *x, int start, int len);

/* RoPE tables (see the picture above). cos and sin [T, hd] for positions offset..offset+T-1.
 * Errors: hd odd (1-D) or not a multiple of 4 (2-D), base <= 0. Return 0 or -1. */
int bl_rope_table_1d(int T, int hd, float base, int offset, float *cos, float *sin);
/* 2-D over a gh x gw grid in row-major token order, after `prefix` tokens of angle 0:
 * tables [prefix + gh gw, hd]. */
int bl_rope_table_2d(int gh, int gw, int prefix, int hd, float base, float *cos, float *sin);
/* Rotate x [B, H, T, hd] by the tables cos, sin [T, hd] (only q and k, never v). */
bl_tensor *bl_rope(bl_graph *g, bl_tensor *x, const bl_tensor *cos, const bl_tensor *sin);

/* adaLN modulation: x * (1 + scale) + shift with x [B, T, D], shift and scale [B, D]
 * (DiT, Peebles & Xie 2023: modulate()). */
bl_tensor *bl_modulate(bl_graph *g, bl_tensor *x, bl_tensor *shift, bl_tensor *scale);

/* Patch embedding: conv2d with kernel = stride = p. img [B, C, H, W], w [D, C, p, p], b [D] or
 * NULL -> [B, (H/p)(W/p), D], tokens in row-major grid order. H, W multiples of p.
 * (DiT PatchEmbed / timm) */
bl_tensor *bl_patch_embed(bl_graph *g, bl_tensor *img, bl_tensor *w, bl_tensor *b, int p);
/* Inverse of the patch split for the output: x [B, T, p p C] -> [B, C, H, W], with the channel
 * fastest within a patch pixel: feature (i p + j) C + c is pixel (i, j) of channel c
 * (DiT unpatchify: einsum "nhwpqc->nchpwq"). */
bl_tensor *bl_unpatchify(bl_graph *g, bl_tensor *x, int C, int H, int W, int p);

/* Learned 2-D positions: x [B, gh gw, D] + row[r] + col[c] for token t = r gw + c;
 * row [gh, D], col [gw, D]. */
bl_tensor *bl_pos2d_add(bl_graph *g, bl_tensor *x, bl_tensor *row, bl_tensor *col);

/* Sinusoidal timestep features of 1000 t: out[b, i] = cos(1000 t_b f_i) for i < half,
 * sin(1000 t_b f_{i-half}) after, f_i = exp(-ln(10000) i / half), nfeat = 2 half (DiT uses 256).
 * Plain function, no gradient; out has B * nfeat floats. */
void bl_timestep_features(const float *t, int B, int nfeat, float *out);

#endif
