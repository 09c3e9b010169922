/* error.c - the thread-local current error message (see error.h). */
#include "core/error.h"
#include "core/fmt.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char bl_errbuf[1024];

int bl_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bl_vsnprintf(bl_errbuf, sizeof bl_errbuf, fmt, ap);
    va_end(ap);
    return -1;
}

const char *bl_error(void) { return bl_errbuf; }

void bl_clear_error(void) { bl_errbuf[0] = 0; }

/* Does s start with "name:" for the n bytes of name? */
static int starts_with_name(const char *s, const char *name, size_t n)
{
    return !strncmp(s, name, n) && s[n] == ':';
}

int bl_error_as(const char *who, const char *drop)
{
    const char *rest = bl_errbuf;
    if (starts_with_name(rest, who, strlen(who))) return -1;
    for (const char *d = drop; d && *d;) {
        size_t n = strcspn(d, "|");
        if (starts_with_name(rest, d, n) && rest[n + 1] == ' ') {
            rest += n + 2;
            break;
        }
        d += n + (d[n] == '|');
    }
    char old[sizeof bl_errbuf];
    memcpy(old, rest, strlen(rest) + 1);
    return bl_fail("%s: %s", who, old);
}

void bl_error_prefix(const char *fmt, ...)
{
    char pre[512], old[1024];
    va_list ap;
    va_start(ap, fmt);
    bl_vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, bl_errbuf, sizeof old);
    size_t n = strlen(pre);
    if (n > sizeof bl_errbuf - 3) n = sizeof bl_errbuf - 3;
    memcpy(bl_errbuf, pre, n);
    memcpy(bl_errbuf + n, ": ", 2);
    size_t rest = sizeof bl_errbuf - n - 3, m = strlen(old);
    if (m > rest) m = rest;
    memcpy(bl_errbuf + n + 2, old, m);
    bl_errbuf[n + 2 + m] = 0;
}
