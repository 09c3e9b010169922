/* termimg.c - pixel pictures on the terminal and fitting the window (see termimg.h). */
#include "viz/termimg.h"
#include "viz/draw.h"
#include "viz/term.h"
#include "core/error.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#ifdef HAVE_LIBSIXEL
#undef PACKAGE_VERSION   /* sixel.h defines its own */
#include <sixel.h>
#endif

cairo_surface_t *bl_fig_raster(const bl_figure *f, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(s)) {
        cairo_surface_destroy(s);
        return BL_FAILP("cannot make a %d x %d image", w, h);
    }
    cairo_t *cr = cairo_create(s);
    int r = bl_draw_figure(f, cr, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (r) {
        cairo_surface_destroy(s);
        return NULL;
    }
    return s;
}

/* ---- PNG in memory ---- */

typedef struct {
    unsigned char *p;
    size_t n, cap;
    int oom;
} membuf;

static void mem_put(membuf *m, const void *data, size_t n)
{
    if (m->oom) return;
    if (m->n + n > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < m->n + n) cap *= 2;
        unsigned char *p = realloc(m->p, cap);
        if (!p) {
            m->oom = 1;
            return;
        }
        m->p = p, m->cap = cap;
    }
    memcpy(m->p + m->n, data, n);
    m->n += n;
}


static void mem_sink(void *io, const void *data, size_t n) { mem_put(io, data, n); }

int bl_png_mem(cairo_surface_t *s, unsigned char **out, size_t *out_n)
{
    membuf m = {0};
    if (bl_png_encode(s, mem_sink, &m) < 0 || m.oom) {
        free(m.p);
        return m.oom ? bl_fail("out of memory") : -1;
    }
    *out = m.p, *out_n = m.n;
    return 0;
}

/* ---- escape sequences ---- */

size_t bl_base64(const unsigned char *in, size_t n, char *out)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n) v |= in[i + 2];
        out[k++] = A[v >> 18 & 63];
        out[k++] = A[v >> 12 & 63];
        out[k++] = i + 1 < n ? A[v >> 6 & 63] : '=';
        out[k++] = i + 2 < n ? A[v & 63] : '=';
    }
    return k;
}

int bl_term_emit(FILE *out, const char *seq, size_t n, int tmux)
{
    if (!tmux) return fwrite(seq, 1, n, out) == n ? 0 : bl_fail("term: write error");
    fputs("\033Ptmux;", out);
    for (size_t i = 0; i < n; i++) {
        if (seq[i] == 0x1b) fputc(0x1b, out);
        fputc(seq[i], out);
    }
    fputs("\033\\", out);
    return ferror(out) ? bl_fail("term: write error") : 0;
}

#define KITTY_CHUNK 4096

int bl_kitty_write(FILE *out, const unsigned char *png, size_t n, int tmux)
{
    size_t len = 4 * ((n + 2) / 3);
    char *b = malloc(len + 1), seq[KITTY_CHUNK + 64];
    if (!b) return bl_fail("out of memory");
    bl_base64(png, n, b);
    int r = 0;
    for (size_t off = 0; r == 0 && (off < len || off == 0); off += KITTY_CHUNK) {
        size_t k = len - off < KITTY_CHUNK ? len - off : KITTY_CHUNK;
        int more = off + k < len;
        int h = off == 0 ? snprintf(seq, sizeof seq, "\033_Ga=T,f=100,q=2,m=%d;", more)
                         : snprintf(seq, sizeof seq, "\033_Gm=%d;", more);
        memcpy(seq + h, b + off, k);
        memcpy(seq + h + k, "\033\\", 2);
        r = bl_term_emit(out, seq, (size_t)h + k + 2, tmux);
        if (!more) break;
    }
    free(b);
    return r;
}

int bl_iterm_write(FILE *out, const unsigned char *png, size_t n, int cols, int tmux)
{
    size_t len = 4 * ((n + 2) / 3);
    char *seq = malloc(len + 128);
    if (!seq) return bl_fail("out of memory");
    int h = snprintf(seq, 128, "\033]1337;File=inline=1;size=%zu;width=%d;preserveAspectRatio=1:", n, cols);
    size_t k = (size_t)h + bl_base64(png, n, seq + h);
    seq[k++] = '\a';
    int r = bl_term_emit(out, seq, k, tmux);
    free(seq);
    return r;
}

#ifdef HAVE_LIBSIXEL
static int sixel_to_mem(char *data, int size, void *priv)
{
    mem_put(priv, data, (size_t)size);
    return 0;
}
#endif

int bl_sixel_write(FILE *out, cairo_surface_t *s, int tmux)
{
#ifdef HAVE_LIBSIXEL
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    unsigned char *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return bl_fail("out of memory");
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)(data + (long)y * stride);
        unsigned char *d = rgb + (size_t)y * w * 3;
        for (int x = 0; x < w; x++) d[3 * x] = src[x] >> 16 & 255, d[3 * x + 1] = src[x] >> 8 & 255, d[3 * x + 2] = src[x] & 255;
    }
    membuf m = {0};
    sixel_output_t *o = NULL;
    sixel_dither_t *d = NULL;
    SIXELSTATUS st = sixel_output_new(&o, sixel_to_mem, &m, NULL);
    if (SIXEL_SUCCEEDED(st)) st = sixel_dither_new(&d, 256, NULL);
    /* a picture of flat colours: the palette from a quick histogram, no error diffusion (which
     * would sprinkle dots over the white background) */
    if (SIXEL_SUCCEEDED(st))
        st = sixel_dither_initialize(d, rgb, w, h, SIXEL_PIXELFORMAT_RGB888, SIXEL_LARGE_AUTO, SIXEL_REP_AUTO,
                                     SIXEL_QUALITY_LOW);
    if (SIXEL_SUCCEEDED(st)) {
        sixel_dither_set_diffusion_type(d, SIXEL_DIFFUSE_NONE);
        sixel_output_set_encode_policy(o, SIXEL_ENCODEPOLICY_FAST);
        st = sixel_encode(rgb, w, h, 3, d, o);
    }
    if (d) sixel_dither_unref(d);
    if (o) sixel_output_unref(o);
    free(rgb);
    int r = 0;
    if (SIXEL_FAILED(st)) r = bl_fail("sixel: %s", sixel_helper_format_error(st));
    else if (m.oom) r = bl_fail("out of memory");
    else r = bl_term_emit(out, (const char *)m.p, m.n, tmux);
    free(m.p);
    return r;
#else
    (void)out, (void)s, (void)tmux;
    return bl_fail("sixel: blocklab was built without libsixel");
#endif
}

/* ---- fitting the window ---- */

int bl_term_fit_rows(int rows, int want_rows)
{
    int r = rows - 2;
    if (want_rows > 0 && want_rows < r) r = want_rows;
    return r < 4 ? 4 : r;
}

int bl_pic_fit(int cols, int rows, int cell_w, int cell_h, int want_cols, int want_rows, int *w, int *h,
               int *nrows)
{
    if (cell_w <= 0 || cell_h <= 0 || cols < 1 || rows < 3) return -1;
    int c = want_cols > 0 && want_cols < cols ? want_cols : cols;
    int r = bl_term_fit_rows(rows, want_rows);
    if (r > rows - 1) r = rows - 1;
    long bw = (long)c * cell_w, bh = (long)r * cell_h;
    long pw, ph;
    if (want_cols > 0 && want_rows > 0) {
        pw = bw, ph = bh;   /* the box asked for */
    } else {
        pw = bw, ph = bw * BL_FIG_H / BL_FIG_W;
        if (ph > bh) ph = bh, pw = bh * BL_FIG_W / BL_FIG_H;
    }
    if (pw < 16 || ph < 16) return -1;
    if (pw > BL_FIG_MAX_PIXELS) pw = BL_FIG_MAX_PIXELS;
    if (ph > BL_FIG_MAX_PIXELS) ph = BL_FIG_MAX_PIXELS;
    *w = (int)pw, *h = (int)ph;
    *nrows = (int)((ph + cell_h - 1) / cell_h);
    return 0;
}

/* The window's rows left for a picture below f->rows_above rows of text (bl_term_show). */
static int rows_below_text(const bl_figure *f, int rows)
{
    int left = rows - (f->rows_above > 0 ? f->rows_above : 0);
    int floor = rows < BL_TERM_MIN_PIC_ROWS ? rows : BL_TERM_MIN_PIC_ROWS;
    return left < floor ? floor : left;
}

/* the picture in pixels; -1 (error set) when it cannot be shown so */
static int show_pixels(const bl_figure *f, FILE *out, bl_pic_mode mode, int tmux)
{
    int cols, rows, cw, ch, w, h, nrows;
    if (bl_term_window(fileno(out), &cols, &rows, &cw, &ch) < 0)
        return bl_fail("term: the output is not a terminal window");
    rows = rows_below_text(f, rows);
    if (bl_pic_fit(cols, rows, cw, ch, f->width, f->height, &w, &h, &nrows) < 0)
        return bl_fail("term: the window's size in pixels is unknown or too small");
    cairo_surface_t *s = bl_fig_raster(f, w, h);
    if (!s) return -1;
    int r;
    if (mode == BL_PIC_SIXEL) {
        r = bl_sixel_write(out, s, tmux);
    } else {
        unsigned char *png;
        size_t n;
        r = bl_png_mem(s, &png, &n);
        if (r == 0) {
            r = mode == BL_PIC_KITTY ? bl_kitty_write(out, png, n, tmux)
                                     : bl_iterm_write(out, png, n, (w + cw - 1) / cw, tmux);
            free(png);
        }
    }
    cairo_surface_destroy(s);
    if (r == 0) {
        /* the cursor stays on the picture's last row (kitty, iTerm2, xterm's sixel): the next
         * text starts on the row below */
        fputs("\r\n", out);
        if (fflush(out) != 0) r = bl_fail("term: write error");
    }
    return r;
}

int bl_term_show(const bl_figure *f, FILE *out)
{
    if (bl_fig_check(f)) return -1;
    int tmux;
    bl_pic_mode mode = bl_pic_choose(fileno(out), &tmux, NULL);
    if (mode == BL_PIC_KITTY || mode == BL_PIC_ITERM || mode == BL_PIC_SIXEL) {
        fflush(out);
        if (show_pixels(f, out, mode, tmux) == 0) return 0;
        /* fall back to text: the error is not the user's */
    }
    bl_term_opts o = { .width = f->width, .ascii = mode == BL_PIC_ASCII };
    int cols, rows, cw, ch;
    if (bl_term_window(fileno(out), &cols, &rows, &cw, &ch) == 0) {
        if (o.width <= 0 || o.width > cols) o.width = cols;
        int maxr = bl_term_fit_rows(rows_below_text(f, rows), f->height);
        bl_color_mode cm = o.ascii ? BL_COLOR_NONE : bl_term_color_mode(out);
        int color = cm == BL_COLOR_256 || cm == BL_COLOR_TRUE;
        bl_canvas *c = bl_term_canvas(f, o.width < BL_FIG_MIN_COLS ? BL_FIG_MIN_COLS : o.width, 0, color, !o.ascii);
        if (!c) return -1;
        if (c->h > maxr || (f->height > 0 && c->h != maxr)) {
            bl_canvas *fit = bl_term_canvas(f, c->w, maxr, color, !o.ascii);
            if (fit) bl_canvas_free(c), c = fit;   /* too many panel rows for the height: as it was */
        }
        int r = bl_canvas_write(c, out, cm);
        bl_canvas_free(c);
        return r;
    }
    /* not a terminal (a file, a pipe): a height below a file's smallest is the rows to take */
    if (f->height > 0 && f->height < BL_FIG_MIN_SIDE) o.height = f->height;
    if (o.ascii) o.color = BL_COLOR_NONE;
    return bl_term_print(f, out, &o);
}
