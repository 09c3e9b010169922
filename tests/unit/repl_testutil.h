/* repl_testutil.h - run REPL statements in a session with the output captured, for the REPL
 * unit tests: run_in(s, src) runs src and leaves what it printed in outbuf and its errors in
 * errbuf; returns bl_run_string's status. */
#ifndef BL_REPL_TESTUTIL_H
#define BL_REPL_TESTUTIL_H

#include "repl/repl.h"
#include <stdio.h>

static char outbuf[1 << 16], errbuf[4096];

static int run_in(bl_session *s, const char *src)
{
    FILE *o = tmpfile(), *e = tmpfile();
    s->out = o;
    s->err = e;
    int rc = bl_run_string(s, "t", src);
    rewind(o);
    outbuf[fread(outbuf, 1, sizeof outbuf - 1, o)] = '\0';
    rewind(e);
    errbuf[fread(errbuf, 1, sizeof errbuf - 1, e)] = '\0';
    fclose(o);
    fclose(e);
    s->out = stdout;
    s->err = stderr;
    return rc;
}

#endif
