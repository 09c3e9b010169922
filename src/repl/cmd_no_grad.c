/* cmd_no_grad.c - `no_grad STATEMENT`: torch.no_grad() for one statement (repl/autograd.h). */
#include "repl/repl.h"
#include "repl/autograd.h"

static int cmd_no_grad(bl_cmdargs *a)
{
    int was = bl_ag_set_enabled(a->s, 0);
    int rc = bl_cmd_run_rest(a, "no_grad w = w - 0.1 * w.grad");
    bl_ag_set_enabled(a->s, was);
    return rc;
}

static const char help[] =
    "Run a statement without recording gradients.\n"
    "As torch.no_grad(): its results need no gradient even when their inputs do, e.g. an\n"
    "update by hand (torch's in place: w stays a leaf that requires grad):\n"
    "no_grad w -= 0.1 * w.grad\n"
    "For a block of statements, Python's form: with torch.no_grad(): and the indented\n"
    "lines (help language).";

const bl_command bl_cmd_no_grad_entry = {
    .name = "no_grad",
    .synopsis = "no_grad STATEMENT",
    .help = help,
    .run = cmd_no_grad,
    .flags = BL_CMD_RAW,
};
