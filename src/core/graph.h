/* graph.h - the tape (reverse-mode autograd) and the arena that holds one step's activations.
 *
 * A bl_graph is both:
 *   - an arena: every tensor an op produces during a forward pass is carved out of it with
 *     bl_graph_tensor(); bl_graph_reset() rewinds it. After the first step has sized it, later
 *     steps of the same shapes allocate nothing (the arena keeps its chunks and rewinds them: the same
 *     chunks, already mapped, serve the next step; 16 MiB ones with transparent huge pages);
 *   - a tape: when recording, each op appends one bl_node (its backward function, inputs, output,
 *     saved tensors, saved arguments by name). bl_graph_backward() seeds d(loss) = 1 and calls the
 *     nodes' backward functions in reverse order.
 *
 * Conventions every op follows (llm.c style):
 *   - forward: check shapes (bl_fail + return NULL on a mismatch), allocate the output with
 *     bl_graph_tensor(g, ..., bl_graph_wants_grad(g, inputs...)), compute, then
 *     `bl_node *n = bl_graph_node(g, BL_OP_NAME, op_backward, out)` and, when n != NULL, fill it;
 *   - backward *adds into* the grad of each input whose grad is not NULL (a tensor used twice
 *     needs no special case), reading out->grad; it never allocates.
 *   - activation grads are zeroed lazily: a new arena grad is only marked "logically zero"
 *     (tensor.grad_lazy). Before a node's backward runs, the walk zeroes the grads it will touch,
 *     except those of inputs whose bit the forward set in node.assigns: that backward calls
 *     bl_grad_take() and, when it returns 1, *writes* the grad (=) instead of adding, saving a
 *     pass over memory. A node whose output grad is still logically zero is skipped (it would add
 *     zeros). After the walk every grad nobody wrote is zeroed, so all grads read as usual.
 *   - leaves (parameters, inputs that need a gradient) are tensors whose grad is not NULL; data
 *     without grad is a constant.
 *
 *        forward:  x --linear--> h --gelu--> y --mse--> loss
 *        backward: nodes [mse, gelu, linear] walked as mse.bw, gelu.bw, linear.bw
 *
 * Errors: functions return NULL / -1 and set bl_error(); the graph stays usable (reset it).
 */
#ifndef BL_GRAPH_H
#define BL_GRAPH_H

#include "core/op.h"
#include "core/tensor.h"
#include <string.h>

#define BL_NODE_MAXIN 6
#define BL_NODE_ARGS 48             /* bytes for an op's saved arguments */

typedef struct bl_node bl_node;
typedef void (*bl_backward_fn)(bl_node *n);

struct bl_node {
    bl_op op;                       /* which op (core/op.h); bl_op_name(op) in errors and help */
    bl_backward_fn backward;
    bl_tensor *out;
    bl_tensor *in[BL_NODE_MAXIN];   /* inputs in the order the forward took them */
    bl_tensor *save[4];             /* arena tensors the forward kept for backward */
    unsigned assigns;               /* bit i: backward handles in[i]'s lazy grad (bl_grad_take) */
    _Alignas(8) unsigned char args[BL_NODE_ARGS];  /* the op's saved arguments (BL_NODE_SAVE) */
};

/* An op's saved arguments (sizes, flags, constants, pointers that outlive the step) are a struct
 * of its own with named fields, declared in the op's file and kept in node.args:
 *     typedef struct { int dim, k; } topk_args;
 *     forward:   BL_NODE_SAVE(n, ((topk_args){dim, k}));
 *     backward:  topk_args a; BL_NODE_LOAD(n, a);
 * A struct larger than BL_NODE_ARGS bytes does not compile. */
#define BL_NODE_FITS_(a) ((void)sizeof(char[sizeof(a) <= BL_NODE_ARGS ? 1 : -1]))
#define BL_NODE_SAVE(n, a) (BL_NODE_FITS_(a), (void)memcpy((n)->args, &(a), sizeof(a)))
#define BL_NODE_LOAD(n, a) (BL_NODE_FITS_(a), (void)memcpy(&(a), (n)->args, sizeof(a)))

typedef struct bl_graph bl_graph;

bl_graph *bl_graph_new(void);
/* A graph for one small op (the prompt's autograd, repl/autograd.h): its arena grows from 1 KiB
 * chunks and its node array from 4 nodes instead of 1 MiB and 256. */
bl_graph *bl_graph_new_small(void);
/* A graph is reference counted: bl_graph_new gives one reference, bl_graph_ref another (a holder
 * that must keep the arena and tape alive: a value of the prompt whose backward runs this graph,
 * while the model keeps the same graph for its per-layer views), bl_graph_free drops one and
 * frees the graph with the last. bl_graph_shared: 1 when more than one reference is held. */
bl_graph *bl_graph_ref(bl_graph *g);
int bl_graph_shared(const bl_graph *g);
void bl_graph_free(bl_graph *g);
/* Forget all nodes and rewind the arena (tensors from it become invalid). */
void bl_graph_reset(bl_graph *g);
/* Recording on (default): ops append nodes and outputs get grads when an input has one.
 * Off: inference only (no nodes, no grads). */
void bl_graph_set_record(bl_graph *g, int on);
int bl_graph_recording(const bl_graph *g);
/* Transient grads on (default off): from now on the grad of a tensor an op produces gets no
 * memory of its own at the forward; backward plans it (grads whose lifetimes on the tape do not
 * overlap share blocks, e.g. layer i's with layer j's) and after the walk such grads point at an
 * inaccessible reservation: only leaves' grads (bl_graph_input, grads asked for with
 * bl_grad_ready before backward) and parameters' can be read after backward. The gradients
 * backward computes are the same bits. For a training graph whose intermediate grads nobody
 * reads (a model's): at TinyGPT's nanoGPT size it halves the activation memory. */
void bl_graph_set_transient_grads(bl_graph *g, int on);
int bl_graph_transient_grads(const bl_graph *g);

/* A point in the arena to come back to: bl_graph_release(g, mark) frees everything allocated
 * since (those tensors become invalid), so the next allocations reuse that memory. For forwards
 * that do not record: a model's exam rewinds after each block, keeping only the residual stream.
 * Refused (-1 + error) when nodes or grads were made since the mark. */
typedef struct { void *chunk; size_t used, in_use; int nnodes, nlazy; } bl_graph_mark;
bl_graph_mark bl_graph_mark_now(const bl_graph *g);
int bl_graph_release(bl_graph *g, bl_graph_mark m);
/* Raw arena memory, 64-byte aligned, NOT initialised. NULL + error when out of memory. */
void *bl_graph_alloc(bl_graph *g, size_t bytes);
/* n floats of scratch shared by every op of the graph (arena, NOT initialised): the same block
 * for each caller while it is large enough, a larger one when not (the old one stays valid until
 * reset). Its contents last until the next op uses it: for values an op recomputes in its own
 * backward instead of keeping one copy per layer. NULL + error when out of memory. */
float *bl_graph_scratch(bl_graph *g, size_t n);
/* An arena tensor: data NOT initialised; grad only when with_grad, logically zero (lazily
 * zeroed, see above; it reads as zeros after backward). NULL on bad shape. */
bl_tensor *bl_graph_tensor(bl_graph *g, int ndim, const int *shape, int with_grad);
/* 1 when recording and at least one of the n tensors has a grad. */
int bl_graph_wants_grad(const bl_graph *g, int n, bl_tensor *const *ts);
#define BL_WANTS_GRAD(g, ...) \
    bl_graph_wants_grad((g), (int)(sizeof((bl_tensor *[]){__VA_ARGS__}) / sizeof(bl_tensor *)), \
                        (bl_tensor *[]){__VA_ARGS__})
/* Append a node for `out` and return it for the op to fill; NULL when there is nothing to
 * record (not recording, or out->grad == NULL). Sets op, backward and out. */
bl_node *bl_graph_node(bl_graph *g, bl_op op, bl_backward_fn backward, bl_tensor *out);
/* An arena tensor holding a copy of x (so the graph's saved inputs live as long as it does,
 * whatever happens to x), with a lazy gradient of its own when with_grad: an input whose
 * gradient the caller collects after backward (the prompt's autograd). NULL + error when out
 * of memory. */
bl_tensor *bl_graph_input(bl_graph *g, const bl_tensor *x, int with_grad);
/* Make every arena gradient logically zero again, so the tape can be walked once more from a
 * new seed (saved tensors are read-only to backward kernels, so a second walk gives the same
 * gradients). Parameters' gradients (not arena) are untouched: they keep accumulating. */
void bl_graph_rearm(bl_graph *g);
/* A view of x (same data and grad) with another shape, from the arena; no node is needed
 * because the grad buffer is shared. NULL + error on a numel mismatch. */
bl_tensor *bl_graph_view(bl_graph *g, const bl_tensor *x, int ndim, const int *shape);

/* For a backward function whose forward set the bit of input t in node.assigns: 1 when t's grad
 * is still logically zero and unwritten, and the caller must then overwrite every element (with
 * what it would have added to zeros); 0 when the grad holds values to add to. Either way the grad
 * counts as written afterwards. Tensors without lazy grads (parameters) always give 0. */
int bl_grad_take(bl_tensor *t);

/* t's grad made real (zeroed now if still logically zero), for code outside backward that
 * writes or reads the grad of an arena tensor before backward has run (seeding several outputs).
 * NULL when t has no grad. */
float *bl_grad_ready(bl_tensor *t);

/* Backward from a scalar (numel 1) loss that has a grad: loss->grad += 1, then every node in
 * reverse. Returns 0, or -1 if loss is not a scalar with a grad. */
int bl_graph_backward(bl_graph *g, bl_tensor *loss);

/* Backward from any output: out->grad += seed (out->numel floats), then every node in reverse.
 * For gradient checks of ops with non-scalar outputs. -1 if out has no grad. */
int bl_graph_backward_from(bl_graph *g, bl_tensor *out, const float *seed);

/* Bookkeeping for tests and benchmarks. */
int bl_graph_node_count(const bl_graph *g);
const bl_node *bl_graph_node_at(const bl_graph *g, int i);
size_t bl_graph_arena_bytes(const bl_graph *g);     /* bytes in use now */
size_t bl_graph_arena_mallocs(const bl_graph *g);   /* malloc calls made so far by the arena */

#endif
