/* canvas.h - a grid of terminal cells that the terminal renderer draws into (internal to src/viz).
 *
 * A cell holds one glyph (UTF-8, one column wide), a foreground and a background colour
 * (0xRRGGBB or BL_NO_RGB). Braille cells collect dots: a cell is 2 x 4 dots, dot (dx, dy) is bit
 *
 *     dx=0 dx=1
 *     0x01 0x08   dy=0        glyph = U+2800 + bits   (Unicode "Braille Patterns")
 *     0x02 0x10   dy=1
 *     0x04 0x20   dy=2
 *     0x40 0x80   dy=3
 *
 * bl_canvas_write turns the grid into text with ANSI SGR colour codes (truecolor `38;2;r;g;b`,
 * xterm-256 `38;5;n`) or none; the dashboard draws the same grid with ncurses.
 */
#ifndef BL_VIZ_CANVAS_H
#define BL_VIZ_CANVAS_H

#include <stdint.h>
#include <stdio.h>
#include "viz/plot.h"

typedef struct {
    char glyph[5];   /* UTF-8, NUL-terminated; "" = braille cell built from dots, or blank */
    uint8_t dots;    /* braille dot bits */
    uint8_t prio;    /* priority of the colour's writer (faint curves write with 0) */
    uint32_t fg, bg; /* 0xRRGGBB or BL_NO_RGB */
} bl_cell;

typedef struct {
    int w, h;
    bl_cell *cells;
} bl_canvas;

/* A blank w x h canvas (NULL with "term: out of memory"). */
bl_canvas *bl_canvas_new(int w, int h);
void bl_canvas_free(bl_canvas *c);

/* Put one glyph at (x, y) with colours (outside the canvas: ignored). */
void bl_canvas_put(bl_canvas *c, int x, int y, const char *glyph, uint32_t fg, uint32_t bg);
/* Write a UTF-8 string from (x, y) rightwards, one cell per code point, clipped at max_w cells
 * (< 0: the canvas edge). Returns the number of cells written. */
int bl_canvas_text(bl_canvas *c, int x, int y, const char *s, uint32_t fg, int max_w);
/* Set braille dot (px, py) (2 dots per cell across, 4 down) and colour the cell with fg unless a
 * writer of higher priority coloured it. */
void bl_canvas_dot(bl_canvas *c, int px, int py, uint32_t fg, int prio);
/* Copy src onto c with its top-left at (x, y). */
void bl_canvas_blit(bl_canvas *c, const bl_canvas *src, int x, int y);

/* The glyph of a cell as UTF-8 (its braille pattern, its glyph, or " "). */
const char *bl_cell_glyph(const bl_cell *cell, char buf[5]);

/* The number of code points in a UTF-8 string (its width in cells). */
int bl_utf8_len(const char *s);

/* Write the canvas to out: one line per row, trailing blanks dropped, SGR codes only for mode
 * BL_COLOR_256 or BL_COLOR_TRUE (reset at the end of each line). Returns 0 or -1 (write error). */
int bl_canvas_write(const bl_canvas *c, FILE *out, bl_color_mode mode);

#endif
