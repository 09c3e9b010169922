/* progress.h - how fast and how long: the rate meter and the one duration format that train's
 * progress bar and the dash dashboard share.
 *
 * Durations read as tqdm's: m:ss under an hour, h:mm:ss from there ("0:04", "2:38", "1:02:03",
 * "27:46:40"), in whole seconds, truncated as tqdm does.
 *
 * The rate is training steps per second of training time, as a progress bar's: time paused
 * (bl_rate_pause) and time spent on validation exams (bl_rate_exam) is not training time, so
 * neither lowers it. It is measured over windows of at least BL_RATE_WINDOW seconds of training
 * time; the first window starts at the first step seen (the first step sizes buffers and is slow),
 * and until it ends the rate is the run's so far. The ETA is the steps left at that rate plus the
 * exams left at the mean duration of the exams measured. bl_rate_overall is the whole run's
 * training rate: the steps since the start over the training time until the last of them. Times
 * are seconds of a monotonic clock, passed in (the tests use a fake one).
 */
#ifndef BL_VIZ_PROGRESS_H
#define BL_VIZ_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

/* seconds as "m:ss" or "h:mm:ss" into buf (at least 16 bytes for any value); "?" when negative or
 * not finite. Returns buf. */
char *bl_fmt_duration(char *buf, size_t n, double seconds);

/* The last validation loss as train's line, show and dash write it: "  val 0.4873", and when it
 * was measured at an earlier step than `step`, "  val 0.4873 @325"; "" when `at` < 0 (none). */
void bl_fmt_val(char *buf, size_t n, double loss, long at, long step);

#define BL_RATE_WINDOW 0.5
/* Where the output is not a terminal (a log, a pipe, mpirun's output), train and compare write
 * a plain progress line at most this often (seconds) instead of a bar redrawn with \r. */
#define BL_PLAIN_PROGRESS_S 60
typedef struct {
    double active;      /* training seconds before `since`, exams taken out */
    double since;       /* when the clock last started (running) */
    int running;
    long start_step;    /* the step count at the start */
    long last_step;     /* the last step seen and the training time it was done at */
    double last_at;
    int marked;         /* a window has started: at training time mark_at, step mark_step */
    double mark_at;
    long mark_step;
    double rate;        /* the last whole window's steps per second; 0 until one has ended */
    double exam_s;      /* seconds of the exams measured, and how many */
    int exams;
} bl_rate;

/* Start the clock at `now`, running, at `step` steps done (a run may already have some). */
void bl_rate_start(bl_rate *r, double now, long step);
/* Stop (paused = 1) or restart (0) the clock at `now`; repeating either changes nothing. */
void bl_rate_pause(bl_rate *r, double now, int paused);
/* A validation exam of `seconds` has just ended: with in_clock, inside the running clock (its time
 * is taken out of the training time); otherwise before the start (it only informs the ETA). */
void bl_rate_exam(bl_rate *r, double seconds, int in_clock);
/* Training time so far. */
double bl_rate_active(const bl_rate *r, double now);
/* `step` steps are done at `now`: returns bl_rate_now after taking it in. */
double bl_rate_step(bl_rate *r, double now, long step);
/* Steps per second now: the last window's, or the run's so far before one has ended (0: none). */
double bl_rate_now(const bl_rate *r);
/* The run's training rate: steps since the start / training time until the last step (0: none). */
double bl_rate_overall(const bl_rate *r);
/* Mean seconds of an exam measured so far (0: none measured). */
double bl_rate_exam_mean(const bl_rate *r);
/* Seconds left: steps_left at bl_rate_now plus exams_left exams at the mean exam time; -1 while
 * no rate is known. */
double bl_rate_eta(const bl_rate *r, long steps_left, long exams_left);

/* ---- a status line redrawn in place (train's progress bar, compare's) ---- */

/* The line last drawn: its characters (0: none yet). Zero it before the first draw. */
typedef struct {
    int len;
} bl_status_line;

/* Draw `line` over the status line at the cursor on a terminal `cols` columns wide: back to the
 * start of the line, and when the last line drawn is longer than cols (the window has narrowed
 * since), up over the rows a terminal that reflows its lines on a resize (tmux, kitty, VTE,
 * iTerm2, WezTerm, foot, Konsole, Windows Terminal) wrapped it into, erasing them all (CSI J),
 * so that no piece of the old line stays on the screen; xterm ($XTERM_VERSION outside tmux and
 * screen) cuts lines instead of wrapping them and gets no moving up. Does not flush. */
void bl_status_draw(bl_status_line *st, FILE *out, int cols, const char *line);

/* The rows the last line drawn takes on a window `cols` wide after a reflow: ceil(len / cols),
 * at least 1. For tests. */
int bl_status_rows(const bl_status_line *st, int cols);

#endif
