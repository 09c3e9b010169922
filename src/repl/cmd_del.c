/* cmd_del.c - `del NAME...`: delete variables (all named, or none when one is missing). */
#include "repl/repl.h"
#include "core/error.h"

static int cmd_del(bl_cmdargs *a)
{
    if (a->n == 0) {
        bl_fail("del: name the variables to delete");
        return -1;
    }
    for (int i = 0; i < a->n; i++)
        if (!bl_session_get(a->s, a->w[i].text)) {
            bl_fail("del: no variable '%s'", a->w[i].text);
            return bl_word_err(a, i);
        }
    for (int i = 0; i < a->n; i++) bl_session_del(a->s, a->w[i].text);
    return 0;
}

static const char help[] =
    "Delete variables (and free what they hold).";

const bl_command bl_cmd_del_entry = {
    .name = "del",
    .synopsis = "del NAME...",
    .help = help,
    .complete = bl_complete_var,
    .run = cmd_del,
};
