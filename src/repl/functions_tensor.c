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

/* The pieces of x along dim d (in range) of the given sizes (n of them, adding up to its size),
 * each a strided view of x recorded as x[..., a:a+size, ...] (bl_as_strided, as index.c's
 * slices), as a list; a piece's gradient goes back to its part of x. NULL + error. */
static bl_value *pieces(bl_callargs *a, bl_tensor *x0, int d, int n, const long *size)
{
    long st[BL_MAXDIM];
    for (int k = x0->ndim - 1, m = 1; k >= 0; m *= x0->shape[k], k--) st[k] = m;
    bl_value *l = bl_val_list(n);
    long at = 0;
    for (int i = 0; l && i < n; i++) {
        int shape[BL_MAXDIM];
        memcpy(shape, x0->shape, sizeof shape);
        shape[d] = (int)size[i];
        bl_ag ag;
        bl_graph *g = bl_ag_begin(&ag, a);
        bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], x0) : NULL;
        bl_value *v = g ? bl_ag_end(&ag, x ? bl_as_strided(g, x, x0->ndim, shape, st, at * st[d]) : NULL) : NULL;
        if (bl_val_list_set(l, i, v) < 0) {
            bl_val_unref(l);
            return NULL;
        }
        at += size[i];
    }
    return l;
}

/* split(x, size, dim=0): pieces of `size` along dim (the last one smaller when it does not
 * divide); split(x, [s0, s1, ...], dim=0): pieces of those sizes, which must add up to the size
 * of dim (torch.split). chunk(x, n, dim=0): n pieces of ceil(size / n), fewer when they run
 * out (torch.chunk). A list of tensors: views whose gradients go back to x. */
static bl_value *f_split(bl_callargs *a)
{
    int chunk = a->fname[0] == 'c', dim;
    const char *what = chunk ? "chunks" : "split_size_or_sections";
    if (bl_nargs(a, 1, 3) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x || bl_dim_arg(a, x, 2, 0, &dim) < 0) return NULL;
    bl_value *sv = a->n >= 2 ? a->v[1] : bl_kw(a, what);
    if (a->n >= 2 && bl_kw(a, what)) return BL_FAILP("%s: %s given twice", a->fname, what);
    if (!sv) return BL_FAILP("%s: the %s are missing (%s)", a->fname, chunk ? "number of chunks" : "sizes",
                             chunk ? "x.chunk(3) or chunk(x, 3, dim=0)" : "x.split(2) or split(x, [2, 1], dim=0)");
    int d = dim < 0 ? dim + x->ndim : dim, len = x->shape[d];
    long size[1024];
    int n = 0;
    if (sv->kind == BL_V_LIST && !chunk) {
        long sum = 0;
        if (sv->n < 1 || sv->n > 1024) return BL_FAILP("split: 1 to 1024 sizes, got %d", sv->n);
        for (int i = 0; i < sv->n; i++) {
            bl_value *it = sv->items[i];
            if (it->kind != BL_V_NUM || it->num != floor(it->num) || it->num < 0 || it->num > len)
                return BL_FAILP("split: sizes are whole numbers from 1 to %d (the size of dim %d)", len, d);
            if (it->num == 0)   /* torch gives an empty piece; blocklab's tensors have elements */
                return BL_FAILP("split: a piece of size 0 is not supported here (a tensor has at least one element)");
            size[n++] = (long)it->num;
            sum += (long)it->num;
        }
        if (sum != len)
            return BL_FAILP("split: the sizes add up to %ld, but dim %d has size %d (they must add up to it)", sum, d, len);
    } else {
        if (sv->kind != BL_V_NUM || sv->num != floor(sv->num) || sv->num < 1)
            return BL_FAILP("%s: %s must be a whole number >= 1%s", a->fname, chunk ? "the number of chunks" : "the size",
                            chunk ? "" : " or a list of sizes");
        long k = (long)fmin(sv->num, 1e9);
        long step = chunk ? (len + k - 1) / k : k;
        if ((len + step - 1) / step > 1024) return BL_FAILP("%s: more than 1024 pieces", a->fname);
        for (long at = 0; at < len; at += step) size[n++] = at + step <= len ? step : len - at;
    }
    return pieces(a, x, d, n, size);
}

/* The sizes after x in a->v[1..] (or one list there), as torch's x.expand / x.repeat take them. */
static int sizes_arg(bl_callargs *a, int *n, long *v)
{
    bl_value **it = a->v + 1;
    int m = a->n - 1;
    if (m == 1 && it[0]->kind == BL_V_LIST) m = it[0]->n, it = it[0]->items;
    if (m < 1 || m > BL_MAXDIM) return bl_fail("%s: 1 to %d sizes, got %d", a->fname, BL_MAXDIM, m);
    for (int k = 0; k < m; k++) {
        if (it[k]->kind != BL_V_NUM || it[k]->num != floor(it[k]->num) || it[k]->num < -1 || it[k]->num > 2147483647.0)
            return bl_fail("%s: sizes are whole numbers%s", a->fname,
                           a->fname[0] == 'e' ? " (-1 keeps that size)" : " >= 0");
        v[k] = (long)it[k]->num;
    }
    *n = m;
    return 0;
}

/* x times ones of shape (bl_binary_op broadcasts x to it; the gradient sums back over the
 * dimensions broadcast, torch's sum_to_size), viewed as out. x and ones: tensors of g. */
static bl_tensor *broadcast_to(bl_graph *g, bl_tensor *x, int nd, const int *shape)
{
    bl_tensor *one = bl_graph_tensor(g, nd, shape, 0);
    if (!one) return NULL;
    bl_tensor_fill(one, 1);
    return bl_binary_op(g, BL_MUL, x, one);
}

/* expand(x, d0, d1, ...): x broadcast to the sizes (torch's x.expand); -1 keeps x's size there,
 * new dimensions come first, and only sizes of 1 grow. A copy here (torch gives a view); the
 * gradient is summed over the dimensions that grew. */
static bl_value *f_expand(bl_callargs *a)
{
    int n, shape[BL_MAXDIM];
    long v[BL_MAXDIM];
    if (bl_nargs(a, 2, -1) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0 || sizes_arg(a, &n, v) < 0) return NULL;
    if (n < x0->ndim) return BL_FAILP("expand: %d sizes for a %d-D tensor (at least one for each dimension)", n, x0->ndim);
    for (int k = 0; k < n; k++) {
        int j = k - (n - x0->ndim), own = j >= 0 ? x0->shape[j] : -1;
        if (v[k] == -1 && own < 0) return BL_FAILP("expand: -1 is not allowed for a new leading dimension (%d)", k);
        shape[k] = v[k] == -1 ? own : (int)v[k];
        if (own >= 0 && own != 1 && shape[k] != own)
            return BL_FAILP("expand: dimension %d has size %d, which can only stay %d (only sizes of 1 grow), not %d", j,
                            own, own, shape[k]);
    }
    if (bl_shape_check("expand", n, shape, NULL) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], x0) : NULL;
    return bl_ag_end(&ag, x ? broadcast_to(g, x, n, shape) : NULL);
}

/* repeat(x, r0, r1, ...): x tiled r_k times along each dimension (torch's x.repeat; numpy's
 * tile); with more counts than x has dimensions, x gets leading ones first. Done one dimension
 * at a time as x viewed [P, 1, s*Q], broadcast to [P, r, s*Q] (the gradient of each copy adds
 * up), viewed back: at most 3-D on the way. */
static bl_value *f_repeat(bl_callargs *a)
{
    int n, shape[BL_MAXDIM];
    long v[BL_MAXDIM];
    if (bl_nargs(a, 2, -1) < 0) return NULL;
    bl_tensor *x0 = bl_arg_tensor(a, 0);
    if (!x0 || sizes_arg(a, &n, v) < 0) return NULL;
    if (n < x0->ndim)
        return BL_FAILP("repeat: %d counts for a %d-D tensor (at least one for each dimension)", n, x0->ndim);
    double total = 1;
    for (int k = 0; k < n; k++) {
        int j = k - (n - x0->ndim);
        if (v[k] < 1) return BL_FAILP("repeat: counts are whole numbers >= 1, got %ld", v[k]);
        shape[k] = j >= 0 ? x0->shape[j] : 1;
        total *= (double)shape[k] * (double)v[k];
    }
    if (total > (double)BL_REPL_MAX_NUMEL)
        return BL_FAILP("repeat: %.4g elements is more than the limit of %.0f", total, (double)BL_REPL_MAX_NUMEL);
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], x0) : NULL;
    x = x ? bl_graph_view(g, x, n, shape) : NULL;
    for (int k = 0; x && k < n; k++) {
        if (v[k] == 1) continue;
        long P = 1, Q = 1;
        for (int j = 0; j < k; j++) P *= shape[j];
        for (int j = k; j < n; j++) Q *= shape[j];
        int s3[3] = { (int)P, 1, (int)Q }, b3[3] = { (int)P, (int)v[k], (int)Q };
        bl_tensor *t = bl_graph_view(g, x, 3, s3);
        t = t ? broadcast_to(g, t, 3, b3) : NULL;
        shape[k] *= (int)v[k];
        x = t ? bl_graph_view(g, t, n, shape) : NULL;
    }
    return bl_ag_end(&ag, x);
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
    { "split", "split(x, size_or_sizes, dim=0)",
      "x cut along dim into pieces, as a list (torch.split). A number: pieces of that size (the\n"
      "last one smaller when it does not divide); a list: pieces of those sizes, which must add\n"
      "up to the size of dim. q, k, v = x.split(C, dim=-1) takes a fused qkv apart; each piece\n"
      "passes its gradient back to x.", f_split },
    { "chunk", "chunk(x, n, dim=0)",
      "x cut along dim into n pieces of ceil(size / n), as a list (torch.chunk). Fewer pieces\n"
      "when they run out (chunk of 5 into 3 gives 2, 2, 1); gradients go back to x.", f_split },
    { "expand", "expand(x, d0, d1, ...)",
      "x broadcast to the sizes (torch's x.expand).\n"
      "-1 keeps x's size there; new dimensions come first, and only sizes of 1 grow:\n"
      "x[:1].expand(3, -1). A copy here (torch's is a view); the gradient is summed over the\n"
      "dimensions that grew.", f_expand },
    { "repeat", "repeat(x, r0, r1, ...)",
      "x tiled r_k times along each dimension (torch's x.repeat, numpy's tile).\n"
      "More counts than dimensions put leading ones first: x.repeat(2, 1, 1) of [3, 4] is\n"
      "[2, 3, 4]. The gradient of every copy adds up.", f_repeat },
    { "dim", "dim(x)", "The number of dimensions of x (torch's x.dim(), x.ndim); 0 for a number.", f_dim },
    { "tolist", "tolist(x)",
      "x's numbers as nested lists, a 0-D x as a number (torch's x.tolist()).", f_tolist },
    { NULL, NULL, NULL, NULL },
};
