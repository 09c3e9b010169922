/* plot.h - one description of a picture, drawn by every renderer of blocklab (DESIGN.md section 8).
 *
 * A figure is a grid of panels (rows x cols, filled row by row). Each panel holds one kind of
 * content:
 *
 *   lines    line series (x, y arrays), optional markers, faint raw curves, validation points,
 *            axis labels, nice ticks, legend, true log scale on either axis
 *   heatmap  rows x cols floats, viridis (magnitudes) or a diverging map centred on 0 (signed
 *            values), optional row/col tick labels (e.g. characters), a colour bar with its range
 *   images   N images C x H x W (C = 1 grey or 3 RGB) with values in [lo, hi], as a grid
 *   text     a block of plain text (text samples)
 *
 * Every builder copies the caller's arrays, so a figure outlives the tensors it was made from.
 * The renderers are
 *   bl_term_print  (term.c)  braille curves and half-block heatmaps on a terminal or in a file
 *   bl_term_show   (termimg.c) on a terminal: the PNG's drawing in pixels (kitty graphics, iTerm2
 *                  inline images, sixel) where the terminal shows them, else bl_term_print,
 *                  fitted to the window (termimg.h, termdetect.h)
 *   bl_fig_save    (save.c)  .png (cairo + libpng with tEXt chunks), .svg, .csv, .json, .txt
 *
 *   bl_figure *f = bl_fig_new(1, 2, "TinyGPT, 200 steps");
 *   bl_panel *p = bl_fig_panel(f, 0);
 *   bl_panel_labels(p, "train loss", "step", "loss");
 *   bl_panel_smoothed(p, "rmsnorm", steps, loss, n, 0.9f);        raw faint + smoothed, one colour
 *   bl_panel_line(p, "val", vsteps, vloss, nv, BL_MARKERS | BL_SAME_COLOR);
 *   bl_panel_log(p, 0, 1);
 *   bl_panel_heatmap(bl_fig_panel(f, 1), attn, T, T, BL_CMAP_VIRIDIS);
 *   bl_term_print(f, stdout, NULL);  bl_fig_save(f, "loss.png", NULL);  bl_fig_free(f);
 *
 * Errors: builders return -1 (or NULL) with a one-line message in bl_error() ("plot: ..."); a
 * log axis with a value <= 0 is reported by the renderers (bl_fig_check), naming the series,
 * the index and the value.
 */
#ifndef BL_VIZ_PLOT_H
#define BL_VIZ_PLOT_H

#include <stdint.h>
#include <stdio.h>

#define BL_FIG_MAX_GRID 8 /* at most 8 x 8 panels */

typedef enum { BL_PANEL_EMPTY, BL_PANEL_LINES, BL_PANEL_HEATMAP, BL_PANEL_IMAGES, BL_PANEL_TEXT } bl_panel_kind;

/* viridis (van der Walt & Smith, matplotlib 1.5) for magnitudes; the diverging map is ColorBrewer
 * RdBu reversed (blue < 0 < red, near-white at 0) and is always centred on 0. */
typedef enum { BL_CMAP_VIRIDIS, BL_CMAP_DIVERGING } bl_cmap;

/* series flags for bl_panel_line */
enum {
    BL_MARKERS = 1,    /* draw a marker at each point (with BL_NO_LINE: points only, e.g. validation) */
    BL_NO_LINE = 2,    /* no connecting line */
    BL_FAINT = 4,      /* faint style (the raw curve behind a smoothed one); no legend entry */
    BL_SAME_COLOR = 8, /* reuse the previous series' colour instead of the next palette colour */
    BL_NO_LEGEND = 16, /* leave out of the legend */
    BL_BAND = 32,      /* a filled band from y to y2 (bl_panel_band); no line, no legend */
    BL_GUIDE = 64,     /* a reference line, not a run (lengen's training context): grey, dashed,
                        * no palette colour (color -1), its label kept by labels= */
};

typedef struct {
    char *label;    /* legend text (may be "") */
    float *x, *y;   /* n points; NaN or Inf in y leaves a gap */
    float *y2;      /* a band's upper edge (BL_BAND), n points; NULL otherwise */
    int n;
    unsigned flags; /* BL_MARKERS | ... */
    int color;      /* index into the palette (bl_palette); -1 for a BL_GUIDE line */
} bl_series;

typedef struct {
    bl_panel_kind kind;
    char *title, *xlabel, *ylabel;
    int logx, logy;         /* true log scale (lines panels) */
    int xcount;             /* x values are counts (steps, positions): .json writes them as integers */
    int has_xlim, has_ylim; /* fixed axis ranges set by bl_panel_limits */
    double xlim[2], ylim[2];
    int has_yfrom;          /* the y axis starts at yfrom, its top fitted (bl_panel_yfrom) */
    double yfrom;
    /* lines */
    bl_series *series;
    int nseries, series_cap;
    /* heatmap: values[r * cols + c] */
    float *values;
    int rows, cols;
    bl_cmap cmap;
    int has_range;
    float vmin, vmax;
    char **row_labels, **col_labels; /* NULL or rows / cols strings */
    char *annotate;                  /* printf format for the value in each cell (files only), or NULL */
    int has_mark, mark_row, mark_col; /* one cell outlined (bl_panel_heatmap_mark; of an images
                                       * panel: cell (row, col) of an mrows x mcols grid laid over
                                       * every image, bl_panel_images_mark) */
    int mrows, mcols;
    /* images: pixels[((i * c + ch) * h + y) * w + x] */
    float *pixels;
    int n, c, h, w, grid_cols;
    float lo, hi;
    float *overlay; /* orows x ocols values drawn over every image (bl_panel_images_overlay), with
                     * a colour bar of [omin, omax] beside the grid */
    int orows, ocols;
    float oalpha, omin, omax;
    /* text */
    char *text;
} bl_panel;

/* The picture's numbers as one tidy table (bl_fig_table): what .csv writes. */
typedef struct {
    int ncols;
    char **names;   /* ncols unique column names */
    char *types;    /* one letter a column: 'i' integer, 'r' real number, 's' text */
    double *cells;  /* nrows x ncols, row-major; a text cell holds its index in strs */
    long nrows, cap;
    char **strs;    /* the distinct texts of the text columns */
    int nstrs, strcap;
} bl_fig_data;

typedef struct {
    char *title;
    int rows, cols;
    bl_panel *panels; /* rows * cols, row-major */
    bl_fig_data *data;  /* the numbers as one table for .csv (bl_fig_table), or NULL */
    int sharex, sharey; /* lines panels share one x (y) range */
    char *command, *config; /* provenance, written into PNG tEXt chunks and JSON */
    int width, height;      /* size asked for by the picture: logical pixels of .png/.svg (0 = from
                             * the other side, bl_fig_size; width also the columns on a terminal) */
    double scale;           /* PNG device pixels per logical pixel (0 = 1; 2 = HiDPI) */
    int legend;             /* BL_LEGEND_AUTO or BL_LEGEND_OUTSIDE (bl_fig_slide; files only) */
    int logy_auto;          /* bl_fig_slide without logy= decides as logy=auto (plot loss) */
    int theme;              /* BL_THEME_LIGHT or BL_THEME_DARK (files only) */
    double font;            /* text, margins and lines scaled by this on files (0 = 1) */
    int rows_above;         /* terminal rows of text its command printed just above it, taken off
                             * the window's height by the next bl_term_show (the statement stays
                             * in view); the REPL sets it and clears it once shown */
} bl_figure;

/* Whether a grid of n pictures may have c columns when they are chosen for it: its rows full
 * (c divides n), unless n has no divisor but 1 and n (7 images: 4 columns with 3 below), so
 * that 16 images are 2 x 8, 4 x 4 or 8 x 2, never 6 to a row with two cells empty */
int bl_grid_cols_ok(int n, int c);

/* The columns of a grid of n images when none are given, for a PNG (draw_image.c) and a
 * terminal (term.c) alike: scale(k, ctx) is how large the images are with k to a row in the
 * room there is (<= 0: they do not fit). Of the grids whose rows are full (bl_grid_cols_ok)
 * and whose images are at least BL_GRID_KEEP of the largest any grid makes them, the most
 * square in images (rows against columns: 16 images 4 x 4, not 2 x 8 on a 16:9 slide where
 * 2 x 8 makes them 7% larger and leaves bands empty above and below), and of two as square the
 * one with larger images, or as large the one with more columns (2 images side by side). 1
 * when none fits. */
#define BL_GRID_KEEP 0.8
int bl_grid_square_cols(int n, double (*scale)(int k, const void *ctx), const void *ctx);

/* A new empty figure of rows x cols panels (1..8 each) with an optional title (NULL = none).
 * NULL with "plot: ..." on a bad grid or out of memory. */
bl_figure *bl_fig_new(int rows, int cols, const char *title);
void bl_fig_free(bl_figure *f);

/* Panel `index` (row-major, 0 .. rows*cols-1), or NULL with "plot: panel N out of range". */
bl_panel *bl_fig_panel(bl_figure *f, int index);

/* Lines panels share one x range (sharex) and/or one y range (sharey). */
void bl_fig_share(bl_figure *f, int sharex, int sharey);

/* The command and the model configuration that made the figure (either may be NULL); they are
 * stored in PNG tEXt chunks "Command" and "Config" and in JSON "meta". Returns 0 or -1. */
int bl_fig_meta(bl_figure *f, const char *command, const char *config);

/* The picture's numbers as one tidy table, which .csv writes instead of the panels: one row per
 * observation, one column per variable (those that identify the row first, e.g. layer, head,
 * query, key, then the measured value, prob). names holds strlen(types) unique column names;
 * types one letter a column: 'i' an integer, 'r' a real number, 's' text. Then add the rows
 * with bl_fig_row(f, ...), one argument a column: int for 'i', double for 'r', const char * for
 * 's'. Returns 0, or -1 with "plot: ..." (a repeated or empty column name, a bad type letter, a
 * table already set, out of memory). */
int bl_fig_table(bl_figure *f, const char *const *names, const char *types);
int bl_fig_row(bl_figure *f, ...);
/* A row of a table of numbers only ('i' and 'r' columns), one value a column from v (ncols
 * doubles; an 'i' column takes the whole part). Returns 0 or -1 as bl_fig_row. */
int bl_fig_row_nums(bl_figure *f, const double *v);

/* Panel title and axis labels (each may be NULL to leave unchanged). Returns 0 or -1. */
int bl_panel_labels(bl_panel *p, const char *title, const char *xlabel, const char *ylabel);

/* True log scale on x and/or y (lines panels): every plotted value on that axis must be > 0. */
void bl_panel_log(bl_panel *p, int logx, int logy);

/* The panel's x values are counts (steps, positions, token indices): .json writes the whole ones
 * as JSON integers (json.load gives ints), not as reals. */
void bl_panel_xcount(bl_panel *p, int on);

/* Fix an axis range instead of fitting the data: axis 'x' or 'y', lo < hi (> 0 on a log axis
 * is checked when drawing). Returns 0, or -1 with "plot: ..." for a bad axis or range. */
int bl_panel_limits(bl_panel *p, char axis, double lo, double hi);

/* Start the y axis at v (matplotlib's set_ylim(bottom=v)): the axis runs from v, or from below
 * it where the data does, to the first labelled tick at or past the data as every fitted axis. */
void bl_panel_yfrom(bl_panel *p, double v);

/* Add a line series of n >= 1 points. x may be NULL (then x = 0, 1, ..., n-1). Colours come
 * from the palette in order (BL_SAME_COLOR reuses the previous one). Returns the series index,
 * or -1 with "plot: series 'LABEL' is empty" (n < 1), "plot: panel holds a heatmap", ... */
int bl_panel_line(bl_panel *p, const char *label, const float *x, const float *y, int n, unsigned flags);

/* A filled band between lo[i] and hi[i] at x[i] (n >= 1 points; x NULL = 0, 1, ...), e.g. a mean
 * +- one standard error, in the colour of the series added before it (the next colour when it is
 * the first), translucent, behind the lines, out of the legend; its edges count in the y range.
 * A point where lo or hi is not finite leaves a gap. The terminal shades it where no line is. Returns the
 * series index, or -1 as bl_panel_line. */
int bl_panel_band(bl_panel *p, const float *x, const float *lo, const float *hi, int n);
/* Name series k of p (0 <= k < p->nseries) in the legend as `label`, a band too (its key a
 * swatch of its fill: relative='s "seed gap"). Returns 0, or -1 out of memory. */
int bl_series_legend(bl_panel *p, int k, const char *label);

/* The TensorBoard picture of a noisy curve: the raw series faint, and on top of it its centred
 * average (bl_loss_smooth, weight `smooth` in [0, 1), half-width <= n/40) in the same colour,
 * labelled `label`.
 * smooth = 0 adds the raw curve only (not faint). Returns the index of the smooth series or -1. */
int bl_panel_smoothed(bl_panel *p, const char *label, const float *x, const float *y, int n, float smooth);

/* A heatmap of rows x cols values (row-major). The colour range is the data range (viridis) or
 * [-m, m] with m = max |v| (diverging) unless bl_panel_heatmap_range sets it. NaN cells are
 * left blank. Returns 0, or -1 on an empty or absurd shape. */
int bl_panel_heatmap(bl_panel *p, const float *values, int rows, int cols, bl_cmap cmap);
/* Fix the colour range [vmin, vmax] (vmin < vmax). Returns 0 or -1. */
int bl_panel_heatmap_range(bl_panel *p, float vmin, float vmax);
/* Tick labels for the rows and/or columns (arrays of rows / cols strings, e.g. the characters of
 * a text; either may be NULL). Call after bl_panel_heatmap. Returns 0 or -1. */
int bl_panel_heatmap_labels(bl_panel *p, const char *const *row_labels, const char *const *col_labels);

/* Write each cell's value into the cell with a printf format for one double such as "%.2f"
 * (PNG and SVG only, when the cells are large enough for the text; e.g. the `rope check` scores).
 * Returns 0, or -1 for a format that is not exactly one floating-point conversion. */
int bl_panel_heatmap_annotate(bl_panel *p, const char *format);

/* Outline cell (row, col) of a heatmap (PNG and SVG), e.g. the query patch of `attn query=N`.
 * Returns 0, or -1 with "plot: mark (r, c) is outside the R x C heatmap" or on a panel without
 * a heatmap. */
int bl_panel_heatmap_mark(bl_panel *p, int row, int col);

/* A grid of n images, each c x h x w (c = 1 grey or 3 RGB), values in [lo, hi] (e.g. [-1, 1]
 * or [0, 1]; values outside are clipped), grid_cols images per row (0 = as many as fit).
 * Returns 0, or -1 with "plot: images need 1 or 3 channels, got 2" and the like. */
int bl_panel_images(bl_panel *p, const float *data, int n, int c, int h, int w, float lo, float hi,
                    int grid_cols);

/* Draw a heatmap over every image of an images panel, e.g. the attention weights of one query
 * patch over the 8 x 8 patch grid of the input image: values (rows x cols) are stretched over the
 * image, coloured with viridis over their [min, max] and blended with weight alpha in (0, 1].
 * Returns 0, or -1 ("plot: overlay needs an images panel", bad shape or alpha). */
int bl_panel_images_overlay(bl_panel *p, const float *values, int rows, int cols, float alpha);
/* Fix the overlay's colour range [lo, hi] (lo < hi), e.g. one range for the heads of `attn
 * query=`. Returns 0, or -1 ("plot: overlay range needs lo < hi", or no overlay yet). */
int bl_panel_images_overlay_range(bl_panel *p, float lo, float hi);
/* The panel whose overlay's range all of f's overlays share when they have one colour bar for
 * the figure, right of its grid (as matplotlib's fig.colorbar(im, ax=axes); PNG, SVG and the
 * terminal): every panel of f an images panel with an overlay (or empty), all overlays over one
 * range, as the heads of `attn query=`. NULL otherwise: each overlay has its own bar. */
const bl_panel *bl_fig_overlay_one_bar(const bl_figure *f);

/* Outline cell (row, col) of a rows x cols grid laid over every image of an images panel (PNG,
 * SVG and the terminal), e.g. the query patch of `attn query=N` on the 8 x 8 patch grid: the
 * outline lies inside the cell's pixels, at the image's own scale. Returns 0, or -1 with
 * "plot: mark (r, c) is outside the R x C grid" or on a panel without images. */
int bl_panel_images_mark(bl_panel *p, int row, int col, int rows, int cols);

/* A text panel (text samples); lines are wrapped at the panel width. Returns 0 or -1. */
int bl_panel_text(bl_panel *p, const char *text);

/* Check a figure before drawing: at least one non-empty panel, positive values on log axes,
 * positive limits on log axes. Returns 0 or -1 with e.g.
 * "plot: log y axis needs values > 0, but series 'loss' has -0.5 at index 3". */
int bl_fig_check(const bl_figure *f);

/* ---- slide controls (slide.c) ---- */

/* logy=: keep the picture's own choice, auto (log only when the data spans more than a decade),
 * on, off */
enum { BL_LOGY_KEEP, BL_LOGY_AUTO, BL_LOGY_ON, BL_LOGY_OFF };
/* legend=: auto (inside where it covers no data, else outside), outside, none */
enum { BL_LEGEND_AUTO, BL_LEGEND_OUTSIDE, BL_LEGEND_OFF };
enum { BL_THEME_LIGHT, BL_THEME_DARK };

/* What a lecturer sets on any picture before putting it on a slide (the REPL's title= xlim=
 * ylim= logy= legend= labels= theme= font= keys, repl/figures.c). */
typedef struct {
    int set_title;         /* title given: title, or NULL for title=none */
    const char *title;
    int has_x[2], has_y[2];/* the ends of xlim= / ylim= given (xlim=400: sets the low end only) */
    double x[2], y[2];
    int logy;              /* BL_LOGY_* */
    int legend;            /* BL_LEGEND_AUTO / _OUTSIDE / _OFF */
    const char *labels;    /* NULL, or new names of the runs (legend colours) separated by commas */
    int theme;             /* BL_THEME_* */
    double font;           /* 0 or the font scale */
} bl_slide;

/* Whether the values y > 0 of a lines panel call for a log axis (logy=auto): every finite y of
 * its series is > 0 and the largest is more than 10 times the smallest (more than a decade).
 * A loss curve from 4.2 down to 0.3 is log; a compare of 0.28 against 0.32 is not. */
int bl_panel_logy_auto(const bl_panel *p);

/* Apply s to every lines panel of f (and the title, theme, font and legend to the figure): a
 * new title or none; logy; the ends of xlim (an open end is the data's end) and ylim (an open
 * end is fitted to the data shown); legend=none leaves every series out of the legend; labels
 * rename the runs: the k-th colour of the legend (a run's curve and its "NAME val" points) takes
 * the k-th name, the name replacing the start its entries share. Returns 0, or -1 with
 * "plot: ..." (a range whose low end is not below its high end, labels for the wrong number of
 * runs, no lines panel for xlim/ylim/logy/labels to apply to). */
int bl_fig_slide(bl_figure *f, const bl_slide *s);

/* ---- smoothing (before any downsampling) ---- */

/* Exponential moving average with bias correction, as TensorBoard's scalar dashboard:
 *   last = smooth * last + (1 - smooth) * y[i]   (last starts at 0; non-finite y[i] are passed
 *   out[i] = last / (1 - smooth^k)                through unchanged and do not count in k)
 * where k is the number of finite values so far. smooth in [0, 1); out may equal y.
 * Returns 0, or -1 with "smooth: weight must be in [0, 1), got 1.5" / "smooth: empty series". */
int bl_ema(const float *y, int n, float smooth, float *out);

/* plot loss's smoothing, centred so it does not lag (see smooth.c): out[i] = mean of the finite
 * y[i-h .. min(i+h, n-1)], h = min(H, i), H = min(round(smooth/(1-smooth)), maxh). out != y.
 * Returns 0, or -1 as bl_ema ("smooth: centred average cannot work in place" when out == y). */
int bl_loss_smooth(const float *y, int n, float smooth, int maxh, float *out);

/* Trailing moving average: out[i] = mean of the finite values among y[max(0, i-window+1) .. i]
 * (NaN when none). window >= 1; out may not equal y. Returns 0 or -1. */
int bl_moving_average(const float *y, int n, int window, float *out);

/* Centred moving average: out[i] = mean of the finite values among y[i-half .. i+half] (cut at
 * the ends; NaN when none), so a curve is not shifted as a trailing average shifts it. half >= 0
 * (0 copies y); out may not equal y. Returns 0 or -1 with "smooth: ...". */
int bl_centered_average(const float *y, int n, int half, float *out);

/* Reduce n points to at most m >= 2 by averaging x and y over equal buckets of consecutive points
 * (finite values only). Writes to xo, yo (room for m) and returns the number written, or -1.
 * Smooth first, then downsample, so that the smoothing sees every step. */
int bl_downsample(const float *x, const float *y, int n, int m, float *xo, float *yo);

/* ---- terminal renderer (term.c) ---- */

typedef enum { BL_COLOR_AUTO = 0, BL_COLOR_NONE, BL_COLOR_256, BL_COLOR_TRUE } bl_color_mode;

typedef struct {
    int width;           /* columns; 0 = the terminal width (TIOCGWINSZ), else $COLUMNS, else 80 */
    int height;          /* rows for the whole figure; 0 = a natural height for the width */
    bl_color_mode color; /* BL_COLOR_AUTO: bl_term_color_mode(out) */
    int ascii;           /* 1: plain ASCII only (no braille, no box drawing, no half blocks) */
} bl_term_opts;

/* The colour mode for `out`: NONE when $NO_COLOR is set and not empty or out is not a terminal,
 * TRUE when $COLORTERM is "truecolor" or "24bit", 256 otherwise. */
bl_color_mode bl_term_color_mode(FILE *out);
/* The width of the terminal behind `out` (ioctl TIOCGWINSZ), else $COLUMNS, else 80. */
int bl_term_width(FILE *out);

/* Draw the figure as text on `out` (o NULL = all defaults). With colours: braille curves in the
 * palette colours, faint curves dimmed, heatmaps and images as `▀` half blocks with fg/bg colours.
 * Without colours: no escape codes at all; one curve in braille, several curves with one ASCII
 * mark each (`*`, `+`, `o`, ...), faint curves left out, heatmaps with the ramp " .:-=+*#%@".
 * Deterministic for a given width, height and colour mode. Returns 0 or -1 (bl_fig_check's
 * errors, "term: width 12 is too small (need at least 20)", write errors). */
int bl_term_print(const bl_figure *f, FILE *out, const bl_term_opts *o);

/* ---- file renderer (save.c, draw.c) ---- */

typedef struct {
    int width, height; /* logical size; 0 = from the other side (bl_fig_size), both 0: 1600 x 900 */
    double scale;      /* device pixels per logical pixel for PNG (2 = HiDPI); 0 = 1 */
} bl_save_opts;

/* The default size of a file picture (16:9, slides) */
#define BL_FIG_W 1600
#define BL_FIG_H 900

/* The sides a picture file (.png, .svg) may have, in logical pixels: the one range of width= and
 * height=, which the REPL's key parsers, bl_fig_size, bl_fig_save and the help text use (and
 * test_repl checks the man page against). width= and height= are also the columns and rows of a
 * picture printed on a terminal (at most: the window caps them), which may be as few as
 * BL_FIG_MIN_COLS and BL_FIG_MIN_ROWS; such a side is refused when the picture goes to a file. A PNG's device pixels (side x scale=) are at most BL_FIG_MAX_PIXELS a side. */
#define BL_FIG_MIN_SIDE 100
#define BL_FIG_MAX_SIDE 8000
#define BL_FIG_MIN_COLS 20
#define BL_FIG_MIN_ROWS 5
#define BL_FIG_MAX_PIXELS 16384
#define BL_FIG_STR_(x) #x
#define BL_FIG_STR(x) BL_FIG_STR_(x)
/* "100 to 8000", for help texts */
#define BL_FIG_SIDE_RANGE BL_FIG_STR(BL_FIG_MIN_SIDE) " to " BL_FIG_STR(BL_FIG_MAX_SIDE)

/* 0 when v is a side (key "width" or "height") a picture may have: BL_FIG_MIN_SIDE ..
 * BL_FIG_MAX_SIDE, or from BL_FIG_MIN_COLS for a width and BL_FIG_MIN_ROWS for a height when
 * `terminal` (the picture may only be printed). Else -1 and the one message every check gives,
 * "WHO: width 9000 is out of range: a picture file is 100 to 8000 pixels a side (a width from 20
 * sets the columns on a terminal)", for a height "(a height from 5 sets the rows on a terminal)". */
int bl_fig_side_check(const char *who, const char *key, double v, int terminal);

/* The logical size of a file picture for the width w and height h asked (0 = not given):
 * neither given is 1600 x 900; one given keeps the default 16:9 shape of a slide (width 400 is
 * 400 x 225, not a 400 x 900 strip; width 100 is 100 x 56, not 100 x 100; height 450 is 800 x
 * 450; the other side rounded, at most BL_FIG_MAX_SIDE: height 8000 is 8000 x 8000); both given
 * are kept as they are. Only a side given must lie in BL_FIG_MIN_SIDE .. BL_FIG_MAX_SIDE. */
void bl_fig_size(int w, int h, int *out_w, int *out_h);

/* Save the figure; the format comes from the extension of `path`:
 *   .png   cairo drawing, written with libpng as 8-bit RGB with tEXt chunks Software
 *          ("blocklab 0.1.0"), Title, Command and Config (when set by bl_fig_meta)
 *   .svg   cairo's SVG surface
 *   .csv   the numbers as one table with one header row of unique column names (pandas.read_csv
 *          reads it as it is): the figure's table when a command set one (bl_fig_table), else
 *          of its one panel of numbers: lines "series,x,y" rows; a heatmap a matrix with a
 *          header row of column labels ("row\col", then the labels or 0, 1, ...) and a first
 *          column of row labels; images "image,channel,y,x,value" rows. Several panels of one
 *          kind are stacked into one long table with a first column "panel" (the panel's index):
 *          "panel,series,x,y", "panel,row,col,value", "panel,image,channel,y,x,value". Text
 *          panels are left out; panels of different kinds without a table are an error.
 *   .json  {"title", "meta": {"command", "config"}, "panels": [...]} with every array
 *   .txt   the terminal picture without colours (width 100)
 * The file is written to a temporary name in the same directory and renamed, so it is either the
 * old or the complete new file. Returns 0, or -1 with an error that starts with the file (not
 * "save:", the checkpoint command's): "x.bmp: unknown file type '.bmp' (use .png, .svg, .csv,
 * .json or .txt)", "x/y/f.png: directory 'x/y' does not exist", bl_fig_side_check's "f.png: width
 * 50 is out of range: ...", "f.png: 24000 x 24000 pixels is too large (at most 16384 a side)" (a
 * PNG's sides times scale), write errors; bl_fig_check's "plot: ..." as they are. */
int bl_fig_save(const bl_figure *f, const char *path, const bl_save_opts *o);

#endif
