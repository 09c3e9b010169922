/* nn_private.h - helpers shared by the src/nn op files (not part of the public interface).
 *
 * BL_NN_PAR: the `if` clause the elementwise loops give to `#pragma omp parallel for`, so small
 * tensors (gradient checks, single tokens) stay on one thread and big ones use the pool.
 */
#ifndef BL_NN_PRIVATE_H
#define BL_NN_PRIVATE_H

#include "core/error.h"
#include "core/graph.h"
#include <stddef.h>
#include "core/vmath.h"
#include <math.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* OpenMP's thread count and the calling thread's number (1 and 0 without OpenMP), for
 * per-thread scratch that an op sizes in forward so its backward never allocates. */
static inline int bl_nn_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static inline int bl_nn_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* work (in floats touched) above which a loop is worth spreading over threads */
#define BL_NN_PAR_MIN ((size_t)1 << 15)

/* "[2, 3, 4]" of t in a caller's buffer, for error messages (NULL prints "none"). */
static inline const char *bl_nn_shape(const bl_tensor *t, char *buf, size_t n)
{
    if (!t) {
        snprintf(buf, n, "none");
        return buf;
    }
    return bl_shape_str(t, buf, n);
}

/* The size of all dims but the last ("rows" of a [..., D] tensor). */
static inline size_t bl_nn_rows(const bl_tensor *t)
{
    return t->ndim ? t->numel / (size_t)t->shape[t->ndim - 1] : 1;
}

/* Check that an optional per-feature vector (a norm weight or bias) is NULL or 1-D [D].
 * Returns 0, or -1 with "op: name has shape [..] but x has D features" in bl_error(). */
static inline int bl_nn_check_vec(const char *op, const char *name, const bl_tensor *v, int D)
{
    char buf[64];
    if (v && (v->ndim != 1 || v->shape[0] != D))
        return bl_fail("%s: %s has shape %s but x has %d features (expected [%d])", op, name,
                       bl_nn_shape(v, buf, sizeof buf), D, D);
    return 0;
}

/* Row kernels shared by the norms, RoPE and the fused qkv transforms. They are inlined into
 * BL_SIMD_CLONES kernels (vmath.h); sums use BL_NN_LANES partial sums added in a fixed order
 * (GCC leaves an `omp simd reduction` nested in a row loop scalar), so every clone gives the
 * same bits. */
#define BL_NN_LANES 16

/* The BL_NN_LANES partial sums added as a tree (log depth, not a chain of dependent adds). */
static inline BL_VMATH_INLINE double bl_nn_lanes_sum_d(double *acc)
{
    for (int w = BL_NN_LANES / 2; w > 0; w /= 2)
        for (int j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}

static inline BL_VMATH_INLINE float bl_nn_lanes_sum_f(float *acc)
{
    for (int w = BL_NN_LANES / 2; w > 0; w /= 2)
        for (int j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}

/* sum_i (x[i] - m)^k over D floats, k = 1 (pow2 = 0) or 2, in double. */
static inline BL_VMATH_INLINE double bl_nn_row_moment(const float *x, int D, double m, int pow2)
{
    double acc[BL_NN_LANES] = {0};
    int i = 0;
    for (; i + BL_NN_LANES <= D; i += BL_NN_LANES)
        for (int j = 0; j < BL_NN_LANES; j++) {
            double v = (double)x[i + j] - m;
            acc[j] += pow2 ? v * v : v;
        }
    double s = 0.0;
    for (; i < D; i++) s += pow2 ? ((double)x[i] - m) * ((double)x[i] - m) : (double)x[i] - m;
    return s + bl_nn_lanes_sum_d(acc);
}

/* The one home of the LayerNorm / RMSNorm row formulas: the norm kernels (norms.c), the fused
 * norm + modulate and qk_norm on the fused projection (qkv.c) all call these (inlined into the
 * clones). Row statistics of xr [D] in double (D can be large and the variance small): mean m
 * (0 for RMSNorm: layer = 0) and s = 1 / sqrt(var + eps) (var = mean(x^2) for RMSNorm). */
static inline BL_VMATH_INLINE void bl_nn_norm_row_stats(const float *xr, int D, int layer, float eps,
                                                        float *m, float *s)
{
    double mm = layer ? bl_nn_row_moment(xr, D, 0.0, 0) / D : 0.0;
    double v = bl_nn_row_moment(xr, D, mm, 1) / D;
    *s = (float)(1.0 / sqrt(v + (double)eps));
    *m = (float)mm;
}

/* dx of one row from g = d(norm output) (llm.c layernorm_backward):
 * dx = s (g - mean(g) - xhat mean(g xhat)), xhat = (x - m) s, no mean(g) term for RMSNorm;
 * written (assign) or added. g is d(y) times the weight (dnorm). */
static inline BL_VMATH_INLINE void bl_nn_norm_row_bw(const float *restrict xr, const float *restrict g,
                                                     float *restrict dxr, float m, float s, int D,
                                                     int layer, int assign)
{
    float a1[BL_NN_LANES] = {0}, a2[BL_NN_LANES] = {0}, dmean = 0.0f, dxhat = 0.0f;
    int i = 0;
    for (; i + BL_NN_LANES <= D; i += BL_NN_LANES)
        for (int j = 0; j < BL_NN_LANES; j++) {
            a1[j] += g[i + j];
            a2[j] += g[i + j] * ((xr[i + j] - m) * s);
        }
    for (; i < D; i++) {
        dmean += g[i];
        dxhat += g[i] * ((xr[i] - m) * s);
    }
    dmean += bl_nn_lanes_sum_f(a1);
    dxhat += bl_nn_lanes_sum_f(a2);
    dmean = layer ? dmean / D : 0.0f;
    dxhat /= D;
    if (assign) {
#pragma omp simd
        for (i = 0; i < D; i++) dxr[i] = s * (g[i] - dmean - (xr[i] - m) * s * dxhat);
    } else {
#pragma omp simd
        for (i = 0; i < D; i++) dxr[i] += s * (g[i] - dmean - (xr[i] - m) * s * dxhat);
    }
}

/* One head row of RoPE: the pairs (x[f], x[f+1]) turned by the angles of table rows c, s
 * (cos and sin, each angle stored twice, see rope.c); dir -1 turns back (the backward).
 * y = or += (accumulate). y may not alias x. */
static inline BL_VMATH_INLINE void bl_nn_rope_row(const float *x, float *y, const float *c,
                                                  const float *s, int hd, float dir, int accumulate)
{
    /* y_2i = x_2i c - x_2i+1 sn,  y_2i+1 = x_2i+1 c + x_2i sn  (sn = dir s), written per element
     * as x[f] c[f] + x[f ^ 1] (+-sn) so that the loop vectorises (the partner is a lane swap) */
#pragma omp simd
    for (int f = 0; f < hd; f++) {
        float sn = (f & 1) ? dir * s[f] : -(dir * s[f]);
        float v = x[f] * c[f] + x[f ^ 1] * sn;
        y[f] = accumulate ? y[f] + v : v;
    }
}

#endif
