/* fmt.c - printf with a NaN written as "nan" (see fmt.h).
 *
 * The format is walked conversion by conversion (flags, width and precision, '*' included,
 * length modifier, conversion); each argument is taken with its own type and formatted by
 * snprintf with its own piece of the format, except a NaN for a floating conversion, which is
 * written as "nan" in the field width. Positional arguments ("%1$d") are not used in blocklab
 * and not supported.
 */
#include "core/fmt.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *buf;
    size_t n, len;   /* capacity, characters produced so far (as snprintf counts them) */
} out_t;

static char *dst(const out_t *o) { return o->len < o->n ? o->buf + o->len : NULL; }
static size_t room(const out_t *o) { return o->len < o->n ? o->n - o->len : 0; }

static void add(out_t *o, int k)
{
    if (k > 0) o->len += (size_t)k;
}

static void raw(out_t *o, const char *s, size_t k)
{
    if (o->len < o->n) {
        size_t c = o->n - o->len - 1 < k ? o->n - o->len - 1 : k;
        memcpy(o->buf + o->len, s, c);
    }
    o->len += k;
}

/* snprintf of one conversion with its '*' arguments (nstar of them in star) */
#define PIECE(o, spec, nstar, star, val)                                                      \
    add(o, (nstar) == 0 ? snprintf(dst(o), room(o), spec, val)                                \
           : (nstar) == 1 ? snprintf(dst(o), room(o), spec, (star)[0], val)                   \
                          : snprintf(dst(o), room(o), spec, (star)[0], (star)[1], val))

/* "nan" in the field width of a floating conversion: spec's flags decide the side */
static void put_nan(out_t *o, const char *spec, int has_width, int width)
{
    int left = 0;
    for (const char *s = spec + 1; *s && strchr("-+ #0'", *s); s++) left |= *s == '-';
    if (has_width && width < 0) left = 1, width = -width;
    add(o, snprintf(dst(o), room(o), left ? "%-*s" : "%*s", has_width ? width : 0, "nan"));
}

int bl_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
    out_t o = { buf, n, 0 };
    va_list aq;
    va_copy(aq, ap);
    const char *p = fmt;
    while (*p) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t k = q ? (size_t)(q - p) : strlen(p);
            raw(&o, p, k);
            p += k;
            continue;
        }
        const char *s = p++;
        if (*p == '%') {
            raw(&o, "%", 1);
            p++;
            continue;
        }
        int star[2], nstar = 0, has_width = 0, width = 0;
        while (*p && strchr("-+ #0'", *p)) p++;
        if (*p == '*') {
            star[nstar++] = width = va_arg(aq, int);
            has_width = 1;
            p++;
        } else if (*p >= '0' && *p <= '9') {
            char *e;
            width = (int)strtol(p, &e, 10);
            p = e;
            has_width = 1;
        }
        if (*p == '.') {
            p++;
            if (*p == '*') {
                star[nstar++] = va_arg(aq, int);
                p++;
            } else {
                while (*p >= '0' && *p <= '9') p++;
            }
        }
        /* length: 0 none, 1 hh/h (promoted to int), 2 l, 3 ll, 4 j, 5 z, 6 t, 7 L */
        int len = 0;
        if (*p == 'h') len = 1, p += p[1] == 'h' ? 2 : 1;
        else if (*p == 'l') len = p[1] == 'l' ? 3 : 2, p += p[1] == 'l' ? 2 : 1;
        else if (*p == 'j') len = 4, p++;
        else if (*p == 'z') len = 5, p++;
        else if (*p == 't') len = 6, p++;
        else if (*p == 'L') len = 7, p++;
        char conv = *p ? *p++ : 0, spec[64];
        size_t sl = (size_t)(p - s);
        if (sl >= sizeof spec || !conv) {   /* not a conversion this walk knows: as written */
            raw(&o, s, sl);
            continue;
        }
        memcpy(spec, s, sl);
        spec[sl] = 0;
        switch (conv) {
        case 'd': case 'i':
            if (len == 2) PIECE(&o, spec, nstar, star, va_arg(aq, long));
            else if (len == 3) PIECE(&o, spec, nstar, star, va_arg(aq, long long));
            else if (len == 4) PIECE(&o, spec, nstar, star, va_arg(aq, intmax_t));
            else if (len == 5) PIECE(&o, spec, nstar, star, va_arg(aq, size_t));
            else if (len == 6) PIECE(&o, spec, nstar, star, va_arg(aq, ptrdiff_t));
            else PIECE(&o, spec, nstar, star, va_arg(aq, int));
            break;
        case 'u': case 'o': case 'x': case 'X':
            if (len == 2) PIECE(&o, spec, nstar, star, va_arg(aq, unsigned long));
            else if (len == 3) PIECE(&o, spec, nstar, star, va_arg(aq, unsigned long long));
            else if (len == 4) PIECE(&o, spec, nstar, star, va_arg(aq, uintmax_t));
            else if (len == 5) PIECE(&o, spec, nstar, star, va_arg(aq, size_t));
            else if (len == 6) PIECE(&o, spec, nstar, star, va_arg(aq, ptrdiff_t));
            else PIECE(&o, spec, nstar, star, va_arg(aq, unsigned));
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            if (len == 7) {
                long double x = va_arg(aq, long double);
                if (isnan(x)) put_nan(&o, spec, has_width, width);
                else PIECE(&o, spec, nstar, star, x);
            } else {
                double x = va_arg(aq, double);
                if (isnan(x)) put_nan(&o, spec, has_width, width);
                else PIECE(&o, spec, nstar, star, x);
            }
            break;
        case 'c': PIECE(&o, spec, nstar, star, va_arg(aq, int)); break;
        case 's': PIECE(&o, spec, nstar, star, va_arg(aq, const char *)); break;
        case 'p': PIECE(&o, spec, nstar, star, va_arg(aq, void *)); break;
        case 'n': (void)va_arg(aq, void *); break;   /* stores nothing here */
        default: raw(&o, s, sl); break;
        }
    }
    va_end(aq);
    if (n) buf[o.len < n ? o.len : n - 1] = 0;
    return o.len > INT32_MAX ? -1 : (int)o.len;
}

char *bl_fmt_g(double x, char *buf, size_t n)
{
    if (isnan(x)) {
        snprintf(buf, n, "nan");
        return buf;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

int bl_snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = bl_vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return k;
}

int bl_fprintf(FILE *f, const char *fmt, ...)
{
    char small[512];
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int k = bl_vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k < 0) {
        va_end(aq);
        return k;
    }
    if ((size_t)k < sizeof small) {
        va_end(aq);
        return fwrite(small, 1, (size_t)k, f) == (size_t)k ? k : -1;
    }
    char *big = malloc((size_t)k + 1);
    if (!big) {
        va_end(aq);
        return -1;
    }
    bl_vsnprintf(big, (size_t)k + 1, fmt, aq);
    va_end(aq);
    int r = fwrite(big, 1, (size_t)k, f) == (size_t)k ? k : -1;
    free(big);
    return r;
}

const char *bl_fmt_shown(const char *s, char *buf, size_t n)
{
    size_t k = 0, len = strlen(s);
    for (size_t i = 0; i < len && k + 4 < n && i < 40; i++)
        buf[k++] = s[i] >= 32 && s[i] < 127 ? s[i] : '?';
    if (len > 40 && k + 4 < n) { memcpy(buf + k, "...", 3); k += 3; }
    buf[k] = 0;
    return buf;
}
