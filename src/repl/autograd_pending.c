/* autograd_pending.c - stand-ins for the two calls of repl/autograd.h that modellab.c makes, until
 * the engine (autograd.c, issue 14) is merged: weak symbols, so autograd.c's definitions replace
 * them. Without the engine a model's outputs are plain tensors (no backward). Delete this file
 * when autograd.c is on the branch. */
#include "repl/autograd.h"

__attribute__((weak)) bl_value *bl_ag_graph_value(bl_session *s, bl_graph *g, const unsigned *gen,
                                                  bl_tensor *out, bl_value *owner)
{
    (void)s; (void)g; (void)gen; (void)owner;
    return bl_val_tensor(bl_tensor_copy(out));
}

__attribute__((weak)) int bl_ag_enabled(const bl_session *s)
{
    (void)s;
    return 1;
}
