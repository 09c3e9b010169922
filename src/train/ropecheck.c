/* ropecheck.c - the relative-position check of 2-D RoPE (see ropecheck.h): the score of q = k =
 * ones rotated to every cell pair of a grid, run through the model's own rope kernels. */
#include "train/ropecheck.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "nn/nn.h"
#include <math.h>
#include <stdlib.h>

/* q = ones(hd) rotated to each of the n x n grid positions by 2-D RoPE: out [n n, hd] (owned). */
static bl_tensor *rotated_ones(bl_graph *g, int n, int hd, float base)
{
    int T = n * n;
    bl_tensor *cos = bl_tensor_new2(T, hd), *sin = bl_tensor_new2(T, hd);
    bl_tensor *x = bl_tensor_new4(1, 1, T, hd), *out = NULL;
    if (cos && sin && x && bl_rope_table_2d(n, n, 0, hd, base, cos->data, sin->data) == 0) {
        bl_tensor_fill(x, 1.0f);
        bl_tensor *r = bl_rope(g, x, cos, sin);
        if (r) out = bl_tensor_from(2, (int[]){ T, hd }, r->data);
    }
    bl_tensor_free(cos);
    bl_tensor_free(sin);
    bl_tensor_free(x);
    return out;
}

static float dot(const float *a, const float *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
    return (float)s;
}

int bl_rope_check_scores(int hd, float base, int grid, int dr, int dc, float *at, float *offs)
{
    if (hd < 4 || hd % 4 || hd > 1024)
        return bl_fail("rope check: head_dim must be a multiple of 4 in [4, 1024], got %d", hd);
    if (!(base > 0) || !isfinite(base)) return bl_fail("rope check: base must be > 0, got %g", base);
    if (grid < 1 || grid > 32) return bl_fail("rope check: grid must be in [1, 32], got %d", grid);
    if (abs(dr) >= grid || abs(dc) >= grid)
        return bl_fail("rope check: offset (%d, %d) leaves the %dx%d grid", dr, dc, grid, grid);
    bl_graph *g = bl_graph_new();
    int n2 = 2 * grid - 1;
    bl_tensor *q = g ? rotated_ones(g, grid, hd, base) : NULL;
    bl_tensor *q2 = q && offs ? rotated_ones(g, n2, hd, base) : NULL;
    int count = -1;
    if (q && (q2 || !offs)) {
        count = 0;
        for (int r = 0; r < grid; r++)
            for (int c = 0; c < grid; c++) {
                int r2 = r + dr, c2 = c + dc;
                float v = NAN;
                if (r2 >= 0 && r2 < grid && c2 >= 0 && c2 < grid) {
                    v = dot(q->data + (size_t)(r * grid + c) * hd, q->data + (size_t)(r2 * grid + c2) * hd, hd);
                    count++;
                }
                if (at) at[r * grid + c] = v;
            }
        const float *centre = q2 ? q2->data + (size_t)((grid - 1) * n2 + grid - 1) * hd : NULL;
        for (int i = 0; q2 && i < n2 * n2; i++) offs[i] = dot(centre, q2->data + (size_t)i * hd, hd);
    }
    bl_tensor_free(q);
    bl_tensor_free(q2);
    bl_graph_free(g);
    return count;
}
