/* checkpoint.c - checkpoints as safetensors (see checkpoint.h). */
#include "train/checkpoint.h"
#include "core/fmt.h"
#include "core/error.h"
#include "train/safetensors.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_FORMAT "blocklab-checkpoint-1"

static char *dump(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

/* Write the checkpoint: m's weights, its moments when with_optim, and the metadata; history and
 * data (JSON, borrowed) are written when given. */
static int write_ckpt(const char *path, const bl_model *m, long steps, const json_t *history, const json_t *data,
                      int with_optim, const unsigned char *vocab, int vocab_size)
{
    const bl_params *p = m->params;
    with_optim = with_optim && p->m && p->v;
    const bl_kind *kind = bl_kind_of(m->kind);
    const bl_tensor *wte = kind->tied_head ? bl_params_find(p, kind->tied_to) : NULL;
    int n = p->n * (with_optim ? 3 : 1) + (wte != NULL);
    const char **names = calloc((size_t)n, sizeof *names);
    const bl_tensor **ts = calloc((size_t)n, sizeof *ts);
    bl_tensor *mv = with_optim ? calloc((size_t)2 * p->n, sizeof *mv) : NULL;
    char *namebuf = with_optim ? malloc((size_t)2 * p->n * (BL_PARAM_NAME_MAX + 8)) : NULL;
    char *meta_v[7] = {0};
    const char *meta_k[7];
    int nmeta = 0, rc = -1;
    if (!names || !ts || (with_optim && (!mv || !namebuf))) { bl_fail("save: out of memory"); goto out; }
    for (int i = 0; i < p->n; i++) { names[i] = p->t[i].name; ts[i] = &p->t[i]; }
    if (with_optim) {
        for (int i = 0; i < p->n; i++) {
            for (int k = 0; k < 2; k++) {
                bl_tensor *t = &mv[2 * i + k];
                char *nm = namebuf + (size_t)(2 * i + k) * (BL_PARAM_NAME_MAX + 8);
                *t = p->t[i];
                t->grad = NULL;
                t->data = (k ? p->v : p->m) + p->info[i].offset;
                snprintf(nm, BL_PARAM_NAME_MAX + 8, "optim.%c.%s", k ? 'v' : 'm', p->t[i].name);
                names[p->n + 2 * i + k] = nm;
                ts[p->n + 2 * i + k] = t;
            }
        }
    }
    if (wte) {  /* nanoGPT's state_dict holds the tied head under both names (load_state_dict(strict=True)) */
        names[n - 1] = kind->tied_head;
        ts[n - 1] = wte;
    }
    meta_k[nmeta] = "format"; meta_v[nmeta++] = strdup(CKPT_FORMAT);
    meta_k[nmeta] = "kind"; meta_v[nmeta++] = strdup(bl_model_kind_name(m->kind));
    meta_k[nmeta] = "config"; meta_v[nmeta++] = dump(bl_config_to_json(&m->cfg));
    char step[32];
    snprintf(step, sizeof step, "%ld", steps);
    meta_k[nmeta] = "step"; meta_v[nmeta++] = strdup(step);
    if (history) { meta_k[nmeta] = "history"; meta_v[nmeta++] = json_dumps(history, JSON_COMPACT); }
    if (data) { meta_k[nmeta] = "data"; meta_v[nmeta++] = json_dumps(data, JSON_COMPACT); }
    if (vocab && vocab_size > 0) {
        json_t *a = json_array();
        for (int i = 0; i < vocab_size; i++) json_array_append_new(a, json_integer(vocab[i]));
        meta_k[nmeta] = "vocab"; meta_v[nmeta++] = dump(a);
    }
    for (int i = 0; i < nmeta; i++)
        if (!meta_v[i]) { bl_fail("save: out of memory"); goto out; }
    rc = bl_st_write(path, n, names, ts, nmeta, meta_k, (const char *const *)meta_v);
out:
    for (int i = 0; i < nmeta; i++) free(meta_v[i]);
    free(names); free(ts); free(mv); free(namebuf);
    return rc;
}

int bl_checkpoint_save(const char *path, const bl_model *m, const bl_run *r,
                       const unsigned char *vocab, int vocab_size)
{
    json_t *h = NULL, *d = NULL;
    if (r) {
        h = bl_metrics_to_json(&r->metrics);
        d = json_pack("{s:s,s:s,s:I,s:i}", "name", r->data->name, "source", r->data->source ? r->data->source : "",
                      "drawn", (json_int_t)r->batcher.drawn, "exam", r->val_n);
        if (!h || !d) {
            json_decref(h);
            json_decref(d);
            return bl_fail("save: out of memory");
        }
    }
    int rc = write_ckpt(path, m, r ? r->opt.step : 0L, h, d, r != NULL, vocab, vocab_size);
    json_decref(h);
    json_decref(d);
    return rc;
}

int bl_checkpoint_save_info(const char *path, const bl_model *m, const bl_ckpt_info *info,
                            const unsigned char *vocab, int vocab_size)
{
    json_t *d = NULL;
    if (info->data_name[0]) {   /* as parse_data read it: no "exam" when the file had none */
        d = json_pack("{s:s,s:s,s:I}", "name", info->data_name, "source", info->data_source, "drawn",
                      (json_int_t)info->drawn);
        if (d && info->exam_n > 0 && json_object_set_new(d, "exam", json_integer(info->exam_n)) < 0) {
            json_decref(d);
            d = NULL;
        }
        if (!d) return bl_fail("save: out of memory");
    }
    int rc = write_ckpt(path, m, info->step, info->history, d, info->has_optim, vocab, vocab_size);
    json_decref(d);
    return rc;
}

void bl_ckpt_info_clear(bl_ckpt_info *info)
{
    if (info->history) json_decref(info->history);
    memset(info, 0, sizeof *info);
}

/* "load: PATH: metadata "KEY" <what is wrong>" */
static int meta_fail(const char *path, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int meta_fail(const char *path, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bl_fail("load: %s: metadata \"%s\" %s", path, key, msg);
}

static json_t *meta_json(const bl_st_file *f, const char *key, const char *path)
{
    const char *s = bl_st_meta(f, key);
    if (!s) return NULL;
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    char b[64];
    if (!j) meta_fail(path, key, "is not valid JSON (%s)", bl_fmt_shown(e.text, b, sizeof b));
    return j;
}

/* Copy one stored tensor into the parameter store buffer `dst` at parameter i's offset. nan and
 * inf are refused, except +inf when pos_inf: AdamW's second moment overflows to +inf where a
 * gradient's square does (a diverging run), and such an element then just takes no update
 * (m / (sqrt(v) + eps) = 0, as in PyTorch), so a run saved so is resumed as it was. */
static int load_into(const bl_st_file *f, const char *name, const bl_tensor *like, float *dst,
                     const char *path, int pos_inf)
{
    const bl_tensor *t = bl_st_get(f, name);
    char a[64], b[64];
    if (!t) return bl_fail("load: %s: tensor %s is missing (the config needs it)", path, name);
    if (bl_st_need_values(f, t) < 0) { bl_error_prefix("load"); return -1; }
    if (!bl_same_shape(t, like))
        return bl_fail("load: %s: tensor %s has shape %s but the config needs %s", path, name,
                       bl_shape_str(t, a, sizeof a), bl_shape_str(like, b, sizeof b));
    for (size_t k = 0; k < t->numel; k++)   /* such a model computes only nan: refuse it whole */
        if (!isfinite(t->data[k]) && !(pos_inf && t->data[k] > 0))
            return bl_fail("load: %s: tensor %s holds %s at element %zu: refused (load(\"%s\", "
                           "\"%s\") shows its values)", path, name, isnan(t->data[k]) ? "nan" : "inf",
                           k, path, name);
    memcpy(dst, t->data, t->numel * sizeof(float));
    return 0;
}

/* TinyGPT's lm_head.weight, when the file has one (nanoGPT's state_dict holds the tied head under
 * both names): it must have wte's shape and equal the stored transformer.wte.weight (read from
 * the file, so a load that has not copied yet can check). 0 when absent or equal; -1 + error, or
 * with `why` != NULL the reason written there (n bytes of a caller's list) and -1. */
#define TIED_WHY 160
static int tied_head(const bl_st_file *f, const bl_model *m, const char *path, char *why)
{
    const bl_kind *kind = bl_kind_of(m->kind);
    const char *hn = kind->tied_head, *wn = kind->tied_to;
    if (!hn) return 0;
    const bl_tensor *h = bl_st_get(f, hn), *w = bl_st_get(f, wn);
    char b[TIED_WHY], s1[64], s2[64];
    if (!h) return 0;
    const bl_tensor *mw = bl_params_find(m->params, wn);
    b[0] = 0;
    if (bl_st_need_values(f, h) < 0)
        snprintf(b, sizeof b, "%s cannot be read (%s)", hn, f->unheld[h - f->tensors]);
    else if (!bl_same_shape(h, mw))
        snprintf(b, sizeof b, "%s has shape %s but the model needs %s (tied to %s)", hn,
                 bl_shape_str(h, s1, sizeof s1), bl_shape_str(mw, s2, sizeof s2), wn);
    else if (w && w->data && bl_same_shape(w, h)) {
        for (size_t k = 0; k < h->numel; k++)
            if (h->data[k] != w->data[k] && !(isnan(h->data[k]) && isnan(w->data[k]))) {
                snprintf(b, sizeof b, "%s differs from %s at element %zu (%g vs %g): %s ties them", hn, wn, k,
                         (double)h->data[k], (double)w->data[k], kind->title);
                break;
            }
    }
    if (!b[0]) return 0;
    if (why) {
        snprintf(why, TIED_WHY, "%s", b);
        return -1;
    }
    return bl_fail("load: %s: %s", path, b);
}

/* AdamW's moments, stored as optim.m.NAME / optim.v.NAME for every parameter or not at all; they
 * must fit the step: v (a mean of squares) is never negative, and at step 0 no update has been
 * made, so both are zero. */
static int load_moments(const bl_st_file *f, bl_params *p, long step, const char *path, int *has)
{
    int any = 0;
    for (int i = 0; i < f->n; i++) any |= !strncmp(f->tensors[i].name, "optim.", 6);
    *has = any;
    if (!any) {
        if (step > 0)
            return meta_fail(path, "step", "is %ld but the file holds no optimizer state (optim.m.* and "
                             "optim.v.* tensors): the run cannot continue as it was", step);
        return 0;
    }
    if (bl_params_alloc_moments(p) < 0) return -1;
    char nm[BL_PARAM_NAME_MAX + 8];
    for (int i = 0; i < p->n; i++)
        for (int k = 0; k < 2; k++) {
            float *dst = (k ? p->v : p->m) + p->info[i].offset;
            snprintf(nm, sizeof nm, "optim.%c.%s", k ? 'v' : 'm', p->t[i].name);
            if (load_into(f, nm, &p->t[i], dst, path, k) < 0) return -1;
            for (size_t e = 0; e < p->t[i].numel; e++) {
                if (k && dst[e] < 0)
                    return bl_fail("load: %s: tensor %s holds %g at element %zu, but AdamW's second moment "
                                   "is never negative", path, nm, (double)dst[e], e);
                if (step == 0 && dst[e] != 0)
                    return bl_fail("load: %s: tensor %s holds %g at element %zu, but metadata \"step\" is 0: "
                                   "before the first step the optimizer state is zero", path, nm, (double)dst[e], e);
            }
        }
    return 0;
}

/* "step": the optimizer steps, a whole number written in decimal digits only, at most
 * BL_METRICS_MAX_STEPS (checked digit by digit: no overflow, no sign, no spaces, no exponent). */
static int parse_step(const bl_st_file *f, const char *path, long *out)
{
    const char *s = bl_st_meta(f, "step");
    char b[64];
    *out = 0;
    if (!s && bl_st_meta(f, "history")) return meta_fail(path, "step", "is missing (the file has a run's \"history\")");
    if (!s) return 0;   /* a file of weights only: no step taken */
    long v = 0;
    int ok = *s != 0;
    for (const char *c = s; ok && *c; c++) {
        ok = *c >= '0' && *c <= '9' && v <= (BL_METRICS_MAX_STEPS - (*c - '0')) / 10;
        v = ok ? v * 10 + (*c - '0') : v;
    }
    if (!ok)
        return meta_fail(path, "step", "is \"%s\", not a whole number of steps from 0 to %d", bl_fmt_shown(s, b, sizeof b),
                         BL_METRICS_MAX_STEPS);
    *out = v;
    return 0;
}

/* "data": {"name", "source", "drawn", "exam"}: the data set's name and source (strings that fit),
 * the samples drawn (a count) and the exam's size (a positive count; absent in older files). */
static int parse_data(const json_t *dj, const char *path, bl_ckpt_info *info)
{
    const json_t *dn = json_object_get(dj, "name"), *ds = json_object_get(dj, "source"),
                 *exam = json_object_get(dj, "exam");
    long long drawn, e = 0;
    char b[48];
    if (!json_is_object(dj)) return meta_fail(path, "data", "is not an object {\"name\", \"source\", \"drawn\", \"exam\"}");
    if (!json_is_string(dn) || !json_string_value(dn)[0] || strlen(json_string_value(dn)) >= sizeof info->data_name)
        return meta_fail(path, "data", "field \"name\" is not the name of a data set (a string of 1 to %zu characters)",
                         sizeof info->data_name - 1);
    if (!json_is_string(ds) || strlen(json_string_value(ds)) >= sizeof info->data_source)
        return meta_fail(path, "data", "field \"source\" is not a string of at most %zu characters",
                         sizeof info->data_source - 1);
    if (bl_json_count(json_object_get(dj, "drawn"), 0, (long long)1 << 62, &drawn) < 0)
        return meta_fail(path, "data", "field \"drawn\" is %s, not a count of samples drawn (a whole number >= 0)",
                         bl_json_what(json_object_get(dj, "drawn"), b, sizeof b));
    if (exam && bl_json_count(exam, 1, 1000000000, &e) < 0)
        return meta_fail(path, "data", "field \"exam\" is %s, not the size of an exam (a whole number from 1 to "
                         "1000000000)", bl_json_what(exam, b, sizeof b));
    snprintf(info->data_name, sizeof info->data_name, "%s", json_string_value(dn));
    snprintf(info->data_source, sizeof info->data_source, "%s", json_string_value(ds));
    info->drawn = (uint64_t)drawn;
    info->exam_n = (int)e;
    return 0;
}

/* "vocab" (TinyGPT only): the text's distinct bytes in ascending order, as many as the config's
 * vocab (the rows of transformer.wte.weight). */
static int parse_vocab(const json_t *vj, const bl_config *cfg, const char *path, bl_ckpt_info *info)
{
    if (!bl_kind_of(cfg->kind)->text)
        return meta_fail(path, "vocab", "is there, but a %s has no vocabulary", bl_kind_of(cfg->kind)->title);
    if (!json_is_array(vj)) return meta_fail(path, "vocab", "is not a list of byte values");
    size_t n = json_array_size(vj);
    if (n != (size_t)cfg->vocab)
        return meta_fail(path, "vocab", "has %zu byte%s but the config's vocab is %d (transformer.wte.weight [%d, %d])",
                         n, BL_PLURAL(n), cfg->vocab, cfg->vocab, cfg->dim);
    for (size_t i = 0; i < n; i++) {
        long long b;
        const json_t *e = json_array_get(vj, i);
        if (bl_json_count(e, 0, 255, &b) < 0) {
            char v[48] = "not a whole number";
            if (json_is_integer(e)) snprintf(v, sizeof v, "%lld", (long long)json_integer_value(e));
            return meta_fail(path, "vocab", "entry %zu is %s, not a byte value from 0 to 255", i, v);
        }
        if (i && b <= info->vocab[i - 1])
            return meta_fail(path, "vocab", "entry %zu (%lld) does not follow %d: the bytes of a vocabulary are distinct "
                             "and in ascending order", i, b, info->vocab[i - 1]);
        info->vocab[i] = (unsigned char)b;
    }
    info->vocab_size = (int)n;
    return 0;
}

/* "history" (the run's metrics) against the rest: its steps are "step", its parameter count the
 * model's, and the samples it counts those "data" says were drawn (a TinyGPT sample is a window of
 * context tokens). */
static int check_history(const json_t *hj, const bl_model *m, long step, const bl_ckpt_info *info, const char *path)
{
    bl_metrics t;
    long long hsteps;
    if (bl_json_count(json_object_get(hj, "steps"), 0, BL_METRICS_MAX_STEPS, &hsteps) == 0 && hsteps != step)
        return meta_fail(path, "step", "is %ld but the history has %lld steps", step, hsteps);
    bl_metrics_init(&t, bl_model_param_count(m), bl_kind_of(m->kind)->unit);
    if (bl_metrics_from_json(&t, hj) < 0) {
        char msg[512];
        const char *e = bl_error();
        snprintf(msg, sizeof msg, "%s", strncmp(e, "metrics: ", 9) ? e : e + 9);
        return meta_fail(path, "history", "is not a run's history: %s", msg);
    }
    int per = bl_kind_unit_per_item(&m->cfg);
    long long items = t.items;
    size_t params = t.params;
    bl_metrics_free(&t);
    if (params != bl_model_param_count(m))
        return meta_fail(path, "history", "field \"params\" is %zu but the model has %zu parameters", params,
                         bl_model_param_count(m));
    if (items % per || (uint64_t)(items / per) != info->drawn) {
        if (per == 1)
            return meta_fail(path, "data", "field \"drawn\" is %llu but the history counts %lld images",
                             (unsigned long long)info->drawn, items);
        if (items % per)
            return meta_fail(path, "data", "field \"drawn\" is %llu but the history's %lld tokens are not a whole "
                             "number of windows of %d", (unsigned long long)info->drawn, items, per);
        return meta_fail(path, "data", "field \"drawn\" is %llu but the history's %lld tokens are %lld windows of %d",
                         (unsigned long long)info->drawn, items, items / per, per);
    }
    return 0;
}

bl_model *bl_checkpoint_load(const char *path, bl_ckpt_info *info)
{
    bl_ckpt_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    bl_st_file *f = bl_st_read(path);
    if (!f) return NULL;
    bl_model *m = NULL;
    json_t *cj = NULL, *dj = NULL, *vj = NULL;
    char b[64];
    const char *fmt = bl_st_meta(f, "format"), *kind = bl_st_meta(f, "kind");
    if (!fmt || strcmp(fmt, CKPT_FORMAT) != 0) {
        bl_fail("load: %s: not a blocklab checkpoint (metadata \"format\" is %s%s%s, expected \"%s\"); a plain "
                "state_dict loads into a model of its shape: load %s into=MODEL", path,
                fmt ? "\"" : "", fmt ? bl_fmt_shown(fmt, b, sizeof b) : "missing", fmt ? "\"" : "", CKPT_FORMAT, path);
        goto fail;
    }
    bl_config cfg;
    if (!(cj = meta_json(f, "config", path))) {
        if (!bl_st_meta(f, "config")) bl_fail("load: %s: the metadata has no \"config\"", path);
        goto fail;
    }
    if (bl_config_from_json(cj, &cfg) < 0) { bl_error_prefix("load: %s: metadata \"config\"", path); goto fail; }
    {
        /* the keys that make the model (its tensors' shapes and what they compute) must be there: a
         * missing one would take its default, and the file was refused as "tensor blocks.2... is
         * missing" instead of naming the key; the training settings may take their defaults */
        for (int i = 0; i < bl_config_nkeys(); i++) {
            const bl_config_key *k = bl_config_key_at(i);
            if (!bl_config_key_in(k, BL_KEYS_ARCH) || !bl_config_key_applies(k, cfg.kind)) continue;
            if (!json_object_get(cj, k->name)) {
                bl_fail("load: %s: metadata \"config\" has no \"%s\" (a %s checkpoint's config names %s)", path,
                        k->name, bl_model_kind_name(cfg.kind), "its switches and sizes");
                goto fail;
            }
        }
    }
    if (kind && strcmp(kind, bl_model_kind_name(cfg.kind))) {   /* absent: the config says */
        meta_fail(path, "kind", "is \"%s\" but the config is a %s", bl_fmt_shown(kind, b, sizeof b), bl_model_kind_name(cfg.kind));
        goto fail;
    }
    long step = 0;
    if (parse_step(f, path, &step) < 0) goto fail;
    if (!(m = bl_model_new(&cfg))) { bl_error_prefix("load: %s", path); goto fail; }
    bl_params *p = m->params;
    for (int i = 0; i < p->n; i++)
        if (load_into(f, p->t[i].name, &p->t[i], p->t[i].data, path, 0) < 0) goto fail;
    if (tied_head(f, m, path, NULL) < 0) goto fail;
    if (load_moments(f, p, step, path, &info->has_optim) < 0) goto fail;
    info->step = step;
    /* the run: "history" and "data" come together (save writes both for a run), and a run with
     * steps has them */
    int has_h = bl_st_meta(f, "history") != NULL, has_d = bl_st_meta(f, "data") != NULL;
    if (has_h != has_d || (step > 0 && !has_h)) {
        meta_fail(path, has_h ? "data" : "history", "is missing (%s)", has_h ? "the file has a run's \"history\"" :
                  has_d ? "the file has the run's \"data\"" : "the run has taken steps");
        goto fail;
    }
    if (has_d && (!(dj = meta_json(f, "data", path)) || parse_data(dj, path, info) < 0)) goto fail;
    if (bl_st_meta(f, "vocab") && (!(vj = meta_json(f, "vocab", path)) || parse_vocab(vj, &cfg, path, info) < 0))
        goto fail;
    if (has_h && (!(info->history = meta_json(f, "history", path)) ||
                  check_history(info->history, m, step, info, path) < 0))
        goto fail;
    json_decref(cj); json_decref(dj); json_decref(vj);
    bl_st_free(f);
    if (info == &local) bl_ckpt_info_clear(&local);
    return m;
fail:
    json_decref(cj); json_decref(dj); json_decref(vj);
    bl_model_free(m);
    bl_st_free(f);
    bl_ckpt_info_clear(info);
    return NULL;
}

int bl_run_restore(bl_run *r, const bl_ckpt_info *info)
{
    if (info->history && bl_metrics_from_json(&r->metrics, info->history) < 0) return -1;
    r->metrics.params = bl_model_param_count(r->model);
    r->opt.step = info->step;
    bl_batcher_seek(&r->batcher, info->drawn);
    if (r->metrics.nval) r->last_val = r->metrics.val_loss[r->metrics.nval - 1];
    return 0;
}

/* Append "; " and the text to an error list, counting items past the room as "and N more". */
typedef struct { char buf[900]; size_t len; int n, left; } errlist;

static void err_add(errlist *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_add(errlist *e, const char *fmt, ...)
{
    char item[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item, sizeof item, fmt, ap);
    va_end(ap);
    if (e->len + strlen(item) + 2 < sizeof e->buf - 40 && e->left == 0)
        e->len += (size_t)snprintf(e->buf + e->len, sizeof e->buf - e->len, "%s%s", e->n ? "; " : "", item);
    else
        e->left++;
    e->n++;
}

/* The switches of a blocklab checkpoint's config that differ from m's: weights of the same names
 * and shapes may have been trained with another norm, position scheme or eps ("norm=rmsnorm
 * (MNAME has layernorm)"). note[0] = 0 when the file has no config or they agree. */
static void config_note(const bl_st_file *f, const bl_model *m, const char *mname, char *note, size_t n)
{
    const char *cs = bl_st_meta(f, "config");
    json_t *cj = cs ? json_loads(cs, 0, NULL) : NULL;
    bl_config c;
    size_t len = 0;
    note[0] = 0;
    if (cj && bl_config_from_json(cj, &c) == 0 && c.kind == m->kind)
        for (int i = 0; i < bl_config_nkeys() && len < n; i++) {
            const char *key = bl_config_key_at(i)->name;
            char a[64], b[64];
            if (!bl_config_key_in(bl_config_key_at(i), BL_KEYS_ARITH) || !json_object_get(cj, key) ||
                bl_config_get(&c, key, a, sizeof a) < 0 || bl_config_get(&m->cfg, key, b, sizeof b) < 0 ||
                !strcmp(a, b))
                continue;
            len += (size_t)snprintf(note + len, n - len, "%s%s=%s (%s has %s)", len ? ", " : "", key, a, mname, b);
        }
    bl_clear_error();
    json_decref(cj);
}

int bl_checkpoint_load_into(const char *path, bl_model *m, const char *mname, int *nloaded, char *note, size_t nn)
{
    bl_st_file *f = bl_st_read(path);
    if (!f) return -1;
    bl_params *p = m->params;
    errlist e;
    memset(&e, 0, sizeof e);
    char a[64], b[64];
    const char *fmt = bl_st_meta(f, "format");
    int blocklab = fmt && !strcmp(fmt, CKPT_FORMAT);    /* its optim.* moments are not weights */
    for (int i = 0; i < p->n; i++) {
        const bl_tensor *t = bl_st_get(f, p->t[i].name);
        if (!t) { err_add(&e, "missing %s %s", p->t[i].name, bl_shape_str(&p->t[i], a, sizeof a)); continue; }
        if (!bl_same_shape(t, &p->t[i])) {
            err_add(&e, "%s has shape %s but %s needs %s", p->t[i].name, f->shapes[t - f->tensors], mname,
                    bl_shape_str(&p->t[i], b, sizeof b));
            continue;
        }
        if (!t->data) { err_add(&e, "%s cannot be read (%s)", p->t[i].name, f->unheld[t - f->tensors]); continue; }
        for (size_t k = 0; k < t->numel; k++)
            if (!isfinite(t->data[k])) {
                err_add(&e, "%s holds %s at element %zu", p->t[i].name, isnan(t->data[k]) ? "nan" : "inf", k);
                break;
            }
    }
    for (int i = 0; i < f->n; i++) {
        const char *nm = f->tensors[i].name;
        if (bl_params_find(p, nm) || (blocklab && !strncmp(nm, "optim.", 6))) continue;
        if (bl_kind_of(m->kind)->tied_head && !strcmp(nm, bl_kind_of(m->kind)->tied_head)) {
            char why[TIED_WHY];
            if (tied_head(f, m, path, why) < 0) err_add(&e, "%s", why);
            continue;
        }
        err_add(&e, "unexpected %s %s", nm, f->shapes[i]);
    }
    int found = 0;
    for (int i = 0; i < p->n; i++) found += bl_st_get(f, p->t[i].name) != NULL;
    if (e.n && !found) {   /* another model's file: the list would name everything */
        bl_fail("load: %s does not fit %s (nothing loaded): none of its %d parameters is in the file, whose %d "
                "tensor%s start%s with %s (a state_dict of another kind of model?)", path, mname, p->n, f->n,
                BL_PLURAL(f->n), f->n == 1 ? "s" : "", f->n ? f->tensors[0].name : "nothing");
        bl_st_free(f);
        return -1;
    }
    if (e.n) {
        if (e.left) snprintf(e.buf + e.len, sizeof e.buf - e.len, "; and %d more", e.left);
        bl_fail("load: %s does not fit %s (%d problem%s, nothing loaded): %s", path, mname, e.n, BL_PLURAL(e.n),
                e.buf);
        bl_st_free(f);
        return -1;
    }
    for (int i = 0; i < p->n; i++) {
        const bl_tensor *t = bl_st_get(f, p->t[i].name);
        memcpy(p->t[i].data, t->data, t->numel * sizeof(float));
    }
    m->version++;   /* new weights (models/model.h) */
    if (nloaded) *nloaded = p->n;
    if (note && nn) config_note(f, m, mname, note, nn);
    bl_st_free(f);
    return 0;
}
