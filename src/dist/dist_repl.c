/* dist_repl.c - one REPL over several ranks: rank 0 reads, every rank runs (see dist.h). */
#include "config.h"
#include "dist/dist.h"
#include "core/error.h"
#include "repl/repl.h"
#include <stdlib.h>
#include <string.h>

/* A statement message: 'S' LINE '\n' NAME '\n' TEXT, or 'E' RC (the session ended). One tag for
 * both, so that MPI's order per sender and tag keeps the end after the last statement. */
static void send_all(const char *msg, size_t n)
{
    for (int k = 1; k < bl_dist_size(); k++) {
        if (bl_dist_dead(k)) continue;
        if (bl_dist_send(k, BL_TAG_STMT, msg, n) < 0) {
            fprintf(stderr, "blocklab: %s; rank %d is left out from now on\n", bl_error(), k);
            bl_clear_error();
        }
    }
}

void bl_dist_share(const char *name, const char *text, int line)
{
    if (bl_dist_size() < 2 || bl_dist_rank() != 0) return;
    size_t n = strlen(name) + strlen(text) + 32;
    char *msg = malloc(n);
    if (!msg) return;
    int len = snprintf(msg, n, "S%d\n%s\n%s", line, name, text);
    send_all(msg, (size_t)len);
    free(msg);
}

void bl_dist_end(int rc)
{
    if (bl_dist_size() < 2 || bl_dist_rank() != 0) return;
    char msg[32];
    int len = snprintf(msg, sizeof msg, "E%d", rc);
    send_all(msg, (size_t)len);
}

int bl_dist_follow(bl_session *s)
{
    s->keep_going = 1;      /* rank 0 decides where the session stops */
    for (;;) {
        char *m = bl_dist_recv(0, BL_TAG_STMT, 0, NULL);
        if (!m) return 1;
        if (m[0] == 'E') {
            int rc = atoi(m + 1);
            free(m);
            return rc;
        }
        char *nl1 = strchr(m, '\n'), *nl2 = nl1 ? strchr(nl1 + 1, '\n') : NULL;
        if (m[0] == 'S' && nl2) {
            *nl1 = *nl2 = 0;
            bl_interrupt_clear();
            s->quit = 0;
            bl_exec(s, nl1 + 1, nl2 + 1, atoi(m + 1));
            bl_clear_error();
        }
        free(m);
    }
}

int bl_dist_refuse(const char *cmd, const char *why)
{
    if (bl_dist_size() < 2) return 0;
    return bl_fail("%s: not available under MPI (%d ranks): %s", cmd, bl_dist_size(), why);
}
