/* golden_pattern.h - the hash pattern that tests/golden/gen.py's pattern() and
 * gen_models.py also use to rebuild large inputs instead of storing them: values k / 16384 in
 * [-2, 2), exact in float32. Shared by test_golden.c and test_golden_models.c. */
#ifndef BL_GOLDEN_PATTERN_H
#define BL_GOLDEN_PATTERN_H

#include <stddef.h>
#include <stdint.h>

static inline float bl_golden_pattern(size_t i, uint32_t salt)
{
    uint32_t h = (uint32_t)i * 2654435761u + salt * 2246822519u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return ((float)(h & 0xFFFFu) - 32768.0f) / 16384.0f;
}

#endif
