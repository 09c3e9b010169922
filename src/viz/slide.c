/* slide.c - the slide controls every picture takes: title, axis ranges, log y, legend, run
 * names, theme and font scale (see plot.h, bl_fig_slide). */
#include "viz/plot.h"
#include "viz/scale.h"
#include "core/error.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bl_panel_logy_auto(const bl_panel *p)
{
    double lo = INFINITY, hi = 0;
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        for (int i = 0; i < se->n; i++) {
            double y = se->y[i];
            if (!isfinite(y) || !isfinite(se->x[i])) continue;
            if (p->has_xlim && !(se->x[i] >= p->xlim[0] && se->x[i] <= p->xlim[1])) continue;
            if (y <= 0) return 0;
            lo = fmin(lo, y), hi = fmax(hi, y);
        }
    }
    return hi > 0 && hi > 10 * lo;
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* *s (malloc'ed, may be NULL) with each occurrence of `from` that stands as a word (no letter,
 * digit or _ either side) replaced by `to` (len bytes); 0 or -1 (out of memory) */
static int replace_word(char **s, const char *from, const char *to, size_t len)
{
    size_t fl = strlen(from);
    if (!*s || !fl) return 0;
    char *out = NULL;
    size_t n = 0, cap = 0;
    for (const char *c = *s;;) {
        const char *hit = strstr(c, from);
        while (hit && ((hit > *s && word_char(hit[-1])) || word_char(hit[fl]))) hit = strstr(hit + 1, from);
        size_t keep = hit ? (size_t)(hit - c) : strlen(c), need = n + keep + (hit ? len : 0) + 1;
        if (need > cap) {
            char *m = realloc(out, cap = 2 * need);
            if (!m) return free(out), bl_fail("plot: out of memory");
            out = m;
        }
        memcpy(out + n, c, keep), n += keep;
        if (!hit) break;
        memcpy(out + n, to, len), n += len;
        c = hit + fl;
    }
    out[n] = '\0';
    free(*s);
    *s = out;
    return 0;
}

/* The run names of labels (comma-separated) given to the legend's colours of p in order of first
 * appearance; each entry's label starts with its colour's first label, which the name replaces.
 * The figure's title (unless title= gave it: fig_title NULL) and p's title and axis labels name
 * the runs too ("Train loss minus cmp_baseline's"): there the colour's first label, or else the
 * run's name (that label up to " ("; "v1" of lengen's "v1 (pos=learned)"), standing as a word,
 * becomes the new name. */
static int rename_runs(bl_panel *p, const char *labels, char **fig_title)
{
    int colors[64], ncol = 0;
    const char *first[64];
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        if ((se->flags & (BL_NO_LEGEND | BL_GUIDE)) || !se->label[0]) continue;   /* runs only */
        int k = 0;
        while (k < ncol && colors[k] != se->color) k++;
        if (k == ncol && ncol < 64) colors[ncol] = se->color, first[ncol++] = se->label;
    }
    int n = 1;
    for (const char *c = labels; *c; c++) n += *c == ',';
    if (n != ncol) return bl_fail("plot: labels= has %d name%s for %d run%s", n, n == 1 ? "" : "s", ncol, ncol == 1 ? "" : "s");
    char *old[64];
    for (int k = 0; k < ncol; k++) old[k] = dup(first[k]);
    const char *c = labels;
    int rc = 0;
    for (int k = 0; k < ncol; k++) {
        size_t len = strcspn(c, ",");
        for (int s = 0; rc == 0 && s < p->nseries; s++) {
            bl_series *se = &p->series[s];
            size_t ol = old[k] ? strlen(old[k]) : 0;
            if (se->color != colors[k] || !old[k] || strncmp(se->label, old[k], ol)) continue;
            char *nl = malloc(len + strlen(se->label + ol) + 1);
            if (!nl) {
                rc = bl_fail("plot: out of memory");
                break;
            }
            memcpy(nl, c, len);
            strcpy(nl + len, se->label + ol);
            free(se->label);
            se->label = nl;
        }
        char **texts[4] = { fig_title, &p->title, &p->xlabel, &p->ylabel };
        for (int t = 0; rc == 0 && old[k] && t < 4; t++) {
            if (!texts[t] || !*texts[t]) continue;
            size_t nl = strcspn(old[k], "(");
            while (nl > 0 && old[k][nl - 1] == ' ') nl--;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)nl, old[k]);
            const char *from = strstr(*texts[t], old[k]) ? old[k] : name;
            rc = replace_word(texts[t], from, c, len);
        }
        c += len + (c[len] == ',');
    }
    for (int k = 0; k < ncol; k++) free(old[k]);
    return rc;
}

/* "LO:HI", "LO:" or ":HI" of a range given with has and v, into buf (for messages) */
static const char *range_str(const int has[2], const double v[2], char *buf, size_t n)
{
    char a[32] = "", b[32] = "";
    if (has[0]) snprintf(a, sizeof a, "%g", v[0]);
    if (has[1]) snprintf(b, sizeof b, "%g", v[1]);
    snprintf(buf, n, "%s:%s", a, b);
    return buf;
}

/* 0 when some finite point of p lies in the range given on the axis (has and v, an open end
 * unbounded; on y, among the points in view of x), else -1 and a one-line error naming where
 * the data runs: an axis range holding no data would draw an empty chart. */
static int range_holds_data(const bl_panel *p, int axis_y, const int has[2], const double v[2])
{
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        for (int i = 0; i < se->n; i++) {
            double x = se->x[i], y = se->y[i], w = axis_y ? y : x;
            if (!isfinite(x) || !isfinite(y)) continue;
            if (axis_y && p->has_xlim && !(x >= p->xlim[0] && x <= p->xlim[1])) continue;
            if ((!has[0] || w >= v[0]) && (!has[1] || w <= v[1])) return 0;
        }
    }
    double lo, hi;
    char r[80];
    range_str(has, v, r, sizeof r);
    if (!bl_panel_data_range(p, axis_y, 0, &lo, &hi)) return bl_fail("plot: %clim=%s: the picture has no data", axis_y ? 'y' : 'x', r);
    return bl_fail("plot: %clim=%s holds no data (%s runs %g .. %g%s)", axis_y ? 'y' : 'x', r, axis_y ? "y" : "x", lo, hi,
                   axis_y && p->has_xlim ? " in view" : "");
}

/* An open end of a range: the data's end on x; on y the data in view, with a 5% margin */
static void open_ends(const bl_panel *p, int axis_y, const int has[2], const double given[2], double out[2])
{
    double lo = 0, hi = 1;
    int logv = axis_y ? p->logy : p->logx;
    if (!bl_panel_data_range(p, axis_y, 0, &lo, &hi)) lo = logv ? 1 : 0, hi = logv ? 10 : 1;
    if (axis_y) {
        bl_scale s;
        bl_scale_fit(&s, lo, hi, logv, 0.05);
        lo = s.lo, hi = s.hi;
    }
    out[0] = has[0] ? given[0] : lo;
    out[1] = has[1] ? given[1] : hi;
}

int bl_fig_slide(bl_figure *f, const bl_slide *s)
{
    if (s->set_title) {
        char *t = s->title ? dup(s->title) : NULL;
        if (s->title && !t) return bl_fail("plot: out of memory");
        free(f->title);
        f->title = t;
    }
    if (s->theme) f->theme = s->theme;
    if (s->font > 0) f->font = s->font;
    if (s->legend == BL_LEGEND_OUTSIDE) f->legend = BL_LEGEND_OUTSIDE;
    int lines = 0, wants = s->has_x[0] || s->has_x[1] || s->has_y[0] || s->has_y[1] || s->logy || s->labels;
    for (int i = 0; i < f->rows * f->cols; i++) {
        bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_LINES) continue;
        lines++;
        if (s->has_x[0] || s->has_x[1]) {
            double r[2];
            if (range_holds_data(p, 0, s->has_x, s->x) < 0) return -1;
            open_ends(p, 0, s->has_x, s->x, r);
            if (!(r[0] < r[1])) return bl_fail("plot: xlim needs its low end below its high end, got %g:%g", r[0], r[1]);
            bl_panel_limits(p, 'x', r[0], r[1]);
        }
        int logy = s->logy == BL_LOGY_KEEP && f->logy_auto ? BL_LOGY_AUTO : s->logy;
        if (logy == BL_LOGY_ON || logy == BL_LOGY_OFF) p->logy = logy == BL_LOGY_ON;
        else if (logy == BL_LOGY_AUTO) p->logy = bl_panel_logy_auto(p);
        if (s->has_y[0] || s->has_y[1]) {
            double r[2], lo, hi;
            if (range_holds_data(p, 1, s->has_y, s->y) < 0) return -1;
            if (s->has_y[0] && !s->has_y[1] && !(bl_panel_data_range(p, 1, 0, &lo, &hi) && s->y[0] > lo)) {
                bl_panel_yfrom(p, s->y[0]);   /* ylim=0: starts at 0 (below the data), its top fitted */
            } else {
                open_ends(p, 1, s->has_y, s->y, r);
                if (!(r[0] < r[1])) return bl_fail("plot: ylim needs its low end below its high end, got %g:%g", r[0], r[1]);
                bl_panel_limits(p, 'y', r[0], r[1]);
            }
        }
        if (s->labels && rename_runs(p, s->labels, s->set_title || lines > 1 ? NULL : &f->title) < 0) return -1;   /* before legend=none hides them */
        if (s->legend == BL_LEGEND_OFF)
            for (int k = 0; k < p->nseries; k++) p->series[k].flags |= BL_NO_LEGEND;
    }
    if (wants && !lines)
        return bl_fail("plot: xlim=, ylim=, logy= and labels= are for pictures with axes; this one has none");
    return 0;
}
