/* functions_grad.c - the autograd functions of the language (repl/autograd.h): requires_grad,
 * backward, zero_grad, detach, gradcheck; with the semantics of torch.Tensor.requires_grad_,
 * torch.autograd.backward, Tensor.grad = None, Tensor.detach and torch.autograd.gradcheck. */
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "repl/optim.h"
#include "core/error.h"
#include "core/fmt.h"
#include "core/rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* requires_grad(x, on=on): x itself (the same value, as torch's in-place requires_grad_), a leaf
 * that now needs a gradient; off stops it (and drops .grad). */
static bl_value *f_requires_grad(bl_callargs *a)
{
    int on;
    static const char *const keys[] = { "on", NULL };
    if (bl_kw_only(a, keys) < 0 || bl_nargs(a, 1, 2) < 0) return NULL;
    if (a->n == 2 ? bl_val_truth(a->v[1]) < 0 : bl_kw_bool(a, "on", 1, &on) < 0) {
        if (a->n == 2) bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    if (a->n == 2) on = bl_val_truth(a->v[1]);
    bl_value *x = a->v[0];
    if (x->kind != BL_V_TENSOR) {
        bl_fail("requires_grad: needs a tensor, got a %s (a number has no gradient: tensor(3.0, grad=on) "
                "makes a 0-D tensor that has)", bl_val_kind_name(x));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    if (x->node) {
        bl_fail("requires_grad: x was computed by %s from values that need a gradient, so it has one "
                "already; only a leaf can be switched (detach(x) makes a new leaf)", bl_ag_op(x));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    if (x->param && !on) {
        bl_fail("requires_grad: freezing a model's parameter is not supported (the model trains all of "
                "them): keep its value with w0 = p.clone() and write it back after step, or set lr=0");
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    x->requires_grad = on;
    if (!on) {
        bl_tensor_free(x->grad);
        x->grad = NULL;
    }
    return bl_val_ref(x);
}

/* The tensor of a value for backward's gradient argument. */
static bl_value *f_backward(bl_callargs *a)
{
    int retain;
    static const char *const keys[] = { "g", "retain_graph", NULL };
    if (bl_kw_only(a, keys) < 0 || bl_nargs(a, 1, 2) < 0 || bl_kw_bool(a, "retain_graph", 0, &retain) < 0)
        return NULL;
    bl_tensor *g = NULL;
    if (a->n == 2 && bl_kw(a, "g")) {
        bl_fail("backward: the gradient given twice (as the second argument and as g=)");
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    if (a->n == 2 && !(g = bl_arg_tensor(a, 1))) return NULL;
    if (a->n == 1 && bl_kw(a, "g") && !(g = bl_kw_tensor(a, "g"))) return NULL;
    if (bl_ag_backward(a->s, a->v[0], g, retain) < 0) {
        bl_session_errat(a->s, a->vpos[a->n == 2 && strstr(bl_error(), "gradient [") ? 1 : 0]);
        return NULL;
    }
    return bl_val_none();
}

/* zero_grad(x, ...): each leaf's .grad back to none (PyTorch's set_to_none default). */
static bl_value *f_zero_grad(bl_callargs *a)
{
    if (a->n >= 1 && bl_is_optim(a->v[0])) return bl_optim_zero_grad(a);   /* opt.zero_grad() */
    if (bl_kw_only(a, NULL) < 0 || bl_nargs(a, 1, -1) < 0) return NULL;
    for (int i = 0; i < a->n; i++) {
        bl_value *x = a->v[i];
        if (x->kind != BL_V_TENSOR && !bl_lab_is_model(x)) {
            bl_fail("zero_grad: needs a tensor or a model, got a %s", bl_val_kind_name(x));
            bl_session_errat(a->s, a->vpos[i]);
            return NULL;
        }
    }
    for (int i = 0; i < a->n; i++) {
        if (bl_lab_is_model(a->v[i])) {     /* a model: its parameter gradients to 0 */
            bl_lab_zero_grad(a->v[i]);
            continue;
        }
        if (a->v[i]->param) {       /* a model's parameter: its .grad None (its part of the model's gradient 0) */
            bl_lab_param_set_grad_none(a->v[i]);
            continue;
        }
        bl_tensor_free(a->v[i]->grad);
        a->v[i]->grad = NULL;
    }
    return bl_val_none();
}

static bl_value *f_detach(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_value *x = a->v[0];
    if (x->kind != BL_V_TENSOR) return bl_val_ref(x);
    return bl_val_tensor(bl_tensor_copy(x->t));
}

/* ---- gradcheck ---- */

enum { GC_MAX_ELEMENTS = 20000 };

/* f(args) as a tensor value; NULL + error (naming gradcheck) when f fails or gives no tensor. */
static bl_value *call_f(bl_callargs *a, int n, bl_value **args)
{
    bl_value *y = bl_call_value(a->s, a->v[0], n, args, a->vpos[0]);
    if (!y) return NULL;
    if (y->kind != BL_V_TENSOR && y->kind != BL_V_NUM) {
        bl_fail("gradcheck: f must return a tensor or a number, got a %s", bl_val_kind_name(y));
        bl_val_unref(y);
        return NULL;
    }
    return y;
}

/* sum(r * y) in double: the projection whose gradient backward(y, r) computes. */
static double project(const bl_value *y, const float *r, size_t n)
{
    if (y->kind == BL_V_NUM) return r[0] * y->num;
    double acc = 0;
    for (size_t i = 0; i < n && i < y->t->numel; i++) acc += (double)r[i] * y->t->data[i];
    return acc;
}

static bl_value *f_gradcheck(bl_callargs *a)
{
    double eps, atol, rtol;
    int quiet;
    static const char *const keys[] = { "eps", "atol", "rtol", "quiet", NULL };
    if (bl_kw_only(a, keys) < 0 || bl_nargs(a, 2, 16) < 0 || bl_kw_num(a, "eps", 1e-3, &eps) < 0 || bl_kw_num(a, "atol", 1e-3, &atol) < 0 ||
        bl_kw_num(a, "rtol", 1e-2, &rtol) < 0 || bl_kw_bool(a, "quiet", 0, &quiet) < 0) return NULL;
    if (!(eps > 0 && eps < 1)) return BL_FAILP("gradcheck: eps must be in (0, 1), got %g", eps);
    int nx = a->n - 1;
    bl_value *x[16];
    size_t total = 0;
    for (int i = 0; i < nx; i++) {
        bl_value *v = a->v[i + 1];
        if (v->kind != BL_V_TENSOR && v->kind != BL_V_NUM) {
            bl_fail("gradcheck: argument %d must be a tensor, got a %s", i + 1, bl_val_kind_name(v));
            bl_session_errat(a->s, a->vpos[i + 1]);
            return NULL;
        }
        total += v->kind == BL_V_TENSOR ? v->t->numel : 1;
    }
    if (total > GC_MAX_ELEMENTS)
        return BL_FAILP("gradcheck: the inputs have %zu elements; finite differences call f twice per "
                        "element, so give at most %d", total, GC_MAX_ELEMENTS);
    /* leaves of their own (copies), so the check changes none of the caller's values */
    for (int i = 0; i < nx; i++) {
        bl_value *v = a->v[i + 1];
        bl_tensor *t = v->kind == BL_V_TENSOR ? bl_tensor_copy(v->t) : bl_tensor_new1(1);
        if (t && v->kind == BL_V_NUM) t->data[0] = (float)v->num;
        x[i] = bl_val_tensor(t);
        if (!x[i]) {
            while (i--) bl_val_unref(x[i]);
            return NULL;
        }
        x[i]->requires_grad = 1;
    }
    int was = bl_ag_set_enabled(a->s, 1);
    bl_value *res = NULL;
    bl_tensor *r = NULL;
    bl_value *y = call_f(a, nx, x);
    if (!y) goto out;
    size_t ny = y->kind == BL_V_TENSOR ? y->t->numel : 1;
    if (!bl_val_needs_grad(y)) {
        bl_fail("gradcheck: f's result does not depend on its inputs through differentiable functions");
        goto out;
    }
    /* a fixed random projection r: the check of backward(y, r) against d sum(r y) / dx */
    r = y->kind == BL_V_TENSOR ? bl_tensor_new(y->t->ndim, y->t->shape) : bl_tensor_new1(1);
    if (!r) goto out;
    bl_rng rng;
    bl_rng_init(&rng, 1234, 0);
    bl_rng_fill_normal(&rng, r->data, r->numel, 0, 1);
    if (bl_ag_backward(a->s, y, r, 0) < 0) goto out;
    bl_val_unref(y);
    y = NULL;
    int ok = 1;
    bl_ag_set_enabled(a->s, 0);
    for (int i = 0; i < nx; i++) {
        bl_tensor *t = x[i]->t;
        double worst = 0, worst_err = 0;
        size_t worst_at = 0;
        for (size_t k = 0; k < t->numel; k++) {
            float keep = t->data[k];
            double yv[2];
            for (int side = 0; side < 2; side++) {
                t->data[k] = (float)(keep + (side ? -eps : eps));
                bl_value *yy = call_f(a, nx, x);
                if (!yy) {
                    t->data[k] = keep;
                    goto out;
                }
                yv[side] = project(yy, r->data, ny);
                bl_val_unref(yy);
            }
            t->data[k] = keep;
            double h = ((double)(float)(keep + eps) - (double)(float)(keep - eps));
            double num = (yv[0] - yv[1]) / h;
            double ana = x[i]->grad ? x[i]->grad->data[k] : 0;
            double err = fabs(num - ana), rel = err / (atol + rtol * fabs(num));
            if (isnan(num) || isnan(ana)) err = rel = INFINITY;   /* nan is never right (torch fails it) */
            if (rel > worst) worst = rel, worst_err = err, worst_at = k;
        }
        if (worst > 1) ok = 0;
        if (!quiet) {
            char shp[64];
            fprintf(a->s->out, "gradcheck: input %d %s: max |autograd - numeric| %.3g at element %zu, %.3g of "
                    "the tolerance%s\n", i + 1, bl_shape_str(x[i]->t, shp, sizeof shp), worst_err, worst_at, worst,
                    worst > 1 ? ": FAILED" : "");
        }
    }
    res = bl_val_bool(ok);
out:
    bl_ag_set_enabled(a->s, was);
    bl_val_unref(y);
    bl_tensor_free(r);
    for (int i = 0; i < nx; i++) bl_val_unref(x[i]);
    return res;
}

const bl_function bl_grad_functions[] = {
    { "requires_grad", "requires_grad(x, on=on)",
      "Make x a leaf that needs a gradient (torch's x.requires_grad_()). x must be a tensor;\n"
      "functions of it then record what they do, and backward(y) fills x.grad. Returns x itself; on=off stops it and\n"
      "drops x.grad. randn, zeros, ones, tensor and load take grad=on to make such a leaf at once.\n"
      "Only a leaf can be switched: a value computed from one needs a gradient already.", f_requires_grad },
    { "backward", "backward(y, g=, retain_graph=off)",
      "Fill the .grad of every leaf that y depends on (torch.autograd.backward). The gradients of\n"
      "y with respect to them are added into their .grad, so they add up across calls until\n"
      "zero_grad. y must hold one element, or give g (the gradient of something with respect to y,\n"
      "of y's shape). The saved tensors of the graph are freed afterwards, as in PyTorch: a second\n"
      "backward through it needs retain_graph=on in the first.", f_backward },
    { "zero_grad", "zero_grad(x, ...)",
      "Drop each leaf's gradient: x.grad is none again (PyTorch's set_to_none).\n"
      "For a model m, zero_grad(m) sets its parameter gradients to 0 (None); opt.zero_grad()\n"
      "of a torch optimizer sets its tensors' (set_to_none=False: zeros; help SGD).", f_zero_grad },
    { "detach", "detach(x)",
      "A copy of x that needs no gradient (torch's x.detach()).", f_detach },
    { "gradcheck", "gradcheck(f, x, ..., eps=1e-3, atol=1e-3, rtol=1e-2, quiet=off)",
      "Check autograd against finite differences (torch.autograd.gradcheck). For a function f of the\n"
      "tensors x, ... it compares backward(f(x, ...), r) for a fixed random r with the central\n"
      "differences (sum(r f(x + eps e_k)) - sum(r f(x - eps e_k))) / 2 eps of every element k, summed\n"
      "in double precision (f runs in float32, hence eps 1e-3 where torch uses 1e-6 in float64).\n"
      "Prints the worst error of each input and returns true when every element is within\n"
      "atol + rtol |numeric|. The inputs are copied: nothing of the session changes.\n"
      "e.g. def f(x) = rmsnorm(x); gradcheck(f, randn(3, 8))", f_gradcheck },
    { NULL, NULL, NULL, NULL },
};
