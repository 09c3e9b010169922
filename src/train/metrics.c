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

/* A count stored as a JSON integer, or as a whole real number (older files wrote 19200.0). */
static long long count_value(const json_t *j)
{
    return json_is_integer(j) ? (long long)json_integer_value(j) : (long long)llround(json_number_value(j));
}

static int read_floats(const json_t *j, const char *key, float *out, int n)
{
    const json_t *a = json_object_get(j, key);
    if (!json_is_array(a) || (int)json_array_size(a) != n)
        return bl_fail("metrics: \"%s\" is missing or does not have %d entries", key, n);
    for (int i = 0; i < n; i++) out[i] = (float)json_number_value(json_array_get(a, (size_t)i));
    return 0;
}

int bl_metrics_from_json(bl_metrics *m, const json_t *j)
{
    if (!json_is_object(j)) return bl_fail("metrics: not a JSON object");
    json_t *steps = json_object_get(j, "steps"), *val = json_object_get(j, "val"), *sp = json_object_get(j, "spikes");
    if (!json_is_integer(steps) || json_integer_value(steps) < 0 || json_integer_value(steps) > 100000000)
        return bl_fail("metrics: \"steps\" is missing or not a sensible count");
    if (!json_is_array(val) || !json_is_array(sp)) return bl_fail("metrics: \"val\" or \"spikes\" is not a list");
    int n = (int)json_integer_value(steps);
    bl_metrics t;
    bl_metrics_init(&t, (size_t)count_value(json_object_get(j, "params")), m->item_unit);
    if (bl_metrics_reserve(&t, n) < 0) goto fail;
    if (read_floats(j, "loss", t.loss, n) < 0 || read_floats(j, "ms", t.ms, n) < 0 ||
        read_floats(j, "lr", t.lr, n) < 0)
        goto fail;
    t.steps = n;
    t.items = count_value(json_object_get(j, "items"));
    t.wall_s = json_number_value(json_object_get(j, "wall_s"));
    for (size_t i = 0; i < json_array_size(val); i++) {
        json_t *p = json_array_get(val, i);
        if (!json_is_array(p) || json_array_size(p) != 2) { bl_fail("metrics: a \"val\" entry is not [step, loss]"); goto fail; }
        if (bl_metrics_val(&t, (int)count_value(json_array_get(p, 0)),
                           (float)json_number_value(json_array_get(p, 1))) < 0) goto fail;
    }
    for (size_t i = 0; i < json_array_size(sp); i++) {
        if (grow((void **)&t.spikes, &t.spikecap, t.nspikes + 1, sizeof(int)) < 0) goto fail;
        t.spikes[t.nspikes++] = (int)count_value(json_array_get(sp, i));
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
