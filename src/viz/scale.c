/* scale.c - axis scales and nice ticks (see scale.h). */
#include "viz/scale.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void bl_scale_fit(bl_scale *s, double dlo, double dhi, int log, double margin)
{
    s->log = log;
    double a = log ? log10(dlo) : dlo, b = log ? log10(dhi) : dhi;
    if (b < a) { double t = a; a = b; b = t; }
    if (b - a < 1e-12 * fmax(1.0, fabs(a))) {
        double w = log ? 0.5 : (a == 0 ? 1.0 : fabs(a) * 0.1);
        a -= w;
        b += w;
    } else {
        double m = (b - a) * margin;
        a -= m;
        b += m;
    }
    s->lo = log ? pow(10, a) : a;
    s->hi = log ? pow(10, b) : b;
}

double bl_scale_pos(const bl_scale *s, double v)
{
    if (s->log) {
        if (!(v > 0)) return NAN;
        return (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    }
    return (v - s->lo) / (s->hi - s->lo);
}

/* Heckbert's nice number: 1, 2, 5 or 10 times a power of ten, near x (rounded or ceiling). */
static double nice_num(double x, int round_it)
{
    double e = floor(log10(x)), f = x / pow(10, e), nf;
    if (round_it) nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * pow(10, e);
}

/* the multiples of step inside [lo, hi] */
static int multiples(double lo, double hi, double step, double *t, int cap)
{
    int n = 0;
    double first = ceil(lo / step - 1e-9) * step;
    for (double v = first; v <= hi + step * 1e-9 && n < cap; v = first + n * step)
        t[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    return n;
}

static int linear_ticks(double lo, double hi, int max_ticks, double *t, int cap, double *step_out)
{
    if (max_ticks < 2) max_ticks = 2;
    if (cap >= 2 && max_ticks > cap) max_ticks = cap;   /* a step whose ticks all fit t: else they stop short of hi */
    double step = nice_num((hi - lo) / (max_ticks - 1), 0);
    int n = multiples(lo, hi, step, t, cap);
    if (n < 3 && max_ticks >= 3) { /* the ceiling step can leave one or two ticks: round it instead */
        double s2 = nice_num((hi - lo) / (max_ticks - 1), 1);
        if (s2 < step && multiples(lo, hi, s2, t, cap) <= max_ticks + 1) step = s2;
        n = multiples(lo, hi, step, t, cap);
    }
    if (step_out) *step_out = step;
    return n;
}

/* the values m[j] * 10^k inside [lo, hi] */
static int mantissa_ticks(const bl_scale *s, const double *m, int nm, double *t, int cap)
{
    int n = 0;
    for (int k = (int)floor(log10(s->lo)) - 1; k <= (int)ceil(log10(s->hi)) && n < cap; k++)
        for (int j = 0; j < nm && n < cap; j++) {
            double v = m[j] * pow(10, k);
            if (v >= s->lo * (1 - 1e-9) && v <= s->hi * (1 + 1e-9)) t[n++] = v;
        }
    return n;
}

static const double M1[] = {1}, M125[] = {1, 2, 5}, M19[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

/* The ticks of a log scale (see bl_scale_ticks); *mant / *nm get the mantissas of the ticks
 * (powers of ten: {1}; 1, 2, 5; 1..9) or NULL / 0 for linear ticks (*step > 0 then). */
static int log_ticks(const bl_scale *s, int max_ticks, double *t, int cap, double *step, const double **mant, int *nm)
{
    *step = 0;
    double a = log10(s->lo), b = log10(s->hi);
    int k0 = (int)ceil(a - 1e-9), k1 = (int)floor(b + 1e-9);
    int decades = k1 - k0 + 1, n = 0;
    if (decades >= 2) {
        /* every power of ten while they fit in max_ticks + 1 (as the 1..9 ticks below): 1 10 100
         * 1000 rather than 1 100 on an axis with room for about 3 */
        int every = 1;
        while ((decades - 1) / every + 1 > (max_ticks > 2 ? max_ticks : 2) + 1) every++;
        for (int k = k0; k <= k1 && n < cap; k++)
            if ((k - k0) % every == 0) t[n++] = pow(10, k);
        *mant = M1, *nm = 1;
        if (b - a >= 2 || n >= 3) return n;
    }
    /* a short range: mantissas 1, 2, 5, else 1..9; under a decade 1..9 first when they fit (as
     * matplotlib labels the minor ticks of a log axis spanning less than a decade) */
    int n9 = mantissa_ticks(s, M19, 9, t, cap);
    *mant = M19, *nm = 9;
    if (b - a < 1 - 1e-9 && n9 >= 3 && n9 <= max_ticks + 1) return n9;
    n = mantissa_ticks(s, M125, 3, t, cap);
    *mant = M125, *nm = 3;
    if (n >= 3) return n;
    n9 = mantissa_ticks(s, M19, 9, t, cap);
    *mant = M19, *nm = 9;
    if (n9 >= 3 && n9 <= max_ticks + 1) return n9;
    /* less than a factor of ~2: linear nice ticks, placed on the log scale */
    *mant = NULL, *nm = 0;
    return linear_ticks(s->lo, s->hi, max_ticks, t, cap, step);
}

int bl_scale_ticks(const bl_scale *s, int max_ticks, double *t, int cap, double *step)
{
    double st;
    const double *mant;
    int nm;
    if (!s->log) return linear_ticks(s->lo, s->hi, max_ticks, t, cap, step);
    int n = log_ticks(s, max_ticks, t, cap, &st, &mant, &nm);
    if (step) *step = st;
    return n;
}

/* The nearest tick value at or beyond v (dir +1: up, -1: down) among m x 10^k (m in mant[0..nm))
 * or, for linear ticks (nm 0), the multiples of step; 0 when there is none above 0. */
int bl_scale_whole_ticks(int count, double *t, int n, double *step)
{
    if (!count || *step >= 1) return n;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (t[i] == floor(t[i])) t[m++] = t[i];
    *step = 1;
    return m;
}

static double tick_beyond(double v, int dir, const double *mant, int nm, double step)
{
    if (!nm) {
        double k = dir > 0 ? ceil(v / step - 1e-9) : floor(v / step + 1e-9);
        return k * step;
    }
    double best = dir > 0 ? INFINITY : 0;
    int e = (int)floor(log10(v));
    for (int k = e - 1; k <= e + 1; k++)
        for (int j = 0; j < nm; j++) {
            double x = mant[j] * pow(10, k);
            if (dir > 0 && x >= v * (1 - 1e-9) && x < best) best = x;
            if (dir < 0 && x <= v * (1 + 1e-9) && x > best) best = x;
        }
    return best;
}

void bl_scale_cover(bl_scale *s, double dlo, double dhi, int max_ticks)
{
    if (!(dhi >= dlo) || !isfinite(dlo) || !isfinite(dhi) || (s->log && !(dlo > 0))) return;
    /* each round widens to the next tick of the ticks in use; a wider range can switch to
     * coarser ticks (1..9, then 1, 2, 5, then powers of ten; a larger linear step), so a few
     * rounds at most */
    for (int round = 0; round < 4; round++) {
        double t[64], step;
        const double *mant = NULL;
        int nm = 0, n = s->log ? log_ticks(s, max_ticks, t, 64, &step, &mant, &nm)
                               : linear_ticks(s->lo, s->hi, max_ticks, t, 64, &step);
        /* linear: a tick within 5% of a step of the data's end covers it, the data reaching a
         * few pixels past its grid line at most (rounding: the -3e-8 of a LayerNorm's mean 0
         * adds no tick at -2, nor a mean of -0.0403 one at -0.06 below the tick -0.04) */
        double tol = s->log ? 0 : step * 0.05;
        int top = n > 0 && t[n - 1] >= dhi * (1 - (s->log ? 1e-9 : 0)) - tol;
        int bottom = n > 0 && t[0] <= dlo * (1 + (s->log ? 1e-9 : 0)) + tol;
        if (top && bottom) return;
        double up = tick_beyond(dhi, 1, mant, nm, step), down = tick_beyond(dlo, -1, mant, nm, step);
        if (nm == 1 && n >= 2 && t[1] > t[0] * 10 * (1 + 1e-9)) {
            /* every k-th power of ten (a long range, thinned): the next of those, not the next
             * power, which would be left unlabelled */
            double r = log10(t[1] / t[0]);
            up = t[0] * pow(10, r * ceil(log10(dhi / t[0]) / r - 1e-9));
            down = t[0] * pow(10, r * floor(log10(dlo / t[0]) / r + 1e-9));
        }
        if (!top) s->hi = fmax(s->hi, up);
        double lo = bottom ? s->lo : down;
        if (lo > 0 || !s->log) s->lo = fmin(s->lo, lo);
    }
}

char *bl_tick_label(double v, double step, char *buf, size_t n)
{
    if (v == 0) {
        snprintf(buf, n, "0");
        return buf;
    }
    double av = fabs(v);
    if (step > 0 && av < 1e6 && step >= 1e-5) {
        int dec = (int)ceil(-log10(step) - 1e-9);
        if (dec < 0) dec = 0;
        snprintf(buf, n, "%.*f", dec, v);
        return buf;
    }
    double e = floor(log10(av) + 1e-9), mant = v / pow(10, e);
    if ((e >= 4 || e <= -4) && fabs(mant - round(mant)) < 1e-9) {
        snprintf(buf, n, "%de%d", (int)round(mant), (int)e);
        return buf;
    }
    snprintf(buf, n, "%.4g", v);
    return buf;
}

int bl_panel_data_range(const bl_panel *p, int axis_y, int skip_faint, double *lo, double *hi)
{
    int logv = axis_y ? p->logy : p->logx, any = 0;
    *lo = INFINITY, *hi = -INFINITY;
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        if (skip_faint && (se->flags & BL_FAINT)) continue;
        for (int i = 0; i < se->n; i++) {
            double x = se->x[i], y = se->y[i], v = axis_y ? y : x;
            if (!isfinite(x) || !isfinite(y) || (logv && v <= 0)) continue;
            if (axis_y && p->has_xlim && !(x >= p->xlim[0] && x <= p->xlim[1])) continue;  /* out of view */
            *lo = fmin(*lo, v), *hi = fmax(*hi, v), any = 1;
            /* a band's upper edge counts too */
            double v2 = se->y2 && axis_y ? se->y2[i] : v;
            if (isfinite(v2) && !(logv && v2 <= 0)) *lo = fmin(*lo, v2), *hi = fmax(*hi, v2);
        }
    }
    return any;
}

void bl_fig_shared_range(const bl_figure *f, int axis_y, int skip_faint, bl_range *r)
{
    r->has = 0;
    if (!(axis_y ? f->sharey : f->sharex)) return;
    for (int i = 0; i < f->rows * f->cols; i++) {
        double lo, hi;
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_LINES || !bl_panel_data_range(p, axis_y, skip_faint, &lo, &hi)) continue;
        if (!r->has || lo < r->lo) r->lo = lo;
        if (!r->has || hi > r->hi) r->hi = hi;
        r->has = 1;
    }
}

/* the most of an axis a tick past the data may leave empty at one end (bl_panel_scale) */
#define FIT_BAND 0.15

void bl_panel_scale(bl_scale *sc, const bl_panel *p, int axis_y, const bl_range *shared, int skip_faint,
                    double margin, int cover_ticks)
{
    int logv = axis_y ? p->logy : p->logx;
    if (axis_y ? p->has_ylim : p->has_xlim) {
        sc->log = logv;
        sc->lo = axis_y ? p->ylim[0] : p->xlim[0];
        sc->hi = axis_y ? p->ylim[1] : p->xlim[1];
        return;
    }
    double lo, hi;
    if (shared && shared->has) lo = shared->lo, hi = shared->hi;
    else if (!bl_panel_data_range(p, axis_y, skip_faint, &lo, &hi)) lo = logv ? 1 : 0, hi = logv ? 10 : 1;
    /* a y axis started at yfrom (rms and weights from 0): no margin below it */
    int from = axis_y && p->has_yfrom && !(logv && !(p->yfrom > 0)) && p->yfrom <= lo;
    if (from) lo = p->yfrom;
    bl_scale_fit(sc, lo, hi, logv, margin);
    if (from) sc->lo = lo;
    /* a linear x axis (steps, positions, tokens) keeps its margin: running 0 .. 63 on to the
     * next tick, 80, would leave a fifth of the width empty */
    if (cover_ticks > 0 && (logv || axis_y)) {
        /* an axis fits its data: an end the cover took more than FIT_BAND of the axis past the
         * data keeps its fit (a loss of 0.38 .. 1.34 on a log axis 0.2 .. 2 left 28% of the
         * plot empty below it) */
        bl_scale cov = *sc;
        bl_scale_cover(&cov, lo, hi, cover_ticks);
        if (bl_scale_pos(&cov, lo) <= FIT_BAND) sc->lo = cov.lo;
        if (1 - bl_scale_pos(&cov, hi) <= FIT_BAND) sc->hi = cov.hi;
    }
}

int bl_index_ticks(int n, int max_ticks, double *t, int cap, double *step)
{
    bl_scale s = {0, n > 1 ? n - 1 : 1, 0};
    int k = bl_scale_ticks(&s, max_ticks, t, cap, step), m = 0;
    if (*step < 1) { /* whole indices only */
        *step = 1;
        for (k = 0; k < n && k < cap; k++) t[k] = k;
    }
    for (int i = 0; i < k; i++)
        if (t[i] <= n - 1) t[m++] = t[i];
    return m;
}

int bl_legend_place(const bl_panel *p, const bl_scale *xs, const bl_scale *ys, double w, double h, double m,
                    double *x0, double *y0, bl_legend_cover *cover)
{
    /* column (0 left, 1 centre, 2 right) and row (0 lower, 1 centre, 2 upper) of each candidate */
    static const int spot[9][2] = { {2, 2}, {0, 2}, {0, 0}, {2, 0}, {2, 1}, {0, 1}, {1, 0}, {1, 2}, {1, 1} };
    double bx[9], by[9], c = m / 4;
    long bad[9] = {0}, badpt[9] = {0}, total = 0, points = 0;
    for (int k = 0; k < 9; k++) {
        bx[k] = spot[k][0] == 0 ? m : spot[k][0] == 2 ? 1 - m - w : 0.5 - w / 2;
        by[k] = spot[k][1] == 0 ? m : spot[k][1] == 2 ? 1 - m - h : 0.5 - h / 2;
    }
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        double lx = 0, ly = 0, ly2 = 0;
        int have = 0;
        if (se->flags & BL_BAND && se->y2) {
            /* a band (relative='s seed gap, lengen's standard error): its area, 8 x 8 samples
             * between two points, counts as data as a line's samples do (the legend sat on it) */
            for (int i = 0; i < se->n; i++) {
                double tx = bl_scale_pos(xs, se->x[i]), ty = bl_scale_pos(ys, se->y[i]), ty2 = bl_scale_pos(ys, se->y2[i]);
                if (!isfinite(tx) || !isfinite(ty) || !isfinite(ty2)) {
                    have = 0;
                    continue;
                }
                for (int j = have ? 1 : 8; j <= 8; j++) {
                    double f = j / 8.0, x = lx + (tx - lx) * f, y0 = ly + (ty - ly) * f, y1 = ly2 + (ty2 - ly2) * f;
                    if (!have) x = tx, y0 = ty, y1 = ty2;
                    for (int v = 0; v <= 8; v++) {
                        double y = y0 + (y1 - y0) * v / 8.0;
                        for (int k = 0; k < 9; k++) bad[k] += x >= bx[k] && x <= bx[k] + w && y >= by[k] && y <= by[k] + h;
                        total++;
                    }
                }
                lx = tx, ly = ty, ly2 = ty2, have = 1;
            }
            continue;
        }
        for (int i = 0; i < se->n; i++) {
            double tx = bl_scale_pos(xs, se->x[i]), ty = bl_scale_pos(ys, se->y[i]);
            if (!isfinite(tx) || !isfinite(ty)) {
                have = 0;
                continue;
            }
            /* 8 samples a segment, more on a long one (a spike of a third of the plot's height
             * passed a legend's corner between two samples), each counted within c of the box
             * (the line's width: stats' spikes touched its legend at 1600 x 900 font=2) */
            int steps = have && !(se->flags & BL_NO_LINE) ? (int)fmin(200, fmax(8, ceil(hypot(tx - lx, ty - ly) * 60))) : 1;
            for (int j = 1; j <= steps; j++) {
                double f = (double)j / steps, x = lx + (tx - lx) * f, y = ly + (ty - ly) * f;
                if (steps == 1) x = tx, y = ty;
                for (int k = 0; k < 9; k++) {
                    int in = x >= bx[k] - c && x <= bx[k] + w + c && y >= by[k] - c && y <= by[k] + h + c;
                    bad[k] += in;
                    badpt[k] += in && j == steps;   /* the point itself */
                }
            }
            total += steps, points++;
            lx = tx, ly = ty, have = 1;
        }
    }
    int best = 0;
    for (int k = 1; k < 9; k++)
        if (bad[k] < bad[best]) best = k;
    *x0 = bx[best], *y0 = by[best];
    if (cover) cover->samples = bad[best], cover->points = badpt[best], cover->total = total, cover->npoints = points;
    return best;
}

int bl_legend_best(const bl_panel *p, const bl_scale *xs, const bl_scale *ys, double w, double h, double m,
                   double *x0, double *y0)
{
    return bl_legend_place(p, xs, ys, w, h, m, x0, y0, NULL);
}

int bl_label_first(const char *const *labels, int n, int k)
{
    if (k < 1) k = 1;
    for (int i = 0; labels && i < n; i++)
        if (labels[i] && !strcmp(labels[i], "0")) return i % k;
    return n > 0 ? (n - 1) % k / 2 : 0;
}
