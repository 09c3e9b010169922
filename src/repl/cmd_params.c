/* cmd_params.c - `params [MODEL] [depth=N]`: parameter counts per module, then the total. */
#include "repl/modelvars.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>

static int cmd_params(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    long depth = bl_kind_of(m->kind)->params_depth;
    for (int i = used; i < a->n; i++) {
        if (!a->w[i].key || strcmp(a->w[i].key, "depth")) {
            bl_fail("params: expected depth=N, got '%s'", a->w[i].text);
            return bl_session_errat(a->s, a->w[i].pos);
        }
        char *end;
        depth = strtol(a->w[i].text, &end, 10);
        if (*end || end == a->w[i].text || depth < 0 || depth > 16) {
            bl_fail("params: depth must be a whole number in [0, 16], got '%s'", a->w[i].text);
            return bl_session_errat(a->s, a->w[i].vpos);
        }
    }
    bl_param_group *g = NULL;
    int ng = bl_params_groups(m->params, depth == 0 ? -1 : (int)depth, &g);
    if (ng < 0) return -1;
    const char *cols[] = { "module", "tensors", "parameters" };
    bl_table *t = bl_table_new(3, cols);
    int ntensors = 0;
    for (int i = 0; t && i < ng; i++) {
        ntensors += g[i].ntensors;
        if (bl_table_addf(t, "%s\t%d\t%zu", g[i].prefix, g[i].ntensors, g[i].count) < 0) {
            bl_table_free(t);
            t = NULL;
        }
    }
    free(g);
    if (!t) return -1;
    size_t total = bl_model_param_count(m);
    if (!a->st->redirect || bl_stmt_redirects_to(a->st, ".txt")) {
        bl_table_write_txt(t, a->s->out);
        fprintf(a->s->out, "total %zu\n", total);
        bl_table_free(t);
        return 0;
    }
    if (bl_table_addf(t, "total\t%d\t%zu", ntensors, total) < 0) {
        bl_table_free(t);
        return -1;
    }
    a->result = bl_val_table(t);
    return a->result ? 0 : -1;
}

static const char help[] =
    "Parameter counts per module, then `total N`.\n"
    "depth=0 lists every tensor by its PyTorch name; `params > p.csv` writes the table.";

const bl_command bl_cmd_params_entry = {
    .name = "params",
    .synopsis = "params [MODEL] [depth=N]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_params,
    .flags = BL_WRITES_TABLE,
};
