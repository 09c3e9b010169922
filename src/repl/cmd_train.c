/* cmd_train.c - `train [MODEL] N`: train N steps (the run continues across calls) with a
 * progress bar on a terminal and one final line (repl/trainstate.h). */
#include "dist/dist.h"
#include "repl/trainstate.h"
#include "core/fmt.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include "core/fileio.h"
#include "viz/progress.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int on_terminal(bl_session *s) { return s->out == stdout && bl_is_terminal(fileno(stdout)); }

/* The columns of the terminal on stdout (80 when unknown). */
static int term_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

/* ---- train ---- */
typedef struct {
    bl_session *s;
    int tty, quiet;
    long goal;              /* the run's step count when this train ends */
    double t0, last_draw;
    double last_line;       /* not a terminal: when the last plain progress line was written */
    float loss;
    bl_rate rate;           /* steps per second of training time: the exams are left out */
    bl_status_line bar;     /* the bar as last drawn, for a redraw after a resize */
} progress;

void bl_progress_line(char *buf, size_t size, int width, int done, int total, const char *text)
{
    int room = width - 1 - (int)strlen(text) - 3;   /* "[", "]" and the space before the text */
    int w = room < 20 ? room : 20, fill = total > 0 ? (int)((long)done * w / total) : w;
    if (!size) return;
    if (w < 4) snprintf(buf, size, "%.*s", width > 1 ? width - 1 : 0, text);
    else snprintf(buf, size, "[%.*s%.*s] %s", fill, "####################", w - fill, "....................", text);
}

void bl_progress_text(char *buf, size_t size, int width, const char *head, const char *val, const char *rate,
                      const char *eta)
{
    snprintf(buf, size, "%s%s%s%s", head, val, rate, eta);
    if ((int)strlen(buf) <= width - 1) return;
    snprintf(buf, size, "%s%s%s", head, val, eta);   /* no room: the rate goes first, */
    if ((int)strlen(buf) <= width - 1) return;
    snprintf(buf, size, "%s%s", head, eta);          /* then the val loss; the ETA stays */
}

void bl_train_val_text(char *buf, size_t n, const bl_metrics *mt, int step)
{
    bl_fmt_val(buf, n, mt->nval ? mt->val_loss[mt->nval - 1] : 0, mt->nval ? mt->val_step[mt->nval - 1] : -1,
               step);
}

static void draw(progress *p, const bl_run *r, int done, int n, int final)
{
    double dt = now_s() - p->t0, ips = done > 0 && dt > 0 ? done / dt : 0;   /* the command's wall time */
    char val[64];
    bl_train_val_text(val, sizeof val, &r->metrics, bl_run_steps(r));
    FILE *o = p->s->out;
    if (p->tty) {
        /* steps per second of training time (the exams left out) to the end, the last redraw
         * giving the whole command's; while training, the time left, the exams to come included */
        double rate = final ? bl_rate_overall(&p->rate) : bl_rate_now(&p->rate), left = -1;
        char head[64], speed[32] = "", eta[40] = "", dur[24];
        if (rate > 0) snprintf(speed, sizeof speed, "  %.1f it/s", rate);
        if (!final) left = bl_rate_eta(&p->rate, n - done, bl_run_exams_left(r, p->goal));
        if (left >= 0) snprintf(eta, sizeof eta, "  ETA %s", bl_fmt_duration(dur, sizeof dur, left));
        char loss[32] = "loss -";   /* before the first step (the exam at step 0 runs first) */
        if (!isnan(p->loss)) snprintf(loss, sizeof loss, "loss %.4f", p->loss);
        snprintf(head, sizeof head, "step %d  %s", bl_run_steps(r), loss);
        int width = term_width();
        char text[256], line[320];
        bl_progress_text(text, sizeof text, width, head, val, speed, eta);
        bl_progress_line(line, sizeof line, width, done, n, text);
        bl_status_draw(&p->bar, o, width, line);
        bl_interrupt_echo_overwritten();    /* a ^C the terminal echoed on the bar's line */
        if (final) fputc('\n', o);
        fflush(o);
        if (!final) return;   /* then the summary below, on a line of its own: never cut */
    }
    /* the command's wall-clock rate: said to include the exams when some ran, as it then differs
     * from the bar's training-only rate */
    if (final && !p->quiet && done > 0)
        bl_fprintf(o, "step %d: loss %.4f%s, %d step%s in %.1f s (%.1f it/s%s)\n", bl_run_steps(r), p->loss, val,
                done, done == 1 ? "" : "s", dt, ips, p->rate.exams ? " with exams" : "");
}

static int train_cb(bl_run *r, int i, int n, float loss, int evaluated, void *ctx)
{
    progress *p = ctx;
    double t = now_s();
    if (evaluated) bl_rate_exam(&p->rate, r->eval_ms / 1000, 1);   /* not training time */
    if (i > 0) bl_rate_step(&p->rate, t, bl_run_steps(r));
    if (!isnan(loss)) p->loss = loss;
    if (p->tty && !p->quiet && (t - p->last_draw > 0.1 || i == n)) {
        draw(p, r, i, n, 0);
        p->last_draw = now_s();
    } else if (!p->tty && !p->quiet && i < n && t - p->last_line >= BL_PLAIN_PROGRESS_S) {
        /* a file or pipe (a log, or mpirun's output): now and then a plain line, never a bar
         * redrawn with carriage returns */
        bl_fprintf(p->s->out, "step %d: loss %.4f (%d of %d, %.1f it/s)\n", bl_run_steps(r), p->loss, i, n,
                   i / (t - p->t0));
        fflush(p->s->out);
        p->last_line = t;
    }
    /* data-parallel (MPI): every rank stops after the step some rank's Ctrl-C reached */
    return r->reduce ? bl_dist_train_stopped() : bl_interrupted();
}

static int cmd_train(bl_cmdargs *a)
{
    static const char *const keys[] = { "quiet", NULL };
    int used, pi, quiet = 0;
    long n;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    for (int i = used, first = -1; i < a->n; i++)
        if (!a->w[i].key && first < 0) first = i;
        else if (!a->w[i].key) {
            bl_fail("train: expected one step count, got '%s' and then '%s' (%s)", a->w[first].text,
                    a->w[i].text, bl_command_find("train")->synopsis);
            return bl_session_errat(a->s, a->w[i].pos);
        }
    if (bl_word_keys(a, used, keys, 1, &pi) < 0) return -1;
    if (pi < 0) {
        bl_fail("train: how many steps? (train N)");
        return -1;
    }
    int qi = bl_opt_find(a, "quiet");
    if (bl_word_int(a, pi, 1, 1000000000, &n) < 0 || (qi >= 0 && bl_word_bool(a, qi, &quiet) < 0)) return -1;
    bl_run *r = bl_train_run(a->s, m, "train");
    if (!r || bl_dist_train_attach(r, bl_interrupted) < 0) return bl_session_errat(a->s, a->st->pos);
    progress p = { .s = a->s, .tty = on_terminal(a->s), .quiet = quiet, .t0 = now_s(), .loss = NAN };
    if (quiet) p.tty = 0;
    p.last_line = p.t0;
    int from = bl_run_steps(r);
    p.goal = from + n;
    bl_rate_start(&p.rate, p.t0, from);
    if (p.tty) draw(&p, r, 0, (int)n, 0);     /* at once: the exam at step 0 may take a while */
    int done = bl_run_train(r, (int)n, train_cb, &p);
    /* as nanoGPT's loop (zero_grad(set_to_none=True) after each step): no gradient is left for a
     * backward at the prompt to add to (flow_loss after train gave the last step's plus its own) */
    bl_params_zero_grad(m->params);
    m->params->has_grad = 0;
    int dp = r->reduce != NULL;
    bl_dist_train_detach(r);
    int steps = bl_run_steps(r) - from;
    if (r->metrics.steps) p.loss = r->metrics.loss[r->metrics.steps - 1];
    if (steps > 0 || p.tty) draw(&p, r, steps, (int)n, 1);
    if (dp && steps > 0 && !quiet) {     /* data-parallel: what the averaging costs */
        double all, step_s = (now_s() - p.t0) / steps;
        bl_dist_train_allreduce_s(&all);
        fprintf(a->s->out, "train: %d ranks, allreduce %.1f ms per step (%.0f%% of the step; %.1f ms of it waiting "
                "for the slowest rank)\n", bl_dist_size(), 1e3 * all / steps, 100 * all / steps / step_s,
                1e3 * bl_dist_train_wait_s() / steps);
    }
    if (done < 0 && bl_train_exam_interrupted()) {
        /* Ctrl-C during the validation exam: the steps so far are kept */
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "train: %s, at step %d (model and run kept)\n", bl_error() + 6, bl_run_steps(r));
        bl_clear_error();
        bl_interrupt_reported(a->s);
        return 0;
    }
    if (done < 0) return bl_session_errat(a->s, a->st->pos);
    if (done < n && (bl_interrupted() || bl_dist_train_stopped())) {
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "train: interrupted after step %d (model and run kept)\n", bl_run_steps(r));
        bl_interrupt_reported(a->s);
    }
    return 0;
}

static const char help[] =
    "Train N steps (the run continues across calls).\n"
    "On a terminal a progress bar shows step, loss, the last val loss, it/s of training time\n"
    "(exams left out, to the bar's end) and the ETA (m:ss or h:mm:ss, the exams to come\n"
    "included); then, as otherwise, one final line (quiet=on: none) with the wall-clock\n"
    "it/s, \"(11.5 it/s with exams)\" when exams ran. A val loss from an earlier step than\n"
    "the current one says which: \"step 140: loss 3.5512  val 3.6210 @100\". Validation every\n"
    "eval_every steps (set eval_every=0: never). Ctrl-C stops after the current step and\n"
    "keeps everything (the rest of the line does not run); a NaN or inf loss stops with the\n"
    "weights of the last good step. `set lr=...` applies to the next step. A step whose loss\n"
    "is above 1.5x the median of the previous 100 (from step 11) is a spike (metrics,\n"
    "m.run.spikes).\n"
    "Under MPI (mpirun -np N) training is data-parallel: each rank takes B/N rows of the\n"
    "batch, gradients are averaged (MPI_Iallreduce), the weights compared every eval_every\n"
    "steps; exams and save on rank 0; kill -USR1 on mpirun stops all after one step.";

const bl_command bl_cmd_train_entry = {
    .name = "train",
    .synopsis = "train [MODEL] N [quiet=on]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_train,
};
