/* checkpoint.c - checkpoints as safetensors (see checkpoint.h). */
#include "train/checkpoint.h"
#include "core/error.h"
#include "train/safetensors.h"
#include <math.h>
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

int bl_checkpoint_save(const char *path, const bl_model *m, const bl_run *r,
                       const unsigned char *vocab, int vocab_size)
{
    const bl_params *p = m->params;
    int with_optim = r && p->m && p->v;
    int n = p->n * (with_optim ? 3 : 1);
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
    meta_k[nmeta] = "format"; meta_v[nmeta++] = strdup(CKPT_FORMAT);
    meta_k[nmeta] = "kind"; meta_v[nmeta++] = strdup(bl_model_kind_name(m->kind));
    meta_k[nmeta] = "config"; meta_v[nmeta++] = dump(bl_config_to_json(&m->cfg));
    char step[32];
    snprintf(step, sizeof step, "%ld", r ? r->opt.step : 0L);
    meta_k[nmeta] = "step"; meta_v[nmeta++] = strdup(step);
    if (r) {
        meta_k[nmeta] = "history"; meta_v[nmeta++] = dump(bl_metrics_to_json(&r->metrics));
        meta_k[nmeta] = "data";
        meta_v[nmeta++] = dump(json_pack("{s:s,s:s,s:I,s:i}", "name", r->data->name, "source",
                                         r->data->source ? r->data->source : "",
                                         "drawn", (json_int_t)r->batcher.drawn, "exam", r->val_n));
    }
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

void bl_ckpt_info_clear(bl_ckpt_info *info)
{
    if (info->history) json_decref(info->history);
    memset(info, 0, sizeof *info);
}

static json_t *meta_json(const bl_st_file *f, const char *key, const char *path)
{
    const char *s = bl_st_meta(f, key);
    if (!s) return NULL;
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    if (!j) bl_fail("load: %s: metadata \"%s\" is not valid JSON (%s)", path, key, e.text);
    return j;
}

/* Copy one stored tensor into the parameter store buffer `dst` at parameter i's offset. */
static int load_into(const bl_st_file *f, const char *name, const bl_tensor *like, float *dst,
                     const char *path)
{
    const bl_tensor *t = bl_st_get(f, name);
    char a[64], b[64];
    if (!t) return bl_fail("load: %s: tensor %s is missing (the config needs it)", path, name);
    if (bl_st_need_values(f, t) < 0) { bl_error_prefix("load"); return -1; }
    if (!bl_same_shape(t, like))
        return bl_fail("load: %s: tensor %s has shape %s but the config needs %s", path, name,
                       bl_shape_str(t, a, sizeof a), bl_shape_str(like, b, sizeof b));
    for (size_t k = 0; k < t->numel; k++)   /* such a model computes only nan: refuse it whole */
        if (!isfinite(t->data[k]))
            return bl_fail("load: %s: tensor %s holds %s at element %zu: refused (load(\"%s\", "
                           "\"%s\") shows its values)", path, name, isnan(t->data[k]) ? "nan" : "inf",
                           k, path, name);
    memcpy(dst, t->data, t->numel * sizeof(float));
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
    const char *fmt = bl_st_meta(f, "format");
    if (!fmt || strcmp(fmt, CKPT_FORMAT) != 0) {
        bl_fail("load: %s: not a blocklab checkpoint (metadata \"format\" is %s%s%s)", path,
                fmt ? "\"" : "", fmt ? fmt : "missing", fmt ? "\"" : "");
        goto fail;
    }
    bl_config cfg;
    if (!(cj = meta_json(f, "config", path))) {
        if (!bl_error()[0] || !strstr(bl_error(), "not valid JSON"))
            bl_fail("load: %s: the metadata has no \"config\"", path);
        goto fail;
    }
    if (bl_config_from_json(cj, &cfg) < 0) { bl_error_prefix("load: %s: config", path); goto fail; }
    if (!(m = bl_model_new(&cfg))) { bl_error_prefix("load: %s", path); goto fail; }
    bl_params *p = m->params;
    for (int i = 0; i < p->n; i++)
        if (load_into(f, p->t[i].name, &p->t[i], p->t[i].data, path) < 0) goto fail;
    char nm[BL_PARAM_NAME_MAX + 8];
    snprintf(nm, sizeof nm, "optim.m.%s", p->t[0].name);
    if (bl_st_get(f, nm)) {
        if (bl_params_alloc_moments(p) < 0) goto fail;
        for (int i = 0; i < p->n; i++)
            for (int k = 0; k < 2; k++) {
                snprintf(nm, sizeof nm, "optim.%c.%s", k ? 'v' : 'm', p->t[i].name);
                if (load_into(f, nm, &p->t[i], (k ? p->v : p->m) + p->info[i].offset, path) < 0) goto fail;
            }
        info->has_optim = 1;
    }
    const char *step = bl_st_meta(f, "step");
    info->step = step ? strtol(step, NULL, 10) : 0;
    if (info->step < 0) { bl_fail("load: %s: step %ld is negative", path, info->step); goto fail; }
    if ((dj = meta_json(f, "data", path))) {
        const char *dn = json_string_value(json_object_get(dj, "name"));
        const char *ds = json_string_value(json_object_get(dj, "source"));
        snprintf(info->data_name, sizeof info->data_name, "%s", dn ? dn : "");
        snprintf(info->data_source, sizeof info->data_source, "%s", ds ? ds : "");
        info->drawn = (uint64_t)json_integer_value(json_object_get(dj, "drawn"));
        json_int_t exam = json_integer_value(json_object_get(dj, "exam"));   /* 0 when absent */
        info->exam_n = exam > 0 && exam <= 1000000000 ? (int)exam : 0;
    } else if (bl_st_meta(f, "data")) goto fail;
    if ((vj = meta_json(f, "vocab", path))) {
        size_t n = json_array_size(vj);
        if (!json_is_array(vj) || n < 1 || n > 256) {
            bl_fail("load: %s: metadata \"vocab\" is not a list of 1 to 256 byte values", path);
            goto fail;
        }
        for (size_t i = 0; i < n; i++) {
            json_int_t b = json_integer_value(json_array_get(vj, i));
            if (b < 0 || b > 255) { bl_fail("load: %s: vocab entry %zu is not a byte", path, i); goto fail; }
            info->vocab[i] = (unsigned char)b;
        }
        info->vocab_size = (int)n;
    } else if (bl_st_meta(f, "vocab")) goto fail;
    info->history = meta_json(f, "history", path);
    if (!info->history && bl_st_meta(f, "history")) goto fail;
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
