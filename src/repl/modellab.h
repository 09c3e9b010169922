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
 * The forward functions run the model's own training forward (models/tinydit.h, tinygpt.h),
 * each on a graph of its own (recording when gradients are on), and return values made with
 * bl_ag_graph_value: backward of them runs that graph's backward, which adds into the model's
 * gradient buffer (params->grads), so gradients accumulate across calls until zero_grad(m), as in
 * PyTorch, and one model may appear several times in one loss. A value whose forward saw weights
 * that have changed since (step, set_param, train, load, a rebuild: m->version counts them) is
 * refused by backward with one line.
 */
#ifndef BL_REPL_MODELLAB_H
#define BL_REPL_MODELLAB_H

#include "repl/repl.h"

/* The call hook of model values (bl_model_type.call): m(xt, t[, keep=on]) or m(tokens[, keep=on]). */
bl_value *bl_model_call(void *model, bl_callargs *a);

/* zero_grad(m) of the gradient functions (functions_grad.c): 1 when v is a model value; then
 * bl_lab_zero_grad(v) sets its parameter gradients to 0 (one memset). */
int bl_lab_is_model(const bl_value *v);
void bl_lab_zero_grad(bl_value *v);
/* A backward reached the graph of model value v: its gradients are set (torch: .grad not None;
 * step(m) skips a model with none, as torch.optim skips parameters whose grad is None), and a
 * one-element loss (NAN: not one) is what step(m) records as the step's loss in the run's history
 * (as train records its batch loss), whatever computed it (ce_loss, or cross_entropy / mse_loss of
 * m(...) written by hand). */
void bl_lab_note_backward(bl_value *v, float loss);

#endif
