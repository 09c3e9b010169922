/* model_internal.h - what tinydit.c, tinygpt.c and model.c share (not a public header).
 *
 * Building: a bl_builder declares parameters into the store and remembers where each pointer
 * goes; bl_build_finish() allocates the store and fills the pointers. Forward pieces shared by
 * both models: the norm of the `norm` switch, the attention sub-layer, the MLP of the `mlp`
 * switch.
 */
#ifndef BL_MODEL_INTERNAL_H
#define BL_MODEL_INTERNAL_H

#include "models/model.h"
#include "nn/nn.h"

typedef struct bl_builder {
    bl_params *p;
    bl_tensor ***slot;      /* where to store the pointer of parameter idx[i] */
    int *idx;
    int n, cap, failed;
} bl_builder;

/* Declare parameter `name` (printf-style) and have *slot point at it after bl_build_finish. */
void bl_build_param(bl_builder *b, bl_tensor **slot, int ndim, const int *shape, bl_init_kind init,
                    float a, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* A Linear(in, out): `prefix`.weight [out, in] and, when bias != NULL, `prefix`.bias [out].
 * zero = 0: weight ~ U(+-1/sqrt(in)) (PyTorch nn.Linear), bias 0; zero = 1: both 0 (adaLN-Zero). */
void bl_build_linear(bl_builder *b, bl_tensor **w, bl_tensor **bias, int in, int out, int zero,
                     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* The attention sub-layer's parameters (NULL where absent). */
typedef struct bl_attn_params {
    bl_tensor *qkv_w, *qkv_b, *proj_w, *proj_b, *q_norm, *k_norm;
} bl_attn_params;
/* The MLP's parameters: the projections of its row of nn.h bl_mlp_defs in order (fc1, fc2 for
 * gelu; w1, w2, w3 for swiglu), biases NULL in TinyGPT, unused slots NULL. */
typedef struct bl_mlp_params {
    bl_tensor *w[BL_MLP_MAXPROJ], *b[BL_MLP_MAXPROJ];
} bl_mlp_params;

/* Declare the attention sub-layer under `prefix` with the given projection names
 * (TinyDiT "qkv"/"proj" with biases, TinyGPT "c_attn"/"c_proj" without). */
void bl_build_attention(bl_builder *b, bl_attn_params *a, const bl_config *c, const char *prefix,
                        const char *qkv_name, const char *proj_name, int bias);
/* Declare the MLP of the `mlp` switch under `prefix`: its row's projections (nn.h bl_mlp_defs),
 * named fc1_name, fc2_name where the row leaves the names to the model (TinyDiT fc1/fc2, TinyGPT
 * c_fc/c_proj). */
void bl_build_mlp(bl_builder *b, bl_mlp_params *f, const bl_config *c, const char *prefix,
                  const char *fc1_name, const char *fc2_name, int bias);

/* Declare a norm layer of the `norm` switch over D features under `prefix` (printf-style), from
 * its row of nn.h bl_norm_defs: `prefix`.weight [D] (init 1) and `prefix`.bias [D] (init 0) where
 * the row has them and `affine` (BL_NORM_WEIGHT | BL_NORM_BIAS: what the layer's module takes;
 * TinyGPT weight only, TinyDiT's adaLN norms 0), and `prefix`.alpha [1] (init the row's
 * alpha_init) where the row has one. Absent parameters stay NULL in *p. */
void bl_build_norm(bl_builder *b, bl_norm_params *p, const bl_config *c, int D, unsigned affine,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The norm of the `norm` switch over the last dim with the layer's parameters p (bl_build_norm). */
bl_tensor *bl_model_norm(bl_model *m, bl_tensor *x, const bl_norm_params *p);
/* modulate(norm(x), shift, scale) with the norm of the `norm` switch and the layer's parameters p,
 * one op (DiT blocks and final layer); tap (optional) receives the first image's norm(x) [1, T, D]. */
bl_tensor *bl_model_norm_modulate(bl_model *m, bl_tensor *x, const bl_norm_params *p, bl_tensor *shift,
                                  bl_tensor *scale, bl_tensor **tap);

/* x [B, T, D] -> q [B, H, T, hd], k, v [B, KVH, T, hd]: the fused projection, qk_norm when on
 * and RoPE when cos != NULL (tables [T, hd]) on its heads (bl_qkv_prepare, as in training), then
 * the head split. Records tap_q/tap_k/tap_v of `layer`. */
int bl_model_qkv(bl_model *m, int layer, bl_tensor *x, const bl_attn_params *a,
                 const bl_tensor *cos, const bl_tensor *sin, bl_tensor **q, bl_tensor **k,
                 bl_tensor **v);
/* heads [B, H, T, hd] -> merged [B, T, D] -> proj (+ r, the residual stream, when not NULL). */
bl_tensor *bl_model_attn_proj(bl_model *m, bl_tensor *y, const bl_attn_params *a, bl_tensor *r);
/* The whole attention sub-layer on x [B, T, D], added to r when r != NULL (the residual add
 * fused into the output projection); keeps attn[layer] when m->keep_attn. With dropout (a
 * recorded forward, cfg.dropout > 0) on the attention weights (site 1 + 3 layer) and on the
 * output projection (site 2 + 3 layer), added to r after it (nanoGPT's attn_dropout and
 * resid_dropout; timm's attn_drop and proj_drop). One path for training and inspection
 * (llm.c's attention buffers serve both): bl_qkv_prepare and bl_attention_qkv on the fused
 * projection (no merge copy); when the forward does not record or m->keep_taps, the q/k/v taps
 * are split off the same prepared projection the attention reads (no dropout then). */
bl_tensor *bl_model_attention(bl_model *m, int layer, bl_tensor *x, const bl_attn_params *a,
                              const bl_tensor *cos, const bl_tensor *sin, int causal, bl_tensor *r);
/* The MLP of the `mlp` switch on x [..., D] (+ r, the residual stream, when not NULL), its
 * output through dropout (site 3 + 3 layer) when the forward records and cfg.dropout > 0. */
bl_tensor *bl_model_mlp(bl_model *m, int layer, bl_tensor *x, const bl_mlp_params *f, bl_tensor *r);
/* Dropout at `site` (core/rng.h numbers them) when the forward records and cfg.dropout > 0; x
 * itself otherwise. */
bl_tensor *bl_model_dropout(bl_model *m, bl_tensor *x, int site);

/* A [rows, cols] tensor header in the arena viewing external memory (RoPE table rows), so
 * nodes that keep a pointer to it stay valid until the graph is reset. */
bl_tensor *bl_model_table_view(bl_model *m, float *data, int rows, int cols);

/* Start a forward: reset the graph, set recording, forget the per-layer pointers. */
void bl_model_begin(bl_model *m, int record);

/* Per-kind hooks used by model.c. declare: parameters into b; setup: after the store is
 * finished (tables; also called when rope_base changes); free: the kind's state. */
int bl_dit_declare(bl_model *m, bl_builder *b);
int bl_dit_setup(bl_model *m);
void bl_dit_free(bl_model *m);
int bl_gpt_declare(bl_model *m, bl_builder *b);
int bl_gpt_setup(bl_model *m);
void bl_gpt_free(bl_model *m);

#endif
