/* lengen.c - loss per position past the context, mean and standard error (see lengen.h). */
#include "train/lengen.h"
#include "core/error.h"
#include "models/tinygpt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LG_TOKENS = 8192 }; /* tokens per forward pass */

int bl_lengen(bl_model *m, const int *tokens, int W, int L, int sliding, float *mean, float *se)
{
    if (W < 1 || L < 1) return bl_fail("lengen: need at least one window of one token, got %d x %d", W, L);
    int ctx = m->cfg.context, direct = sliding && L > ctx ? ctx : L;  /* positions run whole */
    int chunk = LG_TOKENS / direct > 0 ? LG_TOKENS / direct : 1;
    if (chunk > W) chunk = W;
    size_t nall = (size_t)W * L;
    float *all = malloc(nall * sizeof *all);
    int *seq = malloc((size_t)LG_TOKENS * (ctx + 1) * sizeof *seq);
    float *out = malloc((size_t)LG_TOKENS * ctx * sizeof *out);
    int rc = all && seq && out ? 0 : bl_fail("lengen: out of memory for %d windows of %d", W, L);
    /* positions 0 .. direct-1: the start of each window, as it is */
    for (int b0 = 0; rc == 0 && b0 < W; b0 += chunk) {
        int nb = W - b0 < chunk ? W - b0 : chunk;
        for (int b = 0; b < nb; b++)
            memcpy(seq + (size_t)b * (direct + 1), tokens + (size_t)(b0 + b) * (L + 1), (size_t)(direct + 1) * sizeof *seq);
        rc = bl_gpt_window_losses(m, seq, nb, direct, out);
        for (int b = 0; rc == 0 && b < nb; b++)
            memcpy(all + (size_t)(b0 + b) * L, out + (size_t)b * direct, (size_t)direct * sizeof *out);
    }
    /* sliding: position p >= ctx from tokens p - ctx + 1 .. p, the last position of that window */
    int per = LG_TOKENS / ctx > 0 ? LG_TOKENS / ctx : 1, k = 0;
    size_t total = (size_t)W * (size_t)(L - direct);
    for (size_t j0 = 0; rc == 0 && j0 < total; j0 += (size_t)per) {
        k = total - j0 < (size_t)per ? (int)(total - j0) : per;
        for (int i = 0; i < k; i++) {
            size_t j = j0 + (size_t)i;
            int b = (int)(j / (size_t)(L - direct)), p = direct + (int)(j % (size_t)(L - direct));
            memcpy(seq + (size_t)i * (ctx + 1), tokens + (size_t)b * (L + 1) + (p - ctx + 1), (size_t)(ctx + 1) * sizeof *seq);
        }
        rc = bl_gpt_window_losses(m, seq, k, ctx, out);
        for (int i = 0; rc == 0 && i < k; i++) {
            size_t j = j0 + (size_t)i;
            int b = (int)(j / (size_t)(L - direct)), p = direct + (int)(j % (size_t)(L - direct));
            all[(size_t)b * L + p] = out[(size_t)i * ctx + ctx - 1];
        }
    }
    for (int p = 0; rc == 0 && p < L; p++) {
        double s = 0, s2 = 0;
        for (int b = 0; b < W; b++) s += all[(size_t)b * L + p];
        double mu = s / W;
        for (int b = 0; b < W; b++) s2 += (all[(size_t)b * L + p] - mu) * (all[(size_t)b * L + p] - mu);
        mean[p] = (float)mu;
        se[p] = W > 1 ? (float)sqrt(s2 / (W - 1) / W) : 0.0f;
    }
    free(all);
    free(seq);
    free(out);
    return rc;
}
