/* interrupt.c - Ctrl-C as a flag that long commands check at safe points (between training
 * steps, between statements). The flag stays set until the prompt comes back (or the program
 * ends), so that the rest of the line, a pasted statement list or a sourced file stops too, as in
 * bash and Python. A third Ctrl-C while the flag is still set restores the default action and
 * ends the program, for a computation that never reaches a safe point.
 *
 * A terminal echoes ^C where its cursor is, with no newline; messages about the interrupt start
 * on a line of their own through bl_interrupt_newline. */
#include "repl/repl.h"
#include "dist/dist.h"
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t hits, echo_pending;
static int reported;

static void on_sigint(int sig)
{
    (void)sig;
    echo_pending = 1;
    if (++hits >= 3) {
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    }
}

void bl_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;            /* no SA_RESTART: a blocked read/select returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    /* Open MPI's mpirun ends the job at Ctrl-C but forwards SIGUSR1 to every rank: under MPI,
     * kill -USR1 MPIRUN_PID is the Ctrl-C that stops compare and train after a step */
    sigaction(SIGUSR1, &sa, NULL);
}

int bl_interrupted(void)
{
    bl_dist_alive();    /* under MPI, rank 0 at a safe point tells the others it lives (rate-limited) */
    return hits > 0;
}

int bl_interrupt_count(void) { return hits; }

void bl_interrupt_raise(void)
{
    if (!hits) hits = 1;
}

int bl_interrupt_was_reported(void) { return hits > 0 && reported; }

void bl_interrupt_clear(void)
{
    hits = 0;
    echo_pending = 0;
    reported = 0;
}

void bl_interrupt_reported(bl_session *s)
{
    (void)s;
    reported = 1;
}

/* Whether fd is a terminal that shows a typed Ctrl-C as ^C (ECHO and ECHOCTL, Linux's and the
 * BSDs' default; the line discipline prints it without a newline). */
static int echoes_ctl(int fd)
{
    struct termios t;
    int saved = errno, rc = tcgetattr(fd, &t) == 0 && (t.c_lflag & ECHO) != 0;
#ifdef ECHOCTL
    rc = rc && (t.c_lflag & ECHOCTL) != 0;
#endif
    errno = saved;
    return rc;
}

void bl_interrupt_newline(FILE *f)
{
    if (!echo_pending || !f) return;
    int fd = fileno(f);
    if (fd < 0 || !isatty(fd) || !echoes_ctl(fd)) return;   /* a file or pipe: nothing to end */
    echo_pending = 0;
    if (f != stdout) fflush(stdout);
    fputc('\n', f);
    fflush(f);
}

void bl_interrupt_echo_overwritten(void) { echo_pending = 0; }
