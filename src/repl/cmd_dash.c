/* cmd_dash.c - `dash`: the ncurses dashboard (viz/dash.h) around a model's run. The step callback
 * trains one step and copies what the frame shows (the forward pass resets the model's graph, so
 * the attention map and the per-token statistics are copied out of m->attn and m->tap_*). */
#include "dist/dist.h"
#include "repl/trainstate.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include "viz/dash.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    bl_model *m;
    bl_run *r;
    const bl_train_state *t;
    long goal;              /* the run's step count at which to stop */
    long start;             /* and at the start: the header's bar counts the steps between */
    float *attn;            /* T x T of (layer, head), batch item 0 */
    float *stats[3];        /* T each: mean and rms entering the norm, rms after it */
    char *labels_buf;       /* GPT: the input characters as tick labels */
    const char **labels;
    int T;
    char stat_title[96];
} dashctx;

/* Copy the attention map and the statistics of view->layer/head from the last forward. */
static void fill_arrays(dashctx *c, const bl_dash_view *v, bl_dash_frame *fr)
{
    bl_model *m = c->m;
    int layer = v->layer < m->cfg.depth ? v->layer : 0;
    fr->attn = NULL;
    fr->attn_labels = NULL;
    fr->nstats = 0;
    const bl_tensor *a = m->attn[layer];
    if (a && a->ndim == 4 && a->shape[2] == c->T && a->shape[3] == c->T) {
        int head = v->head < a->shape[1] ? v->head : 0;
        memcpy(c->attn, a->data + (size_t)head * c->T * c->T, (size_t)c->T * c->T * sizeof(float));
        fr->attn = c->attn;
        fr->attn_rows = fr->attn_cols = c->T;
        if (c->labels && bl_kind_of(m->kind)->text && c->r->tokens && c->t->vocab_size) {
            for (int i = 0; i < c->T; i++) {
                unsigned char ch = c->t->vocab[c->r->tokens[i] % c->t->vocab_size];
                c->labels_buf[2 * i] = ch == '\n' ? '/' : (ch < 32 || ch > 126) ? '?' : (char)ch;
                c->labels_buf[2 * i + 1] = '\0';
            }
            fr->attn_labels = c->labels;
        }
    }
    const bl_tensor *in = m->tap_in[layer], *nm = m->tap_norm[layer];
    /* the first image (TinyDiT keeps only that one's norm output) */
    if (in && nm && in->ndim == 3 && nm->ndim == 3 && in->shape[1] == c->T && nm->shape[1] == c->T &&
        nm->shape[2] == in->shape[2]) {
        int D = in->shape[2];
        for (int i = 0; i < c->T; i++) {
            const float *x = in->data + (size_t)i * D, *y = nm->data + (size_t)i * D;
            double s = 0, sq = 0, sqn = 0;
            for (int j = 0; j < D; j++) s += x[j], sq += (double)x[j] * x[j], sqn += (double)y[j] * y[j];
            c->stats[0][i] = (float)(s / D);
            c->stats[1][i] = (float)sqrt(sq / D);
            c->stats[2][i] = (float)sqrt(sqn / D);
        }
        static const char *const names[3] = { "mean before norm", "rms before norm", "rms after norm" };
        fr->nstats = 3;
        fr->stat_n = c->T;
        for (int k = 0; k < 3; k++) fr->stat_name[k] = names[k], fr->stat[k] = c->stats[k];
        snprintf(c->stat_title, sizeof c->stat_title, "block %d: per token before/after the first norm", layer);
        fr->stat_title = c->stat_title;
    }
}

static int dash_step(void *ctx, const bl_dash_view *v, bl_dash_frame *fr)
{
    dashctx *c = ctx;
    bl_run *r = c->r;
    fr->val_loss = NAN;
    if (!v->peek && bl_run_steps(r) < c->goal) {
        float loss;
        if (bl_run_step(r, &loss, NULL) < 0) return -1;
        fr->loss = loss;
        fill_arrays(c, v, fr);   /* before an evaluation runs other forwards */
        int every = c->m->cfg.eval_every;
        if (every > 0 && bl_run_steps(r) % every == 0) {
            float val = bl_run_eval(r);
            if (isnan(val)) return -1;
            fr->val_loss = val;
            fr->exam_s = r->eval_ms / 1000;   /* not training time: the dashboard leaves it out */
        }
    } else if (v->peek) {
        fill_arrays(c, v, fr);
    }
    const bl_metrics *mt = &r->metrics;
    fr->step = bl_run_steps(r);
    fr->total = c->goal;
    fr->start = c->start;
    fr->exams_left = bl_run_exams_left(r, c->goal);
    fr->lr = mt->steps ? mt->lr[mt->steps - 1] : NAN;
    if (isnan(fr->loss) && mt->steps) fr->loss = mt->loss[mt->steps - 1];
    fr->n_layers = c->m->cfg.depth;
    fr->n_heads = c->m->cfg.heads;
    /* the title: the model and its switches */
    bl_config_summary(&c->m->cfg, BL_KEYS_CHOICES, fr->title, sizeof fr->title);
    return bl_run_steps(r) >= c->goal ? 1 : 0;
}

static int dash_demo(bl_cmdargs *a)
{
    bl_dash_demo d;
    if (bl_dash_demo_init(&d, 500, 20) < 0) return -1;
    int rc = bl_dash_run(bl_dash_demo_step, &d, NULL);
    bl_dash_demo_free(&d);
    return rc < 0 ? bl_session_errat(a->s, a->st->pos) : 0;
}

static int cmd_dash(bl_cmdargs *a)
{
    if (bl_dist_refuse("dash", "the dashboard is one terminal's screen; use train (data-parallel) and plot loss") < 0)
        return bl_session_errat(a->s, a->st->pos);
    if (a->n == 1 && !a->w[0].key && !strcmp(a->w[0].text, "demo") && !bl_session_get(a->s, "demo"))
        return dash_demo(a);
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    long steps = m->cfg.steps;
    for (int i = used; i < a->n; i++) {
        if (!a->w[i].key || strcmp(a->w[i].key, "steps")) {
            bl_fail("dash: expected steps=N, got '%s' (dash [MODEL] [steps=N] | dash demo)", a->w[i].text);
            return bl_session_errat(a->s, a->w[i].pos);
        }
        if (bl_word_int(a, i, 1, 1000000000, &steps) < 0) return -1;
    }
    /* before the data, the run and the exam: a dash that cannot start changes nothing */
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        bl_fail("dash: standard %s is not a terminal", isatty(STDOUT_FILENO) ? "input" : "output");
        return bl_session_errat(a->s, a->st->pos);
    }
    bl_run *r = bl_train_run(a->s, m, "dash");
    if (!r) return bl_session_errat(a->s, a->st->pos);
    dashctx c = { .m = m, .r = r, .t = bl_train_find(m), .goal = bl_run_steps(r) + steps,
                  .start = bl_run_steps(r) };
    c.T = bl_config_tokens(&m->cfg);   /* the context for TinyGPT */
    c.attn = malloc((size_t)c.T * c.T * sizeof(float));
    for (int k = 0; k < 3; k++) c.stats[k] = malloc((size_t)c.T * sizeof(float));
    c.labels_buf = malloc((size_t)c.T * 2);
    c.labels = malloc((size_t)c.T * sizeof *c.labels);
    int rc;
    if (!c.attn || !c.stats[0] || !c.stats[1] || !c.stats[2] || !c.labels_buf || !c.labels) {
        rc = bl_fail("dash: out of memory");
    } else {
        for (int i = 0; i < c.T; i++) c.labels[i] = c.labels_buf + 2 * i;
        int exam0 = r->metrics.nval == 0 && m->cfg.eval_every > 0;   /* the step-0 exam, as train's */
        if (exam0 && isnan(bl_run_eval(r))) rc = -1;
        else {
            const bl_metrics *mt = &r->metrics;   /* the curve so far, then the new steps */
            bl_dash_opts o = { .hist_loss = mt->loss, .hist_n = mt->steps, .hist_val_step = mt->val_step,
                               .hist_val_loss = mt->val_loss, .hist_val_n = mt->nval,
                               .exam_s = exam0 ? r->eval_ms / 1000 : 0 };
            m->watch_attn = 1;   /* the training steps keep the attention maps the dash shows */
            rc = bl_dash_run(dash_step, &c, &o);
            m->watch_attn = 0;
        }
    }
    free(c.attn);
    for (int k = 0; k < 3; k++) free(c.stats[k]);
    free(c.labels_buf);
    free(c.labels);
    if (rc < 0 && bl_train_exam_interrupted()) {
        /* Ctrl-C during the exam: reported once, the run kept */
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "dash: %s; the run is at step %d\n", bl_error() + 6, bl_run_steps(r));
        bl_clear_error();
        bl_interrupt_reported(a->s);
        return 0;
    }
    if (rc < 0) return bl_session_errat(a->s, a->st->pos);
    fprintf(a->s->out, "dash: the run is at step %d%s\n", bl_run_steps(r), rc == 1 ? " (interrupted)" : "");
    if (rc == 1) {  /* the dashboard's own Ctrl-C (or signal): the rest of the line stops too */
        bl_interrupt_raise();
        bl_interrupt_reported(a->s);
    }
    return 0;
}

static const char help[] =
    "Train inside the live ncurses dashboard.\n"
    "Loss curve, progress (the run's step, then this command's steps done of N with their\n"
    "bar, as train's: \"step 365  31/150 [####....] 20%\"; the val loss with @STEP when\n"
    "stale, as train writes it; steps/s of training time: a pause and the validation exams do\n"
    "not count; the ETA adds the exams to come at their mean time), the attention map of\n"
    "the last step and per-token statistics;\n"
    "keys: q back (everything kept), p pause, v view, arrows layer and head, g log y.\n"
    "steps= defaults to the model's steps key. `dash demo` shows a fake run.";

const bl_command bl_cmd_dash_entry = {
    .name = "dash",
    .synopsis = "dash [MODEL] [steps=N] | dash demo",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_dash,
};
