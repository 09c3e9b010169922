/* eval.c - evaluation of expressions and execution of statements (see repl.h). */
#include "repl/repl.h"
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "core/ops.h"
#include "core/error.h"
#include "core/fmt.h"
#include "core/fileio.h"
#include "core/tensor_math.h"
#include "models/model.h"
#include "repl/modelvars.h"
#include "repl/autograd.h"
#include "repl/functions_math.h"
#include "repl/didyoumean.h"
#include "repl/modules.h"
#include "repl/strfmt.h"
#include "repl/views.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const char *op_name(bl_tok_kind k)
{
    switch (k) {
    case BL_T_PLUS: return "+";
    case BL_T_MINUS: return "-";
    case BL_T_STAR: return "*";
    case BL_T_SLASH: return "/";
    case BL_T_AT: return "@";
    case BL_T_LT: return "<";
    case BL_T_GT: return ">";
    case BL_T_LE: return "<=";
    case BL_T_GE: return ">=";
    case BL_T_EQ: return "==";
    case BL_T_NE: return "!=";
    case BL_T_POW: return "**";
    case BL_T_FLOORDIV: return "//";
    case BL_T_PERCENT: return "%";
    case BL_T_IS: return "is";
    case BL_T_ISNOT: return "is not";
    case BL_T_IN: return "in";
    case BL_T_NOTIN: return "not in";
    default: return "?";
    }
}

static int is_numeric(const bl_value *v) { return v->kind == BL_V_NUM || v->kind == BL_V_BOOL; }
static int is_arraylike(const bl_value *v)
{
    return is_numeric(v) || v->kind == BL_V_TENSOR || v->kind == BL_V_LIST;
}

/* == of strings and lists, as in Python: lists are equal when they have the same length and
 * their items are equal in turn (numbers and booleans by value, true being 1 as Python's True
 * is, so [true] == [1] as true == 1; strings by their text, lists item by item); items of other
 * kinds are not equal ([1] == ["1"] is false). Items that == does not compare outside a list
 * either (tensors, tables, models) are an error. The recursion is bounded by BL_MAX_LIST_DEPTH.
 * 1 equal, 0 not, -1 with the error set. */
static int is_plain(const bl_value *v) { return is_numeric(v) || v->kind == BL_V_STR || v->kind == BL_V_LIST; }

static int equal(const bl_value *a, const bl_value *b, const char *op)
{
    if (is_numeric(a) && is_numeric(b)) return a->num == b->num;
    if (a->kind == BL_V_STR && b->kind == BL_V_STR) return strcmp(a->str, b->str) == 0;
    if (a->kind == BL_V_LIST && b->kind == BL_V_LIST) {
        if (a->n != b->n) return 0;
        for (int i = 0; i < a->n; i++) {
            int r = equal(a->items[i], b->items[i], op);
            if (r != 1) return r;
        }
        return 1;
    }
    if (is_plain(a) && is_plain(b)) return 0;
    return bl_fail("'%s' cannot compare a %s and a %s inside lists: for tensors use allclose(a, b) or "
                   "reduce them first (max, mean)", op, bl_val_kind_name(a), bl_val_kind_name(b));
}

/* a number, or a 0-d tensor (a tracked sum or mean): compared as a number, the answer a bool */
static int scalar_of(const bl_value *v, double *x)
{
    if (is_numeric(v)) return *x = v->num, 1;
    if (v->kind == BL_V_TENSOR && v->t->ndim == 0) return *x = v->t->data[0], 1;
    return 0;
}

/* a is b: Python's identity, as far as blocklab's values show it: None is None, a bool is the
 * same bool (True is True), and otherwise the same value (y = x; y is x), as CPython's objects;
 * two numbers or strings computed apart are not the same value (as Python does not promise they
 * are). */
static int same(const bl_value *a, const bl_value *b)
{
    if (a->kind == BL_V_NONE || b->kind == BL_V_NONE) return a->kind == b->kind;
    if (a->kind == BL_V_BOOL && b->kind == BL_V_BOOL) return a->num == b->num;
    return a == b;
}

static bl_value *compare(bl_session *s, const bl_ast *e, bl_value *a, bl_value *b)
{
    int r;
    double x, y;
    if (e->op == BL_T_IS || e->op == BL_T_ISNOT) return bl_val_bool(same(a, b) == (e->op == BL_T_IS));
    if (a->kind == BL_V_NONE || b->kind == BL_V_NONE) {
        /* None == x is false unless x is None, as Python's (and a tensor's: torch gives False) */
        if (e->op == BL_T_EQ || e->op == BL_T_NE) return bl_val_bool(same(a, b) == (e->op == BL_T_EQ));
        bl_fail("'%s' cannot compare a %s and a %s (test for None with `is None`)", op_name(e->op),
                bl_val_kind_name(a), bl_val_kind_name(b));
        return BL_ERRAT(s, e->pos);
    }
    if (scalar_of(a, &x) && scalar_of(b, &y)) {
        switch (e->op) {
        case BL_T_LT: r = x < y; break;
        case BL_T_GT: r = x > y; break;
        case BL_T_LE: r = x <= y; break;
        case BL_T_GE: r = x >= y; break;
        case BL_T_EQ: r = x == y; break;
        default: r = x != y; break;
        }
        return bl_val_bool(r);
    }
    if ((a->kind == BL_V_TENSOR && is_arraylike(b)) || (b->kind == BL_V_TENSOR && is_arraylike(a))) {
        bl_value *t = bl_math_operator(s, e->op, a, b);   /* elementwise: a 0/1 tensor */
        if (t && t->kind == BL_V_TENSOR) t->is_mask = 1;    /* torch's bools: x[x > 2] selects */
        return t ? t : BL_ERRAT(s, e->pos);
    }
    if ((e->op == BL_T_EQ || e->op == BL_T_NE) && a->kind == b->kind &&
        (a->kind == BL_V_STR || a->kind == BL_V_LIST)) {
        int eq = equal(a, b, op_name(e->op));
        return eq < 0 ? BL_ERRAT(s, e->pos) : bl_val_bool(eq == (e->op == BL_T_EQ));
    }
    bl_fail("'%s' compares numbers and tensors elementwise (or strings and lists with == and !=), not a %s "
            "and a %s", op_name(e->op), bl_val_kind_name(a), bl_val_kind_name(b));
    return BL_ERRAT(s, e->pos);
}

/* a @ b recorded for autograd (torch.matmul rules): a 1-D operand is a row (a) or a column (b)
 * dropped from the result; batch dims must be equal, or b 2-D (shared), or a 2-D (shared: then
 * (b^T a^T)^T). Other broadcast batch dims: an error saying so. */
static bl_value *matmul_grad(bl_session *s, bl_value *av, bl_value *bv, bl_tensor *ta, bl_tensor *tb)
{
    bl_value *both[2] = { av, bv };
    bl_ag ag;
    bl_graph *g = bl_ag_begin_vals(&ag, s, 2, both);
    bl_tensor *x = g ? bl_ag_in(&ag, av, ta) : NULL, *y = x ? bl_ag_in(&ag, bv, tb) : NULL;
    if (!y) return bl_ag_end(&ag, NULL);
    int a1 = x->ndim == 1, b1 = y->ndim == 1;
    if (a1) x = bl_graph_view(g, x, 2, (int[]){ 1, x->shape[0] });
    if (b1 && x) y = bl_graph_view(g, y, 2, (int[]){ y->shape[0], 1 });
    if (!x || !y) return bl_ag_end(&ag, NULL);
    bl_tensor *r;
    int same = x->ndim == y->ndim;
    for (int i = 0; same && i < x->ndim - 2; i++) same = x->shape[i] == y->shape[i];
    if (y->ndim == 2 || same) {
        r = bl_matmul(g, x, y);
    } else if (x->ndim == 2) {
        bl_tensor *yt = bl_transpose(g, y, -1, -2), *xt = yt ? bl_transpose(g, x, -1, -2) : NULL;
        bl_tensor *p = xt ? bl_matmul(g, yt, xt) : NULL;
        r = p ? bl_transpose(g, p, -1, -2) : NULL;
    } else {
        char sa[64], sb[64];
        bl_fail("@: batch dimensions of %s and %s broadcast; with gradients they must be equal (or one "
                "operand 2-D)", bl_shape_str(ta, sa, sizeof sa), bl_shape_str(tb, sb, sizeof sb));
        return bl_ag_end(&ag, NULL);
    }
    if (r && (a1 || b1)) {   /* drop the row / column added above */
        int shape[BL_MAXDIM], nd = 0;
        for (int i = 0; i < r->ndim; i++)
            if (!((a1 && i == r->ndim - 2) || (b1 && i == r->ndim - 1))) shape[nd++] = r->shape[i];
        r = bl_graph_view(g, r, nd, shape);
    }
    return bl_ag_end(&ag, r);
}

/* l * n (and n * l) of a list l and a whole number n: l's items n times over, as Python's (empty
 * for n <= 0); a number with a fraction is Python's TypeError. */
static bl_value *repeat_list(bl_session *s, const bl_ast *e, const bl_value *l, const bl_value *n)
{
    if (n->num != floor(n->num) || fabs(n->num) > 1e9) {
        char num[40];
        bl_fail("'*' repeats a list a whole number of times, not %s (Python: can't multiply sequence by "
                "non-int; for elementwise use tensor(xs) * x)", bl_fmt_g(n->num, num, sizeof num));
        return BL_ERRAT(s, e->pos);
    }
    long k = n->num > 0 ? (long)n->num : 0;
    if (l->n && k > INT_MAX / l->n) {
        bl_fail("'*': the list would have more than %d items", INT_MAX);
        return BL_ERRAT(s, e->pos);
    }
    bl_value *r = bl_val_list((int)(k * l->n));
    for (long i = 0; r && i < k * l->n; i++)
        if (bl_val_list_set(r, (int)i, bl_val_ref(l->items[i % l->n])) < 0) {
            bl_val_unref(r);
            r = NULL;
        }
    return r ? r : BL_ERRAT(s, e->pos);
}

/* x in c: an item of a list equal to x (==, as Python's), a key of a dict, a substring of a
 * string, an element of a tensor equal to the number x (torch's). 1, 0, or -1 + error. */
static int contains(const bl_value *c, const bl_value *x)
{
    double y;
    if (c->kind == BL_V_LIST) {
        for (int i = 0; i < c->n; i++) {
            const bl_value *it = c->items[i];
            int r = it->kind == BL_V_NONE || x->kind == BL_V_NONE ? it->kind == x->kind : equal(it, x, "in");
            if (r != 0) return r;
        }
        return 0;
    }
    if (c->kind == BL_V_DICT) return bl_val_dict_find(c, x) >= 0;       /* its keys */
    if (c->kind == BL_V_STR && x->kind == BL_V_STR) return strstr(c->str, x->str) != NULL;
    if (c->kind == BL_V_STR)
        return bl_fail("'in <string>' needs a string on its left, got a %s", bl_val_kind_name(x));
    if (c->kind == BL_V_TENSOR && scalar_of(x, &y)) {
        float yf = (float)y;    /* the tensor's dtype: 0.1 in tensor([0.1]) is true, as x == 0.1 is */
        for (size_t i = 0; i < c->t->numel; i++)
            if (c->t->data[i] == yf) return 1;
        return 0;
    }
    return bl_fail("'in' needs a list, a dict, a string or a tensor on its right (a number on the left), got a %s in a %s",
                   bl_val_kind_name(x), bl_val_kind_name(c));
}

static bl_value *binop(bl_session *s, const bl_ast *e, bl_value *a, bl_value *b)
{
    if (e->op == BL_T_IN || e->op == BL_T_NOTIN) {
        int r = contains(b, a);
        return r < 0 ? BL_ERRAT(s, e->pos) : bl_val_bool(r == (e->op == BL_T_IN));
    }
    if (e->op != BL_T_PLUS && e->op != BL_T_MINUS && e->op != BL_T_STAR && e->op != BL_T_SLASH &&
        e->op != BL_T_AT && e->op != BL_T_POW && e->op != BL_T_FLOORDIV && e->op != BL_T_PERCENT)
        return compare(s, e, a, b);
    if (e->op == BL_T_PERCENT && a->kind == BL_V_STR) {    /* "%.3f" % x: printf-style, as Python's */
        bl_value *r = bl_str_percent(a->str, b);
        return r ? r : BL_ERRAT(s, e->pos);
    }
    if (e->op == BL_T_PLUS && a->kind == BL_V_LIST && b->kind == BL_V_LIST) {   /* Python's: joined */
        bl_value *l = bl_val_list(a->n + b->n);
        for (int i = 0; l && i < a->n + b->n; i++) {
            bl_value *it = i < a->n ? a->items[i] : b->items[i - a->n];
            bl_val_ref(it);
            if (bl_val_list_set(l, i, it) < 0) {
                bl_val_unref(l);
                l = NULL;
            }
        }
        return l ? l : BL_ERRAT(s, e->pos);
    }
    if (e->op == BL_T_PLUS && a->kind == BL_V_STR && b->kind == BL_V_STR) {
        size_t n = strlen(a->str) + strlen(b->str) + 1;
        char *c = malloc(n);
        if (!c) return BL_FAILP("out of memory");
        snprintf(c, n, "%s%s", a->str, b->str);
        bl_value *v = bl_val_str(c);
        free(c);
        return v;
    }
    if (e->op == BL_T_STAR && (a->kind == BL_V_LIST) != (b->kind == BL_V_LIST) &&
        (is_numeric(a) || is_numeric(b)))
        return repeat_list(s, e, a->kind == BL_V_LIST ? a : b, a->kind == BL_V_LIST ? b : a);
    if (!is_arraylike(a) || !is_arraylike(b)) {
        int str = e->op == BL_T_PLUS && (a->kind == BL_V_STR || b->kind == BL_V_STR);
        bl_fail("'%s' needs numbers or tensors, got a %s and a %s%s", op_name(e->op),
                bl_val_kind_name(a), bl_val_kind_name(b), str ? " (str(x) makes a value a string)" : "");
        return BL_ERRAT(s, e->pos);
    }
    if (is_numeric(a) && is_numeric(b) && e->op != BL_T_AT && !bl_val_needs_grad(a) && !bl_val_needs_grad(b)) {
        double x = a->num, y = b->num;
        switch (e->op) {
        case BL_T_PLUS: return bl_val_num(x + y);
        case BL_T_MINUS: return bl_val_num(x - y);
        case BL_T_STAR: return bl_val_num(x * y);
        case BL_T_POW: return bl_val_num(pow(x, y));
        case BL_T_FLOORDIV: case BL_T_PERCENT:   /* Python's: the sign of the divisor */
            if (y == 0) {
                bl_fail("'%s' by zero (of numbers, as Python's ZeroDivisionError; of a tensor it is inf or nan, "
                        "as torch)", op_name(e->op));
                return BL_ERRAT(s, e->pos);
            }
            if (e->op == BL_T_FLOORDIV) return bl_val_num(bl_floordiv(x, y));
            x = bl_remainder(x, y);
            return bl_val_num(x == 0 ? copysign(0.0, y) : x);
        default:
            if (y == 0) {   /* Python's ZeroDivisionError; a tensor's is inf or nan, as torch */
                bl_fail("division by zero (of numbers, as Python; a tensor / 0 gives inf or nan, as torch)");
                return BL_ERRAT(s, e->pos);
            }
            return bl_val_num(x / y);
        }
    }
    if (e->op != BL_T_AT) {   /* elementwise, broadcast, recorded (functions_math.c) */
        bl_value *v = bl_math_operator(s, e->op, a, b);
        return v ? v : BL_ERRAT(s, e->pos);
    }
    bl_tensor *ta = bl_val_to_tensor(a, op_name(e->op));
    bl_tensor *tb = ta ? bl_val_to_tensor(b, op_name(e->op)) : NULL;
    bl_tensor *r = NULL;
    if (ta && tb && (bl_val_needs_grad(a) || bl_val_needs_grad(b)) && bl_ag_enabled(s)) {
        bl_value *v = matmul_grad(s, a, b, ta, tb);
        bl_graph_reset(s->g);
        bl_tensor_free(ta);
        bl_tensor_free(tb);
        return v ? v : BL_ERRAT(s, e->pos);
    }
    if (ta && tb) r = bl_tensor_matmul(ta, tb);
    bl_tensor_free(ta);
    bl_tensor_free(tb);
    if (!r) return BL_ERRAT(s, e->pos);
    return bl_val_tensor(r);
}


static bl_value *field(bl_session *s, const bl_ast *e, bl_value *v)
{
    if (v->kind == BL_V_HANDLE && v->htype->field) {
        bl_value *r = v->htype->field(v->h, e->str);
        return r ? r : BL_ERRAT(s, e->pos);
    }
    if (v->kind == BL_V_TENSOR) {
        if (!strcmp(e->str, "shape")) {
            bl_value *l = bl_val_list(v->t->ndim);
            for (int i = 0; l && i < v->t->ndim; i++)
                if (bl_val_list_set(l, i, bl_val_num(v->t->shape[i])) < 0) { bl_val_unref(l); return NULL; }
            return l;
        }
        if (!strcmp(e->str, "ndim")) return bl_val_num(v->t->ndim);
        if (!strcmp(e->str, "dtype")) return bl_val_str(v->is_mask ? "torch.bool" : "torch.float32");
        if (!strcmp(e->str, "numel")) return bl_val_num((double)v->t->numel);
        int mT = !strcmp(e->str, "mT");
        if (mT && v->t->ndim < 2) {     /* torch: mT is only supported on matrices or batches of matrices */
            bl_fail("x.mT swaps the last two dims of a matrix or a batch of them; x is %d-D", v->t->ndim);
            return BL_ERRAT(s, e->pos);
        }
        if (!strcmp(e->str, "T") || mT) {
            bl_ag ag;
            bl_graph *g = bl_ag_begin_vals(&ag, s, 1, &v);
            bl_tensor *x = g ? bl_ag_in(&ag, v, v->t) : NULL;
            bl_value *r = bl_ag_end(&ag, !x ? NULL : x->ndim >= 2 ? bl_transpose(g, x, -1, -2)
                                                 : bl_graph_view(g, x, x->ndim, x->shape));
            bl_graph_reset(s->g);
            return r ? r : BL_ERRAT(s, e->pos);
        }
        bl_value *r = bl_ag_field(v, e->str);
        if (r) return r;
        if (!strcmp(e->str, "item") || !strcmp(e->str, "grad")) return BL_ERRAT(s, e->pos);
        bl_fail("a tensor has no field '%s' (fields: shape, ndim, numel, dtype, T, mT, grad, requires_grad, is_leaf, "
                "grad_fn, item)", e->str);
        return BL_ERRAT(s, e->pos);
    }
    if (v->kind == BL_V_TABLE) {
        for (int c = 0; c < v->tab->ncol; c++) {
            if (strcmp(v->tab->cols[c], e->str)) continue;
            bl_value *l = bl_val_list(v->tab->nrow);
            for (int r = 0; l && r < v->tab->nrow; r++) {
                const char *cell = v->tab->cells[(size_t)r * v->tab->ncol + c];
                char *end;
                double x = strtod(cell, &end);
                if (bl_val_list_set(l, r, *cell && !*end ? bl_val_num(x) : bl_val_str(cell)) < 0) {
                    bl_val_unref(l);
                    return NULL;
                }
            }
            return l;
        }
        bl_fail("the table has no column '%s'", e->str);
        return BL_ERRAT(s, e->pos);
    }
    if (v->kind == BL_V_NUM) {   /* an untracked reduction: the fields of torch's 0-d tensor */
        if (!strcmp(e->str, "requires_grad")) return bl_val_bool(0);
        if (!strcmp(e->str, "is_leaf")) return bl_val_bool(1);
        if (!strcmp(e->str, "grad") || !strcmp(e->str, "grad_fn")) return bl_val_none();
        if (!strcmp(e->str, "item")) return bl_val_num(v->num);
        if (!strcmp(e->str, "ndim")) return bl_val_num(0);
        if (!strcmp(e->str, "numel")) return bl_val_num(1);
        if (!strcmp(e->str, "shape")) return bl_val_list(0);
    }
    int pair = v->kind == BL_V_LIST && (!strcmp(e->str, "values") || !strcmp(e->str, "indices"));
    if (pair && v->is_pair && v->n == 2) return bl_val_ref(v->items[e->str[0] == 'i']);   /* torch's named tuple */
    bl_fail("a %s has no field '%s'%s", bl_val_kind_name(v), e->str,
            pair ? " (only the (values, indices) pair of max, min, sort, topk and median has them: x.max(1).values)" : "");
    return BL_ERRAT(s, e->pos);
}

/* NAME(args): a variable holding a function (or a callable handle, a model) first, else the
 * built-in function of that name. */
static bl_value *call(bl_session *s, const bl_ast *e)
{
    bl_value *fv = e->a ? bl_eval(s, e->a) : e->num ? NULL : bl_session_get(s, e->str);
    if (e->a && (!fv || !bl_callable(fv))) {     /* (lambda x: x)(1), fs[0](2) */
        if (fv) bl_fail("a %s is not a function", bl_val_kind_name(fv));
        bl_val_unref(fv);
        return fv ? BL_ERRAT(s, e->pos) : NULL;
    }
    if (fv && !bl_callable(fv)) fv = NULL;
    const bl_function *f = fv ? NULL : bl_function_find(e->str);
    if (!f && !fv) {
        if (bl_session_get(s, e->str)) bl_fail("'%s' is a %s, not a function", e->str,
                                               bl_val_kind_name(bl_session_get(s, e->str)));
        else if (bl_command_find(e->str))
            bl_fail("'%s' is a command: write it without brackets, e.g. %s", e->str,
                    bl_command_find(e->str)->synopsis);
        else {
            char dym[160];
            bl_fail("unknown function '%s' (help functions lists them)%s", e->str,
                    bl_dym_names(s, e->str, BL_DYM_FUNCS, dym, sizeof dym));
        }
        return BL_ERRAT(s, e->pos);
    }
    const char *fname = f ? f->name : e->str;
    if (!e->a) bl_val_ref(fv);     /* held while the arguments are evaluated: they may reassign the name */
    int np = 0, nk = 0;
    for (int i = 0; i < e->n; i++) {
        if (e->keys[i]) nk++;
        else np++;
    }
    bl_callargs a = { .s = s, .fname = fname, .pos = e->pos };
    bl_value *vals[2 * 64];
    bl_pos pos[3 * 64];
    const char *keys[64];
    unsigned char used[64] = { 0 };
    if (np > 64 || nk > 64) {
        bl_fail("%s: too many arguments", fname);
        bl_val_unref(fv);
        return BL_ERRAT(s, e->pos);
    }
    a.v = vals, a.vpos = pos, a.kv = vals + 64, a.kpos = pos + 64, a.kname = pos + 128, a.key = keys, a.kused = used;
    bl_value *r = NULL;
    for (int i = 0; i < e->n; i++) {
        if (e->keys[i]) {
            for (int j = 0; j < a.nk; j++)
                if (!strcmp(keys[j], e->keys[i])) {
                    bl_fail("%s: keyword '%s' given twice", fname, e->keys[i]);
                    bl_session_errat(s, e->keypos[i]);
                    goto out;
                }
        }
        bl_value *v = bl_eval(s, e->items[i]);
        if (!v) goto out;
        if (e->keys[i]) {
            keys[a.nk] = e->keys[i];
            a.kname[a.nk] = e->keypos[i];
            a.kpos[a.nk] = e->items[i]->pos;
            a.kv[a.nk++] = v;
        } else {
            a.vpos[a.n] = e->items[i]->pos;
            a.v[a.n++] = v;
        }
    }
    if (fv) {   /* a user function checks its own keywords */
        r = bl_call(s, fv, &a);
        goto out;
    }
    int dtype;
    if (bl_dtype_arg(&a, &dtype) < 0) goto out;
    r = bl_dtype_apply(f->fn(&a), dtype);
    bl_graph_reset(s->g);
    if (!r) {
        bl_session_errat(s, e->pos);
        goto out;
    }
    for (int j = 0; j < a.nk; j++)
        if (!used[j]) {
            bl_val_unref(r);
            r = NULL;
            char dym[160];
            bl_fail("%s: unknown keyword '%s' (%s)%s", f->name, keys[j], f->synopsis,
                    bl_dym_keys(keys[j], f->synopsis, dym, sizeof dym));
            bl_session_errat(s, a.kname[j]);
            break;
        }
out:
    for (int i = 0; i < a.ntmp; i++) bl_tensor_free(a.tmp[i]);
    for (int i = 0; i < a.n; i++) bl_val_unref(a.v[i]);
    for (int i = 0; i < a.nk; i++) bl_val_unref(a.kv[i]);
    bl_val_unref(fv);
    return r;
}

/* The parser builds a chain a + b + c + ... as ((a + b) + c) + ...: evaluate its left spine in
 * a loop, from the leftmost operand up, so that a chain of any length takes one C frame, not one
 * per operator (100,000 terms overflowed the stack). */
bl_value *bl_binop_values(bl_session *s, int op, bl_pos pos, bl_value *a, bl_value *b)
{
    bl_ast e = { .kind = BL_N_BINOP, .pos = pos };
    e.op = op;
    return binop(s, &e, a, b);
}

static bl_value *binop_chain(bl_session *s, const bl_ast *e)
{
    size_t n = 0;
    const bl_ast *x = e;
    for (; x->kind == BL_N_BINOP; x = x->a) n++;
    const bl_ast **ops = malloc(n * sizeof *ops);
    if (!ops) return BL_FAILP("out of memory");
    x = e;
    for (size_t i = n; i-- > 0; x = x->a) ops[i] = x;
    bl_value *acc = bl_eval(s, x);
    for (size_t i = 0; acc && i < n; i++) {
        bl_value *b = bl_eval(s, ops[i]->b);
        if (!b && ops[i]->file_hint) {   /* x > out.xyz: a comparison, but meant as a redirect? */
            char msg[1024], exts[64] = "";
            snprintf(msg, sizeof msg, "%s", bl_error());
            for (const char *const *x = bl_redirect_exts; *x; x++)
                snprintf(exts + strlen(exts), sizeof exts - strlen(exts), "%s%s", x == bl_redirect_exts ? "" : " ", *x);
            bl_fail("%s (a redirect takes %s)", msg, exts);
        }
        bl_value *r = b ? binop(s, ops[i], acc, b) : NULL;
        bl_val_unref(acc);
        bl_val_unref(b);
        acc = r;
    }
    free(ops);
    return acc;
}

/* f"...": each piece formatted with its spec (strfmt.h), joined. */
static bl_value *fstring(bl_session *s, const bl_ast *e)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return BL_FAILP("out of memory");
    int ok = 1;
    for (int i = 0; ok && i < e->n; i++) {
        bl_value *v = bl_eval(s, e->items[i]);
        char *piece = v ? bl_format(v, e->keys[i]) : NULL;
        if (v && !piece) bl_session_errat(s, e->items[i]->pos);
        if (piece) fputs(piece, f);
        ok = piece != NULL;
        free(piece);
        bl_val_unref(v);
    }
    bl_value *r = fclose(f) == 0 && ok && buf ? bl_val_str(buf) : NULL;
    free(buf);
    return r;
}

/* a < b < c: each comparison in turn, its left operand the one before's right (evaluated once);
 * the first that is false is the value, else the last (Python's). */
static bl_value *comparison_chain(bl_session *s, const bl_ast *e)
{
    bl_value *left = bl_eval(s, e->items[0]->a), *r = NULL;
    for (int i = 0; left && i < e->n; i++) {
        bl_value *right = bl_eval(s, e->items[i]->b);
        r = right ? binop(s, e->items[i], left, right) : NULL;
        bl_val_unref(left);
        left = right;
        if (!r || i == e->n - 1) break;
        int t = bl_truth(r, "a chained comparison");
        if (t != 0) bl_val_unref(r);
        if (t != 0) r = NULL;
        if (t < 0) bl_session_errat(s, e->items[i]->pos);
        if (t <= 0) break;
    }
    bl_val_unref(left);
    return r;
}

bl_value *bl_eval(bl_session *s, const bl_ast *e)
{
    switch (e->kind) {
    case BL_N_NUM: return bl_val_num(e->num);
    case BL_N_BOOL: return bl_val_bool((int)e->num);
    case BL_N_STR: return bl_val_str(e->str);
    case BL_N_NAME: {
        if (s->frame && bl_lang_unbound_local(s, e->str)) return BL_ERRAT(s, e->pos);
        bl_value *v = bl_session_get(s, e->str);
        if (v) return bl_val_ref(v);
        if (bl_function_find(e->str))
            bl_fail("'%s' is a function: call it as %s", e->str, bl_function_find(e->str)->synopsis);
        else if (bl_command_find(e->str))
            bl_fail("'%s' is a command: use it at the start of a statement", e->str);
        else if (bl_module_of(s, e))
            bl_fail("'%s' is a module: %s.f(...) calls blocklab's function f", e->str, e->str);
        else {
            char dym[160];
            bl_fail("unknown name '%s'%s", e->str, bl_dym_names(s, e->str, BL_DYM_VARS | BL_DYM_FUNCS, dym, sizeof dym));
        }
        return BL_ERRAT(s, e->pos);
    }
    case BL_N_LIST: {
        bl_value *l = bl_val_list(e->n);
        if (!l) return BL_ERRAT(s, e->pos);
        for (int i = 0; i < e->n; i++) {
            bl_value *item = bl_eval(s, e->items[i]);
            if (!item) {
                bl_val_unref(l);
                return NULL;
            }
            if (bl_val_list_set(l, i, item) < 0) {   /* nested too deeply: at the item */
                bl_val_unref(l);
                return BL_ERRAT(s, e->items[i]->pos);
            }
        }
        return l;
    }
    case BL_N_NEG: {
        bl_value *x = bl_eval(s, e->a), *r = NULL;
        if (!x) return NULL;
        if (is_numeric(x) && !bl_val_needs_grad(x)) {
            r = bl_val_num(-x->num);
        } else if (is_arraylike(x)) {
            r = bl_math_neg(s, x);
            if (!r) bl_session_errat(s, e->pos);
        } else {
            bl_fail("'-' needs a number or a tensor, got a %s", bl_val_kind_name(x));
            bl_session_errat(s, e->pos);
        }
        bl_val_unref(x);
        return r;
    }
    case BL_N_BINOP: return binop_chain(s, e);
    case BL_N_CALL: return call(s, e);
    case BL_N_INDEX: case BL_N_FIELD: {
        if (e->kind == BL_N_FIELD && bl_module_of(s, e->a)) return bl_module_field(s, e);
        bl_value *t = bl_eval(s, e->a);
        if (!t) return NULL;
        bl_value *r = e->kind == BL_N_INDEX ? bl_index_value(s, e, t) : field(s, e, t);
        bl_val_unref(t);
        return r;
    }
    case BL_N_SLICE:
        bl_fail("a slice a:b can only appear inside []");
        return BL_ERRAT(s, e->pos);
    case BL_N_ELLIPSIS:
        bl_fail("'...' can only appear inside [] (x[..., 0])");
        return BL_ERRAT(s, e->pos);
    case BL_N_NONE: return bl_val_none();
    case BL_N_COND: {
        int t = bl_cond_truth(s, e->c, "if");
        return t < 0 ? NULL : bl_eval(s, t ? e->a : e->b);
    }
    case BL_N_COMP: return bl_lang_comprehension(s, e);
    case BL_N_NOT: {
        int t = bl_cond_truth(s, e->a, "not");
        return t < 0 ? NULL : bl_val_bool(!t);
    }
    case BL_N_AND: case BL_N_OR: {     /* the first operand that decides, or the last */
        const char *w = e->kind == BL_N_AND ? "and" : "or";
        for (int i = 0;; i++) {
            bl_value *v = bl_eval(s, e->items[i]);
            if (!v || i == e->n - 1) return v;
            int t = bl_truth(v, w);
            if (t < 0) {
                bl_val_unref(v);
                return BL_ERRAT(s, e->items[i]->pos);
            }
            if (t == (e->kind == BL_N_OR)) return v;
            bl_val_unref(v);
        }
    }
    case BL_N_METHOD: return bl_method(s, e);
    case BL_N_FSTR: return fstring(s, e);
    case BL_N_DICT: {
        bl_value *d = bl_val_dict(e->n / 2);
        for (int i = 0; d && i < e->n; i += 2) {
            bl_value *k = bl_eval(s, e->items[i]), *v = k ? bl_eval(s, e->items[i + 1]) : NULL;
            if (!v || bl_val_dict_set(d, k, v) < 0) {
                if (!v) bl_val_unref(k);
                bl_val_unref(d);
                return v ? BL_ERRAT(s, e->items[i]->pos) : NULL;
            }
        }
        return d ? d : BL_ERRAT(s, e->pos);
    }
    case BL_N_CMPCHAIN: return comparison_chain(s, e);
    case BL_N_LAMBDA: return bl_lang_func(s, e->def);
    }
    return NULL;
}

/* ---- statements ---- */
static int run_command(bl_session *s, const bl_stmt *st, bl_value **result)
{
    const bl_command *c = bl_command_find(st->name);
    bl_cmdargs a = { .s = s, .st = st, .n = st->nwords, .w = st->words };
    int rc = c->run(&a);
    bl_cmd_text_flush(&a);      /* a failing command's text, held back for its picture */
    if (rc < 0) {
        bl_val_unref(a.result);
        return bl_session_errat(s, st->pos);
    }
    *result = a.result;
    return 0;
}

/* What each kind of command result (bl_command.flags & BL_WRITES) is written as besides .txt. */
static const struct { const char *what, *exts[4]; } writes[] = {
    [BL_WRITES_TABLE] = { "a table", { ".csv", ".json", ".md" } },
    [BL_WRITES_PICTURE] = { "a picture", { ".png", ".svg", ".csv", ".json" } },
    [BL_WRITES_RUN] = { "a run", { ".json" } },
    [BL_WRITES_TEXT] = { "text", { ".json" } },
};

/* Before a statement runs: can it write its '> FILE'? A command must leave a value of FILE's type
 * (any writes .txt, its text; a picture or text by the model for BL_WRITES_GPT_TEXT), and FILE's folder must take a new file; so a statement that cannot
 * write its file fails having changed nothing. A value's own limits (a .csv of a 3-D tensor) are
 * still bl_write_value's, after it. */
static int redirect_check(bl_session *s, const bl_stmt *st)
{
    if (!st->redirect || bl_stmt_redirects_to(st, ".txt")) return 0;   /* opened before it runs */
    if (st->kind == BL_S_EXPR && st->expr->kind == BL_N_CALL && !strcmp(st->expr->str, "print")) {
        bl_fail("print writes text: redirect it to a .txt file (%s takes a value: write the value itself, "
                "without print)", st->redirect);
        return bl_session_errat(s, st->redirect_pos);
    }
    if (st->kind == BL_S_CMD) {
        const bl_command *c = bl_command_find(st->name);
        bl_cmdargs a = { .s = s, .st = st, .n = st->nwords, .w = st->words };
        int w = c->flags & BL_WRITES, ok = 0;
        if (c->flags & BL_WRITES_GPT_TEXT) {   /* the model it will use, as it will pick it */
            int used;
            bl_model *m = bl_models_pick(&a, &used);
            if (!m) return bl_session_errat(s, st->pos);
            if (bl_kind_of(m->kind)->text) w = BL_WRITES_TEXT;
        }
        for (int i = 0; w && i < 4 && writes[w].exts[i]; i++) ok |= bl_stmt_redirects_to(st, writes[w].exts[i]);
        char name[64];
        bl_command_typed(st, name, sizeof name);
        bl_value *held = bl_session_get(s, st->redirect);    /* > name, meant as > (name)? */
        const char *hint = held && held->kind == BL_V_STR ? " (to the file a variable names, write > (NAME))" : "";
        const char *sp = strchr(st->redirect, ' ');
        char keys_hint[160];
        if (sp && strchr(sp, '=')) {     /* > s.png width=800: the keys were taken as the file's name */
            snprintf(keys_hint, sizeof keys_hint, " (the keys after > are part of the file's name: write them "
                     "before it, %s ...%s > %.*s)", name, sp, (int)(sp - st->redirect), st->redirect);
            hint = keys_hint;
        }
        if (!w) bl_fail("'%s' has no table or picture to write to %s (its text goes to a .txt file)%s", name,
                        st->redirect, hint);
        else if (!ok) {
            char list[64] = ".txt";
            for (int i = 0; i < 4 && writes[w].exts[i]; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         i + 1 < 4 && writes[w].exts[i + 1] ? ", " : " or ", writes[w].exts[i]);
            bl_fail("%s: '%s' makes %s, written as %s%s", st->redirect, name, writes[w].what, list, hint);
        }
        if (!ok) return bl_session_errat(s, st->redirect_pos);
    }
    bl_atomic_file probe;
    if (bl_atomic_open(&probe, st->redirect) < 0) return bl_session_errat(s, st->redirect_pos);
    bl_atomic_abort(&probe);
    return 0;
}

/* The text a command word written (EXPR) stands for: a string as it is, a number as the prompt
 * prints it, a bool as on/off. NULL with the error at EXPR for anything else. Free it. */
static char *word_text(bl_session *s, const bl_ast *e)
{
    bl_value *v = bl_eval(s, e);
    if (!v) return NULL;
    char buf[64];
    const char *t = NULL;
    if (v->kind == BL_V_STR) t = v->str;
    else if (v->kind == BL_V_NUM) t = buf, bl_fmt_num(v->num, buf, sizeof buf);
    else if (v->kind == BL_V_BOOL) t = v->num ? "on" : "off";
    char *r = t ? strdup(t) : NULL;
    if (!t) bl_fail("a command word written (...) must give a string or a number, not a %s", bl_val_kind_name(v));
    else if (!r) bl_fail("out of memory");
    bl_val_unref(v);
    if (!r) bl_session_errat(s, e->pos);
    return r;
}

/* The source text of a command statement from its words: NAME WORD KEY=VALUE ... > FILE, each
 * word quoted when it holds white space. NULL when out of memory (the caller keeps its text). */
static char *stmt_text(const bl_stmt *st)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    fputs(st->name, f);
    for (int i = 0; i < st->nwords; i++) {
        const char *t = st->words[i].text;
        int quote = strpbrk(t, " \t") != NULL;
        fprintf(f, " %s%s%s%s%s", st->words[i].key ? st->words[i].key : "", st->words[i].key ? "=" : "",
                quote ? "\"" : "", t, quote ? "\"" : "");
    }
    if (st->redirect) fprintf(f, " > %s", st->redirect);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A command with words (or a '> FILE') written (EXPR): run it with each replaced by its text. */
static int exec_with_word_values(bl_session *s, const bl_stmt *st)
{
    bl_stmt copy = *st;
    bl_word *w = calloc((size_t)st->nwords + 1, sizeof *w);
    char **texts = calloc((size_t)st->nwords + 1, sizeof *texts);
    int rc = w && texts ? 0 : -1;
    if (rc < 0) bl_fail("out of memory"), rc = bl_session_errat(s, st->pos);
    for (int i = 0; rc == 0 && i < st->nwords; i++) {
        w[i] = st->words[i];
        if (!w[i].expr) continue;
        if (!(texts[i] = word_text(s, w[i].expr))) rc = -1;
        w[i].text = texts[i], w[i].expr = NULL;
    }
    if (rc == 0 && st->redirect_expr) {
        if (!(texts[st->nwords] = word_text(s, st->redirect_expr))) rc = -1;
        copy.redirect = texts[st->nwords], copy.redirect_expr = NULL;
    }
    copy.words = w;
    char *text = rc == 0 ? stmt_text(&copy) : NULL;   /* a file's Command says what ran */
    if (text) copy.text = text;
    if (rc == 0) rc = bl_exec_stmt(s, &copy);
    free(text);
    for (int i = 0; texts && i <= st->nwords; i++) free(texts[i]);
    free(texts);
    free(w);
    return rc;
}

/* x.grad = None: x's accumulated gradient is dropped, as zero_grad(x) does (PyTorch's idiom);
 * any other value is an error (a gradient comes from backward). */
static int clear_grad(bl_session *s, const bl_stmt *st, const bl_value *v)
{
    bl_value *x = bl_session_get(s, st->name);
    if (v->kind != BL_V_NONE) {
        bl_fail("x.grad = takes None only (backward fills .grad; zero_grad(x) clears it)");
        return bl_session_errat(s, st->expr->pos);
    }
    if (!x || x->kind != BL_V_TENSOR) {
        if (x) bl_fail("a %s has no .grad to clear", bl_val_kind_name(x));
        else bl_fail("unknown name '%s'", st->name);
        return bl_session_errat(s, st->target->a->pos);
    }
    if (x->param) {         /* a model's parameter: its .grad None (its part of the model's gradient 0) */
        bl_lab_param_set_grad_none(x);
        return 0;
    }
    bl_tensor_free(x->grad);
    x->grad = NULL;
    return 0;
}

int bl_exec_stmt(bl_session *s, const bl_stmt *st)
{
    if (st->kind >= BL_S_DEF) return bl_lang_stmt(s, st);
    int exprs = st->kind == BL_S_CMD && st->redirect_expr;
    for (int i = 0; st->kind == BL_S_CMD && i < st->nwords; i++) exprs |= st->words[i].expr != NULL;
    if (exprs) return exec_with_word_values(s, st);
    bl_value *v = NULL;
    FILE *saved = s->out;
    bl_atomic_file txt = { 0 };
    int rc = 0;
    if (redirect_check(s, st) < 0) return -1;
    /* `cmd > file.txt` (and `print(...) > file.txt`) sends the text it prints to the file as
     * well, written atomically: a failing statement leaves an existing file as it was */
    if (st->kind != BL_S_ASSIGN && bl_stmt_redirects_to(st, ".txt")) {
        if (bl_atomic_open(&txt, st->redirect) < 0) return bl_session_errat(s, st->redirect_pos);
        s->out = txt.f;
    }
    if (st->kind == BL_S_CMD) {
        rc = run_command(s, st, &v);
    } else {
        size_t limit = bl_tensor_limit(s->max_numel ? s->max_numel : BL_REPL_MAX_NUMEL);   /* every tensor it makes, not only randn's */
        v = bl_eval(s, st->expr);
        bl_tensor_limit(limit);
        rc = v ? 0 : -1;
        /* Ctrl-C while it ran (a long product has no safe point inside): the statement is
         * abandoned, as a KeyboardInterrupt would, so the name keeps its old value */
        if (bl_interrupted()) {     /* (an interrupted function call fails) */
            bl_val_unref(v);
            bl_clear_error();
            bl_session_clear_error(s);
            s->out = saved;
            if (txt.f) bl_atomic_abort(&txt);
            return 0;
        }
    }
    s->out = saved;
    if (rc == 0 && st->kind == BL_S_ASSIGN) {
        /* None binds as any value (g = x.grad before a backward; r = print(1)), as Python's */
        if (st->target && st->target->kind == BL_N_FIELD) rc = clear_grad(s, st, v);
        else if (st->target && st->expr && st->expr->kind == BL_N_BINOP && st->expr->a == st->target)
            rc = bl_index_augment(s, st, v);    /* ps[0] -= lr * g */
        else if (st->target) rc = bl_index_assign(s, st->target, v);
        else if (st->pattern) rc = bl_lang_unpack(s, st->pattern, v);
        else rc = bl_assign_name(s, st, v);
        if (rc == 0 && st->body.n) rc = bl_exec_block(s, &st->body);     /* a = b = v */
    } else if (rc == 0 && st->redirect) {
        if (txt.f && st->kind == BL_S_EXPR && v && v->kind != BL_V_NONE) {
            bl_atomic_abort(&txt);      /* a value (not print's text): written as values are */
            txt.f = NULL;
        }
        int stopped = v && v->kind == BL_V_NONE && !txt.f;   /* by Ctrl-C, said so: nothing to write */
        if (txt.f) {
            if (v) bl_val_print(v, txt.f);
            if (bl_atomic_commit(&txt) < 0) rc = bl_session_errat(s, st->redirect_pos);
        } else if (stopped) {
        } else if (!v) {
            bl_fail("'%s' has no table or picture to write to %s", st->name, st->redirect);   /* vars with none */
            rc = bl_session_errat(s, st->redirect_pos);
        } else if (bl_write_value(s, v, st->redirect, st->text) < 0) {
            rc = bl_session_errat(s, st->redirect_pos);
        }
        if (rc == 0 && s->interactive && !stopped) fprintf(s->out, "wrote %s\n", st->redirect);
    } else if (rc == 0 && v && !(st->kind == BL_S_EXPR && s->frame)) {
        /* in a function's body an expression's value is not shown (Python's), only at top level */
        bl_val_print(v, s->out);
    }
    if (txt.f) bl_atomic_abort(&txt);   /* the command failed */
    bl_val_unref(v);
    fflush(s->out);
    return rc;
}

/* The text of line `line` of the current source, for the caret display. */
static void source_line(const char *src, int src_line, int line, const char **start, int *len)
{
    const char *p = src ? src : "";
    for (int l = src_line; l < line && *p; l++) {
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    const char *nl = strchr(p, '\n');
    *start = p;
    *len = nl ? (int)(nl - p) : (int)strlen(p);
}

void bl_report_error(bl_session *s)
{
    const char *msg = bl_error()[0] ? bl_error() : "error";
    fflush(s->out);     /* what the statements before printed comes first, also when */
    fflush(stdout);     /* s->out is a file now (source FILE > out.txt) */
    if (bl_interrupted()) bl_interrupt_newline(s->err);   /* after the terminal's ^C */
    if (s->error_shown) {   /* `source` of a file that stopped at an error, shown where it was */
        s->error_shown = 0;
        bl_clear_error();
        bl_session_clear_error(s);
        return;
    }
    /* the source the error is in: the statement's, or a function's (err_src) */
    const char *src = s->has_errpos ? s->err_src : s->src, *file = s->has_errpos ? s->err_file : s->file;
    int src_line = s->has_errpos ? s->err_line : s->src_line;
    if (!s->has_errpos) {
        if (s->interactive && s->depth == 0) fprintf(s->err, "error: %s\n", msg);
        else fprintf(s->err, "%s: %s\n", file, msg);
    } else if (s->interactive && s->depth == 0) {
        /* a caret under the token, in line with what was typed after the prompt */
        bl_pos p = s->errpos;
        const char *line;
        int len, indent = s->prompt_width;
        source_line(src, src_line, p.line, &line, &len);
        int multi = src != s->src || (src && strchr(src, '\n') && strchr(src, '\n')[1]);
        if (multi) {
            fprintf(s->err, "%*s%.*s\n", indent, "", len, line);
        }
        /* columns are display columns (lexer.h); the token's bytes become its display width */
        int col = p.col - 1, at = 0;
        while (at < len && bl_text_width(line, at) < col)
            for (at++; at < len && ((unsigned char)line[at] & 0xc0) == 0x80;) at++;
        int carets = p.len > 1 && at + p.len <= len ? bl_text_width(line + at, p.len) : 1;
        if (carets < 1) carets = 1;
        int color = bl_is_terminal(fileno(s->err)) && !getenv("NO_COLOR");
        fprintf(s->err, "%*s%s", indent + col, "", color ? "\033[1;31m" : "");
        for (int i = 0; i < carets; i++) fputc('^', s->err);
        fprintf(s->err, " %s%s\n", msg, color ? "\033[0m" : "");
    } else {
        fprintf(s->err, "%s:%d:%d: %s\n", file, s->errpos.line, s->errpos.col, msg);
    }
    if (s->trace) fputs(s->trace, s->err);     /* a line per call of a user function */
    if (s->trace_rep) fprintf(s->err, "  [the line above repeated %d more time%s]\n", s->trace_rep, BL_PLURAL(s->trace_rep));
    fflush(s->err);
    bl_clear_error();
    bl_session_clear_error(s);
}

void bl_code_unref(bl_code *c)
{
    if (!c || --c->refs > 0) return;
    bl_program_free(&c->prog);
    free(c->src);
    free(c->file);
    free(c);
}

int bl_exec(bl_session *s, const char *file, const char *src, int line)
{
    const char *saved_file = s->file, *saved_src = s->src;
    int saved_line = s->src_line;
    bl_code *saved_code = s->code;
    /* the parsed text, its copy and file name live as long as a function defined in it */
    bl_code *c = calloc(1, sizeof *c);
    if (c) c->refs = 1, c->src = strdup(src), c->file = strdup(file), c->line = line;
    if (!c || !c->src || !c->file) {
        bl_code_unref(c);
        bl_fail("out of memory");
        bl_report_error(s);
        return -1;
    }
    s->file = c->file, s->src = c->src, s->src_line = line, s->code = c;
    bl_session_clear_error(s);
    bl_clear_error();
    bl_pos ep = { 0, 1, line, 1 };
    int rc = 0;
    if (bl_parse(c->src, line, 1, bl_is_command, &c->prog, &ep) < 0) {
        bl_dym_command(s, c->src, &ep);    /* `trian 10`: did you mean train? */
        bl_session_errat(s, ep);
        bl_report_error(s);
        rc = -1;
    } else {
        for (int i = 0; i < c->prog.n && !s->quit; i++) {
            if (bl_exec_stmt(s, &c->prog.s[i]) < 0) {
                bl_report_error(s);
                rc = -1;
                if (!s->keep_going) break;
            }
            if (bl_interrupted()) break;   /* Ctrl-C abandons the rest (repl.h) */
        }
    }
    s->file = saved_file, s->src = saved_src, s->src_line = saved_line, s->code = saved_code;
    bl_code_unref(c);
    return rc;
}
