/* functions_loss.c - the loss functions of the language on tensors the user holds:
 * cross_entropy and mse_loss, with the semantics of torch.nn.functional's of the same name
 * (F.cross_entropy with class-index targets, F.mse_loss), differentiable at the prompt
 * (repl/autograd.h) through the training graph's own kernels (core/ops.h bl_cross_entropy,
 * bl_mse), so a loss written at the prompt is the loss the models train with. */
#include "repl/autograd.h"
#include "core/error.h"
#include "core/fmt.h"
#include "core/ops.h"
#include "core/ops_math.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { RED_MEAN, RED_SUM, RED_NONE } reduction;

/* reduction="mean"|"sum"|"none" (torch's reduction=), mean by default; -1 + error otherwise. */
static int reduction_kw(bl_callargs *a, reduction *r)
{
    static const char *const names[] = { "mean", "sum", "none" };
    bl_value *v = bl_kw(a, "reduction");
    *r = RED_MEAN;
    if (!v) return 0;
    for (int i = 0; v->kind == BL_V_STR && i < 3; i++)
        if (!strcmp(v->str, names[i])) return (int)(*r = (reduction)i), 0;
    bl_fail("%s: reduction must be \"mean\", \"sum\" or \"none\", got %s%s%s", a->fname,
            v->kind == BL_V_STR ? "\"" : "a ", v->kind == BL_V_STR ? v->str : bl_val_kind_name(v),
            v->kind == BL_V_STR ? "\"" : "");
    return -1;
}

/* The targets of cross_entropy: whole numbers in [0, C) or ignore_index, one per row of the
 * logits; written to ids (rows ints, -1 for an ignored row, as bl_cross_entropy takes them).
 * Returns the number of rows counted, or -1 + error naming the element. */
static int class_targets(bl_callargs *a, const bl_tensor *y, size_t rows, int C, long ignore, int *ids)
{
    int count = 0;
    for (size_t r = 0; r < rows; r++) {
        float t = y->data[r];
        if (t == (float)ignore) {
            ids[r] = -1;
            continue;
        }
        if (!(t == floorf(t) && t >= 0 && t < C)) {
            bl_fail("cross_entropy: target %g at element %zu is not a class index from 0 to %d%s", (double)t, r,
                    C - 1, ignore == -100 ? "" : " or ignore_index");
            return -1;
        }
        ids[r] = (int)t;
        count++;
    }
    return count;
}

/* reduction="none" of cross-entropy: per row logsumexp(z) - z[target] (0 for an ignored row),
 * as graph ops so the gradient is the ops' own: with d = z - m (m the row max, whose gradient
 * sums to 0 over the row), log(sum(exp(d))) - sum(d * onehot). */
static bl_tensor *ce_rows(bl_graph *g, bl_tensor *z, const int *ids, int rows, int C)
{
    bl_tensor *idx = bl_graph_tensor(g, 1, (int[]){ rows }, 0), *keep = idx ? bl_graph_tensor(g, 1, (int[]){ rows }, 0) : NULL;
    if (!keep) return NULL;
    for (int r = 0; r < rows; r++) {
        idx->data[r] = ids[r] < 0 ? 0.0f : (float)ids[r];
        keep->data[r] = ids[r] < 0 ? 0.0f : 1.0f;
    }
    bl_tensor *m = bl_reduce_op(g, BL_MAX, z, -1, 1), *d = m ? bl_binary_op(g, BL_SUB, z, m) : NULL;
    bl_tensor *s = d ? bl_reduce_op(g, BL_SUM, bl_unary_op(g, BL_EXP, d), -1, 1) : NULL;
    bl_tensor *lse = s ? bl_unary_op(g, BL_LOG, s) : NULL;     /* of d: no m added back and taken */
    bl_tensor *oh = lse ? bl_one_hot(g, idx, C) : NULL;       /* away again (1e5 + log 2 rounds) */
    bl_tensor *pick = oh ? bl_reduce_op(g, BL_SUM, bl_binary_op(g, BL_MUL, d, oh), -1, 1) : NULL;
    bl_tensor *l = pick ? bl_binary_op(g, BL_SUB, lse, pick) : NULL;
    l = l ? bl_graph_view(g, l, 1, (int[]){ rows }) : NULL;
    return l ? bl_binary_op(g, BL_MUL, l, keep) : NULL;
}

/* cross_entropy(input, target, ignore_index=-100, reduction="mean"): input logits [N, C] (or [C]
 * with one target), target [N] of class indices (whole numbers in [0, C)); the mean over the rows
 * not ignored of logsumexp(input[n]) - input[n, target[n]] (F.cross_entropy). A mean over no row is
 * nan, as torch's. */
static bl_value *f_cross_entropy(bl_callargs *a)
{
    long ignore;
    reduction red;
    if (bl_nargs(a, 2, 2) < 0 || bl_kw_int(a, "ignore_index", -100, -1000000000L, 1000000000L, &ignore) < 0 ||
        reduction_kw(a, &red) < 0)
        return NULL;
    bl_value *lw = bl_kw(a, "label_smoothing");
    double ls = 0;
    if (lw && (bl_kw_num(a, "label_smoothing", 0, &ls) < 0 || ls != 0)) {
        if (ls != 0) bl_fail("cross_entropy: label_smoothing is not supported (only 0)");
        return NULL;
    }
    if (bl_ag_refuse(a->s, "cross_entropy: the target (class indices take no gradient)", 1, &a->v[1]) < 0) {
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_tensor *z = bl_arg_tensor(a, 0), *y = z ? bl_arg_tensor(a, 1) : NULL;
    if (!y) return NULL;
    char s1[64], s2[64];
    int batched = z->ndim == 2;
    if (!(z->ndim == 1 || batched)) {
        bl_fail("cross_entropy: input must be logits [N, C] (or [C]), got %s; for a model's [B, T, V] write "
                "cross_entropy(logits.view(-1, V), targets.view(-1)) as nanoGPT does",
                bl_shape_str(z, s1, sizeof s1));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    int rows = batched ? z->shape[0] : 1, C = z->shape[z->ndim - 1];
    if (y->numel != (size_t)rows || (batched ? y->ndim != 1 : y->ndim > 1)) {
        if (y->ndim == 2 && batched && y->shape[0] == rows && y->shape[1] == C)
            bl_fail("cross_entropy: class-probability targets [N, C] are not supported; give class indices [%d]", rows);
        else
            bl_fail("cross_entropy: target %s does not match input %s: one class index per row, [%d]%s",
                    bl_shape_str(y, s1, sizeof s1), bl_shape_str(z, s2, sizeof s2), rows,
                    batched ? "" : " or one number");
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    int *ids = g ? bl_graph_alloc(g, (size_t)rows * sizeof *ids) : NULL;   /* kept until backward */
    int count = ids ? class_targets(a, y, (size_t)rows, C, ignore, ids) : -1;
    if (count < 0) {
        bl_ag_end(&ag, NULL);
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_tensor *x = bl_ag_in(&ag, a->v[0], z), *out = NULL;
    if (x && !batched) x = bl_graph_view(g, x, 2, (int[]){ 1, C });
    if (!x) {
    } else if (red == RED_NONE) {
        out = ce_rows(g, x, ids, rows, C);
        if (out && !batched) out = bl_graph_view(g, out, 0, NULL);
    } else {
        out = bl_cross_entropy(g, x, ids);
        if (out && count == 0) out->data[0] = red == RED_SUM ? 0.0f : NAN;   /* torch: 0/0 */
        if (out && red == RED_SUM && count > 1) out = bl_scale(g, out, (float)count);
    }
    return bl_ag_end(&ag, out);
}

/* mse_loss(input, target, reduction="mean"): (input - target)^2 averaged (summed, or kept) over
 * every element; input and target of one shape, or target one number (F.mse_loss). */
static bl_value *f_mse_loss(bl_callargs *a)
{
    reduction red;
    if (bl_nargs(a, 2, 2) < 0 || reduction_kw(a, &red) < 0) return NULL;
    bl_tensor *p = bl_arg_tensor(a, 0), *t = p ? bl_arg_tensor(a, 1) : NULL;
    if (!t) return NULL;
    if (!bl_same_shape(p, t) && t->numel != 1) {
        char s1[64], s2[64];
        bl_fail("mse_loss: input %s and target %s must have the same shape", bl_shape_str(p, s1, sizeof s1),
                bl_shape_str(t, s2, sizeof s2));
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_ag ag;
    bl_graph *g = bl_ag_begin(&ag, a);
    bl_tensor *x = g ? bl_ag_in(&ag, a->v[0], p) : NULL, *y = x ? bl_ag_in(&ag, a->v[1], t) : NULL, *out = NULL;
    if (!y) {
    } else if (red == RED_NONE || !bl_same_shape(x, y)) {
        out = bl_pow_scalar(g, bl_binary_op(g, BL_SUB, x, y), 2.0f);
        if (out && red != RED_NONE) out = bl_reduce_op(g, red == RED_SUM ? BL_SUM : BL_MEAN, out, BL_ALL_DIMS, 0);
    } else {
        out = bl_mse(g, x, y);
        if (out && red == RED_SUM) out = bl_scale(g, out, (float)x->numel);
    }
    return bl_ag_end(&ag, out);
}

const bl_function bl_loss_functions[] = {
    { "cross_entropy", "cross_entropy(input, target, ignore_index=-100, reduction=\"mean\")",
      "F.cross_entropy of logits [N, C] against class indices [N].\n"
      "input [N, C] (or [C] with one target), target [N] whole numbers from 0 to C-1; the mean\n"
      "over the rows of logsumexp(input[n]) - input[n, target[n]], rows whose target is\n"
      "ignore_index left out (none left: nan). reduction=\"sum\" sums them, \"none\" gives\n"
      "the [N] losses, 0 where ignored. Differentiable in input; the kernel TinyGPT trains\n"
      "with. A model's logits [B, T, V]: as nanoGPT,\n"
      "cross_entropy(logits.view(-1, V), targets.view(-1)) equals ce_loss(m, tokens, targets).",
      f_cross_entropy },
    { "mse_loss", "mse_loss(input, target, reduction=\"mean\")",
      "F.mse_loss: the mean of (input - target)^2 over every element.\n"
      "reduction=\"sum\" sums, \"none\" keeps the elementwise squares; target of input's shape\n"
      "or one number. Differentiable in both; the kernel of TinyDiT's flow-matching loss:\n"
      "mse_loss(m(xt, t), noise - x0) equals flow_loss(m, x0, noise, t) for\n"
      "xt = (1 - t) x0 + t noise.",
      f_mse_loss },
    { NULL, NULL, NULL, NULL },
};
