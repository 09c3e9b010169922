/* canvas.c - terminal cell grid and its ANSI output (see canvas.h). */
#include "viz/canvas.h"
#include "viz/color.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>

bl_canvas *bl_canvas_new(int w, int h)
{
    if (w < 1 || h < 1) return BL_FAILP("term: canvas of %d x %d cells", w, h);
    bl_canvas *c = malloc(sizeof *c);
    if (!c || !(c->cells = malloc((size_t)w * h * sizeof *c->cells))) {
        free(c);
        return BL_FAILP("term: out of memory");
    }
    c->w = w;
    c->h = h;
    for (long i = 0; i < (long)w * h; i++) {
        bl_cell *e = &c->cells[i];
        memset(e, 0, sizeof *e);
        e->fg = e->bg = BL_NO_RGB;
    }
    return c;
}

void bl_canvas_free(bl_canvas *c)
{
    if (c) free(c->cells);
    free(c);
}

void bl_canvas_put(bl_canvas *c, int x, int y, const char *glyph, uint32_t fg, uint32_t bg)
{
    if (x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    bl_cell *e = &c->cells[(long)y * c->w + x];
    size_t n = strlen(glyph);
    if (n > 4) n = 4;
    memcpy(e->glyph, glyph, n);
    e->glyph[n] = 0;
    e->dots = 0;
    e->prio = 255;
    e->fg = fg;
    e->bg = bg;
}

/* length in bytes of the UTF-8 sequence starting with byte b */
static int seq_len(unsigned char b)
{
    return b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
}

int bl_utf8_len(const char *s)
{
    int n = 0;
    for (; *s; n++) {
        int k = seq_len((unsigned char)*s);
        while (k-- && *s) s++;
    }
    return n;
}

int bl_canvas_text(bl_canvas *c, int x, int y, const char *s, uint32_t fg, int max_w)
{
    int n = 0;
    while (*s && (max_w < 0 || n < max_w) && x + n < c->w) {
        char g[5] = {0};
        int k = seq_len((unsigned char)*s);
        for (int i = 0; i < k && *s; i++) g[i] = *s++;
        if ((unsigned char)g[0] < 0x20) g[0] = ' ', g[1] = 0; /* no control characters */
        if (x + n >= 0) bl_canvas_put(c, x + n, y, g, fg, BL_NO_RGB);
        n++;
    }
    return n;
}

void bl_canvas_dot(bl_canvas *c, int px, int py, uint32_t fg, int prio)
{
    static const uint8_t bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    if (px < 0 || py < 0 || px >= 2 * c->w || py >= 4 * c->h) return;
    bl_cell *e = &c->cells[(long)(py / 4) * c->w + px / 2];
    if (e->glyph[0]) return; /* a text glyph or marker stays on top */
    e->dots |= bit[py % 4][px % 2];
    if (e->fg == BL_NO_RGB || prio >= e->prio) {
        e->fg = fg;
        e->prio = (uint8_t)prio;
    }
}

void bl_canvas_blit(bl_canvas *c, const bl_canvas *src, int x, int y)
{
    for (int j = 0; j < src->h; j++)
        for (int i = 0; i < src->w; i++) {
            int X = x + i, Y = y + j;
            if (X < 0 || Y < 0 || X >= c->w || Y >= c->h) continue;
            c->cells[(long)Y * c->w + X] = src->cells[(long)j * src->w + i];
        }
}

const char *bl_cell_glyph(const bl_cell *e, char buf[5])
{
    if (e->glyph[0]) return e->glyph;
    if (!e->dots) return " ";
    unsigned cp = 0x2800u + e->dots;
    buf[0] = (char)(0xe0 | (cp >> 12));
    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    buf[2] = (char)(0x80 | (cp & 0x3f));
    buf[3] = 0;
    return buf;
}

static int blank(const bl_cell *e)
{
    return !e->dots && (!e->glyph[0] || !strcmp(e->glyph, " ")) && e->bg == BL_NO_RGB;
}

static void sgr_color(FILE *out, int fg, uint32_t rgb, bl_color_mode mode)
{
    if (rgb == BL_NO_RGB) fprintf(out, "\x1b[%dm", fg ? 39 : 49);
    else if (mode == BL_COLOR_TRUE)
        fprintf(out, "\x1b[%d;2;%u;%u;%um", fg ? 38 : 48, (rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255);
    else fprintf(out, "\x1b[%d;5;%dm", fg ? 38 : 48, bl_rgb_to_xterm256(rgb));
}

int bl_canvas_write(const bl_canvas *c, FILE *out, bl_color_mode mode)
{
    int color = mode == BL_COLOR_256 || mode == BL_COLOR_TRUE;
    for (int y = 0; y < c->h; y++) {
        const bl_cell *row = &c->cells[(long)y * c->w];
        int end = c->w;
        while (end > 0 && blank(&row[end - 1])) end--;
        uint32_t fg = BL_NO_RGB, bg = BL_NO_RGB;
        for (int x = 0; x < end; x++) {
            const bl_cell *e = &row[x];
            char buf[5];
            const char *g = bl_cell_glyph(e, buf);
            if (color) {
                uint32_t efg = !strcmp(g, " ") ? fg : e->fg; /* a blank needs no foreground change */
                if (efg != fg) sgr_color(out, 1, efg, mode), fg = efg;
                if (e->bg != bg) sgr_color(out, 0, e->bg, mode), bg = e->bg;
            }
            fputs(g, out);
        }
        if (color && (fg != BL_NO_RGB || bg != BL_NO_RGB)) fputs("\x1b[0m", out);
        fputc('\n', out);
    }
    if (ferror(out)) return bl_fail("term: write error");
    return 0;
}
