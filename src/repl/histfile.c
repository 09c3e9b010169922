/* histfile.c - the history file's text (histfile.h). */
#include "repl/histfile.h"
#include "core/error.h"
#include "core/fileio.h"
#include "data/dataset.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Bytes from the start of buf that are text: no NUL byte, valid UTF-8. */
static size_t text_len(const char *buf, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (buf[i] == '\0') break;
        size_t k = bl_utf8_seq_len(buf + i, n - i);
        if (!k) break;
        i += k;
    }
    return i;
}

int bl_hist_parse(const char *buf, size_t n, void (*add)(void *ctx, const char *line), void *ctx,
                  bl_hist_scan *r)
{
    memset(r, 0, sizeof *r);
    size_t end = text_len(buf, n);
    r->text_end = end;
    /* a line the bad byte is in is not kept: only whole lines before it */
    if (end < n) {
        while (end > 0 && buf[end - 1] != '\n') end--;
    }
    /* readline's format with timestamps (history_write_timestamps, multiline entries): a line
     * "#DIGITS" starts an entry and the lines up to the next one are that entry, joined by
     * newlines (a block: for ... end); before the first such line, each line is an entry */
    char *entry = malloc(BL_HIST_ENTRY_MAX + 1);
    if (!entry) return bl_fail("out of memory");
    size_t elen = 0;
    int stamped = 0, too_long = 0, open = 0;
    for (size_t i = 0;; i++) {
        int at_end = i >= end;
        const char *ln = buf + i;
        const char *nl = at_end ? NULL : memchr(ln, '\n', end - i);
        size_t len = at_end ? 0 : nl ? (size_t)(nl - ln) : end - i;
        int stamp = !at_end && len >= 2 && ln[0] == '#';
        for (size_t k = 1; stamp && k < len; k++) stamp = ln[k] >= '0' && ln[k] <= '9';
        /* the entry so far ends at a timestamp line, at the end, or at each line when unstamped */
        if (open && (stamp || at_end || !stamped)) {
            if (too_long) r->long_lines++;
            else if (elen) {
                entry[elen] = '\0';
                add(ctx, entry);
                r->kept++;
            }
            elen = 0, too_long = 0, open = 0;
        }
        if (at_end) break;
        if (stamp) {
            stamped = 1;
        } else {
            size_t need = elen + (open ? 1 : 0) + len;
            if (too_long || need > BL_HIST_ENTRY_MAX) {
                too_long = 1;
            } else {
                if (open) entry[elen++] = '\n';
                memcpy(entry + elen, ln, len);
                elen += len;
            }
            open = 1;
        }
        i += len;   /* and the newline, by the loop */
    }
    free(entry);
    return 0;
}

int bl_hist_read(const char *path, void (*add)(void *ctx, const char *line), void *ctx, bl_hist_scan *r)
{
    memset(r, 0, sizeof *r);
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) return 0;    /* no history yet */
    size_t n = 0;
    char *buf = bl_read_file(path, &n);     /* a regular file only: never a device */
    if (!buf) return -1;
    int rc = bl_hist_parse(buf, n, add, ctx, r);
    free(buf);
    if (rc < 0) bl_error_prefix("%s", path);
    return rc;
}

const char *bl_hist_warning(const char *path, const bl_hist_scan *r, size_t size, char *buf, size_t n)
{
    int cut = r->text_end < size;
    if (!cut && !r->long_lines) return NULL;
    int k = 0;
    if (cut)
        k = snprintf(buf, n, "the history file %s is not text after byte %zu (a NUL byte or invalid UTF-8): "
                     "kept the %d statement%s before it", path, r->text_end, r->kept, r->kept == 1 ? "" : "s");
    if (r->long_lines && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "%s%s%s%d entr%s longer than %d KiB left out",
                      cut ? "; " : "the history file ", cut ? "" : path, cut ? "" : ": ",
                      r->long_lines, r->long_lines == 1 ? "y" : "ies", BL_HIST_ENTRY_MAX >> 10);
    if (k >= 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "; it is rewritten clean on exit");
    return buf;
}

int bl_hist_write(const char *path, const char *const *entries, int n)
{
    bl_atomic_file af;
    if (bl_atomic_open(&af, path) < 0) return -1;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(entries[i]);
        if (len > BL_HIST_ENTRY_MAX || text_len(entries[i], len) < len) continue;
        fprintf(af.f, "#%lld\n", (long long)time(NULL));    /* readline's timestamp line */
        fwrite(entries[i], 1, len, af.f);
        fputc('\n', af.f);
    }
    return bl_atomic_commit(&af);
}

int bl_hist_size_parse(const char *s)
{
    if (!s || !*s) return BL_HIST_SIZE_DEFAULT;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || end == s || v < 0 || v > BL_HIST_SIZE_MAX) {
        char shown[64];
        snprintf(shown, sizeof shown, "%s", s);
        for (char *c = shown; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        return bl_fail("expected a whole number in [0, %d], got '%s'", BL_HIST_SIZE_MAX, shown);
    }
    return (int)v;
}
