/* scale.h - axis scales, nice tick numbers and tick labels (internal to src/viz).
 *
 * A scale maps data values to [0, 1] along an axis, linearly or by log10 (a true log scale: only
 * values > 0). Ticks follow Heckbert's "nice numbers" (Graphics Gems, 1990): steps of 1, 2 or 5
 * times a power of ten; on a log scale, the powers of ten (every k-th when more than max_ticks + 1), with
 * 2 and 5 (then 1..9) times them added when the range spans less than two decades, and 1..9
 * times them first when it spans less than one and they fit in max_ticks + 1.
 */
#ifndef BL_VIZ_SCALE_H
#define BL_VIZ_SCALE_H

#include <stddef.h>
#include "viz/plot.h"

typedef struct {
    double lo, hi; /* the visible range, lo < hi (both > 0 when log) */
    int log;
} bl_scale;

/* Fit a scale to the data range [dlo, dhi] with a margin (fraction of the range, in log10 units
 * when log) on each side. A zero-width range is widened. dlo and dhi must be finite (> 0 when log). */
void bl_scale_fit(bl_scale *s, double dlo, double dhi, int log, double margin);

/* Position of v in [lo, hi] as 0..1 (outside the range: < 0 or > 1; NaN when v <= 0 on a log scale). */
double bl_scale_pos(const bl_scale *s, double v);

/* Up to `cap` nice ticks inside [lo, hi], at most about max_ticks of them, ascending. Returns the
 * count. *step (may be NULL) gets the linear step, or 0 on a log scale. */
int bl_scale_ticks(const bl_scale *s, int max_ticks, double *ticks, int cap, double *step);

/* Of ticks t[0..n) with spacing *step (bl_scale_ticks), the whole numbers only and *step at
 * least 1, when `count` (an axis of counts: steps, positions, bl_panel_xcount; a 3-step run's
 * loss had ticks at 0.5, 1.5); else t as it is. Returns the ticks kept. */
int bl_scale_whole_ticks(int count, double *t, int n, double *step);

/* Ticks for the indices 0 .. n-1 of heatmap rows or columns: nice ones (at most about
 * max_ticks), or every index when nice ones would fall between indices (then *step is 1); never
 * past n - 1 (a single row or column is index 0 alone). Returns the count (at most cap). */
int bl_index_ticks(int n, int max_ticks, double *ticks, int cap, double *step);

/* The first of n axis labels to show when every k-th is shown (k >= 1): the one that puts a
 * label "0" among them where there is one (a symmetric axis of offsets -7 .. 7 is labelled at its
 * centre: every 3rd from -7 gave -7 -4 -1 2 5), else ((n - 1) mod k) / 2, the shown ones in the
 * middle of the axis with the same room left at both ends. labels may be NULL. */
int bl_label_first(const char *const *labels, int n, int k);

/* Where a legend box covers the least of the panel's data, as matplotlib's loc="best": of upper
 * right, upper left, lower left, lower right, right, center left, lower center, upper center and
 * center (in this order, the first of the least covered wins), the one with the fewest data points
 * and samples along the drawn lines (8 a segment) and over the bands (BL_BAND: 8 x 9 a segment,
 * across from y to y2) inside. w, h: the box's size, m: its margin from
 * the edges, all as fractions of the plot area. Returns the index; *x0, *y0 the box's lower left
 * corner in the same fractions (y upwards). */
int bl_legend_best(const bl_panel *p, const bl_scale *xs, const bl_scale *ys, double w, double h, double m,
                   double *x0, double *y0);

/* What a legend box covers: data points and samples along the drawn lines (the points, and 8
 * a segment, more on a long one) within a quarter of the margin m of it, and over the bands under it,
 * and of all of them. */
typedef struct {
    long samples, points;  /* under the box */
    long total, npoints;   /* in all */
} bl_legend_cover;

/* bl_legend_best, and what the box covers there (cover may be NULL). */
int bl_legend_place(const bl_panel *p, const bl_scale *xs, const bl_scale *ys, double w, double h, double m,
                    double *x0, double *y0, bl_legend_cover *cover);

/* Widen a scale until its ticks cover the data [dlo, dhi] (dlo <= dhi, inside the scale; > 0 on
 * a log scale): when bl_scale_ticks(s, max_ticks) leaves no tick at or above dhi, hi becomes the
 * next tick value above dhi of the ticks in use (m x 10^k for their mantissas 1..9, 1 2 5 or 1,
 * or the next multiple of a linear step), and likewise lo goes down to a tick at or below dlo;
 * repeated (at most 4 times) while the wider range's ticks still leave an end uncovered. So the
 * axis ends at a labelled tick past the data, as gnuplot's extended autoscale: on a log scale
 * data 0.38 .. 1.34 with ticks 0.4 .. 1 becomes 0.2 .. 2 with ticks 0.2 0.5 1 2; on a linear
 * one angles 0 .. 7 fitted as -0.35 .. 7.35 with ticks 0 2 4 6 end at 8. An end a tick already
 * covers keeps its fit (its margin); on a linear scale a tick within 5% of a step of the data's
 * end covers it. */
void bl_scale_cover(bl_scale *s, double dlo, double dhi, int max_ticks);

/* A short label for tick value v ("0.25", "200", "1e-05"): decimals from the linear step (step 0:
 * log ticks, shortest %g form). Returns buf. */
char *bl_tick_label(double v, double step, char *buf, size_t n);

/* ---- axes of lines panels ---- */

typedef struct {
    int has;
    double lo, hi;
} bl_range;

/* The range of the finite points of a lines panel on x (axis_y 0) or y (1), only values > 0 on a
 * log axis, faint series left out when skip_faint; on y only the points whose x lies within
 * the panel's fixed x limits (the y axis fits the data in view, as after xlim=400:). Returns 0 when there is no such point. */
int bl_panel_data_range(const bl_panel *p, int axis_y, int skip_faint, double *lo, double *hi);

/* The union of the data ranges of all lines panels when the figure shares that axis (r->has 0
 * otherwise). */
void bl_fig_shared_range(const bl_figure *f, int axis_y, int skip_faint, bl_range *r);

/* The scale of one axis of a lines panel: its fixed limits, else the shared range, else its data
 * range, with `margin` (fraction of the range) on both sides. cover_ticks > 0 (the max_ticks the
 * caller will pass to bl_scale_ticks): a y axis, or a log x axis, fitted to the data is then
 * widened by bl_scale_cover so that it ends at the first labelled tick past the data; a linear
 * x axis (steps, positions) keeps its margin; 0 leaves the fit alone. Fixed limits are never
 * changed. */
void bl_panel_scale(bl_scale *sc, const bl_panel *p, int axis_y, const bl_range *shared, int skip_faint,
                    double margin, int cover_ticks);

#endif
