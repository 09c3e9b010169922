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

/* the width of a text centred on x that stays within [b.tx0, b.tx1] */
double dr_room_at(box b, double x)
{
    return fmax(0, 2 * fmin(x - b.tx0, b.tx1 - x));
}

void dr_panel_title(dctx *d, const bl_panel *p, box b, double y)
{
    if (!p->title) return;
    double cx = b.x + b.w / 2;
    if (d->measure) {   /* the figure's first pass: the size each panel title needs */
        d->ptitle = fmin(d->ptitle, dr_fit_size(d, p->title, 21, 1, dr_room_at(b, cx)));
        return;
    }
    d->role = BL_TEXT_PANEL_TITLE;
    dr_text_at(d, cx, y, p->title, d->ptitle > 0 ? d->ptitle : 21, 1, dr_room_at(b, cx), C_TEXT);
}

/* ---- text panels ---- */

void dr_text_panel(dctx *d, const bl_panel *p, box b)
{
    double u = d->u, y = b.y + 16 * u;
    if (p->title) {
        dr_panel_title(d, p, b, y);
        y += 36 * u;
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

