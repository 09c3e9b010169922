/* model.h - a model: its config, its parameters, and the run state of its forward pass.
 *
 * llm.c's three structs in one handle: the blueprint (bl_config), the weights (bl_params, one
 * flat buffer, PyTorch names) and the run state (a bl_graph whose arena holds one step's
 * activations and whose tape records the ops for backward; the attention probabilities and other
 * per-layer activations of the last forward; TinyGPT's KV cache). Built and freed by one pair of
 * functions; a switch change rebuilds (bl_model_set), never exits.
 *
 * The forward and loss functions of each kind are in models/tinydit.h and models/tinygpt.h:
 *
 *   bl_model *m = bl_model_new(&cfg);                  // cfg = bl_config_default(BL_MODEL_DIT)
 *   bl_params_zero_grad(m->params);
 *   bl_tensor *loss = bl_dit_loss(m, x0, noise, t, 1); // records the tape in m->graph
 *   bl_graph_backward(m->graph, loss);                 // grads in m->params->grads
 *   ... optimizer over m->params->values / grads ...
 *
 * Every forward resets m->graph first: tensors returned by an earlier forward (and the attn[]
 * and tap pointers) become invalid. After the first step of a given shape, later steps of the
 * same shape allocate nothing (the arena keeps its high-water block).
 */
#ifndef BL_MODEL_H
#define BL_MODEL_H

#include "core/graph.h"
#include <stdint.h>
#include "models/config.h"
#include "models/kind.h"
#include "models/params.h"

struct bl_dit;  /* TinyDiT's parameter pointers and RoPE tables (tinydit.c) */
struct bl_gpt;  /* TinyGPT's parameter pointers, RoPE tables and KV cache (tinygpt.c) */

typedef struct bl_model {
    bl_model_kind kind;
    bl_config cfg;
    bl_params *params;
    bl_graph *graph;
    /* Per-layer activations of the last forward (arena tensors, valid until the next forward;
     * NULL when not kept). For attention maps, activation statistics and logit growth:
     *   attn[i]     [B, H, T, S] attention probabilities of layer i (only when keep_attn, and
     *               by a training step only with watch_attn: backward makes them again, so a
     *               training step need not hold them)
     *   tap_in[i]   [B, T, D] the residual stream entering layer i's first norm
     *   tap_norm[i] the output of that norm (before DiT's modulation): [B, T, D] for TinyGPT,
     *               the first image's [1, T, D] for TinyDiT (whose norm and modulation are one op)
     *   tap_q[i], tap_k[i] [B, H or KVH, T, hd] q and k as they enter attention (after qk_norm
     *               and RoPE), so logits = q k^T / sqrt(hd) can be recomputed; tap_v[i] v. Not kept by a
     *               recorded (training) forward without qk_norm and RoPE: attention then reads
     *               q, k, v in place from the fused projection (bl_attention_qkv). */
    int keep_attn;          /* 1 by default */
    /* The weights' version: + 1 whenever the weights, or the tables a forward reads, change (a
     * training step, a rebuild, rope_base; the REPL's step, set_param and load add 1 where they
     * write). A value the REPL made by a forward keeps the version it saw, and its backward is
     * refused once the version moved on (repl/autograd.h, bl_ag_graph_value), as PyTorch's
     * version counter refuses a backward through a weight changed in place after the forward. */
    unsigned version;
    /* Checked between Euler steps of bl_dit_sample and between tokens of bl_gpt_generate; when
     * it returns nonzero they stop early (the REPL's Ctrl-C flag). NULL (default) = never. */
    int (*interrupted)(void);
    /* Dropout (cfg.dropout > 0) applies in recorded forwards only (training; never in eval,
     * sampling or generation, which do not record), with masks keyed by (cfg.seed, this step,
     * the site: bl_dropout_key in core/rng.h). The trainer sets it to the number of optimizer
     * steps taken before each step, so a resumed run draws the masks an uninterrupted one would. */
    uint64_t dropout_step;
    /* Who decides dropout: -1 (default) the forward's recording, as above; 0 off, 1 on whatever
     * the recording (the REPL's forwards, after m.eval() / m.train(): PyTorch's module mode). */
    int drop_mode;
    bl_tensor *attn[BL_MAX_DEPTH];
    bl_tensor *tap_in[BL_MAX_DEPTH], *tap_norm[BL_MAX_DEPTH];
    bl_tensor *tap_q[BL_MAX_DEPTH], *tap_k[BL_MAX_DEPTH], *tap_v[BL_MAX_DEPTH];
    /* 1: a recorded forward keeps the q, k, v taps too (the head split path instead of the fused
     * bl_attention_qkv; same numbers, a little slower): m(xt, t, keep=on) at the prompt */
    int keep_taps;
    /* 1 while the trainer takes a step (its forward keeps no attn unless watch_attn); 1 in
     * watch_attn: the training steps keep attn (dash shows their attention maps) */
    int training, watch_attn;
    /* 1: a forward that does not record keeps no per-layer activations (attn and the taps stay
     * NULL): TinyGPT releases each block's once it is done (the trainer's exam, which would
     * otherwise hold every layer's attention probabilities and hidden activations at once) */
    int lean;
    struct bl_dit *dit;     /* set for BL_MODEL_DIT */
    struct bl_gpt *gpt;     /* set for BL_MODEL_GPT */
} bl_model;

/* Build a model from a config (checked with bl_config_check): declares the parameters of its kind,
 * initialises them from (cfg->seed, name) and makes an empty graph. NULL + error on a bad config
 * or out of memory. */
bl_model *bl_model_new(const bl_config *cfg);
void bl_model_free(bl_model *m);

/* Forget the per-layer pointers of m's last forward (attention maps, taps: attn[], tap_*[]): for
 * when the arena they point into is reset or handed to another model (compare's runs taking
 * turns on one arena). No errors. */
void bl_model_forget_taps(bl_model *m);

/* Replace m's config by cfg and rebuild it: every parameter is re-initialised from (seed, name),
 * so parameters that both configs share get bit-identical initial values. On error m is left
 * unchanged. Returns 0 or -1. */
int bl_model_rebuild(bl_model *m, const bl_config *cfg);

/* Set one key (bl_config_set) and rebuild when bl_config_needs_rebuild says so (a rebuild
 * re-initialises the weights: training so far is discarded). *rebuilt (may be NULL) says whether
 * it did. Returns 0 or -1 with the config's error; m unchanged on error. */
int bl_model_set(bl_model *m, const char *key, const char *value, int *rebuilt);

/* Total number of parameters (tied weights counted once). */
size_t bl_model_param_count(const bl_model *m);

#endif
