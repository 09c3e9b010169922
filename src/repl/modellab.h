/* modellab.h - models as functions at the prompt (issue 14): run a model on tensors of one's own,
 * its loss on a chosen batch, its parameter gradients and optimizer step, its weights and
 * internals, its data and vocabulary.
 *
 *   v = m(xt, t)                  TinyDiT: velocity [B, C, H, W] for xt [B, C, H, W], t [B]
 *   logits = m(tokens)            TinyGPT: [B, T, vocab] for integer tokens [B, T]
 *   l = flow_loss(m, x0, noise, t)   ce_loss(m, tokens, targets)
 *   backward(l); grad(m, "NAME"); grads(m); step(m); zero_grad(m)
 *   set_param(m, "NAME", value); acts(m, "q", layer); batch(m); encode(m, "text"); decode(m, ids)
 *
 * The forward functions run the model's own training forward (models/tinydit.h, tinygpt.h) on its
 * graph, recording when gradients are on, and return values made with bl_ag_graph_value: backward
 * of them runs the graph's backward, which adds into the model's gradient buffer (params->grads),
 * so gradients accumulate across calls until zero_grad(m), as in PyTorch. The graph holds one
 * forward at a time (m->gen counts them): a value from an earlier forward (or from before `train`
 * ran) is refused by backward with one line.
 */
#ifndef BL_REPL_MODELLAB_H
#define BL_REPL_MODELLAB_H

#include "repl/repl.h"

/* The call hook of model values (bl_model_type.call): m(xt, t[, keep=on]) or m(tokens[, keep=on]). */
bl_value *bl_model_call(void *model, bl_callargs *a);

bl_value *bl_fn_model_forward(bl_callargs *a);  /* forward(m, ...) = m(...) */
bl_value *bl_fn_flow_loss(bl_callargs *a);
bl_value *bl_fn_ce_loss(bl_callargs *a);
bl_value *bl_fn_grad(bl_callargs *a);
bl_value *bl_fn_grads(bl_callargs *a);
bl_value *bl_fn_step(bl_callargs *a);
/* zero_grad(m) of the gradient functions (functions_grad.c): 1 when v is a model value; then
 * bl_lab_zero_grad(v) sets its parameter gradients to 0 (one memset). */
int bl_lab_is_model(const bl_value *v);
void bl_lab_zero_grad(bl_value *v);
bl_value *bl_fn_set_param(bl_callargs *a);
bl_value *bl_fn_acts(bl_callargs *a);
bl_value *bl_fn_batch(bl_callargs *a);
bl_value *bl_fn_encode(bl_callargs *a);
bl_value *bl_fn_decode(bl_callargs *a);

#define BL_MODELLAB_FUNCTIONS                                                                   \
    { "forward", "forward(m, xt, t, keep=off) | forward(m, tokens, keep=off)",                 \
      "Run model m on tensors of your own; m(xt, t) and m(tokens) do the same.\n"             \
      "TinyDiT: the predicted velocity [B, C, H, W] for images xt [B, C, H, W] and times t [B]\n" \
      "(or one number for all). TinyGPT: the logits [B, T, vocab] for integer tokens [B, T].\n" \
      "It is the model's training forward: backward(sum(out * g)) fills the parameter\n"      \
      "gradients (grad, grads), and d/dxt into xt.grad when xt needs a gradient\n"               \
      "(requires_grad). keep=on keeps q, k and v too for acts().", bl_fn_model_forward },         \
    { "flow_loss", "flow_loss(m, x0, noise, t)",                                               \
      "The flow-matching loss of TinyDiT m on exactly this batch.\n"                          \
      "x_t = (1 - t) x0 + t noise, target noise - x0, loss = mean (m(x_t, t) - target)^2\n"  \
      "(DESIGN.md 1): x0 and noise [B, C, H, W], t [B] in [0, 1] or one number.\n"            \
      "backward(loss) adds d loss / d parameter into the model's gradients.", bl_fn_flow_loss }, \
    { "ce_loss", "ce_loss(m, tokens, targets)",                                                \
      "The cross-entropy of TinyGPT m predicting targets from tokens.\n"                     \
      "tokens and targets are integer tensors [B, T] (a target of -1 is ignored), as\n"      \
      "F.cross_entropy(m(tokens).view(-1, V), targets.view(-1)). batch(m) gives a pair.",     \
      bl_fn_ce_loss },                                                                          \
    { "grad", "grad(m, \"name\")",                                                             \
      "A copy of the gradient model m holds for one parameter.\n"                              \
      "Gradients add up over backward calls until zero_grad(m), as in PyTorch; `train` clears\n" \
      "them at each of its steps. grads(m) lists them.", bl_fn_grad },                          \
    { "grads", "grads(m)",                                                                     \
      "A table of model m's parameters: name, shape, grad_norm and norm (L2).", bl_fn_grads }, \
    { "step", "step(m)",                                                                       \
      "One AdamW step of model m on the gradients it holds, with its settings.\n"            \
      "The keys lr beta1 beta2 weight_decay warmup cosine steps clip (set m lr=...); weight\n" \
      "decay on matrices only. With a run (after train) it is one step of that run, its loss\n" \
      "the last flow_loss/ce_loss; before, step keeps its own count. Refused on a nan or inf\n" \
      "gradient (nothing changes). The gradients stay: zero_grad(m) clears them.", bl_fn_step }, \
    { "set_param", "set_param(m, \"name\", value)",                                            \
      "Write one parameter of model m, with a shape check.\n"                                 \
      "value is a tensor of the parameter's shape, or a number for all its elements. For\n"   \
      "example set_param(m, \"blocks.0.attn.proj.weight\", zeros(128, 128)). param(m, \"name\")\n" \
      "still returns a copy.", bl_fn_set_param },                                               \
    { "acts", "acts(m, \"what\", layer)",                                                      \
      "A copy of one activation of model m's last forward, by name and layer.\n"              \
      "what: in (the token stream entering the layer, before its first norm), norm (after\n" \
      "that norm; TinyDiT: the first image only), q, k, v [B, heads, T, hd] (after qk_norm\n" \
      "and RoPE; kept by a forward without gradients or by m(..., keep=on)), attn (the\n"     \
      "attention weights [B, heads, T, T]). The last forward is m(...), a loss, train, ...", \
      bl_fn_acts },                                                                             \
    { "batch", "batch(m)",                                                                     \
      "The next training batch of model m's data as a list of tensors.\n"                     \
      "TinyDiT: [x0] ([B, C, H, W] in [-1, 1]); TinyGPT: [tokens, targets] ([B, T] each,\n"  \
      "targets the tokens shifted by one). It draws from the run, so train goes on after it.", \
      bl_fn_batch },                                                                            \
    { "encode", "encode(m, \"text\")",                                                         \
      "The token ids [n] of a text for TinyGPT m (its vocabulary of characters).\n"           \
      "A character outside the vocabulary is an error naming it.", bl_fn_encode },             \
    { "decode", "decode(m, tokens)", "The text of token ids for TinyGPT m (encode's inverse).", \
      bl_fn_decode },

#endif
