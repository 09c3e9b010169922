/* nn_test.h - small helpers shared by the src/nn unit tests (test_norms, test_rope, ...). */
#ifndef BL_NN_TEST_H
#define BL_NN_TEST_H

#include "core/error.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "nn/nn.h"
#include "../check.h"
#include "../gradcheck.h"

/* Finite-difference step and the largest accepted gradient error (see gradcheck.h). */
#define NN_GC_H 1e-2f
#define NN_GC_TOL 2e-3

/* A new owned tensor of the given shape with N(0, std) values named `name`, and a grad buffer
 * when grad is nonzero. */
static inline bl_tensor *nn_mk(const char *name, int grad, float std, int ndim, const int *shape)
{
    bl_tensor *t = bl_tensor_new(ndim, shape);
    gc_randn(t, name, std);
    if (grad) bl_tensor_require_grad(t);
    return t;
}
#define MK(name, grad, ...) \
    nn_mk((name), (grad), 1.0f, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})

static inline void nn_free_all(bl_tensor **t, int n)
{
    for (int i = 0; i < n; i++) bl_tensor_free(t[i]);
}
#define FREE_ALL(arr) nn_free_all((arr), (int)(sizeof(arr) / sizeof((arr)[0])))

/* Run gradcheck over every input of the array `in` and CHECK the error against NN_GC_TOL. */
#define GRADCHECK(what, fn, in, ctx)                                                       \
    do {                                                                                   \
        double e_ = gradcheck((what), (fn), (in), (int)(sizeof(in) / sizeof((in)[0])),     \
                              (ctx), NN_GC_H, 60);                                          \
        CHECK(e_ < NN_GC_TOL, "%s: gradient error %g", (what), e_);                        \
    } while (0)

/* Largest |a[i] - b[i]| over n values (NaN counts as infinitely far). */
static inline double nn_maxdiff(const float *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= m)) m = isnan(d) ? INFINITY : d;
    }
    return m;
}

#endif
