/* cmd_use.c - `use MODEL`: make the model a variable holds the current one. */
#include "repl/modelvars.h"
#include "core/error.h"

static int cmd_use(bl_cmdargs *a)
{
    if (a->n != 1) {
        bl_fail("use: name one model variable (use a)");
        return a->n ? bl_session_errat(a->s, a->w[1].pos) : -1;
    }
    bl_value *v = bl_session_get(a->s, a->w[0].text);
    if (!bl_is_model_value(v)) {
        if (v) bl_fail("use: '%s' is a %s, not a model", a->w[0].text, bl_val_kind_name(v));
        else bl_fail("use: no variable '%s'", a->w[0].text);
        return bl_session_errat(a->s, a->w[0].pos);
    }
    bl_models_use(a->s, v, a->w[0].text);
    return 0;
}


static const char help[] =
    "Make the model held by a variable the current one.";

const bl_command bl_cmd_use_entry = {
    .name = "use",
    .synopsis = "use MODEL",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_use,
};
