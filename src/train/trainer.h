/* trainer.h - one training run of a model on a dataset: steps, evaluation, metrics.
 *
 * A bl_run ties a model (not owned) to a dataset (not owned) with AdamW (moments in the model's
 * parameter store), the run's metrics and the seeded streams (DESIGN.md sections 4-5):
 *   data order   bl_batcher (seed, "data"); its state is the number of samples drawn
 *   noise, t     counter-based: step s draws from bl_rng_init(hash(seed, "noise"|"t"), s), so a
 *                run resumed from a checkpoint at step s draws exactly what it would have drawn
 * One step: batch -> loss (tape recorded) -> backward -> AdamW. A NaN or inf loss or gradient
 * stops with an error and keeps the last good weights (the update is not applied).
 *
 * Evaluation is the same exam for every model: TinyDiT: flow MSE on the first `val_n` held-out
 * images (default min(2000, available)) with noise and t drawn from a fixed exam stream that does
 * not depend on the model's seed; TinyGPT: cross-entropy on `val_n` (default 64) fixed,
 * evenly spaced validation windows of context + 1 tokens.
 *
 * Errors: NULL / -1 + bl_error() ("train: ..."); the model and the metrics stay as they were
 * after the last good step.
 */
#ifndef BL_TRAINER_H
#define BL_TRAINER_H

#include "data/dataset.h"
#include "models/model.h"
#include "train/metrics.h"
#include "train/optim.h"

typedef struct bl_run {
    bl_model *model;            /* not owned */
    const bl_dataset *data;     /* not owned */
    bl_adamw opt;
    bl_metrics metrics;
    bl_batcher batcher;
    int batcher_ok;             /* batcher initialised (freed with the run) */
    int B, T;                   /* batch size; GPT context (tokens per window) */
    /* step buffers (allocated once) */
    bl_tensor *x0, *noise;      /* DiT [B, C, H, W] */
    float *t;                   /* DiT [B] */
    int *tokens;                /* GPT [B, T + 1] */
    unsigned char *decay;       /* per parameter element: weight decay applies (matrices) */
    /* the fixed exam (its items made at the first bl_run_eval) */
    int val_n;
    int exam_made;
    bl_tensor *val_x0, *val_noise;  /* DiT [val_n, C, H, W] */
    float *val_t;
    int *val_tokens;            /* GPT [val_n, T + 1] */
    float last_val;             /* NaN until evaluated */
    double eval_ms;             /* how long the last exam took (0 before the first) */
    /* data-parallel training over MPI ranks (src/dist/dist_train.c; 0/NULL alone): the step's
     * loss and gradients come from rows [shard_lo, shard_lo + shard_n) of the batch (every rank
     * draws the whole batch, so data, noise and t are the one-process run's); reduce, after the
     * backward, averages the gradients and *loss over the ranks (-1 + error stops the step);
     * no_exam: bl_run_train leaves the exams to rank 0 */
    int shard_lo, shard_n;
    int (*reduce)(struct bl_run *r, float *loss);
    int no_exam;
} bl_run;

/* Start a run of m on ds with the trainer keys of m->cfg (lr, batch, warmup, cosine, steps,
 * clip, weight_decay, beta1, beta2). Checks that the data fits the model (image channels and
 * size; text vocabulary size equal to the model's vocab, context shorter than the text parts).
 * val_n <= 0 picks the default. NULL + "train: ..." on a mismatch. */
bl_run *bl_run_new(bl_model *m, const bl_dataset *ds, int val_n);
/* What a run of m on ds with an exam of val_n items (0: the default) needs that ds alone decides:
 * a text long enough for the context, images of the model's channels and size, enough held-out
 * images. 0, or -1 + bl_run_new's error (so `data` can refuse what `train` would). */
int bl_run_check_data(const bl_model *m, const bl_dataset *ds, int val_n);
/* Everything bl_run_new checks of a model with config c on ds before it makes the run: the kind
 * of data, the image size and channels or the vocab and context, the exam. 0, or -1 + its error
 * ("train: ..."), so a model that would be refused need not be made. */
int bl_run_check_config(const bl_config *c, const bl_dataset *ds, int val_n);
void bl_run_free(bl_run *r);
/* Re-read the trainer keys from the model's config (after `set lr=...`); keeps the step count. */
void bl_run_sync_config(bl_run *r);
/* The AdamW settings of a config (lr, beta1, beta2, warmup, cosine, steps, clip, weight_decay)
 * into o, keeping o->step. */
void bl_adamw_from_config(bl_adamw *o, const bl_config *c);
/* Which elements of p take weight decay: 1 for matrices (ndim >= 2), 0 for vectors (nanoGPT's
 * configure_optimizers). p->total bytes (free()), or NULL + "train: out of memory". */
unsigned char *bl_decay_mask(const bl_params *p);

/* One training step. *loss (may be NULL) receives the batch loss. *spike (may be NULL) is set
 * to 1 when the step was a loss spike. Returns 0, or -1 on a NaN/inf loss or gradient
 * ("train: loss is nan at step N: stopped; the weights are those after step N-1") or an error. */
int bl_run_step(bl_run *r, float *loss, int *spike);
/* Loss on the fixed exam; records it in the metrics at the current step (replacing a value
 * already recorded at that step). NaN + error on failure, or "eval: interrupted ..." when the
 * model's interrupted() hook fires between chunks of the exam (Ctrl-C). */
float bl_run_eval(bl_run *r);

/* Progress callback: called after every step (and after each evaluation with evaluated = 1).
 * Returning nonzero stops training after this step (Ctrl-C, `q` in the dashboard). */
typedef int (*bl_train_cb)(bl_run *r, int step_in_call, int nsteps, float loss, int evaluated,
                           void *ctx);
/* Train n steps, evaluating every cfg.eval_every steps (and at step 0 of a fresh run when
 * eval_every > 0). Returns the number of steps done (stopping early at a callback's request)
 * or -1 on an error (steps done before it are kept). */
int bl_run_train(bl_run *r, int n, bl_train_cb cb, void *ctx);

/* Steps taken (= optimizer steps = metrics steps). */
int bl_run_steps(const bl_run *r);
/* The exams bl_run_train takes between the run's step now and step `goal` (each step that is a
 * multiple of eval_every, `goal` included; 0 with eval_every 0). */
long bl_run_exams_left(const bl_run *r, long goal);

#endif
