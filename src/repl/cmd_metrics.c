/* cmd_metrics.c - `metrics [MODEL]`: the run's metrics as a run value (`> metrics.json`). */
#include "repl/trainstate.h"
#include "repl/modelvars.h"

static int cmd_metrics(bl_cmdargs *a)
{
    int used, pi;
    static const char *const none[] = { NULL };
    bl_model *m = bl_models_pick(a, &used);
    if (!m || bl_word_keys(a, used, none, 0, &pi) < 0) return -1;
    a->result = bl_train_run_value(m, "metrics");
    return a->result ? 0 : bl_session_errat(a->s, a->st->pos);
}

static const char help[] =
    "The run's metrics (steps, loss, val, speed).\n"
    "`metrics > metrics.json` writes metrics.json (params, steps, items, loss, ms, val,\n"
    "spikes, ms_per_step, it_per_s, items_per_s, wall_s); run(m) gives them as a value.";

const bl_command bl_cmd_metrics_entry = {
    .name = "metrics",
    .synopsis = "metrics [MODEL]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_metrics,
    .flags = BL_WRITES_RUN,
};
