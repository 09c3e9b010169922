/* cmd_history.c - `history [N]` shows the last statements, `history size=N` sets how many are
 * kept (repl/line.h, repl/histfile.h). */
#include "repl/repl.h"
#include "repl/histfile.h"
#include "repl/line.h"

static int cmd_history(bl_cmdargs *a)
{
    long n = 20;
    if (a->n >= 1 && a->w[0].key) {     /* history size=N: how many statements are kept */
        static const char *const keys[] = { "size", NULL };
        long size;
        if (bl_word_max(a, 1) < 0 || bl_opt_check(a, 0, keys) < 0 ||
            bl_opt_int(a, "size", BL_HIST_SIZE_DEFAULT, 0, BL_HIST_SIZE_MAX, &size) < 0)
            return -1;
        bl_line_set_histsize((int)size);
        fprintf(a->s->out, "history: keeping the last %ld statement%s%s\n", size, size == 1 ? "" : "s",
                bl_line_history_path() ? " (and as many in the history file)" : "");
        return 0;
    }
    if (bl_word_max(a, 1) < 0 || (a->n == 1 && bl_word_int(a, 0, 1, 1000000, &n) < 0)) return -1;
    int from = a->s->nhist > n ? a->s->nhist - (int)n : 0;
    for (int i = from; i < a->s->nhist; i++) fprintf(a->s->out, "%5d  %s\n", i + 1, a->s->hist[i]);
    return 0;
}

static const char help[] =
    "Show the last N statements (20 by default).\n"
    "history size=N sets how many statements the history keeps at the prompt and in\n"
    "its file (2000 by default, or $BLOCKLAB_HISTSIZE; 0 keeps none). A statement longer\n"
    "than 64 KiB is not kept; a history file that is not text (a NUL byte, invalid UTF-8)\n"
    "is read as far as it is text, with one warning, and rewritten clean on exit.";

const bl_command bl_cmd_history_entry = {
    .name = "history",
    .synopsis = "history [N] | history size=N",
    .help = help,
    .run = cmd_history,
};
