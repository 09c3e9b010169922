/* compare.c - fair ablations: variants trained round-robin from shared seeds (see compare.h). */
#include "train/compare.h"
#include "core/error.h"
#include "train/checkpoint.h"
#include <jansson.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PAIRS 16

int bl_compare_apply(bl_config *cfg, const char *spec)
{
    if (!spec || !*spec || !strcmp(spec, "-")) return 0;
    char buf[512];
    if (strlen(spec) >= sizeof buf) return bl_fail("compare: switch set too long (%zu characters)", strlen(spec));
    strcpy(buf, spec);
    const char *keys[MAX_PAIRS], *vals[MAX_PAIRS];
    int n = 0;
    /* split at every ',' (strtok_r skipped empty pairs, so "norm:rmsnorm," was accepted) */
    for (char *p = buf, *end; p; p = end) {
        if ((end = strchr(p, ','))) *end++ = 0;
        if (!*p) return bl_fail("compare: %s: an empty KEY:VALUE pair (a ',' too many)", spec);
        char *sep = strpbrk(p, ":=");
        if (!sep || sep == p || !sep[1])
            return bl_fail("compare: %s: expected KEY:VALUE, got '%s'", spec, p);
        if (n == MAX_PAIRS) return bl_fail("compare: %s: more than %d keys", spec, MAX_PAIRS);
        *sep = 0;
        /* bl_compare_new sets these for every run: a variant's own value would be dropped */
        if (!strcmp(p, "seed") || !strcmp(p, "steps"))
            return bl_fail("compare: %s: %s is the comparison's own (%s), not a variant's", spec, p,
                           !strcmp(p, "seed") ? "every variant starts from the model's seed; seed2 "
                                                "is seed + 1" : "set it with compare ... steps=N");
        for (int j = 0; j < n; j++)     /* the last one silently won */
            if (!strcmp(keys[j], p)) return bl_fail("compare: %s: %s is given twice", spec, p);
        keys[n] = p;
        vals[n++] = sep + 1;
    }
    if (n == 0) return bl_fail("compare: %s: no KEY:VALUE pair", spec);
    bl_config c = *cfg;
    if (bl_config_set_many(&c, n, keys, vals) < 0) {
        bl_error_prefix("compare: %s", spec);
        return -1;
    }
    *cfg = c;
    return 0;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= BL_CMP_NAME) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

/* Make run i of c from cfg. */
static int make_run(bl_compare *c, int i, const bl_config *cfg, int val_n)
{
    bl_cmp_run *r = &c->r[i];
    r->val = r->fd = NAN;
    if (!(r->model = bl_model_new(cfg)) || !(r->run = bl_run_new(r->model, c->data, val_n)) ||
        bl_metrics_reserve(&r->run->metrics, c->steps) < 0) {
        bl_error_prefix("compare: %s", r->name);
        return -1;
    }
    return 0;
}

/* Variant i's config: base + specs[i], with the comparison's seed and steps. */
static int variant_config(const bl_config *base, const char *spec, int steps, bl_config *out)
{
    *out = *base;
    if (bl_compare_apply(out, spec) < 0) return -1;
    out->seed = base->seed;
    out->steps = steps;
    return 0;
}

int bl_compare_check(const bl_config *base, int n, const char *const *names, const char *const *specs,
                     int steps, int *bad, int *in_spec)
{
    *bad = -1;
    *in_spec = 0;
    if (n < 1 || n > BL_CMP_MAX - 1) return bl_fail("compare: 1 to %d variants, got %d", BL_CMP_MAX - 1, n);
    if (steps < 1) return bl_fail("compare: steps must be at least 1, got %d", steps);
    for (int i = 0; i < n; i++) {
        *bad = i;
        if (!name_ok(names[i]))
            return bl_fail("compare: variant name '%s' must be 1-%d letters, digits or _", names[i], BL_CMP_NAME - 1);
        if (!strcmp(names[i], "seed2"))
            return bl_fail("compare: 'seed2' is the name of the reference's seed + 1 run; pick another");
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j])) return bl_fail("compare: variant '%s' is named twice", names[i]);
        bl_config c;
        *in_spec = 1;
        if (variant_config(base, specs[i], steps, &c) < 0) return -1;
        *in_spec = 0;
    }
    *bad = -1;
    return 0;
}

int bl_compare_check_data(const bl_config *base, const bl_dataset *ds, int val_n, int n,
                          const char *const *names, const char *const *specs, int steps, int *bad)
{
    for (int i = 0; i < n; i++) {
        bl_config c;
        *bad = i;
        if (variant_config(base, specs[i], steps, &c) < 0) return -1;
        if (bl_run_check_config(&c, ds, val_n) < 0) {
            char who[BL_CMP_NAME + 16];
            snprintf(who, sizeof who, "compare: %s", names[i]);
            return bl_error_as(who, "train");
        }
    }
    *bad = -1;
    return 0;
}

bl_compare *bl_compare_new(const bl_config *base, const bl_dataset *ds, int val_n, int n,
                           const char *const *names, const char *const *specs, int steps)
{
    int bad, in_spec;
    if (bl_compare_check(base, n, names, specs, steps, &bad, &in_spec) < 0 ||
        bl_compare_check_data(base, ds, val_n, n, names, specs, steps, &bad) < 0)
        return NULL;
    bl_config cfgs[BL_CMP_MAX];
    for (int i = 0; i < n; i++)
        if (variant_config(base, specs[i], steps, &cfgs[i]) < 0) return NULL;
    cfgs[n] = cfgs[0];
    cfgs[n].seed = base->seed + 1;
    bl_compare *c = calloc(1, sizeof *c);
    if (!c) return BL_FAILP("compare: out of memory");
    c->data = ds;
    c->steps = steps;
    c->n = n + 1;
    for (int i = 0; i <= n; i++) {
        bl_cmp_run *r = &c->r[i];
        snprintf(r->name, sizeof r->name, "%s", i < n ? names[i] : "seed2");
        snprintf(r->spec, sizeof r->spec, "%s", i < n ? specs[i] : specs[0]);
        r->noise_floor = i == n;
        if (make_run(c, i, &cfgs[i], val_n) < 0) {
            bl_compare_free(c);
            return NULL;
        }
    }
    return c;
}

/* Run r's model works on the comparison's shared arena (on = 1) or its own again (on = 0,
 * whose per-layer views of the last forward are then gone: they were in the shared arena, which
 * the next run's turn overwrites). The numbers do not depend on which arena holds them. */
static int take_turn(bl_compare *c, bl_cmp_run *r, bl_graph **own, int on)
{
    bl_model *m = r->model;
    if (on) {
        if (!c->arena) {
            if (!(c->arena = bl_graph_new())) return -1;
            bl_graph_set_transient_grads(c->arena, 1);
        }
        *own = m->graph;
        m->graph = c->arena;
        return 0;
    }
    m->graph = *own;
    bl_model_forget_taps(m);   /* REPL values made from the shared arena are stale */
    return 0;
}

void bl_compare_free(bl_compare *c)
{
    if (!c) return;
    bl_graph_free(c->arena);
    for (int i = 0; i < c->n; i++) {
        bl_run_free(c->r[i].run);
        bl_model_free(c->r[i].model);
    }
    free(c);
}

int bl_compare_round(bl_compare *c)
{
    if (c->done >= c->steps) return bl_fail("compare: all %d steps are done", c->steps);
    int live = 0;
    for (int i = 0; i < c->n; i++) {
        bl_cmp_run *r = &c->r[i];
        if (r->failed || !r->run || r->remote) continue;
        if (bl_run_steps(r->run) > c->done) {     /* resumed ahead of the others: waits */
            live++;
            continue;
        }
        bl_graph *own;
        int rc = take_turn(c, r, &own, 1);
        if (rc == 0) {
            rc = bl_run_train(r->run, 1, NULL, NULL);
            take_turn(c, r, &own, 0);
        }
        if (rc < 0) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "%s", bl_error());
            bl_clear_error();
            continue;
        }
        live++;
    }
    c->done++;
    return live;
}

int bl_compare_finish(bl_compare *c, bl_probe *probe, int n_fd)
{
    for (int i = 0; i < c->n; i++) {
        bl_cmp_run *r = &c->r[i];
        if (r->failed || !r->run || r->remote || bl_run_steps(r->run) == 0) continue;
        const bl_metrics *m = &r->run->metrics;
        if (m->nval > 0 && m->val_step[m->nval - 1] == bl_run_steps(r->run)) r->val = m->val_loss[m->nval - 1];
        else {
            bl_graph *own;
            r->val = NAN;
            if (take_turn(c, r, &own, 1) == 0) {
                r->val = bl_run_eval(r->run);
                take_turn(c, r, &own, 0);
            }
            if (isnan(r->val)) {
                bl_error_prefix("compare: %s", r->name);
                return -1;
            }
        }
        if (probe && bl_kind_of(r->model->kind)->fd) {
            r->fd = bl_probe_fd_model(probe, r->model, c->data, n_fd, 0);
            if (r->fd < 0) {
                r->fd = NAN;
                bl_error_prefix("compare: %s", r->name);
                return -1;
            }
        }
    }
    return 0;
}

/* Mean ms of the steps after each run's first (which sizes the buffers and wakes the threads),
 * the first alone when it is the only one; NaN before any step. */
static double ms_per_step(const bl_metrics *m)
{
    if (!m || m->steps == 0) return NAN;
    if (m->steps == 1) return m->ms[0];
    double sum = 0;
    for (int i = 1; i < m->steps; i++) sum += m->ms[i];
    return sum / (m->steps - 1);
}

void bl_compare_summary(const bl_compare *c, bl_cmp_summary *s)
{
    memset(s, 0, sizeof *s);
    const bl_cmp_run *ref = &c->r[0], *floor = &c->r[c->n - 1];
    s->gap = fabs(ref->val - floor->val);       /* NaN propagates */
    s->fd_gap = fabs(ref->fd - floor->fd);
    double ref_ms = ms_per_step(ref->run ? &ref->run->metrics : NULL);
    for (int i = 0; i < c->n; i++) {
        const bl_cmp_run *r = &c->r[i];
        bl_cmp_row *w = &s->row[i];
        const bl_metrics *m = r->run ? &r->run->metrics : NULL;
        w->params = r->model ? bl_model_param_count(r->model) : 0;
        w->steps = m ? m->steps : 0;
        w->val = r->val;
        w->fd = r->fd;
        w->delta = r->val - ref->val;
        w->fd_delta = r->fd - ref->fd;
        w->ms_per_step = ms_per_step(m);
        w->speed = w->ms_per_step / ref_ms;
        w->spikes = m ? m->nspikes : 0;
        int compared = i > 0 && !r->noise_floor;
        w->exceeds = compared && fabs(w->delta) > s->gap;          /* false when NaN */
        w->fd_exceeds = compared && fabs(w->fd_delta) > s->fd_gap;
    }
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) {
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return 0;
        return bl_fail("compare: %s: exists and is not a folder", path);
    }
    return bl_fail("compare: %s: %s", path, strerror(errno));
}

int bl_compare_make_dir(const char *dir, int n, const char *const *names)
{
    if (!dir || !*dir) return bl_fail("compare: empty folder name");
    if (make_dir(dir) < 0) return -1;
    for (int i = 0; i <= n; i++) {
        char sub[4096];
        if (snprintf(sub, sizeof sub, "%s/%s", dir, i < n ? names[i] : "seed2") >= (int)sizeof sub)
            return bl_fail("compare: %s: folder name too long", dir);
        if (make_dir(sub) < 0) return -1;
    }
    return 0;
}

int bl_compare_write(const bl_compare *c, const char *dir)
{
    if (!dir || !*dir) return bl_fail("compare: empty folder name");
    if (make_dir(dir) < 0) return -1;
    for (int i = 0; i < c->n; i++) {
        char sub[4096], file[4200];
        if (snprintf(sub, sizeof sub, "%s/%s", dir, c->r[i].name) >= (int)sizeof sub)
            return bl_fail("compare: %s: folder name too long", dir);
        if (make_dir(sub) < 0) return -1;
        snprintf(file, sizeof file, "%s/metrics.json", sub);
        if (!c->r[i].run || c->r[i].remote) continue;
        if (bl_metrics_write(&c->r[i].run->metrics, file) < 0) {
            bl_error_prefix("compare");
            return -1;
        }
    }
    return 0;
}

/* DIR/NAME/FILE into buf; -1 + error when too long. */
static int run_path(char *buf, size_t n, const char *dir, const char *name, const char *file)
{
    if (!dir || !*dir) return bl_fail("compare: empty folder name");
    if (snprintf(buf, n, "%s/%s/%s", dir, name, file) >= (int)n)
        return bl_fail("compare: %s: folder name too long", dir);
    return 0;
}

int bl_compare_save(const bl_compare *c, const char *dir)
{
    if (bl_compare_write(c, dir) < 0) return -1;
    const unsigned char *vocab = c->data->kind == BL_DATA_TEXT ? c->data->vocab : NULL;
    int vocab_size = c->data->kind == BL_DATA_TEXT ? c->data->vocab_size : 0;
    for (int i = 0; i < c->n; i++) {
        const bl_cmp_run *r = &c->r[i];
        char path[4200];
        if (!r->run || r->remote || bl_run_steps(r->run) == 0) continue;
        if (run_path(path, sizeof path, dir, r->name, "checkpoint.safetensors") < 0) return -1;
        if (bl_checkpoint_save(path, r->model, r->run, vocab, vocab_size) < 0) {
            bl_error_prefix("compare");
            return -1;
        }
    }
    return 0;
}

/* The first key whose value differs between a and b (config JSON objects), or NULL. */
static const char *config_diff(const json_t *a, const json_t *b)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)a, key, v)
        if (!json_equal(v, json_object_get(b, key))) return key;
    json_object_foreach((json_t *)b, key, v)
        if (!json_object_get(a, key)) return key;
    return NULL;
}

/* Replace run r by the one the checkpoint at path holds. */
static int resume_run(bl_compare *c, bl_cmp_run *r, const char *path)
{
    bl_ckpt_info info;
    memset(&info, 0, sizeof info);
    bl_model *m = bl_checkpoint_load(path, &info);
    if (!m) {
        bl_error_prefix("compare");
        return -1;
    }
    bl_run *run = NULL;
    json_t *want = bl_config_to_json(&r->model->cfg), *got = bl_config_to_json(&m->cfg);
    const char *key = want && got ? config_diff(want, got) : NULL;
    int rc = -1;
    if (!want || !got) bl_fail("compare: %s: out of memory", path);
    else if (key)
        bl_fail("compare: %s: holds another run (its config differs in %s); give another dir= or remove it",
                path, key);
    else if (m->kind != r->model->kind) bl_fail("compare: %s: holds another kind of model", path);
    else if (strcmp(info.data_name, c->data->name))
        bl_fail("compare: %s: was trained on %s, not %s", path, info.data_name, c->data->name);
    else if (info.step > c->steps)
        bl_fail("compare: %s: has taken %ld steps, more than steps=%d", path, info.step, c->steps);
    else if (!(run = bl_run_new(m, c->data, r->run->val_n)))
        bl_error_prefix("compare: %s", path);
    else if (info.exam_n && info.exam_n != run->val_n)
        bl_fail("compare: %s: took an exam of %d, not %d", path, info.exam_n, run->val_n);
    else if (bl_run_restore(run, &info) < 0 || bl_metrics_reserve(&run->metrics, c->steps - (int)info.step) < 0)
        bl_error_prefix("compare: %s", path);
    else
        rc = 0;
    json_decref(want);
    json_decref(got);
    bl_ckpt_info_clear(&info);
    if (rc < 0) {
        bl_run_free(run);
        bl_model_free(m);
        return -1;
    }
    m->interrupted = r->model->interrupted;
    bl_run_free(r->run);
    bl_model_free(r->model);
    r->model = m;
    r->run = run;
    return 0;
}

int bl_compare_resume(bl_compare *c, const char *dir, int *resumed)
{
    *resumed = 0;
    for (int i = 0; i < c->n; i++) {
        char path[4200];
        struct stat sb;
        if (run_path(path, sizeof path, dir, c->r[i].name, "checkpoint.safetensors") < 0) return -1;
        if (stat(path, &sb) != 0) {
            if (errno == ENOENT) continue;
            return bl_fail("compare: %s: %s", path, strerror(errno));
        }
        if (resume_run(c, &c->r[i], path) < 0) return -1;
        ++*resumed;
    }
    int least = c->steps;
    for (int i = 0; i < c->n; i++)
        if (bl_run_steps(c->r[i].run) < least) least = bl_run_steps(c->r[i].run);
    c->done = least;
    return 0;
}
