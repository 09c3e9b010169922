/* data_testutil.h - helpers for the data tests: a temporary directory and files written in it. */
#ifndef BL_DATA_TESTUTIL_H
#define BL_DATA_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char tu_dir[256];

/* Make a fresh temporary directory (removed by tu_cleanup). */
static inline const char *tu_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tu_dir, sizeof tu_dir, "%s/bl-data-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tu_dir)) { perror("mkdtemp"); exit(99); }
    return tu_dir;
}

static inline void tu_cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tu_dir);
    if (tu_dir[0] && system(cmd) != 0) fprintf(stderr, "# could not remove %s\n", tu_dir);
}

/* tu_path("a/b") -> "<tmpdir>/a/b" (a static buffer, one of four in rotation) */
static inline const char *tu_path(const char *rel)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tu_dir, rel);
    return buf[k];
}

static inline void tu_mkdir(const char *rel)
{
    if (mkdir(tu_path(rel), 0755) != 0) { perror(rel); exit(99); }
}

/* Write n bytes to the temp file rel, gzip-compressed when gz is set. */
static inline void tu_write(const char *rel, const void *data, size_t n, int gz)
{
    const char *p = tu_path(rel);
    if (gz) {
        gzFile f = gzopen(p, "wb");
        if (!f || (n && gzwrite(f, data, (unsigned)n) != (int)n)) { perror(p); exit(99); }
        gzclose(f);
        return;
    }
    FILE *f = fopen(p, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n)) { perror(p); exit(99); }
    fclose(f);
}

/* The shared test data folder ($BL_SRCDIR/../shared/data), or NULL. */
static inline const char *tu_shared(const char *rel)
{
    static char buf[1024];
    const char *src = getenv("BL_SRCDIR");
    snprintf(buf, sizeof buf, "%s/../shared/data/%s", src && *src ? src : ".", rel);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

#endif
