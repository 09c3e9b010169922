/* draw.h - drawing a figure with cairo, for the PNG and SVG files (internal to src/viz). */
#ifndef BL_VIZ_DRAW_H
#define BL_VIZ_DRAW_H

#include <cairo.h>
#include "viz/plot.h"

/* Draw f on cr over a logical page of w x h units (1 unit = 1 pixel at scale 1): white
 * background, title, panels in their grid (equal columns; a grid of heatmaps only, e.g. the
 * heads of `attn`, packed side by side and centred when its maps need less width). The caller
 * has checked f (bl_fig_check).
 * Returns 0 or -1 ("draw: ..." on a cairo error). */
int bl_draw_figure(const bl_figure *f, cairo_t *cr, double w, double h);

#endif
