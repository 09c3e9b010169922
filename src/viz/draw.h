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

/* ---- the layout of a drawn figure, for tests ---- */

/* what a text is: the figure's title, a panel's title, an axis label (x or y, of a lines panel
 * or a heatmap), a tick label (axes, colour bars, row and column labels), a legend entry, other
 * (cell values, notes, text panels) */
enum { BL_TEXT_TITLE, BL_TEXT_PANEL_TITLE, BL_TEXT_AXIS_LABEL, BL_TEXT_TICK, BL_TEXT_LEGEND, BL_TEXT_OTHER };

/* an axis' visible range (lo < hi) and whether it is a log scale */
typedef struct {
    double lo, hi;
    int log;
} bl_scale_range;

typedef struct {
    int role;              /* BL_TEXT_* */
    int panel;             /* its panel's index, -1 for the figure's title */
    double x0, y0, x1, y1; /* its box in page units (ascent to descent, turned with the text) */
    double size;           /* font size in page units */
    char text[96];         /* as drawn (cut to fit this field) */
} bl_text_box;

#define BL_LAYOUT_MAX_TEXT 2048

/* where a lines panel's legend went: none, inside the plot area, outside it on the right, or
 * outside it below (under the x label) */
enum { BL_LEGEND_NONE, BL_LEGEND_INSIDE, BL_LEGEND_RIGHT, BL_LEGEND_BELOW };

/* one lines panel as drawn */
typedef struct {
    int panel;                    /* its index */
    double bx0, by0, bx1, by1;    /* the panel's box, page units */
    double x0, y0, x1, y1;        /* the plot area (the axes), page units */
    bl_scale_range xr, yr;        /* the axes' ranges */
    int yfixed;                   /* the y range is the picture's, not the data's (ylim, an axis
                                   * from 0 such as an rms's) */
    int legend;                   /* BL_LEGEND_* */
    double lx0, ly0, lx1, ly1;    /* the legend's box, page units */
    double lsize;                 /* the legend's font size, page units */
    int pt0, npt;                 /* its plotted points: pt[pt0 .. pt0 + npt) of the layout */
} bl_axes_box;

/* a data point drawn (a vertex of a line or a marker) inside a plot area, page units */
typedef struct {
    int panel, series;     /* its panel's index, its series' index in the panel */
    float x, y;
} bl_layout_point;

/* what else a drawn figure holds: a heatmap's map (its cells), a colour bar, an image of an
 * images panel (rows x cols: its overlay's cells, 0 without one), the outline of a marked
 * cell (of a map or of the grid over an image; its outer edge) */
enum { BL_BLOCK_MAP, BL_BLOCK_BAR, BL_BLOCK_IMAGE, BL_BLOCK_MARK };

typedef struct {
    int panel, kind;       /* its panel's index, BL_BLOCK_* */
    double x0, y0, x1, y1; /* its box, page units */
    int rows, cols;        /* a map's cells (0 otherwise) */
} bl_block_box;

/* how one series of a lines panel was drawn */
typedef struct {
    int panel, series;     /* its panel's index and its index in the panel */
    int color;             /* its palette colour */
    int dash;              /* its line: 0 solid, k > 0 the k-th dash pattern; -1 no line */
    int dots;              /* its points drawn as dots: markers, and the finite points with no
                            * finite neighbour (a line does not show them) */
} bl_series_style;

#define BL_LAYOUT_MAX_AXES 64
#define BL_LAYOUT_MAX_POINTS 32768
#define BL_LAYOUT_MAX_BLOCKS 256
#define BL_LAYOUT_MAX_SERIES 256

typedef struct {
    double w, h;           /* the page */
    double u;              /* the size unit (1 at 1600 x 900) */
    int ntext, lost;       /* texts recorded; lost: those past BL_LAYOUT_MAX_TEXT */
    bl_text_box text[BL_LAYOUT_MAX_TEXT];
    int naxes;             /* lines panels recorded */
    bl_axes_box axes[BL_LAYOUT_MAX_AXES];
    int npt, lost_pt;      /* points recorded; lost_pt: those past BL_LAYOUT_MAX_POINTS */
    bl_layout_point pt[BL_LAYOUT_MAX_POINTS];
    int nblock;            /* maps, colour bars and images recorded */
    bl_block_box block[BL_LAYOUT_MAX_BLOCKS];
    int nseries;           /* series of lines panels recorded */
    bl_series_style series[BL_LAYOUT_MAX_SERIES];
} bl_layout;

/* Record the layout of every figure drawn from now on into t (each bl_draw_figure starts it
 * afresh), or stop recording (t NULL). For tests: `rope table width=400 > x.png` run with a
 * layout set tells where its titles went and how large they were, where each lines panel's
 * plot area, axis ranges and legend went, where its data points were drawn and how each series
 * was drawn, and where each heatmap's map, each colour bar and each image went. Not
 * thread-safe. */
void bl_draw_trace(bl_layout *t);

#endif
