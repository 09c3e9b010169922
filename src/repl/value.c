/* value.c - values of the blocklab language: construction, sharing, printing (see value.h). */
#include "repl/value.h"
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "core/fmt.h"
#include "core/error.h"
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bl_value *vnew(bl_vkind k)
{
    bl_value *v = calloc(1, sizeof *v);
    if (!v) return BL_FAILP("out of memory");
    v->kind = k;
    v->refs = 1;
    return v;
}

bl_value *bl_val_none(void) { return vnew(BL_V_NONE); }

bl_value *bl_val_num(double x)
{
    bl_value *v = vnew(BL_V_NUM);
    if (v) v->num = x;
    return v;
}

bl_value *bl_val_bool(int b)
{
    bl_value *v = vnew(BL_V_BOOL);
    if (v) v->num = b != 0;
    return v;
}

bl_value *bl_val_str(const char *s)
{
    bl_value *v = vnew(BL_V_STR);
    if (v && !(v->str = strdup(s))) {
        free(v);
        return BL_FAILP("out of memory");
    }
    return v;
}

bl_value *bl_val_list(int n)
{
    bl_value *v = vnew(BL_V_LIST);
    if (v && n > 0 && !(v->items = calloc((size_t)n, sizeof *v->items))) {
        free(v);
        return BL_FAILP("out of memory");
    }
    if (v) v->n = n, v->depth = 1;
    return v;
}

int bl_val_depth(const bl_value *v) { return v->kind == BL_V_LIST || v->kind == BL_V_DICT ? v->depth : 0; }

bl_value *bl_val_dict(int cap)
{
    bl_value *v = vnew(BL_V_DICT);
    if (v && cap > 0 && (!(v->items = calloc((size_t)cap, sizeof *v->items)) ||
                         !(v->keys = calloc((size_t)cap, sizeof *v->keys)))) {
        bl_val_unref(v);
        return BL_FAILP("out of memory");
    }
    if (v) v->depth = 1;
    return v;
}

static int is_key(const bl_value *k)
{
    return k->kind == BL_V_STR || k->kind == BL_V_NUM || k->kind == BL_V_BOOL || k->kind == BL_V_NONE;
}

int bl_val_dict_find(const bl_value *d, const bl_value *key)
{
    for (int i = 0; i < d->n; i++) {
        const bl_value *k = d->keys[i];
        if (k->kind == BL_V_STR ? key->kind == BL_V_STR && !strcmp(k->str, key->str)
            : k->kind == BL_V_NONE ? key->kind == BL_V_NONE
            : (key->kind == BL_V_NUM || key->kind == BL_V_BOOL) && k->num == key->num)
            return i;
    }
    return -1;
}

int bl_val_dict_set(bl_value *d, bl_value *key, bl_value *val)
{
    int rc = 0;
    if (!key || !val) rc = -1;
    else if (!is_key(key)) rc = bl_fail("TypeError: a dict key is a string, number, bool or None, not a %s", bl_val_kind_name(key));
    else if (bl_val_depth(val) + 1 > BL_MAX_LIST_DEPTH) rc = bl_fail("lists and dicts may nest at most %d deep", BL_MAX_LIST_DEPTH);
    if (rc < 0) {
        bl_val_unref(key);
        bl_val_unref(val);
        return -1;
    }
    int i = bl_val_dict_find(d, key);
    if (i < 0) {
        i = d->n++;
        d->keys[i] = key;
    } else {
        bl_val_unref(key);
        bl_val_unref(d->items[i]);
    }
    d->items[i] = val;
    if (bl_val_depth(val) + 1 > d->depth) d->depth = bl_val_depth(val) + 1;
    return 0;
}

bl_value *bl_val_pair(bl_value *a, bl_value *b)
{
    bl_value *l = a && b ? bl_val_list(2) : NULL;
    if (!l) {
        bl_val_unref(a);
        bl_val_unref(b);
        return NULL;
    }
    bl_val_list_set(l, 0, a);
    bl_val_list_set(l, 1, b);
    l->is_pair = 1;
    return l;
}

int bl_val_list_set(bl_value *l, int i, bl_value *item)
{
    if (!item) return -1;
    if (bl_val_depth(item) + 1 > BL_MAX_LIST_DEPTH) {
        bl_val_unref(item);
        return bl_fail("lists may nest at most %d deep; this one would be %d", BL_MAX_LIST_DEPTH,
                       BL_MAX_LIST_DEPTH + 1);
    }
    l->items[i] = item;
    if (bl_val_depth(item) + 1 > l->depth) l->depth = bl_val_depth(item) + 1;
    return 0;
}

bl_value *bl_val_tensor(bl_tensor *t)
{
    if (!t) return NULL;
    if (t->ndim == 0) {
        double x = t->data[0];
        bl_tensor_free(t);
        return bl_val_num(x);
    }
    bl_value *v = vnew(BL_V_TENSOR);
    if (!v) bl_tensor_free(t);
    else v->t = t;
    return v;
}

bl_value *bl_val_table(bl_table *tab)
{
    if (!tab) return NULL;
    bl_value *v = vnew(BL_V_TABLE);
    if (!v) bl_table_free(tab);
    else v->tab = tab;
    return v;
}

bl_value *bl_val_handle(const bl_handle_type *type, void *ptr)
{
    if (!ptr) return NULL;
    bl_value *v = vnew(BL_V_HANDLE);
    if (!v) {
        type->free(ptr);
        return NULL;
    }
    v->htype = type;
    v->h = ptr;
    return v;
}

bl_value *bl_val_func(bl_func *fn)
{
    if (!fn) return NULL;
    bl_value *v = vnew(BL_V_FUNC);
    if (!v) bl_func_free(fn);
    else v->fn = fn;
    return v;
}

bl_value *bl_val_ref(bl_value *v)
{
    if (v) v->refs++;
    return v;
}

void bl_val_unref(bl_value *v)
{
    if (!v || --v->refs > 0) return;
    free(v->str);
    for (int i = 0; v->items && i < v->n; i++) bl_val_unref(v->items[i]);
    for (int i = 0; v->keys && i < v->n; i++) bl_val_unref(v->keys[i]);
    free(v->items);
    free(v->keys);
    bl_tensor_free(v->t);
    bl_tensor_free(v->grad);
    bl_agnode_unref(v->node);
    bl_lab_param_release(v->param);
    bl_table_free(v->tab);
    if (v->htype && v->h) v->htype->free(v->h);
    if (v->fn) bl_func_free(v->fn);
    free(v);
}

const char *bl_val_kind_name(const bl_value *v)
{
    switch (v->kind) {
    case BL_V_NONE: return "None";
    case BL_V_NUM: return "number";
    case BL_V_BOOL: return "bool";
    case BL_V_STR: return "string";
    case BL_V_LIST: return "list";
    case BL_V_DICT: return "dict";
    case BL_V_TENSOR: return "tensor";
    case BL_V_TABLE: return "table";
    case BL_V_HANDLE: return v->htype->name;
    case BL_V_FUNC: return "function";
    }
    return "?";
}

int bl_val_truth(const bl_value *v)
{
    if (v->kind == BL_V_BOOL || v->kind == BL_V_NUM) return v->num != 0;
    return bl_fail("expected on/off or a number, got a %s", bl_val_kind_name(v));
}

/* ---- list -> tensor ---- */
static int list_shape(const bl_value *v, int depth, int *ndim, int *shape, const char *what)
{
    if (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) {
        if (*ndim < 0) *ndim = depth;
        else if (*ndim != depth) return bl_fail("%s: the nested lists are not rectangular", what);
        return 0;
    }
    if (v->kind == BL_V_TENSOR) return bl_fail("%s: a list of tensors is not supported (use reshape)", what);
    if (v->kind != BL_V_LIST) return bl_fail("%s: expected numbers, got a %s", what, bl_val_kind_name(v));
    if (depth >= BL_MAXDIM) return bl_fail("%s: more than %d levels of nesting", what, BL_MAXDIM);
    if (v->n == 0) return bl_fail("%s: empty list", what);
    if (shape[depth] == 0) shape[depth] = v->n;
    else if (shape[depth] != v->n)
        return bl_fail("%s: the nested lists are not rectangular (%d vs %d items)", what, shape[depth], v->n);
    for (int i = 0; i < v->n; i++)
        if (list_shape(v->items[i], depth + 1, ndim, shape, what) < 0) return -1;
    return 0;
}

static void list_fill(const bl_value *v, float **p)
{
    if (v->kind != BL_V_LIST) { *(*p)++ = (float)v->num; return; }
    for (int i = 0; i < v->n; i++) list_fill(v->items[i], p);
}

bl_tensor *bl_val_to_tensor(const bl_value *v, const char *what)
{
    if (v->kind == BL_V_TENSOR) return bl_tensor_copy(v->t);
    if (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) return bl_tensor_scalar((float)v->num);
    if (v->kind != BL_V_LIST)
        return BL_FAILP("%s: expected a tensor or numbers, got a %s", what, bl_val_kind_name(v));
    int ndim = -1, shape[BL_MAXDIM] = { 0 };
    if (list_shape(v, 0, &ndim, shape, what) < 0) return NULL;
    bl_tensor *t = bl_tensor_new(ndim, shape);
    if (!t) return NULL;
    float *p = t->data;
    list_fill(v, &p);
    return t;
}

/* ---- printing ---- */
void bl_fmt_num(double x, char *buf, size_t n)
{
    if (isnan(x)) snprintf(buf, n, "nan");
    else if (isinf(x)) snprintf(buf, n, x > 0 ? "inf" : "-inf");
    /* a negative zero prints as -0, as Python's -0.0 and the tensors' "-0." (round(-0.5)) */
    else if (x == floor(x) && fabs(x) < 1e15) snprintf(buf, n, "%.0f", x);
    else snprintf(buf, n, "%.6g", x);
}

/* Tensors print as PyTorch's repr does (torch/_tensor_str.py with the default print options:
 * precision 4, threshold 1000, edgeitems 3, linewidth 80), then blocklab's shape and dtype. */
enum { EDGE = 3, SUMMARY_OVER = 1000, LINEWIDTH = 80 };

typedef struct {
    FILE *out;
    const bl_tensor *t;
    int summarize, mode, width, prec;   /* mode -1 not chosen yet, 0 integers, 1 fixed, 2 scientific */
    int col;                            /* current output column */
} tp;

static void fmt_elem(const tp *p, float x, char *buf, size_t n)
{
    if (isnan(x)) snprintf(buf, n, "nan");
    else if (isinf(x)) snprintf(buf, n, x > 0 ? "inf" : "-inf");
    else if (p->mode == 0) snprintf(buf, n, "%.0f.", (double)x);   /* -0 as "-0.", as PyTorch */
    else if (p->mode == 1) snprintf(buf, n, "%.*f", p->prec, (double)x);
    else snprintf(buf, n, "%.*e", p->prec, (double)x);
}

/* Indices of dimension d that are shown: all, or the first and last EDGE with -1 between. */
static int shown(const tp *p, int d, int *idx)
{
    int n = p->t->shape[d], k = 0;
    if (!p->summarize || n <= 2 * EDGE) {
        for (int i = 0; i < n; i++) idx[k++] = i;
    } else {
        for (int i = 0; i < EDGE; i++) idx[k++] = i;
        idx[k++] = -1;
        for (int i = n - EDGE; i < n; i++) idx[k++] = i;
    }
    return k;
}

/* What PyTorch's _Formatter looks at: the shown elements that are finite and not 0. Before the
 * mode is chosen, their largest and smallest magnitude and whether all are whole; after, the
 * widest of them as formatted (the column width). */
typedef struct {
    double amax, amin;
    int n, allint, width;
} tstats;

static void scan(const tp *p, int d, size_t off, tstats *st)
{
    int idx[2 * EDGE + 1 + 1024], k;
    if (p->t->shape[d] > 1024 && !p->summarize) return;   /* cannot happen: summarize */
    k = shown(p, d, idx);
    size_t inner = bl_tensor_inner(p->t, d + 1);
    for (int j = 0; j < k; j++) {
        if (idx[j] < 0) continue;
        size_t o = off + (size_t)idx[j] * inner;
        if (d + 1 < p->t->ndim) { scan(p, d + 1, o, st); continue; }
        float x = p->t->data[o];
        if (!isfinite(x) || x == 0) continue;
        if (p->mode < 0) {
            double a = fabs((double)x);
            st->n++;
            if (a > st->amax) st->amax = a;
            if (a < st->amin) st->amin = a;
            if (x != ceilf(x)) st->allint = 0;
        } else {
            char buf[48];
            fmt_elem(p, x, buf, sizeof buf);
            if ((int)strlen(buf) > st->width) st->width = (int)strlen(buf);
        }
    }
}

static void put(tp *p, const char *s)
{
    fputs(s, p->out);
    p->col += (int)strlen(s);
}

static void newline_indent(tp *p, int indent)
{
    fputc('\n', p->out);
    for (int i = 0; i < indent; i++) fputc(' ', p->out);
    p->col = indent;
}

static void rec(tp *p, int d, size_t off, int indent)
{
    int idx[2 * EDGE + 1 + 1024];
    int k = shown(p, d, idx);
    size_t inner = bl_tensor_inner(p->t, d + 1);
    int last = d + 1 == p->t->ndim;
    /* a row holds as many elements as fit in LINEWIDTH after its indent (PyTorch's _vector_str) */
    int per_line = (LINEWIDTH - (indent + d)) / (p->width + 2);
    if (per_line < 1) per_line = 1;
    put(p, "[");
    for (int j = 0; j < k; j++) {
        if (j > 0) {
            put(p, ",");
            if (!last) {
                /* one blank line between matrices, two between blocks of them, ... */
                for (int nl = 0; nl < p->t->ndim - d - 2; nl++) fputc('\n', p->out);
                newline_indent(p, indent + d + 1);
            } else if (j % per_line == 0) {
                newline_indent(p, indent + d + 1);
            } else {
                put(p, " ");
            }
        }
        if (idx[j] < 0) {
            put(p, last ? " ..." : "...");
            continue;
        }
        size_t o = off + (size_t)idx[j] * inner;
        if (!last) { rec(p, d + 1, o, indent); continue; }
        char buf[48], cell[64];
        fmt_elem(p, p->t->data[o], buf, sizeof buf);
        snprintf(cell, sizeof cell, "%*s", p->width, buf);
        put(p, cell);
    }
    put(p, "]");
}

/* tensor(...) with the suffix "shape=[..], dtype=float32" and `extra` after it (", requires_grad=True"). */
static void print_tensor(const bl_tensor *t, const char *extra, FILE *out)
{
    if (t->ndim == 0) {   /* a 0-D tensor keeps a gradient's node: tensor(0.5000, grad_fn=<sum>) */
        char num[48];
        bl_fmt_num(t->data[0], num, sizeof num);
        fprintf(out, "tensor(%s%s)", num, extra);
        return;
    }
    tp p = { .out = out, .t = t, .summarize = t->numel > SUMMARY_OVER, .mode = -1, .prec = 4 };
    tstats st = { .amax = 0, .amin = INFINITY, .allint = 1, .width = 1 };
    scan(&p, 0, 0, &st);
    /* whole numbers as "3.", others with 4 decimals; scientific when the magnitudes span more
     * than 1000x or pass 1e8, or (not whole numbers) go below 1e-4 */
    int sci = st.n > 0 && (st.amax / st.amin > 1000 || st.amax > 1e8 || (!st.allint && st.amin < 1e-4));
    p.mode = sci ? 2 : st.allint ? 0 : 1;
    scan(&p, 0, 0, &st);
    p.width = st.width;
    put(&p, "tensor(");
    rec(&p, 0, 0, 7);
    char shp[64], suffix[160];
    snprintf(suffix, sizeof suffix, "shape=%s, dtype=float32%s", bl_shape_str(t, shp, sizeof shp), extra);
    /* on a line of its own when it would pass LINEWIDTH, counted as PyTorch's _add_suffixes does */
    if (p.col + 2 + (int)strlen(suffix) + 2 > LINEWIDTH) {
        put(&p, ",");
        newline_indent(&p, 7);
    } else {
        put(&p, ", ");
    }
    put(&p, suffix);
    put(&p, ")");
}

void bl_val_print_tensor(const bl_tensor *t, FILE *out) { print_tensor(t, "", out); }

/* s as a string literal the language reads back: in double quotes, with \\ \" \n \t \r escaped
 * (the lexer's escapes), as Python's repr shows a string inside a list. */
static void print_quoted(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        const char *e = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n"
                      : *s == '\t' ? "\\t" : *s == '\r' ? "\\r" : NULL;
        if (e) fputs(e, out);
        else fputc(*s, out);
    }
    fputc('"', out);
}

static void print_inline(const bl_value *v, FILE *out, int quote)
{
    char buf[256];
    switch (v->kind) {
    case BL_V_NONE: fputs("None", out); break;
    case BL_V_NUM: bl_fmt_num(v->num, buf, sizeof buf); fputs(buf, out); break;
    case BL_V_BOOL: fputs(v->num ? "true" : "false", out); break;
    case BL_V_STR: quote ? print_quoted(v->str, out) : (void)fputs(v->str, out); break;
    case BL_V_LIST:
        fputc('[', out);
        for (int i = 0; i < v->n; i++) {
            if (i) fputs(", ", out);
            print_inline(v->items[i], out, 1);
        }
        fputc(']', out);
        break;
    case BL_V_DICT:         /* {"lr": 0.001, "steps": 100} */
        fputc('{', out);
        for (int i = 0; i < v->n; i++) {
            if (i) fputs(", ", out);
            print_inline(v->keys[i], out, 1);
            fputs(": ", out);
            print_inline(v->items[i], out, 1);
        }
        fputc('}', out);
        break;
    case BL_V_TENSOR:
        if (v->t->numel <= 64) {     /* [tensor([1., 2.]), ...] as Python prints a list of tensors */
            bl_ag_describe(v, buf, sizeof buf);
            print_tensor(v->t, buf, out);
        } else {                     /* a large one by its shape */
            bl_val_describe(v, buf, sizeof buf);
            fprintf(out, "<%s>", buf);
        }
        break;
    default:
        bl_val_describe(v, buf, sizeof buf);
        fprintf(out, "<%s>", buf);
        break;
    }
}

void bl_val_print_inline(const bl_value *v, FILE *out)
{
    if (v->kind == BL_V_TENSOR) {
        char extra[64];
        bl_ag_describe(v, extra, sizeof extra);
        print_tensor(v->t, extra, out);
    } else print_inline(v, out, 0);
}

void bl_val_print(const bl_value *v, FILE *out)
{
    switch (v->kind) {
    case BL_V_TABLE: bl_table_write_txt(v->tab, out); return;
    case BL_V_HANDLE:
        if (v->htype->print) { v->htype->print(v->h, out); return; }
        break;
    case BL_V_NONE: return;
    default: break;
    }
    bl_val_print_inline(v, out);
    fputc('\n', out);
}

void bl_val_describe(const bl_value *v, char *buf, size_t n)
{
    char s[64];
    switch (v->kind) {
    case BL_V_TENSOR: snprintf(buf, n, "tensor %s", bl_shape_str(v->t, s, sizeof s)); break;
    case BL_V_NUM: bl_fmt_num(v->num, s, sizeof s); snprintf(buf, n, "number %s", s); break;
    case BL_V_BOOL: snprintf(buf, n, "bool %s", v->num ? "true" : "false"); break;
    case BL_V_STR: snprintf(buf, n, "string \"%.40s%s\"", v->str, strlen(v->str) > 40 ? "..." : ""); break;
    case BL_V_LIST: snprintf(buf, n, "list of %d", v->n); break;
    case BL_V_DICT: snprintf(buf, n, "dict of %d", v->n); break;
    case BL_V_TABLE: snprintf(buf, n, "table %d x %d", v->tab->nrow, v->tab->ncol); break;
    case BL_V_FUNC: snprintf(buf, n, "function %s", bl_func_sig(v->fn)); break;
    case BL_V_HANDLE:
        if (v->htype->describe) {
            char d[256];
            v->htype->describe(v->h, d, sizeof d);
            snprintf(buf, n, "%s %s", v->htype->name, d);
        } else {
            snprintf(buf, n, "%s", v->htype->name);
        }
        break;
    default: snprintf(buf, n, "%s", bl_val_kind_name(v)); break;
    }
}

/* ---- tables ---- */
bl_table *bl_table_new(int ncol, const char *const *cols)
{
    bl_table *t = calloc(1, sizeof *t);
    if (!t || !(t->cols = calloc((size_t)ncol + 1, sizeof *t->cols))) {
        free(t);
        return BL_FAILP("out of memory");
    }
    t->ncol = ncol;
    for (int i = 0; i < ncol; i++)
        if (!(t->cols[i] = strdup(cols[i]))) {
            bl_table_free(t);
            return BL_FAILP("out of memory");
        }
    return t;
}

int bl_table_add(bl_table *t, const char *const *cells)
{
    if (t->nrow == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        char **nc = realloc(t->cells, (size_t)cap * (size_t)t->ncol * sizeof *nc);
        if (!nc) return bl_fail("out of memory");
        t->cells = nc;
        t->cap = cap;
    }
    char **row = t->cells + (size_t)t->nrow * (size_t)t->ncol;
    for (int i = 0; i < t->ncol; i++)
        if (!(row[i] = strdup(cells[i] ? cells[i] : ""))) {
            while (i-- > 0) free(row[i]);
            return bl_fail("out of memory");
        }
    t->nrow++;
    return 0;
}

int bl_table_addf(bl_table *t, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    bl_vsnprintf(line, sizeof line, fmt, ap);   /* a NaN cell "nan", never "-nan" */
    va_end(ap);
    const char *cells[64];
    int n = 0;
    char *s = line;
    while (n < t->ncol && n < 64) {
        cells[n++] = s;
        char *tab = strchr(s, '\t');
        if (!tab) break;
        *tab = '\0';
        s = tab + 1;
    }
    while (n < t->ncol && n < 64) cells[n++] = "";
    return bl_table_add(t, cells);
}

void bl_table_free(bl_table *t)
{
    if (!t) return;
    for (size_t i = 0; i < (size_t)t->nrow * (size_t)t->ncol; i++) free(t->cells[i]);
    for (int i = 0; i < t->ncol; i++) free(t->cols ? t->cols[i] : NULL);
    free(t->cells);
    free(t->cols);
    free(t->title);
    free(t);
}

static int is_number(const char *s)
{
    char *end;
    if (!*s) return 0;
    strtod(s, &end);
    return *end == '\0';
}

static const char *cell(const bl_table *t, int r, int c) { return t->cells[(size_t)r * t->ncol + c]; }

void bl_table_write_txt(const bl_table *t, FILE *out)
{
    int w[64] = { 0 };
    int nc = t->ncol < 64 ? t->ncol : 64;
    if (nc == 0) {      /* table(), before its first t.add(...) */
        fputs("(an empty table)\n", out);
        return;
    }
    for (int c = 0; c < nc; c++) {
        w[c] = (int)strlen(t->cols[c]);
        for (int r = 0; r < t->nrow; r++)
            if ((int)strlen(cell(t, r, c)) > w[c]) w[c] = (int)strlen(cell(t, r, c));
    }
    if (t->title) fprintf(out, "%s\n", t->title);
    for (int r = -1; r < t->nrow; r++) {
        for (int c = 0; c < nc; c++) {
            const char *s = r < 0 ? t->cols[c] : cell(t, r, c);
            /* numbers right-aligned, text left-aligned; no trailing blanks */
            int right = r >= 0 ? is_number(s) : (t->nrow > 0 && is_number(cell(t, 0, c)));
            if (c) fputs("  ", out);
            if (right) fprintf(out, "%*s", w[c], s);
            else if (c + 1 < nc) fprintf(out, "%-*s", w[c], s);
            else fputs(s, out);
        }
        fputc('\n', out);
    }
}

static void csv_cell(const char *s, FILE *out)
{
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, out); return; }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* "-" is a table's mark for "no value" (compare's first difference): .csv and .json write it as
 * missing (an empty cell, null), so a column of numbers stays numbers for pandas. */
static int missing(const char *s) { return !strcmp(s, "-"); }

void bl_table_write_csv(const bl_table *t, FILE *out)
{
    for (int r = -1; r < t->nrow; r++) {
        for (int c = 0; c < t->ncol; c++) {
            if (c) fputc(',', out);
            if (r >= 0 && missing(cell(t, r, c))) continue;
            csv_cell(r < 0 ? t->cols[c] : cell(t, r, c), out);
        }
        fputs("\n", out);
    }
}

static void json_str(const char *s, FILE *out)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* Is s a number as JSON writes one: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number_text(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (isdigit((unsigned char)*s)) s++;
    else return 0;
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s)) return 0;
        while (isdigit((unsigned char)*s)) s++;
    }
    if (*s == 'e' || *s == 'E') {
        if (*++s == '+' || *s == '-') s++;
        if (!isdigit((unsigned char)*s)) return 0;
        while (isdigit((unsigned char)*s)) s++;
    }
    return *s == '\0';
}

/* A cell as a JSON value: a number as it is when JSON allows its form, else rewritten ("+0.0012"
 * as 0.0012, ".5" as 0.5; a whole number stays an integer, one written with a point or an
 * exponent a real); nan, inf and "-" as null; anything else a string. */
static void json_cell(const char *s, FILE *out)
{
    char *end;
    double x = strtod(s, &end);
    if (missing(s) || (is_number(s) && !isfinite(x))) fputs("null", out);
    else if (!is_number(s)) json_str(s, out);
    else if (json_number_text(s)) fputs(s, out);
    else if (*s == '+' && json_number_text(s + 1)) fputs(s + 1, out);
    else {
        char num[40];
        int real = strpbrk(s, ".eE") != NULL;
        for (int prec = 15; prec <= 17; prec++) {   /* the shortest form that reads back as x */
            snprintf(num, sizeof num, "%.*g", prec, x == 0 ? 0.0 : x);
            if (strtod(num, NULL) == x) break;
        }
        fprintf(out, "%s%s", num, real && !strpbrk(num, ".e") ? ".0" : "");
    }
}

void bl_table_write_json(const bl_table *t, FILE *out)
{
    fputs("[\n", out);
    for (int r = 0; r < t->nrow; r++) {
        fputs("  {", out);
        for (int c = 0; c < t->ncol; c++) {
            if (c) fputs(", ", out);
            json_str(t->cols[c], out);
            fputs(": ", out);
            json_cell(cell(t, r, c), out);
        }
        fputs(r + 1 < t->nrow ? "},\n" : "}\n", out);
    }
    fputs("]\n", out);
}

static void md_cell(const char *s, FILE *out)
{
    for (; *s; s++) {
        if (*s == '|') fputc('\\', out);
        fputc(*s == '\n' ? ' ' : *s, out);
    }
}

void bl_table_write_md(const bl_table *t, FILE *out)
{
    if (t->title) {
        md_cell(t->title, out);
        fputs("\n\n", out);
    }
    for (int r = -2; r < t->nrow; r++) {
        fputc('|', out);
        for (int c = 0; c < t->ncol; c++) {
            fputc(' ', out);
            if (r == -2) md_cell(t->cols[c], out);
            else if (r == -1) {
                int numeric = 0;    /* right-aligned when any cell is a number */
                for (int k = 0; k < t->nrow && !numeric; k++) numeric = is_number(cell(t, k, c));
                fputs(numeric ? "---:" : "---", out);
            }
            else md_cell(cell(t, r, c), out);
            fputs(" |", out);
        }
        fputc('\n', out);
    }
}
