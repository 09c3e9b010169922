/* optim.h - AdamW over one flat parameter buffer, learning-rate schedule, gradient clipping.
 *
 * AdamW (Loshchilov & Hutter 2019; torch.optim.AdamW), for each element i at step t (1-based):
 *     m = b1 m + (1 - b1) g          v = b2 v + (1 - b2) g^2
 *     p -= lr * wd * p               (decoupled weight decay, only where decay[i] is set)
 *     p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
 * Defaults (DESIGN.md section 5): b1 0.9, b2 0.999 (TinyDiT) or 0.99 (TinyGPT), eps 1e-8, wd 0.
 *
 * Schedule: linear warmup from 0 over `warmup` steps, then constant, or cosine decay to
 * lr * min_ratio at `total` steps when cosine is set (nanoGPT get_lr).
 * Clipping: global L2 norm of all gradients scaled down to clip when larger (clip <= 0: off;
 * torch.nn.utils.clip_grad_norm_).
 */
#ifndef BL_OPTIM_H
#define BL_OPTIM_H

#include <stddef.h>

typedef struct bl_adamw {
    float lr, beta1, beta2, eps, weight_decay;
    int warmup, cosine, total;   /* schedule: warmup steps, cosine on/off, steps for the cosine */
    float min_lr_ratio;          /* cosine floor as a fraction of lr (default 0.1) */
    float clip;                  /* max global grad norm, <= 0 = off */
    long step;                   /* steps taken so far */
} bl_adamw;

/* PyTorch AdamW's betas (0.9, 0.999) and eps 1e-8, lr 3e-4, no weight decay, schedule and clip off,
 * cosine floor 0.1 of lr, step 0. A model's values (its kind's beta2 among them) come from its
 * config's switch table through bl_adamw_from_config, their one home. */
void bl_adamw_defaults(bl_adamw *o);
/* Learning rate for the step about to be taken (o->step + 1). */
float bl_adamw_lr(const bl_adamw *o);
/* Global L2 norm of grad[0..n) (in double). */
double bl_grad_norm(const float *grad, size_t n);
/* One AdamW update of n parameters. m, v: moment buffers (zero at start). decay: per-element
 * flag (NULL = decay nothing). Scales the gradient for clipping first when o->clip > 0.
 * Returns the gradient norm before clipping (NaN/inf is returned unchanged and the update is
 * NOT applied, so the parameters keep their last good values). */
double bl_adamw_step(bl_adamw *o, float *param, float *grad, float *m, float *v,
                     const unsigned char *decay, size_t n);

#endif
