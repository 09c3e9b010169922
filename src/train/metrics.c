/* metrics.c - run records, spike detection and metrics.json (see metrics.h). */
#include "train/metrics.h"
#include "core/error.h"
#include "core/fileio.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void bl_metrics_init(bl_metrics *m, size_t params, const char *item_unit)
{
    memset(m, 0, sizeof *m);
    m->params = params;
    m->item_unit = item_unit;
}

void bl_metrics_free(bl_metrics *m)
{
    free(m->loss); free(m->ms); free(m->lr);
    free(m->val_step); free(m->val_loss); free(m->spikes);
    memset(m, 0, sizeof *m);
}

static int grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap) return 0;
    int nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *np = realloc(*p, (size_t)nc * elem);
    if (!np) return bl_fail("metrics: out of memory");
    *p = np;
    *cap = nc;
    return 0;
}

int bl_metrics_reserve(bl_metrics *m, int more)
{
    int need = m->steps + more;
    if (need <= m->cap) return 0;
    float **arrays[3] = {&m->loss, &m->ms, &m->lr};
    for (int i = 0; i < 3; i++) {
        int cap = m->cap;
        if (grow((void **)arrays[i], &cap, need, sizeof(float)) < 0) return -1;
        if (i == 2) m->cap = cap;
    }
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

float bl_metrics_median(const bl_metrics *m, int before, int n)
{
    if (before > m->steps) before = m->steps;
    int start = before - n < 0 ? 0 : before - n, k = before - start;
    if (k <= 0) return NAN;
    float buf[BL_SPIKE_WINDOW * 4];
    if (k > (int)(sizeof buf / sizeof *buf)) { start = before - (int)(sizeof buf / sizeof *buf); k = before - start; }
    memcpy(buf, m->loss + start, (size_t)k * sizeof(float));
    qsort(buf, (size_t)k, sizeof(float), cmp_float);
    return k % 2 ? buf[k / 2] : 0.5f * (buf[k / 2 - 1] + buf[k / 2]);
}

int bl_metrics_step(bl_metrics *m, float loss, float ms, float lr, long long items)
{
    if (m->steps >= m->cap && bl_metrics_reserve(m, m->cap ? m->cap : 64) < 0) return -1;
    int spike = 0;
    if (m->steps >= 10) {
        float med = bl_metrics_median(m, m->steps, BL_SPIKE_WINDOW);
        spike = loss > BL_SPIKE_FACTOR * med;
    }
    m->loss[m->steps] = loss;
    m->ms[m->steps] = ms;
    m->lr[m->steps] = lr;
    m->steps++;
    m->items += items;
    m->wall_s += ms / 1000.0;
    if (spike) {
        if (grow((void **)&m->spikes, &m->spikecap, m->nspikes + 1, sizeof(int)) < 0) return -1;
        m->spikes[m->nspikes++] = m->steps;
    }
    return spike;
}

int bl_metrics_val(bl_metrics *m, int step, float loss)
{
    if (m->nval && m->val_step[m->nval - 1] == step) {   /* evaluated again at the same step */
        m->val_loss[m->nval - 1] = loss;
        return 0;
    }
    int c = m->valcap;
    if (grow((void **)&m->val_step, &c, m->nval + 1, sizeof(int)) < 0) return -1;
    c = m->valcap;
    if (grow((void **)&m->val_loss, &c, m->nval + 1, sizeof(float)) < 0) return -1;
    m->valcap = c;
    m->val_step[m->nval] = step;
    m->val_loss[m->nval] = loss;
    m->nval++;
    return 0;
}

void bl_metrics_truncate(bl_metrics *m, int steps)
{
    if (steps >= m->steps) return;
    m->steps = steps;
    while (m->nval && m->val_step[m->nval - 1] > steps) m->nval--;
    while (m->nspikes && m->spikes[m->nspikes - 1] > steps) m->nspikes--;
}

double bl_metrics_ms_per_step(const bl_metrics *m)
{
    return m->steps ? m->wall_s * 1000.0 / m->steps : 0.0;
}

static json_t *float_array(const float *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_real(x[i]));
    return a;
}

json_t *bl_metrics_to_json(const bl_metrics *m)
{
    json_t *j = json_object();
    json_object_set_new(j, "params", json_integer((json_int_t)m->params));
    json_object_set_new(j, "steps", json_integer(m->steps));
    json_object_set_new(j, "items", json_integer((json_int_t)m->items));
    json_object_set_new(j, "item_unit", json_string(m->item_unit ? m->item_unit : "items"));
    json_object_set_new(j, "loss", float_array(m->loss, m->steps));
    json_object_set_new(j, "ms", float_array(m->ms, m->steps));
    json_object_set_new(j, "lr", float_array(m->lr, m->steps));
    json_t *val = json_array();
    for (int i = 0; i < m->nval; i++)
        json_array_append_new(val, json_pack("[i,f]", m->val_step[i], (double)m->val_loss[i]));
    json_object_set_new(j, "val", val);
    json_t *sp = json_array();
    for (int i = 0; i < m->nspikes; i++) json_array_append_new(sp, json_integer(m->spikes[i]));
    json_object_set_new(j, "spikes", sp);
    double ms = bl_metrics_ms_per_step(m);
    json_object_set_new(j, "ms_per_step", json_real(ms));
    json_object_set_new(j, "it_per_s", json_real(ms > 0 ? 1000.0 / ms : 0.0));
    json_object_set_new(j, "items_per_s", json_real(m->wall_s > 0 ? (double)m->items / m->wall_s : 0.0));
    json_object_set_new(j, "wall_s", json_real(m->wall_s));
    return j;
}

int bl_json_count(const json_t *j, long long lo, long long hi, long long *out)
{
    double d;
    if (json_is_integer(j)) {
        long long v = (long long)json_integer_value(j);
        if (v < lo || v > hi) return -1;
        *out = v;
        return 0;
    }
    if (!json_is_real(j)) return -1;
    d = json_real_value(j);   /* older files wrote some counts as reals (19200.0) */
    if (!isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi) return -1;
    *out = (long long)d;
    return 0;
}

const char *bl_json_what(const json_t *j, char *buf, size_t n)
{
    if (json_is_integer(j)) snprintf(buf, n, "%lld", (long long)json_integer_value(j));
    else if (json_is_real(j)) snprintf(buf, n, "%g", json_real_value(j));
    else snprintf(buf, n, "%s", !j ? "missing" : json_is_string(j) ? "a string" : json_is_array(j) ? "a list" :
                                json_is_object(j) ? "an object" : json_is_boolean(j) ? "a boolean" : "null");
    return buf;
}

static int count_field(const json_t *j, const char *key, long long lo, long long hi, long long *out)
{
    const json_t *v = json_object_get(j, key);
    char b[48];
    if (bl_json_count(v, lo, hi, out) < 0)
        return bl_fail("metrics: \"%s\" is %s, not a whole number from %lld to %lld", key, bl_json_what(v, b, sizeof b), lo, hi);
    return 0;
}

/* n finite numbers (>= 0 unless `signed_ok`) from the list j[key]. */
static int read_floats(const json_t *j, const char *key, float *out, int n, int signed_ok)
{
    const json_t *a = json_object_get(j, key);
    char b[48];
    if (!json_is_array(a) || (int)json_array_size(a) != n) {
        if (json_is_array(a)) snprintf(b, sizeof b, "a list of %zu", json_array_size(a));
        return bl_fail("metrics: \"%s\" is %s, not a list of %d numbers (one per step)", key,
                       json_is_array(a) ? b : bl_json_what(a, b, sizeof b), n);
    }
    for (int i = 0; i < n; i++) {
        const json_t *x = json_array_get(a, (size_t)i);
        double v = json_number_value(x);
        if (!json_is_number(x) || !isfinite((float)v) || (!signed_ok && v < 0))
            return bl_fail("metrics: \"%s\" entry %d is %s, not a finite%s number", key, i,
                           bl_json_what(x, b, sizeof b), signed_ok ? "" : " non-negative");
        out[i] = (float)v;
    }
    return 0;
}

int bl_metrics_from_json(bl_metrics *m, const json_t *j)
{
    if (!json_is_object(j)) return bl_fail("metrics: not a JSON object");
    const json_t *val = json_object_get(j, "val"), *sp = json_object_get(j, "spikes"),
                 *unit = json_object_get(j, "item_unit");
    long long n, params, items;
    char b[48];
    if (count_field(j, "steps", 0, BL_METRICS_MAX_STEPS, &n) < 0 ||
        count_field(j, "params", 0, (long long)1 << 50, &params) < 0 ||
        count_field(j, "items", 0, (long long)1 << 62, &items) < 0)
        return -1;
    double wall = json_number_value(json_object_get(j, "wall_s"));
    if (!json_is_number(json_object_get(j, "wall_s")) || !isfinite(wall) || wall < 0)
        return bl_fail("metrics: \"wall_s\" is %s, not a finite non-negative number of seconds",
                       bl_json_what(json_object_get(j, "wall_s"), b, sizeof b));
    if (unit && (!json_is_string(unit) || (m->item_unit && strcmp(json_string_value(unit), m->item_unit))))
        return bl_fail("metrics: \"item_unit\" is %s%s%s but this model counts %s", json_is_string(unit) ? "\"" : "",
                       json_is_string(unit) ? json_string_value(unit) : bl_json_what(unit, b, sizeof b),
                       json_is_string(unit) ? "\"" : "", m->item_unit ? m->item_unit : "items");
    if (!json_is_array(val)) return bl_fail("metrics: \"val\" is %s, not a list of [step, loss]", bl_json_what(val, b, sizeof b));
    if (!json_is_array(sp)) return bl_fail("metrics: \"spikes\" is %s, not a list of steps", bl_json_what(sp, b, sizeof b));
    bl_metrics t;
    bl_metrics_init(&t, (size_t)params, m->item_unit);
    if (bl_metrics_reserve(&t, (int)n) < 0) goto fail;
    if (read_floats(j, "loss", t.loss, (int)n, 1) < 0 || read_floats(j, "ms", t.ms, (int)n, 0) < 0 ||
        read_floats(j, "lr", t.lr, (int)n, 0) < 0)
        goto fail;
    t.steps = (int)n;
    t.items = items;
    t.wall_s = wall;
    for (size_t i = 0; i < json_array_size(val); i++) {
        const json_t *p = json_array_get(val, i), *l = json_array_get(p, 1);
        long long step;
        if (!json_is_array(p) || json_array_size(p) != 2 || bl_json_count(json_array_get(p, 0), 0, n, &step) < 0 ||
            !json_is_number(l) || !isfinite((float)json_number_value(l))) {
            bl_fail("metrics: \"val\" entry %zu is not [step, loss] with a step from 0 to %lld and a finite loss", i, n);
            goto fail;
        }
        if (t.nval && step <= t.val_step[t.nval - 1]) {
            bl_fail("metrics: \"val\" entry %zu is at step %lld, not after step %d of the entry before", i, step,
                    t.val_step[t.nval - 1]);
            goto fail;
        }
        if (bl_metrics_val(&t, (int)step, (float)json_number_value(l)) < 0) goto fail;
    }
    for (size_t i = 0; i < json_array_size(sp); i++) {
        long long step;
        if (bl_json_count(json_array_get(sp, i), 1, n, &step) < 0) {
            bl_fail("metrics: \"spikes\" entry %zu is %s, not a step from 1 to %lld", i,
                    bl_json_what(json_array_get(sp, i), b, sizeof b), n);
            goto fail;
        }
        if (t.nspikes && step <= t.spikes[t.nspikes - 1]) {
            bl_fail("metrics: \"spikes\" entry %zu is at step %lld, not after step %d of the entry before", i, step,
                    t.spikes[t.nspikes - 1]);
            goto fail;
        }
        if (grow((void **)&t.spikes, &t.spikecap, t.nspikes + 1, sizeof(int)) < 0) goto fail;
        t.spikes[t.nspikes++] = (int)step;
    }
    bl_metrics_free(m);
    *m = t;
    return 0;
fail:
    bl_metrics_free(&t);
    return -1;
}

int bl_metrics_write(const bl_metrics *m, const char *path)
{
    json_t *j = bl_metrics_to_json(m);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) return bl_fail("metrics: out of memory");
    int r = bl_write_file_atomic(path, s, strlen(s));
    free(s);
    return r;
}
