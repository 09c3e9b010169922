/* ropecheck.h - the relative-position check of 2-D RoPE that `rope check` draws
 * (src/repl/cmd_rope.c; DESIGN.md section 3, Su et al. 2021 "RoFormer"). */
#ifndef BL_TRAIN_ROPECHECK_H
#define BL_TRAIN_ROPECHECK_H

/* RoPE relative-position check on a grid x grid patch grid (2-D RoPE, DESIGN.md section 3):
 * q = k = ones(head_dim), rotated by bl_rope with the tables of bl_rope_table_2d.
 *   at[r * grid + c]   score q(r, c) . k(r + dr, c + dc)  (NaN where k falls off the grid);
 *                      every finite value is the same number
 *   offs[(i) * (2 grid - 1) + j]  score at offset (i - grid + 1, j - grid + 1) (q at the centre
 *                      of a (2 grid - 1)^2 grid), each may be NULL.
 * The score is the plain dot product (the logit before 1/sqrt(head_dim)); with q = k = ones it is
 * 2 sum_i cos(dr a_i) + 2 sum_i cos(dc a_i), a_i = base^(-i/(head_dim/4)), head_dim at (0, 0).
 * Returns the number of finite at[] cells, or -1 with "rope check: ..." (head_dim not a
 * multiple of 4, base <= 0, grid outside 1..32, an offset that leaves the grid). */
int bl_rope_check_scores(int head_dim, float base, int grid, int dr, int dc, float *at, float *offs);

#endif
