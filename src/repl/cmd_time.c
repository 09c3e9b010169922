/* cmd_time.c - `time STATEMENT`: run a statement and print its wall-clock time. */
#include "repl/repl.h"
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmd_time(bl_cmdargs *a)
{
    double t0 = now();
    int rc = bl_cmd_run_rest(a, "time x @ x.T");
    double dt = now() - t0;
    if (rc == 0 && !bl_interrupted()) {     /* after Ctrl-C: abandoned, as the line is */
        if (dt < 1) fprintf(a->s->out, "time: %.3f ms\n", dt * 1e3);
        else fprintf(a->s->out, "time: %.3f s\n", dt);
    }
    return rc;
}

static const char help[] =
    "Run a statement and print its wall-clock time.\n"
    "For example: time y = x @ x.T";

const bl_command bl_cmd_time_entry = {
    .name = "time",
    .synopsis = "time STATEMENT",
    .help = help,
    .run = cmd_time,
    .flags = BL_CMD_RAW,
};
