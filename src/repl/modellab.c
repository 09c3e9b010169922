/* modellab.c - models as functions at the prompt (see modellab.h). */
#include "repl/modellab.h"
#include "core/error.h"
#include "core/fmt.h"
#include "core/rng.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include "repl/autograd.h"
#include "repl/modelvars.h"
#include "repl/optim.h"
#include "repl/trainstate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bl_value *fail_at(bl_callargs *a, bl_pos pos)
{
    bl_session_errat(a->s, pos);
    return NULL;
}

static int is_model(const bl_value *v) { return v->kind == BL_V_HANDLE && v->htype == &bl_model_type; }

/* What the model lab does differently for each kind (models/kind.h has the names): the inputs of
 * m(...) and its forward (0 with *out, NULL when the forward failed; -1 when an argument was
 * refused, the error placed), batch(m), and the kind's loss function for errors. */
/* m(...) of one kind: *out the output; x_in non-NULL asks for the input's gradient (TinyDiT's
 * images: *x_in is their copy in the graph, whose grad backward fills; token ids have none) */
typedef int (*lab_forward_fn)(bl_callargs *a, bl_model *m, int first, bl_train_state *st, int keep, int record,
                              bl_tensor **x_in, bl_tensor **out);
static int dit_forward(bl_callargs *a, bl_model *m, int first, bl_train_state *st, int keep, int record,
                       bl_tensor **x_in, bl_tensor **out);
static int gpt_forward(bl_callargs *a, bl_model *m, int first, bl_train_state *st, int keep, int record,
                       bl_tensor **x_in, bl_tensor **out);
static bl_value *dit_batch(bl_callargs *a, bl_run *r);
static bl_value *gpt_batch(bl_callargs *a, bl_run *r);

static const struct lab_kind {
    int nargs;                  /* inputs of m(...) */
    const char *args;           /* what they are, for errors */
    const char *loss_call;      /* the kind's loss function, for errors */
    lab_forward_fn forward;
    bl_value *(*batch)(bl_callargs *a, bl_run *r);
    const char *no_grad;        /* the inputs that take no gradient, and why (an error names them) */
} lab_kinds[] = {
    [BL_MODEL_DIT] = { 2, "images and times: m(xt, t)", "flow_loss(m, x0, noise, t)", dit_forward, dit_batch,
                       "the times t take no gradient (the timestep features are not differentiated; "
                       "the images xt do)" },
    [BL_MODEL_GPT] = { 1, "token ids: m(tokens)", "ce_loss(m, tokens, targets)", gpt_forward, gpt_batch,
                       "token ids take no gradient (they are integers; PyTorch refuses requires_grad "
                       "on them)" },
};

static const struct lab_kind *lab_kind(const bl_model *m) { return &lab_kinds[bl_kind_of(m->kind)->kind]; }

/* Argument i as a model whose kind's `text` flag (kind.h) is `text` (1: the next-character model,
 * 0: the image model, -1: either), or NULL + error. */
static bl_model *model_arg(bl_callargs *a, int i, int text)
{
    if (a->n <= i || !is_model(a->v[i])) {
        bl_fail("%s: the first argument must be a model, got %s", a->fname,
                a->n <= i ? "nothing" : bl_val_kind_name(a->v[i]));
        bl_session_errat(a->s, a->n <= i ? a->pos : a->vpos[i]);
        return NULL;
    }
    bl_model *m = a->v[i]->h;
    const bl_kind *is = bl_kind_of(m->kind), *need = text >= 0 ? bl_kind_with_text(text) : NULL;
    if (need && is->text != text) {
        bl_fail("%s: needs a %s (%s) model, but this is a %s (%s: %s)", a->fname, need->title, need->name, is->name,
                is->title, lab_kind(m)->loss_call);
        bl_session_errat(a->s, a->vpos[i]);
        return NULL;
    }
    return m;
}

/* The string argument i (a parameter name), or NULL + error. */
static const char *str_arg(bl_callargs *a, int i, const char *what)
{
    if (a->v[i]->kind != BL_V_STR) {
        bl_fail("%s: %s must be a string, got a %s", a->fname, what, bl_val_kind_name(a->v[i]));
        bl_session_errat(a->s, a->vpos[i]);
        return NULL;
    }
    return a->v[i]->str;
}

static bl_tensor *param_arg(bl_callargs *a, bl_model *m, int i)
{
    const char *name = str_arg(a, i, "the parameter name");
    if (!name) return NULL;
    bl_tensor *p = bl_params_find(m->params, name);
    if (!p) {
        bl_fail("%s: the model has no parameter '%s' (grads(m) or params MODEL depth=0 lists them)", a->fname, name);
        bl_session_errat(a->s, a->vpos[i]);
    }
    return p;
}

/* A tensor argument of an exact dimension count; NULL + error naming `what` and its form. */
static bl_tensor *tensor_arg(bl_callargs *a, int i, int ndim, const char *what, const char *form)
{
    bl_tensor *t = bl_arg_tensor(a, i);
    if (!t) return NULL;
    if (t->ndim != ndim) {
        char s[64];
        bl_fail("%s: %s must be %s, got %s", a->fname, what, form, bl_shape_str(t, s, sizeof s));
        bl_session_errat(a->s, a->vpos[i]);
        return NULL;
    }
    return t;
}

/* Integer ids from a [B, T] tensor into out (B*T ints): whole numbers from lo to hi. */
static int ids_of(bl_callargs *a, int i, const bl_tensor *t, int lo, int hi, int *out, const char *what)
{
    for (size_t k = 0; k < t->numel; k++) {
        float x = t->data[k];
        if (lo < 0 && x == -100.0f) {   /* targets: torch's ignore_index -100, as blocklab's -1 */
            out[k] = -1;
            continue;
        }
        if (!(x == floorf(x) && x >= lo && x <= hi)) {
            bl_fail("%s: %s holds %g at element %zu, not a token id from %d to %d", a->fname, what, (double)x, k, lo, hi);
            return bl_session_errat(a->s, a->vpos[i]);
        }
        out[k] = (int)x;
    }
    return 0;
}

/* Times t: a tensor [B] or one number for all B images, each in [0, 1]; written to out [B]. */
static int times_of(bl_callargs *a, int i, int B, float *out)
{
    bl_tensor *t = bl_arg_tensor(a, i);
    if (!t) return -1;
    if (!(t->numel == 1 || (t->ndim == 1 && t->shape[0] == B))) {
        char s[64];
        bl_fail("%s: t must be [%d] (one time per image) or one number, got %s", a->fname, B,
                bl_shape_str(t, s, sizeof s));
        return bl_session_errat(a->s, a->vpos[i]);
    }
    for (int b = 0; b < B; b++) {
        out[b] = t->data[t->numel == 1 ? 0 : b];
        if (!(out[b] >= 0.0f && out[b] <= 1.0f)) {
            bl_fail("%s: t[%d] = %g is outside [0, 1]", a->fname, b, (double)out[b]);
            return bl_session_errat(a->s, a->vpos[i]);
        }
    }
    return 0;
}

/* Every forward at the prompt (m(...), forward, flow_loss, ce_loss) runs on a graph of its own
 * rather than on the model's training graph: the value whose backward needs the forward holds a
 * reference to that graph (bl_ag_graph_value), so one model can appear several times in one
 * expression, ce_loss(m, a, ya) + ce_loss(m, b, yb) or cat([m(x[:4]), m(x[4:])]), as in
 * PyTorch. The last one is also st->lab_graph, where acts() finds the per-layer views; it is
 * reused once no value holds it (after a backward without retain_graph, or when the values are
 * gone), so a loop of forward, backward and step allocates nothing after its first pass.
 * lab_enter puts that graph in place of m's own (given back by lab_leave, which returns it), and
 * sets dropout by the model's mode as PyTorch's modules (m.train(), the default, or m.eval();
 * not by whether gradients are on), with masks of their own for each forward, drawn from the
 * session's generator (`seed N` repeats them): 0, or -1 + error (out of memory). */
typedef struct {
    bl_graph *train;            /* the model's own graph */
    uint64_t dropout_step;      /* its dropout masks' step */
} lab_saved;

static int lab_enter(bl_session *s, bl_model *m, bl_train_state *st, lab_saved *sv)
{
    bl_graph *g = st->lab_graph;
    if (!g || bl_graph_shared(g)) {
        if (!(g = bl_graph_new())) return -1;
        bl_graph_set_transient_grads(g, 1);   /* as the model's own: only leaves' grads are read */
        bl_model_forget_taps(m);              /* they may point into the graph let go here */
        bl_graph_free(st->lab_graph);
        st->lab_graph = g;
    }
    sv->train = m->graph;
    sv->dropout_step = m->dropout_step;
    m->graph = g;
    m->drop_mode = !st->lab_eval;
    if (m->drop_mode && m->cfg.dropout > 0) /* a step no training run reaches (bit 63) */
        m->dropout_step = (uint64_t)1 << 63 | (uint64_t)bl_rng_u32(&s->rng) << 32 | bl_rng_u32(&s->rng);
    return 0;
}

static bl_graph *lab_leave(bl_model *m, const lab_saved *sv)
{
    bl_graph *g = m->graph;
    m->graph = sv->train;
    m->dropout_step = sv->dropout_step;
    m->drop_mode = -1;
    return g;
}

/* The value for a tensor out of the prompt's graph g of m (lab_enter): with bl_ag_graph_value,
 * so that backward of it runs g's backward into the model's gradients. */
static bl_value *graph_value(bl_callargs *a, bl_value *owner, bl_model *m, bl_graph *g, bl_tensor *out)
{
    if (!out) return fail_at(a, a->pos);
    /* without a value that keeps the model alive the node could outlive it: no gradient then */
    if (!owner) return bl_val_tensor(bl_tensor_copy(out));
    return bl_ag_graph_value(a->s, g, &m->version, out, owner);
}

/* m(xt, t): the forward of TinyDiT m on images xt [B, C, H, W] and times t (argument first + 1),
 * into *out. */
static int dit_forward(bl_callargs *a, bl_model *m, int first, bl_train_state *st, int keep, int record, bl_tensor **x_in, bl_tensor **out)
{
    (void)st;
    bl_tensor *x = tensor_arg(a, first, 4, "xt", "[B, C, H, W]");
    if (!x) return -1;
    float *t = malloc((size_t)x->shape[0] * sizeof *t);
    if (!t) return bl_fail("%s: out of memory", a->fname);
    if (times_of(a, first + 1, x->shape[0], t) < 0) {
        free(t);
        return -1;
    }
    m->keep_taps = keep;
    /* both copy x into the graph when they record (its backward reads it); t is read at once */
    *out = x_in ? bl_dit_forward_input_grad(m, x, t, x_in) : bl_dit_forward(m, x, t, record);
    m->keep_taps = 0;
    free(t);
    return 0;
}

/* m(tokens): the forward of TinyGPT m on token ids [B, T]. */
static int gpt_forward(bl_callargs *a, bl_model *m, int first, bl_train_state *st, int keep, int record, bl_tensor **x_in, bl_tensor **out)
{
    (void)st;
    bl_tensor *x = tensor_arg(a, first, 2, "tokens", "[B, T] (integer ids)");
    if (!x) return -1;
    int *ids = malloc(x->numel * sizeof *ids);
    if (!ids) return bl_fail("%s: out of memory", a->fname);
    if (ids_of(a, first, x, 0, m->cfg.vocab - 1, ids, "tokens") < 0) { free(ids); return -1; }
    m->keep_taps = keep;
    *out = bl_gpt_forward(m, ids, x->shape[0], x->shape[1], record);   /* copies ids */
    m->keep_taps = 0;
    free(ids);
    return 0;
}

/* m(xt, t) / m(tokens): first = the index of the first input argument. */
/* Refuse, naming the argument, an argument from..n-1 that needs a gradient the call cannot give
 * (why: what takes none and why); not while gradients are off. 0, or -1 with the error. */
static int refuse_grads(bl_callargs *a, int from, const char *why)
{
    for (int i = from; bl_ag_enabled(a->s) && i < a->n; i++)
        if (bl_val_needs_grad(a->v[i])) {
            bl_fail("%s: %s: use detach(...) on it, or no_grad", a->fname, why);
            fail_at(a, a->vpos[i]);
            return -1;
        }
    return 0;
}

static bl_value *run_forward(bl_callargs *a, bl_model *m, int first, bl_value *owner)
{
    const struct lab_kind *lk = lab_kind(m);
    if (a->n - first != lk->nargs) {
        bl_fail("forward: a %s takes %s, got %d argument%s", bl_model_kind_name(m->kind), lk->args, a->n - first,
                BL_PLURAL(a->n - first));
        return fail_at(a, a->pos);
    }
    int keep = 0;
    if (bl_kw_bool(a, "keep", 0, &keep) < 0) return NULL;
    bl_train_state *st = bl_train_get(m);
    if (!st) return NULL;
    int record = bl_ag_enabled(a->s);
    /* an input that needs a gradient it cannot get is refused, not silently dropped: TinyDiT's
     * first input (the images) takes one, nothing else does */
    if (refuse_grads(a, first + (lk->forward == dit_forward), lk->no_grad) < 0) return NULL;
    bl_tensor *out = NULL, *x_in = NULL;
    /* d/dxt when the images need a gradient (torch: x.requires_grad_(); m(x, t).sum().backward());
     * a kind whose inputs are integer tokens leaves x_in NULL */
    int x_grad = record && owner && bl_val_needs_grad(a->v[first]);
    lab_saved sv;
    if (lab_enter(a->s, m, st, &sv) < 0) return NULL;
    int rc = lk->forward(a, m, first, st, keep, record, x_grad ? &x_in : NULL, &out);
    bl_graph *g = lab_leave(m, &sv);
    if (rc < 0) return NULL;
    if (!out) {
        bl_error_prefix("%s", a->fname);
        return fail_at(a, a->pos);
    }
    /* the items of this forward (images, or tokens) for step(m)'s history, as a loss of it may be
     * written by hand (cross_entropy(m(x).view(-1, V), y.view(-1))) */
    const bl_tensor *x = bl_arg_tensor(a, first);
    if (x) st->lab_items = lk->forward == dit_forward ? x->shape[0] : (long long)x->numel;
    bl_value *v = graph_value(a, owner, m, g, out);
    if (v && x_in && v->node && bl_ag_add_input(v, a->v[first], x_in) < 0) {
        bl_val_unref(v);
        return NULL;
    }
    return v;
}

bl_value *bl_model_call(void *model, bl_callargs *a)
{
    /* the variable called (a->fname) owns the model; messages and the argument helpers then
     * speak of forward, the function with the same arguments after m */
    bl_value *v = bl_session_get(a->s, a->fname), *owner = v && is_model(v) && v->h == model ? v : NULL;
    for (int i = 0; !owner && i < a->s->nvars; i++)     /* called by another name (a function's argument) */
        if (is_model(a->s->vals[i]) && a->s->vals[i]->h == model) owner = a->s->vals[i];
    a->fname = "forward";
    return run_forward(a, model, 0, owner);
}

static bl_value *fn_model_forward(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    return m ? run_forward(a, m, 1, a->v[0]) : NULL;
}

/* Remember a loss for step(m)'s run metrics. */
static void note_loss(bl_model *m, const bl_tensor *loss, long long items)
{
    bl_train_state *st = bl_train_get(m);
    if (st && loss) {
        st->lab_loss = loss->data[0];
        st->lab_items = items;
    }
}

static bl_value *fn_flow_loss(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, 0);
    if (!m || bl_nargs(a, 4, 4) < 0 ||
        refuse_grads(a, 1, "x0, noise and t take no gradient (the loss differentiates the parameters; "
                           "m(xt, t) differentiates its images)") < 0)
        return NULL;
    bl_tensor *x0 = tensor_arg(a, 1, 4, "x0", "[B, C, H, W]"), *e = x0 ? tensor_arg(a, 2, 4, "noise", "[B, C, H, W]") : NULL;
    if (!e) return NULL;
    if (!bl_same_shape(x0, e)) {
        char s1[64], s2[64];
        bl_fail("flow_loss: noise %s does not match x0 %s", bl_shape_str(e, s1, sizeof s1), bl_shape_str(x0, s2, sizeof s2));
        return fail_at(a, a->vpos[2]);
    }
    float *t = malloc((size_t)x0->shape[0] * sizeof *t);
    if (!t) { bl_fail("flow_loss: out of memory"); return NULL; }
    bl_train_state *st = bl_train_get(m);
    lab_saved sv;
    if (!st || times_of(a, 3, x0->shape[0], t) < 0 || lab_enter(a->s, m, st, &sv) < 0) { free(t); return NULL; }
    bl_tensor *loss = bl_dit_loss(m, x0, e, t, bl_ag_enabled(a->s));   /* copies x0, noise into the arena */
    bl_graph *g = lab_leave(m, &sv);
    free(t);
    if (!loss) {
        bl_error_prefix("flow_loss");
        return fail_at(a, a->pos);
    }
    note_loss(m, loss, x0->shape[0]);
    return graph_value(a, a->v[0], m, g, loss);
}

static bl_value *fn_ce_loss(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, 1);
    if (!m || bl_nargs(a, 3, 3) < 0 ||
        refuse_grads(a, 1, "token ids and targets take no gradient (they are integers)") < 0)
        return NULL;
    bl_tensor *x = tensor_arg(a, 1, 2, "tokens", "[B, T] (integer ids)");
    bl_tensor *y = x ? tensor_arg(a, 2, 2, "targets", "[B, T] (integer ids)") : NULL;
    if (!y) return NULL;
    if (!bl_same_shape(x, y)) {
        char s1[64], s2[64];
        bl_fail("ce_loss: targets %s do not match tokens %s", bl_shape_str(y, s1, sizeof s1), bl_shape_str(x, s2, sizeof s2));
        return fail_at(a, a->vpos[2]);
    }
    int *ids = malloc(2 * x->numel * sizeof *ids);
    if (!ids) { bl_fail("ce_loss: out of memory"); return NULL; }
    bl_tensor *loss = NULL;
    bl_train_state *st = bl_train_get(m);
    lab_saved sv;
    bl_graph *g = NULL;
    if (st && ids_of(a, 1, x, 0, m->cfg.vocab - 1, ids, "tokens") == 0 &&
        ids_of(a, 2, y, -1, m->cfg.vocab - 1, ids + x->numel, "targets") == 0 && lab_enter(a->s, m, st, &sv) == 0) {
        loss = bl_gpt_loss_targets(m, ids, ids + x->numel, x->shape[0], x->shape[1], bl_ag_enabled(a->s));
        g = lab_leave(m, &sv);
        if (!loss) {
            bl_error_prefix("ce_loss");
            bl_session_errat(a->s, a->pos);
        }
    }
    free(ids);
    if (!loss) return NULL;
    note_loss(m, loss, (long long)x->numel);
    return graph_value(a, a->v[0], m, g, loss);
}

static bl_value *fn_grad(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *p = param_arg(a, m, 1);
    if (!p) return NULL;
    bl_tensor *g = bl_tensor_new(p->ndim, p->shape);
    if (!g) return NULL;
    memcpy(g->data, p->grad, p->numel * sizeof(float));
    return bl_val_tensor(g);
}

static double norm2(const float *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s);
}

static bl_value *fn_grads(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 1, 1) < 0) return NULL;
    const char *cols[] = { "name", "shape", "grad_norm", "norm" };
    bl_table *t = bl_table_new(4, cols);
    const bl_params *p = m->params;
    for (int i = 0; t && i < p->n; i++) {
        char s[64], g[32], v[32];
        bl_fmt_num(norm2(p->t[i].grad, p->t[i].numel), g, sizeof g);
        bl_fmt_num(norm2(p->t[i].data, p->t[i].numel), v, sizeof v);
        if (bl_table_addf(t, "%s\t%s\t%s\t%s", p->t[i].name, bl_shape_str(&p->t[i], s, sizeof s), g, v) < 0) {
            bl_table_free(t);
            t = NULL;
        }
    }
    return bl_val_table(t);
}

/* parameters(m) / named_parameters(m): model m's parameters in its order (the checkpoint's), as
 * a list of live tensors (bl_lab_param_value), or of [name, tensor] pairs. */
static bl_value *params_list(bl_callargs *a, int named)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 1, 1) < 0) return NULL;
    const bl_params *p = m->params;
    bl_value *l = bl_val_list(p->n);
    for (int i = 0; l && i < p->n; i++) {
        bl_value *it = bl_lab_param_value(a->v[0], i);
        if (it && named) {
            bl_value *pair = bl_val_list(2);
            if (pair && (bl_val_list_set(pair, 0, bl_val_str(p->t[i].name)) < 0 ||
                         bl_val_list_set(pair, 1, bl_val_ref(it)) < 0)) {
                bl_val_unref(pair);
                pair = NULL;
            }
            bl_val_unref(it);
            it = pair;
        }
        if (!it || bl_val_list_set(l, i, it) < 0) {
            bl_val_unref(l);
            l = NULL;
        }
    }
    return l;
}

/* state_dict(m): {name: a copy of the weights} in the checkpoint's order, as model.state_dict()
 * (tensors that need no gradient); a tied head (TinyGPT's lm_head.weight) last, under its own
 * name too, as nanoGPT's state_dict holds it, so that PyTorch's strict load_state_dict takes it. */
static bl_value *fn_state_dict(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 1, 1) < 0) return NULL;
    const bl_params *p = m->params;
    const bl_kind *kind = bl_kind_of(m->kind);
    const bl_tensor *tied = kind->tied_head ? bl_params_find(p, kind->tied_to) : NULL;
    bl_value *d = bl_val_dict(p->n + 1);
    for (int i = 0; d && i <= p->n; i++) {
        const bl_tensor *t = i < p->n ? &p->t[i] : tied;
        if (!t) break;
        if (bl_val_dict_set(d, bl_val_str(i < p->n ? t->name : kind->tied_head), bl_val_tensor(bl_tensor_copy(t))) < 0) {
            bl_val_unref(d);
            d = NULL;
        }
    }
    return d;
}

/* A list of the strings names[0..n-1], or NULL (out of memory). */
static bl_value *str_list(const char *const *names, int n)
{
    bl_value *l = bl_val_list(n);
    for (int i = 0; l && i < n; i++)
        if (bl_val_list_set(l, i, bl_val_str(names[i])) < 0) {
            bl_val_unref(l);
            l = NULL;
        }
    return l;
}

/* load_state_dict(m, d, strict=True): PyTorch's model.load_state_dict: the tensors of dict d
 * {name: tensor} copied into m's parameters of those names. strict: d has every parameter of m
 * and no other name; not strict: the names both have. Each tensor must have its parameter's
 * shape and finite values (torch checks shapes in both modes). Everything is checked first, so
 * an error changes nothing. {"missing_keys": [...], "unexpected_keys": [...]}, as torch's
 * _IncompatibleKeys. */
static bl_value *fn_load_state_dict(bl_callargs *a)
{
    static const char *const keys[] = { "m", "state_dict", "strict", NULL };
    bl_value *arg[3];
    bl_pos pos[3];
    bl_model *m = model_arg(a, 0, -1);
    int strict = 1;
    if (!m || bl_kw_only(a, keys) < 0 || bl_pos_or_kw(a, keys, 3, arg, pos) < 0) return NULL;
    if (!arg[1]) return BL_FAILP("load_state_dict: needs the state_dict (m.load_state_dict(torch.load(f)))");
    if (arg[2] && (strict = bl_val_truth(arg[2])) < 0) {
        bl_error_prefix("load_state_dict: strict=");
        return fail_at(a, pos[2]);
    }
    const bl_value *d = arg[1];
    if (d->kind != BL_V_DICT) {
        bl_fail("load_state_dict: takes a dict {name: tensor} (torch.load(f), m.state_dict()), got a %s",
                bl_val_kind_name(d));
        return fail_at(a, pos[1]);
    }
    const bl_params *p = m->params;
    const bl_kind *kind = bl_kind_of(m->kind);
    const char **missing = calloc((size_t)p->n + 1, sizeof *missing), **unexpected = calloc((size_t)d->n + 1, sizeof *unexpected);
    bl_tensor **dst = calloc((size_t)d->n + 1, sizeof *dst);
    int nmiss = 0, nunex = 0, rc = missing && unexpected && dst ? 0 : bl_fail("load_state_dict: out of memory");
    for (int i = 0; rc == 0 && i < d->n; i++) {
        if ((rc = bl_state_entry(d, i, "load_state_dict")) < 0) break;
        const bl_tensor *v = d->items[i]->t;
        bl_tensor *t = bl_params_find(p, d->keys[i]->str);
        if (!t && kind->tied_head && !strcmp(d->keys[i]->str, kind->tied_head)) {
            /* the tied head (torch's state_dict holds it under both names): the embedding
             * itself, which must then be equal to it when the dict has that too */
            t = bl_params_find(p, kind->tied_to);
            bl_value key = { .kind = BL_V_STR, .str = (char *)kind->tied_to };
            int w = bl_val_dict_find(d, &key);
            const bl_tensor *wv = w >= 0 && d->items[w]->kind == BL_V_TENSOR ? d->items[w]->t : NULL;
            if (t && !bl_same_shape(t, v)) {
                char s1[64], s2[64];
                rc = bl_fail("load_state_dict: size mismatch for %s: copying a param with shape %s, the shape in "
                             "the model is %s (tied to %s)", kind->tied_head, bl_shape_str(v, s1, sizeof s1),
                             bl_shape_str(t, s2, sizeof s2), kind->tied_to);
                break;
            }
            if (wv && bl_same_shape(wv, v) && memcmp(wv->data, v->data, v->numel * sizeof(float))) {
                rc = bl_fail("load_state_dict: %s differs from %s: %s ties them (they are one tensor)",
                             kind->tied_head, kind->tied_to, kind->title);
                break;
            }
            if (wv) continue;    /* loaded under its own name */
        }
        if (!t) {
            unexpected[nunex++] = d->keys[i]->str;
            continue;
        }
        if (!bl_same_shape(t, v)) {
            char s1[64], s2[64];
            /* the embedding's rows: another vocabulary (a TinyGPT's grows to its text's when data
             * is attached, 88 for the built-in text) */
            int vocab = t == bl_params_find(p, kind->tied_to ? kind->tied_to : "") && v->ndim == 2 && t->ndim == 2 &&
                        v->shape[1] == t->shape[1];
            char hint[96] = "";
            if (vocab)
                snprintf(hint, sizeof hint, " (a vocabulary of %d: make the model with vocab=%d)", v->shape[0], v->shape[0]);
            rc = bl_fail("load_state_dict: size mismatch for %s: copying a param with shape %s, the shape in "
                         "the model is %s%s", d->keys[i]->str, bl_shape_str(v, s1, sizeof s1),
                         bl_shape_str(t, s2, sizeof s2), hint);
            break;
        }
        for (size_t k = 0; k < v->numel && rc == 0; k++)
            if (!isfinite(v->data[k]))
                rc = bl_fail("load_state_dict: %s holds %s at element %zu: refused (the model would compute "
                             "only nan)", d->keys[i]->str, isnan(v->data[k]) ? "nan" : "inf", k);
        dst[i] = t;
    }
    for (int j = 0; rc == 0 && j < p->n; j++) {
        bl_value key = { .kind = BL_V_STR, .str = (char *)p->t[j].name };
        int got = bl_val_dict_find(d, &key) >= 0;
        for (int i = 0; !got && i < d->n; i++) got = dst[i] == &p->t[j];   /* given as the tied head */
        if (!got) missing[nmiss++] = p->t[j].name;
    }
    if (rc == 0 && strict && (nmiss || nunex)) {
        char miss[160] = "", unex[160] = "";
        if (nmiss) snprintf(miss, sizeof miss, "%d missing key%s (%s%s)", nmiss, nmiss == 1 ? "" : "s", missing[0],
                            nmiss > 1 ? ", ..." : "");
        if (nunex) snprintf(unex, sizeof unex, "%s%d unexpected key%s (%s%s)", nmiss ? ", " : "", nunex,
                            nunex == 1 ? "" : "s", unexpected[0], nunex > 1 ? ", ..." : "");
        rc = bl_fail("load_state_dict: Error(s) in loading state_dict: %s%s (strict=False loads the names both have)",
                     miss, unex);
    }
    bl_value *r = NULL;
    if (rc == 0) {
        for (int i = 0; i < d->n; i++)
            if (dst[i]) memcpy(dst[i]->data, d->items[i]->t->data, dst[i]->numel * sizeof(float));
        m->version++;   /* a loss computed before would backpropagate through the old weights */
        bl_train_state *st = bl_train_get(m);
        if (st) st->edited = 1;     /* a vocab rebuild must not drop these weights silently */
        r = bl_val_dict(2);
        bl_value *ml = r ? str_list(missing, nmiss) : NULL, *ul = ml ? str_list(unexpected, nunex) : NULL;
        if (!ul || bl_val_dict_set(r, bl_val_str("missing_keys"), ml) < 0 ||
            bl_val_dict_set(r, bl_val_str("unexpected_keys"), ul) < 0) {
            bl_val_unref(r);
            r = NULL;
        }
    }
    free(missing);
    free(unexpected);
    free(dst);
    if (!r) fail_at(a, pos[1]);
    return r;
}

static bl_value *fn_parameters(bl_callargs *a) { return params_list(a, 0); }
static bl_value *fn_named_parameters(bl_callargs *a) { return params_list(a, 1); }

int bl_lab_is_model(const bl_value *v) { return is_model(v); }

bl_value *bl_lab_set_mode(bl_value *v, int train)
{
    bl_train_state *st = bl_train_get(v->h);
    if (!st) return NULL;
    st->lab_eval = !train;
    return bl_val_ref(v);
}

int bl_lab_training(const bl_model *m)
{
    const bl_train_state *st = bl_train_find(m);
    return !st || !st->lab_eval;
}

void bl_lab_zero_grad(bl_value *v)
{
    bl_params *p = ((bl_model *)v->h)->params;
    bl_params_zero_grad(p);
    p->has_grad = 0;
    if (p->grad_none) memset(p->grad_none, 0, (size_t)p->n);
}

void bl_lab_note_backward(bl_value *v, float loss)
{
    bl_train_state *st = is_model(v) ? bl_train_get(v->h) : NULL;
    if (!st) return;
    bl_params *p = ((bl_model *)v->h)->params;
    p->has_grad = 1;        /* the model's graph reaches every parameter: none is None now */
    if (p->grad_none) memset(p->grad_none, 0, (size_t)p->n);
    if (!isnan(loss)) st->lab_loss = loss;
}

static bl_value *fn_step(bl_callargs *a)
{
    if (a->n >= 1 && bl_is_optim(a->v[0])) return bl_optim_step(a);     /* opt.step() */
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_kw_only(a, NULL) < 0 || bl_nargs(a, 1, 1) < 0) return NULL;
    bl_train_state *st = bl_train_get(m);
    bl_params *p = m->params;
    if (!st || bl_params_alloc_moments(p) < 0) return NULL;
    if (!p->has_grad) return bl_val_none();    /* no backward since zero_grad/train: torch.optim skips
                                                   parameters whose grad is None (no step, no moment) */
    bl_run *r = st->run;
    bl_adamw *o = r ? &r->opt : &st->lab_opt;
    if (r) bl_run_sync_config(r);
    else bl_adamw_from_config(o, &m->cfg);
    unsigned char *decay = r ? r->decay : bl_decay_mask(p);
    if (!decay) return NULL;
    float lr = bl_adamw_lr(o);
    bl_adamw saved = *o;
    /* bl_adamw_step scales the gradients in place when clipping: keep them as the user made them */
    float *g = o->clip > 0 ? malloc(p->total * sizeof *g) : p->grads;
    if (!g) {
        if (!r) free(decay);
        bl_fail("step: out of memory");
        return NULL;
    }
    if (g != p->grads) memcpy(g, p->grads, p->total * sizeof *g);
    double norm = bl_adamw_step(o, p->values, g, p->m, p->v, decay, p->total);
    m->version++;   /* new weights: a loss computed before them is stale (as PyTorch's version check) */
    st->edited = 1;
    if (g != p->grads) free(g);
    if (!r) free(decay);
    if (!isfinite(norm)) {
        *o = saved;
        bl_fail("step: the gradient norm is %s: no update (zero_grad(m) and compute the loss again)",
                isnan(norm) ? "nan" : "inf");
        return NULL;
    }
    if (r && bl_metrics_step(&r->metrics, st->lab_loss, 0.0f, lr, st->lab_items) < 0) return NULL;
    return bl_val_none();
}

static bl_value *fn_set_param(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_kw_only(a, NULL) < 0 || bl_nargs(a, 3, 3) < 0) return NULL;
    bl_tensor *p = param_arg(a, m, 1);
    bl_tensor *v = p ? bl_arg_tensor(a, 2) : NULL;
    if (!v) return NULL;
    if (v->numel != 1 && !bl_same_shape(v, p)) {
        char s1[64], s2[64];
        bl_fail("set_param: %s is %s, the value %s (give that shape or one number)", a->v[1]->str,
                bl_shape_str(p, s1, sizeof s1), bl_shape_str(v, s2, sizeof s2));
        return fail_at(a, a->vpos[2]);
    }
    for (size_t k = 0; k < v->numel; k++)
        if (!isfinite(v->data[k])) {
            bl_fail("set_param: the value holds %s at element %zu: refused (the model would compute only nan)",
                    isnan(v->data[k]) ? "nan" : "inf", k);
            return fail_at(a, a->vpos[2]);
        }
    for (size_t k = 0; k < p->numel; k++) p->data[k] = v->data[v->numel == 1 ? 0 : k];
    m->version++;   /* a loss computed before would backpropagate through the old weights: stale */
    bl_train_state *st = bl_train_get(m);
    if (st) st->edited = 1;     /* a vocab rebuild must not drop this edit silently */
    return bl_val_none();
}

static bl_value *fn_acts(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 3, 3) < 0) return NULL;
    const char *what = str_arg(a, 1, "what");
    long layer;
    if (!what || bl_arg_int(a, 2, 0, m->cfg.depth - 1, &layer) < 0) return NULL;
    static const char *const names[] = { "in", "norm", "q", "k", "v", "attn", NULL };
    bl_tensor *const *arr[] = { m->tap_in, m->tap_norm, m->tap_q, m->tap_k, m->tap_v, m->attn };
    int w = -1;
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], what)) w = i;
    if (w < 0) {
        bl_fail("acts: unknown activation '%s' (in, norm, q, k, v, attn)", what);
        return fail_at(a, a->vpos[1]);
    }
    bl_tensor *t = arr[w][layer];
    if (!t) {
        bl_fail("acts: the last forward of the model did not keep %s of layer %ld (%s)", what, layer,
                w >= 2 && w <= 4 ? "a forward with gradients keeps q, k, v only with keep=on: m(..., keep=on)"
                : w == 5 ? "a training step keeps none: run the model, m(...)"
                                 : "run the model first: m(...) or a loss");
        return fail_at(a, a->vpos[1]);
    }
    return bl_val_tensor(bl_tensor_copy(t));
}

/* batch(m) of a TinyDiT: [x0], the next images. */
static bl_value *dit_batch(bl_callargs *a, bl_run *r)
{
    bl_tensor *x = bl_tensor_new(4, r->x0->shape);
    if (!x) return NULL;
    if (bl_batch_images(&r->batcher, r->B, x->data, NULL) < 0) {
        bl_tensor_free(x);
        bl_error_prefix("batch");
        return fail_at(a, a->pos);
    }
    bl_value *l = bl_val_list(1);
    if (l && bl_val_list_set(l, 0, bl_val_tensor(x)) < 0) { bl_val_unref(l); return NULL; }
    return l;
}

/* batch(m) of a TinyGPT: [tokens, targets], each [B, T], targets the tokens shifted by one. */
static bl_value *gpt_batch(bl_callargs *a, bl_run *r)
{
    int B = r->B, T = r->T;
    int *tok = malloc((size_t)B * (T + 1) * sizeof *tok);
    bl_tensor *x = bl_tensor_new2(B, T), *y = bl_tensor_new2(B, T);
    if (!tok || !x || !y || bl_batch_text(&r->batcher, B, T, tok) < 0) {
        free(tok);
        bl_tensor_free(x);
        bl_tensor_free(y);
        if (!bl_error()[0]) bl_fail("batch: out of memory");
        return fail_at(a, a->pos);
    }
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            x->data[(size_t)b * T + i] = (float)tok[(size_t)b * (T + 1) + i];
            y->data[(size_t)b * T + i] = (float)tok[(size_t)b * (T + 1) + i + 1];
        }
    free(tok);
    bl_value *l = bl_val_list(2);
    if (!l) { bl_tensor_free(x); bl_tensor_free(y); return NULL; }
    if (bl_val_list_set(l, 0, bl_val_tensor(x)) < 0 || bl_val_list_set(l, 1, bl_val_tensor(y)) < 0) {
        bl_val_unref(l);
        return NULL;
    }
    return l;
}

/* batch(m): the next batch of the run's data (the run is made when absent, as train makes it). */
static bl_value *fn_batch(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, -1);
    if (!m || bl_nargs(a, 1, 1) < 0) return NULL;
    bl_run *r = bl_train_run(a->s, m, "batch");
    if (!r) return fail_at(a, a->pos);
    return lab_kind(m)->batch(a, r);
}

/* The vocabulary of TinyGPT m: the checkpoint's or the data's (opening the default text when
 * none is attached, as train does). NULL + error. */
static const bl_train_state *vocab_of(bl_callargs *a, bl_model *m)
{
    bl_train_state *st = bl_train_get(m);
    if (!st) return NULL;
    if (!st->vocab_size && !bl_train_data(a->s, m, a->fname)) return NULL;
    if (!st->vocab_size && st->data && st->data->vocab_size == m->cfg.vocab) {
        st->vocab_size = st->data->vocab_size;
        memcpy(st->vocab, st->data->vocab, sizeof st->vocab);
    }
    if (!st->vocab_size) {
        bl_fail("%s: the model has no vocabulary yet (data text [FILE] attaches one)", a->fname);
        return NULL;
    }
    return st;
}

static bl_value *fn_encode(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, 1);
    if (!m || bl_nargs(a, 2, 2) < 0) return NULL;
    const char *s = str_arg(a, 1, "the text");
    const bl_train_state *st = s ? vocab_of(a, m) : NULL;
    if (!st) return NULL;
    size_t n = strlen(s);
    if (n == 0) {
        bl_fail("encode: the text is empty (a tensor has at least one element)");
        return fail_at(a, a->vpos[1]);
    }
    bl_tensor *t = bl_tensor_new1((int)n);
    if (!t) return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int id = -1;
        for (int k = 0; k < st->vocab_size; k++)
            if (st->vocab[k] == c) id = k;
        if (id < 0) {
            char shown[16];
            bl_tensor_free(t);
            if (c >= 32 && c < 127) snprintf(shown, sizeof shown, "'%c'", c);
            else snprintf(shown, sizeof shown, "byte %d", c);
            bl_fail("encode: %s at position %zu is not in the model's vocabulary of %d characters", shown, i,
                    st->vocab_size);
            return fail_at(a, a->vpos[1]);
        }
        t->data[i] = (float)id;
    }
    return bl_val_tensor(t);
}

static bl_value *fn_decode(bl_callargs *a)
{
    bl_model *m = model_arg(a, 0, 1);
    if (!m || bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *t = bl_arg_tensor(a, 1);
    const bl_train_state *st = t ? vocab_of(a, m) : NULL;
    if (!st) return NULL;
    char *s = malloc(t->numel + 1);
    int *ids = malloc(t->numel * sizeof *ids);
    if (!s || !ids) {
        free(s);
        free(ids);
        bl_fail("decode: out of memory");
        return NULL;
    }
    bl_value *r = NULL;
    if (ids_of(a, 1, t, 0, st->vocab_size - 1, ids, "tokens") == 0) {
        for (size_t k = 0; k < t->numel; k++) s[k] = (char)st->vocab[ids[k]];
        s[t->numel] = 0;
        r = bl_val_str(s);
    }
    free(s);
    free(ids);
    return r;
}

/* The model lab's functions (forward, the losses, gradients, step, activations, batches, text
 * codes) with their help: this file's function table (repl.h; bl_function_at lists it after
 * functions.c's own). */
const bl_function bl_modellab_functions[] = {
    { "forward", "forward(m, xt, t, keep=off) | forward(m, tokens, keep=off)",
      "Run model m on tensors of your own; m(xt, t) and m(tokens) do the same.\n"
      "TinyDiT: the predicted velocity [B, C, H, W] for images xt [B, C, H, W] and times t [B]\n"
      "(or one number for all). TinyGPT: the logits [B, T, vocab] for integer tokens [B, T].\n"
      "It is the model's training forward: backward(sum(out * g)) fills the parameter\n"
      "gradients (grad, grads), and d/dxt into xt.grad when xt needs a gradient\n"
      "(requires_grad). Each call keeps its own graph: cat([m(x[:4]), m(x[4:])]) works.\n"
      "keep=on keeps q, k and v too for acts(). Dropout (set m dropout=0.2) follows the\n"
      "model's mode as PyTorch's: m.train() (the default) drops, with fresh masks each\n"
      "call (seed N repeats them), m.eval() does not; m.training tells.", fn_model_forward },
    { "flow_loss", "flow_loss(m, x0, noise, t)",
      "The flow-matching loss of TinyDiT m on exactly this batch.\n"
      "x_t = (1 - t) x0 + t noise, target noise - x0, loss = mean (m(x_t, t) - target)^2\n"
      "(DESIGN.md 1): x0 and noise [B, C, H, W], t [B] in [0, 1] or one number.\n"
      "backward(loss) adds d loss / d parameter into the model's gradients.", fn_flow_loss },
    { "ce_loss", "ce_loss(m, tokens, targets)",
      "The cross-entropy of TinyGPT m predicting targets from tokens.\n"
      "tokens and targets are integer tensors [B, T] (a target of -1 or -100 is ignored), as\n"
      "F.cross_entropy(m(tokens).view(-1, V), targets.view(-1)). batch(m) gives a pair.",
      fn_ce_loss },
    { "grad", "grad(m, \"name\")",
      "A copy of the gradient model m holds for one parameter.\n"
      "Gradients add up over backward calls until zero_grad(m), as in PyTorch; `train` clears\n"
      "them at each of its steps. grads(m) lists them.", fn_grad },
    { "grads", "grads(m)",
      "A table of model m's parameters: name, shape, grad_norm and norm (L2).", fn_grads },
    { "parameters", "parameters(m)",
      "Model m's live parameters as a list of tensors (m.parameters()).\n"
      "In the checkpoint's order; each is the model's own weights (step, train and set_param\n"
      "show in it) and a leaf that requires a gradient, its .grad the model's gradient (None\n"
      "before a backward reached the model, or after zero_grad(m) or train, as torch's).\n"
      "Writing one changes the model, as SGD by hand:\n"
      "  with torch.no_grad():\n"
      "      for p in m.parameters(): p -= 0.1 * p.grad\n"
      "or torch.optim.SGD(m.parameters(), lr=0.1) (help SGD). zero_grad(p) or p.grad = None\n"
      "makes one parameter's .grad None.\n"
      "sum([p.numel() for p in m.parameters()]) counts them; param(m, \"name\") is a copy.",
      fn_parameters },
    { "named_parameters", "named_parameters(m)",
      "Model m's parameters as [name, tensor] pairs (m.named_parameters()).\n"
      "The names are PyTorch's state_dict keys; the tensors as parameters(m) gives them:\n"
      "for name, p in m.named_parameters(): print(name, p.shape, p.grad.norm()).",
      fn_named_parameters },
    { "state_dict", "state_dict(m)",
      "Model m's weights as a dict {name: tensor} (m.state_dict()).\n"
      "The names are the checkpoint's (PyTorch's state_dict keys), the tensors copies that need\n"
      "no gradient: sd = m.state_dict(); sd[\"transformer.wte.weight\"].shape, len(sd), sd.keys().\n"
      "TinyGPT's tied lm_head.weight is there too (a copy of wte's), as in nanoGPT's.",
      fn_state_dict },
    { "step", "step(m)",
      "One AdamW step of model m on the gradients it holds, with its settings.\n"
      "The keys lr beta1 beta2 weight_decay warmup cosine steps clip (set m lr=...); weight\n"
      "decay on matrices only. With a run (after train) it is one step of that run, its loss\n"
      "the last flow_loss/ce_loss; before, step keeps its own count. Refused on a nan or inf\n"
      "gradient (nothing changes). The gradients stay: zero_grad(m) clears them, and with no\n"
      "backward since zero_grad or train (torch's grad None) step does nothing, as torch.optim.\n"
      "opt.step() of a torch optimizer (torch.optim.AdamW(...)) is that optimizer's: help SGD.",
      fn_step },
    { "load_state_dict", "load_state_dict(m, state_dict, strict=True)",
      "A dict {name: tensor} into model m's parameters (m.load_state_dict(d)).\n"
      "strict: the dict has every parameter of m and nothing else; strict=False loads the names\n"
      "both have. Each tensor must have its parameter's shape and finite values; an error\n"
      "changes nothing. Gives {\"missing_keys\": [...], \"unexpected_keys\": [...]}, as torch.\n"
      "With torch.save(m.state_dict(), \"m.safetensors\"), m.load_state_dict(torch.load(\n"
      "\"m.safetensors\")) restores m; `load FILE into=m` is the command's form.", fn_load_state_dict },
    { "set_param", "set_param(m, \"name\", value)",
      "Write one parameter of model m, with a shape check.\n"
      "value is a tensor of the parameter's shape, or a number for all its elements. For\n"
      "example set_param(m, \"blocks.0.attn.proj.weight\", zeros(128, 128)). param(m, \"name\")\n"
      "still returns a copy.", fn_set_param },
    { "acts", "acts(m, \"what\", layer)",
      "A copy of one activation of model m's last forward, by name and layer.\n"
      "what: in (the token stream entering the layer, before its first norm), norm (after\n"
      "that norm; TinyDiT: the first image only), q, k, v [B, heads, T, hd] (after qk_norm\n"
      "and RoPE; kept by a forward without gradients or by m(..., keep=on)), attn (the\n"
      "attention weights [B, heads, T, T]). The last forward is m(...), a loss, train, ...",
      fn_acts },
    { "batch", "batch(m)",
      "The next training batch of model m's data as a list of tensors.\n"
      "TinyDiT: [x0] ([B, C, H, W] in [-1, 1]); TinyGPT: [tokens, targets] ([B, T] each,\n"
      "targets the tokens shifted by one). It draws from the run, so train goes on after it.",
      fn_batch },
    { "encode", "encode(m, \"text\")",
      "The token ids [n] of a text for TinyGPT m (its vocabulary of characters).\n"
      "A character outside the vocabulary is an error naming it.", fn_encode },
    { "decode", "decode(m, tokens)", "The text of token ids for TinyGPT m (encode's inverse).",
      fn_decode },
    { NULL, NULL, NULL, NULL },
};
