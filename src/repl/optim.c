/* optim.c - torch.optim.SGD, Adam, AdamW and torch.nn.utils.clip_grad_norm_ at the prompt (see
 * optim.h). */
#include "repl/optim.h"
#include "repl/autograd.h"
#include "repl/modellab.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the three optimizers: their hyperparameters, as torch's constructors take them ---- */

enum { H_NUM, H_BOOL, H_BETAS };
typedef struct {
    const char *name;
    int type;
    double def, def2;       /* the default (betas: both) */
} hyper;

enum { K_SGD, K_ADAM, K_ADAMW };
static const hyper sgd_h[] = {
    { "lr", H_NUM, 1e-3, 0 }, { "momentum", H_NUM, 0, 0 }, { "dampening", H_NUM, 0, 0 },
    { "weight_decay", H_NUM, 0, 0 }, { "nesterov", H_BOOL, 0, 0 }, { NULL, 0, 0, 0 },
};
static const hyper adam_h[] = {
    { "lr", H_NUM, 1e-3, 0 }, { "betas", H_BETAS, 0.9, 0.999 }, { "eps", H_NUM, 1e-8, 0 },
    { "weight_decay", H_NUM, 0, 0 }, { NULL, 0, 0, 0 },
};
static const hyper adamw_h[] = {
    { "lr", H_NUM, 1e-3, 0 }, { "betas", H_BETAS, 0.9, 0.999 }, { "eps", H_NUM, 1e-8, 0 },
    { "weight_decay", H_NUM, 0.01, 0 }, { NULL, 0, 0, 0 },
};
static const struct { const char *name; const hyper *h; } kinds[] = {
    { "SGD", sgd_h }, { "Adam", adam_h }, { "AdamW", adamw_h },
};

/* One group's hyperparameters, read from its dict. */
typedef struct {
    double lr, momentum, dampening, wd, b1, b2, eps;
    int nesterov;
} hparams;

/* A parameter's state (torch's opt.state[p]): the momentum buffer (SGD, b1) or exp_avg and
 * exp_avg_sq (Adam, b1 and b2), and the steps taken. */
typedef struct {
    bl_value *p;        /* the parameter (reference: the pointer stays its key) */
    float *b1, *b2;
    long step;
    int has_buf;        /* SGD: the momentum buffer was made (torch: None before the first step) */
} pstate;

typedef struct {
    int kind;
    bl_value *groups;   /* list of live dicts */
    bl_value *defaults; /* dict of the constructor's hyperparameters */
    pstate *st;
    int nst, capst;
} bl_optim;

static void ofree(void *ptr)
{
    bl_optim *o = ptr;
    bl_val_unref(o->groups);
    bl_val_unref(o->defaults);
    for (int i = 0; i < o->nst; i++) {
        bl_val_unref(o->st[i].p);
        free(o->st[i].b1);
        free(o->st[i].b2);
    }
    free(o->st);
    free(o);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* torch's repr: the class, then each group's keys but params, sorted. */
static void oprint(void *ptr, FILE *out)
{
    bl_optim *o = ptr;
    fprintf(out, "%s (", kinds[o->kind].name);
    for (int g = 0; g < o->groups->n; g++) {
        const bl_value *d = o->groups->items[g];
        const char *names[64];
        int n = 0;
        for (int k = 0; k < d->n && n < 64; k++)
            if (d->keys[k]->kind == BL_V_STR && strcmp(d->keys[k]->str, "params")) names[n++] = d->keys[k]->str;
        qsort(names, (size_t)n, sizeof *names, cmp_str);
        fprintf(out, "\nParameter Group %d\n", g);
        for (int k = 0; k < n; k++) {
            bl_value key = { .kind = BL_V_STR, .str = (char *)names[k] };
            const bl_value *v = d->items[bl_val_dict_find(d, &key)];
            fprintf(out, "    %s: ", names[k]);
            if (v->kind == BL_V_LIST) {     /* betas: Python's tuple */
                fputc('(', out);
                for (int i = 0; i < v->n; i++) {
                    if (i) fputs(", ", out);
                    bl_val_print_inline(v->items[i], out);
                }
                fputc(')', out);
            } else if (v->kind == BL_V_STR) {
                fputs(v->str, out);
            } else if (v->kind == BL_V_BOOL) {      /* Python's str of a bool */
                fputs(v->num ? "True" : "False", out);
            } else {
                bl_val_print_inline(v, out);
            }
            fputc('\n', out);
        }
    }
    fputs(")\n", out);
}

static bl_value *ofield(void *ptr, const char *name)
{
    bl_optim *o = ptr;
    if (!strcmp(name, "param_groups")) return bl_val_ref(o->groups);
    if (!strcmp(name, "defaults")) return bl_val_ref(o->defaults);
    return BL_FAILP("an optimizer has no field '%s' (it has param_groups and defaults, and the methods step() and "
                    "zero_grad())", name);
}

static void odescribe(void *ptr, char *buf, size_t n)
{
    bl_optim *o = ptr;
    int np = 0;
    for (int g = 0; g < o->groups->n; g++) {
        bl_value key = { .kind = BL_V_STR, .str = "params" };
        const bl_value *d = o->groups->items[g];
        int at = bl_val_dict_find(d, &key);
        if (at >= 0 && d->items[at]->kind == BL_V_LIST) np += d->items[at]->n;
    }
    snprintf(buf, n, "%s, %d group%s, %d tensors", kinds[o->kind].name, o->groups->n, o->groups->n == 1 ? "" : "s", np);
}

static const bl_handle_type optim_type = { "optimizer", ofree, oprint, ofield, odescribe, NULL, NULL };

int bl_is_optim(const bl_value *v) { return v && v->kind == BL_V_HANDLE && v->htype == &optim_type; }

/* ---- reading and checking a group ---- */

static const bl_value *dict_get(const bl_value *d, const char *key)
{
    bl_value k = { .kind = BL_V_STR, .str = (char *)key };
    int at = bl_val_dict_find(d, &k);
    return at < 0 ? NULL : d->items[at];
}

static const char *num_str(double x, char *buf, size_t n)
{
    bl_fmt_num(x, buf, n);
    return buf;
}

/* Hyperparameter h's value v as a number (betas: two) into x, or -1 + error. */
static int read_hyper(const char *fname, const hyper *h, const bl_value *v, double *x, double *x2)
{
    if (h->type == H_BETAS) {
        if (v->kind != BL_V_LIST || v->n != 2) {
            if (v->kind == BL_V_LIST)
                return bl_fail("%s: betas must be two numbers (beta1, beta2), got %d", fname, v->n);
            return bl_fail("%s: betas must be two numbers (beta1, beta2), got a %s", fname, bl_val_kind_name(v));
        }
        for (int i = 0; i < 2; i++)
            if (v->items[i]->kind != BL_V_NUM && v->items[i]->kind != BL_V_BOOL)
                return bl_fail("%s: betas must be two numbers (beta1, beta2), item %d is a %s", fname, i,
                               bl_val_kind_name(v->items[i]));
        *x = v->items[0]->num, *x2 = v->items[1]->num;
        return 0;
    }
    if (v->kind != BL_V_NUM && v->kind != BL_V_BOOL)
        return bl_fail("%s: %s must be a %s, got a %s", fname, h->name, h->type == H_BOOL ? "bool" : "number",
                       bl_val_kind_name(v));
    *x = v->num;
    return 0;
}

/* The group dict d's hyperparameters into hp, checked as torch's constructors check them (with
 * their messages); 0 or -1 + error. */
static int read_group(int kind, const char *fname, const bl_value *d, hparams *hp)
{
    memset(hp, 0, sizeof *hp);
    for (const hyper *h = kinds[kind].h; h->name; h++) {
        const bl_value *v = dict_get(d, h->name);
        double x = 0, x2 = 0;
        if (!v) return bl_fail("%s: a parameter group has no '%s'", fname, h->name);
        if (read_hyper(fname, h, v, &x, &x2) < 0) return -1;
        if (!strcmp(h->name, "lr")) hp->lr = x;
        else if (!strcmp(h->name, "momentum")) hp->momentum = x;
        else if (!strcmp(h->name, "dampening")) hp->dampening = x;
        else if (!strcmp(h->name, "weight_decay")) hp->wd = x;
        else if (!strcmp(h->name, "nesterov")) hp->nesterov = x != 0;
        else if (!strcmp(h->name, "eps")) hp->eps = x;
        else if (!strcmp(h->name, "betas")) hp->b1 = x, hp->b2 = x2;
    }
    char b[40];
    if (!(hp->lr >= 0)) return bl_fail("%s: Invalid learning rate: %s", fname, num_str(hp->lr, b, sizeof b));
    if (!(hp->wd >= 0)) return bl_fail("%s: Invalid weight_decay value: %s", fname, num_str(hp->wd, b, sizeof b));
    if (kind == K_SGD) {
        if (!(hp->momentum >= 0)) return bl_fail("%s: Invalid momentum value: %s", fname, num_str(hp->momentum, b, sizeof b));
        if (hp->nesterov && (hp->momentum <= 0 || hp->dampening != 0))
            return bl_fail("%s: Nesterov momentum requires a momentum and zero dampening", fname);
        return 0;
    }
    if (!(hp->eps >= 0)) return bl_fail("%s: Invalid epsilon value: %s", fname, num_str(hp->eps, b, sizeof b));
    if (!(hp->b1 >= 0 && hp->b1 < 1))
        return bl_fail("%s: Invalid beta parameter at index 0: %s", fname, num_str(hp->b1, b, sizeof b));
    if (!(hp->b2 >= 0 && hp->b2 < 1))
        return bl_fail("%s: Invalid beta parameter at index 1: %s", fname, num_str(hp->b2, b, sizeof b));
    return 0;
}

/* v is something an optimizer can hold: a leaf tensor. 0 or -1 + error. */
static int check_param(const char *fname, const bl_value *v)
{
    if (v->kind != BL_V_TENSOR)
        return bl_fail("%s: optimizer can only optimize Tensors, but one of the params is a %s", fname,
                       bl_val_kind_name(v));
    if (v->node) return bl_fail("%s: can't optimize a non-leaf Tensor (made by %s)", fname, bl_ag_op(v));
    return 0;
}

/* A group's params: its list (every item checked); NULL + error. */
static const bl_value *group_params(const char *fname, const bl_value *d)
{
    const bl_value *ps = dict_get(d, "params");
    if (!ps) return BL_FAILP("%s: a parameter group has no 'params'", fname);
    if (ps->kind != BL_V_LIST)
        return BL_FAILP("%s: a parameter group's params must be a list of tensors, got a %s", fname, bl_val_kind_name(ps));
    for (int i = 0; i < ps->n; i++)
        if (check_param(fname, ps->items[i]) < 0) return NULL;
    return ps;
}

/* ---- the constructors ---- */

/* The group dict of user dict u (NULL: none, only params) with params ps, the defaults filled in:
 * a live dict. NULL + error. */
static bl_value *make_group(const char *fname, const bl_value *u, bl_value *ps, const bl_value *defaults)
{
    int cap = (u ? u->n : 0) + defaults->n + 9;
    bl_value *d = bl_val_dict(cap);
    if (!d) return NULL;
    d->live = cap;
    int rc = 0;
    if (u) {
        for (int k = 0; k < u->n && rc == 0; k++) {
            int params = u->keys[k]->kind == BL_V_STR && !strcmp(u->keys[k]->str, "params");
            rc = bl_val_dict_set(d, bl_val_ref(u->keys[k]), bl_val_ref(params ? ps : u->items[k]));
        }
    } else {
        rc = bl_val_dict_set(d, bl_val_str("params"), bl_val_ref(ps));
    }
    for (int k = 0; k < defaults->n && rc == 0; k++)
        if (bl_val_dict_find(d, defaults->keys[k]) < 0)
            rc = bl_val_dict_set(d, bl_val_ref(defaults->keys[k]), bl_val_ref(defaults->items[k]));
    if (rc < 0) {
        bl_val_unref(d);
        return NULL;
    }
    (void)fname;
    return d;
}

/* A group's params as given (a tensor, or a list of tensors) as a list; NULL + error. */
static bl_value *params_list(const char *fname, bl_value *v)
{
    if (v->kind == BL_V_TENSOR) {
        if (check_param(fname, v) < 0) return NULL;
        bl_value *l = bl_val_list(1);
        if (l && bl_val_list_set(l, 0, bl_val_ref(v)) < 0) bl_val_unref(l), l = NULL;
        return l;
    }
    if (v->kind != BL_V_LIST)
        return BL_FAILP("%s: params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                        "a %s", fname, bl_val_kind_name(v));
    for (int i = 0; i < v->n; i++)
        if (check_param(fname, v->items[i]) < 0) return NULL;
    return bl_val_ref(v);
}

static bl_value *make_optim(bl_callargs *a, int kind)
{
    const char *fname = a->fname;
    const hyper *hs = kinds[kind].h;
    int nh = 0;
    while (hs[nh].name) nh++;
    if (bl_nargs(a, 1, 1 + nh) < 0) return NULL;
    /* the defaults: positional after params, or keywords, or torch's */
    bl_value *defaults = bl_val_dict(nh);
    if (!defaults) return NULL;
    for (int i = 0; i < nh; i++) {
        bl_value *kw = bl_kw(a, hs[i].name), *v = NULL;
        if (kw && 1 + i < a->n) {
            bl_val_unref(defaults);
            bl_fail("%s: %s given twice (as argument %d and as %s=)", fname, hs[i].name, 2 + i, hs[i].name);
            bl_session_errat(a->s, a->vpos[1 + i]);
            return NULL;
        }
        bl_pos pos = a->pos;
        if (1 + i < a->n) v = bl_val_ref(a->v[1 + i]), pos = a->vpos[1 + i];
        else if (kw) {
            v = bl_val_ref(kw);
            for (int j = 0; j < a->nk; j++)
                if (!strcmp(a->key[j], hs[i].name)) pos = a->kpos[j];
        } else if (hs[i].type == H_BETAS) {
            v = bl_val_list(2);
            if (v && (bl_val_list_set(v, 0, bl_val_num(hs[i].def)) < 0 || bl_val_list_set(v, 1, bl_val_num(hs[i].def2)) < 0))
                bl_val_unref(v), v = NULL;
        } else {
            v = hs[i].type == H_BOOL ? bl_val_bool(hs[i].def != 0) : bl_val_num(hs[i].def);
        }
        double x, x2;
        if (v && read_hyper(fname, &hs[i], v, &x, &x2) < 0) bl_val_unref(v), v = NULL;
        if (!v || bl_val_dict_set(defaults, bl_val_str(hs[i].name), v) < 0) {
            bl_val_unref(defaults);
            bl_session_errat(a->s, pos);
            return NULL;
        }
    }
    hparams hp;
    if (read_group(kind, fname, defaults, &hp) < 0) {
        bl_val_unref(defaults);
        bl_session_errat(a->s, a->pos);
        return NULL;
    }
    /* the groups: one of all the tensors, or one per dict */
    bl_value *pv = a->v[0];
    if (pv->kind != BL_V_LIST) {
        bl_fail("%s: params argument given to the optimizer should be an iterable of Tensors or dicts, but got a %s "
                "(a list: [w])", fname, bl_val_kind_name(pv));
        bl_val_unref(defaults);
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    int dicts = pv->kind == BL_V_LIST && pv->n > 0 && pv->items[0]->kind == BL_V_DICT;
    int ng = dicts ? pv->n : 1;
    bl_value *groups = bl_val_list(ng);
    int rc = groups ? 0 : -1;
    for (int g = 0; g < ng && rc == 0; g++) {
        const bl_value *u = dicts ? pv->items[g] : NULL;
        if (dicts && u->kind != BL_V_DICT) {
            rc = bl_fail("%s: params is a list of dicts (param groups): item %d is a %s", fname, g, bl_val_kind_name(u));
            break;
        }
        const bl_value *given = u ? dict_get(u, "params") : pv;
        if (!given) {
            rc = bl_fail("%s: parameter group %d didn't specify a value of required optimization parameter params",
                         fname, g);
            break;
        }
        bl_value *ps = params_list(fname, (bl_value *)given);
        bl_value *d = ps ? make_group(fname, u, ps, defaults) : NULL;
        bl_val_unref(ps);
        if (!d || bl_val_list_set(groups, g, d) < 0) rc = -1;
        else if (read_group(kind, fname, d, &hp) < 0) rc = -1;
    }
    /* no empty list; no tensor in two groups (one tensor: its data) */
    int total = 0;
    for (int g = 0; g < ng && rc == 0; g++) {
        const bl_value *ps = dict_get(groups->items[g], "params");
        total += ps->n;
        for (int i = 0; i < ps->n && rc == 0; i++)
            for (int h = 0; h < g && rc == 0; h++) {
                const bl_value *qs = dict_get(groups->items[h], "params");
                for (int j = 0; j < qs->n && rc == 0; j++)
                    if (qs->items[j]->t->data == ps->items[i]->t->data)
                        rc = bl_fail("%s: some parameters appear in more than one parameter group", fname);
            }
    }
    if (rc == 0 && total == 0) rc = bl_fail("%s: optimizer got an empty parameter list", fname);
    bl_optim *o = rc == 0 ? calloc(1, sizeof *o) : NULL;
    if (rc == 0 && !o) bl_fail("%s: out of memory", fname);
    if (!o) {
        bl_val_unref(groups);
        bl_val_unref(defaults);
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    o->kind = kind;
    o->groups = groups;
    o->defaults = defaults;
    return bl_val_handle(&optim_type, o);
}

static bl_value *fn_sgd(bl_callargs *a) { return make_optim(a, K_SGD); }
static bl_value *fn_adam(bl_callargs *a) { return make_optim(a, K_ADAM); }
static bl_value *fn_adamw(bl_callargs *a) { return make_optim(a, K_ADAMW); }

/* ---- step and zero_grad ---- */

/* p's gradient, or NULL when its .grad is None. */
static const bl_tensor *grad_of(const bl_value *p)
{
    if (!p->grad || (p->param && !bl_lab_param_has_grad(p))) return NULL;
    return p->grad;
}

/* p's state, made (zeroed) when new; NULL + error (out of memory). */
static pstate *state_of(bl_optim *o, bl_value *p)
{
    for (int i = 0; i < o->nst; i++)
        if (o->st[i].p == p) return &o->st[i];
    if (o->nst == o->capst) {
        int cap = o->capst ? 2 * o->capst : 16;
        pstate *n = realloc(o->st, (size_t)cap * sizeof *n);
        if (!n) return BL_FAILP("step: out of memory");
        o->st = n, o->capst = cap;
    }
    pstate *s = &o->st[o->nst];
    memset(s, 0, sizeof *s);
    size_t n = p->t->numel;
    s->b1 = calloc(n, sizeof(float));
    s->b2 = o->kind == K_SGD ? NULL : calloc(n, sizeof(float));
    if (!s->b1 || (o->kind != K_SGD && !s->b2)) {
        free(s->b1);
        free(s->b2);
        return BL_FAILP("step: out of memory");
    }
    s->p = bl_val_ref(p);
    o->nst++;
    return s;
}

/* torch.optim.SGD's algorithm box on one parameter: new values into out. */
static void sgd_update(const hparams *h, pstate *s, const float *x, const float *g, float *out, size_t n)
{
    float lr = (float)h->lr, wd = (float)h->wd, mu = (float)h->momentum, damp = 1 - (float)h->dampening;
    for (size_t k = 0; k < n; k++) {
        float d = g[k];
        if (wd != 0) d += wd * x[k];
        if (mu != 0) {
            float b = s->has_buf ? mu * s->b1[k] + damp * d : d;
            s->b1[k] = b;
            d = h->nesterov ? d + mu * b : b;
        }
        out[k] = x[k] - lr * d;
    }
    if (mu != 0) s->has_buf = 1;
    s->step++;
}

/* torch.optim.Adam's and AdamW's (decoupled: adamw) boxes, without amsgrad. */
static void adam_update(const hparams *h, int adamw, pstate *s, const float *x, const float *g, float *out, size_t n)
{
    s->step++;
    double bc1 = 1 - pow(h->b1, (double)s->step), bc2 = 1 - pow(h->b2, (double)s->step);
    float step_size = (float)(h->lr / bc1), bc2_sqrt = (float)sqrt(bc2), eps = (float)h->eps;
    float b1 = (float)h->b1, b2 = (float)h->b2, wd = (float)h->wd, decay = (float)(1 - h->lr * h->wd);
    for (size_t k = 0; k < n; k++) {
        float d = g[k], xk = x[k];
        if (adamw) xk *= decay;
        else if (wd != 0) d += wd * xk;
        s->b1[k] += (d - s->b1[k]) * (1 - b1);      /* exp_avg.lerp_(grad, 1 - beta1) */
        s->b2[k] = s->b2[k] * b2 + (1 - b2) * d * d;
        float denom = sqrtf(s->b2[k]) / bc2_sqrt + eps;
        out[k] = xk - step_size * (s->b1[k] / denom);
    }
}

/* The optimizer of step(opt) / zero_grad(opt): checks the call; NULL + error. */
static bl_optim *optim_call(bl_callargs *a, const char *const *keys)
{
    bl_optim *o = a->v[0]->h;
    for (int j = 0; j < a->nk; j++) {
        int ok = 0;
        for (const char *const *k = keys; k && *k && !ok; k++) ok = !strcmp(*k, a->key[j]);
        if (!ok) {
            bl_fail("%s.%s: unknown keyword '%s' (opt.step() takes none, opt.zero_grad() set_to_none=)",
                    kinds[o->kind].name, a->fname, a->key[j]);
            bl_session_errat(a->s, a->kname[j]);
            return NULL;
        }
    }
    if (a->n > 1) {
        bl_fail("%s.%s() takes no arguments (a closure is not supported)", kinds[o->kind].name, a->fname);
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    return o;
}

bl_value *bl_optim_step(bl_callargs *a)
{
    bl_optim *o = optim_call(a, NULL);
    if (!o) return NULL;
    const char *fname = kinds[o->kind].name;
    char what[32];
    snprintf(what, sizeof what, "%s.step", fname);
    int ng = o->groups->n;
    hparams *hp = calloc((size_t)ng + 1, sizeof *hp);
    if (!hp) return BL_FAILP("step: out of memory");
    /* first every check and every new state, so that a step that fails changes nothing */
    int rc = 0;
    for (int g = 0; g < ng && rc == 0; g++) {
        const bl_value *d = o->groups->items[g];
        const bl_value *ps = read_group(o->kind, what, d, &hp[g]) < 0 ? NULL : group_params(what, d);
        if (!ps) {
            bl_error_prefix("parameter group %d", g);
            rc = -1;
        }
        for (int i = 0; ps && i < ps->n && rc == 0; i++) {
            bl_value *p = ps->items[i];
            /* before the None test: a rebuilt model's old weights never get a gradient again,
             * so skipping them as torch skips None would make every step silently do nothing */
            if (bl_lab_param_detached(p) < 0) {
                bl_fail("%s: parameter %d of group %d belongs to weights its model no longer has (a rebuild since, "
                        "by set, data or a new vocabulary, made new ones): make the optimizer again from "
                        "m.parameters()", what, i, g);
                rc = -1;
                break;
            }
            if (!grad_of(p)) continue;
            if (!state_of(o, p)) rc = -1;
        }
    }
    size_t maxn = 0;
    for (int i = 0; i < o->nst; i++)
        if (o->st[i].p->t->numel > maxn) maxn = o->st[i].p->t->numel;
    float *tmp = rc == 0 ? malloc((maxn ? maxn : 1) * sizeof *tmp) : NULL;
    if (rc == 0 && !tmp) rc = bl_fail("step: out of memory");
    for (int g = 0; g < ng && rc == 0; g++) {
        const bl_value *ps = dict_get(o->groups->items[g], "params");
        for (int i = 0; i < ps->n && rc == 0; i++) {
            bl_value *p = ps->items[i];
            const bl_tensor *gt = grad_of(p);
            if (!gt) continue;
            pstate *s = state_of(o, p);
            size_t n = p->t->numel;
            if (o->kind == K_SGD) sgd_update(&hp[g], s, p->t->data, gt->data, tmp, n);
            else adam_update(&hp[g], o->kind == K_ADAMW, s, p->t->data, gt->data, tmp, n);
            bl_tensor src = *p->t;
            src.data = tmp;
            rc = bl_write_in_place(p, &src);
        }
    }
    free(tmp);
    free(hp);
    return rc < 0 ? NULL : bl_val_none();
}

bl_value *bl_optim_zero_grad(bl_callargs *a)
{
    static const char *const keys[] = { "set_to_none", NULL };
    bl_optim *o = optim_call(a, keys);
    int none = 1;
    if (!o || bl_kw_bool(a, "set_to_none", 1, &none) < 0) return NULL;
    for (int g = 0; g < o->groups->n; g++) {
        const bl_value *ps = dict_get(o->groups->items[g], "params");
        for (int i = 0; ps && ps->kind == BL_V_LIST && i < ps->n; i++) {
            bl_value *p = ps->items[i];
            if (p->kind != BL_V_TENSOR || !grad_of(p)) continue;
            if (!none) memset(p->grad->data, 0, p->grad->numel * sizeof(float));
            else if (p->param) bl_lab_param_set_grad_none(p);
            else {
                bl_tensor_free(p->grad);
                p->grad = NULL;
            }
        }
    }
    return bl_val_none();
}

/* ---- clip_grad_norm_ ---- */

static bl_value *fn_clip_grad_norm(bl_callargs *a)
{
    static const char *const keys[] = { "max_norm", "norm_type", "error_if_nonfinite", NULL };
    if (bl_kw_only(a, keys) < 0 || bl_nargs(a, 1, 3) < 0) return NULL;
    bl_value *pv = a->v[0];
    int n = pv->kind == BL_V_LIST ? pv->n : 1;
    for (int i = 0; i < n; i++) {
        bl_value *p = pv->kind == BL_V_LIST ? pv->items[i] : pv;
        if (p->kind != BL_V_TENSOR) {
            bl_fail("clip_grad_norm_: parameters must be a tensor or a list of tensors, %s a %s",
                    pv->kind == BL_V_LIST ? "one is" : "got", bl_val_kind_name(p));
            bl_session_errat(a->s, a->vpos[0]);
            return NULL;
        }
    }
    double max_norm = 0, p_norm = 2;
    int nonfinite = 0;
    bl_value *mk = bl_kw(a, "max_norm"), *nk = bl_kw(a, "norm_type");
    if ((a->n < 2 && !mk) || (a->n >= 2 && mk) || (a->n >= 3 && nk)) {
        bl_fail(a->n < 2 && !mk ? "clip_grad_norm_: give max_norm (clip_grad_norm_(params, 1.0))"
                                : "clip_grad_norm_: an argument given twice");
        bl_session_errat(a->s, a->pos);
        return NULL;
    }
    if (a->n >= 2 ? bl_arg_num(a, 1, &max_norm) < 0 : bl_kw_num(a, "max_norm", 0, &max_norm) < 0) return NULL;
    if (a->n >= 3 ? bl_arg_num(a, 2, &p_norm) < 0 : bl_kw_num(a, "norm_type", 2, &p_norm) < 0) return NULL;
    if (bl_kw_bool(a, "error_if_nonfinite", 0, &nonfinite) < 0) return NULL;
    if (!(p_norm > 0)) {
        char b[40];
        bl_fail("clip_grad_norm_: norm_type must be a positive number or inf, got %s", num_str(p_norm, b, sizeof b));
        bl_session_errat(a->s, a->pos);
        return NULL;
    }
    /* torch: the norm of the gradients' norms (inf: the largest |g|) */
    double total = 0;
    for (int i = 0; i < n; i++) {
        const bl_tensor *g = grad_of(pv->kind == BL_V_LIST ? pv->items[i] : pv);
        if (!g) continue;
        double s = 0;
        for (size_t k = 0; k < g->numel; k++) {
            double x = fabs((double)g->data[k]);
            if (isinf(p_norm)) s = x > s || isnan(x) ? x : s;
            else s += pow(x, p_norm);
        }
        float norm = (float)(isinf(p_norm) ? s : pow(s, 1 / p_norm));
        if (isinf(p_norm)) total = norm > total || isnan(norm) ? norm : total;
        else total += pow(norm, p_norm);
    }
    float tn = (float)(isinf(p_norm) ? total : pow(total, 1 / p_norm));
    if (nonfinite && !isfinite(tn)) {
        char b[40];
        bl_fail("clip_grad_norm_: The total norm of order %s for gradients from `parameters` is non-finite, so it "
                "cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`", num_str(p_norm, b, sizeof b));
        bl_session_errat(a->s, a->pos);
        return NULL;
    }
    float coef = (float)max_norm / (tn + 1e-6f);
    for (int i = 0; coef < 1 && i < n; i++) {
        const bl_tensor *g = grad_of(pv->kind == BL_V_LIST ? pv->items[i] : pv);
        for (size_t k = 0; g && k < g->numel; k++) g->data[k] *= coef;
    }
    return bl_val_num(tn);
}

const bl_function bl_optim_functions[] = {
    { "SGD", "SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False)",
      "torch.optim.SGD: stochastic gradient descent, with momentum.\n"
      "params: a list of tensors (m.parameters(), [w, b] of leaves with requires_grad) or of\n"
      "param groups, dicts {\"params\": [...], \"lr\": ...} whose keys override the others.\n"
      "opt.step() applies torch's update to each tensor whose .grad is not None, in place (a\n"
      "model's parameter changes the model): g = grad + weight_decay * p; with momentum,\n"
      "buf = momentum * buf + (1 - dampening) * g (buf = g at the first step), and g = buf, or\n"
      "g + momentum * buf with nesterov=True; p -= lr * g. opt.zero_grad() sets every .grad to\n"
      "None (set_to_none=False: zeros). The groups are opt.param_groups, live dicts: a schedule\n"
      "writes for g in opt.param_groups: g[\"lr\"] = lr (opt.param_groups[0][\"lr\"] = lr is no\n"
      "statement here: g = opt.param_groups[0] first). print(opt) shows torch's repr.",
      fn_sgd },
    { "Adam", "Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)",
      "torch.optim.Adam: adaptive moments, weight decay added to the gradient.\n"
      "t += 1; g = grad + weight_decay * p; m = beta1 m + (1 - beta1) g;\n"
      "v = beta2 v + (1 - beta2) g^2; p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t)\n"
      "+ eps), per tensor (its own t). params, param groups, step, zero_grad and param_groups as\n"
      "SGD's (help SGD).",
      fn_adam },
    { "AdamW", "AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)",
      "torch.optim.AdamW: Adam with decoupled weight decay (nanoGPT's).\n"
      "p *= 1 - lr * weight_decay, then Adam's step on the gradient itself (help Adam).\n"
      "nanoGPT's groups: decay the matrices only,\n"
      "  opt = torch.optim.AdamW([{\"params\": [p for p in m.parameters() if p.dim() >= 2],\n"
      "      \"weight_decay\": 0.1}, {\"params\": [p for p in m.parameters() if p.dim() < 2],\n"
      "      \"weight_decay\": 0.0}], lr=1e-3, betas=(0.9, 0.95))",
      fn_adamw },
    { "clip_grad_norm_", "clip_grad_norm_(parameters, max_norm, norm_type=2, error_if_nonfinite=False)",
      "torch.nn.utils.clip_grad_norm_: clip the gradients' total norm.\n"
      "The total norm is the norm of every .grad (None ones left out) taken together; when it\n"
      "exceeds max_norm each gradient is multiplied by max_norm / (total + 1e-6), in place.\n"
      "Returns the total norm before clipping, as torch (a number here).",
      fn_clip_grad_norm },
    { NULL, NULL, NULL, NULL },
};
