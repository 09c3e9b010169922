/* functions_random.c - torch's random tensors beside randn (functions.c): rand, randint,
 * multinomial. All draw from the session's generator (core/rng.h, PCG32), so `seed N` (and
 * blocklab -s N) makes a script give the same numbers every run; the numbers are not those of
 * torch's generator (Mersenne Twister / Philox), only their distributions are. Results are float
 * tensors of whole numbers where torch gives int64 (blocklab has one dtype).
 */
#include "repl/functions_math.h"
#include "repl/autograd.h"
#include "core/error.h"
#include "core/rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* rand(d0, d1, ...): U[0, 1) of that shape (torch.rand), a leaf with grad=on. */
static bl_value *f_rand(bl_callargs *a)
{
    int nd, shape[BL_MAXDIM];
    if (bl_nargs(a, 1, -1) < 0 || bl_shape_args(a, 0, &nd, shape, 0) < 0) return NULL;
    bl_tensor *t = bl_tensor_new(nd, shape);
    if (!t) return NULL;
    bl_rng_fill_uniform(&a->s->rng, t->data, t->numel, 0, 1);
    return bl_ag_leaf(a, bl_val_tensor(t));
}

/* randint(low=0, high, size): whole numbers uniform in [low, high) of shape size (a list or
 * tuple, torch.randint's; also size=), each by bl_rng_below (no modulo bias). */
static bl_value *f_randint(bl_callargs *a)
{
    long lo = 0, hi;
    int nd = 0, shape[BL_MAXDIM];
    bl_value *size = bl_kw(a, "size");
    int nb = a->n - !size;      /* the bounds given */
    if (size ? bl_nargs(a, 1, 2) < 0 : bl_nargs(a, 2, 3) < 0) return NULL;
    if (nb == 2 && bl_arg_int(a, 0, -16777216L, 16777216L, &lo) < 0) return NULL;
    if (bl_arg_int(a, nb - 1, -16777216L, 16777216L, &hi) < 0) return NULL;
    if (!size) size = a->v[a->n - 1];
    if (size->kind != BL_V_LIST || size->n < 1 || size->n > BL_MAXDIM)
        return BL_FAILP("randint: the size must be a list or tuple of 1 to %d sizes, e.g. randint(0, 10, (3,)) or "
                        "randint(10, [2, 3])", BL_MAXDIM);
    for (int k = 0; k < size->n; k++) {
        const bl_value *it = size->items[k];
        if (it->kind != BL_V_NUM || it->num != floor(it->num) || it->num < 1 || it->num > 2147483647.0)
            return BL_FAILP("randint: sizes are whole numbers >= 1");
        shape[nd++] = (int)it->num;
    }
    if (bl_shape_check("randint", nd, shape, NULL) < 0) return NULL;
    if (hi <= lo) return BL_FAILP("randint: low (%ld) must be below high (%ld): the numbers are in [low, high)", lo, hi);
    bl_tensor *t = bl_tensor_new(nd, shape);
    for (size_t i = 0; t && i < t->numel; i++) t->data[i] = (float)(lo + (long)bl_rng_below(&a->s->rng, (uint32_t)(hi - lo)));
    return bl_val_tensor(t);
}

/* One draw from weights p[0..n) (sum > 0): the first i with u * sum < p[0] + ... + p[i]. */
static int draw(bl_rng *r, const double *p, int n, double sum)
{
    double u = (double)bl_rng_uniform(r) * sum, c = 0;
    int last = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] <= 0) continue;
        c += p[i];
        last = i;
        if (u < c) return i;
    }
    return last;    /* rounding: u * sum at the very top */
}

/* multinomial(probs, num_samples, replacement=off): for probs [n] (or each row of [R, n]),
 * num_samples category indices drawn with probability proportional to probs (torch.multinomial;
 * the weights need not add up to 1). Without replacement each category comes at most once: a
 * category drawn gets weight 0 for the later draws. */
static bl_value *f_multinomial(bl_callargs *a)
{
    long k;
    int repl;
    static const char *const keys[] = { "num_samples", "replacement", NULL };
    if (bl_kw_only(a, keys) < 0 || bl_nargs(a, 1, 2) < 0) return NULL;
    bl_tensor *p = bl_arg_tensor(a, 0);
    /* num_samples positional or by name, as torch.multinomial(probs, num_samples=1) */
    int named = bl_kw(a, "num_samples") != NULL;
    if (named == (a->n == 2))
        return BL_FAILP("multinomial: give num_samples once, as the second argument or num_samples=");
    if (!p || (named ? bl_kw_int(a, "num_samples", 1, 1, 16777216L, &k) : bl_arg_int(a, 1, 1, 16777216L, &k)) < 0 ||
        bl_kw_bool(a, "replacement", 0, &repl) < 0)
        return NULL;
    if (p->ndim < 1 || p->ndim > 2) return BL_FAILP("multinomial: probs must be 1-D [n] or 2-D [rows, n], got %d-D", p->ndim);
    int n = p->shape[p->ndim - 1], rows = p->ndim == 2 ? p->shape[0] : 1;
    if (!repl && k > n)
        return BL_FAILP("multinomial: %ld samples without replacement from %d categories (replacement=on allows it)", k, n);
    double *w = malloc(sizeof *w * (size_t)n);
    if (!w) return BL_FAILP("multinomial: out of memory");
    int shape[2] = { rows, (int)k };
    bl_tensor *t = bl_shape_check("multinomial", p->ndim, p->ndim == 2 ? shape : shape + 1, NULL) < 0
                       ? NULL : bl_tensor_new(p->ndim, p->ndim == 2 ? shape : shape + 1);
    for (int r = 0; t && r < rows; r++) {
        double sum = 0;
        int pos = 0;
        for (int i = 0; i < n; i++) {
            w[i] = p->data[(size_t)r * (size_t)n + (size_t)i];
            if (!(w[i] >= 0) || isinf(w[i])) {
                bl_fail("multinomial: probs must be finite and >= 0, got %g (row %d, index %d)", w[i], r, i);
                goto bad;
            }
            sum += w[i];
            pos += w[i] > 0;
        }
        if (!(sum > 0)) {
            bl_fail("multinomial: the probs of row %d add up to 0 (nothing to draw)", r);
            goto bad;
        }
        if (!repl && k > pos) {
            bl_fail("multinomial: %ld samples without replacement, but row %d has only %d non-zero probs", k, r, pos);
            goto bad;
        }
        for (long j = 0; j < k; j++) {
            int i = draw(&a->s->rng, w, n, sum);
            t->data[(size_t)r * (size_t)k + (size_t)j] = (float)i;
            if (!repl) {
                sum -= w[i];
                w[i] = 0;
                if (!(sum > 0)) {   /* rounding left nothing: sum again */
                    sum = 0;
                    for (int m = 0; m < n; m++) sum += w[m];
                }
            }
        }
    }
    free(w);
    return bl_val_tensor(t);
bad:
    free(w);
    bl_tensor_free(t);
    return NULL;
}

/* torch.nn.init's in-place fills of a tensor (a model's parameter: the model), as nanoGPT's
 * _init_weights: normal_(t, mean=0, std=1), uniform_(t, a=0, b=1), zeros_(t), ones_(t),
 * constant_(t, val). They run without recording gradients, as torch's (torch.no_grad inside),
 * so they take a leaf that requires grad; t is returned. The draws come from the session's
 * generator, not torch's. */
static bl_value *f_init(bl_callargs *a)
{
    const char *f = a->fname;
    int normal = !strcmp(f, "normal_"), uniform = !strcmp(f, "uniform_"), constant = !strcmp(f, "constant_");
    static const char *const kn[] = { "tensor", "mean", "std", NULL }, *const ku[] = { "tensor", "a", "b", NULL },
                             *const kc[] = { "tensor", "val", NULL }, *const k0[] = { "tensor", NULL };
    const char *const *keys = normal ? kn : uniform ? ku : constant ? kc : k0;
    int n = normal || uniform ? 3 : constant ? 2 : 1;
    bl_value *v[3] = { NULL, NULL, NULL };
    bl_pos pos[3];
    if (bl_kw_only(a, keys) < 0 || bl_pos_or_kw(a, keys, n, v, pos) < 0) return NULL;
    if (!v[0] || v[0]->kind != BL_V_TENSOR) {
        bl_fail("%s: fills a tensor where it is, got %s%s", f, v[0] ? "a " : "nothing",
                v[0] ? bl_val_kind_name(v[0]) : "");
        return (bl_session_errat(a->s, v[0] ? pos[0] : a->pos), (bl_value *)NULL);
    }
    if (constant && !v[1]) return BL_FAILP("constant_: needs val (constant_(t, 0.5))");
    double p[2] = { 0, 1 };
    for (int i = 1; i < n; i++) {
        if (!v[i]) continue;
        if (v[i]->kind != BL_V_NUM && v[i]->kind != BL_V_BOOL) {
            bl_fail("%s: %s is a number, not a %s", f, keys[i], bl_val_kind_name(v[i]));
            return (bl_session_errat(a->s, pos[i]), (bl_value *)NULL);
        }
        p[i - 1] = v[i]->num;
    }
    double p0 = p[0], p1 = p[1];
    if (!isfinite(p0) || !isfinite(p1) || (uniform && p1 < p0) || (normal && p1 < 0))
        return BL_FAILP("%s: %s", f, uniform ? "needs finite a <= b" : normal ? "needs a finite mean and std >= 0"
                                                                          : "needs a finite value");
    bl_tensor *src = bl_tensor_copy(v[0]->t);
    if (!src) return BL_FAILP("%s: out of memory", f);
    for (size_t i = 0; i < src->numel; i++)
        src->data[i] = normal ? (float)(p0 + p1 * bl_rng_normal(&a->s->rng))
                     : uniform ? (float)(p0 + (p1 - p0) * bl_rng_uniform(&a->s->rng))
                     : !strcmp(f, "ones_") ? 1.0f : (float)p0;
    int rc = bl_write_in_place(v[0], src);
    bl_tensor_free(src);
    return rc < 0 ? NULL : bl_val_ref(v[0]);
}

const bl_function bl_random_functions[] = {
    { "rand", "rand(d0, d1, ..., grad=off)",
      "Uniform random numbers in [0, 1) of the given shape (torch.rand).\n"
      "From the session's generator, as randn's: `seed N` repeats them, but they are not the\n"
      "numbers torch's generator gives (only the distribution is the same).", f_rand },
    { "randint", "randint([low,] high, size)",
      "Random whole numbers in [low, high) of shape size (torch.randint).\n"
      "size is a list or tuple: randint(0, 10, (3,)) or randint(10, [2, 3]); low is 0 when left\n"
      "out. From the session's generator (`seed N` repeats them; not torch's numbers). Floats\n"
      "holding whole numbers.", f_randint },
    { "multinomial", "multinomial(probs, num_samples, replacement=off)",
      "Indices drawn with probability proportional to probs (torch.multinomial).\n"
      "num_samples of them from probs [n], or per row of [rows, n]; finite, >= 0, not all 0,\n"
      "need not add up to 1. Without replacement each index comes at most once. A next token:\n"
      "multinomial(softmax(logits / T), 1). From the session's generator: `seed N` repeats it;\n"
      "not torch's numbers.", f_multinomial },
    { "normal_", "normal_(t, mean=0, std=1)",
      "torch.nn.init.normal_: t filled where it is with N(mean, std^2) draws; t.\n"
      "Runs without recording gradients (a model's parameter: the model changes), as nanoGPT's\n"
      "_init_weights: for p in m.parameters(): torch.nn.init.normal_(p, std=0.02). From the\n"
      "session's generator, not torch's numbers.", f_init },
    { "uniform_", "uniform_(t, a=0, b=1)",
      "torch.nn.init.uniform_: t filled where it is with U(a, b) draws; t.", f_init },
    { "zeros_", "zeros_(t)", "torch.nn.init.zeros_: t set to 0 where it is; t.", f_init },
    { "ones_", "ones_(t)", "torch.nn.init.ones_: t set to 1 where it is; t.", f_init },
    { "constant_", "constant_(t, val)", "torch.nn.init.constant_: t set to val where it is; t.", f_init },
    { NULL, NULL, NULL, NULL },
};
