/* test_viz_term.c - the terminal renderer on fixed inputs at fixed widths, without colours and with
 * 256 colours / truecolor, compared to the reviewed files in tests/expected/viz/. On a mismatch the
 * output is left in ./viz-NAME.actual; BL_VIZ_REGEN=1 rewrites the expected files (review them!). */
#include "core/error.h"
#include "viz/color.h"
#include "viz/plot.h"
#include "viz/canvas.h"
#include "../check.h"
#include "term_testutil.h"

/* render f and compare with tests/expected/viz/NAME.txt */
static void expect(const bl_figure *f, const char *name, int width, int height, bl_color_mode mode, int ascii)
{
    char *buf = term_render(f, (bl_term_opts){width, height, mode, ascii});
    size_t len = buf ? strlen(buf) : 0;
    const char *src = getenv("BL_SRCDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/expected/viz/%s.txt", src ? src : ".", name);
    if (getenv("BL_VIZ_REGEN")) {
        FILE *w = fopen(path, "w");
        if (w) fwrite(buf, 1, len, w), fclose(w);
    }
    FILE *e = fopen(path, "r");
    if (!e) {
        CHECK(0, "cannot read %s", path);
        free(buf);
        return;
    }
    char *want = malloc(1 << 20);
    size_t n = fread(want, 1, (1 << 20) - 1, e);
    want[n] = 0;
    fclose(e);
    int same = n == len && memcmp(want, buf, len) == 0;
    if (!same) {
        int line = 1;
        for (size_t i = 0; i < n && i < len && want[i] == buf[i]; i++) line += want[i] == '\n';
        char out[300];
        snprintf(out, sizeof out, "viz-%s.actual", name);
        FILE *w = fopen(out, "w");
        if (w) fwrite(buf, 1, len, w), fclose(w);
        CHECK(same, "%s differs from %s from line %d (output in %s)", name, path, line, out);
    }
    /* colour codes exactly when asked for */
    int esc = memchr(buf, 0x1b, len) != NULL;
    CHECK(esc == (mode == BL_COLOR_256 || mode == BL_COLOR_TRUE), "%s: escape codes %s", name, esc ? "present" : "missing");
    if (ascii)
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)buf[i] >= 0x80) {
                CHECK(0, "%s: non-ASCII byte in ascii mode", name);
                break;
            }
    free(want);
    free(buf);
}

static bl_figure *diagonal(void)
{
    float y[11];
    for (int i = 0; i < 11; i++) y[i] = (float)i;
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_line(bl_fig_panel(f, 0), "y = x", NULL, y, 11, 0);
    return f;
}

/* two runs of a decaying loss, one smoothed, with validation points, log y */
static bl_figure *loss(void)
{
    float x[60], a[60], b[60];
    for (int i = 0; i < 60; i++) {
        x[i] = (float)(i * 10);
        a[i] = 3.0f * expf(-i / 12.0f) + 0.2f + 0.15f * ((i * 7919) % 11 - 5) / 5.0f * expf(-i / 30.0f);
        b[i] = 2.5f * expf(-i / 20.0f) + 0.35f;
    }
    float vx[3] = {200, 400, 590}, vy[3] = {0.9f, 0.45f, 0.38f};
    bl_figure *f = bl_fig_new(1, 1, "train loss");
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_labels(p, NULL, "step", "loss");
    bl_panel_smoothed(p, "rmsnorm", x, a, 60, 0.6f);
    bl_panel_line(p, "layernorm", x, b, 60, 0);
    bl_panel_line(p, "val", vx, vy, 3, BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR);
    bl_panel_log(p, 0, 1);
    return f;
}

/* 4 x 6 heatmap 0..23 with character labels, next to a diverging 3 x 3 */
static bl_figure *heat(void)
{
    float v[24], d[9] = {-2, -1, 0, -1, 0, 1, 0, 1, 2};
    for (int i = 0; i < 24; i++) v[i] = (float)i;
    const char *rows[4] = {"w", "x", "y", "z"}, *cols[6] = {"a", "b", "c", "d", "e", "f"};
    bl_figure *f = bl_fig_new(1, 2, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_heatmap(p, v, 4, 6, BL_CMAP_VIRIDIS);
    bl_panel_heatmap_labels(p, rows, cols);
    bl_panel_labels(p, "0..23", NULL, NULL);
    p = bl_fig_panel(f, 1);
    bl_panel_heatmap(p, d, 3, 3, BL_CMAP_DIVERGING);
    bl_panel_labels(p, "signed", NULL, NULL);
    return f;
}

static bl_figure *images(void)
{
    float im[2 * 3 * 4 * 4];
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < 4; y++)
                for (int x = 0; x < 4; x++) /* image 0: red ramp left to right; image 1: grey ramp top down */
                    im[((n * 3 + c) * 4 + y) * 4 + x] = n == 0 ? (c == 0 ? -1 + 2 * x / 3.0f : -1) : -1 + 2 * y / 3.0f;
    bl_figure *f = bl_fig_new(1, 1, "samples");
    bl_panel_images(bl_fig_panel(f, 0), im, 2, 3, 4, 4, -1, 1, 0);
    return f;
}

BL_TEST(test_diagonal_nocolor) { bl_figure *f = diagonal(); expect(f, "diagonal_nocolor", 40, 14, BL_COLOR_NONE, 0); bl_fig_free(f); }
BL_TEST(test_loss_nocolor) { bl_figure *f = loss(); expect(f, "loss_nocolor", 72, 22, BL_COLOR_NONE, 0); bl_fig_free(f); }
BL_TEST(test_loss_256) { bl_figure *f = loss(); expect(f, "loss_256", 72, 22, BL_COLOR_256, 0); bl_fig_free(f); }
BL_TEST(test_loss_ascii) { bl_figure *f = loss(); expect(f, "loss_ascii", 72, 22, BL_COLOR_NONE, 1); bl_fig_free(f); }
BL_TEST(test_heat_nocolor) { bl_figure *f = heat(); expect(f, "heat_nocolor", 64, 0, BL_COLOR_NONE, 0); bl_fig_free(f); }
BL_TEST(test_heat_256) { bl_figure *f = heat(); expect(f, "heat_256", 64, 0, BL_COLOR_256, 0); bl_fig_free(f); }
BL_TEST(test_heat_truecolor) { bl_figure *f = heat(); expect(f, "heat_truecolor", 64, 0, BL_COLOR_TRUE, 0); bl_fig_free(f); }
BL_TEST(test_images_256) { bl_figure *f = images(); expect(f, "images_256", 40, 0, BL_COLOR_256, 0); bl_fig_free(f); }
BL_TEST(test_images_nocolor) { bl_figure *f = images(); expect(f, "images_nocolor", 40, 0, BL_COLOR_NONE, 0); bl_fig_free(f); }

/* render f into a string (free it) */
static char *render_h(const bl_figure *f, int width, int height, int ascii)
{
    return term_render(f, (bl_term_opts){width, height, BL_COLOR_NONE, ascii});
}

static char *render(const bl_figure *f, int width, int ascii) { return render_h(f, width, 16, ascii); }

/* a flat line at 5 is drawn on the row of the 5.0 tick, at an even or odd count of rows (at an even
 * one it sits on a tie between two dot rows, and rounding error put the tick and the line apart) */
BL_TEST(test_flat_line_on_its_tick)
{
    float x[3] = {0, 1, 2}, y[3] = {5, 5, 5};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_line(bl_fig_panel(f, 0), NULL, x, y, 3, 0);
    for (int h = 20; h <= 27; h++) {
        char *out = render_h(f, 80, h, 0), *row = strstr(out, "5.0 \u2524");
        char *end = row ? strchr(row, '\n') : NULL;
        if (end) *end = '\0';
        int dots = 0;   /* a braille cell (U+2800..U+28FF: e2 a0..a3 xx) on the row */
        for (const unsigned char *q = (const unsigned char *)row; row && q[0] && q[1]; q++)
            dots |= q[0] == 0xe2 && q[1] >= 0xa0 && q[1] <= 0xa3;
        CHECK(dots, "height %d: the 5.0 row has no line: '%s'", h, row ? row : "(none)");
        free(out);
    }
    bl_fig_free(f);
}

/* two series of validation points without colour: each has its own marker, in the plot and legend */
BL_TEST(test_val_markers_differ)
{
    float x[2] = {1, 2}, a[2] = {1, 2}, b[2] = {2, 1};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "val a", x, a, 2, BL_MARKERS | BL_NO_LINE);
    bl_panel_line(p, "val b", x, b, 2, BL_MARKERS | BL_NO_LINE);
    for (int ascii = 0; ascii < 2; ascii++) {
        char *out = render(f, 40, ascii);
        const char *ka = ascii ? "o val a" : "\u25cf val a", *kb = ascii ? "@ val b" : "\u25a0 val b";
        CHECK(strstr(out, ka) && strstr(out, kb), "ascii %d: legend without '%s' and '%s':\n%s", ascii, ka, kb, out);
        free(out);
    }
    bl_fig_free(f);
}

/* a 1 x 1 heatmap has one column, 0: its index line below the map is "0" alone (was "0 1") */
BL_TEST(test_one_cell_heatmap_ticks)
{
    float v[1] = {1};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 1, 1, BL_CMAP_VIRIDIS);
    char *out = render(f, 40, 1);
    char *last = out + strlen(out);
    while (last > out && last[-1] == '\n') *--last = '\0';   /* the last line that is not empty */
    while (last > out && last[-1] != '\n') last--;
    int ok = 1, digits = 0;
    for (char *q = last; *q && *q != '\n'; q++) ok &= *q == ' ' || *q == '0', digits += *q == '0';
    CHECK(ok && digits == 1, "the column index line is '%s'", last);
    free(out);
    bl_fig_free(f);
}

/* a constant heatmap is one colour: every half block has viridis(0.5) above and below */
BL_TEST(test_constant_heatmap_one_colour)
{
    float v[16];
    for (int i = 0; i < 16; i++) v[i] = 3.0f;
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 4, 4, BL_CMAP_VIRIDIS);
    char *buf = term_render(f, (bl_term_opts){40, 0, BL_COLOR_TRUE, 0});
    /* the 16 cells are half blocks at 1..8 px each: count "▀" preceded by the mid colour */
    uint32_t mid = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0.5);
    char want[64];
    snprintf(want, sizeof want, "38;2;%u;%u;%u", mid >> 16, (mid >> 8) & 255, mid & 255);
    int cells = 0, other = 0;
    /* the heatmap rows are the lines that start with a row tick or blanks then "\x1b[38;2" */
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *bar = strstr(line, "  \x1b"); /* the colour bar starts after two blanks */
        for (char *s = strstr(line, "\x1b[38;2;"); s && (!bar || s < bar); s = strstr(s + 1, "\x1b[38;2;")) {
            if (strncmp(s + 2, want, strlen(want))) other++;
            else cells++;
        }
    }
    CHECK(cells > 0 && other == 0, "%d cells in the mid colour, %d in others", cells, other);
    free(buf);
    bl_fig_free(f);
}

/* a 15 x 15 heatmap labelled -7 .. 7 on both axes, peaked at its centre (rope check's offset map) */
static bl_figure *offset_map(void)
{
    float v[15 * 15];
    char text[15][4];
    const char *lab[15];
    for (int i = 0; i < 15; i++) snprintf(text[i], sizeof text[i], "%d", i - 7), lab[i] = text[i];
    for (int r = 0; r < 15; r++)
        for (int c = 0; c < 15; c++) v[r * 15 + c] = (float)(14 - abs(r - 7) - abs(c - 7));
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_heatmap(p, v, 15, 15, BL_CMAP_DIVERGING);
    bl_panel_heatmap_labels(p, lab, lab);
    return f;
}

/* row labels of a heatmap taller than its lines: a 15 x 15 map labelled -7 .. 7 (the offsets of
 * `rope check`) keeps its labels when two rows share a line (every other label, -6 -4 .. 6, 0
 * among them, one per line from the top) and shows all 15 when each row has lines of its own; never the row
 * indices 0 .. 14 */
static int label_column(const bl_figure *f, int width, int *labels, int max)
{
    char *buf = render_h(f, width, 0, 0);
    int n = 0;
    /* the first token of each line of the map: a label, else blank (the map's glyphs are no number) */
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
        int v, k = 0;
        labels[n++] = sscanf(line, "%d%n", &v, &k) == 1 && line[k] == ' ' ? v : 99;
    }
    free(buf);
    return n;
}

BL_TEST(test_heat_row_labels_thinned)
{
    bl_figure *f = offset_map();
    int got[40], n = label_column(f, 30, got, 40);
    /* 30 columns: one pixel per cell, 15 rows on 8 lines, the last line holding row 14 alone */
    CHECK(n >= 9, "%d lines", n);
    /* each line's second row labelled, so that 0, the centre, is (issue 16: -7 -5 .. 7 skipped
     * it): -6 -4 .. 6, the last line (7 alone) blank */
    for (int i = 0; i < 8 && i < n; i++) {
        int want = i < 7 ? -6 + 2 * i : 99;
        CHECK(got[i] == want, "width 30, line %d: label %d, want %d", i, got[i], want);
    }
    n = label_column(f, 60, got, 40);
    /* 60 columns: two pixels per cell, one line per row */
    CHECK(n >= 16, "%d lines", n);
    for (int i = 0; i < 15 && i < n; i++) CHECK(got[i] == i - 7, "width 60, line %d: label %d, want %d", i, got[i], i - 7);
    bl_fig_free(f);
}

/* the column labels of a heatmap drawn without colours: the first line holding 3 or more
 * numbers and nothing else; v[i] the numbers, at[i] the column of each one's last character */
static int label_line(const bl_figure *f, int width, int *v, int *at, int max)
{
    char *buf = render_h(f, width, 0, 0);
    int n = 0;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int k, pos = 0;
        n = 0;
        while (n < max && sscanf(line + pos, "%d%n", &v[n], &k) == 1 && (line[pos + k] == ' ' || !line[pos + k]))
            pos += k, at[n++] = pos - 1;
        while (line[pos] == ' ') pos++;
        if (n >= 3 && !line[pos]) break;
        n = 0;
    }
    free(buf);
    return n;
}

/* column labels at an even step: the 15 x 15 map labelled -7 .. 7 (rope check's offsets) gets
 * every k-th column's label, k the fewest columns that hold the widest label ("-7") and a blank,
 * the labelled columns those with "0" among them (a symmetric axis labelled at its centre,
 * issue 16: 7 mod k first), each label's digit on its column. 30 columns: one pixel per cell,
 * k = ceil(15 x 3 / 15) = 3 from column 1: -6 -3 0 3 6, 3 apart. 60 columns: two pixels per
 * cell, k = ceil(15 x 3 / 30) = 2 from column 1: -6 -4 .. 6 (it was -7 -5 .. 7, without 0),
 * 4 apart. (Placed one after the other where they fit, they read -7 -4 -1 2 4 6 at 30.) */
BL_TEST(test_heat_col_labels_even)
{
    bl_figure *f = offset_map();
    int got[16], at[16], n = label_line(f, 30, got, at, 16);
    CHECK(n == 5, "width 30: %d column labels, want 5", n);
    for (int i = 0; i < n && i < 5; i++) {
        CHECK(got[i] == -6 + 3 * i, "width 30, label %d: %d, want %d", i, got[i], -6 + 3 * i);
        if (i) CHECK(at[i] - at[i - 1] == 3, "width 30: labels %d and %d are %d apart, want 3", got[i - 1], got[i], at[i] - at[i - 1]);
    }
    n = label_line(f, 60, got, at, 16);
    CHECK(n == 7, "width 60: %d column labels, want 7", n);
    for (int i = 0; i < n && i < 7; i++) {
        CHECK(got[i] == -6 + 2 * i, "width 60, label %d: %d, want %d", i, got[i], -6 + 2 * i);
        if (i) CHECK(at[i] - at[i - 1] == 4, "width 60: labels %d and %d are %d apart, want 4", got[i - 1], got[i], at[i] - at[i - 1]);
    }
    bl_fig_free(f);
}

/* the numbers on the line below the x axis (the line after the one holding "└") */
static int x_tick_labels(const bl_figure *f, int width, double *v, int max)
{
    char *buf = render_h(f, width, 0, 0);
    int n = 0;
    char *axis = buf ? strstr(buf, "└") : NULL, *s = axis ? strchr(axis, '\n') : NULL;
    if (s) {
        char *end = strchr(++s, '\n');
        if (end) *end = 0;
        for (int k; n < max && sscanf(s, "%lf%n", &v[n], &k) == 1; n++) s += k;
    }
    free(buf);
    return n;
}

/* a log x axis fitted to its data reaches to a labelled tick past it, as a log y axis does: x from
 * 1 to 16 on 35 plot columns (40 minus the y labels "0.0" .. "1.0" and the axis) asks for 35 / 10
 * = 3 ticks; the fit 1 .. 16 (no margin on the terminal) spans 1.2 decades, so its ticks are the
 * 1 2 5 ones, 1 2 5 10, and 16 is past the last; the next such tick is 20, and 1 .. 20 has the
 * ticks 1 2 5 10 20. Fixed limits 1 .. 16 stay: ticks 1 2 5 10. */
BL_TEST(test_log_x_ticks_cover_data)
{
    float x[5] = {1, 2, 4, 8, 16}, y[5] = {0.2f, 0.4f, 0.5f, 0.6f, 0.8f};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "", x, y, 5, 0);
    bl_panel_limits(p, 'y', 0, 1);
    bl_panel_log(p, 1, 0);
    double t[16];
    int n = x_tick_labels(f, 40, t, 16);
    CHECK(n == 5 && t[0] == 1 && t[1] == 2 && t[2] == 5 && t[3] == 10 && t[4] == 20,
          "fitted: %d x labels, %g .. %g", n, n ? t[0] : 0, n ? t[n - 1] : 0);
    bl_panel_limits(p, 'x', 1, 16);
    n = x_tick_labels(f, 40, t, 16);
    CHECK(n == 4 && t[0] == 1 && t[1] == 2 && t[2] == 5 && t[3] == 10,
          "fixed limits: %d x labels, %g .. %g", n, n ? t[0] : 0, n ? t[n - 1] : 0);
    bl_fig_free(f);
}

/* A band on the terminal (plot loss relative='s seed gap, a lecturer's pass, issue 16): drawn
 * (its legend entry named it, the picture had none), shaded in the cells between its edges
 * that no line takes, "\u2591" or ":" in ASCII; its legend key the shade, not a validation
 * marker (the seed gap had the seed2 run's "\u25a0"), every key distinct. A title wider than
 * the terminal ends with an ellipsis, "\u2026" or "..." in ASCII, within the width. */
BL_TEST(test_band_drawn_and_keys_distinct)
{
    float x[11], zero[11], lo[11], hi[11], top[11], va[11], vb[11];
    for (int i = 0; i < 11; i++) x[i] = (float)i, zero[i] = 0, lo[i] = -1, hi[i] = 1, top[i] = i % 2 ? 2 : -2, va[i] = 1.5f, vb[i] = -1.5f;
    bl_figure *f = bl_fig_new(1, 1, "A title much too long for the seventy columns of this terminal picture, cut");
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "base", x, zero, 11, 0);
    bl_panel_line(p, "wide", x, top, 11, 0);
    int k = bl_panel_band(p, x, lo, hi, 11);
    CHECK(k >= 0 && bl_series_legend(p, k, "gap") == 0, "%s", bl_error());
    bl_panel_line(p, "val a", x, va, 11, BL_MARKERS | BL_NO_LINE);
    bl_panel_line(p, "val b", x, vb, 11, BL_MARKERS | BL_NO_LINE);
    for (int ascii = 0; ascii < 2; ascii++) {
        char *out = render_h(f, 70, 20, ascii);
        const char *shade = ascii ? ":" : "\u2591";
        /* the shade in the plot: the rows above the legend */
        char *leg = strstr(out, ascii ? "* base" : "base");
        int n = 0;
        for (char *q = out; leg && q < leg && (q = strstr(q, shade)) && q < leg; q += strlen(shade)) n++;
        CHECK(n >= 60, "ascii %d: %d shaded cells in the plot, want the band's (about 10 rows x 60 columns less the lines):\n%s",
              ascii, n, out);
        const char *keys[3][2] = { { "\u2591\u2591 gap", ":: gap" }, { "\u25cf val a", "o val a" }, { "\u25a0 val b", "@ val b" } };
        for (int j = 0; j < 3; j++) CHECK(strstr(out, keys[j][ascii]) != NULL, "ascii %d: no legend key '%s':\n%s", ascii, keys[j][ascii], out);
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(out, "\n"), out);
        const char *ell = ascii ? "..." : "\u2026";
        size_t fl = strlen(first), el = strlen(ell);
        CHECK(fl >= el && !strcmp(first + fl - el, ell) && bl_utf8_len(first) <= 70, "ascii %d: title line '%s' (%d columns)", ascii,
              first, bl_utf8_len(first));
        free(out);
    }
    bl_fig_free(f);
}

/* The terminal's own sample grid is the PNG's (bl_grid_square_cols): 16 white 32 x 32 images
 * in a window of 160 x 40 are 4 x 4 (the terminal chose the largest, 2 x 8, which leaves the
 * window's height half empty), each image a block of ink with blank columns and rows between,
 * and the grid fits the window's 40 rows. */
BL_TEST(test_images_grid_most_square)
{
    enum { N = 16, S = 32 };
    float *im = malloc(sizeof(float) * N * 3 * S * S);
    for (int i = 0; i < N * 3 * S * S; i++) im[i] = 1;
    bl_figure *f = bl_fig_new(1, 1, "samples");
    CHECK(bl_panel_images(bl_fig_panel(f, 0), im, N, 3, S, S, -1, 1, 0) == 0, "%s", bl_error());
    char *out = render_h(f, 160, 40, 1);
    int lines = 0, rows = 0, cols = 0, in_row = 0;
    for (char *line = strchr(out, '\n') + 1, *end; *line; line = end + 1) {   /* after the title */
        if (!(end = strchr(line, '\n'))) break;
        *end = '\0';
        lines++;
        int ink = strspn(line, " ") < strlen(line);
        if (ink && !in_row) {
            rows++;
            int runs = 0;
            for (char *c = line; *c; c++) runs += *c != ' ' && (c == line || c[-1] == ' ');
            if (cols == 0) cols = runs;
        }
        in_row = ink;
    }
    CHECK(rows == 4 && cols == 4, "16 images in %d columns, %d rows; want 4 x 4", cols, rows);
    CHECK(lines + 1 <= 40, "%d rows, taller than the window's 40", lines + 1);
    free(out);
    free(im);
    bl_fig_free(f);
}

int main(void)
{
    RUN(test_diagonal_nocolor);
    RUN(test_flat_line_on_its_tick);
    RUN(test_val_markers_differ);
    RUN(test_one_cell_heatmap_ticks);
    RUN(test_loss_nocolor);
    RUN(test_loss_256);
    RUN(test_loss_ascii);
    RUN(test_heat_nocolor);
    RUN(test_heat_256);
    RUN(test_heat_truecolor);
    RUN(test_images_256);
    RUN(test_images_nocolor);
    RUN(test_constant_heatmap_one_colour);
    RUN(test_heat_row_labels_thinned);
    RUN(test_heat_col_labels_even);
    RUN(test_log_x_ticks_cover_data);
    RUN(test_band_drawn_and_keys_distinct);
    RUN(test_images_grid_most_square);
    return bl_test_done();
}
