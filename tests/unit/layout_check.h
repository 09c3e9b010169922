/* layout_check.h - checks of a drawn figure's layout (viz/draw.h bl_draw_trace), shared by the
 * picture tests: draw with a layout recorded, then layout_problems() says what is wrong.
 *
 *   static bl_layout lay;
 *   bl_draw_trace(&lay);  ... save a .png or .svg ...  bl_draw_trace(NULL);
 *   char why[512];
 *   CHECK(layout_problems(&lay, why, sizeof why) == 0, "%s", why);
 *
 * The rules (DESIGN.md section 8, pictures for slides at any size):
 *   - the figure's title, the panel titles and the axis labels lie inside the page;
 *   - none of them overlaps another of them;
 *   - the texts of one panel (titles, labels, ticks, legend) do not reach into the box of the
 *     texts of another panel;
 *   - a title is never smaller than 2/3 of its size (28 units for the figure's, 24 on a page
 *     less than 450 units high, 21 for a panel's, 18 for an axis label) nor than 8 pixels, unless its size was smaller than that:
 *     shrinking is the first resort, then the text is cut with an ellipsis. */
#ifndef BL_LAYOUT_CHECK_H
#define BL_LAYOUT_CHECK_H

#include "viz/draw.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int layout_is_title(const bl_text_box *t)
{
    return t->role == BL_TEXT_TITLE || t->role == BL_TEXT_PANEL_TITLE || t->role == BL_TEXT_AXIS_LABEL;
}

static const char *layout_role(int role)
{
    static const char *const names[] = { "title", "panel title", "axis label", "tick", "legend", "text" };
    return role >= 0 && role <= BL_TEXT_OTHER ? names[role] : "?";
}

/* a strict overlap of two boxes by more than `slack` page units each way */
static int layout_overlap(double ax0, double ay0, double ax1, double ay1, double bx0, double by0, double bx1,
                          double by1, double slack)
{
    return ax0 < bx1 - slack && bx0 < ax1 - slack && ay0 < by1 - slack && by0 < ay1 - slack;
}

/* The number of problems in the layout; the first few are described in why (n bytes). */
static int layout_problems(const bl_layout *L, char *why, size_t n)
{
    int bad = 0;
    size_t at = 0;
    why[0] = '\0';
#define LAYOUT_BAD(...)                                                                       \
    do {                                                                                      \
        if (bad++ < 4 && at < n) at += (size_t)snprintf(why + at, n - at, __VA_ARGS__);       \
    } while (0)
    if (L->ntext == 0) LAYOUT_BAD("nothing recorded; ");
    if (L->lost) LAYOUT_BAD("%d texts past the layout's room; ", L->lost);
    double u = L->u;
    for (int i = 0; i < L->ntext; i++) {
        const bl_text_box *a = &L->text[i];
        if (!layout_is_title(a)) continue;
        if (a->x0 < -0.5 || a->y0 < -0.5 || a->x1 > L->w + 0.5 || a->y1 > L->h + 0.5)
            LAYOUT_BAD("%s '%s' at x %.1f..%.1f y %.1f..%.1f leaves the %g x %g page; ", layout_role(a->role),
                       a->text, a->x0, a->x1, a->y0, a->y1, L->w, L->h);
        double nominal = (a->role == BL_TEXT_TITLE ? (L->h / u < 450 ? 24 : 28) : a->role == BL_TEXT_PANEL_TITLE ? 21 : 18) * u;
        double least = fmin(nominal, fmax(nominal * 2 / 3, 8));
        if (a->size < least - 1e-6)
            LAYOUT_BAD("%s '%s' is %.2f px, less than %.2f; ", layout_role(a->role), a->text, a->size, least);
        for (int j = i + 1; j < L->ntext; j++) {
            const bl_text_box *b = &L->text[j];
            if (!layout_is_title(b)) continue;
            if (layout_overlap(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0, b->x1, b->y1, 0.5))
                LAYOUT_BAD("%s '%s' overlaps %s '%s'; ", layout_role(a->role), a->text, layout_role(b->role), b->text);
        }
    }
    /* each panel's texts as one box: no two panels' boxes overlap */
    enum { NP = 64 };
    double bx0[NP], by0[NP], bx1[NP], by1[NP];
    int has[NP] = {0};
    for (int i = 0; i < L->ntext; i++) {
        const bl_text_box *a = &L->text[i];
        int p = a->panel;
        if (p < 0 || p >= NP) continue;
        if (!has[p]) bx0[p] = a->x0, by0[p] = a->y0, bx1[p] = a->x1, by1[p] = a->y1, has[p] = 1;
        bx0[p] = fmin(bx0[p], a->x0), by0[p] = fmin(by0[p], a->y0);
        bx1[p] = fmax(bx1[p], a->x1), by1[p] = fmax(by1[p], a->y1);
    }
    for (int p = 0; p < NP; p++)
        for (int q = p + 1; q < NP; q++)
            if (has[p] && has[q] && layout_overlap(bx0[p], by0[p], bx1[p], by1[p], bx0[q], by0[q], bx1[q], by1[q], 0.5))
                LAYOUT_BAD("the texts of panel %d (x %.1f..%.1f y %.1f..%.1f) reach into panel %d's (x %.1f..%.1f y "
                           "%.1f..%.1f); ", p, bx0[p], bx1[p], by0[p], by1[p], q, bx0[q], bx1[q], by0[q], by1[q]);
#undef LAYOUT_BAD
    return bad;
}

/* The recorded text of `role` in panel `panel` equal to s: how many. */
static inline int layout_count(const bl_layout *L, int role, int panel, const char *s)
{
    int k = 0;
    for (int i = 0; i < L->ntext; i++)
        k += L->text[i].role == role && L->text[i].panel == panel && !strcmp(L->text[i].text, s);
    return k;
}

/* ---- lines panels: legends and axes ---- */

/* The record of lines panel `panel`, or NULL. */
static inline const bl_axes_box *layout_axes(const bl_layout *L, int panel)
{
    for (int i = 0; i < L->naxes; i++)
        if (L->axes[i].panel == panel) return &L->axes[i];
    return NULL;
}

/* The drawn points of lines panel r under its legend's box, of r->npt. */
static inline int layout_legend_covers(const bl_layout *L, const bl_axes_box *r)
{
    int k = 0;
    for (int i = r->pt0; i < r->pt0 + r->npt && i < L->npt; i++)
        k += L->pt[i].x >= r->lx0 && L->pt[i].x <= r->lx1 && L->pt[i].y >= r->ly0 && L->pt[i].y <= r->ly1;
    return k;
}

/* The legend rules (at sizes that leave a legend room, 400 pixels wide and up): each lines
 * panel's legend box lies inside its panel; its text is at least the smallest a legend may
 * shrink to (2/3 of its 17 units, not below 8 pixels unless it was smaller than that); and at
 * most max_cover of the panel's drawn data points lie under it. The number of problems; the
 * first few are described in why (n bytes). */
static inline int layout_legend_problems(const bl_layout *L, double max_cover, char *why, size_t n)
{
    int bad = 0;
    size_t at = 0;
    why[0] = '\0';
#define LEGEND_BAD(...)                                                                       \
    do {                                                                                      \
        if (bad++ < 4 && at < n) at += (size_t)snprintf(why + at, n - at, __VA_ARGS__);       \
    } while (0)
    if (L->lost_pt) LEGEND_BAD("%d points past the layout's room; ", L->lost_pt);
    double nominal = 17 * L->u, least = fmin(nominal, fmax(nominal * 2 / 3, 8));
    for (int i = 0; i < L->naxes; i++) {
        const bl_axes_box *r = &L->axes[i];
        if (r->legend == BL_LEGEND_NONE) continue;
        if (r->lx0 < r->bx0 - 0.5 || r->ly0 < r->by0 - 0.5 || r->lx1 > r->bx1 + 0.5 || r->ly1 > r->by1 + 0.5)
            LEGEND_BAD("panel %d's legend (x %.1f..%.1f y %.1f..%.1f) leaves its panel (x %.1f..%.1f y %.1f..%.1f); ",
                       r->panel, r->lx0, r->lx1, r->ly0, r->ly1, r->bx0, r->bx1, r->by0, r->by1);
        if (r->lsize < least - 1e-6) LEGEND_BAD("panel %d's legend is %.2f px, less than %.2f; ", r->panel, r->lsize, least);
        for (int k = 0; k < L->ntext; k++) {
            const bl_text_box *t = &L->text[k];
            if (t->role == BL_TEXT_LEGEND && t->panel == r->panel && t->size < least - 1e-6)
                LEGEND_BAD("legend entry '%s' of panel %d is %.2f px, less than %.2f; ", t->text, r->panel, t->size, least);
        }
        int under = layout_legend_covers(L, r);
        if (under > max_cover * r->npt)
            LEGEND_BAD("panel %d's legend (%s, x %.1f..%.1f y %.1f..%.1f) covers %d of its %d points; ", r->panel,
                       r->legend == BL_LEGEND_INSIDE ? "inside" : r->legend == BL_LEGEND_RIGHT ? "right" : "below",
                       r->lx0, r->lx1, r->ly0, r->ly1, under, r->npt);
    }
#undef LEGEND_BAD
    return bad;
}

/* The values of the tick labels drawn on axis 'x' or 'y' of lines panel r, ascending (at most
 * cap). The y labels are those left of the plot area, the x labels those below it. */
static inline int layout_ticks(const bl_layout *L, const bl_axes_box *r, char axis, double *v, int cap)
{
    int k = 0;
    for (int i = 0; i < L->ntext && k < cap; i++) {
        const bl_text_box *t = &L->text[i];
        if (t->role != BL_TEXT_TICK || t->panel != r->panel) continue;
        double cx = (t->x0 + t->x1) / 2, cy = (t->y0 + t->y1) / 2;
        int on_y = t->x1 <= r->x0 + 0.5 && cy >= r->y0 - 1 && cy <= r->y1 + 1;
        int on_x = t->y0 >= r->y1 - 0.5 && cx >= r->x0 - 1 && cx <= r->x1 + 1;
        if (axis == 'y' ? on_y : on_x) v[k++] = strtod(t->text, NULL);
    }
    for (int i = 1; i < k; i++)   /* insertion sort */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1], v[j - 1] = x;
        }
    return k;
}

/* The nice tick next past v (dir +1 up, -1 down) for ticks of linear step `step`, or on a log
 * axis (step 0) of mantissas 1, 2, 5 */
static inline double layout_next_tick(double v, double step, int dir)
{
    if (step > 0) return (dir > 0 ? ceil(v / step - 1e-9) : floor(v / step + 1e-9)) * step;
    double e = floor(log10(v)), best = dir > 0 ? INFINITY : 0;
    for (int k = -1; k <= 1; k++)
        for (int m = 0; m < 3; m++) {
            double t = (m == 0 ? 1 : m == 1 ? 2 : 5) * pow(10, e + k);
            if (dir > 0 && t >= v * (1 - 1e-9)) best = fmin(best, t);
            if (dir < 0 && t <= v * (1 + 1e-9)) best = fmax(best, t);
        }
    return best;
}

/* Whether axis 'x' or 'y' of lines panel r fits the data [dlo, dhi] at each end: the axis ends
 * at the first labelled tick past the data (a tick at or past that end of the data, no labelled
 * tick beyond that one, and the axis no more than its 5% margin, in log units on a log axis,
 * past it); or, where that tick would leave more than 15% of the axis empty (an empty band on a
 * slide), the axis ends within 5% of the axis past the data. 0, or 1 with what is wrong in why
 * (n bytes). */
static inline int layout_axis_fits(const bl_layout *L, const bl_axes_box *r, char axis, double dlo, double dhi,
                                   char *why, size_t n)
{
    double v[64];
    int k = layout_ticks(L, r, axis, v, 64);
    const bl_scale_range *s = axis == 'y' ? &r->yr : &r->xr;
#define AXPOS(x) (s->log ? (log10(x) - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) : ((x) - s->lo) / (s->hi - s->lo))
#define LPOS(x, lo, hi) (s->log ? (log10(x) - log10(lo)) / (log10(hi) - log10(lo)) : ((x) - (lo)) / ((hi) - (lo)))
    if (k < 2) return snprintf(why, n, "%c axis has %d tick labels", axis, k), 1;
    double step = s->log ? 0 : v[1] - v[0], up = layout_next_tick(dhi, step, 1), down = layout_next_tick(dlo, step, -1);
    int band_hi = 1 - LPOS(dhi, s->lo, up) > 0.15, band_lo = LPOS(dlo, down, s->hi) > 0.15;
    int fit_hi = band_hi && 1 - AXPOS(dhi) <= 0.05 + 1e-6 && s->hi >= dhi * (1 - 1e-6) - 1e-9;
    int fit_lo = band_lo && AXPOS(dlo) <= 0.05 + 1e-6 && s->lo <= dlo * (1 + 1e-6) + 1e-9;
    if (!fit_hi && (v[k - 1] < dhi * (1 - 1e-6) - 1e-9 || (k >= 2 && v[k - 2] >= dhi * (1 - 1e-6) - 1e-9) ||
                    1 - AXPOS(v[k - 1]) > 0.05 + 1e-6))
        return snprintf(why, n, "%c axis %g .. %g (ticks %g .. %g, the last two %g %g) does not end at the first "
                        "labelled tick past the data's %g", axis, s->lo, s->hi, v[0], v[k - 1], v[k - 2], v[k - 1], dhi), 1;
    if (!fit_lo && (v[0] > dlo * (1 + 1e-6) + 1e-9 || v[1] <= dlo * (1 + 1e-6) + 1e-9 || AXPOS(v[0]) > 0.05 + 1e-6))
        return snprintf(why, n, "%c axis %g .. %g (ticks %g %g .. %g) does not start at the first labelled tick "
                        "below the data's %g", axis, s->lo, s->hi, v[0], v[1], v[k - 1], dlo), 1;
#undef LPOS
#undef AXPOS
    return 0;
}

/* The data rule of slides: in each lines panel whose y range is fitted to its data (not fixed
 * by ylim= or started at 0), the drawn points span at least min_span of the plot area's height
 * (no empty band above or below the data). The number of problems; the first few in why. */
static inline int layout_data_span_problems(const bl_layout *L, double min_span, char *why, size_t n)
{
    int bad = 0;
    size_t at = 0;
    why[0] = '\0';
    for (int i = 0; i < L->naxes; i++) {
        const bl_axes_box *r = &L->axes[i];
        if (r->yfixed || r->npt < 2) continue;
        double lo = INFINITY, hi = -INFINITY;
        for (int k = r->pt0; k < r->pt0 + r->npt && k < L->npt; k++) lo = fmin(lo, L->pt[k].y), hi = fmax(hi, L->pt[k].y);
        if (hi - lo < 1e-9) continue;   /* a flat line: nothing to span */
        double span = (hi - lo) / (r->y1 - r->y0);
        if (span < min_span && bad++ < 4 && at < n)
            at += (size_t)snprintf(why + at, n - at, "panel %d's data spans %.0f%% of its plot's height (y %.1f..%.1f of "
                                   "%.1f..%.1f, axis %g .. %g%s); ", r->panel, 100 * span, lo, hi, r->y0, r->y1, r->yr.lo,
                                   r->yr.hi, r->yr.log ? " log" : "");
    }
    return bad;
}

/* ---- heatmaps, colour bars, images: maps kept square and readable ---- */

/* The rules of pictures of maps (attn, heatmap, rope) at every size: each map of a square
 * R x R heatmap has square cells and is at least min_side page units a side; maps, colour bars
 * and images lie inside the page, and so does every text (tick labels and notes too: nothing
 * clipped); no two tick labels of one panel overlap (a colour bar's "0.15" over its "0.05"), and
 * no tick label lies on a map or colour bar. The number of problems; the first few in why. */
static inline int layout_map_problems(const bl_layout *L, double min_side, char *why, size_t n)
{
    int bad = 0;
    size_t at = 0;
    why[0] = '\0';
#define MAP_BAD(...)                                                                          \
    do {                                                                                      \
        if (bad++ < 4 && at < n) at += (size_t)snprintf(why + at, n - at, __VA_ARGS__);       \
    } while (0)
    for (int i = 0; i < L->nblock; i++) {
        const bl_block_box *b = &L->block[i];
        const char *kind = b->kind == BL_BLOCK_MAP ? "map" : b->kind == BL_BLOCK_BAR ? "colour bar" : b->kind == BL_BLOCK_MARK ? "mark" : "image";
        if (b->x0 < -0.5 || b->y0 < -0.5 || b->x1 > L->w + 0.5 || b->y1 > L->h + 0.5)
            MAP_BAD("panel %d's %s (x %.1f..%.1f y %.1f..%.1f) leaves the page; ", b->panel, kind, b->x0, b->x1, b->y0, b->y1);
        if (b->kind != BL_BLOCK_MAP) continue;
        double w = b->x1 - b->x0, h = b->y1 - b->y0;
        if (b->rows == b->cols && fabs(w - h) > 1)
            MAP_BAD("panel %d's %d x %d map is %.1f x %.1f, not square; ", b->panel, b->rows, b->cols, w, h);
        if (fmin(w, h) < min_side)
            MAP_BAD("panel %d's map is %.1f x %.1f, less than %.1f a side; ", b->panel, w, h, min_side);
    }
    for (int i = 0; i < L->ntext; i++) {
        const bl_text_box *a = &L->text[i];
        if (a->x0 < -0.5 || a->y0 < -0.5 || a->x1 > L->w + 0.5 || a->y1 > L->h + 0.5)
            MAP_BAD("%s '%s' (x %.1f..%.1f y %.1f..%.1f) leaves the page; ", layout_role(a->role), a->text, a->x0, a->x1,
                    a->y0, a->y1);
        if (a->role != BL_TEXT_TICK) continue;
        for (int j = i + 1; j < L->ntext; j++) {
            const bl_text_box *b = &L->text[j];
            if (b->role == BL_TEXT_TICK && b->panel == a->panel &&
                layout_overlap(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0, b->x1, b->y1, 0.5))
                MAP_BAD("panel %d's tick labels '%s' (y %.1f..%.1f) and '%s' (y %.1f..%.1f) overlap; ", a->panel, a->text,
                        a->y0, a->y1, b->text, b->y0, b->y1);
        }
        for (int k = 0; k < L->nblock; k++) {
            const bl_block_box *b = &L->block[k];
            if (b->kind != BL_BLOCK_IMAGE && b->kind != BL_BLOCK_MARK && layout_overlap(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0, b->x1, b->y1, 0.5))
                MAP_BAD("tick label '%s' of panel %d lies on panel %d's %s; ", a->text, a->panel, b->panel,
                        b->kind == BL_BLOCK_MAP ? "map" : "colour bar");
        }
    }
#undef MAP_BAD
    return bad;
}

/* The images drawn with an overlay (attn query=: a head's weights over the patch grid laid over
 * the image): each image's overlay cells square (to a page unit) and the overlay as large as
 * the image (the map at the image's own scale); right of each a colour bar that spans it: its
 * panel's own, as tall as the image, or the figure's one bar (overlays of one range), right of
 * the whole grid; on each, the marked cell (row, col) outlined exactly over that cell of the
 * grid. The number of problems (0 images with an overlay is one); the first few in why. */
static inline int layout_overlay_problems(const bl_layout *L, int row, int col, char *why, size_t n)
{
    int bad = 0, seen = 0;
    size_t at = 0;
    why[0] = '\0';
#define OV_BAD(...)                                                                           \
    do {                                                                                      \
        if (bad++ < 4 && at < n) at += (size_t)snprintf(why + at, n - at, __VA_ARGS__);       \
    } while (0)
    for (int i = 0; i < L->nblock; i++) {
        const bl_block_box *im = &L->block[i];
        if (im->kind != BL_BLOCK_IMAGE || im->rows < 1) continue;
        seen++;
        double cw = (im->x1 - im->x0) / im->cols, ch = (im->y1 - im->y0) / im->rows;
        if (fabs(cw - ch) > 1) OV_BAD("panel %d's overlay cells are %.2f x %.2f, not square; ", im->panel, cw, ch);
        const bl_block_box *bar = NULL, *mark = NULL;
        int spans = 0;
        for (int k = 0; k < L->nblock; k++) {
            const bl_block_box *b = &L->block[k];
            if (b->kind == BL_BLOCK_BAR && b->x0 >= im->x1 && b->y0 <= im->y0 + 1 && b->y1 >= im->y1 - 1) spans = 1;
            if (b->panel != im->panel) continue;
            if (b->kind == BL_BLOCK_BAR) bar = b;
            if (b->kind == BL_BLOCK_MARK && b->x0 >= im->x0 - 0.5 && b->x1 <= im->x1 + 0.5 && b->y0 >= im->y0 - 0.5 &&
                b->y1 <= im->y1 + 0.5)
                mark = b;
        }
        if (bar ? bar->x0 < im->x1 || (fabs((bar->y1 - bar->y0) - (im->y1 - im->y0)) > 1 && !spans) : !spans)
            OV_BAD("panel %d: no colour bar right of its image and as tall, nor one spanning it; ", im->panel);
        if (!mark)
            OV_BAD("panel %d: the query cell is not outlined on its image; ", im->panel);
        else if (fabs(mark->x0 - (im->x0 + col * cw)) > 0.5 || fabs(mark->y0 - (im->y0 + row * ch)) > 0.5 ||
                 fabs(mark->x1 - mark->x0 - cw) > 0.5 || fabs(mark->y1 - mark->y0 - ch) > 0.5)
            OV_BAD("panel %d: the outline (x %.1f..%.1f y %.1f..%.1f) is not cell (%d, %d) of the image's grid; ", im->panel,
                   mark->x0, mark->x1, mark->y0, mark->y1, row, col);
    }
    if (!seen) OV_BAD("no image with an overlay; ");
#undef OV_BAD
    return bad;
}

/* The tallest band across the page, below the figure's title, with nothing drawn in it (no
 * text, map, colour bar, image or plot area), the one down to the page's bottom included, as
 * a fraction of the page's height. */
static inline double layout_empty_band(const bl_layout *L)
{
    enum { CAP = BL_LAYOUT_MAX_TEXT + BL_LAYOUT_MAX_BLOCKS + BL_LAYOUT_MAX_AXES };
    static double y0[CAP], y1[CAP];
    int k = 0;
    double from = 0;
    for (int i = 0; i < L->ntext; i++) {
        if (L->text[i].role == BL_TEXT_TITLE && L->text[i].panel < 0) {
            from = fmax(from, L->text[i].y1);
            continue;
        }
        y0[k] = L->text[i].y0, y1[k++] = L->text[i].y1;
    }
    for (int i = 0; i < L->nblock; i++) y0[k] = L->block[i].y0, y1[k++] = L->block[i].y1;
    for (int i = 0; i < L->naxes; i++) y0[k] = L->axes[i].y0, y1[k++] = L->axes[i].y1;
    for (int i = 1; i < k; i++)   /* insertion sort by the top */
        for (int j = i; j > 0 && y0[j - 1] > y0[j]; j--) {
            double t = y0[j];
            y0[j] = y0[j - 1], y0[j - 1] = t, t = y1[j], y1[j] = y1[j - 1], y1[j - 1] = t;
        }
    double band = 0, reach = from;
    for (int i = 0; i < k; i++) {
        if (y1[i] <= from) continue;
        band = fmax(band, y0[i] - reach);
        reach = fmax(reach, y1[i]);
    }
    band = fmax(band, L->h - reach);
    return band / L->h;
}

/* Series of one lines panel drawn over each other (at least 80% of their points, of the same
 * index, within 1.5 page units) in the same style, so that one hides the other: how many pairs;
 * the first few in why. A style is the colour and the dash pattern; coinciding series must
 * differ in the pattern (colour alone does not show a line under another). */
static inline int layout_hidden_series(const bl_layout *L, char *why, size_t n)
{
    int bad = 0;
    size_t at = 0;
    why[0] = '\0';
    for (int a = 0; a < L->nseries; a++)
        for (int b = a + 1; b < L->nseries; b++) {
            const bl_series_style *sa = &L->series[a], *sb = &L->series[b];
            if (sa->panel != sb->panel || sa->dash < 0 || sb->dash < 0 || sa->dash != sb->dash) continue;
            static int ia[BL_LAYOUT_MAX_POINTS], ib[BL_LAYOUT_MAX_POINTS];
            int na = 0, nb = 0, near = 0;
            for (int i = 0; i < L->npt; i++) {
                const bl_layout_point *p = &L->pt[i];
                if (p->panel != sa->panel) continue;
                if (p->series == sa->series) ia[na++] = i;
                if (p->series == sb->series) ib[nb++] = i;
            }
            if (na == 0 || na != nb) continue;
            for (int i = 0; i < na; i++) near += hypot(L->pt[ia[i]].x - L->pt[ib[i]].x, L->pt[ia[i]].y - L->pt[ib[i]].y) <= 1.5;
            if (near >= 0.8 * na) {
                if (bad++ < 4 && at < n)
                    at += (size_t)snprintf(why + at, n - at, "panel %d: series %d and %d coincide at %d of %d points, both "
                                           "dash %d; ", sa->panel, sa->series, sb->series, near, na, sa->dash);
            }
        }
    return bad;
}

/* The grid of the images drawn (BL_BLOCK_IMAGE): how many distinct left edges (columns) and top
 * edges (rows), to a page unit; the number of images. */
static inline int layout_image_grid(const bl_layout *L, int *cols, int *rows)
{
    double xs[BL_LAYOUT_MAX_BLOCKS], ys[BL_LAYOUT_MAX_BLOCKS];
    int n = 0;
    *cols = *rows = 0;
    for (int b = 0; b < L->nblock; b++) {
        if (L->block[b].kind != BL_BLOCK_IMAGE) continue;
        int newx = 1, newy = 1;
        for (int k = 0; k < n; k++) newx &= fabs(xs[k] - L->block[b].x0) > 1, newy &= fabs(ys[k] - L->block[b].y0) > 1;
        xs[n] = L->block[b].x0, ys[n] = L->block[b].y0, n++;
        *cols += newx, *rows += newy;
    }
    return n;
}

/* The smallest font size (pixels) of the texts of `role` (BL_TEXT_*) drawn, INFINITY when none;
 * *which gets one of the smallest (may be NULL). */
static inline double layout_least_size(const bl_layout *L, int role, const char **which)
{
    double least = INFINITY;
    for (int i = 0; i < L->ntext; i++)
        if (L->text[i].role == role && L->text[i].size < least) {
            least = L->text[i].size;
            if (which) *which = L->text[i].text;
        }
    return least;
}

/* ---- slides: nothing cut, no plot squeezed ---- */

/* The problems a check found: how many, the first few described in s (n bytes) */
typedef struct {
    char *s;
    size_t n, at;
    int bad;
} layout_why;

static inline layout_why layout_why_in(char *why, size_t n)
{
    why[0] = '\0';
    return (layout_why){why, n, 0, 0};
}

/* one problem more, described (printf's fmt) while there are fewer than 4 */
static inline void layout_say(layout_why *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (w->bad++ < 4 && w->at < w->n) w->at += (size_t)vsnprintf(w->s + w->at, w->n - w->at, fmt, ap);
    va_end(ap);
}

/* Texts drawn cut with an ellipsis (fit()'s last resort: "angle (r\xe2\x80\xa6" at 800 x 450 font=2), of
 * any role (titles, labels, legends, notes): how many; the first few in why. */
static inline int layout_cut_texts(const bl_layout *L, char *why, size_t n)
{
    layout_why w = layout_why_in(why, n);
    for (int i = 0; i < L->ntext; i++)
        if (strstr(L->text[i].text, "\xe2\x80\xa6")) layout_say(&w, "%s '%s' cut; ", layout_role(L->text[i].role), L->text[i].text);
    return w.bad;
}

/* Plot areas squeezed by what is around them (two-line titles left rope table's angle plot 86
 * of 450 pixels at 800 x 450 font=2): each lines panel's plot area at least min_frac of the
 * page's height. The number of problems; the first few in why. */
static inline int layout_squeezed(const bl_layout *L, double min_frac, char *why, size_t n)
{
    layout_why w = layout_why_in(why, n);
    for (int i = 0; i < L->naxes; i++) {
        const bl_axes_box *r = &L->axes[i];
        double h = r->y1 - r->y0;
        if (h < min_frac * L->h) layout_say(&w, "panel %d's plot is %.0f px high, %.0f%% of the page; ", r->panel, h, 100 * h / L->h);
    }
    return w.bad;
}

#endif
