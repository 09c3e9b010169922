/* fuzz_util.h - what the libFuzzer targets of tests/fuzz share: the input as a file or folder
 * in a private temporary directory (the readers take paths), made once per process. */
#ifndef BL_FUZZ_UTIL_H
#define BL_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the process's own scratch folder (removed by the OS's tmp cleaning; small files only) */
static const char *fuzz_dir(void)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/bl-fuzz-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    return dir;
}

/* Write data to DIR/name (folders in name made); returns the path (static buffer). */
static const char *fuzz_file(const char *name, const uint8_t *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    for (char *c = path + strlen(fuzz_dir()) + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(path, 0700);
            *c = '/';
        }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n) fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

#endif
