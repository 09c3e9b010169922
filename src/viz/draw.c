/* draw.c - the figure drawn with cairo: the page, its title, the grid of panels, line primitives
 * and the record of its layout for tests (see draw.h). Each kind of panel has its own file:
 * draw_axes.c (axes and ticks), draw_lines.c (lines and legends), draw_heat.c (heatmaps and
 * colour bars), draw_image.c (images), draw_text.c (text layout); draw_int.h is what they
 * share. */
#include "viz/draw_int.h"
#include "core/error.h"
#include <math.h>
#include <string.h>

static bl_layout *trace_to;

void bl_draw_trace(bl_layout *t) { trace_to = t; }

/* the box of text s about to be drawn from the current point (x, y) on the baseline, in page units */
void dr_record_text(dctx *d, double x, double y, const char *s, double tw, const cairo_font_extents_t *fe)
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

void dr_rgb(cairo_t *cr, uint32_t c, double alpha)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0, alpha);
}

void dr_line(dctx *d, double x0, double y0, double x1, double y1, uint32_t color, double width)
{
    dr_rgb(d->cr, color, 1);
    cairo_set_line_width(d->cr, width * d->u);
    cairo_move_to(d->cr, x0, y0);
    cairo_line_to(d->cr, x1, y1);
    cairo_stroke(d->cr);
}

/* a point (x, y) in user units as page units */
void dr_to_page(dctx *d, double *x, double *y)
{
    cairo_user_to_device(d->cr, x, y);
    cairo_matrix_transform_point(&d->to_page, x, y);
}

/* start the record of lines panel d->panel: its box b, plot area a and axis ranges (NULL when
 * not recording or out of room) */
bl_axes_box *dr_record_axes(dctx *d, box b, box a, const bl_scale *xs, const bl_scale *ys)
{
    bl_layout *t = d->trace;
    if (!t || t->naxes >= BL_LAYOUT_MAX_AXES) return NULL;
    bl_axes_box *r = &t->axes[t->naxes++];
    memset(r, 0, sizeof *r);
    r->panel = d->panel;
    r->bx0 = b.x, r->by0 = b.y, r->bx1 = b.x + b.w, r->by1 = b.y + b.h;
    r->x0 = a.x, r->y0 = a.y, r->x1 = a.x + a.w, r->y1 = a.y + a.h;
    dr_to_page(d, &r->bx0, &r->by0), dr_to_page(d, &r->bx1, &r->by1);
    dr_to_page(d, &r->x0, &r->y0), dr_to_page(d, &r->x1, &r->y1);
    r->xr = (bl_scale_range){xs->lo, xs->hi, xs->log}, r->yr = (bl_scale_range){ys->lo, ys->hi, ys->log};
    r->pt0 = t->npt;
    return r;
}

/* a data point drawn at (x, y) in the plot area of record r */
void dr_record_point(dctx *d, bl_axes_box *r, double x, double y)
{
    bl_layout *t = d->trace;
    if (!r) return;
    if (t->npt >= BL_LAYOUT_MAX_POINTS) {
        t->lost_pt++;
        return;
    }
    dr_to_page(d, &x, &y);
    t->pt[t->npt++] = (bl_layout_point){d->panel, d->series, (float)x, (float)y};
    r->npt++;
}

/* a map, colour bar or image drawn over x0 .. x1, y0 .. y1 in user units (rows x cols cells) */
void dr_record_block(dctx *d, int kind, double x0, double y0, double x1, double y1, int rows, int cols)
{
    bl_layout *t = d->trace;
    if (!t || t->nblock >= BL_LAYOUT_MAX_BLOCKS) return;
    dr_to_page(d, &x0, &y0), dr_to_page(d, &x1, &y1);
    t->block[t->nblock++] = (bl_block_box){d->panel, kind, x0, y0, x1, y1, rows, cols};
}

/* how series s of the panel drawn now was drawn */
void dr_record_series(dctx *d, int s, int color, int dash, int dots)
{
    bl_layout *t = d->trace;
    if (!t || t->nseries >= BL_LAYOUT_MAX_SERIES) return;
    t->series[t->nseries++] = (bl_series_style){d->panel, s, color, dash, dots};
}

/* ---- the figure ---- */

/* A figure of maps drops their decorations a level at a time (dr_heat_deco_at) while its smallest
 * map is less than DECO_KEEP of the largest any level makes it */
#define DECO_LEVELS 6
#define DECO_KEEP 0.75
#define BAR_KEEP 60
/* the gap between the columns of a grid of maps only (units) */
#define MAPS_GAP 16
/* and between its rows: a map's box keeps the room of its labels below it, 17 units of which
 * may reach past the box (heat_below) */
#define MAPS_GAP_Y 20


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
        heat_geom g = dr_heat_place(d, p, b, k);
        return fmin(h, g.top + g.ch * p->rows + g.bottom);
    }
    if (p->kind == BL_PANEL_IMAGES) return fmin(h, dr_images_place(d, p, b).used);
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
        if (p->kind == BL_PANEL_HEATMAP) need[i % nc] = fmax(need[i % nc], dr_heat_place(d, p, panel_box(f, g, i), g->deco[i]).need);
    }
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        int c = i % nc;
        box b = panel_box(f, g, i);
        b.x = 0, b.w = need[c];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        heat_geom hg = dr_heat_place(d, p, b, g->deco[i]);
        ink[c] = fmax(ink[c], hg.ink);
        if (p->title) {   /* its title on one line at its least size over the map, clear of the next
                           * one (8 heads at 800 x 450 font=2 had "he\xe2\x80\xa6" over "0") */
            dr_font(d, dr_least_size(d, 21), 1, 0);
            double half = (dr_text_w(d, p->title) + (DR_TITLE_SEP - 12) * d->u) / 2, cx = hg.left + hg.cw * p->cols / 2;
            ink[c] = fmax(ink[c], cx + half + 8 * d->u - tight);
        }
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

/* pack a grid of images panels only (or empty) whose images, at the scale the rows' heights
 * give them, need less than w0: each column as wide as its images and their colour-bar room,
 * `gap` apart, the grid centred (the heads of `attn query=`, which left half the page empty
 * between its columns) */
static void grid_pack_images(dctx *d, const bl_figure *f, grid_plan *g, double x0, double w0, double gap)
{
    int nc = f->cols;
    double need[BL_FIG_MAX_GRID] = {0}, total = 0, top = INFINITY, bottom = -INFINITY;
    const bl_panel *last = NULL;
    for (int i = 0; i < f->rows * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_IMAGES && p->kind != BL_PANEL_EMPTY) return;
        if (p->kind != BL_PANEL_IMAGES) continue;
        box b = panel_box(f, g, i);
        images_geom ig = dr_images_place(d, p, b);
        double gw = ig.g * p->w * ig.s + (ig.g - 1) * ig.gap + ig.bar;
        top = fmin(top, ig.y0), bottom = fmax(bottom, ig.y0 + ig.rows * p->h * ig.s + (ig.rows - 1) * ig.gap), last = p;
        if (p->title) {   /* room for its title on one line at its smallest size, clear of its neighbours' */
            dr_font(d, dr_least_size(d, 21), 1, 0);
            gw = fmax(gw, dr_text_w(d, p->title) + (DR_TITLE_SEP - 12) * d->u + 1 + ig.bar);
        }
        need[i % nc] = fmax(need[i % nc], gw);
    }
    /* the figure's one colour bar (dctx.img_one_bar) in the room the last column keeps: as
     * wide as the bar and its labels (on a small page far less than DR_BAR_ROOM), so that the
     * images and the bar are centred together */
    double one = 0;
    if (d->img_one_bar && last)
        one = fmin(DR_BAR_ROOM * d->u, dr_colorbar_ink(d, last->omin, last->omax, fmax(0, bottom - top)) + 4 * d->u);
    need[nc - 1] += one;
    for (int c = 0; c < nc; c++) total += need[c] + (c + 1 < nc ? gap : 0);
    if (total >= w0 - 1e-9 * w0) return;
    double x = x0 + (w0 - total) / 2;
    for (int c = 0; c < nc; c++)
        g->colx[c] = x, g->colw[c] = need[c], g->inl[c] = 0, g->inr[c] = c + 1 == nc ? one : 0, x += need[c] + gap;
}

/* A grid of maps beside other panels (rope table: cos and sin maps, tall and narrow, beside the
 * angle plot): each column of maps only (or empty panels) that needs less than its share narrows
 * to what its maps and their labels need at the rows' heights (and half its panel titles'
 * longest, at their least size, so that they wrap onto two lines at most); the width it gives
 * up goes to the other columns evenly. */
static void grid_give_width(dctx *d, const bl_figure *f, grid_plan *g, double gap)
{
    int nc = f->cols, maps[BL_FIG_MAX_GRID], others = 0;
    double need[BL_FIG_MAX_GRID], saved = 0;
    for (int c = 0; c < nc; c++) {
        maps[c] = 1, need[c] = 0;
        int any = 0;
        for (int r = 0; r < f->rows; r++) {
            int i = r * nc + c;
            const bl_panel *p = &f->panels[i];
            if (p->kind == BL_PANEL_EMPTY) continue;
            if (p->kind != BL_PANEL_HEATMAP) {
                maps[c] = 0;
                break;
            }
            any = 1;
            box b = panel_box(f, g, i);
            b.w = 1e7;   /* the map as the row's height makes it */
            need[c] = fmax(need[c], dr_heat_place(d, p, b, g->deco[i]).need);
            if (p->title) {
                dr_font(d, dr_least_size(d, 21), 1, 0);
                need[c] = fmax(need[c], dr_text_w(d, p->title) / 2 + (DR_TITLE_SEP - 12) * d->u);
            }
        }
        if (!any) maps[c] = 0;
        if (maps[c] && need[c] < g->colw[c]) saved += g->colw[c] - need[c];
        others += !maps[c];
    }
    if (!others || saved <= 0) return;
    double x = g->colx[0];
    for (int c = 0; c < nc; c++) {
        if (maps[c] && need[c] < g->colw[c]) g->colw[c] = need[c];
        else if (!maps[c]) g->colw[c] += saved / others;
        g->colx[c] = x, x += g->colw[c] + gap;
    }
}

/* Whether text s at `size` units (18 for an axis label, 21 bold for a panel title) would be
 * cut in `room` even at its smallest size (least_size) */
static int would_cut(dctx *d, const char *s, double size, int bold, double room)
{
    if (!s || !s[0]) return 0;
    dr_font(d, dr_least_size(d, size), bold, 0);
    return dr_text_w(d, s) > room;
}

/* The plan of f at decoration level `level` over the page's part x0 .. x0 + w0, y0 .. y0 + h0
 * (the title left out), with `gap` between columns and rows (see grid_plan). */
static void plan_grid(dctx *d, const bl_figure *f, int level, double x0, double w0, double y0, double h0, double gap,
                      double page_w, grid_plan *g)
{
    int nr = f->rows, nc = f->cols, maps_only = 0;
    memset(g, 0, sizeof *g);
    for (int i = 0; i < nr * nc; i++) {
        int k = f->panels[i].kind;
        maps_only = k == BL_PANEL_HEATMAP ? (maps_only >= 0 ? 1 : -1) : k == BL_PANEL_EMPTY ? maps_only : -1;
    }
    /* a grid of maps only keeps MAPS_GAP between its columns: the labels of a map are in its
     * column already (4 heads at 800 x 450 font=2 lost a third of the width to the gaps); so
     * does a grid of images with one colour bar (attn query='s heads: 133 pixels a head at
     * 800 x 450 font=2 in place of 111) */
    double gapx = maps_only > 0 || d->img_one_bar ? fmin(gap, MAPS_GAP * d->u) : gap;
    g->u = d->u, g->page_w = page_w, g->ncols = nc;
    double L[BL_FIG_MAX_GRID] = {0}, R[BL_FIG_MAX_GRID] = {0}, minl = INFINITY, minr = INFINITY, extra = 0;
    int hm[BL_FIG_MAX_GRID] = {0};
    for (int i = 0; i < nr * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        int c = i % nc;
        g->deco[i] = dr_heat_deco_at(f, i, level);
        box b = {0, 0, 1e7, 1e7, 0, 0};
        heat_geom hg = dr_heat_place(d, p, b, g->deco[i]);
        L[c] = fmax(L[c], hg.side_l), R[c] = fmax(R[c], hg.side_r), hm[c] = 1;
    }
    for (int c = 0; c < nc; c++)
        if (hm[c]) minl = fmin(minl, L[c]), minr = fmin(minr, R[c]);
    for (int c = 0; c < nc; c++) {
        g->inl[c] = hm[c] ? L[c] - minl : 0, g->inr[c] = hm[c] ? R[c] - minr : 0;
        extra += g->inl[c] + g->inr[c];
    }
    /* images with one colour bar for all (dctx.img_one_bar): the last column keeps its room,
     * wider by it, so that every column's images have the same room */
    if (d->img_one_bar) {
        for (int c = 0; c < nc; c++) hm[c] = 1;
        g->inr[nc - 1] = DR_BAR_ROOM * d->u, extra = g->inr[nc - 1];
    }
    /* equal columns; those holding maps share theirs so that each map has the same room */
    int nh = 0;
    for (int c = 0; c < nc; c++) nh += hm[c];
    /* the narrow gap only where each column's panel titles still fit on one line at their least
     * size (at 300 wide they wrapped onto two, which took the maps' height) */
    double tneed = 0;
    for (int i = 0; i < nr * nc; i++)
        if (f->panels[i].kind == BL_PANEL_HEATMAP && f->panels[i].title) {
            dr_font(d, dr_least_size(d, 21), 1, 0);
            tneed = fmax(tneed, dr_text_w(d, f->panels[i].title) + (DR_TITLE_SEP - 12) * d->u);
        }
    if (nh && (w0 - (nc - 1) * gapx - extra) / nc + gapx < tneed) gapx = gap;
    double equal = fmax(0, (w0 - (nc - 1) * gapx) / nc), base = nh ? fmax(0, (nh * equal - extra) / nh) : equal, x = x0;
    for (int c = 0; c < nc; c++)
        g->colx[c] = x, g->colw[c] = hm[c] ? base + g->inl[c] + g->inr[c] : equal, x += g->colw[c] + gapx;
    /* rows: equal shares, then what a row does not take goes to the rows that take all theirs */
    /* under a map: its labels' room (none under images with one bar) */
    double gapy = maps_only > 0 || d->img_one_bar ? fmin(gap, MAPS_GAP_Y * d->u) : gap;
    double H = fmax(0, h0 - (nr - 1) * gapy), used[BL_FIG_MAX_GRID];
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
                    heat_geom hg = dr_heat_place(d, p, b, g->deco[i]);
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
    for (int r = 0; r < nr; r++) g->rowy[r] = y, y += g->rowh[r] + gapy + pad;
    grid_give_width(d, f, g, gap);
    grid_compact(d, f, g, x0, w0, 8 * d->u);
    grid_pack_images(d, f, g, x0, w0, gapx);
    g->side = INFINITY;
    for (int i = 0; i < nr * nc; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_HEATMAP) continue;
        box b = panel_box(f, g, i);
        heat_geom hg = dr_heat_place(d, p, b, g->deco[i]);
        double hw = hg.cw * p->cols, hh = hg.ch * p->rows, cx = hg.left + hw / 2;
        g->side = fmin(g->side, fmin(hw, hh));
        g->cut += g->deco[i].xlab && would_cut(d, p->xlabel, 18, 0, dr_room_at(b, cx));
        g->cut += g->deco[i].ylab && would_cut(d, p->ylabel, 18, 0, hh);
        g->cut += dr_title_cut(d, p->title, dr_room_at(b, dr_heat_title_x(&hg, b, g->deco[i], p->cols)));
    }
}

/* Plan f at every level of decorations into plans (DECO_LEVELS) and say which to draw: the
 * first whose maps are large enough (DECO_KEEP) and whose titles and axis labels all fit, else
 * the first whose maps are large enough. */
static int choose_plan(dctx *d, const bl_figure *f, double x0, double w0, double y0, double h0, double gap,
                       double page_w, grid_plan *plans)
{
    double best = 0;
    for (int k = 0; k < DECO_LEVELS; k++) plan_grid(d, f, k, x0, w0, y0, h0, gap, page_w, &plans[k]);
    /* the maps without their colour bar (the last level) only when with it they would be less
     * than BAR_KEEP units of font=1 a side (a thumbnail 300 wide): without the bar the values
     * cannot be read (rope table at 800 x 450 font=2 dropped its bar and every tick when they
     * took its maps from 144 to 89 units) */
    int levels = DECO_LEVELS - 1;
    for (int k = 0; k < levels; k++)
        if (isfinite(plans[k].side)) best = fmax(best, plans[k].side);
    if (isfinite(plans[levels].side) && best < BAR_KEEP * d->u / d->fontk)
        best = plans[levels].side, levels++;
    int large = -1;
    for (int k = 0; k < levels; k++) {
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
        heat_geom hg = dr_heat_place(d, p, panel_box(f, g, i), g->deco[i]);
        int t = dr_heat_thin(p, &hg, g->deco[i]);
        if (!t) continue;
        int k = t & 1 ? hg.every_r : hg.every_c;
        if (t == 3) k = hg.every_r > hg.every_c ? hg.every_r : hg.every_c;
        kmin = kmin ? (k < kmin ? k : kmin) : k, kmax = k > kmax ? k : kmax;
        which |= p->row_labels && p->col_labels ? 3 : t;
    }
    if (kmax) dr_thin_note(kmin, kmax, which, buf, n);
}

/* Whether the figure's title s at `size` units would be cut in maxw even at its smallest size (a long title at
 * font=2 lost its end: "QK-norm keeps them b..."): then its two lines in l1 and l2 (n bytes
 * each), split after the last ": " or ", " or else the last space that lets the first line fit,
 * the second line fitted (and cut, if it must be) when drawn. */
static int title_lines(dctx *d, const char *s, double size, double maxw, char *l1, char *l2, size_t n)
{
    dr_font(d, dr_least_size(d, size), 1, 0);
    if (dr_text_w(d, s) <= maxw || strlen(s) >= n) return 0;
    size_t len = strlen(s), best = 0, best_sp = 0;
    for (size_t k = 1; k + 1 < len; k++) {
        if (s[k] != ' ') continue;
        memcpy(l1, s, k), l1[k] = 0;
        if (dr_text_w(d, l1) > maxw) break;
        best_sp = k;
        if (s[k - 1] == ':' || s[k - 1] == ',') best = k;
    }
    if (!best) best = best_sp;
    if (!best) return 0;
    memcpy(l1, s, best), l1[best] = 0;
    snprintf(l2, n, "%s", s + best + 1);
    return 1;
}

/* The figure's title s on a page w x h (page units) with `margin`: DR_FIG_TITLE units bold, on
 * a short page (less than DR_TITLE_TALL units high) DR_FIG_TITLE_SHORT, its height going to the
 * pictures; shrunk to fit one line (fit()); when it would be cut even at its least, on two lines
 * at one size (the one the wider needs; a short page's at the least). Sets d->title_size. Returns the height it takes below the margin, the gap
 * under it included (page units). */
static double fig_title(dctx *d, const char *s, double w, double h, double margin)
{
    double u = d->u, maxw = w - 2 * margin;
    int tall = h / u >= DR_TITLE_TALL;
    double size = tall ? DR_FIG_TITLE : DR_FIG_TITLE_SHORT;
    char l1[256], l2[256];
    if (!title_lines(d, s, size, maxw, l1, l2, sizeof l1)) {
        dr_text_fit(d, w / 2, margin + size / 2 * u, s, size, 1, maxw, d->th.text, 0);
        d->title_size = d->fsize / u;
        return (tall ? 44 : size + 12) * u;
    }
    double sz = fmin(dr_fit_size(d, l1, size, 1, maxw), dr_fit_size(d, l2, size, 1, maxw));
    if (!tall) sz = dr_least_size(d, size);   /* a short page's two lines take no more than they must */
    d->title_size = sz;
    double pitch = tall ? 34 : 1.25 * sz;   /* the lines' distance (units) */
    dr_text_at(d, w / 2, margin + size / 2 * u, l1, sz, 1, maxw, d->th.text);
    dr_text_at(d, w / 2, margin + (size / 2 + pitch) * u, l2, sz, 1, maxw, d->th.text);
    return (tall ? 78 : size + 12 + pitch) * u;
}

/* each panel of f in its box of plan g */
static void draw_panels(dctx *d, const bl_figure *f, const grid_plan *g, const bl_range *sx, const bl_range *sy)
{
    box boxes[BL_FIG_MAX_GRID * BL_FIG_MAX_GRID];
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        box b = boxes[i] = panel_box(f, g, i);
        d->panel = i, d->last_col = i % f->cols == f->cols - 1, d->last_row = i / f->cols == f->rows - 1;
        switch (p->kind) {
        case BL_PANEL_LINES: dr_lines(d, p, b, sx, sy); break;
        case BL_PANEL_HEATMAP: dr_heatmap(d, p, b, g->deco[i]); break;
        case BL_PANEL_IMAGES: dr_images(d, p, b); break;
        case BL_PANEL_TEXT: dr_text_panel(d, p, b); break;
        default: break;
        }
    }
    if (d->img_one_bar) dr_images_shared_bar(d, f, boxes);
}

/* The level of decorations that keeps the maps large (plans: DECO_LEVELS); when their labels
 * are thinned, once more with room at the page's bottom for the note that says so (thin, n
 * bytes, "" when none). Returns the level. */
static int place(dctx *d, const bl_figure *f, double margin, double w, double h, double top, double gap,
                 grid_plan *plans, char *thin, size_t n)
{
    double note_h = 0;
    int level = 0;
    for (int pass = 0; pass < 2; pass++) {
        /* the x labels under a map reach 17 units past its box: on a margin less than that
         * (a short page at font=2's 16) the rest is kept */
        double reach = fmax(0, 17 * d->u - margin);
        level = choose_plan(d, f, margin, w - 2 * margin - d->strip, top, h - top - margin - note_h - reach - d->below, gap,
                            w - d->strip, plans);
        figure_thin(d, f, &plans[level], thin, n);
        if (!thin[0] || pass) break;
        note_h = 22 * d->u;   /* the note in the margin, 2 units below the texts under the maps */
    }
    return level;
}

int bl_draw_figure(const bl_figure *f, cairo_t *cr, double w, double h)
{
    static const dr_theme light = {0xffffffu, 0x222222u, 0x444444u, 0xe6e6e6u, 0x555555u, 0xccccccu},
                          dark = {0x1b1d23u, 0xeeeeeeu, 0xccccccu, 0x3a3d45u, 0xaaaaaau, 0x5a5d66u};
    dctx d = {.cr = cr, .u = sqrt(fmin(w / BL_FIG_W, h / BL_FIG_H))}; /* text shrinks slower than the page */
    if (d.u < 0.25) d.u = 0.25;
    d.fontk = f->font > 0 ? f->font : 1;
    d.u *= d.fontk;   /* font=: text, margins and lines together */
    d.th = f->theme == BL_THEME_DARK ? dark : light;
    d.legend = f->legend;
    d.legend_of = dr_shared_legend(f);
    for (int i = 0; i < f->rows * f->cols; i++) d.img_bar |= f->panels[i].kind == BL_PANEL_IMAGES && f->panels[i].overlay;
    d.img_one_bar = bl_fig_overlay_one_bar(f) != NULL;
    cairo_get_matrix(cr, &d.to_page);
    cairo_matrix_invert(&d.to_page);
    d.trace = trace_to, d.role = BL_TEXT_TITLE, d.panel = -1;
    if (d.trace)
        d.trace->w = w, d.trace->h = h, d.trace->u = d.u, d.trace->ntext = d.trace->lost = 0,
        d.trace->naxes = d.trace->npt = d.trace->lost_pt = d.trace->nblock = d.trace->nseries = 0;
    /* the page's margin: 24 units, 16 on a short page at a font larger than 1 (800 x 450 at
     * font=2 left bands of 34 pixels at its top and bottom) */
    double u = d.u, margin = (h / u < DR_TITLE_TALL && d.fontk > 1 ? 16 : 24) * u;
    dr_rgb(cr, d.th.bg, 1);
    cairo_paint(cr);
    double top = margin + (f->title ? fig_title(&d, f->title, w, h, margin) : 0);
    bl_range sx, sy;
    bl_fig_shared_range(f, 0, 0, &sx);
    bl_fig_shared_range(f, 1, 0, &sy);
    grid_plan plans[DECO_LEVELS];
    double gap = 36 * u;
    char thin[96] = "";
    int level = 0;
    /* the plan with panel titles on one line; when they need more (dr_title_choose), planned
     * again with room for their lines; when a legend of the last column has no room in its
     * panel but would cover data (or legend=outside), all of it again with a strip on the right
     * for it */
    d.strip_x1 = w - margin;
    for (int strip = 0; strip < 2; strip++) {
        d.tlines = 1;
        for (int round = 0; round < 2; round++) {
            int tl = d.tlines;
            level = place(&d, f, margin, w, h, top, gap, plans, thin, sizeof thin);
            /* panel titles share one size: a first pass, thrown away, finds what they need */
            for (int k = 0; k < DR_TITLE_LINES; k++) d.tneed[k] = 21;
            /* again when it drops the log notes of the axis labels: those measured before the
             * one that decided it needed less */
            for (int again = 0; again < 2; again++) {
                int dropped = d.drop_log;
                d.measure = 1, d.trace = NULL, d.strip_need = d.below_need = 0, d.axis_need = 18, d.axis_size = 0;
                cairo_push_group(cr);
                draw_panels(&d, f, &plans[level], &sx, &sy);
                cairo_pattern_destroy(cairo_pop_group(cr));
                if (d.drop_log == dropped) break;
            }
            d.measure = 0, d.trace = trace_to, d.axis_size = d.axis_need;
            if (round == 0) dr_title_choose(&d, h);
            else d.ptitle = d.tneed[tl - 1] > 0 ? d.tneed[tl - 1] : dr_least_size(&d, 21);
            if (d.tlines == tl && round == 0) break;
            d.tlines = round == 0 ? d.tlines : tl;
        }
        if (strip || !(d.strip_need > 0)) break;
        /* the strip on the right, or one under the grid where that takes the smaller share of
         * the page (stats at 800 x 450 font=2: its legend on the right left plots of 130
         * pixels of 800; under them it takes a tenth of the height) */
        if (d.below_need > 0 && d.below_need / (h - top - margin) < d.strip_need / (w - 2 * margin)) d.below = d.below_need;
        else d.strip = d.strip_need;
    }
    draw_panels(&d, f, &plans[level], &sx, &sy);
    d.panel = -1, d.role = BL_TEXT_OTHER;
    if (thin[0]) dr_text_fit(&d, w / 2, h - margin + 6 * u, thin, 15, 0, w - 2 * margin, d.th.text, 0);
    cairo_status_t st = cairo_status(cr);
    if (st) return bl_fail("draw: %s", cairo_status_to_string(st));
    return 0;
}
