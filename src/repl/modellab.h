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
#include "models/model.h"

/* The call hook of model values (bl_model_type.call): m(xt, t[, keep=on]) or m(tokens[, keep=on]). */
bl_value *bl_model_call(void *model, bl_callargs *a);

/* zero_grad(m) of the gradient functions (functions_grad.c): 1 when v is a model value; then
 * bl_lab_zero_grad(v) sets its parameter gradients to 0 (one memset). */
int bl_lab_is_model(const bl_value *v);
/* m.train() / m.eval() (train 1 / 0) of model value v, PyTorch's module mode: whether the
 * model's forwards at the prompt (m(...), forward, flow_loss, ce_loss) apply its dropout
 * (cfg.dropout), with fresh masks each call; train mode is the default. Returns v (a new
 * reference), as torch's return self; NULL + error (out of memory). bl_lab_training: the mode
 * (m.training). The trainer's steps always drop and its exams never do, whatever the mode. */
bl_value *bl_lab_set_mode(bl_value *v, int train);
int bl_lab_training(const bl_model *m);
void bl_lab_zero_grad(bl_value *v);
/* A backward reached the graph of model value v: its gradients are set (torch: .grad not None;
 * step(m) skips a model with none, as torch.optim skips parameters whose grad is None), and a
 * one-element loss (NAN: not one) is what step(m) records as the step's loss in the run's history
 * (as train records its batch loss), whatever computed it (ce_loss, or cross_entropy / mse_loss of
 * m(...) written by hand). */
void bl_lab_note_backward(bl_value *v, float loss);

/* A model's parameters as live tensors (paramvals.c): parameters(m) / named_parameters(m) give,
 * as PyTorch's m.parameters(), tensors whose data and .grad are the model's own memory: they show
 * the weights as step, train or set_param leave them, and writing one in place (no_grad
 * p -= lr * p.grad, p[0] = 0) changes the model. Each is a leaf that requires a gradient; a
 * backward reaching it adds into the model's gradient. The value keeps the model and its
 * parameter store alive (after a rebuild, which makes new weights, it keeps the old ones, as a
 * PyTorch tensor outlives the module it was taken from).
 *   bl_lab_param_value: parameter i of model value `model` as such a tensor value (NULL + error:
 *     out of memory);
 *   bl_lab_param_release: for bl_val_unref;
 *   bl_lab_param_has_grad: 0 when the model's gradients are torch's None (no backward since
 *     zero_grad(m) or train): .grad is then None;
 *   bl_lab_param_note_grad: a backward added into v's gradient;
 *   bl_lab_param_zero_grad: p.grad.zero_(): v's gradient to 0 (not None);
 *   bl_lab_param_set_grad_none: zero_grad(p) / p.grad = None / an optimizer's zero_grad(): v's
 *     .grad is None (its part of the model's one gradient buffer zeroed, a per-parameter flag
 *     set) until a backward reaches it; when every parameter is None so is the model's gradient
 *     (step(m) skips it);
 *   bl_lab_param_write: v's data = src (its shape, or one element for all); the model's weights
 *     version moves (a loss computed before is refused by backward). 0, or -1 + error when a
 *     rebuild replaced the weights v belongs to (bl_lab_param_detached: that error, else 0):
 *     writing them would change nothing the model uses. */
bl_value *bl_lab_param_value(bl_value *model, int i);
void bl_lab_param_release(struct bl_paramref *r);
int bl_lab_param_has_grad(const bl_value *v);
void bl_lab_param_note_grad(bl_value *v);
void bl_lab_param_zero_grad(bl_value *v);
void bl_lab_param_set_grad_none(bl_value *v);
int bl_lab_param_write(bl_value *v, const bl_tensor *src);
int bl_lab_param_detached(const bl_value *v);

#endif
