/* term.h - the terminal renderer's canvas entry point, shared with the dashboard (internal).
 *
 * bl_term_print (plot.h) is bl_term_canvas + bl_canvas_write; dash.c draws the same canvas with
 * ncurses. The drawing style depends only on two switches:
 *   color    colours available: curves in palette colours, heatmaps as half blocks `▀` with
 *            fg = upper pixel and bg = lower pixel; otherwise curves without colour (several
 *            curves get one ASCII mark each) and heatmaps with the ramp " .:-=+*#%@"
 *   unicode  braille dots and box drawing; otherwise ASCII only
 */
#ifndef BL_VIZ_TERM_H
#define BL_VIZ_TERM_H

#include "viz/canvas.h"
#include "viz/plot.h"

/* Draw the figure on a new canvas `width` columns wide; height 0 = natural height, else exactly
 * `height` rows. NULL with bl_error() set (bl_fig_check's errors, width too small). */
bl_canvas *bl_term_canvas(const bl_figure *f, int width, int height, int color, int unicode);

#endif
