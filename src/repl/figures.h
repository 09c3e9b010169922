/* figures.h - pictures (src/viz figures) as REPL values: printed on the terminal with
 * bl_term_print, written by `STATEMENT > FILE.png|svg|csv|json|txt` with bl_fig_save, and the
 * functions heatmap() and lineplot() that draw tensors. Plot commands make their pictures with
 * bl_val_figure, so `plot loss > loss.png` needs nothing more. */
#ifndef BL_REPL_FIGURES_H
#define BL_REPL_FIGURES_H

#include "repl/repl.h"
#include "viz/plot.h"

extern const bl_handle_type bl_figure_type;

/* A value holding f (takes ownership; NULL passes through). */
bl_value *bl_val_figure(bl_figure *f);

bl_value *bl_fn_heatmap(bl_callargs *a);
bl_value *bl_fn_lineplot(bl_callargs *a);

#define BL_FIGURE_FUNCTIONS                                                                     \
    { "heatmap", "heatmap(x, title=, diverging=auto)",                                         \
      "A picture of a 2-D tensor (rows x columns), e.g. heatmap(score) for the RoPE check or\n" \
      "heatmap(attention(q, k, v, weights=on)[0, 0]). Signed values get a diverging colour map\n" \
      "centred on 0. Printed on the terminal; `heatmap(x) > x.png` (.svg .csv .json .txt) saves it.", \
      bl_fn_heatmap },                                                                          \
    { "lineplot", "lineplot(y, x=, title=, label=, logy=off)",                                 \
      "A line picture of y (a 1-D tensor or list; a 2-D tensor draws one line per row) against\n" \
      "x (0, 1, ... by default). `lineplot(y) > y.png` saves it.", bl_fn_lineplot },

#endif
