/* cmd_vars.c - `vars`: the session's variables as a table (name, value). */
#include "repl/repl.h"

static int cmd_vars(bl_cmdargs *a)
{
    if (bl_word_max(a, 0) < 0) return -1;
    const char *cols[] = { "name", "value" };
    bl_table *t = bl_table_new(2, cols);
    for (int i = 0; t && i < a->s->nvars; i++) {
        char d[256];
        bl_val_describe(a->s->vals[i], d, sizeof d);
        if (bl_table_addf(t, "%s\t%s", a->s->names[i], d) < 0) {
            bl_table_free(t);
            return -1;
        }
    }
    if (!t) return -1;
    if (t->nrow == 0) {
        bl_table_free(t);
        fprintf(a->s->out, "no variables yet (x = randn(4, 8) makes one)\n");
        return 0;
    }
    a->result = bl_val_table(t);
    return a->result ? 0 : -1;
}

static const char help[] =
    "List the variables with their type and shape.";

const bl_command bl_cmd_vars_entry = {
    .name = "vars",
    .synopsis = "vars",
    .help = help,
    .run = cmd_vars,
    .flags = BL_WRITES_TABLE,
};
