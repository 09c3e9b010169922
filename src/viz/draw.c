/* draw.c - the figure drawn with cairo: slide-quality style, thin grid, labelled axes, legend box,
 * colour bars with ticks (see draw.h). Text uses cairo's toy API with "DejaVu Sans" (fontconfig). */
#include "viz/draw.h"
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

static void draw_legend(dctx *d, const bl_panel *p, const legend_geom *L, bl_axes_box *rec)
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
        if (!(se->flags & BL_NO_LINE)) line(d, kx, cy, kx + keyw, cy, c, 2.5 * scale);
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
    char xlab[256], ylab[256];
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
    double top = b.y + (p->title ? 40 * u : 10 * u), bottom = b.y + b.h - 34 * u - (g->xlab[0] ? 32 * u : 0) - below;
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
    int nxt = bl_scale_ticks(&xs, g.xmax_ticks, xt, MAX_TICKS, &xstep);
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
            set_rgb(d->cr, col, faint ? 0.28 : 1);
            cairo_set_line_width(d->cr, (faint ? 1.4 : 2.6) * u);
            cairo_stroke(d->cr);
        }
        int dots = 0;
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
        record_series(d, s, se->color, se->flags & BL_NO_LINE ? -1 : 0, dots);
    }
    cairo_restore(d->cr);
    if (L.where != BL_LEGEND_NONE) draw_legend(d, p, &L, rec);
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

/* index ticks 0..n-1 spaced at least `min_px` apart for cells of size `cell` */
static int index_ticks(int n, double cell, double min_px, double *t, double *step)
{
    return bl_index_ticks(n, (int)fmax(2, n * cell / min_px), t, MAX_TICKS, step);
}

/* The colour bar's ticks for a bar h units tall over [vmin, vmax]: their count, values t
 * (MAX_TICKS) and label step; *widest (may be NULL) gets the widest label in the bar's font. */
static int bar_ticks(dctx *d, float vmin, float vmax, double h, double *t, double *step, double *widest)
{
    bl_scale s = {vmin, vmax, 0};
    int n = bl_scale_ticks(&s, (int)fmax(4, h / (45 * d->u)), t, MAX_TICKS, step);
    font(d, 15, 0, 0);
    if (widest) *widest = 0;
    for (int i = 0; widest && i < n; i++) {
        char lab[24];
        *widest = fmax(*widest, text_w(d, bl_tick_label(t[i], *step, lab, sizeof lab)));
    }
    return n;
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
    double cell = fmin(cw, ch);
    font(d, fmin(20, cell / d->u * 0.3), 0, 0);
    char buf[64];
    double widest = 0;
    for (long i = 0; i < (long)p->rows * p->cols; i++) {
        snprintf(buf, sizeof buf, p->annotate, (double)p->values[i]);
        widest = fmax(widest, text_w(d, buf));
    }
    if (widest > cw * 0.92 || cell < 14 * d->u) return;
    d->role = BL_TEXT_OTHER;
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            float v = p->values[(long)r * p->cols + c];
            double t = bl_cmap_pos(v, vmin, vmax);
            if (isnan(t)) continue;
            snprintf(buf, sizeof buf, p->annotate, (double)v);
            uint32_t ink = bl_rgb_luma(bl_cmap_rgb(p->cmap, t)) > 0.55 ? C_TEXT : 0xffffffu;
            text(d, left + (c + 0.5) * cw, top + (r + 0.5) * ch, buf, 0.5, ink);
        }
}

/* Where a heatmap goes in box b: its cells (cw x ch), its left and top edge, the widest row
 * label (lw), the width it needs (need: y label, row labels, map, colour bar with room for its
 * labels) and the right end of its colour bar's labels (ink), all in page units. Square cells,
 * unless that leaves most of the panel's height empty (a wide table such as RoPE's [16, 32]):
 * then cells up to 3 times as tall as wide fill it. The map and its bar are centred in b when
 * b is wider than they need. */
typedef struct {
    double left, top, cw, ch, lw, need, ink;
} heat_geom;

static heat_geom heat_place(dctx *d, const bl_panel *p, box b)
{
    double u = d->u;
    heat_geom g;
    font(d, 15, 0, 0);
    g.lw = 0;
    for (int r = 0; p->row_labels && r < p->rows; r++) g.lw = fmax(g.lw, text_w(d, p->row_labels[r]));
    if (!p->row_labels) {
        char buf[24];
        g.lw = text_w(d, bl_tick_label(p->rows - 1, 1, buf, sizeof buf));
    }
    double pad = 30 * u + g.lw + 12 * u; /* room for a y label, so small multiples line up */
    g.top = b.y + (p->title ? 40 * u : 10 * u);
    /* a page too small for the labels and the bar leaves no room for the map: none, not a
     * negative one */
    double cbw = 110 * u, aw = fmax(0, b.w - cbw - pad), ah = fmax(0, b.y + b.h - 30 * u - g.top);
    g.cw = fmin(aw / p->cols, ah / p->rows), g.ch = g.cw;
    if (g.ch * p->rows < ah / 2) g.ch = fmin(ah / p->rows, 3 * g.cw);
    g.need = pad + g.cw * p->cols + cbw;
    g.left = b.x + pad + (aw - g.cw * p->cols) / 2;
    float vmin, vmax;
    double t[MAX_TICKS], step, widest;
    bl_heat_range(p, &vmin, &vmax);
    bar_ticks(d, vmin, vmax, g.ch * p->rows, t, &step, &widest);
    g.ink = g.left + g.cw * p->cols + (BAR_GAP + BAR_W + BAR_TEXT) * u + widest;
    return g;
}

static void draw_heatmap(dctx *d, const bl_panel *p, box b)
{
    double u = d->u;
    float vmin, vmax;
    bl_heat_range(p, &vmin, &vmax);
    panel_title(d, p, b, b.y + 16 * u);
    heat_geom g = heat_place(d, p, b);
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
    /* tick labels: every label when they fit, else every k-th; index ticks without labels */
    font(d, fmin(15, fmax(8, cell / u * 0.8)), 0, 0);
    double t[MAX_TICKS], step;
    char lab[24];
    d->role = BL_TEXT_TICK;
    if (p->row_labels) {
        int every = (int)ceil(14 * u / ch);
        for (int r = 0; r < p->rows; r += every) text(d, left - 6 * u, top + (r + 0.5) * ch, p->row_labels[r], 1, C_TICK);
    } else {
        font(d, 15, 0, 0);
        int k = index_ticks(p->rows, ch, 40 * u, t, &step);
        for (int i = 0; i < k; i++)
            text(d, left - 6 * u, top + (t[i] + 0.5) * ch, bl_tick_label(t[i], step, lab, sizeof lab), 1, C_TICK);
    }
    if (p->col_labels) {
        font(d, fmin(15, fmax(8, cell / u * 0.8)), 0, 0);
        int every = (int)ceil(14 * u / cw);
        for (int c = 0; c < p->cols; c += every) text(d, left + (c + 0.5) * cw, top + hh + 12 * u, p->col_labels[c], 0.5, C_TICK);
    } else {
        font(d, 15, 0, 0);
        int k = index_ticks(p->cols, cw, 50 * u, t, &step);
        for (int i = 0; i < k; i++)
            text(d, left + (t[i] + 0.5) * cw, top + hh + 12 * u, bl_tick_label(t[i], step, lab, sizeof lab), 0.5, C_TICK);
    }
    box bar = {left + hw + BAR_GAP * u, top, BAR_W * u, hh, 0, 0};
    draw_colorbar(d, p->cmap, vmin, vmax, bar);
    /* the y label within the map's height */
    double cy = top + hh / 2, ly = 2 * fmin(cy - top, b.y + b.h - cy);
    d->role = BL_TEXT_AXIS_LABEL;
    if (p->xlabel) text_fit(d, left + hw / 2, top + hh + 36 * u, p->xlabel, 18, 0, room_at(b, left + hw / 2), C_TEXT, 0);
    if (p->ylabel) text_fit(d, left - lw - 26 * u, cy, p->ylabel, 18, 0, ly, C_TEXT, 1);
    char note[96];   /* non-finite cells are left blank: say so */
    d->role = BL_TEXT_OTHER;
    if (bl_heat_note(p, note, sizeof note))
        text_fit(d, left + hw / 2, top + hh + (p->xlabel ? 58 : 36) * u, note, 15, 0, room_at(b, left + hw / 2), C_TEXT, 0);
}

/* ---- image grids ---- */

static void draw_images(dctx *d, const bl_panel *p, box b)
{
    double u = d->u;
    panel_title(d, p, b, b.y + 16 * u);
    double top = b.y + (p->title ? 40 * u : 10 * u), ah = b.y + b.h - top, gap = 8 * u;
    int g = p->grid_cols, best_g = 1;
    double best = 0;
    if (!g) /* the number of columns that makes the images largest */
        for (int k = 1; k <= p->n; k++) {
            int rows = (p->n + k - 1) / k;
            double s = fmin((b.w - (k - 1) * gap) / (k * p->w), (ah - (rows - 1) * gap) / (rows * p->h));
            if (s > best) best = s, best_g = k;
        }
    if (!g) g = best_g;
    int rows = (p->n + g - 1) / g;
    double s = fmin((b.w - (g - 1) * gap) / (g * p->w), (ah - (rows - 1) * gap) / (rows * p->h));
    double gw = g * p->w * s + (g - 1) * gap, x0 = b.x + (b.w - gw) / 2;
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

/* The columns of the panel grid (x and width of each, page units) for rows of height ch from
 * `top`: equal columns over [x0, x0 + w0] with `gap` between them. When every panel is a heatmap
 * (or empty), such as the heads of `attn`, and their maps need less than that (square cells sized
 * by the height), each column is as wide as its widest map needs and the next one starts `tight`
 * after the end of its colour bar's labels, the grid centred: no wide empty gap between the
 * columns. */
static void grid_columns(dctx *d, const bl_figure *f, double x0, double w0, double gap, double tight, double top,
                         double ch, double *colx, double *colw)
{
    int nc = f->cols;
    double cw = (w0 - (nc - 1) * gap) / nc, need[BL_FIG_MAX_GRID] = {0}, ink[BL_FIG_MAX_GRID] = {0};
    for (int c = 0; c < nc; c++) colx[c] = x0 + c * (cw + gap), colw[c] = cw;
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP && p->kind != BL_PANEL_EMPTY) return;
        box b = {colx[i % nc], top + (i / nc) * (ch + gap), cw, ch, 0, 0};
        if (p->kind == BL_PANEL_HEATMAP) need[i % nc] = fmax(need[i % nc], heat_place(d, p, b).need);
    }
    /* the drawings in boxes as wide as they need: from the box's left edge to the bar's labels */
    double total = 0;
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        box b = {0, top + (i / nc) * (ch + gap), need[i % nc], ch, 0, 0};
        if (p->kind == BL_PANEL_HEATMAP) ink[i % nc] = fmax(ink[i % nc], heat_place(d, p, b).ink);
    }
    for (int c = 0; c < nc; c++) total += ink[c] + (c + 1 < nc && ink[c] > 0 ? tight : 0);
    if (total >= w0 - 1e-9 * w0) return;
    double x = x0 + (w0 - total) / 2;
    for (int c = 0; c < nc; c++) colx[c] = x, colw[c] = need[c], x += ink[c] + (ink[c] > 0 ? tight : 0);
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
    double gap = 36 * u, ch = (h - top - margin - (f->rows - 1) * gap) / f->rows;
    double colx[BL_FIG_MAX_GRID], colw[BL_FIG_MAX_GRID];
    /* small multiples of heatmaps: 8 units from one colour bar's labels to the next box, whose y
     * label sits about 13 units into it: about one label height (20 units) of white between them */
    grid_columns(&d, f, margin, w - 2 * margin, gap, 8 * u, top, ch, colx, colw);
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        int c = i % f->cols;
        box b = {colx[c], top + (i / f->cols) * (ch + gap), colw[c], ch, colx[c], colx[c] + colw[c]};
        /* a compact grid's next column may start inside this box: its texts end 8 units before */
        if (c + 1 < f->cols) b.tx1 = fmin(b.tx1, colx[c + 1] - 8 * u);
        b.tx0 = fmax(b.tx0, 0), b.tx1 = fmin(b.tx1, w);
        d.panel = i;
        switch (p->kind) {
        case BL_PANEL_LINES: draw_lines(&d, p, b, &sx, &sy); break;
        case BL_PANEL_HEATMAP: draw_heatmap(&d, p, b); break;
        case BL_PANEL_IMAGES: draw_images(&d, p, b); break;
        case BL_PANEL_TEXT: draw_text(&d, p, b); break;
        default: break;
        }
    }
    cairo_status_t st = cairo_status(cr);
    if (st) return bl_fail("draw: %s", cairo_status_to_string(st));
    return 0;
}
