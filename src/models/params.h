/* params.h - the parameter store of a model (llm.c style).
 *
 * One flat allocation holds every parameter's values, one holds the gradients, and (allocated on
 * demand by the optimizer) one each for AdamW's first and second moments, all in the same layout:
 *
 *     values [ x_embedder.proj.weight | x_embedder.proj.bias | ... | final_layer.linear.bias ]
 *     grads  [ same offsets ]      m [ same ]      v [ same ]
 *
 * so the optimizer is one flat loop over `total` floats and a checkpoint is one write. Each
 * parameter is a bl_tensor view (data into values, grad into grads) carrying its PyTorch-style
 * name (DESIGN.md section 1), in declaration order (the order of the reference modules).
 *
 * Building is two-phase: bl_params_declare() each parameter (name, shape, init rule), then
 * bl_params_finish() allocates the buffers, makes the views and initialises the values. Views are
 * stable after finish (pointers may be kept).
 *
 * Initialisation (DESIGN.md section 4): a parameter's values depend only on (seed, its name),
 * drawn from bl_rng_named(seed, name), so a switch that adds or removes other parameters never
 * changes it.
 */
#ifndef BL_PARAMS_H
#define BL_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include "core/tensor.h"

#define BL_PARAM_NAME_MAX 80

/* How a parameter starts. */
typedef enum {
    BL_INIT_ZERO,       /* 0 (biases; DiT's adaLN-Zero layers) */
    BL_INIT_ONE,        /* 1 (norm weights) */
    BL_INIT_UNIFORM,    /* U(-a, a); a = 1/sqrt(fan_in) for Linear/conv weights (PyTorch default) */
    BL_INIT_NORMAL,     /* N(0, a^2); a = 0.02 for embeddings (GPT-2 / nanoGPT) */
    BL_INIT_CONST,      /* a everywhere (a norm's own scalar: nn.h bl_norm_def.alpha_init) */
} bl_init_kind;

typedef struct bl_param_info {
    char name[BL_PARAM_NAME_MAX];
    bl_init_kind init;
    float init_a;       /* bound (UNIFORM), standard deviation (NORMAL) or value (CONST) */
    size_t offset;      /* in floats, into values/grads/m/v */
} bl_param_info;

typedef struct bl_params {
    int n;                  /* number of parameters */
    bl_tensor *t;           /* n views: t[i].data = values + info[i].offset, .grad, .name */
    bl_param_info *info;    /* n rows */
    size_t total;           /* total number of floats (the parameter count) */
    float *values, *grads;  /* total floats each, 64-byte aligned */
    float *m, *v;           /* AdamW moments: NULL until bl_params_alloc_moments */
    int finished, cap;
    int refs;               /* bl_params_ref; bl_params_free drops one */
    /* 1 when a backward reached these gradients since they were last cleared (the REPL's
     * zero_grad(m), train): torch's p.grad is not None. The trainer does not read it. */
    int has_grad;
    /* n flags or NULL: while has_grad, parameter i's gradient is None all the same when grad_none[i]
     * (the prompt's p.grad = None, zero_grad(p), an optimizer's zero_grad(), or a backward that
     * reached only some parameters; repl/paramvals.c). Freed with the store. */
    unsigned char *grad_none;
} bl_params;

/* An empty store. NULL on out of memory. */
bl_params *bl_params_new(void);
/* The store is reference counted: bl_params_new gives one reference (the model's), bl_params_ref
 * another (a holder of views into the buffers that must outlive a rebuild of the model: the
 * prompt's live parameters, repl/modellab.h), bl_params_free drops one and frees the store with
 * the last. */
bl_params *bl_params_ref(bl_params *p);
void bl_params_free(bl_params *p);

/* Declare a parameter before bl_params_finish: a PyTorch-style name (unique, shorter than
 * BL_PARAM_NAME_MAX), a shape (1..4 dims) and its init rule. Returns its index (0, 1, ...) or -1
 * with "params: ..." for a duplicate name, a bad shape or a call after finish. */
int bl_params_declare(bl_params *p, const char *name, int ndim, const int *shape,
                      bl_init_kind init, float init_a);

/* Allocate values and grads (zeroed), make the views, and initialise every value from
 * (seed, name) with bl_params_init. Returns 0 or -1 (out of memory). */
int bl_params_finish(bl_params *p, uint64_t seed);

/* (Re)initialise every value from (seed, name) by its rule. Deterministic: the same (seed, name,
 * shape, rule) always gives the same bits. */
void bl_params_init(bl_params *p, uint64_t seed);

/* Allocate (zeroed) the AdamW moments m and v if absent. Returns 0 or -1 (out of memory). */
int bl_params_alloc_moments(bl_params *p);

/* Zero the AdamW moments, when allocated: a new run's optimizer starts afresh. */
void bl_params_zero_moments(bl_params *p);

/* Zero every gradient (one memset). */
void bl_params_zero_grad(bl_params *p);

/* The parameter with this exact name, or NULL (no error set). */
bl_tensor *bl_params_find(const bl_params *p, const char *name);
/* Its index, or -1. */
int bl_params_index(const bl_params *p, const char *name);

/* Copy the values of every parameter of src whose name and shape also exist in dst into dst
 * (keeps trained weights across a rebuild when the caller wants that). Returns how many copied. */
int bl_params_copy_shared(bl_params *dst, const bl_params *src);

/* Per-module breakdown for `params` tables. A name's module prefix at `depth` is its first
 * `depth` dot-separated components, where a numeric component counts together with the one
 * before it ("blocks.0", "transformer.h.3", "adaLN_modulation.1"):
 *   depth 1 (TinyDiT): x_embedder, pos_embed, t_embedder, blocks.0 ... blocks.3, final_layer
 *   depth 2 (TinyGPT): transformer.wte, transformer.wpe, transformer.h.0 ..., transformer.ln_f
 * depth <= 0 or larger than a name's depth gives the full parameter name. */
typedef struct bl_param_group {
    char prefix[BL_PARAM_NAME_MAX];
    size_t count;       /* floats in the group */
    int ntensors;
} bl_param_group;
/* Groups in order of first appearance into *out (malloc'ed; free() it). Returns the number of
 * groups, or -1 on out of memory. */
int bl_params_groups(const bl_params *p, int depth, bl_param_group **out);
/* Sum of the counts of parameters whose name starts with `prefix` followed by '.' or the end. */
size_t bl_params_count_prefix(const bl_params *p, const char *prefix);

#endif
