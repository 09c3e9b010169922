/* test_fmt.c - core/fmt.h: printf with every NaN written "nan" (glibc writes "-nan" for the NaN
 * that 0/0 gives on x86), everything else exactly as the C library's snprintf writes it. */
#include "../check.h"
#include "core/error.h"
#include "core/fmt.h"
#include <stdint.h>

/* a NaN with the sign bit set, as x86 makes it (volatile: no constant folding) */
static double neg_nan(void)
{
    volatile double z = 0.0;
    return -fabs(z / z);
}

BL_TEST(nan_is_nan)
{
    char b[128];
    double n = neg_nan(), p = fabs(n);
    CHECK(isnan(n) && signbit(n), "the test needs a negative NaN");
    static const struct { const char *fmt, *want; } cases[] = {
        { "%g", "nan" }, { "%f", "nan" }, { "%e", "nan" }, { "%.9g", "nan" }, { "%.4f", "nan" },
        { "%+g", "nan" }, { "%08.3f", "     nan" }, { "%6g|", "   nan|" }, { "%-6g|", "nan   |" },
        { "%G", "nan" }, { "%a", "nan" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bl_snprintf(b, sizeof b, cases[i].fmt, n);
        CHECK(!strcmp(b, cases[i].want), "%s of -nan: '%s', want '%s'", cases[i].fmt, b, cases[i].want);
        bl_snprintf(b, sizeof b, cases[i].fmt, p);
        CHECK(!strcmp(b, cases[i].want), "%s of nan: '%s', want '%s'", cases[i].fmt, b, cases[i].want);
    }
    bl_snprintf(b, sizeof b, "%*.*f|%-*g|", 5, 2, n, 4, n);
    CHECK(!strcmp(b, "  nan|nan |"), "'*' width and precision: '%s'", b);
    bl_snprintf(b, sizeof b, "%Lg", (long double)n);
    CHECK(!strcmp(b, "nan"), "%%Lg: '%s'", b);
    bl_snprintf(b, sizeof b, "std must be >= 0, got %g; inf %g -inf %g", n, 1.0 / 0.0, -1.0 / 0.0);
    CHECK(!strcmp(b, "std must be >= 0, got nan; inf inf -inf -inf"), "'%s'", b);
    /* bl_fail formats with it */
    bl_fail("randn: std must be >= 0, got %g", n);
    CHECK(!strcmp(bl_error(), "randn: std must be >= 0, got nan"), "%s", bl_error());
    bl_error_prefix("in %g", n);
    CHECK(!strcmp(bl_error(), "in nan: randn: std must be >= 0, got nan"), "%s", bl_error());
}

/* Without a NaN the text is the C library's, conversion by conversion. */
BL_TEST(same_as_snprintf_otherwise)
{
    char a[256], b[256];
    long l = -1234567890L;
    long long ll = 1LL << 40;
    size_t z = 987654321u;
    unsigned char uc = 200;
    short sh = -7;
    intmax_t im = -42;
    ptrdiff_t pd = -3;
    int k1 = snprintf(a, sizeof a, "%d %i %5d|%-5d|%05d %+d % d %ld %lld %zu %zd %hhu %hd %jd %td %u %x %X %#o %c %s %.2s %10s|%-4s|%% %p",
                      -12, 34, 7, 7, 42, 3, 3, l, ll, z, (ssize_t)-5, uc, sh, im, pd, 4000000000u, 255, 255, 8, 'q', "str",
                      "abcdef", "r", "l", (void *)a);
    int k2 = bl_snprintf(b, sizeof b, "%d %i %5d|%-5d|%05d %+d % d %ld %lld %zu %zd %hhu %hd %jd %td %u %x %X %#o %c %s %.2s %10s|%-4s|%% %p",
                         -12, 34, 7, 7, 42, 3, 3, l, ll, z, (ssize_t)-5, uc, sh, im, pd, 4000000000u, 255, 255, 8, 'q', "str",
                         "abcdef", "r", "l", (void *)a);
    CHECK(k1 == k2 && !strcmp(a, b), "\n  libc '%s' (%d)\n  bl   '%s' (%d)", a, k1, b, k2);
    double xs[] = { 0.0, -0.0, 1.5, -2.25e-7, 3.4028234663852886e38, 1e30, 1.0 / 0.0, -1.0 / 0.0, 123456789.0 };
    const char *fmts[] = { "%g", "%.9g", "%.17g", "%.4f", "%e", "%+.3e", "%10.2f|", "%-10g|", "%a", "%.0f", "%#g" };
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        for (size_t j = 0; j < sizeof fmts / sizeof *fmts; j++) {
            k1 = snprintf(a, sizeof a, fmts[j], xs[i]);
            k2 = bl_snprintf(b, sizeof b, fmts[j], xs[i]);
            CHECK(k1 == k2 && !strcmp(a, b), "%s of %g: libc '%s', bl '%s'", fmts[j], xs[i], a, b);
        }
    k1 = snprintf(a, sizeof a, "%*d|%-*.*f|%.*s", -6, 5, 8, 3, 2.5, 2, "xyz");
    k2 = bl_snprintf(b, sizeof b, "%*d|%-*.*f|%.*s", -6, 5, 8, 3, 2.5, 2, "xyz");
    CHECK(k1 == k2 && !strcmp(a, b), "'*': libc '%s', bl '%s'", a, b);
}

/* snprintf's contract: at most n - 1 characters and a NUL, the return value the full length */
BL_TEST(truncates_as_snprintf)
{
    char b[8];
    memset(b, 'x', sizeof b);
    int k = bl_snprintf(b, 6, "ab %g cd %s", neg_nan(), "long string");
    CHECK(k == (int)strlen("ab nan cd long string"), "returned %d", k);
    CHECK(!strcmp(b, "ab na") && b[6] == 'x', "'%s'", b);
    k = bl_snprintf(NULL, 0, "%d-%g", 12345, 0.5);
    CHECK(k == 9, "size 0: returned %d", k);
    k = bl_snprintf(b, 1, "abc");
    CHECK(k == 3 && b[0] == 0, "size 1: %d '%s'", k, b);
}

BL_TEST(fprintf_writes_it)
{
    FILE *f = tmpfile();
    if (!f) SKIP("no temporary file");
    char big[2000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    int k = bl_fprintf(f, "%.9g,%s,%g\n", neg_nan(), big, -1.0 / 0.0);
    rewind(f);
    char got[2100] = "";
    got[fread(got, 1, sizeof got - 1, f)] = 0;
    fclose(f);
    CHECK(k == (int)strlen(got) && !strncmp(got, "nan,yyy", 7) && !strcmp(got + 4 + 1999, ",-inf\n"),
          "%d: '%.12s...%s'", k, got, got + 4 + 1999);
}

/* outside strings in one-line messages: control bytes as '?', cut at 40 characters with "..." */
BL_TEST(shown_is_one_printable_line)
{
    char b[48];
    CHECK(!strcmp(bl_fmt_shown("mkl", b, sizeof b), "mkl"), "%s", b);
    CHECK(!strcmp(bl_fmt_shown("a\033[31mb\nc", b, sizeof b), "a?[31mb?c"), "%s", b);
    CHECK(!strcmp(bl_fmt_shown("0123456789012345678901234567890123456789X", b, sizeof b),
                  "0123456789012345678901234567890123456789..."), "%s", b);
}

/* core/error.h bl_error_as: a lower layer's message said as a command's, one prefix only */
BL_TEST(error_as_one_prefix)
{
    static const struct { const char *msg, *who, *drop, *want; } cases[] = {
        { "no such file", "load", NULL, "load: no such file" },
        { "load: x.safetensors: truncated", "load", NULL, "load: x.safetensors: truncated" },
        { "loader: odd", "load", NULL, "load: loader: odd" },         /* "load:" only, not "load" */
        { "generate: prompt is empty", "sample", "generate", "sample: prompt is empty" },
        { "sample: n must be > 0", "sample", "generate", "sample: n must be > 0" },
        { "rope2d: head_dim must be a multiple of 4, got 6", "rope table", "rope|rope2d",
          "rope table: head_dim must be a multiple of 4, got 6" },
        { "rope: head_dim must be even", "rope table", "rope|rope2d", "rope table: head_dim must be even" },
        { "ropes: x", "rope table", "rope|rope2d", "rope table: ropes: x" },
        { "qk: unknown key 'z'", "qk growth", "qk", "qk growth: unknown key 'z'" },
        { "qk growth: scales is empty", "qk growth", "qk", "qk growth: scales is empty" },
        { "train: batch 0", "compare: v1", "train", "compare: v1: batch 0" },
        { "", "eval", "train", "eval: " },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bl_fail("%s", cases[i].msg);
        CHECK(bl_error_as(cases[i].who, cases[i].drop) == -1, "returns -1");
        CHECK(!strcmp(bl_error(), cases[i].want), "'%s' as %s: '%s', want '%s'", cases[i].msg, cases[i].who,
              bl_error(), cases[i].want);
    }
    /* a message that fills the buffer (1023 bytes): "train: " (7) out, "data: " (6) in */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    bl_fail("train: %s", big);
    bl_error_as("data", "train");
    CHECK(!strncmp(bl_error(), "data: xxx", 9) && strlen(bl_error()) == 1022, "%.12s... (%zu)", bl_error(),
          strlen(bl_error()));
}

int main(void)
{
    RUN(nan_is_nan);
    RUN(same_as_snprintf_otherwise);
    RUN(truncates_as_snprintf);
    RUN(fprintf_writes_it);
    RUN(shown_is_one_printable_line);
    RUN(error_as_one_prefix);
    return bl_test_done();
}
