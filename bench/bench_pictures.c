/* bench_pictures.c - how fast a picture appears on a terminal at 1600 x 900 (issue 16: under
 * 150 ms): the cairo drawing (the PNG's), then each encoding of it: PNG in memory (zlib level 1,
 * as kitty and iTerm2 get it), sixel (libsixel, 256 colours), kitty (PNG + base64 chunks), and
 * the total from the figure to the bytes for sixel and for kitty.
 *
 * The figure is `plot loss` of three runs beside a 64 x 64 attention map: 3 x 2000 points,
 * raw and smoothed, and a heatmap with a colour bar. Median of `rounds` (default 7) of the CPU
 * milliseconds of each step.
 * One JSON object per line. Usage: bench_pictures [rounds]. No assertions.
 */
#include "viz/plot.h"
#include "viz/termimg.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* this process's CPU time: the machines these run on are shared, and wall time there says more
 * about the other jobs than about the picture (the drawing and the encoders run on one thread,
 * so on an idle machine the wall time is the CPU time) */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return v[n / 2];
}

static bl_figure *figure(void)
{
    enum { N = 2000, T = 64 };
    static float x[N], y[N], a[T * T];
    bl_figure *f = bl_fig_new(1, 2, "TinyGPT, 2000 steps");
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_labels(p, "train loss", "step", "loss");
    unsigned s = 1;
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < N; i++) {
            s = s * 1103515245u + 12345u;
            x[i] = (float)i;
            y[i] = (float)(2.5 * exp(-i / (300.0 + 100 * r)) + 0.3 + 0.05 * ((s >> 16) % 1000) / 1000.0);
        }
        char lab[16];
        snprintf(lab, sizeof lab, "run %d", r);
        bl_panel_smoothed(p, lab, x, y, N, 0.9f);
    }
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) a[i * T + j] = j <= i ? (float)exp(-(i - j) / 8.0) : NAN;
    bl_panel_heatmap(bl_fig_panel(f, 1), a, T, T, BL_CMAP_VIRIDIS);
    bl_panel_labels(bl_fig_panel(f, 1), "attention, head 0", NULL, NULL);
    return f;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1) rounds = 1;
    const int W = 1600, H = 900;
    bl_figure *f = figure();
    FILE *null = fopen("/dev/null", "w");
    if (!f || !null) return 1;
    double *tr = malloc(sizeof(double) * rounds), *tp = malloc(sizeof(double) * rounds),
           *ts = malloc(sizeof(double) * rounds), *tk = malloc(sizeof(double) * rounds);
    size_t png_n = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ms();
        cairo_surface_t *s = bl_fig_raster(f, W, H);
        if (!s) return 1;
        double t1 = now_ms();
        unsigned char *png;
        if (bl_png_mem(s, &png, &png_n) < 0) return 1;
        double t2 = now_ms();
        bl_kitty_write(null, png, png_n, 0);
        double t3 = now_ms();
        if (bl_sixel_write(null, s, 0) < 0) ts[r] = NAN;
        else ts[r] = now_ms() - t3;
        tr[r] = t1 - t0, tp[r] = t2 - t1, tk[r] = t3 - t2;
        free(png);
        cairo_surface_destroy(s);
    }
    double render = median(tr, rounds), png = median(tp, rounds), kitty = median(tk, rounds), sixel = median(ts, rounds);
    printf("{\"bench\": \"picture_render\", \"width\": %d, \"height\": %d, \"rounds\": %d, \"ms\": %.1f}\n", W, H, rounds, render);
    printf("{\"bench\": \"picture_png\", \"width\": %d, \"height\": %d, \"bytes\": %zu, \"ms\": %.1f}\n", W, H, png_n, png);
    printf("{\"bench\": \"picture_sixel\", \"width\": %d, \"height\": %d, \"ms\": %.1f, \"total_ms\": %.1f, \"limit_ms\": 150}\n",
           W, H, sixel, render + sixel);
    printf("{\"bench\": \"picture_kitty\", \"width\": %d, \"height\": %d, \"ms\": %.1f, \"total_ms\": %.1f, \"limit_ms\": 150}\n",
           W, H, png + kitty, render + png + kitty);
    bl_fig_free(f);
    fclose(null);
    return 0;
}
