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
 * Keys: q (or Esc) back to the caller; p pause / resume; v or Tab next view, 1..4 a view
 * (overview, loss, attention, stats); left/right (h/l) head; up/down (k/j) layer; g log y.
 * The terminal is always restored: on q, when the callback fails, on Ctrl-C (SIGINT), SIGTERM and
 * SIGHUP, and at exit() if the callback exits. Resizing redraws at the new size.
 */
#ifndef BL_VIZ_DASH_H
#define BL_VIZ_DASH_H

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
    double loss;            /* train loss of this step */
    double val_loss;        /* validation loss when measured at this step, else NAN */
    double lr;              /* learning rate (NAN = not shown) */
    double steps_per_s;     /* speed; 0 = let the dashboard measure it from the wall clock */
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
} bl_dash_opts;

/* Run the dashboard on the terminal of stdin/stdout until q, the end (exit_when_done) or a
 * signal. Returns 0 (q or done), 1 (interrupted by Ctrl-C or a signal), -1 with bl_error() set
 * ("dash: standard output is not a terminal", "dash: cannot start ncurses for TERM=xyz", or the
 * callback's message). The terminal is restored in every case. o may be NULL. */
int bl_dash_run(bl_dash_step_fn step, void *ctx, const bl_dash_opts *o);

/* ---- the speed shown: steps per second of training time ----
 *
 * As a progress bar's rate: the time the dashboard is paused does not count, so a pause of any
 * length leaves the steps/s (and the ETA) as they were before it. The rate is measured over
 * windows of at least BL_DASH_RATE_WINDOW seconds of training time; times are seconds of a
 * monotonic clock. */
#define BL_DASH_RATE_WINDOW 0.5
typedef struct {
    double active;    /* training seconds before `since` */
    double since;     /* when training (re)started: running, not paused */
    int running;
    int marked;       /* a window has started */
    double mark_at;   /* training time at the window's start */
    long mark_step;
    double rate;      /* steps per second; 0 until the first window ends */
} bl_dash_rate;

/* Start the clock at `now`, running. */
void bl_dash_rate_start(bl_dash_rate *r, double now);
/* Stop (paused = 1) or restart (0) the clock at `now`; repeating either changes nothing. */
void bl_dash_rate_pause(bl_dash_rate *r, double now, int paused);
/* Training time so far. */
double bl_dash_rate_active(const bl_dash_rate *r, double now);
/* `step` steps are done at `now`: returns the rate, updated when a window has ended. */
double bl_dash_rate_step(bl_dash_rate *r, double now, long step);

/* ---- the demo: a fake trainer, for `dash demo`, the tmux test and trying the keys ---- */

typedef struct {
    long total;        /* steps to "train" */
    int delay_ms;      /* sleep per step, to look like work */
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
 * point every 25 steps, causal attention maps that sharpen with training and differ per layer and
 * head, per-token mean/rms statistics. */
int bl_dash_demo_step(void *ctx, const bl_dash_view *view, bl_dash_frame *frame);

#endif
