/* term_testutil.h - a figure's terminal rendering as a string, for the viz tests. */
#ifndef TERM_TESTUTIL_H
#define TERM_TESTUTIL_H
#include "viz/term.h"
#include "core/error.h"
#include <stdio.h>

/* bl_term_print of f with options o into a new string (free it); NULL when the print failed (a
 * failed check says why). */
static inline char *term_render(const bl_figure *f, bl_term_opts o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    int rc = bl_term_print(f, m, &o);
    fclose(m);
    CHECK(rc == 0, "%s", bl_error());
    return buf;
}
#endif
