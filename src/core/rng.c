/* rng.c - PCG32 with Box-Muller normals (see rng.h for the references). */
#include "core/rng.h"
#include <math.h>

uint64_t bl_splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t bl_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ULL; }
    return h;
}

uint32_t bl_rng_u32(bl_rng *r)
{
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

void bl_rng_init(bl_rng *r, uint64_t seed, uint64_t stream)
{
    r->state = 0;
    r->inc = (bl_splitmix64(stream) << 1u) | 1u;
    r->have_spare = 0;
    r->spare = 0;
    bl_rng_u32(r);
    r->state += bl_splitmix64(seed);
    bl_rng_u32(r);
}

void bl_rng_named(bl_rng *r, uint64_t seed, const char *name)
{
    bl_rng_init(r, seed, bl_hash_str(name));
}

uint32_t bl_rng_below(bl_rng *r, uint32_t n)
{
    uint32_t threshold = (0u - n) % n;
    for (;;) {
        uint32_t x = bl_rng_u32(r);
        if (x >= threshold) return x % n;
    }
}

float bl_rng_uniform(bl_rng *r)
{
    return (float)(bl_rng_u32(r) >> 8) * (1.0f / 16777216.0f);
}

/* The Box-Muller pair of bl_rng_normal from (u1, u2): cos -> *a, sin -> *b. */
static void box_muller(double u1, double u2, float *a, float *b)
{
    double mag = sqrt(-2.0 * log(u1));
    *b = (float)(mag * sin(2.0 * M_PI * u2));
    *a = (float)(mag * cos(2.0 * M_PI * u2));
}

float bl_rng_normal(bl_rng *r)
{
    if (r->have_spare) { r->have_spare = 0; return r->spare; }
    double u1, u2;
    do { u1 = bl_rng_uniform(r); } while (u1 <= 0.0);
    u2 = bl_rng_uniform(r);
    float a;
    box_muller(u1, u2, &a, &r->spare);
    r->have_spare = 1;
    return a;
}

void bl_rng_fill_uniform(bl_rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * bl_rng_uniform(r);
}

void bl_rng_fill_normal(bl_rng *r, float *x, size_t n, float mean, float std)
{
    /* exactly the values of n calls of bl_rng_normal: the uniforms are drawn in stream order,
     * a chunk of pairs at a time, and the transcendental part of each pair (the cost) is
     * spread over the threads */
    enum { PAIRS = 2048 };
    size_t i = 0;
    if (n && r->have_spare) {
        r->have_spare = 0;
        x[i++] = mean + std * r->spare;
    }
    while (n - i >= 2) {
        float u1[PAIRS], u2[PAIRS];
        size_t np = (n - i) / 2 < PAIRS ? (n - i) / 2 : PAIRS;
        for (size_t k = 0; k < np; k++) {
            do u1[k] = bl_rng_uniform(r); while (u1[k] <= 0.0f);
            u2[k] = bl_rng_uniform(r);
        }
        float *o = x + i;
#pragma omp parallel for schedule(static) if (np >= 512)
        for (size_t k = 0; k < np; k++) {
            float a, b;
            box_muller(u1[k], u2[k], &a, &b);
            o[2 * k] = mean + std * a;
            o[2 * k + 1] = mean + std * b;
        }
        i += 2 * np;
    }
    if (i < n) x[i] = mean + std * bl_rng_normal(r);   /* odd n: the sine is kept as the spare */
}

uint64_t bl_dropout_key(uint64_t seed, uint64_t step, uint64_t site)
{
    return bl_splitmix64(bl_splitmix64(bl_splitmix64(bl_hash_str("dropout") ^ seed) ^ step) ^ site);
}
