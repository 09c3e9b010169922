/* dash.h - the live training dashboard (ncurses), DESIGN.md section 8 "dash".
 *
 * The dashboard is a loop around a step callback supplied by the caller: each call trains one
 * step and fills a small frame of numbers and arrays to show. Between calls the dashboard reads
 * keys and redraws (at most every `redraw_ms`):
 *
 *   +------------------------------------------------------------------------+
 *   | blocklab dash  step 120/500 [#####.....] 24%  loss 1.234  val 1.300 ...  |
 *   | layer 1/4  head 2/4  view overview  running                             |
 *   |  loss curve (raw faint, EMA)        |  attention map (layer, head)      |
 *   |                                     |-----------------------------------|
 *   |                                     |  activation stats per token       |
 *   | q back  p pause  v/tab view  1-4 views  <- -> head  up/down layer  g log  |
 *   +------------------------------------------------------------------------+
 *
 * The header's steps/s counts training time only (viz/progress.h): time paused and the time of
 * validation exams (frame exam_s) are left out, and the ETA adds the exams still to come
 * (frame exams_left) at their mean measured time. When training is done it shows the run's
 * training rate (the steps of this dashboard over their training time).
 *
 * Keys: q (or Esc) back to the caller; p pause / resume; v or Tab next view, 1..4 a view
 * (overview, loss, attention, stats); left/right (h/l) head; up/down (k/j) layer; g log y.
 * The terminal is always restored: on q, when the callback fails, on Ctrl-C (SIGINT), SIGTERM and
 * SIGHUP, and at exit() if the callback exits. Resizing redraws at the new size.
 */
#ifndef BL_VIZ_DASH_H
#define BL_VIZ_DASH_H

#include "viz/progress.h"

enum { BL_DASH_OVERVIEW, BL_DASH_LOSS, BL_DASH_ATTN, BL_DASH_STATS, BL_DASH_NVIEWS };
#define BL_DASH_MAX_STATS 4

/* what the user has selected; read by the callback */
typedef struct {
    int layer, head; /* kept in 0 .. n_layers-1, 0 .. n_heads-1 of the last frame */
    int view;        /* BL_DASH_* */
    int peek;        /* 1: do not train; only refill the arrays for layer/head (paused, done, key) */
} bl_dash_view;

/* what one step shows; the callback fills it. Arrays stay owned by the callback and must stay
 * valid until its next call. NAN means "none" for the doubles. */
typedef struct {
    long step, total;       /* steps done so far, steps planned (0 = open-ended) */
    long start;             /* steps done before this dashboard: its bar counts its own steps,
                               total - start of them, as train's does */
    double loss;            /* train loss of this step */
    double val_loss;        /* validation loss when measured at this step, else NAN */
    double lr;              /* learning rate (NAN = not shown) */
    double steps_per_s;     /* speed; 0 = let the dashboard measure it (viz/progress.h) */
    double exam_s;          /* seconds of this call spent on a validation exam (0: none): not
                               training time, and the ETA's estimate of the exams to come */
    long exams_left;        /* validation exams still to come before `total` (for the ETA) */
    int n_layers, n_heads;  /* for the layer/head keys */
    const float *attn;      /* attn_rows x attn_cols attention weights of (layer, head), or NULL */
    int attn_rows, attn_cols;
    const char *const *attn_labels; /* attn_rows (= attn_cols) tick labels such as characters, or NULL */
    int nstats;             /* activation statistics per token: up to 4 named curves of stat_n values */
    int stat_n;
    const char *stat_name[BL_DASH_MAX_STATS];
    const float *stat[BL_DASH_MAX_STATS];
    const char *stat_title; /* e.g. "block 1: rms per token before/after the norm" */
    char title[80];         /* the model, e.g. "tinygpt norm=rmsnorm pos=rope" */
} bl_dash_frame;

/* Train one step (or only refill the arrays when view->peek) and fill *frame (the dashboard zeroes
 * it and sets the NAN fields before the first call, then passes the previous frame again).
 * Return 0 to go on, 1 when training is finished (the dashboard then stays until q, or returns
 * at once with exit_when_done), -1 on an error (bl_fail). It must not print. */
typedef int (*bl_dash_step_fn)(void *ctx, const bl_dash_view *view, bl_dash_frame *frame);

typedef struct {
    int exit_when_done; /* return as soon as the callback reports 1 */
    int redraw_ms;      /* at most one redraw per redraw_ms while training (0 = 100) */
    float smooth;       /* EMA weight of the loss curve (0 = 0.9; negative = no smoothing) */
    int view;           /* the first view */
    /* the run so far, drawn before the dashboard's own steps (NULL / 0: none): hist_loss[i] is
     * the train loss of step i + 1, i < hist_n; hist_val_n validation points (step, loss) */
    const float *hist_loss;
    int hist_n;
    const int *hist_val_step;
    const float *hist_val_loss;
    int hist_val_n;
    double exam_s;      /* seconds an exam took just before (the run's step-0 exam), 0: none */
} bl_dash_opts;

/* Run the dashboard on the terminal of stdin/stdout until q, the end (exit_when_done) or a
 * signal. Returns 0 (q or done), 1 (interrupted by Ctrl-C or a signal), -1 with bl_error() set
 * ("dash: standard output is not a terminal", "dash: cannot start ncurses for TERM=xyz", or the
 * callback's message). The terminal is restored in every case. o may be NULL. */
int bl_dash_run(bl_dash_step_fn step, void *ctx, const bl_dash_opts *o);

/* ---- the demo: a fake trainer, for `dash demo`, the tmux test and trying the keys ---- */

typedef struct {
    long total;        /* steps to "train" */
    int delay_ms;      /* sleep per step, to look like work */
    int exam_ms;       /* sleep per validation exam (every 25 steps; 0 = instant), set after init */
    int layers, heads, tokens;
    unsigned rng;
    float *attn;       /* tokens x tokens */
    float *stats[3];   /* tokens each */
    char *labels_buf;
    const char **labels;
} bl_dash_demo;

/* Set up a demo of `total` steps (>= 1) sleeping delay_ms each (>= 0). Returns 0 or -1. */
int bl_dash_demo_init(bl_dash_demo *d, long total, int delay_ms);
void bl_dash_demo_free(bl_dash_demo *d);
/* The step callback of the demo (ctx is a bl_dash_demo): a decaying noisy loss, a validation
 * point every 25 steps (an exam of exam_ms, reported in exam_s and exams_left), causal attention maps that sharpen with training and differ per layer and
 * head, per-token mean/rms statistics. */
int bl_dash_demo_step(void *ctx, const bl_dash_view *view, bl_dash_frame *frame);

#endif
