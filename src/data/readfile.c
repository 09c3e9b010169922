/* readfile.c - reading data files whole, plain or gzip-compressed (zlib's gzread reads both
 * transparently), and the small path tests the loaders share. */
#include "data/data_internal.h"
#include "core/error.h"
#include "core/fileio.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

int bl_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int bl_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *bl_why_not_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return "no such directory";
    return S_ISREG(st.st_mode) ? "is a file, not a directory" : "not a directory (a device, pipe or socket)";
}

int bl_find_file(const char *dir, const char *base, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", dir, base);
    if (bl_is_file(out)) return 1;
    snprintf(out, n, "%s/%s.gz", dir, base);
    return bl_is_file(out);
}

int bl_read_all(const char *what, const char *path, uint8_t **buf, size_t *n)
{
    *buf = NULL;
    *n = 0;
    struct stat st;
    int fd = bl_open_regular(path, &st);   /* never a device that reads forever (/dev/zero) */
    if (fd < 0) {
        bl_error_prefix("%s: %s", what, path);
        return -1;
    }
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        close(fd);
        return bl_fail("%s: %s: out of memory", what, path);
    }
    gzbuffer(f, 1 << 17);
    /* start from the size on disk (exact for plain files, a lower bound for most .gz) */
    size_t cap = (size_t)st.st_size + 1, len = 0;
    uint8_t *p = malloc(cap);
    if (!p) { gzclose(f); return bl_fail("%s: %s: out of memory (%zu bytes)", what, path, cap); }
    for (;;) {
        if (len == cap) {
            size_t ncap = cap * 2;
            uint8_t *q = realloc(p, ncap);
            if (!q) { free(p); gzclose(f); return bl_fail("%s: %s: out of memory (%zu bytes)", what, path, ncap); }
            p = q;
            cap = ncap;
        }
        size_t want = cap - len;
        if (want > (1u << 30)) want = 1u << 30;
        int got = gzread(f, p + len, (unsigned)want);
        if (got < 0) {
            int zerr;
            const char *msg = gzerror(f, &zerr);
            bl_fail("%s: %s: corrupt or truncated gzip data (%s)", what, path, msg && *msg ? msg : "read error");
            free(p);
            gzclose(f);
            return -1;
        }
        if (got == 0) break;
        len += (size_t)got;
    }
    /* gzread reports a gzip stream cut short only through gzerror once the input has ended */
    int zerr = Z_OK;
    const char *msg = gzerror(f, &zerr);
    if (zerr != Z_OK && zerr != Z_STREAM_END) {
        bl_fail("%s: %s: corrupt or truncated gzip data (%s)", what, path, msg && *msg ? msg : "read error");
        free(p);
        gzclose(f);
        return -1;
    }
    gzclose(f);
    if (len == 0) { free(p); return bl_fail("%s: %s: file is empty", what, path); }
    *buf = p;
    *n = len;
    return 0;
}
