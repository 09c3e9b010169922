/* draw.c - the figure drawn with cairo: slide-quality style, thin grid, labelled axes, legend box,
 * colour bars with ticks (see draw.h). Text uses cairo's toy API with "DejaVu Sans" (fontconfig). */
#include "viz/draw.h"
#include "core/fmt.h"
#include "viz/color.h"
#include "viz/scale.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TICKS 16
#define C_TEXT 0x222222u
#define C_TICK 0x444444u
#define C_GRID 0xe6e6e6u
#define C_SPINE 0x555555u
#define C_MARK 0xe8250cu /* the outline of a marked heatmap cell (vermilion, seen on viridis and RdBu) */
/* a heatmap's colour bar, in size units: the gap after the map, the bar's width, and the gap
 * from the bar to its tick labels */
#define BAR_GAP 24
#define BAR_W 24
#define BAR_TEXT 9

typedef struct {
    cairo_t *cr;
    double u; /* size unit: 1 at 1600 x 900 */
    cairo_matrix_t to_page; /* device -> page units (the inverse of the matrix drawing started with) */
    bl_layout *trace;       /* or NULL: where each text is recorded (bl_draw_trace) */
    int role, panel;        /* of the texts drawn now: BL_TEXT_*, the panel's index */
    int series;             /* of the points drawn now: the series' index in its panel */
    double fsize;           /* the font size set last, page units */
} dctx;

static bl_layout *trace_to;

void bl_draw_trace(bl_layout *t) { trace_to = t; }

/* the box of text s about to be drawn from the current point (x, y) on the baseline, in page units */
static void record_text(dctx *d, double x, double y, const char *s, double tw, const cairo_font_extents_t *fe)
{
    bl_layout *t = d->trace;
    if (!t) return;
    if (t->ntext >= BL_LAYOUT_MAX_TEXT) {
        t->lost++;
        return;
    }
    bl_text_box *b = &t->text[t->ntext++];
    double cx[4] = {x, x + tw, x, x + tw}, cy[4] = {y - fe->ascent, y - fe->ascent, y + fe->descent, y + fe->descent};
    b->x0 = b->y0 = INFINITY, b->x1 = b->y1 = -INFINITY;
    for (int i = 0; i < 4; i++) {
        cairo_user_to_device(d->cr, &cx[i], &cy[i]);
        cairo_matrix_transform_point(&d->to_page, &cx[i], &cy[i]);
        b->x0 = fmin(b->x0, cx[i]), b->x1 = fmax(b->x1, cx[i]), b->y0 = fmin(b->y0, cy[i]), b->y1 = fmax(b->y1, cy[i]);
    }
    b->role = d->role, b->panel = d->panel, b->size = d->fsize;
    snprintf(b->text, sizeof b->text, "%s", s);
}

static void set_rgb(cairo_t *cr, uint32_t c, double alpha)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0, alpha);
}

static void font(dctx *d, double size, int bold, int mono)
{
    cairo_select_font_face(d->cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(d->cr, size * d->u);
    d->fsize = size * d->u;
}

static double text_w(dctx *d, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(d->cr, s, &e);
    return e.x_advance;
}

/* text at (x, y): ax 0/0.5/1 = left/centre/right of x; y is the vertical middle of the text */
static void text(dctx *d, double x, double y, const char *s, double ax, uint32_t color)
{
    if (!s[0]) return;
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    set_rgb(d->cr, color, 1);
    double tw = text_w(d, s), bx = x - ax * tw, by = y + (fe.ascent - fe.descent) / 2;
    record_text(d, bx, by, s, tw, &fe);
    cairo_move_to(d->cr, bx, by);
    cairo_show_text(d->cr, s);
}

static void text_vertical(dctx *d, double x, double y, const char *s, uint32_t color)
{
    cairo_save(d->cr);
    cairo_translate(d->cr, x, y);
    cairo_rotate(d->cr, -M_PI / 2);
    text(d, 0, 0, s, 0.5, color);
    cairo_restore(d->cr);
}

/* ---- titles and labels that must fit ---- */

/* A title or label shrinks to no less than FIT_SHRINK of its size, nor below FIT_MIN_PX pixels
 * (unless it was smaller than that to begin with), before it is cut. */
#define FIT_SHRINK (2.0 / 3)
#define FIT_MIN_PX 8.0

/* The smallest a text of `size` units may shrink to, in units: FIT_SHRINK of it, not below
 * FIT_MIN_PX pixels, unless it was smaller than that to begin with. The one limit of every text
 * that shrinks to fit (titles, labels, notes: fit(); legends: legend_size()). */
static double least_size(const dctx *d, double size)
{
    return fmin(size, fmax(size * FIT_SHRINK, FIT_MIN_PX / d->u));
}

/* The one rule for every title and label that has a width to fit in (the figure's title, panel
 * titles, axis labels, notes): at its size when it fits; else the font shrinks until it fits,
 * down to FIT_SHRINK of its size and not below FIT_MIN_PX; else, at that smallest size, it is
 * cut after a character and ends with an ellipsis "…" (a slide title loses its end, never
 * its start nor its middle). Sets the font (size in units, as font()) and leaves the text to
 * draw in buf (n bytes): s, or its cut, or "" when not even the ellipsis fits. Returns buf. */
static const char *fit(dctx *d, const char *s, double size, int bold, double maxw, char *buf, size_t n)
{
    snprintf(buf, n, "%s", s);
    font(d, size, bold, 0);
    double tw = text_w(d, buf);
    if (tw <= maxw) return buf;
    double least = least_size(d, size), sz = size;
    /* widths go with the size, nearly (hinting): aim at the size that fits, then step down */
    if (maxw > 0) sz = fmax(least, size * maxw / tw);
    else sz = least;
    for (int i = 0; i < 32; i++) {
        font(d, sz, bold, 0);
        if (text_w(d, buf) <= maxw || sz <= least) break;
        sz = fmax(least, sz * 0.97);
    }
    if (text_w(d, buf) <= maxw) return buf;
    static const char ell[] = "\xe2\x80\xa6";
    size_t len = strlen(buf);
    char *cut = malloc(len + sizeof ell);
    if (!cut) return buf;
    while (len > 0) {
        do len--;
        while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80);
        size_t k = len;
        while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == ',' || s[k - 1] == ':')) k--;
        memcpy(cut, s, k);
        memcpy(cut + k, ell, sizeof ell);
        if (k > 0 && text_w(d, cut) <= maxw) break;
    }
    if (len == 0) snprintf(cut, len + sizeof ell, "%s", text_w(d, ell) <= maxw ? ell : "");
    snprintf(buf, n, "%s", cut);
    free(cut);
    return buf;
}

/* s centred on (x, y), horizontal or turned upwards, fitted to maxw units by fit() */
static void text_fit(dctx *d, double x, double y, const char *s, double size, int bold, double maxw, uint32_t color,
                     int vertical)
{
    char buf[512];
    fit(d, s, size, bold, maxw, buf, sizeof buf);
    if (vertical) text_vertical(d, x, y, buf, color);
    else text(d, x, y, buf, 0.5, color);
}

static void line(dctx *d, double x0, double y0, double x1, double y1, uint32_t color, double width)
{
    set_rgb(d->cr, color, 1);
    cairo_set_line_width(d->cr, width * d->u);
    cairo_move_to(d->cr, x0, y0);
    cairo_line_to(d->cr, x1, y1);
    cairo_stroke(d->cr);
}

/* a panel's box; its horizontal texts (title, x label, notes) stay within tx0 .. tx1, which
 * is the box itself unless the next column starts inside it (a compact grid of heatmaps) */
typedef struct {
    double x, y, w, h;
    double tx0, tx1;
} box;

/* a point (x, y) in user units as page units */
static void to_page(dctx *d, double *x, double *y)
{
    cairo_user_to_device(d->cr, x, y);
    cairo_matrix_transform_point(&d->to_page, x, y);
}

/* start the record of lines panel d->panel: its box b, plot area a and axis ranges (NULL when
 * not recording or out of room) */
static bl_axes_box *record_axes(dctx *d, box b, box a, const bl_scale *xs, const bl_scale *ys)
{
    bl_layout *t = d->trace;
    if (!t || t->naxes >= BL_LAYOUT_MAX_AXES) return NULL;
    bl_axes_box *r = &t->axes[t->naxes++];
    memset(r, 0, sizeof *r);
    r->panel = d->panel;
    r->bx0 = b.x, r->by0 = b.y, r->bx1 = b.x + b.w, r->by1 = b.y + b.h;
    r->x0 = a.x, r->y0 = a.y, r->x1 = a.x + a.w, r->y1 = a.y + a.h;
    to_page(d, &r->bx0, &r->by0), to_page(d, &r->bx1, &r->by1);
    to_page(d, &r->x0, &r->y0), to_page(d, &r->x1, &r->y1);
    r->xr = (bl_scale_range){xs->lo, xs->hi, xs->log}, r->yr = (bl_scale_range){ys->lo, ys->hi, ys->log};
    r->pt0 = t->npt;
    return r;
}

/* a data point drawn at (x, y) in the plot area of record r */
static void record_point(dctx *d, bl_axes_box *r, double x, double y)
{
    bl_layout *t = d->trace;
    if (!r) return;
    if (t->npt >= BL_LAYOUT_MAX_POINTS) {
        t->lost_pt++;
        return;
    }
    to_page(d, &x, &y);
    t->pt[t->npt++] = (bl_layout_point){d->panel, d->series, (float)x, (float)y};
    r->npt++;
}

/* a map, colour bar or image drawn over x0 .. x1, y0 .. y1 in user units (rows x cols cells) */
static void record_block(dctx *d, int kind, double x0, double y0, double x1, double y1, int rows, int cols)
{
    bl_layout *t = d->trace;
    if (!t || t->nblock >= BL_LAYOUT_MAX_BLOCKS) return;
    to_page(d, &x0, &y0), to_page(d, &x1, &y1);
    t->block[t->nblock++] = (bl_block_box){d->panel, kind, x0, y0, x1, y1, rows, cols};
}

/* how series s of the panel drawn now was drawn */
static void record_series(dctx *d, int s, int color, int dash, int dots)
{
    bl_layout *t = d->trace;
    if (!t || t->nseries >= BL_LAYOUT_MAX_SERIES) return;
    t->series[t->nseries++] = (bl_series_style){d->panel, s, color, dash, dots};
}

/* the width of a text centred on x that stays within [b.tx0, b.tx1] */
static double room_at(box b, double x)
{
    return fmax(0, 2 * fmin(x - b.tx0, b.tx1 - x));
}

static void panel_title(dctx *d, const bl_panel *p, box b, double y)
{
    if (!p->title) return;
    double cx = b.x + b.w / 2;
    d->role = BL_TEXT_PANEL_TITLE;
    text_fit(d, cx, y, p->title, 21, 1, room_at(b, cx), C_TEXT, 0);
}

/* ---- lines panels ---- */

/* A legend: its entries (series with a label, not left out), one a row, or in up to ncol
 * columns filled one column after the other, as matplotlib's, with as few columns as hold them
 * in that many rows (4 entries in up to 3 columns: 2 x 2). Its text is LEGEND_SIZE units, and
 * its box is measured in that font size (em), so that the whole legend shrinks with its text:
 * padding, the line key and the gap after it, row height and the space between columns. */
#define LEGEND_SIZE 17
#define LEG_PAD (10.0 / 17)
#define LEG_KEY (30.0 / 17)
#define LEG_GAP (8.0 / 17)
#define LEG_ROW (26.0 / 17)
#define LEG_COLSEP 1.0
/* a legend takes at most LEGEND_ROOM of the plot area's width and height; a larger one shrinks
 * its text as titles do (least_size: to 2/3, not below 8 px) */
#define LEGEND_ROOM 0.5
/* it goes inside the plot area where it covers the least data (matplotlib's loc="best") when
 * that covers at most LEGEND_COVER of the points and of the samples along the lines; else
 * outside the plot area, on the right or below (under the x label), whichever leaves the plot
 * area larger, when the plot keeps at least LEGEND_KEEP of its area; else inside after all */
#define LEGEND_COVER 0.01
#define LEGEND_KEEP 0.4

typedef struct {
    int n, ncol, nrow;
    double size;   /* font size, units */
    double em;     /* the font size in page units */
    double tw;     /* the widest label */
    double w, h;   /* the box */
    int where;     /* BL_LEGEND_* */
    double x, y;   /* the box's top left corner */
} legend_geom;

static int legend_entry(const bl_series *se)
{
    return !(se->flags & BL_NO_LEGEND) && se->label[0];
}

/* the box of p's legend at `size` units in ncol columns */
static void legend_measure(dctx *d, const bl_panel *p, double size, int ncol, legend_geom *L)
{
    L->n = 0, L->tw = 0;
    font(d, size, 0, 0);
    for (int s = 0; s < p->nseries; s++)
        if (legend_entry(&p->series[s])) L->tw = fmax(L->tw, text_w(d, p->series[s].label)), L->n++;
    L->size = size, L->em = size * d->u;
    L->ncol = ncol < 1 ? 1 : ncol > L->n ? L->n : ncol;
    L->nrow = L->n ? (L->n + L->ncol - 1) / L->ncol : 0;
    if (L->nrow) L->ncol = (L->n + L->nrow - 1) / L->nrow;
    double em = L->em, colw = (LEG_KEY + LEG_GAP) * em + L->tw;
    L->w = 2 * LEG_PAD * em + L->ncol * colw + (L->ncol - 1) * LEG_COLSEP * em;
    L->h = 2 * LEG_PAD * em + L->nrow * LEG_ROW * em - 6.0 / 17 * em;
}

/* The legend's size for a plot area aw x ah: LEGEND_SIZE, shrunk (not below least_size) to
 * take at most LEGEND_ROOM of either side. */
static void legend_size(dctx *d, const bl_panel *p, double aw, double ah, legend_geom *L)
{
    legend_measure(d, p, LEGEND_SIZE, 1, L);
    if (!L->n) return;
    double k = fmin(1, fmin(LEGEND_ROOM * aw / L->w, LEGEND_ROOM * ah / L->h));
    if (k < 1) legend_measure(d, p, fmax(least_size(d, LEGEND_SIZE), LEGEND_SIZE * k), 1, L);
}

/* Dash patterns, in line widths, for series drawn over others (matplotlib's "--", ":" and
 * "-."): pattern k > 0 of line width lw, or a solid line (k 0), with flat ends for dashes */
static void set_dash(cairo_t *cr, int k, double lw)
{
    static const double pat[3][4] = { {3.7, 1.6}, {1, 1.65}, {6.4, 1.6, 1, 1.6} };
    static const int len[3] = {2, 2, 4};
    if (k <= 0) {
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        return;
    }
    double dd[4];
    int j = (k - 1) % 3;
    for (int i = 0; i < len[j]; i++) dd[i] = pat[j][i] * lw;
    cairo_set_dash(cr, dd, len[j], 0);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
}

/* point i of series se lies on both scales (its x and y finite, > 0 on a log axis) */
static int series_finite(const bl_series *se, int i, const bl_scale *xs, const bl_scale *ys)
{
    return i >= 0 && i < se->n && isfinite(bl_scale_pos(xs, se->x[i])) && isfinite(bl_scale_pos(ys, se->y[i]));
}

/* The dash pattern of each series of p drawn in plot area a (dash, room for n): 0, a solid
 * line, unless half or more of its points (of the same index, both drawn) lie within a line's
 * width (at least 2 pixels) of those of a line drawn before it, that would hide it or be hidden
 * under it (LayerNorm's and RMSNorm's rms, both 1): then the first pattern none of those lines
 * has, so that the one underneath shows through the gaps. Faint curves and points without a
 * line are left alone. */
static void series_dashes(dctx *d, const bl_panel *p, box a, const bl_scale *xs, const bl_scale *ys, int *dash, int n)
{
    double tol = fmax(2.6 * d->u, 2);
    for (int s = 0; s < p->nseries && s < n; s++) {
        const bl_series *se = &p->series[s];
        dash[s] = 0;
        if (se->flags & (BL_FAINT | BL_NO_LINE)) continue;
        unsigned used = 0;
        for (int r = 0; r < s; r++) {
            const bl_series *q = &p->series[r];
            if (q->flags & (BL_FAINT | BL_NO_LINE) || q->n != se->n) continue;
            int both = 0, near = 0;
            for (int i = 0; i < se->n; i++) {
                if (!series_finite(se, i, xs, ys) || !series_finite(q, i, xs, ys)) continue;
                double dx = a.w * (bl_scale_pos(xs, se->x[i]) - bl_scale_pos(xs, q->x[i]));
                double dy = a.h * (bl_scale_pos(ys, se->y[i]) - bl_scale_pos(ys, q->y[i]));
                both++, near += hypot(dx, dy) <= tol;
            }
            if (both && 2 * near >= both) used |= 1u << (dash[r] < 31 ? dash[r] : 31);
        }
        while (used & (1u << dash[s])) dash[s]++;
    }
}

static void draw_legend(dctx *d, const bl_panel *p, const legend_geom *L, bl_axes_box *rec, const int *dash, int ndash)
{
    double u = d->u, em = L->em, bx = L->x, by = L->y;
    if (rec) {
        rec->legend = L->where, rec->lsize = em;
        rec->lx0 = bx, rec->ly0 = by, rec->lx1 = bx + L->w, rec->ly1 = by + L->h;
        to_page(d, &rec->lx0, &rec->ly0), to_page(d, &rec->lx1, &rec->ly1);
    }
    cairo_rectangle(d->cr, bx, by, L->w, L->h);
    set_rgb(d->cr, 0xffffff, 0.9);
    cairo_fill_preserve(d->cr);
    set_rgb(d->cr, 0xcccccc, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_stroke(d->cr);
    font(d, L->size, 0, 0);
    double colw = (LEG_KEY + LEG_GAP) * em + L->tw + LEG_COLSEP * em, scale = L->size / LEGEND_SIZE;
    int k = 0;
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        if (!legend_entry(se)) continue;
        int row = k % L->nrow, col = k / L->nrow;
        double cy = by + LEG_PAD * em + (row + 0.5) * LEG_ROW * em - 3.0 / 17 * em;
        double kx = bx + LEG_PAD * em + col * colw, keyw = LEG_KEY * em;
        uint32_t c = bl_palette(se->color);
        if (!(se->flags & BL_NO_LINE)) {   /* the key drawn as the line is, dashes too */
            cairo_save(d->cr);
            if (s < ndash && dash[s]) set_dash(d->cr, dash[s], 2.5 * scale * u);
            line(d, kx, cy, kx + keyw, cy, c, 2.5 * scale);
            cairo_restore(d->cr);
        }
        if (se->flags & BL_MARKERS) {
            cairo_arc(d->cr, kx + keyw / 2, cy, 5 * u * scale, 0, 2 * M_PI);
            set_rgb(d->cr, c, 1);
            cairo_fill_preserve(d->cr);
            set_rgb(d->cr, 0xffffff, 1);
            cairo_set_line_width(d->cr, 1.2 * u * scale);
            cairo_stroke(d->cr);
        }
        d->role = BL_TEXT_LEGEND;
        text(d, kx + keyw + LEG_GAP * em, cy, se->label, 0, C_TEXT);
        k++;
    }
}

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

static void lines_place(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy, double right,
                        double below, lines_geom *g)
{
    double u = d->u;
    g->ylab[0] = g->xlab[0] = '\0';
    if (p->ylabel || p->logy)
        snprintf(g->ylab, sizeof g->ylab, "%s%s", p->ylabel ? p->ylabel : "y", p->logy ? " (log scale)" : "");
    if (p->xlabel || p->logx)
        snprintf(g->xlab, sizeof g->xlab, "%s%s", p->xlabel ? p->xlabel : "x", p->logx ? " (log scale)" : "");
    bl_lines_note(p, g->note, sizeof g->note);   /* under the x label: the points left out */
    double top = b.y + (p->title ? 40 * u : 10 * u),
           bottom = b.y + b.h - 34 * u - (g->xlab[0] ? 32 * u : 0) - (g->note[0] ? 24 * u : 0) - below;
    /* a y tick every 70 units or so; the y axis reaches to ticks past its data */
    int ymax_ticks = (int)fmax(3, (bottom - top) / (70 * u));
    bl_panel_scale(&g->ys, p, 1, sy, 0, 0.05, ymax_ticks);
    g->nyt = bl_scale_ticks(&g->ys, ymax_ticks, g->yt, MAX_TICKS, &g->ystep);
    font(d, 16, 0, 0);
    double tickw = 0;
    for (int i = 0; i < g->nyt; i++) tickw = fmax(tickw, text_w(d, bl_tick_label(g->yt[i], g->ystep, g->yl[i], 24)));
    double left = b.x + (g->ylab[0] ? 34 * u : 4 * u) + tickw + 12 * u, rx = b.x + b.w - 12 * u - right;
    g->a = (box){left, top, fmax(0, rx - left), fmax(0, bottom - top), left, fmax(left, rx)};
    /* an x tick every 130 units or so; a log x axis, too, reaches to ticks past its data */
    g->xmax_ticks = (int)fmax(2, g->a.w / (130 * u));
    bl_panel_scale(&g->xs, p, 0, sx, 0, 0.02, g->xmax_ticks);
}

/* Lay out panel p with its legend: the legend's size and place (L->where BL_LEGEND_NONE when
 * it has no entries) and the panel's parts around it (g). */
static void lines_layout(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy, lines_geom *g,
                         legend_geom *L)
{
    double u = d->u;
    lines_place(d, p, b, sx, sy, 0, 0, g);
    box a = g->a;
    legend_size(d, p, a.w, a.h, L);
    L->where = BL_LEGEND_NONE;
    if (!L->n || a.w <= 0 || a.h <= 0) return;
    /* inside, where it covers the least (matplotlib's loc="best") */
    double fx, fy, m = LEG_PAD * L->em;
    bl_legend_cover c;
    bl_legend_place(p, &g->xs, &g->ys, L->w / a.w, L->h / a.h, m / fmin(a.w, a.h), &fx, &fy, &c);
    L->where = BL_LEGEND_INSIDE, L->x = a.x + fx * a.w, L->y = a.y + (1 - fy) * a.h - L->h;
    if (c.samples <= LEGEND_COVER * c.total && c.points <= LEGEND_COVER * c.npoints) return;
    /* outside: on the right, one column beside the plot area's top; or below, under the x label,
     * in as many columns as the panel's width holds */
    lines_geom gr, gb;
    legend_geom Lb;
    double gap = 12 * u;
    lines_place(d, p, b, sx, sy, L->w + gap, 0, &gr);
    int ncol = L->n;
    for (; ncol > 1; ncol--) {
        legend_measure(d, p, L->size, ncol, &Lb);
        if (Lb.w <= b.w) break;
    }
    legend_measure(d, p, L->size, ncol, &Lb);
    lines_place(d, p, b, sx, sy, 0, Lb.h + gap / 2, &gb);
    double full = a.w * a.h, ar = L->h <= gr.a.h ? gr.a.w * gr.a.h : 0, ab = Lb.w <= b.w ? gb.a.w * gb.a.h : 0;
    if (fmax(ar, ab) < LEGEND_KEEP * full) return;   /* no room outside: inside after all */
    if (ar >= ab) {
        *g = gr;
        L->where = BL_LEGEND_RIGHT, L->x = g->a.x + g->a.w + gap, L->y = g->a.y;
    } else {
        *g = gb;
        Lb.where = BL_LEGEND_BELOW;
        Lb.x = fmin(fmax(g->a.x + g->a.w / 2 - Lb.w / 2, b.x), b.x + b.w - Lb.w);
        Lb.y = b.y + b.h - Lb.h;
        *L = Lb;
    }
}

/* The ticks of a lines panel's x axis, about one every 130 units (max_ticks); a linear axis with
 * fewer than 3 then takes a finer step while the labels fit side by side (as matplotlib's
 * MaxNLocator: 0 20 40 60 on a narrow axis of 64 tokens, not a lone 0). Font: the tick font. */
static int x_ticks(dctx *d, const bl_scale *xs, double aw, int max_ticks, double *t, double *step)
{
    int n = bl_scale_ticks(xs, max_ticks, t, MAX_TICKS, step);
    if (xs->log || n >= 3) return n;
    for (int k = max_ticks + 1; k <= 16; k++) {
        double t2[MAX_TICKS], st2, prev = 0, prevw = 0;
        int n2 = bl_scale_ticks(xs, k, t2, MAX_TICKS, &st2), fits = 1;
        if (n2 <= n) continue;
        for (int i = 0; i < n2 && fits; i++) {
            char lab[24];
            double x = aw * bl_scale_pos(xs, t2[i]), w = text_w(d, bl_tick_label(t2[i], st2, lab, sizeof lab));
            if (i > 0 && x - prev < (w + prevw) / 2 + 10 * d->u) fits = 0;
            prev = x, prevw = w;
        }
        if (!fits) break;   /* a finer step fits no better */
        memcpy(t, t2, sizeof(double) * (size_t)n2);
        *step = st2, n = n2;
        if (n >= 3) break;
    }
    return n;
}

static void draw_lines(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy)
{
    double u = d->u;
    lines_geom g;
    legend_geom L;
    lines_layout(d, p, b, sx, sy, &g, &L);
    box a = g.a;
    const bl_scale xs = g.xs, ys = g.ys;
    bl_axes_box *rec = record_axes(d, b, a, &xs, &ys);
    panel_title(d, p, b, b.y + 16 * u);
    /* grid and tick labels */
    font(d, 16, 0, 0);
    d->role = BL_TEXT_TICK;
    for (int i = 0; i < g.nyt; i++) {
        double yy = a.y + a.h * (1 - bl_scale_pos(&ys, g.yt[i]));
        if (yy < a.y - 0.5 || yy > a.y + a.h + 0.5) continue;
        line(d, a.x, yy, a.x + a.w, yy, C_GRID, 1);
        line(d, a.x - 5 * u, yy, a.x, yy, C_SPINE, 1.2);
        text(d, a.x - 9 * u, yy, g.yl[i], 1, C_TICK);
    }
    double xt[MAX_TICKS], xstep;
    int nxt = x_ticks(d, &xs, a.w, g.xmax_ticks, xt, &xstep);
    for (int i = 0; i < nxt; i++) {
        double xx = a.x + a.w * bl_scale_pos(&xs, xt[i]);
        if (xx < a.x - 0.5 || xx > a.x + a.w + 0.5) continue;
        char lab[24];
        line(d, xx, a.y, xx, a.y + a.h, C_GRID, 1);
        line(d, xx, a.y + a.h, xx, a.y + a.h + 5 * u, C_SPINE, 1.2);
        text(d, xx, a.y + a.h + 19 * u, bl_tick_label(xt[i], xstep, lab, sizeof lab), 0.5, C_TICK);
    }
    /* spines: left and bottom */
    line(d, a.x, a.y, a.x, a.y + a.h, C_SPINE, 1.2);
    line(d, a.x, a.y + a.h, a.x + a.w, a.y + a.h, C_SPINE, 1.2);
    d->role = BL_TEXT_AXIS_LABEL;
    if (g.xlab[0]) text_fit(d, a.x + a.w / 2, a.y + a.h + 50 * u, g.xlab, 18, 0, room_at(b, a.x + a.w / 2), C_TEXT, 0);
    if (g.ylab[0]) text_fit(d, b.x + 14 * u, a.y + a.h / 2, g.ylab, 18, 0, a.h, C_TEXT, 1);
    d->role = BL_TEXT_OTHER;
    if (g.note[0])
        text_fit(d, a.x + a.w / 2, a.y + a.h + (g.xlab[0] ? 74 : 44) * u, g.note, 15, 0, room_at(b, a.x + a.w / 2), C_TEXT, 0);
    int dash[BL_LAYOUT_MAX_SERIES];
    series_dashes(d, p, a, &xs, &ys, dash, BL_LAYOUT_MAX_SERIES);

    /* series, clipped to the plot area */
    cairo_save(d->cr);
    cairo_rectangle(d->cr, a.x, a.y, a.w, a.h);
    cairo_clip(d->cr);
    cairo_set_line_join(d->cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(d->cr, CAIRO_LINE_CAP_ROUND);
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        int faint = (se->flags & BL_FAINT) != 0;
        d->series = s;
        uint32_t col = bl_palette(se->color);
        int dots = 0, ds = s < BL_LAYOUT_MAX_SERIES ? dash[s] : 0;
        if (!(se->flags & BL_NO_LINE)) {
            int pen = 0;
            for (int i = 0; i < se->n; i++) {
                double tx = bl_scale_pos(&xs, se->x[i]), ty = bl_scale_pos(&ys, se->y[i]);
                if (!isfinite(tx) || !isfinite(ty)) {
                    pen = 0;
                    continue;
                }
                tx = fmax(-10, fmin(11, tx)), ty = fmax(-10, fmin(11, ty));
                double X = a.x + a.w * tx, Y = a.y + a.h * (1 - ty);
                if (tx >= 0 && tx <= 1 && ty >= 0 && ty <= 1) record_point(d, rec, X, Y);
                if (pen) cairo_line_to(d->cr, X, Y);
                else cairo_move_to(d->cr, X, Y), cairo_line_to(d->cr, X, Y);
                pen = 1;
            }
            double lw = (faint ? 1.4 : 2.6) * u;
            set_rgb(d->cr, col, faint ? 0.28 : 1);
            cairo_set_line_width(d->cr, lw);
            set_dash(d->cr, ds, lw);
            cairo_stroke(d->cr);
            set_dash(d->cr, 0, lw);
            /* a finite point with no finite neighbour is no line at all: a dot */
            if (!(se->flags & BL_MARKERS))
                for (int i = 0; i < se->n; i++) {
                    if (!series_finite(se, i, &xs, &ys) || series_finite(se, i - 1, &xs, &ys) ||
                        series_finite(se, i + 1, &xs, &ys))
                        continue;
                    double X = a.x + a.w * bl_scale_pos(&xs, se->x[i]), Y = a.y + a.h * (1 - bl_scale_pos(&ys, se->y[i]));
                    cairo_new_sub_path(d->cr);
                    cairo_arc(d->cr, X, Y, 1.6 * lw, 0, 2 * M_PI);
                    cairo_fill(d->cr);
                    dots++;
                }
        }
        if (se->flags & BL_MARKERS)
            for (int i = 0; i < se->n; i++) {
                double tx = bl_scale_pos(&xs, se->x[i]), ty = bl_scale_pos(&ys, se->y[i]);
                if (!isfinite(tx) || !isfinite(ty)) continue;
                if (se->flags & BL_NO_LINE && tx >= 0 && tx <= 1 && ty >= 0 && ty <= 1)
                    record_point(d, rec, a.x + a.w * tx, a.y + a.h * (1 - ty));
                cairo_new_sub_path(d->cr);
                cairo_arc(d->cr, a.x + a.w * tx, a.y + a.h * (1 - ty), 5.5 * u, 0, 2 * M_PI);
                set_rgb(d->cr, col, 1);
                cairo_fill_preserve(d->cr);
                set_rgb(d->cr, 0xffffff, 1);
                cairo_set_line_width(d->cr, 1.5 * u);
                cairo_stroke(d->cr);
                dots++;
            }
        record_series(d, s, se->color, se->flags & BL_NO_LINE ? -1 : ds, dots);
    }
    cairo_restore(d->cr);
    if (L.where != BL_LEGEND_NONE) draw_legend(d, p, &L, rec, dash, BL_LAYOUT_MAX_SERIES);
}

/* ---- heatmaps ---- */

/* filled rectangle snapped to device pixels, without antialiasing (no seams between cells) */
static void cell_rect(dctx *d, double x0, double y0, double x1, double y1, uint32_t col)
{
    double ax = x0, ay = y0, bx = x1, by = y1;
    cairo_user_to_device(d->cr, &ax, &ay);
    cairo_user_to_device(d->cr, &bx, &by);
    ax = round(ax), ay = round(ay), bx = round(bx), by = round(by);
    cairo_device_to_user(d->cr, &ax, &ay);
    cairo_device_to_user(d->cr, &bx, &by);
    cairo_rectangle(d->cr, ax, ay, bx - ax, by - ay);
    set_rgb(d->cr, col, 1);
    cairo_fill(d->cr);
}

/* index ticks 0..n-1 spaced at least `min_px` apart for cells of size `cell`; both ends when nice
 * ones would label index 0 alone and the two fit 0.6 min_px apart */
static int index_ticks(int n, double cell, double min_px, double *t, double *step)
{
    int k = bl_index_ticks(n, (int)fmax(2, n * cell / min_px), t, MAX_TICKS, step);
    if (k < 2 && n >= 2 && (n - 1) * cell >= 0.6 * min_px) t[0] = 0, t[1] = n - 1, *step = 1, k = 2;
    return k;
}

/* The colour bar's labelled ticks for a bar h units tall over [vmin, vmax]: nice ticks about 45
 * units apart, then, from the bottom up, each one left out that would come within its label's
 * height (and 2 units) of the last one kept, so that no two labels overlap on a short bar. Their
 * count, values t (MAX_TICKS) and label step; *widest (may be NULL) gets the widest label. Sets
 * the bar's font. */
static int bar_ticks(dctx *d, float vmin, float vmax, double h, double *t, double *step, double *widest)
{
    bl_scale s = {vmin, vmax, 0};
    int n = bl_scale_ticks(&s, (int)fmax(3, h / (45 * d->u)), t, MAX_TICKS, step), m = 0;
    font(d, 15, 0, 0);
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    double th = fe.ascent + fe.descent + 2 * d->u, last = -INFINITY;
    for (int i = 0; i < n; i++) {
        double y = h * bl_cmap_pos((float)t[i], vmin, vmax);
        if (y - last < th) continue;
        t[m++] = t[i], last = y;
    }
    if (widest) *widest = 0;
    for (int i = 0; widest && i < m; i++) {
        char lab[24];
        *widest = fmax(*widest, text_w(d, bl_tick_label(t[i], *step, lab, sizeof lab)));
    }
    return m;
}

static void draw_colorbar(dctx *d, bl_cmap cmap, float vmin, float vmax, box bar)
{
    double u = d->u;
    cairo_save(d->cr);
    cairo_set_antialias(d->cr, CAIRO_ANTIALIAS_NONE);
    /* 256 bands at most, each at least 5 device pixels tall so the ends show the map's end colours */
    double ddx = 0, ddy = bar.h;
    cairo_user_to_device_distance(d->cr, &ddx, &ddy);
    int bands = (int)fmin(256, fmax(2, fabs(ddy) / 5));
    for (int i = 0; i < bands; i++) { /* band 0 at the top = vmax */
        double t = 1.0 - (double)i / (bands - 1);
        cell_rect(d, bar.x, bar.y + bar.h * i / bands, bar.x + bar.w, bar.y + bar.h * (i + 1) / bands,
                  bl_cmap_rgb(cmap, t));
    }
    cairo_restore(d->cr);
    record_block(d, BL_BLOCK_BAR, bar.x, bar.y, bar.x + bar.w, bar.y + bar.h, 0, 0);
    set_rgb(d->cr, C_SPINE, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_rectangle(d->cr, bar.x, bar.y, bar.w, bar.h);
    cairo_stroke(d->cr);
    double t[MAX_TICKS], step;
    int n = bar_ticks(d, vmin, vmax, bar.h, t, &step, NULL);
    d->role = BL_TEXT_TICK;
    for (int i = 0; i < n; i++) {
        double yy = bar.y + bar.h * (1 - bl_cmap_pos((float)t[i], vmin, vmax));
        char lab[24];
        line(d, bar.x + bar.w, yy, bar.x + bar.w + 5 * u, yy, C_SPINE, 1);
        text(d, bar.x + bar.w + BAR_TEXT * u, yy, bl_tick_label(t[i], step, lab, sizeof lab), 0, C_TICK);
    }
}

/* the value of each cell written in it, dark text on light cells and white on dark ones; left
 * out when the widest text does not fit the cells */
static void annotate_cells(dctx *d, const bl_panel *p, double left, double top, double cw, double ch, float vmin,
                           float vmax)
{
    /* about a third of the cell, at most 20 units; never below the smallest text (FIT_MIN_PX):
     * values that do not fit in their cells at that size are left out (the .csv has them) */
    double cell = fmin(cw, ch), size = fmax(fmin(20, cell / d->u * 0.3), FIT_MIN_PX / d->u);
    font(d, size, 0, 0);
    char buf[64];
    double widest = 0;
    for (long i = 0; i < (long)p->rows * p->cols; i++) {
        bl_snprintf(buf, sizeof buf, p->annotate, (double)p->values[i]);
        widest = fmax(widest, text_w(d, buf));
    }
    if (widest > cw * 0.92 || size * d->u * 1.3 > ch) return;
    d->role = BL_TEXT_OTHER;
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            float v = p->values[(long)r * p->cols + c];
            double t = bl_cmap_pos(v, vmin, vmax);
            if (isnan(t)) continue;
            bl_snprintf(buf, sizeof buf, p->annotate, (double)v);
            uint32_t ink = bl_rgb_luma(bl_cmap_rgb(p->cmap, t)) > 0.55 ? C_TEXT : 0xffffffu;
            text(d, left + (c + 0.5) * cw, top + (r + 0.5) * ch, buf, 0.5, ink);
        }
}

/* What a heatmap panel draws around its map. A figure whose maps would be small drops some of
 * it, a step at a time (heat_deco_at, plan_grid), before it shrinks the maps further. */
typedef struct {
    int bar;              /* its colour bar with its labels */
    int ylab, rowticks;   /* its y label; its rows' tick labels */
    int xlab, colticks;   /* its x label; its columns' tick labels */
    int bar_room;         /* the room of a colour bar kept but none drawn: the maps of a
                           * column above its shared bar stay aligned with the one beside it */
} heat_deco;

static const heat_deco DECO_ALL = {1, 1, 1, 1, 1, 0};

/* How far below a map its texts are centred, in units: its column labels, its x label and its
 * note; and the room the box keeps below the map for them (the lowest may reach 17 units past
 * the box, into the gap between rows or the page's margin, as the x label always has). */
static void heat_below(heat_deco k, int note, double *ticks, double *xlab, double *notey, double *room)
{
    *ticks = 12, *xlab = k.colticks ? 36 : 16;
    *notey = k.xlab ? *xlab + 22 : k.colticks ? 36 : 14;
    double low = note ? *notey + 9 : k.xlab ? *xlab + 11 : k.colticks ? *ticks + 9 : 0;
    *room = fmax(6, low - 17);
}

/* The font size (units) of a heatmap's own row and column labels (such as TinyGPT's
 * characters) in cells cw x ch, the same for both whether or not they are drawn (so that the
 * maps of a figure are labelled alike): 15 units where every label fits (a row label's height
 * within its cell; two neighbouring column labels, each centred on its cell, 1.5 units apart),
 * else the size at which they all fit, down to 8 pixels (or 15 units when that is less), the
 * smallest a title shrinks to; where they do not fit even so, every k-th: *every_r, *every_c
 * (1: all; one k for both when the map has both). */
static double label_fit(dctx *d, const bl_panel *p, double cw, double ch, int *every_r, int *every_c)
{
    double u = d->u, least = fmin(15, FIT_MIN_PX / u), pair = 0, widest = 0, gap = 1.5 * u;
    int rows = p->row_labels != NULL, cols = p->col_labels != NULL;
    font(d, 15, 0, 0);
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    double th = fe.ascent + fe.descent, prev = 0;
    for (int c = 0; cols && c < p->cols; c++) {
        double w = text_w(d, p->col_labels[c]);
        if (c > 0) pair = fmax(pair, (prev + w) / 2);
        widest = fmax(widest, w), prev = w;
    }
    if (cols && p->cols == 1) pair = widest;
    double k = 1;   /* the size as a part of 15 units: widths and heights go with it */
    if (rows) k = fmin(k, 0.99 * ch / th);
    if (cols && pair > 0) k = fmin(k, 0.99 * (cw - gap) / pair);
    double size = fmax(least, 15 * k), s = size / 15;
    *every_r = rows && th * s > ch ? (int)ceil(th * s / ch) : 1;
    *every_c = 1;
    if (cols && pair * s + gap > cw)   /* every k-th: the widest two k cells apart */
        *every_c = (int)ceil((widest * s + gap) / cw);
    if (rows && cols && (*every_r > 1 || *every_c > 1)) *every_r = *every_c = *every_r > *every_c ? *every_r : *every_c;
    return size;
}

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

/* Whether a map with decorations k draws labels of its own with some left out (g's every_r,
 * every_c): rows (bit 1), columns (bit 2) */
static int thin_drawn(const bl_panel *p, const heat_geom *g, heat_deco k)
{
    return (k.rowticks && p->row_labels && g->every_r > 1) | (k.colticks && p->col_labels && g->every_c > 1) << 1;
}

static heat_geom heat_place(dctx *d, const bl_panel *p, box b, heat_deco k)
{
    double u = d->u;
    heat_geom g;
    memset(&g, 0, sizeof g);
    font(d, 15, 0, 0);
    for (int r = 0; p->row_labels && r < p->rows; r++) g.lw = fmax(g.lw, text_w(d, p->row_labels[r]));
    if (!p->row_labels) {
        char buf[24];
        g.lw = text_w(d, bl_tick_label(p->rows - 1, 1, buf, sizeof buf));
    }
    g.side_l = (k.ylab ? 30 * u : 0) + (k.rowticks ? g.lw + 12 * u : 4 * u);
    g.side_r = k.bar ? 110 * u : 4 * u;
    g.top = b.y + (p->title ? 40 * u : 10 * u);
    char note[96];
    double t, x, n;
    heat_below(k, bl_heat_note(p, note, sizeof note), &t, &x, &n, &g.bottom);
    g.bottom *= u;
    /* a page too small for the labels and the bar leaves no room for the map: none, not a
     * negative one */
    double aw = fmax(0, b.w - g.side_l - g.side_r), ah = fmax(0, b.y + b.h - g.bottom - g.top);
    g.cw = fmin(aw / p->cols, ah / p->rows), g.ch = g.cw;
    if (p->rows != p->cols && g.ch * p->rows < ah / 2) g.ch = fmin(ah / p->rows, 3 * g.cw);
    g.label_size = label_fit(d, p, g.cw, g.ch, &g.every_r, &g.every_c);
    g.need = g.side_l + g.cw * p->cols + g.side_r;
    g.left = b.x + g.side_l + (aw - g.cw * p->cols) / 2;
    g.ink = g.left + g.cw * p->cols;
    if (k.bar) {
        float vmin, vmax;
        double t[MAX_TICKS], step, widest;
        bl_heat_range(p, &vmin, &vmax);
        bar_ticks(d, vmin, vmax, g.ch * p->rows, t, &step, &widest);
        g.ink += (BAR_GAP + BAR_W + BAR_TEXT) * u + widest;
    }
    return g;
}

/* "2nd", "3rd", "11th" */
static const char *ordinal(int k, char *buf, size_t n)
{
    const char *suf = k % 100 >= 11 && k % 100 <= 13 ? "th" : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
    snprintf(buf, n, "%d%s", k, suf);
    return buf;
}

/* The note of a figure whose maps leave out some of their labels (the same for all, one k for
 * a map's rows and columns, label_fit): "every 3rd label shown", "every 2nd row label shown"
 * (which: rows bit 1, columns bit 2), "every 2nd or 3rd label shown" when the maps differ. */
static void thin_note(int kmin, int kmax, int which, char *buf, size_t n)
{
    char a[16], b[16];
    const char *what = which == 1 ? "row label" : which == 2 ? "column label" : "label";
    if (kmin == kmax) snprintf(buf, n, "every %s %s shown", ordinal(kmax, a, sizeof a), what);
    else snprintf(buf, n, "every %s or %s %s shown", ordinal(kmin, a, sizeof a), ordinal(kmax, b, sizeof b), what);
}

static void draw_heatmap(dctx *d, const bl_panel *p, box b, heat_deco k)
{
    double u = d->u;
    float vmin, vmax;
    bl_heat_range(p, &vmin, &vmax);
    panel_title(d, p, b, b.y + 16 * u);
    heat_geom g = heat_place(d, p, b, k);
    double top = g.top, left = g.left, cw = g.cw, ch = g.ch, lw = g.lw;
    double cell = fmin(cw, ch), hw = cw * p->cols, hh = ch * p->rows;
    cairo_save(d->cr);
    cairo_set_antialias(d->cr, CAIRO_ANTIALIAS_NONE);
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            double t = bl_cmap_pos(p->values[(long)r * p->cols + c], vmin, vmax);
            if (isnan(t)) continue;
            cell_rect(d, left + c * cw, top + r * ch, left + (c + 1) * cw, top + (r + 1) * ch,
                      bl_cmap_rgb(p->cmap, t));
        }
    cairo_restore(d->cr);
    record_block(d, BL_BLOCK_MAP, left, top, left + hw, top + hh, p->rows, p->cols);
    if (p->annotate) annotate_cells(d, p, left, top, cw, ch, vmin, vmax);
    set_rgb(d->cr, C_SPINE, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_rectangle(d->cr, left, top, hw, hh);
    cairo_stroke(d->cr);
    if (p->has_mark) {
        /* an outline inside the marked cell, so that it covers no other cell */
        double lw = fmax(1, fmin(3 * u, cell / 5));
        cairo_save(d->cr);
        cairo_set_antialias(d->cr, CAIRO_ANTIALIAS_NONE);
        set_rgb(d->cr, C_MARK, 1);
        cairo_set_line_width(d->cr, lw);
        cairo_rectangle(d->cr, left + p->mark_col * cw + lw / 2, top + p->mark_row * ch + lw / 2, cw - lw, ch - lw);
        cairo_stroke(d->cr);
        cairo_restore(d->cr);
    }
    /* tick labels: the map's own labels, every one where they fit (label_fit), else every k-th
     * and a note; index ticks without labels */
    double t[MAX_TICKS], step, ty, xy, ny, room;
    char lab[24], note[192];
    heat_below(k, 0, &ty, &xy, &ny, &room);
    d->role = BL_TEXT_TICK;
    if (k.rowticks && p->row_labels) {
        font(d, g.label_size, 0, 0);
        for (int r = 0; r < p->rows; r += g.every_r) text(d, left - 6 * u, top + (r + 0.5) * ch, p->row_labels[r], 1, C_TICK);
    } else if (k.rowticks) {
        font(d, 15, 0, 0);
        int n = index_ticks(p->rows, ch, 40 * u, t, &step);
        for (int i = 0; i < n; i++)
            text(d, left - 6 * u, top + (t[i] + 0.5) * ch, bl_tick_label(t[i], step, lab, sizeof lab), 1, C_TICK);
    }
    if (k.colticks && p->col_labels) {
        font(d, g.label_size, 0, 0);
        for (int c = 0; c < p->cols; c += g.every_c) text(d, left + (c + 0.5) * cw, top + hh + ty * u, p->col_labels[c], 0.5, C_TICK);
    } else if (k.colticks) {
        font(d, 15, 0, 0);
        int n = index_ticks(p->cols, cw, 50 * u, t, &step);
        for (int i = 0; i < n; i++)
            text(d, left + (t[i] + 0.5) * cw, top + hh + ty * u, bl_tick_label(t[i], step, lab, sizeof lab), 0.5, C_TICK);
    }
    if (k.bar && !k.bar_room) {
        box bar = {left + hw + BAR_GAP * u, top, BAR_W * u, hh, 0, 0};
        draw_colorbar(d, p->cmap, vmin, vmax, bar);
    }
    /* the y label within the map's height */
    double cy = top + hh / 2, ly = 2 * fmin(cy - top, b.y + b.h - cy);
    d->role = BL_TEXT_AXIS_LABEL;
    if (k.xlab && p->xlabel) text_fit(d, left + hw / 2, top + hh + xy * u, p->xlabel, 18, 0, room_at(b, left + hw / 2), C_TEXT, 0);
    if (k.ylab && p->ylabel) text_fit(d, left - lw - 26 * u, cy, p->ylabel, 18, 0, ly, C_TEXT, 1);
    /* non-finite cells are left blank: say so (labels left out: the figure says, figure_thin) */
    d->role = BL_TEXT_OTHER;
    if (bl_heat_note(p, note, sizeof note))
        text_fit(d, left + hw / 2, top + hh + ny * u, note, 15, 0, room_at(b, left + hw / 2), C_TEXT, 0);
}

/* ---- image grids ---- */

/* Where the images of an images panel go in box b: g a row, each scaled by s, the grid's top
 * left corner (x0, y0), `gap` between them; used: the height from b's top to the grid's
 * bottom. Without fixed columns, the number that makes the images largest, and of those the
 * one that takes the most of b's height. */
typedef struct {
    int g, rows;
    double s, x0, y0, gap, used;
} images_geom;

static images_geom images_place(dctx *d, const bl_panel *p, box b)
{
    double u = d->u, top = b.y + (p->title ? 40 * u : 10 * u), ah = b.y + b.h - top;
    images_geom r;
    r.gap = 8 * u;
    int g = p->grid_cols, best_g = 1;
    double best = 0, best_h = 0;
    if (!g) /* the number of columns that makes the images largest */
        for (int k = 1; k <= p->n; k++) {
            int rows = (p->n + k - 1) / k;
            double s = fmin((b.w - (k - 1) * r.gap) / (k * p->w), (ah - (rows - 1) * r.gap) / (rows * p->h));
            double h = rows * p->h * s;
            if (s > best * (1 + 1e-9) || (s > best * (1 - 1e-9) && h > best_h)) best = s, best_g = k, best_h = h;
        }
    if (!g) g = best_g;
    r.g = g, r.rows = (p->n + g - 1) / g;
    r.s = fmax(0, fmin((b.w - (g - 1) * r.gap) / (g * p->w), (ah - (r.rows - 1) * r.gap) / (r.rows * p->h)));
    double gw = g * p->w * r.s + (g - 1) * r.gap;
    r.x0 = b.x + (b.w - gw) / 2, r.y0 = top;
    r.used = top - b.y + r.rows * p->h * r.s + (r.rows - 1) * r.gap;
    return r;
}

static void draw_images(dctx *d, const bl_panel *p, box b)
{
    double u = d->u;
    panel_title(d, p, b, b.y + 16 * u);
    images_geom ig = images_place(d, p, b);
    int g = ig.g;
    double s = ig.s, x0 = ig.x0, top = ig.y0, gap = ig.gap;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->w, p->h);
    if (cairo_surface_status(img)) return;
    for (int i = 0; i < p->n; i++) {
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int y = 0; y < p->h; y++)
            for (int x = 0; x < p->w; x++) ((uint32_t *)(data + (long)y * stride))[x] = bl_image_rgb(p, i, x, y);
        cairo_surface_mark_dirty(img);
        double X = x0 + (i % g) * (p->w * s + gap), Y = top + (i / g) * (p->h * s + gap);
        record_block(d, BL_BLOCK_IMAGE, X, Y, X + p->w * s, Y + p->h * s, 0, 0);
        cairo_save(d->cr);
        cairo_translate(d->cr, X, Y);
        cairo_scale(d->cr, s, s);
        cairo_set_source_surface(d->cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(d->cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(d->cr, 0, 0, p->w, p->h);
        cairo_fill(d->cr);
        cairo_restore(d->cr);
    }
    cairo_surface_destroy(img);
}

/* ---- text panels ---- */

static void draw_text(dctx *d, const bl_panel *p, box b)
{
    double u = d->u, y = b.y + 16 * u;
    if (p->title) {
        panel_title(d, p, b, y);
        y += 36 * u;
    }
    font(d, 18, 0, 1);
    d->role = BL_TEXT_OTHER;
    int per_line = (int)fmax(1, b.w / text_w(d, "M"));
    const char *s = p->text;
    char *buf = malloc((size_t)per_line * 4 + 1);
    if (!buf) return;
    while (*s && y < b.y + b.h) {
        int n = 0;
        size_t k = 0;
        while (s[k] && s[k] != '\n' && n < per_line) {
            k++;
            while ((s[k] & 0xc0) == 0x80) k++;
            n++;
        }
        memcpy(buf, s, k);
        buf[k] = 0;
        text(d, b.x, y, buf, 0, C_TEXT);
        y += 26 * u;
        s += k;
        if (*s == '\n') s++;
    }
    free(buf);
}

/* ---- the figure ---- */

/* A figure of maps drops their decorations a level at a time (heat_deco_at) while its smallest
 * map is less than DECO_KEEP of the largest any level makes it */
#define DECO_LEVELS 5
#define DECO_KEEP 0.75

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int same_labels(char *const *a, char *const *b, int n)
{
    if (!a || !b) return a == b;
    for (int i = 0; i < n; i++)
        if (strcmp(a[i], b[i])) return 0;
    return 1;
}

/* p and q are heatmaps on one colour scale; with the same rows (count, labels, y label); with the
 * same columns */
static int heat_same_scale(const bl_panel *p, const bl_panel *q)
{
    float a0, a1, b0, b1;
    if (p->kind != BL_PANEL_HEATMAP || q->kind != BL_PANEL_HEATMAP || p->cmap != q->cmap) return 0;
    bl_heat_range(p, &a0, &a1);
    bl_heat_range(q, &b0, &b1);
    return a0 == b0 && a1 == b1;
}

static int heat_same_rows(const bl_panel *p, const bl_panel *q)
{
    return p->kind == BL_PANEL_HEATMAP && q->kind == BL_PANEL_HEATMAP && p->rows == q->rows &&
           same_labels(p->row_labels, q->row_labels, p->rows) && same_text(p->ylabel, q->ylabel);
}

static int heat_same_cols(const bl_panel *p, const bl_panel *q)
{
    return p->kind == BL_PANEL_HEATMAP && q->kind == BL_PANEL_HEATMAP && p->cols == q->cols &&
           same_labels(p->col_labels, q->col_labels, p->cols) && same_text(p->xlabel, q->xlabel);
}

/* What heatmap panel i of f draws at `level` (each level drops more, the panel titles stay).
 * At every level, maps on one colour scale (the heads of attn) share one colour bar, right of
 * the grid (as matplotlib's fig.colorbar(im, ax=axes)): a map leaves out its bar when the map
 * on its right has the same scale, and a map of the last column when the one below it has; the
 * bottom one keeps it.
 *   0  everything: axis labels, tick labels, the colour bar;
 *   1  the same (the shared colour bar was once a level of its own);
 *   2  as matplotlib's label_outer: no y label and row labels where the map on the left has
 *      the same rows, no x label and column labels where the map below has the same columns;
 *   3  no axis labels;
 *   4  no tick labels and no colour bar: the maps alone. */
static heat_deco heat_deco_at(const bl_figure *f, int i, int level)
{
    heat_deco k = DECO_ALL;
    int r = i / f->cols, c = i % f->cols;
    const bl_panel *p = &f->panels[i];
    if (level >= 4) return (heat_deco){0, 0, 0, 0, 0, 0};
    if (c + 1 < f->cols && heat_same_scale(p, &f->panels[i + 1])) k.bar = 0;
    if (c + 1 == f->cols && r + 1 < f->rows && heat_same_scale(p, &f->panels[i + f->cols])) k.bar_room = 1;
    if (level >= 2 && c > 0 && heat_same_rows(p, &f->panels[i - 1])) k.ylab = k.rowticks = 0;
    if (level >= 2 && r + 1 < f->rows && heat_same_cols(p, &f->panels[i + f->cols])) k.xlab = k.colticks = 0;
    if (level >= 3) k.ylab = k.xlab = 0;
    return k;
}

/* Where the panels of a figure go: columns (x, width) and rows (y, height), and what each
 * heatmap draws. The columns are equal, but of those holding maps, one whose maps draw more
 * beside them than the others' (a shared colour bar, the row labels of a row of maps) is wider
 * by that (inl left, inr right of its other panels' boxes) and the others narrower, so that
 * each map has the same room. The rows share the height equally,
 * then a row whose panels take less of it (a square map or a grid of images whose width limits
 * them) gives the rest to the rows that take all of theirs (lines, text, maps that the height
 * limits; in a grid of maps only, so that each row's maps are as tall, a row with labels under
 * its maps being that much taller), and so on; height that no row takes goes evenly above,
 * between and below the rows.
 * A grid of maps only that needs less width than the page is packed together and centred
 * (compact). side: the smallest map's shorter side (INFINITY without maps); cut: the titles
 * and axis labels of maps too long for their room even at their smallest size (fit() cuts
 * them). */
typedef struct {
    heat_deco deco[BL_FIG_MAX_GRID * BL_FIG_MAX_GRID];
    double colx[BL_FIG_MAX_GRID], colw[BL_FIG_MAX_GRID], inl[BL_FIG_MAX_GRID], inr[BL_FIG_MAX_GRID];
    double rowy[BL_FIG_MAX_GRID], rowh[BL_FIG_MAX_GRID];
    int compact, cut, ncols;
    double page_w, u;
    double side;
} grid_plan;

/* Panel i's box. Its horizontal texts (title, x label, notes) may reach into the gap to the
 * next column up to 6 units before its middle (in a compact grid, whose next column may start
 * inside the box, to 8 units before that column), and likewise on the left: never to another
 * panel's texts; beside the page's edge, 12 units into its margin. */
static box panel_box(const bl_figure *f, const grid_plan *g, int i)
{
    int r = i / f->cols, c = i % f->cols;
    double u = g->u, right = g->colx[c] + g->colw[c];
    box b = {g->colx[c], g->rowy[r], g->colw[c], g->rowh[r], g->colx[c], right};
    if (f->panels[i].kind != BL_PANEL_HEATMAP) b.x += g->inl[c], b.w -= g->inl[c] + g->inr[c];
    if (c + 1 < f->cols) {
        double next = g->colx[c + 1];
        b.tx1 = next >= right ? fmax(right, (right + next) / 2 - 6 * u) : next - 8 * u;
    } else
        b.tx1 = right + 12 * u;
    if (c > 0) {
        double prev = g->colx[c - 1] + g->colw[c - 1];
        if (g->colx[c] >= prev) b.tx0 = fmin(g->colx[c], (prev + g->colx[c]) / 2 + 6 * u);
    } else
        b.tx0 = g->colx[c] - 12 * u;
    b.tx0 = fmax(b.tx0, 0), b.tx1 = fmin(b.tx1, g->page_w);
    return b;
}

/* The height panel p takes of a box w x h, with decorations k when it is a heatmap: a map's or
 * an image grid's (less than h where the width limits them), all of h for the others */
static double panel_used(dctx *d, const bl_panel *p, double w, double h, heat_deco k)
{
    box b = {0, 0, w, h, 0, w};
    if (p->kind == BL_PANEL_EMPTY) return 0;
    if (p->kind == BL_PANEL_HEATMAP) {
        heat_geom g = heat_place(d, p, b, k);
        return fmin(h, g.top + g.ch * p->rows + g.bottom);
    }
    if (p->kind == BL_PANEL_IMAGES) return fmin(h, images_place(d, p, b).used);
    return h;
}

/* pack a grid of maps only (every panel a heatmap or empty) that needs less than w0: each column
 * as wide as its maps need (their heights set by the rows), the next one `tight` after the end
 * of its colour bar's labels (16 units more before maps without row labels), the grid centred */
static void grid_compact(dctx *d, const bl_figure *f, grid_plan *g, double x0, double w0, double tight)
{
    int nc = f->cols;
    double need[BL_FIG_MAX_GRID] = {0}, ink[BL_FIG_MAX_GRID] = {0}, after[BL_FIG_MAX_GRID] = {0};
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP && p->kind != BL_PANEL_EMPTY) return;
        if (p->kind == BL_PANEL_HEATMAP) need[i % nc] = fmax(need[i % nc], heat_place(d, p, panel_box(f, g, i), g->deco[i]).need);
    }
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        int c = i % nc;
        box b = panel_box(f, g, i);
        b.x = 0, b.w = need[c];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        ink[c] = fmax(ink[c], heat_place(d, p, b, g->deco[i]).ink);
        if (c > 0 && !g->deco[i].rowticks) after[c - 1] = 16 * d->u;
    }
    double total = 0;
    for (int c = 0; c < nc; c++) total += ink[c] + (c + 1 < nc && ink[c] > 0 ? tight + after[c] : 0);
    if (total >= w0 - 1e-9 * w0) return;
    double x = x0 + (w0 - total) / 2;
    for (int c = 0; c < nc; c++)
        g->colx[c] = x, g->colw[c] = need[c], g->inl[c] = g->inr[c] = 0, x += ink[c] + (ink[c] > 0 ? tight + after[c] : 0);
    g->compact = 1;
}

/* Whether text s at `size` units (18 for an axis label, 21 bold for a panel title) would be
 * cut in `room` even at its smallest size (least_size) */
static int would_cut(dctx *d, const char *s, double size, int bold, double room)
{
    if (!s || !s[0]) return 0;
    font(d, least_size(d, size), bold, 0);
    return text_w(d, s) > room;
}

/* The plan of f at decoration level `level` over the page's part x0 .. x0 + w0, y0 .. y0 + h0
 * (the title left out), with `gap` between columns and rows (see grid_plan). */
static void plan_grid(dctx *d, const bl_figure *f, int level, double x0, double w0, double y0, double h0, double gap,
                      double page_w, grid_plan *g)
{
    int nr = f->rows, nc = f->cols;
    memset(g, 0, sizeof *g);
    g->u = d->u, g->page_w = page_w, g->ncols = nc;
    double L[BL_FIG_MAX_GRID] = {0}, R[BL_FIG_MAX_GRID] = {0}, minl = INFINITY, minr = INFINITY, extra = 0;
    int hm[BL_FIG_MAX_GRID] = {0};
    for (int i = 0; i < nr * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        int c = i % nc;
        g->deco[i] = heat_deco_at(f, i, level);
        box b = {0, 0, 1e7, 1e7, 0, 0};
        heat_geom hg = heat_place(d, p, b, g->deco[i]);
        L[c] = fmax(L[c], hg.side_l), R[c] = fmax(R[c], hg.side_r), hm[c] = 1;
    }
    for (int c = 0; c < nc; c++)
        if (hm[c]) minl = fmin(minl, L[c]), minr = fmin(minr, R[c]);
    for (int c = 0; c < nc; c++) {
        g->inl[c] = hm[c] ? L[c] - minl : 0, g->inr[c] = hm[c] ? R[c] - minr : 0;
        extra += g->inl[c] + g->inr[c];
    }
    /* equal columns; those holding maps share theirs so that each map has the same room */
    int nh = 0;
    for (int c = 0; c < nc; c++) nh += hm[c];
    double equal = fmax(0, (w0 - (nc - 1) * gap) / nc), base = nh ? fmax(0, (nh * equal - extra) / nh) : equal, x = x0;
    for (int c = 0; c < nc; c++)
        g->colx[c] = x, g->colw[c] = hm[c] ? base + g->inl[c] + g->inr[c] : equal, x += g->colw[c] + gap;
    /* rows: equal shares, then what a row does not take goes to the rows that take all theirs */
    double H = fmax(0, h0 - (nr - 1) * gap), used[BL_FIG_MAX_GRID];
    for (int r = 0; r < nr; r++) g->rowh[r] = H / nr;
    for (int iter = 0; iter < 8; iter++) {
        double slack = 0, T = 0, osum = 0, over[BL_FIG_MAX_GRID] = {0};
        int full = 0, maps_only = 1;
        for (int r = 0; r < nr; r++) {
            used[r] = 0;
            for (int c = 0; c < nc; c++) {
                int i = r * nc + c;
                used[r] = fmax(used[r], panel_used(d, &f->panels[i], panel_box(f, g, i).w, g->rowh[r], g->deco[i]));
            }
            if (used[r] < g->rowh[r] - 1e-6 * H) {
                slack += g->rowh[r] - used[r];
                continue;
            }
            full++, T += g->rowh[r];
            for (int c = 0; c < nc; c++) {   /* the room a row's maps leave for titles and labels */
                int i = r * nc + c;
                const bl_panel *p = &f->panels[i];
                if (p->kind == BL_PANEL_HEATMAP) {
                    box b = panel_box(f, g, i);
                    b.y = 0, b.h = g->rowh[r];
                    heat_geom hg = heat_place(d, p, b, g->deco[i]);
                    over[r] = fmax(over[r], hg.top + hg.bottom);
                } else if (p->kind != BL_PANEL_EMPTY)
                    maps_only = 0;
            }
            osum += over[r];
        }
        if (!full) break;
        /* the rows that take all theirs share the rest: as much height each, or, in a grid of
         * maps, as much for each row's maps (so that a row with labels under its maps does not
         * have smaller maps than one without) */
        double moved = 0;
        for (int r = 0; r < nr; r++) {
            double h = g->rowh[r];
            if (used[r] < h - 1e-6 * H) h = used[r];
            else if (maps_only) h = over[r] + fmax(0, (T + slack - osum) / full);
            else h += slack / full;
            moved = fmax(moved, fabs(h - g->rowh[r])), g->rowh[r] = h;
        }
        if (moved <= 1e-6 * H) break;
    }
    double total = 0;
    for (int r = 0; r < nr; r++) {
        used[r] = 0;
        for (int c = 0; c < nc; c++) {
            int i = r * nc + c;
            used[r] = fmax(used[r], panel_used(d, &f->panels[i], panel_box(f, g, i).w, g->rowh[r], g->deco[i]));
        }
        g->rowh[r] = used[r], total += used[r];
    }
    double pad = total < H ? (H - total) / (nr + 1) : 0, y = y0 + pad;
    for (int r = 0; r < nr; r++) g->rowy[r] = y, y += g->rowh[r] + gap + pad;
    grid_compact(d, f, g, x0, w0, 8 * d->u);
    g->side = INFINITY;
    for (int i = 0; i < nr * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        box b = panel_box(f, g, i);
        heat_geom hg = heat_place(d, p, b, g->deco[i]);
        double hw = hg.cw * p->cols, hh = hg.ch * p->rows, cx = hg.left + hw / 2;
        g->side = fmin(g->side, fmin(hw, hh));
        g->cut += g->deco[i].xlab && would_cut(d, p->xlabel, 18, 0, room_at(b, cx));
        g->cut += g->deco[i].ylab && would_cut(d, p->ylabel, 18, 0, hh);
        g->cut += would_cut(d, p->title, 21, 1, room_at(b, b.x + b.w / 2));
    }
}

/* Plan f at every level of decorations into plans (DECO_LEVELS) and say which to draw: the
 * first whose maps are large enough (DECO_KEEP) and whose titles and axis labels all fit, else
 * the first whose maps are large enough. */
static int choose_plan(dctx *d, const bl_figure *f, double x0, double w0, double y0, double h0, double gap,
                       double page_w, grid_plan *plans)
{
    double best = 0;
    for (int k = 0; k < DECO_LEVELS; k++) {
        plan_grid(d, f, k, x0, w0, y0, h0, gap, page_w, &plans[k]);
        if (isfinite(plans[k].side)) best = fmax(best, plans[k].side);
    }
    int large = -1;
    for (int k = 0; k < DECO_LEVELS; k++) {
        int ok = !(best > 0) || plans[k].side >= DECO_KEEP * best;
        if (ok && large < 0) large = k;
        if (ok && !plans[k].cut) return k;
    }
    return large < 0 ? 0 : large;
}

/* The note of plan g's maps that leave out some of their own labels (thin_note), or "" */
static void figure_thin(dctx *d, const bl_figure *f, const grid_plan *g, char *buf, size_t n)
{
    int kmin = 0, kmax = 0, which = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        heat_geom hg = heat_place(d, p, panel_box(f, g, i), g->deco[i]);
        int t = thin_drawn(p, &hg, g->deco[i]);
        if (!t) continue;
        int k = t & 1 ? hg.every_r : hg.every_c;
        if (t == 3) k = hg.every_r > hg.every_c ? hg.every_r : hg.every_c;
        kmin = kmin ? (k < kmin ? k : kmin) : k, kmax = k > kmax ? k : kmax;
        which |= p->row_labels && p->col_labels ? 3 : t;
    }
    if (kmax) thin_note(kmin, kmax, which, buf, n);
}

int bl_draw_figure(const bl_figure *f, cairo_t *cr, double w, double h)
{
    dctx d = {.cr = cr, .u = sqrt(fmin(w / BL_FIG_W, h / BL_FIG_H))}; /* text shrinks slower than the page */
    if (d.u < 0.25) d.u = 0.25;
    cairo_get_matrix(cr, &d.to_page);
    cairo_matrix_invert(&d.to_page);
    d.trace = trace_to, d.role = BL_TEXT_TITLE, d.panel = -1;
    if (d.trace)
        d.trace->w = w, d.trace->h = h, d.trace->u = d.u, d.trace->ntext = d.trace->lost = 0,
        d.trace->naxes = d.trace->npt = d.trace->lost_pt = d.trace->nblock = d.trace->nseries = 0;
    double u = d.u, margin = 24 * u;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double top = margin;
    if (f->title) {
        text_fit(&d, w / 2, margin + 14 * u, f->title, 28, 1, w - 2 * margin, C_TEXT, 0);
        top += 44 * u;
    }
    bl_range sx, sy;
    bl_fig_shared_range(f, 0, 0, &sx);
    bl_fig_shared_range(f, 1, 0, &sy);
    /* the level of decorations that keeps the maps large; when their labels are thinned, once
     * more with room at the page's bottom for the note that says so */
    grid_plan plans[DECO_LEVELS];
    double gap = 36 * u, note_h = 0;
    char thin[96] = "";
    int level = 0;
    for (int pass = 0; pass < 2; pass++) {
        level = choose_plan(&d, f, margin, w - 2 * margin, top, h - top - margin - note_h, gap, w, plans);
        figure_thin(&d, f, &plans[level], thin, sizeof thin);
        if (!thin[0] || pass) break;
        note_h = 22 * u;   /* the note in the margin, 2 units below the texts under the maps */
    }
    const grid_plan *g = &plans[level];
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        box b = panel_box(f, g, i);
        d.panel = i;
        switch (p->kind) {
        case BL_PANEL_LINES: draw_lines(&d, p, b, &sx, &sy); break;
        case BL_PANEL_HEATMAP: draw_heatmap(&d, p, b, g->deco[i]); break;
        case BL_PANEL_IMAGES: draw_images(&d, p, b); break;
        case BL_PANEL_TEXT: draw_text(&d, p, b); break;
        default: break;
        }
    }
    d.panel = -1, d.role = BL_TEXT_OTHER;
    if (thin[0]) text_fit(&d, w / 2, h - margin + 6 * u, thin, 15, 0, w - 2 * margin, C_TEXT, 0);
    cairo_status_t st = cairo_status(cr);
    if (st) return bl_fail("draw: %s", cairo_status_to_string(st));
    return 0;
}
