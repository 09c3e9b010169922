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
 *   - a title is never smaller than 2/3 of its size (28 units for the figure's, 21 for a
 *     panel's, 18 for an axis label) nor than 8 pixels, unless its size was smaller than that:
 *     shrinking is the first resort, then the text is cut with an ellipsis. */
#ifndef BL_LAYOUT_CHECK_H
#define BL_LAYOUT_CHECK_H

#include "viz/draw.h"
#include <math.h>
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
        double nominal = (a->role == BL_TEXT_TITLE ? 28 : a->role == BL_TEXT_PANEL_TITLE ? 21 : 18) * u;
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

/* Whether axis 'x' or 'y' of lines panel r ends at the first labelled tick past the data
 * [dlo, dhi] at each end: a tick at or past each end of the data, no labelled tick beyond that
 * one, and the axis no more than its 5% margin (in log units on a log axis) past it. 0, or 1
 * with what is wrong in why (n bytes). */
static inline int layout_axis_fits(const bl_layout *L, const bl_axes_box *r, char axis, double dlo, double dhi,
                                   char *why, size_t n)
{
    double v[64];
    int k = layout_ticks(L, r, axis, v, 64);
    const bl_scale_range *s = axis == 'y' ? &r->yr : &r->xr;
#define AXPOS(x) (s->log ? (log10(x) - log10(s->lo)) / (log10(s->hi) - log10(s->lo)) : ((x) - s->lo) / (s->hi - s->lo))
    if (k < 2) return snprintf(why, n, "%c axis has %d tick labels", axis, k), 1;
    if (v[k - 1] < dhi * (1 - 1e-6) - 1e-9 || (k >= 2 && v[k - 2] >= dhi * (1 - 1e-6) - 1e-9) ||
        1 - AXPOS(v[k - 1]) > 0.05 + 1e-6)
        return snprintf(why, n, "%c axis %g .. %g (ticks %g .. %g, the last two %g %g) does not end at the first "
                        "labelled tick past the data's %g", axis, s->lo, s->hi, v[0], v[k - 1], v[k - 2], v[k - 1], dhi), 1;
    if (v[0] > dlo * (1 + 1e-6) + 1e-9 || v[1] <= dlo * (1 + 1e-6) + 1e-9 || AXPOS(v[0]) > 0.05 + 1e-6)
        return snprintf(why, n, "%c axis %g .. %g (ticks %g %g .. %g) does not start at the first labelled tick "
                        "below the data's %g", axis, s->lo, s->hi, v[0], v[1], v[k - 1], dlo), 1;
#undef AXPOS
    return 0;
}

#endif
