/* lengen.h - length generalisation: a TinyGPT's validation loss at each position of windows
 * longer than its training context (DESIGN.md section 3; the lecture's v1 (learned positions)
 * against v2 (RoPE) picture; Press et al. 2022, "Train Short, Test Long", figure 1).
 *
 * Position p (0-based) is the prediction of token p + 1 from the p + 1 tokens before it. With
 * sliding = 1 the predictions at p >= context see only the last `context` tokens (the window of
 * `sample sliding=on`, nanoGPT's generate), which a learned-position model needs past its
 * context; otherwise the whole window goes through the model at once (pos=rope and friends).
 *
 * Errors: -1 with "lengen: ..." or the model's "position loss: ..." in bl_error(). */
#ifndef BL_TRAIN_LENGEN_H
#define BL_TRAIN_LENGEN_H

#include "models/model.h"

/* tokens [W, L + 1] (token ids of W windows); mean[p] and se[p] (L floats each) = the mean over
 * the W windows of the cross-entropy (nats) at position p and its standard error,
 * sd / sqrt(W) with the sample sd (n - 1; 0 when W = 1). L <= context unless the model's
 * positions reach past it (pos=rope) or sliding. The windows go through the model a few at a
 * time (about 8192 tokens), so W may be large. Returns 0 or -1. */
int bl_lengen(bl_model *m, const int *tokens, int W, int L, int sliding, float *mean, float *se);

#endif
