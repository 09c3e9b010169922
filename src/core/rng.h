/* rng.h - the one seeded random generator of blocklab.
 *
 * PCG32 (O'Neill 2014, "PCG: A Family of Simple Fast Space-Efficient Statistically Good
 * Algorithms for Random Number Generation", pcg32 XSH-RR 64/32). Uniform floats use the top 24
 * bits; normal values use the Box-Muller transform (pairs, the second one cached).
 *
 * Streams: bl_rng_named(seed, name) derives an independent generator from a 64-bit seed and a
 * string with FNV-1a and splitmix64, so a parameter's initial value depends only on
 * (seed, parameter name) and flipping a model switch never changes a shared parameter. Data
 * order, noise and t draws use their own names ("data", "noise", "t", ...).
 */
#ifndef BL_RNG_H
#define BL_RNG_H

#include <stdint.h>
#include <stddef.h>

typedef struct bl_rng {
    uint64_t state, inc;
    int have_spare;
    float spare;
} bl_rng;

/* A generator for (seed, stream number). */
void bl_rng_init(bl_rng *r, uint64_t seed, uint64_t stream);
/* A generator for (seed, name); the name is hashed with FNV-1a. */
void bl_rng_named(bl_rng *r, uint64_t seed, const char *name);

uint32_t bl_rng_u32(bl_rng *r);
/* Uniform integer in [0, n) without modulo bias; n >= 1. */
uint32_t bl_rng_below(bl_rng *r, uint32_t n);
/* Uniform float in [0, 1). */
float bl_rng_uniform(bl_rng *r);
/* Standard normal float (Box-Muller). */
float bl_rng_normal(bl_rng *r);

/* Fill x[0..n) with U(lo, hi) / N(mean, std). */
void bl_rng_fill_uniform(bl_rng *r, float *x, size_t n, float lo, float hi);
void bl_rng_fill_normal(bl_rng *r, float *x, size_t n, float mean, float std);

/* 64-bit FNV-1a of a string and splitmix64 finaliser (exposed for deriving seeds). */
uint64_t bl_hash_str(const char *s);
uint64_t bl_splitmix64(uint64_t x);

/* Stateless (counter-based) draws, for dropout masks (issue 17): element i of stream `key` is
 *     u(key, i) = (splitmix64(key + i) >> 40) / 2^24          in [0, 1), a multiple of 2^-24
 * (splitmix64 as bl_splitmix64: Steele et al. 2014), so a mask does not depend on the threads or
 * the order that draw it, and a run resumed at step s draws what it would have drawn.
 * Dropout keeps element i when u(key, i) >= p. */
static inline float bl_rng_at(uint64_t key, uint64_t i)
{
    uint64_t x = key + i + 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return (float)(x >> 40) * (1.0f / 16777216.0f);
}
/* The key of one dropout site at one training step: splitmix64(splitmix64(splitmix64(
 * fnv1a("dropout") ^ seed) ^ step) ^ site). The models number their sites: 0 the embedding
 * (TinyGPT), 1 + 3 layer + {0 attention weights, 1 attention output, 2 MLP output}. */
uint64_t bl_dropout_key(uint64_t seed, uint64_t step, uint64_t site);

#endif
