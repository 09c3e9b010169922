/* check.h - the tiny TAP test harness every C test uses.
 *
 *   BL_TEST(name) { ... CHECK(cond, "fmt", ...); CHECK_CLOSE(a, b, tol); ... }
 *   int main(void) { RUN(name); ...; return bl_test_done(); }
 *
 * Each RUN prints "ok N - name" or "not ok N - name" (with "# ..." lines saying what failed),
 * and bl_test_done() prints the plan and returns 1 when any test failed, so automake's TAP
 * driver and a plain shell both see the failure. Tests that need something missing print
 * "ok N - name # SKIP why".
 */
#ifndef BL_CHECK_H
#define BL_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bl_t_count, bl_t_failed, bl_t_cur_failed;
static const char *bl_t_skip;

#define BL_TEST(name) static void name(void)
/* BL_TEST_ONLY=NAME runs test NAME alone (the others are not counted) */
#define RUN(name)                                                                        \
    do {                                                                                 \
        const char *bl_only_ = getenv("BL_TEST_ONLY");                                   \
        if (bl_only_ && strcmp(bl_only_, #name)) break;                                  \
        bl_t_cur_failed = 0;                                                             \
        bl_t_skip = NULL;                                                                \
        name();                                                                          \
        bl_t_count++;                                                                    \
        if (bl_t_skip)                                                                   \
            printf("ok %d - %s # SKIP %s\n", bl_t_count, #name, bl_t_skip);             \
        else                                                                             \
            printf("%sok %d - %s\n", bl_t_cur_failed ? "not " : "", bl_t_count, #name); \
        if (bl_t_cur_failed) bl_t_failed++;                                              \
        fflush(stdout);                                                                  \
    } while (0)
#define SKIP(why) do { bl_t_skip = (why); return; } while (0)

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            bl_t_cur_failed = 1;                                             \
            printf("# %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

/* |a - b| <= tol (absolute) */
#define CHECK_CLOSE(a, b, tol)                                                          \
    do {                                                                                \
        double bl_a_ = (a), bl_b_ = (b);                                                \
        CHECK(fabs(bl_a_ - bl_b_) <= (tol) && !isnan(bl_a_) && !isnan(bl_b_),           \
              "%s = %.9g, expected %.9g (tol %g)", #a, bl_a_, bl_b_, (double)(tol));     \
    } while (0)

/* the current error message contains `needle` */
#define CHECK_ERR(needle)                                                                   \
    do {                                                                                    \
        const char *bl_e_ = bl_error();                                                     \
        CHECK(strstr(bl_e_, (needle)) != NULL, "error \"%s\" does not mention \"%s\"", bl_e_, \
              (needle));                                                                    \
    } while (0)

/* Read a whole file independently of the library under test (malloc'ed, NUL-terminated;
 * *n = its size). NULL when it cannot be read. */
static inline unsigned char *bl_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) { fclose(f); free(b); return NULL; }
    b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

static inline int bl_test_done(void)
{
    printf("1..%d\n", bl_t_count);
    return bl_t_failed ? 1 : 0;
}

#endif
