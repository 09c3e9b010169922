/* optim.h - PyTorch's optimizers at the prompt: torch.optim.SGD, Adam and AdamW over tensors the
 * user holds (m.parameters() of a model, or leaves made with requires_grad), and
 * torch.nn.utils.clip_grad_norm_.
 *
 *   opt = torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
 *   loss = ce_loss(m, x, y); opt.zero_grad(); loss.backward()
 *   torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0); opt.step()
 *   for g in opt.param_groups: g["lr"] = 3e-4
 *
 * An optimizer is a handle value holding its param groups: a list of dicts, each {"params":
 * [tensors], "lr": ..., ...} with every hyperparameter (the constructor's keywords fill what a
 * group dict leaves out, as torch's add_param_group). The dicts are live (value.h): g["lr"] = v
 * changes the group where it is, and step() reads each group's values anew, so a schedule works
 * as in torch. step() follows torch's algorithm boxes (torch.optim.SGD / Adam / AdamW, without
 * amsgrad, maximize, foreach), skips parameters whose .grad is None, keeps its per-parameter
 * state (momentum buffer, exp_avg, exp_avg_sq, step) and writes each parameter where it is
 * (bl_write_in_place: a model's parameter changes the model). zero_grad(set_to_none=True) sets
 * every .grad to None. The method calls opt.step() and opt.zero_grad() are the functions step and
 * zero_grad of the language called on the optimizer (x.f() calls f(x)): bl_optim_step and
 * bl_optim_zero_grad here.
 */
#ifndef BL_REPL_OPTIM_H
#define BL_REPL_OPTIM_H

#include "repl/repl.h"

/* 1 when v is an optimizer. */
int bl_is_optim(const bl_value *v);
/* step(opt) / opt.step(): one step (a->v[0] is the optimizer); None, or NULL + error with
 * nothing changed (a group's value of the wrong kind or range, a parameter that is no tensor). */
bl_value *bl_optim_step(bl_callargs *a);
/* zero_grad(opt, set_to_none=True) / opt.zero_grad(): every parameter's .grad None (or zeros). */
bl_value *bl_optim_zero_grad(bl_callargs *a);

#endif
