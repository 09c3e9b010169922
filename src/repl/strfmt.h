/* strfmt.h - Python's string formatting of blocklab values: str(x), format(x, spec) for
 * f-strings (f"loss {l:.4f} step {i}") and printf-style "..." % args.
 *
 * One formatter serves both forms; a spec is Python's format mini-language
 * (https://docs.python.org/3/library/string.html#formatspec):
 *   [[fill]align][sign][#][0][width][.precision][type]
 *   align < > ^ = ; sign + - space ; type d x X o b  e E f F g G %  s  (none: str(x), or 'g' when
 *   a precision is given). Numbers are right-aligned, strings left-aligned.
 * A number, a bool or a one-element tensor formats as a number; a string takes s (or no type);
 * other values (a list, a bigger tensor) take an empty spec only, as Python's objects do.
 * The printf form "%[flags][width][.precision]type" (flags - + space 0 #; types d i u x X o e E
 * f F g G s r %) is turned into such a spec; %d truncates a number toward 0, as Python's.
 */
#ifndef BL_REPL_STRFMT_H
#define BL_REPL_STRFMT_H

#include "repl/value.h"

/* str(x): the value as print shows it (a string as it is), malloc'd; NULL + bl_fail when out of
 * memory. */
char *bl_str_of(const bl_value *v);

/* repr(x): a string in quotes, Python's way ('it''s' is "it's"; \n \t \r \\ and the quote
 * escaped), anything else as str(x). malloc'd; NULL + bl_fail when out of memory. */
char *bl_repr_of(const bl_value *v);

/* format(v, spec) (spec NULL or "" is str(v)): a malloc'd string, or NULL + bl_fail("format:
 * ...") naming what the spec or the value lacks. A spec that starts with "!r" (or "!a", "!s"),
 * optionally followed by ":" and a spec, is an f-string's conversion {x!r:>8}: the repr (or
 * str) of v, then formatted as a string. %r in "..." % args is the repr too. */
char *bl_format(const bl_value *v, const char *spec);

/* fmt % args: args a list (Python's tuple: its items, in turn) or one value. A new string value,
 * or NULL + bl_fail (Python's messages: "not enough arguments for format string", "not all
 * arguments converted during string formatting"). */
bl_value *bl_str_percent(const char *fmt, const bl_value *args);

#endif
