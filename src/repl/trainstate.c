/* trainstate.c - the training state each model carries (data, run, vocab, a checkpoint's run to
 * continue), see trainstate.h. */
#include "repl/trainstate.h"
#include "core/fmt.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bl_train_state *states;     /* one list for the process: keyed by the model pointer */

bl_train_state *bl_train_find(const bl_model *m)
{
    for (bl_train_state *t = states; t; t = t->next)
        if (t->m == m) return t;
    return NULL;
}

bl_train_state *bl_train_get(const bl_model *m)
{
    bl_train_state *t = bl_train_find(m);
    if (t) return t;
    if (!(t = calloc(1, sizeof *t))) return BL_FAILP("train: out of memory");
    t->m = m;
    t->next = states;
    states = t;
    return t;
}

static void clear_pending(bl_train_state *t)
{
    if (t->has_pending) bl_ckpt_info_clear(&t->pending);
    t->has_pending = 0;
    if (t->pending_hist) bl_metrics_free(t->pending_hist);
    free(t->pending_hist);
    t->pending_hist = NULL;
}

int bl_train_set_pending(bl_train_state *t, bl_ckpt_info *info)
{
    clear_pending(t);
    t->pending = *info;
    t->has_pending = 1;
    info->history = NULL;       /* taken: the rest of info stays for the caller to read */
    if (!t->pending.history) return 0;
    /* the history as metrics once, for show, m.run and plot loss (load checked it) */
    const bl_model *m = t->m;
    if (!(t->pending_hist = calloc(1, sizeof *t->pending_hist))) {
        clear_pending(t);
        return bl_fail("load: out of memory");
    }
    bl_metrics_init(t->pending_hist, bl_model_param_count(m), bl_kind_of(m->kind)->unit);
    if (bl_metrics_from_json(t->pending_hist, t->pending.history) < 0) {
        clear_pending(t);
        return -1;
    }
    return 0;
}

const bl_metrics *bl_train_metrics(const bl_model *m)
{
    const bl_train_state *t = bl_train_find(m);
    if (!t) return NULL;
    if (t->run) return &t->run->metrics;
    return t->has_pending ? t->pending_hist : NULL;
}

/* "text t.txt", "shapes built in": the data set a pending checkpoint run was on. */
const char *bl_train_pending_data(const bl_train_state *t, char *buf, size_t n)
{
    const bl_ckpt_info *p = &t->pending;
    snprintf(buf, n, "%s%s%s", p->data_name, p->data_source[0] ? " " : "", p->data_source);
    return buf;
}

void bl_train_forget(const bl_model *m)
{
    for (bl_train_state **p = &states; *p; p = &(*p)->next)
        if ((*p)->m == m) {
            bl_train_state *t = *p;
            *p = t->next;
            bl_run_free(t->run);
            bl_dataset_free(t->data);
            clear_pending(t);
            bl_graph_free(t->lab_graph);
            free(t);
            return;
        }
}

void bl_train_discard_run(const bl_model *m, FILE *out)
{
    bl_train_state *t = bl_train_find(m);
    if (!t) return;
    if (t->run && bl_run_steps(t->run) > 0 && out)
        fprintf(out, "  (the training run of %d step%s is discarded: the weights start again)\n",
                bl_run_steps(t->run), BL_PLURAL(bl_run_steps(t->run)));
    bl_run_free(t->run);
    t->run = NULL;
    clear_pending(t);
    t->from_checkpoint = 0;
    t->edited = 0;
    t->lab_opt.step = 0;    /* step(m)'s count: the new weights' moments start at zero */
}

int bl_train_exam_interrupted(void) { return !strncmp(bl_error(), "eval: interrupted", 17); }

/* Refuse data of the wrong kind for m: TinyDiT trains on images, TinyGPT on text. */
int bl_train_check_kind(const bl_model *m, int is_text, const char *cmd)
{
    const bl_kind *k = bl_kind_of(m->kind);
    if (!k->text == !is_text) return 0;
    return bl_fail("%s: %s needs %s", cmd, k->title, k->text ? "a text, not images (data text [FILE])"
                   : "images, not text (shapes, cifar10, mnist, fashion-mnist, images)");
}

/* Can GPT model m take the vocab of text ds? Not by a rebuild when its weights were loaded. */
static int vocab_fits(const bl_model *m, const bl_train_state *t, const bl_dataset *ds, const char *cmd)
{
    if (!bl_kind_of(m->kind)->text || ds->kind != BL_DATA_TEXT || m->cfg.vocab == ds->vocab_size) return 0;
    if (t->from_checkpoint)
        return bl_fail("%s: the text has %d distinct bytes but the loaded model's vocab is %d "
                       "(rebuilding would lose its weights)", cmd, ds->vocab_size, m->cfg.vocab);
    if (t->edited)
        return bl_fail("%s: the text has %d distinct bytes but the model's vocab is %d, and step/set_param "
                       "changed its weights: rebuilding would lose them (make it with vocab=%d, or attach "
                       "the data with `data text` before changing the weights)", cmd, ds->vocab_size,
                       m->cfg.vocab, ds->vocab_size);
    return 0;
}

/* Make the vocab of GPT model m that of text ds (vocab_fits said it may): rebuild when it differs. */
static int fit_vocab(bl_session *s, bl_model *m, bl_train_state *t, const bl_dataset *ds, const char *cmd)
{
    if (!bl_kind_of(m->kind)->text || ds->kind != BL_DATA_TEXT) return 0;
    if (m->cfg.vocab != ds->vocab_size) {
        bl_config cfg = m->cfg;
        cfg.vocab = ds->vocab_size;
        int had = t->run != NULL;
        if (bl_model_rebuild(m, &cfg) < 0) {
            bl_error_as(cmd, "train");
            return -1;
        }
        fprintf(s->out, "vocab = %d (the text's distinct bytes): rebuilt, %zu parameters\n", ds->vocab_size,
                bl_model_param_count(m));
        if (had) bl_train_discard_run(m, s->out);
    }
    t->vocab_size = ds->vocab_size;
    memcpy(t->vocab, ds->vocab, sizeof t->vocab);
    return 0;
}

/* Attach ds (taking it) to m, saying so first with its description after prefix (then what it
 * changes: the vocab rebuilt, the run ended): a new dataset ends the old run. */
int bl_train_attach(bl_session *s, bl_model *m, bl_train_state *t, bl_dataset *ds, const char *cmd, const char *prefix)
{
    char d[1200];
    if (vocab_fits(m, t, ds, cmd) < 0) {
        bl_dataset_free(ds);
        return -1;
    }
    fprintf(s->out, "%s%s\n", prefix, bl_dataset_describe(ds, d, sizeof d));
    if (fit_vocab(s, m, t, ds, cmd) < 0) {
        bl_dataset_free(ds);
        return -1;
    }
    if (t->run) {
        fprintf(s->out, "  (new data: the run ends at step %d; training starts a new one from these weights)\n",
                bl_run_steps(t->run));
        bl_run_free(t->run);
        t->run = NULL;
        /* and a new optimizer: the old run's moments would skew the new run's first steps (and a
         * save before its first step would write moments that load refuses at step 0) */
        bl_params_zero_moments(m->params);
    }
    bl_dataset_free(t->data);
    t->data = ds;
    return 0;
}

bl_dataset *bl_train_open_default(const bl_model *m, const char *cmd)
{
    bl_dataset *ds = bl_data_open(bl_kind_of(m->kind)->data, NULL, m->cfg.seed);
    if (!ds) bl_error_as(cmd, "train");
    return ds;
}

const bl_dataset *bl_train_attach_default(bl_session *s, bl_model *m, bl_dataset *ds, const char *cmd)
{
    bl_train_state *t = bl_train_get(m);
    if (!t) {
        bl_dataset_free(ds);
        return NULL;
    }
    if (bl_train_attach(s, m, t, ds, cmd, "data ") < 0) return NULL;
    return t->data;
}

const bl_dataset *bl_train_data(bl_session *s, bl_model *m, const char *cmd)
{
    bl_train_state *t = bl_train_get(m);
    if (!t) return NULL;
    if (t->data) return t->data;
    bl_dataset *ds = bl_train_open_default(m, cmd);
    return ds ? bl_train_attach_default(s, m, ds, cmd) : NULL;
}

/* Make a run of m on t->data, continuing `old` (its step, history and data position) when given. */
static bl_run *new_run(bl_model *m, bl_train_state *t, const char *cmd)
{
    bl_run *r = bl_run_new(m, t->data, t->exam_n);
    if (!r) {
        bl_error_as(cmd, "train");
        return NULL;
    }
    if (t->has_pending) {
        if (bl_run_restore(r, &t->pending) < 0) {
            bl_error_as(cmd, "train");
            bl_run_free(r);
            return NULL;
        }
        clear_pending(t);
    }
    return r;
}

bl_run *bl_train_run(bl_session *s, bl_model *m, const char *cmd)
{
    if (!bl_train_data(s, m, cmd)) return NULL;
    bl_train_state *t = bl_train_get(m);
    if (!t->run) return t->run = new_run(m, t, cmd);
    bl_run *r = t->run;
    if (r->B != m->cfg.batch) {
        /* the step buffers have the old batch size: a new run that takes over the old one */
        bl_run *n = new_run(m, t, cmd);
        if (!n) return NULL;
        n->opt.step = r->opt.step;
        bl_metrics tmp = n->metrics;
        n->metrics = r->metrics;
        r->metrics = tmp;
        bl_batcher_seek(&n->batcher, r->batcher.drawn);
        n->last_val = r->last_val;
        fprintf(s->out, "batch %d -> %d: the run goes on at step %d\n", r->B, n->B, bl_run_steps(n));
        bl_run_free(r);
        t->run = r = n;
    }
    bl_run_sync_config(r);
    return r;
}

void bl_train_show(const bl_model *m, FILE *out)
{
    const bl_train_state *t = bl_train_find(m);
    char d[1200];
    int pending = t && !t->run && t->has_pending;
    if (t && t->data) fprintf(out, "  %-9s %s\n", "data", bl_dataset_describe(t->data, d, sizeof d));
    else if (pending && t->pending.data_name[0])
        fprintf(out, "  %-9s none attached (the checkpoint's run was on %s)\n", "data", bl_train_pending_data(t, d, sizeof d));
    else fprintf(out, "  %-9s none attached (training uses %s)\n", "data",
                 bl_kind_of(m->kind)->data_title);
    const bl_run *r = t ? t->run : NULL;
    const bl_metrics *mt = bl_train_metrics(m);
    if (r || pending) {
        int step = r ? bl_run_steps(r) : (int)t->pending.step;
        if (r) fprintf(out, "  %-9s step %d, AdamW lr %g", "run", step, (double)r->opt.lr);
        else fprintf(out, "  %-9s step %d from a checkpoint", "run", step);
        /* losses with 4 decimals, as train and eval print them */
        if (mt && mt->steps) bl_fprintf(out, ", loss %.4f", mt->loss[mt->steps - 1]);
        char val[64] = "";
        if (mt) bl_train_val_text(val, sizeof val, mt, step);   /* "  val V[ @STEP]" */
        if (val[0]) fprintf(out, ",%s", val + 1);
        if (pending) fprintf(out, t->data ? " (train continues it)" : " (data KIND [PATH] to continue)");
        fprintf(out, "\n");
    } else {
        fprintf(out, "  %-9s not trained yet\n", "run");
    }
}
