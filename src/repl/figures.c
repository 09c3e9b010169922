/* figures.c - figures as values and the heatmap()/lineplot() functions (see figures.h). */
#include "repl/figures.h"
#include "core/error.h"
#include "core/fmt.h"
#include "repl/views.h"
#include "viz/termimg.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void ffree(void *p) { bl_fig_free(p); }

static void fprint(void *p, FILE *out)
{
    bl_figure *f = p;   /* width=, height= of the picture: its columns and rows at most */
    if (bl_term_show(f, out) < 0) fprintf(out, "<figure: %s>\n", bl_error());
    f->rows_above = 0;  /* the command's text is above it the first time only */
}

static void fdescribe(void *p, char *buf, size_t n)
{
    const bl_figure *f = p;
    snprintf(buf, n, "%d x %d panels%s%s", f->rows, f->cols, f->title ? ": " : "", f->title ? f->title : "");
}

static int fsave(void *p, const char *path, const char *cmdline)
{
    bl_figure *f = p;
    if (cmdline && bl_fig_meta(f, cmdline, f->config) < 0) return -1;
    bl_save_opts o = { f->width, f->height, f->scale };
    return bl_fig_save(f, path, &o);
}

const bl_handle_type bl_figure_type = { "figure", ffree, fprint, NULL, fdescribe, fsave, NULL };

bl_value *bl_val_figure(bl_figure *f) { return f ? bl_val_handle(&bl_figure_type, f) : NULL; }

/* The range of scale= (figures.h); width= and height= take BL_FIG_MIN_SIDE .. BL_FIG_MAX_SIDE of
 * viz/plot.h (from BL_FIG_MIN_COLS and BL_FIG_MIN_ROWS, the terminal's columns and rows), checked by bl_fig_side_check
 * here as in bl_fig_save, with the same message. */
#define SCALE_MIN 0.1
#define SCALE_MAX 8.0
/* the range of font= (figures.h) */
#define FONT_MIN 0.5
#define FONT_MAX 3.0

/* Check f, store it as a value; f is freed on error, reported as "NAME: ..." (the command or
 * function that made it) instead of bl_fig_check's "plot: ...". */
static bl_value *checked_value(bl_figure *f, const char *name)
{
    if (!f) return NULL;
    if (bl_fig_check(f) < 0) {
        bl_error_as(name, "plot");
        bl_fig_free(f);
        return NULL;
    }
    return bl_val_figure(f);
}

/* width= or height= (key) given as d: into *out when a whole number in range, else -1 + error */
static int side_value(const char *who, const char *key, double d, long *out)
{
    if (d != floor(d)) {
        char num[40];
        return bl_fail("%s: %s must be a whole number, got %s", who, key, bl_fmt_g(d, num, sizeof num));
    }
    if (bl_fig_side_check(who, key, d, 1) < 0) return -1;
    *out = (long)d;
    return 0;
}

/* width= or height= of a command's words (0 when absent) */
static int opt_side(bl_cmdargs *a, const char *key, long *out)
{
    int i = bl_opt_find(a, key);
    double d;
    *out = 0;
    if (i < 0) return 0;
    if (bl_word_num(a, i, &d) < 0) return -1;
    char cmd[96];
    return side_value(bl_command_typed(a->st, cmd, sizeof cmd), key, d, out) < 0 ? bl_session_errat(a->s, a->w[i].vpos) : 0;
}

/* width= or height= of a function's keywords (0 when absent) */
static int kw_side(bl_callargs *a, const char *key, long *out)
{
    double d;
    *out = 0;
    if (!bl_kw(a, key)) return 0;
    if (bl_kw_num(a, key, 0, &d) < 0) return -1;
    if (side_value(a->fname, key, d, out) == 0) return 0;
    for (int j = 0; j < a->nk; j++)
        if (!strcmp(a->key[j], key)) return bl_session_errat(a->s, a->kpos[j]);
    return -1;
}

/* text that must be one of names (NULL-ended): its index, or -1 + "WHO: KEY= takes WHAT, got ..." */
static int choice(const char *who, const char *key, const char *text, const char *const *names, const char *what)
{
    for (int k = 0; names[k]; k++)
        if (!strcmp(text, names[k])) return k;
    return bl_fail("%s: %s= takes %s, got '%s'", who, key, what, text);
}

/* xlim= / ylim= "LO:HI", "LO:" or ":HI" into has and v; 0 or -1 + error */
static int range_text(const char *who, const char *key, const char *t, int has[2], double v[2])
{
    const char *colon = strchr(t, ':');
    int ok = colon != NULL;
    for (int e = 0; ok && e < 2; e++) {
        const char *p = e ? colon + 1 : t, *stop = e ? t + strlen(t) : colon;
        if (p == stop) continue;
        char *end;
        v[e] = strtod(p, &end);
        has[e] = 1;
        ok = end == stop && isfinite(v[e]);
    }
    if (ok && !has[0] && !has[1]) ok = 0;
    if (ok && has[0] && has[1] && !(v[0] < v[1])) ok = 0;
    if (ok) return 0;
    return bl_fail("%s: %s= takes LO:HI, LO: or :HI with LO < HI (xlim=400: starts at 400), got '%s'", who, key, t);
}

/* One slide key (BL_FIG_SLIDE_KEYS) given as text into s: the one parser of the commands' words
 * and of heatmap()'s and lineplot()'s keywords. 0, or -1 + "WHO: ..." */
static int slide_value(const char *who, const char *key, const char *text, bl_slide *s)
{
    static const char *const logy[] = { "auto", "on", "off", NULL }, *const legend[] = { "auto", "outside", "none", NULL },
                             *const theme[] = { "light", "dark", NULL };
    int k;
    if (!strcmp(key, "title")) s->set_title = 1, s->title = strcmp(text, "none") ? text : NULL;
    else if (!strcmp(key, "xlim")) return range_text(who, key, text, s->has_x, s->x);
    else if (!strcmp(key, "ylim")) return range_text(who, key, text, s->has_y, s->y);
    else if (!strcmp(key, "logy")) {
        if ((k = choice(who, key, text, logy, "auto, on or off")) < 0) return -1;
        s->logy = k == 0 ? BL_LOGY_AUTO : k == 1 ? BL_LOGY_ON : BL_LOGY_OFF;
    } else if (!strcmp(key, "legend")) {
        if ((k = choice(who, key, text, legend, "auto, outside or none")) < 0) return -1;
        s->legend = k == 0 ? BL_LEGEND_AUTO : k == 1 ? BL_LEGEND_OUTSIDE : BL_LEGEND_OFF;
    } else if (!strcmp(key, "labels")) s->labels = text;
    else if (!strcmp(key, "theme")) {
        if ((k = choice(who, key, text, theme, "light or dark")) < 0) return -1;
        s->theme = k == 0 ? BL_THEME_LIGHT : BL_THEME_DARK;
    } else if (!strcmp(key, "font")) {
        char *end;
        double v = strtod(text, &end);
        if (end == text || *end || !(v >= FONT_MIN && v <= FONT_MAX))
            return bl_fail("%s: font must be a number in [%g, %g] (1.5 for a projector), got '%s'", who, FONT_MIN,
                           FONT_MAX, text);
        s->font = v;
    }
    return 0;
}

static const char *const slide_keys[] = { BL_FIG_SLIDE_KEYS, NULL };

/* The slide keys of a command's words into s, errors at the word */
static int slide_words(bl_cmdargs *a, bl_slide *s)
{
    char cmd[96];
    bl_command_typed(a->st, cmd, sizeof cmd);
    memset(s, 0, sizeof *s);
    for (int k = 0; slide_keys[k]; k++) {
        int i = bl_opt_find(a, slide_keys[k]);
        if (i >= 0 && slide_value(cmd, slide_keys[k], a->w[i].text, s) < 0)
            return bl_session_errat(a->s, a->w[i].vpos);
    }
    return 0;
}

/* The slide keys of a function's keywords into s (buf: room for their texts): strings as they
 * are, numbers as numbers, true/false as on/off, a list [lo, hi] as lo:hi (null: an open end) */
static int slide_kws(bl_callargs *a, bl_slide *s, char (*buf)[64])
{
    memset(s, 0, sizeof *s);
    for (int k = 0; slide_keys[k]; k++) {
        bl_value *v = bl_kw(a, slide_keys[k]);
        if (!v) continue;
        const char *text = buf[k];
        if (v->kind == BL_V_STR) text = v->str;
        else if (v->kind == BL_V_NUM) snprintf(buf[k], 64, "%.17g", v->num);
        else if (v->kind == BL_V_BOOL) snprintf(buf[k], 64, "%s", v->num ? "on" : "off");
        else if (v->kind == BL_V_LIST && v->n == 2) {
            char e[2][30] = { "", "" };
            for (int j = 0; j < 2; j++)
                if (v->items[j]->kind == BL_V_NUM) snprintf(e[j], sizeof e[j], "%.17g", v->items[j]->num);
                else if (v->items[j]->kind != BL_V_NONE) snprintf(e[j], sizeof e[j], "?");
            snprintf(buf[k], 64, "%s:%s", e[0], e[1]);
        } else
            snprintf(buf[k], 64, "a %s", bl_val_kind_name(v));
        if (slide_value(a->fname, slide_keys[k], text, s) == 0) continue;
        for (int j = 0; j < a->nk; j++)
            if (!strcmp(a->key[j], slide_keys[k])) return bl_session_errat(a->s, a->kpos[j]);
        return -1;
    }
    return 0;
}

/* Apply s to f, an error of bl_fig_slide as "WHO: ..." */
static int apply_slide(const char *who, bl_figure *f, const bl_slide *s)
{
    if (bl_fig_slide(f, s) == 0) return 0;
    return bl_error_as(who, "plot");
}

int bl_cmd_figsize(bl_cmdargs *a, bl_figure *f)
{
    long w, h;
    double sc;
    bl_slide sl;
    if (opt_side(a, "width", &w) < 0 || opt_side(a, "height", &h) < 0 ||
        bl_opt_num(a, "scale", 1, SCALE_MIN, SCALE_MAX, &sc) < 0 || slide_words(a, &sl) < 0)
        return -1;
    if (f) {
        f->width = (int)w, f->height = (int)h, f->scale = sc;
        char cmd[96];
        if (apply_slide(bl_command_typed(a->st, cmd, sizeof cmd), f, &sl) < 0) {
            const char *msg = bl_error();
            /* at the word of the first key the message names (labels=, xlim=, ...) */
            static const char *const named[] = { "labels", "xlim", "ylim", "logy", NULL };
            for (int k = 0; named[k]; k++) {
                char kk[16];
                snprintf(kk, sizeof kk, "%s=", named[k]);
                int i = bl_opt_find(a, named[k]);
                if (i >= 0 && strstr(msg, kk)) return bl_session_errat(a->s, a->w[i].pos);
            }
            return -1;
        }
    }
    return 0;
}

int bl_cmd_grid_cols(bl_cmdargs *a, int n, double ow, double once, double oh, double aspect, int deflt, long *cols)
{
    long w, h;
    int ci = bl_opt_find(a, "cols");
    if (ci >= 0) return bl_word_int(a, ci, 1, n, cols);
    bl_slide sl;
    if (opt_side(a, "width", &w) < 0 || opt_side(a, "height", &h) < 0 || slide_words(a, &sl) < 0) return -1;
    int W, H;
    bl_fig_size((int)w, (int)h, &W, &H);
    /* the page less its margins and title (viz/draw.c) in units, the page scaled to fill
     * 1600 x 900 at least (its shape, not its size, decides: text shrinks slower than a page);
     * font= makes the units larger, the page that many times fewer (4 heads at 800 x 450
     * font=2 in 2 x 2 were maps of 70 pixels under their titles and labels, in a row 100) */
    double z = fmin((double)W / BL_FIG_W, (double)H / BL_FIG_H) * (sl.font > 0 ? sl.font : 1), u = 1, gap = 36;
    double pw = W / z - 48, ph = H / z - 48 - 78, best = -1, at_deflt = -1;
    *cols = deflt;
    for (int c = 1; c <= n && c <= BL_FIG_MAX_GRID; c++) {
        int r = (n + c - 1) / c;
        if (r > BL_FIG_MAX_GRID || !bl_grid_cols_ok(n, c)) continue;
        double s = fmin(((pw - once * u - (c - 1) * gap) / c - ow * u) / aspect, (ph - (r - 1) * gap) / r - oh * u);
        if (c == deflt) at_deflt = s;
        if (s > best * 1.05) best = s, *cols = c;   /* 5% larger, or the fewer columns */
    }
    /* the usual shape unless another makes the pictures a quarter larger: a grid that fills the
     * page's height (no empty band above and below, issue 16) over one a little larger */
    if (at_deflt >= best / 1.25) *cols = deflt;
    return 0;
}

int bl_cmd_figure(bl_cmdargs *a, bl_figure *f, const bl_config *model_cfg)
{
    if (!f) return -1;
    if (bl_cmd_figsize(a, f) < 0) {
        bl_fig_free(f);
        return -1;
    }
    char cfg[512];
    if (model_cfg && bl_fig_meta(f, NULL, bl_config_summary(model_cfg, BL_KEYS_REBUILD, cfg, sizeof cfg)) < 0) {
        bl_fig_free(f);
        return -1;
    }
    char cmd[96];
    f->rows_above = bl_cmd_text_flush(a);
    a->result = checked_value(f, bl_command_typed(a->st, cmd, sizeof cmd));
    return a->result ? 0 : -1;
}

/* width=, height=, scale= of heatmap() and lineplot() into f (freed on error): the value or NULL. */
static bl_value *fn_figure(bl_callargs *a, bl_figure *f)
{
    long w, h;
    double sc;
    bl_slide sl;
    char buf[16][64];
    if (!f) return NULL;
    if (kw_side(a, "width", &w) < 0 || kw_side(a, "height", &h) < 0 || bl_kw_num(a, "scale", 1, &sc) < 0 ||
        slide_kws(a, &sl, buf) < 0 || apply_slide(a->fname, f, &sl) < 0) {
        bl_fig_free(f);
        return NULL;
    }
    if (!(sc >= SCALE_MIN && sc <= SCALE_MAX)) {
        bl_fail("%s: scale must be in [%g, %g], got %g", a->fname, SCALE_MIN, SCALE_MAX, sc);
        bl_fig_free(f);
        return NULL;
    }
    f->width = (int)w, f->height = (int)h, f->scale = sc;
    return checked_value(f, a->fname);
}

/* title= keyword as a string (NULL when absent). */
static int kw_str(bl_callargs *a, const char *key, const char **out)
{
    bl_value *v = bl_kw(a, key);
    *out = NULL;
    if (!v) return 0;
    if (v->kind != BL_V_STR) {
        bl_fail("%s: %s must be a string, got a %s", a->fname, key, bl_val_kind_name(v));
        return -1;
    }
    *out = v->str;
    return 0;
}

static bl_value *fn_heatmap(bl_callargs *a)
{
    const char *title;
    if (bl_nargs(a, 1, 1) < 0 || kw_str(a, "title", &title) < 0) return NULL;
    bl_tensor *x = bl_arg_tensor(a, 0);
    if (!x) return NULL;
    if (x->ndim != 2) {
        char sh[64];
        bl_fail("heatmap: expects a 2-D tensor, got %s (%s)", bl_shape_str(x, sh, sizeof sh),
                x->ndim > 2 ? "pick a slice, e.g. x[0]" : "rows x columns; lineplot(x) draws a 1-D tensor");
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    int neg = 0;
    for (size_t i = 0; i < x->numel; i++) neg |= x->data[i] < 0;
    int div;
    if (bl_kw_bool(a, "diverging", neg, &div) < 0) return NULL;
    int rows = x->shape[0], cols = x->shape[1];
    bl_figure *f = bl_fig_new(1, 1, title);
    if (!f || bl_panel_heatmap(bl_fig_panel(f, 0), x->data, rows, cols,
                               div ? BL_CMAP_DIVERGING : BL_CMAP_VIRIDIS) < 0) {
        bl_fig_free(f);
        return NULL;
    }
    return fn_figure(a, f);
}

static bl_value *fn_lineplot(bl_callargs *a)
{
    const char *title, *label;   /* logy= is a slide key (fn_figure): on, off or auto */
    if (bl_nargs(a, 1, 1) < 0 || kw_str(a, "title", &title) < 0 || kw_str(a, "label", &label) < 0) return NULL;
    bl_tensor *y = bl_arg_tensor(a, 0);
    bl_tensor *x = y ? bl_kw_tensor(a, "x") : NULL;
    if (!y || a->s->has_errpos) return NULL;
    if (y->ndim > 2) {
        bl_fail("lineplot: expects a 1-D or 2-D tensor, got %d dimensions", y->ndim);
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    int nser = y->ndim == 2 ? y->shape[0] : 1, n = (int)(y->numel / (size_t)nser);
    if (x && (int)x->numel != n) {
        bl_fail("lineplot: x has %zu values but y has %d per line", x->numel, n);
        return NULL;
    }
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    int rc = p ? 0 : -1;
    for (int i = 0; rc == 0 && i < nser; i++) {
        char lab[64];
        if (nser > 1) snprintf(lab, sizeof lab, "%s%s%d", label ? label : "", label ? " " : "", i);
        else snprintf(lab, sizeof lab, "%s", label ? label : "");
        rc = bl_panel_line(p, lab, x ? x->data : NULL, y->data + (size_t)i * (size_t)n, n,
                           nser > 1 || label ? 0 : BL_NO_LEGEND) < 0 ? -1 : 0;
    }
    if (rc == 0 && !x) bl_panel_xcount(p, 1);  /* x = 0, 1, ...: indices */
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    return fn_figure(a, f);
}

const char bl_fig_slide_help[] =
    "Every picture (plot loss, attn, stats, rope table, rope check, qk growth, sample,\n"
    "lengen, heatmap(), lineplot()) takes these keys, for a picture put on a slide as it\n"
    "is (a function takes them as strings or numbers: xlim=\"400:\", xlim=[400, 900]):\n"
    "  title=TEXT          its title (title=\"v1 against v2\"); title=none: no title\n"
    "  xlim=LO:HI          the x axis' range; an end may stay open: xlim=400: starts at\n"
    "                      step 400 and runs to the data's end; the y axis then fits the\n"
    "                      data in view\n"
    "  ylim=LO:HI          the y axis' range (ylim=0: starts it at 0, ylim=:3 ends it at 3);\n"
    "                      a range without data is an error naming where the data run\n"
    "                      (xlim=1000: holds no data (x runs 0 .. 300))\n"
    "  logy=auto|on|off    a log y axis; auto: only when the data spans more than a decade\n"
    "                      (plot loss's default: losses 4.2 .. 0.3 are log, 0.28 .. 0.32 not)\n"
    "  legend=auto|outside|none  (panels with the same entries share one; with no room\n"
    "                      in its panel, in a strip right of the panels)\n"
    "                      auto: inside where it covers no data (lines, points,\n"
    "                      bands), else beside or below the plot; outside: always beside\n"
    "                      or below; none: no legend\n"
    "  labels=A,B,...      new names for the runs, one a colour of the legend in order\n"
    "                      (plot loss cmp_v1 cmp_v2 labels={pos:0},RoPE; \"v1 val\" follows);\n"
    "                      the title and axis labels take the new names too; a quoted\n"
    "                      name may hold spaces and commas: labels=\"lr 2e-3\",\"seed 1\"\n"
    "  theme=light|dark    dark: a dark page with light text, for dark slides\n"
    "  font=1              text, margins and lines scaled by 0.5 to 3 (font=1.5 for a\n"
    "                      projector); on a short page (800x450 font=2) a smaller\n"
    "                      title, narrower margins, and an axis label too long loses\n"
    "                      its trailing (...) before it is cut\n"
    "xlim, ylim, logy and labels are for pictures with axes (not attn's maps). theme and\n"
    "font change the files (.png .svg); the others the terminal picture too. A file's\n"
    "width= and height= are pixels. An axis fitted to its data runs on to a labelled tick\n"
    "past it unless that leaves more than 15% of the axis empty.";

const char bl_fig_size_help[] =
    "width=1600 height=900 scale=1 size the file (" BL_FIG_SIDE_RANGE " pixels a side;\n"
    "scale=2: HiDPI); width= or height= alone keeps the 16:9 shape (width=400:\n"
    "400 x 225). A title too long for the width shrinks, then takes two lines\n"
    "(the figure's; a panel's up to three, one size for all panels) or is cut\n"
    "with an ellipsis. On a terminal width= and\n"
    "height= are the columns (from " BL_FIG_STR(BL_FIG_MIN_COLS) ") and rows (from "
    BL_FIG_STR(BL_FIG_MIN_ROWS) ") to take\n"
    "at most (help pictures). Slide keys title= xlim= ylim= logy= legend= labels=\n"
    "theme= font=: help slides. Redirected to a file, it prints nothing.";

/* heatmap() and lineplot() with their help: this file's function table (repl.h; bl_function_at
 * lists it after functions.c's own). */
const bl_function bl_figure_functions[] = {
    { "heatmap", "heatmap(x, title=, diverging=auto, width=, height=, scale=, theme=, font=)",
      "A picture of a 2-D tensor (rows x columns). For example heatmap(score) for the RoPE\n"
      "check or heatmap(attention(q, k, v, weights=on)[0, 0]). Signed values get a diverging colour map\n"
      "centred on 0. Printed on the terminal; `heatmap(x) > x.png` (.svg .csv .json .txt) saves it;\n"
      "width=/height= (" BL_FIG_SIDE_RANGE " pixels a side, default 1600 x 900; one alone\n"
      "keeps 16:9) and scale=2 (HiDPI) size the file; on a terminal width= and height= are\n"
      "its columns and rows at most (help pictures); theme=\"dark\", font=1.5 and title=\"none\"\n"
      "as for every picture (help slides).",
      fn_heatmap },
    { "lineplot", "lineplot(y, x=, title=, label=, logy=off, xlim=, width=, height=, scale=)",
      "A line picture of y against x (0, 1, ... by default). y is a 1-D tensor or list; a 2-D\n"
      "tensor draws one line per row. `lineplot(y) > y.png` saves it; width=, height=, scale= as heatmap.\n"
      "The slide keys as for every picture (help slides), as strings or numbers: logy=\"auto\"\n"
      "(or on/off), xlim=\"400:\" or xlim=[400, 1000], legend=\"outside\".",
      fn_lineplot },
    { NULL, NULL, NULL, NULL },
};
