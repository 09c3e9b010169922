/* functions_nn.c - the torch forms a lecturer types to write a block by hand (RMSNorm, SwiGLU,
 * RoPE, attention) as in a PyTorch notebook: F.relu, torch.rsqrt, torch.outer, torch.full,
 * torch.isclose, x.cpu() / x.to("cpu"), F.layer_norm, F.rms_norm and
 * F.scaled_dot_product_attention, with torch's signatures and defaults. The differentiable ones
 * are compositions of graph ops (core/ops.h, core/ops_math.h, nn/nn.h) through repl/autograd.h,
 * so their gradients are those ops' own.
 */
#include "repl/functions_math.h"
#include "repl/autograd.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include "core/rng.h"
#include "nn/nn.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Value v (an argument, positional or keyword, standing at pos) as a tensor: a number or list
 * converted (freed after the call). NULL + error at pos. */
static bl_tensor *as_tensor_value(bl_callargs *a, bl_value *v, bl_pos pos)
{
    if (v->kind == BL_V_TENSOR) return v->t;
    if (a->ntmp == 16) return BL_FAILP("%s: too many arguments", a->fname);
    bl_tensor *t = bl_val_to_tensor(v, a->fname);
    if (!t) return (bl_session_errat(a->s, pos), (bl_tensor *)NULL);
    a->tmp[a->ntmp++] = t;
    return t;
}

/* relu(x) = max(x, 0) (F.relu, torch.relu, x.relu()): x with its elements <= 0 set to 0; the
 * gradient passes where x > 0 (relu'(0) = 0, as torch's threshold_backward). */
static bl_value *f_relu(bl_callargs *a)
{
    int inplace;
    if (bl_nargs(a, 1, 1) < 0 || bl_kw_bool(a, "inplace", 0, &inplace) < 0) return NULL;
    if (inplace) return BL_FAILP("relu: inplace=True is not supported (x = F.relu(x) does the same)");
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_ag ag;
    bl_graph *g = x ? bl_ag_begin(&ag, a) : NULL;
    if (!g) return NULL;
    /* the constant 0 lives as long as the ops that read it: bl_ag_const gives the tensor itself
     * when nothing records (a helper's local tensor was read after its scope, ASan) */
    float zero = 0;
    bl_tensor zt = { .data = &zero, .ndim = 0, .numel = 1 };
    bl_tensor *xin = bl_ag_in(&ag, a->v[0], x), *z = xin ? bl_ag_const(&ag, &zt) : NULL;
    bl_tensor *le = z ? bl_binary_op(g, BL_LE, xin, z) : NULL;
    return bl_ag_end(&ag, le ? bl_masked_fill(g, xin, le, 0) : NULL);
}

/* rsqrt(x) = 1 / sqrt(x) (torch.rsqrt): x^-0.5, rsqrt(0) = inf, rsqrt(-1) = nan. */
static bl_value *f_rsqrt(bl_callargs *a)
{
    if (bl_nargs(a, 1, 1) < 0) return NULL;
    bl_value *v = a->v[0];
    if ((v->kind == BL_V_NUM || v->kind == BL_V_BOOL) && !bl_val_needs_grad(v)) return bl_val_num(1 / sqrt(v->num));
    bl_tensor *x = bl_arg_tensor(a, 0);
    bl_ag ag;
    bl_graph *g = x ? bl_ag_begin(&ag, a) : NULL;
    if (!g) return NULL;
    x = bl_ag_in(&ag, v, x);
    return bl_ag_end(&ag, x ? bl_pow_scalar(g, x, -0.5f) : NULL);
}

/* outer(a, b) (torch.outer): a [n] and b [m] -> [n, m], a_i b_j. */
static bl_value *f_outer(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *y = x ? bl_arg_tensor(a, 1) : NULL;
    if (!y) return NULL;
    for (int i = 0; i < 2; i++) {
        const bl_tensor *t = i ? y : x;
        if (t->ndim != 1) {
            bl_fail("outer: expected 1-D tensors, got a %d-D %s (torch.outer(a, b) of a [n] and b [m] gives [n, m])",
                    t->ndim, i ? "b" : "a");
            return (bl_session_errat(a->s, a->vpos[i]), (bl_value *)NULL);
        }
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    bl_tensor *xi = bl_ag_in(&ag, a->v[0], x), *yi = xi ? bl_ag_in(&ag, a->v[1], y) : NULL;
    bl_tensor *col = yi ? bl_graph_view(g, xi, 2, (int[]){ x->shape[0], 1 }) : NULL;
    bl_tensor *row = col ? bl_graph_view(g, yi, 2, (int[]){ 1, y->shape[0] }) : NULL;
    return bl_ag_end(&ag, row ? bl_binary_op(g, BL_MUL, col, row) : NULL);
}

/* full(size, fill_value, grad=off) (torch.full): a tensor of the shape size (a tuple or list)
 * holding fill_value everywhere. */
static bl_value *f_full(bl_callargs *a)
{
    double fill;
    int nd, shape[BL_MAXDIM];
    bl_value *fv = bl_kw(a, "fill_value");
    if (bl_nargs(a, fv ? 1 : 2, fv ? 1 : 2) < 0) return NULL;
    if (a->v[0]->kind != BL_V_LIST) {
        bl_fail("full: size must be a tuple or list of sizes, e.g. full((2, 3), 0.5), got a %s",
                bl_val_kind_name(a->v[0]));
        return (bl_session_errat(a->s, a->vpos[0]), (bl_value *)NULL);
    }
    int n = a->n;
    a->n = 1;       /* the shape is argument 0 alone */
    int rc = bl_shape_args(a, 0, &nd, shape, 0);
    a->n = n;
    if (rc < 0 || (fv ? bl_kw_num(a, "fill_value", 0, &fill) : bl_arg_num(a, 1, &fill)) < 0) return NULL;
    bl_tensor *t = bl_tensor_new(nd, shape);
    if (!t) return NULL;
    bl_tensor_fill(t, (float)fill);
    return bl_ag_leaf(a, bl_val_tensor(t));
}

/* isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False) (torch.isclose): the 0/1 mask of
 * |a - b| <= atol + rtol |b| (shapes broadcast), equal infinities close, NaN close to NaN only with
 * equal_nan. No gradient (torch's is a bool tensor). */
static bl_value *f_isclose(bl_callargs *a)
{
    double rtol, atol;
    int eqnan, nd, shape[BL_MAXDIM];
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0), *y = x ? bl_arg_tensor(a, 1) : NULL;
    if (!y || bl_kw_num(a, "rtol", 1e-5, &rtol) < 0 || bl_kw_num(a, "atol", 1e-8, &atol) < 0 ||
        bl_kw_bool(a, "equal_nan", 0, &eqnan) < 0) return NULL;
    if (!(rtol >= 0) || !(atol >= 0))
        return BL_FAILP("isclose: rtol and atol must be >= 0, got rtol=%g, atol=%g", rtol, atol);
    if (bl_broadcast_shape("isclose", x, y, &nd, shape) < 0) return NULL;
    bl_tensor *z = bl_tensor_new(nd, shape);    /* x + 0 and y + 0: both at the broadcast shape */
    bl_tensor *ex = z ? bl_binary(BL_ADD, x, z) : NULL, *ey = ex ? bl_binary(BL_ADD, y, z) : NULL;
    if (ey)
        for (size_t i = 0; i < z->numel; i++) {
            float p = ex->data[i], q = ey->data[i];
            int c = p == q || (eqnan && isnan(p) && isnan(q));
            if (!c && isfinite(p) && isfinite(q)) c = fabsf(p - q) <= (float)atol + (float)rtol * fabsf(q);
            z->data[i] = (float)c;
        }
    bl_tensor_free(ex);
    bl_tensor_free(ey);
    if (!ey) {
        bl_tensor_free(z);
        return NULL;
    }
    bl_value *r = bl_val_tensor(z);
    if (r && r->kind == BL_V_TENSOR) r->is_mask = 1;
    return r;
}

/* The device a string names: 0 for the CPU, -1 + error for any other. */
static int device_arg(bl_callargs *a, bl_value *d, bl_pos pos)
{
    if (d->kind != BL_V_STR) {
        bl_fail("%s: blocklab's tensors are float32 on the CPU; give the device as a string, x.to(\"cpu\"), "
                "got a %s", a->fname, bl_val_kind_name(d));
        return bl_session_errat(a->s, pos);
    }
    if (!strcmp(d->str, "cpu") || !strcmp(d->str, "cpu:0")) return 0;
    bl_fail("%s: blocklab runs on the CPU only: no device '%s' (x.to(\"cpu\") and x.cpu() give x itself)",
            a->fname, d->str);
    return bl_session_errat(a->s, pos);
}

/* x.cpu(), x.to("cpu"), x.to(device="cpu") (torch.Tensor.cpu / .to): x itself, as torch returns
 * self for a tensor already there (a leaf stays a leaf); x.cuda() and other devices: an error. */
static bl_value *f_device(bl_callargs *a)
{
    int to = !strcmp(a->fname, "to");
    bl_value *dk = to ? bl_kw(a, "device") : NULL;
    if (bl_nargs(a, 1, to && !dk ? 2 : 1) < 0) return NULL;
    if (a->v[0]->kind != BL_V_TENSOR) {
        bl_fail("%s: x.%s(...) moves a tensor, got a %s", a->fname, a->fname, bl_val_kind_name(a->v[0]));
        return (bl_session_errat(a->s, a->vpos[0]), (bl_value *)NULL);
    }
    if (!strcmp(a->fname, "cuda"))
        return BL_FAILP("cuda: blocklab runs on the CPU only (torch.cuda.is_available() would be False; x.cpu() "
                        "gives x itself)");
    /* x.to(torch.long), x.to(dtype=torch.bool): the conversion x.long() / x.bool() make (a copy
     * without gradient; a float dtype gives x itself, as torch for a tensor already float32) */
    bl_value *dt = to ? bl_kw(a, "dtype") : NULL;
    if (!dt && to && !dk && a->n == 2 && bl_dtype_of(a->v[1]) >= 0) dt = a->v[1];
    if (dt) {
        int kind = bl_dtype_of(dt);
        if (kind < 0) return BL_FAILP("to: dtype= takes torch's dtypes (torch.float32, torch.long, torch.bool, ...)");
        if (kind == 0)      /* float32 already; a bool tensor becomes a float one (no mask) */
            return a->v[0]->is_mask ? bl_val_tensor(bl_tensor_copy(a->v[0]->t)) : bl_val_ref(a->v[0]);
        return bl_dtype_apply(bl_val_tensor(bl_tensor_copy(a->v[0]->t)), kind);
    }
    if (to && !dk && a->n < 2) return BL_FAILP("to: give the device, x.to(\"cpu\")");
    bl_pos at = to && !dk ? a->vpos[1] : a->pos;
    for (int j = 0; dk && j < a->nk; j++)
        if (!strcmp(a->key[j], "device")) at = a->kpos[j];
    if (to && device_arg(a, dk ? dk : a->v[1], at) < 0) return NULL;
    return bl_val_ref(a->v[0]);
}

/* dropout(input, p=0.5, training=True, inplace=False) (F.dropout): each element zeroed with
 * probability p, the others scaled by 1 / (1 - p), so the expectation is the input's (the
 * inverted dropout of Srivastava et al. 2014 as torch implements it); the gradient is the same
 * mask times 1 / (1 - p). The draws come from the session's generator (torch.manual_seed), so
 * they are not torch's. training=False (or p = 0) returns the input itself; p = 1 zeros. */
static bl_value *f_dropout(bl_callargs *a)
{
    static const char *const names[] = { "input", "p", "training", "inplace" };
    bl_value *v[4];
    bl_pos pos[4];
    if (bl_pos_or_kw(a, names, 4, v, pos) < 0) return NULL;
    if (!v[0]) return BL_FAILP("dropout: needs input");
    double p = 0.5;
    int training = 1;
    if (v[1] && (v[1]->kind != BL_V_NUM || !(v[1]->num >= 0 && v[1]->num <= 1))) {
        if (v[1]->kind == BL_V_NUM) bl_fail("dropout: dropout probability has to be between 0 and 1, but got %g", v[1]->num);
        else bl_fail("dropout: p is a probability between 0 and 1, not a %s", bl_val_kind_name(v[1]));
        return (bl_session_errat(a->s, pos[1]), (bl_value *)NULL);
    }
    if (v[1]) p = v[1]->num;
    if (v[2] && (training = bl_val_truth(v[2])) < 0) {
        bl_error_prefix("dropout: training=");
        return (bl_session_errat(a->s, pos[2]), (bl_value *)NULL);
    }
    if (v[3] && bl_val_truth(v[3]) != 0) {
        bl_fail("dropout: inplace=True is not supported (x = F.dropout(x, p) does the same)");
        return (bl_session_errat(a->s, pos[3]), (bl_value *)NULL);
    }
    bl_tensor *x = as_tensor_value(a, v[0], pos[0]);
    if (!x) return NULL;
    if (!training || p == 0) return v[0]->kind == BL_V_TENSOR ? bl_val_ref(v[0]) : bl_val_tensor(bl_tensor_copy(x));
    bl_tensor *mask = bl_tensor_new(x->ndim, x->shape);
    if (!mask) return BL_FAILP("dropout: out of memory");
    float keep = p < 1 ? (float)(1 / (1 - p)) : 0;
    for (size_t i = 0; i < mask->numel; i++) mask->data[i] = bl_rng_uniform(&a->s->rng) < p ? 0 : keep;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *xin = g ? bl_ag_in(&ag, v[0], x) : NULL, *m = xin ? bl_ag_const(&ag, mask) : NULL;
    bl_value *r = bl_ag_end(&ag, m ? bl_binary_op(g, BL_MUL, xin, m) : NULL);
    bl_tensor_free(mask);
    return r;
}

/* normalized_shape (an int, or a tuple or list of ints) against x: the number k of x's last
 * dimensions it names (they must be equal), or -1 + error. */
static int norm_shape(bl_callargs *a, const bl_tensor *x, bl_value *ns, bl_pos pos)
{
    int n = ns->kind == BL_V_LIST ? ns->n : 1, ok = n >= 1 && n <= x->ndim;
    for (int i = 0; ok && i < n; i++) {
        bl_value *v = ns->kind == BL_V_LIST ? ns->items[i] : ns;
        ok = v->kind == BL_V_NUM && v->num == x->shape[x->ndim - n + i];
    }
    if (ok) return n;
    char xs[64], want[64] = "";
    int at = 0;
    for (int i = 0; ns->kind == BL_V_LIST && i < ns->n && at < 50; i++)
        at += snprintf(want + at, sizeof want - (size_t)at, "%s%g", i ? ", " : "",
                       ns->items[i]->kind == BL_V_NUM ? ns->items[i]->num : NAN);
    if (ns->kind == BL_V_NUM) snprintf(want, sizeof want, "%g", ns->num);
    if (ns->kind != BL_V_LIST && ns->kind != BL_V_NUM)
        bl_fail("%s: normalized_shape must be an int or a tuple of ints (the last dims of input), got a %s", a->fname,
                bl_val_kind_name(ns));
    else
        bl_fail("%s: normalized_shape [%s] must be the last dimension%s of input %s (e.g. (%d,))", a->fname, want,
                BL_PLURAL(n), bl_shape_str(x, xs, sizeof xs), x->ndim ? x->shape[x->ndim - 1] : 1);
    return bl_session_errat(a->s, pos);
}

/* F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) and
 * F.rms_norm(input, normalized_shape, weight=None, eps=None) (torch 2.4; eps None is float32's
 * machine epsilon, torch.finfo(torch.float32).eps): over the last dims normalized_shape names,
 * as blocklab's layernorm / rmsnorm over those dims viewed as one (weight and bias of
 * normalized_shape's shape). */
static bl_value *f_torch_norm(bl_callargs *a)
{
    int ln = a->fname[0] == 'l', np = ln ? 5 : 4;
    static const char *const lnames[] = { "input", "normalized_shape", "weight", "bias", "eps" };
    static const char *const rnames[] = { "input", "normalized_shape", "weight", "eps" };
    const char *const *names = ln ? lnames : rnames;
    bl_value *v[5];
    bl_pos pos[5];
    if (bl_pos_or_kw(a, names, np, v, pos) < 0) return NULL;
    if (!v[0] || !v[1])
        return BL_FAILP("%s: needs input and normalized_shape (%s)", a->fname,
                        ln ? "F.layer_norm(x, (D,), weight, bias, eps=1e-5)" : "F.rms_norm(x, (D,), weight, eps=None)");
    bl_value *ev = v[np - 1];
    double eps = ln ? 1e-5 : FLT_EPSILON;
    if (ev && (ev->kind != BL_V_NUM || !(ev->num >= 0))) {
        bl_fail("%s: eps must be a number >= 0", a->fname);
        return (bl_session_errat(a->s, pos[np - 1]), (bl_value *)NULL);
    }
    if (ev) eps = ev->num;
    bl_tensor *x = as_tensor_value(a, v[0], pos[0]);
    int k = x ? norm_shape(a, x, v[1], pos[1]) : -1;
    if (k < 0) return NULL;
    int D = 1, nd = x->ndim - k + 1, shape[BL_MAXDIM];
    for (int i = 0; i < x->ndim; i++) {
        if (i < x->ndim - k) shape[i] = x->shape[i];
        else D *= x->shape[i];
    }
    shape[nd - 1] = D;
    bl_tensor *w[2] = { NULL, NULL };
    for (int i = 0; i < (ln ? 2 : 1); i++) {
        if (!v[2 + i]) continue;
        if (!(w[i] = as_tensor_value(a, v[2 + i], pos[2 + i]))) return NULL;
        int same = w[i]->ndim == k;
        for (int d = 0; same && d < k; d++) same = w[i]->shape[d] == x->shape[x->ndim - k + d];
        if (!same) {
            char ws[64], xs[64];
            bl_fail("%s: %s %s must have normalized_shape's shape, the last %d dim%s of input %s", a->fname,
                    names[2 + i], bl_shape_str(w[i], ws, sizeof ws), k, BL_PLURAL(k), bl_shape_str(x, xs, sizeof xs));
            return (bl_session_errat(a->s, pos[2 + i]), (bl_value *)NULL);
        }
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    if (!g) return NULL;
    bl_tensor *xi = bl_ag_in(&ag, v[0], x), *wi[2] = { NULL, NULL };
    for (int i = 0; i < 2; i++)
        if (w[i]) wi[i] = bl_ag_in(&ag, v[2 + i], w[i]);
    bl_tensor *xv = xi ? bl_graph_view(g, xi, nd, shape) : NULL;
    for (int i = 0; i < 2; i++)
        if (wi[i]) wi[i] = bl_graph_view(g, wi[i], 1, &D);
    bl_tensor *y = !xv ? NULL : ln ? bl_layernorm(g, xv, wi[0], wi[1], (float)eps) : bl_rmsnorm(g, xv, wi[0], (float)eps);
    return bl_ag_end(&ag, y ? bl_graph_view(g, y, x->ndim, x->shape) : NULL);
}

/* F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
 * is_causal=False, scale=None) as torch 2's documented reference: softmax(q k^T * scale + bias) v,
 * scale 1/sqrt(E) by default; is_causal hides key s from query l where s > l (top-left aligned,
 * tril(ones(L, S))); a boolean attn_mask (a comparison, .bool(), True/False) hides the keys where
 * it is False (-inf), any other attn_mask is added to the scores. Composed of graph ops (transpose,
 * matmul, scale, masked_fill / add, softmax, matmul), so gradients reach q, k, v and a float mask.
 * A query that sees no key gets nan, as torch's reference. */
static bl_value *f_sdpa(bl_callargs *a)
{
    static const char *const names[] = { "query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale" };
    bl_value *v[7];
    bl_pos pos[7];
    if (bl_pos_or_kw(a, names, 7, v, pos) < 0) return NULL;
    for (int i = 0; i < 3; i++)
        if (!v[i]) return BL_FAILP("scaled_dot_product_attention: needs query, key and value (%s missing)", names[i]);
    bl_tensor *t[4] = { NULL, NULL, NULL, NULL };
    for (int i = 0; i < 4; i++)
        if (v[i] && !(t[i] = as_tensor_value(a, v[i], pos[i]))) return NULL;
    char s0[64], s1[64], s2[64];
    const bl_tensor *q = t[0], *k = t[1], *vv = t[2];
    if (q->ndim < 2 || k->ndim != q->ndim || vv->ndim != q->ndim) {
        bl_fail("scaled_dot_product_attention: query [..., L, E], key [..., S, E] and value [..., S, Ev] need 2 to 4 "
                "dims, as many each; got %s, %s, %s", bl_shape_str(q, s0, sizeof s0), bl_shape_str(k, s1, sizeof s1),
                bl_shape_str(vv, s2, sizeof s2));
        return (bl_session_errat(a->s, pos[q->ndim < 2 ? 0 : k->ndim != q->ndim ? 1 : 2]), (bl_value *)NULL);
    }
    int nd = q->ndim, L = q->shape[nd - 2], E = q->shape[nd - 1], S = k->shape[nd - 2], bad = -1;
    for (int d = 0; d < nd - 2 && bad < 0; d++)
        if (k->shape[d] != q->shape[d]) bad = 1;
        else if (vv->shape[d] != q->shape[d]) bad = 2;
    if (bad < 0 && k->shape[nd - 1] != E) bad = 1;
    if (bad < 0 && vv->shape[nd - 2] != S) bad = 2;
    if (bad >= 0) {
        bl_fail("scaled_dot_product_attention: query %s, key %s and value %s do not fit: key must be [..., S, %d] and "
                "value [..., S, Ev] with query's leading dims", bl_shape_str(q, s0, sizeof s0),
                bl_shape_str(k, s1, sizeof s1), bl_shape_str(vv, s2, sizeof s2), E);
        return (bl_session_errat(a->s, pos[bad]), (bl_value *)NULL);
    }
    double scale = 1 / sqrt((double)E);
    int causal = 0;
    if (v[4] && (v[4]->kind != BL_V_NUM || v[4]->num != 0)) {
        bl_fail("scaled_dot_product_attention: dropout_p must be 0 here (blocklab's attention has no dropout; "
                "drop the weights by hand if you need it)");
        return (bl_session_errat(a->s, pos[4]), (bl_value *)NULL);
    }
    if (v[5]) {
        if (v[5]->kind != BL_V_BOOL && v[5]->kind != BL_V_NUM) {
            bl_fail("scaled_dot_product_attention: is_causal must be True or False, got a %s", bl_val_kind_name(v[5]));
            return (bl_session_errat(a->s, pos[5]), (bl_value *)NULL);
        }
        causal = v[5]->num != 0;
    }
    if (v[6]) {
        if (v[6]->kind != BL_V_NUM) {
            bl_fail("scaled_dot_product_attention: scale must be a number, got a %s", bl_val_kind_name(v[6]));
            return (bl_session_errat(a->s, pos[6]), (bl_value *)NULL);
        }
        scale = v[6]->num;
    }
    bl_tensor *m = t[3];
    int boolmask = m && v[3]->kind == BL_V_TENSOR ? v[3]->is_mask : 0;
    if (causal && m) {
        bl_fail("scaled_dot_product_attention: is_causal=True takes no attn_mask (torch refuses both; put the causal "
                "mask into attn_mask)");
        return (bl_session_errat(a->s, pos[3]), (bl_value *)NULL);
    }
    if (m) {    /* the mask broadcasts to the scores [..., L, S] without growing them */
        int snd = 0, sshape[BL_MAXDIM], ok = m->ndim <= nd;
        bl_tensor sc = { .ndim = nd };
        for (int d = 0; d < nd; d++) sc.shape[d] = d < nd - 2 ? q->shape[d] : d == nd - 2 ? L : S;
        ok = ok && bl_broadcast_shape("scaled_dot_product_attention", m, &sc, &snd, sshape) == 0 && snd == nd &&
             !memcmp(sshape, sc.shape, sizeof(int) * (size_t)nd);
        if (!ok) {
            bl_fail("scaled_dot_product_attention: attn_mask %s must broadcast to the scores %s ([..., L, S])",
                    bl_shape_str(m, s0, sizeof s0), bl_shape_str(&sc, s1, sizeof s1));
            return (bl_session_errat(a->s, pos[3]), (bl_value *)NULL);
        }
    }
    if (boolmask && bl_ag_refuse(a->s, "scaled_dot_product_attention: a boolean attn_mask", 1, &v[3]) < 0)
        return (bl_session_errat(a->s, pos[3]), (bl_value *)NULL);
    /* the keys hidden (1 = hidden): not the boolean mask, or s > l when causal */
    bl_tensor *hide = NULL;
    if (boolmask) {
        hide = bl_tensor_new(m->ndim, m->shape);
        for (size_t i = 0; hide && i < m->numel; i++) hide->data[i] = m->data[i] == 0;
    } else if (causal) {
        hide = bl_tensor_new(2, (int[]){ L, S });
        for (int l = 0; hide && l < L; l++)
            for (int s = 0; s < S; s++) hide->data[(size_t)l * S + s] = s > l;
    }
    if ((boolmask || causal) && !hide) return NULL;
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *in[3] = { NULL, NULL, NULL }, *y = NULL;
    for (int i = 0; g && i < 3; i++) in[i] = bl_ag_in(&ag, v[i], t[i]);
    if (in[0] && in[1] && in[2]) {
        bl_tensor *kt = bl_transpose(g, in[1], -2, -1);
        bl_tensor *sc = kt ? bl_matmul(g, in[0], kt) : NULL;
        sc = sc ? bl_scale(g, sc, (float)scale) : NULL;
        if (sc && hide) {
            bl_tensor *h = bl_ag_const(&ag, hide);
            sc = h ? bl_masked_fill(g, sc, h, -INFINITY) : NULL;
        } else if (sc && m) {
            bl_tensor *mi = bl_ag_in(&ag, v[3], m);
            sc = mi ? bl_binary_op(g, BL_ADD, sc, mi) : NULL;
        }
        bl_tensor *pr = sc ? bl_softmax(g, sc) : NULL;
        y = pr ? bl_matmul(g, pr, in[2]) : NULL;
    }
    bl_value *r = g ? bl_ag_end(&ag, y) : NULL;
    bl_tensor_free(hide);
    return r;
}

const bl_function bl_nn_functions[] = {
    { "relu", "relu(x)",
      "max(x, 0) elementwise (F.relu, torch.relu, x.relu()). The gradient passes where x > 0\n"
      "(relu'(0) = 0, as torch's).", f_relu },
    { "rsqrt", "rsqrt(x)", "1 / sqrt(x) elementwise (torch.rsqrt): rsqrt(0) = inf, rsqrt(-1) = nan.\n"
      "RMSNorm by hand: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.", f_rsqrt },
    { "outer", "outer(a, b)", "The outer product of a [n] and b [m]: [n, m] with a_i b_j (torch.outer).\n"
      "RoPE's angles by hand: torch.outer(torch.arange(T), inv_freq).", f_outer },
    { "full", "full(size, fill_value, grad=off)",
      "A tensor of the shape size (a tuple) full of fill_value (torch.full).\n"
      "size may be a list too; torch.full((T, T), float(\"-inf\")).triu(1) is an additive\n"
      "causal mask.", f_full },
    { "isclose", "isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False)",
      "The 0/1 mask of |a - b| <= atol + rtol |b|, elementwise (torch.isclose).\n"
      "Shapes broadcast; equal infinities are close; NaN is close to NaN only with\n"
      "equal_nan=True. The defaults are torch's, tighter than allclose's here (1e-4, 1e-5).", f_isclose },
    { "cpu", "cpu(x)",
      "x itself (torch's x.cpu()): blocklab computes on the CPU only.\n"
      "A notebook's .cpu() and .to(\"cpu\") keep the tensor (and its gradient), as torch does\n"
      "for a tensor already on the CPU.", f_device },
    { "to", "to(x, device_or_dtype)",
      "x itself for x.to(\"cpu\") or device=\"cpu\" (torch returns self there).\n"
      "Any other device (\"cuda\", \"mps\") is an error: blocklab runs on the CPU only.\n"
      "x.to(torch.long) or dtype=torch.bool convert as x.long() / x.bool() (a copy without\n"
      "gradient); a float dtype gives x itself (tensors are float32).", f_device },
    { "cuda", "cuda(x)", "x.cuda(): an error, blocklab runs on the CPU only (x.cpu() is x).", f_device },
    { "layer_norm", "layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5)",
      "F.layer_norm: LayerNorm over the last dims that normalized_shape names.\n"
      "normalized_shape is an int or a tuple equal to them ((D,) for x [B, T, D]); weight and\n"
      "bias have its shape. As layernorm(x, w=, b=) over those dims viewed as one.", f_torch_norm },
    { "rms_norm", "rms_norm(input, normalized_shape, weight=None, eps=None)",
      "F.rms_norm (torch 2.4): RMSNorm over the dims normalized_shape names.\n"
      "x / sqrt(mean(x^2) + eps) * weight over input's last dims, as rmsnorm(x, w=) over them.\n"
      "eps=None is float32's machine epsilon 1.1920929e-07 (torch.finfo(torch.float32).eps),\n"
      "unlike rmsnorm's 1e-6.", f_torch_norm },
    { "scaled_dot_product_attention", "scaled_dot_product_attention(q, k, v, attn_mask=, is_causal=False, scale=)",
      "Attention as torch 2's F.scaled_dot_product_attention computes it.\n"
      "softmax(q k^T * scale + bias) v, as its reference implementation; torch's signature is\n"
      "(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None).\n"
      "query [..., L, E], key [..., S, E], value [..., S, Ev] (2 to 4 dims, equal leading\n"
      "ones) -> [..., L, Ev]. scale defaults to 1/sqrt(E). is_causal=True lets query l see\n"
      "keys s <= l (top-left, tril(ones(L, S)); attention(causal=on) aligns bottom-right).\n"
      "attn_mask broadcasts to [..., L, S]: a boolean one (a comparison, .bool(), True/False)\n"
      "lets a query see the keys where it is True; any other is added to the scores (a float\n"
      "0/1 mask too, as torch's). A query that sees no key gives nan, as torch. dropout_p\n"
      "must be 0. Gradients reach query, key, value and a float attn_mask.", f_sdpa },
    { "dropout", "dropout(input, p=0.5, training=True, inplace=False)",
      "F.dropout: each element zeroed with probability p, the rest * 1/(1-p).\n"
      "The gradient is the same mask times 1/(1-p). The draws come from the session's\n"
      "generator (torch.manual_seed), so they are not torch's. training=False or p=0 give the\n"
      "input itself, p=1 zeros; inplace=True is refused. A model's own dropout is set dropout=P.",
      f_dropout },
    { NULL, NULL, NULL, NULL },
};
