/* color.c - colour maps, palette and xterm-256 mapping (see color.h). */
#include "viz/color.h"
#include <math.h>
#include <stdlib.h>

/* matplotlib's _viridis_data (CC0), rounded to 8 bits */
static const uint32_t viridis[256] = {
    0x440154, 0x440256, 0x450457, 0x450559, 0x46075a, 0x46085c, 0x460a5d, 0x460b5e,
    0x470d60, 0x470e61, 0x471063, 0x471164, 0x471365, 0x481467, 0x481668, 0x481769,
    0x48186a, 0x481a6c, 0x481b6d, 0x481c6e, 0x481d6f, 0x481f70, 0x482071, 0x482173,
    0x482374, 0x482475, 0x482576, 0x482677, 0x482878, 0x482979, 0x472a7a, 0x472c7a,
    0x472d7b, 0x472e7c, 0x472f7d, 0x46307e, 0x46327e, 0x46337f, 0x463480, 0x453581,
    0x453781, 0x453882, 0x443983, 0x443a83, 0x443b84, 0x433d84, 0x433e85, 0x423f85,
    0x424086, 0x424186, 0x414287, 0x414487, 0x404588, 0x404688, 0x3f4788, 0x3f4889,
    0x3e4989, 0x3e4a89, 0x3e4c8a, 0x3d4d8a, 0x3d4e8a, 0x3c4f8a, 0x3c508b, 0x3b518b,
    0x3b528b, 0x3a538b, 0x3a548c, 0x39558c, 0x39568c, 0x38588c, 0x38598c, 0x375a8c,
    0x375b8d, 0x365c8d, 0x365d8d, 0x355e8d, 0x355f8d, 0x34608d, 0x34618d, 0x33628d,
    0x33638d, 0x32648e, 0x32658e, 0x31668e, 0x31678e, 0x31688e, 0x30698e, 0x306a8e,
    0x2f6b8e, 0x2f6c8e, 0x2e6d8e, 0x2e6e8e, 0x2e6f8e, 0x2d708e, 0x2d718e, 0x2c718e,
    0x2c728e, 0x2c738e, 0x2b748e, 0x2b758e, 0x2a768e, 0x2a778e, 0x2a788e, 0x29798e,
    0x297a8e, 0x297b8e, 0x287c8e, 0x287d8e, 0x277e8e, 0x277f8e, 0x27808e, 0x26818e,
    0x26828e, 0x26828e, 0x25838e, 0x25848e, 0x25858e, 0x24868e, 0x24878e, 0x23888e,
    0x23898e, 0x238a8d, 0x228b8d, 0x228c8d, 0x228d8d, 0x218e8d, 0x218f8d, 0x21908d,
    0x21918c, 0x20928c, 0x20928c, 0x20938c, 0x1f948c, 0x1f958b, 0x1f968b, 0x1f978b,
    0x1f988b, 0x1f998a, 0x1f9a8a, 0x1e9b8a, 0x1e9c89, 0x1e9d89, 0x1f9e89, 0x1f9f88,
    0x1fa088, 0x1fa188, 0x1fa187, 0x1fa287, 0x20a386, 0x20a486, 0x21a585, 0x21a685,
    0x22a785, 0x22a884, 0x23a983, 0x24aa83, 0x25ab82, 0x25ac82, 0x26ad81, 0x27ad81,
    0x28ae80, 0x29af7f, 0x2ab07f, 0x2cb17e, 0x2db27d, 0x2eb37c, 0x2fb47c, 0x31b57b,
    0x32b67a, 0x34b679, 0x35b779, 0x37b878, 0x38b977, 0x3aba76, 0x3bbb75, 0x3dbc74,
    0x3fbc73, 0x40bd72, 0x42be71, 0x44bf70, 0x46c06f, 0x48c16e, 0x4ac16d, 0x4cc26c,
    0x4ec36b, 0x50c46a, 0x52c569, 0x54c568, 0x56c667, 0x58c765, 0x5ac864, 0x5cc863,
    0x5ec962, 0x60ca60, 0x63cb5f, 0x65cb5e, 0x67cc5c, 0x69cd5b, 0x6ccd5a, 0x6ece58,
    0x70cf57, 0x73d056, 0x75d054, 0x77d153, 0x7ad151, 0x7cd250, 0x7fd34e, 0x81d34d,
    0x84d44b, 0x86d549, 0x89d548, 0x8bd646, 0x8ed645, 0x90d743, 0x93d741, 0x95d840,
    0x98d83e, 0x9bd93c, 0x9dd93b, 0xa0da39, 0xa2da37, 0xa5db36, 0xa8db34, 0xaadc32,
    0xaddc30, 0xb0dd2f, 0xb2dd2d, 0xb5de2b, 0xb8de29, 0xbade28, 0xbddf26, 0xc0df25,
    0xc2df23, 0xc5e021, 0xc8e020, 0xcae11f, 0xcde11d, 0xd0e11c, 0xd2e21b, 0xd5e21a,
    0xd8e219, 0xdae319, 0xdde318, 0xdfe318, 0xe2e418, 0xe5e419, 0xe7e419, 0xeae51a,
    0xece51b, 0xefe51c, 0xf1e51d, 0xf4e61e, 0xf6e620, 0xf8e621, 0xfbe723, 0xfde725,
};

/* ColorBrewer RdBu, 11 classes, from blue (negative) to red (positive) */
static const uint32_t rdbu_r[11] = {
    0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
    0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f,
};

/* matplotlib tab10 */
static const uint32_t tab10[10] = {
    0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
    0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
};

uint32_t bl_rgb_mix(uint32_t a, uint32_t b, double t)
{
    uint32_t out = 0;
    for (int s = 0; s <= 16; s += 8) {
        double ca = (a >> s) & 255, cb = (b >> s) & 255;
        out |= (uint32_t)lround(ca + (cb - ca) * t) << s;
    }
    return out;
}

static uint32_t lerp_table(const uint32_t *tab, int n, double t)
{
    double x = t * (n - 1);
    int i = (int)floor(x);
    if (i >= n - 1) return tab[n - 1];
    if (i < 0) return tab[0];
    return bl_rgb_mix(tab[i], tab[i + 1], x - i);
}

uint32_t bl_cmap_rgb(bl_cmap map, double t)
{
    if (isnan(t)) return BL_NO_RGB;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    if (map == BL_CMAP_DIVERGING) return lerp_table(rdbu_r, 11, t);
    return lerp_table(viridis, 256, t);
}

double bl_cmap_pos(float v, float vmin, float vmax)
{
    if (!isfinite(v)) return NAN;
    double t = ((double)v - vmin) / ((double)vmax - vmin);
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

void bl_heat_range(const bl_panel *p, float *vmin, float *vmax)
{
    if (p->has_range) {
        *vmin = p->vmin;
        *vmax = p->vmax;
        return;
    }
    float lo = INFINITY, hi = -INFINITY, m = 0;
    for (long i = 0; i < (long)p->rows * p->cols; i++) {
        float v = p->values[i];
        if (!isfinite(v)) continue;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        if (fabsf(v) > m) m = fabsf(v);
    }
    if (p->cmap == BL_CMAP_DIVERGING) {
        if (m == 0) m = 1;
        *vmin = -m;
        *vmax = m;
        return;
    }
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (lo == hi) lo -= 0.5f, hi += 0.5f;
    *vmin = lo;
    *vmax = hi;
}

int bl_heat_note(const bl_panel *p, char *buf, size_t n)
{
    long cnt[3] = {0, 0, 0}, all = (long)p->rows * p->cols;
    static const char *const name[3] = {"NaN", "+inf", "-inf"};
    for (long i = 0; i < all; i++) {
        float v = p->values[i];
        if (isnan(v)) cnt[0]++;
        else if (isinf(v)) cnt[v > 0 ? 1 : 2]++;
    }
    buf[0] = '\0';
    if (cnt[1] + cnt[2] == 0 && cnt[0] < all) return 0;   /* some NaN: masked cells (rope check's) */
    if (cnt[0] == all) {
        snprintf(buf, n, "all values are NaN");
        return 1;
    }
    size_t k = (size_t)snprintf(buf, n, "%s:", cnt[0] + cnt[1] + cnt[2] == all ? "no finite value, blank" : "blank");
    for (int j = 0; j < 3; j++)
        if (cnt[j] && k < n) k += (size_t)snprintf(buf + k, n - k, "%s %ld %s", k > 0 && buf[k - 1] != ':' ? "," : "", cnt[j], name[j]);
    return 1;
}

int bl_lines_note(const bl_panel *p, char *buf, size_t n)
{
    long cnt[3] = {0, 0, 0};
    static const char *const name[3] = {"NaN", "+inf", "-inf"};
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        if (se->flags & BL_FAINT) continue;
        for (int i = 0; i < se->n; i++) {
            float v = isfinite(se->y[i]) ? se->x[i] : se->y[i];
            if (isnan(v)) cnt[0]++;
            else if (isinf(v)) cnt[v > 0 ? 1 : 2]++;
        }
    }
    long all = cnt[0] + cnt[1] + cnt[2];
    buf[0] = '\0';
    if (!all) return 0;
    size_t k = (size_t)snprintf(buf, n, "%ld point%s not finite, not drawn:", all, all == 1 ? "" : "s");
    for (int j = 0; j < 3; j++)
        if (cnt[j] && k < n) k += (size_t)snprintf(buf + k, n - k, "%s %ld %s", buf[k - 1] != ':' ? "," : "", cnt[j], name[j]);
    return 1;
}

uint32_t bl_image_rgb(const bl_panel *p, int i, int x, int y)
{
    const float *img = p->pixels + (long)i * p->c * p->h * p->w;
    uint32_t rgb = 0;
    for (int k = 0; k < 3; k++) {
        float t = (img[((long)(p->c == 3 ? k : 0) * p->h + y) * p->w + x] - p->lo) / (p->hi - p->lo);
        t = isnan(t) ? 0 : t < 0 ? 0 : t > 1 ? 1 : t;
        rgb = rgb << 8 | (uint32_t)lroundf(t * 255);
    }
    if (!p->overlay) return rgb;
    int r = (int)((long)y * p->orows / p->h), c = (int)((long)x * p->ocols / p->w);
    double t = bl_cmap_pos(p->overlay[(long)r * p->ocols + c], p->omin, p->omax);
    return isnan(t) ? rgb : bl_rgb_mix(rgb, bl_cmap_rgb(BL_CMAP_VIRIDIS, t), p->oalpha);
}

uint32_t bl_palette(int i)
{
    return tab10[((i % 10) + 10) % 10];
}

uint32_t bl_series_rgb(const bl_series *se)
{
    return se->flags & BL_GUIDE ? 0x999999 : bl_palette(se->color);
}

static const int cube[6] = {0, 95, 135, 175, 215, 255};

static long dist2(uint32_t a, int r, int g, int b)
{
    long dr = (long)((a >> 16) & 255) - r, dg = (long)((a >> 8) & 255) - g, db = (long)(a & 255) - b;
    return dr * dr + dg * dg + db * db;
}

static int nearest_level(int v)
{
    int best = 0;
    for (int i = 1; i < 6; i++)
        if (abs(cube[i] - v) < abs(cube[best] - v)) best = i;
    return best;
}

int bl_rgb_to_xterm256(uint32_t rgb)
{
    int r = (rgb >> 16) & 255, g = (rgb >> 8) & 255, b = rgb & 255;
    int ri = nearest_level(r), gi = nearest_level(g), bi = nearest_level(b);
    int best = 16 + 36 * ri + 6 * gi + bi;
    long bd = dist2(rgb, cube[ri], cube[gi], cube[bi]);
    for (int k = 0; k < 24; k++) {
        int v = 8 + 10 * k;
        long d = dist2(rgb, v, v, v);
        if (d < bd) bd = d, best = 232 + k;
    }
    return best;
}

double bl_rgb_luma(uint32_t rgb)
{
    return (0.2126 * ((rgb >> 16) & 255) + 0.7152 * ((rgb >> 8) & 255) + 0.0722 * (rgb & 255)) / 255.0;
}
