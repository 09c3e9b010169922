/* cmd_plots.h - the picture commands of the REPL (DESIGN.md section 8; issue 6 item 2):
 *
 *   plot loss [MODELS...]  train loss of runs overlaid, EMA + faint raw, validation markers, log y
 *   attn [MODEL]           the attention matrices of the current model on a fixed input
 *   stats [MODEL|TENSOR]   per-token mean and rms before and after the norm
 *   rope table             RoPE cos/sin tables and the angle of each pair against position
 *   rope check             the relative-position property: one score for every position pair
 *   qk growth              attention logits against a weight scale, with and without QK-norm
 *
 * Each command leaves a figure value (repl/figures.h), so `rope check > rope.png` (.svg .csv
 * .json .txt) saves the picture. The numbers behind the pictures come from the functions below,
 * which the unit tests compare with DESIGN.md (sections 2 and 3). cmd_rope.c holds rope, cmd_qk.c
 * qk growth (the experiment itself is train/qkgrowth.c), cmd_plots.c the model pictures and the
 * shared word helpers.
 */
#ifndef BL_REPL_CMD_PLOTS_H
#define BL_REPL_CMD_PLOTS_H

#include "repl/models.h"
#include "repl/repl.h"
#include "train/metrics.h"
#include "train/qkgrowth.h"
#include "viz/plot.h"

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


/* The loss figure of n runs: for run i, train loss per step (EMA with bias correction at weight
 * `smooth` in [0, 1), raw curve faint), validation losses as markers in the same colour when
 * `val`, log y when `logy`; labels[i] names run i in the legend. NULL + "plot loss: ..." when
 * no run has a step or smooth is out of range. */
/* val = 2 (val=only): the validation losses alone, joined by lines, named by the run, and no
 * train curve ("Validation loss"). */
bl_figure *bl_plot_loss_figure(const bl_metrics *const *runs, const char *const *labels, int n,
                               float smooth, int logy, int val);
/* The same relative to run `base` (relative=NAME): each run's EMA minus the baseline's at the
 * same step (over the steps both have; the EMA is linear, so this is the EMA of the difference),
 * the baseline a line at 0, on a linear axis; val = 1 adds the validation differences as markers
 * (at the steps the baseline has a val loss too), val = 2 draws only those, joined. A run whose
 * label ends in "seed2" (compare's seed + 1 copy of the baseline, cmp_seed2) also gets the seed
 * gap: a band from -|d| to |d| around 0, d its own difference. .csv: run,curve,step,
 * loss_minus_baseline with curve ema, raw (smooth=0), val or seed_gap. NULL + "plot loss: ...". */
bl_figure *bl_plot_loss_relative_figure(const bl_metrics *const *runs, const char *const *labels, int n,
                                        float smooth, int val, int base);


/* The help line of width= height= scale= (repl/figures.h), shared by every picture command. */
#define BL_FIG_SIZE_HELP                                                                     \
    "width=1600 height=900 scale=1 size the file (" BL_FIG_SIDE_RANGE " pixels a side;\n"    \
    "scale=2: HiDPI); width= or height= alone keeps the 16:9 shape (width=400:\n"           \
    "400 x 225). A title too long for the width shrinks, then takes two lines\n"           \
    "(the figure's) or is cut with an ellipsis. On a terminal width= and\n"                \
    "height= are the columns (from " BL_FIG_STR(BL_FIG_MIN_COLS) ") and rows (from "          \
    BL_FIG_STR(BL_FIG_MIN_ROWS) ") to take\n"                                                 \
    "at most (help pictures). Slide keys title= xlim= ylim= logy= legend= labels=\n"         \
    "theme= font=: help slides. Redirected to a file, it prints nothing."

/* Where a command's text table goes: the session's output (the terminal, or the file of a
 * `> FILE.txt` redirect), or a stream that discards everything when the statement writes its
 * picture to a .png, .svg, .csv or .json file instead. */
FILE *bl_cmd_text_out(bl_cmdargs *a);

int bl_cmd_plot(bl_cmdargs *a);
int bl_cmd_attn(bl_cmdargs *a);
int bl_cmd_stats(bl_cmdargs *a);
int bl_cmd_rope(bl_cmdargs *a);
int bl_cmd_qk(bl_cmdargs *a);
int bl_complete_plot(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_rope(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_qk(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);

#define BL_PLOT_COMMANDS \
    { "plot", "plot loss [MODELS...] [smooth=0.9]", \
      "Train loss curves of one or several runs.\n" \
      "plot loss [MODELS...] [smooth=0.9] [logy=auto] [val=on|off|only]\n" \
      "[relative=NAME]: each model's\n" \
      "run in its own colour with a legend: the EMA (bias-corrected, weight\n" \
      "smooth) over the faint raw loss, validation losses as markers; a log\n" \
      "y axis when the losses span more than a decade (logy=on|off).\n" \
      "No MODELS: the current model. `plot loss a b > loss.png` saves it.\n" \
      "loss.csv: one row per point, columns run,curve,step,loss (curve raw,\n" \
      "ema or val).\n" \
      "val=only: the validation losses alone, joined. relative=NAME (one of\n" \
      "MODELS; baseline names compare's cmp_baseline): each run minus the\n" \
      "baseline NAME (the EMA of the difference),\n" \
      "linear y, the baseline at 0; a run named ...seed2 (compare's cmp_seed2)\n" \
      "adds the seed gap as a band around 0. Its csv: run,curve,step,\n" \
      "loss_minus_baseline (curve also seed_gap).\n" \
      BL_FIG_SIZE_HELP, \
      bl_complete_plot, bl_cmd_plot, BL_WRITES_PICTURE }, \
    { "attn", "attn [MODEL] [layer=0] [head=all|N] [query=N] [image=0]", \
      "Attention maps of the model on a fixed input.\n" \
      "TinyDiT: validation image 0 (image=N) of its data (or shapes) at\n" \
      "t = 0.5; TinyGPT: a fixed text window, labelled with its characters.\n" \
      "Shows the L x L attention of one head or all heads (small multiples).\n" \
      "query=N (TinyDiT): each head's weights of patch N (row N / grid,\n" \
      "column N mod grid) over the patch grid, drawn as a translucent\n" \
      "heat overlay on the clean image at the image's scale, patch N\n" \
      "outlined, one colour bar range for all heads (PNG, SVG, terminal).\n" \
      "`attn layer=1 > attn.png` saves it. attn.csv: one row per query and\n" \
      "key, columns layer,head,query,key,prob (keys and queries numbered as\n" \
      "tokens; a TinyDiT patch at row r, column c is r * grid + c; with\n" \
      "query=N the rows of query N); each query's probs sum to 1 over keys.\n" \
      BL_FIG_SIZE_HELP, \
      bl_complete_modelvar, bl_cmd_attn, BL_WRITES_PICTURE }, \
    { "stats", "stats [MODEL|TENSOR] [layer=0] [image=0]", \
      "Per-token mean and rms before and after a norm.\n" \
      "For a model: the residual stream entering layer N's first norm and\n" \
      "that norm's output, on the fixed input of attn. For a tensor [..., D]:\n" \
      "the tensor, LayerNorm(x) and RMSNorm(x) (no weights). LayerNorm makes\n" \
      "every mean 0 and rms 1; RMSNorm only the rms. stats > s.csv: columns\n" \
      "layer,series,token,mean,rms (for a tensor series,token,mean,rms).\n" \
      BL_FIG_SIZE_HELP, \
      bl_complete_modelvar, bl_cmd_stats, BL_WRITES_PICTURE }, \
    { "rope", "rope table|check [KEY=VALUE...]", \
      "RoPE pictures: the tables and the relative check.\n" \
      "rope table [head_dim=32] [base=10000] [grid=0] [tokens=64]: cos and\n" \
      "sin [tokens, head_dim] and each pair's angle against position;\n" \
      "grid=8 shows the 2-D tables (base 100).\n" \
      "rope check [dr=1] [dc=2] [head_dim=32] [base=100] [grid=8]: q = k =\n" \
      "ones at every cell pair with offset (dr, dc) give one score; a heatmap\n" \
      "of the score against every offset, with the numbers printed.\n" \
      "As .csv, one table each. rope table: a row per token and feature,\n" \
      "  position,feature,pair,angle,cos,sin\n" \
      "  (grid=G: token,row,col,feature,pair,angle,cos,sin).\n" \
      "rope check: a row per q, k pair,\n" \
      "  block,q_row,q_col,k_row,k_col,dr,dc,score\n" \
      "  block pairs: the pairs at (dr, dc) on the grid; block offsets: q at\n" \
      "  the centre (grid-1, grid-1) of a (2 grid - 1)^2 grid, k at every offset.\n" \
      BL_FIG_SIZE_HELP, \
      bl_complete_rope, bl_cmd_rope, BL_WRITES_PICTURE }, \
    { "qk", "qk growth [random=on] [scales=1,4,16] [seed=0] [tokens=64] [head_dim=32]", \
      "Attention-logit growth with and without QK-norm.\n" \
      "random=on (the lecture's experiment): q, k [tokens, head_dim] ~ N(0, 1)\n" \
      "from seed=, each times s; random=off: q, k = s x W (x [tokens, 64] and\n" \
      "W fixed). Prints max |logit| and the mean top attention weight per\n" \
      "scale and draws them against s: without QK-norm the logits grow as s^2\n" \
      "and the top weight goes to 1; with it (RMSNorm of q and k) both stay\n" \
      "the same. torch.manual_seed(0) gives 3.8/0.11, 60.5/0.90, 969/1.00\n" \
      "against 3.4/0.10; blocklab draws its own q, k, so its numbers are\n" \
      "close, not equal. Scales are in (0, 1e6].\n" \
      "qk.csv: columns qk_norm,scale,max_logit,top_weight (qk_norm off, on).\n" \
      BL_FIG_SIZE_HELP, \
      bl_complete_qk, bl_cmd_qk, BL_WRITES_PICTURE },

#endif
