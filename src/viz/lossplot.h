/* lossplot.h - the loss figures of `plot loss` (src/repl/cmd_plot.c): each run's train loss as
 * a bias-corrected EMA over the faint raw curve with its validation losses, or each run's
 * difference from a baseline run. */
#ifndef BL_VIZ_LOSSPLOT_H
#define BL_VIZ_LOSSPLOT_H

#include "train/metrics.h"
#include "viz/plot.h"

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

#endif
