/* model_test.h - helpers shared by test_dit.c and test_gpt.c: whole-model finite-difference
 * gradient checks, parameter scrambling, and a hand-rolled Adam step for overfit tests. */
#ifndef BL_MODEL_TEST_H
#define BL_MODEL_TEST_H

#include "core/error.h"
#include "core/rng.h"
#include "models/model.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A loss of the model on fixed data (ctx); record = 1 records the tape. */
typedef bl_tensor *(*mt_loss_fn)(bl_model *m, int record, void *ctx);

/* Give every parameter random values (so the zero-initialised adaLN and final layers of TinyDiT
 * pass gradients everywhere); deterministic in seed. */
static void mt_scramble(bl_model *m, uint64_t seed, float scale)
{
    bl_rng r;
    bl_rng_named(&r, seed, "scramble");
    for (int i = 0; i < m->params->n; i++) {
        bl_tensor *t = &m->params->t[i];
        float a = scale / sqrtf((float)t->shape[t->ndim - 1]);
        bl_rng_fill_uniform(&r, t->data, t->numel, -a, a);
        if (strstr(t->name, "norm.") || strstr(t->name, "ln_"))   /* norm weights: around 1 */
            for (size_t j = 0; j < t->numel; j++) t->data[j] += 1.0f;
    }
}

/* Central differences in double on the loss against the tape's gradient, `per` elements of each
 * parameter tensor. Error per element |num - ana| / max(floor, |num|, |ana|); returns the worst
 * and prints it with the parameter's name. */
static double mt_fd_check(bl_model *m, mt_loss_fn f, void *ctx, int per, float h, double floor_)
{
    bl_params_zero_grad(m->params);
    bl_tensor *L = f(m, 1, ctx);
    if (!L || bl_graph_backward(m->graph, L) < 0) {
        printf("# loss/backward failed: %s\n", bl_error());
        return 1e9;
    }
    double worst = 0, wa = 0, wn = 0;
    const char *wname = "";
    for (int i = 0; i < m->params->n; i++) {
        bl_tensor *t = &m->params->t[i];
        for (int j = 0; j < per; j++) {
            size_t e = (size_t)(((double)j + 0.5) / per * (double)t->numel);
            float keep = t->data[e];
            t->data[e] = keep + h;
            bl_tensor *lp = f(m, 0, ctx);
            double p = lp ? lp->data[0] : NAN;
            t->data[e] = keep - h;
            bl_tensor *lm = f(m, 0, ctx);
            double q = lm ? lm->data[0] : NAN;
            t->data[e] = keep;
            double num = (p - q) / (2.0 * h), ana = t->grad[e];
            double err = fabs(num - ana) / fmax(floor_, fmax(fabs(num), fabs(ana)));
            if (!(err <= worst)) { worst = isnan(err) ? 1e9 : err; wa = ana; wn = num; wname = t->name; }
        }
    }
    printf("# worst finite-difference error %.3g at %s (analytic %.6g, numeric %.6g)\n", worst, wname, wa, wn);
    return worst;
}

/* One Adam step (Kingma & Ba 2015, no weight decay) over the flat buffers; step counts from 1. */
static void mt_adam(bl_params *p, int step, float lr)
{
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
    bl_params_alloc_moments(p);
    float c1 = 1.0f - powf(b1, (float)step), c2 = 1.0f - powf(b2, (float)step);
    for (size_t i = 0; i < p->total; i++) {
        float g = p->grads[i];
        p->m[i] = b1 * p->m[i] + (1 - b1) * g;
        p->v[i] = b2 * p->v[i] + (1 - b2) * g * g;
        p->values[i] -= lr * (p->m[i] / c1) / (sqrtf(p->v[i] / c2) + eps);
    }
}

/* Train on one fixed batch for `steps` steps; first and last loss into *l0, *l1. Returns 0/-1. */
static int mt_overfit(bl_model *m, mt_loss_fn f, void *ctx, int steps, float lr, double *l0, double *l1)
{
    for (int s = 1; s <= steps; s++) {
        bl_params_zero_grad(m->params);
        bl_tensor *L = f(m, 1, ctx);
        if (!L || bl_graph_backward(m->graph, L) < 0) return -1;
        if (s == 1) *l0 = L->data[0];
        mt_adam(m->params, s, lr);
    }
    bl_tensor *L = f(m, 0, ctx);
    if (!L) return -1;
    *l1 = L->data[0];
    return 0;
}

#endif
