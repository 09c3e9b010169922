/* functions.c - the tensor functions of the language and their help (issue 5 item 3).
 *
 * Each function evaluates its arguments, calls src/core/tensor_math.h or the ops of
 * src/core/ops.h / src/nn/nn.h on the session's scratch graph (recording off) and copies the
 * result into a new owned tensor (the graph is reset after every call).
 */
#include "repl/repl.h"
#include "repl/autograd.h"
#include "repl/figures.h"
#include "repl/functions_math.h"
#include "repl/modelvars.h"
#include "repl/modellab.h"
#include "repl/optim.h"
#include "repl/trainstate.h"
#include "core/error.h"
#include "core/fmt.h"
#include "repl/strfmt.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include "core/tensor_math.h"
#include "nn/nn.h"
#include "train/safetensors.h"
#include <math.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- argument helpers ---- */
int bl_kw_only(bl_callargs *a, const char *const *keys)
{
    for (int j = 0; j < a->nk; j++) {
        int ok = 0;
        for (const char *const *k = keys; k && *k && !ok; k++) ok = !strcmp(*k, a->key[j]);
        if (ok) continue;
        const bl_function *f = bl_function_find(a->fname);
        bl_fail("%s: unknown keyword '%s' (%s)", a->fname, a->key[j], f ? f->synopsis : "help functions");
        return bl_session_errat(a->s, a->kname[j]);
    }
    return 0;
}

int bl_nargs(bl_callargs *a, int lo, int hi)
{
    if (a->n >= lo && (hi < 0 || a->n <= hi)) return 0;
    /* a called handle's name is no built-in's: then no synopsis (help NAME has it) */
    const bl_function *f = bl_function_find(a->fname);
    const char *syn = f ? f->synopsis : "help functions";
    if (hi == lo) bl_fail("%s: expected %d argument%s, got %d (%s)", a->fname, lo, lo == 1 ? "" : "s", a->n, syn);
    else if (a->n < lo) bl_fail("%s: expected at least %d argument%s, got %d (%s)", a->fname, lo, lo == 1 ? "" : "s",
                                a->n, syn);
    else bl_fail("%s: expected at most %d argument%s, got %d (%s)", a->fname, hi, hi == 1 ? "" : "s", a->n, syn);
    return bl_session_errat(a->s, a->n > hi && hi >= 0 ? a->vpos[hi] : a->pos);
}

static bl_tensor *as_tensor(bl_callargs *a, bl_value *v, bl_pos pos)
{
    if (v->kind == BL_V_TENSOR) return v->t;
    if (a->ntmp == 16) return BL_FAILP("%s: too many arguments", a->fname);
    bl_tensor *t = bl_val_to_tensor(v, a->fname);
    if (!t) {
        bl_session_errat(a->s, pos);
        return NULL;
    }
    a->tmp[a->ntmp++] = t;
    return t;
}

bl_tensor *bl_arg_tensor(bl_callargs *a, int i) { return as_tensor(a, a->v[i], a->vpos[i]); }

bl_value *bl_kw(bl_callargs *a, const char *key)
{
    for (int j = 0; j < a->nk; j++)
        if (!strcmp(a->key[j], key)) {
            a->kused[j] = 1;
            return a->kv[j];
        }
    return NULL;
}

/* torch's positional-or-keyword parameters names[0..n-1]: v[i] the value given for names[i]
 * (positional i, or the keyword), NULL when absent or None; pos[i] where it stands. */
int bl_pos_or_kw(bl_callargs *a, const char *const *names, int n, bl_value **v, bl_pos *pos)
{
    if (bl_nargs(a, 0, n) < 0) return -1;
    for (int i = 0; i < n; i++) {
        bl_value *k = bl_kw(a, names[i]);
        if (k && i < a->n) return bl_fail("%s: %s given twice", a->fname, names[i]);
        v[i] = i < a->n ? a->v[i] : k;
        pos[i] = i < a->n ? a->vpos[i] : a->pos;
        for (int j = 0; k && j < a->nk; j++)
            if (!strcmp(a->key[j], names[i])) pos[i] = a->kpos[j];
        if (v[i] && v[i]->kind == BL_V_NONE) v[i] = NULL;
    }
    return 0;
}

static bl_pos kw_pos(bl_callargs *a, const char *key)
{
    for (int j = 0; j < a->nk; j++)
        if (!strcmp(a->key[j], key)) return a->kpos[j];
    return a->pos;
}

bl_tensor *bl_kw_tensor(bl_callargs *a, const char *key)
{
    bl_value *v = bl_kw(a, key);
    if (!v || v->kind == BL_V_NONE) return NULL;
    return as_tensor(a, v, kw_pos(a, key));
}

static int num_of(bl_callargs *a, bl_value *v, bl_pos pos, const char *what, double *x)
{
    if (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) {
        *x = v->num;
        return 0;
    }
    bl_fail("%s: %s must be a number, got a %s", a->fname, what, bl_val_kind_name(v));
    return bl_session_errat(a->s, pos);
}

static int int_of(bl_callargs *a, bl_value *v, bl_pos pos, const char *what, long lo, long hi, long *x)
{
    double d = 0;
    if (num_of(a, v, pos, what, &d) < 0) return -1;
    char num[40];   /* as the user wrote it, readably: 1e+30, 2147483648, 2.5, nan */
    if (d != floor(d)) {
        bl_fail("%s: %s must be a whole number, got %s", a->fname, what, bl_fmt_g(d, num, sizeof num));
        return bl_session_errat(a->s, pos);
    }
    if (d < lo || d > hi) {
        bl_fail("%s: %s must be in [%ld, %ld], got %s", a->fname, what, lo, hi, bl_fmt_g(d, num, sizeof num));
        return bl_session_errat(a->s, pos);
    }
    *x = (long)d;
    return 0;
}

/* A dimension of x, negative ones counting from the end: in [-ndim, ndim - 1] of x itself. */
static int dim_of(bl_callargs *a, bl_value *v, bl_pos pos, const char *what, const bl_tensor *x, long *d)
{
    if (x->ndim == 0) {
        bl_fail("%s: %s picks a dimension, but the tensor is 0-D (one number)", a->fname, what);
        return bl_session_errat(a->s, pos);
    }
    return int_of(a, v, pos, what, -x->ndim, x->ndim - 1, d);
}

int bl_arg_num(bl_callargs *a, int i, double *x)
{
    char what[32];
    snprintf(what, sizeof what, "argument %d", i + 1);
    return num_of(a, a->v[i], a->vpos[i], what, x);
}

int bl_arg_int(bl_callargs *a, int i, long lo, long hi, long *x)
{
    char what[32];
    snprintf(what, sizeof what, "argument %d", i + 1);
    return int_of(a, a->v[i], a->vpos[i], what, lo, hi, x);
}

int bl_kw_num(bl_callargs *a, const char *key, double def, double *x)
{
    bl_value *v = bl_kw(a, key);
    *x = def;
    return v ? num_of(a, v, kw_pos(a, key), key, x) : 0;
}

int bl_kw_int(bl_callargs *a, const char *key, long def, long lo, long hi, long *x)
{
    bl_value *v = bl_kw(a, key);
    *x = def;
    return v ? int_of(a, v, kw_pos(a, key), key, lo, hi, x) : 0;
}

int bl_kw_bool(bl_callargs *a, const char *key, int def, int *b)
{
    bl_value *v = bl_kw(a, key);
    *b = def;
    if (!v) return 0;
    if (v->kind != BL_V_BOOL && v->kind != BL_V_NUM) {
        bl_fail("%s: %s must be on or off, got a %s", a->fname, key, bl_val_kind_name(v));
        return bl_session_errat(a->s, kw_pos(a, key));
    }
    *b = v->num != 0;
    return 0;
}

/* Shape from the positional arguments from..n-1, or one list argument. */
int bl_shape_args(bl_callargs *a, int from, int *nd, int *shape, int allow_neg)
{
    bl_value **v = a->v + from;
    bl_pos *pos = a->vpos + from;
    int n = a->n - from;
    bl_pos lpos[BL_MAXDIM];
    if (n == 1 && v[0]->kind == BL_V_LIST) {
        for (int i = 0; i < BL_MAXDIM; i++) lpos[i] = pos[0];
        n = v[0]->n;
        v = v[0]->items;
        pos = lpos;
    }
    if (n < 1 || n > BL_MAXDIM) {
        bl_fail("%s: a shape has 1 to %d sizes, got %d", a->fname, BL_MAXDIM, n);
        return bl_session_errat(a->s, a->pos);
    }
    int infer = 0;
    for (int i = 0; i < n; i++) {
        long x;
        if (int_of(a, v[i], pos[i], "a size", allow_neg ? -1 : 1, 2147483647L, &x) < 0) return -1;
        if (x == 0) {
            bl_fail("%s: sizes must be positive (-1 means: infer this one)", a->fname);
            return bl_session_errat(a->s, pos[i]);
        }
        shape[i] = (int)x;
        infer |= x < 0;
    }
    *nd = n;
    /* the size limit (BL_REPL_MAX_NUMEL) here too, to name the function and point at its sizes;
     * a -1 (reshape) keeps the number of elements */
    if (!infer && bl_shape_check(a->fname, n, shape, NULL) < 0) return bl_session_errat(a->s, pos[0]);
    return 0;
}


/* ---- creation ---- */
/* zeros, ones or randn (by the start of a->fname) of the given shape, a leaf with grad=on. */
static bl_value *fill_new(bl_callargs *a, int nd, const int *shape)
{
    bl_tensor *t = bl_tensor_new(nd, shape);
    if (!t) return NULL;
    if (!strncmp(a->fname, "ones", 4)) bl_tensor_fill(t, 1);
    if (!strncmp(a->fname, "randn", 5)) {
        double mean, std;
        if (bl_kw_num(a, "mean", 0, &mean) < 0 || bl_kw_num(a, "std", 1, &std) < 0) {
            bl_tensor_free(t);
            return NULL;
        }
        if (!(std >= 0)) {   /* as torch.normal: "normal expects std >= 0.0" */
            bl_fail("randn: std must be >= 0, got %g", std);
            bl_session_errat(a->s, kw_pos(a, "std"));
            bl_tensor_free(t);
            return NULL;
        }
        bl_rng_fill_normal(&a->s->rng, t->data, t->numel, (float)mean, (float)std);
    }
    return bl_ag_leaf(a, bl_val_tensor(t));
}

static bl_value *f_fill(bl_callargs *a)
{
    int nd, shape[BL_MAXDIM];
    if (bl_nargs(a, 1, -1) < 0 || bl_shape_args(a, 0, &nd, shape, 0) < 0) return NULL;
    return fill_new(a, nd, shape);
}

/* zeros_like(x), ones_like(x), randn_like(x): as zeros, ones, randn of x's shape (torch's). */
static bl_value *f_fill_like(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    return x ? fill_new(a, x->ndim, x->shape) : NULL;
}

static bl_value *f_arange(bl_callargs *a)
{
    double start = 0, stop, step = 1;
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    if (a->n == 1 ? bl_arg_num(a, 0, &stop) < 0
                  : (bl_arg_num(a, 0, &start) < 0 || bl_arg_num(a, 1, &stop) < 0)) return NULL;
    if (a->n == 3 && bl_arg_num(a, 2, &step) < 0) return NULL;
    if (step == 0 || !isfinite(step) || !isfinite(start) || !isfinite(stop)) {
        bl_fail("arange: the step must be a non-zero finite number");
        bl_session_errat(a->s, a->n == 3 ? a->vpos[2] : a->pos);
        return NULL;
    }
    double n = ceil((stop - start) / step);
    if (n < 1) return BL_FAILP("arange: [%g, %g) with step %g is empty", start, stop, step);
    if (n > (double)BL_REPL_MAX_NUMEL)
        return BL_FAILP("arange: %.4g elements is more than the limit of %.0f", n, (double)BL_REPL_MAX_NUMEL);
    bl_tensor *t = bl_tensor_new1((int)n);
    if (!t) return NULL;
    for (size_t i = 0; i < t->numel; i++) t->data[i] = (float)(start + (double)i * step);
    return bl_val_tensor(t);
}

/* range([start,] stop[, step]): the whole numbers start, start+step, ... before stop as a list
 * (Python's range), for `for i in range(n)`; empty when there are none. */
static bl_value *f_range(bl_callargs *a)
{
    long v[3] = { 0, 0, 1 };
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    for (int i = 0; i < a->n; i++)
        if (bl_arg_int(a, i, -1000000000L, 1000000000L, &v[a->n == 1 ? 1 : i]) < 0) return NULL;
    if (v[2] == 0) {
        bl_fail("range: the step cannot be zero");
        bl_session_errat(a->s, a->vpos[2]);
        return NULL;
    }
    long n = v[2] > 0 ? (v[1] - v[0] + v[2] - 1) / v[2] : (v[0] - v[1] - v[2] - 1) / -v[2];
    if (n < 0) n = 0;
    if (n > 10000000L) return BL_FAILP("range: %ld numbers is more than the limit of 10000000", n);
    bl_value *l = bl_val_list((int)n);
    for (long i = 0; l && i < n; i++)
        if ((i % 65536 == 0 && bl_interrupted()) ||
            bl_val_list_set(l, (int)i, bl_val_num((double)(v[0] + i * v[2]))) < 0) {
            bl_val_unref(l);
            return NULL;
        }
    return l;
}

/* 1 when v is a bool or a (nested) list of only bools: tensor(v) is then a mask (value.h) */
static int all_bools(const bl_value *v)
{
    if (v->kind != BL_V_LIST) return v->kind == BL_V_BOOL;
    for (int i = 0; i < v->n; i++)
        if (!all_bools(v->items[i])) return 0;
    return v->n > 0;
}

static bl_value *f_tensor(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *t = bl_val_to_tensor(a->v[0], "tensor");
    if (!t) bl_session_errat(a->s, a->vpos[0]);
    bl_value *v = bl_ag_leaf(a, bl_val_tensor(t));
    if (v && v->kind == BL_V_TENSOR) v->is_mask = all_bools(a->v[0]);   /* torch's bool tensor */
    return v;
}

/* ---- shape ---- */
static bl_value *f_reshape(bl_callargs *a)
{
    int nd, shape[BL_MAXDIM];
    if (bl_nargs(a, 2, -1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_shape_args(a, 1, &nd, shape, 1) < 0) return NULL;
    return bl_view_call(a, nd, shape);
}

static bl_value *f_transpose(bl_callargs *a)
{
    long d0 = -2, d1 = -1;
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    if (x->ndim < 2) return BL_FAILP("transpose: needs at least 2 dimensions, got %d", x->ndim);
    /* the dimensions x has, as the message says ([-2, 1] for a 2-D x; not the most any has) */
    if (a->n >= 2 && bl_arg_int(a, 1, -x->ndim, x->ndim - 1, &d0) < 0) return NULL;
    if (a->n >= 3 && bl_arg_int(a, 2, -x->ndim, x->ndim - 1, &d1) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    x = g ? bl_ag_in(&ag, a->v[0], x) : NULL;
    return bl_ag_end(&ag, x ? bl_transpose(g, x, (int)d0, (int)d1) : NULL);
}

static bl_value *f_shape(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    if (!strcmp(a->fname, "numel")) return bl_val_num((double)x->numel);
    bl_value *l = bl_val_list(x->ndim);
    for (int i = 0; l && i < x->ndim; i++)
        if (bl_val_list_set(l, i, bl_val_num(x->shape[i])) < 0) {
            bl_val_unref(l);
            return NULL;
        }
    return l;
}

/* round(x, digits) as torch.round(x, decimals=digits): halves to even (round(2.5) = 2,
 * round(-0.5) = -0, round(0.125, 2) = 0.12), by nearbyint(x * 10^d) / 10^d (d < 0:
 * nearbyint(x / 10^-d) * 10^-d) in the value's own type, so a tensor's float32 elements round
 * as torch's float32 kernel does (round(tensor([0.35]), 1) is 0.4: 0.35f * 10 is 3.5 in float32)
 * and a number as a float64 tensor. Where x * 10^d overflows (|x| > 3.4e37 in float32) x itself
 * is the answer (it has no decimals there), not torch's inf. */
static float round_f32(float x, float f, int neg)
{
    float y = neg ? nearbyintf(x / f) * f : nearbyintf(x * f) / f;
    return isinf(y) && isfinite(x) ? x : y;
}

static double round_f64(double x, double f, int neg)
{
    double y = neg ? nearbyint(x / f) * f : nearbyint(x * f) / f;
    return isinf(y) && isfinite(x) ? x : y;
}

static bl_value *f_round(bl_callargs *a)
{
    long nd = 0;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    if (a->n == 2 ? bl_arg_int(a, 1, -9, 9, &nd) < 0 : bl_kw_int(a, "digits", 0, -9, 9, &nd) < 0) return NULL;
    int neg = nd < 0;
    double f = pow(10, (double)(neg ? -nd : nd));   /* 10^9 = 2^9 5^9: exact in float too */
    if (a->v[0]->kind == BL_V_NUM) return bl_val_num(round_f64(a->v[0]->num, f, neg));
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_tensor *t = x ? bl_tensor_copy(x) : NULL;
    for (size_t i = 0; t && i < t->numel; i++) t->data[i] = round_f32(t->data[i], (float)f, neg);
    return bl_val_tensor(t);
}

/* ---- block parts ---- */
/* GELU's tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (Hendrycks &
 * Gimpel 2016, eq. 2; F.gelu(x, approximate="tanh"), GPT-2's) as graph ops, so its gradient is
 * theirs: 0.5 x + 0.5 x tanh(...). */
static bl_tensor *gelu_tanh(bl_graph *g, bl_tensor *x)
{
    bl_tensor *x3 = bl_pow_scalar(g, x, 3);
    bl_tensor *in = x3 ? bl_add(g, x, bl_scale(g, x3, 0.044715f)) : NULL;
    bl_tensor *t = in ? bl_unary_op(g, BL_TANH, bl_scale(g, in, 0.7978845608028654f)) : NULL;
    bl_tensor *xt = t ? bl_mul(g, x, t) : NULL;
    return xt ? bl_add(g, bl_scale(g, x, 0.5f), bl_scale(g, xt, 0.5f)) : NULL;
}

static bl_value *f_act(bl_callargs *a)
{
    int tanh_form = 0;
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_value *ap = a->fname[0] == 'g' ? bl_kw(a, "approximate") : NULL;
    if (ap && (ap->kind != BL_V_STR || (strcmp(ap->str, "none") && strcmp(ap->str, "tanh"))))
        return BL_FAILP("gelu: approximate must be \"none\" (the exact erf form) or \"tanh\"");
    tanh_form = ap && !strcmp(ap->str, "tanh");
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_ag ag;
    bl_graph *g = x ? bl_ag_begin(&ag, a) : NULL;
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    return bl_ag_end(&ag, !x ? NULL : tanh_form ? gelu_tanh(g, x) : a->fname[0] == 'g' ? bl_gelu(g, x) : bl_silu(g, x));
}

static bl_value *f_softmax(bl_callargs *a)
{
    long d = -1;
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_value *dim = x ? bl_kw(a, "dim") : NULL;
    if (x && a->n == 2 && dim) return BL_FAILP("softmax: dim given twice");
    /* softmax(x, 1) and x.softmax(-1): dim given second, as torch's */
    if (!x || (a->n == 2 && dim_of(a, a->v[1], a->vpos[1], "dim", x, &d) < 0) ||
        (dim && dim_of(a, dim, kw_pos(a, "dim"), "dim", x, &d) < 0)) return NULL;
    int dd = bl_dim_index("softmax", x, (int)d);
    bl_ag ag;
    bl_graph *g = dd < 0 ? NULL : bl_ag_begin(&ag, a);
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    if (!x || dd == x->ndim - 1) return bl_ag_end(&ag, x ? bl_softmax(g, x) : NULL);
    bl_tensor *t = bl_transpose(g, x, dd, -1);    /* softmax over dim dd, then back */
    bl_tensor *r = t ? bl_softmax(g, t) : NULL;
    return bl_ag_end(&ag, r ? bl_transpose(g, r, dd, -1) : NULL);
}

static bl_value *f_norm(bl_callargs *a)
{
    int ln = a->fname[0] == 'l';
    double eps;
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_kw_num(a, "eps", ln ? 1e-5 : 1e-6, &eps) < 0) return NULL;
    bl_tensor *w = bl_kw_tensor(a, "w");
    if (a->s->has_errpos) return NULL;
    bl_tensor *b = ln ? bl_kw_tensor(a, "b") : NULL;
    if (a->s->has_errpos) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    w = bl_ag_in(&ag, bl_kw(a, "w"), w);
    b = bl_ag_in(&ag, bl_kw(a, "b"), b);
    if (!x) return bl_ag_end(&ag, NULL);
    return bl_ag_end(&ag, ln ? bl_layernorm(g, x, w, b, (float)eps) : bl_rmsnorm(g, x, w, (float)eps));
}

static bl_value *f_linear(bl_callargs *a)
{
    if (bl_nargs(a, 2, 3) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *w = x ? bl_arg_tensor(a, 1) : NULL;
    bl_tensor *b = w && a->n == 3 ? bl_arg_tensor(a, 2) : NULL;
    if (!w || (a->n == 3 && !b)) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    w = bl_ag_in(&ag, a->v[1], w);
    if (b) b = bl_ag_in(&ag, a->v[2], b);
    return bl_ag_end(&ag, x && w ? bl_linear(g, x, w, b) : NULL);
}

static bl_value *f_swiglu(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *y = x ? bl_arg_tensor(a, 1) : NULL;
    bl_ag ag;
    bl_graph *g = y ? bl_ag_begin(&ag, a) : NULL;
    if (!g) return NULL;
    x = bl_ag_in(&ag, a->v[0], x);
    y = bl_ag_in(&ag, a->v[1], y);
    return bl_ag_end(&ag, x && y ? bl_swiglu(g, x, y) : NULL);
}

static bl_value *f_swiglu_hidden(bl_callargs *a)
{
    long dim, mult;
    double ratio;
    if (bl_nargs(a, 1, 2) < 0 || bl_arg_int(a, 0, 1, 1 << 20, &dim) < 0) return NULL;
    if (a->n == 2 ? bl_arg_num(a, 1, &ratio) < 0 : bl_kw_num(a, "mlp_ratio", 4, &ratio) < 0) return NULL;
    if (bl_kw_int(a, "multiple_of", 0, 0, 1 << 20, &mult) < 0) return NULL;
    if (!(ratio > 0 && ratio < 1000)) return BL_FAILP("swiglu_hidden: mlp_ratio must be in (0, 1000), got %g", ratio);
    return bl_val_num(bl_swiglu_hidden((int)dim, (float)ratio, (int)mult));
}

/* ---- RoPE and attention ---- */
static bl_value *f_rope_table(bl_callargs *a)
{
    long v[3];
    double base;
    if (bl_nargs(a, 2, 3) < 0) return NULL;
    for (int i = 0; i < a->n; i++)
        if (bl_arg_int(a, i, 1, 1 << 16, &v[i]) < 0) return NULL;
    int two = a->n == 3;
    long T = two ? v[0] * v[1] : v[0], hd = v[a->n - 1], extra;
    if (bl_kw_num(a, "base", two ? 100 : 10000, &base) < 0) return NULL;
    if (bl_kw_int(a, two ? "prefix" : "offset", 0, 0, 1 << 16, &extra) < 0) return NULL;
    if (two) T += extra;
    if ((double)T * (double)hd * 2 > (double)BL_REPL_MAX_NUMEL) return BL_FAILP("rope_table: %ld x %ld is too large", T, hd);
    bl_tensor *t = bl_tensor_new3(2, (int)T, (int)hd);
    if (!t) return NULL;
    float *c = t->data, *s = t->data + (size_t)T * (size_t)hd;
    int rc = two ? bl_rope_table_2d((int)v[0], (int)v[1], (int)extra, (int)hd, (float)base, c, s)
                 : bl_rope_table_1d((int)T, (int)hd, (float)base, (int)extra, c, s);
    if (rc < 0) {
        bl_tensor_free(t);
        return NULL;
    }
    return bl_val_tensor(t);
}

/* View x [T, hd], [H, T, hd] or [B, H, T, hd] as 4-D (a caller-owned struct). */
static int as4d(bl_callargs *a, bl_tensor *x, bl_tensor *view, int i)
{
    int shape[4] = { 1, 1, 1, 1 };
    if (x->ndim < 2) {
        bl_fail("%s: expected [T, hd] up to [B, H, T, hd], got %d dimension%s", a->fname, x->ndim,
                x->ndim == 1 ? "" : "s");
        return bl_session_errat(a->s, a->vpos[i]);
    }
    for (int d = 0; d < x->ndim; d++) shape[4 - x->ndim + d] = x->shape[d];
    return bl_tensor_view_as(view, x, 4, shape);
}

/* The 4-D result r of an op on as4d views, with like's number of dimensions, as the call's value. */
static bl_value *reshape_back(bl_ag *ag, bl_tensor *r, const bl_tensor *like)
{
    int nd = like->ndim;
    return bl_ag_end(ag, r ? bl_graph_view(ag->g, r, nd, r->shape + 4 - nd) : NULL);
}

static bl_value *f_apply_rope(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *tab = x ? bl_arg_tensor(a, 1) : NULL;
    if (!tab) return NULL;
    if (tab->ndim != 3 || tab->shape[0] != 2) {
        bl_fail("apply_rope: the table must be [2, T, hd] as rope_table() makes it");
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_tensor x4;
    int sh[2] = { tab->shape[1], tab->shape[2] };
    if (as4d(a, x, &x4, 0) < 0) return NULL;
    /* checked here, with x's own shape (bl_rope would name its [B, H, T, hd] view) */
    char xs[64];
    if (x->shape[x->ndim - 2] != sh[0] || x->shape[x->ndim - 1] != sh[1]) {
        bl_fail("apply_rope: x %s needs a table [2, %d, %d] (T, head_dim), got [2, %d, %d]",
                bl_shape_str(x, xs, sizeof xs), x->shape[x->ndim - 2], x->shape[x->ndim - 1], sh[0], sh[1]);
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    if (sh[1] % 2) {
        bl_fail("apply_rope: head_dim must be even, got %d (x %s)", sh[1], bl_shape_str(x, xs, sizeof xs));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    if (bl_ag_refuse(a->s, "apply_rope: the table", 1, &a->v[1]) < 0) {
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    size_t half = (size_t)sh[0] * (size_t)sh[1];
    bl_tensor c = { .data = tab->data, .ndim = 2, .shape = { sh[0], sh[1] }, .numel = half }, s = c;
    s.data += half;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    bl_tensor *xin = bl_ag_in(&ag, a->v[0], &x4), *cc = bl_ag_const(&ag, &c), *ss = bl_ag_const(&ag, &s);
    return reshape_back(&ag, xin && cc && ss ? bl_rope(g, xin, cc, ss) : NULL, x);
}

/* mask=: a 0/1 tensor is boolean (1 = may attend), any other value makes it additive (added to
 * the scores, -inf masks); additive=on/off says which. */
static int mask_kind(bl_callargs *a, const bl_tensor *m, int *additive)
{
    bl_value *v = bl_kw(a, "additive");
    if (v && v->kind != BL_V_NONE) return bl_kw_bool(a, "additive", 0, additive);
    *additive = 0;
    for (size_t i = 0; i < m->numel; i++) *additive |= m->data[i] != 0.0f && m->data[i] != 1.0f;
    return 0;
}

static bl_value *f_attention(bl_callargs *a)
{
    int causal, weights, additive = 0;
    double scale;
    if (bl_nargs(a, 3, 3) < 0) return NULL;
    bl_tensor *x[3], v4[3];
    for (int i = 0; i < 3; i++)
        if (!(x[i] = bl_arg_tensor(a, i)) || as4d(a, x[i], &v4[i], i) < 0) return NULL;
    if (bl_kw_bool(a, "causal", 0, &causal) < 0 || bl_kw_num(a, "scale", 0, &scale) < 0 ||
        bl_kw_bool(a, "weights", 0, &weights) < 0) return NULL;
    bl_tensor *mask = bl_kw_tensor(a, "mask");
    if (a->s->has_errpos || (mask && mask_kind(a, mask, &additive) < 0)) return NULL;
    bl_value *mv = bl_kw(a, "mask");
    if (mv && bl_ag_refuse(a->s, "attention: mask", 1, &mv) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    bl_tensor *in[3];
    for (int i = 0; i < 3; i++) in[i] = bl_ag_in(&ag, a->v[i], &v4[i]);
    if (weights && ag.recording) {
        bl_fail("attention: weights=on gives the weights without a gradient; for one, compute them as "
                "softmax(q @ transpose(k) * scale) (or detach the inputs)");
        return bl_ag_end(&ag, NULL);
    }
    bl_tensor *probs = NULL;
    bl_tensor *r = in[0] && in[1] && in[2]
                 ? bl_attention_masked(g, in[0], in[1], in[2], causal, mask, additive, (float)scale, &probs) : NULL;
    return reshape_back(&ag, weights && r ? probs : r, x[0]);
}

static bl_value *f_allclose(bl_callargs *a)
{
    double rtol, atol;
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *y = x ? bl_arg_tensor(a, 1) : NULL;
    if (!y || bl_kw_num(a, "rtol", 1e-4, &rtol) < 0 || bl_kw_num(a, "atol", 1e-5, &atol) < 0) return NULL;
    int r = bl_allclose(x, y, (float)rtol, (float)atol);
    return r < 0 ? NULL : bl_val_bool(r);
}

/* ---- output ---- */
/* A string keyword of print (sep=, end=): its text, def when absent or None; NULL + error at it
 * for any other kind. */
static const char *str_kw(bl_callargs *a, const char *key, const char *def)
{
    bl_value *v = bl_kw(a, key);
    if (!v || v->kind == BL_V_NONE) return def;
    if (v->kind == BL_V_STR) return v->str;
    bl_fail("print: %s must be a string, not a %s (print(a, b, sep=\", \", end=\"\"))", key, bl_val_kind_name(v));
    bl_session_errat(a->s, kw_pos(a, key));
    return NULL;
}

/* Like Python's print: the values on one line, separated by sep (a space), then end (a newline),
 * each as the prompt shows it, so print(x) is x's display exactly; a table or a model, run or
 * picture takes whole lines of its own, starting on a fresh one. Every argument is checked
 * before anything is printed. */
static bl_value *f_print(bl_callargs *a)
{
    static const char *const keys[] = { "sep", "end", "flush", NULL };
    int flush;
    if (bl_kw_only(a, keys) < 0) return NULL;
    const char *sep = str_kw(a, "sep", " "), *end = sep ? str_kw(a, "end", "\n") : NULL;
    if (!end || bl_kw_bool(a, "flush", 0, &flush) < 0) return NULL;
    int bol = 1;    /* at the start of a line */
    for (int i = 0; i < a->n; i++) {
        bl_value *v = a->v[i];
        if (v->kind == BL_V_TABLE || v->kind == BL_V_HANDLE) {
            if (!bol) fputc('\n', a->s->out);
            bl_val_print(v, a->s->out);
            bol = 1;
            continue;
        }
        if (i > 0 && !bol) fputs(sep, a->s->out);
        bol = 0;
        bl_val_print_inline(v, a->s->out);
    }
    if (!bol || a->n == 0) fputs(end, a->s->out);
    if (flush) fflush(a->s->out);
    return bl_val_none();
}

/* str(x): x as print shows it, as a string (Python's str): for names built in a loop,
 * sample m > ("samples_" + str(k) + ".png"). */
static bl_value *f_str(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    char *text = bl_str_of(a->v[0]);
    bl_value *r = text ? bl_val_str(text) : NULL;
    free(text);
    return r;
}

/* len(x): Python's len: a list's items, a string's characters (bytes), a tensor's first
 * dimension, a table's rows. A number or a 0-D tensor has none: an error, as in torch. */
/* dict(), dict(d), dict(pairs), dict(k=v, ...): Python's dict (dict(m.named_parameters())). */
static bl_value *f_dict(bl_callargs *a)
{
    if (bl_nargs(a, 0, 1) < 0) return NULL;
    const bl_value *src = a->n ? a->v[0] : NULL;
    if (src && src->kind != BL_V_DICT && src->kind != BL_V_LIST) {
        bl_fail("dict: takes a dict or a list of [key, value] pairs, got a %s", bl_val_kind_name(src));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    int n = src ? src->n : 0;
    bl_value *d = bl_val_dict(n + a->nk);
    for (int i = 0; d && i < n; i++) {
        const bl_value *it = src->items[i];
        bl_value *k = src->kind == BL_V_DICT ? src->keys[i] : it->kind == BL_V_LIST && it->n == 2 ? it->items[0] : NULL;
        bl_value *v = src->kind == BL_V_DICT ? src->items[i] : k ? it->items[1] : NULL;
        if (!k) {
            bl_fail("dict: item %d is a %s, not a [key, value] pair", i,
                    it->kind == BL_V_LIST ? "list of another length" : bl_val_kind_name(it));
            bl_session_errat(a->s, a->vpos[0]);
        }
        if (!k || bl_val_dict_set(d, bl_val_ref(k), bl_val_ref(v)) < 0) {
            bl_val_unref(d);
            d = NULL;
        }
    }
    for (int i = 0; d && i < a->nk; i++)
        if ((a->kused[i] = 1) && bl_val_dict_set(d, bl_val_str(a->key[i]), bl_val_ref(a->kv[i])) < 0) {
            bl_val_unref(d);
            d = NULL;
        }
    return d;
}

static bl_value *f_len(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    const bl_value *v = a->v[0];
    if (v->kind == BL_V_LIST || v->kind == BL_V_DICT) return bl_val_num(v->n);
    if (v->kind == BL_V_STR) return bl_val_num((double)strlen(v->str));
    if (v->kind == BL_V_TABLE) return bl_val_num(v->tab->nrow);
    if (v->kind == BL_V_TENSOR && v->t->ndim > 0) return bl_val_num(v->t->shape[0]);
    return BL_FAILP("len: a %s has no length (len takes a list, dict, string, tensor or table)",
                    v->kind == BL_V_TENSOR ? "0-D tensor" : bl_val_kind_name(v));
}

/* int(x), float(x): Python's conversions of a number, a bool, a string ("12", " 2.5", "inf",
 * "nan") or a one-element tensor; int truncates toward 0. Their errors are Python's. */
static bl_value *f_convert(bl_callargs *a)
{
    int to_int = !strcmp(a->fname, "int");
    if (bl_nargs(a, 0, 1) < 0) return NULL;
    if (a->n == 0) return bl_val_num(0);
    const bl_value *v = a->v[0];
    double x;
    if (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) {
        x = v->num;
    } else if (v->kind == BL_V_TENSOR && v->t->numel == 1) {
        x = v->t->data[0];
    } else if (v->kind == BL_V_STR) {
        const char *t = v->str + strspn(v->str, " \t\n");
        char *end;
        if (to_int) {
            errno = 0;
            long long k = strtoll(t, &end, 10);
            x = (double)k;
            if (end == t || errno) end = (char *)t;
        } else {
            x = strtod(t, &end);
            if (end != t && !strncasecmp(t + (*t == '-' || *t == '+'), "0x", 2)) end = (char *)t;  /* no hex */
        }
        const char *rest = end + strspn(end, " \t\n");
        if (end == t || *rest) {
            if (to_int) return BL_FAILP("ValueError: invalid literal for int() with base 10: '%s'", v->str);
            return BL_FAILP("ValueError: could not convert string to float: '%s'", v->str);
        }
        return bl_val_num(x);
    } else if (v->kind == BL_V_TENSOR) {
        return BL_FAILP("%s: only one-element tensors can be converted to numbers (this one has %zu)", a->fname,
                        v->t->numel);
    } else {
        return BL_FAILP("TypeError: %s() takes a number, a string or a one-element tensor, not a %s", a->fname,
                        bl_val_kind_name(v));
    }
    if (!to_int) return bl_val_num(x);
    if (isnan(x)) return BL_FAILP("ValueError: cannot convert float NaN to integer");
    if (isinf(x)) return BL_FAILP("OverflowError: cannot convert float infinity to integer");
    return bl_val_num(trunc(x));
}

/* The number of items of v a loop runs over (a list's, a tensor's rows), or -1 (none). */
static int items_of(const bl_value *v)
{
    return v->kind == BL_V_LIST ? v->n : v->kind == BL_V_TENSOR && v->t->ndim > 0 ? v->t->shape[0] : -1;
}

/* manual_seed(n): torch.manual_seed, the `seed N` command as a function. */
static bl_value *f_manual_seed(bl_callargs *a)
{
    long n;
    if (bl_nargs(a, 1, 1) < 0 || bl_arg_int(a, 0, 0, 9007199254740991L, &n) < 0) return NULL;
    bl_session_reseed(a->s, (uint64_t)n);
    return bl_val_none();
}

/* list(), list(xs): Python's list of the items a for loop takes from xs (a copy of a list, a
 * dict's keys, a tensor's rows). */
static bl_value *f_list(bl_callargs *a)
{
    if (bl_nargs(a, 0, 1) < 0) return NULL;
    int n = !a->n ? 0 : a->v[0]->kind == BL_V_DICT ? a->v[0]->n : items_of(a->v[0]);
    if (n < 0) {
        bl_fail("list: cannot loop over a %s (a list, range(n), a dict's keys or a tensor, by its first dimension)",
                a->v[0]->kind == BL_V_TENSOR ? "0-D tensor" : bl_val_kind_name(a->v[0]));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    bl_value *l = bl_val_list(n);
    for (int i = 0; l && i < n; i++)
        if (bl_val_list_set(l, i, bl_lang_item(a->v[0], i)) < 0) {
            bl_val_unref(l);
            l = NULL;
        }
    return l;
}

/* enumerate(xs, start=0): the list of [i, x] pairs; zip(a, b, ...): the list of [a_i, b_i, ...],
 * as long as the shortest (Python's, as lists: for i, x in enumerate(xs)). Items are a list's or
 * a tensor's rows, as a for loop takes them. */
static bl_value *f_enumerate_zip(bl_callargs *a)
{
    int zip = !strcmp(a->fname, "zip");
    double start = 0;
    if (bl_nargs(a, zip ? 1 : 1, zip ? 64 : 2) < 0) return NULL;
    if (!zip && (a->n == 2 ? bl_arg_num(a, 1, &start) : bl_kw_num(a, "start", 0, &start)) < 0) return NULL;
    int n = -1, k = zip ? a->n : 1;
    for (int j = 0; j < k; j++) {
        int m = items_of(a->v[j]);
        if (m < 0) {
            bl_fail("%s: cannot loop over a %s (a list, range(n) or a tensor, by its first dimension)", a->fname,
                    a->v[j]->kind == BL_V_TENSOR ? "0-D tensor" : bl_val_kind_name(a->v[j]));
            bl_session_errat(a->s, a->vpos[j]);
            return NULL;
        }
        if (n < 0 || m < n) n = m;
    }
    bl_value *l = bl_val_list(n);
    for (int i = 0; l && i < n; i++) {
        bl_value *row = bl_val_list(zip ? k : 2);
        int rc = row ? 0 : -1;
        if (rc == 0 && !zip) rc = bl_val_list_set(row, 0, bl_val_num(start + i));
        for (int j = 0; rc == 0 && j < k; j++) {
            bl_value *x = bl_lang_item(a->v[j], i);
            rc = x ? bl_val_list_set(row, zip ? j : 1, x) : -1;
        }
        if (rc < 0 || bl_val_list_set(l, i, row) < 0) {
            if (rc < 0) bl_val_unref(row);
            bl_val_unref(l);
            return NULL;
        }
    }
    return l;
}

/* x.size() (torch.Tensor.size): the shape as a list; x.size(d) its size along d (negative
 * counts from the end). */
static bl_value *f_size(bl_callargs *a)
{
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    bl_value *dv = a->n == 2 ? a->v[1] : bl_kw(a, "dim");
    if (!dv) {
        a->fname = "shape";
        return f_shape(a);
    }
    long d;
    if (x->ndim == 0) return BL_FAILP("size: the tensor is 0-D (one number): it has no dimension to pick");
    if ((a->n == 2 ? bl_arg_int(a, 1, -x->ndim, x->ndim - 1, &d) : bl_kw_int(a, "dim", 0, -x->ndim, x->ndim - 1, &d)) < 0)
        return NULL;
    return bl_val_num(x->shape[d < 0 ? d + x->ndim : d]);
}

/* One cell of a table column: item r of a list, element r of a 1-D tensor, or the value itself
 * (a number or string given once is repeated on every row). */
static void table_cell(const bl_value *v, int r, char *buf, size_t n)
{
    if (v->kind == BL_V_LIST) v = v->items[v->n == 1 ? 0 : r];
    if (v->kind == BL_V_TENSOR) bl_fmt_num(v->t->data[v->t->numel == 1 ? 0 : r], buf, n);
    else if (v->kind == BL_V_STR) snprintf(buf, n, "%s", v->str);
    else if (v->kind == BL_V_BOOL) snprintf(buf, n, "%s", v->num ? "true" : "false");
    else bl_fmt_num(v->num, buf, n);
}

/* table(col=values, ...): a table from equally long lists (of numbers or strings), 1-D tensors,
 * or single numbers and strings. */
static bl_value *f_table(bl_callargs *a)
{
    if (bl_nargs(a, 0, 0) < 0) return NULL;
    if (a->nk == 0) return bl_val_table(bl_table_new(0, NULL));   /* to grow with t.add(...) */
    int rows = 1;
    for (int j = 0; j < a->nk; j++) {
        bl_value *v = bl_kw(a, a->key[j]);
        int n = 1, ok = 1;
        if (v->kind == BL_V_LIST) {
            n = v->n;
            for (int i = 0; i < v->n; i++) {
                bl_vkind k = v->items[i]->kind;
                ok &= k == BL_V_NUM || k == BL_V_STR || k == BL_V_BOOL;
            }
        } else if (v->kind == BL_V_TENSOR) {
            n = (int)v->t->numel;
            ok = v->t->ndim == 1;
        } else {
            ok = v->kind == BL_V_NUM || v->kind == BL_V_STR || v->kind == BL_V_BOOL;
        }
        if (!ok || n == 0) {
            bl_fail("table: column '%s' must be a list of numbers or strings, a 1-D tensor or one value",
                    a->key[j]);
            bl_session_errat(a->s, a->kpos[j]);
            return NULL;
        }
        if (n != 1 && rows != 1 && n != rows) {
            bl_fail("table: column '%s' has %d values, the others %d", a->key[j], n, rows);
            bl_session_errat(a->s, a->kpos[j]);
            return NULL;
        }
        if (n > rows) rows = n;
    }
    bl_table *t = bl_table_new(a->nk, a->key);
    for (int r = 0; t && r < rows; r++) {
        char cells[64][64];
        const char *cp[64];
        for (int j = 0; j < a->nk; j++) {
            table_cell(bl_kw(a, a->key[j]), r, cells[j], sizeof cells[j]);
            cp[j] = cells[j];
        }
        if (bl_table_add(t, cp) < 0) {
            bl_table_free(t);
            return NULL;
        }
    }
    return bl_val_table(t);
}

/* load("file.safetensors", "name"): one tensor of a safetensors file (a checkpoint); with the
 * file alone, a table of the tensors it holds. */
static bl_value *f_load(bl_callargs *a)
{
    if (bl_nargs(a, 1, 2) < 0) return NULL;
    for (int i = 0; i < a->n; i++)
        if (a->v[i]->kind != BL_V_STR) {
            bl_fail("load: argument %d must be a string (load(\"file.safetensors\", \"name\"))", i + 1);
            bl_session_errat(a->s, a->vpos[i]);
            return NULL;
        }
    bl_st_file *f = bl_st_read(a->v[0]->str);
    if (!f) {
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    bl_value *r = NULL;
    if (a->n == 1) {
        const char *cols[] = { "name", "shape", "elements", "dtype" };
        bl_table *t = bl_table_new(4, cols);
        for (int i = 0; t && i < f->n; i++) {
            if (bl_table_addf(t, "%s\t%s\t%zu\t%s", f->tensors[i].name, f->shapes[i], f->tensors[i].numel,
                              f->dtypes[i]) < 0) {
                bl_table_free(t);
                t = NULL;
            }
        }
        r = bl_val_table(t);
    } else {
        const bl_tensor *t = bl_st_get(f, a->v[1]->str);
        if (!t) {
            bl_fail("load: %s has no tensor '%s' (load(\"%s\") lists them)", a->v[0]->str, a->v[1]->str,
                    a->v[0]->str);
            bl_session_errat(a->s, a->vpos[1]);
        } else if (bl_st_need_values(f, t) < 0) {
            bl_error_prefix("load");
            bl_session_errat(a->s, a->vpos[1]);
        } else {
            r = bl_ag_leaf(a, bl_val_tensor(bl_tensor_copy(t)));
        }
    }
    bl_st_free(f);
    return r;
}

/* The first sentence of every function's help is its summary line in `help functions`: at most
 * 73 characters, so that it fits 79 columns after the indent (test_repl checks it). */
/* What every reduction's help says after its own (bl_function_help_more). */
static const char reduce_help[] =
    "Without dim a number; dim is dim=1 or the second argument (x.sum(1), as torch); a\n"
    "negative dim counts from the end; keepdim=on keeps that dimension with size 1 so the\n"
    "result broadcasts against x.";

const char *bl_function_help_more(const bl_function *f) { return f->fn == bl_fn_reduce ? reduce_help : NULL; }

const bl_function bl_functions[] = {
    { "randn", "randn(d0, d1, ..., mean=0, std=1, grad=off)",
      "A tensor of normal random numbers from the session's generator. `seed N` restarts it,\n"
      "so a script gives the same numbers every run. Up to 4 sizes; at most 2^28 elements;\n"
      "std >= 0. grad=on (or PyTorch's requires_grad=True) makes it a leaf that needs a gradient\n"
      "(help backward).", f_fill },
    { "zeros", "zeros(d0, d1, ..., grad=off)", "A tensor of zeros with the given shape. grad=on (requires_grad=True) makes it a leaf that needs a gradient.", f_fill },
    { "ones", "ones(d0, d1, ..., grad=off)", "A tensor of ones with the given shape. grad=on (requires_grad=True) makes it a leaf that needs a gradient.", f_fill },
    { "zeros_like", "zeros_like(x, grad=off)",
      "Zeros of x's shape (torch.zeros_like). grad=on makes it a leaf that needs a gradient.", f_fill_like },
    { "ones_like", "ones_like(x, grad=off)",
      "Ones of x's shape (torch.ones_like). grad=on makes it a leaf that needs a gradient.", f_fill_like },
    { "randn_like", "randn_like(x, mean=0, std=1, grad=off)",
      "Normal random numbers of x's shape (torch.randn_like).\n"
      "From the session's generator, as randn's (seed N restarts it).", f_fill_like },
    { "range", "range([start,] stop[, step])",
      "The list start, start+step, ... below stop (Python's range).\n"
      "Whole numbers, for loops: for i in range(n). Empty when there are none; at most\n"
      "10,000,000.", f_range },
    { "arange", "arange([start,] stop[, step])",
      "The 1-D tensor start, start+step, ... below stop (NumPy's arange).", f_arange },
    { "tensor", "tensor([[1, 2], [3, 4]], grad=off)",
      "A tensor from (nested) lists of numbers; the nesting must be rectangular. grad=on (PyTorch's\n"
      "requires_grad=True) makes it a leaf that needs a gradient (a single number then stays a 0-D tensor).", f_tensor },
    { "reshape", "reshape(x, d0, d1, ...)",
      "x with another shape of the same number of elements. One size may be -1 (inferred).", f_reshape },
    { "transpose", "transpose(x, d0=-2, d1=-1)",
      "x with dimensions d0 and d1 swapped (the last two by default). x.T does the same.", f_transpose },
    { "shape", "shape(x)", "The shape of x as a list, e.g. [4, 64, 128].", f_shape },
    { "numel", "numel(x)", "The number of elements of x.", f_shape },
    { "size", "size(x, dim=)",
      "The shape of x as a list, or its size along dim (torch's Tensor.size). x.size() and\n"
      "x.size(0) call it as a method.", f_size },
    { "sum", "sum(x, dim=, keepdim=off)", "The sum of x, or along dimension dim.", bl_fn_reduce },
    { "mean", "mean(x, dim=, keepdim=off)", "The mean of x, or along dimension dim.", bl_fn_reduce },
    { "var", "var(x, dim=, keepdim=off, unbiased=on, correction=1)",
      "The variance of x, or along dimension dim. It divides by n - correction, as torch.var:\n"
      "unbiased by default; unbiased=off (correction=0) divides by n, as inside LayerNorm.",
      bl_fn_reduce },
    { "std", "std(x, dim=, keepdim=off, unbiased=on, correction=1)",
      "The standard deviation of x, or along dimension dim. sqrt(var(x, ...)): unbiased by\n"
      "default, as torch.std.", bl_fn_reduce },
    { "rms", "rms(x, dim=, keepdim=off)", "The root mean square sqrt(mean(x^2)) of x, or along dimension dim.",
      bl_fn_reduce },
    { "min", "min(x, dim=, keepdim=off) | min(a, b, ...)",
      "The smallest element of x, or [values, indices] along dim (torch.min).\n"
      "v, i = x.min(1) unpacks the pair; x.min(1).values (or [0]) is the values,\n"
      ".indices the indices: the first smallest (argmin's), where the gradient goes.\n"
      "min(a, b, ...) of numbers is Python's min; of two tensors the elementwise\n"
      "minimum (torch.min(a, b)).", bl_fn_reduce },
    { "max", "max(x, dim=, keepdim=off) | max(a, b, ...)",
      "The largest element of x, or [values, indices] along dim (torch.max).\n"
      "v, i = x.max(1) unpacks the pair; x.max(1).values (or [0]) is the values,\n"
      ".indices the indices: the first largest (argmax's), where the gradient goes.\n"
      "max(a, b, ...) of numbers is Python's max; of two tensors the elementwise\n"
      "maximum (torch.max(a, b)).", bl_fn_reduce },
    { "abs", "abs(x)", "|x| elementwise; its gradient at 0 is 0, as torch's.", bl_fn_unary },
    { "sqrt", "sqrt(x)", "The square root, elementwise; sqrt(-1) is nan.", bl_fn_unary },
    { "exp", "exp(x)", "e^x elementwise.", bl_fn_unary },
    { "log", "log(x)", "The natural logarithm, elementwise; log(0) is -inf.", bl_fn_unary },
    { "round", "round(x, digits=0)",
      "x (a number or tensor) rounded to digits decimals, halves to even.\n"
      "As torch.round(x, decimals=digits): round(2.5) = 2, round(-0.5) = -0.\n"
      "The digits may be -9 to 9: round(0.125, 2) = 0.12, round(1250, -2) = 1200. As in torch,\n"
      "x * 10^digits goes to the nearest whole number, then / 10^digits: for a tensor in\n"
      "float32 (round(tensor([0.35]), 1) is 0.4: 0.35 * 10 is 3.5 in float32), for a number in\n"
      "double (round(2.675, 2) is 2.68, Python's decimal-exact round says 2.67). Where\n"
      "x * 10^digits overflows, x is the answer (torch gives inf).", f_round },
    { "softmax", "softmax(x, dim=-1)",
      "exp(x) / sum(exp(x)) along dim (F.softmax). Computed with the maximum subtracted.\n"
      "dim may come second, as torch's: x.softmax(-1).", f_softmax },
    { "layernorm", "layernorm(x, w=, b=, eps=1e-5)",
      "LayerNorm over the last dimension: (x - mean) / sqrt(var + eps) * w + b.\n"
      "The variance is biased (Ba et al. 2016); each token comes out with mean 0 and rms 1\n"
      "(before w and b).", f_norm },
    { "rmsnorm", "rmsnorm(x, w=, eps=1e-6)",
      "RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * w.\n"
      "No mean subtraction (Zhang & Sennrich 2019): each token comes out with rms 1 but keeps\n"
      "the sign of its mean.", f_norm },
    { "gelu", "gelu(x, approximate=\"none\")",
      "GELU, exact erf form: 0.5 x (1 + erf(x / sqrt 2)) (F.gelu).\n"
      "The models' FFN uses it. approximate=\"tanh\" gives GPT-2's tanh form\n"
      "0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as F.gelu(x, approximate=\"tanh\");\n"
      "it differs from the exact one by < 5e-4.", f_act },
    { "silu", "silu(x)", "SiLU: x * sigmoid(x); silu(1) = 0.7311, silu(-1) = -0.2689.\n"
      "At the ends it gives F.silu's values: silu(-1e30) = -0, silu(-inf) = nan (-inf * 0),\n"
      "silu(inf) = inf.", f_act },
    { "swiglu", "swiglu(a, b)",
      "The SwiGLU gate silu(a) * b (Shazeer 2020). The SwiGLU FFN is\n"
      "linear(swiglu(linear(x, w1), linear(x, w2)), w3).", f_swiglu },
    { "swiglu_hidden", "swiglu_hidden(dim, mlp_ratio=4, multiple_of=0)",
      "The SwiGLU hidden width int(2 * mlp_ratio * dim / 3). Rounded up to a multiple of\n"
      "multiple_of when given: dim 128 gives 341, so SwiGLU keeps the GELU FFN's parameter count.",
      f_swiglu_hidden },
    { "linear", "linear(x, w, b)", "x w^T + b, with w [out, in] and b [out] optional (F.linear).", f_linear },
    { "rope_table", "rope_table(T, hd, base=10000, offset=0) | rope_table(gh, gw, hd, base=100, prefix=0)",
      "RoPE cos and sin tables as one tensor [2, tokens, hd] (cos first). With two sizes: 1-D\n"
      "positions 0..T-1, pair i turns by pos * base^(-2i/hd). With three: a gh x gw grid in\n"
      "row-major order; the first half of the features turns with the row, the second with\n"
      "the column, pair i by pos * base^(-i/(hd/4)); `prefix` tokens before the grid get angle 0.\n"
      "Pairs are adjacent features (x0 x1)(x2 x3)... (interleaved, as in RoFormer and LLaMA).",
      f_rope_table },
    { "apply_rope", "apply_rope(x, table)",
      "Rotate x [T, hd] (or [H, T, hd], [B, H, T, hd]) by a rope_table. Each pair (x0, x1) at\n"
      "angle a becomes (x0 cos a - x1 sin a, x0 sin a + x1 cos a). Lengths are kept.", f_apply_rope },
    { "attention", "attention(q, k, v, causal=off, scale=, weights=off, mask=, additive=)",
      "Scaled dot-product attention: softmax(q k^T * scale + mask) v.\n"
      "q is [.., H, T, hd], k and v [.., KVH, S, hd] (grouped-query attention when KVH < H).\n"
      "weights=on returns the attention weights [.., H, T, S].\n"
      "mask= broadcasts to [B, H, T, S] ([T, S], [B, 1, 1, S], ...), as torch's attn_mask: a\n"
      "0/1 mask is boolean (1 = may attend, e.g. tril(ones(T, S))); any other value makes it\n"
      "additive (added to the scores; -inf hides a key); additive=on/off says which. A query\n"
      "that may see no key gets 0 (torch gives nan).\n"
      "causal=on with T != S aligns the mask bottom-right: query t sees keys s <= t + S - T (the\n"
      "last T of S keys, as in KV-cache decoding and FlashAttention-2), while PyTorch's\n"
      "scaled_dot_product_attention(is_causal=True) aligns it top-left (s <= t).",
      f_attention },
    { "allclose", "allclose(a, b, rtol=1e-4, atol=1e-5)",
      "true when |a - b| <= atol + rtol |b| everywhere (shapes broadcast).", f_allclose },
    { "print", "print(a, b, ..., sep=\" \", end=\"\\n\")",
      "Print the values on one line, separated by sep, then end (Python's).\n"
      "Each as the prompt shows it; a table, model or picture takes lines of its own.\n"
      "print(a, b, sep=\", \") separates with a comma; end=\"\" leaves the line open for the next\n"
      "print. Nothing is printed when an argument is wrong.", f_print },
    { "len", "len(x)",
      "The length of x (Python's len). Items of a list, keys of a dict, characters of a string,\n"
      "rows of a table, or the first dimension of a tensor.", f_len },
    { "int", "int(x)",
      "x as a whole number, truncated toward 0 (Python's int). x is a number, a bool, a string such\n"
      "as \"12\" or a one-element tensor; int(\"1.5\") and int(nan) are errors, as Python's.", f_convert },
    { "float", "float(x)",
      "x as a number (Python's float). float(\"inf\") is infinity, float(\"nan\") NaN.\n"
      "x is a string such as \"2.5\" or \"-inf\", a number, a bool or a one-element tensor.", f_convert },
    { "enumerate", "enumerate(xs, start=0)",
      "The list of [i, x] for the items x of xs (Python's enumerate). i counts from start;\n"
      "for i, x in enumerate(xs): unpacks each pair. Items are a list's, or a tensor's rows.", f_enumerate_zip },
    { "zip", "zip(a, b, ...)",
      "The list of [a[i], b[i], ...], as long as the shortest (Python's zip). for x, y in zip(xs, ys):\n"
      "unpacks each.", f_enumerate_zip },
    { "manual_seed", "manual_seed(n)",
      "torch.manual_seed(n): the random generator starts again from n (seed n).\n"
      "randn, rand, randint, multinomial and dropout at the prompt draw from it; the numbers\n"
      "are blocklab's own, not torch's (a model's weights come from its seed= key).", f_manual_seed },
    { "list", "list(xs)",
      "A list of what a for loop takes from xs (Python's list).\n"
      "A copy of a list, a dict's keys, a tensor's rows; list() is []. list(m.parameters()).", f_list },
    { "dict", "dict(pairs) | dict(d) | dict(key=value, ...)",
      "A dict (Python's dict) from [key, value] pairs, a dict, or keywords.\n"
      "In that order; keywords give string keys, and a key given twice keeps the last value.\n"
      "params = dict(m.named_parameters()); params[\"transformer.wte.weight\"].shape", f_dict },
    { "str", "str(x)",
      "x as print shows it, as a string (Python's str). \"run\" + str(3) is \"run3\"; in a\n"
      "command word written (EXPR) it names files in a loop: sample m > (\"s\" + str(k) + \".png\").",
      f_str },
    { "table", "table(name=values, ...)",
      "A table with one column per keyword (lists, 1-D tensors or numbers). Print it or write\n"
      "it with `> file.csv`, `> file.json`, `> file.md` or `> file.txt`. table() is an empty\n"
      "one that grows a row at a time: t.add(scale=4, top=0.5) (the first row names the\n"
      "columns; t becomes the longer table, a copy when another name holds it).", f_table },
    { "load", "load(\"file.safetensors\", \"name\", grad=off)",
      "One tensor of a safetensors file by name, converted to float32. The file is a checkpoint\n"
      "or any file PyTorch saved with safetensors; every dtype converts but F8_* and C64 (refused\n"
      "when that tensor is asked for). load(\"file.safetensors\") alone gives a table of its\n"
      "tensors.",
      f_load },
    { NULL, NULL, NULL, NULL },
};

/* The tables of functions: this file's, then those of other files (each ends with {NULL}). */
static const bl_function *const tables[] = {
    bl_functions, bl_figure_functions, bl_model_functions, bl_run_functions, bl_modellab_functions,
    bl_grad_functions, bl_math_functions, bl_tensor_functions, bl_random_functions, bl_einsum_functions, bl_loss_functions,
    bl_optim_functions, bl_nn_functions, bl_io_functions, NULL,
};

const bl_function *bl_function_at(int i)
{
    for (int k = 0; tables[k]; k++) {
        int n = 0;
        while (tables[k][n].name) n++;
        if (i < n) return &tables[k][i];
        i -= n;
    }
    return NULL;
}

const bl_function *bl_function_find(const char *name)
{
    const bl_function *f;
    for (int i = 0; (f = bl_function_at(i)); i++)
        if (!strcmp(f->name, name)) return f;
    return NULL;
}
