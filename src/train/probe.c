/* probe.c - the probe-FD feature network: build, train, cache, features, FD (see probe.h). */
#include "train/probe.h"
#include "core/error.h"
#include "core/fmt.h"
#include "core/ops.h"
#include "core/rng.h"
#include "models/tinydit.h"
#include "nn/nn.h"
#include "train/frechet.h"
#include "train/optim.h"
#include "train/safetensors.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define PROBE_CHUNK 256     /* images per forward pass outside training */
#define PROBE_LN_EPS 1e-5f
#define PROBE_WD 0.05f

void bl_probe_opts_default(bl_probe_opts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 1500;
    o->batch = 128;
    o->lr = 2e-3f;
    o->seed = 0;
    o->n_eval = 10000;
}

/* ---- building ---- */

/* The stage plan of probe.h for an image H x W. */
static void plan_stages(bl_probe *p)
{
    int h = p->H, w = p->W, s = 0;
    for (int k = 4; k >= 1 && s == 0; k /= 2)
        if (k == 1 || (h % k == 0 && w % k == 0 && h >= 2 * k && w >= 2 * k)) {
            p->patch[s++] = k;
            h /= k;
            w /= k;
        }
    while (s < BL_PROBE_MAX_STAGES && h % 2 == 0 && w % 2 == 0 && h >= 4 && w >= 4) {
        p->patch[s++] = 2;
        h /= 2;
        w /= 2;
    }
    p->nstages = s;
    for (int i = 0; i < s; i++) p->width[i] = BL_PROBE_DIM >> (s - 1 - i);
    p->dim = BL_PROBE_DIM;
}

static bl_probe *probe_new(const bl_dataset *ds, uint64_t seed)
{
    bl_probe *p = calloc(1, sizeof *p);
    if (!p) return BL_FAILP("probe: out of memory");
    p->C = ds->C;
    p->H = ds->H;
    p->W = ds->W;
    p->n_classes = ds->n_classes;
    snprintf(p->dataset, sizeof p->dataset, "%s", ds->name);
    plan_stages(p);
    p->params = bl_params_new();
    p->graph = bl_graph_new();
    if (!p->params || !p->graph) goto fail;
    char name[BL_PARAM_NAME_MAX];
    int cin = p->C;
    for (int s = 0; s < p->nstages; s++) {
        int k = p->patch[s], D = p->width[s];
        float bound = 1.0f / sqrtf((float)(cin * k * k));   /* nn.Conv2d default */
        snprintf(name, sizeof name, "probe.stages.%d.proj.weight", s);
        if (bl_params_declare(p->params, name, 4, (int[]){D, cin, k, k}, BL_INIT_UNIFORM, bound) < 0) goto fail;
        snprintf(name, sizeof name, "probe.stages.%d.proj.bias", s);
        if (bl_params_declare(p->params, name, 1, &D, BL_INIT_UNIFORM, bound) < 0) goto fail;
        snprintf(name, sizeof name, "probe.stages.%d.norm.weight", s);
        if (bl_params_declare(p->params, name, 1, &D, BL_INIT_ONE, 0) < 0) goto fail;
        snprintf(name, sizeof name, "probe.stages.%d.norm.bias", s);
        if (bl_params_declare(p->params, name, 1, &D, BL_INIT_ZERO, 0) < 0) goto fail;
        cin = D;
    }
    float hb = 1.0f / sqrtf((float)p->dim);   /* nn.Linear default */
    if (bl_params_declare(p->params, "probe.head.weight", 2, (int[]){p->n_classes, p->dim},
                          BL_INIT_UNIFORM, hb) < 0 ||
        bl_params_declare(p->params, "probe.head.bias", 1, &p->n_classes, BL_INIT_UNIFORM, hb) < 0 ||
        bl_params_finish(p->params, seed) < 0)
        goto fail;
    for (int s = 0, i = 0; s < p->nstages; s++) {
        p->proj_w[s] = &p->params->t[i++];
        p->proj_b[s] = &p->params->t[i++];
        p->norm_w[s] = &p->params->t[i++];
        p->norm_b[s] = &p->params->t[i++];
    }
    p->head_w = bl_params_find(p->params, "probe.head.weight");
    p->head_b = bl_params_find(p->params, "probe.head.bias");
    return p;
fail:
    bl_probe_free(p);
    return NULL;
}

void bl_probe_free(bl_probe *p)
{
    if (!p) return;
    bl_params_free(p->params);
    bl_graph_free(p->graph);
    free(p);
}

/* ---- forward ---- */

/* The network of probe.h on img [B, C, H, W] (a constant) in p->graph (not reset here):
 * returns logits [B, n_classes] and the features [B, dim] in *feat, or NULL + error. */
static bl_tensor *probe_net(bl_probe *p, bl_tensor *img, bl_tensor **feat)
{
    bl_graph *g = p->graph;
    int B = img->shape[0], h = p->H, w = p->W;
    bl_tensor *x = img, *tok = NULL;
    for (int s = 0; s < p->nstages; s++) {
        tok = bl_patch_embed(g, x, p->proj_w[s], p->proj_b[s], p->patch[s]);   /* [B, T, D] */
        if (tok) tok = bl_layernorm(g, tok, p->norm_w[s], p->norm_b[s], PROBE_LN_EPS);
        if (tok) tok = bl_gelu(g, tok);
        if (!tok) return NULL;
        h /= p->patch[s];
        w /= p->patch[s];
        if (s + 1 < p->nstages && !(x = bl_unpatchify(g, tok, p->width[s], h, w, 1))) return NULL;
    }
    /* mean over the T tokens: (1/T) ones [B, 1, T] @ tok [B, T, D] -> [B, 1, D] */
    int T = h * w;
    bl_tensor *avg = bl_graph_tensor(g, 3, (int[]){B, 1, T}, 0);
    if (!avg) return NULL;
    for (size_t i = 0; i < avg->numel; i++) avg->data[i] = 1.0f / (float)T;
    bl_tensor *pooled = bl_matmul(g, avg, tok);
    bl_tensor *f = pooled ? bl_graph_view(g, pooled, 2, (int[]){B, p->dim}) : NULL;
    if (!f) return NULL;
    *feat = f;
    return bl_linear(g, f, p->head_w, p->head_b);
}

/* img as a [B, C, H, W] tensor struct over caller memory (the network never writes it) */
static bl_tensor image_view(const bl_probe *p, const float *data, int B)
{
    bl_tensor t = {.data = (float *)data, .ndim = 4, .shape = {B, p->C, p->H, p->W}};
    t.numel = (size_t)B * p->C * p->H * p->W;
    return t;
}

int bl_probe_forward(bl_probe *p, const bl_tensor *images, bl_tensor **logits,
                     bl_tensor **features)
{
    char b1[64];
    if (!images || images->ndim != 4 || images->shape[1] != p->C || images->shape[2] != p->H ||
        images->shape[3] != p->W)
        return bl_fail("probe: images %s do not match the probe's [N, %d, %d, %d] (%s)",
                       images ? bl_shape_str(images, b1, sizeof b1) : "(none)", p->C, p->H, p->W,
                       p->dataset);
    int N = images->shape[0];
    bl_tensor *lo = logits ? bl_tensor_new2(N, p->n_classes) : NULL;
    bl_tensor *fe = features ? bl_tensor_new2(N, p->dim) : NULL;
    if ((logits && !lo) || (features && !fe)) goto fail;
    size_t sz = (size_t)p->C * p->H * p->W;
    bl_graph_set_record(p->graph, 0);
    for (int i0 = 0; i0 < N; i0 += PROBE_CHUNK) {
        int B = N - i0 < PROBE_CHUNK ? N - i0 : PROBE_CHUNK;
        bl_tensor img = image_view(p, images->data + (size_t)i0 * sz, B);
        bl_tensor *feat = NULL;
        bl_graph_reset(p->graph);
        bl_tensor *out = probe_net(p, &img, &feat);
        if (!out) goto fail;
        if (lo) memcpy(lo->data + (size_t)i0 * p->n_classes, out->data, out->numel * sizeof(float));
        if (fe) memcpy(fe->data + (size_t)i0 * p->dim, feat->data, feat->numel * sizeof(float));
    }
    bl_graph_reset(p->graph);
    bl_graph_set_record(p->graph, 1);
    if (logits) *logits = lo;
    if (features) *features = fe;
    return 0;
fail:
    bl_graph_reset(p->graph);
    bl_graph_set_record(p->graph, 1);
    bl_tensor_free(lo);
    bl_tensor_free(fe);
    return -1;
}

bl_tensor *bl_probe_features(bl_probe *p, const bl_tensor *images)
{
    bl_tensor *f = NULL;
    return bl_probe_forward(p, images, NULL, &f) == 0 ? f : NULL;
}

double bl_probe_accuracy(bl_probe *p, const bl_dataset *ds, int n)
{
    if (ds->kind != BL_DATA_IMAGES || ds->C != p->C || ds->H != p->H || ds->W != p->W)
        return bl_fail("probe: %s does not hold %dx%dx%d images", ds->name, p->C, p->H, p->W);
    if (n < 1) return bl_fail("probe: accuracy needs at least 1 image, got %d", n);
    bl_tensor *x = bl_tensor_new4(PROBE_CHUNK, p->C, p->H, p->W);
    int *labels = malloc(PROBE_CHUNK * sizeof *labels);
    long correct = 0;
    double acc = -1;
    if (!x || !labels) {
        bl_fail("probe: out of memory");
        goto out;
    }
    for (int i0 = 0; i0 < n; i0 += PROBE_CHUNK) {
        int B = n - i0 < PROBE_CHUNK ? n - i0 : PROBE_CHUNK;
        if (bl_dataset_val_images(ds, (size_t)i0, B, x->data, labels) < 0) goto out;
        bl_tensor img = image_view(p, x->data, B);
        bl_tensor *lo = NULL;
        if (bl_probe_forward(p, &img, &lo, NULL) < 0) goto out;
        for (int i = 0; i < B; i++) {
            const float *row = lo->data + (size_t)i * p->n_classes;
            int best = 0;
            for (int k = 1; k < p->n_classes; k++)
                if (row[k] > row[best]) best = k;
            correct += best == labels[i];
        }
        bl_tensor_free(lo);
    }
    acc = (double)correct / n;
out:
    bl_tensor_free(x);
    free(labels);
    return acc;
}

/* ---- training ---- */

/* Mirror each image of x [B, C, H, W] left-right with probability 1/2. */
static void random_flips(bl_rng *r, float *x, int B, int C, int H, int W)
{
    for (int b = 0; b < B; b++) {
        if (!(bl_rng_u32(r) & 1)) continue;
        float *row = x + (size_t)b * C * H * W;
        for (int i = 0; i < C * H; i++, row += W)
            for (int j = 0; j < W / 2; j++) {
                float t = row[j];
                row[j] = row[W - 1 - j];
                row[W - 1 - j] = t;
            }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int probe_train(bl_probe *p, const bl_dataset *ds, const bl_probe_opts *o)
{
    double t0 = now_s();
    bl_params *ps = p->params;
    int B = o->batch, rc = -1;
    size_t sz = (size_t)p->C * p->H * p->W;
    bl_batcher bt;
    if (bl_batcher_init(&bt, ds, o->seed) < 0) return -1;
    float *x = malloc((size_t)B * sz * sizeof *x);
    int *labels = malloc((size_t)B * sizeof *labels);
    unsigned char *decay = calloc(ps->total, 1);
    if (!x || !labels || !decay || bl_params_alloc_moments(ps) < 0) {
        bl_fail("probe: out of memory for training");
        goto out;
    }
    for (int i = 0; i < ps->n; i++)
        if (ps->t[i].ndim >= 2) memset(decay + ps->info[i].offset, 1, ps->t[i].numel);
    bl_adamw opt;
    bl_adamw_defaults(&opt);
    opt.lr = o->lr;
    opt.weight_decay = PROBE_WD;
    opt.warmup = o->steps / 20;
    opt.cosine = 1;
    opt.total = o->steps;
    bl_rng flip;
    bl_rng_named(&flip, o->seed, "probe.flip");
    int flips = strcmp(ds->name, "mnist") != 0;
    float loss_ema = NAN;
    bl_graph_set_record(p->graph, 1);
    for (int step = 1; step <= o->steps; step++) {
        if (o->interrupted && o->interrupted()) {
            bl_fail("probe: training interrupted at step %d of %d", step - 1, o->steps);
            goto out;
        }
        if (bl_batch_images(&bt, B, x, labels) < 0) goto out;
        if (flips) random_flips(&flip, x, B, p->C, p->H, p->W);
        bl_graph_reset(p->graph);
        bl_tensor img = image_view(p, x, B), *feat = NULL;
        bl_tensor *logits = probe_net(p, &img, &feat);
        bl_tensor *loss = logits ? bl_cross_entropy(p->graph, logits, labels) : NULL;
        if (!loss) goto out;
        bl_params_zero_grad(ps);
        if (bl_graph_backward(p->graph, loss) < 0) goto out;
        bl_adamw_step(&opt, ps->values, ps->grads, ps->m, ps->v, decay, ps->total);
        float l = loss->data[0];
        loss_ema = isnan(loss_ema) ? l : 0.95f * loss_ema + 0.05f * l;
        if (o->progress && (step % 50 == 0 || step == o->steps))
            o->progress(o->progress_ctx, step, o->steps, loss_ema);
    }
    rc = 0;
out:
    bl_graph_reset(p->graph);
    bl_batcher_free(&bt);
    free(x);
    free(labels);
    free(decay);
    /* the moments are not part of the probe: free them */
    free(ps->m);
    free(ps->v);
    ps->m = ps->v = NULL;
    p->train_seconds = now_s() - t0;
    return rc;
}

/* ---- cache ---- */

/* 64-bit FNV-1a over the training images and labels (shapes: its seed), so a cache file is
 * only used for the very data it was trained on. */
static uint64_t data_hash(const bl_dataset *ds)
{
    uint64_t h = 1469598103934665603ull;
    if (ds->endless) return bl_splitmix64(ds->shapes_seed);
    size_t n = ds->n_train * (size_t)ds->C * ds->H * ds->W;
    for (size_t i = 0; i < n; i++) h = (h ^ ds->pixels[i]) * 1099511628211ull;
    for (size_t i = 0; i < ds->n_train; i++) h = (h ^ ds->labels[i]) * 1099511628211ull;
    return h;
}

/* The metadata string that must match for a cache file to be used. */
static void config_string(const bl_probe *p, const bl_dataset *ds, const bl_probe_opts *o,
                          char *buf, size_t n)
{
    int k = snprintf(buf, n, "probe v1; data %s %dx%dx%d, %d classes, %zu train, hash %016llx; "
                     "stages", ds->name, p->C, p->H, p->W, p->n_classes, ds->n_train,
                     (unsigned long long)data_hash(ds));
    for (int s = 0; s < p->nstages && k > 0 && (size_t)k < n; s++)
        k += snprintf(buf + k, n - (size_t)k, " p%d/%d", p->patch[s], p->width[s]);
    if (k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "; steps %d, batch %d, lr %g, seed %llu", o->steps,
                 o->batch, (double)o->lr, (unsigned long long)o->seed);
}

/* mkdir -p (mode 0700 for the directories it makes). */
static int make_dirs(const char *dir)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return bl_fail("probe: cache directory name too long");
    for (char *c = tmp + 1;; c++) {
        if (*c == '/' || *c == 0) {
            char save = *c;
            *c = 0;
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return bl_fail("probe: cannot create %s: %s", tmp, strerror(errno));
            *c = save;
            if (!save) break;
        }
    }
    return 0;
}

/* The cache file path into p->cache_path ("" when caching is off or no home is known). */
static void cache_path(bl_probe *p, const bl_probe_opts *o)
{
    char dir[4000];
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    p->cache_path[0] = 0;
    if (o->cache_dir && !*o->cache_dir) return;
    if (o->cache_dir) snprintf(dir, sizeof dir, "%s", o->cache_dir);
    else if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/blocklab", xdg);
    else if (home && *home) snprintf(dir, sizeof dir, "%s/.cache/blocklab", home);
    else return;
    bl_probe_opts d;
    bl_probe_opts_default(&d);
    char suffix[16] = "";
    if (o->steps != d.steps || o->batch != d.batch || o->lr != d.lr || o->seed != d.seed) {
        char key[128];
        snprintf(key, sizeof key, "%d %d %g %llu", o->steps, o->batch, (double)o->lr,
                 (unsigned long long)o->seed);
        snprintf(suffix, sizeof suffix, "-%08x", (unsigned)(bl_hash_str(key) & 0xffffffffu));
    }
    snprintf(p->cache_path, sizeof p->cache_path, "%s/probe-%s-%dx%dx%d%s.safetensors", dir,
             p->dataset, p->C, p->H, p->W, suffix);
}

/* Load the cache file into p when it matches `config`. 0 on success; -1 + the reason. */
static int cache_load(bl_probe *p, const char *config)
{
    bl_st_file *f = bl_st_read(p->cache_path);
    if (!f) return -1;
    int rc = -1;
    const char *cfg = bl_st_meta(f, "probe.config"), *acc = bl_st_meta(f, "probe.accuracy");
    const char *ne = bl_st_meta(f, "probe.n_eval"), *ts = bl_st_meta(f, "probe.train_seconds");
    if (!cfg || strcmp(cfg, config) != 0) {
        bl_fail("made for other data or options (%s)", cfg ? cfg : "no probe.config");
        goto out;
    }
    if (!acc || !ne || !ts) {
        bl_fail("probe.accuracy, probe.n_eval or probe.train_seconds missing");
        goto out;
    }
    if (f->n != p->params->n) {
        bl_fail("%d tensors but the probe has %d", f->n, p->params->n);
        goto out;
    }
    for (int i = 0; i < p->params->n; i++)
        if (bl_st_copy_into(f, p->params->info[i].name, &p->params->t[i]) < 0) goto out;
    for (size_t i = 0; i < p->params->total; i++)
        if (!isfinite(p->params->values[i])) {
            bl_fail("parameter value %zu is %g", i, (double)p->params->values[i]);
            goto out;
        }
    p->accuracy = strtod(acc, NULL);
    p->n_eval = atoi(ne);
    p->train_seconds = strtod(ts, NULL);
    rc = 0;
out:
    bl_st_free(f);
    return rc;
}

static int cache_save(bl_probe *p, const char *config)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", p->cache_path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (make_dirs(dir) < 0) return -1;
    }
    char acc[32], ne[32], ts[32];
    snprintf(acc, sizeof acc, "%.6f", p->accuracy);
    snprintf(ne, sizeof ne, "%d", p->n_eval);
    snprintf(ts, sizeof ts, "%.1f", p->train_seconds);
    const char *keys[4] = {"probe.config", "probe.accuracy", "probe.n_eval", "probe.train_seconds"};
    const char *vals[4] = {config, acc, ne, ts};
    const bl_tensor **ts_ = malloc((size_t)p->params->n * sizeof *ts_);
    if (!ts_) return bl_fail("probe: out of memory");
    for (int i = 0; i < p->params->n; i++) ts_[i] = &p->params->t[i];
    int rc = bl_st_write(p->cache_path, p->params->n, NULL, ts_, 4, keys, vals);
    free(ts_);
    return rc;
}

bl_probe *bl_probe_get(const bl_dataset *ds, const bl_probe_opts *o)
{
    bl_probe_opts def;
    if (!o) {
        bl_probe_opts_default(&def);
        o = &def;
    }
    if (!ds || ds->kind != BL_DATA_IMAGES)
        return BL_FAILP("probe: needs an image dataset, got %s", ds ? ds->name : "none");
    if (o->steps < 1 || o->batch < 1 || !(o->lr > 0) || o->n_eval < 1)
        return BL_FAILP("probe: steps %d, batch %d, n_eval %d must be at least 1 and lr %g above 0",
                        o->steps, o->batch, o->n_eval, (double)o->lr);
    bl_probe *p = probe_new(ds, o->seed);
    if (!p) return NULL;
    char config[512];
    config_string(p, ds, o, config, sizeof config);
    cache_path(p, o);
    char why[600] = "";
    if (p->cache_path[0] && !o->retrain) {
        struct stat st;
        if (stat(p->cache_path, &st) == 0) {
            if (cache_load(p, config) == 0) {
                p->from_cache = 1;
                snprintf(p->note, sizeof p->note, "probe: loaded %.600s (held-out accuracy %.1f%%)",
                         p->cache_path, 100 * p->accuracy);
                bl_clear_error();
                return p;
            }
            snprintf(why, sizeof why, "; refused cache %.200s: %.300s", p->cache_path, bl_error());
            bl_params_init(p->params, o->seed);
        }
    }
    if (probe_train(p, ds, o) < 0) {
        bl_probe_free(p);
        return NULL;
    }
    p->n_eval = o->n_eval < (int)ds->n_val ? o->n_eval : (int)ds->n_val;
    p->accuracy = p->n_eval > 0 ? bl_probe_accuracy(p, ds, p->n_eval) : NAN;
    if (p->n_eval > 0 && p->accuracy < 0) {
        bl_probe_free(p);
        return NULL;
    }
    char saved[600] = "";
    if (p->cache_path[0]) {
        if (cache_save(p, config) == 0)
            snprintf(saved, sizeof saved, ", saved %.500s", p->cache_path);
        else
            snprintf(saved, sizeof saved, ", not saved: %.500s", bl_error());
    }
    /* core/fmt's printf: an accuracy of nan (no held-out images) reads "nan"; a note longer than
     * p->note is cut at its end, as snprintf cuts it */
    bl_snprintf(p->note, sizeof p->note, "probe: trained on %s in %.1f s (%d steps), held-out accuracy %.1f%% of %d%s%s",
                ds->name, p->train_seconds, o->steps, 100 * p->accuracy, p->n_eval, saved, why);
    bl_clear_error();
    return p;
}

/* ---- FD ---- */

double bl_probe_fd(bl_probe *p, const bl_tensor *real, const bl_tensor *generated)
{
    bl_tensor *fr = bl_probe_features(p, real);
    bl_tensor *fg = fr ? bl_probe_features(p, generated) : NULL;
    double fd = fg ? bl_frechet_distance(fr, fg) : -1;
    bl_tensor_free(fr);
    bl_tensor_free(fg);
    return fd;
}

double bl_probe_fd_model(bl_probe *p, bl_model *m, const bl_dataset *ds, int n, uint64_t seed)
{
    if (!m || !bl_kind_of(m->kind)->fd) return bl_fail("probe: fd needs a TinyDiT model");
    const bl_config *c = &m->cfg;
    if (c->channels != p->C || c->image_size != p->H || c->image_size != p->W)
        return bl_fail("probe: the model makes %dx%dx%d images but the probe (%s) reads %dx%dx%d",
                       c->channels, c->image_size, c->image_size, p->dataset, p->C, p->H, p->W);
    if (ds->kind != BL_DATA_IMAGES || ds->C != p->C || ds->H != p->H || ds->W != p->W)
        return bl_fail("probe: %s does not hold %dx%dx%d images", ds->name, p->C, p->H, p->W);
    if (n < 2) return bl_fail("probe: fd needs at least 2 images per set, got %d", n);
    if ((size_t)n > ds->n_val)
        return bl_fail("probe: fd of %d images but %s holds %zu held-out images", n, ds->name,
                       ds->n_val);
    bl_tensor *real = bl_tensor_new4(n, p->C, p->H, p->W);
    if (!real) return -1;
    double fd = -1;
    if (bl_dataset_val_images(ds, 0, n, real->data, NULL) == 0) {
        bl_tensor *gen = bl_dit_sample(m, n, 20, seed);
        if (gen) fd = bl_probe_fd(p, real, gen);
        bl_tensor_free(gen);
    }
    bl_tensor_free(real);
    return fd;
}
