/* strfmt.c - str(x), format(x, spec) and "..." % args, as Python's (see strfmt.h). */
#include "repl/strfmt.h"
#include "core/error.h"
#include "core/fmt.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *bl_str_of(const bl_value *v)
{
    if (v->kind == BL_V_STR) {
        char *r = strdup(v->str);
        return r ? r : BL_FAILP("str: out of memory");
    }
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return BL_FAILP("str: out of memory");
    if (v->kind == BL_V_TABLE || v->kind == BL_V_HANDLE) bl_val_print(v, f);
    else bl_val_print_inline(v, f);
    if (fclose(f) != 0 || !buf) {
        free(buf);
        return BL_FAILP("str: out of memory");
    }
    while (n > 0 && buf[n - 1] == '\n') buf[--n] = 0;
    return buf;
}

char *bl_repr_of(const bl_value *v)
{
    if (v->kind != BL_V_STR) return bl_str_of(v);
    /* Python's: single quotes unless the text has one and no double quote */
    char q = strchr(v->str, '\'') && !strchr(v->str, '"') ? '"' : '\'';
    size_t n = strlen(v->str);
    char *r = malloc(4 * n + 3), *o = r;
    if (!r) return BL_FAILP("repr: out of memory");
    *o++ = q;
    for (const unsigned char *p = (const unsigned char *)v->str; *p; p++) {
        if (*p == '\\' || *p == (unsigned char)q) *o++ = '\\', *o++ = (char)*p;
        else if (*p == '\n') *o++ = '\\', *o++ = 'n';
        else if (*p == '\t') *o++ = '\\', *o++ = 't';
        else if (*p == '\r') *o++ = '\\', *o++ = 'r';
        else if (*p < 0x20 || *p == 0x7f) o += sprintf(o, "\\x%02x", *p);
        else *o++ = (char)*p;
    }
    *o++ = q;
    *o = 0;
    return r;
}

/* A parsed spec. */
typedef struct {
    char fill, align;   /* align 0: the default (numbers right, strings left) */
    char sign;          /* '+', ' ' or '-' (the default) */
    int width, prec;    /* prec -1: none */
    char type;          /* 0: none */
    int trunc;          /* %d of 2.7 is 2 (printf form); format's d refuses 2.7 */
} spec_t;

static int parse_spec(const char *s, spec_t *sp)
{
    const char *s0 = s;
    *sp = (spec_t){ .fill = ' ', .sign = '-', .prec = -1 };
    if (s[0] && s[1] && strchr("<>^=", s[1])) sp->fill = s[0], sp->align = s[1], s += 2;
    else if (s[0] && strchr("<>^=", s[0])) sp->align = *s++;
    if (*s == '+' || *s == '-' || *s == ' ') sp->sign = *s++;
    if (*s == '#') s++;
    if (*s == '0') {
        if (!sp->align) sp->fill = '0', sp->align = '=';
        s++;
    }
    for (; isdigit((unsigned char)*s); s++)
        if ((sp->width = sp->width * 10 + (*s - '0')) > 1000) return bl_fail("format: width in '%s' over 1000", s0);
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s)) return bl_fail("format: expected digits after '.' in '%s'", s0);
        for (sp->prec = 0; isdigit((unsigned char)*s); s++)
            if ((sp->prec = sp->prec * 10 + (*s - '0')) > 100) return bl_fail("format: precision in '%s' over 100", s0);
    }
    if (*s && strchr("dxXobeEfFgGns%", *s)) sp->type = *s++;
    if (*s) return bl_fail("format: cannot read '%s' at '%s' (as Python's: [[fill]align][sign][0][width][.precision]"
                           "[type], e.g. .4f, >8, +.2e, d)", s0, s);
    return 0;
}

/* The number a value formats as: a number, a bool or a one-element tensor. */
static int number_of(const bl_value *v, double *x)
{
    if (v->kind == BL_V_NUM || v->kind == BL_V_BOOL) return *x = v->num, 1;
    if (v->kind == BL_V_TENSOR && v->t->numel == 1) return *x = v->t->data[0], 1;
    return 0;
}

/* body (its sign first, when sign) padded to the spec's width, into out. */
static char *pad(const char *body, const spec_t *sp, int numeric)
{
    size_t n = strlen(body), w = (size_t)sp->width > n ? (size_t)sp->width : n;
    char *r = malloc(w + 1);
    if (!r) return BL_FAILP("format: out of memory");
    size_t fill = w - n, left = 0;
    char align = sp->align ? sp->align : numeric ? '>' : '<';
    if (align == '>') left = fill;
    else if (align == '^') left = fill / 2;
    size_t k = 0;
    if (align == '=' && numeric && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) r[k++] = *body++;
    if (align == '=') left = fill;
    memset(r + k, sp->fill, left), k += left;
    strcpy(r + k, body);
    memset(r + k + strlen(body), sp->fill, fill - left);
    r[w] = 0;
    return r;
}

static char *format_number(double x, const spec_t *sp)
{
    char body[512], conv[32];
    char t = sp->type ? sp->type : sp->prec >= 0 ? 'g' : 0;
    const char *sign = sp->sign == '+' ? "+" : sp->sign == ' ' ? " " : "";
    if (t == 'd' || t == 'x' || t == 'X' || t == 'o' || t == 'b') {
        if (sp->trunc) x = trunc(x);
        if (x != floor(x) || fabs(x) > 9e18) {
            char num[32];
            return BL_FAILP("format: '%c' needs a whole number, got %s (use .0f, or int(x))", t, bl_fmt_g(x, num, sizeof num));
        }
        long long i = (long long)x;
        unsigned long long u = (unsigned long long)(i < 0 ? -i : i);
        const char *pre = i < 0 ? "-" : sign;
        if (t == 'b') {
            char bits[72];
            int k = 71;
            bits[k] = 0;
            do bits[--k] = (char)('0' + (u & 1)); while (u >>= 1);
            snprintf(body, sizeof body, "%s%s", pre, bits + k);
        } else {
            snprintf(conv, sizeof conv, "%%s%%ll%c", t == 'd' ? 'u' : t);
            snprintf(body, sizeof body, conv, pre, u);
        }
    } else if (t == 0) {
        bl_fmt_num(x, body + 1, sizeof body - 1);
        body[0] = *sign && body[1] != '-' ? *sign : 0;
        if (!body[0]) memmove(body, body + 1, strlen(body + 1) + 1);
    } else {
        int percent = t == '%';
        snprintf(conv, sizeof conv, "%s%%.%d%c%s", sign, sp->prec >= 0 ? sp->prec : 6,
                 percent ? 'f' : t == 'n' ? 'g' : t, percent ? "%%" : "");
        bl_snprintf(body, sizeof body, conv, percent ? 100 * x : x);
    }
    return pad(body, sp, 1);
}

static char *format_spec(const bl_value *v, const spec_t *sp, const char *given)
{
    double x;
    if (v->kind != BL_V_STR && number_of(v, &x) && sp->type != 's') return format_number(x, sp);
    if (v->kind == BL_V_STR && sp->type && sp->type != 's')
        return BL_FAILP("format: '%c' needs a number, got a string", sp->type);
    if (v->kind != BL_V_STR && (sp->type != 's' || !sp->trunc))
        return BL_FAILP("format: a %s takes no format spec ('%s'; str(x) first, or reduce it to a number)",
                        v->kind == BL_V_TENSOR ? "tensor of more than one element" : bl_val_kind_name(v), given);
    char *s = bl_str_of(v);
    if (!s) return NULL;
    if (sp->prec >= 0 && strlen(s) > (size_t)sp->prec) s[sp->prec] = 0;
    char *r = pad(s, sp, 0);
    free(s);
    return r;
}

char *bl_format(const bl_value *v, const char *spec)
{
    spec_t sp;
    if (spec && spec[0] == '!' && (spec[1] == 'r' || spec[1] == 'a' || spec[1] == 's')) {
        /* an f-string's conversion: the repr (or str), then its spec as a string's */
        int repr = spec[1] != 's';
        char *t = repr ? bl_repr_of(v) : bl_str_of(v);
        bl_value *sv = t ? bl_val_str(t) : NULL;
        free(t);
        char *r = sv ? bl_format(sv, spec[2] == ':' ? spec + 3 : "") : NULL;
        bl_val_unref(sv);
        return r;
    }
    if (!spec || !*spec) return bl_str_of(v);
    if (parse_spec(spec, &sp) < 0) return NULL;
    return format_spec(v, &sp, spec);
}

/* One %... conversion of fmt at *i (after the '%') into sp; its type letter in *conv. */
static int parse_percent(const char *fmt, size_t *i, spec_t *sp, char *conv)
{
    *sp = (spec_t){ .fill = ' ', .sign = '-', .prec = -1, .trunc = 1 };
    const char *s = fmt + *i;
    int left = 0, zero = 0;
    if (*s == '(') return bl_fail("%%(name)s needs a dict: write the values in a list: \"%%s %%d\" %% (a, b)");
    for (; *s && strchr("-+ 0#", *s); s++) {
        if (*s == '-') left = 1;
        else if (*s == '0') zero = 1;
        else if (*s != '#') sp->sign = sp->sign == '+' ? '+' : *s;
    }
    for (; isdigit((unsigned char)*s); s++) sp->width = sp->width * 10 + (*s - '0');
    if (*s == '.')
        for (s++, sp->prec = 0; isdigit((unsigned char)*s); s++) sp->prec = sp->prec * 10 + (*s - '0');
    if (sp->width > 1000 || sp->prec > 100) return bl_fail("%%: width or precision over 1000 / 100");
    while (*s == 'h' || *s == 'l' || *s == 'L') s++;
    if (!*s || !strchr("diouxXeEfFgGsra%", *s))
        return *s ? bl_fail("%%: unsupported format character '%c'", *s)
                  : bl_fail("%%: incomplete format (a '%%' at the end; %%%% writes one)");
    *conv = *s;
    sp->type = strchr("diu", *s) ? 'd' : strchr("sra", *s) ? 's' : *s;
    if (left) sp->align = '<';
    else if (zero && sp->type != 's') sp->fill = '0', sp->align = '=';
    else sp->align = '>';
    *i = (size_t)(s - fmt) + 1;
    return 0;
}

bl_value *bl_str_percent(const char *fmt, const bl_value *args)
{
    int nargs = args->kind == BL_V_LIST ? args->n : 1, used = 0;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return BL_FAILP("%%: out of memory");
    int rc = 0;
    for (size_t i = 0; fmt[i] && rc == 0;) {
        if (fmt[i] != '%') {
            fputc(fmt[i++], f);
            continue;
        }
        i++;
        spec_t sp;
        char conv = 0;
        if (fmt[i] == '%') {
            fputc('%', f);
            i++;
            continue;
        }
        if (parse_percent(fmt, &i, &sp, &conv) < 0) { rc = -1; break; }
        if (used == nargs) { rc = bl_fail("not enough arguments for format string (%d)", nargs); break; }
        const bl_value *v = args->kind == BL_V_LIST ? args->items[used] : args;
        used++;
        char *rs = conv == 'r' || conv == 'a' ? bl_repr_of(v) : NULL;   /* %r: the repr, as a string */
        bl_value *rv = rs ? bl_val_str(rs) : NULL;
        free(rs);
        if ((conv == 'r' || conv == 'a') && !rv) { rc = -1; break; }
        char *piece = format_spec(rv ? rv : v, &sp, "%");
        bl_val_unref(rv);
        if (!piece) { rc = -1; break; }
        fputs(piece, f);
        free(piece);
    }
    if (rc == 0 && used < nargs) rc = bl_fail("not all arguments converted during string formatting (%d given, %d used)",
                                              nargs, used);
    if (fclose(f) != 0 && rc == 0) rc = bl_fail("%%: out of memory");
    bl_value *r = rc == 0 && buf ? bl_val_str(buf) : NULL;
    free(buf);
    return r;
}
