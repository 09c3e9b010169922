/* functions_math.c - the math and tensor functions and tensor operators of the language
 * (functions_math.h). Each evaluates its arguments, runs one op of core/ops_math.h on the graph
 * bl_ag_begin gives (repl/autograd.h: the session's scratch graph, or a private recording one
 * when an argument needs a gradient) and returns bl_ag_end's value. Numbers keep their fast
 * paths (sin(1) is a number) unless they carry a gradient.
 */
#include "repl/functions_math.h"
#include "repl/autograd.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

/* Tensor argument i on ag's graph: converted when a number or list, a view in the graph that
 * receives its gradient when it needs one. NULL + error at the argument. */
static bl_tensor *arg_in(bl_ag *ag, bl_callargs *a, int i)
{
    bl_tensor *t = bl_arg_tensor(a, i);
    return t ? bl_ag_in(ag, a->v[i], t) : NULL;
}

/* A plain number (no gradient) argument, for the fast paths. */
static int plain_num(const bl_value *v)
{
    return (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) && !bl_val_needs_grad(v);
}

int bl_dim_arg(bl_callargs *a, const bl_tensor *x, int pos, int def, int *dim)
{
    long d = def, lo = x->ndim ? -x->ndim : -1, hi = x->ndim ? x->ndim - 1 : 0;
    bl_value *v = bl_kw(a, "dim");
    if (pos >= 0 && pos < a->n) {
        if (v) return bl_fail("%s: dim given twice", a->fname);
        if (bl_arg_int(a, pos, lo, hi, &d) < 0) return -1;
    } else if (v && v->kind != BL_V_NONE) {
        if (x->ndim == 0) {
            bl_fail("%s: dim picks a dimension, but the tensor is 0-D (one number)", a->fname);
            for (int j = 0; j < a->nk; j++)
                if (!strcmp(a->key[j], "dim")) return bl_session_errat(a->s, a->kpos[j]);
            return -1;
        }
        if (bl_kw_int(a, "dim", def, lo, hi, &d) < 0) return -1;
    }
    *dim = (int)d;
    return 0;
}

/* ---- elementwise ---- */

static const struct { const char *name; bl_unop op; double (*num)(double); } unary_map[] = {
    { "abs", BL_ABS, fabs }, { "sqrt", BL_SQRT, sqrt }, { "exp", BL_EXP, exp }, { "log", BL_LOG, log },
    { "sin", BL_SIN, sin }, { "cos", BL_COS, cos }, { "tan", BL_TAN, tan }, { "tanh", BL_TANH, tanh },
    { "sigmoid", BL_SIGMOID, NULL }, { "sign", BL_SIGN, NULL }, { "floor", BL_FLOOR, floor },
    { "ceil", BL_CEIL, ceil }, { "erf", BL_ERF, erf },
};

/* the number forms of the unary functions without a libm double function of their own */
static double num_unary(bl_unop op, double x)
{
    if (op == BL_SIGMOID) return 1.0 / (1.0 + exp(-x));
    if (op == BL_SIGN) return isnan(x) ? x : (double)((x > 0) - (x < 0));
    return NAN;
}

bl_value *bl_fn_unary(bl_callargs *a)
{
    size_t k = 0;
    while (k < sizeof unary_map / sizeof *unary_map - 1 && strcmp(unary_map[k].name, a->fname)) k++;
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    if (plain_num(a->v[0])) {
        double x = a->v[0]->num;
        return bl_val_num(unary_map[k].num ? unary_map[k].num(x) : num_unary(unary_map[k].op, x));
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL;
    return bl_ag_end(&ag, x ? bl_unary_op(g, unary_map[k].op, x) : NULL);
}

bl_value *bl_fn_pow(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    if (plain_num(a->v[0]) && plain_num(a->v[1])) return bl_val_num(pow(a->v[0]->num, a->v[1]->num));
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL, *y = NULL;
    if (x && plain_num(a->v[1])) return bl_ag_end(&ag, bl_pow_scalar(g, x, (float)a->v[1]->num));
    y = x ? arg_in(&ag, a, 1) : NULL;
    return bl_ag_end(&ag, y ? bl_binary_op(g, BL_POW, x, y) : NULL);
}

bl_value *bl_fn_clamp(bl_callargs *a)
{
    double lo = NAN, hi = NAN;
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    bl_value *vlo = a->n > 1 ? a->v[1] : bl_kw(a, "min"), *vhi = a->n > 2 ? a->v[2] : bl_kw(a, "max");
    if (a->n > 1 && bl_kw(a, "min")) return BL_FAILP("clamp: min given twice");
    if (a->n > 2 && bl_kw(a, "max")) return BL_FAILP("clamp: max given twice");
    if (vlo && vlo->kind != BL_V_NONE && (a->n > 1 ? bl_arg_num(a, 1, &lo) : bl_kw_num(a, "min", NAN, &lo)) < 0)
        return NULL;
    if (vhi && vhi->kind != BL_V_NONE && (a->n > 2 ? bl_arg_num(a, 2, &hi) : bl_kw_num(a, "max", NAN, &hi)) < 0)
        return NULL;
    if (isnan(lo) && isnan(hi)) return BL_FAILP("clamp: give min=, max= or both");
    if (plain_num(a->v[0])) {
        double x = a->v[0]->num;
        if (!isnan(lo) && x < lo) x = lo;
        if (!isnan(hi) && x > hi) x = hi;
        return bl_val_num(x);
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL;
    return bl_ag_end(&ag, x ? bl_clamp(g, x, (float)lo, (float)hi) : NULL);
}

bl_value *bl_fn_binary(bl_callargs *a)
{
    int mx = !strcmp(a->fname, "maximum");
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    if (plain_num(a->v[0]) && plain_num(a->v[1])) {
        double x = a->v[0]->num, y = a->v[1]->num;
        return bl_val_num(isnan(x) || isnan(y) ? NAN : mx ? fmax(x, y) : fmin(x, y));
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL, *y = x ? arg_in(&ag, a, 1) : NULL;
    return bl_ag_end(&ag, y ? bl_binary_op(g, mx ? BL_MAXIMUM : BL_MINIMUM, x, y) : NULL);
}

/* torch.floor_divide(a, b) and torch.remainder(a, b): the operators // and % by name. */
static bl_value *fn_floor_remainder(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    int op = !strcmp(a->fname, "floor_divide") ? BL_T_FLOORDIV : BL_T_PERCENT;
    return bl_math_operator(a->s, op, a->v[0], a->v[1]);
}

bl_value *bl_fn_where(bl_callargs *a)
{
    if (bl_nargs(a, 3, 3) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *c = g ? arg_in(&ag, a, 0) : NULL, *x = c ? arg_in(&ag, a, 1) : NULL;   /* c: read by backward */
    bl_tensor *y = x ? arg_in(&ag, a, 2) : NULL;
    return bl_ag_end(&ag, y ? bl_where(g, c, x, y) : NULL);
}

bl_value *bl_fn_masked_fill(bl_callargs *a)
{
    double v;
    if (bl_nargs(a, 3, 3) < 0 || bl_arg_num(a, 2, &v) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL, *m = x ? arg_in(&ag, a, 1) : NULL;
    return bl_ag_end(&ag, m ? bl_masked_fill(g, x, m, (float)v) : NULL);
}

bl_value *bl_fn_tri(bl_callargs *a)
{
    long d;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    if (a->n == 2 ? bl_arg_int(a, 1, -(1L << 30), 1L << 30, &d) < 0
                  : bl_kw_int(a, "diagonal", 0, -(1L << 30), 1L << 30, &d) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL;
    bl_value *r = bl_ag_end(&ag, x ? bl_tri(g, x, (int)d, a->fname[3] == 'u') : NULL);
    if (r && r->kind == BL_V_TENSOR) r->is_mask = a->v[0]->kind == BL_V_TENSOR && a->v[0]->is_mask;  /* torch: bool stays bool */
    return r;
}

/* cat([...], dim=0) and stack([...], dim=0): the list's items as tensors on the graph */
bl_value *bl_fn_join(bl_callargs *a)
{
    int stack = a->fname[0] == 's';
    long d;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_value *l = a->v[0];
    if (l->kind != BL_V_LIST || l->n < 1) {
        bl_fail("%s: expected a list of tensors, e.g. %s([a, b], dim=0), got %s%s", a->fname, a->fname,
                l->kind == BL_V_LIST ? "an empty list" : "a ", l->kind == BL_V_LIST ? "" : bl_val_kind_name(l));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    if (a->n == 2 ? bl_arg_int(a, 1, -BL_MAXDIM - 1, BL_MAXDIM, &d) < 0
                  : bl_kw_int(a, "dim", 0, -BL_MAXDIM - 1, BL_MAXDIM, &d) < 0) return NULL;
    int n = l->n;
    bl_tensor **xs = calloc((size_t)n, sizeof *xs), **tmp = calloc((size_t)n, sizeof *tmp);
    if (!xs || !tmp) {
        free(xs);
        free(tmp);
        return BL_FAILP("%s: out of memory", a->fname);
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, a->s, n, l->items);
    bl_tensor *out = NULL;
    int ok = g != NULL;
    for (int i = 0; ok && i < n; i++) {
        bl_value *it = l->items[i];
        bl_tensor *t = it->kind == BL_V_TENSOR ? it->t : (tmp[i] = bl_val_to_tensor(it, a->fname));
        if (!t) {
            bl_error_prefix("%s: item %d", a->fname, i + 1);
            ok = 0;
        } else {
            ok = (xs[i] = bl_ag_in(&ag, it, t)) != NULL;
        }
    }
    if (ok) out = stack ? bl_stack(g, n, xs, (int)d) : bl_cat(g, n, xs, (int)d);
    bl_value *r = bl_ag_end(&ag, out);
    for (int i = 0; i < n; i++) bl_tensor_free(tmp[i]);
    free(xs);
    free(tmp);
    return r;
}

bl_value *bl_fn_embedding(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *w = g ? arg_in(&ag, a, 0) : NULL, *idx = w ? bl_arg_tensor(a, 1) : NULL;
    return bl_ag_end(&ag, idx ? bl_embedding_idx(g, w, idx) : NULL);
}

/* results with no gradient, made on the scratch graph and copied */
static bl_value *copied(bl_session *s, bl_tensor *t)
{
    bl_value *r = t ? bl_val_tensor(bl_tensor_copy(t)) : NULL;
    bl_graph_reset(s->g);
    return r;
}

bl_value *bl_fn_one_hot(bl_callargs *a)
{
    long c;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    if (a->n == 2 ? bl_arg_int(a, 1, -1, 1L << 24, &c) < 0 : bl_kw_int(a, "num_classes", -1, -1, 1L << 24, &c) < 0)
        return NULL;
    bl_tensor *idx = bl_arg_tensor(a, 0);
    return idx ? copied(a->s, bl_one_hot(a->s->g, idx, (int)c)) : NULL;
}

bl_value *bl_fn_linspace(bl_callargs *a)
{
    double x0, x1;
    long n;
    if (bl_nargs(a, 3, 3) < 0 || bl_arg_num(a, 0, &x0) < 0 || bl_arg_num(a, 1, &x1) < 0 ||
        bl_arg_int(a, 2, 1, (long)BL_REPL_MAX_NUMEL, &n) < 0) return NULL;
    return copied(a->s, bl_linspace(a->s->g, x0, x1, (int)n));
}

bl_value *bl_fn_eye(bl_callargs *a)
{
    long n, m;
    if (bl_nargs(a, 1, 2) < 0 || bl_arg_int(a, 0, 1, 1L << 14, &n) < 0) return NULL;
    if (a->n == 2 ? bl_arg_int(a, 1, 1, 1L << 14, &m) < 0 : bl_kw_int(a, "m", n, 1, 1L << 14, &m) < 0) return NULL;
    return copied(a->s, bl_eye(a->s->g, (int)n, (int)m));
}

bl_value *bl_fn_argext(bl_callargs *a)
{
    int keep, dim;
    if (bl_nargs(a, 1, 2) < 0) return NULL;     /* x.argmax(1): dim given second, as torch's */
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_kw_bool(a, "keepdim", 0, &keep) < 0 || bl_dim_arg(a, x, 1, BL_ALL_DIMS, &dim) < 0) return NULL;
    return copied(a->s, bl_argext(a->s->g, x, dim, keep, !strcmp(a->fname, "argmax")));
}

bl_value *bl_fn_cumsum(bl_callargs *a)
{
    int dim;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0) return NULL;
    if (a->n < 2 && !bl_kw(a, "dim"))
        return BL_FAILP("cumsum: dim is missing (cumsum(x, dim), as torch.cumsum)");
    if (bl_dim_arg(a, x0, 1, 0, &dim) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL;
    return bl_ag_end(&ag, x ? bl_cumsum(g, x, dim) : NULL);
}

/* The pair [values, indices] of bl_topk(x, k, dim, largest) on argument 0 (a 0-D x as [1]),
 * values recorded; with pick >= 0, only element pick of the k along dim of both (dropped, or
 * kept with size 1 when keep): a median. */
static bl_value *topk_pair(bl_callargs *a, int k, int dim, int largest, int pick, int keep)
{
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL, *idx = NULL;
    if (x && x->ndim == 0) x = bl_graph_view(g, x, 1, (int[]){ 1 }), dim = 0;
    bl_tensor *v = x ? bl_topk(g, x, k, dim, largest, &idx) : NULL;
    if (v && pick >= 0) {
        v = bl_pick(g, v, dim, pick, keep);
        idx = v ? bl_pick(g, idx, dim, pick, keep) : NULL;
    }
    bl_value *vi = v && idx ? bl_val_tensor(bl_tensor_copy(idx)) : NULL;   /* before bl_ag_end frees g */
    return bl_val_pair(bl_ag_end(&ag, vi ? v : NULL), vi);
}

/* The size of x along dim (1 for a 0-D x). */
static int dim_size(const bl_tensor *x, int dim)
{
    return x->ndim == 0 ? 1 : x->shape[dim < 0 ? dim + x->ndim : dim];
}

bl_value *bl_fn_topk(bl_callargs *a)
{
    long k;
    int dim, largest;
    if (bl_nargs(a, 2, 2) < 0 || bl_arg_int(a, 1, 1, 1L << 30, &k) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0 || bl_kw_bool(a, "largest", 1, &largest) < 0 || bl_dim_arg(a, x0, -1, -1, &dim) < 0) return NULL;
    return topk_pair(a, (int)k, dim, largest, -1, 0);
}

/* sort(x, dim=-1, descending=off): all of dim in order, [values, indices] (torch.sort, stable:
 * equal values keep their order): bl_topk with k the size of dim. */
bl_value *bl_fn_sort(bl_callargs *a)
{
    int dim, desc;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_kw_bool(a, "descending", 0, &desc) < 0 || bl_dim_arg(a, x, 1, -1, &dim) < 0) return NULL;
    if (!strcmp(a->fname, "argsort")) {     /* argsort(x, dim=-1, descending=off): sort's indices */
        int stable;
        if (bl_kw_bool(a, "stable", 0, &stable) < 0) return NULL;
        bl_value *pr = topk_pair(a, dim_size(x, dim), dim, desc, -1, 0), *i = pr ? bl_val_ref(pr->items[1]) : NULL;
        bl_val_unref(pr);
        return i;
    }
    return topk_pair(a, dim_size(x, dim), dim, desc, -1, 0);
}

/* The median of all of x as torch.median(x): element (n - 1) / 2 of x sorted; its gradient is
 * spread evenly over the elements equal to it (torch's evenly_distribute_backward), as
 * sum(x * (x == m)) / count. A NaN in x makes it NaN. */
static bl_value *median_all(bl_callargs *a, bl_tensor *x)
{
    int n = (int)x->numel, mid = (n - 1) / 2;
    bl_tensor flat;
    if (bl_tensor_view_as(&flat, x, 1, &n) < 0) return NULL;
    bl_tensor *sorted = bl_topk(a->s->g, &flat, mid + 1, 0, 0, NULL);
    float m = sorted ? sorted->data[mid] : 0;
    bl_graph_reset(a->s->g);
    bl_tensor *mask = sorted ? bl_tensor_new(x->ndim, x->shape) : NULL;
    if (!mask) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < x->numel; i++) k += (mask->data[i] = x->data[i] == m);
    bl_value *r = NULL;
    if (k == 0) {
        r = bl_val_num(NAN);
    } else {
        bl_ag ag;
        bl_graph *g = bl_ag_begin(&ag, a);
        bl_tensor *xin = g ? arg_in(&ag, a, 0) : NULL, *mk = xin ? bl_ag_const(&ag, mask) : NULL;
        bl_tensor *y = mk ? bl_binary_op(g, BL_MUL, xin, mk) : NULL;
        y = y ? bl_reduce_op(g, BL_SUM, y, BL_ALL_DIMS, 0) : NULL;
        r = bl_ag_end(&ag, y ? bl_scale(g, y, 1.0f / (float)k) : NULL);
    }
    bl_tensor_free(mask);
    return r;
}

/* median(x): the lower median of all elements (torch.median: not the mean of the two middle
 * ones), a number; median(x, dim): [values, indices] along dim, the gradient going to the
 * element picked (the first of equal ones). */
bl_value *bl_fn_median(bl_callargs *a)
{
    int dim, keep;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_kw_bool(a, "keepdim", 0, &keep) < 0 || bl_dim_arg(a, x, 1, BL_ALL_DIMS, &dim) < 0) return NULL;
    if (dim == BL_ALL_DIMS || x->ndim == 0) return median_all(a, x);
    int m = (dim_size(x, dim) - 1) / 2;
    return topk_pair(a, m + 1, dim, 0, m, keep);
}

/* timestep_features(t, n=256): the model's own sinusoidal features (bl_timestep_features) */
bl_value *bl_fn_timestep_features(bl_callargs *a)
{
    long n;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    if (a->n == 2 ? bl_arg_int(a, 1, 2, 1 << 16, &n) < 0 : bl_kw_int(a, "n", 256, 2, 1 << 16, &n) < 0) return NULL;
    if (bl_ag_refuse(a->s, "timestep_features", 1, a->v) < 0) return NULL;
    bl_tensor *t = bl_arg_tensor(a, 0);
    if (!t) return NULL;
    if (t->ndim > 1) return BL_FAILP("timestep_features: t must be a number or 1-D [B], got %d dimensions", t->ndim);
    int B = (int)t->numel;
    bl_tensor *y = bl_tensor_new2(B, (int)n);
    if (y) bl_timestep_features(t->data, B, (int)n, y->data);
    return bl_val_tensor(y);
}

/* ---- reductions ---- */

/* var's and std's correction (torch's): the divisor is n - correction; unbiased=off is
 * correction=0, the default is 1 (torch.var's). -1 + error. */
static int correction_arg(bl_callargs *a, double *c)
{
    bl_value *u = bl_kw(a, "unbiased");
    bl_value *cv = bl_kw(a, "correction");
    if (u && cv) return bl_fail("%s: give unbiased= or correction=, not both", a->fname);
    if (u) {
        int b;
        if (bl_kw_bool(a, "unbiased", 1, &b) < 0) return -1;
        *c = b ? 1 : 0;
        return 0;
    }
    if (bl_kw_num(a, "correction", 1, c) < 0) return -1;
    if (*c < 0 || *c != floor(*c)) return bl_fail("%s: correction is a whole number >= 0, got %g", a->fname, *c);
    return 0;
}

/* sum, mean, var, std, rms, min, max of x, all of it or along dim (x.sum(1): dim given second,
 * as torch's). min(a, b) and max(a, b) of numbers are Python's (the first unless the second is
 * smaller / larger; more than two numbers too); of a tensor and a tensor, torch.max(a, b): the
 * elementwise maximum (bl_fn_binary); max(x, dim) and min(x, dim) are torch's pair [values,
 * indices]. var and std divide by n - correction (torch's default 1,
 * unbiased; unbiased=off or correction=0 divides by n, as inside LayerNorm): the biased kernel's
 * variance times n / (n - correction) (its square root for std), nan where n - correction <= 0
 * (torch gives nan or inf there, with a warning). */
bl_value *bl_fn_reduce(bl_callargs *a)
{
    static const struct { const char *n; bl_reduce op; } map[] = {
        { "sum", BL_SUM }, { "mean", BL_MEAN }, { "var", BL_VAR }, { "std", BL_STD },
        { "rms", BL_RMS }, { "min", BL_MIN }, { "max", BL_MAX },
    };
    bl_reduce op = BL_SUM;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].n, a->fname)) op = map[i].op;
    int extreme = op == BL_MIN || op == BL_MAX;
    if (extreme && a->n >= 2) {
        int nums = 1;
        for (int i = 0; i < a->n; i++) nums &= plain_num(a->v[i]);
        if (nums && a->nk == 0) {       /* Python's max(a, b, ...) */
            double r = a->v[0]->num;
            for (int i = 1; i < a->n; i++)
                if (op == BL_MAX ? a->v[i]->num > r : a->v[i]->num < r) r = a->v[i]->num;
            return bl_val_num(r);
        }
        if (a->n == 2 && a->v[1]->kind == BL_V_TENSOR && a->nk == 0) {
            const char *f = a->fname;   /* torch.max(a, b): elementwise */
            a->fname = op == BL_MAX ? "maximum" : "minimum";
            bl_value *r = bl_fn_binary(a);
            a->fname = f;
            return r;
        }
    }
    int keep, dim;
    double corr = 0;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0 || bl_kw_bool(a, "keepdim", 0, &keep) < 0 || bl_dim_arg(a, x0, 1, BL_ALL_DIMS, &dim) < 0) return NULL;
    if ((op == BL_VAR || op == BL_STD) && correction_arg(a, &corr) < 0) return NULL;
    /* max(x, dim) and min(x, dim): [values, indices], as torch's (the indices of bl_argext: the
     * first extreme, where the values' gradient goes); made first, as copied() resets s->g */
    bl_value *idx = NULL;
    if (extreme && dim != BL_ALL_DIMS) idx = copied(a->s, bl_argext(a->s->g, x0, dim, keep, op == BL_MAX));
    if (extreme && dim != BL_ALL_DIMS && !idx) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? arg_in(&ag, a, 0) : NULL;
    bl_tensor *y = x ? bl_reduce_op(g, corr != 0 && op == BL_STD ? BL_VAR : op, x, dim, keep) : NULL;
    if (y && corr != 0) {
        /* std: the square root of the corrected variance (not std times sqrt(f): std's
         * float32 rounding showed tensor([1.0000]) where torch shows 1.) */
        double n = dim == BL_ALL_DIMS ? (double)x->numel : (double)x->shape[dim < 0 ? dim + x->ndim : dim];
        double f = n - corr > 0 ? n / (n - corr) : NAN;
        y = bl_scale(g, y, (float)f);
        if (y && op == BL_STD) y = bl_unary_op(g, BL_SQRT, y);
    }
    return idx ? bl_val_pair(bl_ag_end(&ag, y), idx) : bl_ag_end(&ag, y);
}

/* ---- operators ---- */

bl_value *bl_math_operator(bl_session *s, int op, bl_value *a, bl_value *b)
{
    bl_binop bop;
    const char *name;
    switch (op) {
    case BL_T_PLUS: bop = BL_ADD, name = "+"; break;
    case BL_T_MINUS: bop = BL_SUB, name = "-"; break;
    case BL_T_STAR: bop = BL_MUL, name = "*"; break;
    case BL_T_SLASH: bop = BL_DIV, name = "/"; break;
    case BL_T_POW: bop = BL_POW, name = "**"; break;
    case BL_T_FLOORDIV: bop = BL_FLOORDIV, name = "//"; break;
    case BL_T_PERCENT: bop = BL_REMAINDER, name = "%"; break;
    case BL_T_LT: bop = BL_LT, name = "<"; break;
    case BL_T_LE: bop = BL_LE, name = "<="; break;
    case BL_T_GT: bop = BL_GT, name = ">"; break;
    case BL_T_GE: bop = BL_GE, name = ">="; break;
    case BL_T_EQ: bop = BL_EQ, name = "=="; break;
    case BL_T_NE: bop = BL_NE, name = "!="; break;
    default: return BL_FAILP("operator %d is not elementwise", op);
    }
    /* torch.floor_divide has no derivative: refused, as torch refuses its backward */
    if (bop == BL_FLOORDIV && bl_ag_refuse(s, "//", 2, (bl_value *[]){a, b}) < 0) return NULL;
    bl_tensor *ta = a->kind == BL_V_TENSOR ? NULL : bl_val_to_tensor(a, name);
    bl_tensor *tb = b->kind == BL_V_TENSOR ? NULL : bl_val_to_tensor(b, name);
    bl_value *r = NULL;
    if ((a->kind == BL_V_TENSOR || ta) && (b->kind == BL_V_TENSOR || tb)) {
        bl_ag ag;
        bl_graph *g = bl_ag_begin_vals(&ag, s, 2, (bl_value *[]){a, b});
        bl_tensor *x = g ? bl_ag_in(&ag, a, ta ? ta : a->t) : NULL;
        bl_tensor *y = x ? bl_ag_in(&ag, b, tb ? tb : b->t) : NULL;
        /* x ** 2 with a plain number: the scalar power (one tensor to differentiate) */
        if (y && bop == BL_POW && (b->kind == BL_V_NUM || b->kind == BL_V_BOOL) && !bl_val_needs_grad(b))
            r = bl_ag_end(&ag, bl_pow_scalar(g, x, (float)b->num));
        else
            r = bl_ag_end(&ag, y ? bl_binary_op(g, bop, x, y) : NULL);
        bl_graph_reset(s->g);
    }
    bl_tensor_free(ta);
    bl_tensor_free(tb);
    return r;
}

bl_value *bl_math_neg(bl_session *s, bl_value *v)
{
    bl_tensor *t = v->kind == BL_V_TENSOR ? NULL : bl_val_to_tensor(v, "-");
    bl_value *r = NULL;
    if (v->kind == BL_V_TENSOR || t) {
        bl_ag ag;
        bl_graph *g = bl_ag_begin_vals(&ag, s, 1, (bl_value *[]){v});
        bl_tensor *x = g ? bl_ag_in(&ag, v, t ? t : v->t) : NULL;
        r = bl_ag_end(&ag, x ? bl_unary_op(g, BL_NEG, x) : NULL);
        bl_graph_reset(s->g);
    }
    bl_tensor_free(t);
    return r;
}

bl_value *bl_math_take(bl_session *s, bl_value *v, bl_value *idx)
{
    bl_tensor *ti = idx->kind == BL_V_TENSOR ? idx->t : bl_val_to_tensor(idx, "index");
    if (!ti) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, 1, (bl_value *[]){v});
    bl_tensor *x = g ? bl_ag_in(&ag, v, v->t) : NULL;
    bl_value *r = bl_ag_end(&ag, x ? bl_take_rows(g, x, ti) : NULL);
    bl_graph_reset(s->g);
    if (ti != idx->t) bl_tensor_free(ti);
    return r;
}

const bl_function bl_math_functions[] = {
    { "sin", "sin(x)", "The sine (radians), elementwise; numbers give numbers.", bl_fn_unary },
    { "cos", "cos(x)", "The cosine (radians), elementwise; numbers give numbers.", bl_fn_unary },
    { "tan", "tan(x)", "The tangent (radians), elementwise; numbers give numbers.", bl_fn_unary },
    { "tanh", "tanh(x)", "The hyperbolic tangent, elementwise; numbers give numbers.", bl_fn_unary },
    { "sigmoid", "sigmoid(x)", "1 / (1 + e^-x) elementwise (torch.sigmoid).", bl_fn_unary },
    { "sign", "sign(x)", "-1, 0 or 1 elementwise (torch.sign; its gradient is 0).", bl_fn_unary },
    { "floor", "floor(x)", "The largest whole number <= x, elementwise (gradient 0).", bl_fn_unary },
    { "ceil", "ceil(x)", "The smallest whole number >= x, elementwise (gradient 0).", bl_fn_unary },
    { "erf", "erf(x)", "The error function 2/sqrt(pi) int_0^x e^(-t^2) dt, elementwise.",
      bl_fn_unary },
    { "pow", "pow(x, p)",
      "x to the power p elementwise (torch.pow; x ** p is the same). p a number or a tensor\n"
      "that broadcasts with x. Gradients as torch: 0 for x where p == 0, 0 for p where x == 0\n"
      "and p >= 0.", bl_fn_pow },
    { "clamp", "clamp(x, min=, max=)",
      "x limited to [min, max] elementwise (torch.clamp).\n"
      "Either bound may be left out. min > max gives max everywhere. The gradient passes where min <= x <= max (bounds\n"
      "included, as torch).", bl_fn_clamp },
    { "maximum", "maximum(a, b)",
      "The larger of a and b elementwise, broadcast (torch.maximum). Where they are equal\n"
      "each gets half the gradient.", bl_fn_binary },
    { "minimum", "minimum(a, b)",
      "The smaller of a and b elementwise, broadcast (torch.minimum). Where they are equal\n"
      "each gets half the gradient.", bl_fn_binary },
    { "floor_divide", "floor_divide(a, b)",
      "a // b elementwise, broadcast: the quotient rounded down.\n"
      "torch.floor_divide (by zero inf or nan; no gradient, as torch).",
      fn_floor_remainder },
    { "remainder", "remainder(a, b)",
      "a % b elementwise, broadcast: the remainder with the sign of b.\n"
      "torch.remainder (by zero nan); its gradient is torch's.",
      fn_floor_remainder },
    { "where", "where(cond, a, b)",
      "a where cond is nonzero, else b, elementwise (torch.where).\n"
      "cond, a and b broadcast together. where(x > 0, x, 0) is relu(x).", bl_fn_where },
    { "masked_fill", "masked_fill(x, mask, value)",
      "x with value wherever mask is nonzero (Tensor.masked_fill).\n"
      "mask broadcasts to x's shape. masked_fill(s, triu(ones(T, T), 1), -inf) hides the future of attention scores.",
      bl_fn_masked_fill },
    { "tril", "tril(x, diagonal=0)",
      "The lower triangle of the last two dims of x, zeros above (torch.tril).\n"
      "Element (i, j) is kept where j - i <= diagonal. tril(ones(T, T)) is the causal mask.\n"
      "Of a boolean mask (a comparison, .bool()) it stays boolean, as torch's.", bl_fn_tri },
    { "triu", "triu(x, diagonal=0)",
      "The upper triangle of the last two dims of x, zeros below (torch.triu).\n"
      "Element (i, j) is kept where j - i >= diagonal.", bl_fn_tri },
    { "cat", "cat([a, b, ...], dim=0)",
      "The tensors of the list joined along dim (torch.cat).\n"
      "Their other sizes must match.",
      bl_fn_join },
    { "stack", "stack([a, b, ...], dim=0)",
      "The tensors of the list stacked along a new dimension dim (torch.stack).\n"
      "They must all have one shape.", bl_fn_join },
    { "embedding", "embedding(w, idx)",
      "The rows of w [V, D] that idx names: [idx.shape..., D] (F.embedding).\n"
      "idx holds whole numbers in [0, V), any shape. w[idx] does the same. The gradient adds into the\n"
      "rows picked.", bl_fn_embedding },
    { "one_hot", "one_hot(idx, num_classes=-1)",
      "1 at each index, 0 elsewhere: [idx.shape..., num_classes] (F.one_hot).\n"
      "num_classes -1 means max(idx) + 1.", bl_fn_one_hot },
    { "linspace", "linspace(start, end, steps)",
      "steps numbers from start to end evenly, both included (torch.linspace).",
      bl_fn_linspace },
    { "eye", "eye(n, m=n)", "The n x m identity matrix (torch.eye).", bl_fn_eye },
    { "argmax", "argmax(x, dim=, keepdim=off)",
      "The index of the largest element along dim (torch.argmax).\n"
      "The first one on ties. Without dim the index into the flattened x, a number. dim may\n"
      "come second, as torch's: x.argmax(1).", bl_fn_argext },
    { "argmin", "argmin(x, dim=, keepdim=off)",
      "The index of the smallest element along dim (torch.argmin).\n"
      "The first one on ties. Without dim the index into the flattened x, a number.", bl_fn_argext },
    { "cumsum", "cumsum(x, dim)",
      "The running sum along dim (torch.cumsum).\n"
      "Element i is the sum of elements 0..i.",
      bl_fn_cumsum },
    { "topk", "topk(x, k, dim=-1, largest=on)",
      "The k largest elements along dim, sorted: [values, indices] (torch.topk).\n"
      "largest=off gives the smallest; topk(x, 3).values (or [0]) are the values, .indices\n"
      "the positions. Equal values come in index order. The gradient goes to the elements\n"
      "picked.", bl_fn_topk },
    { "sort", "sort(x, dim=-1, descending=off)",
      "x sorted along dim: [values, indices] (torch.sort).\n"
      "v, i = x.sort() unpacks them; x.sort().values and .indices name them. Ascending\n"
      "unless descending=on; equal values keep their order (stable). The gradient goes\n"
      "back to where each value came from.", bl_fn_sort },
    { "argsort", "argsort(x, dim=-1, descending=off)",
      "The indices that sort x along dim (torch.argsort).\n"
      "sort(x, dim, descending)'s indices; equal values keep their order (torch's stable=True,\n"
      "always). No gradient.", bl_fn_sort },
    { "median", "median(x, dim=, keepdim=off)",
      "The median of x, or [values, indices] along dim (torch.median).\n"
      "v, i = x.median(1) unpacks them; .values and .indices name them. The lower of the two\n"
      "middle values for an even count (not their mean, as torch). The gradient goes to the\n"
      "element picked.", bl_fn_median },
    { "timestep_features", "timestep_features(t, n=256)",
      "TinyDiT's sinusoidal timestep features [B, n], as the model makes them.\n"
      "Feature i < n/2 is cos(1000 t f_i), then sin, f_i = exp(-ln(10000) i / (n/2)) (DiT's\n"
      "TimestepEmbedder). t is a number or a 1-D tensor of B times.", bl_fn_timestep_features },
    { NULL, NULL, NULL, NULL },
};
