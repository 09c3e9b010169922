/* test_viz.c - the plot description, smoothing, ticks, colour maps and their errors. Expected
 * values are computed by hand (EMA, moving average, log-tick positions) or are the published
 * colour-map ends (matplotlib viridis #440154 / #21918c / #fde725, ColorBrewer RdBu). */
#include "core/error.h"
#include "viz/color.h"
#include "viz/dash.h"
#include "viz/progress.h"
#include "viz/plot.h"
#include "viz/scale.h"
#include "../check.h"
#include "term_testutil.h"

BL_TEST(test_ema_bias_correction)
{
    /* w = 0.5: last = 0.5, 1.25, 2.125; debias 1 - 0.5^k = 0.5, 0.75, 0.875 */
    float y[3] = {1, 2, 3}, out[5];
    CHECK(bl_ema(y, 3, 0.5f, out) == 0, "%s", bl_error());
    CHECK_CLOSE(out[0], 1.0, 1e-6);
    CHECK_CLOSE(out[1], 1.25 / 0.75, 1e-6);
    CHECK_CLOSE(out[2], 2.125 / 0.875, 1e-6);
    /* a NaN passes through and does not count: last = 0.5, then 0.25 + 1.5 = 1.75, debias 0.75 */
    float g[3] = {1, NAN, 3};
    CHECK(bl_ema(g, 3, 0.5f, out) == 0, "%s", bl_error());
    CHECK(isnan(out[1]), "nan kept");
    CHECK_CLOSE(out[2], 1.75 / 0.75, 1e-6);
    /* w = 0.9, constant input: bias correction gives the constant from the first step */
    float c[5] = {2, 2, 2, 2, 2};
    CHECK(bl_ema(c, 5, 0.9f, out) == 0, "%s", bl_error());
    for (int i = 0; i < 5; i++) CHECK_CLOSE(out[i], 2.0, 1e-5);
    /* w = 0 is the identity; in place works */
    float z[3] = {5, -1, 7};
    CHECK(bl_ema(z, 3, 0, z) == 0 && z[0] == 5 && z[1] == -1 && z[2] == 7, "identity");
}

BL_TEST(test_ema_errors)
{
    float y[2] = {1, 2}, out[2];
    CHECK(bl_ema(y, 2, 1.0f, out) == -1, "w = 1 accepted");
    CHECK_ERR("smooth: weight must be in [0, 1), got 1");
    CHECK(bl_ema(y, 2, -0.1f, out) == -1, "w < 0 accepted");
    CHECK(bl_ema(y, 0, 0.5f, out) == -1, "empty accepted");
    CHECK_ERR("smooth: empty series");
}

BL_TEST(test_moving_average_and_downsample)
{
    float y[5] = {1, 2, 3, 4, NAN}, out[5];
    CHECK(bl_moving_average(y, 5, 2, out) == 0, "%s", bl_error());
    CHECK_CLOSE(out[0], 1, 1e-6);
    CHECK_CLOSE(out[1], 1.5, 1e-6);
    CHECK_CLOSE(out[3], 3.5, 1e-6);
    CHECK_CLOSE(out[4], 4, 1e-6); /* only the finite value in the window */
    CHECK(bl_moving_average(y, 5, 0, out) == -1, "window 0 accepted");
    CHECK_ERR("window must be >= 1");
    float x[10], v[10], xo[5], yo[5];
    for (int i = 0; i < 10; i++) x[i] = (float)i, v[i] = (float)(i * i);
    int k = bl_downsample(x, v, 10, 5, xo, yo);
    CHECK(k == 5, "k = %d", k);
    CHECK_CLOSE(xo[0], 0.5, 1e-6);
    CHECK_CLOSE(yo[0], 0.5, 1e-6);     /* (0 + 1) / 2 */
    CHECK_CLOSE(yo[4], 72.5, 1e-6);    /* (64 + 81) / 2 */
    CHECK(bl_downsample(x, v, 10, 1, xo, yo) == -1, "m = 1 accepted");
}

BL_TEST(test_linear_ticks)
{
    double t[16], step;
    bl_scale s = {0, 1, 0};
    int n = bl_scale_ticks(&s, 6, t, 16, &step);
    CHECK(n == 6 && fabs(step - 0.2) < 1e-12, "n = %d step %g", n, step);
    CHECK_CLOSE(t[3], 0.6, 1e-12);
    bl_scale s2 = {-0.13, 4.3, 0};
    n = bl_scale_ticks(&s2, 6, t, 16, &step);
    CHECK(n == 5 && step == 1 && t[0] == 0 && t[4] == 4, "n = %d step %g t0 %g", n, step, t[0]);
    char buf[24];
    CHECK(!strcmp(bl_tick_label(0.25, 0.05, buf, sizeof buf), "0.25"), "%s", buf);
    CHECK(!strcmp(bl_tick_label(200, 100, buf, sizeof buf), "200"), "%s", buf);
    CHECK(!strcmp(bl_tick_label(-0.0, 0.5, buf, sizeof buf), "0"), "%s", buf);
    /* fit: 5% margins, zero width widened */
    bl_scale f;
    bl_scale_fit(&f, 0, 10, 0, 0.05);
    CHECK_CLOSE(f.lo, -0.5, 1e-12);
    CHECK_CLOSE(f.hi, 10.5, 1e-12);
    bl_scale_fit(&f, 3, 3, 0, 0.05);
    CHECK(f.lo < 3 && f.hi > 3, "flat range not widened");
}

BL_TEST(test_log_ticks)
{
    double t[16], step;
    bl_scale s = {0.5, 300, 1};
    int n = bl_scale_ticks(&s, 6, t, 16, &step);
    CHECK(n == 3 && t[0] == 1 && t[1] == 10 && t[2] == 100, "n = %d: %g %g %g", n, t[0], t[1], t[2]);
    /* 10 sits at (log 10 - log 0.5) / (log 300 - log 0.5) */
    CHECK_CLOSE(bl_scale_pos(&s, 10), (1 + log10(2)) / (log10(300) + log10(2)), 1e-12);
    CHECK(isnan(bl_scale_pos(&s, -1)), "log of a negative value must not have a position");
    /* one decade: 1, 2, 5 mantissas (1..9 would be 10 ticks, more than 6 + 1) */
    bl_scale s2 = {0.3, 3, 1};
    n = bl_scale_ticks(&s2, 6, t, 16, &step);
    CHECK(n == 3 && fabs(t[0] - 0.5) < 1e-12 && t[1] == 1 && t[2] == 2, "n = %d: %g %g %g", n, t[0], t[1], t[2]);
    /* many decades are thinned to at most max_ticks + 1: 17 powers, every third */
    bl_scale s3 = {1e-8, 1e8, 1};
    n = bl_scale_ticks(&s3, 5, t, 16, &step);
    CHECK(n >= 3 && n <= 6 && t[0] == 1e-8, "n = %d t0 %g", n, t[0]);
    /* four powers where about three fit are all kept (thinned to 1 100, an axis 1 .. 1000 ended
     * without a label) */
    bl_scale s4 = {1, 1000, 1};
    n = bl_scale_ticks(&s4, 3, t, 16, &step);
    CHECK(n == 4 && t[0] == 1 && t[3] == 1000, "1 .. 1000 with 3: n = %d", n);
    char buf[24];
    CHECK(!strcmp(bl_tick_label(1e-5, 0, buf, sizeof buf), "1e-5"), "%s", buf);
    CHECK(!strcmp(bl_tick_label(0.01, 0, buf, sizeof buf), "0.01"), "%s", buf);
    /* fit in log space: margin 0.5 decade around [1, 100] */
    bl_scale f;
    bl_scale_fit(&f, 1, 100, 1, 0.25);
    CHECK_CLOSE(log10(f.lo), -0.5, 1e-12);
    CHECK_CLOSE(log10(f.hi), 2.5, 1e-12);
}

/* a log axis reaches to ticks past its data (bl_scale_cover); numbers worked by hand */
BL_TEST(test_log_ticks_cover_data)
{
    double t[16], step;
    /* a loss curve from 1.34 down to 0.38 (the PNG's y axis: 5% margin in log units, about 10
     * ticks): the fit 0.357 .. 1.43 has ticks 0.4 0.5 .. 0.9 1, so 1 .. 1.34 had no tick */
    bl_scale s;
    bl_scale_fit(&s, 0.38, 1.34, 1, 0.05);
    int n = bl_scale_ticks(&s, 10, t, 16, &step);
    CHECK(n == 7 && fabs(t[0] - 0.4) < 1e-12 && t[6] == 1, "fit: n = %d, %g .. %g", n, t[0], n ? t[n - 1] : 0);
    /* the next 1..9 ticks: 2 above, 0.3 below; 0.3 .. 2 spans less than a decade and its 9 ticks
     * 0.3 0.4 .. 0.9 1 2 fit in 10 + 1 */
    bl_scale_cover(&s, 0.38, 1.34, 10);
    CHECK_CLOSE(s.lo, 0.3, 1e-12);
    CHECK_CLOSE(s.hi, 2, 1e-12);
    n = bl_scale_ticks(&s, 10, t, 16, &step);
    CHECK(n == 9 && fabs(t[0] - 0.3) < 1e-12 && fabs(t[6] - 0.9) < 1e-12 && t[7] == 1 && t[8] == 2,
          "covered: n = %d: %g .. %g %g %g", n, t[0], t[6], t[7], t[8]);
    /* with room for 6 ticks only (a terminal): 0.3 .. 2 has the 1 2 5 ticks 0.5 1 2, so the bottom
     * goes on to 0.2: 0.2 .. 2 with ticks 0.2 0.5 1 2 */
    bl_scale_fit(&s, 0.38, 1.34, 1, 0.05);
    bl_scale_cover(&s, 0.38, 1.34, 6);
    CHECK_CLOSE(s.lo, 0.2, 1e-12);
    CHECK_CLOSE(s.hi, 2, 1e-12);
    n = bl_scale_ticks(&s, 6, t, 16, &step);
    CHECK(n == 4 && fabs(t[0] - 0.2) < 1e-12 && fabs(t[1] - 0.5) < 1e-12 && t[2] == 1 && t[3] == 2,
          "covered: n = %d: %g %g %g %g", n, t[0], t[1], t[2], t[3]);
    /* a short range with linear ticks (the terminal, 6 ticks): 1.17 .. 1.36 fits 1.161 .. 1.370
     * with ticks 1.2 .. 1.35 (step 0.05); covered: 1.15 .. 1.4, ticks 1.15 1.2 .. 1.4 */
    bl_scale_fit(&s, 1.17, 1.36, 1, 0.05);
    n = bl_scale_ticks(&s, 6, t, 16, &step);
    CHECK(n == 4 && fabs(step - 0.05) < 1e-12 && fabs(t[3] - 1.35) < 1e-9, "fit: n = %d step %g top %g", n, step, n ? t[n - 1] : 0);
    bl_scale_cover(&s, 1.17, 1.36, 6);
    CHECK_CLOSE(s.lo, 1.15, 1e-9);
    CHECK_CLOSE(s.hi, 1.4, 1e-9);
    n = bl_scale_ticks(&s, 6, t, 16, &step);
    CHECK(n == 6 && fabs(t[0] - 1.15) < 1e-9 && fabs(t[5] - 1.4) < 1e-9, "covered: n = %d: %g .. %g", n, t[0], n ? t[n - 1] : 0);
    /* decades: 0.05 .. 10 fits 0.0384 .. 13.03, ticks 0.1 1 10: the top is covered and stays,
     * the bottom goes down to the power 0.01 */
    bl_scale_fit(&s, 0.05, 10, 1, 0.05);
    double hi = s.hi;
    bl_scale_cover(&s, 0.05, 10, 6);
    CHECK_CLOSE(s.lo, 0.01, 1e-12);
    CHECK(s.hi == hi, "covered top moved: %g -> %g", hi, s.hi);
    /* already covered: 1 .. 100 keeps its fit */
    bl_scale_fit(&s, 1, 100, 1, 0.05);
    bl_scale before = s;
    bl_scale_cover(&s, 1, 100, 6);
    CHECK(s.lo == before.lo && s.hi == before.hi, "1 .. 100 changed to %g .. %g", s.lo, s.hi);
    /* thinned powers of ten: 0.5 .. 3e5 with room for 3 has the ticks 1 100 1e4 (7 powers would
     * be more than 3 + 1), so the top goes to the next of those, 1e6, not to the unlabelled 1e5 */
    bl_scale th = {0.5, 3e5, 1};
    bl_scale_cover(&th, 0.5, 3e5, 3);
    n = bl_scale_ticks(&th, 3, t, 16, &step);
    CHECK(n >= 2 && t[n - 1] >= 3e5 && fabs(th.hi / t[n - 1] - 1) < 1e-9 && t[0] <= 0.5,
          "thinned: %g .. %g, ticks %g .. %g", th.lo, th.hi, n ? t[0] : 0, n ? t[n - 1] : 0);
    /* a linear scale, too, ends at a labelled tick: 0.38 .. 1.34 with ticks 0.4 .. 1.2 (step 0.2)
     * becomes 0.2 .. 1.4; angles 0 .. 7 fitted as -0.35 .. 7.35 with ticks 0 2 4 6 end at 8, the
     * bottom (0 is a tick) keeping its margin */
    bl_scale lin = {0.38, 1.34, 0};
    bl_scale_cover(&lin, 0.38, 1.34, 10);
    CHECK(fabs(lin.lo - 0.2) < 1e-12 && fabs(lin.hi - 1.4) < 1e-12, "linear: %g .. %g", lin.lo, lin.hi);
    bl_scale_fit(&lin, 0, 7, 0, 0.05);
    bl_scale_cover(&lin, 0, 7, 6);
    CHECK(fabs(lin.lo + 0.35) < 1e-12 && fabs(lin.hi - 8) < 1e-12, "angles: %g .. %g", lin.lo, lin.hi);
    /* data a hair past a tick (within 5% of a step) count as covered by it: means -0.0403 .. 0.085
     * (ticks every 0.02) keep the fitted bottom -0.0466 below the tick -0.04, not a tick -0.06;
     * the top goes on to 0.1 */
    bl_scale_fit(&lin, -0.0403, 0.085, 0, 0.05);
    before = lin;
    bl_scale_cover(&lin, -0.0403, 0.085, 10);
    CHECK(lin.lo == before.lo && fabs(lin.hi - 0.1) < 1e-12, "means: %g .. %g", lin.lo, lin.hi);
    /* through a panel: a log y axis fitted to the data is covered when asked, a linear x axis
     * and fixed limits never; an end whose next tick would leave more than 15% of the axis empty
     * keeps its fit: 0.38 .. 1.34 goes down to 0.3 (7% of the axis below the data) but not up
     * to 2 (21% above it): 1.34 * 10^(0.05 log10(1.34 / 0.38)) = 1.4271 */
    float y[3] = {1.34f, 0.7f, 0.38f};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "loss", NULL, y, 3, 0);
    bl_panel_log(p, 0, 1);
    bl_panel_scale(&s, p, 1, NULL, 0, 0.05, 10);
    CHECK(fabs(s.lo - 0.3) < 1e-6 && fabs(s.hi - 1.4271) < 1e-3, "panel: %g .. %g", s.lo, s.hi);
    bl_panel_scale(&s, p, 1, NULL, 0, 0.05, 0);
    CHECK(s.hi < 1.5, "cover_ticks 0 widened the fit to %g", s.hi);
    float x[3] = {0, 1, 2.3f};
    bl_panel_line(bl_fig_panel(f, 0), "x", x, y, 3, 0);   /* x 0 .. 2.3: -0.046 .. 2.346, ticks 0 1 2 */
    bl_panel_scale(&s, p, 0, NULL, 0, 0.02, 4);
    CHECK(fabs(s.hi - 2.346) < 1e-6, "linear x widened to %g", s.hi);
    bl_panel_limits(p, 'y', 0.3, 1.5);
    bl_panel_scale(&s, p, 1, NULL, 0, 0.05, 10);
    CHECK(s.lo == 0.3 && s.hi == 1.5, "fixed limits changed to %g .. %g", s.lo, s.hi);
    bl_fig_free(f);
}

BL_TEST(test_colour_maps)
{
    CHECK(bl_cmap_rgb(BL_CMAP_VIRIDIS, 0) == 0x440154, "viridis(0) = %06x", bl_cmap_rgb(BL_CMAP_VIRIDIS, 0));
    CHECK(bl_cmap_rgb(BL_CMAP_VIRIDIS, 1) == 0xfde725, "viridis(1) = %06x", bl_cmap_rgb(BL_CMAP_VIRIDIS, 1));
    uint32_t mid = bl_cmap_rgb(BL_CMAP_VIRIDIS, 0.5); /* #21918c */
    CHECK(abs((int)(mid >> 16) - 0x21) <= 1 && abs((int)((mid >> 8) & 255) - 0x91) <= 1 && abs((int)(mid & 255) - 0x8c) <= 1,
          "viridis(0.5) = %06x", mid);
    CHECK(bl_cmap_rgb(BL_CMAP_DIVERGING, 0) == 0x053061, "rdbu(0)");
    CHECK(bl_cmap_rgb(BL_CMAP_DIVERGING, 0.5) == 0xf7f7f7, "rdbu(0.5)");
    CHECK(bl_cmap_rgb(BL_CMAP_DIVERGING, 1) == 0x67001f, "rdbu(1)");
    CHECK(bl_cmap_rgb(BL_CMAP_VIRIDIS, 7) == 0xfde725 && bl_cmap_rgb(BL_CMAP_VIRIDIS, -3) == 0x440154, "clamped");
    /* viridis gets brighter monotonically (it is perceptually ordered) */
    double last = -1;
    int mono = 1;
    for (int i = 0; i <= 32; i++) {
        double l = bl_rgb_luma(bl_cmap_rgb(BL_CMAP_VIRIDIS, i / 32.0));
        mono &= l > last;
        last = l;
    }
    CHECK(mono, "viridis luma not increasing");
    CHECK(bl_rgb_to_xterm256(0xff0000) == 196, "red -> %d", bl_rgb_to_xterm256(0xff0000));
    CHECK(bl_rgb_to_xterm256(0x808080) == 244, "grey -> %d", bl_rgb_to_xterm256(0x808080));
    CHECK(bl_rgb_to_xterm256(0xffffff) == 231, "white -> %d", bl_rgb_to_xterm256(0xffffff));
    CHECK(bl_palette(0) == 0x1f77b4 && bl_palette(11) == 0xff7f0e, "tab10");
}

BL_TEST(test_heat_range)
{
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    float v[4] = {-0.5f, 2, NAN, 1};
    CHECK(bl_panel_heatmap(p, v, 2, 2, BL_CMAP_DIVERGING) == 0, "%s", bl_error());
    float lo, hi;
    bl_heat_range(p, &lo, &hi);
    CHECK(lo == -2 && hi == 2, "diverging centred on 0: [%g, %g]", lo, hi);
    p->cmap = BL_CMAP_VIRIDIS;
    bl_heat_range(p, &lo, &hi);
    CHECK(lo == -0.5f && hi == 2, "viridis [%g, %g]", lo, hi);
    CHECK(bl_panel_heatmap_range(p, 1, 1) == -1, "empty range accepted");
    CHECK_ERR("vmin < vmax");
    CHECK(bl_panel_heatmap_range(p, 0, 4) == 0, "%s", bl_error());
    bl_heat_range(p, &lo, &hi);
    CHECK(lo == 0 && hi == 4, "fixed range");
    bl_fig_free(f);
}

BL_TEST(test_series_and_colours)
{
    bl_figure *f = bl_fig_new(1, 1, "t");
    bl_panel *p = bl_fig_panel(f, 0);
    float y[4] = {4, 3, 2, 1};
    int a = bl_panel_smoothed(p, "a", NULL, y, 4, 0.5f);
    int b = bl_panel_line(p, "b", NULL, y, 4, 0);
    int c = bl_panel_line(p, "val", NULL, y, 4, BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR);
    CHECK(a == 1 && b == 2 && c == 3 && p->nseries == 4, "indices %d %d %d", a, b, c);
    CHECK(p->series[0].flags & BL_FAINT, "raw curve faint");
    CHECK(p->series[0].color == 0 && p->series[1].color == 0, "raw and smooth share a colour");
    CHECK(p->series[2].color == 1 && p->series[3].color == 1, "next colour, then the same");
    CHECK(p->series[0].x[3] == 3, "default x = index");
    CHECK_CLOSE(p->series[1].y[1], 3, 1e-6); /* 4 points: a centred window of half-width 4/40 = 0, the raw value */
    bl_fig_free(f);
}

BL_TEST(test_bad_input)
{
    CHECK(bl_fig_new(0, 1, NULL) == NULL, "0 rows accepted");
    CHECK_ERR("plot: a figure has 1..8 rows and columns");
    bl_figure *f = bl_fig_new(1, 2, NULL);
    CHECK(bl_fig_panel(f, 2) == NULL, "panel 2 of 2");
    CHECK_ERR("plot: panel 2 out of range");
    bl_panel *p = bl_fig_panel(f, 0);
    float y[4] = {1, 2, -0.5f, 3};
    CHECK(bl_fig_check(f) == -1, "empty figure accepted");
    CHECK_ERR("nothing to draw");
    CHECK(bl_panel_line(p, "loss", NULL, y, 0, 0) == -1, "empty series accepted");
    CHECK_ERR("plot: series 'loss' is empty");
    CHECK(bl_panel_line(p, "loss", NULL, y, 4, 0) == 0, "%s", bl_error());
    CHECK(bl_panel_heatmap(p, y, 2, 2, BL_CMAP_VIRIDIS) == -1, "heatmap on a lines panel");
    CHECK_ERR("plot: panel already holds line series");
    bl_panel_log(p, 0, 1);
    CHECK(bl_fig_check(f) == -1, "log of a negative value accepted");
    CHECK_ERR("plot: log y axis needs values > 0, but series 'loss' has -0.5 at index 2");
    bl_term_opts o = {60, 0, BL_COLOR_NONE, 0};
    FILE *null = fopen("/dev/null", "w");
    CHECK(bl_term_print(f, null, &o) == -1, "terminal drew a log of a negative value");
    CHECK_ERR("log y axis");
    bl_panel_log(p, 0, 0);
    o.width = 12;
    CHECK(bl_term_print(f, null, &o) == -1, "width 12 accepted");
    CHECK_ERR("term: width 12 is too small");
    fclose(null);
    bl_panel *q = bl_fig_panel(f, 1);
    CHECK(bl_panel_images(q, y, 1, 2, 1, 2, 0, 1, 0) == -1, "2 channels accepted");
    CHECK_ERR("plot: images need 1 or 3 channels, got 2");
    CHECK(bl_panel_images(q, y, 1, 1, 2, 2, 1, 0, 0) == -1, "lo > hi accepted");
    CHECK_ERR("lo < hi");
    CHECK(bl_panel_limits(q, 'z', 0, 1) == -1, "axis z");
    CHECK_ERR("'x' or 'y'");
    CHECK(bl_panel_heatmap(q, y, 0, 3, BL_CMAP_VIRIDIS) == -1, "0 rows heatmap");
    CHECK_ERR("heatmap is empty");
    CHECK(q->kind == BL_PANEL_EMPTY, "failed builders leave the panel empty");
    float h[4] = {1, 2, 3, 4};
    CHECK(bl_panel_heatmap_annotate(q, "%.2f") == -1, "annotation without a heatmap");
    bl_panel_heatmap(q, h, 2, 2, BL_CMAP_VIRIDIS);
    CHECK(bl_panel_heatmap_annotate(q, "%d") == -1, "%%d accepted");
    CHECK_ERR("plot: annotation format needs one %f, %e or %g conversion, got \"%d\"");
    CHECK(bl_panel_heatmap_annotate(q, "%.2f %s") == -1, "two conversions accepted");
    CHECK(bl_panel_heatmap_annotate(q, "%.1f%%") == 0, "%s", bl_error());
    CHECK(bl_panel_heatmap_annotate(q, "%+.3g") == 0, "%s", bl_error());
    bl_fig_free(f);
}

/* images map [lo, hi] to 0..255; an overlay blends viridis over them (attention over an image) */
BL_TEST(test_image_pixels_and_overlay)
{
    float img[2 * 2 * 2] = {-1, 0, 1, 0.5f, /* image 0, grey */ 0, 0, 0, 0};
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    CHECK(bl_panel_images_overlay(p, img, 2, 2, 0.5f) == -1, "overlay without images");
    CHECK_ERR("plot: overlay needs an images panel");
    CHECK(bl_panel_images(p, img, 2, 1, 2, 2, -1, 1, 0) == 0, "%s", bl_error());
    CHECK(bl_image_rgb(p, 0, 0, 0) == 0x000000, "-1 -> black");
    CHECK(bl_image_rgb(p, 0, 1, 0) == 0x808080, "0 -> %06x", bl_image_rgb(p, 0, 1, 0)); /* 127.5 rounds up */
    CHECK(bl_image_rgb(p, 0, 0, 1) == 0xffffff, "1 -> white");
    CHECK(bl_image_rgb(p, 0, 1, 1) == 0xbfbfbf, "0.5 -> %06x", bl_image_rgb(p, 0, 1, 1)); /* 0.75 * 255 = 191.25 */
    float att[2] = {0, 3}; /* 1 x 2 overlay: left half min, right half max */
    CHECK(bl_panel_images_overlay(p, att, 1, 2, 0) == -1, "alpha 0 accepted");
    CHECK_ERR("alpha must be in (0, 1]");
    CHECK(bl_panel_images_overlay(p, att, 1, 2, 1) == 0, "%s", bl_error());
    CHECK(bl_image_rgb(p, 1, 0, 0) == 0x440154 && bl_image_rgb(p, 1, 0, 1) == 0x440154, "left = viridis(0)");
    CHECK(bl_image_rgb(p, 1, 1, 0) == 0xfde725 && bl_image_rgb(p, 1, 1, 1) == 0xfde725, "right = viridis(1)");
    CHECK(bl_panel_images_overlay(p, att, 1, 2, 0.5f) == 0, "%s", bl_error());
    CHECK(bl_image_rgb(p, 0, 0, 1) == bl_rgb_mix(0xffffff, 0x440154, 0.5), "half blend over white");
    bl_fig_free(f);
}

/* The terminal, as the PNG: image panels whose overlays have one range (attn query='s heads)
 * have one colour bar right of the grid (each drew its own, all alike); overlays of different
 * ranges keep a bar each. Counted by their top labels (vmax); no line wider than the width. */
BL_TEST(test_term_overlay_one_bar)
{
    static float pix[3 * 8 * 8], att[16];
    for (int i = 0; i < 3 * 64; i++) pix[i] = (float)((i * 7) % 11) / 10;
    for (int i = 0; i < 16; i++) att[i] = (float)(i % 5) / 100;
    for (int same = 0; same < 2; same++) {
        bl_figure *f = bl_fig_new(2, 2, "heads");
        for (int k = 0; k < 4; k++) {
            bl_panel *p = bl_fig_panel(f, k);
            bl_panel_images(p, pix, 1, 3, 8, 8, 0, 1, 0);
            bl_panel_images_overlay(p, att, 4, 4, 0.6f);
            bl_panel_images_overlay_range(p, 0, same ? 0.0342f : 0.0342f + 0.0001f * k);
            bl_panel_labels(p, "head", NULL, NULL);
        }
        char *buf = term_render(f, (bl_term_opts){100, 0, BL_COLOR_NONE, 1});
        int tops = 0, widest = 0;
        for (const char *q = buf; q && (q = strstr(q, "0.034")); q++) tops++;
        for (const char *q = buf; q && *q;) {
            const char *e = strchr(q, '\n');
            int w = (int)(e ? e - q : (long)strlen(q));
            widest = w > widest ? w : widest;
            q = e ? e + 1 : q + w;
        }
        CHECK(tops == (same ? 1 : 4), "%s ranges: %d colour bars, want %d:\n%s", same ? "one" : "four", tops, same ? 1 : 4,
              buf);
        CHECK(widest <= 100, "a line of %d columns in 100", widest);
        free(buf);
        bl_fig_free(f);
    }
}

/* shared axes: every lines panel gets the union of the data ranges */
BL_TEST(test_shared_axes)
{
    float a[2] = {0, 1}, b[2] = {0, 10};
    bl_figure *f = bl_fig_new(1, 2, NULL);
    bl_panel_line(bl_fig_panel(f, 0), "a", NULL, a, 2, 0);
    bl_panel_line(bl_fig_panel(f, 1), "b", NULL, b, 2, 0);
    bl_range r;
    bl_fig_shared_range(f, 1, 0, &r);
    CHECK(!r.has, "separate axes by default");
    bl_fig_share(f, 0, 1);
    bl_fig_shared_range(f, 1, 0, &r);
    CHECK(r.has && r.lo == 0 && r.hi == 10, "shared y [%g, %g]", r.lo, r.hi);
    bl_scale s;
    bl_panel_scale(&s, bl_fig_panel(f, 0), 1, &r, 0, 0.05, 0);
    CHECK_CLOSE(s.hi, 10.5, 1e-12); /* panel a drawn on b's range */
    bl_panel_limits(bl_fig_panel(f, 0), 'y', -1, 2);
    bl_panel_scale(&s, bl_fig_panel(f, 0), 1, &r, 0, 0.05, 0);
    CHECK(s.lo == -1 && s.hi == 2, "fixed limits win over sharing");
    bl_fig_free(f);
}

/* heatmap index ticks (terminal and PNG): one column is "0" alone, not 0 .. 1; none past the last
 * index; with room for 10 ticks every index */
BL_TEST(test_index_ticks)
{
    double t[16], step;
    int n = bl_index_ticks(1, 2, t, 16, &step);
    CHECK(n == 1 && t[0] == 0, "1 column: %d ticks, first %g", n, t[0]);
    n = bl_index_ticks(5, 2, t, 16, &step);
    CHECK(n >= 1 && t[0] == 0 && t[n - 1] <= 4, "5 columns, 2 ticks: %d ticks, last %g", n, t[n - 1]);
    n = bl_index_ticks(5, 10, t, 16, &step);
    CHECK(n == 5 && step == 1 && t[4] == 4, "5 columns, 10 ticks: %d ticks, step %g", n, step);
}

/* a heatmap with non-finite cells (drawn blank) says so under it, in the terminal and the PNG */
BL_TEST(test_heat_note)
{
    float nan4[4] = {NAN, NAN, NAN, NAN}, mix[4] = {1, INFINITY, NAN, -INFINITY}, inf[2] = {INFINITY, -INFINITY};
    float ok[2] = {1, NAN};   /* some NaN alone: a mask, no note */
    char note[96];
    bl_figure *f = bl_fig_new(1, 4, NULL);
    bl_panel_heatmap(bl_fig_panel(f, 0), nan4, 2, 2, BL_CMAP_VIRIDIS);
    bl_panel_heatmap(bl_fig_panel(f, 1), mix, 2, 2, BL_CMAP_VIRIDIS);
    bl_panel_heatmap(bl_fig_panel(f, 2), inf, 1, 2, BL_CMAP_VIRIDIS);
    bl_panel_heatmap(bl_fig_panel(f, 3), ok, 1, 2, BL_CMAP_VIRIDIS);
    CHECK(bl_heat_note(bl_fig_panel(f, 0), note, sizeof note) && !strcmp(note, "all values are NaN"), "'%s'", note);
    CHECK(bl_heat_note(bl_fig_panel(f, 1), note, sizeof note) && !strcmp(note, "blank: 1 NaN, 1 +inf, 1 -inf"), "'%s'", note);
    CHECK(bl_heat_note(bl_fig_panel(f, 2), note, sizeof note) && !strcmp(note, "no finite value, blank: 1 +inf, 1 -inf"),
          "'%s'", note);
    CHECK(!bl_heat_note(bl_fig_panel(f, 3), note, sizeof note) && !note[0], "'%s' for finite values", note);
    char *buf = term_render(f, (bl_term_opts){160, 0, BL_COLOR_NONE, 1});
    CHECK(buf && strstr(buf, "all values are NaN") && strstr(buf, "blank: 1 NaN, 1 +inf, 1 -inf"), "terminal:\n%s", buf);
    free(buf);
    bl_fig_free(f);
}

/* the PNG legend goes where it covers the least data (matplotlib's loc="best"): for lines 1 2 3 and
 * 3 2 1 the four corners each hold a line's end, the middle of the right edge is free (index 4,
 * "right"); for one rising line the upper left corner is free (index 1) */
BL_TEST(test_legend_best)
{
    float x[3] = {0, 1, 2}, up[3] = {1, 2, 3}, down[3] = {3, 2, 1};
    bl_figure *f = bl_fig_new(1, 2, NULL);
    bl_panel *p = bl_fig_panel(f, 0), *q = bl_fig_panel(f, 1);
    bl_panel_line(p, "0", x, up, 3, 0);
    bl_panel_line(p, "1", x, down, 3, 0);
    bl_panel_line(q, "up", x, up, 3, 0);
    bl_scale xs = {0, 2, 0}, ys;
    bl_scale_fit(&ys, 1, 3, 0, 0.05);   /* 0.9 .. 3.1 */
    double bx, by;
    int k = bl_legend_best(p, &xs, &ys, 0.1, 0.1, 0.01, &bx, &by);
    CHECK(k == 4 && fabs(bx - 0.89) < 1e-12 && fabs(by - 0.45) < 1e-12, "crossing lines: spot %d at %g, %g", k, bx, by);
    k = bl_legend_best(q, &xs, &ys, 0.1, 0.1, 0.01, &bx, &by);
    CHECK(k == 1 && fabs(bx - 0.01) < 1e-12 && fabs(by - 0.89) < 1e-12, "rising line: spot %d at %g, %g", k, bx, by);
    /* what it covers there: nothing of 3 points and 1 + 41 + 41 samples (a segment of 0.5 x
     * 1 / 2.2 of the plot, 0.676 of its side long, sampled 60 times a side: ceil(40.6)); a box
     * of the whole plot on x -1 .. 3 covers all of its 1 + 32 + 32 (0.519 long: ceil(31.1)) */
    bl_legend_cover c;
    bl_legend_place(q, &xs, &ys, 0.1, 0.1, 0.01, &bx, &by, &c);
    CHECK(c.samples == 0 && c.points == 0 && c.total == 83 && c.npoints == 3, "covers %ld of %ld samples, %ld of %ld points",
          c.samples, c.total, c.points, c.npoints);
    bl_scale wide = {-1, 3, 0};
    bl_legend_place(q, &wide, &ys, 0.98, 0.98, 0.01, &bx, &by, &c);
    CHECK(c.samples == 65 && c.total == 65 && c.points == 3, "a whole-plot box covers %ld samples, %ld points", c.samples, c.points);
    bl_fig_free(f);
}

/* legend=auto keeps off a band (relative='s seed gap) as off a line: a line along y = 0.9
 * covers the upper spots, a band from 0 to 0.5 over x 0 .. 5 the lower left one, the first
 * free spot after them; the legend goes lower right (index 3). Counting the band's lower edge
 * alone as a line put it lower left, on the band. */
BL_TEST(test_legend_keeps_off_bands)
{
    float x[11], top[11], lo[6], hi[6];
    for (int i = 0; i <= 10; i++) x[i] = (float)i, top[i] = 0.9f;
    for (int i = 0; i <= 5; i++) lo[i] = 0.02f, hi[i] = 0.5f;
    bl_figure *f = bl_fig_new(1, 1, NULL);
    bl_panel *p = bl_fig_panel(f, 0);
    CHECK(bl_panel_line(p, "top", x, top, 11, 0) >= 0 && bl_panel_band(p, x, lo, hi, 6) >= 0, "%s", bl_error());
    bl_scale xs = {0, 10, 0}, ys = {0, 1, 0};
    double bx, by;
    bl_legend_cover c;
    int k = bl_legend_place(p, &xs, &ys, 0.3, 0.3, 0.02, &bx, &by, &c);
    CHECK(k == 3 && c.samples == 0, "spot %d covering %ld samples (want lower right, 3, covering none)", k, c.samples);
    /* a band over the whole plot: every spot covers some, so legend=auto takes it outside */
    float all_x[2] = {0, 10}, all_lo[2] = {0, 0}, all_hi[2] = {1, 1};
    bl_figure *g = bl_fig_new(1, 1, NULL);
    bl_panel *q = bl_fig_panel(g, 0);
    CHECK(bl_panel_line(q, "mid", all_x, top, 2, 0) >= 0 && bl_panel_band(q, all_x, all_lo, all_hi, 2) >= 0, "%s", bl_error());
    bl_legend_place(q, &xs, &ys, 0.3, 0.3, 0.02, &bx, &by, &c);
    CHECK(c.samples > 0, "a band over the whole plot covers nothing under the legend");
    bl_fig_free(f);
    bl_fig_free(g);
}

/* dash's steps/s is a rate of training time, as a progress bar's: steps at 10 per second, a pause
 * of 10 s, then 10 per second again: every rate it shows is 10 (the wall clock's rate after the
 * pause would be 5 steps / 10.5 s, under 0.5). */
BL_TEST(test_rate_leaves_out_pauses)
{
    bl_rate r;
    bl_rate_start(&r, 100.0, 0);
    CHECK(bl_rate_now(&r) == 0 && bl_rate_eta(&r, 10, 0) < 0, "a rate before the first step");
    CHECK_CLOSE(bl_rate_step(&r, 100.1, 1), 10, 1e-9);   /* before a whole window: the run's so far */
    double rate = 0;
    int bad = 0;
    for (int i = 2; i <= 11; i++) {
        rate = bl_rate_step(&r, 100.0 + 0.1 * i, i);
        bad += fabs(rate - 10) > 1e-6;
    }
    CHECK_CLOSE(rate, 10, 1e-6);
    bl_rate_pause(&r, 101.15, 1);
    bl_rate_pause(&r, 105.0, 1);    /* paused twice: still from 101.15 */
    CHECK_CLOSE(bl_rate_active(&r, 108.0), 1.15, 1e-9);
    bl_rate_pause(&r, 111.15, 0);
    bl_rate_pause(&r, 111.16, 0);   /* resumed twice: from 111.15 */
    CHECK_CLOSE(bl_rate_active(&r, 111.2), 1.2, 1e-9);
    for (int i = 12; i <= 30; i++) {
        rate = bl_rate_step(&r, 111.1 + 0.1 * (i - 11), i);
        bad += fabs(rate - 10) > 1e-6;
    }
    CHECK(bad == 0, "%d rates differ from 10 steps/s (last %g)", bad, rate);
    CHECK_CLOSE(rate, 10, 1e-6);
    CHECK_CLOSE(bl_rate_overall(&r), 10, 1e-6);
}

/* Validation exams are not training time either, and the ETA counts the exams to come. A fake
 * clock: 200 steps of 0.02 s (50 steps/s), an exam of 1 s after steps 50, 100, 150 and 200 (as in
 * the dashboard, inside the call that took the step), one of 2 s before the start (the step-0
 * exam) and a pause of 10 s after step 120. By hand: every rate shown is 50 steps/s (with the
 * exams on the clock the window around step 50 read 25 / 1.5 s = 16.7, the next ones 50 again:
 * the header jumped 57 -> 8.9 -> 55); at step 60 the ETA is 140 steps / 50 + 3 exams x 1.5 s (the
 * mean of 2 and 1) = 7.3 s; the training time is 200 x 0.02 = 4 s and the run's rate 50. */
BL_TEST(test_rate_leaves_out_exams)
{
    bl_rate r;
    double t = 1000.0, rate, eta60 = -1;
    int bad = 0;
    bl_rate_start(&r, t, 0);
    bl_rate_exam(&r, 2.0, 0);
    CHECK_CLOSE(bl_rate_exam_mean(&r), 2.0, 1e-12);
    CHECK_CLOSE(bl_rate_active(&r, t), 0, 1e-12);   /* an exam before the start takes no time off */
    for (long s = 1; s <= 200; s++) {
        t += 0.02;
        if (s % 50 == 0) {
            t += 1.0;
            bl_rate_exam(&r, 1.0, 1);
        }
        rate = bl_rate_step(&r, t, s);
        if (fabs(rate - 50) > 1e-6) {
            if (bad++ < 3) printf("# step %ld: %.9g steps/s\n", s, rate);
        }
        if (s == 60) eta60 = bl_rate_eta(&r, 200 - s, 3);
        if (s == 120) {
            bl_rate_pause(&r, t, 1);
            t += 10;
            bl_rate_pause(&r, t, 0);
        }
    }
    CHECK(bad == 0, "%d rates are not 50 steps/s", bad);
    CHECK_CLOSE(eta60, 140 / 50.0 + 3 * 1.5, 1e-6);
    CHECK_CLOSE(bl_rate_exam_mean(&r), (2.0 + 4 * 1.0) / 5, 1e-12);
    CHECK_CLOSE(bl_rate_active(&r, t), 4.0, 1e-9);
    CHECK_CLOSE(bl_rate_overall(&r), 50, 1e-6);
    CHECK_CLOSE(bl_rate_eta(&r, 0, 0), 0, 1e-12);
    /* a run already at step 1000 when the meter starts: only its new steps count */
    bl_rate_start(&r, 0.0, 1000);
    bl_rate_step(&r, 0.5, 1010);
    CHECK_CLOSE(bl_rate_overall(&r), 20, 1e-9);
}

/* one duration format for train's ETA and dash's: m:ss, then h:mm:ss, whole seconds (tqdm's) */
BL_TEST(test_fmt_duration)
{
    static const struct { double s; const char *want; } cases[] = {
        {0, "0:00"}, {4.9, "0:04"}, {59.99, "0:59"}, {60, "1:00"}, {158, "2:38"}, {3599, "59:59"},
        {3600, "1:00:00"}, {3723, "1:02:03"}, {100000, "27:46:40"}, {-1, "?"}, {NAN, "?"}, {INFINITY, "?"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(!strcmp(bl_fmt_duration(buf, sizeof buf, cases[i].s), cases[i].want), "%g s: '%s', not '%s'",
              cases[i].s, buf, cases[i].want);
    CHECK(!strcmp(bl_fmt_duration(buf, 4, 3723), "1:0"), "cut to the buffer: '%s'", buf);
}

/* logy=auto (bl_panel_logy_auto, bl_fig_slide) on given data: a log axis only when every y is > 0
 * and the largest is more than 10 times the smallest; with xlim, only the points in view. */
BL_TEST(test_logy_auto)
{
    const struct { float y[5]; int n, log; } c[] = {
        { {4.2f, 2, 1, 0.5f, 0.3f}, 5, 1 },   /* a loss from 4.2 to 0.3: 14x */
        { {0.32f, 0.30f, 0.28f}, 3, 0 },      /* a compare's differences: 1.14x */
        { {1, 10}, 2, 0 },                    /* exactly a decade is not more than one */
        { {1, 10.5f}, 2, 1 },
        { {-1, 5, 50}, 3, 0 },                /* a value <= 0 has no log */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        bl_figure *f = bl_fig_new(1, 1, NULL);
        bl_panel *p = bl_fig_panel(f, 0);
        bl_panel_line(p, "y", NULL, c[k].y, c[k].n, 0);
        CHECK(bl_panel_logy_auto(p) == c[k].log, "case %zu: logy %d", k, bl_panel_logy_auto(p));
        bl_slide sl = { .logy = BL_LOGY_AUTO };
        CHECK(bl_fig_slide(f, &sl) == 0 && p->logy == c[k].log, "case %zu: bl_fig_slide set logy %d", k, p->logy);
        bl_fig_free(f);
    }
    /* 4.2 .. 0.3 over x 0 .. 4; from x 2 on (xlim=2:) only 1 .. 0.3 is in view: linear */
    bl_figure *f = bl_fig_new(1, 1, "t");
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_line(p, "y", NULL, c[0].y, 5, 0);
    bl_slide sl = { .logy = BL_LOGY_AUTO, .has_x = {1, 0}, .x = {2, 0}, .set_title = 1 };
    CHECK(bl_fig_slide(f, &sl) == 0 && p->logy == 0 && p->has_xlim && p->xlim[0] == 2 && p->xlim[1] == 4 && !f->title,
          "xlim=2: gave logy %d, x %g .. %g, title %s", p->logy, p->xlim[0], p->xlim[1], f->title ? f->title : "none");
    bl_fig_free(f);
}

int main(void)
{
    RUN(test_legend_best);
    RUN(test_legend_keeps_off_bands);
    RUN(test_heat_note);
    RUN(test_index_ticks);
    RUN(test_ema_bias_correction);
    RUN(test_ema_errors);
    RUN(test_moving_average_and_downsample);
    RUN(test_linear_ticks);
    RUN(test_log_ticks);
    RUN(test_log_ticks_cover_data);
    RUN(test_logy_auto);
    RUN(test_colour_maps);
    RUN(test_heat_range);
    RUN(test_series_and_colours);
    RUN(test_bad_input);
    RUN(test_image_pixels_and_overlay);
    RUN(test_term_overlay_one_bar);
    RUN(test_shared_axes);
    RUN(test_rate_leaves_out_pauses);
    RUN(test_rate_leaves_out_exams);
    RUN(test_fmt_duration);
    return bl_test_done();
}
