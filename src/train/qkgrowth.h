/* qkgrowth.h - the attention-logit growth experiment of the QK-norm lecture (DESIGN.md section
 * 2; Dehghani et al. 2023, "Scaling Vision Transformers to 22B Parameters", section 3.1): how the
 * largest attention logit and the attention's sharpness grow with the scale of q and k, with and
 * without QK-norm. The REPL's `qk growth` prints and draws it (src/repl/cmd_qk.c).
 *
 * Two forms:
 *   random (the lecture's own):  q, k [tokens, head_dim] ~ N(0, 1) drawn from `seed`, each
 *                                multiplied by the scale s.
 *   x.W (random = 0):            x [tokens, 64] ~ N(0, 1), Wq, Wk [head_dim, 64] ~ U(-1/8, 1/8)
 *                                (nn.Linear's init), q = s x Wq^T, k = s x Wk^T.
 * With QK-norm q and k are RMSNorm'd over head_dim (eps 1e-6, no weight) after scaling, so the
 * scale cancels. logits = q k^T / sqrt(head_dim), no mask.
 *
 * The published run (torch.manual_seed(0); q = torch.randn(64, 32); k = torch.randn(64, 32);
 * scales 1, 4, 16) gives max |logit| / mean top weight 3.8/0.11, 60.5/0.90, 968.8/1.00 without
 * QK-norm and 3.4/0.10 at every scale with it; tests/golden/gen_qk.py stores those q, k and
 * numbers and test_qkgrowth checks bl_qk_logit_stats against them. blocklab's own generator
 * draws other numbers from the same distribution, so `qk growth` gives close but not identical
 * values (e.g. seed 0: within about 15% of them; the growth factor s^2 is exact).
 *
 * Errors: -1 with "qk growth: ..." in bl_error(); nothing prints. */
#ifndef BL_TRAIN_QKGROWTH_H
#define BL_TRAIN_QKGROWTH_H

#include <stdint.h>

#define BL_QK_MAX_SCALE 1e6
#define BL_QK_MAX_TOKENS 1024
#define BL_QK_MAX_HEAD_DIM 1024

typedef struct {
    int random;    /* 1: q, k ~ N(0, 1) scaled (the lecture's); 0: the x.W form */
    int tokens;    /* T, 2 .. BL_QK_MAX_TOKENS (default 64) */
    int head_dim;  /* 2 .. BL_QK_MAX_HEAD_DIM (default 32) */
    uint64_t seed; /* the draw of q, k (or x, W) */
} bl_qk_opts;

/* random = 1, tokens 64, head_dim 32, seed 0 */
bl_qk_opts bl_qk_opts_default(void);

/* The statistics of one attention map: q, k [T, hd] (row-major), multiplied by `scale`, then
 * (qk_norm) RMSNorm'd over hd (eps 1e-6, no weight); logits = q k^T / sqrt(hd).
 * *max_logit = max |logit| over all T x T pairs; *top_weight = mean over the T queries of the
 * largest softmax weight of the query's row (1/T .. 1). Returns 0, or -1 with "qk growth: ..."
 * (T or hd out of range, scale outside (0, BL_QK_MAX_SCALE], logits not finite, out of memory). */
int bl_qk_logit_stats(const float *q, const float *k, int T, int hd, double scale, int qk_norm, float *max_logit,
                      float *top_weight);

/* The experiment: for each of the n scales, max_logit[i] and top_weight[i] of bl_qk_logit_stats
 * for the q, k of the form `o` selects (NULL: bl_qk_opts_default). Returns 0 or -1 with
 * "qk growth: ..." (n < 1, a scale outside (0, BL_QK_MAX_SCALE], tokens or head_dim out of
 * range, logits not finite, out of memory). */
int bl_qk_growth(const bl_qk_opts *o, const double *scales, int n, int qk_norm, float *max_logit,
                 float *top_weight);

#endif
