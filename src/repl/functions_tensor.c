/* functions_tensor.c - torch's tensor-shaping and tensor-reading functions of the language, each
 * also a method (x.f(...) calls f(x, ...), lang.c): unsqueeze, squeeze, permute, flatten, clone,
 * norm, log_softmax, dim, tolist. Differentiable ones run graph ops through repl/autograd.h as
 * functions_math.c's do; shapes only change through views (bl_graph_view: the gradient is the
 * output's, reshaped) or the strided gather of core/ops.h.
 */
#include "repl/functions_math.h"
#include "repl/autograd.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include <math.h>
#include <string.h>

bl_value *bl_view_call(bl_callargs *a, int nd, const int *shape)
{
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_ag ag;
    bl_graph *g = x ? bl_ag_begin(&ag, a) : NULL;
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    return bl_ag_end(&ag, x ? bl_graph_view(g, x, nd, shape) : NULL);
}

/* An int argument: positional i when given, else keyword key, else def; in [lo, hi]. */
static int int_arg(bl_callargs *a, int i, const char *key, long def, long lo, long hi, long *x)
{
    if (i < a->n && bl_kw(a, key)) return bl_fail("%s: %s given twice", a->fname, key);
    return i < a->n ? bl_arg_int(a, i, lo, hi, x) : bl_kw_int(a, key, def, lo, hi, x);
}

/* unsqueeze(x, dim): x with a new dimension of size 1 at dim, in [-ndim-1, ndim] (torch). */
static bl_value *f_unsqueeze(bl_callargs *a)
{
    long d;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    if (a->n < 2 && !bl_kw(a, "dim")) return BL_FAILP("unsqueeze: dim is missing (unsqueeze(x, dim), as torch)");
    if (int_arg(a, 1, "dim", 0, -x->ndim - 1, x->ndim, &d) < 0) return NULL;
    if (x->ndim == BL_MAXDIM)
        return BL_FAILP("unsqueeze: x has %d dimensions already, the most a tensor has", BL_MAXDIM);
    int at = (int)(d < 0 ? d + x->ndim + 1 : d), shape[BL_MAXDIM], nd = 0;
    for (int k = 0; k <= x->ndim; k++) shape[nd++] = k == at ? 1 : x->shape[k - (k > at)];
    return bl_view_call(a, nd, shape);
}

/* squeeze(x): x without its dimensions of size 1; squeeze(x, dim): without that one when its size
 * is 1, else x as it is (torch). */
static bl_value *f_squeeze(bl_callargs *a)
{
    int dim = BL_ALL_DIMS, shape[BL_MAXDIM], nd = 0;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_dim_arg(a, x, 1, BL_ALL_DIMS, &dim) < 0) return NULL;
    if (dim != BL_ALL_DIMS && dim < 0) dim += x->ndim;
    for (int k = 0; k < x->ndim; k++)
        if (x->shape[k] != 1 || (dim != BL_ALL_DIMS && k != dim)) shape[nd++] = x->shape[k];
    return bl_view_call(a, nd, shape);
}

/* flatten(x, start_dim=0, end_dim=-1): dimensions start_dim..end_dim merged into one (torch). */
static bl_value *f_flatten(bl_callargs *a)
{
    long d0, d1;
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    long lo = x->ndim ? -x->ndim : -1, hi = x->ndim ? x->ndim - 1 : 0;
    if (int_arg(a, 1, "start_dim", 0, lo, hi, &d0) < 0 || int_arg(a, 2, "end_dim", -1, lo, hi, &d1) < 0) return NULL;
    int nd0 = x->ndim ? x->ndim : 1, s = (int)(d0 < 0 ? d0 + nd0 : d0), e = (int)(d1 < 0 ? d1 + nd0 : d1);
    if (s > e) return BL_FAILP("flatten: start_dim (%ld) comes after end_dim (%ld)", d0, d1);
    int shape[BL_MAXDIM], nd = 0;
    for (int k = 0; k < x->ndim; k++) {
        if (k <= s || k > e) shape[nd++] = x->shape[k];
        else shape[nd - 1] *= x->shape[k];
    }
    if (x->ndim == 0) shape[nd++] = 1;    /* torch: a 0-D tensor flattens to [1] */
    return bl_view_call(a, nd, shape);
}

/* permute(x, d0, d1, ...) or permute(x, [d0, d1, ...]): dimension k of the result is dk of x. */
static bl_value *f_permute(bl_callargs *a)
{
    if (bl_nargs(a, 2, -1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    bl_value **v = a->v + 1;
    int n = a->n - 1;
    if (n == 1 && v[0]->kind == BL_V_LIST) n = v[0]->n, v = v[0]->items;
    if (n != x->ndim)
        return BL_FAILP("permute: x has %d dimension%s, got %d dim%s (one for each, e.g. permute(x, 1, 0))", x->ndim,
                        BL_PLURAL(x->ndim), n, BL_PLURAL(n));
    int perm[BL_MAXDIM];
    for (int k = 0; k < n; k++) {
        if (v[k]->kind != BL_V_NUM || v[k]->num != floor(v[k]->num))
            return BL_FAILP("permute: dims are whole numbers, got a %s", bl_val_kind_name(v[k]));
        perm[k] = (int)fmax(fmin(v[k]->num, 1000), -1000);
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    x = g ? bl_ag_in(&ag, a->v[0], x) : NULL;
    return bl_ag_end(&ag, x ? bl_permute(g, x, perm) : NULL);
}

/* clone(x): a copy that passes the gradient on (torch's clone, unlike detach). */
static bl_value *f_clone(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    return x ? bl_view_call(a, x->ndim, x->shape) : NULL;
}

/* norm(x, p=2, dim=, keepdim=off), norm(x, p, dim): (sum |x|^p)^(1/p) of all of x or along dim (torch.norm,
 * torch.linalg.vector_norm). p = 2 is rms(x) * sqrt(n), whose gradient at x = 0 is 0 as torch's
 * (the formula's is 0/0); p = inf is max |x|. */
static bl_value *f_norm(bl_callargs *a)
{
    double p = 2;
    int dim, keep;
    if (bl_nargs(a, 1, 3) < 0) return NULL;     /* torch.norm(x, p, dim) */
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0) return NULL;
    if (a->n >= 2 && bl_kw(a, "p")) return BL_FAILP("norm: p given twice");
    if ((a->n >= 2 ? bl_arg_num(a, 1, &p) : bl_kw_num(a, "p", 2, &p)) < 0 || bl_kw_bool(a, "keepdim", 0, &keep) < 0 ||
        bl_dim_arg(a, x0, 2, BL_ALL_DIMS, &dim) < 0) return NULL;
    if (!(p > 0)) return BL_FAILP("norm: p must be > 0 (2, 1, inf, ...), got %g", p);
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], x0) : NULL, *y = NULL;
    if (x && p == 2) {
        y = bl_reduce_op(g, BL_RMS, x, dim, keep);
        double n = dim == BL_ALL_DIMS ? (double)x->numel : (double)x->shape[dim < 0 ? dim + x->ndim : dim];
        y = y ? bl_scale(g, y, (float)sqrt(n)) : NULL;
    } else if (x) {
        bl_tensor *ax = bl_unary_op(g, BL_ABS, x);
        if (isinf(p)) y = ax ? bl_reduce_op(g, BL_MAX, ax, dim, keep) : NULL;
        else {
            bl_tensor *s = ax ? bl_reduce_op(g, BL_SUM, p == 1 ? ax : bl_pow_scalar(g, ax, (float)p), dim, keep) : NULL;
            y = s && p != 1 ? bl_pow_scalar(g, s, (float)(1 / p)) : s;
        }
    }
    return bl_ag_end(&ag, y);
}

/* log_softmax(x, dim=-1): x - log(sum(exp(x))) along dim (F.log_softmax), computed as
 * (x - m) - log(sum(exp(x - m))) with m the maximum along dim (a constant: its gradient
 * cancels), so a large x does not overflow nor a small softmax underflow to log(0). */
static bl_value *f_log_softmax(bl_callargs *a)
{
    int dim;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0 || bl_dim_arg(a, x0, 1, -1, &dim) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], x0) : NULL, *xc = x ? bl_ag_const(&ag, x0) : NULL;
    if (x && x->ndim == 0) dim = BL_ALL_DIMS;
    bl_tensor *m = xc ? bl_reduce_op(g, BL_MAX, xc, dim, 1) : NULL;
    bl_tensor *y = m ? bl_binary_op(g, BL_SUB, x, m) : NULL;
    bl_tensor *e = y ? bl_unary_op(g, BL_EXP, y) : NULL;
    bl_tensor *s = e ? bl_reduce_op(g, BL_SUM, e, dim, 1) : NULL;
    bl_tensor *l = s ? bl_unary_op(g, BL_LOG, s) : NULL;
    return bl_ag_end(&ag, l ? bl_binary_op(g, BL_SUB, y, l) : NULL);
}

/* dim(x): the number of dimensions (torch's x.dim(), x.ndim); a number has 0. */
static bl_value *f_dim(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    return x ? bl_val_num(x->ndim) : NULL;
}

/* The elements of t from element at on, dimensions from k on, as nested lists. */
static bl_value *nested(const bl_tensor *t, int k, size_t at)
{
    if (k == t->ndim) return bl_val_num(t->data[at]);
    size_t step = 1;
    for (int j = k + 1; j < t->ndim; j++) step *= (size_t)t->shape[j];
    bl_value *l = bl_val_list(t->shape[k]);
    for (int i = 0; l && i < t->shape[k]; i++)
        if (bl_val_list_set(l, i, nested(t, k + 1, at + (size_t)i * step)) < 0) {
            bl_val_unref(l);
            return NULL;
        }
    return l;
}

/* tolist(x): x's numbers as (nested) lists, a 0-D x as a number (torch's x.tolist()). */
static bl_value *f_tolist(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (x && x->numel > 10000000)
        return BL_FAILP("tolist: %zu elements is more than the limit of 10000000", x->numel);
    return x ? nested(x, 0, 0) : NULL;
}

const bl_function bl_tensor_functions[] = {
    { "unsqueeze", "unsqueeze(x, dim)",
      "x with a new dimension of size 1 at dim (torch.unsqueeze).\n"
      "unsqueeze(x, 0) of [3, 4] is [1, 3, 4], x.unsqueeze(-1) is [3, 4, 1]. dim is in\n"
      "[-ndim-1, ndim]; a tensor has at most 4 dimensions.",
      f_unsqueeze },
    { "squeeze", "squeeze(x, dim=)",
      "x without its dimensions of size 1 (torch.squeeze). With dim only that one, and x\n"
      "unchanged when its size is not 1.", f_squeeze },
    { "flatten", "flatten(x, start_dim=0, end_dim=-1)",
      "x with dimensions start_dim..end_dim merged into one (torch.flatten). flatten(x) is\n"
      "1-D; x.flatten(1) of [B, T, C] is [B, T*C].", f_flatten },
    { "permute", "permute(x, d0, d1, ...)",
      "x with its dimensions reordered (torch.permute).\n"
      "Dimension k of the result is dk of x: x.permute(0, 2, 1) swaps the last two of a 3-D\n"
      "x. The dims may also come as one list.",
      f_permute },
    { "clone", "clone(x)",
      "A copy of x that passes the gradient back to x (torch.clone).\n"
      "detach(x) is the copy that cuts it.", f_clone },
    { "norm", "norm(x, p=2, dim=, keepdim=off)",
      "The p-norm (sum |x|^p)^(1/p) of x, or along dim (torch.norm). p = 2 by default; p=inf\n"
      "is max |x|. p may come second: x.norm(1). The gradient of the 2-norm at 0 is 0, as\n"
      "torch's.", f_norm },
    { "log_softmax", "log_softmax(x, dim=-1)",
      "log(softmax(x)) along dim, computed stably (F.log_softmax).\n"
      "As x - max - log(sum(exp(x - max))): no -inf where softmax underflows to 0. dim may\n"
      "come second: x.log_softmax(-1).",
      f_log_softmax },
    { "dim", "dim(x)", "The number of dimensions of x (torch's x.dim(), x.ndim); 0 for a number.", f_dim },
    { "tolist", "tolist(x)",
      "x's numbers as nested lists, a 0-D x as a number (torch's x.tolist()).", f_tolist },
    { NULL, NULL, NULL, NULL },
};
