/* term.c - the terminal renderer: braille curves, half-block heatmaps and images (see plot.h, term.h). */
#include "viz/term.h"
#include "viz/color.h"
#include "viz/scale.h"
#include "core/error.h"
#include "core/fileio.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MIN_WIDTH 20
#define MAX_TICKS 16

static const char RAMP[] = " .:-=+*#%@"; /* 10 levels, dark to bright */
static const char MARKS[] = "*+x#%&";    /* one ASCII mark per curve when there are no colours */
/* one marker per series drawn with markers (validation points), so they differ without colour */
static const char *const DOTS[2][6] = { { "o", "@", "^", "v", "<", ">" }, { "●", "■", "▲", "◆", "○", "□" } };

typedef struct {
    int color, unicode;
} style;

bl_color_mode bl_term_color_mode(FILE *out)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) return BL_COLOR_NONE;
    if (!out || !bl_is_terminal(fileno(out))) return BL_COLOR_NONE;
    const char *ct = getenv("COLORTERM");
    if (ct && (!strcmp(ct, "truecolor") || !strcmp(ct, "24bit"))) return BL_COLOR_TRUE;
    return BL_COLOR_256;
}

int bl_term_width(FILE *out)
{
    struct winsize ws;
    if (out && bl_is_terminal(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int n = c ? atoi(c) : 0;
    return n > 0 ? n : 80;
}

/* ---- small text helpers ---- */

/* s centred in w columns from x0; a text longer than that is cut and ends with an ellipsis,
 * "…" (or "..." without Unicode), so that a cut title does not read as a whole one */
static void text_center(bl_canvas *c, int x0, int w, int y, const char *s, const style *st)
{
    int n = bl_utf8_len(s);
    if (n <= w) {
        bl_canvas_text(c, x0 + (w - n) / 2, y, s, BL_NO_RGB, w);
        return;
    }
    const char *ell = st->unicode ? "\xe2\x80\xa6" : "...";
    int el = bl_utf8_len(ell), k = bl_canvas_text(c, x0, y, s, BL_NO_RGB, w > el ? w - el : 0);
    bl_canvas_text(c, x0 + k, y, ell, BL_NO_RGB, w - k);
}

static void text_right(bl_canvas *c, int x_end, int y, const char *s)
{
    bl_canvas_text(c, x_end - bl_utf8_len(s), y, s, BL_NO_RGB, -1);
}

/* ---- lines panels ---- */

typedef struct {
    bl_canvas *plot; /* the plot area */
    int braille;     /* dots (2 x 4 per cell) or one mark per cell */
} plot_area;

/* data position (0..1 on both axes) to plot-area sub-cell coordinates */
/* Position t in [0, 1] to the nearest of n pixels. A tie (a constant line sits in the middle of the
 * axis, between two pixels when n is even) goes to the higher one whichever side rounding error puts
 * the value, so that a curve and the tick of its value land on the same pixel. */
static long pixel(double t, long n) { return lround(t * (n - 1) + 1e-9); }

static void to_px(const plot_area *a, double tx, double ty, long *px, long *py)
{
    int sx = a->braille ? 2 : 1, sy = a->braille ? 4 : 1;
    tx = tx < -4 ? -4 : tx > 5 ? 5 : tx;
    ty = ty < -4 ? -4 : ty > 5 ? 5 : ty;
    *px = pixel(tx, (long)a->plot->w * sx);
    *py = pixel(1 - ty, (long)a->plot->h * sy);
}

static void plot_point(plot_area *a, long px, long py, uint32_t fg, int prio, char mark)
{
    if (a->braille) {
        bl_canvas_dot(a->plot, (int)px, (int)py, fg, prio);
        return;
    }
    if (px < 0 || py < 0 || px >= a->plot->w || py >= a->plot->h) return;
    char g[2] = {mark, 0};
    bl_canvas_put(a->plot, (int)px, (int)py, g, fg, BL_NO_RGB);
}

/* Bresenham from (x0, y0) to (x1, y1) */
static void plot_segment(plot_area *a, long x0, long y0, long x1, long y1, uint32_t fg, int prio, char mark)
{
    long dx = labs(x1 - x0), dy = -labs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, err = dx + dy;
    for (;;) {
        plot_point(a, x0, y0, fg, prio, mark);
        if (x0 == x1 && y0 == y1) break;
        long e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

static void draw_series(plot_area *a, const bl_series *se, const bl_scale *xs, const bl_scale *ys, int prio,
                        uint32_t fg, char mark, const char *dot, const style *st)
{
    long lx = 0, ly = 0;
    int have_last = 0;
    for (int i = 0; i < se->n; i++) {
        double tx = bl_scale_pos(xs, se->x[i]), ty = bl_scale_pos(ys, se->y[i]);
        if (!isfinite(tx) || !isfinite(ty)) {
            have_last = 0;
            continue;
        }
        long px, py;
        to_px(a, tx, ty, &px, &py);
        if (!(se->flags & BL_NO_LINE)) {
            if (have_last) plot_segment(a, lx, ly, px, py, fg, prio, mark);
            else plot_point(a, px, py, fg, prio, mark);
        }
        lx = px, ly = py, have_last = 1;
    }
    if (!(se->flags & BL_MARKERS)) return;
    for (int i = 0; i < se->n; i++) {
        double tx = bl_scale_pos(xs, se->x[i]), ty = bl_scale_pos(ys, se->y[i]);
        if (!isfinite(tx) || !isfinite(ty) || tx < 0 || tx > 1 || ty < 0 || ty > 1) continue;
        long px, py;
        to_px(a, tx, ty, &px, &py);
        if (a->braille) px /= 2, py /= 4;
        bl_canvas_put(a->plot, (int)px, (int)py, dot, st->color ? fg : BL_NO_RGB, BL_NO_RGB);
    }
}

/* A band (BL_BAND, the seed gap of plot loss relative=): the cells between its edges (y and y2)
 * that nothing else was drawn in, shaded "░" (":" without Unicode) in its colour dimmed, so that
 * the lines over it stay whole */
static void fill_band(plot_area *a, const bl_series *se, const bl_scale *xs, const bl_scale *ys, const style *st)
{
    const char *g = st->unicode ? "\xe2\x96\x91" : ":";
    uint32_t fg = st->color ? bl_rgb_mix(bl_series_rgb(se), 0x808080, 0.55) : BL_NO_RGB;
    int W = a->plot->w, H = a->plot->h;
    for (int i = 0; i + 1 < se->n; i++) {
        double x0 = bl_scale_pos(xs, se->x[i]), x1 = bl_scale_pos(xs, se->x[i + 1]);
        double a0 = bl_scale_pos(ys, se->y[i]), b0 = bl_scale_pos(ys, se->y2[i]);
        double a1 = bl_scale_pos(ys, se->y[i + 1]), b1 = bl_scale_pos(ys, se->y2[i + 1]);
        if (!isfinite(x0) || !isfinite(x1) || !isfinite(a0) || !isfinite(b0) || !isfinite(a1) || !isfinite(b1)) continue;
        long c0 = pixel(fmax(-1, fmin(2, x0)), W), c1 = pixel(fmax(-1, fmin(2, x1)), W);
        for (long col = c0; col <= c1; col++) {
            if (col < 0 || col >= W) continue;
            double f = c1 > c0 ? (double)(col - c0) / (double)(c1 - c0) : 0, lo = a0 + f * (a1 - a0), hi = b0 + f * (b1 - b0);
            long r0 = pixel(1 - fmax(-1, fmin(2, fmax(lo, hi))), H), r1 = pixel(1 - fmax(-1, fmin(2, fmin(lo, hi))), H);
            for (long r = r0 < 0 ? 0 : r0; r <= r1 && r < H; r++) {
                const bl_cell *e = &a->plot->cells[r * W + col];
                if (!e->glyph[0] && !e->dots) bl_canvas_put(a->plot, (int)col, (int)r, g, fg, BL_NO_RGB);
            }
        }
    }
}

/* the ASCII mark of series s when curves are drawn one mark per cell: the next of MARKS for each
 * series that is not faint */
static char mark_of(const bl_panel *p, int s)
{
    int k = 0;
    for (int i = 0; i < s; i++) k += !(p->series[i].flags & (BL_FAINT | BL_BAND));
    return MARKS[k % (int)(sizeof MARKS - 1)];
}

/* the marker of series s: the next of DOTS for each series drawn with markers */
static const char *dot_of(const bl_panel *p, int s, const style *st)
{
    int k = 0;
    for (int i = 0; i < s; i++) k += (p->series[i].flags & BL_MARKERS) != 0;
    return DOTS[st->unicode != 0][k % 6];
}

/* legend entries laid out from column x0 to x0 + w; returns the rows used (draws when c != NULL) */
static int legend(bl_canvas *c, const bl_panel *p, int x0, int y, int w, const style *st, int marks)
{
    int x = 0, rows = 0;
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        if ((se->flags & BL_NO_LEGEND) || !se->label[0]) continue;
        char key[8];
        if (se->flags & BL_BAND) snprintf(key, sizeof key, "%s", st->unicode ? "\xe2\x96\x91\xe2\x96\x91" : "::");
        else if (se->flags & BL_NO_LINE) snprintf(key, sizeof key, "%s", dot_of(p, s, st));
        else if (marks) snprintf(key, sizeof key, "%c", mark_of(p, s));
        else snprintf(key, sizeof key, "%s", st->unicode ? "━━" : "--");
        int need = bl_utf8_len(key) + 1 + bl_utf8_len(se->label);
        if (x > 0 && x + 3 + need > w) x = 0, rows++;
        if (x > 0) x += 3;
        if (rows == 0 && x == 0) rows = 1;
        if (c) {
            uint32_t fg = st->color ? bl_series_rgb(se) : BL_NO_RGB;
            int k = bl_canvas_text(c, x0 + x, y + rows - 1, key, fg, -1);
            bl_canvas_text(c, x0 + x + k + 1, y + rows - 1, se->label, BL_NO_RGB, w - x - k - 1);
        }
        x += need;
    }
    return rows;
}

static int lines_natural_height(int pw)
{
    int h = pw / 3 + 6;
    return h < 10 ? 10 : h > 24 ? 24 : h;
}

static void draw_lines(bl_canvas *c, const bl_panel *p, int x0, int y0, int pw, int ph, const style *st,
                       const bl_range *sx, const bl_range *sy)
{
    int y = y0, bottom = y0 + ph;
    if (p->title) text_center(c, x0, pw, y++, p->title, st);
    /* which curves are drawn, and how */
    int drawn = 0;
    for (int s = 0; s < p->nseries; s++)
        if (st->color || !(p->series[s].flags & BL_FAINT)) drawn += !(p->series[s].flags & BL_NO_LINE);
    int braille = st->unicode && (st->color || drawn <= 1);
    char xlab[256] = "", ylab[256] = "";
    if (p->xlabel || p->logx) snprintf(xlab, sizeof xlab, "%s%s", p->xlabel ? p->xlabel : "x", p->logx ? " (log)" : "");
    if (p->ylabel || p->logy) snprintf(ylab, sizeof ylab, "%s%s", p->ylabel ? p->ylabel : "y", p->logy ? " (log)" : "");
    int header = ylab[0] ? 1 : 0;
    /* the legend spans the panel's width (every entry, rows wrapped; the rows counted here
     * are the rows drawn) */
    int leg_rows = legend(NULL, p, 0, 0, pw, st, !braille);
    char note[128];   /* the points left out of the lines: said under the x label */
    int noted = bl_lines_note(p, note, sizeof note);
    int foot = 2 + (xlab[0] ? 1 : 0) + noted + leg_rows;
    int pr = bottom - y - header - foot;
    if (pr < 2) pr = 2;
    /* a y tick every 3 rows or so; a log y axis reaches to ticks past its data */
    int ymax_ticks = pr / 3 + 1 < 3 ? 3 : pr / 3 + 1;
    bl_scale xs, ys;
    bl_panel_scale(&ys, p, 1, sy, !st->color, 0.05, ymax_ticks);
    double yt[MAX_TICKS], xt[MAX_TICKS], ystep, xstep;
    int nyt = bl_scale_ticks(&ys, ymax_ticks, yt, MAX_TICKS, &ystep);
    char ylabels[MAX_TICKS][24];
    int yw = 1;
    for (int i = 0; i < nyt; i++) {
        bl_tick_label(yt[i], ystep, ylabels[i], sizeof ylabels[i]);
        int n = (int)strlen(ylabels[i]);
        if (n > yw) yw = n;
    }
    int pc = pw - yw - 2;
    if (pc < 4) pc = 4;
    /* an x tick every 10 columns or so; a log x axis, too, reaches to ticks past its data */
    int xmax_ticks = pc / 10 < 2 ? 2 : pc / 10;
    bl_panel_scale(&xs, p, 0, sx, !st->color, 0.0, xmax_ticks);
    int ax = x0 + yw + 1; /* the y axis column */
    if (header) bl_canvas_text(c, x0, y++, ylab, BL_NO_RGB, pw);
    int top = y;

    plot_area a = {bl_canvas_new(pc, pr), braille};
    if (!a.plot) return;
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        int faint = (se->flags & BL_FAINT) != 0;
        if ((faint && !st->color) || (se->flags & BL_BAND)) continue;   /* bands: after the lines */
        uint32_t fg = st->color ? bl_series_rgb(se) : BL_NO_RGB;
        if (faint) fg = bl_rgb_mix(fg, 0x808080, 0.55);
        draw_series(&a, se, &xs, &ys, faint ? 0 : 1 + s, fg, braille ? 0 : mark_of(p, s), dot_of(p, s, st), st);
    }
    for (int s = 0; s < p->nseries; s++)
        if (p->series[s].flags & BL_BAND && p->series[s].y2) fill_band(&a, &p->series[s], &xs, &ys, st);
    bl_canvas_blit(c, a.plot, ax + 1, top);
    bl_canvas_free(a.plot);

    /* y axis with ticks */
    const char *vbar = st->unicode ? "│" : "|", *ytick = st->unicode ? "┤" : "+";
    for (int r = 0; r < pr; r++) bl_canvas_put(c, ax, top + r, vbar, BL_NO_RGB, BL_NO_RGB);
    int last_row = -1;
    for (int i = nyt - 1; i >= 0; i--) {
        double t = bl_scale_pos(&ys, yt[i]);
        int r = braille ? (int)(pixel(1 - t, 4L * pr) / 4) : (int)pixel(1 - t, pr);
        if (r < 0 || r >= pr || r == last_row) continue;
        last_row = r;
        bl_canvas_put(c, ax, top + r, ytick, BL_NO_RGB, BL_NO_RGB);
        text_right(c, ax - 1, top + r, ylabels[i]);
    }
    /* x axis with ticks and labels */
    int xr = top + pr;
    bl_canvas_put(c, ax, xr, st->unicode ? "└" : "+", BL_NO_RGB, BL_NO_RGB);
    for (int i = 0; i < pc; i++) bl_canvas_put(c, ax + 1 + i, xr, st->unicode ? "─" : "-", BL_NO_RGB, BL_NO_RGB);
    int nxt = bl_scale_whole_ticks(p->xcount && !p->logx, xt, bl_scale_ticks(&xs, xmax_ticks, xt, MAX_TICKS, &xstep), &xstep);
    int last_end = x0 - 1;
    for (int i = 0; i < nxt; i++) {
        double t = bl_scale_pos(&xs, xt[i]);
        int col = braille ? (int)(pixel(t, 2L * pc) / 2) : (int)pixel(t, pc);
        if (col < 0 || col >= pc) continue;
        char lab[24];
        bl_tick_label(xt[i], xstep, lab, sizeof lab);
        int n = (int)strlen(lab), lx = ax + 1 + col - (n - 1) / 2;
        if (lx + n > x0 + pw) lx = x0 + pw - n;
        if (lx <= last_end) continue;
        bl_canvas_put(c, ax + 1 + col, xr, st->unicode ? "┬" : "+", BL_NO_RGB, BL_NO_RGB);
        bl_canvas_text(c, lx, xr + 1, lab, BL_NO_RGB, -1);
        last_end = lx + n;
    }
    y = xr + 2;
    if (xlab[0]) text_center(c, ax + 1, pc, y++, xlab, st);
    if (noted) bl_canvas_text(c, ax + 1, y++, note, BL_NO_RGB, pw - yw - 2);
    /* under the plot area when it takes no more rows there, else from the panel's left edge */
    if (legend(NULL, p, 0, 0, pw - yw - 2, st, !braille) <= leg_rows) legend(c, p, ax + 1, y, pw - yw - 2, st, !braille);
    else legend(c, p, x0, y, pw, st, !braille);
}

/* ---- heatmaps and images: square "pixels", two per cell (upper and lower half) ---- */

typedef struct {
    int w, h;       /* pixels */
    uint32_t *rgb;  /* BL_NO_RGB = empty */
    float *t;       /* brightness 0..1 for the ASCII ramp, NaN = empty */
} pixmap;

static int pixmap_init(pixmap *m, int w, int h)
{
    m->w = w, m->h = h;
    m->rgb = malloc((size_t)w * h * sizeof *m->rgb);
    m->t = malloc((size_t)w * h * sizeof *m->t);
    if (!m->rgb || !m->t) {
        free(m->rgb), free(m->t);
        return bl_fail("term: out of memory");
    }
    return 0;
}

static void pixmap_free(pixmap *m)
{
    free(m->rgb);
    free(m->t);
}

/* draw pixmap rows as cells from (x0, y0): half blocks with colours, the ramp without */
static void pixmap_draw(bl_canvas *c, const pixmap *m, int x0, int y0, const style *st)
{
    for (int r = 0; 2 * r < m->h; r++)
        for (int x = 0; x < m->w; x++) {
            long i0 = (long)(2 * r) * m->w + x, i1 = i0 + m->w;
            int has1 = 2 * r + 1 < m->h;
            uint32_t top = m->rgb[i0], bot = has1 ? m->rgb[i1] : BL_NO_RGB;
            if (st->color && st->unicode) {
                if (top != BL_NO_RGB) bl_canvas_put(c, x0 + x, y0 + r, "▀", top, bot);
                else if (bot != BL_NO_RGB) bl_canvas_put(c, x0 + x, y0 + r, "▄", bot, BL_NO_RGB);
                continue;
            }
            double sum = 0;
            int n = 0;
            if (!isnan(m->t[i0])) sum += m->t[i0], n++;
            if (has1 && !isnan(m->t[i1])) sum += m->t[i1], n++;
            if (!n) continue;
            char g[2] = {RAMP[lround(sum / n * 9)], 0};
            bl_canvas_put(c, x0 + x, y0 + r, g, st->color ? (top != BL_NO_RGB ? top : bot) : BL_NO_RGB, BL_NO_RGB);
        }
}

/* heatmap geometry: pixel size of a data cell (p >= 1) or a reduced pixel grid (p = 0);
 * labels_rows: row labels and an even cell size, so that every row starts a line of its own */
typedef struct {
    int p, dw, dh, labels_rows;
} heat_geom;

static heat_geom heat_fit(const bl_panel *p, int aw, int hb)
{
    heat_geom g = {0, 0, 0, p->row_labels != NULL};
    int px = aw / p->cols, py = 2 * hb / p->rows;
    int s = px < py ? px : py;
    if (s > 8) s = 8;
    if (g.labels_rows && s >= 2) s -= s % 2;
    else g.labels_rows = 0;
    if (s >= 1) {
        g.p = s, g.dw = p->cols * s, g.dh = p->rows * s;
        return g;
    }
    double f = fmin((double)aw / p->cols, 2.0 * hb / p->rows);
    g.dw = (int)(p->cols * f), g.dh = (int)(p->rows * f);
    if (g.dw < 1) g.dw = 1;
    if (g.dh < 1) g.dh = 1;
    return g;
}

static int label_width(char **labels, int n, int cap)
{
    int w = 0;
    for (int i = 0; labels && i < n; i++) {
        int k = bl_utf8_len(labels[i]);
        if (k > w) w = k;
    }
    return w > cap ? cap : w;
}

/* Which of n labels along len pixels (cells) to show so that each gets `need` of them: every k-th,
 * k the smallest with k * len / n >= need (1 when all fit), from *first = bl_label_first: the
 * offsets -7 .. 7 give -6 -4 .. 6 at k = 2 and -6 -3 0 3 6 at k = 3 (a symmetric axis labelled
 * at its centre). Labels k cells apart lie at least `need` pixels apart, whole pixels or not. */
static int label_step(const char *const *labels, int n, int len, int need, int *first)
{
    int k = len > 0 ? (int)(((long)n * need + len - 1) / len) : n;
    if (k < 1) k = 1;
    *first = bl_label_first(labels, n, k);
    return k;
}

static int heat_budget(int pw, int ph, int has_title)
{
    if (ph > 0) return ph - has_title - 1;
    int hb = pw * 2 / 5;
    return hb < 8 ? 8 : hb;
}

/* a range end to 1% of the range, without trailing zeros ("0.353", "0", "23") */
static void end_label(double v, double range, char out[24])
{
    bl_tick_label(v, range / 100, out, 24);
    if (!strchr(out, '.') || strchr(out, 'e')) return;
    char *e = out + strlen(out) - 1;
    while (*e == '0') *e-- = 0;
    if (*e == '.') *e = 0;
    if (!strcmp(out, "-0")) strcpy(out, "0");
}

/* colour-bar labels on `rows` rows: the range ends (vmax on top, vmin at the bottom) and the nice
 * ticks between them on rows of their own; returns the count, *width the widest label */
static int cbar_labels(float vmin, float vmax, int rows, int *row, char lab[][24], int *width)
{
    bl_scale s = {vmin, vmax, 0};
    double t[MAX_TICKS], step;
    int mt = rows / 3 + 1, n = 0;
    int nt = bl_scale_ticks(&s, mt < 2 ? 2 : mt > 6 ? 6 : mt, t, MAX_TICKS, &step);
    end_label(vmax, vmax - vmin, lab[n]), row[n++] = 0;
    if (rows > 1) end_label(vmin, vmax - vmin, lab[n]), row[n++] = rows - 1;
    for (int i = 0; i < nt && n < MAX_TICKS + 2; i++) {
        int r = (int)lround((1 - bl_cmap_pos((float)t[i], vmin, vmax)) * (rows - 1)), clash = 0;
        for (int k = 0; k < n; k++) clash |= abs(row[k] - r) < 1 + (k < 2);
        if (clash) continue;
        bl_tick_label(t[i], step, lab[n], 24);
        row[n++] = r;
    }
    *width = 0;
    for (int i = 0; i < n; i++)
        if ((int)strlen(lab[i]) > *width) *width = (int)strlen(lab[i]);
    return n;
}

static int heat_layout(const bl_panel *p, int pw, int ph, int *rw, int *cbw, heat_geom *g)
{
    int hb = heat_budget(pw, ph, p->title != NULL);
    char buf[24];
    *rw = p->row_labels ? label_width(p->row_labels, p->rows, 6) : (int)strlen(bl_tick_label(p->rows - 1, 1, buf, sizeof buf));
    float vmin, vmax;
    bl_heat_range(p, &vmin, &vmax);
    char lab[MAX_TICKS + 2][24];
    int rows[MAX_TICKS + 2], w;
    cbar_labels(vmin, vmax, hb, rows, lab, &w);
    *cbw = 2 + 2 + 1 + w;
    int aw = pw - *rw - 1 - *cbw;
    if (aw < 1) aw = 1;
    *g = heat_fit(p, aw, hb < 1 ? 1 : hb);
    char note[96];
    return (p->title != NULL) + (g->dh + 1) / 2 + 1 + bl_heat_note(p, note, sizeof note);
}

/* index ticks 0 .. n-1 for an axis drawn over `len` cells */
static int index_ticks(int n, int len, int spacing, double *t, double *step)
{
    int mt = len / spacing + 1;
    return bl_index_ticks(n, mt < 2 ? 2 : mt, t, MAX_TICKS, step);
}

/* the value under pixel (px, py): the data cell, or the mean of the finite cells a pixel covers
 * when the map is shrunk (so that a thin diagonal does not vanish between samples) */
static float cell_value(const bl_panel *p, heat_geom g, int px, int py)
{
    int r0 = (int)((long)py * p->rows / g.dh), c0 = (int)((long)px * p->cols / g.dw);
    if (g.p >= 1) return p->values[(long)r0 * p->cols + c0];
    int r1 = (int)((long)(py + 1) * p->rows / g.dh), c1 = (int)((long)(px + 1) * p->cols / g.dw);
    if (r1 <= r0) r1 = r0 + 1;
    if (c1 <= c0) c1 = c0 + 1;
    double sum = 0;
    int n = 0;
    for (int r = r0; r < r1; r++)
        for (int c = c0; c < c1; c++) {
            float v = p->values[(long)r * p->cols + c];
            if (isfinite(v)) sum += v, n++;
        }
    return n ? (float)(sum / n) : NAN;
}

/* a colour bar two pixels wide over `tr` lines from (bx, y), vmax on top and vmin at the bottom
 * (both ends exactly the map's end colours), its labels 3 cells right of it */
static void draw_cbar(bl_canvas *c, bl_cmap cmap, float vmin, float vmax, int bx, int y, int tr, const style *st)
{
    pixmap bar;
    if (pixmap_init(&bar, 2, 2 * tr)) return;
    for (int py = 0; py < 2 * tr; py++) {
        double tt = 2 * tr > 1 ? 1.0 - (double)py / (2 * tr - 1) : 1.0;
        for (int px = 0; px < 2; px++) {
            bar.t[py * 2 + px] = (float)tt;
            bar.rgb[py * 2 + px] = bl_cmap_rgb(cmap, tt);
        }
    }
    pixmap_draw(c, &bar, bx, y, st);
    pixmap_free(&bar);
    char labs[MAX_TICKS + 2][24];
    int rows[MAX_TICKS + 2], w, nl = cbar_labels(vmin, vmax, tr, rows, labs, &w);
    for (int i = 0; i < nl; i++) bl_canvas_text(c, bx + 3, y + rows[i], labs[i], BL_NO_RGB, -1);
}

static void draw_heatmap(bl_canvas *c, const bl_panel *p, int x0, int y0, int pw, int ph, const style *st)
{
    int y = y0, rw, cbw;
    heat_geom g;
    heat_layout(p, pw, ph, &rw, &cbw, &g);
    if (p->title) text_center(c, x0, pw, y++, p->title, st);
    float vmin, vmax;
    bl_heat_range(p, &vmin, &vmax);
    pixmap m;
    if (pixmap_init(&m, g.dw, g.dh)) return;
    for (int py = 0; py < g.dh; py++)
        for (int px = 0; px < g.dw; px++) {
            double t = bl_cmap_pos(cell_value(p, g, px, py), vmin, vmax);
            m.t[(long)py * g.dw + px] = (float)t;
            m.rgb[(long)py * g.dw + px] = bl_cmap_rgb(p->cmap, t);
        }
    int hx = x0 + rw + 1, tr = (g.dh + 1) / 2;
    pixmap_draw(c, &m, hx, y, st);
    pixmap_free(&m);

    /* row labels or index ticks on the left, column labels or index ticks below */
    double t[MAX_TICKS], step;
    char lab[24];
    if (p->row_labels) {
        /* every row's label when each row has a line of its own (labels_rows), else every k-th
         * row's (k = rows per line, rounded up, centred as the columns' are): each on the line of
         * its row's top */
        int first, every = label_step((const char *const *)p->row_labels, p->rows, g.dh, 2, &first);
        for (int r = first; r < p->rows; r += every)
            text_right(c, hx - 1, y + (int)((long)r * g.dh / p->rows / 2), p->row_labels[r]);
    } else {
        int k = index_ticks(p->rows, tr, 4, t, &step), last = -1;
        for (int i = 0; i < k; i++) {
            int row = (int)(((t[i] + 0.5) * g.dh / p->rows) / 2);
            if (row == last || row >= tr) continue;
            last = row;
            text_right(c, hx - 1, y + row, bl_tick_label(t[i], step, lab, sizeof lab));
        }
    }
    int last_end = x0 - 1;
    if (p->col_labels) {
        /* every k-th column's label, evenly: k columns hold the widest label and a blank; centred
         * on its column, the odd character of an even width to the left, so that the digits of
         * -7 .. 7 sit on their columns behind the signs */
        int first, every = label_step((const char *const *)p->col_labels, p->cols, g.dw, label_width(p->col_labels, p->cols, INT_MAX) + 1, &first);
        for (int j = first; j < p->cols; j += every) {
            const char *s = p->col_labels[j];
            int n = bl_utf8_len(s), cx = hx + (int)((j + 0.5) * g.dw / p->cols) - n / 2;
            if (cx <= last_end) continue;
            bl_canvas_text(c, cx, y + tr, s, BL_NO_RGB, -1);
            last_end = cx + n;
        }
    } else {
        int k = index_ticks(p->cols, g.dw, 6, t, &step);
        for (int i = 0; i < k; i++) {
            bl_tick_label(t[i], step, lab, sizeof lab);
            int n = (int)strlen(lab), cx = hx + (int)((t[i] + 0.5) * g.dw / p->cols) - (n - 1) / 2;
            if (cx <= last_end) continue;
            bl_canvas_text(c, cx, y + tr, lab, BL_NO_RGB, -1);
            last_end = cx + n;
        }
    }

    int bx = hx + g.dw + 2;
    draw_cbar(c, p->cmap, vmin, vmax, bx, y, tr, st);
    char note[96];
    if (bl_heat_note(p, note, sizeof note)) bl_canvas_text(c, hx, y + tr + 1, note, BL_NO_RGB, x0 + pw - hx);
}

typedef struct {
    int g, rows, dw, dh; /* images per row, grid rows, pixels per image */
} img_geom;

/* the columns an images panel keeps right of its grid for its overlay's colour bar: a gap of
 * 2, the bar (2), 1 and the widest label of a bar `rows` lines tall (0 without an overlay) */
static int img_bar_cols(const bl_panel *p, int rows)
{
    if (!p->overlay) return 0;
    char labs[MAX_TICKS + 2][24];
    int r[MAX_TICKS + 2], w;
    cbar_labels(p->omin, p->omax, rows > 1 ? rows : 2, r, labs, &w);
    return 2 + 2 + 1 + w;
}

/* The room of an images panel's grid: pw columns, ph rows (its title's included), the images
 * at most `cap` cells a pixel across */
typedef struct {
    const bl_panel *p;
    int pw, ph;
    double cap;
} img_room;

/* the scale (cells a pixel across) of room c's images with k to a row, a column and a row
 * between them, two pixels a row (half blocks) (bl_grid_square_cols) */
static double img_scale(int k, const void *c)
{
    const img_room *r = c;
    int rows = (r->p->n + k - 1) / k, avail = r->ph - (r->p->title != NULL) - (rows - 1);
    return fmin(r->cap, fmin((double)(r->pw - (k - 1)) / (k * r->p->w), 2.0 * (avail / rows) / r->p->h));
}

/* own: p draws its overlay's colour bar right of its grid (not the figure's one bar,
 * bl_fig_overlay_one_bar) */
static img_geom img_fit(const bl_panel *p, int pw, int ph, int own)
{
    img_geom g;
    if (own) pw -= img_bar_cols(p, 8);   /* the labels' width hardly depends on the bar's height */
    if (pw < 1) pw = 1;
    /* the grid a PNG would choose in that room (16: 4 x 4); without a height to keep, of the
     * grids whose images keep a cell a pixel across in pw (80 columns: 16 as 8 x 2) */
    g.g = p->grid_cols ? (p->grid_cols < p->n ? p->grid_cols : p->n)
                       : bl_grid_square_cols(p->n, img_scale, &(img_room){p, pw, ph > 0 ? ph : INT_MAX / 4, ph > 0 ? INFINITY : 1});
    g.rows = (p->n + g.g - 1) / g.g;
    int s = (pw - (g.g - 1)) / (g.g * p->w);
    if (s > 4) s = 4;
    if (ph > 0) {
        int avail = ph - (p->title != NULL) - (g.rows - 1);
        int sy = 2 * (avail / g.rows) / p->h;
        if (sy < s) s = sy;
    }
    if (s >= 1) {
        g.dw = p->w * s, g.dh = p->h * s;
    } else { /* shrink */
        double f = (double)(pw - (g.g - 1)) / (g.g * p->w);
        if (ph > 0) f = fmin(f, 2.0 * ((ph - (p->title != NULL) - (g.rows - 1)) / g.rows) / p->h);
        g.dw = (int)(p->w * f), g.dh = (int)(p->h * f);
        if (g.dw < 1) g.dw = 1;
        if (g.dh < 1) g.dh = 1;
    }
    return g;
}

static int img_height(const bl_panel *p, int pw, int ph, int own)
{
    img_geom g = img_fit(p, pw, ph, own);
    return (p->title != NULL) + g.rows * ((g.dh + 1) / 2) + (g.rows - 1);
}

/* the outline of the marked cell of an images panel's grid (bl_panel_images_mark) in the
 * pixels of one image m, in the mark's vermilion, where a cell is 3 pixels or more a side (a
 * smaller one is filled) */
static void mark_cell(pixmap *m, const bl_panel *p)
{
    int x0 = p->mark_col * m->w / p->mcols, x1 = (p->mark_col + 1) * m->w / p->mcols - 1;
    int y0 = p->mark_row * m->h / p->mrows, y1 = (p->mark_row + 1) * m->h / p->mrows - 1;
    int fill = x1 - x0 < 2 || y1 - y0 < 2;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            if (fill || x == x0 || x == x1 || y == y0 || y == y1) {
                m->rgb[(long)y * m->w + x] = 0xe8250cu;
                m->t[(long)y * m->w + x] = 1;
            }
}

/* the columns from an images panel's left edge to its grid (centred in pw) */
static int img_indent(const img_geom *g, int pw)
{
    int gw = g->g * (g->dw + 1) - 1;
    return gw < pw ? (pw - gw) / 2 : 0;
}

static void draw_images(bl_canvas *c, const bl_panel *p, int x0, int y0, int pw, int ph, int own, const style *st)
{
    int y = y0;
    if (p->title) text_center(c, x0, pw, y++, p->title, st);
    img_geom g = img_fit(p, pw, ph, own);
    /* the grid centred under its title, as on a PNG (one with its own colour bar stays left) */
    if (!p->overlay || !own) x0 += img_indent(&g, pw);
    pixmap m;
    if (pixmap_init(&m, g.dw, g.dh)) return;
    for (int i = 0; i < p->n; i++) {
        for (int py = 0; py < g.dh; py++)
            for (int px = 0; px < g.dw; px++) {
                int sy = (int)((long)py * p->h / g.dh), sx = (int)((long)px * p->w / g.dw);
                uint32_t rgb = bl_image_rgb(p, i, sx, sy);
                m.rgb[(long)py * g.dw + px] = rgb;
                m.t[(long)py * g.dw + px] = (float)bl_rgb_luma(rgb);
            }
        if (p->has_mark) mark_cell(&m, p);
        int gr = i / g.g, gc = i % g.g;
        pixmap_draw(c, &m, x0 + gc * (g.dw + 1), y + gr * ((g.dh + 1) / 2 + 1), st);
    }
    pixmap_free(&m);
    if (p->overlay && own) {
        int tr = g.rows * ((g.dh + 1) / 2) + (g.rows - 1);
        draw_cbar(c, BL_CMAP_VIRIDIS, p->omin, p->omax, x0 + g.g * (g.dw + 1) + 1, y, tr, st);
    }
}

/* ---- text panels ---- */

/* wrap s at w cells; draws from (x0, y) when c != NULL; returns the number of lines */
static int wrap_text(bl_canvas *c, const char *s, int x0, int y, int w)
{
    int lines = 0;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char *line = strndup(s, len);
        if (!line) return lines;
        const char *q = line;
        do {
            int k = c ? bl_canvas_text(c, x0, y + lines, q, BL_NO_RGB, w) : 0;
            if (!c) { /* count the code points that fit */
                int n = bl_utf8_len(q);
                k = n < w ? n : w;
            }
            for (int i = 0; i < k && *q; i++) {
                q++;
                while ((*q & 0xc0) == 0x80) q++;
            }
            lines++;
        } while (*q);
        free(line);
        s += len + (nl ? 1 : 0);
    }
    return lines;
}

/* ---- the figure ---- */

static int panel_height(const bl_panel *p, int pw, int ph, int own_bar, const style *st)
{
    int rw, cbw;
    heat_geom g;
    switch (p->kind) {
    case BL_PANEL_LINES: return ph > 0 ? ph : lines_natural_height(pw);
    case BL_PANEL_HEATMAP: return heat_layout(p, pw, ph, &rw, &cbw, &g);
    case BL_PANEL_IMAGES: return img_height(p, pw, ph, own_bar);
    case BL_PANEL_TEXT: return (p->title != NULL) + wrap_text(NULL, p->text, 0, 0, pw);
    default: return 0;
    }
}

bl_canvas *bl_term_canvas(const bl_figure *f, int width, int height, int color, int unicode)
{
    if (bl_fig_check(f)) return NULL;
    if (width < MIN_WIDTH) return BL_FAILP("term: width %d is too small (need at least %d)", width, MIN_WIDTH);
    style st = {color, unicode};
    int title = f->title != NULL;
    /* overlays of one range: one colour bar right of the grid, its columns kept once (the
     * widest its labels take on a short bar or a tall one) */
    const bl_panel *one = bl_fig_overlay_one_bar(f);
    int barw = one ? img_bar_cols(one, 8) : 0, tall = one ? img_bar_cols(one, 64) : 0;
    if (tall > barw) barw = tall;
    int pw = (width - barw - 2 * (f->cols - 1)) / f->cols;
    if (pw < MIN_WIDTH / 2) return BL_FAILP("term: width %d is too small for %d panel columns", width, f->cols);
    int fixed = height > 0 ? (height - title) / f->rows : 0;
    if (height > 0 && fixed < 4) return BL_FAILP("term: height %d is too small for %d panel rows", height, f->rows);
    int rh[BL_FIG_MAX_GRID], total = title;
    for (int r = 0; r < f->rows; r++) {
        rh[r] = fixed;
        if (!fixed)
            for (int k = 0; k < f->cols; k++) {
                int h = panel_height(&f->panels[r * f->cols + k], pw, 0, !one, &st);
                if (h > rh[r]) rh[r] = h;
            }
        total += rh[r] + (r + 1 < f->rows && !fixed ? 1 : 0);
    }
    bl_canvas *c = bl_canvas_new(width, height > 0 ? height : total);
    if (!c) return NULL;
    if (title) text_center(c, 0, width, 0, f->title, &st);
    bl_range sx, sy;
    bl_fig_shared_range(f, 0, !color, &sx);
    bl_fig_shared_range(f, 1, !color, &sy);
    int y = title, right = 0, btop = INT_MAX, bbottom = 0;
    for (int r = 0; r < f->rows; r++) {
        for (int k = 0; k < f->cols; k++) {
            const bl_panel *p = &f->panels[r * f->cols + k];
            int x = k * (pw + 2);
            switch (p->kind) {
            case BL_PANEL_LINES: draw_lines(c, p, x, y, pw, rh[r], &st, &sx, &sy); break;
            case BL_PANEL_HEATMAP: draw_heatmap(c, p, x, y, pw, fixed ? rh[r] : 0, &st); break;
            case BL_PANEL_IMAGES:
                draw_images(c, p, x, y, pw, fixed ? rh[r] : 0, !one, &st);
                if (one) {   /* where the images are: the one bar spans them, right of the rightmost */
                    img_geom g = img_fit(p, pw, fixed ? rh[r] : 0, 0);
                    int top = y + (p->title != NULL), bottom = top + g.rows * ((g.dh + 1) / 2) + (g.rows - 1);
                    int end = x + img_indent(&g, pw) + g.g * (g.dw + 1) - 1;
                    right = right > end ? right : end;
                    btop = btop < top ? btop : top, bbottom = bbottom > bottom ? bbottom : bottom;
                }
                break;
            case BL_PANEL_TEXT:
                if (p->title) text_center(c, x, pw, y, p->title, &st);
                wrap_text(c, p->text, x, y + (p->title != NULL), pw);
                break;
            default: break;
            }
        }
        y += rh[r] + (fixed ? 0 : 1);
    }
    if (one && bbottom > btop) draw_cbar(c, BL_CMAP_VIRIDIS, one->omin, one->omax, right + 2, btop, bbottom - btop, &st);
    return c;
}

int bl_term_print(const bl_figure *f, FILE *out, const bl_term_opts *o)
{
    bl_term_opts d = {0};
    if (!o) o = &d;
    bl_color_mode mode = o->color == BL_COLOR_AUTO ? bl_term_color_mode(out) : o->color;
    int width = o->width > 0 ? o->width : bl_term_width(out);
    int color = mode == BL_COLOR_256 || mode == BL_COLOR_TRUE;
    bl_canvas *c = bl_term_canvas(f, width, o->height, color, !o->ascii);
    if (!c) return -1;
    int r = bl_canvas_write(c, out, mode);
    bl_canvas_free(c);
    return r;
}
