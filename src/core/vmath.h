/* vmath.h - exp and erf for float loops the compiler vectorises (not a public header).
 *
 * libm's expf/erff are calls the vectoriser cannot widen (glibc only offers SIMD variants under
 * -ffast-math), and erff alone was 10% of a TinyDiT training step (GELU forward and backward).
 * These are branch-free inline versions for loops marked `#pragma omp simd` (the selects use
 * the quiet comparisons __builtin_isless/isgreater: GCC will not if-convert a trapping `<` under
 * the default -ftrapping-math, and the loop would then stay scalar):
 *
 *   bl_vexpf  Cephes expf: x = n ln2 + r (Cody-Waite, two-part ln2), degree-6 polynomial p in
 *             r, then 2p times 2^(n-1) built in the exponent bits (2^n itself cannot hold
 *             n = 128). Max relative error 8e-8 (1 ulp) on [-86.9, 88.7]. The ends are IEEE's,
 *             as libm's and PyTorch's expf: above ln(FLT_MAX) = 88.72 the product overflows to
 *             inf (exp(inf) = inf); below -86.99 (results under 1.7e-38) the exponent bits
 *             are 0 and the result is +0 (exp(-inf) = 0), so no subnormal is ever made (each
 *             costs a microcode assist); NaN stays NaN. SiLU as x / (1 + exp(-x)) then gives
 *             F.silu's values at the ends too: -0 at x = -1e30, NaN at -inf (the clamp at 88
 *             this had gave -6e-9 and -inf, and exp(-inf) was 1.2e-38). Costs one add.
 *   bl_verff  |x| <= 0.9277: the Taylor series of erf to x^21 (A&S 7.1.5, truncation < 3e-9);
 *             above: 1 - exp(p(|x|)) with the degree-7 minimax p of N. Juffa's erff
 *             ("fast, accurate erff", max error 1 ulp in that range). Max absolute error
 *             1.5e-7 over all floats (checked against double erf in steps of one float).
 */
#ifndef BL_VMATH_H
#define BL_VMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* always_inline: GCC would otherwise keep one out-of-line copy and call it from the
 * BL_SIMD_CLONES kernels, which then cannot vectorise. */
#define BL_VMATH_INLINE __attribute__((always_inline))

/* For a kernel function (not an OpenMP region: outlined regions are not cloned) whose loop is
 * `#pragma omp simd`: GCC compiles it for AVX-512 and AVX2 as well as baseline x86-64 and
 * picks one when the program loads (ifunc). The build uses no -march, so without this the
 * loops get 4-wide SSE2. Plain IEEE operations, no contraction: every clone gives the same
 * bits elementwise. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define BL_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef BL_SIMD_CLONES
#define BL_SIMD_CLONES
#endif

static inline BL_VMATH_INLINE float bl_vexpf(float x)
{
    /* clamp to [-87.5, 89.5] (n in [-126, 129]) by two selects on the original x (GCC will not
     * if-convert a compare of a select) */
    float lo = __builtin_isless(x, -87.5f) ? -87.5f : x;
    float hi = __builtin_isgreater(x, 89.5f) ? 89.5f : x;
    x = __builtin_isless(x, 0.0f) ? lo : hi;
    /* n = round(x / ln2) by the 1.5 * 2^23 trick (no rintf call); a NaN x stays NaN through r */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    /* 2^(n-1): n = -126 gives exponent bits 0, s = +0; n = 129 gives 255, s = +inf; for
     * n = 128 (x in (88.03, 89.07)) 2p 2^127 overflows exactly where e^x does */
    uint32_t bits = (uint32_t)((int32_t)n + 126) << 23;
    float s;
    memcpy(&s, &bits, sizeof s);
    return (p + p) * s;
}

static inline BL_VMATH_INLINE float bl_verff(float a)
{
    float t = fabsf(a), s = a * a;
    /* |a| > 0.927734375: erf = 1 - exp(p(t)) */
    float r = -1.72853470e-5f * t + 3.83197126e-4f;
    float u = -3.88396438e-3f * t + 2.42546219e-2f;
    r = r * s + u;
    r = r * t + -1.06777877e-1f;
    r = r * t + -6.34846687e-1f;
    r = r * t + -1.28717512e-1f;
    r = r * t + -t;
    float big = 1.0f - bl_vexpf(r);
    big = copysignf(big, a);
    /* |a| <= 0.927734375: (2 / sqrt(pi)) sum_n (-1)^n a^(2n+1) / (n! (2n + 1)), n <= 10 */
    float q = 1.480719282e-08f;
    q = q * s + -1.636584469e-07f;
    q = q * s + 1.646211437e-06f;
    q = q * s + -1.492565036e-05f;
    q = q * s + 1.205533298e-04f;
    q = q * s + -8.548327023e-04f;
    q = q * s + 5.223977625e-03f;
    q = q * s + -2.686617065e-02f;
    q = q * s + 1.128379167e-01f;
    q = q * s + -3.761263890e-01f;
    q = q * s + 1.128379167e+00f;
    q = q * a;
    /* pick by bit mask: GCC will not if-convert a third select here (the loop would stay scalar);
     * q may overflow for large |a|, the mask drops it exactly */
    uint32_t m = -(uint32_t)__builtin_isgreater(t, 0.927734375f), bb, qb;
    memcpy(&bb, &big, sizeof bb);
    memcpy(&qb, &q, sizeof qb);
    qb = (bb & m) | (qb & ~m);
    memcpy(&q, &qb, sizeof q);
    return q;
}

#endif
