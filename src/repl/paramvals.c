/* paramvals.c - a model's parameters as live tensors at the prompt (see modellab.h). */
#include "repl/modellab.h"
#include "core/error.h"
#include "models/model.h"
#include "repl/trainstate.h"
#include <stdlib.h>
#include <string.h>

struct bl_paramref {
    bl_value *model;        /* the model value (reference): its version moves when p is written */
    bl_params *store;       /* the store p's data and grad point into (reference: it outlives a
                               rebuild of the model, which then no longer holds it) */
    int index;              /* p's place in the store */
};

bl_value *bl_lab_param_value(bl_value *model, int i)
{
    bl_model *m = model->h;
    const bl_tensor *pt = &m->params->t[i];
    struct bl_paramref *r = calloc(1, sizeof *r);
    bl_tensor *d = r ? bl_tensor_reshape(pt, pt->ndim, pt->shape) : NULL;
    bl_tensor *g = d ? bl_tensor_reshape(pt, pt->ndim, pt->shape) : NULL;
    if (!g) {
        free(r);
        bl_tensor_free(d);
        return BL_FAILP("parameters: out of memory");
    }
    d->grad = NULL, d->grad_lazy = NULL;
    g->data = pt->grad, g->grad = NULL, g->grad_lazy = NULL;
    bl_value *v = bl_val_tensor(d);
    if (!v) {
        free(r);
        bl_tensor_free(g);
        return NULL;
    }
    r->model = bl_val_ref(model);
    r->store = bl_params_ref(m->params);
    r->index = i;
    v->requires_grad = 1;
    v->grad = g;
    v->param = r;
    return v;
}

void bl_lab_param_release(struct bl_paramref *r)
{
    if (!r) return;
    bl_val_unref(r->model);
    bl_params_free(r->store);
    free(r);
}

int bl_lab_param_has_grad(const bl_value *v)
{
    const bl_params *p = v->param ? v->param->store : NULL;
    return p && p->has_grad && !(p->grad_none && p->grad_none[v->param->index]);
}

/* The store's per-parameter None flags, allocated (all 0) when absent; NULL when out of memory
 * (the parameter then reads zeros, not None, as before the flags). */
static unsigned char *none_flags(bl_params *p)
{
    if (!p->grad_none) p->grad_none = calloc((size_t)p->n, 1);
    return p->grad_none;
}

void bl_lab_param_note_grad(bl_value *v)
{
    if (!v->param) return;
    bl_params *p = v->param->store;
    if (!p->has_grad) {     /* the first backward since the gradients were None reached only v */
        unsigned char *f = none_flags(p);
        if (f) memset(f, 1, (size_t)p->n);
        p->has_grad = 1;
    }
    if (p->grad_none) p->grad_none[v->param->index] = 0;
}

void bl_lab_param_zero_grad(bl_value *v)
{
    if (v->param && v->grad) memset(v->grad->data, 0, v->grad->numel * sizeof(float));
}

void bl_lab_param_set_grad_none(bl_value *v)
{
    if (!v->param) return;
    bl_lab_param_zero_grad(v);      /* the next backward adds into zeros: a fresh gradient */
    bl_params *p = v->param->store;
    unsigned char *f = p->has_grad ? none_flags(p) : NULL;
    if (!f) return;
    f[v->param->index] = 1;
    int all = 1;
    for (int i = 0; i < p->n && all; i++) all = f[i];
    if (all) {      /* every parameter None: the model's gradients are None (step(m) skips) */
        p->has_grad = 0;
        memset(f, 0, (size_t)p->n);
    }
}

static int detached(const bl_value *v)
{
    const bl_model *m = v->param->model->h;
    return m->params != v->param->store;
}

int bl_lab_param_detached(const bl_value *v)
{
    if (!v->param || !detached(v)) return 0;
    return bl_fail("this parameter belongs to weights the model no longer has (a rebuild since, by set, "
                   "data or a new vocabulary, made new ones): take m.parameters() again");
}

int bl_lab_param_write(bl_value *v, const bl_tensor *src)
{
    if (bl_lab_param_detached(v) < 0) return -1;
    float *d = v->t->data;
    for (size_t k = 0; k < v->t->numel; k++) d[k] = src->data[src->numel == 1 ? 0 : k];
    v->version++;
    bl_model *m = v->param->model->h;
    m->version++;       /* a loss computed before is stale (PyTorch's version counter) */
    bl_train_state *st = bl_train_get(m);
    if (st) st->edited = 1;     /* a vocab rebuild must not drop this edit silently */
    return 0;
}
