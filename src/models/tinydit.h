/* tinydit.h - TinyDiT: a small Diffusion Transformer trained by flow matching (DESIGN.md 1).
 *
 * Peebles & Xie 2023 ("Scalable Diffusion Models with Transformers", facebookresearch/DiT
 * models.py), unconditional, with the rectified-flow objective of Liu et al. 2022 / Esser et al.
 * 2024:  x_t = (1 - t) x0 + t e,  target v = e - x0,  loss = mean (v_pred - v)^2.
 *
 *   img [B,C,H,W] -> patch embed (conv p x p, stride p) -> [B, T, D] (+ row/col table if learned)
 *   t [B] -> 256 sinusoidal features of 1000 t -> Linear -> SiLU -> Linear = c [B, D]
 *   depth x block(x, c):  [shift1 scale1 shift2 scale2] = adaLN_modulation.1(SiLU(c))
 *        h  = x + proj(attn(modulate(norm1(x), shift1, scale1)))
 *        x' = h + mlp(modulate(norm2(h), shift2, scale2))
 *   final: [shift scale] = final_layer.adaLN_modulation.1(SiLU(c));
 *          linear(modulate(norm(x), shift, scale)) -> [B, T, p p C] -> unpatchify -> [B,C,H,W]
 *
 * Names: x_embedder.proj.{weight,bias}, pos_embed.{row,col}, t_embedder.mlp.{0,2}.{weight,bias},
 * blocks.i.adaLN_modulation.1, blocks.i.attn.{qkv,proj}, blocks.i.attn.{q,k}_norm.weight,
 * blocks.i.mlp.{fc1,fc2} | blocks.i.mlp.{w1,w2,w3}, final_layer.adaLN_modulation.1,
 * final_layer.linear (each .weight and .bias).
 */
#ifndef BL_TINYDIT_H
#define BL_TINYDIT_H

#include "models/model.h"

/* The velocity prediction v(x, t). x [B, C, H, W] (the model's channels and image_size),
 * t [B] in [0, 1]. Resets m->graph; records the tape when `record` (gradients then reach the
 * parameters; the caller runs bl_graph_backward from a loss built on the result; x is then
 * copied into the arena, so the caller's x and t may go once it returns).
 * Returns an arena tensor [B, C, H, W], or NULL + "dit: ..." on a shape mismatch. */
bl_tensor *bl_dit_forward(bl_model *m, const bl_tensor *x, const float *t, int record);
/* The same, recording, with a gradient for the input: x is copied into m->graph as a tensor
 * with a gradient, returned in *x_in (an arena tensor [B, C, H, W] whose grad holds d/dx after a
 * backward of the graph from a value built on the result; the patch embedding's backward is
 * the one that fills it). Errors as bl_dit_forward, or out of memory. */
bl_tensor *bl_dit_forward_input_grad(bl_model *m, const bl_tensor *x, const float *t, bl_tensor **x_in);

/* Flow-matching loss for one batch: x0 [B, C, H, W] in [-1, 1] (data), noise [B, C, H, W]
 * (standard normal), t [B] in [0, 1]; x_t = (1 - t) x0 + t noise, target = noise - x0,
 * loss = F.mse_loss(v(x_t, t), target). record = 1 for a training step (then
 * bl_graph_backward(m->graph, loss)), 0 for evaluation. Returns the scalar arena tensor []
 * (value in loss->data[0]) or NULL + error. */
bl_tensor *bl_dit_loss(bl_model *m, const bl_tensor *x0, const bl_tensor *noise, const float *t,
                       int record);

/* Euler sampling from t = 1 (noise drawn from bl_rng_named(seed, "sample")) to t = 0 in
 * `steps` equal steps (x <- x - (1/steps) v(x, t)), n images. Returns a new owned tensor
 * [n, C, H, W] clamped to [-1, 1], or NULL + "sample: ..." (n < 1, steps < 1, "sample:
 * interrupted" when m->interrupted() said so between two steps). Batched in
 * chunks of at most 64 images, so the result does not depend on n's chunking. */
bl_tensor *bl_dit_sample(bl_model *m, int n, int steps, uint64_t seed);

#endif
