/* error.h - how every library function in blocklab reports failure.
 *
 * Library code never prints, never exits and never asserts on user input. A failing function
 * records one line of text with bl_fail() and returns its failure value: -1 for functions that
 * return int, NULL for functions that return a pointer. The caller (usually the REPL) reads the
 * line with bl_error() and shows it; every value the user made is left untouched.
 *
 * Messages are lower-case, have no trailing period and name what was wrong and the values seen,
 * e.g. "linear: x has 64 features but weight expects 128 (weight [256, 128])".
 */
#ifndef BL_ERROR_H
#define BL_ERROR_H

/* Record a printf-style message as the current error (formatted by bl_vsnprintf of
 * core/fmt.h: a NaN reads "nan", never "-nan"). Returns -1 so that `return bl_fail(...)`
 * works in int functions; pointer functions use `bl_fail(...); return NULL;` or BL_FAILP. */
int bl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The current error message ("" when none). Valid until the next bl_fail/bl_clear_error. */
const char *bl_error(void);

/* Forget the current error. */
void bl_clear_error(void);

/* Prefix the current error with "what: " (for example the file name), keeping the rest. */
void bl_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Say the current error as `who`'s (a command: "load", "rope table"): a message that already
 * starts with "who:" stays; otherwise a leading "NAME: " whose NAME is one of `drop`'s
 * '|'-separated names (a lower layer's prefix, e.g. "generate" or "rope|rope2d"; NULL = none) is
 * removed and "who: " written before the rest. Returns -1. For example
 * bl_error_as("sample", "generate") makes "generate: prompt is empty" "sample: prompt is empty"
 * and keeps "sample: n must be > 0". */
int bl_error_as(const char *who, const char *drop);

#define BL_FAILP(...) (bl_fail(__VA_ARGS__), (void *)0)

/* The plural ending for a count in a message: "%zu byte%s", n, BL_PLURAL(n) ("1 byte", "2 bytes"). */
#define BL_PLURAL(n) ((n) == 1 ? "" : "s")

#endif
