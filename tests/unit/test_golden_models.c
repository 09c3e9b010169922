/* test_golden_models.c - whole TinyDiT and TinyGPT models against PyTorch.
 *
 * tests/golden/models_CASE.safetensors are made by tests/golden/gen_models.py from
 * tests/golden/torch_models.py (PyTorch, float64, see tests/golden/README.md). For each case:
 * build the model from the file's config (bl_config_set_many), copy the initial weights in by
 * name (every parameter of the model must be in the file and every parameter in the file must
 * be one of the model's), then
 *   - TinyGPT: greedy generation (temperature 0) of 20 tokens, with and without the KV cache,
 *     must give PyTorch's tokens exactly;
 *   - the loss on the fixed batch (relative 1e-4);
 *   - every parameter gradient: |a - b| <= 1e-3 max(rms of PyTorch's tensor, 1e-3 rms of all of
 *     the case's gradients) (the floor covers gradients that are zero in exact arithmetic, e.g.
 *     the key bias of plain attention, where both sides hold only rounding noise);
 *   - 3 AdamW steps (bl_adamw_step on the flat buffers, lr 1e-3, eps 1e-8, no weight decay,
 *     the case's betas) on the same batch: the loss before each step and after the last
 *     (relative 1e-4).
 * The default-shape cases (*_default) build their weights and images from gen.py's hash pattern
 * and store every `sample`-th gradient element only.
 *
 * With BL_GOLDEN_SAVE_DIR set, each case also saves its trained model with bl_checkpoint_save
 * as DIR/CASE.ckpt.safetensors and blocklab's forward pass on the batch as
 * DIR/CASE.ckpt.safetensors.forward.safetensors, for gen_models.py --verify-checkpoint.
 */
#include "core/error.h"
#include "core/tensor.h"
#include "models/model.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include "train/checkpoint.h"
#include "train/optim.h"
#include "train/safetensors.h"
#include "../check.h"
#include "../golden_pattern.h"
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>

#define LOSS_RTOL 1e-4
#define GRAD_RTOL 1e-3
#define GRAD_FLOOR 1e-3   /* of the rms over all of a case's gradients */

static const char *const CASES[] = {
    "dit_base", "dit_all4", "gpt_v1", "gpt_v2", "gpt_gqa",
    "dit_base_default", "dit_all4_default", "gpt_v1_default", "gpt_v2_default", "gpt_gqa_default",
    "gpt_v1_drop", "dit_all4_drop",     /* dropout 0.2: PyTorch given blocklab's masks */
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

static const char *srcdir(void)
{
    const char *s = getenv("BL_SRCDIR");
    return s ? s : ".";
}

static bl_st_file *open_case(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/models_%s.safetensors", srcdir(), name);
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "%s", bl_error());
    return f;
}

static const bl_tensor *get(const bl_st_file *f, const char *fmt, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, fmt, name);
    return bl_st_get(f, key);
}

/* The config the file describes: the kind's defaults, then every key of its "config". */
static int file_config(const bl_st_file *f, bl_config *cfg)
{
    bl_model_kind kind;
    const char *k = bl_st_meta(f, "kind"), *js = bl_st_meta(f, "config");
    if (!k || !js || bl_model_kind_parse(k, &kind) < 0) return bl_fail("%s: no kind or config", f->path);
    json_t *o = json_loads(js, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return bl_fail("%s: config is not a JSON object", f->path);
    }
    const char *keys[64], *vals[64];
    int n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (n < 64 && json_is_string(v)) {
            keys[n] = key;
            vals[n++] = json_string_value(v);
        }
    }
    *cfg = bl_config_default(kind);
    int rc = bl_config_set_many(cfg, n, keys, vals);
    json_decref(o);
    return rc;
}

/* Fill n floats from the file's tensor NAME (shape `shape`, may be NULL = any shape with n
 * elements) or from pattern.NAME = [salt, scale, offset]. */
static int fill(const bl_st_file *f, const char *name, const bl_tensor *shape, float *dst, size_t n)
{
    const bl_tensor *t = get(f, "%s", name);
    if (t) {
        char a[64], b[64];
        if (t->numel != n || (shape && !bl_same_shape(t, shape)))
            return bl_fail("%s: %s has shape %s, blocklab %s", f->path, name, bl_shape_str(t, a, sizeof a),
                           shape ? bl_shape_str(shape, b, sizeof b) : "?");
        memcpy(dst, t->data, n * sizeof(float));
        return 0;
    }
    const bl_tensor *p = get(f, "pattern.%s", name);
    if (!p || p->numel != 3) return bl_fail("%s: %s missing", f->path, name);
    for (size_t i = 0; i < n; i++) dst[i] = bl_golden_pattern(i, (uint32_t)p->data[0]) * p->data[1] + p->data[2];
    return 0;
}

static int is_param_entry(const char *nm)
{
    static const char *const other[] = {"grad.", "batch.", "gen.", "pattern.batch.", "losses"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (strncmp(nm, other[i], strlen(other[i])) == 0) return 0;
    return 1;
}

/* Copy the initial weights in by name; the file and the model must name the same parameters. */
static int load_weights(const bl_st_file *f, bl_model *m)
{
    int ok = 1;
    const bl_params *p = m->params;
    for (int i = 0; i < p->n; i++)
        if (fill(f, p->t[i].name, &p->t[i], p->t[i].data, p->t[i].numel) < 0) {
            CHECK(0, "%s", bl_error());
            ok = 0;
        }
    for (int i = 0; i < f->n; i++) {
        const char *nm = f->tensors[i].name;
        if (!is_param_entry(nm)) continue;
        if (strncmp(nm, "pattern.", 8) == 0) nm += 8;
        int found = bl_params_find(p, nm) != NULL;
        CHECK(found, "%s: the file has parameter %s, blocklab's model does not", f->path, nm);
        ok &= found;
    }
    return ok;
}

/* The fixed batch. */
typedef struct batch {
    int B, T;
    bl_tensor *x0, *noise;  /* DiT */
    float *t;
    int *tokens;            /* GPT [B, T + 1] */
} batch;

static int load_batch(const bl_st_file *f, const bl_model *m, batch *b)
{
    memset(b, 0, sizeof *b);
    if (m->kind == BL_MODEL_DIT) {
        const bl_tensor *t = get(f, "%s", "batch.t");
        if (!t) return bl_fail("%s: batch.t missing", f->path);
        const bl_config *c = &m->cfg;
        b->B = (int)t->numel;
        b->t = malloc(t->numel * sizeof(float));
        memcpy(b->t, t->data, t->numel * sizeof(float));
        b->x0 = bl_tensor_new4(b->B, c->channels, c->image_size, c->image_size);
        b->noise = bl_tensor_new4(b->B, c->channels, c->image_size, c->image_size);
        if (fill(f, "batch.x0", b->x0, b->x0->data, b->x0->numel) < 0) return -1;
        return fill(f, "batch.noise", b->noise, b->noise->data, b->noise->numel);
    }
    const bl_tensor *t = get(f, "%s", "batch.tokens");
    if (!t || t->ndim != 2) return bl_fail("%s: batch.tokens [B, T + 1] missing", f->path);
    b->B = t->shape[0];
    b->T = t->shape[1] - 1;
    b->tokens = malloc(t->numel * sizeof(int));
    for (size_t i = 0; i < t->numel; i++) b->tokens[i] = (int)t->data[i];
    return 0;
}

static void free_batch(batch *b)
{
    bl_tensor_free(b->x0);
    bl_tensor_free(b->noise);
    free(b->t);
    free(b->tokens);
}

static bl_tensor *loss_of(bl_model *m, const batch *b, int record)
{
    if (m->kind == BL_MODEL_DIT) return bl_dit_loss(m, b->x0, b->noise, b->t, record);
    return bl_gpt_loss(m, b->tokens, b->B, b->T, record);
}

static double worst_loss, worst_grad;
static char worst_grad_name[BL_PARAM_NAME_MAX];

static void check_loss(const char *cname, const char *what, double got, double want)
{
    double r = fabs(got - want) / (LOSS_RTOL * fabs(want));
    if (!(r <= worst_loss)) worst_loss = isnan(r) ? INFINITY : r;
    CHECK(r <= 1.0, "%s: %s %.9g, PyTorch %.9g (relative error %.3g)", cname, what, got, want,
          fabs(got - want) / fabs(want));
}

/* Every parameter gradient against grad.NAME (every `sample`-th element). */
static void check_grads(const bl_st_file *f, const char *cname, const bl_model *m, int sample)
{
    const bl_params *p = m->params;
    double ss = 0;
    size_t cnt = 0;
    for (int i = 0; i < p->n; i++) {
        const bl_tensor *w = get(f, "grad.%s", p->t[i].name);
        CHECK(w != NULL, "%s: grad.%s missing", cname, p->t[i].name);
        if (!w) return;
        for (size_t k = 0; k < w->numel; k++) ss += (double)w->data[k] * w->data[k];
        cnt += w->numel;
    }
    double floor_ = GRAD_FLOOR * sqrt(ss / (double)cnt);
    for (int i = 0; i < p->n; i++) {
        const bl_tensor *t = &p->t[i], *w = get(f, "grad.%s", t->name);
        size_t n = (t->numel + (size_t)sample - 1) / (size_t)sample;
        CHECK(w->numel == n, "%s: grad.%s has %zu elements, expected %zu", cname, t->name, w->numel, n);
        if (w->numel != n) continue;
        double s2 = 0;
        for (size_t k = 0; k < n; k++) s2 += (double)w->data[k] * w->data[k];
        double tol = GRAD_RTOL * fmax(sqrt(s2 / (double)n), floor_), worst = 0, wg = 0, ww = 0;
        size_t wi = 0;
        for (size_t k = 0; k < n; k++) {
            double g = t->grad[k * (size_t)sample], r = fabs(g - w->data[k]) / tol;
            if (!(r <= worst)) { worst = isnan(r) ? INFINITY : r; wi = k * (size_t)sample; wg = g; ww = w->data[k]; }
        }
        if (!(worst <= worst_grad)) {
            worst_grad = worst;
            snprintf(worst_grad_name, sizeof worst_grad_name, "%s", t->name);
        }
        CHECK(worst <= 1.0, "%s: d loss / d %s [%zu] = %.9g, PyTorch %.9g (error %.3g x tol %.3g)", cname,
              t->name, wi, wg, ww, worst, tol);
    }
}

/* Greedy tokens with and without the KV cache against gen.tokens. */
static void check_generate(const bl_st_file *f, const char *cname, bl_model *m)
{
    const bl_tensor *pr = get(f, "%s", "gen.prompt"), *want = get(f, "%s", "gen.tokens");
    const char *js = bl_st_meta(f, "generate");
    CHECK(pr && want && js, "%s: gen.prompt, gen.tokens or generate metadata missing", cname);
    if (!pr || !want || !js) return;
    json_t *o = json_loads(js, 0, NULL);
    bl_gen_opts g = bl_gen_opts_default();
    g.temperature = 0.0f;
    g.max_new_tokens = (int)json_integer_value(json_object_get(o, "max_new_tokens"));
    g.sliding_window = json_is_true(json_object_get(o, "sliding_window"));
    json_decref(o);
    int np = (int)pr->numel, total = np + g.max_new_tokens;
    CHECK((size_t)total == want->numel, "%s: gen.tokens has %zu ids, expected %d", cname, want->numel, total);
    int *prompt = malloc((size_t)np * sizeof(int)), *out = malloc((size_t)total * sizeof(int));
    for (int i = 0; i < np; i++) prompt[i] = (int)pr->data[i];
    for (int cache = 1; cache >= 0 && (size_t)total == want->numel; cache--) {
        g.use_cache = cache;
        int n = bl_gpt_generate(m, prompt, np, &g, out);
        CHECK(n == total, "%s: generate (cache %d) gave %d: %s", cname, cache, n, bl_error());
        int first = -1;
        for (int i = 0; i < total && n == total; i++)
            if (out[i] != (int)want->data[i]) { first = i; break; }
        CHECK(first < 0, "%s: greedy token %d (cache %d) is %d, PyTorch %d", cname, first, cache,
              first >= 0 ? out[first] : 0, first >= 0 ? (int)want->data[first] : 0);
    }
    free(prompt);
    free(out);
}

/* BL_GOLDEN_SAVE_DIR: the checkpoint and blocklab's forward pass for gen_models.py
 * --verify-checkpoint. */
static void save_for_torch(const char *dir, const char *cname, bl_model *m, const batch *b)
{
    char path[4096], fwd[4200];
    snprintf(path, sizeof path, "%s/%s.ckpt.safetensors", dir, cname);
    snprintf(fwd, sizeof fwd, "%s.forward.safetensors", path);
    CHECK(bl_checkpoint_save(path, m, NULL, NULL, 0) == 0, "%s: save: %s", cname, bl_error());
    bl_tensor *in = NULL, *tt = NULL, *out;
    if (m->kind == BL_MODEL_DIT) {
        in = bl_tensor_new(4, b->x0->shape);
        size_t per = in->numel / (size_t)b->B;
        for (size_t i = 0; i < in->numel; i++) {
            float t = b->t[i / per];
            in->data[i] = (1.0f - t) * b->x0->data[i] + t * b->noise->data[i];
        }
        tt = bl_tensor_new1(b->B);
        memcpy(tt->data, b->t, (size_t)b->B * sizeof(float));
        out = bl_dit_forward(m, in, b->t, 0);
    } else {
        in = bl_tensor_new2(b->B, b->T);
        int *ids = malloc((size_t)b->B * b->T * sizeof(int));
        for (int i = 0; i < b->B; i++)
            for (int j = 0; j < b->T; j++)
                in->data[i * b->T + j] = (float)(ids[i * b->T + j] = b->tokens[i * (b->T + 1) + j]);
        out = bl_gpt_forward(m, ids, b->B, b->T, 0);
        free(ids);
    }
    CHECK(out != NULL, "%s: forward: %s", cname, bl_error());
    if (out) {
        const char *names[3] = {"out", m->kind == BL_MODEL_DIT ? "x" : "ids", "t"};
        const bl_tensor *ts[3] = {out, in, tt};
        CHECK(bl_st_write(fwd, tt ? 3 : 2, names, ts, 0, NULL, NULL) == 0, "%s: %s", cname, bl_error());
        printf("# %s: wrote %s and its forward pass\n", cname, path);
    }
    bl_tensor_free(in);
    bl_tensor_free(tt);
}

static void run_case(const char *cname)
{
    bl_st_file *f = open_case(cname);
    if (!f) return;
    bl_config cfg;
    bl_model *m = NULL;
    batch b = {0};
    json_t *adam = NULL;
    CHECK(file_config(f, &cfg) == 0, "%s: config: %s", cname, bl_error());
    m = bl_config_check(&cfg) == 0 ? bl_model_new(&cfg) : NULL;
    CHECK(m != NULL, "%s: model: %s", cname, bl_error());
    if (!m || !load_weights(f, m)) goto out;
    const char *ps = bl_st_meta(f, "parameters");
    CHECK(ps && (size_t)atol(ps) == bl_model_param_count(m), "%s: %zu parameters, PyTorch %s", cname,
          bl_model_param_count(m), ps ? ps : "?");
    if (load_batch(f, m, &b) < 0) {
        CHECK(0, "%s", bl_error());
        goto out;
    }
    if (m->kind == BL_MODEL_GPT) check_generate(f, cname, m);

    const bl_tensor *losses = get(f, "%s", "losses");
    const char *sm = bl_st_meta(f, "sample"), *aj = bl_st_meta(f, "adam");
    adam = aj ? json_loads(aj, 0, NULL) : NULL;
    CHECK(losses && losses->numel == 4 && sm && adam, "%s: losses, sample or adam missing", cname);
    if (!losses || losses->numel != 4 || !sm || !adam) goto out;
    bl_adamw o;
    bl_adamw_defaults(&o);
    o.lr = (float)json_number_value(json_object_get(adam, "lr"));
    o.eps = (float)json_number_value(json_object_get(adam, "eps"));
    o.beta1 = (float)json_number_value(json_object_get(adam, "beta1"));
    o.beta2 = (float)json_number_value(json_object_get(adam, "beta2"));
    o.weight_decay = (float)json_number_value(json_object_get(adam, "weight_decay"));
    o.warmup = o.cosine = 0;
    o.clip = 0;
    int steps = (int)json_integer_value(json_object_get(adam, "steps"));
    CHECK(steps == 3 && bl_params_alloc_moments(m->params) == 0, "%s: adam steps %d", cname, steps);
    bl_params *p = m->params;
    for (int s = 0; s <= 3 && steps == 3; s++) {
        bl_params_zero_grad(p);
        m->dropout_step = (uint64_t)s;  /* the masks of step s (as the trainer sets it) */
        bl_tensor *loss = loss_of(m, &b, s < 3);
        CHECK(loss != NULL, "%s: loss: %s", cname, bl_error());
        if (!loss) break;
        char what[48];
        snprintf(what, sizeof what, "loss after %d AdamW steps", s);
        check_loss(cname, what, loss->data[0], losses->data[s]);
        if (s == 3) break;
        CHECK(bl_graph_backward(m->graph, loss) == 0, "%s: backward: %s", cname, bl_error());
        if (s == 0) check_grads(f, cname, m, atoi(sm));
        bl_adamw_step(&o, p->values, p->grads, p->m, p->v, NULL, p->total);
    }
    const char *dir = getenv("BL_GOLDEN_SAVE_DIR");
    if (dir && *dir) save_for_torch(dir, cname, m, &b);
out:
    json_decref(adam);
    free_batch(&b);
    bl_model_free(m);
    bl_st_free(f);
}

/* Every models_*.safetensors has a case here (a new case in gen_models.py cannot go unchecked). */
BL_TEST(test_coverage)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/golden", srcdir());
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d) return;
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name), suf = strlen(".safetensors");
        if (strncmp(e->d_name, "models_", 7) != 0 || len <= 7 + suf ||
            strcmp(e->d_name + len - suf, ".safetensors") != 0)
            continue;
        files++;
        int found = 0;
        for (int k = 0; k < NCASES; k++)
            found |= strlen(CASES[k]) == len - 7 - suf && strncmp(e->d_name + 7, CASES[k], len - 7 - suf) == 0;
        CHECK(found, "%s/%s is run by no case of this test", dir, e->d_name);
    }
    closedir(d);
    CHECK(files == NCASES, "%d golden model files, %d cases", files, NCASES);
}

/* A golden model file is not a checkpoint: loading it is refused, naming the file and why. */
BL_TEST(test_not_a_checkpoint)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/models_gpt_v1.safetensors", srcdir());
    bl_clear_error();
    bl_model *m = bl_checkpoint_load(path, NULL);
    CHECK(m == NULL, "a golden file loaded as a checkpoint");
    bl_model_free(m);
    CHECK_ERR("models_gpt_v1.safetensors");
    CHECK_ERR("not a blocklab checkpoint");
}

int main(void)
{
    RUN(test_coverage);
    RUN(test_not_a_checkpoint);
    for (int k = 0; k < NCASES; k++) {
        bl_t_cur_failed = 0;
        bl_t_skip = NULL;
        worst_loss = worst_grad = 0;
        worst_grad_name[0] = 0;
        run_case(CASES[k]);
        printf("# %s: worst error / tolerance: loss %.3g, gradients %.3g (%s)\n", CASES[k], worst_loss,
               worst_grad, worst_grad_name);
        bl_t_count++;
        printf("%sok %d - golden model %s\n", bl_t_cur_failed ? "not " : "", bl_t_count, CASES[k]);
        if (bl_t_cur_failed) bl_t_failed++;
        fflush(stdout);
    }
    return bl_test_done();
}
