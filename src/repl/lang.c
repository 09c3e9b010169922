/* lang.c - the statements of the language itself: user functions (def, return, global, calls
 * with their own variables and a traceback), loops (for, while, break, continue), conditions
 * (if, elif, else) and the one method, table.add (see repl.h, parser.h; help language).
 *
 * A block's statements run through bl_exec_stmt, which returns a flow code for break, continue
 * and return; each loop and call consumes its own. Ctrl-C stops a loop between iterations and
 * between the statements of a body: what ran before is kept (repl.h). */
#include "repl/repl.h"
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "repl/modules.h"
#include "core/error.h"
#include "core/fmt.h"
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The C stack a chain of calls may use (the main thread has 8 MiB): deep expressions inside
 * deep recursion could overflow it before BL_CALL_MAX calls. */
#define STACK_MAX ((size_t)4 << 20)

struct bl_func {
    const bl_stmt *def;     /* the def statement, in code's arena */
    bl_code *code;          /* its source, kept alive (a reference) */
    bl_value **defaults;    /* def->nparams, each parameter's default (evaluated by def) or NULL */
    bl_frame cap;           /* made inside a function: that function's variables as they were
                               then (a closure, as a snapshot: lambda x: x + k sees the k of
                               the call that made it), locals of each call before its parameters */
};

static void frame_free(bl_frame *f);

void bl_func_free(bl_func *fn)
{
    if (!fn) return;
    for (int i = 0; fn->defaults && i < fn->def->nparams; i++) bl_val_unref(fn->defaults[i]);
    free(fn->defaults);
    frame_free(&fn->cap);
    bl_code_unref(fn->code);
    free(fn);
}

const char *bl_func_sig(const bl_func *fn) { return fn->def->sig; }

int bl_callable(const bl_value *v)
{
    return v->kind == BL_V_FUNC || (v->kind == BL_V_HANDLE && v->htype->call);
}

/* Append a line to the traceback; a line that repeats the one before (a recursion) is counted,
 * and said once, as Python does. */
static void trace_add(bl_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void trace_add(bl_session *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = s->trace ? strlen(s->trace) : 0;
    const char *last = s->trace ? s->trace + n - 1 : NULL;      /* the last line's start */
    while (last && last > s->trace && last[-1] != '\n') last--;
    if (last && !strcmp(last, line)) {
        s->trace_rep++;
        return;
    }
    char rep[96] = "";
    if (s->trace_rep) snprintf(rep, sizeof rep, "  [the line above repeated %d more time%s]\n", s->trace_rep, BL_PLURAL(s->trace_rep));
    s->trace_rep = 0;
    char *t = realloc(s->trace, n + strlen(rep) + strlen(line) + 1);
    if (!t) return;
    strcpy(t + n, rep);
    strcat(t + n, line);
    s->trace = t;
}

/* Bind a's arguments to fn's parameters in frame f: positional ones in order, keywords by name,
 * defaults for the rest. 0, or -1 + an error naming the parameter. */
static int bind(bl_session *s, const bl_func *fn, bl_callargs *a, bl_value **bound)
{
    const bl_stmt *d = fn->def;
    if (a->n > d->nparams) {
        bl_fail("%s takes %d argument%s, got %d (%s)", d->name, d->nparams, BL_PLURAL(d->nparams), a->n, d->sig);
        return bl_session_errat(s, a->vpos[d->nparams]);
    }
    for (int i = 0; i < a->n; i++) bound[i] = a->v[i];
    for (int j = 0; j < a->nk; j++) {
        int i = 0;
        while (i < d->nparams && strcmp(d->params[i], a->key[j])) i++;
        if (i == d->nparams) {
            bl_fail("%s has no parameter '%s' (%s)", d->name, a->key[j], d->sig);
            return bl_session_errat(s, a->kname[j]);
        }
        if (bound[i]) {
            bl_fail("%s: parameter '%s' given twice (%s)", d->name, a->key[j], d->sig);
            return bl_session_errat(s, a->kname[j]);
        }
        bound[i] = a->kv[j];
        if (a->kused) a->kused[j] = 1;
    }
    for (int i = 0; i < d->nparams; i++) {
        if (!bound[i]) bound[i] = fn->defaults[i];
        if (!bound[i]) {
            bl_fail("%s: missing argument '%s' (%s)", d->name, d->params[i], d->sig);
            return bl_session_errat(s, a->pos);
        }
    }
    return 0;
}

static void frame_free(bl_frame *f)
{
    for (int i = 0; i < f->nvars; i++) {
        free(f->names[i]);
        bl_val_unref(f->vals[i]);
    }
    free(f->names);
    free(f->vals);
    for (int i = 0; i < f->nglobal; i++) free(f->global[i]);
    free(f->global);
}

/* Call user function fv with a's arguments: its parameters and the variables it assigns are
 * its own (a frame); its statements run with its own source for carets. */
static bl_value *call_func(bl_session *s, bl_value *fv, bl_callargs *a)
{
    const bl_func *fn = fv->fn;
    const bl_stmt *d = fn->def;
    char here;
    if (s->calls == 0) s->stack_top = &here;
    size_t used = (size_t)(s->stack_top > &here ? s->stack_top - &here : &here - s->stack_top);
    if (s->calls >= BL_CALL_MAX || used > STACK_MAX) {
        bl_fail("%s: calls nested more than %d deep (a recursion without an end?)", d->name,
                s->calls >= BL_CALL_MAX ? BL_CALL_MAX : s->calls);
        bl_session_errat(s, a->pos);
        return NULL;
    }
    bl_value *bound[256] = { 0 };
    if (d->nparams > 256) return BL_FAILP("%s: too many parameters", d->name);
    if (bind(s, fn, a, bound) < 0) return NULL;
    bl_frame f = { .up = s->frame, .def = d };
    for (int i = 0; i < fn->cap.nvars + d->nparams; i++) {
        bl_frame *saved = s->frame;
        s->frame = &f;
        int k = i - fn->cap.nvars;
        int rc = k < 0 ? bl_session_set(s, fn->cap.names[i], fn->cap.vals[i]) : bl_session_set(s, d->params[k], bound[k]);
        s->frame = saved;
        if (rc < 0) {
            frame_free(&f);
            return NULL;
        }
    }
    const char *saved_file = s->file, *saved_src = s->src;
    int saved_line = s->src_line;
    bl_code *saved_code = s->code;
    s->frame = &f, s->calls++;
    s->file = fn->code->file, s->src = fn->code->src, s->src_line = fn->code->line, s->code = fn->code;
    /* @torch.no_grad(): the body runs as under with torch.no_grad(), the caller's mode back
     * after it however it ends (a return, an error, Ctrl-C) */
    int was = d->no_grad ? bl_ag_set_enabled(s, 0) : 0;
    int rc = bl_exec_block(s, &d->body);
    if (d->no_grad) bl_ag_set_enabled(s, was);
    bl_value *r = NULL;
    if (rc == BL_FLOW_RETURN) {
        r = s->ret;
        s->ret = NULL;
    } else if (rc >= 0 && bl_interrupted()) {
        bl_fail("interrupted");     /* the caller abandons its statement */
    } else if (rc >= 0) {
        r = bl_val_none();          /* the end of the body: returns nothing */
    }
    int err_here = s->has_errpos && s->err_code == fn->code;
    s->file = saved_file, s->src = saved_src, s->src_line = saved_line, s->code = saved_code;
    s->frame = f.up, s->calls--;
    frame_free(&f);
    if (!r && !bl_interrupted()) {
        /* the traceback: the line of this function where it failed (the error's, or the call
         * of the function that failed inside it), and where this call was */
        int line = s->trace ? s->trace_line : err_here ? s->errpos.line : 0;
        if (line) trace_add(s, "  in %s, line %d, called at %s:%d:%d\n", d->name,
                            line - d->pos.line + 1, s->file, a->pos.line, a->pos.col);
        else trace_add(s, "  in %s, called at %s:%d:%d\n", d->name, s->file, a->pos.line, a->pos.col);
        s->trace_line = a->pos.line;
        bl_session_errat(s, a->pos);
    }
    return r;
}

bl_value *bl_call(bl_session *s, bl_value *f, bl_callargs *a)
{
    if (f->kind == BL_V_FUNC) return call_func(s, f, a);
    if (!bl_callable(f)) {
        bl_fail("a %s is not a function", bl_val_kind_name(f));
        return (bl_session_errat(s, a->pos), (bl_value *)NULL);
    }
    bl_value *r = f->htype->call(f->h, a);
    bl_graph_reset(s->g);
    if (!r) return (bl_session_errat(s, a->pos), (bl_value *)NULL);
    for (int j = 0; j < a->nk; j++)
        if (!a->kused[j]) {
            bl_val_unref(r);
            bl_fail("%s: unknown keyword '%s'", a->fname, a->key[j]);
            return (bl_session_errat(s, a->kname[j]), (bl_value *)NULL);
        }
    return r;
}

bl_value *bl_call_value(bl_session *s, bl_value *f, int n, bl_value **args, bl_pos pos)
{
    if (n > 64) return BL_FAILP("too many arguments");
    bl_pos vpos[64];
    unsigned char used[1] = { 0 };
    for (int i = 0; i < n; i++) vpos[i] = pos;
    bl_callargs a = { .s = s, .fname = f->kind == BL_V_FUNC ? f->fn->def->name : bl_val_kind_name(f),
                      .pos = pos, .n = n, .v = args, .vpos = vpos, .kused = used };
    return bl_call(s, f, &a);
}

/* ---- statements ---- */
bl_value *bl_lang_func(bl_session *s, const bl_stmt *d)
{
    bl_func *fn = calloc(1, sizeof *fn);
    if (!fn || !(fn->defaults = calloc((size_t)d->nparams + 1, sizeof *fn->defaults))) {
        free(fn);
        return BL_FAILP("out of memory");
    }
    fn->def = d;
    fn->code = s->code;
    if (fn->code) fn->code->refs++;
    const bl_frame *up = s->frame;
    if (up && up->nvars && (!(fn->cap.names = calloc((size_t)up->nvars, sizeof *fn->cap.names)) ||
                            !(fn->cap.vals = calloc((size_t)up->nvars, sizeof *fn->cap.vals)))) {
        bl_func_free(fn);
        return BL_FAILP("out of memory");
    }
    for (int i = 0; up && i < up->nvars; i++, fn->cap.nvars++)
        if (!(fn->cap.names[i] = strdup(up->names[i]))) {
            bl_func_free(fn);
            return BL_FAILP("out of memory");
        } else {
            fn->cap.vals[i] = bl_val_ref(up->vals[i]);
        }
    for (int i = 0; i < d->nparams; i++)   /* defaults are evaluated once, by def (as Python) */
        if (d->defaults[i] && !(fn->defaults[i] = bl_eval(s, d->defaults[i]))) {
            bl_func_free(fn);
            return NULL;
        }
    return bl_val_func(fn);
}

static int def_stmt(bl_session *s, const bl_stmt *st)
{
    bl_value *v = bl_lang_func(s, st);
    if (!v) return -1;
    int rc = bl_session_set(s, st->name, v);
    bl_val_unref(v);
    return rc;
}

int bl_truth(const bl_value *v, const char *what)
{
    switch (v->kind) {
    case BL_V_BOOL: case BL_V_NUM: return v->num != 0;     /* nan is true, as Python's */
    case BL_V_NONE: return 0;
    case BL_V_STR: return v->str[0] != 0;
    case BL_V_LIST: case BL_V_DICT: return v->n > 0;
    case BL_V_FUNC: return 1;
    case BL_V_TENSOR:
        if (v->t->numel == 1) return v->t->data[0] != 0;
        return bl_fail("%s: Boolean value of Tensor with %s is ambiguous (reduce it first: max(x) > 0, "
                       "allclose(a, b))", what, v->t->numel ? "more than one value" : "no values");
    default:
        return bl_fail("%s: the condition is a %s, not true/false, a number, a string, a list or a "
                       "one-element tensor", what, bl_val_kind_name(v));
    }
}

int bl_cond_truth(bl_session *s, const bl_ast *e, const char *what)
{
    bl_value *v = bl_eval(s, e);
    if (!v) return -1;
    int t = bl_truth(v, what);
    if (t < 0) bl_session_errat(s, e->pos);
    bl_val_unref(v);
    return t;
}

bl_value *bl_lang_item(const bl_value *v, int i)
{
    if (v->kind == BL_V_LIST) return bl_val_ref(v->items[i]);
    if (v->kind == BL_V_DICT) return bl_val_ref(v->keys[i]);    /* for k in d: its keys */
    const bl_tensor *t = v->t;
    if (t->ndim == 1) return bl_val_num(t->data[i]);
    bl_tensor *r = bl_tensor_new(t->ndim - 1, t->shape + 1);
    if (!r) return NULL;
    memcpy(r->data, t->data + (size_t)i * r->numel, r->numel * sizeof *r->data);
    return bl_val_tensor(r);
}

/* The names of pattern and the items of v they take, into names and got (*k of them so far). */
static int match(bl_session *s, const bl_ast *pat, const bl_value *v, const char **names, bl_value **got, int *k)
{
    int n = v->kind == BL_V_LIST ? v->n : v->kind == BL_V_TENSOR && v->t->ndim > 0 ? v->t->shape[0] : -1;
    if (n < 0) {
        bl_fail("ValueError: cannot unpack a %s into %d names (a list or a tensor's rows)",
                v->kind == BL_V_TENSOR ? "0-D tensor" : bl_val_kind_name(v), pat->n);
        return bl_session_errat(s, pat->pos);
    }
    if (n != pat->n) {
        if (n > pat->n) bl_fail("ValueError: too many values to unpack (expected %d, got %d)", pat->n, n);
        else bl_fail("ValueError: not enough values to unpack (expected %d, got %d)", pat->n, n);
        return bl_session_errat(s, pat->pos);
    }
    for (int i = 0; i < n; i++) {
        if (*k == 256) return bl_fail("too many names to unpack into");
        bl_value *x = bl_lang_item(v, i);
        if (!x) return bl_session_errat(s, pat->pos);
        if (pat->items[i]->kind == BL_N_NAME) {
            names[*k] = pat->items[i]->str, got[(*k)++] = x;
            continue;
        }
        int rc = match(s, pat->items[i], x, names, got, k);
        bl_val_unref(x);
        if (rc < 0) return -1;
    }
    return 0;
}

int bl_lang_unpack(bl_session *s, const bl_ast *pattern, const bl_value *v)
{
    const char *names[256];
    bl_value *got[256];
    int k = 0, rc = match(s, pattern, v, names, got, &k);
    /* every item first: a failure binds none of the names */
    for (int i = 0; i < k; i++) {
        if (rc == 0) rc = bl_session_set(s, names[i], got[i]);
        bl_val_unref(got[i]);
    }
    return rc < 0 && !s->has_errpos ? bl_session_errat(s, pattern->pos) : rc;
}

/* What a for loop (or a comprehension: what) runs over: e's value and its number of items in
 * *n; NULL + error at e for a value that has no items. */
static bl_value *iterable(bl_session *s, const bl_ast *e, const char *what, int *n)
{
    bl_value *over = bl_eval(s, e);
    if (!over) return NULL;
    *n = over->kind == BL_V_LIST || over->kind == BL_V_DICT ? over->n : over->kind == BL_V_TENSOR ? over->t->shape[0] : -1;
    if (*n < 0) {
        bl_fail("%s: cannot loop over a %s (a list, range(n), a dict's keys or a tensor, by its first dimension)", what,
                bl_val_kind_name(over));
        bl_val_unref(over);
        bl_session_errat(s, e->pos);
        return NULL;
    }
    return over;
}

/* How block b (and the blocks in it, not the functions it defines) binds name: 2 when a `global`
 * names it, else 1 when it assigns it (name = v, for name in, def name), else 0. */
static int binds(const bl_block *b, const char *name)
{
    int r = 0;
    for (int i = 0; i < b->n && r < 2; i++) {
        const bl_stmt *st = &b->s[i];
        if (st->kind == BL_S_GLOBAL) {
            for (int k = 0; k < st->nparams; k++)
                if (!strcmp(st->params[k], name)) return 2;
            continue;
        }
        if ((st->kind == BL_S_ASSIGN && !st->target) || st->kind == BL_S_FOR || st->kind == BL_S_DEF)
            if (st->name && !strcmp(st->name, name)) r = 1;
        for (int k = 0; (st->kind == BL_S_ASSIGN || st->kind == BL_S_FOR) && k < st->nparams; k++)
            if (!strcmp(st->params[k], name)) r = 1;      /* a, b = ...; for i, x in ... */
        if (st->kind == BL_S_DEF) continue;
        int in = binds(&st->body, name);
        if (in > r) r = in;
        if (r < 2 && (in = binds(&st->orelse, name)) > r) r = in;
    }
    return r;
}

int bl_lang_unbound_local(bl_session *s, const char *name)
{
    bl_frame *f = s->frame;
    if (!f || !f->def) return 0;
    for (int i = 0; i < f->nvars; i++)
        if (!strcmp(f->names[i], name)) return 0;
    for (int i = 0; i < f->nglobal; i++)
        if (!strcmp(f->global[i], name)) return 0;
    if (binds(&f->def->body, name) != 1) return 0;
    bl_fail("local variable '%s' is read before it is assigned in %s (write `global %s` to change the global)",
            name, f->def->name, name);
    return 1;
}

/* The value name holds in the scope an assignment binds it in (borrowed), or NULL. */
static bl_value *bound_here(bl_session *s, const char *name)
{
    bl_frame *f = s->frame;
    int global = 0;
    for (int i = 0; f && i < f->nglobal; i++) global |= !strcmp(f->global[i], name);
    int n = f && !global ? f->nvars : s->nvars;
    char **names = f && !global ? f->names : s->names;
    bl_value **vals = f && !global ? f->vals : s->vals;
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return vals[i];
    return NULL;
}

bl_value *bl_lang_comprehension(bl_session *s, const bl_ast *e)
{
    int n;
    bl_value *over = iterable(s, e->b, "list comprehension", &n);
    if (!over) return NULL;
    /* the names it binds: one (str), or those an item is unpacked into (keys) */
    const char *const one[1] = { e->str };
    const char *const *names = e->n ? e->keys : one;
    int nn = e->n ? e->n : 1;
    bl_value *saved[256];       /* each name's value before it (NULL: none) */
    if (nn > 256) return BL_FAILP("list comprehension: too many names");
    for (int j = 0; j < nn; j++) saved[j] = bl_val_ref(bound_here(s, names[j]));
    bl_value **got = calloc((size_t)n + 1, sizeof *got);
    int k = 0, ok = got != NULL;
    if (!got) bl_fail("out of memory");
    for (int i = 0; ok && i < n; i++) {
        if (bl_interrupted()) { ok = 0; bl_fail("interrupted"); break; }
        bl_value *x = bl_lang_item(over, i);
        ok = x && (e->pattern ? bl_lang_unpack(s, e->pattern, x) : bl_session_set(s, e->str, x)) == 0;
        bl_val_unref(x);
        int t = !ok ? -1 : e->c ? bl_cond_truth(s, e->c, "if") : 1;
        if (t < 0) { ok = 0; break; }
        if (t && !(got[k++] = bl_eval(s, e->a))) ok = 0;
    }
    /* the variables are the comprehension's own: the names are as they were before */
    for (int j = 0; j < nn; j++) {
        if (saved[j]) bl_session_set(s, names[j], saved[j]);
        else if (bound_here(s, names[j])) bl_session_del(s, names[j]);
        bl_val_unref(saved[j]);
    }
    bl_val_unref(over);
    bl_value *l = ok ? bl_val_list(k) : NULL;
    for (int i = 0; i < k; i++) {
        if (l && bl_val_list_set(l, i, got[i]) < 0) {
            bl_val_unref(l);
            l = NULL;
        } else if (!l) {
            bl_val_unref(got[i]);
        }
    }
    free(got);
    if (!l && !s->has_errpos) bl_session_errat(s, e->pos);
    return l;
}

static int for_stmt(bl_session *s, const bl_stmt *st)
{
    int n;
    bl_value *over = iterable(s, st->expr, "for", &n);
    if (!over) return -1;
    int rc = 0;
    for (int i = 0; i < n && !bl_interrupted(); i++) {
        bl_value *x = bl_lang_item(over, i);
        if (!x || (st->pattern ? bl_lang_unpack(s, st->pattern, x) : bl_session_set(s, st->name, x)) < 0) {
            bl_val_unref(x);
            rc = bl_session_errat(s, st->pos);
            break;
        }
        bl_val_unref(x);
        rc = bl_exec_block(s, &st->body);
        if (rc == BL_FLOW_BREAK) { rc = 0; break; }
        if (rc == BL_FLOW_CONTINUE) rc = 0;
        if (rc != 0) break;
    }
    bl_val_unref(over);
    return rc;
}

static int while_stmt(bl_session *s, const bl_stmt *st)
{
    while (!bl_interrupted()) {
        int t = bl_cond_truth(s, st->expr, "while");
        if (t <= 0) return t;
        int rc = bl_exec_block(s, &st->body);
        if (rc == BL_FLOW_BREAK) return 0;
        if (rc != 0 && rc != BL_FLOW_CONTINUE) return rc;
    }
    return 0;
}

int bl_lang_stmt(bl_session *s, const bl_stmt *st)
{
    switch (st->kind) {
    case BL_S_DEF: return def_stmt(s, st);
    case BL_S_FOR: return for_stmt(s, st);
    case BL_S_WHILE: return while_stmt(s, st);
    case BL_S_IF: {
        int t = bl_cond_truth(s, st->expr, "if");
        return t < 0 ? -1 : bl_exec_block(s, t ? &st->body : &st->orelse);
    }
    case BL_S_RETURN:
        bl_val_unref(s->ret);
        s->ret = st->expr ? bl_eval(s, st->expr) : bl_val_none();
        return s->ret ? BL_FLOW_RETURN : -1;
    case BL_S_PASS: return 0;
    case BL_S_WITH: {       /* with torch.no_grad(): as the no_grad command, for a block */
        int was = bl_ag_set_enabled(s, 0);
        int rc = bl_exec_block(s, &st->body);
        bl_ag_set_enabled(s, was);
        return rc;
    }
    case BL_S_IMPORT:
        for (int i = 0; i < st->nparams; i++)
            if (bl_module_import(st->params[i], st->as[i]) < 0) return bl_session_errat(s, st->ppos[i]);
        return 0;
    case BL_S_ASSERT: {
        int t = bl_cond_truth(s, st->expr, "assert");
        if (t != 0) return t < 0 ? -1 : 0;
        bl_value *m = st->msg ? bl_eval(s, st->msg) : NULL;
        if (st->msg && !m) return -1;
        char text[512] = "";
        if (m && m->kind == BL_V_STR) snprintf(text, sizeof text, ": %s", m->str);
        else if (m) {
            char *buf = NULL;
            size_t n = 0;
            FILE *f = open_memstream(&buf, &n);
            if (f) {
                bl_val_print_inline(m, f);
                fclose(f);
            }
            snprintf(text, sizeof text, ": %s", buf ? buf : "");
            free(buf);
        } else if (st->text) {      /* no message: the condition, as written */
            const char *c = st->text + strlen("assert");
            c += strspn(c, " \t");
            int len = (int)strcspn(c, "#\n");
            while (len > 0 && (c[len - 1] == ' ' || c[len - 1] == ';')) len--;
            snprintf(text, sizeof text, " (%.*s is false)", len, c);
        }
        bl_val_unref(m);
        bl_fail("AssertionError%s", text);
        return bl_session_errat(s, st->pos);
    }
    case BL_S_BREAK: return BL_FLOW_BREAK;
    case BL_S_CONTINUE: return BL_FLOW_CONTINUE;
    case BL_S_GLOBAL: {
        bl_frame *f = s->frame;
        if (!f) return 0;
        for (int i = 0; i < st->nparams; i++) {
            int known = 0;
            for (int j = 0; j < f->nglobal; j++) known |= !strcmp(f->global[j], st->params[i]);
            for (int j = 0; j < f->nvars; j++)
                if (!strcmp(f->names[j], st->params[i])) {
                    bl_fail("global: '%s' is a local variable of this function already (declare it "
                            "global before it is assigned)", st->params[i]);
                    return bl_session_errat(s, st->pos);
                }
            if (known) continue;
            char **g = realloc(f->global, (size_t)(f->nglobal + 1) * sizeof *g);
            if (!g) return bl_fail("out of memory");
            f->global = g;
            if (!(g[f->nglobal] = strdup(st->params[i]))) return bl_fail("out of memory");
            f->nglobal++;
        }
        return 0;
    }
    default:
        return bl_exec_stmt(s, st);
    }
}

int bl_exec_block(bl_session *s, const bl_block *b)
{
    for (int i = 0; i < b->n && !s->quit; i++) {
        if (bl_interrupted()) return 0;
        int rc = bl_exec_stmt(s, &b->s[i]);
        if (rc != 0) return rc;
    }
    return 0;
}

/* ---- t.add(col=value, ...): a table grows by a row ---- */
/* One cell: a number as the prompt writes it, a string, a bool; a 1-element tensor's number. */
static int cell(const bl_value *v, char *buf, size_t n)
{
    if (v->kind == BL_V_NUM) bl_fmt_num(v->num, buf, n);
    else if (v->kind == BL_V_BOOL) snprintf(buf, n, "%s", v->num ? "true" : "false");
    else if (v->kind == BL_V_STR) snprintf(buf, n, "%s", v->str);
    else if (v->kind == BL_V_TENSOR && v->t->numel == 1) bl_fmt_num(v->t->data[0], buf, n);
    else return -1;
    return 0;
}

/* The table held by variable `name` with one more row: the variable's own table when nothing
 * else holds it, else a copy (values stay immutable: u = t; t.add(...) leaves u as it was). The
 * first add of an empty table() makes its columns; later ones give the same columns. */
static int table_add(bl_session *s, const bl_ast *e, bl_callargs *a)
{
    const char *name = e->a->str;
    bl_value *tv = bl_session_get(s, name);
    bl_table *t = tv->tab;
    if (a->nk == 0) {
        bl_fail("add: give the row as column=value, e.g. t.add(scale=4, top=0.5)");
        return bl_session_errat(s, e->pos);
    }
    if (t->ncol && a->nk != t->ncol) {
        bl_fail("add: the table has %d column%s, the row %d", t->ncol, BL_PLURAL(t->ncol), a->nk);
        return bl_session_errat(s, e->pos);
    }
    char cells[64][128];
    const char *cp[64];
    for (int j = 0; j < a->nk; j++) {
        int c = j;
        if (t->ncol) {
            for (c = 0; c < t->ncol && strcmp(t->cols[c], a->key[j]); c++) {}
            if (c == t->ncol) {
                bl_fail("add: the table has no column '%s' (its columns are set by the first row)", a->key[j]);
                return bl_session_errat(s, a->kname[j]);
            }
        }
        if (cell(a->kv[j], cells[c], sizeof cells[c]) < 0) {
            bl_fail("add: column '%s' takes a number, string or bool, not a %s", a->key[j],
                    bl_val_kind_name(a->kv[j]));
            return bl_session_errat(s, a->kpos[j]);
        }
        cp[c] = cells[c];
    }
    bl_table *nt = t;
    if (tv->refs > 1 || !t->ncol) {    /* shared, or gets its columns: a new table */
        nt = bl_table_new(t->ncol ? t->ncol : a->nk, t->ncol ? (const char *const *)t->cols : a->key);
        for (int r = 0; nt && r < t->nrow; r++)
            if (bl_table_add(nt, (const char *const *)t->cells + (size_t)r * t->ncol) < 0) {
                bl_table_free(nt);
                nt = NULL;
            }
        if (nt && t->title && !(nt->title = strdup(t->title))) {
            bl_table_free(nt);
            nt = NULL;
        }
        if (!nt) return bl_session_errat(s, e->pos);
    }
    if (bl_table_add(nt, cp) < 0) {
        if (nt != t) bl_table_free(nt);
        return bl_session_errat(s, e->pos);
    }
    if (nt != t) {
        bl_value *nv = bl_val_table(nt);
        int rc = nv ? bl_session_rebind(s, name, nv) : -1;   /* a global table stays global */
        bl_val_unref(nv);
        if (rc < 0) return bl_session_errat(s, e->pos);
    }
    return 0;
}

/* x.f(args) as PyTorch's tensor methods: the function f(x, args) (x.sum(dim=1), loss.backward(),
 * x.requires_grad_()), a few under torch's other names (view, t, requires_grad_); x.item() and
 * x.numel() read the field. NULL when f is no function (*handled = 0); else the call's value. */
/* x.float() / .double() (x itself: blocklab's tensors are float32), x.long() / .int() (rounded
 * toward zero, as torch's conversion; no gradient) and x.bool() (x != 0, torch's bools) on a
 * tensor or a number, as torch.Tensor's conversions: float(x) is Python's and wants one element. */
static bl_value *dtype_method(bl_session *s, const bl_ast *e, const char *name)
{
    bl_value *x = bl_eval(s, e->a), *r = NULL;
    if (!x) return NULL;
    int to_int = name[0] == 'l' || name[0] == 'i', to_bool = name[0] == 'b';
    if (x->kind == BL_V_NUM || x->kind == BL_V_BOOL) {
        r = to_bool ? bl_val_bool(x->num != 0) : bl_val_num(to_int ? trunc(x->num) : x->num);
    } else if (x->kind != BL_V_TENSOR) {
        bl_fail("'.%s()': needs a tensor or a number, got a %s", name, bl_val_kind_name(x));
        bl_session_errat(s, e->pos);
    } else if (!to_int && !to_bool) {
        /* x itself (float32 already), a copy without the mask mark of a bool tensor (its dtype
         * becomes torch.float32, and it no longer selects as a mask) */
        r = x->is_mask ? bl_val_tensor(bl_tensor_copy(x->t)) : bl_val_ref(x);
    } else {
        bl_tensor *t = bl_tensor_copy(x->t);
        for (size_t i = 0; t && i < t->numel; i++) t->data[i] = to_bool ? t->data[i] != 0 : truncf(t->data[i]);
        r = bl_val_tensor(t);
        if (r && r->kind == BL_V_TENSOR) r->is_mask = to_bool;
    }
    bl_val_unref(x);
    return r;
}

/* xs.append(v) on a variable holding a list: xs becomes the longer list (values are shared, not
 * changed: a list another name holds keeps its items), as losses.append(loss.item()) in a
 * notebook's loop. None. */
static bl_value *list_append(bl_session *s, const bl_ast *e)
{
    bl_value *l = bl_session_get(s, e->a->str);
    if (!l || l->kind != BL_V_LIST) {
        if (l) bl_fail("'.append(...)': %s is a %s, not a list", e->a->str, bl_val_kind_name(l));
        else bl_fail("unknown name '%s'", e->a->str);
        return (bl_session_errat(s, e->a->pos), (bl_value *)NULL);
    }
    bl_value *v = bl_eval(s, e->items[0]);
    if (!v) return NULL;
    if (l->refs == 1) {     /* no other name or value holds the list: grow it where it is */
        bl_value **items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
        if (!items) {
            bl_val_unref(v);
            bl_fail("out of memory");
            return (bl_session_errat(s, e->pos), (bl_value *)NULL);
        }
        l->items = items;
        items[l->n++] = NULL;
        if (bl_val_list_set(l, l->n - 1, v) < 0) {
            l->n--;
            return (bl_session_errat(s, e->pos), (bl_value *)NULL);
        }
        return bl_val_none();
    }
    bl_value *n = bl_val_list(l->n + 1);
    for (int i = 0; n && i < l->n; i++)
        if (bl_val_list_set(n, i, bl_val_ref(l->items[i])) < 0) bl_val_unref(n), n = NULL;
    if (!n) bl_val_unref(v);
    if (!n || bl_val_list_set(n, l->n, v) < 0) {
        bl_val_unref(n);
        return (bl_session_errat(s, e->pos), (bl_value *)NULL);
    }
    int rc = bl_session_rebind(s, e->a->str, n);   /* a global list appended to in a function stays global */
    bl_val_unref(n);
    return rc < 0 ? NULL : bl_val_none();
}

/* m.train() / m.eval() (m.train(False) is m.eval()): a model's mode, PyTorch's (modellab.h). */
static bl_value *model_mode(bl_session *s, const bl_ast *e, int train)
{
    bl_value *m = bl_eval(s, e->a), *on = NULL, *r = NULL;
    if (!m) return NULL;
    if (!bl_lab_is_model(m)) {
        bl_fail("'.%s()' is a model's method (m.train() / m.eval() turn its dropout on or off), not a %s's%s",
                e->str, bl_val_kind_name(m), train ? "; the train command trains: train m 100" : "");
    } else if (e->n == 1 && (e->keys && e->keys[0] && strcmp(e->keys[0], "mode"))) {
        bl_fail("m.train() takes one argument, mode (True or False)");
    } else if (e->n == 1 && !train) {
        bl_fail("m.eval() takes no arguments");
    } else if (e->n == 1 && (on = bl_eval(s, e->items[0])) && on->kind != BL_V_BOOL) {
        bl_fail("m.train(mode): mode must be True or False, got a %s", bl_val_kind_name(on));
    } else if (e->n == 0 || on) {
        r = bl_lab_set_mode(m, on ? on->num != 0 : train);
    }
    bl_val_unref(on);
    bl_val_unref(m);
    if (!r && !s->has_errpos) bl_session_errat(s, e->pos);
    return r;
}

/* x.add_(y, alpha=1), sub_, mul_, div_, copy_(src), fill_(v), zero_(): torch's in-place ops on
 * the variable x (bl_store_in_place: a model's parameter changes the model, a leaf that requires
 * grad only under no_grad); x.grad.zero_() zeroes x's gradient. x's new value, or NULL + error. */
static const struct { const char *name; int op, nargs; } inplace_ops[] = {
    { "add_", BL_T_PLUS, 1 }, { "sub_", BL_T_MINUS, 1 }, { "mul_", BL_T_STAR, 1 }, { "div_", BL_T_SLASH, 1 },
    { "copy_", BL_T_PLUS, 1 }, { "fill_", BL_T_PLUS, 1 }, { "zero_", BL_T_PLUS, 0 },
};

/* The variable a chain of in-place calls changes (x of x.mul_(a).add_(b)), or NULL. */
static const bl_ast *inplace_root(const bl_ast *t)
{
    for (; t->kind == BL_N_METHOD; t = t->a) {
        int ok = 0;
        for (size_t k = 0; k < sizeof inplace_ops / sizeof *inplace_ops; k++) ok |= !strcmp(t->str, inplace_ops[k].name);
        if (!ok) return NULL;
    }
    return t->kind == BL_N_NAME ? t : NULL;
}

static bl_value *inplace_method(bl_session *s, const bl_ast *e, int k)
{
    const char *name = inplace_ops[k].name;
    int alpha_ok = k < 2, nk = 0;
    for (int i = 0; i < e->n; i++) nk += e->keys && e->keys[i];
    if (e->n - nk != inplace_ops[k].nargs || nk > alpha_ok || (nk && strcmp(e->keys[e->n - 1], "alpha"))) {
        bl_fail("x.%s(%s) takes %s", name, inplace_ops[k].nargs ? "v" : "",
                k < 2 ? "one tensor or number, and alpha=" : inplace_ops[k].nargs ? "one tensor or number" : "no arguments");
        return BL_ERRAT(s, e->pos);
    }
    const bl_ast *t = e->a;
    if (k == 6 && t->kind == BL_N_FIELD && !strcmp(t->str, "grad") && t->a->kind == BL_N_NAME) {
        bl_value *x = bl_session_get(s, t->a->str);     /* x.grad.zero_(): zero_grad(x), zeros kept */
        if (x && x->kind == BL_V_TENSOR && x->param) bl_lab_param_zero_grad(x);
        else if (x && x->kind == BL_V_TENSOR && x->grad) memset(x->grad->data, 0, x->grad->numel * sizeof(float));
        else if (x && x->kind == BL_V_TENSOR) return bl_val_none();  /* torch: None has no zero_ */
        else {
            bl_fail(x ? "x.grad.zero_(): a %s has no .grad" : "unknown name '%s'", x ? bl_val_kind_name(x) : t->a->str);
            return BL_ERRAT(s, t->a->pos);
        }
        return bl_val_none();
    }
    if (t->kind == BL_N_METHOD && inplace_root(t)) {     /* x.mul_(a).add_(b): the first, then on x */
        bl_value *r = bl_eval(s, t);
        if (!r) return NULL;
        bl_val_unref(r);
        t = inplace_root(t);
    }
    if (t->kind != BL_N_NAME) {
        bl_fail("x.%s(...) changes a variable in place: call it on a name (x.%s(...)), or write y = ...", name, name);
        return BL_ERRAT(s, e->pos);
    }
    bl_value *x = bl_session_get(s, t->str);
    if (!x || x->kind != BL_V_TENSOR) {
        if (x) bl_fail("x.%s(...) is a tensor's method, not a %s's (x = x + y changes a number)", name, bl_val_kind_name(x));
        else bl_fail("unknown name '%s'", t->str);
        return BL_ERRAT(s, t->pos);
    }
    bl_value *y = inplace_ops[k].nargs ? bl_eval(s, e->items[0]) : NULL, *a = NULL, *v = NULL;
    if (inplace_ops[k].nargs && !y) return NULL;
    if (nk && !(a = bl_eval(s, e->items[e->n - 1]))) {
        bl_val_unref(y);
        return NULL;
    }
    x = bl_session_get(s, t->str);      /* the arguments may have rebound it */
    if (!x || x->kind != BL_V_TENSOR) {
        bl_fail("'%s' no longer holds a tensor", t->str);
        bl_val_unref(y), bl_val_unref(a);
        return BL_ERRAT(s, t->pos);
    }
    if (k >= 4) {   /* copy_, fill_, zero_: zeros of x's shape (+ v: broadcast to it) */
        bl_value *z = bl_val_tensor(bl_tensor_new(x->t->ndim, x->t->shape));
        v = z && y ? bl_binop_values(s, BL_T_PLUS, e->pos, z, y) : bl_val_ref(z);
        if (z && y && !v) bl_error_prefix("x.%s(src) broadcasts src to x's shape", name);
        bl_val_unref(z);
    } else {
        bl_value *ya = a ? bl_binop_values(s, BL_T_STAR, e->pos, a, y) : bl_val_ref(y);
        v = ya ? bl_binop_values(s, inplace_ops[k].op, e->pos, x, ya) : NULL;
        bl_val_unref(ya);
    }
    bl_val_unref(y);
    bl_val_unref(a);
    if (v && v->kind == BL_V_TENSOR &&
        (v->t->ndim != x->t->ndim || memcmp(v->t->shape, x->t->shape, sizeof(int) * (size_t)x->t->ndim))) {
        char s1[64], s2[64];      /* torch: output with shape [3] doesn't match the broadcast shape [2, 3] */
        bl_fail("x.%s(...): x's shape %s does not match the broadcast shape %s (an in-place op keeps x's shape)",
                name, bl_shape_str(x->t, s1, sizeof s1), bl_shape_str(v->t, s2, sizeof s2));
        bl_val_unref(v);
        return BL_ERRAT(s, e->pos);
    }
    int rc = v ? bl_store_in_place(s, t->str, x, v, e->pos) : -1;
    bl_val_unref(v);
    if (rc < 0) return s->has_errpos ? NULL : BL_ERRAT(s, e->pos);
    bl_value *r = bl_session_get(s, t->str);
    return r ? bl_val_ref(r) : bl_val_none();
}

static bl_value *method_as_call(bl_session *s, const bl_ast *e, int *handled)
{
    static const struct { const char *torch, *name; } alias[] = {
        { "view", "reshape" }, { "t", "transpose" }, { "requires_grad_", "requires_grad" },
        { "pow", "pow" }, { "zero_grad", "zero_grad" },
    };
    const char *name = e->str;
    for (size_t i = 0; i < sizeof alias / sizeof *alias; i++)
        if (!strcmp(name, alias[i].torch)) name = alias[i].name;
    *handled = 1;
    if (e->n == 0 && (!strcmp(name, "float") || !strcmp(name, "double") || !strcmp(name, "long") ||
                      !strcmp(name, "int") || !strcmp(name, "bool")))
        return dtype_method(s, e, name);
    if (!strcmp(name, "append") && e->n == 1 && !(e->keys && e->keys[0]) && e->a->kind == BL_N_NAME)
        return list_append(s, e);
    if ((!strcmp(name, "item") || !strcmp(name, "numel")) && e->n == 0) {
        bl_ast f = *e;
        f.kind = BL_N_FIELD;
        return bl_eval(s, &f);
    }
    if ((!strcmp(name, "train") || !strcmp(name, "eval")) && e->n <= 1)
        return model_mode(s, e, name[0] == 't');
    for (int k = 0; k < (int)(sizeof inplace_ops / sizeof *inplace_ops); k++)
        if (!strcmp(name, inplace_ops[k].name)) return inplace_method(s, e, k);
    if (!bl_function_find(name)) return (*handled = 0, (bl_value *)NULL);
    int n = e->n + 1;
    bl_ast **items = malloc((size_t)n * sizeof *items);
    const char **keys = calloc((size_t)n, sizeof *keys);
    bl_pos *keypos = calloc((size_t)n, sizeof *keypos);
    bl_value *r = NULL;
    if (items && keys && keypos) {
        items[0] = e->a;
        for (int i = 0; i < e->n; i++) {
            items[i + 1] = e->items[i];
            keys[i + 1] = e->keys ? e->keys[i] : NULL;
            if (e->keypos) keypos[i + 1] = e->keypos[i];
        }
        bl_ast c = *e;
        c.kind = BL_N_CALL, c.str = name, c.n = n, c.items = items, c.keys = keys, c.keypos = keypos, c.a = NULL;
        c.num = 1;      /* x.norm() is the tensor's, even beside a def norm */
        r = bl_eval(s, &c);
    } else {
        bl_fail("out of memory");
        bl_session_errat(s, e->pos);
    }
    free(items);
    free(keys);
    free(keypos);
    return r;
}

/* d.keys(), d.values(), d.items() (lists: of the keys, the values, [key, value] pairs, in the
 * dict's order) and d.get(key, default=None), as Python's. */
static bl_value *dict_method(bl_session *s, const bl_ast *e, const bl_value *d)
{
    int get = !strcmp(e->str, "get"), which = !strcmp(e->str, "keys") ? 0 : !strcmp(e->str, "values") ? 1
                                            : !strcmp(e->str, "items") ? 2 : -1;
    if ((which < 0 && !get) || (get ? e->n < 1 || e->n > 2 : e->n != 0) || (e->n && (e->keys[0] || e->keys[e->n - 1]))) {
        bl_fail("a dict's methods: d.keys(), d.values(), d.items(), d.get(key, default)");
        return (bl_session_errat(s, e->pos), (bl_value *)NULL);
    }
    if (get) {
        bl_value *k = bl_eval(s, e->items[0]);
        int at = k ? bl_val_dict_find(d, k) : -1;
        bl_val_unref(k);
        if (!k) return NULL;
        return at >= 0 ? bl_val_ref(d->items[at]) : e->n == 2 ? bl_eval(s, e->items[1]) : bl_val_none();
    }
    bl_value *l = bl_val_list(d->n);
    for (int i = 0; l && i < d->n; i++) {
        bl_value *x = which == 0 ? bl_val_ref(d->keys[i]) : which == 1 ? bl_val_ref(d->items[i]) : bl_val_list(2);
        if (which == 2 && x && (bl_val_list_set(x, 0, bl_val_ref(d->keys[i])) < 0 ||
                                bl_val_list_set(x, 1, bl_val_ref(d->items[i])) < 0))
            bl_val_unref(x), x = NULL;
        if (bl_val_list_set(l, i, x) < 0) bl_val_unref(l), l = NULL;
    }
    return l;
}

bl_value *bl_method(bl_session *s, const bl_ast *e)
{
    if (bl_module_of(s, e->a)) return bl_module_call(s, e);    /* torch.randn(3), F.softmax(x) */
    if (!strcmp(e->str, "keys") || !strcmp(e->str, "values") || !strcmp(e->str, "items") || !strcmp(e->str, "get")) {
        bl_value *d = bl_eval(s, e->a), *r = NULL;
        if (d && d->kind == BL_V_DICT) r = dict_method(s, e, d);
        else if (d) bl_fail("'.%s()' is a dict's method, not a %s's", e->str, bl_val_kind_name(d));
        if (d && !r && !s->has_errpos) bl_session_errat(s, e->pos);
        bl_val_unref(d);
        return r;
    }
    bl_value *tv = e->a->kind == BL_N_NAME ? bl_session_get(s, e->a->str) : NULL;
    if (!tv || tv->kind != BL_V_TABLE || strcmp(e->str, "add")) {
        int handled = 0;
        bl_value *r = tv && tv->kind == BL_V_TABLE ? NULL : method_as_call(s, e, &handled);
        if (handled) return r;
        if (tv && tv->kind == BL_V_TABLE) bl_fail("a table has one method, add (t.add(col=value, ...))");
        else if (!strcmp(e->str, "add")) bl_fail("add: call it on a variable holding a table: t = table(); t.add(col=value)");
        else if (!strcmp(e->str, "append"))   /* append of no variable */
            bl_fail("'.%s(...)': values do not change in place here: %s", e->str, "xs = xs + [v] makes the longer list");
        else bl_fail("'.%s(...)': no function %s(x, ...) (help functions lists them; x.f(...) calls f(x, ...))",
                     e->str, e->str);
        return (bl_session_errat(s, e->pos), (bl_value *)NULL);
    }
    bl_value *vals[64];
    bl_pos kpos[64], kname[64];
    const char *keys[64];
    if (e->n > 64) return BL_FAILP("add: too many columns");
    bl_callargs a = { .s = s, .fname = "add", .pos = e->pos, .v = vals, .key = keys, .kv = vals,
                      .kpos = kpos, .kname = kname };
    int rc = 0;
    for (int i = 0; i < e->n && rc == 0; i++) {
        for (int j = 0; e->keys[i] && j < a.nk; j++)
            if (!strcmp(keys[j], e->keys[i])) {
                bl_fail("add: column '%s' given twice", e->keys[i]);
                rc = bl_session_errat(s, e->keypos[i]);
            }
        bl_value *v = rc ? NULL : bl_eval(s, e->items[i]);
        if (!v) { rc = -1; break; }
        if (!e->keys[i]) {      /* a row is column=value only */
            bl_val_unref(v);
            bl_fail("add: give the row as column=value, e.g. t.add(scale=4, top=0.5)");
            rc = bl_session_errat(s, e->items[i]->pos);
            break;
        }
        keys[a.nk] = e->keys[i], kname[a.nk] = e->keypos[i], kpos[a.nk] = e->items[i]->pos;
        vals[a.nk++] = v;
    }
    /* the arguments may have reassigned the name: look again */
    tv = bl_session_get(s, e->a->str);
    if (rc == 0 && (!tv || tv->kind != BL_V_TABLE)) {
        bl_fail("add: '%s' no longer holds a table", e->a->str);
        rc = bl_session_errat(s, e->pos);
    }
    if (rc == 0) rc = table_add(s, e, &a);
    for (int i = 0; i < a.nk; i++) bl_val_unref(vals[i]);
    return rc < 0 ? NULL : bl_val_none();
}
