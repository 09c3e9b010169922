/* parser.c - recursive-descent parser of the blocklab language (grammar in parser.h). */
#include "repl/parser.h"
#include "core/error.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- arena: every node, string and array of one program ---- */
struct bl_arena {
    struct bl_arena *next;
    size_t used, cap;
    max_align_t data[];
};

static void *aalloc(bl_arena **ap, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    bl_arena *a = *ap;
    if (!a || a->used + n > a->cap) {
        size_t cap = n > 8192 ? n : 8192;
        bl_arena *b = malloc(sizeof *b + cap);
        if (!b) return BL_FAILP("parser: out of memory");
        b->next = a, b->used = 0, b->cap = cap;
        *ap = a = b;
    }
    void *p = (char *)a->data + a->used;
    a->used += n;
    memset(p, 0, n);
    return p;
}

static char *astrndup(bl_arena **ap, const char *s, size_t n)
{
    char *d = aalloc(ap, n + 1);
    if (d) memcpy(d, s, n), d[n] = '\0';
    return d;
}

void bl_program_free(bl_program *prog)
{
    bl_arena *a = prog->arena;
    while (a) {
        bl_arena *next = a->next;
        free(a);
        a = next;
    }
    memset(prog, 0, sizeof *prog);
}

/* ---- parser state ---- */
typedef struct {
    const char *src;
    bl_tokens ts;
    int i;
    bl_arena **arena;
    bl_pos *errpos;
    bl_is_command_fn is_cmd;
    int depth;          /* nesting of brackets, unary operators and blocks, bounded so no input
                         * can exhaust the stack */
    int loops, defs;    /* inside how many loops (of the innermost function) and functions */
    int inline_if;      /* inside a one-line if's body, which ends at `else` or `elif` too */
    int min_ind;        /* the indentation of the innermost indented block's lines (Python's
                         * form), -1 outside one: a line indented less ends every block in it */
    int line0, ind0;    /* the source's first line and its indentation: a statement's line at the
                         * top level indented more is an IndentationError */
} P;

#define MAX_NESTING 200

static bl_token *peek(P *p) { return &p->ts.t[p->i]; }
static bl_token *peek2(P *p) { return &p->ts.t[p->i + (p->ts.t[p->i].kind != BL_T_EOF)]; }
static bl_token *next(P *p)
{
    bl_token *t = &p->ts.t[p->i];
    if (t->kind != BL_T_EOF) p->i++;
    return t;
}
static int accept(P *p, bl_tok_kind k)
{
    if (peek(p)->kind != k) return 0;
    next(p);
    return 1;
}

static void *fail_at(P *p, const bl_token *t, const char *what)
{
    char buf[96];
    *p->errpos = t->pos;
    if (t->kind == BL_T_EOF && t->pos.off > 0) {
        bl_fail("%s, found the end of the input", what);
    } else {
        bl_fail("%s, found %s", what, bl_tok_desc(t, buf, sizeof buf));
    }
    return NULL;
}

/* An error at token t, said as it is (no "found ..."). */
static int fail_tok(P *p, const bl_token *t, const char *what)
{
    *p->errpos = t->pos;
    return bl_fail("%s", what);
}

static bl_ast *node(P *p, bl_node_kind k, const bl_token *t)
{
    bl_ast *n = aalloc(p->arena, sizeof *n);
    if (n) n->kind = k, n->pos = t->pos;
    return n;
}

static bl_ast *expr(P *p);
static bl_ast *test(P *p);
static int kw(P *p, const char *w);
static int comprehension(P *p, bl_ast *n, bl_ast *elem, const bl_token *open, bl_tok_kind close);
static int target(P *p, bl_stmt *s, const char *what);
static int params(P *p, bl_stmt *s, bl_tok_kind close);
static const char *span_text(P *p, int from, int to);

/* A growable list of nodes (and keys), copied into the arena when done. */
typedef struct {
    bl_ast **items;
    const char **keys;
    bl_pos *kpos;
    int n, cap;
} list;

static int list_push(list *l, bl_ast *a, const char *key, bl_pos kpos)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        bl_ast **ni = realloc(l->items, (size_t)cap * sizeof *ni);
        if (!ni) return bl_fail("parser: out of memory");
        l->items = ni;
        const char **nk = realloc(l->keys, (size_t)cap * sizeof *nk);
        if (!nk) return bl_fail("parser: out of memory");
        l->keys = nk;
        bl_pos *np = realloc(l->kpos, (size_t)cap * sizeof *np);
        if (!np) return bl_fail("parser: out of memory");
        l->kpos = np;
        l->cap = cap;
    }
    l->items[l->n] = a;
    l->kpos[l->n] = kpos;
    l->keys[l->n++] = key;
    return 0;
}

static void list_free(list *l)
{
    free(l->items);
    free(l->keys);
    free(l->kpos);
}

static int list_finish(P *p, list *l, bl_ast *n, int with_keys)
{
    int rc = 0;
    n->n = l->n;
    if (l->n) {
        n->items = aalloc(p->arena, (size_t)l->n * sizeof *n->items);
        if (!n->items) rc = -1;
        else memcpy(n->items, l->items, (size_t)l->n * sizeof *n->items);
        if (with_keys && rc == 0) {
            n->keys = aalloc(p->arena, (size_t)l->n * sizeof *n->keys);
            n->keypos = aalloc(p->arena, (size_t)l->n * sizeof *n->keypos);
            if (!n->keys || !n->keypos) rc = -1;
            else {
                memcpy(n->keys, l->keys, (size_t)l->n * sizeof *n->keys);
                memcpy(n->keypos, l->kpos, (size_t)l->n * sizeof *n->keypos);
            }
        }
    }
    list_free(l);
    return rc;
}

/* Items up to the closing bracket `close`, separated by commas. mode 0: list items,
 * 1: call arguments (NAME '=' expr allowed), 2: indices (slices allowed). */
static bl_ast *index_item(P *p);
static int items(P *p, bl_ast *n, bl_tok_kind close, int mode, const bl_token *open)
{
    list l = { 0 };
    int keyword = 0;    /* a keyword argument came */
    if (!accept(p, close)) {
        for (;;) {
            const char *key = NULL;
            bl_pos kpos = peek(p)->pos;
            bl_ast *a;
            if (mode == 1 && peek(p)->kind == BL_T_NAME && peek2(p)->kind == BL_T_ASSIGN) {
                key = astrndup(p->arena, peek(p)->str, strlen(peek(p)->str));
                next(p), next(p);
                keyword = 1;
            } else if (mode == 1 && keyword) {
                fail_at(p, peek(p), "positional argument after a keyword argument");
                goto fail;
            }
            a = mode == 2 ? index_item(p) : expr(p);
            if (a && mode == 0 && l.n == 0 && kw(p, "for")) {     /* [f(k) for k in xs] */
                list_free(&l);
                return comprehension(p, n, a, open, BL_T_RBRACK);
            }
            if (a && mode == 1 && !key && l.n == 0 && kw(p, "for")) {
                /* sum(p.numel() for p in ps): Python's generator expression, as the list */
                bl_ast *c = node(p, BL_N_COMP, open);
                if (!c || comprehension(p, c, a, open, BL_T_RPAREN) < 0 || list_push(&l, c, NULL, kpos) < 0) goto fail;
                break;
            }
            if (!a || list_push(&l, a, key, kpos) < 0) goto fail;
            if (accept(p, BL_T_COMMA)) {
                if (accept(p, close)) break;   /* a trailing comma is fine */
                continue;
            }
            if (accept(p, close)) break;
            char what[64];
            snprintf(what, sizeof what, "expected ',' or '%s' (the '%s' at column %d is open)",
                     close == BL_T_RPAREN ? ")" : "]", close == BL_T_RPAREN ? "(" : "[",
                     open->pos.col);
            fail_at(p, peek(p), what);
            goto fail;
        }
    }
    return list_finish(p, &l, n, mode == 1);
fail:
    list_free(&l);
    return -1;
}

static bl_ast *index_item(P *p)
{
    bl_token *t = peek(p);
    bl_ast *start = NULL;
    if (t->kind == BL_T_DOT && t[1].kind == BL_T_DOT && t[2].kind == BL_T_DOT && !t[1].space_before &&
        !t[2].space_before) {       /* ... : the dimensions the other indices do not name */
        bl_ast *n = node(p, BL_N_ELLIPSIS, t);
        if (n) n->pos.len = 3;
        next(p), next(p), next(p);
        return n;
    }
    if (t->kind != BL_T_COLON) {
        start = expr(p);
        if (!start) return NULL;
        if (peek(p)->kind != BL_T_COLON) return start;
    }
    bl_ast *s = node(p, BL_N_SLICE, t);
    if (!s) return NULL;
    s->a = start;
    next(p);    /* ':' */
    bl_tok_kind k = peek(p)->kind;
    if (k != BL_T_COLON && k != BL_T_COMMA && k != BL_T_RBRACK && !(s->b = expr(p))) return NULL;
    if (accept(p, BL_T_COLON)) {
        k = peek(p)->kind;
        if (k != BL_T_COMMA && k != BL_T_RBRACK && !(s->step = expr(p))) return NULL;
    }
    return s;
}

/* Does token kind k open (1) or close (-1) a bracket ( [ { ? 0 otherwise. */
static int bracket(bl_tok_kind k)
{
    return k == BL_T_LPAREN || k == BL_T_LBRACK || k == BL_T_LBRACE ? 1
         : k == BL_T_RPAREN || k == BL_T_RBRACK || k == BL_T_RBRACE ? -1 : 0;
}

/* After a '(': does a ',' stand inside these brackets (not inside deeper ones), or do they hold
 * nothing? Then they make a tuple. */
static int tuple_at(P *p)
{
    int depth = 0;
    if (peek(p)->kind == BL_T_RPAREN) return 1;
    for (int i = p->i; i < p->ts.n && p->ts.t[i].kind != BL_T_EOF; i++) {
        bl_tok_kind k = p->ts.t[i].kind;
        if (bracket(k) > 0) depth++;
        else if (bracket(k) < 0 && depth-- == 0) return 0;
        else if (k == BL_T_COMMA && depth == 0) return 1;
        else if (k == BL_T_END && depth == 0) return 0;
    }
    return 0;
}

/* One {expression} of an f-string: the bytes [from, to) of the source, parsed on their own (their
 * tokens placed where they stand in the source, for carets). */
static bl_ast *fstring_expr(P *p, const bl_token *t, int from, int to)
{
    char *text = strndup(p->src + from, (size_t)(to - from));
    if (!text) return BL_FAILP("parser: out of memory");
    P q = *p;
    int col = t->pos.col + bl_text_width(p->src + t->pos.off, from - t->pos.off);
    int rc = bl_lex(text, t->pos.line, col, &q.ts, p->errpos);
    free(text);
    if (rc < 0) {
        p->errpos->off += from;
        return NULL;
    }
    for (int i = 0; i < q.ts.n; i++) q.ts.t[i].pos.off += from;
    q.i = 0;
    bl_ast *e = NULL;
    if (q.ts.t[0].kind == BL_T_EOF) fail_tok(&q, &q.ts.t[0], "f-string: empty expression inside {}");
    else if ((e = expr(&q)) && peek(&q)->kind != BL_T_EOF) e = fail_at(&q, peek(&q), "f-string: expected '}' or ':' after the expression");
    bl_tokens_free(&q.ts);
    return e;
}

/* f"text {expr} {expr:spec}": the pieces into a BL_N_FSTR (parser.h); {{ and }} are braces. */
static bl_ast *fstring(P *p, bl_token *t)
{
    bl_ast *n = node(p, BL_N_FSTR, t);
    if (!n) return NULL;
    const char *s = t->str;
    /* s[k] is the source's byte base + k: after f and one quote, or three */
    const char *o = p->src + t->pos.off + 1;
    int base = t->pos.off + 2 + (o[0] == o[1] && o[1] == o[2] ? 2 : 0);
    list l = { 0 };
    char *lit = malloc(strlen(s) + 1);
    size_t nlit = 0;
    int rc = lit ? 0 : bl_fail("parser: out of memory");
    bl_token at = *t;       /* an error's place inside the string */
    for (int k = 0; rc == 0; k++) {
        char c = s[k];
        int brace = c == '{' && s[k + 1] != '{';
        if ((c == '\0' || brace) && nlit) {        /* the text so far: a STR piece */
            bl_ast *x = node(p, BL_N_STR, t);
            rc = x && (x->str = astrndup(p->arena, lit, nlit)) ? list_push(&l, x, NULL, t->pos) : -1;
            nlit = 0;
        }
        if (c == '\0' || rc < 0) break;
        at.pos.off = base + k, at.pos.len = 1;
        at.pos.col = t->pos.col + 2 + bl_text_width(s, k);
        if (c == '\\') {
            int e = bl_lex_escape(s[++k]);
            if (e < 0) rc = -1;
            lit[nlit++] = (char)e;
        } else if ((c == '{' || c == '}') && s[k + 1] == c) {
            lit[nlit++] = c;
            k++;
        } else if (c == '}') {
            rc = fail_tok(p, &at, "f-string: a single '}' (write }} for a brace)");
        } else if (c != '{') {
            lit[nlit++] = c;
        } else {
            /* {expr[!r|!s][:spec]}: the expression ends at a ':' or '!' outside brackets and strings */
            int j = k + 1, depth = 0;
            char q = 0;
            for (; s[j] && (q || depth || (s[j] != '}' && s[j] != ':' && !(s[j] == '!' && s[j + 1] != '='))); j++) {
                if (q) { if (s[j] == q) q = 0; continue; }
                if (s[j] == '"' || s[j] == '\'') q = s[j];
                depth += s[j] == '(' || s[j] == '[' || s[j] == '{';
                depth -= (s[j] == ')' || s[j] == ']' || s[j] == '}') && depth > 0;
            }
            int end = j, conv = 0;
            if (s[j] == '!' && (s[j + 1] == 'r' || s[j + 1] == 's' || s[j + 1] == 'a')) conv = s[j + 1], j += 2;
            const char *spec = NULL;
            if (s[j] == ':') {
                int from = ++j;
                while (s[j] && s[j] != '}' && s[j] != '{') j++;
                if (!(spec = astrndup(p->arena, s + from, (size_t)(j - from)))) rc = -1;
            }
            if (conv && rc == 0) {      /* {x!r:spec} as the spec "!r:spec" (strfmt.h) */
                char cs[8 + 256];
                snprintf(cs, sizeof cs, "!%c%s%.256s", conv, spec ? ":" : "", spec ? spec : "");
                if (!(spec = astrndup(p->arena, cs, strlen(cs)))) rc = -1;
            }
            if (rc == 0 && s[j] != '}') {
                at.pos.off = base + j, at.pos.col = t->pos.col + 2 + bl_text_width(s, j);
                rc = fail_tok(p, &at, s[j] == '{' ? "f-string: a {} inside a format spec is not supported"
                                                  : "f-string: expected '}' to close the '{'");
            }
            bl_ast *x = rc == 0 ? fstring_expr(p, t, base + k + 1, base + end) : NULL;
            if (!x || list_push(&l, x, spec, at.pos) < 0) rc = -1;
            k = j;
        }
    }
    free(lit);
    if (rc < 0) {
        list_finish(p, &l, n, 0);
        return NULL;
    }
    return list_finish(p, &l, n, 1) < 0 ? NULL : n;
}

/* After '{': key ':' value pairs up to '}' into a BL_N_DICT (parser.h). */
static bl_ast *dict_literal(P *p, const bl_token *open)
{
    bl_ast *n = node(p, BL_N_DICT, open);
    list l = { 0 };
    int rc = n ? 0 : -1;
    char what[80];
    snprintf(what, sizeof what, "expected ',' or '}' (the '{' at column %d is open)", open->pos.col);
    while (rc == 0 && !accept(p, BL_T_RBRACE)) {
        bl_ast *k = expr(p), *v = NULL;
        if (k && !accept(p, BL_T_COLON)) rc = fail_at(p, peek(p), "expected ':' after the key ({\"lr\": 0.1})") ? 0 : -1;
        else if (!k || !(v = expr(p)) || list_push(&l, k, NULL, k->pos) < 0 || list_push(&l, v, NULL, v->pos) < 0) rc = -1;
        if (rc == 0 && kw(p, "for")) rc = fail_at(p, peek(p), "dict comprehensions are not supported (build it with "
                                                              "d[k] = v in a loop)") ? 0 : -1;
        if (rc == 0 && !accept(p, BL_T_COMMA) && peek(p)->kind != BL_T_RBRACE) rc = fail_at(p, peek(p), what) ? 0 : -1;
    }
    if (rc < 0) {
        list_free(&l);
        return NULL;
    }
    return list_finish(p, &l, n, 0) < 0 ? NULL : n;
}

static bl_ast *primary(P *p)
{
    bl_token *t = next(p);
    bl_ast *n;
    switch (t->kind) {
    case BL_T_NUM:
        if ((n = node(p, BL_N_NUM, t))) n->num = t->num;
        return n;
    case BL_T_STR:
        if ((n = node(p, BL_N_STR, t))) n->str = astrndup(p->arena, t->str, strlen(t->str));
        return n && n->str ? n : NULL;
    case BL_T_NAME:
        if (bl_is_keyword(t->str)) {    /* x = x + (a line that continued) then `end` */
            p->i--;
            return fail_at(p, t, "expected a value");
        }
        if (!strcmp(t->str, "true") || !strcmp(t->str, "on") || !strcmp(t->str, "false") ||
            !strcmp(t->str, "off") || !strcmp(t->str, "True") || !strcmp(t->str, "False")) {
            if ((n = node(p, BL_N_BOOL, t)))
                n->num = t->str[0] == 't' || t->str[0] == 'T' || !strcmp(t->str, "on");   /* Python's True too */
            return n;
        }
        if (!strcmp(t->str, "None") || !strcmp(t->str, "none")) return node(p, BL_N_NONE, t);
        if ((n = node(p, BL_N_NAME, t))) n->str = astrndup(p->arena, t->str, strlen(t->str));
        return n && n->str ? n : NULL;
    case BL_T_FSTR:
        return fstring(p, t);
    case BL_T_LBRACE:
        return dict_literal(p, t);
    case BL_T_LPAREN:
        if (tuple_at(p)) {      /* (a, b), (): a list, as blocklab's tuples are */
            if (!(n = node(p, BL_N_LIST, t)) || items(p, n, BL_T_RPAREN, 0, t) < 0) return NULL;
            return n;
        }
        n = expr(p);
        if (n && !accept(p, BL_T_RPAREN)) {
            char what[64];
            snprintf(what, sizeof what, "expected ')' (the '(' at column %d is open)", t->pos.col);
            return fail_at(p, peek(p), what);
        }
        return n;
    case BL_T_LBRACK:
        if (!(n = node(p, BL_N_LIST, t)) || items(p, n, BL_T_RBRACK, 0, t) < 0) return NULL;
        return n;
    default:
        p->i--;
        if (t->kind == BL_T_EOF) p->i++;
        return fail_at(p, t, "expected a value");
    }
}

static bl_ast *postfix(P *p)
{
    bl_ast *a = primary(p);
    int depth = p->depth;   /* each '(' '[' '.' after a value nests it once more (x[0][0]...) */
    while (a) {
        bl_token *t = peek(p);
        bl_ast *n;
        if ((t->kind == BL_T_LPAREN || t->kind == BL_T_LBRACK || t->kind == BL_T_DOT) &&
            ++p->depth > MAX_NESTING)
            return fail_at(p, t, "expression nested too deeply");
        if (t->kind == BL_T_LPAREN) {
            if (a->kind != BL_N_NAME && a->kind != BL_N_FIELD) {    /* (lambda x: x)(1): the callee in a */
                if (!(n = node(p, BL_N_CALL, t))) return NULL;
                n->a = a, n->str = "", a = n;
            }
            next(p);
            if (a->kind != BL_N_CALL) a->kind = a->kind == BL_N_NAME ? BL_N_CALL : BL_N_METHOD;   /* t.add(...) */
            if (items(p, a, BL_T_RPAREN, 1, t) < 0) return NULL;
        } else if (t->kind == BL_T_LBRACK) {
            next(p);
            if (!(n = node(p, BL_N_INDEX, t))) return NULL;
            n->a = a;
            if (items(p, n, BL_T_RBRACK, 2, t) < 0) return NULL;
            if (n->n == 0) return fail_at(p, t, "expected an index inside []");
            a = n;
        } else if (t->kind == BL_T_DOT) {
            next(p);
            bl_token *f = next(p);
            if (f->kind != BL_T_NAME) { p->i--; return fail_at(p, f, "expected a field name after '.'"); }
            if (!(n = node(p, BL_N_FIELD, f))) return NULL;
            n->a = a;
            if (!(n->str = astrndup(p->arena, f->str, strlen(f->str)))) return NULL;
            a = n;
        } else {
            break;
        }
    }
    p->depth = depth;
    return a;
}

static bl_ast *unary(P *p);

/* x ** y, as Python's power: binds tighter than a unary minus on its left (-2**2 is -4) and
 * takes one on its right (2**-1), right-associative (2**3**2 is 2**9). */
static bl_ast *power(P *p)
{
    bl_ast *a = postfix(p);
    bl_token *t = peek(p);
    if (!a || t->kind != BL_T_POW) return a;
    next(p);
    if (++p->depth > MAX_NESTING) return fail_at(p, t, "expression nested too deeply");
    bl_ast *b = unary(p);
    p->depth--;
    if (!b) return NULL;
    bl_ast *n = node(p, BL_N_BINOP, t);
    if (!n) return NULL;
    n->op = t->kind, n->a = a, n->b = b;
    return n;
}

static bl_ast *unary(P *p)
{
    bl_token *t = peek(p);
    if (t->kind == BL_T_MINUS || t->kind == BL_T_PLUS) {
        next(p);
        if (++p->depth > MAX_NESTING) return fail_at(p, t, "expression nested too deeply");
        bl_ast *x = unary(p);
        p->depth--;
        if (!x || t->kind == BL_T_PLUS) return x;
        if (x->kind == BL_N_NUM) {      /* fold -3 into a number */
            x->num = -x->num;
            x->pos = t->pos;
            return x;
        }
        bl_ast *n = node(p, BL_N_NEG, t);
        if (n) n->a = x;
        return n;
    }
    return power(p);
}

/* Is the '>' at the parser's position an output redirection? Only when what follows up to the
 * end of the statement is one file name (a string, or a word without spaces) that ends in an
 * extension blocklab writes; otherwise `x > 0` is a comparison. */
const char *const bl_redirect_exts[] = { ".txt", ".csv", ".json", ".md", ".png", ".svg", NULL };

const char *bl_redirect_ext_of(const char *name, size_t n)
{
    for (const char *const *e = bl_redirect_exts; *e; e++) {
        size_t k = strlen(*e);
        if (n > k && !strncasecmp(name + n - k, *e, k)) return *e;
    }
    return NULL;
}

int bl_stmt_redirects_to(const bl_stmt *st, const char *ext)
{
    size_t n = st->redirect ? strlen(st->redirect) : 0, k = strlen(ext);
    return n > k && !strcasecmp(st->redirect + n - k, ext);
}

static int is_redirect(P *p)
{
    int i = p->i + 1, from = i;
    while (p->ts.t[i].kind != BL_T_END && p->ts.t[i].kind != BL_T_EOF) {
        if (i > from && p->ts.t[i].space_before) return 0;
        i++;
    }
    if (i == from) return 1;    /* '>' then nothing: the redirect reports a missing file name */
    const char *s;
    size_t n;
    if (i - from == 1 && p->ts.t[from].kind == BL_T_STR) {
        s = p->ts.t[from].str;
        n = strlen(s);
    } else {
        s = p->src + p->ts.t[from].pos.off;
        n = (size_t)(p->ts.t[i - 1].pos.off + p->ts.t[i - 1].pos.len - p->ts.t[from].pos.off);
    }
    return bl_redirect_ext_of(s, n) != NULL;
}

/* Is what follows the '>' at the parser's position, up to the end of the statement, one word
 * without spaces that reads as a file name: NAME.EXT, EXT 1-8 letters or digits? (Then, when it
 * does not evaluate, the comparison's error says which extensions a redirect takes.) */
static int looks_like_file(P *p)
{
    int i = p->i + 1, from = i;
    while (p->ts.t[i].kind != BL_T_END && p->ts.t[i].kind != BL_T_EOF) {
        if (i > from && p->ts.t[i].space_before) return 0;
        i++;
    }
    if (i - from < 3) return 0;
    const char *s = p->src + p->ts.t[from].pos.off;
    size_t n = (size_t)(p->ts.t[i - 1].pos.off + p->ts.t[i - 1].pos.len - p->ts.t[from].pos.off), k = 0;
    while (k < n && k < 9 && isalnum((unsigned char)s[n - 1 - k])) k++;
    return k >= 1 && k <= 8 && k < n - 1 && s[n - 1 - k] == '.';
}

/* The sums and products: level 1 '+' '-', level 2 '*' '/' '//' '%' '@' (left-associative). */
static bl_ast *binary_level(P *p, int level)
{
    static const bl_tok_kind ops[3][6] = {
        { BL_T_EOF },
        { BL_T_PLUS, BL_T_MINUS, BL_T_EOF },
        { BL_T_STAR, BL_T_SLASH, BL_T_FLOORDIV, BL_T_PERCENT, BL_T_AT, BL_T_EOF },
    };
    bl_ast *a = level == 2 ? unary(p) : binary_level(p, level + 1);
    while (a) {
        bl_token *t = peek(p);
        int hit = 0;
        for (int j = 0; ops[level][j] != BL_T_EOF; j++) hit |= t->kind == ops[level][j];
        if (!hit) break;
        next(p);
        bl_ast *b = level == 2 ? unary(p) : binary_level(p, level + 1);
        if (!b) return NULL;
        bl_ast *n = node(p, BL_N_BINOP, t);
        if (!n) return NULL;
        n->op = t->kind, n->a = a, n->b = b;
        a = n;
    }
    return a;
}

/* The comparison operator at the parser's position and how many tokens it takes (`is not`,
 * `not in`: two), or BL_T_EOF (a '>' that redirects is none). */
static bl_tok_kind comparison_op(P *p, int *ntok)
{
    bl_tok_kind k = peek(p)->kind;
    *ntok = 1;
    if (k == BL_T_LT || k == BL_T_LE || k == BL_T_GE || k == BL_T_EQ || k == BL_T_NE) return k;
    if (k == BL_T_GT) return is_redirect(p) ? BL_T_EOF : k;
    if (kw(p, "in")) return BL_T_IN;
    bl_token *t2 = peek2(p);
    int second = t2->kind == BL_T_NAME;
    if (kw(p, "is")) return second && !strcmp(t2->str, "not") ? (*ntok = 2, BL_T_ISNOT) : BL_T_IS;
    if (kw(p, "not") && second && !strcmp(t2->str, "in")) return *ntok = 2, BL_T_NOTIN;
    return BL_T_EOF;
}

/* sum (OP sum)*: one comparison is a BINOP; a chain a < b < c, as Python's, a CMPCHAIN of them
 * whose middle operands are shared (evaluated once). */
static bl_ast *comparison(P *p)
{
    bl_token *t0 = peek(p);
    bl_ast *a = binary_level(p, 1);
    list l = { 0 };
    int ntok;
    bl_tok_kind op;
    while (a && (op = comparison_op(p, &ntok)) != BL_T_EOF) {
        bl_token *t = peek(p);
        int file_hint = t->kind == BL_T_GT && looks_like_file(p);
        p->i += ntok;
        bl_ast *b = binary_level(p, 1), *n = b ? node(p, BL_N_BINOP, t) : NULL;
        if (n && ntok == 2) n->pos.len = p->ts.t[p->i - 1].pos.off + p->ts.t[p->i - 1].pos.len - t->pos.off;
        if (!n) {
            a = NULL;
            break;
        }
        n->op = op, n->b = b, n->file_hint = file_hint;
        n->a = l.n ? l.items[l.n - 1]->b : a;
        if (list_push(&l, n, NULL, t->pos) < 0) {
            a = NULL;
            break;
        }
    }
    bl_ast *one = l.n == 1 ? l.items[0] : NULL;
    if (!a || l.n <= 1) {
        list_free(&l);
        return a && one ? one : a;
    }
    bl_ast *chain = node(p, BL_N_CMPCHAIN, t0);
    if (!chain) {
        list_free(&l);
        return NULL;
    }
    return list_finish(p, &l, chain, 0) < 0 ? NULL : chain;
}

/* 'not' not_test | comparison: Python's not, below the comparisons (not a == b is
 * not (a == b)). */
static bl_ast *not_test(P *p)
{
    if (!kw(p, "not")) return comparison(p);
    bl_token *t = next(p);
    if (++p->depth > MAX_NESTING) return fail_at(p, t, "expression nested too deeply");
    bl_ast *x = not_test(p);
    p->depth--;
    if (!x) return NULL;
    bl_ast *n = node(p, BL_N_NOT, t);
    if (n) n->a = x;
    return n;
}

/* level 1: not_test ('and' not_test)*; level 0: that ('or' that)*. A chain is one node whose
 * items are its operands (evaluated in a loop, left to right, stopping at the deciding one). */
static bl_ast *bool_level(P *p, int level)
{
    const char *w = level ? "and" : "or";
    bl_ast *a = level ? not_test(p) : bool_level(p, 1);
    if (!a || !kw(p, w)) return a;
    bl_ast *n = node(p, level ? BL_N_AND : BL_N_OR, peek(p));
    list l = { 0 };
    if (!n || list_push(&l, a, NULL, n->pos) < 0) return NULL;
    while (kw(p, w)) {
        next(p);
        bl_ast *b = level ? not_test(p) : bool_level(p, 1);
        if (!b || list_push(&l, b, NULL, n->pos) < 0) {
            list_finish(p, &l, n, 0);
            return NULL;
        }
    }
    return list_finish(p, &l, n, 0) < 0 ? NULL : n;
}

/* An or_test (Python's name): expr without Python's conditional (a for loop's and a
 * comprehension's iterable, the conditions of a conditional and a comprehension). */
static bl_ast *test(P *p)
{
    if (++p->depth > MAX_NESTING) return fail_at(p, peek(p), "expression nested too deeply");
    bl_ast *e = bool_level(p, 0);
    p->depth--;
    return e;
}

/* test ['if' test 'else' expr]: Python's conditional expression; only the branch chosen is
 * evaluated. */
/* lambda params ':' expr: a one-line def named <lambda>, its signature "<lambda>(x, w=1)". */
static bl_ast *lambda(P *p)
{
    bl_token *head = next(p);
    bl_ast *n = node(p, BL_N_LAMBDA, head);
    bl_stmt *d = n ? aalloc(p->arena, sizeof *d) : NULL;
    bl_stmt *r = d ? aalloc(p->arena, sizeof *r) : NULL;
    if (!r) return NULL;
    int from = p->i;
    d->kind = BL_S_DEF, d->pos = head->pos, d->name = "<lambda>";
    if (params(p, d, BL_T_COLON) < 0) return NULL;
    const char *ps = p->i - 1 > from ? span_text(p, from, p->i - 1) : "";
    char *sig = ps ? aalloc(p->arena, strlen(ps) + 16) : NULL;
    if (!sig) return NULL;
    size_t len = strlen(ps) + 16;
    snprintf(sig, len, "<lambda>(%s)", ps);
    d->sig = sig;
    r->kind = BL_S_RETURN, r->pos = peek(p)->pos;
    r->expr = expr(p);
    if (!r->expr || !(r->text = d->text = span_text(p, (int)(head - p->ts.t), p->i))) return NULL;
    d->body.n = 1, d->body.s = r;
    n->def = d;
    return n;
}

static bl_ast *expr(P *p)
{
    if (kw(p, "lambda")) return lambda(p);
    bl_ast *e = test(p);
    if (!e || !kw(p, "if")) return e;
    bl_token *t = next(p);
    if (++p->depth > MAX_NESTING) return fail_at(p, t, "expression nested too deeply");
    bl_ast *n = node(p, BL_N_COND, t);
    if (!n || !(n->c = test(p))) return NULL;
    if (!kw(p, "else")) return fail_at(p, peek(p), "expected 'else' (x if COND else y)");
    next(p);
    if (!(n->b = expr(p))) return NULL;
    n->a = e;
    p->depth--;
    return n;
}

/* After '[' elem 'for': NAME 'in' test ['if' test] ']' into n (a BL_N_COMP); close is ']', or ')'
 * for a generator expression, the only argument of a call (evaluated as the list). 0 or -1. */
static int comprehension(P *p, bl_ast *n, bl_ast *elem, const bl_token *open, bl_tok_kind close)
{
    n->kind = BL_N_COMP;
    n->a = elem;
    next(p);    /* for */
    bl_stmt t = { 0 };      /* [x * y for x, y in zip(xs, ys)]: unpacked */
    if (target(p, &t, "expected the loop variable's name after for") < 0) return -1;
    n->str = t.name, n->keys = t.params, n->n = t.nparams, n->pattern = t.pattern;
    if (!kw(p, "in")) return fail_at(p, peek(p), "expected 'in' ([x for NAME in LIST])") ? 0 : -1;
    next(p);
    if (!(n->b = test(p))) return -1;
    if (kw(p, "if")) {
        next(p);
        if (!(n->c = test(p))) return -1;
    }
    if (accept(p, close)) return 0;
    char what[128];
    if (close == BL_T_RPAREN)
        snprintf(what, sizeof what, "expected ')' to end the generator expression (the '(' at column %d is "
                 "open; it is the call's only argument)", open->pos.col);
    else
        snprintf(what, sizeof what, "expected ']' to end the list comprehension (the '[' at column %d is open)",
                 open->pos.col);
    return fail_at(p, peek(p), what) ? 0 : -1;
}

/* Is the token at the parser's position the keyword w? */
static int kw(P *p, const char *w)
{
    return peek(p)->kind == BL_T_NAME && !strcmp(peek(p)->str, w);
}

static int at_end(P *p)
{
    bl_tok_kind k = peek(p)->kind;
    return k == BL_T_END || k == BL_T_EOF || (p->inline_if && (kw(p, "else") || kw(p, "elif")));
}

/* The source text of tokens [from, to), or the unquoted string when it is one string token. */
static const char *span_text(P *p, int from, int to)
{
    if (to - from == 1 && p->ts.t[from].kind == BL_T_STR)
        return astrndup(p->arena, p->ts.t[from].str, strlen(p->ts.t[from].str));
    int a = p->ts.t[from].pos.off;
    int b = p->ts.t[to - 1].pos.off + p->ts.t[to - 1].pos.len;
    return astrndup(p->arena, p->src + a, (size_t)(b - a));
}

static bl_pos span_pos(P *p, int from, int to)
{
    bl_pos pos = p->ts.t[from].pos;
    pos.len = p->ts.t[to - 1].pos.off + p->ts.t[to - 1].pos.len - pos.off;
    return pos;
}

/* A command word written as one parenthesised expression, (EXPR), tokens [from, to): its
 * syntax tree, evaluated when the command runs (for name in runs: sample m > (name + ".png")).
 * NULL when the word is not one such group (its text is then taken as written); a syntax error
 * inside the brackets is the statement's error (*bad = 1). */
static bl_ast *word_expr(P *p, int from, int to, int *bad)
{
    if (to - from < 2 || p->ts.t[from].kind != BL_T_LPAREN || p->ts.t[to - 1].kind != BL_T_RPAREN) return NULL;
    int depth = 0;
    for (int i = from; i < to; i++) {
        depth += bracket(p->ts.t[i].kind);
        if (depth == 0 && i < to - 1) return NULL;     /* (a)(b), (a)+b: not one group */
    }
    int save = p->i;
    bl_tok_kind after = p->ts.t[to].kind;
    p->ts.t[to].kind = BL_T_END;      /* the next word is not an operand: `train (n) -1` */
    p->i = from;
    bl_ast *e = expr(p);
    p->ts.t[to].kind = after;
    p->i = save;
    if (!e) *bad = 1;
    return e;
}

static int redirect(P *p, bl_stmt *s)
{
    bl_token *gt = next(p);
    int from = p->i, bad = 0;
    while (!at_end(p)) next(p);
    if (p->i == from) return fail_at(p, peek(p), "expected a file name after '>'") ? 0 : -1;
    s->redirect = span_text(p, from, p->i);
    s->redirect_pos = span_pos(p, from, p->i);
    s->redirect_expr = word_expr(p, from, p->i, &bad);
    (void)gt;
    return s->redirect && !bad ? 0 : -1;
}

static int command(P *p, bl_stmt *s, int raw)
{
    bl_token *name = next(p);
    s->kind = BL_S_CMD;
    s->name = astrndup(p->arena, name->str, strlen(name->str));
    int restoff = peek(p)->pos.off;
    s->rest_pos = peek(p)->pos;
    int words = 0, cap = 0;
    bl_word *w = NULL;
    while (!at_end(p)) {
        if (!raw && peek(p)->kind == BL_T_GT) {
            if (redirect(p, s) < 0) goto fail;
            break;
        }
        int from = p->i, eq = -1, depth = 0;
        /* A word is a run of tokens without white space between them; KEY = VALUE with white
         * space on both sides of '=' is one word too. A lone side (`a =b`, `a= b`) is not
         * joined: `compare baseline =norm:rmsnorm` made the baseline a variant. */
        const bl_token *t1 = &p->ts.t[p->i], *t2 = t1->kind == BL_T_EOF ? t1 : t1 + 1;
        const bl_token *t3 = t2->kind == BL_T_EOF ? t2 : t2 + 1;
        if (t1->kind == BL_T_NAME && t2->kind == BL_T_ASSIGN && t2->space_before && t3->space_before &&
            t3->kind != BL_T_END && t3->kind != BL_T_EOF && (raw || t3->kind != BL_T_GT)) {
            eq = p->i + 1;
            next(p), next(p);
        }
        do {
            bl_tok_kind k = peek(p)->kind;
            if (k == BL_T_ASSIGN && eq < 0 && depth == 0) eq = p->i;
            if (bracket(k) > 0 || (bracket(k) < 0 && depth > 0)) depth += bracket(k);
            next(p);
        } while (!at_end(p) && (depth > 0 || !peek(p)->space_before) &&
                 (raw || depth > 0 || peek(p)->kind != BL_T_GT));
        if (words == cap) {
            cap = cap ? 2 * cap : 8;
            bl_word *nw = realloc(w, (size_t)cap * sizeof *nw);
            if (!nw) { bl_fail("parser: out of memory"); goto fail; }
            w = nw;
        }
        bl_word *x = &w[words++];
        memset(x, 0, sizeof *x);
        x->pos = span_pos(p, from, p->i);
        if (eq == from + 1 && p->ts.t[from].kind == BL_T_NAME) {
            x->key = astrndup(p->arena, p->ts.t[from].str, strlen(p->ts.t[from].str));
            if (eq + 1 == p->i) {
                x->text = "";
                x->vpos = p->ts.t[eq].pos;
                x->vpos.off += 1, x->vpos.col += 1, x->vpos.len = 0;
            } else {
                x->text = span_text(p, eq + 1, p->i);
                x->vpos = span_pos(p, eq + 1, p->i);
            }
        } else {
            x->text = span_text(p, from, p->i);
            x->vpos = x->pos;
        }
        if (!x->text) goto fail;
        if (!raw) {
            int bad = 0;
            x->expr = word_expr(p, x->key ? eq + 1 : from, p->i, &bad);
            if (bad) goto fail;
        }
        if (!raw && eq == from) {
            bl_fail("%s: '=' without a key before it (KEY=VALUE, with no space before '=')", s->name);
            *p->errpos = p->ts.t[eq].pos;
            goto fail;
        }
        if (!raw && p->ts.t[p->i - 1].kind == BL_T_COMMA && depth == 0 && at_end(p)) {
            /* a line does not continue after ',' (issue 20): the list ends with the statement */
            bl_fail("%s: a trailing ',' (the list has no next value; a line does not continue after ',')",
                    s->name);
            *p->errpos = p->ts.t[p->i - 1].pos;
            goto fail;
        }
        if (!raw && x->key && eq + 1 == p->i) {
            /* a line ending in '=' continues: say so when the next line was taken in */
            int joined = !at_end(p) && peek(p)->pos.line > p->ts.t[eq].pos.line;
            bl_fail("%s: %s= without a value (KEY=VALUE, with no space after '=')%s", s->name, x->key,
                    joined ? "; a line ending in '=' continues, so the next line was joined to it and did not run"
                           : "");
            *p->errpos = x->pos;
            goto fail;
        }
    }
    /* A key given twice is refused, for every command, as Python refuses a keyword argument
     * given twice: the last one silently won (`train 5 quiet=on quiet=off`). */
    for (int j = 1; !raw && j < words; j++)
        for (int i = 0; w[j].key && i < j; i++)
            if (w[i].key && !strcmp(w[i].key, w[j].key)) {
                bl_fail("%s: key '%s' given twice", s->name, w[j].key);
                *p->errpos = w[j].pos;
                goto fail;
            }
    if (words) {
        s->words = aalloc(p->arena, (size_t)words * sizeof *w);
        if (!s->words) goto fail;
        memcpy(s->words, w, (size_t)words * sizeof *w);
    }
    s->nwords = words;
    int restend = p->ts.t[p->i].pos.off;
    if (s->redirect) restend = s->redirect_pos.off;
    s->rest = astrndup(p->arena, p->src + restoff, (size_t)(restend > restoff ? restend - restoff : 0));
    free(w);
    return s->rest ? 0 : -1;
fail:
    free(w);
    return -1;
}

/* A command, an assignment or an expression. */
/* The index of the operator of an augmented assignment (x += 1, x[0] //= 2: an operator
 * glued to '=' outside brackets, before any plain '=') in the statement at the parser's
 * position, or 0. */
static int augmented_at(P *p)
{
    int depth = 0;
    for (int i = p->i; p->ts.t[i].kind != BL_T_EOF && (depth || p->ts.t[i].kind != BL_T_END); i++) {
        bl_tok_kind k = p->ts.t[i].kind;
        if (bracket(k) > 0 || (bracket(k) < 0 && depth > 0)) depth += bracket(k);
        if (depth) continue;
        if (k == BL_T_ASSIGN) return 0;
        if (i > p->i && (k == BL_T_PLUS || k == BL_T_MINUS || k == BL_T_STAR || k == BL_T_SLASH ||
                         k == BL_T_FLOORDIV || k == BL_T_PERCENT || k == BL_T_POW || k == BL_T_AT) &&
            p->ts.t[i + 1].kind == BL_T_ASSIGN && !p->ts.t[i + 1].space_before)
            return i;
    }
    return 0;
}

/* TARGET OP= expr, Python's augmented assignment, as TARGET = TARGET OP (expr): a name, or an
 * index of one (x[0] += 1 rebinds x as index assignment does). The operator token is at
 * index op. 0 or -1. */
static int augmented(P *p, bl_stmt *s, int op)
{
    bl_tok_kind k = p->ts.t[op].kind;
    p->ts.t[op].kind = BL_T_END;        /* the target's expression stops at the operator */
    bl_ast *target = expr(p);
    p->ts.t[op].kind = k;
    if (!target) return -1;
    if (p->i != op) return fail_at(p, peek(p), "expected an operator or the end of the statement") ? 0 : -1;
    const bl_ast *root = target;
    while (root->kind == BL_N_INDEX) root = root->a;
    if (root->kind != BL_N_NAME)
        return fail_at(p, &p->ts.t[op], "can only assign to a name or to an index of one (x[i] += v)") ? 0 : -1;
    if (!bl_name_assignable(root->str, NULL))
        return fail_at(p, &p->ts.t[p->i - 1], bl_is_keyword(root->str) ? "cannot assign to a keyword"
                                                                      : "cannot assign to a constant") ? 0 : -1;
    bl_token *optok = next(p);
    next(p);    /* = */
    bl_ast *value = expr(p);
    if (!value) return -1;
    bl_ast *n = node(p, BL_N_BINOP, optok);
    if (!n) return -1;
    n->op = k, n->a = target, n->b = value;
    s->kind = BL_S_ASSIGN;
    s->name = root->str;
    s->target = target->kind == BL_N_INDEX ? target : NULL;
    s->expr = n;
    if (!at_end(p)) {
        if (peek(p)->kind == BL_T_GT)
            return fail_at(p, peek(p), "an assignment cannot be redirected") ? 0 : -1;
        return fail_at(p, peek(p), "expected an operator or the end of the statement") ? 0 : -1;
    }
    return 0;
}

/* expr (',' expr)*: one value, or the list of several (Python's tuple, `a, b = b, a`). */
static bl_ast *expr_list(P *p)
{
    bl_ast *e = expr(p);
    if (!e || peek(p)->kind != BL_T_COMMA) return e;
    list l = { 0 };
    bl_ast *n = node(p, BL_N_LIST, peek(p));
    int rc = n && list_push(&l, e, NULL, e->pos) == 0 ? 0 : -1;
    while (rc == 0 && accept(p, BL_T_COMMA)) {
        if (at_end(p)) break;       /* a trailing ',' (x = 1,) */
        bl_ast *x = expr(p);
        rc = x ? list_push(&l, x, NULL, x->pos) : -1;
    }
    if (!n) return NULL;    /* (nothing was pushed) */
    n->pos = e->pos;
    return list_finish(p, &l, n, 0) == 0 && rc == 0 ? n : NULL;
}

/* item (',' item)* [','] with item NAME | '(' ... ')' | '[' ... ']', from token i: the index
 * after it, or -1 when the tokens are not one (x[0] is an index, not a target). *nested: a comma
 * or a bracket came. */
static int target_end(P *p, int i, int *nested)
{
    for (;;) {
        bl_tok_kind k = p->ts.t[i].kind;
        if (k == BL_T_NAME && !(p->ts.t[i + 1].kind == BL_T_LPAREN || p->ts.t[i + 1].kind == BL_T_LBRACK ||
                                p->ts.t[i + 1].kind == BL_T_DOT)) {
            i++;
        } else if (k == BL_T_LPAREN || k == BL_T_LBRACK) {
            *nested = 1;
            if ((i = target_end(p, i + 1, nested)) < 0) return -1;
            if (p->ts.t[i].kind != (k == BL_T_LPAREN ? BL_T_RPAREN : BL_T_RBRACK)) return -1;
            i++;
        } else {
            return -1;
        }
        if (p->ts.t[i].kind != BL_T_COMMA) return i;
        *nested = 1;
        k = p->ts.t[++i].kind;
        if (k != BL_T_NAME && k != BL_T_LPAREN && k != BL_T_LBRACK) return i;  /* a trailing ',' */
    }
}

/* The items of a target into a LIST node; each name into
 * *names as well (a name given twice is an error). */
static bl_ast *target_list(P *p, list *names, const char *what)
{
    bl_ast *n = node(p, BL_N_LIST, peek(p));
    list l = { 0 };
    if (!n) return NULL;
    do {
        bl_tok_kind k = peek(p)->kind;
        if (l.n && k != BL_T_NAME && k != BL_T_LPAREN && k != BL_T_LBRACK) break;    /* (a, b,) */
        bl_token *v = next(p);
        bl_ast *x = NULL;
        if (v->kind == BL_T_LPAREN || v->kind == BL_T_LBRACK) {
            bl_tok_kind c = v->kind == BL_T_LPAREN ? BL_T_RPAREN : BL_T_RBRACK;
            if ((x = target_list(p, names, what)) && !accept(p, c)) x = fail_at(p, peek(p), "expected ',' or a closing bracket");
            if (x) x->pos = v->pos;
            if (x && c == BL_T_RPAREN && x->n == 1 && p->ts.t[p->i - 2].kind != BL_T_COMMA) x = x->items[0];  /* (a) */
        } else if (v->kind != BL_T_NAME || !bl_name_assignable(v->str, NULL)) {
            p->i -= v->kind != BL_T_EOF;
            fail_at(p, v, what);
        } else if ((x = node(p, BL_N_NAME, v)) && (x->str = astrndup(p->arena, v->str, strlen(v->str)))) {
            for (int j = 0; j < names->n; j++)
                if (!strcmp(names->items[j]->str, v->str)) {
                    p->i--;
                    x = fail_at(p, v, "this name is given twice");
                    break;
                }
            if (x && list_push(names, x, NULL, v->pos) < 0) x = NULL;
        }
        if (!x || list_push(&l, x, NULL, v->pos) < 0) {
            list_free(&l);
            return NULL;
        }
    } while (accept(p, BL_T_COMMA));
    return list_finish(p, &l, n, 0) < 0 ? NULL : n;
}

/* A target (parser.h): the names a value is unpacked into (a, b = ...; for i, (x, y) in ...),
 * into s->params (nparams of them, at s->ppos) and its shape into s->pattern; s->name is the
 * first. One name alone is a plain assignment or loop variable: nparams 0, no pattern. 0, or -1
 * at a bad name. */
static int target(P *p, bl_stmt *s, const char *what)
{
    list names = { 0 };
    int nested = 0;
    target_end(p, p->i, &nested);
    bl_ast *pat = target_list(p, &names, what);
    if (pat && pat->n == 1 && p->ts.t[p->i - 1].kind != BL_T_COMMA) {   /* (a, b) as a, b; (a) as a */
        pat = pat->items[0];
        nested = pat->kind == BL_N_LIST;
    }
    int n = names.n, rc = pat ? 0 : -1;
    if (rc == 0) {
        s->nparams = n;
        s->params = aalloc(p->arena, (size_t)n * sizeof *s->params);
        s->ppos = aalloc(p->arena, (size_t)n * sizeof *s->ppos);
        if (!s->params || !s->ppos) rc = -1;
    }
    for (int i = 0; rc == 0 && i < n; i++) s->params[i] = names.items[i]->str, s->ppos[i] = names.items[i]->pos;
    list_free(&names);
    if (rc < 0) return -1;
    s->name = s->params[0];
    s->pattern = nested ? pat : NULL;
    if (!nested) s->nparams = 0;    /* one name */
    return 0;
}

/* Does the statement at the parser's position start with a target that unpacks, then '='? */
static int unpacking_at(P *p)
{
    int nested = 0, end = target_end(p, p->i, &nested);
    return end > 0 && nested && p->ts.t[end].kind == BL_T_ASSIGN;
}

/* NAME '=' NAME '=' ... '=' exprs, after the first '=' and what followed it (in s->expr): the
 * value is the last; s->name is assigned it, then each further name is assigned s->name's value
 * (the assignments in s->body, as parser.h says). */
static int chained(P *p, bl_stmt *s)
{
    list l = { 0 };
    int rc = 0;
    while (rc == 0 && peek(p)->kind == BL_T_ASSIGN) {
        bl_ast *x = s->expr;
        if (x->kind != BL_N_NAME || !bl_name_assignable(x->str, NULL))
            rc = fail_at(p, peek(p), "a chained assignment takes names (a = b = 1)") ? 0 : -1;
        else if (list_push(&l, x, NULL, x->pos) < 0 || (next(p), !(s->expr = expr_list(p))))
            rc = -1;
    }
    bl_stmt *b = rc == 0 ? aalloc(p->arena, (size_t)l.n * sizeof *b) : NULL;
    for (int i = 0; b && i < l.n; i++) {
        b[i].kind = BL_S_ASSIGN, b[i].pos = l.items[i]->pos, b[i].name = l.items[i]->str;
        if (!(b[i].expr = aalloc(p->arena, sizeof *b[i].expr))) b = NULL;
        else *b[i].expr = (bl_ast){ .kind = BL_N_NAME, .pos = l.items[i]->pos, .str = s->name };
    }
    s->body.n = b ? l.n : 0, s->body.s = b;
    list_free(&l);
    return b ? 0 : -1;
}

static int simple(P *p, bl_stmt *s)
{
    bl_token *t = peek(p);
    int start = p->i, raw = 0;
    s->pos = t->pos;
    if (t->kind == BL_T_NAME && p->is_cmd && p->is_cmd(t->str, &raw)) {
        bl_token *n2 = peek2(p);
        int adjacent = !n2->space_before;
        /* `set =1` (a space before '=', none after) is the command with a bad word, not an
         * assignment to a variable named set */
        int glued = n2->kind == BL_T_ASSIGN && !adjacent && !p->ts.t[p->i + 2].space_before &&
                    p->ts.t[p->i + 2].kind != BL_T_END && p->ts.t[p->i + 2].kind != BL_T_EOF;
        if (glued || !(n2->kind == BL_T_ASSIGN ||
              (adjacent && (n2->kind == BL_T_LPAREN || n2->kind == BL_T_LBRACK || n2->kind == BL_T_DOT))))
            return command(p, s, raw);
    }
    int aug = augmented_at(p);
    if (aug) return augmented(p, s, aug);
    if (unpacking_at(p)) {          /* a, b = b, a: the value's items, one to each name */
        s->kind = BL_S_ASSIGN;
        if (target(p, s, "expected a variable name") < 0) return -1;
        next(p);    /* = */
        if (!(s->expr = expr_list(p))) return -1;
        if (!at_end(p)) return fail_at(p, peek(p), peek(p)->kind == BL_T_GT ? "an assignment cannot be redirected"
                                                   : "expected an operator or the end of the statement") ? 0 : -1;
        return 0;
    }
    if (t->kind == BL_T_NAME && peek2(p)->kind == BL_T_ASSIGN) {
        s->kind = BL_S_ASSIGN;
        s->name = astrndup(p->arena, t->str, strlen(t->str));
        if (!bl_name_assignable(t->str, NULL))
            return fail_at(p, t, bl_is_keyword(t->str) ? "cannot assign to a keyword"
                                                       : "cannot assign to a constant") ? 0 : -1;
        next(p), next(p);
    } else {
        s->kind = BL_S_EXPR;
    }
    if (!(s->expr = expr_list(p))) {   /* x = 1, 2 and a line `a, b`: a list (Python's tuple) */
        return -1;
    }
    if (s->kind == BL_S_ASSIGN && peek(p)->kind == BL_T_ASSIGN && chained(p, s) < 0) return -1;
    if (s->kind == BL_S_EXPR && peek(p)->kind == BL_T_ASSIGN) {
        const bl_ast *root = s->expr;   /* x[i] = v, x[i][j] = v: a name indexed; x.grad = None */
        while (root->kind == BL_N_INDEX) root = root->a;
        int grad = s->expr->kind == BL_N_FIELD && !strcmp(s->expr->str, "grad") && s->expr->a->kind == BL_N_NAME;
        if (grad) root = s->expr->a;
        else if (s->expr->kind == BL_N_FIELD && !strcmp(s->expr->str, "requires_grad"))
            return fail_at(p, peek(p), "x.requires_grad = ... : write x.requires_grad_() (requires_grad(x, on)), "
                           "as torch's in-place form") ? 0 : -1;
        else if (s->expr->kind != BL_N_INDEX || root->kind != BL_N_NAME)
            return fail_at(p, peek(p), "can only assign to a name or to an index of one (x[i] = v)") ? 0 : -1;
        s->kind = BL_S_ASSIGN;
        s->target = s->expr;
        s->name = root->str;
        next(p);
        if (!(s->expr = expr(p))) return -1;
    }
    if (s->kind == BL_S_EXPR && peek(p)->kind == BL_T_GT && redirect(p, s) < 0) return -1;
    if (!at_end(p)) {
        if (peek(p)->kind == BL_T_GT)
            return fail_at(p, peek(p), "an assignment cannot be redirected") ? 0 : -1;
        return fail_at(p, peek(p), "expected an operator or the end of the statement") ? 0 : -1;
    }
    (void)start;
    return 0;
}

/* ---- blocks ---- */
/* TOP the input, BLOCK a block that ends at `end`, INDENTED one that ends where its lines'
 * indentation does (Python's form), LINE a one-line body */
enum { TOP, BLOCK, INDENTED, LINE };

static int statement(P *p, bl_stmt *s);

/* Is the END at the parser's position a newline (not ';')? */
static int at_newline(P *p)
{
    return peek(p)->kind == BL_T_EOF || (peek(p)->kind == BL_T_END && p->src[peek(p)->pos.off] != ';');
}

/* Does the token at the parser's position start a line indented less than the innermost
 * indented block's lines (so it is outside every block in that one)? */
static int dedented(P *p)
{
    return p->min_ind >= 0 && peek(p)->kind != BL_T_EOF && peek(p)->bol && peek(p)->ind < p->min_ind;
}

/* Statements into b: TOP up to the end of the input; BLOCK up to its `end`, `elif` or `else`
 * (left for the caller); INDENTED up to a line indented less than p->min_ind (lines indented
 * more that start no block's lines are an error, as Python's); LINE a one-line body, up to the
 * end of its line (or a one-line if's else). */
static int stmts(P *p, bl_block *b, int mode)
{
    int cap = 0, rc = 0;
    bl_stmt *ss = NULL;
    b->n = 0;
    for (;;) {
        if (mode == LINE) {
            /* after a statement (and its ';'): the line's end, or a one-line if's else, ends it */
            if (b->n && (at_newline(p) || (p->inline_if && at_end(p)))) break;
        } else {
            while (accept(p, BL_T_END)) {}
            if (peek(p)->kind == BL_T_EOF || dedented(p)) break;
            if (mode == TOP && peek(p)->bol && peek(p)->ind > (peek(p)->pos.line == p->line0 ? p->ind0 : 0)) {
                rc = fail_tok(p, peek(p), "IndentationError: unexpected indent (a statement outside a block "
                                          "starts its line)");
                break;
            }
            if (mode == INDENTED && peek(p)->bol && peek(p)->ind > p->min_ind) {
                char what[96];
                snprintf(what, sizeof what, "IndentationError: unexpected indent (the block's lines are indented %d)",
                         p->min_ind);
                rc = fail_tok(p, peek(p), what);
                break;
            }
            if (mode == INDENTED && kw(p, "end")) {
                rc = fail_tok(p, peek(p), "'end' inside an indented block: the block ends where its "
                                          "indentation does (leave end out, or write it under the block's header)");
                break;
            }
            if (kw(p, "end") || kw(p, "elif") || kw(p, "else")) {
                if (mode == BLOCK) break;
                rc = fail_tok(p, peek(p), kw(p, "end") ? "there is no open block to end (for, while, if or def)"
                                                       : "this belongs to an if block (if COND ... else ... end)");
                break;
            }
        }
        if (b->n == cap) {
            cap = cap ? 2 * cap : 4;
            bl_stmt *ns = realloc(ss, (size_t)cap * sizeof *ns);
            if (!ns) { rc = bl_fail("parser: out of memory"); break; }
            ss = ns;
        }
        bl_stmt *st = &ss[b->n];
        memset(st, 0, sizeof *st);
        int from = peek(p)->pos.off;
        if (mode == LINE && at_end(p)) { rc = fail_at(p, peek(p), "expected a statement after ':'") ? 0 : -1; break; }
        if (statement(p, st) < 0) { rc = -1; break; }
        int to = peek(p)->pos.off;
        if (!(st->text = astrndup(p->arena, p->src + from, (size_t)(to - from)))) { rc = -1; break; }
        b->n++;
        if (mode == LINE && peek(p)->kind == BL_T_END && !at_newline(p)) next(p);   /* ';' */
    }
    if (rc == 0 && b->n) {
        b->s = aalloc(p->arena, (size_t)b->n * sizeof *ss);
        if (!b->s) rc = -1;
        else memcpy(b->s, ss, (size_t)b->n * sizeof *ss);
    }
    free(ss);
    return rc;
}

/* After a header (for, while, if, elif, else): ':' and a one-line body, or a block up to `end`
 * (an if's up to its elif or else as well: then *stop is 1 and the keyword is next). */
static int body(P *p, bl_stmt *s, bl_block *b, const bl_token *head, int is_if, int *stop)
{
    char what[192];
    *stop = 0;
    int colon = accept(p, BL_T_COLON);
    if (colon && !at_end(p)) {      /* one line */
        if (++p->depth > MAX_NESTING) return fail_at(p, head, "blocks nested too deeply") ? 0 : -1;
        int saved = p->inline_if;
        p->inline_if = is_if;
        int rc = stmts(p, b, LINE);
        p->inline_if = saved;
        p->depth--;
        if (rc == 0 && is_if && (kw(p, "else") || kw(p, "elif"))) *stop = 1;
        return rc;
    }
    if (!at_end(p))
        return fail_at(p, peek(p), colon ? "expected a statement or the end of the line"
                                         : "expected ':' or the end of the line") ? 0 : -1;
    if (p->inline_if && (kw(p, "else") || kw(p, "elif")))
        return fail_at(p, peek(p), "expected a statement after ':'") ? 0 : -1;
    if (++p->depth > MAX_NESTING) return fail_at(p, head, "blocks nested too deeply") ? 0 : -1;
    int saved = p->inline_if, saved_ind = p->min_ind;
    p->inline_if = 0;
    while (accept(p, BL_T_END)) {}
    /* the block's first line says how it is written: indented deeper than its header's line,
     * Python's form, up to a line indented less; otherwise up to its `end` */
    const bl_token *first = peek(p);
    int indented = first->kind != BL_T_EOF && first->bol && first->ind > head->ind;
    if (indented) p->min_ind = first->ind;
    int rc = stmts(p, b, indented ? INDENTED : BLOCK);
    p->inline_if = saved, p->min_ind = saved_ind;
    p->depth--;
    if (rc < 0) return -1;
    const bl_token *t = peek(p);
    if (indented) {
        if (t->kind == BL_T_EOF || t->ind < head->ind) return 0;
        if (t->ind > head->ind) {
            snprintf(what, sizeof what, "IndentationError: unindent does not match any outer indentation level "
                     "(this line %d columns, the block %d, its header %d)", t->ind, first->ind, head->ind);
            return fail_tok(p, t, what);
        }
    }
    if (kw(p, "end") && !dedented(p)) {    /* under an indented block's header: closes it too */
        next(p);
        if (!at_end(p)) return fail_at(p, peek(p), "expected the end of the line after 'end'") ? 0 : -1;
        return 0;
    }
    if (is_if && (kw(p, "else") || kw(p, "elif")) && !dedented(p)) { *stop = 1; return 0; }
    (void)s;
    if (!strcmp(head->str, "else") && (kw(p, "else") || kw(p, "elif")) && !dedented(p)) {
        snprintf(what, sizeof what, "'%s' after the else of line %d: an if has one else, last", peek(p)->str,
                 head->pos.line);
        return fail_tok(p, peek(p), what);
    }
    if ((kw(p, "else") || kw(p, "elif")) && !dedented(p)) {
        snprintf(what, sizeof what, "'%s' belongs to an if, not to the '%s' of line %d", peek(p)->str, head->str,
                 head->pos.line);
        return fail_tok(p, peek(p), what);
    }
    if (indented) return 0;
    if (colon && (t->kind == BL_T_EOF || dedented(p)))
        snprintf(what, sizeof what, "expected an indented block after the '%s' of line %d (or 'end' to close it)",
                 head->str, head->pos.line);
    else
        snprintf(what, sizeof what, "expected 'end' to close the '%s' of line %d", head->str, head->pos.line);
    return fail_at(p, peek(p), what) ? 0 : -1;
}

/* if COND body (elif COND body)* [else body]: an elif is an if of its own in the else part. */
static int if_stmt(P *p, bl_stmt *s)
{
    bl_token *head = next(p);
    s->kind = BL_S_IF;
    int stop;
    if (!(s->expr = expr(p)) || body(p, s, &s->body, head, 1, &stop) < 0) return -1;
    if (!stop) return 0;
    if (kw(p, "elif")) {            /* an if of its own in the else part: nested once more */
        bl_stmt *e = aalloc(p->arena, sizeof *e);
        if (!e) return -1;
        e->pos = peek(p)->pos;
        s->orelse.n = 1, s->orelse.s = e;
        if (++p->depth > MAX_NESTING) return fail_at(p, peek(p), "too many elif in one if") ? 0 : -1;
        int rc = if_stmt(p, e);
        p->depth--;
        e->text = s->text;
        return rc;
    }
    bl_token *el = next(p);     /* else: its body ends the if (at `end`, or the line's end) */
    int colon = peek(p)->kind == BL_T_COLON;
    if (p->inline_if && !colon) return fail_at(p, peek(p), "expected ':' after else") ? 0 : -1;
    if (body(p, s, &s->orelse, el, 0, &stop) < 0) return -1;
    return 0;
}

/* def NAME(params) = expr, or def NAME(params) END block end. */
static int def_stmt(P *p, bl_stmt *s)
{
    bl_token *head = next(p), *name = next(p);
    s->kind = BL_S_DEF;
    if (name->kind != BL_T_NAME || bl_is_keyword(name->str) || !bl_name_assignable(name->str, NULL)) {
        p->i--;
        return fail_at(p, name, "expected the function's name after def") ? 0 : -1;
    }
    s->name = astrndup(p->arena, name->str, strlen(name->str));
    bl_token *open = next(p);
    if (open->kind != BL_T_LPAREN) { p->i--; return fail_at(p, open, "expected '(' and the parameters") ? 0 : -1; }
    if (params(p, s, BL_T_RPAREN) < 0) return -1;
    s->sig = span_text(p, (int)(name - p->ts.t), p->i);
    int rc = -1;
    int loops = p->loops;
    p->loops = 0;
    p->defs++;
    if (accept(p, BL_T_ASSIGN)) {       /* one line: the body is `return expr` */
        bl_stmt *r = aalloc(p->arena, sizeof *r);
        if (!r) goto back;
        r->kind = BL_S_RETURN;
        r->pos = peek(p)->pos;
        if (!(r->expr = expr(p))) goto back;
        r->text = span_text(p, (int)(name - p->ts.t), p->i);
        s->body.n = 1, s->body.s = r;
        if (!at_end(p)) { fail_at(p, peek(p), "expected an operator or the end of the statement"); goto back; }
        rc = 0;
    } else {
        int stop;
        rc = body(p, s, &s->body, head, 0, &stop);
    }
back:
    p->loops = loops;
    p->defs--;
    return rc;
}

/* NAME ['=' expr] (',' ...)* up to `close` (a def's ')', a lambda's ':'), into s->params,
 * s->defaults and s->ppos. 0, or -1 at the bad parameter. */
static int params(P *p, bl_stmt *s, bl_tok_kind close)
{
    int cap = 0, n = 0, rc = -1;
    const char **names = NULL;
    bl_ast **defs = NULL;
    bl_pos *pos = NULL;
    while (!accept(p, close)) {
        if (n && !accept(p, BL_T_COMMA)) {
            fail_at(p, peek(p), close == BL_T_RPAREN ? "expected ',' or ')'" : "expected ',' or ':'");
            goto out;
        }
        bl_token *t = next(p);
        if (t->kind != BL_T_NAME || !bl_name_assignable(t->str, NULL)) {
            p->i -= t->kind != BL_T_EOF;
            fail_at(p, t, "expected a parameter name");
            goto out;
        }
        for (int j = 0; j < n; j++)
            if (!strcmp(names[j], t->str)) { p->i--; fail_at(p, t, "this parameter is named twice"); goto out; }
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            const char **nn = realloc(names, (size_t)cap * sizeof *nn);
            bl_ast **nd = nn ? realloc(defs, (size_t)cap * sizeof *nd) : NULL;
            bl_pos *np = nd ? realloc(pos, (size_t)cap * sizeof *np) : NULL;
            if (nn) names = nn;
            if (nd) defs = nd;
            if (np) pos = np;
            if (!np) { bl_fail("parser: out of memory"); goto out; }
        }
        names[n] = astrndup(p->arena, t->str, strlen(t->str));
        pos[n] = t->pos;
        defs[n] = NULL;
        if (accept(p, BL_T_ASSIGN)) {
            if (!(defs[n] = expr(p))) goto out;
        } else if (n && defs[n - 1]) {
            p->i--;
            fail_at(p, t, "a parameter without a default cannot follow one with a default");
            goto out;
        }
        n++;
    }
    s->nparams = n;
    rc = 0;
    if (n) {
        s->params = aalloc(p->arena, (size_t)n * sizeof *names);
        s->defaults = aalloc(p->arena, (size_t)n * sizeof *defs);
        s->ppos = aalloc(p->arena, (size_t)n * sizeof *pos);
        if (!s->params || !s->defaults || !s->ppos) rc = -1;
        else {
            memcpy(s->params, names, (size_t)n * sizeof *names);
            memcpy(s->defaults, defs, (size_t)n * sizeof *defs);
            memcpy(s->ppos, pos, (size_t)n * sizeof *pos);
        }
    }
out:
    free(names);
    free(defs);
    free(pos);
    return rc;
}

/* Is e torch.no_grad() or torch.inference_mode() (or either without torch., after from torch
 * import no_grad)? bare: without the () as well (a decorator's @torch.no_grad, torch >= 2.0).
 * Both switch gradients off (blocklab has no inference tensors). */
static int grad_off(const bl_ast *e, int bare)
{
    const char *name = NULL;
    int torch = (e->kind == BL_N_METHOD || e->kind == BL_N_FIELD) && e->a->kind == BL_N_NAME &&
                !strcmp(e->a->str, "torch");
    if ((e->kind == BL_N_CALL || (torch && e->kind == BL_N_METHOD)) && e->n == 0) name = e->str;
    else if (bare && (e->kind == BL_N_NAME || (torch && e->kind == BL_N_FIELD))) name = e->str;
    return name && (!strcmp(name, "no_grad") || !strcmp(name, "inference_mode"));
}

/* with torch.no_grad(): body (or no_grad() without torch., or inference_mode()): the one
 * context blocklab has. */
static int with_stmt(P *p, bl_stmt *s)
{
    bl_token *head = next(p);
    s->kind = BL_S_WITH;
    bl_token *t = peek(p);
    bl_ast *e = expr(p);
    if (!e) return -1;
    if (!grad_off(e, 0))
        return fail_tok(p, t, "with: blocklab has one context, `with torch.no_grad():` (the body runs "
                              "without recording gradients; torch.inference_mode() the same)");
    if (kw(p, "as")) return fail_at(p, peek(p), "expected ':' (torch.no_grad() gives no value to name)") ? 0 : -1;
    int stop;
    return body(p, s, &s->body, head, 0, &stop);
}

/* ('@' decorator END)+ def ...: nanoGPT's @torch.no_grad() on estimate_loss and generate, the
 * only decorators blocklab has (with inference_mode, and without the () or torch.): each call
 * of the function runs its body without recording gradients (s->no_grad). */
static int decorated(P *p, bl_stmt *s)
{
    const bl_token *at = peek(p);
    if (!at->bol) return fail_tok(p, at, "a decorator starts its line (the def follows on the next)");
    while (peek(p)->kind == BL_T_AT) {
        const bl_token *a = next(p), *t = peek(p);
        if (a->ind != at->ind || !a->bol)
            return fail_tok(p, a, "a decorator starts its line, indented as the def it decorates");
        bl_ast *e = expr(p);
        if (!e) return -1;
        if (!grad_off(e, 1))
            return fail_tok(p, t, "decorator: blocklab has @torch.no_grad() only (and @torch.inference_mode(), "
                                  "@torch.no_grad, @no_grad() after from torch import no_grad)");
        if (!at_newline(p))
            return fail_at(p, peek(p), "expected the end of the line after the decorator (the def follows "
                                       "on the next line)") ? 0 : -1;
        while (accept(p, BL_T_END)) {}
    }
    bl_token *d = peek(p);
    if (!kw(p, "def")) {
        int lambda = d->kind == BL_T_NAME && peek2(p)->kind == BL_T_ASSIGN && p->ts.t[p->i + 2].kind == BL_T_NAME &&
                     !strcmp(p->ts.t[p->i + 2].str, "lambda");
        if (lambda)
            return fail_tok(p, d, "a decorator goes on a def, not on an assignment (write def NAME(...): "
                                  "instead of NAME = lambda ...)");
        return fail_at(p, d, "expected 'def' after the decorator (a decorator goes on a function)") ? 0 : -1;
    }
    if (d->ind != at->ind)
        return fail_tok(p, d, "IndentationError: unexpected indent (a def goes at its decorator's indentation)");
    s->pos = d->pos;     /* the function's lines count from its def, as an undecorated one's */
    if (def_stmt(p, s) < 0) return -1;
    s->no_grad = 1;
    return 0;
}

/* A module's dotted name (torch.nn.functional) into the arena. */
static const char *dotted(P *p)
{
    int from = p->i;
    do {
        bl_token *t = next(p);
        if (t->kind != BL_T_NAME) {
            p->i -= t->kind != BL_T_EOF;
            return fail_at(p, t, "expected a module name");
        }
    } while (peek(p)->kind == BL_T_DOT && next(p));
    return span_text(p, from, p->i);
}

/* import MODULE [as NAME] (',' ...)* | from MODULE import NAME [as NAME] (',' ...)*: the
 * modules, `from`'s as MODULE.NAME, into s->params and s->as (whether blocklab has them is
 * asked when the statement runs: modules.c). */
static int import_stmt(P *p, bl_stmt *s)
{
    int from = kw(p, "from");
    const char *base = NULL;
    next(p);
    s->kind = BL_S_IMPORT;
    if (from && (!(base = dotted(p)) ||
                 (!kw(p, "import") && !fail_at(p, peek(p), "expected 'import' (from MODULE import NAME)"))))
        return -1;
    if (from) next(p);
    list l = { 0 };
    int rc = 0;
    do {
        bl_token *t = peek(p);
        const char *m = dotted(p), *as = NULL;
        if (m && base) {
            char *full = aalloc(p->arena, strlen(base) + strlen(m) + 2);
            if (full) sprintf(full, "%s.%s", base, m);
            m = full;
        }
        if (m && kw(p, "as")) {
            next(p);
            bl_token *a = next(p);
            if (a->kind != BL_T_NAME || !bl_name_assignable(a->str, NULL)) {
                p->i -= a->kind != BL_T_EOF;
                m = fail_at(p, a, "expected a name after 'as'");
            } else {
                as = astrndup(p->arena, a->str, strlen(a->str));
            }
        }
        bl_ast *x = m ? node(p, BL_N_STR, t) : NULL;   /* the module; its `as` name in keys */
        if (x) x->str = m, x->pos.len = p->ts.t[p->i - 1].pos.off + p->ts.t[p->i - 1].pos.len - t->pos.off;
        if (!x || list_push(&l, x, as, t->pos) < 0) rc = -1;
    } while (rc == 0 && accept(p, BL_T_COMMA));
    if (rc == 0 && !at_end(p)) rc = fail_at(p, peek(p), "expected ',' or the end of the statement") ? 0 : -1;
    int n = l.n;
    s->nparams = n;
    s->params = rc == 0 ? aalloc(p->arena, (size_t)n * sizeof *s->params) : NULL;
    s->as = s->params ? aalloc(p->arena, (size_t)n * sizeof *s->as) : NULL;
    s->ppos = s->as ? aalloc(p->arena, (size_t)n * sizeof *s->ppos) : NULL;
    for (int i = 0; s->ppos && i < n; i++) s->params[i] = l.items[i]->str, s->as[i] = l.keys[i], s->ppos[i] = l.items[i]->pos;
    list_free(&l);
    return s->ppos ? 0 : -1;
}

static int statement(P *p, bl_stmt *s)
{
    bl_token *t = peek(p);
    s->pos = t->pos;
    if (t->kind == BL_T_AT) {
        if (p->inline_if) return fail_tok(p, t, "a function is defined on a line of its own");
        return decorated(p, s);
    }
    if (t->kind != BL_T_NAME || !bl_is_keyword(t->str) || kw(p, "not") || kw(p, "lambda")) return simple(p, s);
    int stop;
    if (kw(p, "if")) return if_stmt(p, s);
    if (kw(p, "def")) {
        if (p->inline_if) return fail_tok(p, t, "a function is defined on a line of its own");
        return def_stmt(p, s);
    }
    if (kw(p, "while") || kw(p, "for")) {
        int is_for = kw(p, "for");
        bl_token *head = next(p);
        s->kind = is_for ? BL_S_FOR : BL_S_WHILE;
        if (is_for) {
            /* for i, x in enumerate(xs): each item unpacked into the names */
            if (target(p, s, "expected the loop variable's name after for") < 0) return -1;
            if (!kw(p, "in")) return fail_at(p, peek(p), "expected 'in' (for NAME in LIST)") ? 0 : -1;
            next(p);
        }
        if (!(s->expr = expr(p))) return -1;
        p->loops++;
        int rc = body(p, s, &s->body, head, 0, &stop);
        p->loops--;
        return rc;
    }
    if (kw(p, "with")) return with_stmt(p, s);
    if (kw(p, "import") || kw(p, "from")) return import_stmt(p, s);
    if (kw(p, "return")) {
        next(p);
        s->kind = BL_S_RETURN;
        if (!p->defs) return fail_tok(p, t, "'return' outside a function");
        if (!at_end(p) && !(s->expr = expr_list(p))) return -1;
        if (!at_end(p)) return fail_at(p, peek(p), "expected an operator or the end of the statement") ? 0 : -1;
        return 0;
    }
    if (kw(p, "pass")) {
        next(p);
        s->kind = BL_S_PASS;
        if (!at_end(p)) return fail_at(p, peek(p), "expected the end of the statement") ? 0 : -1;
        return 0;
    }
    if (kw(p, "assert")) {          /* assert COND [, MESSAGE] */
        next(p);
        s->kind = BL_S_ASSERT;
        if (!(s->expr = expr(p))) return -1;
        if (accept(p, BL_T_COMMA) && !(s->msg = expr(p))) return -1;
        if (!at_end(p)) return fail_at(p, peek(p), "expected ', MESSAGE' or the end of the statement") ? 0 : -1;
        return 0;
    }
    if (kw(p, "break") || kw(p, "continue")) {
        next(p);
        s->kind = !strcmp(t->str, "break") ? BL_S_BREAK : BL_S_CONTINUE;
        if (!p->loops) return fail_tok(p, t, !strcmp(t->str, "break") ? "'break' outside a loop"
                                                                      : "'continue' outside a loop");
        if (!at_end(p)) return fail_at(p, peek(p), "expected the end of the statement") ? 0 : -1;
        return 0;
    }
    if (kw(p, "global")) {
        next(p);
        s->kind = BL_S_GLOBAL;
        if (!p->defs) return fail_tok(p, t, "'global' outside a function (names outside functions are global)");
        int from = p->i, n = 0;
        do {
            bl_token *v = next(p);
            if (v->kind != BL_T_NAME || !bl_name_assignable(v->str, NULL)) {
                p->i -= v->kind != BL_T_EOF;
                return fail_at(p, v, "expected a variable name") ? 0 : -1;
            }
            n++;
        } while (accept(p, BL_T_COMMA));
        if (!at_end(p)) return fail_at(p, peek(p), "expected ',' or the end of the statement") ? 0 : -1;
        s->nparams = n;
        if (!(s->params = aalloc(p->arena, (size_t)n * sizeof *s->params))) return -1;
        for (int i = 0; i < n; i++)
            if (!(s->params[i] = astrndup(p->arena, p->ts.t[from + 2 * i].str, strlen(p->ts.t[from + 2 * i].str))))
                return -1;
        return 0;
    }
    if (kw(p, "and") || kw(p, "or") || kw(p, "is"))
        return fail_tok(p, t, kw(p, "is") ? "'is' is an operator (a is b), not a name"
                                          : "'and' and 'or' join two values (a and b, a or b), not a name");
    return fail_tok(p, t, kw(p, "in") ? "'in' belongs in a for loop (for NAME in LIST)"
                                      : kw(p, "end") ? "there is no open block to end (for, while, if or def)"
                                      : "this belongs to an if block (if COND ... else ... end)");
}

const char *const bl_keywords[] = {
    "def", "return", "for", "in", "while", "if", "elif", "else", "end", "break", "continue", "global", "is",
    "and", "or", "not", "pass", "assert", "with", "import", "from", "as", "lambda",
    NULL
};

int bl_is_keyword(const char *name)
{
    for (const char *const *k = bl_keywords; *k; k++)
        if (!strcmp(*k, name)) return 1;
    return 0;
}

int bl_name_assignable(const char *s, int *constant)
{
    if (constant) *constant = 0;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (const char *c = s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_')) return 0;
    if (!strcmp(s, "true") || !strcmp(s, "false") || !strcmp(s, "on") || !strcmp(s, "off") ||
        !strcmp(s, "True") || !strcmp(s, "False") || !strcmp(s, "None") || !strcmp(s, "none")) {
        if (constant) *constant = 1;
        return 0;
    }
    return !bl_is_keyword(s);
}

int bl_parse(const char *src, int line, int col, bl_is_command_fn is_cmd, bl_program *prog,
             bl_pos *errpos)
{
    memset(prog, 0, sizeof *prog);
    P p = { .src = src, .arena = &prog->arena, .errpos = errpos, .is_cmd = is_cmd, .min_ind = -1,
            .line0 = line, .ind0 = col - 1 };
    if (bl_lex(src, line, col, &p.ts, errpos) < 0) return -1;
    bl_block top;
    int rc = stmts(&p, &top, TOP);
    prog->n = rc < 0 ? 0 : top.n, prog->s = rc < 0 ? NULL : top.s;
    bl_tokens_free(&p.ts);
    if (rc < 0) bl_program_free(prog);     /* nothing to keep after a syntax error */
    return rc;
}
