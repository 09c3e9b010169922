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

#endif
