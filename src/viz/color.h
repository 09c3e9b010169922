/* color.h - colour maps, the series palette and terminal colour codes (internal to src/viz).
 *
 * Colours are 0xRRGGBB in sRGB. BL_NO_RGB marks "the terminal's default colour".
 */
#ifndef BL_VIZ_COLOR_H
#define BL_VIZ_COLOR_H

#include <stdint.h>
#include "viz/plot.h"

#define BL_NO_RGB 0xff000000u

/* The colour of t in [0, 1] (clamped; NaN gives BL_NO_RGB) on the map. viridis is matplotlib's
 * 256-entry table (van der Walt & Smith 2015); the diverging map interpolates ColorBrewer RdBu
 * (11 classes) reversed: t = 0 is #053061 (dark blue), 0.5 is #f7f7f7, 1 is #67001f (dark red). */
uint32_t bl_cmap_rgb(bl_cmap map, double t);

/* The position of value v on the colour scale [vmin, vmax] (0..1, clamped; NaN stays NaN). */
double bl_cmap_pos(float v, float vmin, float vmax);

/* The colour range of a heatmap panel: its fixed range, else [min, max] for viridis and
 * [-m, m] with m = max |v| for the diverging map (a flat map gets a range of width 1 around it). */
void bl_heat_range(const bl_panel *p, float *vmin, float *vmax);
/* The note a heatmap with infinite cells or no number at all (drawn blank) shows under it: "all
 * values are NaN", or "blank: 2 NaN, 1 +inf" (counts of NaN, +inf, -inf). Returns 0 and buf ""
 * when there is none (some NaN cells alone are a mask, as rope check's, and need no note). */
int bl_heat_note(const bl_panel *p, char *buf, size_t n);

/* The note a lines panel with points that are not finite (left out of its lines) shows under
 * it: "1 point not finite, not drawn: 1 +inf", "3 points not finite, not drawn: 2 NaN, 1 -inf"
 * (a point counts by its y, or its x when y is finite; faint series, which repeat a smoothed
 * one, are left out). Returns 0 and buf "" when every point is finite. */
int bl_lines_note(const bl_panel *p, char *buf, size_t n);

/* The colour of pixel (x, y) of image i of an images panel: its channels mapped from [lo, hi]
 * to 0..255 (grey when c = 1), with the overlay heatmap blended in when there is one. */
uint32_t bl_image_rgb(const bl_panel *p, int i, int x, int y);

/* Series colour i of the palette (matplotlib's tab10, i taken modulo 10). */
uint32_t bl_palette(int i);

/* The colour series se is drawn in: its palette colour, or grey (#999999) for a BL_GUIDE line. */
uint32_t bl_series_rgb(const bl_series *se);

/* a * (1 - t) + b * t per channel */
uint32_t bl_rgb_mix(uint32_t a, uint32_t b, double t);

/* The nearest xterm-256 colour (6x6x6 cube 16..231 or grey ramp 232..255) by squared distance. */
int bl_rgb_to_xterm256(uint32_t rgb);

/* Perceived brightness 0..1 (Rec. 709 luma on the sRGB values). */
double bl_rgb_luma(uint32_t rgb);

#endif
