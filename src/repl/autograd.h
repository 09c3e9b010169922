/* autograd.h - gradients at the prompt, PyTorch style (issue 14), on the graph ops' own
 * hand-written backward kernels (core/ops.h, nn/nn.h): no formula is written twice.
 *
 * A tensor value needs a gradient when it is
 *   - a leaf: made with grad=on (randn(4, 8, grad=on), zeros, ones, tensor, load) or by
 *     requires_grad(x); its .grad accumulates over backward calls until zero_grad(x) or
 *     x.grad = none (torch.Tensor.requires_grad_ / .grad / .zero_grad);
 *   - the result of a differentiable function or operator one of whose inputs needs a gradient:
 *     it carries the node that made it (value->node).
 *
 * How a function records (the whole pattern, in a function of functions.c):
 *
 *     bl_ag ag;
 *     bl_graph *g = bl_ag_begin(&ag, a);           // any argument needing a gradient?
 *     x = bl_ag_in(&ag, a->v[0], x);               // each tensor argument that may need one
 *     return bl_ag_end(&ag, bl_rmsnorm(g, x, w, eps));
 *
 * When no argument needs a gradient g is the session's scratch graph with recording off (as
 * before: nothing is kept, no cost). Otherwise g is a small private graph of this call that
 * records; bl_ag_in gives the op a copy of the argument inside it, with a gradient buffer of
 * its own when the argument needs one, and bl_ag_end makes the output a value whose node keeps the
 * private graph (its saved tensors) and references to the argument values. backward(y) walks the
 * nodes that y depends on in reverse creation order (a topological order: every input was made
 * before the op that used it); each node re-arms its graph, seeds its output's gradient with the
 * sum of what its users sent and runs its graph's backward (bl_graph_backward_from), then adds
 * each argument view's gradient into that argument: into a leaf's .grad, or into the pending
 * gradient of the node that made it. Without retain_graph=on the nodes walked give up their saved
 * tensors afterwards, and a second backward through them is refused, as in PyTorch.
 *
 * Arena views made with bl_graph_view (reshape) share the gradient buffer, so an output may be
 * a view of what the op returned. Ops outside the graph (plain tensor_math.h) record nothing:
 * a function that only has such a path must refuse an input that needs a gradient
 * (bl_ag_refuse) rather than silently drop it.
 */
#ifndef BL_REPL_AUTOGRAD_H
#define BL_REPL_AUTOGRAD_H

#include "repl/repl.h"

typedef struct bl_agnode bl_agnode;

typedef struct {
    bl_session *s;
    bl_graph *g;            /* where the op runs */
    int recording;          /* 1: g is private and records */
    bl_agnode *node;        /* the node being built (recording) */
} bl_ag;

/* 1 when v is a tensor value that needs a gradient (a leaf with requires_grad, or made from
 * one by a recorded op); 0 for anything else. */
int bl_val_needs_grad(const bl_value *v);

/* Begin a differentiable call: records when any positional or keyword argument of a needs a
 * gradient and gradients are not switched off (no_grad). Returns the graph to run the op on,
 * or NULL + bl_error() when out of memory. */
bl_graph *bl_ag_begin(bl_ag *ag, bl_callargs *a);
/* The same for operators: records when one of the n values needs a gradient. */
bl_graph *bl_ag_begin_vals(bl_ag *ag, bl_session *s, int n, bl_value *const *v);
/* The tensor to pass the op for the argument value v (or NULL: a constant) whose (borrowed)
 * tensor is t: t itself when not recording; else a copy of t in ag->g (the node's saved inputs
 * must outlive the call's temporaries), whose gradient receives d(out)/d(v) when v needs one.
 * Every tensor a recording op reads must come through bl_ag_in or bl_ag_const. NULL (with
 * bl_error) only when out of memory; NULL t passes through. */
bl_tensor *bl_ag_in(bl_ag *ag, bl_value *v, bl_tensor *t);
/* A tensor the op reads that is no argument's value (a RoPE table, a mask): t when not
 * recording, else a copy in ag->g. */
bl_tensor *bl_ag_const(bl_ag *ag, bl_tensor *t);
/* End the call: the op's output out (a tensor of ag->g, or NULL after an error, which is passed
 * on) as a new value that owns a copy of its data. When recording, the value carries the node.
 * Always call it once after bl_ag_begin: it releases what the call no longer needs. */
bl_value *bl_ag_end(bl_ag *ag, bl_tensor *out);
/* For a path that records nothing: -1 + "what: not differentiable (...)" when one of the n
 * values needs a gradient (and gradients are on), 0 otherwise. */
int bl_ag_refuse(bl_session *s, const char *what, int n, bl_value *const *v);

/* A value for the output `out` of graph g (a model's forward at the prompt): when out has a
 * gradient and g records, the value's node holds a reference to g (bl_graph_ref; dropped after a
 * backward without retain_graph, or with the value) and runs bl_graph_backward_from on it,
 * provided *gen still equals the value it had here (the model's weights version, models/model.h);
 * otherwise backward says the weights have changed since. The caller must not reset g while
 * another reference is held (bl_graph_shared). owner (may be NULL) is a value kept alive while
 * the node lives (the model handle). Parameters of that graph are leaves whose gradients stay
 * where the graph keeps them (the model's gradient buffer). */
/* Make `in` (a value that needs a gradient) an argument of the node of out (a value made by
 * bl_ag_graph_value): after out's graph ran backward, view->grad (a tensor of that graph with a
 * gradient, the copy of in's tensor the graph read) goes to in as any op's argument gradient
 * (a leaf's .grad, or on to the op that made in). 0, or -1 + error (out of memory, or out has no
 * node: then nothing is recorded). */
int bl_ag_add_input(bl_value *out, bl_value *in, bl_tensor *view);

bl_value *bl_ag_graph_value(bl_session *s, bl_graph *g, const unsigned *gen, bl_tensor *out,
                            bl_value *owner);

/* For the functions that make tensors (randn, zeros, ones, tensor, load): with the keyword
 * grad=on (or requires_grad=True, PyTorch's name for it; not both), v (owned; a number becomes a 0-D tensor) becomes a leaf that needs a gradient.
 * Returns v, or NULL + error (a bad grad= value; v is released). */
bl_value *bl_ag_leaf(bl_callargs *a, bl_value *v);

/* A new TENSOR value holding t (owned), kept as a tensor even when 0-D: a number cannot carry
 * the node that made it (y = sum(x * x) must still reach x) nor be a leaf. NULL t passes. */
bl_value *bl_ag_tensor_value(bl_tensor *t);

/* Turn gradient recording off (no_grad) or on; returns the previous state. */
int bl_ag_set_enabled(bl_session *s, int on);
int bl_ag_enabled(const bl_session *s);

/* backward(y[, g]): y a tensor or number value that needs a gradient; seed the upstream gradient
 * gout (NULL: y must have one element, seed 1) and walk. retain: keep the saved tensors for a
 * second walk. 0 or -1 + error ("backward: ..." naming what is wrong). */
int bl_ag_backward(bl_session *s, bl_value *y, const bl_tensor *gout, int retain);

/* What a tensor value's repr adds: ", requires_grad=True" for a leaf, ", grad_fn=<op>" for a
 * value made by a recorded op (op: the last graph op that made it), "" otherwise. */
void bl_ag_describe(const bl_value *v, char *buf, size_t n);
/* The name of the op that made v, or NULL (a leaf or a constant). */
const char *bl_ag_op(const bl_value *v);

/* The autograd fields of a tensor value, as torch.Tensor has them: grad (the accumulated
 * gradient of a leaf, or none), requires_grad, is_leaf, grad_fn (the op's name, or none) and
 * item (the one element as a number; NULL + error when there are more). NULL (no error) for
 * another name. */
bl_value *bl_ag_field(bl_value *v, const char *name);

/* Free a node (called by bl_val_unref when its value goes). */
void bl_agnode_unref(bl_agnode *n);
/* Another reference to n (a value that takes over the node of another: an in-place update of a
 * non-leaf under no_grad keeps its grad_fn, as torch's). n may be NULL. */
bl_agnode *bl_agnode_ref(bl_agnode *n);

#endif
