/* test_histfile.c - the history file's text (repl/histfile.h): lines kept up to the first byte
 * that is not text, entries over 64 KiB left out, the size from BLOCKLAB_HISTSIZE, a clean rewrite.
 * Expected lines are written out by hand from the bytes given. */
#include "core/error.h"
#include "repl/histfile.h"
#include "../check.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char got[8][64];
static int ngot;

static void add(void *ctx, const char *line)
{
    (void)ctx;
    if (ngot < 8) snprintf(got[ngot], sizeof got[0], "%s", line);
    ngot++;
}

BL_TEST(text_up_to_the_first_bad_byte)
{
    bl_hist_scan r;
    /* a NUL byte in the third line: its line is dropped, the two before kept */
    static const char nul[] = "a = 1\n\nb = 2\nc = \"x\0y\"\nd = 4\n";
    ngot = 0;
    CHECK(bl_hist_parse(nul, sizeof nul - 1, add, NULL, &r) == 0, "%s", bl_error());
    CHECK(ngot == 2 && !strcmp(got[0], "a = 1") && !strcmp(got[1], "b = 2"), "%d lines", ngot);
    CHECK(r.text_end == 19 && r.kept == 2 && r.long_lines == 0, "end %zu", r.text_end);
    /* an overlong encoding of '/' (C0 AF) is not UTF-8; a valid e acute and a CJK character are */
    static const char utf[] = "x = \"\xc3\xa9\xe6\x97\xa5\"\ny = \"\xc0\xaf\"\n";
    ngot = 0;
    bl_hist_parse(utf, sizeof utf - 1, add, NULL, &r);
    CHECK(ngot == 1 && !strcmp(got[0], "x = \"\xc3\xa9\xe6\x97\xa5\"") && r.text_end == 17, "%d, %zu", ngot, r.text_end);
    char w[512];
    CHECK(bl_hist_warning("h", &r, sizeof utf - 1, w, sizeof w) &&
          !strcmp(w, "the history file h is not text after byte 17 (a NUL byte or invalid UTF-8): kept the 1 "
                     "statement before it; it is rewritten clean on exit"), "%s", w);
    /* a clean file with no newline at its end: every line, no warning */
    ngot = 0;
    bl_hist_parse("p\nq", 3, add, NULL, &r);
    CHECK(ngot == 2 && !strcmp(got[1], "q") && !bl_hist_warning("h", &r, 3, w, sizeof w), "clean");
}

/* readline's format with timestamps: a block's lines are one entry; lines before the first
 * timestamp (an older file) one entry each */
BL_TEST(blocks_are_one_entry)
{
    static const char f[] = "old = 1\n#1700000000\nx = 2\n#1700000001\nfor i in range(3)\n  print(i)\nend\n"
                            "#1700000002\ny = 3\n";
    ngot = 0;
    bl_hist_scan r;
    CHECK(bl_hist_parse(f, sizeof f - 1, add, NULL, &r) == 0, "%s", bl_error());
    CHECK(ngot == 4 && !strcmp(got[0], "old = 1") && !strcmp(got[1], "x = 2") &&
          !strcmp(got[2], "for i in range(3)\n  print(i)\nend") && !strcmp(got[3], "y = 3") && r.kept == 4,
          "%d entries: [%s] [%s] [%s] [%s]", ngot, ngot > 0 ? got[0] : "", ngot > 1 ? got[1] : "",
          ngot > 2 ? got[2] : "", ngot > 3 ? got[3] : "");
}

BL_TEST(long_entries_left_out)
{
    size_t n = BL_HIST_ENTRY_MAX + 1;
    char *buf = malloc(n + 16);
    memcpy(buf, "a\n", 2);
    memset(buf + 2, 'x', n);
    memcpy(buf + 2 + n, "\nb\n", 3);
    bl_hist_scan r;
    ngot = 0;
    bl_hist_parse(buf, n + 5, add, NULL, &r);
    CHECK(ngot == 2 && !strcmp(got[0], "a") && !strcmp(got[1], "b") && r.long_lines == 1, "%d", ngot);
    char w[512];
    CHECK(bl_hist_warning("h", &r, n + 5, w, sizeof w) &&
          !strcmp(w, "the history file h: 1 entry longer than 64 KiB left out; it is rewritten clean on exit") ,
          "%s", w);
    /* exactly 64 KiB is kept */
    memset(buf + 2, 'x', n - 1);
    memcpy(buf + 1 + n, "\n", 1);
    ngot = 0;
    bl_hist_parse(buf, n + 2, add, NULL, &r);
    CHECK(ngot == 2 && r.long_lines == 0, "%d", ngot);
    free(buf);
}

BL_TEST(histsize_values)
{
    CHECK(bl_hist_size_parse(NULL) == 2000 && bl_hist_size_parse("") == 2000, "default");
    CHECK(bl_hist_size_parse("0") == 0 && bl_hist_size_parse("50") == 50, "values");
    CHECK(bl_hist_size_parse("-1") < 0 && strstr(bl_error(), "got '-1'"), "%s", bl_error());
    CHECK(bl_hist_size_parse("1e3") < 0 && bl_hist_size_parse("2000000") < 0, "junk accepted");
}

BL_TEST(rewrite_is_clean)
{
    char path[] = "/tmp/bl-hist-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    const char *e[] = { "a = 1", "b = \"\xff\"", "c = 3" };
    CHECK(bl_hist_write(path, e, 3) == 0, "%s", bl_error());
    FILE *f = fopen(path, "rb");
    char buf[64] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    /* each entry after readline's timestamp line "#DIGITS": with the digits dropped, */
    char flat[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!(buf[i] >= '0' && buf[i] <= '9' && i > 0 && (buf[i - 1] == '#' || (buf[i - 1] >= '0' && buf[i - 1] <= '9'))))
            flat[k++] = buf[i];
    flat[k] = 0;
    int ok = !strcmp(flat, "#\na = 1\n#\nc = 3\n");
    CHECK(ok, "%.*s", (int)n, buf);
    remove(path);
}

int main(void)
{
    RUN(text_up_to_the_first_bad_byte);
    RUN(long_entries_left_out);
    RUN(histsize_values);
    RUN(rewrite_is_clean);
    RUN(blocks_are_one_entry);
    return bl_test_done();
}
