/* shapes.c - the built-in image set: ten classes of procedurally drawn 3x32x32 colour images.
 *
 * Image `index` for `seed` is drawn from its own random stream (seed, index), so any index
 * exists (the set is endless) and the same (seed, index) always gives the same picture. The
 * label is index mod 10, so every run of ten consecutive indices holds each class once.
 *
 *   0 circle      a filled disc            5 horizontal bars   stripes across the image
 *   1 square      a filled square          6 vertical bars     stripes down the image
 *   2 triangle    a filled triangle        7 diagonal          stripes at about 45 degrees
 *   3 cross       a plus sign              8 checker           a checkerboard
 *   4 ring        an annulus               9 dot grid          a grid of small dots
 *
 * Colours, positions, sizes, small rotations (0-3), periods and phases vary per image; the
 * foreground colour is kept at RGB distance >= 0.6 from the background so the shape stays
 * visible. Each pixel is coloured by a signed distance d (pixels, negative inside) to the shape
 * with coverage clamp(0.5 - d, 0, 1), a one-pixel linear ramp that antialiases the edges
 * (the usual SDF rendering, see Inigo Quilez, "2D distance functions").
 */
#include "data/data_internal.h"
#include "core/rng.h"
#include <math.h>

static const char *const shape_names[10] = {
    "circle", "square", "triangle", "cross", "ring",
    "horizontal bars", "vertical bars", "diagonal", "checker", "dot grid",
};

typedef struct {
    int cls;
    float cx, cy, s, cosa, sina;   /* centre, size, rotation (objects) */
    float period, width, phase;    /* stripes; period and phase also for checker and dots */
    float phase2, dirx, diry;      /* second phase (checker, dots), stripe normal (diagonal) */
} shape_params;

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static float uni(bl_rng *r, float lo, float hi) { return lo + (hi - lo) * bl_rng_uniform(r); }
/* x mod m in [0, m) */
static float pmod(float x, float m) { float y = fmodf(x, m); return y < 0 ? y + m : y; }

/* signed distance to an axis-aligned box with half sizes (a, b) centred at the origin */
static float sd_box(float u, float v, float a, float b)
{
    float qx = fabsf(u) - a, qy = fabsf(v) - b;
    float ox = qx > 0 ? qx : 0, oy = qy > 0 ? qy : 0;
    float in = qx > qy ? qx : qy;
    return sqrtf(ox * ox + oy * oy) + (in < 0 ? in : 0);
}

/* signed distance to an equilateral triangle of half side r, centred, apex up (y up) (iq) */
static float sd_triangle(float px, float py, float r)
{
    const float k = 1.7320508f;
    px = fabsf(px) - r;
    py = py + r / k;
    if (px + k * py > 0) {
        float nx = (px - k * py) * 0.5f, ny = (-k * px - py) * 0.5f;
        px = nx;
        py = ny;
    }
    px -= clampf(px, -2 * r, 0);
    float len = sqrtf(px * px + py * py);
    return py < 0 ? len : -len;
}

/* distance to the nearest stripe of width w, period p, along coordinate t */
static float sd_stripes(float t, float p, float w) { return fabsf(pmod(t, p) - 0.5f * p) - 0.5f * w; }

static float shape_sd(const shape_params *q, float x, float y)
{
    float dx = x - q->cx, dy = y - q->cy;
    float u = q->cosa * dx + q->sina * dy, v = -q->sina * dx + q->cosa * dy;
    switch (q->cls) {
    case 0: return sqrtf(dx * dx + dy * dy) - q->s;
    case 1: return sd_box(u, v, 0.85f * q->s, 0.85f * q->s);
    case 2: return sd_triangle(u, -v, 1.05f * q->s);  /* image y points down */
    case 3: {
        float t = 0.32f * q->s, a = sd_box(u, v, q->s, t), b = sd_box(u, v, t, q->s);
        return a < b ? a : b;
    }
    case 4: return fabsf(sqrtf(dx * dx + dy * dy) - 0.8f * q->s) - 0.24f * q->s;
    case 5: return sd_stripes(y - q->phase, q->period, q->width);
    case 6: return sd_stripes(x - q->phase, q->period, q->width);
    case 7: return sd_stripes(x * q->dirx + y * q->diry - q->phase, q->period, q->width);
    case 8: {
        float k = q->period;
        float a = pmod(x - q->phase, 2 * k), b = pmod(y - q->phase2, 2 * k);
        int inside = (a < k) != (b < k);
        float ea = fminf(fabsf(a - k), fminf(a, 2 * k - a)), eb = fminf(fabsf(b - k), fminf(b, 2 * k - b));
        float e = fminf(ea, eb);
        return inside ? -e : e;
    }
    default: {
        float g = q->period;
        float a = pmod(x - q->phase, g) - 0.5f * g, b = pmod(y - q->phase2, g) - 0.5f * g;
        return sqrtf(a * a + b * b) - q->width;
    }
    }
}

int bl_shapes_draw(uint64_t seed, uint64_t index, float *x)
{
    const int S = BL_SHAPES_SIZE;
    bl_rng r;
    bl_rng_init(&r, seed ^ 0x5ba9e5c0ffee1234ULL, index);
    shape_params q = {0};
    q.cls = (int)(index % 10);

    float bg[3], fg[3];
    for (int c = 0; c < 3; c++) bg[c] = bl_rng_uniform(&r);
    for (int tries = 0;; tries++) {
        float d2 = 0;
        for (int c = 0; c < 3; c++) {
            fg[c] = bl_rng_uniform(&r);
            d2 += (fg[c] - bg[c]) * (fg[c] - bg[c]);
        }
        if (d2 >= 0.36f) break;
        if (tries == 16) {   /* fall back to the complement, which is always far enough */
            for (int c = 0; c < 3; c++) fg[c] = bg[c] < 0.5f ? 1.0f : 0.0f;
            break;
        }
    }
    /* a gentle background gradient (amplitude 0.08 over the image) */
    float ga = uni(&r, 0, 6.2831853f), gx = 0.08f * cosf(ga) / S, gy = 0.08f * sinf(ga) / S;

    q.cx = uni(&r, 11.5f, 20.5f);
    q.cy = uni(&r, 11.5f, 20.5f);
    q.s = uni(&r, 6.5f, 10.5f);
    float ang = uni(&r, -0.3f, 0.3f);
    q.cosa = cosf(ang);
    q.sina = sinf(ang);
    q.period = uni(&r, 5.0f, 9.0f);
    q.width = q.period * uni(&r, 0.35f, 0.55f);
    q.phase = uni(&r, 0, 16);
    q.phase2 = uni(&r, 0, 16);
    if (q.cls == 7) {   /* either diagonal, within 8 degrees of 45 */
        float a = 0.7853982f + uni(&r, -0.14f, 0.14f);
        if (bl_rng_uniform(&r) < 0.5f) a = -a;
        q.dirx = cosf(a);
        q.diry = sinf(a);
    } else if (q.cls == 8) {
        q.period = uni(&r, 4.0f, 7.0f);
    } else if (q.cls == 9) {
        q.period = uni(&r, 6.0f, 9.0f);
        q.width = uni(&r, 1.3f, 2.2f);   /* dot radius */
    }

    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            float px = j + 0.5f, py = i + 0.5f;
            float cov = clampf(0.5f - shape_sd(&q, px, py), 0, 1);
            float g = gx * (px - S / 2) + gy * (py - S / 2);
            for (int c = 0; c < 3; c++) {
                float b = clampf(bg[c] + g, 0, 1);
                float v = b + cov * (fg[c] - b);
                x[(c * S + i) * S + j] = 2 * v - 1;
            }
        }
    return q.cls;
}

bl_dataset *bl_data_shapes(uint64_t seed)
{
    bl_dataset *ds = bl_ds_new(BL_DATA_IMAGES, "shapes", "built in");
    if (!ds) return NULL;
    ds->C = 3;
    ds->H = ds->W = BL_SHAPES_SIZE;
    ds->endless = 1;
    ds->n_train = 0;
    ds->n_val = 10000;
    ds->shapes_seed = seed;
    if (bl_ds_set_classes(ds, 10, shape_names)) { bl_dataset_free(ds); return NULL; }
    return ds;
}
