/* fmt.h - printf for every message, printout and file blocklab writes, with a NaN as "nan".
 *
 * glibc's printf writes a NaN whose sign bit is set as "-nan", and that is the NaN x86 makes:
 * 0/0, inf - inf and 0 * inf all give the "default NaN" with the sign bit set, so `randn(2,
 * std=0/0)` said "got -nan" and a tensor written to .csv held "-nan". Python, NumPy and pandas
 * write "nan" and read "nan", "inf" and "-inf" (pandas.read_csv does not take "-nan" as a
 * number). These behave as vsnprintf, snprintf and fprintf, except that a floating conversion
 * (%f %F %e %E %g %G %a %A) of any NaN writes "nan", padded to the field width asked for ('-'
 * flag honoured); infinities are printf's own "inf" and "-inf". bl_fail() formats with them, so
 * every error message does too.
 */
#ifndef BL_FMT_H
#define BL_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

int bl_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int bl_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int bl_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* x as the shortest %g text that reads back as x (Python's repr with C's exponent): 1e+30,
 * 2147483648, 1234567.5, 0.1, -0, nan, inf, -inf. For a number the user gave, in a message:
 * "%.0f" wrote 1e30 as 1000000000000000019884624838656 and "%g" 1234567.5 as 1.23457e+06, which
 * reads as a whole number. buf holds at least 32 bytes; returns buf. */
char *bl_fmt_g(double x, char *buf, size_t n);

/* A string from outside (a file's metadata, an environment variable) as a one-line message may
 * show it: at most 40 characters then "...", anything that is not printable ASCII as '?' (a
 * newline or an escape sequence in it must not break the line or reach the terminal). buf holds
 * at least 48 bytes; returns buf. */
const char *bl_fmt_shown(const char *s, char *buf, size_t n);

#endif
