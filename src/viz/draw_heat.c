/* draw_heat.c - heatmap panels and colour bars: cells, their labels and values, the marked cell,
 * and what a figure of maps leaves out around them (see draw_int.h). */
#include "viz/draw_int.h"
#include "core/fmt.h"
#include "viz/color.h"
#include <math.h>
#include <string.h>

/* a heatmap's colour bar, in size units: the gap after the map, the bar's width, and the gap
 * from the bar to its tick labels */
#define BAR_GAP DR_BAR_GAP
#define BAR_W 24
#define BAR_TEXT 9

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
    dr_rgb(d->cr, col, 1);
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
    dr_font(d, DR_TICK, 0, 0);
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    double th = fe.ascent + fe.descent + 2 * d->u;
    int m = 0;
    /* more ticks asked for while fewer than two are labelled (rope check's bar over -32 .. 32
     * at 800 x 450 font=2 was labelled "0" alone: its ticks were -50, 0, 50) */
    int want0 = (int)fmax(3, h / (45 * d->u));
    for (int want = want0; want == want0 || (want <= want0 + 8 && m < 2); want++) {
        double last = -INFINITY;
        int n = bl_scale_ticks(&s, want, t, MAX_TICKS, step);
        m = 0;
        for (int i = 0; i < n; i++) {
            double y = h * bl_cmap_pos((float)t[i], vmin, vmax);
            if (y - last < th) continue;
            t[m++] = t[i], last = y;
        }
    }
    if (widest) *widest = 0;
    for (int i = 0; widest && i < m; i++) {
        char lab[24];
        *widest = fmax(*widest, dr_text_w(d, bl_tick_label(t[i], *step, lab, sizeof lab)));
    }
    return m;
}

double dr_colorbar_ink(dctx *d, float vmin, float vmax, double h)
{
    double t[MAX_TICKS], step, widest;
    bar_ticks(d, vmin, vmax, h, t, &step, &widest);
    return (BAR_GAP + BAR_W + BAR_TEXT) * d->u + widest;
}

void dr_colorbar(dctx *d, bl_cmap cmap, float vmin, float vmax, box bar)
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
    dr_record_block(d, BL_BLOCK_BAR, bar.x, bar.y, bar.x + bar.w, bar.y + bar.h, 0, 0);
    dr_rgb(d->cr, C_SPINE, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_rectangle(d->cr, bar.x, bar.y, bar.w, bar.h);
    cairo_stroke(d->cr);
    double t[MAX_TICKS], step;
    int n = bar_ticks(d, vmin, vmax, bar.h, t, &step, NULL);
    d->role = BL_TEXT_TICK;
    for (int i = 0; i < n; i++) {
        double yy = bar.y + bar.h * (1 - bl_cmap_pos((float)t[i], vmin, vmax));
        char lab[24];
        dr_line(d, bar.x + bar.w, yy, bar.x + bar.w + 5 * u, yy, C_SPINE, 1);
        dr_text(d, bar.x + bar.w + BAR_TEXT * u, yy, bl_tick_label(t[i], step, lab, sizeof lab), 0, C_TICK);
    }
}

void dr_mark(dctx *d, double x0, double y0, double cw, double ch, int row, int col)
{
    double lw = fmax(1, fmin(3 * d->u, fmin(cw, ch) / 5)), x = x0 + col * cw, y = y0 + row * ch;
    cairo_save(d->cr);
    cairo_set_antialias(d->cr, CAIRO_ANTIALIAS_NONE);
    dr_rgb(d->cr, C_MARK, 1);
    cairo_set_line_width(d->cr, lw);
    cairo_rectangle(d->cr, x + lw / 2, y + lw / 2, cw - lw, ch - lw);
    cairo_stroke(d->cr);
    cairo_restore(d->cr);
    dr_record_block(d, BL_BLOCK_MARK, x, y, x + cw, y + ch, 0, 0);
}

/* the value of each cell written in it, dark text on light cells and white on dark ones; left
 * out when the widest text does not fit the cells at the smallest a tick label may be
 * (dr_least_size of 15 units: at 8 pixels, rope check width=800's "26.09" could not be read) */
static void annotate_cells(dctx *d, const bl_panel *p, double left, double top, double cw, double ch, float vmin,
                           float vmax)
{
    /* about a third of the cell, at most 20 units; never below the smallest text (FIT_MIN_PX):
     * values that do not fit in their cells at that size are left out (the .csv has them) */
    double cell = fmin(cw, ch), size = fmax(fmin(20, cell / d->u * 0.3), dr_least_size(d, 15));
    dr_font(d, size, 0, 0);
    char buf[64];
    double widest = 0;
    for (long i = 0; i < (long)p->rows * p->cols; i++) {
        bl_snprintf(buf, sizeof buf, p->annotate, (double)p->values[i]);
        widest = fmax(widest, dr_text_w(d, buf));
    }
    d->role = BL_TEXT_OTHER;
    if (widest > cw * 0.92 || size * d->u * 1.3 > ch) {
        /* cells too small for their values, all one value (rope check's pairs at one offset at
         * 800 x 450 font=2 lost "26.09", the point of the slide): that value once, in the middle
         * of its cells, where it fits */
        int r0 = p->rows, r1 = -1, c0 = p->cols, c1 = -1, one = 1;
        float v0 = NAN;
        for (int r = 0; r < p->rows && one; r++)
            for (int c = 0; c < p->cols; c++) {
                float v = p->values[(long)r * p->cols + c];
                if (!isfinite(v)) continue;
                if (isnan(v0)) v0 = v;
                if (v != v0) { one = 0; break; }
                r0 = r < r0 ? r : r0, r1 = r > r1 ? r : r1, c0 = c < c0 ? c : c0, c1 = c > c1 ? c : c1;
            }
        if (!one || r1 < 0) return;
        double bw = (c1 - c0 + 1) * cw, bh = (r1 - r0 + 1) * ch, sz = fmin(20, bh / d->u * 0.5);
        dr_font(d, sz, 0, 0);
        bl_snprintf(buf, sizeof buf, p->annotate, (double)v0);
        if (sz < dr_least_size(d, 15) || dr_text_w(d, buf) > bw * 0.92) return;
        double t = bl_cmap_pos(v0, vmin, vmax);
        uint32_t ink = isnan(t) || bl_rgb_luma(bl_cmap_rgb(p->cmap, t)) > 0.55 ? C_INK_DARK : 0xffffffu;
        dr_text(d, left + (c0 * cw + bw / 2), top + (r0 * ch + bh / 2), buf, 0.5, ink);
        return;
    }
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            float v = p->values[(long)r * p->cols + c];
            double t = bl_cmap_pos(v, vmin, vmax);
            if (isnan(t)) continue;
            bl_snprintf(buf, sizeof buf, p->annotate, (double)v);
            uint32_t ink = bl_rgb_luma(bl_cmap_rgb(p->cmap, t)) > 0.55 ? C_INK_DARK : 0xffffffu;
            dr_text(d, left + (c + 0.5) * cw, top + (r + 0.5) * ch, buf, 0.5, ink);
        }
}

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
 * maps of a figure are labelled alike): DR_TICK units where every label fits (a row label's height
 * within its cell; two neighbouring column labels, each centred on its cell, 1.5 units apart, 5 when
 * a label has more than one character, so that "-7 -6 -5" do not run together),
 * else the size at which they all fit, down to dr_tick_least (8 pixels times font=);
 * where they do not fit even so, every k-th: *every_r, *every_c (1: all; one k for both
 * when the map has both). */
static double label_fit(dctx *d, const bl_panel *p, double cw, double ch, int *every_r, int *every_c)
{
    double u = d->u, least = dr_tick_least(d), pair = 0, widest = 0, gap = 1.5 * u;
    int rows = p->row_labels != NULL, cols = p->col_labels != NULL;
    for (int c = 0; cols && c < p->cols; c++) {   /* labels of more than one character: 5 units */
        int n = 0;
        for (const char *q = p->col_labels[c]; *q; q++) n += ((unsigned char)*q & 0xc0) != 0x80;
        if (n > 1) gap = 5 * u;
    }
    dr_font(d, DR_TICK, 0, 0);
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    double th = fe.ascent + fe.descent, prev = 0;
    for (int c = 0; cols && c < p->cols; c++) {
        double w = dr_text_w(d, p->col_labels[c]);
        if (c > 0) pair = fmax(pair, (prev + w) / 2);
        widest = fmax(widest, w), prev = w;
    }
    if (cols && p->cols == 1) pair = widest;
    double k = 1;   /* the size as a part of DR_TICK units: widths and heights go with it */
    if (rows) k = fmin(k, 0.99 * ch / th);
    if (cols && pair > 0) k = fmin(k, 0.99 * (cw - gap) / pair);
    double size = fmax(least, DR_TICK * k), s = size / DR_TICK;
    *every_r = rows && th * s > ch ? (int)ceil(th * s / ch) : 1;
    *every_c = 1;
    if (cols && pair * s + gap > cw)   /* every k-th: the widest two k cells apart */
        *every_c = (int)ceil((widest * s + gap) / cw);
    if (rows && cols && (*every_r > 1 || *every_c > 1)) *every_r = *every_c = *every_r > *every_c ? *every_r : *every_c;
    return size;
}

/* Whether a map with decorations k draws labels of its own with some left out (g's every_r,
 * every_c): rows (bit 1), columns (bit 2) */
int dr_heat_thin(const bl_panel *p, const heat_geom *g, heat_deco k)
{
    return (k.rowticks && p->row_labels && g->every_r > 1) | (k.colticks && p->col_labels && g->every_c > 1) << 1;
}

heat_geom dr_heat_place(dctx *d, const bl_panel *p, box b, heat_deco k)
{
    double u = d->u;
    heat_geom g;
    memset(&g, 0, sizeof g);
    dr_font(d, DR_TICK, 0, 0);
    for (int r = 0; p->row_labels && r < p->rows; r++) g.lw = fmax(g.lw, dr_text_w(d, p->row_labels[r]));
    if (!p->row_labels) {
        char buf[24];
        g.lw = dr_text_w(d, bl_tick_label(p->rows - 1, 1, buf, sizeof buf));
    }
    g.side_l = (k.ylab ? 30 * u : 0) + (k.rowticks ? g.lw + 12 * u : 4 * u);
    g.side_r = k.bar ? DR_BAR_ROOM * u : 4 * u;
    g.top = b.y + dr_title_top(d, p);
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

double dr_heat_title_x(const heat_geom *g, box b, heat_deco k, int cols)
{
    return k.bar && !k.bar_room ? g->left + g->cw * cols / 2 : b.x + b.w / 2;
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
void dr_thin_note(int kmin, int kmax, int which, char *buf, size_t n)
{
    char a[16], b[16];
    const char *what = which == 1 ? "row label" : which == 2 ? "column label" : "label";
    if (kmin == kmax) snprintf(buf, n, "every %s %s shown", ordinal(kmax, a, sizeof a), what);
    else snprintf(buf, n, "every %s or %s %s shown", ordinal(kmin, a, sizeof a), ordinal(kmax, b, sizeof b), what);
}

void dr_heatmap(dctx *d, const bl_panel *p, box b, heat_deco k)
{
    double u = d->u;
    float vmin, vmax;
    bl_heat_range(p, &vmin, &vmax);
    heat_geom g = dr_heat_place(d, p, b, k);
    double top = g.top, left = g.left, cw = g.cw, ch = g.ch, lw = g.lw;
    double hw = cw * p->cols, hh = ch * p->rows;
    box tb = b;   /* the title over the map, not over the map and its colour bar */
    tb.x = dr_heat_title_x(&g, b, k, p->cols) - b.w / 2;
    dr_panel_title(d, p, tb, b.y + 16 * u);
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
    dr_record_block(d, BL_BLOCK_MAP, left, top, left + hw, top + hh, p->rows, p->cols);
    if (p->annotate) annotate_cells(d, p, left, top, cw, ch, vmin, vmax);
    dr_rgb(d->cr, C_SPINE, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_rectangle(d->cr, left, top, hw, hh);
    cairo_stroke(d->cr);
    if (p->has_mark) dr_mark(d, left, top, cw, ch, p->mark_row, p->mark_col);
    /* tick labels: the map's own labels, every one where they fit (label_fit), else every k-th
     * and a note; index ticks without labels */
    double t[MAX_TICKS], step, ty, xy, ny, room;
    char lab[24], note[192];
    heat_below(k, 0, &ty, &xy, &ny, &room);
    d->role = BL_TEXT_TICK;
    if (k.rowticks && p->row_labels) {
        dr_font(d, g.label_size, 0, 0);
        for (int r = bl_label_first((const char *const *)p->row_labels, p->rows, g.every_r); r < p->rows; r += g.every_r) dr_text(d, left - 6 * u, top + (r + 0.5) * ch, p->row_labels[r], 1, C_TICK);
    } else if (k.rowticks) {
        dr_font(d, DR_TICK, 0, 0);
        int n = index_ticks(p->rows, ch, 40 * u, t, &step);
        for (int i = 0; i < n; i++)
            dr_text(d, left - 6 * u, top + (t[i] + 0.5) * ch, bl_tick_label(t[i], step, lab, sizeof lab), 1, C_TICK);
    }
    if (k.colticks && p->col_labels) {
        dr_font(d, g.label_size, 0, 0);
        for (int c = bl_label_first((const char *const *)p->col_labels, p->cols, g.every_c); c < p->cols; c += g.every_c) dr_text(d, left + (c + 0.5) * cw, top + hh + ty * u, p->col_labels[c], 0.5, C_TICK);
    } else if (k.colticks) {
        dr_font(d, DR_TICK, 0, 0);
        int n = index_ticks(p->cols, cw, 50 * u, t, &step);
        for (int i = 0; i < n; i++)
            dr_text(d, left + (t[i] + 0.5) * cw, top + hh + ty * u, bl_tick_label(t[i], step, lab, sizeof lab), 0.5, C_TICK);
    }
    if (k.bar && !k.bar_room) {
        box bar = {left + hw + BAR_GAP * u, top, BAR_W * u, hh, 0, 0};
        dr_colorbar(d, p->cmap, vmin, vmax, bar);
    }
    /* the y label within the map's height */
    double cy = top + hh / 2, ly = 2 * fmin(cy - top, b.y + b.h - cy);
    d->role = BL_TEXT_AXIS_LABEL;
    if (k.xlab && p->xlabel) dr_axis_label(d, left + hw / 2, top + hh + xy * u, p->xlabel, dr_room_at(b, left + hw / 2), 0);
    if (k.ylab && p->ylabel) dr_axis_label(d, left - lw - 26 * u, cy, p->ylabel, ly, 1);
    /* non-finite cells are left blank: say so (labels left out: the figure says, figure_thin) */
    d->role = BL_TEXT_OTHER;
    if (bl_heat_note(p, note, sizeof note))
        dr_text_fit(d, left + hw / 2, top + hh + ny * u, note, 15, 0, dr_room_at(b, left + hw / 2), C_TEXT, 0);
}

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
 *   4  no tick labels: the maps and their colour bar alone (without the bar the colours
 *      say nothing; 4 heads at 800 x 450 font=2 dropped it and every label);
 *   5  the maps alone, only where the bar would leave them far smaller (draw.c's choose_plan). */
heat_deco dr_heat_deco_at(const bl_figure *f, int i, int level)
{
    heat_deco k = DECO_ALL;
    int r = i / f->cols, c = i % f->cols;
    const bl_panel *p = &f->panels[i];
    if (c + 1 < f->cols && heat_same_scale(p, &f->panels[i + 1])) k.bar = 0;
    if (c + 1 == f->cols && r + 1 < f->rows && heat_same_scale(p, &f->panels[i + f->cols])) k.bar_room = 1;
    if (level >= 5) return (heat_deco){0, 0, 0, 0, 0, 0};
    if (level >= 4) return (heat_deco){k.bar, 0, 0, 0, 0, k.bar_room};
    if (level >= 2 && c > 0 && heat_same_rows(p, &f->panels[i - 1])) k.ylab = k.rowticks = 0;
    if (level >= 2 && r + 1 < f->rows && heat_same_cols(p, &f->panels[i + f->cols])) k.xlab = k.colticks = 0;
    if (level >= 3) k.ylab = k.xlab = 0;
    return k;
}
