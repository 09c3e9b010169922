/* modules.h - the Python modules a lecturer writes, as blocklab knows them: torch, torch.nn,
 * torch.nn.functional (F) and math are names for blocklab's own functions, so code written for
 * PyTorch reads as it is:
 *
 *   import torch                      accepted; does nothing (torch is always there)
 *   import torch.nn.functional as F   likewise (as another name: an error saying F)
 *   torch.randn(3, 4)                 randn(3, 4): the builtin of the same name
 *   F.softmax(x, dim=-1)              softmax(x, dim=-1)
 *   math.sqrt(2), math.pi             sqrt(2), 3.14159...
 *   torch.foo(1)                      error: "torch.foo: blocklab has no function foo"
 *
 * A variable of the module's name (torch = 3) hides the module, as in Python.
 */
#ifndef BL_REPL_MODULES_H
#define BL_REPL_MODULES_H

#include "repl/repl.h"

/* The module expression e names (a NAME torch, F, nn, math; a FIELD torch.nn.functional,
 * nn.functional): its short name "torch", "F", "nn" or "math", or NULL when e is no module or a
 * variable hides it. */
const char *bl_module_of(bl_session *s, const bl_ast *e);

/* `import module [as name]` (from M import X: module "M.X", as X or NULL): 0 when blocklab has
 * the module (or function) under that name, else -1 + bl_fail (Python's ModuleNotFoundError,
 * ImportError, or the name blocklab knows it as). */
int bl_module_import(const char *module, const char *as);

/* MODULE.f(args) (a METHOD node whose target names a module): the builtin f's value, or NULL +
 * error at e (no such function). */
bl_value *bl_module_call(bl_session *s, const bl_ast *e);

/* MODULE.name (a FIELD node): math.pi, math.e, math.inf, math.nan, math.tau (torch.pi ... too);
 * NULL + error at e otherwise (a function not called says how to call it). */
bl_value *bl_module_field(bl_session *s, const bl_ast *e);

#endif
