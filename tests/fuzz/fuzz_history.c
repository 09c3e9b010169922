/* fuzz_history.c - the history file reader (repl/histfile.h) on any bytes: every entry handed
 * on is NUL-terminated, non-empty text of at most 64 KiB (an entry after a "#TIME" line may hold
 * several lines: a block). */
#include "repl/histfile.h"
#include "data/dataset.h"
#include <stdlib.h>
#include <string.h>

static void add(void *ctx, const char *line)
{
    size_t n = strlen(line);
    if (n == 0 || n > BL_HIST_ENTRY_MAX) abort();
    for (size_t i = 0; i < n;) {
        size_t k = bl_utf8_seq_len(line + i, n - i);
        if (!k) abort();     /* only text */
        i += k;
    }
    (*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    bl_hist_scan r;
    int got = 0;
    bl_hist_parse((const char *)data, n, add, &got, &r);
    if (got != r.kept || r.text_end > n) abort();
    return 0;
}
