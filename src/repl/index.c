/* index.c - indexing at the prompt: x[i, a:b, None, ...] of tensors and lists (reading, as a
 * strided view recorded for autograd) and index assignment x[i, a:b] = v, which rebinds the
 * name to a new value (values never change behind another name: repl.h, value.h). */
#include "repl/repl.h"
#include "repl/strfmt.h"
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include "core/error.h"
#include "core/fmt.h"
#include "repl/functions_math.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* Python's slice.indices(): clamp start/stop for a dimension of size n and step st. */
static int slice_indices(bl_session *s, const bl_ast *sl, int n, long *start, long *stop, long *step)
{
    long v[3];
    const bl_ast *parts[3] = { sl->a, sl->b, sl->step };
    for (int i = 0; i < 3; i++) {
        v[i] = LONG_MIN;
        if (!parts[i]) continue;
        bl_value *x = bl_eval(s, parts[i]);
        if (!x) return -1;
        int ok = x->kind == BL_V_NUM && x->num == floor(x->num) && fabs(x->num) < 1e15;
        double num = x->num;
        bl_val_unref(x);
        if (!ok) {
            bl_fail("slice bounds must be whole numbers");
            return bl_session_errat(s, parts[i]->pos);
        }
        v[i] = (long)num;
    }
    *step = v[2] == LONG_MIN ? 1 : v[2];
    if (*step == 0) {
        bl_fail("slice step cannot be zero");
        return bl_session_errat(s, sl->step->pos);
    }
    long lo = *step < 0 ? -1 : 0, hi = *step < 0 ? n - 1 : n;
    for (int i = 0; i < 2; i++) {
        long x = v[i];
        if (x == LONG_MIN) x = (i == 0) == (*step > 0) ? lo : hi;
        else {
            if (x < 0) x += n;
            if (x < lo) x = lo;
            if (x > hi) x = hi;
        }
        if (i == 0) *start = x;
        else *stop = x;
    }
    if (v[0] == LONG_MIN) *start = *step > 0 ? 0 : n - 1;
    if (v[1] == LONG_MIN) *stop = *step > 0 ? n : -1;
    return 0;
}

/* How many indices start, start + step, ... lie before stop (slice_indices' results). */
static long slice_count(long start, long stop, long step)
{
    if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
    return start > stop ? (start - stop - step - 1) / -step : 0;
}

/* l[a:b:c] of a list is the list of those items, as in Python (empty when none are selected),
 * whatever the items are. */
static bl_value *slice_list(bl_session *s, const bl_ast *sl, const bl_value *l)
{
    long start = 0, stop = 0, step = 1;
    if (slice_indices(s, sl, l->n, &start, &stop, &step) < 0) return NULL;
    long n = slice_count(start, stop, step);
    bl_value *r = bl_val_list((int)n);
    if (!r) return BL_ERRAT(s, sl->pos);
    for (long i = 0; i < n; i++)   /* no deeper than l: cannot fail */
        (void)bl_val_list_set(r, (int)i, bl_val_ref(l->items[start + i * step]));
    return r;
}

/* "an empty list", "a list of 1 item", "a list of 3 items": a list's size as the index errors
 * say it. */
static const char *list_size(int n, char *buf, size_t len)
{
    if (n == 0) snprintf(buf, len, "an empty list");
    else snprintf(buf, len, "a list of %d item%s", n, BL_PLURAL(n));
    return buf;
}

/* An index out of range for a list of n items, as Python's "list index out of range" with the
 * length: "index 5 is out of range for a list of 3 items". */
static void list_index_error(double i, int n)
{
    char sz[48], num[64];
    bl_fmt_num(i, num, sizeof num);
    bl_fail("index %s is out of range for %s", num, list_size(n, sz, sizeof sz));
}

/* The item an index expression names in a list of n items (negative counts from the end), or -1
 * after a one-line error at the index: not a whole number (notnum says what to write) or out of
 * range. */
static int list_position(bl_session *s, const bl_ast *it, int n, const char *notnum)
{
    bl_value *x = bl_eval(s, it);
    if (!x) return -1;
    int ok = x->kind == BL_V_NUM && x->num == floor(x->num);
    double i = x->num;
    bl_val_unref(x);
    if (!ok || i < -n || i >= n) {
        if (ok) list_index_error(i, n);
        else bl_fail("%s", notnum);
        bl_session_errat(s, it->pos);
        return -1;
    }
    return (int)(i < 0 ? i + n : i);
}

/* The part of a tensor an index names: a strided view of it (bl_as_strided's arguments), with a
 * dimension of size 1 and stride 0 for each None. */
typedef struct {
    int nd, shape[BL_MAXDIM];
    long stride[BL_MAXDIM], offset;
} region;

/* The region of t (shape only: t's data is not read) that e's indices name: whole numbers
 * (negative from the end), slices, None (a new dimension of size 1) and one ... (the dimensions
 * the others do not name), as torch's basic indexing. first: the first index, evaluated already
 * (or NULL). what names what was indexed in errors ("tensor", or "list" for a list of lists
 * indexed like the tensor it stands for: an index out of range then names the size of the list
 * it indexes, as a single index of a list does). 0, or -1 + error at the offending index. */
static int index_region(bl_session *s, const bl_ast *e, const bl_tensor *t, const char *what, bl_value *first,
                        region *r)
{
    int named = 0, ellipsis = -1;
    bl_value *vals[64] = { 0 };
    if (e->n > 64) {
        bl_fail("index: more than 64 indices");
        return bl_session_errat(s, e->items[64]->pos);
    }
    int rc = 0;
    for (int i = 0; i < e->n && rc == 0; i++) {
        const bl_ast *it = e->items[i];
        if (it->kind == BL_N_ELLIPSIS) {
            if (ellipsis >= 0) {
                bl_fail("index: an index can only have a single ellipsis ('...')");
                rc = bl_session_errat(s, it->pos);
            }
            ellipsis = i;
            continue;
        }
        if (it->kind != BL_N_SLICE) {
            vals[i] = i == 0 && first ? bl_val_ref(first) : bl_eval(s, it);   /* first: evaluated */
            if (!vals[i]) rc = -1;
            else if (vals[i]->kind == BL_V_NONE) continue;
        }
        named++;
    }
    if (rc == 0 && named > t->ndim) {
        char sh[64];
        bl_fail("index: %d indices for a %s of shape %s", named, what, bl_shape_str(t, sh, sizeof sh));
        int k = 0, at = 0;      /* at the first index past t's dimensions */
        for (int i = 0; i < e->n; i++)
            if (e->items[i]->kind != BL_N_ELLIPSIS && !(vals[i] && vals[i]->kind == BL_V_NONE) && k++ == t->ndim) at = i;
        rc = bl_session_errat(s, e->items[at]->pos);
    }
    long st[BL_MAXDIM];     /* t's (contiguous) strides */
    for (int d = t->ndim - 1, m = 1; d >= 0; m *= t->shape[d], d--) st[d] = m;
    r->nd = 0, r->offset = 0;
    int d = 0;  /* t's dimension the next index names */
    for (int i = 0; rc == 0 && i <= e->n; i++) {
        const bl_ast *it = i < e->n ? e->items[i] : NULL;
        int full = !it ? t->ndim - d : it->kind == BL_N_ELLIPSIS ? t->ndim - named : 0;
        for (int k = 0; k < full; k++, d++) {     /* the dimensions not named: whole */
            if (r->nd == BL_MAXDIM) goto toomany;
            r->shape[r->nd] = t->shape[d], r->stride[r->nd++] = st[d];
        }
        if (!it || it->kind == BL_N_ELLIPSIS) continue;
        if (vals[i] && vals[i]->kind == BL_V_NONE) {      /* None: a new dimension of size 1 */
            if (r->nd == BL_MAXDIM) goto toomany;
            r->shape[r->nd] = 1, r->stride[r->nd++] = 0;
            continue;
        }
        int n = t->shape[d];
        if (it->kind == BL_N_SLICE) {
            long a = 0, b = 0, step = 1;
            if (slice_indices(s, it, n, &a, &b, &step) < 0) { rc = -1; break; }
            long count = slice_count(a, b, step);
            if (count == 0) {
                bl_fail("index: the slice selects nothing in dimension %d (size %d)", d, n);
                rc = bl_session_errat(s, it->pos);
                break;
            }
            if (r->nd == BL_MAXDIM) goto toomany;
            r->offset += a * st[d];
            r->shape[r->nd] = (int)count, r->stride[r->nd++] = step * st[d];
        } else {
            int ok = vals[i]->kind == BL_V_NUM && vals[i]->num == floor(vals[i]->num);
            double x = vals[i]->num;
            if (!ok) {
                bl_fail("index: expected a whole number, a slice a:b, None or ...");
                rc = bl_session_errat(s, it->pos);
                break;
            }
            if (x < -n || x >= n) {
                if (!strcmp(what, "list")) list_index_error(x, n);
                else {
                    char num[40];
                    bl_fail("index: %s is out of range for dimension %d of size %d", bl_fmt_g(x, num, sizeof num), d, n);
                }
                rc = bl_session_errat(s, it->pos);
                break;
            }
            r->offset += (long)(x < 0 ? x + n : x) * st[d];
        }
        d++;
    }
    for (int i = 0; i < e->n; i++) bl_val_unref(vals[i]);
    return rc;
toomany:
    for (int i = 0; i < e->n; i++) bl_val_unref(vals[i]);
    bl_fail("index: the result would have more than %d dimensions", BL_MAXDIM);
    return bl_session_errat(s, e->pos);
}

/* t[indices] (t: tv's tensor, or a list's as a tensor when tv is NULL) as a strided gather,
 * recorded when tv needs a gradient; first: the first index, evaluated already (or NULL). */
static bl_value *index_tensor(bl_session *s, const bl_ast *e, bl_value *tv, bl_tensor *t, const char *what,
                              bl_value *first)
{
    region r;
    if (index_region(s, e, t, what, first, &r) < 0) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, tv ? 1 : 0, &tv);
    bl_tensor *x = g ? bl_ag_in(&ag, tv, t) : NULL;
    bl_value *v = bl_ag_end(&ag, x ? bl_as_strided(g, x, r.nd, r.shape, r.stride, r.offset) : NULL);
    bl_graph_reset(s->g);
    return v ? v : BL_ERRAT(s, e->pos);
}

/* A non-empty list whose items are all booleans (nested lists of them too). */
static int all_bools(const bl_value *l)
{
    if (l->kind != BL_V_LIST) return l->kind == BL_V_BOOL;
    for (int i = 0; i < l->n; i++)
        if (!all_bools(l->items[i])) return 0;
    return l->n > 0;
}

/* x[m] for a mask m (a comparison's result, value.h is_mask) whose shape is x's first
 * m.ndim sizes: the elements (or rows) of x where m is nonzero, in row-major order -> [count,
 * x.shape[m.ndim:]...] (torch's boolean-mask indexing); the gradient reaches the selected ones.
 * NULL + error when the shapes differ or nothing is selected (torch's result would be empty,
 * which blocklab's tensors cannot be). */
static bl_value *mask_select(bl_session *s, bl_value *x, const bl_tensor *m)
{
    char a[64], b[64];
    int ok = m->ndim <= x->t->ndim;
    for (int d = 0; ok && d < m->ndim; d++) ok = m->shape[d] == x->t->shape[d];
    if (!ok) {
        bl_fail("index: the mask's shape %s does not match the start of the tensor's shape %s (torch's rule)",
                bl_shape_str(m, a, sizeof a), bl_shape_str(x->t, b, sizeof b));
        return NULL;
    }
    int count = 0;
    for (size_t i = 0; i < m->numel; i++) count += m->data[i] != 0;
    if (count == 0) return BL_FAILP("index: the mask selects nothing (torch would give an empty tensor)");
    bl_tensor *idx = bl_tensor_new(1, (int[]){ count });
    if (!idx) return NULL;
    for (size_t i = 0, k = 0; i < m->numel; i++)
        if (m->data[i] != 0) idx->data[k++] = (float)i;
    int nd = 1 + x->t->ndim - m->ndim, shape[BL_MAXDIM];
    shape[0] = (int)m->numel;
    for (int d = 1; d < nd; d++) shape[d] = x->t->shape[m->ndim + d - 1];
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, 1, &x);
    bl_tensor *t = g ? bl_ag_in(&ag, x, x->t) : NULL;
    if (t) t = bl_graph_view(g, t, nd, shape);
    bl_value *r = bl_ag_end(&ag, t ? bl_take_rows(g, t, idx) : NULL);
    bl_graph_reset(s->g);
    bl_tensor_free(idx);
    return r;
}

/* 1 when t holds only 0 and 1 */
static int zero_one(const bl_tensor *t)
{
    for (size_t i = 0; i < t->numel; i++)
        if (t->data[i] != 0 && t->data[i] != 1) return 0;
    return 1;
}

/* d[key] of a dict: the key's place, or -1 + KeyError at the index (or a slice, several
 * indices: not a dict's). */
static int dict_position(bl_session *s, const bl_ast *e, const bl_value *d)
{
    if (e->n != 1 || e->items[0]->kind == BL_N_SLICE || e->items[0]->kind == BL_N_ELLIPSIS) {
        bl_fail("a dict takes one key in [] (d[\"lr\"])");
        return bl_session_errat(s, e->items[e->n > 1 ? 1 : 0]->pos);
    }
    bl_value *k = bl_eval(s, e->items[0]);
    if (!k) return -1;
    int at = bl_val_dict_find(d, k);
    if (at < 0) {
        char *text = bl_str_of(k);
        bl_fail("KeyError: %s%s%s (the dict has %d key%s)", k->kind == BL_V_STR ? "'" : "", text ? text : "?",
                k->kind == BL_V_STR ? "'" : "", d->n, BL_PLURAL(d->n));
        free(text);
        bl_session_errat(s, e->items[0]->pos);
    }
    bl_val_unref(k);
    return at;
}

/* x[:, idx] and x[:, :, [-1]]: a list (or a 1-D tensor) of whole numbers in one position after
 * whole slices ':' only picks those entries along that dimension, as torch's integer-array
 * indexing (nanoGPT's top-k line v[:, [-1]]), negative ones from the end; the gradient adds into
 * the entries picked. *done = 0 when e is not of that form (index_tensor reads it), else 1 and
 * the value or NULL + error. (Of another form the index expression is evaluated again.) */
static bl_value *take_along(bl_session *s, const bl_ast *e, bl_value *x, int *done)
{
    int d = -1;
    for (int i = 0; i < e->n; i++) {
        const bl_ast *it = e->items[i];
        if (it->kind == BL_N_SLICE && !it->a && !it->b && !it->step) continue;
        if (d >= 0 || it->kind == BL_N_SLICE || it->kind == BL_N_ELLIPSIS) return NULL;
        d = i;
    }
    if (d < 0 || d >= x->t->ndim) return NULL;
    bl_value *iv = bl_eval(s, e->items[d]);
    if (!iv) return (*done = 1, (bl_value *)NULL);
    int list = (iv->kind == BL_V_LIST && iv->n > 0 && !all_bools(iv)) ||
               (iv->kind == BL_V_TENSOR && !iv->is_mask && iv->t->ndim == 1);
    if (!list) {
        bl_val_unref(iv);
        return NULL;
    }
    *done = 1;
    bl_tensor *ti = iv->kind == BL_V_TENSOR ? bl_tensor_copy(iv->t) : bl_val_to_tensor(iv, "index");
    bl_val_unref(iv);
    if (!ti) return BL_ERRAT(s, e->items[d]->pos);
    int n = x->t->shape[d];
    for (size_t k = 0; k < ti->numel; k++) {
        float v = ti->data[k];
        if (v != floorf(v) || v < -n || v >= n) {
            char num[40];
            bl_fail("index: %s is %s for dimension %d of size %d", bl_fmt_g(v, num, sizeof num),
                    v != floorf(v) ? "not a whole number" : "out of range", d, n);
            bl_tensor_free(ti);
            return BL_ERRAT(s, e->items[d]->pos);
        }
        if (v < 0) ti->data[k] = v + (float)n;
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, 1, (bl_value *[]){x});
    bl_tensor *t = g ? bl_ag_in(&ag, x, x->t) : NULL;
    if (t && d > 0) t = bl_transpose(g, t, 0, d);
    if (t) t = bl_take_rows(g, t, ti);
    if (t && d > 0) t = bl_transpose(g, t, 0, d);
    bl_value *r = bl_ag_end(&ag, t);
    bl_graph_reset(s->g);
    bl_tensor_free(ti);
    return r ? r : BL_ERRAT(s, e->pos);
}

bl_value *bl_index_value(bl_session *s, const bl_ast *e, bl_value *target)
{
    if (target->kind == BL_V_DICT) {
        int at = dict_position(s, e, target);
        return at < 0 ? NULL : bl_val_ref(target->items[at]);
    }
    /* x[idx] with a tensor (or list) of indices: the rows it names (an embedding lookup) */
    if (target->kind == BL_V_TENSOR && e->n == 1 && e->items[0]->kind != BL_N_SLICE &&
        e->items[0]->kind != BL_N_ELLIPSIS) {
        bl_value *i = bl_eval(s, e->items[0]);
        if (!i) return NULL;
        bl_value *r = NULL;
        if (i->kind == BL_V_TENSOR && i->is_mask) {
            r = mask_select(s, target, i->t);
            if (!r) bl_session_errat(s, e->items[0]->pos);
        } else if (i->kind == BL_V_TENSOR && i->t->ndim > 1 && i->t->ndim == target->t->ndim &&
                   !memcmp(i->t->shape, target->t->shape, sizeof(int) * (size_t)i->t->ndim) && zero_one(i->t)) {
            /* a 0/1 tensor of x's shape that is no comparison's: read as row numbers, torch would
             * give [2, 3, 3] for a [2, 3] x; most likely a mask that lost its mark */
            bl_fail("index: a 0/1 tensor of the tensor's shape, not a comparison's result: to select where it is 1 "
                    "write x[m > 0]; where(m, x, 0) keeps the shape");
            bl_session_errat(s, e->items[0]->pos);
        } else if (i->kind == BL_V_LIST && all_bools(i)) {
            /* x[[True, False, True]]: torch reads a list of bools as a mask (True was row 1) */
            bl_tensor *m = bl_val_to_tensor(i, "index");
            r = m ? mask_select(s, target, m) : NULL;
            bl_tensor_free(m);
            if (!r) bl_session_errat(s, e->items[0]->pos);
        } else if (i->kind == BL_V_TENSOR || i->kind == BL_V_LIST) {
            r = bl_math_take(s, target, i);
            if (!r) bl_session_errat(s, e->items[0]->pos);
        } else {
            r = index_tensor(s, e, target, target->t, "tensor", i);
        }
        bl_val_unref(i);
        return r;
    }
    if (target->kind == BL_V_TENSOR && e->n >= 2) {
        int rc = 0;
        bl_value *r = take_along(s, e, target, &rc);
        if (rc) return r;
    }
    if (target->kind == BL_V_TENSOR) return index_tensor(s, e, target, target->t, "tensor", NULL);
    if (target->kind == BL_V_LIST && e->n == 1 && e->items[0]->kind != BL_N_SLICE) {
        int at = list_position(s, e->items[0], target->n, "index: expected a whole number");
        return at < 0 ? NULL : bl_val_ref(target->items[at]);
    }
    if (target->kind == BL_V_LIST && e->n == 1) return slice_list(s, e->items[0], target);
    if (target->kind == BL_V_LIST) {
        /* index a list of lists like the tensor it stands for; a flat list has one dimension */
        int nested = 0;
        for (int i = 0; i < target->n; i++) nested |= target->items[i]->kind == BL_V_LIST;
        if (!nested) {
            char sz[48];
            bl_fail("index: %s takes one index or one slice", list_size(target->n, sz, sizeof sz));
            return BL_ERRAT(s, e->items[1]->pos);
        }
        bl_tensor *t = bl_val_to_tensor(target, "index");
        if (!t) return BL_ERRAT(s, e->pos);
        bl_value *r = index_tensor(s, e, NULL, t, "list", NULL);
        bl_tensor_free(t);
        return r;
    }
    bl_fail("index: cannot index a %s", bl_val_kind_name(target));
    return BL_ERRAT(s, e->pos);
}

/* ---- index assignment: x[i, a:b] = v as a new value ---- */

/* xs[i] = v and xs[a:b] = ys of a list: a new list. */
static bl_value *put_list(bl_session *s, const bl_ast *e, bl_value *l, bl_value *v)
{
    if (e->n != 1) {
        bl_fail("index assignment: a list takes one index (xs[i] = v; in a list of lists xs[i][j] = v)");
        return BL_ERRAT(s, e->items[1]->pos);
    }
    const bl_ast *it = e->items[0];
    long start, stop, step = 1, n;
    bl_value *r;
    if (it->kind == BL_N_SLICE) {       /* xs[a:b] = ys: Python's, the step 1 only */
        if (slice_indices(s, it, l->n, &start, &stop, &step) < 0) return NULL;
        if (step != 1) {
            bl_fail("index assignment: a list slice with a step is not supported (build the list: xs = [...])");
            return BL_ERRAT(s, it->pos);
        }
        if (v->kind != BL_V_LIST) {
            bl_fail("index assignment: xs[a:b] = takes a list, got a %s (Python: can only assign an iterable)",
                    bl_val_kind_name(v));
            return BL_ERRAT(s, it->pos);
        }
        if (stop < start) stop = start;
        n = l->n - (stop - start) + v->n;
        if (!(r = bl_val_list((int)n))) return BL_ERRAT(s, e->pos);
        for (long i = 0, k = 0; i < l->n + v->n; i++) {
            bl_value *x = i < start ? l->items[i] : i < start + v->n ? v->items[i - start]
                        : i - v->n >= stop ? l->items[i - v->n] : NULL;
            if (x && bl_val_list_set(r, (int)k++, bl_val_ref(x)) < 0) {
                bl_val_unref(r);
                return BL_ERRAT(s, e->pos);
            }
        }
        return r;
    }
    int at = list_position(s, it, l->n, "index assignment: a list index must be a whole number or a slice a:b");
    if (at < 0) return NULL;
    if (!(r = bl_val_list(l->n))) return BL_ERRAT(s, e->pos);
    for (int k = 0; k < l->n; k++)
        if (bl_val_list_set(r, k, bl_val_ref(k == at ? v : l->items[k])) < 0) {
            bl_val_unref(r);
            return BL_ERRAT(s, e->pos);
        }
    return r;
}

/* Under no_grad a leaf changed in place stays the leaf it was (torch's x[0] = 5, x -= lr * x.grad):
 * out (x's new tensor value, not shared) requires grad and keeps a copy of x's .grad. 0, or -1 +
 * error (out of memory). */
static int keep_leaf(bl_value *out, const bl_value *x)
{
    if (out->kind != BL_V_TENSOR) return 0;
    out->requires_grad = 1;
    if (x->grad && !(out->grad = bl_tensor_copy(x->grad))) return -1;
    return 0;
}

/* PyTorch's RuntimeError for changing a leaf that requires grad in place, word for word, with
 * what to do instead: -1 + error at pos. */
static int refuse_leaf(bl_session *s, bl_pos pos, const char *what, const char *instead)
{
    bl_fail("a %sleaf Variable that requires grad is being used in an in-place operation (%s)", what, instead);
    return bl_session_errat(s, pos);
}

/* x[mask] = v (torch's masked index_put_: nanoGPT's top-k line logits[logits < v[:, [-1]]] =
 * -float('Inf')): the mask (a comparison's result, .bool()) names x's leading dimensions, as
 * torch's (its shape equal to theirs: a [B] mask picks rows of a [B, T] x), and v is one value
 * (a number or a one-element tensor: where(mask, v, x), recorded when x or v needs a gradient)
 * or one value per element picked, in order (x[x > 2] += 1; then neither may need a gradient).
 * A new tensor, or NULL + error. */
static bl_value *put_mask(bl_session *s, const bl_ast *e, bl_value *x, const bl_value *mask, bl_value *v)
{
    char a[64], b[64];
    const bl_tensor *m = mask->t;
    int ok = m->ndim <= x->t->ndim;
    for (int k = 0; ok && k < m->ndim; k++) ok = m->shape[k] == x->t->shape[k];
    if (!ok) {
        bl_fail("index assignment: the mask's shape %s is not the leading part of the tensor's %s (as torch's "
                "boolean index)", bl_shape_str(m, a, sizeof a), bl_shape_str(x->t, b, sizeof b));
        return BL_ERRAT(s, e->items[0]->pos);
    }
    size_t inner = x->t->numel / (m->numel ? m->numel : 1), picked = 0;
    for (size_t i = 0; i < m->numel; i++) picked += m->data[i] != 0;
    picked *= inner;
    int one = v->kind == BL_V_NUM || v->kind == BL_V_BOOL || (v->kind == BL_V_TENSOR && v->t->numel == 1);
    if (!one && !(v->kind == BL_V_TENSOR && v->t->numel == picked)) {
        bl_fail("index assignment: x[mask] = v takes one value or one per element picked (%zu), got %s%s "
                "(x = where(mask, v, x) broadcasts)", picked, v->kind == BL_V_TENSOR ? "shape " : "a ",
                v->kind == BL_V_TENSOR ? bl_shape_str(v->t, a, sizeof a) : bl_val_kind_name(v));
        return BL_ERRAT(s, e->pos);
    }
    if (x->requires_grad && bl_ag_enabled(s))     /* PyTorch's RuntimeError, word for word */
        return refuse_leaf(s, e->pos, "view of a ", "change it under no_grad, or assign into a copy: y = x * 1"),
               (bl_value *)NULL;
    bl_tensor *full = bl_tensor_new(x->t->ndim, x->t->shape);
    if (!full) return BL_FAILP("index assignment: out of memory");
    for (size_t i = 0; i < full->numel; i++) full->data[i] = m->data[i / inner] != 0;
    if (!one) {     /* one value per picked element, in order: no gradient through it */
        if ((bl_val_needs_grad(x) || bl_val_needs_grad(v)) && bl_ag_enabled(s)) {
            bl_tensor_free(full);
            bl_fail("index assignment: x[mask] = values records no gradient (write x = where(mask, v, x))");
            return BL_ERRAT(s, e->pos);
        }
        for (size_t i = 0, k = 0; i < full->numel; i++)
            full->data[i] = full->data[i] != 0 ? v->t->data[k++] : x->t->data[i];
        return bl_val_tensor(full);
    }
    bl_tensor *own = v->kind == BL_V_TENSOR ? NULL : bl_tensor_scalar((float)v->num);
    if (v->kind != BL_V_TENSOR && !own) {
        bl_tensor_free(full);
        return BL_FAILP("index assignment: out of memory");
    }
    bl_value *both[2] = { x, v->kind == BL_V_TENSOR ? v : NULL };
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, both[1] ? 2 : 1, both);
    bl_tensor *tx = g ? bl_ag_in(&ag, x, x->t) : NULL;
    bl_tensor *tv = tx ? (both[1] ? bl_ag_in(&ag, v, v->t) : bl_ag_const(&ag, own)) : NULL;
    if (tv && tv->ndim > 0) tv = bl_graph_view(g, tv, 0, NULL);     /* one value: 0-D */
    bl_tensor *tm = tv ? bl_ag_const(&ag, full) : NULL;
    bl_value *out = bl_ag_end(&ag, tm ? bl_where(g, tm, tv, tx) : NULL);
    bl_graph_reset(s->g);
    bl_tensor_free(own);
    bl_tensor_free(full);
    if (!out) return BL_ERRAT(s, e->pos);
    if (out->kind == BL_V_TENSOR) out->is_mask = 0;
    return out;
}

/* x[indices] = v of a tensor: a new tensor, recorded when x or v needs a gradient. */
static bl_value *put_tensor(bl_session *s, const bl_ast *e, bl_value *x, bl_value *v)
{
    bl_value *first = NULL;
    if (e->n == 1 && e->items[0]->kind != BL_N_SLICE && e->items[0]->kind != BL_N_ELLIPSIS) {
        if (!(first = bl_eval(s, e->items[0]))) return NULL;
        if (first->kind == BL_V_TENSOR && first->is_mask) {
            bl_value *r = put_mask(s, e, x, first, v);
            bl_val_unref(first);
            return r;
        }
        if (first->kind == BL_V_TENSOR || first->kind == BL_V_LIST) {
            bl_val_unref(first);
            bl_fail("index assignment takes whole numbers, slices, None, ... and a boolean mask (for an index "
                    "tensor, x = where(mask, v, x))");
            return BL_ERRAT(s, e->items[0]->pos);
        }
    }
    region r;
    int rc = index_region(s, e, x->t, "tensor", first, &r);
    bl_val_unref(first);
    if (rc < 0) return NULL;
    if (v->kind != BL_V_TENSOR && v->kind != BL_V_NUM && v->kind != BL_V_BOOL && v->kind != BL_V_LIST) {
        bl_fail("index assignment: cannot put a %s into a tensor (a number, a list of numbers or a tensor)",
                bl_val_kind_name(v));
        return BL_ERRAT(s, e->pos);
    }
    if (x->requires_grad && bl_ag_enabled(s))     /* PyTorch's RuntimeError, word for word */
        return refuse_leaf(s, e->pos, "view of a ", "change it under no_grad, or assign into a copy: y = x * 1"),
               (bl_value *)NULL;
    bl_tensor *own = v->kind == BL_V_TENSOR ? NULL : bl_val_to_tensor(v, "index assignment");
    const bl_tensor *vt = own ? own : v->kind == BL_V_TENSOR ? v->t : NULL;
    if (!vt) return BL_ERRAT(s, e->pos);
    /* v broadcasts to the region as torch's copy_: from the right, each size equal or 1; sizes
     * beyond the region's dimensions must be 1 (dropped) */
    int ok = 1, lead = vt->ndim - r.nd, shape[BL_MAXDIM], nd = 0;
    for (int k = 0; k < vt->ndim; k++) {
        if (k < lead) ok &= vt->shape[k] == 1;
        else ok &= vt->shape[k] == 1 || vt->shape[k] == r.shape[k - lead];
        if (k >= lead) shape[nd++] = vt->shape[k];
    }
    if (!ok) {
        char a[64], b[64];
        bl_tensor probe = { .ndim = r.nd };
        memcpy(probe.shape, r.shape, sizeof r.shape);
        bl_fail("index assignment: a value of shape %s does not broadcast to the indexed part's shape %s",
                bl_shape_str(vt, a, sizeof a), bl_shape_str(&probe, b, sizeof b));
        bl_tensor_free(own);
        return BL_ERRAT(s, e->pos);
    }
    int exact = nd == r.nd;
    for (int k = 0; exact && k < nd; k++) exact = shape[k] == r.shape[k];
    bl_tensor *zeros = exact ? NULL : bl_tensor_new(r.nd, r.shape);
    bl_value *both[2] = { x, v->kind == BL_V_TENSOR ? v : NULL };
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, both[1] ? 2 : 1, both);
    bl_tensor *tx = g && (exact || zeros) ? bl_ag_in(&ag, x, x->t) : NULL;
    bl_tensor *tv = tx ? bl_ag_in(&ag, both[1], (bl_tensor *)vt) : NULL;
    if (tv && lead > 0) tv = bl_graph_view(g, tv, nd, shape);    /* the leading sizes 1 dropped */
    if (tv && !exact) {     /* broadcast: v + zeros of the region's shape (the gradient sums back) */
        bl_tensor *z = bl_ag_const(&ag, zeros);
        tv = z ? bl_binary_op(g, BL_ADD, tv, z) : NULL;
    }
    bl_value *out = bl_ag_end(&ag, tv ? bl_strided_put(g, tx, tv, r.nd, r.shape, r.stride, r.offset) : NULL);
    bl_graph_reset(s->g);
    bl_tensor_free(zeros);
    bl_tensor_free(own);
    if (out && x->requires_grad && keep_leaf(out, x) < 0) {
        bl_val_unref(out);
        out = NULL;
    }
    return out ? out : BL_ERRAT(s, e->pos);
}

/* d[key] = v of a dict: a new dict with key set (added last when new). */
static bl_value *put_dict(bl_session *s, const bl_ast *e, bl_value *d, bl_value *v)
{
    if (e->n != 1 || e->items[0]->kind == BL_N_SLICE || e->items[0]->kind == BL_N_ELLIPSIS) {
        bl_fail("a dict takes one key in [] (d[\"lr\"] = v)");
        return BL_ERRAT(s, e->pos);
    }
    bl_value *k = bl_eval(s, e->items[0]);
    bl_value *r = k ? bl_val_dict(d->n + 1) : NULL;
    int rc = r ? 0 : -1;
    /* d's keys are distinct already: copied as they are (a set per key searched the new dict for
     * each, so a loop of n inserts took n^3 steps: 10,000 took minutes) */
    for (int i = 0; rc == 0 && i < d->n; i++) {
        r->keys[i] = bl_val_ref(d->keys[i]);
        r->items[i] = bl_val_ref(d->items[i]);
    }
    if (r) r->n = d->n, r->depth = d->depth;
    if (rc == 0) rc = bl_val_dict_set(r, k, bl_val_ref(v));
    else bl_val_unref(k);
    if (rc == 0) return r;
    bl_val_unref(r);
    return BL_ERRAT(s, e->items[0]->pos);
}

/* d[key] = v of a live dict (an optimizer's param group): d changes where it is, so that every
 * holder of it (the optimizer) sees it. v may not hold a dict (no cycle: g["x"] = opt.param_groups
 * would make one). 0 or -1 + error. */
static int put_live(bl_session *s, const bl_ast *e, bl_value *d, bl_value *v)
{
    if (e->n != 1 || e->items[0]->kind == BL_N_SLICE || e->items[0]->kind == BL_N_ELLIPSIS) {
        bl_fail("a dict takes one key in [] (d[\"lr\"] = v)");
        return bl_session_errat(s, e->pos);
    }
    int nested = v->kind == BL_V_DICT || (v->kind == BL_V_LIST && bl_val_depth(v) > 1);
    for (int i = 0; v->kind == BL_V_LIST && i < v->n && !nested; i++) nested = v->items[i]->kind == BL_V_DICT;
    if (nested) {
        bl_fail("a parameter group's values are numbers, bools, strings, None, tensors or flat lists, "
                "not a %s of lists or dicts", bl_val_kind_name(v));
        return bl_session_errat(s, e->pos);
    }
    bl_value *k = bl_eval(s, e->items[0]);
    if (!k) return -1;
    if (bl_val_dict_find(d, k) < 0 && d->n >= d->live) {
        bl_val_unref(k);
        bl_fail("a parameter group holds at most %d keys", d->live);
        return bl_session_errat(s, e->items[0]->pos);
    }
    return bl_val_dict_set(d, k, bl_val_ref(v)) < 0 ? bl_session_errat(s, e->items[0]->pos) : 0;
}

int bl_index_assign(bl_session *s, const bl_ast *e, bl_value *v)
{
    bl_value *base = bl_eval(s, e->a);      /* x, or x[i] for x[i][j] = v */
    if (!base) return -1;
    if (base->kind == BL_V_DICT && base->live) {
        int rc = put_live(s, e, base, v);
        bl_val_unref(base);
        return rc;
    }
    bl_value *nv = NULL;
    if (base->kind == BL_V_LIST) nv = put_list(s, e, base, v);
    else if (base->kind == BL_V_TENSOR) nv = put_tensor(s, e, base, v);
    else if (base->kind == BL_V_DICT) nv = put_dict(s, e, base, v);
    else {
        bl_fail("index assignment: a %s cannot be indexed (a tensor, a list or a dict can)", bl_val_kind_name(base));
        bl_session_errat(s, e->pos);
    }
    /* under no_grad, x[i] = v of a leaf that requires grad, a non-leaf or a model's parameter
     * changes x where it is, as torch's (it keeps its .grad, grad_fn; the model changes); so does
     * it of a plain tensor when the result needs no gradient (every name holding x sees it) */
    int plain = nv && base->kind == BL_V_TENSOR && !base->requires_grad && !base->node && !base->param &&
                !bl_val_needs_grad(nv);
    if (nv && base->kind == BL_V_TENSOR && nv->kind == BL_V_TENSOR && nv->t->numel == base->t->numel &&
        e->a->kind == BL_N_NAME &&
        (plain || base->param || ((base->requires_grad || base->node) && !bl_ag_enabled(s)))) {
        int rc = bl_write_in_place(base, nv->t);
        bl_val_unref(nv);
        bl_val_unref(base);
        return rc < 0 ? bl_session_errat(s, e->pos) : 0;
    }
    bl_val_unref(base);
    if (!nv) return -1;
    int rc = e->a->kind == BL_N_INDEX ? bl_index_assign(s, e->a, nv) : bl_session_rebind(s, e->a->str, nv);
    bl_val_unref(nv);
    return rc < 0 ? bl_session_errat(s, e->pos) : 0;
}

/* NAME op= v as Python writes an in-place update (the parser makes it NAME = NAME op v, the
 * target being the statement's first token). */
static int in_place(const bl_stmt *st)
{
    const bl_ast *e = st->expr;
    return !st->target && !st->nparams && e && e->kind == BL_N_BINOP && e->a && e->a->kind == BL_N_NAME &&
           e->a->pos.off == st->pos.off && !strcmp(e->a->str, st->name);
}

/* bl_store_in_place without the rebinding: 1 when x took v where it is, 0 when name must be
 * rebound to v instead, -1 + error at pos. */
static int update_in_place(bl_session *s, const char *name, bl_value *x, bl_value *v, bl_pos pos)
{
    int num = v->kind == BL_V_NUM || v->kind == BL_V_BOOL;   /* a 0-D leaf's untracked result */
    /* no_grad B -= 1 on a non-leaf: torch changes B's data and B keeps its grad_fn (a later
     * backward still reaches what B was computed from); gradients on, B - 1 is a new node */
    int nonleaf = x && x->kind == BL_V_TENSOR && x->node && !bl_ag_enabled(s);
    /* a plain tensor (no gradient) changes where it is too, as torch's x += 1 (every name holding
     * it sees it), when the result needs no gradient and keeps x's shape; otherwise x is rebound
     * (torch: x becomes a non-leaf, or refuses the shape) */
    int plain = x && x->kind == BL_V_TENSOR && !x->requires_grad && !x->node && !x->param &&
                v->kind == BL_V_TENSOR && !bl_val_needs_grad(v) && v->t->ndim == x->t->ndim &&
                !memcmp(v->t->shape, x->t->shape, sizeof(int) * (size_t)x->t->ndim);
    if (plain) {
        if (bl_write_in_place(x, v->t) < 0) return bl_session_errat(s, pos);
        x->is_mask = v->is_mask;    /* m += 1 of a mask is no mask any more */
        return 1;
    }
    if (!x || x->kind != BL_V_TENSOR || !(x->requires_grad || nonleaf) || (v->kind != BL_V_TENSOR && !num))
        return 0;
    /* W -= lr * W.grad on a leaf that requires grad: torch changes W in place */
    if (!nonleaf && bl_ag_enabled(s))
        return refuse_leaf(s, pos, "",
                           "update it under no_grad: no_grad W -= lr * W.grad; W = W - ... makes a new tensor");
    char a[64], b[64];
    bl_value *own = num ? bl_ag_tensor_value(bl_tensor_scalar((float)v->num)) : NULL;
    if (num && !own) return bl_session_errat(s, pos);
    if (own) v = own;
    if (v->t->ndim != x->t->ndim || memcmp(v->t->shape, x->t->shape, sizeof(int) * (size_t)x->t->ndim)) {
        bl_fail("in-place: the result's shape %s is not %s's shape %s (torch refuses it)",
                bl_shape_str(v->t, a, sizeof a), name, bl_shape_str(x->t, b, sizeof b));
        bl_val_unref(own);
        return bl_session_errat(s, pos);
    }
    /* torch changes x where it is: every name and list holding x sees it (a model's parameter:
     * the model), a leaf keeps its .grad, a non-leaf its grad_fn, and a value computed from x
     * before is refused by backward (x's version moves) */
    int rc = bl_write_in_place(x, v->t);
    bl_val_unref(own);
    return rc < 0 ? bl_session_errat(s, pos) : 1;
}

int bl_store_in_place(bl_session *s, const char *name, bl_value *x, bl_value *v, bl_pos pos)
{
    int rc = update_in_place(s, name, x, v, pos);
    return rc == 0 ? bl_session_set(s, name, v) : rc < 0 ? -1 : 0;
}

int bl_index_augment(bl_session *s, const bl_stmt *st, bl_value *v)
{
    const bl_ast *e = st->target;
    bl_value *base = bl_eval(s, e->a);
    if (!base) return -1;
    int container = base->kind == BL_V_LIST || base->kind == BL_V_DICT, rc = 0;
    bl_val_unref(base);
    if (container) {    /* the item (evaluated again, as the value v was computed from) */
        bl_value *x = bl_eval(s, e);
        if (!x) return -1;
        if (x->kind == BL_V_TENSOR) {
            char label[80];
            snprintf(label, sizeof label, "%s[...]", st->name);
            rc = update_in_place(s, label, x, v, st->expr->pos);
        }
        bl_val_unref(x);
    }
    return rc == 0 ? bl_index_assign(s, e, v) : rc < 0 ? -1 : 0;
}

int bl_write_in_place(bl_value *x, const bl_tensor *src)
{
    if (x->param) return bl_lab_param_write(x, src);
    float *d = x->t->data;
    for (size_t k = 0; k < x->t->numel; k++) d[k] = src->data[src->numel == 1 ? 0 : k];
    x->version++;
    return 0;
}

int bl_assign_name(bl_session *s, const bl_stmt *st, bl_value *v)
{
    bl_value *x = in_place(st) ? bl_session_get(s, st->name) : NULL;
    return x ? bl_store_in_place(s, st->name, x, v, st->expr->pos) : bl_session_set(s, st->name, v);
}
