/* interrupt.c - Ctrl-C as a flag that long commands check at safe points (between training
 * steps, between statements). A third Ctrl-C while the flag is still set restores the default
 * action and ends the program, for a computation that never reaches a safe point. */
#include "repl/repl.h"
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t hits;

static void on_sigint(int sig)
{
    (void)sig;
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
}

int bl_interrupted(void) { return hits > 0; }

int bl_interrupt_count(void) { return hits; }

void bl_interrupt_clear(void) { hits = 0; }

void bl_interrupt_reported(bl_session *s)
{
    if (s->interactive) bl_interrupt_clear();
}
