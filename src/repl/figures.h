/* figures.h - pictures (src/viz figures) as REPL values: printed on the terminal with
 * bl_term_show (viz/termimg.h: pixels where the terminal shows them, else text, fitted to the
 * window), written by `STATEMENT > FILE.png|svg|csv|json|txt` with bl_fig_save, and the
 * functions heatmap() and lineplot() that draw tensors. Plot commands make their pictures with
 * bl_val_figure, so `plot loss > loss.png` needs nothing more. */
#ifndef BL_REPL_FIGURES_H
#define BL_REPL_FIGURES_H

#include "repl/repl.h"
#include "models/config.h"
#include "viz/plot.h"

extern const bl_handle_type bl_figure_type;

/* A value holding f (takes ownership; NULL passes through). */
bl_value *bl_val_figure(bl_figure *f);

/* The size keys every picture takes: width= (logical pixels of .png/.svg, BL_FIG_MIN_SIDE ..
 * BL_FIG_MAX_SIDE of viz/plot.h, default 1600; also the columns when printed on a terminal, from
 * BL_FIG_MIN_COLS), height= (the same range, default 900; also the rows on a terminal, from
 * BL_FIG_MIN_ROWS; one of them alone keeps the 16:9 shape, bl_fig_size) and scale= (PNG device pixels per logical pixel, [0.1, 8], default 1; 2 = HiDPI).
 * Add BL_FIG_SIZE_KEYS to a command's key list. */
#define BL_FIG_SIZE_KEYS "width", "height", "scale", BL_FIG_SLIDE_KEYS
#define BL_FIG_SIZE_SYNOPSIS "[width=1600] [height=900] [scale=1]"

/* The slide keys every picture takes, read and applied in one place (bl_cmd_figsize, with
 * viz/plot.h bl_fig_slide; the help text is bl_fig_slide_help, `help slides`):
 *   title=TEXT | title=none    the picture's title, or none
 *   xlim=LO:HI, LO:, :HI       the x axis' range, an open end at the data's end (xlim=400:); the
 *   ylim=LO:HI, LO:, :HI       y axis fits the data in view; ylim=0: starts the y axis at 0
 *   logy=auto|on|off           auto: a log y axis only when the data spans more than a decade
 *   legend=auto|outside|none   auto: inside where it covers no data, else outside the plot
 *   labels=A,B,...             new names for the runs (the legend's colours, in order)
 *   theme=light|dark           dark: a dark page for dark slides (files)
 *   font=1                     text, margins and lines scaled, 0.5 to 3 (files; 1.5 for projectors)
 * Part of BL_FIG_SIZE_KEYS, so every picture command that lists those takes them. */
#define BL_FIG_SLIDE_KEYS "title", "xlim", "ylim", "logy", "legend", "labels", "theme", "font"
/* the keys every picture takes as tab completion offers them */
#define BL_FIG_KEY_WORDS "width=", "height=", "scale=", "title=", "xlim=", "ylim=", "logy=", "legend=", "labels=", "theme=", "font="
/* `help slides`: the one paragraph every picture command's help points to */
extern const char bl_fig_slide_help[];
/* The paragraph of width= height= scale= every picture command's help ends with (its entry's
 * help_more). */
extern const char bl_fig_size_help[];

/* The end of every picture command: read width=/height=/scale= of the command's words into f,
 * record the model's configuration (bl_config_summary, NULL = none) as the figure's config
 * (bl_fig_meta: PNG tEXt "Config", JSON meta), check the figure (bl_fig_check) and leave it as
 * the command's value a->result. Takes f (freed on error; NULL passes the error through).
 * Returns 0, or -1 with the error reported at the word. */
int bl_cmd_figure(bl_cmdargs *a, bl_figure *f, const bl_config *model_cfg);
/* The columns of a grid of n pictures (attn's heads, sample's images): cols=N of the command's
 * words (1 .. n), else the columns that make each picture largest on the page its width= and
 * height= ask for (1600 x 900 without them, bl_fig_size): each is `aspect` (width / height)
 * times as wide as high and needs ow x oh more units (1 unit = 1 px at 1600 x 900: its labels,
 * title, colour bar) beside and above it, and the grid `once` units right of it (one colour
 * bar for all, attn query='s); deflt unless another is more than 25% larger (a very
 * wide or tall page: width=1600 height=400 lays 4 heads in a row). Add "cols"
 * to the command's keys. Returns 0, or -1 with the error reported at the word. */
int bl_cmd_grid_cols(bl_cmdargs *a, int n, double ow, double once, double oh, double aspect, int deflt, long *cols);
/* width=, height=, scale= and the slide keys (BL_FIG_SLIDE_KEYS, applied with bl_fig_slide) of
 * the command's words into f (NULL: only check them, e.g. before a command prints its numbers).
 * Returns 0, or -1 with the error reported at the word. */
int bl_cmd_figsize(bl_cmdargs *a, bl_figure *f);

#endif
