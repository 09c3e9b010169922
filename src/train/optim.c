/* optim.c - AdamW, warmup + cosine schedule, global-norm clipping (see optim.h). */
#include "train/optim.h"
#include <math.h>

void bl_adamw_defaults(bl_adamw *o)
{
    o->lr = 3e-4f;
    o->beta1 = 0.9f;
    o->beta2 = 0.999f;
    o->eps = 1e-8f;
    o->weight_decay = 0.0f;
    o->warmup = 0;
    o->cosine = 0;
    o->total = 0;
    o->min_lr_ratio = 0.1f;
    o->clip = 0.0f;
    o->step = 0;
}

float bl_adamw_lr(const bl_adamw *o)
{
    long t = o->step + 1;
    if (o->warmup > 0 && t <= o->warmup) return o->lr * (float)t / (float)o->warmup;
    if (!o->cosine || o->total <= o->warmup) return o->lr;
    double p = (double)(t - o->warmup) / (double)(o->total - o->warmup);
    if (p > 1) p = 1;
    double min_lr = o->lr * o->min_lr_ratio;
    return (float)(min_lr + 0.5 * (1.0 + cos(M_PI * p)) * (o->lr - min_lr));
}

double bl_grad_norm(const float *grad, size_t n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s) if (n > 65536)
    for (size_t i = 0; i < n; i++) s += (double)grad[i] * grad[i];
    return sqrt(s);
}

double bl_adamw_step(bl_adamw *o, float *param, float *grad, float *m, float *v,
                     const unsigned char *decay, size_t n)
{
    double norm = bl_grad_norm(grad, n);
    if (!isfinite(norm)) return norm;
    float gscale = 1.0f;
    if (o->clip > 0 && norm > o->clip) gscale = (float)(o->clip / (norm + 1e-6));
    float lr = bl_adamw_lr(o);
    o->step++;
    const float b1 = o->beta1, b2 = o->beta2, eps = o->eps, wd = o->weight_decay;
    const float c1 = (float)(1.0 / (1.0 - pow(b1, (double)o->step)));
    const float c2 = (float)(1.0 / (1.0 - pow(b2, (double)o->step)));
#pragma omp parallel for if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        float g = grad[i] * gscale;
        float mi = b1 * m[i] + (1.0f - b1) * g;
        float vi = b2 * v[i] + (1.0f - b2) * g * g;
        m[i] = mi;
        v[i] = vi;
        float p = param[i];
        if (decay && decay[i]) p -= lr * wd * p;
        p -= lr * (mi * c1) / (sqrtf(vi * c2) + eps);
        param[i] = p;
    }
    return norm;
}
