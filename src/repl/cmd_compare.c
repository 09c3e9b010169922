/* cmd_compare.c - `compare`: a fair ablation of the current model (train/compare.h does the
 * training and the arithmetic; this file parses, prints the progress, builds the table and binds
 * the runs).
 *
 *   compare [MODEL] VARIANT... [steps=N] [fd=on|off] [n=N] [probe_steps=N] [every=N] [dir=PATH]
 *   VARIANT:  NAME                      the model as it is (e.g. baseline)
 *             NAME=KEY:VALUE[,KEY:VALUE...]   the model with these keys changed
 *
 * The first variant is the reference; a run of it with seed + 1 ("seed2") gives the seed gap.
 * Leaves the table value (printable, `> t.csv|.md|.json|.txt`), binds each run's metrics to
 * cmp_NAME (so `plot loss cmp_baseline cmp_rope` overlays them) and writes DIR/NAME/metrics.json.
 */
#include "repl/repl.h"
#include "repl/modelvars.h"
#include "repl/trainstate.h"
#include "train/compare.h"
#include "dist/dist.h"
#include "core/error.h"
#include "core/fileio.h"
#include "viz/progress.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static const char *const opt_keys[] = { "steps", "fd", "n", "probe_steps", "dir", "every", NULL };

static int is_opt(const bl_word *w)
{
    if (!w->key) return 0;
    for (int k = 0; opt_keys[k]; k++)
        if (!strcmp(opt_keys[k], w->key)) return 1;
    return 0;
}

static int opt_word(bl_cmdargs *a, int from, const char *key)
{
    for (int i = a->n - 1; i >= from; i--)
        if (a->w[i].key && !strcmp(a->w[i].key, key)) return i;
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A number cell: "%.*f", "-" when NaN. */
static void num(char *buf, size_t n, double x, int digits, int sign)
{
    if (isnan(x)) {
        snprintf(buf, n, "-");
        return;
    }
    if (fabs(x) < 0.5 * pow(10, -digits)) x = 0;    /* no "-0.0000" */
    snprintf(buf, n, sign ? "%+.*f" : "%.*f", digits, x);
}

static bl_table *make_table(const bl_compare *c, const bl_cmp_summary *s, int with_fd, const char *unit)
{
    const char *cols[16] = { "variant", "switches", "params", "steps", unit, "val", "dval", "beyond_gap" };
    int nc = 8;
    if (with_fd) cols[nc++] = "fd", cols[nc++] = "dfd", cols[nc++] = "fd_beyond_gap";
    cols[nc++] = "ms_step";
    cols[nc++] = "speed";
    cols[nc++] = "spikes";
    bl_table *t = bl_table_new(nc, cols);
    if (!t) return NULL;
    for (int i = 0; i < c->n; i++) {
        const bl_cmp_row *w = &s->row[i];
        const bl_cmp_run *r = &c->r[i];
        char cell[16][64], *p[16];
        int k = 0;
        snprintf(cell[k++], 64, "%s", r->name);
        snprintf(cell[k++], 64, "%s%s", r->noise_floor ? "seed+1 " : "", *r->spec ? r->spec : "-");
        snprintf(cell[k++], 64, "%zu", w->params);
        snprintf(cell[k++], 64, "%d%s", w->steps, r->failed ? " (failed)" : "");
        snprintf(cell[k++], 64, "%lld", r->run ? r->run->metrics.items : 0LL);
        num(cell[k++], 64, w->val, 4, 0);
        num(cell[k++], 64, i ? w->delta : NAN, 4, 1);
        snprintf(cell[k++], 64, "%s", w->exceeds ? "*" : "");
        if (with_fd) {
            num(cell[k++], 64, w->fd, 2, 0);
            num(cell[k++], 64, i ? w->fd_delta : NAN, 2, 1);
            snprintf(cell[k++], 64, "%s", w->fd_exceeds ? "*" : "");
        }
        num(cell[k++], 64, w->ms_per_step, 1, 0);
        num(cell[k++], 64, w->speed, 2, 0);
        snprintf(cell[k++], 64, "%d", w->spikes);
        for (int j = 0; j < k; j++) p[j] = cell[j];
        if (bl_table_add(t, (const char *const *)p) < 0) {
            bl_table_free(t);
            return NULL;
        }
    }
    char title[512], g[32], fg[32];
    num(g, sizeof g, s->gap, 4, 0);
    num(fg, sizeof fg, s->fd_gap, 2, 0);
    snprintf(title, sizeof title, "compare: %d step%s; seed gap |val(%s) - val(seed2)| = %s%s%s; "
             "* = difference from %s beyond the gap", c->done, c->done == 1 ? "" : "s", c->r[0].name, g, with_fd ? ", fd gap " : "",
             with_fd ? fg : "", c->r[0].name);
    t->title = strdup(title);
    return t;
}

/* cmp_NAME = a run value holding run i's metrics (through the train state's run snapshot). */
static int bind_run(bl_session *s, bl_cmp_run *r)
{
    bl_train_state *ts = bl_train_get(r->model);
    if (!ts) return -1;
    ts->run = r->run;
    bl_value *v = bl_train_run_value(r->model, "compare");
    ts->run = NULL;
    bl_train_forget(r->model);
    if (!v) return -1;
    char name[64];
    snprintf(name, sizeof name, "cmp_%s", r->name);
    int rc = bl_session_set(s, name, v);
    bl_val_unref(v);
    return rc;
}

/* done0: the rounds done before this call (a resumed comparison's), not timed by t0 */
static void progress(bl_session *s, const bl_compare *c, double t0, int done0, int final, bl_status_line *bar)
{
    double dt = now_s() - t0;
    struct winsize ws;
    int cols = ioctl(fileno(s->out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    if (!final) {
        double eta = c->done > done0 ? dt / (c->done - done0) * (c->steps - c->done) : -1;
        char dur[24], line[160];   /* m:ss or h:mm:ss as train and dash write it; "?" before the first round */
        snprintf(line, sizeof line, "compare: step %d/%d of %d runs  %.1f s  ETA %s", c->done, c->steps, c->n, dt,
                 bl_fmt_duration(dur, sizeof dur, eta));
        bl_status_draw(bar, s->out, cols, line);
    } else {
        bl_status_draw(bar, s->out, cols, "");
    }
    bl_interrupt_echo_overwritten();    /* a ^C the terminal echoed on the progress line */
    fflush(s->out);
}

typedef struct {
    long steps, n, probe_steps, every;
    int fd;
    const char *dir;
    char dirbuf[64];
} options;

static int read_options(bl_cmdargs *a, int from, const bl_model *m, options *o)
{
    int i;
    o->steps = m->cfg.steps;
    o->n = 500;
    o->probe_steps = 0;
    o->every = 0;
    o->fd = bl_kind_of(m->kind)->fd;
    o->dir = NULL;
    if ((i = opt_word(a, from, "steps")) >= 0 && bl_word_int(a, i, 1, 100000000, &o->steps) < 0) return -1;
    if ((i = opt_word(a, from, "n")) >= 0 && bl_word_int(a, i, 2, 100000, &o->n) < 0) return -1;
    if ((i = opt_word(a, from, "probe_steps")) >= 0 && bl_word_int(a, i, 1, 100000000, &o->probe_steps) < 0)
        return -1;
    if ((i = opt_word(a, from, "every")) >= 0 && bl_word_int(a, i, 0, 100000000, &o->every) < 0) return -1;
    if ((i = opt_word(a, from, "fd")) >= 0) {
        /* on/off, or a variable holding a bool or number (scripts pick the size at the top) */
        const bl_value *v = bl_session_get(a->s, a->w[i].text);
        if (v && (v->kind == BL_V_BOOL || v->kind == BL_V_NUM)) o->fd = v->num != 0;
        else if (bl_word_bool(a, i, &o->fd) < 0) return -1;
        if (o->fd && !bl_kind_of(m->kind)->fd) {
            bl_fail("compare: fd=on needs a TinyDiT (probe-FD measures images)");
            return bl_session_errat(a->s, a->w[i].pos);
        }
    }
    if ((i = opt_word(a, from, "dir")) >= 0) o->dir = a->w[i].text;
    if (!o->dir) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(o->dirbuf, sizeof o->dirbuf, "compare-%Y%m%d-%H%M%S", &tm);
        o->dir = o->dirbuf;
    }
    return 0;
}

/* The probe for probe-FD (trained or loaded from the cache; announced). NULL + error. */
static bl_probe *get_probe(bl_session *s, const bl_dataset *ds, const options *o)
{
    bl_probe_opts po;
    bl_probe_opts_default(&po);
    if (o->probe_steps > 0) po.steps = (int)o->probe_steps;
    po.interrupted = bl_interrupted;
    bl_probe *p = bl_probe_get(ds, &po);
    if (!p) {
        bl_error_prefix("compare");
        return NULL;
    }
    fprintf(s->out, "compare: %s\n", p->note);     /* "probe: loaded PATH" / "probe: trained ..." */
    return p;
}

/* Ctrl-C during compare: the first stops training after the current round (whose exams run to
 * the end, so that every run stops at the same step), then the runs are measured; a Ctrl-C during
 * the measuring (the second, or the first when training had ended) skips the rest of it, and the
 * table shows - for what was not measured. skip_at is the Ctrl-C count that skips. */
static int skip_at;

static int measuring_interrupted(void)
{
    bl_dist_compare_beat();     /* under MPI: rank 0 hears that this rank still measures */
    return bl_interrupt_count() >= skip_at;
}

static int cmd_compare(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    const char *names[BL_CMP_MAX], *specs[BL_CMP_MAX];
    int nv = 0, word[BL_CMP_MAX];
    for (int i = used; i < a->n; i++) {
        const bl_word *w = &a->w[i];
        if (is_opt(w)) continue;
        if (nv == BL_CMP_MAX - 1) {
            bl_fail("compare: at most %d variants (the seed + 1 run makes %d)", BL_CMP_MAX - 1, BL_CMP_MAX);
            return bl_session_errat(a->s, w->pos);
        }
        word[nv] = i;
        names[nv] = w->key ? w->key : w->text;
        specs[nv++] = w->key ? w->text : "";
    }
    if (nv == 0) {
        const char *v = bl_config_value("norm", 1);
        bl_fail("compare: which variants? (compare baseline %s=norm:%s ...)", v, v);
        return bl_session_errat(a->s, a->st->pos);
    }
    options o;
    if (read_options(a, used, m, &o) < 0) return -1;
    /* every variant (names, keys, values, and whether it can train on the data) before anything
     * is attached, loaded or trained; an error points at the variant's word */
    int bad, in_spec;
    if (bl_compare_check(&m->cfg, nv, names, specs, (int)o.steps, &bad, &in_spec) < 0)
        return bl_session_errat(a->s, bad < 0 ? a->st->pos : in_spec ? a->w[word[bad]].vpos : a->w[word[bad]].pos);
    bl_train_state *ts = bl_train_find(m);
    const bl_dataset *ds = ts ? ts->data : NULL;
    bl_dataset *deflt = NULL;
    bl_config base = m->cfg;
    if (!ds) {  /* the default data, opened but attached only when every variant can use it */
        if (!(deflt = bl_train_open_default(m, "compare"))) return bl_session_errat(a->s, a->st->pos);
        if (bl_kind_of(m->kind)->text && deflt->kind == BL_DATA_TEXT) base.vocab = deflt->vocab_size;  /* as attaching fits it */
        ds = deflt;
    }
    if (bl_compare_check_data(&base, ds, ts ? ts->exam_n : 0, nv, names, specs, (int)o.steps, &bad) < 0) {
        bl_dataset_free(deflt);
        return bl_session_errat(a->s, *specs[bad] ? a->w[word[bad]].vpos : a->w[word[bad]].pos);
    }
    /* the folder last among the checks (made only when all the others passed), and before the
     * data is attached or the probe trained */
    if (bl_compare_make_dir(o.dir, nv, names) < 0) {
        bl_dataset_free(deflt);
        int i = opt_word(a, used, "dir");
        return bl_session_errat(a->s, i >= 0 ? a->w[i].vpos : a->st->pos);
    }
    if (deflt && !(ds = bl_train_attach_default(a->s, m, deflt, "compare"))) return bl_session_errat(a->s, a->st->pos);
    ts = bl_train_find(m);
    bl_probe *probe = NULL;
    if (o.fd && !(probe = get_probe(a->s, ds, &o))) return bl_session_errat(a->s, a->st->pos);
    bl_compare *c = bl_compare_new(&m->cfg, ds, ts ? ts->exam_n : 0, nv, names, specs, (int)o.steps);
    if (!c) {
        bl_probe_free(probe);
        return bl_session_errat(a->s, a->st->pos);
    }
    /* runs saved in the folder by an earlier, stopped compare continue where they stopped */
    int resumed;
    if (bl_compare_resume(c, o.dir, &resumed) < 0) {
        bl_compare_free(c);
        bl_probe_free(probe);
        return bl_session_errat(a->s, a->st->pos);
    }
    if (resumed)
        fprintf(a->s->out, "compare: resumed %d of %d runs from %s at step %d of %d\n", resumed, c->n, o.dir,
                c->done, c->steps);
    /* under MPI every rank trains its share of the runs (src/dist) */
    bl_dist_compare_begin(c);
    /* the folder first (metrics so far, replaced at the end), so a bad dir= fails before training */
    if (bl_compare_write(c, o.dir) < 0) {
        bl_compare_free(c);
        bl_probe_free(probe);
        int i = opt_word(a, used, "dir");
        return bl_session_errat(a->s, i >= 0 ? a->w[i].vpos : a->st->pos);
    }
    int tty = a->s->out == stdout && bl_is_terminal(fileno(stdout));
    double t0 = now_s(), last = 0;
    int done0 = c->done;
    int live = 0;
    for (int i = 0; i < c->n; i++) live += !c->r[i].remote;
    int saved = 0;      /* -1: a checkpoint could not be written (training stops) */
    bl_status_line bar = {0};
    /* under MPI every rank takes every round (also one whose runs all failed, or with none),
     * so that all agree on the step where a Ctrl-C on any of them stops the comparison */
    while (c->done < c->steps) {
        int stop = bl_dist_compare_poll(c, bl_interrupted(), live);
        if (stop == 1) bl_interrupt_raise();   /* another rank's Ctrl-C stops this one as its own would */
        if (stop) break;
        live = bl_compare_round(c);
        if (o.every && (c->done % o.every == 0 || c->done == c->steps) && bl_dist_compare_save(c, o.dir) < 0) {
            saved = -1;
            break;
        }
        if (tty && (now_s() - last > 0.2 || c->done == c->steps)) {
            progress(a->s, c, t0, done0, 0, &bar);
            last = now_s();
        } else if (!tty && c->done < c->steps && now_s() - (last ? last : t0) >= BL_PLAIN_PROGRESS_S) {
            /* a log: now and then a plain line, never a bar redrawn with carriage returns */
            double dt = now_s() - t0, eta = dt / (c->done - done0) * (c->steps - c->done);
            char dur[24];
            fprintf(a->s->out, "compare: step %d/%d of %d runs  %.0f s  ETA %s\n", c->done, c->steps, c->n, dt,
                    bl_fmt_duration(dur, sizeof dur, eta));
            fflush(a->s->out);
            last = now_s();
        }
    }
    if (tty) progress(a->s, c, t0, done0, 1, &bar);
    /* a stop between checkpoints: save where it stopped, so the next compare resumes there */
    if (saved == 0 && o.every && c->done % o.every && bl_dist_compare_save(c, o.dir) < 0) saved = -1;
    if (saved < 0) {
        bl_compare_free(c);
        bl_probe_free(probe);
        return bl_session_errat(a->s, a->st->pos);
    }
    int stopped = bl_interrupted();
    if (stopped) bl_interrupt_newline(a->s->out);
    if (stopped)
        fprintf(a->s->out, "compare: interrupted after %d of %d steps; %s\n", c->done, c->steps,
                c->done ? "measuring the runs (Ctrl-C again skips that)" : "nothing to measure");
    for (int i = 0; i < c->n; i++)
        if (c->r[i].failed) fprintf(a->s->out, "compare: %s stopped: %s\n", c->r[i].name, c->r[i].error);
    skip_at = stopped ? 2 : 1;
    for (int i = 0; i < c->n; i++) c->r[i].model->interrupted = measuring_interrupted;
    int rc = bl_compare_finish(c, probe, (int)o.n);
    if (rc < 0 && measuring_interrupted()) {
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "compare: measuring skipped (Ctrl-C): - marks what was not measured\n");
        bl_clear_error();
        rc = 0;
        stopped = 1;
    }
    /* under MPI: every rank's runs to every rank, the table from rank 0 */
    if (bl_dist_compare_gather(c, a->s->out) < 0) rc = -1;
    if (stopped) bl_interrupt_reported(a->s);
    bl_probe_free(probe);
    bl_cmp_summary sum;
    bl_compare_summary(c, &sum);
    bl_table *t = make_table(c, &sum, o.fd, bl_kind_of(m->kind)->unit);
    if (rc == 0 && bl_dist_writer() && bl_compare_write(c, o.dir) < 0) rc = -1;
    for (int i = 0; rc == 0 && i < c->n; i++)
        if (bind_run(a->s, &c->r[i]) < 0) rc = -1;
    if (rc == 0)
        fprintf(a->s->out, "compare: %d runs, metrics in %s/NAME/metrics.json, curves: plot loss cmp_%s ...\n",
                c->n, o.dir, c->r[0].name);
    bl_compare_free(c);
    if (!t) return rc < 0 ? bl_session_errat(a->s, a->st->pos) : bl_fail("compare: out of memory");
    a->result = bl_val_table(t);
    /* the table also stays as cmp_table (scripts write it to files and print it later) */
    if (a->result && bl_session_set(a->s, "cmp_table", a->result) < 0) rc = -1;
    if (rc < 0) {
        /* show what was measured, then the error */
        if (a->result) bl_val_print(a->result, a->s->out);
        return bl_session_errat(a->s, a->st->pos);
    }
    return a->result ? 0 : -1;
}

static int complete_compare(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    (void)s, (void)argi, (void)words;
    static const char *const cands[] = { "baseline", "steps=", "fd=", "n=", "probe_steps=", "dir=", "every=", NULL };
    bl_complete_from(cands, prefix, out);
    /* a variant per switch value that is no kind's default, named after the value ("rmsnorm=
     * norm:rmsnorm") or, for on, after the key ("qknorm=qk_norm:on"): from the key table */
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        char v[32], name[32], word[96];
        for (int j = 0; bl_config_key_in(k, BL_KEYS_CHOICES) && bl_config_choice_at(k, j, v, sizeof v); j++) {
            if ((k->def_dit && !strcmp(v, k->def_dit)) || (k->def_gpt && !strcmp(v, k->def_gpt))) continue;
            size_t o = 0;
            for (const char *c = strcmp(v, "on") ? v : k->name; *c && o + 1 < sizeof name; c++)
                if (*c != '_') name[o++] = *c;
            name[o] = 0;
            snprintf(word, sizeof word, "%s=%s:%s", name, k->name, v);
            if (!strncmp(word, prefix, strlen(prefix))) bl_strlist_add(out, word);
        }
    }
    return 0;
}

static const char help[] =
    "Fair ablation: variants trained side by side.\n"
    "VARIANT is NAME (the model as it is) or NAME=KEY:VALUE[,KEY:VALUE...] (each key once),\n"
    "e.g.\n"
    "  compare baseline {norm:1}=norm:{norm:1} rope=pos:{pos:2} all=norm:{norm:1},pos:{pos:2}\n"
    "Every run has the model's seed (same data order, noise, t and shared initial weights),\n"
    "so seed and steps are refused as a variant's KEY; every variant (name, keys, values,\n"
    "fit to the data) and the folder dir= are checked before anything is attached,\n"
    "loaded or trained;\n"
    "one more run, `seed2`, repeats the first variant with seed + 1: the table's gap is\n"
    "|val(first) - val(seed2)| and `*` marks a difference from the first beyond it.\n"
    "Steps go round-robin (one step of each run in turn) so machine load hits all alike.\n"
    "steps= defaults to the model's steps key; eval_every applies to every run; the exam is\n"
    "the model's (data exam=N). fd=on (TinyDiT default) adds probe-FD of n=500 samples\n"
    "(probe_steps= trains the probe shorter). The runs' metrics become cmp_NAME (plot loss\n"
    "cmp_baseline cmp_rope) and DIR/NAME/metrics.json (dir= default compare-DATE-TIME);\n"
    "the table stays as cmp_table.\n"
    "Ctrl-C stops after the current round, then measures the runs (val, fd) and tabulates\n"
    "the steps done; Ctrl-C again skips the measuring (- where it was not done).\n"
    "every=N saves every run to DIR/NAME/checkpoint.safetensors every N steps (and where\n"
    "Ctrl-C stopped it); the same compare with the same dir= resumes the saved runs where\n"
    "they stopped, with the numbers of an uninterrupted comparison (a folder holding another\n"
    "comparison's runs is refused, naming the key that differs).\n"
    "Under MPI (mpirun -np N blocklab -f ...) run i trains on rank i mod N and rank 0\n"
    "prints the one table (equal to one process's); ranks save their own runs (every=N:\n"
    "dir= on a shared folder); kill -USR1 on mpirun is Ctrl-C; a dead rank's runs are\n"
    "reported lost after BLOCKLAB_MPI_TIMEOUT s (README: Several machines).";

const bl_command bl_cmd_compare_entry = {
    .name = "compare",
    .synopsis = "compare [MODEL] VARIANT... [steps=N] [fd=on|off] [n=N] [every=N] [dir=PATH]",
    .help = help,
    .complete = complete_compare,
    .run = cmd_compare,
    .flags = BL_WRITES_TABLE,
};
