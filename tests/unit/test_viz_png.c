/* test_viz_png.c - PNG, SVG, CSV and JSON files: PNGs read back with libpng (size, colour type,
 * tEXt chunks, pixels at known places), SVG checked by xmllint when installed, the numbers of
 * CSV/JSON against the inputs, and the errors (unknown type, missing directory, log of a negative
 * value) leaving no file behind. */
#include "core/error.h"
#include "viz/color.h"
#include "viz/plot.h"
#include "../check.h"
#include "layout_check.h"
#include <dirent.h>
#include <jansson.h>
#include <png.h>
#include <unistd.h>

static char dir[256];

typedef struct {
    int w, h, color_type, depth;
    unsigned char *rgb; /* w * h * 3 */
    char software[64], title[128], command[128], config[128];
} image;

static int read_png(const char *path, image *im)
{
    memset(im, 0, sizeof *im);
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(fp);
        return -1;
    }
    png_init_io(png, fp);
    png_read_info(png, info);
    im->w = (int)png_get_image_width(png, info);
    im->h = (int)png_get_image_height(png, info);
    im->color_type = png_get_color_type(png, info);
    im->depth = png_get_bit_depth(png, info);
    png_textp text;
    int nt = 0;
    png_get_text(png, info, &text, &nt);
    for (int i = 0; i < nt; i++) {
        char *dst = !strcmp(text[i].key, "Software") ? im->software : !strcmp(text[i].key, "Title") ? im->title
                  : !strcmp(text[i].key, "Command") ? im->command : !strcmp(text[i].key, "Config") ? im->config : NULL;
        if (dst) snprintf(dst, 64, "%s", text[i].text);
    }
    if (im->color_type == PNG_COLOR_TYPE_RGB && im->depth == 8) {
        im->rgb = malloc((size_t)im->w * im->h * 3);
        for (int y = 0; y < im->h; y++) png_read_row(png, im->rgb + (size_t)y * im->w * 3, NULL);
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    return 0;
}

static uint32_t px(const image *im, int x, int y)
{
    const unsigned char *p = im->rgb + ((size_t)y * im->w + x) * 3;
    return (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
}

static int near(uint32_t a, uint32_t b, int tol)
{
    for (int s = 0; s <= 16; s += 8)
        if (abs((int)((a >> s) & 255) - (int)((b >> s) & 255)) > tol) return 0;
    return 1;
}

/* The box of a heatmap of colour c: the columns and rows holding at least 50 pixels of it (the
 * colour bar holds a thin band of it too). Returns the number of pixels of colour c. */
static int map_box(const image *im, uint32_t c, int *x0, int *y0, int *x1, int *y1)
{
    int count = 0, *col = calloc((size_t)im->w, sizeof *col), *row = calloc((size_t)im->h, sizeof *row);
    *x0 = im->w, *y0 = im->h, *x1 = -1, *y1 = -1;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++)
            if (px(im, x, y) == c) count++, col[x]++, row[y]++;
    for (int x = 0; x < im->w; x++)
        if (col[x] >= 50) *x0 = x < *x0 ? x : *x0, *x1 = x;
    for (int y = 0; y < im->h; y++)
        if (row[y] >= 50) *y0 = y < *y0 ? y : *y0, *y1 = y;
    free(col), free(row);
    return count;
}

static char *path_of(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

/* a constant heatmap is one colour, filling a rectangle; the colour bar ends are the map's ends */
BL_TEST(test_png_constant_heatmap)
{
    float v[6 * 8];
    for (int i = 0; i < 48; i++) v[i] = 0.25f;
    bl_figure *f = bl_fig_new(1, 1, "constant");
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 6, 8, BL_CMAP_VIRIDIS);
    bl_fig_meta(f, "attn > constant.png", "model=tinygpt norm=rmsnorm");
    CHECK(bl_fig_save(f, path_of("constant.png"), &(bl_save_opts){640, 400, 1}) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("constant.png"), &im) == 0, "cannot read the PNG back");
    CHECK(im.w == 640 && im.h == 400, "size %d x %d", im.w, im.h);
    CHECK(im.color_type == PNG_COLOR_TYPE_RGB && im.depth == 8, "colour type %d depth %d", im.color_type, im.depth);
    CHECK(!strcmp(im.software, "blocklab 0.1.0"), "Software '%s'", im.software);
    CHECK(!strcmp(im.title, "constant"), "Title '%s'", im.title);
    CHECK(!strcmp(im.command, "attn > constant.png"), "Command '%s'", im.command);
    CHECK(!strcmp(im.config, "model=tinygpt norm=rmsnorm"), "Config '%s'", im.config);
    if (!im.rgb) return;
    CHECK(px(&im, 2, 2) == 0xffffff, "background %06x", px(&im, 2, 2));
    /* a flat map sits in the middle of its colour range: viridis(0.5) */
    uint32_t mid = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0.5), top = bl_cmap_rgb(BL_CMAP_VIRIDIS, 1),
             bot = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0);
    int x0, y0, x1, y1, count = map_box(&im, mid, &x0, &y0, &x1, &y1);
    CHECK(count > 20000, "only %d pixels in the map colour", count);
    /* the whole inside of that box is the one colour (no seams between cells) */
    int off = 0;
    for (int y = y0 + 2; y <= y1 - 2; y++)
        for (int x = x0 + 2; x <= x1 - 2; x++) off += px(&im, x, y) != mid;
    CHECK(off == 0, "%d pixels inside the heatmap differ", off);
    /* 8 x 6 square cells: the box is 4:3 */
    CHECK_CLOSE((double)(x1 - x0 + 1) / (y1 - y0 + 1), 8.0 / 6.0, 0.03);
    /* the colour bar right of the map: its top pixels are viridis(1), its bottom pixels viridis(0) */
    int bx = -1, gap = 0; /* past the map's frame, a white gap, then the bar */
    for (int x = x1 + 1; x < im.w && bx < 0; x++)
        if (!gap) gap = px(&im, x, (y0 + y1) / 2) == 0xffffff;
        else
    { /* the first colourful pixel (not white, grey or black) on the middle row */
        uint32_t c = px(&im, x, (y0 + y1) / 2);
        int r = c >> 16, g = (c >> 8) & 255, b = c & 255;
        int hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
        if (hi - lo > 40) bx = x;
    }
    CHECK(bx > 0, "no colour bar right of the map");
    if (bx > 0) {
        int cx = bx + 3;
        CHECK(px(&im, cx, y0 + 1) == top, "bar top %06x, want %06x", px(&im, cx, y0 + 1), top);
        CHECK(px(&im, cx, y1 - 1) == bot, "bar bottom %06x, want %06x", px(&im, cx, y1 - 1), bot);
    }
    free(im.rgb);
    bl_fig_free(f);
}

/* a marked cell: a vermilion outline inside cell (1, 2) of a flat 4 x 4 map and nowhere else;
 * the cell's middle keeps the map colour */
BL_TEST(test_png_marked_cell)
{
    float v[16];
    for (int i = 0; i < 16; i++) v[i] = 0.5f;
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_heatmap(p, v, 4, 4, BL_CMAP_VIRIDIS);
    CHECK(bl_panel_heatmap_mark(p, 4, 0) < 0, "mark off the map accepted");
    CHECK_ERR("plot: mark (4, 0) is outside the 4 x 4 heatmap");
    CHECK(bl_panel_heatmap_mark(p, 1, 2) == 0, "%s", bl_error());
    CHECK(bl_fig_save(f, path_of("mark.png"), &(bl_save_opts){640, 400, 1}) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("mark.png"), &im) == 0, "cannot read the PNG back");
    if (!im.rgb) return;
    uint32_t mid = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0.5), mark = 0xe8250c;
    int x0, y0, x1, y1;
    map_box(&im, mid, &x0, &y0, &x1, &y1);
    double cw = (x1 - x0 + 1) / 4.0, ch = (y1 - y0 + 1) / 4.0;
    int inside = 0, outside = 0;
    for (int y = 0; y < im.h; y++)
        for (int x = 0; x < im.w; x++)
            if (near(px(&im, x, y), mark, 8)) {
                int in = x >= x0 + 2 * cw - 1 && x <= x0 + 3 * cw + 1 && y >= y0 + ch - 1 && y <= y0 + 2 * ch + 1;
                in ? inside++ : outside++;
            }
    CHECK(inside > 40 && outside == 0, "%d outline pixels in the cell, %d outside it", inside, outside);
    CHECK(px(&im, (int)(x0 + 2.5 * cw), (int)(y0 + 1.5 * ch)) == mid, "middle of the marked cell %06x",
          px(&im, (int)(x0 + 2.5 * cw), (int)(y0 + 1.5 * ch)));
    CHECK(near(px(&im, (int)(x0 + 2 * cw + 1), (int)(y0 + 1.5 * ch)), mark, 8), "left edge of the cell %06x",
          px(&im, (int)(x0 + 2 * cw + 1), (int)(y0 + 1.5 * ch)));
    free(im.rgb);
    bl_fig_free(f);
    bl_figure *g = bl_fig_new(1, 1, NULL);
    CHECK(bl_panel_heatmap_mark(bl_fig_panel(g, 0), 0, 0) < 0, "mark on an empty panel accepted");
    CHECK_ERR("plot: mark set on a panel without a heatmap");
    bl_fig_free(g);
}

/* small multiples of heatmaps (`attn` of 4 heads: a 2 x 2 grid of 8 x 8 maps) sit side by side,
 * not each in the middle of half the page. At 1600 x 900 (u = 1): rows of 394 units from y = 68
 * (24 margin + 44 title, 20 between rows of maps: draw.c's MAPS_GAP_Y), a map from 10 below the
 * row's top to 30 above its bottom: 354 x 354, cells 44.25. Between the maps of a row (one colour bar for the figure, right
 * of the grid, none between them): 8, then the next panel's room for a y label 30 + 12 and its
 * row labels ("7", about 10): about 62 (it was 448, each map centred in a 758-wide half). The grid
 * is centred: its maps' middle is left of the page's by half of bar minus label room, about 14. */
BL_TEST(test_png_heatmap_grid_compact)
{
    float v[4][64];
    const float level[4] = {0.2f, 0.4f, 0.6f, 0.8f};
    bl_figure *f = bl_fig_new(2, 2, "four heads");
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 64; i++) v[k][i] = level[k];
        bl_panel *p = bl_fig_panel(f, k);
        bl_panel_heatmap(p, v[k], 8, 8, BL_CMAP_VIRIDIS);
        bl_panel_heatmap_range(p, 0, 1);
        bl_panel_labels(p, NULL, "key", "query");
    }
    CHECK(bl_fig_save(f, path_of("grid.png"), NULL) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("grid.png"), &im) == 0 && im.rgb, "cannot read the PNG back");
    if (!im.rgb) return;
    int x0[4], y0[4], x1[4], y1[4];
    for (int k = 0; k < 4; k++) {
        int n = map_box(&im, bl_cmap_rgb(BL_CMAP_VIRIDIS, level[k]), &x0[k], &y0[k], &x1[k], &y1[k]);
        CHECK(n > 100000, "map %d: %d pixels", k, n);
        CHECK(abs(x1[k] - x0[k] + 1 - 354) <= 2 && abs(y1[k] - y0[k] + 1 - 354) <= 2, "map %d is %d x %d, want 354 x 354",
              k, x1[k] - x0[k] + 1, y1[k] - y0[k] + 1);
    }
    CHECK(abs(y0[0] - 78) <= 1 && abs(y0[2] - (68 + 394 + 20 + 10)) <= 1, "rows at %d and %d", y0[0], y0[2]);
    for (int r = 0; r < 2; r++) {
        int between = x0[2 * r + 1] - (x1[2 * r] + 1);
        CHECK(between > 45 && between < 80, "row %d: %d pixels between the maps, want about 62", r, between);
        CHECK(x0[2 * r] == x0[0] && x0[2 * r + 1] == x0[1], "columns not aligned: %d %d / %d %d", x0[0], x0[1], x0[2], x0[3]);
    }
    double middle = (x0[0] + x1[1] + 1) / 2.0;
    CHECK(middle > 800 - 30 && middle < 800, "maps' middle at %.1f, want about 786", middle);
    free(im.rgb);
    bl_fig_free(f);
}

/* annotated cells: white text on the dark teal of viridis(0.5), inside the cells */
BL_TEST(test_png_annotated_heatmap)
{
    float v[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 2, 2, BL_CMAP_VIRIDIS);
    CHECK(bl_panel_heatmap_annotate(bl_fig_panel(f, 0), "%.2f") == 0, "%s", bl_error());
    CHECK(bl_fig_save(f, path_of("annot.png"), &(bl_save_opts){800, 450, 1}) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("annot.png"), &im) == 0 && im.rgb, "cannot read the PNG back");
    if (!im.rgb) return;
    uint32_t mid = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0.5);
    int x0, y0, x1, y1, white = 0;
    CHECK(map_box(&im, mid, &x0, &y0, &x1, &y1) > 10000, "no heatmap");
    for (int y = y0 + 2; y < y1 - 2; y++)
        for (int x = x0 + 2; x < x1 - 2; x++) white += bl_rgb_luma(px(&im, x, y)) > 0.8;
    CHECK(white > 40, "%d light text pixels inside the map", white);
    free(im.rgb);
    bl_fig_free(f);
}

/* a line from (0, 0) to (1, 1) on [0, 1] x [0, 1] lights the diagonal of the plot area */
BL_TEST(test_png_diagonal)
{
    float x[2] = {0, 1}, y[2] = {0, 1};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "", x, y, 2, 0);
    bl_panel_limits(p, 'x', 0, 1);
    bl_panel_limits(p, 'y', 0, 1);
    CHECK(bl_fig_save(f, path_of("diag.png"), &(bl_save_opts){500, 500, 2}) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("diag.png"), &im) == 0 && im.rgb, "cannot read the PNG back");
    CHECK(im.w == 1000 && im.h == 1000, "scale 2: %d x %d", im.w, im.h);
    if (!im.rgb) return;
    uint32_t blue = bl_palette(0);
    int x0 = im.w, y0 = im.h, x1 = -1, y1 = -1, n = 0;
    for (int yy = 0; yy < im.h; yy++)
        for (int xx = 0; xx < im.w; xx++)
            if (near(px(&im, xx, yy), blue, 24)) {
                n++;
                x0 = xx < x0 ? xx : x0, x1 = xx > x1 ? xx : x1, y0 = yy < y0 ? yy : y0, y1 = yy > y1 ? yy : y1;
            }
    CHECK(n > 500 && x1 - x0 > 500 && y1 - y0 > 500, "line pixels %d in %d..%d x %d..%d", n, x0, x1, y0, y1);
    /* every line pixel is near the rising diagonal of its bounding box */
    int off = 0;
    for (int yy = y0; yy <= y1; yy++)
        for (int xx = x0; xx <= x1; xx++)
            if (near(px(&im, xx, yy), blue, 24)) {
                double u = (double)(xx - x0) / (x1 - x0), v = (double)(y1 - yy) / (y1 - y0);
                off += fabs(u - v) > 0.02;
            }
    CHECK(off == 0, "%d line pixels off the diagonal", off);
    /* the diagonal's middle is lit, the other two corners of the box are not */
    int cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, lit = 0;
    for (int d = -3; d <= 3; d++) lit |= near(px(&im, cx + d, cy), blue, 24);
    CHECK(lit, "middle of the diagonal not drawn");
    CHECK(!near(px(&im, x0 + 5, y0 + 5), blue, 60) && !near(px(&im, x1 - 5, y1 - 5), blue, 60), "off-diagonal corner lit");
    free(im.rgb);
    bl_fig_free(f);
}

/* a log x axis fitted to its data reaches to a labelled tick past it: x from 1 to 16 (the range of
 * `qk growth`) is fitted to 16^-0.02 .. 16^1.02 = 0.946 .. 16.9 (2% margin), whose ticks are the
 * 1 2 5 ones, 1 2 5 10; 16 is past the last, so the axis goes on to the next, 20. The picture has a
 * grid line at each of 1 2 5 10 20, placed by log10: 20 is log10(20) = 1.301 times as far from 1
 * as 10 is, and the curve (y = 0.5) ends at x = 16, 1.204 times as far, before the last line. */
BL_TEST(test_png_log_x_covers_data)
{
    float x[5] = {1, 2, 4, 8, 16}, y[5] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "", x, y, 5, 0);
    bl_panel_limits(p, 'y', 0, 1);
    bl_panel_log(p, 1, 0);
    CHECK(bl_fig_save(f, path_of("logx.png"), NULL) == 0, "%s", bl_error());
    bl_fig_free(f);
    image im;
    CHECK(read_png(path_of("logx.png"), &im) == 0 && im.rgb, "cannot read the PNG back");
    if (!im.rgb) return;
    /* vertical grid lines: columns of which most pixels are light grey (antialiased: one line can
     * light two columns; its place is their darkness-weighted mean) */
    double g[16], wsum = 0, xsum = 0;
    int ng = 0;
    for (int xx = 0; xx <= im.w; xx++) {
        int grey = 0;
        double dark = 0;
        for (int yy = 0; xx < im.w && yy < im.h; yy++) {
            uint32_t c = px(&im, xx, yy);
            double l = bl_rgb_luma(c);
            if (l > 0.7 && l < 0.99 && near(c, 0xe6e6e6, 40)) grey++, dark += 1 - l;
        }
        if (grey > im.h / 2) wsum += dark, xsum += dark * xx;
        else if (wsum > 0) {
            if (ng < 16) g[ng++] = xsum / wsum;
            wsum = xsum = 0;
        }
    }
    CHECK(ng == 5, "%d vertical grid lines, want 5 (1 2 5 10 20)", ng);
    if (ng == 5) {
        double ratio = (g[4] - g[0]) / (g[3] - g[0]);
        CHECK(fabs(ratio - log10(20)) < 0.005, "grid lines at %.1f .. %.1f: 20 at %.4f of the way to 10, want %.4f",
              g[0], g[4], ratio, log10(20));
        /* the rightmost pixel of the curve: x = 16 plus the round cap (1.3 px) */
        uint32_t blue = bl_palette(0);
        int right = -1;
        for (int yy = 0; yy < im.h; yy++)
            for (int xx = 0; xx < im.w; xx++)
                if (near(px(&im, xx, yy), blue, 24) && xx > right) right = xx;
        double want = g[0] + log10(16) * (g[3] - g[0]);
        CHECK(fabs(right - want) < 3 && right < g[4] - 20, "curve ends at %d, want about %.1f (the last line at %.1f)",
              right, want, g[4]);
    }
    free(im.rgb);
}

/* width= alone keeps the default 16:9 shape (as matplotlib's figsize or gnuplot's size with one
 * number would not, but as a slide picture should: 400 wide is 400 x 225, not a 400 x 900
 * strip); height= alone likewise; both are kept as given; the other side keeps the shape (100
 * wide is 100 x 56: it was held at 100 or more, a square) and is at most 8000. */
BL_TEST(test_size_follows_aspect)
{
    float y[3] = {1, 3, 2};
    bl_figure *f = bl_fig_new(1, 1, "shape");
    bl_panel_line(bl_fig_panel(f, 0), "a", NULL, y, 3, 0);
    const struct {
        int w, h, want_w, want_h;
    } c[] = { {400, 0, 400, 225}, {0, 450, 800, 450}, {400, 300, 400, 300}, {0, 0, 1600, 900}, {300, 0, 300, 169},
              {100, 0, 100, 56}, {0, 100, 178, 100}, {0, 4500, 8000, 4500},
              /* the other side stays in the one range of a side, 100 to 8000 (it was 14222) */
              {0, 8000, 8000, 8000} };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int w = -1, h = -1;
        bl_fig_size(c[i].w, c[i].h, &w, &h);
        CHECK(w == c[i].want_w && h == c[i].want_h, "width %d height %d: %d x %d, want %d x %d", c[i].w, c[i].h, w, h,
              c[i].want_w, c[i].want_h);
    }
    CHECK(bl_fig_save(f, path_of("w400.png"), &(bl_save_opts){400, 0, 1}) == 0, "%s", bl_error());
    image im;
    CHECK(read_png(path_of("w400.png"), &im) == 0 && im.w == 400 && im.h == 225, "width 400: %d x %d, want 400 x 225",
          im.w, im.h);
    free(im.rgb);
    CHECK(bl_fig_save(f, path_of("h450.svg"), &(bl_save_opts){0, 450, 1}) == 0, "%s", bl_error());
    char head[256] = {0};
    FILE *fp = fopen(path_of("h450.svg"), "r");
    if (fp) fread(head, 1, sizeof head - 1, fp), fclose(fp);
    CHECK(strstr(head, "width=\"800") && strstr(head, "height=\"450"), "height 450 alone: %.200s", head);
    bl_fig_free(f);
}

/* Draw f at w x h (0: from the other side) as a .png and a .svg with the layout recorded and
 * check it (layout_check.h); `what` names the case in the messages. */
static void check_layout(const bl_figure *f, int w, int h, const char *what)
{
    static bl_layout lay;
    const char *ext[2] = {"png", "svg"};
    for (int k = 0; k < 2; k++) {
        char name[64], why[1024];
        snprintf(name, sizeof name, "layout.%s", ext[k]);
        bl_draw_trace(&lay);
        int rc = bl_fig_save(f, path_of(name), &(bl_save_opts){w, h, 1});
        bl_draw_trace(NULL);
        CHECK(rc == 0, "%s: %s", what, bl_error());
        int bad = layout_problems(&lay, why, sizeof why);
        CHECK(bad == 0, "%s at %d x %d (%s): %d problems: %s", what, w, h, ext[k], bad, why);
    }
}

/* Titles, panel titles and axis labels at any size: shrunk, then cut with an ellipsis, never
 * clipped at the page's edges nor over each other; a grid of heatmaps, mixed panels (the shape of
 * `rope table`), an image grid and a text panel, each with long titles, at 300, 400, 800 and
 * 1600 wide (heights from the default shape) and a few fixed shapes. */
BL_TEST(test_layout_titles_fit)
{
    static float v[64 * 64], pix[16 * 3 * 8 * 8];
    float y[50];
    for (int i = 0; i < 64 * 64; i++) v[i] = sinf(i * 0.37f);
    for (int i = 0; i < 16 * 3 * 64; i++) pix[i] = (float)((i * 7) % 11) / 10;
    for (int i = 0; i < 50; i++) y[i] = 1 + i * 0.5f;
    bl_figure *fs[4];
    const char *names[4] = {"four heatmaps", "heatmaps and lines", "image grid", "text"};
    fs[0] = bl_fig_new(2, 2, "TinyDiT layer 0 attention, shapes 0 (checker), t = 0.5, a title longer than most");
    for (int k = 0; k < 4; k++) {
        bl_panel *p = bl_fig_panel(fs[0], k);
        bl_panel_heatmap(p, v, 64, 64, BL_CMAP_VIRIDIS);
        bl_panel_labels(p, k == 3 ? "head 3, the last of the heads of this layer" : "head", "key", "query");
    }
    fs[1] = bl_fig_new(1, 3, "RoPE tables: 64 tokens, head_dim 32, base 10000");
    for (int k = 0; k < 2; k++) {
        bl_panel *p = bl_fig_panel(fs[1], k);
        bl_panel_heatmap(p, v, 64, 32, BL_CMAP_DIVERGING);
        bl_panel_labels(p, k ? "sin [tokens, head_dim]" : "cos [tokens, head_dim]", "feature", "position");
    }
    bl_panel *lp = bl_fig_panel(fs[1], 2);
    bl_panel_line(lp, "pair 0", NULL, y, 50, 0);
    bl_panel_labels(lp, "angle of each pair", "position", "angle (radians)");
    bl_panel_log(lp, 0, 1);
    fs[2] = bl_fig_new(1, 1, "TinyDiT samples: step 300, 20 Euler steps, seed 0, sixteen images of shapes");
    bl_panel_images(bl_fig_panel(fs[2], 0), pix, 16, 3, 8, 8, 0, 1, 0);
    bl_panel_labels(bl_fig_panel(fs[2], 0), "the samples after three hundred steps of training", NULL, NULL);
    fs[3] = bl_fig_new(1, 2, "TinyGPT samples at temperature 1 and 0.5, two hundred characters each");
    bl_panel_text(bl_fig_panel(fs[3], 0), "the quick brown fox jumps over the lazy dog\nagain and again");
    bl_panel_labels(bl_fig_panel(fs[3], 0), "temperature 1, top_k 0, seed 0", NULL, NULL);
    bl_panel_text(bl_fig_panel(fs[3], 1), "the lazy dog sleeps");
    bl_panel_labels(bl_fig_panel(fs[3], 1), "temperature 0.5, top_k 0, seed 0", NULL, NULL);
    const int sizes[][2] = { {300, 0}, {400, 0}, {800, 0}, {0, 0}, {400, 900}, {1600, 300}, {500, 500} };
    for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) check_layout(fs[k], sizes[i][0], sizes[i][1], names[k]);
    /* the title keeps its size where it fits, and is cut only as a last resort */
    static bl_layout lay;
    bl_draw_trace(&lay);
    bl_fig_save(fs[1], path_of("rt.png"), NULL);
    bl_draw_trace(NULL);
    CHECK(lay.ntext > 0 && lay.text[0].role == BL_TEXT_TITLE && fabs(lay.text[0].size - 28) < 1e-6 &&
              !strcmp(lay.text[0].text, "RoPE tables: 64 tokens, head_dim 32, base 10000"),
          "the title at 1600 x 900: '%s' at %.2f px", lay.text[0].text, lay.text[0].size);
    bl_draw_trace(&lay);
    bl_fig_save(fs[0], path_of("a300.png"), &(bl_save_opts){300, 0, 1});
    bl_draw_trace(NULL);
    /* too long even at its smallest size: two lines, split after a comma, the second cut at its
     * end if it must be */
    const char *t = lay.text[0].text, *t2 = lay.ntext > 1 ? lay.text[1].text : "";
    size_t n = strlen(t2);
    CHECK(lay.text[0].role == BL_TEXT_TITLE && lay.text[1].role == BL_TEXT_TITLE && !strncmp(t, "TinyDiT layer", 13) &&
              t[strlen(t) - 1] == ',' && n > 3 && (!strcmp(t2 + n - 3, "\xe2\x80\xa6") || !strcmp(t2, "a title longer than most")),
          "the long title at 300 wide: '%s' / '%s', want two lines, the first ending at a comma", t, t2);
    for (int k = 0; k < 4; k++) bl_fig_free(fs[k]);
}

/* Image panels with overlays (attn query='s heads): one colour bar right of the grid when all
 * overlays have one range (each panel drew its own, all alike), one per panel when their ranges
 * differ; the images of one size either way. */
BL_TEST(test_overlay_bars_one_per_range)
{
    static float pix[3 * 8 * 8], att[4][16];
    for (int i = 0; i < 3 * 64; i++) pix[i] = (float)((i * 7) % 11) / 10;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 16; i++) att[k][i] = (float)((i * (k + 3)) % 7) / 7;
    static bl_layout lay;
    for (int same = 0; same < 2; same++) {
        bl_figure *f = bl_fig_new(2, 2, "heads");
        for (int k = 0; k < 4; k++) {
            bl_panel *p = bl_fig_panel(f, k);
            bl_panel_images(p, pix, 1, 3, 8, 8, 0, 1, 0);
            bl_panel_images_overlay(p, att[k], 4, 4, 0.6f);
            bl_panel_images_overlay_range(p, 0, same ? 1 : 1 + k);
            bl_panel_labels(p, "head", NULL, NULL);
        }
        for (int z = 0; z < 2; z++) {
            bl_draw_trace(&lay);
            int rc = bl_fig_save(f, path_of("ovbar.png"), &(bl_save_opts){z ? 800 : 1600, z ? 450 : 900, 1});
            bl_draw_trace(NULL);
            CHECK(rc == 0, "%s", bl_error());
            int bars = 0, images = 0;
            double lo = INFINITY, hi = 0;
            for (int b = 0; b < lay.nblock; b++) {
                const bl_block_box *x = &lay.block[b];
                bars += x->kind == BL_BLOCK_BAR;
                if (x->kind != BL_BLOCK_IMAGE) continue;
                images++, lo = fmin(lo, x->x1 - x->x0), hi = fmax(hi, x->x1 - x->x0);
            }
            CHECK(bars == (same ? 1 : 4), "%s ranges at %s: %d colour bars, want %d", same ? "one" : "four",
                  z ? "800 x 450" : "1600 x 900", bars, same ? 1 : 4);
            CHECK(images == 4 && hi - lo < 1, "%d images of %.1f .. %.1f pixels", images, lo, hi);
        }
        bl_fig_free(f);
    }
}

BL_TEST(test_svg)
{
    float y[5] = {1, 3, 2, 5, 4}, h[4] = {0, 1, 2, 3};
    bl_figure *f = bl_fig_new(1, 2, "svg & <xml> check");
    bl_panel_line(bl_fig_panel(f, 0), "a", NULL, y, 5, BL_MARKERS);
    bl_panel_heatmap(bl_fig_panel(f, 1), h, 2, 2, BL_CMAP_DIVERGING);
    CHECK(bl_fig_save(f, path_of("fig.svg"), NULL) == 0, "%s", bl_error());
    FILE *fp = fopen(path_of("fig.svg"), "r");
    char head[256] = {0};
    if (fp) fread(head, 1, sizeof head - 1, fp), fclose(fp);
    CHECK(strstr(head, "<svg") != NULL, "not an SVG: %.60s", head);
    CHECK(strstr(head, "width=\"1600") && strstr(head, "height=\"900"), "default size: %.200s", head);
    bl_fig_free(f);
    if (system("command -v xmllint >/dev/null 2>&1") != 0) SKIP("xmllint missing");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path_of("fig.svg"));
    CHECK(system(cmd) == 0, "xmllint rejects the SVG");
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return strdup("");
    char *buf = calloc(1, 1 << 16);
    fread(buf, 1, (1 << 16) - 1, fp);
    fclose(fp);
    return buf;
}

/* .csv is one table with one header row of unique names (pandas.read_csv reads it as it is): a
 * figure's own table, else its one panel of numbers, else its panels of one kind stacked with a
 * "panel" column; panels of different kinds without a table are refused. */
BL_TEST(test_csv)
{
    float x[3] = {0, 10, 20}, y[3] = {2.5f, 1.25f, NAN}, v[4] = {1, 2, 3, 4};
    const char *r[2] = {"a", "b,c"}, *c[2] = {"x", "\"q\""};
    /* one lines panel */
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel_line(bl_fig_panel(f, 0), "run 1", x, y, 3, 0);
    CHECK(bl_fig_save(f, path_of("n.csv"), NULL) == 0, "%s", bl_error());
    char *s = slurp(path_of("n.csv"));
    CHECK(!strcmp(s, "series,x,y\nrun 1,0,2.5\nrun 1,10,1.25\nrun 1,20,nan\n"), "lines csv:\n%s", s);
    free(s);
    bl_fig_free(f);
    /* one heatmap: the matrix, labels quoted as RFC 4180 says */
    f = bl_fig_new(1, 1, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 2, 2, BL_CMAP_VIRIDIS);
    bl_panel_heatmap_labels(bl_fig_panel(f, 0), r, c);
    CHECK(bl_fig_save(f, path_of("n.csv"), NULL) == 0, "%s", bl_error());
    s = slurp(path_of("n.csv"));
    CHECK(!strcmp(s, "row\\col,x,\"\"\"q\"\"\"\na,1,2\n\"b,c\",3,4\n"), "heatmap csv:\n%s", s);
    free(s);
    bl_fig_free(f);
    /* two heatmaps (and a text panel, left out): one long table */
    f = bl_fig_new(1, 3, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 1, 2, BL_CMAP_VIRIDIS);
    bl_panel_text(bl_fig_panel(f, 1), "note");
    bl_panel_heatmap(bl_fig_panel(f, 2), v + 2, 2, 1, BL_CMAP_VIRIDIS);
    CHECK(bl_fig_save(f, path_of("n.csv"), NULL) == 0, "%s", bl_error());
    s = slurp(path_of("n.csv"));
    CHECK(!strcmp(s, "panel,row,col,value\n0,0,0,1\n0,0,1,2\n2,0,0,3\n2,1,0,4\n"), "two heatmaps csv:\n%s", s);
    free(s);
    /* a line panel beside them: no single table, the file is not written */
    bl_figure *g = bl_fig_new(1, 2, NULL);
    bl_panel_line(bl_fig_panel(g, 0), "run 1", x, y, 3, 0);
    bl_panel_heatmap(bl_fig_panel(g, 1), v, 2, 2, BL_CMAP_VIRIDIS);
    remove(path_of("m.csv"));
    CHECK(bl_fig_save(g, path_of("m.csv"), NULL) < 0, "lines + heatmap written as one .csv");
    CHECK_ERR("m.csv: a .csv file holds one table");
    CHECK(access(path_of("m.csv"), F_OK) != 0, "m.csv left behind");
    /* the figure's own table wins over the panels: integers, reals and text */
    const char *names[] = {"panel", "what", "value"};
    CHECK(bl_fig_table(g, names, "isr") == 0, "%s", bl_error());
    CHECK(bl_fig_row(g, 0, "a,b", 0.5) == 0 && bl_fig_row(g, 12, "a,b", 1e-7) == 0 && bl_fig_row(g, -3, "", (double)NAN) == 0,
          "%s", bl_error());
    CHECK(bl_fig_save(g, path_of("m.csv"), NULL) == 0, "%s", bl_error());
    s = slurp(path_of("m.csv"));
    CHECK(!strcmp(s, "panel,what,value\n0,\"a,b\",0.5\n12,\"a,b\",1e-07\n-3,\"\",nan\n"), "table csv:\n%s", s);
    free(s);
    CHECK(bl_fig_table(g, names, "isr") < 0, "a second table accepted");
    const char *dup[] = {"key", "key"};
    CHECK(bl_fig_table(f, dup, "ii") < 0, "repeated column names accepted");
    CHECK_ERR("column name 'key' is repeated");
    bl_fig_free(g);
    bl_fig_free(f);
}

BL_TEST(test_json)
{
    float y[3] = {3, NAN, 1.5f};
    bl_figure *f = bl_fig_new(1, 1, "j");
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_labels(p, NULL, "step", "loss");
    bl_panel_line(p, "train", NULL, y, 3, 0);
    bl_panel_log(p, 0, 1);
    bl_fig_meta(f, "plot loss > j.json", NULL);
    CHECK(bl_fig_save(f, path_of("j.json"), NULL) == 0, "%s", bl_error());
    json_error_t err;
    json_t *root = json_load_file(path_of("j.json"), 0, &err);
    CHECK(root != NULL, "json does not parse: %s", err.text);
    if (root) {
        json_t *s0 = json_array_get(json_object_get(json_array_get(json_object_get(root, "panels"), 0), "series"), 0);
        json_t *ys = json_object_get(s0, "y");
        CHECK(json_array_size(ys) == 3, "3 values");
        CHECK_CLOSE(json_real_value(json_array_get(ys, 0)), 3, 0);
        CHECK(json_is_null(json_array_get(ys, 1)), "NaN must be null");
        CHECK_CLOSE(json_real_value(json_array_get(ys, 2)), 1.5, 0);
        CHECK(!strcmp(json_string_value(json_object_get(json_object_get(root, "meta"), "command")), "plot loss > j.json"), "meta");
        CHECK(json_is_true(json_object_get(json_array_get(json_object_get(root, "panels"), 0), "logy")), "logy");
        json_decref(root);
    }
    bl_fig_free(f);
}

/* no temporary file may be left behind */
static int leftovers(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp") != NULL;
    if (d) closedir(d);
    return n;
}

BL_TEST(test_save_errors)
{
    float y[3] = {1, -2, 3};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "loss", NULL, y, 3, 0);
    CHECK(bl_fig_save(f, path_of("x.bmp"), NULL) == -1, "bmp accepted");
    CHECK_ERR("x.bmp: unknown file type '.bmp' (use .png");
    CHECK(strncmp(bl_error(), "save:", 5), "%s", bl_error());
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.png", dir);
    CHECK(bl_fig_save(f, missing, NULL) == -1, "missing directory accepted");
    CHECK_ERR("/no' does not exist");   /* the first folder missing, not the whole path */
    bl_panel_log(p, 0, 1);
    CHECK(bl_fig_save(f, path_of("neg.png"), NULL) == -1, "log of a negative value saved");
    CHECK_ERR("plot: log y axis needs values > 0, but series 'loss' has -2 at index 1");
    CHECK(access(path_of("neg.png"), F_OK) != 0, "a failed save left a file");
    CHECK(bl_fig_save(f, path_of("big.png"), &(bl_save_opts){1600, 900, 20}) == -1, "scale 20 accepted");
    CHECK_ERR("scale 20 is out of range");
    CHECK(leftovers() == 0, "temporary files left behind");
    /* the txt export is the colourless terminal picture */
    bl_panel_log(p, 0, 0);
    CHECK(bl_fig_save(f, path_of("t.txt"), NULL) == 0, "%s", bl_error());
    char *s = slurp(path_of("t.txt"));
    CHECK(strstr(s, "━━ loss") && !strchr(s, 0x1b), "txt export:\n%s", s);
    free(s);
    bl_fig_free(f);
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') unlink(path_of(e->d_name));
    if (d) closedir(d);
    rmdir(dir);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/blviz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        printf("1..0 # SKIP cannot make a temporary directory\n");
        return 77;
    }
    RUN(test_png_constant_heatmap);
    RUN(test_png_marked_cell);
    RUN(test_png_annotated_heatmap);
    RUN(test_png_heatmap_grid_compact);
    RUN(test_png_diagonal);
    RUN(test_png_log_x_covers_data);
    RUN(test_size_follows_aspect);
    RUN(test_layout_titles_fit);
    RUN(test_overlay_bars_one_per_range);
    RUN(test_svg);
    RUN(test_csv);
    RUN(test_json);
    RUN(test_save_errors);
    if (!getenv("BL_VIZ_KEEP")) cleanup();
    else printf("# files kept in %s\n", dir);
    return bl_test_done();
}
