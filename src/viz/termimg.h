/* termimg.h - pictures on the terminal: the PNG's cairo drawing shown in pixels (kitty graphics,
 * iTerm2 inline images, sixel) where the terminal can, else the text renderer (term.c), both
 * fitted to the window (internal to src/viz; the REPL calls bl_term_show).
 *
 * The escape sequences, as the protocols' documents give them:
 *   kitty   ESC _ G a=T,f=100,q=2,m=1 ; <base64 of the PNG, 4096 bytes> ESC \    first chunk
 *           ESC _ G m=1 ; <4096 bytes> ESC \  ...  ESC _ G m=0 ; <the rest> ESC \
 *           (sw.kovidgoyal.net/kitty/graphics-protocol: "Transferring PNG data" f=100, "Remote
 *           client" chunks of at most 4096 bytes of base64, each but the last a multiple of 4,
 *           m=1 on all but the last, only m (and q) in the chunks after the first; q=2 keeps
 *           the terminal from answering on our input; a=T transmits and displays)
 *   iterm   ESC ] 1337 ; File=inline=1;size=<PNG bytes>;width=<columns>;preserveAspectRatio=1 :
 *           <base64 of the PNG> BEL       (iterm2.com/documentation-images.html)
 *   sixel   DCS ... ST from libsixel (sixel_encode) with a 256-colour palette, no dithering
 * Inside tmux each sequence is wrapped as ESC P tmux; <the sequence, every ESC doubled> ESC \.
 */
#ifndef BL_VIZ_TERMIMG_H
#define BL_VIZ_TERMIMG_H

#include <cairo.h>
#include <stddef.h>
#include <stdio.h>
#include "viz/plot.h"
#include "viz/termdetect.h"

/* The figure drawn by bl_draw_figure (as its PNG) on a new w x h ARGB32 image (1 pixel = 1 page
 * unit). NULL with "draw: ..." or "cannot make a W x H image". The caller has checked f. */
cairo_surface_t *bl_fig_raster(const bl_figure *f, int w, int h);

/* The image as a PNG in memory (8-bit RGB, zlib level 1: a terminal picture is shown once, so
 * speed counts more than size). *png is malloc'ed. Returns 0 or -1 ("out of memory", libpng). */
int bl_png_mem(cairo_surface_t *s, unsigned char **png, size_t *n);
/* The same PNG handed to put(io, bytes, n) piece by piece (save.c, the one PNG encoder, which
 * also writes the files: zlib level 1 and the SUB filter here). 0 or -1 (libpng, memory). */
int bl_png_encode(cairo_surface_t *s, void (*put)(void *io, const void *data, size_t n), void *io);

/* Standard base64 (RFC 4648, with '=' padding) of n bytes into out (room for 4 * ((n + 2) / 3)
 * bytes, no NUL written). Returns the length written. */
size_t bl_base64(const unsigned char *in, size_t n, char *out);

/* Write a sequence to out, inside tmux's passthrough when tmux (see above). Returns 0 or -1. */
int bl_term_emit(FILE *out, const char *seq, size_t n, int tmux);

/* The kitty graphics sequences that show a PNG of n bytes at the cursor (see above). 0 or -1. */
int bl_kitty_write(FILE *out, const unsigned char *png, size_t n, int tmux);
/* iTerm2's inline image of a PNG, `cols` columns wide (its height from its shape). 0 or -1. */
int bl_iterm_write(FILE *out, const unsigned char *png, size_t n, int cols, int tmux);
/* The image in sixel, encoded by libsixel. 0 or -1 ("sixel: ...", or "sixel: blocklab was built
 * without libsixel"). */
int bl_sixel_write(FILE *out, cairo_surface_t *s, int tmux);

/* The pixel size of a picture on a window of cols x rows cells of cell_w x cell_h pixels: the
 * whole width (at most want_cols columns when > 0) and at most rows - 2 rows tall (at most
 * want_rows when > 0), so that the statement and the prompt stay in view; the shape of a slide
 * (16:9) unless both want_cols and want_rows are given, which make the box. *w, *h the pixels,
 * *nrows the rows the picture covers. Returns 0, or -1 when the window has no room or its pixel
 * size is unknown (cell_w or cell_h 0). */
int bl_pic_fit(int cols, int rows, int cell_w, int cell_h, int want_cols, int want_rows, int *w, int *h,
               int *nrows);

/* The rows a text picture may take on a window of `rows` rows: rows - 2 (the statement and the
 * prompt stay in view), at most want_rows when > 0, at least 4. */
int bl_term_fit_rows(int rows, int want_rows);

/* Print the figure on out as bl_pic_choose says: kitty, iTerm2 or sixel pixels sized to the
 * window, else the text renderer fitted to the window's width and height (a picture that would
 * be taller than the window is drawn again at the rows it has). f->width and f->height, when
 * set, are the columns and rows to take at most. A pixel picture that fails (an unknown pixel
 * size, an encoding error) falls back to the text renderer. f->rows_above rows of the window are
 * taken as used by text above the picture (keeping at least BL_TERM_MIN_PIC_ROWS rows, or the
 * window's, for the picture: a longer text scrolls). Returns 0 or -1 (bl_fig_check's errors,
 * write errors). */
#define BL_TERM_MIN_PIC_ROWS 12
int bl_term_show(const bl_figure *f, FILE *out);

#endif
