/* draw_axes.c - the axes of a lines panel: scales, ticks and their labels, grid, spines, axis
 * labels (see draw_int.h). */
#include "viz/draw_int.h"
#include "viz/color.h"
#include <math.h>
#include <string.h>

#define LOG_NOTE " (log scale)"

/* s without a trailing LOG_NOTE, in place */
static void drop_log_note(char *s)
{
    size_t n = strlen(s), k = strlen(LOG_NOTE);
    if (n >= k && !strcmp(s + n - k, LOG_NOTE)) s[n - k] = '\0';
}

/* Whether axis label s would be drawn smaller than the tick labels in room (its 18 units shrunk
 * below DR_TICK): then no axis label of the figure says LOG_NOTE (qk growth at 800 x 450 font=2
 * drew "max |logit| (log scale)" at 15 pixels beside ticks of 20, its x label without the note) */
static int note_shrinks(dctx *d, const char *s, double room)
{
    size_t n = strlen(s), k = strlen(LOG_NOTE);
    return n >= k && !strcmp(s + n - k, LOG_NOTE) && dr_fit_size(d, s, 18, 0, room) < DR_TICK - 1e-6;
}

void dr_axes_place(dctx *d, const bl_panel *p, box b, const bl_range *sx, const bl_range *sy, double right,
                        double below, lines_geom *g)
{
    double u = d->u;
    g->ylab[0] = g->xlab[0] = '\0';
    if (p->ylabel || p->logy)
        snprintf(g->ylab, sizeof g->ylab, "%s%s", p->ylabel ? p->ylabel : "y", p->logy ? LOG_NOTE : "");
    if (p->xlabel || p->logx)
        snprintf(g->xlab, sizeof g->xlab, "%s%s", p->xlabel ? p->xlabel : "x", p->logx ? LOG_NOTE : "");
    bl_lines_note(p, g->note, sizeof g->note);   /* under the x label: the points left out */
    double top = b.y + dr_title_top(d, p),
           bottom = b.y + b.h - 34 * u - (g->xlab[0] ? DR_XLAB_ROOM * u : 0) - (g->note[0] ? 24 * u : 0) - below;
    /* a y tick every 70 units or so; the y axis reaches to ticks past its data */
    int ymax_ticks = (int)fmax(3, (bottom - top) / (70 * u));
    bl_panel_scale(&g->ys, p, 1, sy, 0, 0.05, ymax_ticks);
    g->nyt = bl_scale_ticks(&g->ys, ymax_ticks, g->yt, MAX_TICKS, &g->ystep);
    dr_font(d, DR_TICK, 0, 0);
    double tickw = 0;
    for (int i = 0; i < g->nyt; i++) tickw = fmax(tickw, dr_text_w(d, bl_tick_label(g->yt[i], g->ystep, g->yl[i], 24)));
    double left = b.x + (g->ylab[0] ? 34 * u : 4 * u) + tickw + 12 * u, rx = b.x + b.w - 12 * u - right;
    g->a = (box){left, top, fmax(0, rx - left), fmax(0, bottom - top), left, fmax(left, rx)};
    /* an x tick every 130 units or so; a log x axis, too, reaches to ticks past its data */
    g->xmax_ticks = (int)fmax(2, g->a.w / (130 * u));
    bl_panel_scale(&g->xs, p, 0, sx, 0, 0.02, g->xmax_ticks);
}

/* The ticks of a lines panel's x axis, about one every 130 units (max_ticks); a linear axis with
 * fewer than 3 then takes a finer step while the labels fit side by side (as matplotlib's
 * MaxNLocator: 0 20 40 60 on a narrow axis of 64 tokens, not a lone 0). Font: the tick font. */
/* whether the labels of ticks t (n) on an axis aw wide run into each other (less than 10 units
 * apart); font: the tick font */
static int x_crowded(dctx *d, const bl_scale *xs, double aw, const double *t, int n, double step)
{
    double prev = 0, prevw = 0;
    for (int i = 0; i < n; i++) {
        char lab[24];
        double x = aw * bl_scale_pos(xs, t[i]), w = dr_text_w(d, bl_tick_label(t[i], step, lab, sizeof lab));
        if (i > 0 && x - prev < (w + prevw) / 2 + 10 * d->u) return 1;
        prev = x, prevw = w;
    }
    return 0;
}

static int x_ticks(dctx *d, const bl_scale *xs, double aw, int max_ticks, int count, double *t, double *step)
{
    int n = bl_scale_whole_ticks(count && !xs->log, t, bl_scale_ticks(xs, max_ticks, t, MAX_TICKS, step), step);
    /* labels that run into each other on a narrow axis ("1 10100" at 800 x 450 font=2): every
     * other one, the last kept, until they do not */
    while (n > 2 && x_crowded(d, xs, aw, t, n, *step)) {
        int m = 0;
        for (int i = (n - 1) % 2; i < n; i += 2) t[m++] = t[i];
        n = m;
    }
    if (xs->log || n >= 3) return n;
    for (int k = max_ticks + 1; k <= 16; k++) {
        double t2[MAX_TICKS], st2, prev = 0, prevw = 0;
        int n2 = bl_scale_ticks(xs, k, t2, MAX_TICKS, &st2), fits = 1;
        if (count && st2 < 1) break;    /* finer steps than 1 on a counting axis: none */
        if (n2 <= n) continue;
        for (int i = 0; i < n2 && fits; i++) {
            char lab[24];
            double x = aw * bl_scale_pos(xs, t2[i]), w = dr_text_w(d, bl_tick_label(t2[i], st2, lab, sizeof lab));
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

/* A label that would be cut in room even at its smallest loses its trailing parentheses, the
 * last first, while it still would be: " (log scale)" (the tick labels 1 10 100 say it), then a
 * unit: qk growth's "scale s of q, k" and rope table's "angle (radians)" whole at 800 x 450
 * font=2 rather than "angle (r..." */
static void label_trim(dctx *d, char *s, double room)
{
    dr_font(d, dr_least_size(d, 18), 0, 0);
    size_t len = strlen(s);
    while (len > 0 && s[len - 1] == ')' && dr_text_w(d, s) > room) {
        char *open = strrchr(s, '(');
        if (!open || open == s || open[-1] != ' ') return;
        len = (size_t)(open - s - 1), s[len] = '\0';
    }
}

/* Draw the axes of lines panel p laid out as gp in box b: grid, ticks and their labels, the
 * left and bottom spines, the axis labels and the note of points left out. */
void dr_axes_draw(dctx *d, const bl_panel *p, box b, const lines_geom *gp)
{
    double u = d->u;
    const lines_geom g = *gp;
    box a = g.a;
    const bl_scale xs = g.xs, ys = g.ys;
    /* grid and tick labels */
    dr_font(d, DR_TICK, 0, 0);
    d->role = BL_TEXT_TICK;
    for (int i = 0; i < g.nyt; i++) {
        double yy = a.y + a.h * (1 - bl_scale_pos(&ys, g.yt[i]));
        if (yy < a.y - 0.5 || yy > a.y + a.h + 0.5) continue;
        dr_line(d, a.x, yy, a.x + a.w, yy, C_GRID, 1);
        dr_line(d, a.x - 5 * u, yy, a.x, yy, C_SPINE, 1.2);
        dr_text(d, a.x - 9 * u, yy, g.yl[i], 1, C_TICK);
    }
    double xt[MAX_TICKS], xstep;
    int nxt = x_ticks(d, &xs, a.w, g.xmax_ticks, p->xcount, xt, &xstep);
    for (int i = 0; i < nxt; i++) {
        double xx = a.x + a.w * bl_scale_pos(&xs, xt[i]);
        if (xx < a.x - 0.5 || xx > a.x + a.w + 0.5) continue;
        char lab[24];
        dr_line(d, xx, a.y, xx, a.y + a.h, C_GRID, 1);
        dr_line(d, xx, a.y + a.h, xx, a.y + a.h + 5 * u, C_SPINE, 1.2);
        dr_text(d, xx, a.y + a.h + 19 * u, bl_tick_label(xt[i], xstep, lab, sizeof lab), 0.5, C_TICK);
    }
    /* spines: left and bottom */
    dr_line(d, a.x, a.y, a.x, a.y + a.h, C_SPINE, 1.2);
    dr_line(d, a.x, a.y + a.h, a.x + a.w, a.y + a.h, C_SPINE, 1.2);
    d->role = BL_TEXT_AXIS_LABEL;
    char xl[256], yl[256];
    double xroom = dr_room_at(b, a.x + a.w / 2);
    snprintf(xl, sizeof xl, "%s", g.xlab), snprintf(yl, sizeof yl, "%s", g.ylab);
    if (d->measure && (note_shrinks(d, xl, xroom) || note_shrinks(d, yl, a.h))) d->drop_log = 1;
    if (d->drop_log) drop_log_note(xl), drop_log_note(yl);
    label_trim(d, xl, xroom), label_trim(d, yl, a.h);
    if (xl[0]) dr_axis_label(d, a.x + a.w / 2, a.y + a.h + DR_XLAB_AT * u, xl, xroom, 0);
    if (yl[0]) dr_axis_label(d, b.x + 14 * u, a.y + a.h / 2, yl, a.h, 1);
    d->role = BL_TEXT_OTHER;
    if (g.note[0])
        dr_text_fit(d, a.x + a.w / 2, a.y + a.h + (g.xlab[0] ? DR_XLAB_AT + 24 : 44) * u, g.note, 15, 0, dr_room_at(b, a.x + a.w / 2), C_TEXT, 0);
}
