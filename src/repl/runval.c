/* runval.c - run values: a snapshot of a model's run (m.run, run(m), metrics; trainstate.h). */
#include "repl/trainstate.h"
#include "repl/modelvars.h"
#include "core/fmt.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bl_metrics m;
} runval;

static void rv_free(void *p)
{
    runval *r = p;
    bl_metrics_free(&r->m);
    free(r);
}

static void rv_describe(void *p, char *buf, size_t n)
{
    const bl_metrics *m = &((runval *)p)->m;
    size_t len = (size_t)snprintf(buf, n, "%d steps", m->steps);
    /* losses with 4 decimals, as train and eval print them */
    if (m->steps && len < n) len += (size_t)bl_snprintf(buf + len, n - len, ", loss %.4f", m->loss[m->steps - 1]);
    if (m->nval && len < n)
        len += (size_t)bl_snprintf(buf + len, n - len, ", val %.4f at step %d", m->val_loss[m->nval - 1],
                                m->val_step[m->nval - 1]);
    if (m->steps && len < n) snprintf(buf + len, n - len, ", %.1f ms/step", bl_metrics_ms_per_step(m));
}

static void rv_print(void *p, FILE *out)
{
    char d[256];
    rv_describe(p, d, sizeof d);
    fprintf(out, "<run %s>\n", d);
}

static bl_value *floats_value(const float *x, int n)
{
    if (n == 0) return bl_val_list(0);
    bl_tensor *t = bl_tensor_new1(n);
    if (t) memcpy(t->data, x, (size_t)n * sizeof(float));
    return bl_val_tensor(t);
}

static bl_value *rv_field(void *p, const char *name)
{
    const bl_metrics *m = &((runval *)p)->m;
    if (!strcmp(name, "steps")) return bl_val_num(m->steps);
    if (!strcmp(name, "loss")) return floats_value(m->loss, m->steps);
    if (!strcmp(name, "ms")) return floats_value(m->ms, m->steps);
    if (!strcmp(name, "lr")) return floats_value(m->lr, m->steps);
    if (!strcmp(name, "val")) {
        if (m->nval == 0) return bl_val_list(0);
        bl_tensor *t = bl_tensor_new2(m->nval, 2);
        for (int i = 0; t && i < m->nval; i++) {
            t->data[2 * i] = (float)m->val_step[i];
            t->data[2 * i + 1] = m->val_loss[i];
        }
        return bl_val_tensor(t);
    }
    if (!strcmp(name, "spikes")) {
        bl_value *l = bl_val_list(m->nspikes);
        for (int i = 0; l && i < m->nspikes; i++)
            if (bl_val_list_set(l, i, bl_val_num(m->spikes[i])) < 0) {
                bl_val_unref(l);
                return NULL;
            }
        return l;
    }
    if (!strcmp(name, "ms_per_step")) return bl_val_num(bl_metrics_ms_per_step(m));
    if (!strcmp(name, "items")) return bl_val_num((double)m->items);
    if (!strcmp(name, "params")) return bl_val_num((double)m->params);
    if (!strcmp(name, "wall_s")) return bl_val_num(m->wall_s);
    return BL_FAILP("a run has no field '%s' (fields: steps, loss, val, ms_per_step, spikes, items, "
                    "params, ms, lr, wall_s)", name);
}

static int rv_save(void *p, const char *path, const char *cmdline)
{
    (void)cmdline;
    const char *dot = strrchr(path, '.');
    if (!dot || strcasecmp(dot, ".json"))
        return bl_fail("%s: a run is written as .json (metrics.json)", path);
    return bl_metrics_write(&((runval *)p)->m, path);
}

const bl_handle_type bl_runval_type = { "run", rv_free, rv_print, rv_field, rv_describe, rv_save, NULL };

const bl_metrics *bl_runval_metrics(const bl_value *v)
{
    if (!v || v->kind != BL_V_HANDLE || v->htype != &bl_runval_type) return NULL;
    return &((runval *)v->h)->m;
}

bl_value *bl_train_run_value(const bl_model *m, const char *cmd)
{
    const bl_metrics *src = bl_train_metrics(m);   /* the run's, or a loaded checkpoint's */
    if (!src) return BL_FAILP("%s: the model has not been trained yet (train N)", cmd);
    runval *r = calloc(1, sizeof *r);
    if (!r) return BL_FAILP("%s: out of memory", cmd);
    bl_metrics_init(&r->m, bl_model_param_count(m), bl_kind_of(m->kind)->unit);
    json_t *j = bl_metrics_to_json(src);
    int rc = j ? bl_metrics_from_json(&r->m, j) : -1;
    json_decref(j);
    if (rc < 0) {
        rv_free(r);
        return NULL;
    }
    return bl_val_handle(&bl_runval_type, r);
}

static bl_value *fn_run(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_value *v = a->v[0];
    if (v->kind != BL_V_HANDLE || v->htype != &bl_model_type) {
        bl_fail("run: expects a model, got a %s", bl_val_kind_name(v));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    bl_value *r = bl_train_run_value(v->h, "run");
    if (!r) bl_session_errat(a->s, a->vpos[0]);
    return r;
}

/* run(m) with its help: this file's function table (repl.h; bl_function_at lists it after
 * functions.c's own). */
const bl_function bl_run_functions[] = {
    { "run", "run(m)",
      "A snapshot of model m's training run. Fields: steps, loss (a tensor of the losses), val\n"
      "([k, 2]: step, loss), ms_per_step, spikes, items, params. r = run(m); r > r.json writes\n"
      "metrics.json. m.run is the same.", fn_run },
    { NULL, NULL, NULL, NULL },
};
