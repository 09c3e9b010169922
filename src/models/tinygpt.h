/* tinygpt.h - TinyGPT: a nanoGPT-style character language model (DESIGN.md 1).
 *
 * karpathy/nanoGPT model.py with the blocklab switches:
 *   x = wte[ids] (+ wpe[pos] when pos=learned)
 *   depth x:  x = x + c_proj(attn(c_attn(norm1(x))))     causal; RoPE on q, k when pos=rope
 *             x = x + mlp(norm2(x))                      c_fc/GELU/c_proj or SwiGLU w1 w2 w3
 *   logits = ln_f(x) wte^T                                lm_head tied to wte, no biases anywhere
 *
 * Names: transformer.wte.weight [V, D], transformer.wpe.weight [context, D],
 * transformer.h.i.ln_1.weight, .attn.c_attn.weight [D + 2 KVH hd, D], .attn.c_proj.weight,
 * .attn.q_norm.weight, .attn.k_norm.weight [hd], .ln_2.weight, .mlp.c_fc.weight [4D, D],
 * .mlp.c_proj.weight [D, 4D] | .mlp.w1/.w2 [hidden, D], .mlp.w3 [D, hidden],
 * transformer.ln_f.weight. (lm_head.weight is transformer.wte.weight.)
 */
#ifndef BL_TINYGPT_H
#define BL_TINYGPT_H

#include "models/model.h"

/* Logits for ids [B, T] (0 <= id < vocab). T may exceed the context only with pos=rope;
 * with pos=learned that is an error naming pos=rope. Resets m->graph; records when `record`.
 * Returns an arena tensor [B, T, vocab] or NULL + "gpt: ..." error. */
bl_tensor *bl_gpt_forward(bl_model *m, const int *ids, int B, int T, int record);

/* Next-token cross-entropy: tokens [B, T + 1]; inputs tokens[:, :T], targets tokens[:, 1:]
 * (a target of -1 is ignored). Returns the scalar arena tensor [] or NULL + error. */
bl_tensor *bl_gpt_loss(bl_model *m, const int *tokens, int B, int T, int record);

/* The same loss for inputs ids [B, T] and targets [B, T] given apart (F.cross_entropy(logits
 * .view(-1, V), targets.view(-1), ignore_index=-1)): ce_loss(m, tokens, targets) at the prompt.
 * Both are copied into the graph's arena (the caller's arrays may go). */
bl_tensor *bl_gpt_loss_targets(bl_model *m, const int *ids, const int *targets, int B, int T, int record);

/* Validation loss per position for length generalisation: tokens [B, L + 1], L may be several
 * times the context (pos=rope; pos=learned is refused past the context). loss[p] (L floats) =
 * mean over the B windows of the cross-entropy (nats) of predicting tokens[:, p + 1].
 * Returns 0 or -1. */
int bl_gpt_position_loss(bl_model *m, const int *tokens, int B, int L, float *loss);
/* The same per window: loss[b * L + p] (B x L floats) = the cross-entropy (nats) of predicting
 * tokens[b, p + 1] from tokens[b, 0 .. p] (lengen's mean and standard error over windows). */
int bl_gpt_window_losses(bl_model *m, const int *tokens, int B, int L, float *loss);

/* Generation options. */
typedef struct bl_gen_opts {
    int max_new_tokens;     /* >= 0 */
    float temperature;      /* 0 = greedy (argmax, no division); > 0 divides the logits */
    int top_k;              /* 0 = all; otherwise keep the k largest logits */
    uint64_t seed;          /* draws from bl_rng_named(seed, "generate") */
    int use_cache;          /* 1 (default): KV cache; 0: recompute the whole window each token */
    int sliding_window;     /* pos=learned only: past the context, condition on the last
                               `context` tokens (nanoGPT's crop) instead of failing */
} bl_gen_opts;

/* Defaults: max_new_tokens 200, temperature 1, top_k 0, seed 0, use_cache 1, sliding 0. */
bl_gen_opts bl_gen_opts_default(void);

/* Continue prompt[0..n_prompt) (n_prompt >= 1, ids < vocab) by o->max_new_tokens tokens.
 * out receives n_prompt + max_new_tokens ids (the prompt first). With use_cache the keys and
 * values of earlier positions are kept per layer and each new token costs one position; the
 * tokens are those of recomputing the whole window. With pos=learned, n_prompt +
 * max_new_tokens - 1 > context is an error that suggests pos=rope (unless sliding_window).
 * Returns the number of ids written (fewer than asked only when m->interrupted() stopped it) or
 * -1 + "generate: ..." error. */
int bl_gpt_generate(bl_model *m, const int *prompt, int n_prompt, const bl_gen_opts *o, int *out);

#endif
