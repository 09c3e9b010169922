/* cmd_quit.c - `quit` and its alias `exit`: leave blocklab. */
#include "repl/repl.h"

static int cmd_quit(bl_cmdargs *a)
{
    if (bl_word_max(a, 0) < 0) return -1;
    a->s->quit = 1;
    return 0;
}

static const char quit_help[] =
    "Leave blocklab (Ctrl-D does the same).";

const bl_command bl_cmd_quit_entry = {
    .name = "quit",
    .synopsis = "quit",
    .help = quit_help,
    .run = cmd_quit,
};

static const char exit_help[] =
    "Leave blocklab (the same as quit).";

const bl_command bl_cmd_exit_entry = {
    .name = "exit",
    .synopsis = "exit",
    .help = exit_help,
    .run = cmd_quit,
};
