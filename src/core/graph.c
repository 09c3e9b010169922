/* graph.c - tape and arena (see graph.h). */
#include "core/graph.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct chunk { struct chunk *next; size_t size, used; unsigned char *mem; } chunk;

/* The other tensors (views, bl_graph_view) that share one arena grad. */
typedef struct alias { bl_tensor *t; struct alias *next; } alias;

/* The arena grads of this step, for zeroing what nobody wrote once backward is done. lazy points
 * at two ints in the arena: [0] the "logically zero" flag (tensor.grad_lazy), [1] the index of
 * this entry, then the graph. With transient grads (bl_graph_set_transient_grads) a grad that a node produces has
 * no memory of its own until backward: t and views are the tensors whose grad pointer the plan
 * sets; producer is the first node with t as out (-1: a leaf, whose grad is kept), last the last
 * node that reads or writes it, permanent 1 once someone asked for it outside backward. */
typedef struct {
    int *lazy;
    float *grad;
    size_t n;
    bl_tensor *t;
    alias *views;
    int producer, first, last, managed, permanent;
} lazy_grad;

/* A free block of the backward plan: grads of one byte size whose lifetimes are over. */
typedef struct { size_t bytes; float *p; } free_block;

struct bl_graph {
    chunk *chunks, *cur, *tail;     /* in the order they were made; cur: where allocation is */
    size_t in_use, high_water, mallocs;
    bl_node *nodes;
    int nnodes, cap;
    lazy_grad *lazy;
    int nlazy, lazy_cap;
    int record;
    int refs;               /* bl_graph_ref; bl_graph_free drops one */
    size_t min_chunk;       /* smallest chunk the arena allocates (1 MiB, or less: bl_graph_new_small) */
    int node_cap0;          /* first size of the node array */
    int transient;          /* bl_graph_set_transient_grads */
    int planned_nodes;      /* the tape length the backward plan was made for (-1: none) */
    int planned_seed;       /* the lazy entry seeded by that plan's backward */
    free_block *freel;      /* the plan's free list (its scratch, kept between steps) */
    int nfree, free_cap;
    float *scratch;         /* bl_graph_scratch's block (arena), scratch_n floats; reset forgets it */
    size_t scratch_n;
};

bl_graph *bl_graph_new(void)
{
    bl_graph *g = calloc(1, sizeof *g);
    if (!g) return BL_FAILP("graph: out of memory");
    g->record = 1;
    g->refs = 1;
    g->min_chunk = (size_t)1 << 20;
    g->node_cap0 = 256;
    g->planned_nodes = -1;
    return g;
}

bl_graph *bl_graph_new_small(void)
{
    bl_graph *g = bl_graph_new();
    if (g) {
        g->min_chunk = 1024;
        g->node_cap0 = 4;
    }
    return g;
}

static void free_chunks(chunk *c)
{
    while (c) { chunk *n = c->next; free(c->mem); free(c); c = n; }
}

bl_graph *bl_graph_ref(bl_graph *g)
{
    if (g) g->refs++;
    return g;
}

int bl_graph_shared(const bl_graph *g) { return g && g->refs > 1; }

void bl_graph_free(bl_graph *g)
{
    if (!g || --g->refs > 0) return;
    free_chunks(g->chunks);
    free(g->nodes);
    free(g->lazy);
    free(g->freel);
    free(g);
}

void bl_graph_reset(bl_graph *g)
{
    g->nnodes = 0;
    g->nlazy = 0;
    g->planned_nodes = -1;
    g->scratch = NULL;
    g->scratch_n = 0;
    /* every chunk is kept and rewound: the next step of the same shapes takes the same chunks
     * in the same order and allocates nothing, and its pages are already mapped (replacing
     * them by one new chunk of the high-water size made the second step fault in every page
     * again: at TinyGPT's nanoGPT size 5.7 GB, and its first two steps took 4x a later one) */
    for (chunk *c = g->chunks; c; c = c->next) c->used = 0;
    g->cur = g->chunks;
    g->in_use = 0;
}

void bl_graph_set_record(bl_graph *g, int on) { g->record = on; }

bl_graph_mark bl_graph_mark_now(const bl_graph *g)
{
    return (bl_graph_mark){g->cur, g->cur ? g->cur->used : 0, g->in_use, g->nnodes, g->nlazy};
}

int bl_graph_release(bl_graph *g, bl_graph_mark m)
{
    if (m.nnodes != g->nnodes || m.nlazy != g->nlazy)
        return bl_fail("graph: cannot release activations a recorded tape still holds");
    if (!m.chunk) { /* nothing was allocated at the mark: rewind all */
        for (chunk *c = g->chunks; c; c = c->next) c->used = 0;
        g->cur = g->chunks;
        g->in_use = 0;
        return 0;
    }
    chunk *c = m.chunk;
    c->used = m.used;
    for (chunk *n = c->next; n; n = n->next) n->used = 0;
    g->cur = c;
    g->in_use = m.in_use;
    return 0;
}
void bl_graph_set_transient_grads(bl_graph *g, int on) { g->transient = on; }
int bl_graph_transient_grads(const bl_graph *g) { return g->transient; }

/* Where a transient grad points outside backward: an inaccessible reservation, so that a read
 * or write of a grad nobody planned faults at once instead of corrupting memory. */
static float *unplanned(void)
{
    static float *p, fallback[16];
    if (!p) {
        void *m = mmap(NULL, (size_t)1 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        p = m == MAP_FAILED ? fallback : m;
    }
    return p;
}

/* The lazy entry of arena tensor t in g, or NULL (no arena grad, or another graph's). */
static lazy_grad *entry_of(bl_graph *g, const bl_tensor *t)
{
    if (!t || !t->grad_lazy) return NULL;
    int i = t->grad_lazy[1];
    return i >= 0 && i < g->nlazy && g->lazy[i].lazy == t->grad_lazy ? &g->lazy[i] : NULL;
}
int bl_graph_recording(const bl_graph *g) { return g->record; }

void *bl_graph_alloc(bl_graph *g, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    chunk *c = g->cur;
    while (c && c->used + bytes > c->size) c = c->next;    /* the next kept chunk it fits in */
    if (!c) {
        /* 16 MiB chunks (a larger tensor gets one of its own size), on 2 MiB boundaries with
         * transparent huge pages asked for: 512 times fewer page faults on first touch */
        size_t big = (size_t)1 << 24, huge = (size_t)1 << 21;
        size_t want = g->min_chunk < ((size_t)1 << 20) || bytes > big ? bytes : big;
        if (want < g->min_chunk) want = g->min_chunk;
        chunk *n = calloc(1, sizeof *n);
        void *mem = NULL;
        if (!n || posix_memalign(&mem, want >= big ? huge : 64, want) != 0) {
            free(n);
            return BL_FAILP("graph: out of memory allocating %zu bytes of activations", want);
        }
#ifdef MADV_HUGEPAGE
        if (want >= big) madvise(mem, want & ~(huge - 1), MADV_HUGEPAGE);
#endif
        n->mem = mem;
        n->size = want;
        if (g->tail) g->tail->next = n;
        else g->chunks = n;
        g->tail = n;
        g->mallocs++;
        c = n;
    }
    g->cur = c;
    void *p = c->mem + c->used;
    c->used += bytes;
    g->in_use += bytes;
    if (g->in_use > g->high_water) g->high_water = g->in_use;
    return p;
}

float *bl_graph_scratch(bl_graph *g, size_t n)
{
    if (n > g->scratch_n) {
        float *p = bl_graph_alloc(g, n * sizeof(float));
        if (!p) return NULL;
        g->scratch = p;
        g->scratch_n = n;
    }
    return g->scratch;
}

/* Give arena tensor t (numel n) a lazy grad of its own, registered for zeroing after backward
 * (with transient grads: memory only when backward plans it). */
static int add_lazy_grad(bl_graph *g, bl_tensor *t, size_t n)
{
    t->grad = g->transient ? unplanned() : bl_graph_alloc(g, n * sizeof(float));
    t->grad_lazy = t->grad ? bl_graph_alloc(g, 2 * sizeof(int) + sizeof g) : NULL;
    if (!t->grad_lazy) return -1;
    memcpy(t->grad_lazy + 2, &g, sizeof g);   /* bl_grad_ready finds the graph */
    if (g->nlazy == g->lazy_cap) {
        int cap = g->lazy_cap ? 2 * g->lazy_cap : 16;
        lazy_grad *l = realloc(g->lazy, (size_t)cap * sizeof *l);
        if (!l) return bl_fail("graph: out of memory");
        g->lazy = l;
        g->lazy_cap = cap;
    }
    t->grad_lazy[1] = g->nlazy;
    g->lazy[g->nlazy++] = (lazy_grad){t->grad_lazy, g->transient ? NULL : t->grad, n, t, NULL, -1, -1, -1, g->transient, 0};
    *t->grad_lazy = 1;   /* logically zero: zeroed or overwritten before first use */
    g->planned_nodes = -1;
    return 0;
}

bl_tensor *bl_graph_input(bl_graph *g, const bl_tensor *x, int with_grad)
{
    bl_tensor *t = bl_graph_tensor(g, x->ndim, x->shape, with_grad);
    if (!t) return NULL;
    memcpy(t->data, x->data, x->numel * sizeof(float));
    t->name = x->name;
    return t;
}

void bl_graph_rearm(bl_graph *g)
{
    for (int i = 0; i < g->nlazy; i++) *g->lazy[i].lazy = 1;
}

bl_tensor *bl_graph_tensor(bl_graph *g, int ndim, const int *shape, int with_grad)
{
    size_t n;
    if (bl_shape_check("tensor", ndim, shape, &n) < 0) return NULL;
    bl_tensor *t = bl_graph_alloc(g, sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->data = bl_graph_alloc(g, n * sizeof(float));
    if (!t->data) return NULL;
    if (with_grad && add_lazy_grad(g, t, n) < 0) return NULL;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) t->shape[i] = shape[i];
    t->numel = n;
    return t;
}

int bl_graph_wants_grad(const bl_graph *g, int n, bl_tensor *const *ts)
{
    if (!g->record) return 0;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i]->grad) return 1;
    return 0;
}

bl_node *bl_graph_node(bl_graph *g, bl_op op, bl_backward_fn backward, bl_tensor *out)
{
    if (!g->record || !out->grad) return NULL;
    if (g->nnodes == g->cap) {
        int cap = g->cap ? 2 * g->cap : g->node_cap0;
        bl_node *nn = realloc(g->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return NULL;  /* cannot happen in practice; backward would then skip the op */
        g->nodes = nn;
        g->cap = cap;
    }
    lazy_grad *e = entry_of(g, out);
    if (e && e->producer < 0) e->producer = g->nnodes;
    g->planned_nodes = -1;
    bl_node *n = &g->nodes[g->nnodes++];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->backward = backward;
    n->out = out;
    return n;
}

bl_tensor *bl_graph_view(bl_graph *g, const bl_tensor *x, int ndim, const int *shape)
{
    bl_tensor v;
    if (bl_tensor_view_as(&v, x, ndim, shape) < 0) return NULL;
    bl_tensor *t = bl_graph_alloc(g, sizeof *t);
    if (!t) return NULL;
    *t = v;
    t->flags = 0;
    lazy_grad *e = entry_of(g, x);
    if (e && e->managed) { /* transient: the plan points this view at the grad too */
        alias *a = bl_graph_alloc(g, sizeof *a);
        if (!a) return NULL;
        *a = (alias){t, e->views};
        e->views = a;
    }
    return t;
}

int bl_grad_take(bl_tensor *t)
{
    if (!t->grad_lazy || !*t->grad_lazy) return 0;
    *t->grad_lazy = 0;
    return 1;
}

/* n floats of zeros, split across the threads when large (a memset is memory-bound: one thread
 * does not saturate the machine, and the other would otherwise wait). */
static void zero_floats(float *p, size_t n)
{
    enum { CH = 1 << 16 };
    size_t nch = (n + CH - 1) / CH;
#pragma omp parallel for schedule(static) if (nch > 4)
    for (size_t c = 0; c < nch; c++) {
        size_t o = c * CH;
        memset(p + o, 0, (n - o < CH ? n - o : CH) * sizeof(float));
    }
}

/* Make t's grad real zeros if it is still logically zero. */
static void materialise(bl_tensor *t)
{
    if (t && t->grad && t->grad_lazy && *t->grad_lazy) {
        zero_floats(t->grad, t->numel);
        *t->grad_lazy = 0;
    }
}

/* ---- transient grads: a backward plan that lets grads whose lifetimes do not overlap share
 * memory. A grad is live from the first node the walk runs that reads or writes it (its last
 * consumer on the tape) to its producer; the walk runs the tape backwards, so the plan hands out
 * blocks in that order and takes a block back after its producer's node. Blocks are reused by
 * exact byte size (a model's layers repeat their shapes), new ones come from the arena, so the
 * next step of the same shapes gets the same blocks. ---- */

/* Point e's tensor and its views at p. */
static void point(lazy_grad *e, float *p)
{
    e->t->grad = p;
    for (alias *a = e->views; a; a = a->next) a->t->grad = p;
}

static float *plan_take(bl_graph *g, size_t bytes)
{
    for (int i = 0; i < g->nfree; i++)
        if (g->freel[i].bytes == bytes) {
            float *p = g->freel[i].p;
            g->freel[i] = g->freel[--g->nfree];
            return p;
        }
    return bl_graph_alloc(g, bytes);
}

static int plan_give(bl_graph *g, size_t bytes, float *p)
{
    if (g->nfree == g->free_cap) {
        int cap = g->free_cap ? 2 * g->free_cap : 64;
        free_block *f = realloc(g->freel, (size_t)cap * sizeof *f);
        if (!f) return bl_fail("backward: out of memory");
        g->freel = f;
        g->free_cap = cap;
    }
    g->freel[g->nfree++] = (free_block){bytes, p};
    return 0;
}

static void touch(bl_graph *g, const bl_tensor *t, int i)
{
    lazy_grad *e = entry_of(g, t);
    if (!e) return;
    if (e->first < 0 || i < e->first) e->first = i;
    if (i > e->last) e->last = i;
}

/* Give every managed grad its memory for a walk seeded at `seed` (made once per tape). */
static int plan(bl_graph *g, const bl_tensor *seed)
{
    lazy_grad *s = entry_of(g, seed);
    int si = s ? (int)(s - g->lazy) : -1, N = g->nnodes, rc = 0;
    if (!g->transient) return 0;
    if (g->planned_nodes == N && g->planned_seed == si) goto patch;
    for (int i = 0; i < g->nlazy; i++) g->lazy[i].first = g->lazy[i].last = -1;
    for (int i = 0; i < N; i++) {
        const bl_node *n = &g->nodes[i];
        touch(g, n->out, i);
        for (int j = 0; j < BL_NODE_MAXIN; j++) touch(g, n->in[j], i);
    }
    if (s) s->last = N;   /* seeded before the walk */
    /* start[i]: the grads whose lifetime begins at node i (N: before the walk), end[i]: those
     * that end after it; next links the lists (entries 0..nlazy-1, then again for ends) */
    int *start = malloc((size_t)(N + 1) * sizeof *start), *end = malloc((size_t)(N + 1) * sizeof *end);
    int *next = malloc((size_t)(2 * g->nlazy + 1) * sizeof *next);
    if (!start || !end || !next) {
        rc = bl_fail("backward: out of memory");
        goto done;
    }
    for (int i = 0; i <= N; i++) start[i] = end[i] = -1;
    for (int i = 0; i < g->nlazy; i++) {
        lazy_grad *e = &g->lazy[i];
        if (!e->managed) continue;
        if (e->producer < 0 || e->permanent || e->last < 0) { /* a leaf or asked for: its own memory */
            if (!e->grad && !(e->grad = bl_graph_alloc(g, e->n * sizeof(float)))) { rc = -1; goto done; }
            continue;
        }
        next[i] = start[e->last];
        start[e->last] = i;
        next[g->nlazy + i] = end[e->first];
        end[e->first] = i;
    }
    g->nfree = 0;
    for (int i = N; i >= 0 && rc == 0; i--) {
        for (int k = start[i]; k >= 0; k = next[k])
            if (!(g->lazy[k].grad = plan_take(g, g->lazy[k].n * sizeof(float)))) { rc = -1; goto done; }
        for (int k = i < N ? end[i] : -1; k >= 0 && rc == 0; k = next[g->nlazy + k])
            rc = plan_give(g, g->lazy[k].n * sizeof(float), g->lazy[k].grad);
    }
done:
    free(start);
    free(end);
    free(next);
    if (rc < 0) {
        g->planned_nodes = -1;
        return -1;
    }
    g->planned_nodes = N;
    g->planned_seed = si;
patch:
    for (int i = 0; i < g->nlazy; i++)
        if (g->lazy[i].managed) point(&g->lazy[i], g->lazy[i].grad);
    return 0;
}

/* After the walk: the shared blocks are free again; their tensors point nowhere. */
static void unplan(bl_graph *g)
{
    for (int i = 0; i < g->nlazy; i++) {
        lazy_grad *e = &g->lazy[i];
        if (e->managed && e->producer >= 0 && !e->permanent && e->last >= 0) point(e, unplanned());
    }
}

float *bl_grad_ready(bl_tensor *t)
{
    if (t && t->grad == unplanned() && t->grad_lazy) {
        /* asked for outside backward (a seed written by hand): memory of its own from now on */
        bl_graph *g;
        memcpy(&g, t->grad_lazy + 2, sizeof g);
        lazy_grad *e = entry_of(g, t);
        float *p = e ? bl_graph_alloc(g, e->n * sizeof(float)) : NULL;
        if (!p) return NULL;
        e->grad = p;
        e->permanent = 1;
        g->planned_nodes = -1;
        point(e, p);
    }
    materialise(t);
    return t->grad;
}

/* Walk the tape backwards (see graph.h for the lazy grads), then zero what nobody wrote. */
static void walk(bl_graph *g)
{
    for (int i = g->nnodes - 1; i >= 0; i--) {
        bl_node *n = &g->nodes[i];
        if (n->out->grad_lazy && *n->out->grad_lazy) continue;   /* d(out) = 0: adds nothing */
        for (int j = 0; j < BL_NODE_MAXIN; j++)
            if (!(n->assigns & (1u << j))) materialise(n->in[j]);
        n->backward(n);
    }
    for (int i = 0; i < g->nlazy; i++) {
        lazy_grad *e = &g->lazy[i];
        if (*e->lazy && !(e->managed && e->producer >= 0 && !e->permanent)) {
            zero_floats(e->grad, e->n);
            *e->lazy = 0;
        }
    }
    unplan(g);
}

int bl_graph_backward(bl_graph *g, bl_tensor *loss)
{
    if (loss->numel != 1) return bl_fail("backward: the loss must be a scalar, got %zu elements", loss->numel);
    if (!loss->grad) return bl_fail("backward: the loss has no gradient (nothing it depends on needs one)");
    if (plan(g, loss) < 0) return -1;
    materialise(loss);
    loss->grad[0] += 1.0f;
    walk(g);
    return 0;
}

int bl_graph_backward_from(bl_graph *g, bl_tensor *out, const float *seed)
{
    if (!out->grad) return bl_fail("backward: the output has no gradient (nothing it depends on needs one)");
    if (plan(g, out) < 0) return -1;
    materialise(out);
    for (size_t i = 0; i < out->numel; i++) out->grad[i] += seed[i];
    walk(g);
    return 0;
}

int bl_graph_node_count(const bl_graph *g) { return g->nnodes; }
const bl_node *bl_graph_node_at(const bl_graph *g, int i) { return &g->nodes[i]; }
size_t bl_graph_arena_bytes(const bl_graph *g) { return g->in_use; }
size_t bl_graph_arena_mallocs(const bl_graph *g) { return g->mallocs; }
