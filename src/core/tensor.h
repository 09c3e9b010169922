/* tensor.h - the one tensor type of blocklab.
 *
 * float32, contiguous, row-major, 0 to 4 dimensions (0-D is a scalar with numel 1). A tensor
 * either owns its data (BL_OWNS_DATA) or is a view of someone else's memory (a parameter inside
 * the model's flat parameter buffer, a reshape, a graph arena slot). `grad`, when not NULL, has
 * the same shape and is where backward kernels *add* gradients (see graph.h).
 *
 *   shape [B, T, D] -> element (b, t, d) at data[(b * T + t) * D + d]
 *
 * Errors: constructors return NULL and set bl_error() ("absurd size", bad shape); nothing aborts.
 */
#ifndef BL_TENSOR_H
#define BL_TENSOR_H

#include <stddef.h>
#include <stdio.h>

#define BL_MAXDIM 4
/* Largest tensor blocklab agrees to allocate, in elements (2^31 floats = 8 GiB). */
#define BL_MAX_NUMEL ((size_t)1 << 31)

enum { BL_OWNS_DATA = 1, BL_OWNS_GRAD = 2, BL_OWNS_STRUCT = 4 };

typedef struct bl_tensor {
    float *data;
    float *grad;            /* NULL when no gradient is kept */
    int *grad_lazy;         /* arena grads: while *grad_lazy is 1 the grad is logically zero and
                             * its memory not yet written (graph.h); NULL: grad always valid */
    int ndim;
    int shape[BL_MAXDIM];
    size_t numel;
    unsigned flags;
    const char *name;       /* parameter name (PyTorch style) or NULL; not owned */
} bl_tensor;

/* Check a shape: 0..4 dims, each >= 1 (0 allowed only when allow_empty), numel <= BL_MAX_NUMEL
 * and <= the limit of bl_tensor_limit. Writes numel to *numel. Returns 0, or -1 with "what: ..."
 * in bl_error(): "what: absurd size (...)" past BL_MAX_NUMEL, "what: shape [20000, 20000] has
 * 400000000 elements (1.49 GiB of float32), more than the 268435456 (1 GiB) a tensor may have" past
 * a lower limit. Every new tensor (bl_tensor_new, bl_graph_tensor) passes through it. */
int bl_shape_check(const char *what, int ndim, const int *shape, size_t *numel);

/* Set the most elements a new tensor may have (BL_MAX_NUMEL at most; 0 means BL_MAX_NUMEL) and
 * return the limit it replaces. The REPL lowers it while it evaluates what was typed, so that a
 * typo such as ones(20000, 1) + ones(1, 20000) is refused before any memory is taken; models
 * and data, made by its commands, keep BL_MAX_NUMEL. */
size_t bl_tensor_limit(size_t max);

/* A new zero-filled owned tensor. NULL on a bad or absurd shape or out of memory. */
bl_tensor *bl_tensor_new(int ndim, const int *shape);
/* Shorthands: bl_tensor_new1(n), bl_tensor_new2(a, b), ... */
bl_tensor *bl_tensor_new1(int a);
bl_tensor *bl_tensor_new2(int a, int b);
bl_tensor *bl_tensor_new3(int a, int b, int c);
bl_tensor *bl_tensor_new4(int a, int b, int c, int d);
/* A scalar (0-D) tensor holding v. */
bl_tensor *bl_tensor_scalar(float v);
/* An owned tensor with a copy of data (numel floats) and the given shape. */
bl_tensor *bl_tensor_from(int ndim, const int *shape, const float *data);
/* Deep copy of values (not grad). */
bl_tensor *bl_tensor_copy(const bl_tensor *t);
/* Free a tensor made by any bl_tensor_* constructor (NULL is fine); views never free the data. */
void bl_tensor_free(bl_tensor *t);

/* Allocate a zeroed grad buffer for t if it has none. Returns 0 or -1 (out of memory). */
int bl_tensor_require_grad(bl_tensor *t);

/* A heap-allocated view sharing t's data (and grad) with a new shape of the same numel.
 * One dimension may be -1 (inferred). NULL with "reshape: cannot view [..] as [..]" on mismatch. */
bl_tensor *bl_tensor_reshape(const bl_tensor *t, int ndim, const int *shape);
/* Fill `view` (a caller-owned struct) as a view of t with another shape; returns 0 or -1. */
int bl_tensor_view_as(bl_tensor *view, const bl_tensor *t, int ndim, const int *shape);
/* A new owned contiguous tensor with dimensions d0 and d1 swapped (negative dims count from the end). */
bl_tensor *bl_tensor_transpose(const bl_tensor *t, int d0, int d1);

/* Normalise a dimension index (negative counts from the end). Returns -1 and sets an error
 * naming `what` when out of range. */
int bl_dim_index(const char *what, const bl_tensor *t, int dim);

/* Shapes equal? */
int bl_same_shape(const bl_tensor *a, const bl_tensor *b);
/* Write "[2, 3, 4]" into buf (always NUL-terminated); returns buf. */
char *bl_shape_str(const bl_tensor *t, char *buf, size_t n);
/* Product of shape[from..ndim-1] (the size of one "row" starting at dim `from`). */
size_t bl_tensor_inner(const bl_tensor *t, int from);

void bl_tensor_fill(bl_tensor *t, float v);
void bl_tensor_zero_grad(bl_tensor *t);

#endif
