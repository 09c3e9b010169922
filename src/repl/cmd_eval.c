/* cmd_eval.c - `eval [MODEL]`: the validation loss on the run's fixed exam. */
#include "repl/trainstate.h"
#include "core/fmt.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include <math.h>

static int cmd_eval(bl_cmdargs *a)
{
    int used, pi;
    static const char *const none[] = { NULL };
    bl_model *m = bl_models_pick(a, &used);
    if (!m || bl_word_keys(a, used, none, 0, &pi) < 0) return -1;
    bl_run *r = bl_train_run(a->s, m, "eval");
    if (!r) return bl_session_errat(a->s, a->st->pos);
    float v = bl_run_eval(r);
    if (isnan(v) && bl_train_exam_interrupted()) {
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "%s (model and run kept)\n", bl_error());
        bl_clear_error();
        bl_interrupt_reported(a->s);
        return 0;
    }
    if (isnan(v)) return bl_session_errat(a->s, a->st->pos);
    bl_fprintf(a->s->out, "val loss %.4f at step %d (%d held-out %s)\n", v, bl_run_steps(r), r->val_n,
            bl_kind_of(m->kind)->item);
    return 0;
}

static const char help[] =
    "Print the validation loss on the fixed exam.\n"
    "TinyDiT: flow MSE on held-out images with fixed noise and t; TinyGPT: cross-entropy on\n"
    "fixed held-out windows. The point goes into the run's val history.";

const bl_command bl_cmd_eval_entry = {
    .name = "eval",
    .synopsis = "eval [MODEL]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_eval,
};
