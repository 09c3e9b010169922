/* draw_image.c - image panels: a grid of images scaled alike with sharp pixels (see draw_int.h). */
#include "viz/draw_int.h"
#include "viz/color.h"
#include <math.h>

/* ---- image grids ---- */

/* the narrowest gap (units) between images that a whole number of units a pixel may take */
#define WHOLE_GAP 3
/* The room of p's grid: w x h page units, images `gap` apart */
typedef struct {
    const bl_panel *p;
    double w, h, gap;
} images_room;

/* the scale of the images of room c (an images_room) with k to a row (bl_grid_square_cols) */
static double images_scale(int k, const void *c)
{
    const images_room *r = c;
    int rows = (r->p->n + k - 1) / k;
    return fmin((r->w - (k - 1) * r->gap) / (k * r->p->w), (r->h - (rows - 1) * r->gap) / (rows * r->p->h));
}

images_geom dr_images_place(dctx *d, const bl_panel *p, box b)
{
    double u = d->u, top = b.y + dr_title_top(d, p), ah = b.y + b.h - top;
    images_geom r;
    /* the overlay's colour bar, right of the grid; the figure's one bar is in the room its last
     * column keeps (plan_grid's inr) */
    r.bar = d->img_bar && !d->img_one_bar ? DR_BAR_ROOM * u : 0;
    b.w = fmax(0, b.w - r.bar);
    r.gap = 8 * u;
    int g = p->grid_cols;
    if (!g) g = bl_grid_square_cols(p->n, images_scale, &(images_room){p, b.w, ah, r.gap});
    r.g = g, r.rows = (p->n + g - 1) / g;
    r.s = fmax(0, fmin((b.w - (g - 1) * r.gap) / (g * p->w), (ah - (r.rows - 1) * r.gap) / (r.rows * p->h)));
    /* the height the grid takes before its scale is rounded: the row keeps it (a box as tall as
     * the rounded grid chose 2 x 8 where the page had chosen 4 x 4, at 800 x 450 font=2, and
     * left a third of the page empty); the rounded grid is centred in b's height */
    double whole_h = r.rows * p->h * r.s + (r.rows - 1) * r.gap;
    /* a whole number of page units a pixel where there is room (not in a figure with an
     * overlay, whose images are as large as they go, each with its bar): every image pixel the same
     * square (nearest neighbour), none a unit wider than its neighbour. The next whole number up
     * when narrower gaps (down to WHOLE_GAP) make room for it (4x4 at 1280 x 720 font=2: 3.99 a
     * pixel becomes 4 with 5-unit gaps, not 3 with a band left empty); else the one below unless
     * that loses much room. */
    if (!d->img_bar && r.s >= 1) {
        double up = ceil(r.s - 1e-9), room = INFINITY;
        if (g > 1) room = fmin(room, (b.w - g * p->w * up) / (g - 1));
        if (r.rows > 1) room = fmin(room, (ah - r.rows * p->h * up) / (r.rows - 1));
        if (g * p->w * up <= b.w && r.rows * p->h * up <= ah && room >= WHOLE_GAP * u)
            r.s = up, r.gap = fmin(r.gap, room);
        else if (floor(r.s) >= 0.85 * r.s)
            r.s = floor(r.s);
    }
    double gw = g * p->w * r.s + (g - 1) * r.gap, gh = r.rows * p->h * r.s + (r.rows - 1) * r.gap;
    r.x0 = b.x + (b.w - gw) / 2, r.y0 = top + fmax(0, ah - gh) / 2;   /* the grid and its bar centred in b */
    r.used = top - b.y + fmax(whole_h, gh);
    return r;
}

void dr_images(dctx *d, const bl_panel *p, box b)
{
    double u = d->u;
    images_geom ig = dr_images_place(d, p, b);
    box tb = b;   /* the title centred over the images, not over their colour bar's room */
    tb.w = fmax(0, b.w - ig.bar);
    dr_panel_title(d, p, tb, b.y + 16 * u);
    int g = ig.g;
    double s = ig.s, x0 = ig.x0, top = ig.y0, gap = ig.gap;
    if (!(s > 0)) return;   /* no room left for the images (a tiny page at a large font) */
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, p->w, p->h);
    if (cairo_surface_status(img)) return;
    for (int i = 0; i < p->n; i++) {
        cairo_surface_flush(img);
        unsigned char *data = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int y = 0; y < p->h; y++)
            for (int x = 0; x < p->w; x++) ((uint32_t *)(data + (long)y * stride))[x] = bl_image_rgb(p, i, x, y);
        cairo_surface_mark_dirty(img);
        double X = x0 + (i % g) * (p->w * s + gap), Y = top + (i / g) * (p->h * s + gap);
        dr_record_block(d, BL_BLOCK_IMAGE, X, Y, X + p->w * s, Y + p->h * s, p->overlay ? p->orows : 0,
                        p->overlay ? p->ocols : 0);
        cairo_save(d->cr);
        cairo_translate(d->cr, X, Y);
        cairo_scale(d->cr, s, s);
        cairo_set_source_surface(d->cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(d->cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(d->cr, 0, 0, p->w, p->h);
        cairo_fill(d->cr);
        cairo_restore(d->cr);
        if (p->has_mark) dr_mark(d, X, Y, p->w * s / p->mcols, p->h * s / p->mrows, p->mark_row, p->mark_col);
    }
    cairo_surface_destroy(img);
    /* the overlay's colour bar, as tall as the grid, DR_BAR_GAP right of it */
    if (p->overlay && !d->img_one_bar) {
        double gw = ig.g * p->w * s + (ig.g - 1) * gap, gh = ig.rows * p->h * s + (ig.rows - 1) * gap;
        box bar = {x0 + gw + DR_BAR_GAP * u, top, 24 * u, gh, 0, 0};
        dr_colorbar(d, BL_CMAP_VIRIDIS, p->omin, p->omax, bar);
    }
}

void dr_images_shared_bar(dctx *d, const bl_figure *f, const box *boxes)
{
    double right = -INFINITY, top = INFINITY, bottom = -INFINITY;
    int last = -1;
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_IMAGES) continue;
        images_geom ig = dr_images_place(d, p, boxes[i]);
        if (!(ig.s > 0)) continue;
        right = fmax(right, ig.x0 + ig.g * p->w * ig.s + (ig.g - 1) * ig.gap);
        top = fmin(top, ig.y0), bottom = fmax(bottom, ig.y0 + ig.rows * p->h * ig.s + (ig.rows - 1) * ig.gap);
        last = i;
    }
    if (last < 0) return;
    const bl_panel *p = &f->panels[last];
    d->panel = last;
    box bar = {right + DR_BAR_GAP * d->u, top, 24 * d->u, bottom - top, 0, 0};
    dr_colorbar(d, BL_CMAP_VIRIDIS, p->omin, p->omax, bar);
}
