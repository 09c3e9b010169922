/* trainer.c - training steps, the fixed exam, the training loop (see trainer.h). */
#include "train/trainer.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The exam's streams are fixed for every model, whatever its seed. */
#define BL_EXAM_SEED 20240229u
#define BL_EVAL_CHUNK 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void bl_adamw_from_config(bl_adamw *o, const bl_config *c)
{
    long step = o->step;
    bl_adamw_defaults(o);
    o->lr = c->lr;
    o->beta1 = c->beta1;
    o->beta2 = c->beta2;
    o->warmup = c->warmup;
    o->cosine = c->cosine;
    o->total = c->steps;
    o->clip = c->clip;
    o->weight_decay = c->weight_decay;
    o->step = step;
}

void bl_run_sync_config(bl_run *r) { bl_adamw_from_config(&r->opt, &r->model->cfg); }

unsigned char *bl_decay_mask(const bl_params *p)
{
    unsigned char *d = calloc(p->total, 1);
    if (!d) { bl_fail("train: out of memory"); return NULL; }
    for (int i = 0; i < p->n; i++)   /* weight decay on matrices only (nanoGPT configure_optimizers) */
        if (p->t[i].ndim >= 2) memset(d + p->info[i].offset, 1, p->t[i].numel);
    return d;
}

/* ---- what differs by kind: fit, exam, batch and loss (the table run_kinds below) ---- */

static int dit_check_fit(const bl_config *c, const bl_dataset *ds)
{
    if (ds->kind != BL_DATA_IMAGES)
        return bl_fail("train: TinyDiT needs images, but the data is %s (try `data shapes`)", ds->name);
    if (ds->C != c->channels || ds->H != c->image_size || ds->W != c->image_size) {
        /* the set to suggest must itself be accepted: a patch that divides the new size too
         * (the largest below the model's, so the token grid stays as coarse as it was) */
        char patch[32] = "";
        if (ds->H % c->patch) {
            int p = c->patch;
            while (p > 1 && ds->H % p) p--;
            snprintf(patch, sizeof patch, " patch=%d", p);
        }
        return bl_fail("train: the data has %dx%dx%d images but the model expects %dx%dx%d "
                       "(set channels=%d image_size=%d%s)", ds->C, ds->H, ds->W, c->channels,
                       c->image_size, c->image_size, ds->C, ds->H, patch);
    }
    return 0;
}

static int gpt_check_fit(const bl_config *c, const bl_dataset *ds)
{
    if (ds->kind != BL_DATA_TEXT)
        return bl_fail("train: TinyGPT needs text, but the data is %s (try `data text FILE`)", ds->name);
    if (ds->vocab_size != c->vocab)
        return bl_fail("train: the text has a vocabulary of %d distinct bytes but the model has vocab %d "
                       "(set vocab=%d)", ds->vocab_size, c->vocab, ds->vocab_size);
    return bl_text_check_context(ds, c->context);
}

/* The exam's size for val_n (0: the default): TinyDiT held-out images (at most 2000 by default),
 * TinyGPT validation windows (64). -1 + error when ds holds too few. */
static int gpt_exam_size(const bl_dataset *ds, int val_n)
{
    (void)ds;
    return val_n > 0 ? val_n : 64;
}

static int dit_exam_size(const bl_dataset *ds, int val_n)
{
    size_t avail = ds->n_val;
    if (val_n <= 0) val_n = avail < 2000 ? (int)avail : 2000;
    if (val_n < 1 || (size_t)val_n > avail)
        return bl_fail("train: the exam needs %d held-out images but %s has %zu", val_n, ds->name, avail);
    return val_n;
}

/* The exam's items (r->val_n of them, sized already). */
static int dit_make_exam(bl_run *r)
{
    const bl_dataset *ds = r->data;
    bl_rng rng;
    int shape[4] = {r->val_n, ds->C, ds->H, ds->W};
    r->val_x0 = bl_tensor_new(4, shape);
    r->val_noise = bl_tensor_new(4, shape);
    r->val_t = malloc((size_t)r->val_n * sizeof(float));
    if (!r->val_x0 || !r->val_noise || !r->val_t) return bl_fail("train: out of memory for the exam");
    if (bl_dataset_val_images(ds, 0, r->val_n, r->val_x0->data, NULL) < 0) return -1;
    bl_rng_named(&rng, BL_EXAM_SEED, "exam.noise");
    bl_rng_fill_normal(&rng, r->val_noise->data, r->val_noise->numel, 0.0f, 1.0f);
    bl_rng_named(&rng, BL_EXAM_SEED, "exam.t");
    bl_rng_fill_uniform(&rng, r->val_t, (size_t)r->val_n, 0.0f, 1.0f);
    return 0;
}

static int gpt_make_exam(bl_run *r)
{
    r->val_tokens = malloc((size_t)r->val_n * (size_t)(r->T + 1) * sizeof(int));
    if (!r->val_tokens) return bl_fail("train: out of memory for the exam");
    return bl_text_val_windows(r->data, r->val_n, r->T, r->val_tokens);
}

/* The buffers of one batch of r->B. */
static int dit_alloc_batch(bl_run *r)
{
    const bl_dataset *ds = r->data;
    int shape[4] = {r->B, ds->C, ds->H, ds->W};
    r->x0 = bl_tensor_new(4, shape);
    r->noise = bl_tensor_new(4, shape);
    r->t = malloc((size_t)r->B * sizeof(float));
    return r->x0 && r->noise && r->t ? 0 : bl_fail("train: out of memory for a batch of %d", r->B);
}

static int gpt_alloc_batch(bl_run *r)
{
    r->tokens = malloc((size_t)r->B * (size_t)(r->T + 1) * sizeof(int));
    return r->tokens ? 0 : bl_fail("train: out of memory for a batch of %d", r->B);
}

/* The batch loss of the current step, tape recorded. */
static bl_tensor *dit_batch_loss(bl_run *r)
{
    bl_model *m = r->model;
    uint64_t step = (uint64_t)r->opt.step, seed = m->cfg.seed;
    bl_rng rng;
    if (bl_batch_images(&r->batcher, r->B, r->x0->data, NULL) < 0) return NULL;
    bl_rng_init(&rng, seed ^ bl_hash_str("noise"), step);
    bl_rng_fill_normal(&rng, r->noise->data, r->noise->numel, 0.0f, 1.0f);
    bl_rng_init(&rng, seed ^ bl_hash_str("t"), step);
    bl_rng_fill_uniform(&rng, r->t, (size_t)r->B, 0.0f, 1.0f);
    if (!r->shard_n) return bl_dit_loss(m, r->x0, r->noise, r->t, 1);
    /* data-parallel: this rank's rows of the batch */
    size_t img = r->x0->numel / (size_t)r->B;
    bl_tensor x0 = *r->x0, e = *r->noise;
    x0.data += (size_t)r->shard_lo * img;
    e.data += (size_t)r->shard_lo * img;
    x0.shape[0] = e.shape[0] = r->shard_n;
    x0.numel = e.numel = (size_t)r->shard_n * img;
    return bl_dit_loss(m, &x0, &e, r->t + r->shard_lo, 1);
}

static bl_tensor *gpt_batch_loss(bl_run *r)
{
    if (bl_batch_text(&r->batcher, r->B, r->T, r->tokens) < 0) return NULL;
    if (r->shard_n)   /* data-parallel: this rank's rows of the batch */
        return bl_gpt_loss(r->model, r->tokens + (size_t)r->shard_lo * (size_t)(r->T + 1), r->shard_n, r->T, 1);
    return bl_gpt_loss(r->model, r->tokens, r->B, r->T, 1);
}

/* The mean loss of exam items done .. done + n - 1, not recorded. */
static bl_tensor *dit_exam_loss(bl_run *r, int done, int n)
{
    size_t img = r->val_x0->numel / (size_t)r->val_n;
    int shape[4] = {n, r->val_x0->shape[1], r->val_x0->shape[2], r->val_x0->shape[3]};
    bl_tensor x0 = {.data = r->val_x0->data + (size_t)done * img, .ndim = 4, .numel = (size_t)n * img};
    bl_tensor e = {.data = r->val_noise->data + (size_t)done * img, .ndim = 4, .numel = (size_t)n * img};
    memcpy(x0.shape, shape, sizeof shape);
    memcpy(e.shape, shape, sizeof shape);
    return bl_dit_loss(r->model, &x0, &e, r->val_t + done, 0);
}

static bl_tensor *gpt_exam_loss(bl_run *r, int done, int n)
{
    r->model->lean = 1;   /* the exam reads the loss only: one block's activations at a time */
    bl_tensor *loss = bl_gpt_loss(r->model, r->val_tokens + (size_t)done * (size_t)(r->T + 1), n, r->T, 0);
    r->model->lean = 0;
    return loss;
}

/* The trainer's row of each kind (models/kind.h has the rest). */
static const struct run_kind {
    int (*check_fit)(const bl_config *c, const bl_dataset *ds);
    int (*exam_size)(const bl_dataset *ds, int val_n);
    int (*make_exam)(bl_run *r);
    int (*alloc_batch)(bl_run *r);
    bl_tensor *(*batch_loss)(bl_run *r);
    bl_tensor *(*exam_loss)(bl_run *r, int done, int n);
} run_kinds[] = {
    [BL_MODEL_DIT] = { dit_check_fit, dit_exam_size, dit_make_exam, dit_alloc_batch, dit_batch_loss, dit_exam_loss },
    [BL_MODEL_GPT] = { gpt_check_fit, gpt_exam_size, gpt_make_exam, gpt_alloc_batch, gpt_batch_loss, gpt_exam_loss },
};

static const struct run_kind *run_kind(const bl_config *c) { return &run_kinds[bl_kind_of(c->kind)->kind]; }

static int check_fit(const bl_config *c, const bl_dataset *ds) { return run_kind(c)->check_fit(c, ds); }

static void free_exam(bl_run *r)
{
    bl_tensor_free(r->val_x0);
    bl_tensor_free(r->val_noise);
    free(r->val_t);
    free(r->val_tokens);
    r->val_x0 = r->val_noise = NULL;
    r->val_t = NULL;
    r->val_tokens = NULL;
}

static int exam_size(const bl_config *c, const bl_dataset *ds, int val_n) { return run_kind(c)->exam_size(ds, val_n); }

/* The exam's items, made at the first exam (not in bl_run_new): a run that never sits one (a
 * compare run another MPI rank trains, a data-parallel rank > 0, eval_every=0 stopped early)
 * does not draw them. A failed attempt leaves nothing behind, so the next exam tries again. */
static int make_exam(bl_run *r)
{
    if (r->exam_made) return 0;
    if (run_kind(&r->model->cfg)->make_exam(r) < 0) {
        free_exam(r);
        return -1;
    }
    r->exam_made = 1;
    return 0;
}

int bl_run_check_data(const bl_model *m, const bl_dataset *ds, int val_n)
{
    /* data of the model's kind must fit it; data of the other kind fails later, when attached */
    int text = bl_kind_of(m->kind)->text;
    if (text && ds->kind == BL_DATA_TEXT && bl_text_check_context(ds, m->cfg.context) < 0) return -1;
    if (!text && ds->kind == BL_DATA_IMAGES && check_fit(&m->cfg, ds) < 0) return -1;
    return exam_size(&m->cfg, ds, val_n) < 0 ? -1 : 0;
}

int bl_run_check_config(const bl_config *c, const bl_dataset *ds, int val_n)
{
    return check_fit(c, ds) < 0 || exam_size(c, ds, val_n) < 0 ? -1 : 0;
}

bl_run *bl_run_new(bl_model *m, const bl_dataset *ds, int val_n)
{
    if (check_fit(&m->cfg, ds) < 0) return NULL;
    bl_run *r = calloc(1, sizeof *r);
    if (!r) return BL_FAILP("train: out of memory");
    const bl_config *c = &m->cfg;
    r->model = m;
    r->data = ds;
    r->B = c->batch;
    r->T = bl_kind_of(c->kind)->text ? c->context : 0;
    r->val_n = val_n;
    r->last_val = NAN;
    bl_run_sync_config(r);
    bl_metrics_init(&r->metrics, bl_model_param_count(m), bl_kind_of(c->kind)->unit);
    if (bl_params_alloc_moments(m->params) < 0 || bl_batcher_init(&r->batcher, ds, c->seed) < 0) goto fail;
    r->batcher_ok = 1;
    bl_params *p = m->params;
    if (!(r->decay = bl_decay_mask(p))) goto fail;
    if ((r->val_n = exam_size(c, ds, val_n)) < 0 || run_kind(c)->alloc_batch(r) < 0) goto fail;
    return r;
fail:
    bl_run_free(r);
    return NULL;
}

void bl_run_free(bl_run *r)
{
    if (!r) return;
    bl_metrics_free(&r->metrics);
    if (r->batcher_ok) bl_batcher_free(&r->batcher);
    bl_tensor_free(r->x0);
    bl_tensor_free(r->noise);
    free_exam(r);
    free(r->t);
    free(r->tokens);
    free(r->decay);
    free(r);
}

int bl_run_steps(const bl_run *r) { return (int)r->opt.step; }

long bl_run_exams_left(const bl_run *r, long goal)
{
    long every = r->model->cfg.eval_every, now = r->opt.step;
    return every > 0 && goal > now ? goal / every - now / every : 0;
}

/* The batch loss of the current step, tape recorded. */
static bl_tensor *batch_loss(bl_run *r)
{
    bl_model *m = r->model;
    m->dropout_step = (uint64_t)r->opt.step;  /* dropout masks keyed by the step (a resumed run draws the same) */
    return run_kind(&m->cfg)->batch_loss(r);
}

static int run_step(bl_run *r, float *loss_out, int *spike)
{
    bl_model *m = r->model;
    bl_params *p = m->params;
    int next = (int)r->opt.step + 1;
    double t0 = now_ms();
    uint64_t drawn = r->batcher.drawn;
    m->training = 1;
    bl_tensor *loss = batch_loss(r);
    m->training = 0;
    if (!loss) { bl_batcher_seek(&r->batcher, drawn); return -1; }
    float L = loss->data[0];
    /* data-parallel: every rank goes on to the reduction, which gives all the same loss */
    if (!isfinite(L) && !r->reduce) {
        bl_batcher_seek(&r->batcher, drawn);
        return bl_fail("train: loss is %s at step %d: stopped; the weights are those after step %d",
                       isnan(L) ? "nan" : "inf", next, next - 1);
    }
    bl_params_zero_grad(p);
    if (bl_graph_backward(m->graph, loss) < 0) {   /* the step is not taken: nor is its batch */
        bl_batcher_seek(&r->batcher, drawn);
        return -1;
    }
    if (r->reduce && (r->reduce(r, &L) < 0 || !isfinite(L))) {
        bl_batcher_seek(&r->batcher, drawn);
        if (isfinite(L)) return -1;
        return bl_fail("train: loss is %s at step %d: stopped; the weights are those after step %d",
                       isnan(L) ? "nan" : "inf", next, next - 1);
    }
    float lr = bl_adamw_lr(&r->opt);
    double norm = bl_adamw_step(&r->opt, p->values, p->grads, p->m, p->v, r->decay, p->total);
    m->version++;   /* new weights (models/model.h) */
    if (!isfinite(norm)) {
        bl_batcher_seek(&r->batcher, drawn);
        return bl_fail("train: gradient is %s at step %d: stopped; the weights are those after step %d",
                       isnan(norm) ? "nan" : "inf", next, next - 1);
    }
    long long items = (long long)r->B * bl_kind_unit_per_item(&m->cfg);
    int s = bl_metrics_step(&r->metrics, L, (float)(now_ms() - t0), lr, items);
    if (loss_out) *loss_out = L;
    if (spike) *spike = s > 0;
    return s < 0 ? -1 : 0;
}

int bl_run_step(bl_run *r, float *loss_out, int *spike)
{
    bl_signals_hold();   /* signals wait for the step's end (core/blas.h: oneDNN and signals) */
    int rc = run_step(r, loss_out, spike);
    bl_signals_release();
    return rc;
}

float bl_run_eval(bl_run *r)
{
    bl_model *m = r->model;
    double sum = 0, t0 = now_ms();
    int done = 0;
    if (make_exam(r) < 0) return NAN;
    while (done < r->val_n) {
        int n = r->val_n - done < BL_EVAL_CHUNK ? r->val_n - done : BL_EVAL_CHUNK;
        bl_tensor *loss = run_kind(&m->cfg)->exam_loss(r, done, n);
        if (!loss) return NAN;
        if (!isfinite(loss->data[0])) {   /* NAN is also this function's failure: say why */
            bl_fail("eval: loss is %s on exam %s %d to %d at step %d (the forward overflows: weights too large?)",
                    isnan(loss->data[0]) ? "nan" : "inf", bl_kind_of(m->kind)->item,
                    done, done + n - 1, bl_run_steps(r));
            return NAN;
        }
        sum += (double)loss->data[0] * n;
        done += n;
        if (done < r->val_n && m->interrupted && m->interrupted()) {
            bl_fail("eval: interrupted after %d of %d exam %s", done, r->val_n,
                    bl_kind_of(m->kind)->item);
            return NAN;
        }
    }
    r->last_val = (float)(sum / r->val_n);
    r->eval_ms = now_ms() - t0;
    if (bl_metrics_val(&r->metrics, bl_run_steps(r), r->last_val) < 0) return NAN;
    return r->last_val;
}

int bl_run_train(bl_run *r, int n, bl_train_cb cb, void *ctx)
{
    if (n < 0) return bl_fail("train: the number of steps must be positive, got %d", n);
    int every = r->model->cfg.eval_every;
    if (bl_metrics_reserve(&r->metrics, n) < 0) return -1;
    if (every > 0 && !r->no_exam && r->metrics.nval == 0 && bl_run_steps(r) == 0) {
        float v = bl_run_eval(r);
        if (isnan(v)) return -1;
        if (cb && cb(r, 0, n, NAN, 1, ctx)) return 0;
    }
    for (int i = 1; i <= n; i++) {
        float L;
        if (bl_run_step(r, &L, NULL) < 0) return -1;
        int evaluated = 0;
        if (every > 0 && !r->no_exam && bl_run_steps(r) % every == 0) {
            if (isnan(bl_run_eval(r))) return -1;
            evaluated = 1;
        }
        if (cb && cb(r, i, n, L, evaluated, ctx)) return i;
    }
    return n;
}
