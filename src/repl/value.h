/* value.h - the values of the blocklab language: numbers, booleans, strings, lists, tensors,
 * tables and opaque handles (models, runs, plots).
 *
 * Values are reference counted and immutable once made, so `y = x` shares x's tensor and no
 * operation can change a value another name holds, but for torch's in-place forms on tensors
 * (repl.h bl_write_in_place) and an optimizer's live param-group dicts (`live` below). bl_val_* constructors take ownership of the
 * tensor/table/handle they wrap (freeing it when they fail) and return NULL + bl_error() when out
 * of memory. A tensor value whose tensor is 0-D is made a number instead.
 */
#ifndef BL_REPL_VALUE_H
#define BL_REPL_VALUE_H

#include "core/tensor.h"
#include <stdio.h>

typedef enum {
    BL_V_NONE, BL_V_NUM, BL_V_BOOL, BL_V_STR, BL_V_LIST, BL_V_TENSOR, BL_V_TABLE, BL_V_HANDLE,
    BL_V_FUNC,
    BL_V_DICT       /* Python's dict: n keys (strings, numbers, bools or None) in keys, their
                       values in items, in the order they were first set */
} bl_vkind;

typedef struct bl_value bl_value;
typedef struct bl_func bl_func;           /* a user function: repl/lang.c */
typedef struct bl_callargs bl_callargs;   /* the evaluated arguments of a call: repl/repl.h */
typedef struct bl_agnode bl_agnode;   /* repl/autograd.h */

/* How deep lists may nest ([[1]] is 2 deep). Printing, comparing, writing as .json and freeing a
 * list walk it recursively, so a list may not be made deeper than this (as CPython bounds repr
 * and == of nested lists by its recursion limit): l = [l] repeated 200,000 times would overflow
 * the C stack and lose the whole session. */
#define BL_MAX_LIST_DEPTH 1000

/* A kind of opaque handle (a model, a run, a plot): its name, how to free, print and read
 * fields. `field` returns a new value or NULL + bl_fail("... has no field 'x'"). */
typedef struct {
    const char *name;
    void (*free)(void *ptr);
    void (*print)(void *ptr, FILE *out);
    bl_value *(*field)(void *ptr, const char *name);
    /* one-line description for `vars` ("dit dim=128 depth=4 ..."), written into buf */
    void (*describe)(void *ptr, char *buf, size_t n);
    /* write to a file, format by extension (`STATEMENT > FILE`); NULL when the kind has no
     * file form. cmdline is the statement, kept in the file where the format allows. */
    int (*save)(void *ptr, const char *path, const char *cmdline);
    /* call the handle as a function (`m(xt, t)` on a model): a new value, or NULL + bl_fail
     * (the caller marks the call's position unless the handler did); keyword arguments it does
     * not take with bl_kw are refused by the caller. NULL when the kind cannot be called. */
    bl_value *(*call)(void *ptr, bl_callargs *a);
} bl_handle_type;

/* A table: named columns, rows of cells kept as text; a cell is numeric when it parses as one
 * (JSON writes it as a number). */
typedef struct {
    int ncol, nrow, cap;
    char **cols;        /* ncol names */
    char **cells;       /* nrow * ncol strings, row-major */
    char *title;        /* or NULL */
} bl_table;

struct bl_value {
    bl_vkind kind;
    int refs;
    double num;             /* NUM, BOOL (0/1) */
    char *str;              /* STR */
    int n;                  /* LIST, DICT */
    bl_value **items;
    bl_value **keys;        /* DICT */
    int depth;              /* LIST, DICT: 1 + the deepest item's depth (1 for a list of no lists),
                             * kept by bl_val_list_set; at most BL_MAX_LIST_DEPTH */
    bl_tensor *t;           /* TENSOR (owned, contiguous, ndim >= 1) */
    /* autograd (repl/autograd.h), TENSOR only: a leaf that needs a gradient accumulates it in
     * grad (owned, t's shape, NULL until the first backward reaches it); a value made by a
     * recorded op holds the node that made it (owned reference). */
    int requires_grad;
    bl_tensor *grad;
    bl_agnode *node;
    /* TENSOR: a model's live parameter (parameters(m), repl/modellab.h): t's data and grad are
     * the model's own memory; NULL for any other tensor */
    struct bl_paramref *param;
    /* TENSOR: + 1 at each in-place change of t's data (W -= ..., x.add_(...), x[i] = v under
     * no_grad): a node made from this value before refuses backward (PyTorch's version counter) */
    unsigned version;
    /* TENSOR: made by a comparison (x > 2), tensor([True, False]) or a product of such: its
     * 0/1 values are torch's bools, so x[m] selects where m is 1 (index.c) */
    int is_mask;
    /* LIST: torch's (values, indices) named tuple (bl_val_pair: x.max(1), sort, topk, median):
     * .values and .indices read items 0 and 1 (eval.c) */
    int is_pair;
    /* DICT: d[key] = v changes this dict where it is, as Python's (an optimizer's param group,
     * repl/optim.h: the optimizer reads it at each step), when > 0: then the most keys it has
     * room for (bl_val_dict's cap); 0 for any other dict, which d[key] = v makes anew */
    int live;
    bl_table *tab;          /* TABLE */
    const bl_handle_type *htype;    /* HANDLE */
    void *h;
    bl_func *fn;            /* FUNC (owned) */
};

bl_value *bl_val_none(void);
bl_value *bl_val_num(double x);
bl_value *bl_val_bool(int b);
bl_value *bl_val_str(const char *s);
/* A list of n items, all NULL (fill them with bl_val_list_set; NULL items are freed safely). */
bl_value *bl_val_list(int n);
/* Make item (owned; NULL, from a constructor that failed, passes its error on) item i of list l,
 * keeping l->depth. -1 + bl_fail("lists may nest at most 1000 deep; ...") when l would nest deeper
 * than BL_MAX_LIST_DEPTH (item is released); l stays valid either way, to be released. */
int bl_val_list_set(bl_value *l, int i, bl_value *item);
/* The list [a, b] of two owned values (torch's (values, indices) pairs: x.max(1), sort, topk;
 * .values and .indices name them, as torch's named tuple);
 * NULL when either is NULL (the other is released) or out of memory. */
bl_value *bl_val_pair(bl_value *a, bl_value *b);
/* How deep v nests as a list (or dict): 0 for anything else. */
int bl_val_depth(const bl_value *v);
/* An empty dict with room for cap keys. */
bl_value *bl_val_dict(int cap);
/* Where key (a string, number, bool or None) stands in dict d, or -1. Numbers and bools match
 * by value (1 and true are one key, as Python's). */
int bl_val_dict_find(const bl_value *d, const bl_value *key);
/* d[key] = val (both owned; a NULL one, from a constructor that failed, passes its error on):
 * replaces key's value, or adds the key (d grows up to its cap; bl_val_dict's cap must leave room).
 * -1 + bl_fail for a key of another kind (a list, a tensor: Python's unhashable) or nesting deeper
 * than BL_MAX_LIST_DEPTH; both are released then. */
int bl_val_dict_set(bl_value *d, bl_value *key, bl_value *val);
/* Takes ownership of t (NULL t passes NULL through). 0-D becomes a number. */
bl_value *bl_val_tensor(bl_tensor *t);
bl_value *bl_val_table(bl_table *tab);
bl_value *bl_val_handle(const bl_handle_type *type, void *ptr);
/* A user function (`def`): takes ownership of fn (bl_func_free'd with the value). Printed as
 * <function f(x, w=1)>. */
bl_value *bl_val_func(bl_func *fn);
void bl_func_free(bl_func *fn);
/* "f(x, w=1)": the function's name and parameters as its def wrote them. */
const char *bl_func_sig(const bl_func *fn);

bl_value *bl_val_ref(bl_value *v);
void bl_val_unref(bl_value *v);

/* "number", "tensor", "model", ... */
const char *bl_val_kind_name(const bl_value *v);
/* Truthiness of a bool or number; -1 + bl_fail for other kinds. */
int bl_val_truth(const bl_value *v);

/* A new owned tensor holding v's numbers: a number or bool (0-D), a (nested) list of numbers
 * (rectangular, up to 4 levels) or a tensor (copied). NULL + bl_fail("what: ...") otherwise. */
bl_tensor *bl_val_to_tensor(const bl_value *v, const char *what);

/* Print a value as the REPL shows it (tensors as PyTorch's repr, abbreviated beyond 1000
 * elements, then shape and dtype; numbers with 6 significant digits), ending with a newline. */
void bl_val_print(const bl_value *v, FILE *out);
/* A tensor as bl_val_print shows it (PyTorch's repr: rows after the first indented under the
 * first), without the final newline, so print(x, y) can go on after it. */
void bl_val_print_tensor(const bl_tensor *t, FILE *out);
/* A value as bl_val_print shows it, without the final newline, so print(a, b) can go on after
 * it: a tensor as bl_val_print_tensor, a number, bool, string or list as the prompt shows it,
 * None as Python's print shows it (tables, models and pictures take lines of their own:
 * bl_val_print, which shows nothing for None, as Python's prompt does not). */
void bl_val_print_inline(const bl_value *v, FILE *out);
/* A number as the REPL writes it ("3", "0.316228", "1e-06", "nan", "inf"). */
void bl_fmt_num(double x, char *buf, size_t n);
/* Short description for `vars`: "tensor [4, 64, 128]", "number 3", "model dit ...". */
void bl_val_describe(const bl_value *v, char *buf, size_t n);

/* ---- tables ---- */
bl_table *bl_table_new(int ncol, const char *const *cols);
/* Append a row of ncol cells (copied). Returns 0 or -1. */
int bl_table_add(bl_table *t, const char *const *cells);
/* Append a row given as printf-formatted cells separated by '\t': bl_table_addf(t, "%s\t%d", ..). */
int bl_table_addf(bl_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bl_table_free(bl_table *t);
/* Aligned text (numbers right-aligned), CSV (RFC 4180 quoting) and JSON (an array of objects,
 * numbers as JSON numbers: whole ones integers, "+0.0012" 0.0012). A cell "-" means "no value"
 * (compare's first difference): an empty CSV cell and JSON null, as nan and inf are in JSON. */
void bl_table_write_txt(const bl_table *t, FILE *out);
void bl_table_write_csv(const bl_table *t, FILE *out);
void bl_table_write_json(const bl_table *t, FILE *out);
/* GitHub Markdown: the title as a paragraph, a header row, columns holding a number right-aligned,
 * '|' in cells escaped as \|. */
void bl_table_write_md(const bl_table *t, FILE *out);

#endif
