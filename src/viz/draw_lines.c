/* draw_lines.c - lines panels: the series (lines, markers, dashes where lines coincide) and the
 * legend, inside the plot area where it covers the least data or outside it (see draw_int.h). */
#include "viz/draw_int.h"
#include "viz/color.h"
#include <math.h>
#include <string.h>

/* ---- lines panels ---- */

/* A legend: its entries (series with a label, not left out), one a row, or in up to ncol
 * columns filled row by row, with as few columns as hold them in that many rows (4 entries in
 * up to 3 columns: 2 x 2), so that a run's entries (its line, then those in its colour: "val",
 * a band) stay side by side when the columns allow it (legend_columns). Its text is LEGEND_SIZE units, and
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
/* legend=auto: it goes inside the plot area where it covers the least data (matplotlib's
 * loc="best") when that covers none of the points nor of the samples along the lines; else
 * outside the plot area, on the right or below (under the x label), whichever leaves the plot
 * area larger, when the plot keeps at least LEGEND_KEEP of its area; else inside after all.
 * legend=outside: outside whenever the plot keeps any area. */
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

/* The cells (row * ncol + col) of p's legend entries in ncol columns filled row by row, a run's
 * entries (a series and those after it in its colour, BL_SAME_COLOR) moved together to the
 * next row when the rest of a row cannot hold them (slot: room for BL_LAYOUT_MAX_SERIES).
 * Returns the rows. */
static int legend_slots(const bl_panel *p, int ncol, int *slot)
{
    int n = 0, at = 0;
    for (int s = 0; s < p->nseries && n < BL_LAYOUT_MAX_SERIES; s++) {
        if (!legend_entry(&p->series[s])) continue;
        if (n == 0 || !(p->series[s].flags & BL_SAME_COLOR)) {   /* a run starts: its size */
            int len = 1;
            for (int t = s + 1; t < p->nseries && (p->series[t].flags & BL_SAME_COLOR); t++) len += legend_entry(&p->series[t]);
            if (len <= ncol && at % ncol + len > ncol) at += ncol - at % ncol;
        }
        slot[n++] = at++;
    }
    return n ? (at + ncol - 1) / ncol : 0;
}

/* the box of p's legend at `size` units in ncol columns */
static void legend_measure(dctx *d, const bl_panel *p, double size, int ncol, legend_geom *L)
{
    L->n = 0, L->tw = 0;
    dr_font(d, size, 0, 0);
    for (int s = 0; s < p->nseries; s++)
        if (legend_entry(&p->series[s])) L->tw = fmax(L->tw, dr_text_w(d, p->series[s].label)), L->n++;
    L->size = size, L->em = size * d->u;
    L->ncol = ncol < 1 ? 1 : ncol > L->n ? L->n : ncol;
    int slot[BL_LAYOUT_MAX_SERIES];
    L->nrow = legend_slots(p, L->ncol, slot);
    double em = L->em, colw = (LEG_KEY + LEG_GAP) * em + L->tw;
    L->w = 2 * LEG_PAD * em + L->ncol * colw + (L->ncol - 1) * LEG_COLSEP * em;
    L->h = 2 * LEG_PAD * em + L->nrow * LEG_ROW * em - 6.0 / 17 * em;
}

/* The columns of a legend below a plot, at `size` units, within width w: the most that fit,
 * then as few as hold its entries in as few rows (Lb: scratch) */
static int legend_columns(dctx *d, const bl_panel *p, double size, double w, legend_geom *Lb)
{
    int ncol = p->nseries > BL_LAYOUT_MAX_SERIES ? BL_LAYOUT_MAX_SERIES : p->nseries;
    for (; ncol > 1; ncol--) {
        legend_measure(d, p, size, ncol, Lb);
        if (Lb->w <= w) break;
    }
    if (ncol <= 1) return 1;
    legend_measure(d, p, size, ncol, Lb);
    int rows = Lb->nrow;
    while (ncol > 1) {   /* 4 entries in up to 3 columns: 2 x 2 */
        legend_measure(d, p, size, ncol - 1, Lb);
        if (Lb->nrow > rows) break;
        ncol--;
    }
    return ncol;
}

/* The legend's size for a plot area aw x ah: LEGEND_SIZE, shrunk (not below least_size) to
 * take at most LEGEND_ROOM of either side. */
static void legend_size(dctx *d, const bl_panel *p, double aw, double ah, legend_geom *L)
{
    legend_measure(d, p, LEGEND_SIZE, 1, L);
    if (!L->n) return;
    double k = fmin(1, fmin(LEGEND_ROOM * aw / L->w, LEGEND_ROOM * ah / L->h));
    if (k < 1) legend_measure(d, p, fmax(dr_least_size(d, LEGEND_SIZE), LEGEND_SIZE * k), 1, L);
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
    /* measured on a plot area of REF_W x REF_H units whatever the page's size, so that lines
     * drawn solid at 1600 x 900 are not dashed at 800 x 450 */
    const double REF_W = 1400, REF_H = 700, tol = 2.6;
    (void)d, (void)a;
    for (int s = 0; s < p->nseries && s < n; s++) {
        const bl_series *se = &p->series[s];
        dash[s] = se->flags & BL_GUIDE ? 1 : 0;   /* a reference line: always dashed */
        if (se->flags & (BL_FAINT | BL_NO_LINE | BL_GUIDE)) continue;
        unsigned used = 0;
        for (int r = 0; r < s; r++) {
            const bl_series *q = &p->series[r];
            if (q->flags & (BL_FAINT | BL_NO_LINE) || q->n != se->n) continue;
            int both = 0, near = 0;
            for (int i = 0; i < se->n; i++) {
                if (!series_finite(se, i, xs, ys) || !series_finite(q, i, xs, ys)) continue;
                double dx = REF_W * (bl_scale_pos(xs, se->x[i]) - bl_scale_pos(xs, q->x[i]));
                double dy = REF_H * (bl_scale_pos(ys, se->y[i]) - bl_scale_pos(ys, q->y[i]));
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
        dr_to_page(d, &rec->lx0, &rec->ly0), dr_to_page(d, &rec->lx1, &rec->ly1);
    }
    cairo_rectangle(d->cr, bx, by, L->w, L->h);
    dr_rgb(d->cr, d->th.bg, 0.9);
    cairo_fill_preserve(d->cr);
    dr_rgb(d->cr, d->th.frame, 1);
    cairo_set_line_width(d->cr, 1 * u);
    cairo_stroke(d->cr);
    dr_font(d, L->size, 0, 0);
    double colw = (LEG_KEY + LEG_GAP) * em + L->tw + LEG_COLSEP * em, scale = L->size / LEGEND_SIZE;
    int k = 0, slot[BL_LAYOUT_MAX_SERIES];
    legend_slots(p, L->ncol, slot);
    for (int s = 0; s < p->nseries && k < BL_LAYOUT_MAX_SERIES; s++) {
        const bl_series *se = &p->series[s];
        if (!legend_entry(se)) continue;
        int row = slot[k] / L->ncol, col = slot[k] % L->ncol;
        double cy = by + LEG_PAD * em + (row + 0.5) * LEG_ROW * em - 3.0 / 17 * em;
        double kx = bx + LEG_PAD * em + col * colw, keyw = LEG_KEY * em;
        uint32_t c = bl_series_rgb(se);
        if (se->flags & BL_BAND) {   /* a band's key: a swatch of its fill */
            cairo_rectangle(d->cr, kx, cy - 0.35 * em, keyw, 0.7 * em);
            dr_rgb(d->cr, c, 0.2);
            cairo_fill(d->cr);
        } else if (!(se->flags & BL_NO_LINE)) {   /* the key drawn as the line is, dashes too */
            cairo_save(d->cr);
            if (s < ndash && dash[s]) set_dash(d->cr, dash[s], 2.5 * scale * u);
            dr_line(d, kx, cy, kx + keyw, cy, c, 2.5 * scale);
            cairo_restore(d->cr);
        }
        if (se->flags & BL_MARKERS) {
            cairo_new_path(d->cr);   /* not from the end of the text before it */
            cairo_arc(d->cr, kx + keyw / 2, cy, 5 * u * scale, 0, 2 * M_PI);
            dr_rgb(d->cr, c, 1);
            cairo_fill_preserve(d->cr);
            dr_rgb(d->cr, d->th.bg, 1);
            cairo_set_line_width(d->cr, 1.2 * u * scale);
            cairo_stroke(d->cr);
        }
        d->role = BL_TEXT_LEGEND;
        dr_text(d, kx + keyw + LEG_GAP * em, cy, se->label, 0, C_TEXT);
        k++;
    }
}

int dr_shared_legend(const bl_figure *f)
{
    const bl_panel *first = NULL;
    int last = -1, n = 0;
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_LINES) continue;
        int k = 0;
        for (int s = 0; s < p->nseries; s++) k += legend_entry(&p->series[s]);
        if (!k) return -1;
        if (!first) first = p;
        else {
            int a = 0, b = 0;
            for (;;) {
                while (a < first->nseries && !legend_entry(&first->series[a])) a++;
                while (b < p->nseries && !legend_entry(&p->series[b])) b++;
                if (a == first->nseries || b == p->nseries) break;
                const bl_series *x = &first->series[a++], *y = &p->series[b++];
                unsigned how = BL_MARKERS | BL_NO_LINE | BL_BAND | BL_FAINT | BL_GUIDE;
                if (strcmp(x->label, y->label) || x->color != y->color || (x->flags & how) != (y->flags & how)) return -1;
            }
            if (a != first->nseries || b != p->nseries) return -1;
        }
        last = i, n++;
    }
    return n >= 2 ? last : -1;
}

/* Lay out panel p with its legend: the legend's size and place (L->where BL_LEGEND_NONE when
 * it has no entries) and the panel's parts around it (g). */
static void lines_layout(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy, lines_geom *g,
                         legend_geom *L)
{
    double u = d->u;
    dr_axes_place(d, p, b, sx, sy, 0, 0, g);
    box a = g->a;
    legend_size(d, p, a.w, a.h, L);
    L->where = BL_LEGEND_NONE;
    if (!L->n || a.w <= 0 || a.h <= 0 || (d->legend_of >= 0 && d->legend_of != d->panel)) return;
    /* inside, where it covers the least (matplotlib's loc="best") */
    double fx, fy, m = LEG_PAD * L->em;
    if (d->strip > 0 && d->last_col) {
        /* the strip kept right of the grid (bl_draw_figure): one column beside the plot area's
         * top, at the smallest a legend shrinks to (the strip takes from every panel) */
        legend_measure(d, p, dr_least_size(d, LEGEND_SIZE), 1, L);
        L->where = BL_LEGEND_RIGHT, L->x = d->strip_x1 - L->w;
        L->y = fmax(b.y, fmin(g->a.y, b.y + b.h - L->h));
        return;
    }
    if (d->below > 0 && d->last_col && d->last_row) {
        /* the room kept under the grid (bl_draw_figure): centred under the panel, its entries
         * side by side as far as the panel's width allows */
        legend_geom Lb;
        double size = dr_least_size(d, LEGEND_SIZE);
        legend_measure(d, p, size, legend_columns(d, p, size, b.w, &Lb), L);
        L->where = BL_LEGEND_BELOW, L->x = fmax(b.x, b.x + (b.w - L->w) / 2), L->y = b.y + b.h + d->below - L->h;
        return;
    }
    bl_legend_cover c;
    bl_legend_place(p, &g->xs, &g->ys, L->w / a.w, L->h / a.h, m / fmin(a.w, a.h), &fx, &fy, &c);
    L->where = BL_LEGEND_INSIDE, L->x = a.x + fx * a.w, L->y = a.y + (1 - fy) * a.h - L->h;
    if (d->legend != BL_LEGEND_OUTSIDE && c.samples == 0 && c.points == 0) return;
    /* outside: on the right, one column beside the plot area's top; or below, under the x label,
     * in as many columns as the panel's width holds */
    lines_geom gr, gb;
    legend_geom Lr, Lb;
    double gap = 12 * u;
    /* outside, the legend keeps its full size, as the tick labels do (the inside one shrank to
     * LEGEND_ROOM of the plot area): at font=2 it was clearly smaller than the ticks; the
     * shrunk size again when the full one leaves no room */
    /* the legend of every panel (dr_shared_legend) in the last column: in the strip right of
     * the grid, which leaves the plots of the row one height (below it, qk growth's right plot
     * was 76 pixels tall at 800 x 450 font=2, its left one 122) */
    for (int pass = d->legend_of == d->panel && d->last_col ? 2 : 0; pass < 2; pass++) {
        double size = pass ? L->size : LEGEND_SIZE;
        legend_measure(d, p, size, 1, &Lr);
        dr_axes_place(d, p, b, sx, sy, Lr.w + gap, 0, &gr);
        int ncol = legend_columns(d, p, size, b.w, &Lb);
        legend_measure(d, p, size, ncol, &Lb);
        dr_axes_place(d, p, b, sx, sy, 0, Lb.h + gap / 2, &gb);
        double full = a.w * a.h, ar = Lr.h <= gr.a.h ? gr.a.w * gr.a.h : 0, ab = Lb.w <= b.w ? gb.a.w * gb.a.h : 0;
        if (fmax(ar, ab) < (d->legend == BL_LEGEND_OUTSIDE ? 1e-9 : LEGEND_KEEP) * full) continue;   /* no room */
        if (ar >= ab) {
            *g = gr;
            Lr.where = BL_LEGEND_RIGHT, Lr.x = g->a.x + g->a.w + gap, Lr.y = g->a.y;
            *L = Lr;
        } else {
            *g = gb;
            Lb.where = BL_LEGEND_BELOW;
            Lb.x = fmin(fmax(g->a.x + g->a.w / 2 - Lb.w / 2, b.x), b.x + b.w - Lb.w);
            Lb.y = b.y + b.h - Lb.h;
            *L = Lb;
        }
        return;
    }
    /* no room in the panel: in the last column, a strip right of the grid (bl_draw_figure plans
     * the figure again with it); else it stays inside */
    if (d->last_col) {
        double size = dr_least_size(d, LEGEND_SIZE);
        legend_measure(d, p, size, 1, &Lr);
        d->strip_need = fmax(d->strip_need, Lr.w + 12 * u);
        /* or under the grid, when it is the last panel's and fits the panel's width */
        legend_measure(d, p, size, legend_columns(d, p, size, b.w, &Lb), &Lb);
        if (!d->last_row || Lb.w > b.w) d->below_need = -1;
        else if (d->below_need >= 0) d->below_need = Lb.h + 6 * u;
    }
}

/* A band (BL_BAND): the polygon along y (lo) and back along y2 (hi), filled translucent in its
 * colour; each run of points where both edges are finite is one polygon. */
static void draw_band(dctx *d, const bl_series *se, box a, const bl_scale *xs, const bl_scale *ys)
{
    int i = 0;
    while (i < se->n) {
        int j = i;
        while (j < se->n && isfinite(bl_scale_pos(xs, se->x[j])) && isfinite(bl_scale_pos(ys, se->y[j])) &&
               isfinite(bl_scale_pos(ys, se->y2[j])))
            j++;
        if (j > i) {
            for (int k = i; k < j; k++) {
                double X = a.x + a.w * fmax(-10, fmin(11, bl_scale_pos(xs, se->x[k])));
                double Y = a.y + a.h * (1 - fmax(-10, fmin(11, bl_scale_pos(ys, se->y[k]))));
                if (k == i) cairo_move_to(d->cr, X, Y);
                else cairo_line_to(d->cr, X, Y);
            }
            for (int k = j - 1; k >= i; k--)
                cairo_line_to(d->cr, a.x + a.w * fmax(-10, fmin(11, bl_scale_pos(xs, se->x[k]))),
                              a.y + a.h * (1 - fmax(-10, fmin(11, bl_scale_pos(ys, se->y2[k])))));
            cairo_close_path(d->cr);
            dr_rgb(d->cr, bl_series_rgb(se), 0.2);
            cairo_fill(d->cr);
        }
        i = j > i ? j : i + 1;
    }
}

void dr_lines(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy)
{
    double u = d->u;
    lines_geom g;
    legend_geom L;
    lines_layout(d, p, b, sx, sy, &g, &L);
    box a = g.a;
    const bl_scale xs = g.xs, ys = g.ys;
    box rb = b;   /* its box, to the page's strip when its legend is there */
    if (L.where == BL_LEGEND_RIGHT && L.x + L.w > b.x + b.w) rb.w = L.x + L.w - b.x;
    if (L.where == BL_LEGEND_BELOW && L.y + L.h > b.y + b.h) rb.h = L.y + L.h - b.y;
    bl_axes_box *rec = dr_record_axes(d, rb, a, &xs, &ys);
    if (rec) rec->yfixed = p->has_ylim || p->has_yfrom;
    dr_panel_title(d, p, b, b.y + 16 * u);
    dr_axes_draw(d, p, b, &g);
    int dash[BL_LAYOUT_MAX_SERIES];
    series_dashes(d, p, a, &xs, &ys, dash, BL_LAYOUT_MAX_SERIES);

    /* series, clipped to the plot area */
    cairo_save(d->cr);
    cairo_rectangle(d->cr, a.x, a.y, a.w, a.h);
    cairo_clip(d->cr);
    cairo_set_line_join(d->cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(d->cr, CAIRO_LINE_CAP_ROUND);
    /* bands first, under every line */
    for (int s = 0; s < p->nseries; s++)
        if (p->series[s].flags & BL_BAND) draw_band(d, &p->series[s], a, &xs, &ys);
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        int faint = (se->flags & BL_FAINT) != 0;
        d->series = s;
        uint32_t col = bl_series_rgb(se);
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
                if (tx >= 0 && tx <= 1 && ty >= 0 && ty <= 1) dr_record_point(d, rec, X, Y);
                if (pen) cairo_line_to(d->cr, X, Y);
                else cairo_move_to(d->cr, X, Y), cairo_line_to(d->cr, X, Y);
                pen = 1;
            }
            double lw = (faint ? 1.4 : 2.6) * u;
            dr_rgb(d->cr, col, faint ? 0.28 : 1);
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
                    dr_record_point(d, rec, a.x + a.w * tx, a.y + a.h * (1 - ty));
                cairo_new_sub_path(d->cr);
                cairo_arc(d->cr, a.x + a.w * tx, a.y + a.h * (1 - ty), 5.5 * u, 0, 2 * M_PI);
                dr_rgb(d->cr, col, 1);
                cairo_fill_preserve(d->cr);
                dr_rgb(d->cr, d->th.bg, 1);
                cairo_set_line_width(d->cr, 1.5 * u);
                cairo_stroke(d->cr);
                dots++;
            }
        dr_record_series(d, s, se->color, se->flags & BL_NO_LINE ? -1 : ds, dots);
    }
    cairo_restore(d->cr);
    if (L.where != BL_LEGEND_NONE) draw_legend(d, p, &L, rec, dash, BL_LAYOUT_MAX_SERIES);
}

