/* draw_text.c - text layout of a drawn figure: fonts, titles and labels fitted to their room,
 * turned text, and text panels (see draw_int.h). Text uses cairo's toy API with "DejaVu Sans"
 * (fontconfig). */
#include "viz/draw_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void dr_font(dctx *d, double size, int bold, int mono)
{
    cairo_select_font_face(d->cr, mono ? "DejaVu Sans Mono" : "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(d->cr, size * d->u);
    d->fsize = size * d->u;
}

double dr_text_w(dctx *d, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(d->cr, s, &e);
    return e.x_advance;
}

/* text at (x, y): ax 0/0.5/1 = left/centre/right of x; y is the vertical middle of the text */
void dr_text(dctx *d, double x, double y, const char *s, double ax, uint32_t color)
{
    if (!s[0]) return;
    cairo_font_extents_t fe;
    cairo_font_extents(d->cr, &fe);
    dr_rgb(d->cr, color, 1);
    double tw = dr_text_w(d, s), bx = x - ax * tw, by = y + (fe.ascent - fe.descent) / 2;
    dr_record_text(d, bx, by, s, tw, &fe);
    cairo_move_to(d->cr, bx, by);
    cairo_show_text(d->cr, s);
}

void dr_text_vertical(dctx *d, double x, double y, const char *s, uint32_t color)
{
    cairo_save(d->cr);
    cairo_translate(d->cr, x, y);
    cairo_rotate(d->cr, -M_PI / 2);
    dr_text(d, 0, 0, s, 0.5, color);
    cairo_restore(d->cr);
}

/* ---- titles and labels that must fit ---- */


/* The smallest a text of `size` units may shrink to, in units: FIT_SHRINK of it, not below
 * FIT_MIN_PX pixels, unless it was smaller than that to begin with. The one limit of every text
 * that shrinks to fit (titles, labels, notes: fit(); legends: legend_size()). */
double dr_least_size(const dctx *d, double size)
{
    return fmin(size, fmax(size * FIT_SHRINK, FIT_MIN_PX / d->u));
}

double dr_tick_least(const dctx *d)
{
    return fmin(DR_TICK, FIT_MIN_PX * d->fontk / d->u);
}

/* The one rule for every title and label that has a width to fit in (the figure's title, panel
 * titles, axis labels, notes): at its size when it fits; else the font shrinks until it fits,
 * down to FIT_SHRINK of its size and not below FIT_MIN_PX; else, at that smallest size, it is
 * cut after a character and ends with an ellipsis "…" (a slide title loses its end, never
 * its start nor its middle). Sets the font (size in units, as dr_font()) and leaves the text to
 * draw in buf (n bytes): s, or its cut, or "" when not even the ellipsis fits. Returns buf. */
static const char *fit_to(dctx *d, const char *s, double size, double least, int bold, double maxw, char *buf,
                          size_t n)
{
    snprintf(buf, n, "%s", s);
    dr_font(d, size, bold, 0);
    double tw = dr_text_w(d, buf);
    if (tw <= maxw) return buf;
    double sz = size;
    /* widths go with the size, nearly (hinting): aim at the size that fits, then step down */
    if (maxw > 0) sz = fmax(least, size * maxw / tw);
    else sz = least;
    for (int i = 0; i < 32; i++) {
        dr_font(d, sz, bold, 0);
        if (dr_text_w(d, buf) <= maxw || sz <= least) break;
        sz = fmax(least, sz * 0.97);
    }
    if (dr_text_w(d, buf) <= maxw) return buf;
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
        if (k > 0 && dr_text_w(d, cut) <= maxw) break;
    }
    if (len == 0) snprintf(cut, len + sizeof ell, "%s", dr_text_w(d, ell) <= maxw ? ell : "");
    snprintf(buf, n, "%s", cut);
    free(cut);
    return buf;
}

static const char *fit(dctx *d, const char *s, double size, int bold, double maxw, char *buf, size_t n)
{
    return fit_to(d, s, size, dr_least_size(d, size), bold, maxw, buf, n);
}

/* The size (units) fit() draws s at in maxw: size when it fits, else the size that fits, not
 * below dr_least_size(size). Sets the font. */
double dr_fit_size(dctx *d, const char *s, double size, int bold, double maxw)
{
    char buf[512];
    fit(d, s, size, bold, maxw, buf, sizeof buf);
    return d->fsize / d->u;
}

/* s centred on (x, y) at exactly `size` units, cut (as fit() cuts) when it is wider than maxw:
 * the lines of one title, and the panel titles of one figure, share one size */
void dr_text_at(dctx *d, double x, double y, const char *s, double size, int bold, double maxw, uint32_t color)
{
    char buf[512];
    fit_to(d, s, size, size, bold, maxw, buf, sizeof buf);
    dr_text(d, x, y, buf, 0.5, color);
}

/* s centred on (x, y), horizontal or turned upwards, fitted to maxw units by fit() */
void dr_text_fit(dctx *d, double x, double y, const char *s, double size, int bold, double maxw, uint32_t color,
                     int vertical)
{
    char buf[512];
    fit(d, s, size, bold, maxw, buf, sizeof buf);
    if (vertical) dr_text_vertical(d, x, y, buf, color);
    else dr_text(d, x, y, buf, 0.5, color);
}

void dr_axis_label(dctx *d, double x, double y, const char *s, double maxw, int vertical)
{
    if (d->measure) d->axis_need = fmin(d->axis_need, dr_fit_size(d, s, 18, 0, maxw));
    char buf[512];   /* shrunk, where it must, no further than 18 units' least */
    fit_to(d, s, d->axis_size > 0 ? d->axis_size : 18, dr_least_size(d, 18), 0, maxw, buf, sizeof buf);
    if (vertical) dr_text_vertical(d, x, y, buf, C_TEXT);
    else dr_text(d, x, y, buf, 0.5, C_TEXT);
}

/* the width of a text centred on x that stays within [b.tx0, b.tx1] */
double dr_room_at(box b, double x)
{
    return fmax(0, 2 * fmin(x - b.tx0, b.tx1 - x));
}

/* ---- panel titles: one size for all, wrapped when a line would be too small ---- */

/* the distance (page units) of a panel title's lines: DR_TITLE_LH units, or more where the
 * font's height at 21 units (hinted, and at least FIT_MIN_PX) is more, on a small page */
static double title_lh(dctx *d)
{
    cairo_font_extents_t fe;
    double keep = d->fsize;
    cairo_save(d->cr);   /* the font set now stays */
    dr_font(d, fmax(21, FIT_MIN_PX / d->u), 1, 0);
    cairo_font_extents(d->cr, &fe);
    cairo_restore(d->cr);
    d->fsize = keep;
    return fmax(DR_TITLE_LH * d->u, fe.ascent + fe.descent + 1);
}

double dr_title_top(dctx *d, const bl_panel *p)
{
    int k = d->tlines > 1 ? d->tlines : 1;
    if (!p->title) return 10 * d->u;
    return 40 * d->u + (k > 1 ? (k - 1) * title_lh(d) : 0);
}

/* s wrapped at spaces onto lines of at most maxw page units in the font set (greedy: each line
 * takes the words that fit; a word wider than maxw takes a line alone), at most maxl lines into
 * line[] (n bytes each; the last takes the rest, cut when drawn). Returns the lines it needs,
 * maxl + 1 or more when it does not fit in maxl (a word wider than maxw never fits). */
/* whether a title may break at s[i]: a space outside brackets ("cos [64, 32]" wrapped to
 * "cos [64," / "32]" at 800 x 450 font=2: a shape is one word) */
static int title_break(const char *s, size_t i)
{
    if (s[i] != ' ') return 0;
    int depth = 0;
    for (size_t j = 0; j < i; j++) depth += (s[j] == '[' || s[j] == '(' || s[j] == '{') - (s[j] == ']' || s[j] == ')' || s[j] == '}');
    return depth <= 0;
}

static int wrap_title(dctx *d, const char *s, double maxw, int maxl, char (*line)[256], size_t n)
{
    int k = 0, wide = 0;
    for (int i = 0; i < maxl; i++) line[i][0] = '\0';   /* lines it does not fill are empty */
    while (*s == ' ') s++;
    while (*s) {
        size_t len = strlen(s), end = 0;
        char buf[256];
        for (size_t i = 1; i <= len && i < sizeof buf; i++) {   /* the most words that fit */
            if (i < len && !title_break(s, i)) continue;
            memcpy(buf, s, i), buf[i] = 0;
            if (dr_text_w(d, buf) > maxw) break;
            end = i;
        }
        if (!end) {   /* a word wider than the line: alone on it */
            wide = 1;
            while (end < len && !title_break(s, end)) end++;
        }
        if (k < maxl) snprintf(line[k], n, "%.*s", (int)(k == maxl - 1 ? len : end), s);
        k++;
        s += end;
        while (*s == ' ') s++;
    }
    if (!k) snprintf(line[k++], n, "%s", "");
    return wide && k <= maxl ? maxl + 1 : k;
}

/* the largest size (units, 21 down to its least) at which s fits in `lines` lines of maxw */
static double title_size(dctx *d, const char *s, double maxw, int lines)
{
    char l[DR_TITLE_LINES][256];
    double least = dr_least_size(d, 21);
    for (double sz = 21;; sz = fmax(least, sz * 0.97)) {
        dr_font(d, sz, 1, 0);
        if (wrap_title(d, s, maxw, lines, l, sizeof l[0]) <= lines) return sz;
        if (sz <= least) return 0;
    }
}

/* the room of a panel title centred on cx in b, DR_TITLE_SEP clear of its neighbours' */
static double title_room(dctx *d, box b, double cx)
{
    return fmax(0, dr_room_at(b, cx) - (DR_TITLE_SEP - 12) * d->u);
}

int dr_title_cut(dctx *d, const char *s, double room)
{
    if (!s || !s[0]) return 0;
    return title_size(d, s, fmax(0, room - (DR_TITLE_SEP - 12) * d->u), DR_TITLE_LINES) <= 0;
}

void dr_title_choose(dctx *d, double page_h)
{
    /* a page of DR_TITLE_TALL units or more wraps a title rather than shrink it below 85%; a
     * shorter one (800 x 450 at font=2: 318 units) shrinks it and wraps only what would be cut,
     * its height going to the pictures */
    double keep = page_h / d->u >= DR_TITLE_TALL ? 0.85 * 21 : 1e-9;
    int k = 0;
    while (k < DR_TITLE_LINES && d->tneed[k] < keep) k++;
    if (k == DR_TITLE_LINES) {   /* none keeps them large: the lines that keep them largest */
        k = 0;
        for (int i = 1; i < DR_TITLE_LINES; i++)
            if (d->tneed[i] > d->tneed[k] * 1.02) k = i;
    }
    d->tlines = k + 1;
    d->ptitle = d->tneed[k] > 0 ? d->tneed[k] : dr_least_size(d, 21);
}

void dr_panel_title(dctx *d, const bl_panel *p, box b, double y)
{
    if (!p->title) return;
    double cx = b.x + b.w / 2, room = title_room(d, b, cx);
    if (d->measure) {   /* the figure's first pass: the size each panel title needs */
        for (int k = 0; k < DR_TITLE_LINES; k++) d->tneed[k] = fmin(d->tneed[k], title_size(d, p->title, room, k + 1));
        return;
    }
    d->role = BL_TEXT_PANEL_TITLE;
    double sz = d->ptitle > 0 ? d->ptitle : 21;
    if (d->title_size > 0) sz = fmin(sz, d->title_size);   /* under the figure's title, not above it */
    int nl = d->tlines > 1 ? d->tlines : 1;
    char l[DR_TITLE_LINES][256];
    dr_font(d, sz, 1, 0);
    int k = wrap_title(d, p->title, room, nl, l, sizeof l[0]);
    if (k > nl) k = nl;   /* too long even so: its last line cut (dr_text_at) */
    else if (k > 1) {     /* balanced: the narrowest lines that still take k */
        double lo = 0, hi = room;
        for (int it = 0; it < 14; it++) {
            double mid = (lo + hi) / 2;
            if (wrap_title(d, p->title, mid, k, l, sizeof l[0]) <= k) hi = mid;
            else lo = mid;
        }
        wrap_title(d, p->title, hi, k, l, sizeof l[0]);
    }
    double lh = title_lh(d);
    for (int i = 0; i < k; i++) dr_text_at(d, cx, y + i * lh, l[i], sz, 1, room, C_TEXT);
}

/* ---- text panels ---- */

void dr_text_panel(dctx *d, const bl_panel *p, box b)
{
    double u = d->u, y = b.y + 16 * u;
    if (p->title) {
        dr_panel_title(d, p, b, y);
        y += dr_title_top(d, p) - 4 * u;
    }
    dr_font(d, 18, 0, 1);
    d->role = BL_TEXT_OTHER;
    int per_line = (int)fmax(1, b.w / dr_text_w(d, "M"));
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
        dr_text(d, b.x, y, buf, 0, C_TEXT);
        y += 26 * u;
        s += k;
        if (*s == '\n') s++;
    }
    free(buf);
}

