/* smooth.c - EMA with bias correction, moving average, bucket downsampling (see plot.h). */
#include "viz/plot.h"
#include "core/error.h"
#include <math.h>

/* TensorBoard, tensorboard/components/vz_line_chart2/line-chart.ts (resmoothDataset):
 * last = last * w + (1 - w) * v; debias = 1 - w^k; smoothed = last / debias. */
int bl_ema(const float *y, int n, float smooth, float *out)
{
    if (!(smooth >= 0 && smooth < 1)) return bl_fail("smooth: weight must be in [0, 1), got %g", smooth);
    if (n < 1) return bl_fail("smooth: empty series");
    double last = 0, wk = 1; /* wk = smooth^k */
    for (int i = 0; i < n; i++) {
        float v = y[i];
        if (!isfinite(v)) {
            out[i] = v;
            continue;
        }
        last = last * smooth + (1.0 - smooth) * v;
        wk *= smooth;
        out[i] = (float)(smooth == 0 ? v : last / (1.0 - wk));
    }
    return 0;
}

int bl_moving_average(const float *y, int n, int window, float *out)
{
    if (window < 1) return bl_fail("smooth: moving-average window must be >= 1, got %d", window);
    if (n < 1) return bl_fail("smooth: empty series");
    if (out == y) return bl_fail("smooth: moving average cannot work in place");
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        if (isfinite(y[i])) sum += y[i], cnt++;
        int j = i - window;
        if (j >= 0 && isfinite(y[j])) sum -= y[j], cnt--;
        out[i] = cnt ? (float)(sum / cnt) : NAN;
    }
    return 0;
}

int bl_centered_average(const float *y, int n, int half, float *out)
{
    if (half < 0) return bl_fail("smooth: centred half-width must be >= 0, got %d", half);
    if (n < 1) return bl_fail("smooth: empty series");
    if (out == y) return bl_fail("smooth: centred average cannot work in place");
    for (int i = 0; i < n; i++) {
        double sum = 0;
        int cnt = 0;
        for (int j = i - half < 0 ? 0 : i - half; j <= i + half && j < n; j++)
            if (isfinite(y[j])) sum += y[j], cnt++;
        out[i] = cnt ? (float)(sum / cnt) : NAN;
    }
    return 0;
}

/* The loss curve's smoothing (plot loss). A trailing EMA lags a falling loss by about
 * smooth/(1 - smooth) steps (9 at 0.9), which on a 100-step run puts the line above every
 * point of the fast initial drop. So the picture uses a centred moving average instead (the
 * centred moving average of the NIST/SEMATECH e-Handbook of Statistical Methods, 6.4.2.1,
 * which has no lag): out[i] = mean of y[i-h .. min(i+H, n-1)] with h = min(H, i). At the start,
 * where the loss falls fastest, the window shrinks to stay centred, so a straight line comes back
 * unchanged there; at the end, where the curve is flattest, it keeps its H points back so the
 * last points are smoothed too. H = smooth/(1 - smooth) rounded (the EMA's own mean lag, so
 * smooth means what it did: 0.9 averages 19 steps), at most maxh: plot loss gives n/40 so a short
 * run's bend keeps its shape (150 steps: H = 3), relative= n/8 (a difference has no bend and needs
 * more averaging to tell a run from the seed gap). Non-finite values are skipped. */
int bl_loss_smooth(const float *y, int n, float smooth, int maxh, float *out)
{
    if (!(smooth >= 0 && smooth < 1)) return bl_fail("smooth: weight must be in [0, 1), got %g", smooth);
    if (n < 1) return bl_fail("smooth: empty series");
    if (out == y) return bl_fail("smooth: centred average cannot work in place");
    int H = (int)lround(smooth / (1.0 - smooth));
    if (H > maxh) H = maxh < 0 ? 0 : maxh;
    for (int i = 0; i < n; i++) {
        int h = H < i ? H : i, hi = i + h < n - 1 ? i + h : n - 1;
        double sum = 0;
        int cnt = 0;
        for (int j = i - h; j <= hi; j++)
            if (isfinite(y[j])) sum += y[j], cnt++;
        out[i] = cnt ? (float)(sum / cnt) : y[i];
    }
    return 0;
}

int bl_downsample(const float *x, const float *y, int n, int m, float *xo, float *yo)
{
    if (n < 1) return bl_fail("downsample: empty series");
    if (m < 2) return bl_fail("downsample: need room for at least 2 points, got %d", m);
    if (n <= m) {
        for (int i = 0; i < n; i++) xo[i] = x ? x[i] : (float)i, yo[i] = y[i];
        return n;
    }
    int k = 0;
    for (int b = 0; b < m; b++) {
        long i0 = (long)b * n / m, i1 = (long)(b + 1) * n / m;
        double sx = 0, sy = 0;
        int cnt = 0;
        for (long i = i0; i < i1; i++) {
            double xv = x ? x[i] : (double)i;
            if (!isfinite(y[i]) || !isfinite(xv)) continue;
            sx += xv, sy += y[i], cnt++;
        }
        if (!cnt) continue;
        xo[k] = (float)(sx / cnt);
        yo[k] = (float)(sy / cnt);
        k++;
    }
    return k;
}
