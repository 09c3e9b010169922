/* lexer.c - the hand-written tokenizer of the blocklab language (see lexer.h). */
#include "repl/lexer.h"
#include "core/error.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int push(bl_tokens *ts, bl_token t)
{
    if (ts->n == ts->cap) {
        int cap = ts->cap ? 2 * ts->cap : 32;
        bl_token *nt = realloc(ts->t, (size_t)cap * sizeof *nt);
        if (!nt) { free(t.str); return bl_fail("lexer: out of memory"); }
        ts->t = nt;
        ts->cap = cap;
    }
    ts->t[ts->n++] = t;
    return 0;
}

/* Tokens after which a newline does not end the statement: an open bracket, a binary operator or
 * '='. Not ',' '.' or ':' (issue 20): `qk growth scales=1,2,` or `save .` ran the next line as
 * part of the command, and ':' ends the header of a block (`for s in l:`). */
static int continues(bl_tok_kind k)
{
    switch (k) {
    case BL_T_LPAREN: case BL_T_LBRACK: case BL_T_LBRACE: case BL_T_ASSIGN: case BL_T_PLUS: case BL_T_MINUS: case BL_T_STAR: case BL_T_SLASH:
    case BL_T_AT: case BL_T_LT: case BL_T_LE: case BL_T_GE: case BL_T_EQ: case BL_T_NE:
    case BL_T_POW: case BL_T_FLOORDIV: case BL_T_PERCENT: case BL_T_BSLASH:
        return 1;
    default:
        return 0;
    }
}

/* East Asian Wide and Fullwidth blocks (Unicode UAX #11, the main ranges), for locales whose
 * wcwidth() does not know them. */
static int wide(unsigned cp)
{
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
           (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
           (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
           (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
           (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

int bl_text_width(const char *s, int nbytes)
{
    int w = 0;
    for (int i = 0; i < nbytes && s[i];) {
        unsigned char c = (unsigned char)s[i];
        int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        unsigned cp = n == 1 ? c : c & (0x7f >> n);
        int k = 1;
        for (; k < n && i + k < nbytes && ((unsigned char)s[i + k] >> 6) == 2; k++)
            cp = cp << 6 | ((unsigned char)s[i + k] & 0x3f);
        if (k < n) cp = c, k = 1;            /* a broken sequence: one column per byte */
        int cw = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);
        if (cw < 0) cw = wide(cp) ? 2 : 1;  /* a locale (C) that does not know it */
        w += cw;
        i += k;
    }
    return w;
}

int bl_lex_escape(char c)
{
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case '\\': case '"': case '\'': return c;
    default:
        return bl_fail("unknown escape '\\%c' in a string (known: \\n \\t \\r \\\\ \\\" \\')", c);
    }
}

/* 1 when s starts with three quotes q (Python's triple-quoted string). */
static int triple_at(const char *s, char q) { return s[0] == q && s[1] == q && s[2] == q; }

/* The string whose opening quote is s[*i]: '...' or "..." on one line, or """...""" / '''...'''
 * (a triple-quoted string, Python's: newlines and lone quotes are part of it). The escapes are
 * bl_lex_escape's. *i moves past the closing quote(s); 0, or -1 + error. */
static int lex_string(const char *s, int *i, char **out)
{
    char q = s[*i];
    int triple = triple_at(s + *i, q);
    size_t cap = 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return bl_fail("lexer: out of memory");
    int j = *i + (triple ? 3 : 1);
    for (;;) {
        char c = s[j];
        if (c == '\0' || (c == '\n' && !triple)) {
            free(buf);
            return bl_fail(triple ? "unterminated triple-quoted string" : "unterminated string");
        }
        if (c == q && (!triple || triple_at(s + j, q))) break;
        if (c == '\\' && s[j + 1]) {
            j++;
            int e = bl_lex_escape(s[j]);
            if (e < 0) {
                free(buf);
                *i = j - 1;
                return -1;
            }
            c = (char)e;
        }
        if (n + 2 > cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); return bl_fail("lexer: out of memory"); }
            buf = nb;
        }
        buf[n++] = c;
        j++;
    }
    buf[n] = '\0';
    *out = buf;
    *i = j + (triple ? 3 : 1);
    return 0;
}

/* Where in text a triple-quoted string opens that text does not close (its offset; *q its
 * quote), or -1: text's comments and strings skipped as the lexer reads them. */
static int open_triple(const char *text, char *q)
{
    for (int i = 0; text[i];) {
        char c = text[i];
        if (c == '#') {
            while (text[i] && text[i] != '\n') i++;
        } else if (c == '"' || c == '\'') {
            int tri = triple_at(text + i, c), at = i;
            i += tri ? 3 : 1;
            while (text[i] && !(tri ? triple_at(text + i, c) : text[i] == c || text[i] == '\n'))
                i += text[i] == '\\' && text[i + 1] ? 2 : 1;
            if (!text[i] && tri) {
                *q = c;
                return at;
            }
            if (text[i]) i += tri ? 3 : 1;
        } else {
            i++;
        }
    }
    return -1;
}

/* The offset just past the three quotes q that close an open triple-quoted string in text (its
 * escapes skipped), or -1 when text does not close it. */
static int close_triple(const char *text, char q)
{
    for (int i = 0; text[i]; i += text[i] == '\\' && text[i + 1] ? 2 : 1)
        if (triple_at(text + i, q)) return i + 3;
    return -1;
}

int bl_lex_indent(const char *s, int col)
{
    int w = col - 1;
    for (; *s == ' ' || *s == '\t'; s++) w = *s == ' ' ? w + 1 : (w / 8 + 1) * 8;
    return w;
}

int bl_lex(const char *src, int line, int col, bl_tokens *out, bl_pos *errpos)
{
    memset(out, 0, sizeof *out);
    int i = 0, depth = 0, space = 1;
    int bol = 1, ind = bl_lex_indent(src, col);    /* the next token starts its line; the
                                                    * line's indentation */
    int wat = 0, wcol = col;        /* display column wcol at byte wat: each token's column adds
                                     * the width since the previous one (not since the line's
                                     * start: that made a long line quadratic) */
    for (;;) {
        char c = src[i];
        if (c == ' ' || c == '\t' || c == '\r') { i++; space = 1; continue; }
        if (c == '#') { while (src[i] && src[i] != '\n') i++; continue; }
        if (c == '\\' && src[i + 1 + (src[i + 1] == '\r')] == '\n') {
            /* explicit line joining: the next line goes on with this one (no END, not a line's
             * start for the indentation) */
            i += 2 + (src[i + 1] == '\r');
            line++;
            wat = i, wcol = 1;
            space = 1;
            continue;
        }
        bl_token t = { .kind = BL_T_EOF, .space_before = space, .bol = bol, .ind = ind };
        t.pos.off = i;
        t.pos.line = line;
        wcol += bl_text_width(src + wat, i - wat);
        wat = i;
        t.pos.col = wcol;
        t.pos.len = 1;
        if (c == '\n') {
            bl_tok_kind prev = out->n ? out->t[out->n - 1].kind : BL_T_END;
            i++;
            line++;
            wat = i, wcol = 1;
            space = 1;
            bol = 1, ind = bl_lex_indent(src + i, 1);
            if (depth > 0 || continues(prev) || prev == BL_T_END) continue;
            t.kind = BL_T_END;
            if (push(out, t) < 0) goto fail;
            continue;
        }
        space = 0;
        bol = 0;
        if (c == '\0') {
            t.pos.len = 0;
            if (push(out, t) < 0) goto fail;
            return 0;
        }
        if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)src[i + 1]))) {
            /* only plain decimals (strtod alone would also read "0x1p3" and "infinity") */
            char tmp[64];
            int j = i;
            t.kind = BL_T_NUM;
            while (isdigit((unsigned char)src[j])) j++;
            if (src[j] == '.') { j++; while (isdigit((unsigned char)src[j])) j++; }
            if ((src[j] == 'e' || src[j] == 'E') &&
                (isdigit((unsigned char)src[j + 1]) ||
                 ((src[j + 1] == '+' || src[j + 1] == '-') && isdigit((unsigned char)src[j + 2])))) {
                j += 2;
                while (isdigit((unsigned char)src[j])) j++;
            }
            snprintf(tmp, sizeof tmp, "%.*s", j - i, src + i);
            t.num = strtod(tmp, NULL);
            t.pos.len = j - i;
            i = j;
        } else if ((c == 'f' || c == 'F') && (src[i + 1] == '"' || src[i + 1] == '\'')) {
            /* an f-string: its escapes checked as a string's, its text kept as written */
            int j = i + 1;
            char *unescaped = NULL;
            if (lex_string(src, &j, &unescaped) < 0) {
                if (errpos) {
                    *errpos = t.pos;
                    if (j != i + 1) errpos->off = j, errpos->len = 2,
                        errpos->col += bl_text_width(src + i, j - i);
                }
                goto fail;
            }
            free(unescaped);
            t.kind = BL_T_FSTR;
            int tq = triple_at(src + i + 1, src[i + 1]) ? 3 : 1;
            t.str = strndup(src + i + 1 + tq, (size_t)(j - i - 1 - 2 * tq));
            if (!t.str) { bl_fail("lexer: out of memory"); goto fail; }
            t.pos.len = j - i;
            i = j;
        } else if (isalpha((unsigned char)c) || c == '_') {
            int j = i;
            while (isalnum((unsigned char)src[j]) || src[j] == '_') j++;
            t.kind = BL_T_NAME;
            t.str = strndup(src + i, (size_t)(j - i));
            if (!t.str) { bl_fail("lexer: out of memory"); goto fail; }
            t.pos.len = j - i;
            i = j;
        } else if (c == '"' || c == '\'') {
            int j = i;
            if (lex_string(src, &j, &t.str) < 0) {
                if (errpos) {
                    *errpos = t.pos;      /* an unknown escape: at its backslash */
                    if (j != i) errpos->off = j, errpos->len = 2,
                        errpos->col += bl_text_width(src + i, j - i);
                }
                goto fail;
            }
            t.kind = BL_T_STR;
            t.pos.len = j - i;
            for (int k = i; k < j; k++)     /* a triple-quoted string's lines */
                if (src[k] == '\n') line++, wat = k + 1, wcol = 1;
            i = j;
        } else {
            char d = src[i + 1];
            int two = 0;
            switch (c) {
            case '(': t.kind = BL_T_LPAREN; depth++; break;
            case '[': t.kind = BL_T_LBRACK; depth++; break;
            case ')': t.kind = BL_T_RPAREN; if (depth) depth--; break;
            case ']': t.kind = BL_T_RBRACK; if (depth) depth--; break;
            case '{': t.kind = BL_T_LBRACE; depth++; break;
            case '}': t.kind = BL_T_RBRACE; if (depth) depth--; break;
            case ',': t.kind = BL_T_COMMA; break;
            case '.': t.kind = BL_T_DOT; break;
            case ':': t.kind = BL_T_COLON; break;
            case '+': t.kind = BL_T_PLUS; break;
            case '-': t.kind = BL_T_MINUS; break;
            case '*': if (d == '*') { t.kind = BL_T_POW; two = 1; } else t.kind = BL_T_STAR; break;
            case '/': if (d == '/') { t.kind = BL_T_FLOORDIV; two = 1; } else t.kind = BL_T_SLASH; break;
            case '%': t.kind = BL_T_PERCENT; break;
            case '@': t.kind = BL_T_AT; break;
            case ';': t.kind = BL_T_END; break;
            case '=': if (d == '=') { t.kind = BL_T_EQ; two = 1; } else t.kind = BL_T_ASSIGN; break;
            case '<': if (d == '=') { t.kind = BL_T_LE; two = 1; } else t.kind = BL_T_LT; break;
            case '>': if (d == '=') { t.kind = BL_T_GE; two = 1; } else t.kind = BL_T_GT; break;
            case '!': if (d == '=') { t.kind = BL_T_NE; two = 1; } else t.kind = BL_T_OTHER; break;
            case '\\': t.kind = src[i + 1 + strspn(src + i + 1, " \t\r")] ? BL_T_OTHER : BL_T_BSLASH; break;
            default: t.kind = BL_T_OTHER; break;
            }
            if (t.kind == BL_T_OTHER && (unsigned char)c >= 0x80) {
                int j = i + 1;      /* keep a UTF-8 sequence in one token */
                while ((src[j] & 0xC0) == 0x80) j++;
                t.pos.len = j - i;
            } else {
                t.pos.len = 1 + two;
            }
            if (t.kind == BL_T_OTHER && !(t.str = strndup(src + i, (size_t)t.pos.len))) {
                bl_fail("lexer: out of memory");
                goto fail;
            }
            i += t.pos.len;
        }
        if (push(out, t) < 0) goto fail;
    }
fail:
    bl_tokens_free(out);
    return -1;
}

void bl_tokens_free(bl_tokens *ts)
{
    for (int i = 0; i < ts->n; i++) free(ts->t[i].str);
    free(ts->t);
    memset(ts, 0, sizeof *ts);
}

/* The block keywords (parser.h): which kind of header a statement that starts with name is. */
static int header_kind(const char *name)
{
    if (!strcmp(name, "for") || !strcmp(name, "while") || !strcmp(name, "if") || !strcmp(name, "with")) return 1;
    if (!strcmp(name, "def")) return 2;
    if (!strcmp(name, "elif") || !strcmp(name, "else")) return 3;
    return 0;
}

/* An open block's bind: (>= 0) its lines' indentation; PENDING its header's line ended with
 * ':' (-1) or without (-3), its first line not yet seen; ENDED it ends at `end` (-2). */
enum { PENDING_COLON = -1, ENDED = -2, PENDING = -3 };

static void push_block(bl_lex_state *st, int colon)
{
    if (st->blocks < BL_LEX_BLOCKS)
        st->open[st->blocks].hind = st->hind, st->open[st->blocks].bind = colon ? PENDING_COLON : PENDING;
    st->blocks++;
}

/* The innermost open block, or NULL (none, or deeper than the stack keeps: those end by `end`). */
static bl_lex_block *top_block(bl_lex_state *st)
{
    return st->blocks > 0 && st->blocks <= BL_LEX_BLOCKS ? &st->open[st->blocks - 1] : NULL;
}

/* Whether text's last line ends in a backslash that joins the next line to it (explicit line
 * joining, as Python's): outside a string and a comment, right before the final newline. */
static int joined_line(const char *text)
{
    size_t n = strlen(text);
    if (n < 2 || text[n - 1] != '\n') return 0;
    size_t end = n - 1 - (n >= 3 && text[n - 2] == '\r'), from = n - 1;    /* the last line: from .. end */
    if (end == 0 || text[end - 1] != '\\') return 0;
    while (from > 0 && text[from - 1] != '\n') from--;
    char q = 0;
    for (size_t i = from; i + 1 < end; i++) {
        if (q) {
            if (text[i] == '\\') i++;
            else if (text[i] == q) q = 0;
        } else if (text[i] == '"' || text[i] == '\'') {
            q = text[i];
        } else if (text[i] == '#') {
            return 0;
        }
    }
    return !q;
}

int bl_lex_more(bl_lex_state *st, const char *text)
{
    bl_tokens ts;
    bl_pos ep;
    if (st->triple) {       /* inside a triple-quoted string: the lines up to its end are its text */
        int k = close_triple(text, st->triple);
        if (k < 0) return 1;
        st->triple = 0;
        text += k;
    }
    if (bl_lex(text, 1, 1, &ts, &ep) < 0) {
        bl_clear_error();
        char q;
        int at = open_triple(text, &q);
        if (at < 0) return 0;   /* an unterminated string is an error, not a continuation */
        /* a triple-quoted string opens on this line: what comes before it, and an empty
         * string in its place, say where the statement stands */
        char *pre = malloc((size_t)at + 3);
        if (!pre) return 0;
        memcpy(pre, text, (size_t)at);
        memcpy(pre + at, "\"\"", 3);
        int r = bl_lex_more(st, pre);
        free(pre);
        if (r == 2) return 2;
        st->triple = q;
        return 1;
    }
    if (ts.n == 1 && st->interactive && st->depth == 0 && !continues(st->last) && !text[strspn(text, " \t\r\n")]) {
        /* a blank line at the prompt closes the indented blocks (and one whose header ended in
         * ':' before its first line: the parser says the block is missing), as Python's REPL */
        while (top_block(st) && (top_block(st)->bind >= 0 || top_block(st)->bind == PENDING_COLON)) st->blocks--;
        st->decor = 0;      /* a decorator without its def: the parser says so */
    }
    for (int i = 0; i < ts.n; i++) {
        bl_tok_kind k = ts.t[i].kind;
        /* text is whole lines: its end ends a line (the prompt's lines come without '\n') */
        if (k == BL_T_EOF && (st->depth > 0 || continues(st->last))) break;
        if (k == BL_T_EOF) k = BL_T_END;
        if (st->colon) {            /* `for ... :` then a statement on the same line: one line */
            st->colon = 0;
            if (k != BL_T_END) st->header = 0, st->mid = 0;
        }
        const bl_token *t = &ts.t[i];
        int first_on_line = i == 0 || t->pos.line > ts.t[i - 1].pos.line;
        int ended = 0, else_opens = 0;
        if (t->bol && k != BL_T_END && !st->mid && st->depth == 0 && st->blocks > 0) {
            /* a statement's first line: the first line of a block says how it is written
             * (indented deeper than its header: Python's form, up to a line indented less);
             * a line indented less closes the indented blocks it is outside of */
            if (top_block(st) && (top_block(st)->bind == PENDING || top_block(st)->bind == PENDING_COLON))
                top_block(st)->bind = t->ind > top_block(st)->hind ? t->ind : ENDED;
            int closed = 0, bad = 0;
            while (top_block(st) && top_block(st)->bind >= 0 && t->ind < top_block(st)->bind) {
                int hind = top_block(st)->hind;
                st->blocks--, closed = 1;
                if (t->ind > hind) { bad = 1; break; }     /* the parser says so */
                if (t->ind < hind) continue;
                if (k != BL_T_NAME) break;
                if (!strcmp(t->str, "end")) ended = 1;    /* `end` under the header closes it too */
                else if (!strcmp(t->str, "else") || !strcmp(t->str, "elif")) else_opens = 1;  /* of an if */
                break;
            }
            if (closed && st->blocks == 0 && !bad && !ended && !else_opens) {
                if (t->pos.line == 1) {     /* the statement ended before this line */
                    bl_tokens_free(&ts);
                    return 2;
                }
                int interactive = st->interactive;
                *st = (bl_lex_state){ .interactive = interactive };
            }
        }
        /* the statement after a decorator's line starts: the decorator is done with (a def
         * opens its block; anything else ends at its line's end, and the parser says why) */
        if (!st->mid && st->depth == 0 && k != BL_T_END && k != BL_T_AT) st->decor = 0;
        if (ended) {
            st->mid = 1, st->header = 0;
        } else if (k == BL_T_NAME && first_on_line && st->blocks > 0 && (st->depth > 0 || continues(st->last)) &&
            !strcmp(t->str, "end")) {
            /* `return x +` or `y = (1 +` then `end` (a keyword no expression holds): the block
             * ends here all the same and the parser says what the line before lacks, instead of
             * the rest of the file joining the block */
            st->blocks--;
            st->depth = 0;
            st->header = 0, st->mid = 1;
        } else if (k == BL_T_END && st->depth == 0) {
            /* a header that reaches the end of its statement opens a block (elif and else
             * continue the one that is open when it ends at `end`; after an indented block they
             * open their own) */
            if (st->header == 1 || st->header == 2 || st->header == 4) push_block(st, st->last == BL_T_COLON);
            st->header = 0, st->mid = 0;
            if (st->decor == 2) st->decor = 1;     /* the decorated def follows */
        } else if (!st->mid && st->depth == 0 && k == BL_T_AT) {
            st->mid = 1, st->decor = 2;     /* @torch.no_grad(): a decorator line */
        } else if (!st->mid && st->depth == 0 && k == BL_T_NAME) {
            st->mid = 1;
            st->header = header_kind(t->str);
            st->hind = t->ind;
            if (st->header == 3 && else_opens) st->header = 4;
            if (!strcmp(t->str, "end") && st->blocks > 0) st->blocks--;
        } else {
            st->mid = 1;
        }
        if (k == BL_T_LPAREN || k == BL_T_LBRACK || k == BL_T_LBRACE) st->depth++;
        else if ((k == BL_T_RPAREN || k == BL_T_RBRACK || k == BL_T_RBRACE) && st->depth > 0) st->depth--;
        else if (st->depth == 0 && st->header == 2 && k == BL_T_ASSIGN) st->header = 0;  /* def f(x) = ... */
        else if (st->depth == 0 && st->header && k == BL_T_COLON) st->colon = 1;
        /* a newline's END only says the line ended; what came before it decides */
        if (t->kind != BL_T_EOF && !(k == BL_T_END && text[t->pos.off] == '\n')) st->last = k;
    }
    bl_tokens_free(&ts);
    return st->depth > 0 || continues(st->last) || st->blocks > 0 || st->triple || st->decor || joined_line(text);
}

int bl_lex_incomplete(const char *src)
{
    bl_lex_state st = { 0 };
    return bl_lex_more(&st, src);
}

const char *bl_tok_desc(const bl_token *t, char *buf, size_t n)
{
    static const char *sym[] = {
        [BL_T_LPAREN] = "(", [BL_T_RPAREN] = ")", [BL_T_LBRACK] = "[", [BL_T_RBRACK] = "]",
        [BL_T_COMMA] = ",", [BL_T_ASSIGN] = "=", [BL_T_DOT] = ".", [BL_T_COLON] = ":",
        [BL_T_PLUS] = "+", [BL_T_MINUS] = "-", [BL_T_STAR] = "*", [BL_T_SLASH] = "/",
        [BL_T_AT] = "@", [BL_T_GT] = ">", [BL_T_LT] = "<", [BL_T_LE] = "<=", [BL_T_GE] = ">=",
        [BL_T_EQ] = "==", [BL_T_NE] = "!=", [BL_T_POW] = "**",
        [BL_T_FLOORDIV] = "//", [BL_T_PERCENT] = "%", [BL_T_IS] = "is", [BL_T_ISNOT] = "is not",
        [BL_T_IN] = "in", [BL_T_NOTIN] = "not in", [BL_T_BSLASH] = "\\", [BL_T_LBRACE] = "{",
        [BL_T_RBRACE] = "}",
    };
    switch (t->kind) {
    case BL_T_EOF: case BL_T_END: snprintf(buf, n, "end of statement"); break;
    case BL_T_NUM: snprintf(buf, n, "number %g", t->num); break;
    case BL_T_STR: snprintf(buf, n, "string \"%s\"", t->str); break;
    case BL_T_FSTR: snprintf(buf, n, "f-string \"%s\"", t->str); break;
    case BL_T_NAME: snprintf(buf, n, "'%s'", t->str); break;
    case BL_T_OTHER: snprintf(buf, n, "character '%s'", t->str); break;
    default: snprintf(buf, n, "'%s'", sym[t->kind]); break;
    }
    return buf;
}
