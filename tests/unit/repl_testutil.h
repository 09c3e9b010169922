/* repl_testutil.h - run REPL statements in a session with the output captured, for the REPL
 * unit tests: run_in(s, src) runs src and leaves what it printed in outbuf and its errors in
 * errbuf; returns bl_run_string's status. ctrl_c_in(ms) sends SIGINT after ms milliseconds. */
#ifndef BL_REPL_TESTUTIL_H
#define BL_REPL_TESTUTIL_H

#include "repl/repl.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* SIGINT after ms milliseconds, as a Ctrl-C typed while a statement runs. */
static inline timer_t ctrl_c_in(int ms)
{
    timer_t t;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGINT;
    struct itimerspec when = { .it_value = { ms / 1000, (long)(ms % 1000) * 1000000L } };
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &when, NULL) != 0) abort();
    return t;
}

#endif
