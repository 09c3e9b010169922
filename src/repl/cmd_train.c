/* cmd_train.c - train, eval, save, load, metrics and run values (see train.h). */
#include "dist/dist.h"
#include "repl/train.h"
#include "core/fmt.h"
#include "core/suggest.h"
#include "repl/models.h"
#include "repl/parser.h"
#include "core/error.h"
#include "core/fileio.h"
#include "viz/progress.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* Words after the model: at most one positional, the rest key=value among `keys` (NULL-ended). */
static int check_keys(bl_cmdargs *a, int from, const char *const *keys, int max_pos, int *pos_i)
{
    int npos = 0;
    *pos_i = -1;
    for (int i = from; i < a->n; i++) {
        if (!a->w[i].key) {
            if (npos++ >= max_pos) {
                bl_fail("%s: unexpected '%s' (%s)", a->st->name, a->w[i].text,
                        bl_command_find(a->st->name)->synopsis);
                return bl_session_errat(a->s, a->w[i].pos);
            }
            *pos_i = i;
            continue;
        }
        int ok = 0;
        for (int k = 0; keys[k]; k++) ok |= !strcmp(keys[k], a->w[i].key);
        if (!ok) {
            char dym[160];
            bl_suggest sg;
            bl_suggest_init(&sg, a->w[i].key);
            bl_suggest_list(&sg, keys);
            bl_fail("%s: unknown key '%s' (%s)%s", a->st->name, a->w[i].key,
                    bl_command_find(a->st->name)->synopsis, bl_suggest_text(&sg, dym, sizeof dym));
            return bl_session_errat(a->s, a->w[i].pos);
        }
    }
    return 0;
}

/* Index of the word with key `key`, or -1. */
static int key_word(bl_cmdargs *a, int from, const char *key)
{
    for (int i = a->n - 1; i >= from; i--)
        if (a->w[i].key && !strcmp(a->w[i].key, key)) return i;
    return -1;
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

int bl_cmd_train(bl_cmdargs *a)
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
    if (check_keys(a, used, keys, 1, &pi) < 0) return -1;
    if (pi < 0) {
        bl_fail("train: how many steps? (train N)");
        return -1;
    }
    int qi = key_word(a, used, "quiet");
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
    int dp = r->reduce != NULL;
    bl_dist_train_detach(r);
    int steps = bl_run_steps(r) - from;
    if (r->metrics.steps) p.loss = r->metrics.loss[r->metrics.steps - 1];
    if (steps > 0 || p.tty) draw(&p, r, steps, (int)n, 1);
    if (dp && steps > 0 && !quiet) {     /* data-parallel: what the averaging costs */
        double all, step_s = (now_s() - p.t0) / steps;
        bl_dist_train_allreduce_s(&all);
        fprintf(a->s->out, "train: %d ranks, allreduce %.1f ms per step (%.0f%% of the step)\n", bl_dist_size(),
                1e3 * all / steps, 100 * all / steps / step_s);
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

/* ---- eval ---- */
int bl_cmd_eval(bl_cmdargs *a)
{
    int used, pi;
    static const char *const none[] = { NULL };
    bl_model *m = bl_models_pick(a, &used);
    if (!m || check_keys(a, used, none, 0, &pi) < 0) return -1;
    bl_run *r = bl_train_run(a->s, m, "eval");
    if (!r) return bl_session_errat(a->s, a->st->pos);
    float v = bl_run_eval(r);
    if (isnan(v) && bl_train_exam_interrupted()) {
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "%s (model and run kept)\n", bl_error());
        bl_clear_error();
        bl_interrupt_reported(a->s);
        return 0;
    }
    if (isnan(v)) return bl_session_errat(a->s, a->st->pos);
    bl_fprintf(a->s->out, "val loss %.4f at step %d (%d held-out %s)\n", v, bl_run_steps(r), r->val_n,
            bl_kind_of(m->kind)->item);
    return 0;
}

/* ---- save / load ---- */
int bl_cmd_save(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    if (a->n != used + 1 || a->w[used].key) {
        bl_fail("save: expected one file name (save [MODEL] FILE)");
        return bl_session_errat(a->s, a->n > used + 1 ? a->w[used + 1].pos : a->st->pos);
    }
    /* a checkpoint named as a picture or a table (save w.png) would be a safetensors file under
     * a name that says otherwise: refused; any other name (ckpt, x.pt, x.safetensors) is fine */
    const char *file = a->w[used].text;
    size_t fn = strlen(file);
    const char *e = bl_redirect_ext_of(file, fn);
    if (e) {
        bl_fail("save: '%s' names a %s file, not a checkpoint: save writes safetensors (save %.*s.safetensors)",
                file, e + 1, (int)(fn - strlen(e)), file);
        return bl_session_errat(a->s, a->w[used].pos);
    }
    bl_train_state *t = bl_train_find(m);
    /* a loaded run that has not trained since: with data attached, make its run (so the file
     * names the data it goes on with); without, write the checkpoint's run as it was loaded, so
     * its step, history, moments and data position are never lost */
    if (t && t->has_pending && !t->run && t->data && !bl_train_run(a->s, m, "save"))
        return bl_session_errat(a->s, a->st->pos);
    const bl_run *r = t ? t->run : NULL;
    const bl_ckpt_info *held = t && !r && t->has_pending ? &t->pending : NULL;
    const unsigned char *vocab = t && t->vocab_size ? t->vocab : NULL;
    int vocab_size = t ? t->vocab_size : 0;
    if ((held ? bl_checkpoint_save_info(a->w[used].text, m, held, vocab, vocab_size)
              : bl_checkpoint_save(a->w[used].text, m, r, vocab, vocab_size)) < 0) {
        const char *e = bl_error();
        if (strncmp(e, "save:", 5)) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", e);
            bl_fail("save: %s", msg);
        }
        return bl_session_errat(a->s, a->w[used].pos);
    }
    if (held && held->history)
        fprintf(a->s->out, "saved %s (step %ld, %zu parameters, %s: the loaded checkpoint's run, not "
                "continued)\n", a->w[used].text, held->step, bl_model_param_count(m),
                held->has_optim ? "optimizer state and history" : "history");
    else
        fprintf(a->s->out, "saved %s (step %d, %zu parameters%s)\n", a->w[used].text, r ? bl_run_steps(r) : 0,
                bl_model_param_count(m), r ? ", optimizer state and history" : "");
    return 0;
}

/* load FILE into=MODEL: the weights of a plain state_dict into an existing model, strictly
 * (bl_checkpoint_load_into); its run, data and optimizer state stay as they were. */
static int load_into_model(bl_cmdargs *a, int pi, int ii)
{
    if (key_word(a, 0, "name") >= 0) {
        bl_fail("load: name= makes a new model and into= loads into one: give one of them");
        return bl_session_errat(a->s, a->w[key_word(a, 0, "name")].pos);
    }
    const char *mname = a->w[ii].text;
    bl_value *v = bl_session_get(a->s, mname);
    if (!v || v->kind != BL_V_HANDLE || v->htype != &bl_model_type) {
        if (v) bl_fail("load: into=%s: '%s' is a %s, not a model", mname, mname, bl_val_kind_name(v));
        else bl_fail("load: into=%s: no model '%s' (make one of the file's shape first, e.g. %s = gpt(...))", mname,
                     mname, mname);
        return bl_session_errat(a->s, a->w[ii].vpos);
    }
    bl_model *m = v->h;
    int n = 0;
    char note[512];
    if (bl_checkpoint_load_into(a->w[pi].text, m, mname, &n, note, sizeof note) < 0) {
        const char *e = bl_error();
        if (strncmp(e, "load:", 5)) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", e);
            bl_fail("load: %s", msg);
        }
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    bl_train_state *t = bl_train_get(m);
    if (t) t->from_checkpoint = 1;  /* loaded weights: a vocab change of `data` is refused, not rebuilt */
    fprintf(a->s->out, "loaded %d tensors (%zu parameters) into %s\n", n, bl_model_param_count(m), mname);
    if (note[0])
        fprintf(a->s->out, "  note: the checkpoint was made with %s; %s computes with its own switches\n", note, mname);
    return 0;
}

int bl_cmd_load(bl_cmdargs *a)
{
    static const char *const keys[] = { "name", "into", NULL };
    int pi;
    if (check_keys(a, 0, keys, 1, &pi) < 0) return -1;
    if (pi < 0) {
        bl_fail("load: expected a file name (load FILE [name=NAME] | load FILE into=MODEL)");
        return -1;
    }
    int ii = key_word(a, 0, "into");
    if (ii >= 0) return load_into_model(a, pi, ii);
    int ni = key_word(a, 0, "name");
    const char *name = ni >= 0 ? a->w[ni].text : NULL;
    int constant;
    if (name && !bl_name_assignable(name, &constant)) {     /* exactly what NAME = ... takes */
        if (constant) bl_fail("load: '%s' is a constant (true, false, on, off), not a name to bind the model to", name);
        else bl_fail("load: '%s' is not a name (a letter or _, then letters, digits and _)", name);
        return bl_session_errat(a->s, a->w[ni].vpos);
    }
    const char *path = a->w[pi].text;
    bl_ckpt_info info;
    memset(&info, 0, sizeof info);
    bl_model *m = bl_checkpoint_load(path, &info);
    if (!m) {
        const char *e = bl_error();
        if (strncmp(e, "load:", 5)) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", e);
            bl_fail("load: %s", msg);
        }
        bl_ckpt_info_clear(&info);
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    bl_train_state *t = bl_train_get(m);
    if (!t) {
        bl_model_free(m);
        bl_ckpt_info_clear(&info);
        return -1;
    }
    t->from_checkpoint = 1;
    t->exam_n = info.exam_n;    /* the continued run takes the same exam */
    t->vocab_size = info.vocab_size;
    memcpy(t->vocab, info.vocab, sizeof t->vocab);
    if (bl_train_set_pending(t, &info) < 0) {   /* takes info */
        bl_train_forget(m);
        bl_model_free(m);
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    if (bl_models_adopt(a->s, m, name) < 0) return bl_session_errat(a->s, a->w[pi].pos);
    /* the model is a value now: from here on nothing fails the command */
    FILE *o = a->s->out;
    if (!info.data_name[0]) {
        fprintf(o, "  step %ld; no data stored (data KIND [PATH] attaches some)\n", info.step);
        return 0;
    }
    /* the built-in sets (shapes; the manual, whose source reads "built-in manual (...)") reopen
     * without a path */
    const char *src = info.data_source[0] && strcmp(info.data_source, "built in") &&
                      strncmp(info.data_source, "built-in manual (", 17) ? info.data_source : NULL;
    bl_dataset *ds = bl_data_open(info.data_name, src, m->cfg.seed);
    char d[1200];
    if (ds) {
        int text = bl_kind_of(m->kind)->text;   /* a text's vocab must be the checkpoint's */
        t->data = ds;
        if (text && ds->vocab_size == m->cfg.vocab && !t->vocab_size) {
            t->vocab_size = ds->vocab_size;
            memcpy(t->vocab, ds->vocab, sizeof t->vocab);
        }
        if (text && ds->vocab_size != m->cfg.vocab) {
            fprintf(o, "  the data %s %s has changed (vocab %d, the model has %d): not attached\n",
                    info.data_name, src ? src : "(built in)", ds->vocab_size, m->cfg.vocab);
            bl_dataset_free(ds);
            t->data = NULL;
        } else if (text && memcmp(t->vocab, ds->vocab, (size_t)ds->vocab_size)) {
            /* as many bytes, but other ones: its token ids would mean other characters */
            fprintf(o, "  the data %s %s has changed (its %d bytes are not the checkpoint's vocabulary): "
                    "not attached\n", info.data_name, src ? src : "(built in)", ds->vocab_size);
            bl_dataset_free(ds);
            t->data = NULL;
        } else if (!bl_train_run(a->s, m, "load")) {
            fprintf(o, "  the run cannot continue on %s: %s\n", info.data_name, bl_error());
            bl_dataset_free(t->data);
            t->data = NULL;
        } else {
            fprintf(o, "  step %d, data %s\n", bl_run_steps(t->run), bl_dataset_describe(ds, d, sizeof d));
            return 0;
        }
    } else {
        fprintf(o, "  cannot reopen the data (%s)\n", bl_error());
    }
    bl_clear_error();
    fprintf(o, "  step %ld kept; data KIND [PATH] attaches data to continue the run\n", info.step);
    return 0;
}

/* ---- run values ---- */
typedef struct {
    bl_metrics m;
} runval;

static void rv_free(void *p)
{
    runval *r = p;
    bl_metrics_free(&r->m);
    free(r);
}

static void rv_describe(void *p, char *buf, size_t n)
{
    const bl_metrics *m = &((runval *)p)->m;
    size_t len = (size_t)snprintf(buf, n, "%d steps", m->steps);
    /* losses with 4 decimals, as train and eval print them */
    if (m->steps && len < n) len += (size_t)bl_snprintf(buf + len, n - len, ", loss %.4f", m->loss[m->steps - 1]);
    if (m->nval && len < n)
        len += (size_t)bl_snprintf(buf + len, n - len, ", val %.4f at step %d", m->val_loss[m->nval - 1],
                                m->val_step[m->nval - 1]);
    if (m->steps && len < n) snprintf(buf + len, n - len, ", %.1f ms/step", bl_metrics_ms_per_step(m));
}

static void rv_print(void *p, FILE *out)
{
    char d[256];
    rv_describe(p, d, sizeof d);
    fprintf(out, "<run %s>\n", d);
}

static bl_value *floats_value(const float *x, int n)
{
    if (n == 0) return bl_val_list(0);
    bl_tensor *t = bl_tensor_new1(n);
    if (t) memcpy(t->data, x, (size_t)n * sizeof(float));
    return bl_val_tensor(t);
}

static bl_value *rv_field(void *p, const char *name)
{
    const bl_metrics *m = &((runval *)p)->m;
    if (!strcmp(name, "steps")) return bl_val_num(m->steps);
    if (!strcmp(name, "loss")) return floats_value(m->loss, m->steps);
    if (!strcmp(name, "ms")) return floats_value(m->ms, m->steps);
    if (!strcmp(name, "lr")) return floats_value(m->lr, m->steps);
    if (!strcmp(name, "val")) {
        if (m->nval == 0) return bl_val_list(0);
        bl_tensor *t = bl_tensor_new2(m->nval, 2);
        for (int i = 0; t && i < m->nval; i++) {
            t->data[2 * i] = (float)m->val_step[i];
            t->data[2 * i + 1] = m->val_loss[i];
        }
        return bl_val_tensor(t);
    }
    if (!strcmp(name, "spikes")) {
        bl_value *l = bl_val_list(m->nspikes);
        for (int i = 0; l && i < m->nspikes; i++)
            if (bl_val_list_set(l, i, bl_val_num(m->spikes[i])) < 0) {
                bl_val_unref(l);
                return NULL;
            }
        return l;
    }
    if (!strcmp(name, "ms_per_step")) return bl_val_num(bl_metrics_ms_per_step(m));
    if (!strcmp(name, "items")) return bl_val_num((double)m->items);
    if (!strcmp(name, "params")) return bl_val_num((double)m->params);
    if (!strcmp(name, "wall_s")) return bl_val_num(m->wall_s);
    return BL_FAILP("a run has no field '%s' (fields: steps, loss, val, ms_per_step, spikes, items, "
                    "params, ms, lr, wall_s)", name);
}

static int rv_save(void *p, const char *path, const char *cmdline)
{
    (void)cmdline;
    const char *dot = strrchr(path, '.');
    if (!dot || strcasecmp(dot, ".json"))
        return bl_fail("%s: a run is written as .json (metrics.json)", path);
    return bl_metrics_write(&((runval *)p)->m, path);
}

const bl_handle_type bl_runval_type = { "run", rv_free, rv_print, rv_field, rv_describe, rv_save, NULL };

const bl_metrics *bl_runval_metrics(const bl_value *v)
{
    if (!v || v->kind != BL_V_HANDLE || v->htype != &bl_runval_type) return NULL;
    return &((runval *)v->h)->m;
}

bl_value *bl_train_run_value(const bl_model *m, const char *cmd)
{
    const bl_metrics *src = bl_train_metrics(m);   /* the run's, or a loaded checkpoint's */
    if (!src) return BL_FAILP("%s: the model has not been trained yet (train N)", cmd);
    runval *r = calloc(1, sizeof *r);
    if (!r) return BL_FAILP("%s: out of memory", cmd);
    bl_metrics_init(&r->m, bl_model_param_count(m), bl_kind_of(m->kind)->unit);
    json_t *j = bl_metrics_to_json(src);
    int rc = j ? bl_metrics_from_json(&r->m, j) : -1;
    json_decref(j);
    if (rc < 0) {
        rv_free(r);
        return NULL;
    }
    return bl_val_handle(&bl_runval_type, r);
}

bl_value *bl_fn_run(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_value *v = a->v[0];
    if (v->kind != BL_V_HANDLE || v->htype != &bl_model_type) {
        bl_fail("run: expects a model, got a %s", bl_val_kind_name(v));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    bl_value *r = bl_train_run_value(v->h, "run");
    if (!r) bl_session_errat(a->s, a->vpos[0]);
    return r;
}

int bl_cmd_metrics(bl_cmdargs *a)
{
    int used, pi;
    static const char *const none[] = { NULL };
    bl_model *m = bl_models_pick(a, &used);
    if (!m || check_keys(a, used, none, 0, &pi) < 0) return -1;
    a->result = bl_train_run_value(m, "metrics");
    return a->result ? 0 : bl_session_errat(a->s, a->st->pos);
}
