/* compare.h - fair ablations: several variants of one model config trained side by side.
 *
 * "We changed one thing and this is what happened", with the noise floor shown (issue 7 item 1):
 *
 *   - every variant is the base config plus a named switch set ("norm:rmsnorm,qk_norm:on"), with
 *     the SAME seed, so data order, noise and t draws (trainer streams keyed by (seed, name)) and
 *     the initial values of every parameter the variants share are identical (DESIGN.md 4);
 *   - one more run, the reference (the first variant) with seed + 1, measures how much the
 *     result moves when only the seed changes: the seed-to-seed gap. A variant's difference from
 *     the reference counts (is marked) only when it exceeds that gap;
 *   - steps are interleaved round-robin (each run takes one step in turn), so background load on
 *     the machine slows every variant alike and the ms/step ratios stay fair;
 *   - all runs take the same exam (the trainer's fixed validation set, val_n examples).
 *
 * Usage:
 *   bl_compare *c = bl_compare_new(&cfg, ds, val_n, n, names, specs, steps);
 *   while (c->done < c->steps && !stop) bl_compare_round(c);     // one step of every run
 *   bl_compare_finish(c, probe, fd_n);                            // final val (+ probe-FD)
 *   bl_compare_summary(c, &sum);                                  // gap, deltas, marks
 *   bl_compare_write(c, "compare-dir");                           // DIR/NAME/metrics.json
 *   bl_compare_free(c);
 *
 * A run whose loss or gradient turns NaN/inf stops (its weights are those of the last good step,
 * as bl_run_step keeps them); it is marked failed with the trainer's message and the other runs
 * go on. Errors otherwise: NULL / -1 with "compare: ..." in bl_error(); nothing prints.
 */
#ifndef BL_COMPARE_H
#define BL_COMPARE_H

#include <stdint.h>
#include "data/dataset.h"
#include "models/model.h"
#include "train/probe.h"
#include "train/trainer.h"

#define BL_CMP_MAX 16           /* runs in one comparison, the seed + 1 reference included */
#define BL_CMP_NAME 32

typedef struct bl_cmp_run {
    char name[BL_CMP_NAME];     /* "baseline", "rmsnorm", ...; the seed + 1 run is "seed2" */
    char spec[256];             /* the switch set as given ("" for none) */
    int noise_floor;            /* 1 for the reference's seed + 1 run */
    bl_model *model;            /* owned */
    bl_run *run;                /* owned */
    int failed;                 /* stopped by an error (NaN/inf); error holds the message */
    char error[256];
    double val;                 /* final validation loss (NaN until bl_compare_finish) */
    double fd;                  /* probe-FD (NaN when not measured) */
    int remote;                 /* trained by another MPI rank (src/dist): round, finish, save and
                                 * write leave it alone until its numbers arrive */
} bl_cmp_run;

typedef struct bl_compare {
    int n;                      /* runs, the seed + 1 run last */
    bl_cmp_run r[BL_CMP_MAX];
    const bl_dataset *data;     /* not owned */
    int steps;                  /* planned steps per run */
    int done;                   /* rounds completed (every live run has taken this many steps) */
    /* The one activation arena the runs take their turns on (steps, exams): runs are trained one
     * after another, so holding one arena per run (a TinyGPT at nanoGPT size: about 2.5 GB each at
     * batch 64) bought nothing. NULL until the first turn; owned. */
    bl_graph *arena;
} bl_compare;

/* Apply a switch set to cfg: "KEY:VALUE[,KEY:VALUE...]" (":" or "=" between key and value; "" or
 * "-" leaves cfg as it is). All pairs apply together (bl_config_set_many) or not at all.
 * -1 + "compare: SPEC: ..." (a pair without a value, the keys seed and steps, which the
 * comparison sets for every run, or the config's own message). */
int bl_compare_apply(bl_config *cfg, const char *spec);

/* Check a comparison as bl_compare_new will, before anything is made or attached: the number of
 * variants and steps, then each variant in turn: its name (below) and its switch set
 * (bl_compare_apply). 0, or -1 + "compare: ..." with *bad the variant at fault (-1: the count
 * or steps) and *in_spec whether its switch set is (else its name). */
int bl_compare_check(const bl_config *base, int n, const char *const *names, const char *const *specs,
                     int steps, int *bad, int *in_spec);
/* Whether every variant (base + specs[i], steps) can train on ds with an exam of val_n (what
 * bl_run_new refuses: the data's kind, image size, vocab, context, held-out part). 0, or -1 +
 * "compare: NAME: ..." (the trainer's message) with *bad the first variant that cannot. */
int bl_compare_check_data(const bl_config *base, const bl_dataset *ds, int val_n, int n,
                          const char *const *names, const char *const *specs, int steps, int *bad);

/* Make the runs: for each i < n a model from base + specs[i] (seed = base->seed) named names[i],
 * then the seed + 1 copy of variant 0 named "seed2"; each run's config gets steps = `steps` (for
 * a cosine schedule) and a bl_run on ds with the exam of val_n examples (<= 0: the trainer's
 * default), its metrics reserved for `steps` steps. Names: 1..31 characters [A-Za-z0-9_], all
 * different, not "seed2". 1 <= n <= BL_CMP_MAX - 1, steps >= 1.
 * NULL + "compare: ..." (bad name or spec, data that does not fit, out of memory). */
bl_compare *bl_compare_new(const bl_config *base, const bl_dataset *ds, int val_n, int n,
                           const char *const *names, const char *const *specs, int steps);
void bl_compare_free(bl_compare *c);

/* One round: every live run that has taken c->done steps (all of them, unless a resume left some
 * ahead) takes one training step (bl_run_train(r, 1): it evaluates every
 * cfg.eval_every steps and at step 0), in order. A run that fails is marked and skipped from then
 * on. Returns the number of live runs after the round (0: all failed), or -1 when c->done ==
 * c->steps already. */
int bl_compare_round(bl_compare *c);

/* Final measurements at the current step: the validation loss of every run that took a step
 * (evaluated again unless its last val point is at this step), and when probe != NULL and the
 * model is a TinyDiT, probe-FD of n_fd generated images (20 Euler steps, seed 0) against the
 * first n_fd held-out ones (bl_probe_fd_model). A failed run keeps val = NaN (its last val point
 * stays in its metrics). Returns 0, or -1 + error (the measurements done so far are kept). */
int bl_compare_finish(bl_compare *c, bl_probe *probe, int n_fd);

/* What the table shows. For each run: delta = val - val(reference) and fd_delta likewise;
 * exceeds = 1 when |delta| > gap (the reference and seed2 rows themselves: 0); ms_per_step =
 * the mean time of its steps after the first (the first sizes the buffers and wakes the thread
 * pools; it counts alone when it is the only step); speed = that divided by the reference's. gap = |val(reference) - val(seed2)| (NaN when either is
 * missing; then nothing is marked). */
typedef struct bl_cmp_row {
    size_t params;
    int steps;                  /* steps taken */
    double val, delta, fd, fd_delta;
    double ms_per_step, speed;
    int spikes;
    int exceeds, fd_exceeds;
} bl_cmp_row;

typedef struct bl_cmp_summary {
    bl_cmp_row row[BL_CMP_MAX];
    double gap, fd_gap;
} bl_cmp_summary;

void bl_compare_summary(const bl_compare *c, bl_cmp_summary *s);

/* Write every run's metrics to DIR/NAME/metrics.json (atomically, bl_metrics_write), making DIR
 * and DIR/NAME when missing. -1 + "compare: DIR: ..." when a folder cannot be made or a file
 * written. */
int bl_compare_write(const bl_compare *c, const char *dir);

/* Checkpoints, so that a long comparison survives a stop (issue 17): bl_compare_save writes every
 * run that took a step to DIR/NAME/checkpoint.safetensors (bl_checkpoint_save: weights, AdamW
 * moments, metrics, data position; each file atomically) and its metrics.json beside it.
 * bl_compare_resume, on a comparison just made by bl_compare_new with the same arguments, replaces
 * each run whose DIR/NAME/checkpoint.safetensors exists by the run that file holds; runs without
 * one start fresh. c->done becomes the fewest steps any run has taken and bl_compare_round moves
 * only the runs at c->done, so runs saved at different rounds (a stop between two files) line up
 * again. As bl_run_train's resumption, a resumed comparison takes exactly the steps (data, noise,
 * t, losses) of an uninterrupted one. *resumed = the number of runs loaded.
 * -1 + "compare: DIR/NAME/checkpoint.safetensors: ..." when a file cannot be read or written, holds a
 * different config (naming the first key that differs) or data, or more steps than planned;
 * on a resume error the runs loaded so far stay loaded (the caller frees the comparison). */
int bl_compare_save(const bl_compare *c, const char *dir);
int bl_compare_resume(bl_compare *c, const char *dir, int *resumed);

/* Make the output folder DIR and DIR/NAME for the n variants and seed2 (those that exist are
 * kept), before anything is attached, loaded or trained: a DIR that cannot be made or is not a
 * folder fails having attached nothing. 0, or -1 + "compare: DIR: ..." */
int bl_compare_make_dir(const char *dir, int n, const char *const *names);

#endif
