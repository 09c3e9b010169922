/* autograd.c - gradients at the prompt (see autograd.h for the design). */
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bl_agnode {
    int refs;
    unsigned long seq;          /* creation order: a topological order of the nodes */
    bl_graph *g;                /* the graph the op recorded on */
    int owns_g;                 /* private graph (freed with the node) or a caller's (a model's) */
    const unsigned *gen;        /* caller's graph: its generation counter, and the value of it */
    unsigned gen0;              /* when this node was made */
    bl_tensor *out;             /* the op's output in g (has a grad) */
    int nin, capin;
    bl_value **in;              /* argument values that need a gradient (references) */
    bl_tensor **view;           /* their copies in g: view[i]->grad receives d(out)/d(in[i]) */
    unsigned *inver;            /* in[i]'s version when the node was made (value.h) */
    const char *op;             /* bl_op_name of the last op recorded (grad_fn=<op>), or "view" */
    bl_value *owner;            /* kept alive while the node lives (a model handle) */
    int freed;                  /* saved tensors given up after a backward without retain */
    bl_tensor *pending;         /* during backward: the gradient its users sent */
    unsigned long mark;         /* during backward: the walk that collected it */
};

static unsigned long next_seq, next_walk;

int bl_val_needs_grad(const bl_value *v)
{
    if (!v) return 0;
    if (v->kind == BL_V_LIST) {
        for (int i = 0; i < v->n; i++)
            if (bl_val_needs_grad(v->items[i])) return 1;
        return 0;
    }
    return v->kind == BL_V_TENSOR && (v->requires_grad || v->node);
}

int bl_ag_set_enabled(bl_session *s, int on)
{
    int was = !s->no_grad;
    s->no_grad = !on;
    return was;
}

int bl_ag_enabled(const bl_session *s) { return !s->no_grad; }

/* ---- nodes ---- */

/* Freeing a long chain of nodes (a loop of 100,000 ops) must not recurse once per node: a node
 * whose last reference goes is queued, and the outermost call frees the queue. */
static bl_agnode **dead;
static size_t ndead, capdead;
static int freeing;

static void node_release_saved(bl_agnode *n)
{
    if (n->owns_g) bl_graph_free(n->g);
    n->g = NULL;
    n->out = NULL;
    for (int i = 0; i < n->nin; i++) n->view[i] = NULL;
    n->freed = 1;
}

void bl_agnode_unref(bl_agnode *n)
{
    if (!n || --n->refs > 0) return;
    if (ndead == capdead) {
        size_t cap = capdead ? 2 * capdead : 64;
        bl_agnode **d = realloc(dead, cap * sizeof *d);
        if (!d) return;   /* out of memory: leak the node rather than lose the session */
        dead = d;
        capdead = cap;
    }
    dead[ndead++] = n;
    if (freeing) return;
    freeing = 1;
    while (ndead) {
        bl_agnode *d = dead[--ndead];
        node_release_saved(d);
        for (int i = 0; i < d->nin; i++) bl_val_unref(d->in[i]);
        bl_val_unref(d->owner);
        bl_tensor_free(d->pending);
        free(d->in);
        free(d->view);
        free(d->inver);
        free(d);
    }
    freeing = 0;
}

bl_agnode *bl_agnode_ref(bl_agnode *n)
{
    if (n) n->refs++;
    return n;
}

static bl_agnode *node_new(bl_graph *g, int owns_g)
{
    bl_agnode *n = calloc(1, sizeof *n);
    if (!n) return BL_FAILP("autograd: out of memory");
    n->refs = 1;
    n->g = g;
    n->owns_g = owns_g;
    return n;
}

static int node_add_input(bl_agnode *n, bl_value *v, bl_tensor *view)
{
    if (n->nin == n->capin) {
        int cap = n->capin ? 2 * n->capin : 4;
        bl_value **in = realloc(n->in, (size_t)cap * sizeof *in);
        if (in) n->in = in;
        bl_tensor **vw = realloc(n->view, (size_t)cap * sizeof *vw);
        if (vw) n->view = vw;
        unsigned *ver = realloc(n->inver, (size_t)cap * sizeof *ver);
        if (ver) n->inver = ver;
        if (!in || !vw || !ver) return bl_fail("autograd: out of memory");
        n->capin = cap;
    }
    n->inver[n->nin] = v->version;
    n->in[n->nin] = bl_val_ref(v);
    n->view[n->nin++] = view;
    return 0;
}

/* ---- recording a call ---- */

static bl_graph *begin(bl_ag *ag, bl_session *s, int rec)
{
    memset(ag, 0, sizeof *ag);
    ag->s = s;
    ag->g = s->g;
    if (!rec || s->no_grad) return ag->g;
    bl_graph *g = bl_graph_new_small();
    if (!g) return NULL;
    ag->node = node_new(g, 1);
    if (!ag->node) {
        bl_graph_free(g);
        return NULL;
    }
    ag->g = g;
    ag->recording = 1;
    return g;
}

bl_graph *bl_ag_begin(bl_ag *ag, bl_callargs *a)
{
    int rec = 0;
    for (int i = 0; i < a->n && !rec; i++) rec = bl_val_needs_grad(a->v[i]);
    for (int i = 0; i < a->nk && !rec; i++) rec = bl_val_needs_grad(a->kv[i]);
    return begin(ag, a->s, rec);
}

bl_graph *bl_ag_begin_vals(bl_ag *ag, bl_session *s, int n, bl_value *const *v)
{
    int rec = 0;
    for (int i = 0; i < n && !rec; i++) rec = bl_val_needs_grad(v[i]);
    return begin(ag, s, rec);
}

bl_tensor *bl_ag_in(bl_ag *ag, bl_value *v, bl_tensor *t)
{
    if (!t || !ag->recording) return t;
    int grad = v && v->kind == BL_V_TENSOR && bl_val_needs_grad(v);
    if (grad && t->numel != v->t->numel)
        return BL_FAILP("autograd: internal error: an argument's tensor is not all of its value");
    bl_tensor *in = bl_graph_input(ag->g, t, grad);
    if (!in || (grad && node_add_input(ag->node, v, in) < 0)) return NULL;
    return in;
}

bl_tensor *bl_ag_const(bl_ag *ag, bl_tensor *t)
{
    return t && ag->recording ? bl_graph_input(ag->g, t, 0) : t;
}

bl_value *bl_ag_tensor_value(bl_tensor *t)
{
    if (!t) return NULL;
    if (t->ndim > 0) return bl_val_tensor(t);
    bl_tensor *one = bl_tensor_new1(1);   /* a TENSOR value via the 1-D path, then made 0-D */
    if (!one) {
        bl_tensor_free(t);
        return NULL;
    }
    bl_value *v = bl_val_tensor(one);
    if (!v) {
        bl_tensor_free(t);
        return NULL;
    }
    bl_tensor_free(v->t);
    v->t = t;
    return v;
}

bl_value *bl_ag_end(bl_ag *ag, bl_tensor *out)
{
    if (!ag->recording) return out ? bl_val_tensor(bl_tensor_copy(out)) : NULL;
    bl_agnode *n = ag->node;
    ag->node = NULL;
    if (!out || !out->grad || !n->nin) {
        /* failed, or nothing that needs a gradient reached the output */
        bl_value *v = out ? bl_val_tensor(bl_tensor_copy(out)) : NULL;
        bl_agnode_unref(n);
        return v;
    }
    bl_value *v = bl_ag_tensor_value(bl_tensor_copy(out));
    if (!v) {
        bl_agnode_unref(n);
        return NULL;
    }
    n->out = out;
    n->seq = ++next_seq;
    n->op = bl_graph_node_count(n->g) ? bl_op_name(bl_graph_node_at(n->g, bl_graph_node_count(n->g) - 1)->op) : "view";
    v->node = n;
    return v;
}

bl_value *bl_ag_leaf(bl_callargs *a, bl_value *v)
{
    int on;
    if (!v) return NULL;
    /* requires_grad= is PyTorch's name for grad= (torch.randn(3, requires_grad=True)) */
    int both = bl_kw(a, "grad") && bl_kw(a, "requires_grad");
    if (both) bl_fail("%s: grad= and requires_grad= are one keyword (requires_grad= is PyTorch's name): give one",
                      a->fname);
    if (both || bl_kw_bool(a, bl_kw(a, "requires_grad") ? "requires_grad" : "grad", 0, &on) < 0) {
        bl_val_unref(v);
        return NULL;
    }
    if (!on) return v;
    if (v->kind == BL_V_NUM) {
        bl_tensor *t = bl_tensor_scalar((float)v->num);
        bl_val_unref(v);
        v = bl_ag_tensor_value(t);
        if (!v) return NULL;
    }
    if (v->kind == BL_V_TENSOR) v->requires_grad = 1;
    return v;
}

int bl_ag_refuse(bl_session *s, const char *what, int n, bl_value *const *v)
{
    if (s->no_grad) return 0;
    for (int i = 0; i < n; i++)
        if (bl_val_needs_grad(v[i]))
            return bl_fail("%s: not differentiable here (an argument needs a gradient); use detach(x) "
                           "or no_grad STATEMENT to compute it without one", what);
    return 0;
}

bl_value *bl_ag_graph_value(bl_session *s, bl_graph *g, const unsigned *gen, bl_tensor *out,
                            bl_value *owner)
{
    if (!out) return NULL;
    if (s->no_grad || !out->grad || !bl_graph_recording(g)) return bl_val_tensor(bl_tensor_copy(out));
    bl_agnode *n = node_new(bl_graph_ref(g), 1);     /* the node's reference to g */
    if (!n) bl_graph_free(g);
    bl_value *v = n ? bl_ag_tensor_value(bl_tensor_copy(out)) : NULL;
    if (!v) {
        bl_agnode_unref(n);
        return NULL;
    }
    n->gen = gen;
    n->gen0 = gen ? *gen : 0;
    n->out = out;
    n->owner = bl_val_ref(owner);
    n->seq = ++next_seq;
    n->op = bl_graph_node_count(g) ? bl_op_name(bl_graph_node_at(g, bl_graph_node_count(g) - 1)->op) : "model";
    v->node = n;
    return v;
}

int bl_ag_add_input(bl_value *out, bl_value *in, bl_tensor *view)
{
    if (!out || !out->node) return bl_fail("autograd: internal error: no node to add an input to");
    if (in->t->numel != view->numel) return bl_fail("autograd: internal error: an input's copy is not all of it");
    return node_add_input(out->node, in, view);
}

const char *bl_ag_op(const bl_value *v)
{
    return v && v->kind == BL_V_TENSOR && v->node ? v->node->op : NULL;
}

void bl_ag_describe(const bl_value *v, char *buf, size_t n)
{
    if (v->kind == BL_V_TENSOR && v->node) snprintf(buf, n, ", grad_fn=<%s>", v->node->op);
    else if (v->kind == BL_V_TENSOR && v->requires_grad) snprintf(buf, n, ", requires_grad=True");
    else if (n) buf[0] = 0;
}

bl_value *bl_ag_field(bl_value *v, const char *name)
{
    if (!strcmp(name, "grad")) {
        if (bl_lab_param_detached(v) < 0) return NULL;
        return v->grad && (!v->param || bl_lab_param_has_grad(v)) ? bl_val_tensor(bl_tensor_copy(v->grad))
                                                                   : bl_val_none();
    }
    if (!strcmp(name, "requires_grad")) return bl_val_bool(bl_val_needs_grad(v));
    if (!strcmp(name, "is_leaf")) return bl_val_bool(!v->node);
    if (!strcmp(name, "grad_fn")) return v->node ? bl_val_str(v->node->op) : bl_val_none();
    if (!strcmp(name, "item")) {
        if (v->t->numel == 1) return bl_val_num(v->t->data[0]);
        char a[64];
        return BL_FAILP("item: the tensor %s has %zu elements; only one converts to a number",
                        bl_shape_str(v->t, a, sizeof a), v->t->numel);
    }
    return NULL;
}

/* ---- backward ---- */

/* dst += src (same numel); dst made (zeros, shape like) when *dst is NULL. */
static int accumulate(bl_tensor **dst, const bl_tensor *like, const float *src)
{
    if (!*dst) {
        *dst = bl_tensor_new(like->ndim, like->shape);
        if (!*dst) return -1;
    }
    float *d = (*dst)->data;
    for (size_t i = 0; i < like->numel; i++) d[i] += src[i];
    return 0;
}

static int cmp_seq_desc(const void *a, const void *b)
{
    unsigned long x = (*(bl_agnode *const *)a)->seq, y = (*(bl_agnode *const *)b)->seq;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The nodes y depends on, each once (iterative: chains may be long). NULL + error. */
static bl_agnode **collect(bl_agnode *root, size_t *count)
{
    unsigned long walk = ++next_walk;
    size_t n = 0, cap = 64, sp = 0, scap = 64;
    bl_agnode **all = malloc(cap * sizeof *all), **stack = malloc(scap * sizeof *stack);
    if (!all || !stack) goto oom;
    root->mark = walk;
    stack[sp++] = root;
    while (sp) {
        bl_agnode *x = stack[--sp];
        if (n == cap) {
            bl_agnode **a = realloc(all, 2 * cap * sizeof *a);
            if (!a) goto oom;
            all = a, cap *= 2;
        }
        all[n++] = x;
        for (int i = 0; i < x->nin; i++) {
            bl_agnode *c = x->in[i]->node;
            if (!c || c->mark == walk) continue;
            c->mark = walk;
            if (sp == scap) {
                bl_agnode **st = realloc(stack, 2 * scap * sizeof *st);
                if (!st) goto oom;
                stack = st, scap *= 2;
            }
            stack[sp++] = c;
        }
    }
    free(stack);
    *count = n;
    return all;
oom:
    free(all);
    free(stack);
    return BL_FAILP("backward: out of memory");
}

static int check_walkable(const bl_agnode *n)
{
    if (n->freed)
        return bl_fail("backward: part of this graph was already walked by a backward and its saved "
                       "tensors are freed: compute the value again, or give retain_graph=on to the "
                       "first backward (as PyTorch)");
    for (int i = 0; i < n->nin; i++)
        if (n->in[i]->version != n->inver[i])
            return bl_fail("backward: a tensor this value was computed from was changed in place since (W -= ..., "
                           "x.add_(...), x[i] = v): compute it again (PyTorch: one of the variables needed for "
                           "gradient computation has been modified by an inplace operation)");
    if (n->gen && *n->gen != n->gen0)
        return bl_fail("backward: the model's weights have changed since this value was computed "
                       "(step, set_param, train, load or a rebuild): compute it again (PyTorch: a variable "
                       "needed for gradient computation has been modified by an inplace operation)");
    return 0;
}

/* Send each argument of n its share of n's output gradient. */
static int propagate(bl_agnode *n)
{
    bl_graph_rearm(n->g);
    if (bl_graph_backward_from(n->g, n->out, n->pending->data) < 0) return -1;
    for (int i = 0; i < n->nin; i++) {
        bl_value *v = n->in[i];
        const bl_tensor *gv = n->view[i];
        if (!gv || !gv->grad) continue;
        int rc = v->node ? accumulate(&v->node->pending, v->t, gv->grad)
                         : accumulate(&v->grad, v->t, gv->grad);
        if (rc < 0) return -1;
        bl_lab_param_note_grad(v);      /* a model's live parameter: its .grad is set now */
    }
    return 0;
}

int bl_ag_backward(bl_session *s, bl_value *y, const bl_tensor *gout, int retain)
{
    (void)s;
    if (!y || !bl_val_needs_grad(y) || y->kind != BL_V_TENSOR)
        return bl_fail("backward: the value does not need a gradient (nothing it was computed from "
                       "was made with grad=on or requires_grad)");
    char a[64], b[64];
    if (!gout && y->t->numel != 1)
        return bl_fail("backward: the value has %zu elements %s: give the gradient of something with "
                       "respect to it, backward(y, g) with g of its shape (PyTorch: grad can be "
                       "implicitly created only for scalar outputs)", y->t->numel, bl_shape_str(y->t, a, sizeof a));
    if (gout && gout->numel != y->t->numel)
        return bl_fail("backward: the gradient %s does not match the value %s", bl_shape_str(gout, a, sizeof a),
                       bl_shape_str(y->t, b, sizeof b));
    bl_tensor *seed = gout ? bl_tensor_copy(gout) : bl_tensor_new(y->t->ndim, y->t->shape);
    if (!seed) return -1;
    if (!gout) seed->data[0] = 1;
    if (!y->node) {   /* a leaf: its gradient is the seed */
        int rc = accumulate(&y->grad, y->t, seed->data);
        bl_tensor_free(seed);
        return rc;
    }
    size_t n;
    bl_agnode **order = collect(y->node, &n);
    if (!order) {
        bl_tensor_free(seed);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) rc = check_walkable(order[i]);
    if (rc == 0) {
        qsort(order, n, sizeof *order, cmp_seq_desc);
        y->node->pending = seed;
        seed = NULL;
        for (size_t i = 0; i < n && rc == 0; i++)
            if (order[i]->pending) rc = propagate(order[i]);
    }
    for (size_t i = 0; i < n; i++) {
        bl_tensor_free(order[i]->pending);
        order[i]->pending = NULL;
        /* a loss through a model's graph: step(m) records it (modellab.h) */
        if (rc == 0 && order[i]->owner)
            bl_lab_note_backward(order[i]->owner, y->t->numel == 1 ? y->t->data[0] : NAN);
        if (rc == 0 && !retain) node_release_saved(order[i]);
    }
    bl_tensor_free(seed);
    free(order);
    return rc;
}
