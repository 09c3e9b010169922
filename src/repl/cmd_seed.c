/* cmd_seed.c - `seed [N]`: restart the session's random generator, or show its seed. */
#include "repl/repl.h"

static int cmd_seed(bl_cmdargs *a)
{
    long n;
    if (a->n == 0) {
        fprintf(a->s->out, "seed %llu\n", (unsigned long long)a->s->seed);
        return 0;
    }
    if (bl_word_max(a, 1) < 0 || bl_word_int(a, 0, 0, 9007199254740991L, &n) < 0) return -1;
    bl_session_reseed(a->s, (uint64_t)n);
    return 0;
}

static const char help[] =
    "Restart the random generator from N, or show it.\n"
    "randn draws from this generator, so a script that starts with `seed 0` gives the same\n"
    "numbers every time.";

const bl_command bl_cmd_seed_entry = {
    .name = "seed",
    .synopsis = "seed [N]",
    .help = help,
    .run = cmd_seed,
};
