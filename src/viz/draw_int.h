/* draw_int.h - what the files drawing a figure with cairo share (internal to draw*.c): the
 * drawing context, a panel's box, the house colours, text and line primitives (draw_text.c,
 * draw.c), the layout recorder (draw.c), and each kind of panel's layout and drawing:
 * draw_axes.c, draw_lines.c, draw_heat.c, draw_image.c. Sizes are in units (1 unit = 1 pixel
 * at 1600 x 900; d->u page units) unless said otherwise. */
#ifndef BL_VIZ_DRAW_INT_H
#define BL_VIZ_DRAW_INT_H

#include "viz/draw.h"
#include "viz/scale.h"
#include <stddef.h>
#include <stdint.h>

#define MAX_TICKS 16
/* the colours of the page and of what is drawn in ink on it, by theme (bl_figure.theme) */
typedef struct {
    uint32_t bg, text, tick, grid, spine, frame;   /* frame: the legend's border */
} dr_theme;
#define C_TEXT (d->th.text)
#define C_TICK (d->th.tick)
#define C_GRID (d->th.grid)
#define C_SPINE (d->th.spine)
#define C_INK_DARK 0x222222u /* text on light cells of a map, whatever the theme */
#define C_MARK 0xe8250cu /* the outline of a marked heatmap cell (vermilion, seen on viridis and RdBu) */

typedef struct {
    cairo_t *cr;
    double u; /* size unit: 1 at 1600 x 900 */
    double fontk; /* the figure's font= (1 by default), a factor of u */
    cairo_matrix_t to_page; /* device -> page units (the inverse of the matrix drawing started with) */
    bl_layout *trace;       /* or NULL: where each text is recorded (bl_draw_trace) */
    int role, panel;        /* of the texts drawn now: BL_TEXT_*, the panel's index */
    int series;             /* of the points drawn now: the series' index in its panel */
    double fsize;           /* the font size set last, page units */
    dr_theme th;            /* the colours */
    int legend;             /* BL_LEGEND_AUTO or BL_LEGEND_OUTSIDE (bl_figure.legend) */
    int measure;            /* the first pass of a figure: nothing is drawn (a group thrown
                             * away), the panel titles only say the size they need */
    double ptitle;          /* the size (units) of every panel title: the smallest any needs */
    int tlines;             /* the lines every panel title has room for (1 .. DR_TITLE_LINES):
                             * a title too long for one line at a readable size wraps */
    double tneed[3];        /* the measuring pass: the largest size (units) at which every panel
                             * title fits in 1, 2, 3 lines (0: some title does not, at its least) */
    int legend_of;          /* >= 0: the lines panels of the figure have one legend (the same
                             * entries, as qk growth's two), drawn by this panel alone */
    double axis_need;       /* the measuring pass: the smallest size (units) an axis label needs
                             * to fit (its least when it is cut even so) */
    double axis_size;       /* every axis label's size (units), axis_need; 0: 18 */
    int drop_log;           /* no axis label says " (log scale)": one would be smaller than the
                             * tick labels with it (found by the measuring pass, draw_axes.c) */
    int last_col;           /* the panel drawn now is in the figure's last column */
    int last_row;           /* ... and in its last row */
    double strip;           /* page units kept free right of the grid, up to strip_x1, for the
                             * legends of the last column's lines panels that have no room in
                             * their panel (0: none) */
    double strip_x1;
    double strip_need;      /* the measuring pass: the strip such a legend needs (0: none does) */
    double below;           /* page units kept free under the grid for the legend of the last
                             * row's last panel instead (0: none), in as many columns as fit */
    double below_need;      /* the measuring pass: the height that legend needs there (< 0: a
                             * legend of another row needs the strip on the right) */
    double title_size;      /* the figure title's size (units), 0 without: no panel title is larger */
    int img_bar;            /* some images panel of the figure has an overlay: every images
                             * panel keeps DR_BAR_ROOM on the right of its grid (its colour bar,
                             * or room that keeps the images of all panels at one scale) */
    int img_one_bar;        /* ... unless every panel of the figure is an images panel with an
                             * overlay and all overlays have one range (the heads of `attn
                             * query=`): then one colour bar right of the whole grid, as
                             * matplotlib's fig.colorbar(im, ax=axes), its room (DR_BAR_ROOM)
                             * kept by the last column (bl_fig_overlay_one_bar) */
} dctx;

/* a panel's box; its horizontal texts (title, x label, notes) stay within tx0 .. tx1, which
 * is the box itself unless the next column starts inside it (a compact grid of heatmaps) */
typedef struct {
    double x, y, w, h;
    double tx0, tx1;
} box;

/* ---- primitives and the layout recorder (draw.c) ---- */

void dr_rgb(cairo_t *cr, uint32_t c, double alpha);
void dr_line(dctx *d, double x0, double y0, double x1, double y1, uint32_t color, double width);
void dr_to_page(dctx *d, double *x, double *y);
void dr_record_text(dctx *d, double x, double y, const char *s, double tw, const cairo_font_extents_t *fe);
bl_axes_box *dr_record_axes(dctx *d, box b, box a, const bl_scale *xs, const bl_scale *ys);
void dr_record_point(dctx *d, bl_axes_box *r, double x, double y);
void dr_record_block(dctx *d, int kind, double x0, double y0, double x1, double y1, int rows, int cols);
void dr_record_series(dctx *d, int s, int color, int dash, int dots);

/* ---- text layout (draw_text.c) ---- */

/* A title or label shrinks to no less than FIT_SHRINK of its size, nor below FIT_MIN_PX pixels
 * (unless it was smaller than that to begin with), before it is cut. */
#define FIT_SHRINK (2.0 / 3)
#define FIT_MIN_PX 8.0
/* Tick labels (axes, colour bars, a map's rows and columns, such as TinyGPT's characters) are
 * DR_TICK units (11.3 pixels at 800 x 450, 16 at 1600 x 900, times font=), and shrink to fit
 * their cells no further than dr_tick_least(): FIT_MIN_PX pixels times font= (at font=2 attn's
 * characters stayed at 8 pixels), unless they were smaller to begin with; past that, every
 * k-th is drawn. */
#define DR_TICK 16
double dr_tick_least(const dctx *d);

void dr_font(dctx *d, double size, int bold, int mono);
double dr_text_w(dctx *d, const char *s);
/* text at (x, y): ax 0/0.5/1 = left/centre/right of x; y is the vertical middle of the text */
void dr_text(dctx *d, double x, double y, const char *s, double ax, uint32_t color);
void dr_text_vertical(dctx *d, double x, double y, const char *s, uint32_t color);
double dr_least_size(const dctx *d, double size);
double dr_fit_size(dctx *d, const char *s, double size, int bold, double maxw);
void dr_text_at(dctx *d, double x, double y, const char *s, double size, int bold, double maxw, uint32_t color);
void dr_text_fit(dctx *d, double x, double y, const char *s, double size, int bold, double maxw, uint32_t color,
                 int vertical);
double dr_room_at(box b, double x);
/* Panel titles: 21 units bold, one size for all panels of a figure, wrapped onto at most
 * DR_TITLE_LINES lines DR_TITLE_LH apart (more where the font is taller, on small pages) (dctx.tlines, chosen by dr_title_choose); neighbouring
 * titles stay DR_TITLE_SEP apart (a gap that reads as one space ran two titles into one line). */
#define DR_TITLE_LINES 3
#define DR_TITLE_LH 25
#define DR_TITLE_SEP 28
/* the room (page units) from a panel's top to what is under its title */
double dr_title_top(dctx *d, const bl_panel *p);
/* what the measuring pass found (dctx.tneed): the lines panel titles take and their size, in
 * d->tlines and d->ptitle. On a page at least DR_TITLE_TALL units high (page_h page units) the
 * fewest lines that keep them at 85% of 21 units or more; on a shorter one the fewest that keep
 * them whole at their least size (shrunk first, wrapped only rather than cut); else the lines
 * that keep them largest. */
#define DR_TITLE_TALL 450
/* The figure's title: DR_FIG_TITLE units bold, DR_FIG_TITLE_SHORT on a page shorter than
 * DR_TITLE_TALL units (800 x 450 at font=2 is 318: two lines of 28 took a third of it) */
#define DR_FIG_TITLE 28
#define DR_FIG_TITLE_SHORT 24
void dr_title_choose(dctx *d, double page_h);
/* Whether title s wraps onto DR_TITLE_LINES lines of `room` page units at its least size */
int dr_title_cut(dctx *d, const char *s, double room);
void dr_panel_title(dctx *d, const bl_panel *p, box b, double y);
void dr_text_panel(dctx *d, const bl_panel *p, box b);
/* An axis label s centred on (x, y) (turned upwards when vertical) in maxw: 18 units, the same
 * size for every axis label of a figure (the smallest any needs, found by the measuring pass:
 * qk growth at font=2 drew 17, 20 and 23.5 pixels), fitted and cut as dr_text_fit */
void dr_axis_label(dctx *d, double x, double y, const char *s, double maxw, int vertical);

/* ---- axes (draw_axes.c) and lines panels (draw_lines.c) ---- */

/* Where the parts of a lines panel go in box b: the plot area a, the axes' scales and the y
 * tick labels; right and below: room kept free for a legend outside the plot area. */
typedef struct {
    box a;
    bl_scale xs, ys;
    char xlab[256], ylab[256], note[128];
    int nyt, xmax_ticks;
    double yt[MAX_TICKS], ystep;
    char yl[MAX_TICKS][24];
} lines_geom;

/* A lines panel's x label: centred DR_XLAB_AT units under the plot area, 4 units under its tick
 * labels (50 left a band between them and under it at font=2); DR_XLAB_ROOM units kept for it
 * below the tick labels' 34 */
#define DR_XLAB_AT 43
#define DR_XLAB_ROOM 26
void dr_axes_place(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy, double right,
                   double below, lines_geom *g);
void dr_axes_draw(dctx *d, const bl_panel *p, box b, const lines_geom *g);
void dr_lines(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy);
/* The panel that draws the one legend of f's lines panels when there are two or more and their
 * legends have the same entries (labels, colours, how drawn), the last of them; else -1 */
int dr_shared_legend(const bl_figure *f);

/* ---- heatmaps and colour bars (draw_heat.c) ---- */

/* What a heatmap panel draws around its map. A figure whose maps would be small drops some of
 * it, a step at a time (dr_heat_deco_at, plan_grid), before it shrinks the maps further. */
typedef struct {
    int bar;              /* its colour bar with its labels */
    int ylab, rowticks;   /* its y label; its rows' tick labels */
    int xlab, colticks;   /* its x label; its columns' tick labels */
    int bar_room;         /* the room of a colour bar kept but none drawn: the maps of a
                           * column above its shared bar stay aligned with the one beside it */
} heat_deco;

/* Where a heatmap goes in box b with decorations k, in page units: its cells (cw x ch), its
 * left and top edge, the widest row label at 15 units (lw), the room its decorations take left
 * and right of the map and below it (side_l, side_r, bottom), the width it needs from b's left
 * edge (need) and the right end of its colour bar's labels (ink, the map's right edge without
 * a bar); its labels' font size and which of them are drawn (label_fit). Square cells, unless
 * the map is not square and that leaves most of the panel's height empty (a wide table such
 * as RoPE's [16, 32]): then cells up to 3 times as tall as wide fill it. The map and its bar
 * are centred in b when b is wider than they need. */
typedef struct {
    double left, top, cw, ch, lw, side_l, side_r, bottom, need, ink;
    double label_size;
    int every_r, every_c;
} heat_geom;

heat_geom dr_heat_place(dctx *d, const bl_panel *p, box b, heat_deco k);
int dr_heat_thin(const bl_panel *p, const heat_geom *g, heat_deco k);
/* where a heatmap's title is centred: over its box, or over the map when the box holds its
 * colour bar too (head 3 of 4 in a row stood over the bar) */
double dr_heat_title_x(const heat_geom *g, box b, heat_deco k, int cols);
void dr_thin_note(int kmin, int kmax, int which, char *buf, size_t n);
heat_deco dr_heat_deco_at(const bl_figure *f, int i, int level);
void dr_heatmap(dctx *d, const bl_panel *p, box b, heat_deco k);
/* the room a colour bar with its labels takes right of a map (units), and the gap before it */
#define DR_BAR_ROOM 110
#define DR_BAR_GAP 24
/* a colour bar of cmap over [vmin, vmax] in `bar` (vmax at the top), its tick labels right of it */
void dr_colorbar(dctx *d, bl_cmap cmap, float vmin, float vmax, box bar);
/* the width (page units) from a map's right edge to the end of its colour bar's labels, for a
 * bar h page units tall over [vmin, vmax] */
double dr_colorbar_ink(dctx *d, float vmin, float vmax, double h);
/* the outline of cell (row, col) of cells cw x ch from (x0, y0), inside the cell so that it
 * covers no other cell (C_MARK), recorded as BL_BLOCK_MARK */
void dr_mark(dctx *d, double x0, double y0, double cw, double ch, int row, int col);

/* ---- images (draw_image.c) ---- */

/* Where the images of an images panel go in box b: g a row, each scaled by s, the grid's top
 * left corner (x0, y0), `gap` between them; used: the height from b's top to the grid's
 * bottom. Without fixed columns, bl_grid_square_cols's choice (the terminal's too). */
typedef struct {
    int g, rows;
    double s, x0, y0, gap, used;
    double bar;   /* room kept right of the grid for a colour bar (dctx.img_bar), page units */
} images_geom;

images_geom dr_images_place(dctx *d, const bl_panel *p, box b);
void dr_images(dctx *d, const bl_panel *p, box b);
/* the figure's one colour bar (dctx.img_one_bar), DR_BAR_GAP right of the rightmost image, from
 * the top of the first row's images to the bottom of the last row's (boxes: each panel's box) */
void dr_images_shared_bar(dctx *d, const bl_figure *f, const box *boxes);

#endif
