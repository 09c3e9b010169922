/* gradcheck.h - central finite differences against an op's hand-written backward.
 *
 * The op under test is wrapped as `bl_tensor *fn(bl_graph *g, bl_tensor **in, void *ctx)`.
 * gradcheck() builds L = sum_i out_i * r_i with a fixed pseudo-random r, runs the op's backward
 * (bl_graph_backward_from with seed r) and compares every input's gradient, element by element
 * (at most `max_elems` elements per input, spread evenly), with (L(x + h) - L(x - h)) / 2h
 * evaluated in double. Error per element: |analytic - numeric| / max(1, |analytic|, |numeric|).
 * Returns the largest error (or 1e9 when the op failed); prints a "# " line for the worst one.
 * Inputs must be owned tensors with a grad buffer for those whose gradient is checked
 * (bl_tensor_require_grad); inputs without grad are treated as constants.
 */
#ifndef BL_GRADCHECK_H
#define BL_GRADCHECK_H

#include "core/graph.h"
#include "core/rng.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef bl_tensor *(*gc_fn)(bl_graph *g, bl_tensor **in, void *ctx);

static inline double gc_eval(gc_fn f, bl_tensor **in, void *ctx, const float *r)
{
    bl_graph *g = bl_graph_new();
    bl_graph_set_record(g, 0);
    bl_tensor *out = f(g, in, ctx);
    double L = 0;
    if (out)
        for (size_t i = 0; i < out->numel; i++) L += (double)out->data[i] * r[i];
    else
        L = NAN;
    bl_graph_free(g);
    return L;
}

static inline double gradcheck(const char *what, gc_fn f, bl_tensor **in, int nin, void *ctx, float h,
                        int max_elems)
{
    bl_graph *g = bl_graph_new();
    for (int i = 0; i < nin; i++) bl_tensor_zero_grad(in[i]);
    bl_tensor *out = f(g, in, ctx);
    if (!out) {
        printf("# %s: op failed: %s\n", what, bl_error());
        bl_graph_free(g);
        return 1e9;
    }
    float *r = malloc(out->numel * sizeof(float));
    bl_rng rng;
    bl_rng_named(&rng, 7, "gradcheck");
    for (size_t i = 0; i < out->numel; i++) r[i] = bl_rng_uniform(&rng) * 2.0f - 1.0f;
    if (bl_graph_backward_from(g, out, r) < 0) {
        printf("# %s: backward failed: %s\n", what, bl_error());
        free(r);
        bl_graph_free(g);
        return 1e9;
    }
    double worst = 0;
    int wi = -1;
    size_t we = 0;
    double wa = 0, wn = 0;
    for (int i = 0; i < nin; i++) {
        bl_tensor *t = in[i];
        if (!t || !t->grad) continue;
        size_t n = t->numel, step = n > (size_t)max_elems ? n / (size_t)max_elems : 1;
        for (size_t e = 0; e < n; e += step) {
            float keep = t->data[e];
            t->data[e] = keep + h;
            double lp = gc_eval(f, in, ctx, r);
            t->data[e] = keep - h;
            double lm = gc_eval(f, in, ctx, r);
            t->data[e] = keep;
            double num = (lp - lm) / (2.0 * h), ana = t->grad[e];
            double den = fmax(1.0, fmax(fabs(num), fabs(ana)));
            double err = fabs(num - ana) / den;
            if (!(err <= worst)) { worst = isnan(err) ? 1e9 : err; wi = i; we = e; wa = ana; wn = num; }
        }
    }
    if (wi >= 0)
        printf("# %s: worst gradient error %.3g at input %d element %zu (backward %.6g, finite "
               "difference %.6g)\n", what, worst, wi, we, wa, wn);
    free(r);
    bl_graph_free(g);
    return worst;
}

/* Fill t with a deterministic N(0, std) pattern named `name`. */
static inline void gc_randn(bl_tensor *t, const char *name, float std)
{
    bl_rng rng;
    bl_rng_named(&rng, 1, name);
    bl_rng_fill_normal(&rng, t->data, t->numel, 0.0f, std);
}

#endif
