/* save.c - bl_fig_save: PNG (cairo + libpng with tEXt chunks), SVG, CSV, JSON and TXT files,
 * written atomically (temporary file in the same directory, then rename). See plot.h. */
#include "viz/plot.h"
#include "core/fmt.h"
#include "viz/draw.h"
#include "viz/termimg.h"
#include "viz/color.h"
#include "core/error.h"
#include "core/fileio.h"
#include <cairo-svg.h>
#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#define BL_SOFTWARE "blocklab " PACKAGE_VERSION


/* ---- PNG ---- */

/* Encode the opaque ARGB32 image s as 8-bit RGB PNG, either to the file fp with zlib's default
 * level and tEXt chunks from f, or (fp NULL) through libpng's write callback write_fn(io) with
 * zlib level 1 and the SUB filter (bl_png_mem: a terminal picture is shown once, so speed
 * counts more than size). 0, or -1 with "out of memory" / "libpng failed ...". */
static int png_encode(cairo_surface_t *s, const bl_figure *f, FILE *fp, png_rw_ptr write_fn, void *io)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    unsigned char *row = malloc((size_t)w * 3);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!row || !png || !info) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return bl_fail("out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return bl_fail("libpng failed while writing");
    }
    if (fp) {
        png_init_io(png, fp);
    } else {
        png_set_write_fn(png, io, write_fn, NULL);
        png_set_compression_level(png, 1);
        png_set_filter(png, 0, PNG_FILTER_SUB);
    }
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_text text[4];
    int nt = 0;
    const char *keys[4] = {"Software", "Title", "Command", "Config"};
    const char *vals[4] = {BL_SOFTWARE, f ? f->title : NULL, f ? f->command : NULL, f ? f->config : NULL};
    for (int i = 0; f && i < 4; i++) {
        if (!vals[i]) continue;
        memset(&text[nt], 0, sizeof text[nt]);
        text[nt].compression = PNG_TEXT_COMPRESSION_NONE;
        text[nt].key = (char *)keys[i];
        text[nt].text = (char *)vals[i];
        text[nt].text_length = strlen(vals[i]);
        nt++;
    }
    if (nt) png_set_text(png, info, text, nt);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)(data + (long)y * stride);
        for (int x = 0; x < w; x++) { /* opaque (white or dark page): premultiplied = plain */
            row[3 * x] = (src[x] >> 16) & 255;
            row[3 * x + 1] = (src[x] >> 8) & 255;
            row[3 * x + 2] = src[x] & 255;
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    return 0;
}

/* libpng's write callback for bl_png_encode: the caller's byte sink */
typedef struct {
    void (*put)(void *io, const void *data, size_t n);
    void *io;
} png_sink;

static void png_to_sink(png_structp png, png_bytep data, png_size_t n)
{
    png_sink *k = png_get_io_ptr(png);
    k->put(k->io, data, n);
}

int bl_png_encode(cairo_surface_t *s, void (*put)(void *io, const void *data, size_t n), void *io)
{
    png_sink k = {put, io};
    return png_encode(s, NULL, NULL, png_to_sink, &k);
}

static int save_png(const bl_figure *f, FILE *fp, int w, int h, double scale)
{
    int W = (int)lround(w * scale), H = (int)lround(h * scale);
    if (W > BL_FIG_MAX_PIXELS || H > BL_FIG_MAX_PIXELS)
        return bl_fail("%d x %d pixels is too large (at most %d a side)", W, H, BL_FIG_MAX_PIXELS);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    if (cairo_surface_status(s)) {
        cairo_surface_destroy(s);
        return bl_fail("cannot make a %d x %d image", W, H);
    }
    cairo_t *cr = cairo_create(s);
    cairo_scale(cr, scale, scale);
    int r = bl_draw_figure(f, cr, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (!r) r = png_encode(s, f, fp, NULL, NULL);
    cairo_surface_destroy(s);
    return r;
}

/* ---- SVG ---- */

static cairo_status_t to_file(void *closure, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, closure) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int save_svg(const bl_figure *f, FILE *fp, int w, int h)
{
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(to_file, fp, w, h);
    cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
    cairo_t *cr = cairo_create(s);
    int r = bl_draw_figure(f, cr, w, h);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    if (!r && cairo_surface_status(s)) r = bl_fail("svg: %s", cairo_status_to_string(cairo_surface_status(s)));
    cairo_surface_destroy(s);
    return r;
}

/* ---- CSV ---- */

static void csv_str(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\n\r") && s[0] != ' ' && s[0]) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

static void csv_num(FILE *fp, double v)
{
    if (isfinite(v)) fprintf(fp, "%.9g", v);
    else if (isnan(v)) fputs("nan", fp);
    else fputs(v > 0 ? "inf" : "-inf", fp);
}

/* The figure's own table (bl_fig_table). */
static void data_csv(const bl_fig_data *d, FILE *fp)
{
    for (int c = 0; c < d->ncols; c++) {
        if (c) fputc(',', fp);
        csv_str(fp, d->names[c]);
    }
    fputc('\n', fp);
    for (long r = 0; r < d->nrows; r++) {
        const double *row = d->cells + (size_t)r * (size_t)d->ncols;
        for (int c = 0; c < d->ncols; c++) {
            if (c) fputc(',', fp);
            if (d->types[c] == 's') csv_str(fp, d->strs[(int)row[c]]);
            else if (d->types[c] == 'i') bl_fprintf(fp, "%.0f", row[c]);
            else csv_num(fp, row[c]);
        }
        fputc('\n', fp);
    }
}

/* A row's or column's label: its tick label, else its index. */
static void csv_label(FILE *fp, char **labels, int i)
{
    if (labels) csv_str(fp, labels[i]);
    else fprintf(fp, "%d", i);
}

/* One table: the figure's (bl_fig_table), else its panels of numbers (plot.h, bl_fig_save). */
static int save_csv(const bl_figure *f, FILE *fp)
{
    if (f->data) {
        data_csv(f->data, fp);
        return 0;
    }
    int np = f->rows * f->cols, nd = 0;
    bl_panel_kind kind = BL_PANEL_EMPTY;
    for (int i = 0; i < np; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind == BL_PANEL_EMPTY || p->kind == BL_PANEL_TEXT) continue;
        if (nd++ && p->kind != kind)
            return bl_fail("a .csv file holds one table, and this picture's panels hold different kinds of "
                           "numbers (write .json, which keeps every panel)");
        kind = p->kind;
    }
    if (nd == 0) return bl_fail("the picture holds no numbers for a .csv file (only text)");
    int many = nd > 1;
    if (kind == BL_PANEL_LINES) fputs(many ? "panel,series,x,y\n" : "series,x,y\n", fp);
    else if (kind == BL_PANEL_HEATMAP && many) fputs("panel,row,col,value\n", fp);
    else if (kind == BL_PANEL_IMAGES) fputs(many ? "panel,image,channel,y,x,value\n" : "image,channel,y,x,value\n", fp);
    for (int i = 0; i < np; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != kind) continue;
        if (p->kind == BL_PANEL_LINES) {
            for (int s = 0; s < p->nseries; s++) {
                const bl_series *se = &p->series[s];
                if (se->flags & BL_BAND) continue;   /* its edges are in the table of the command that drew it */
                char name[300];
                snprintf(name, sizeof name, "%s%s", se->label, (se->flags & BL_FAINT) ? " (raw)" : "");
                for (int k = 0; k < se->n; k++) {
                    if (many) fprintf(fp, "%d,", i);
                    csv_str(fp, name);
                    fputc(',', fp);
                    csv_num(fp, se->x[k]);
                    fputc(',', fp);
                    csv_num(fp, se->y[k]);
                    fputc('\n', fp);
                }
            }
        } else if (p->kind == BL_PANEL_HEATMAP && many) {
            for (int r = 0; r < p->rows; r++)
                for (int c = 0; c < p->cols; c++) {
                    fprintf(fp, "%d,", i);
                    csv_label(fp, p->row_labels, r);
                    fputc(',', fp);
                    csv_label(fp, p->col_labels, c);
                    fputc(',', fp);
                    csv_num(fp, p->values[(long)r * p->cols + c]);
                    fputc('\n', fp);
                }
        } else if (p->kind == BL_PANEL_HEATMAP) {
            fputs("row\\col", fp);
            for (int c = 0; c < p->cols; c++) {
                fputc(',', fp);
                csv_label(fp, p->col_labels, c);
            }
            fputc('\n', fp);
            for (int r = 0; r < p->rows; r++) {
                csv_label(fp, p->row_labels, r);
                for (int c = 0; c < p->cols; c++) {
                    fputc(',', fp);
                    csv_num(fp, p->values[(long)r * p->cols + c]);
                }
                fputc('\n', fp);
            }
        } else {
            for (long k = 0; k < (long)p->n * p->c * p->h * p->w; k++) {
                long x = k % p->w, y = k / p->w % p->h, ch = k / ((long)p->w * p->h) % p->c,
                     im = k / ((long)p->w * p->h * p->c);
                if (many) fprintf(fp, "%d,", i);
                fprintf(fp, "%ld,%ld,%ld,%ld,", im, ch, y, x);
                csv_num(fp, p->pixels[k]);
                fputc('\n', fp);
            }
        }
    }
    return 0;
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jfloats(const float *v, long n)
{
    json_t *a = json_array();
    for (long i = 0; a && i < n; i++) json_array_append_new(a, jnum(v[i]));
    return a;
}

/* x values that are counts (bl_panel_xcount): whole ones as JSON integers */
static json_t *jcounts(const float *v, long n)
{
    json_t *a = json_array();
    for (long i = 0; a && i < n; i++)
        json_array_append_new(a, isfinite(v[i]) && v[i] == floorf(v[i]) && fabsf(v[i]) < 9e15f
                                     ? json_integer((json_int_t)v[i]) : jnum(v[i]));
    return a;
}

static json_t *jstrs(char **s, int n)
{
    if (!s) return json_null();
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) json_array_append_new(a, json_string(s[i]));
    return a;
}

static json_t *jstr_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *panel_json(const bl_panel *p)
{
    static const char *kinds[] = {"empty", "lines", "heatmap", "images", "text"};
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kinds[p->kind]));
    json_object_set_new(o, "title", jstr_or_null(p->title));
    if (p->kind == BL_PANEL_LINES) {
        json_object_set_new(o, "xlabel", jstr_or_null(p->xlabel));
        json_object_set_new(o, "ylabel", jstr_or_null(p->ylabel));
        json_object_set_new(o, "logx", json_boolean(p->logx));
        json_object_set_new(o, "logy", json_boolean(p->logy));
        json_t *arr = json_array();
        for (int s = 0; s < p->nseries; s++) {
            const bl_series *se = &p->series[s];
            json_t *so = json_object();
            json_object_set_new(so, "label", json_string(se->label));
            json_object_set_new(so, "style", json_string((se->flags & BL_BAND) ? "band" : (se->flags & BL_FAINT) ? "raw" : (se->flags & BL_NO_LINE) ? "points" : "line"));
            json_object_set_new(so, "x", p->xcount ? jcounts(se->x, se->n) : jfloats(se->x, se->n));
            json_object_set_new(so, "y", jfloats(se->y, se->n));
            if (se->y2) json_object_set_new(so, "y2", jfloats(se->y2, se->n));   /* a band: y .. y2 */
            json_array_append_new(arr, so);
        }
        json_object_set_new(o, "series", arr);
    } else if (p->kind == BL_PANEL_HEATMAP) {
        float vmin, vmax;
        bl_heat_range(p, &vmin, &vmax);
        json_object_set_new(o, "rows", json_integer(p->rows));
        json_object_set_new(o, "cols", json_integer(p->cols));
        json_object_set_new(o, "cmap", json_string(p->cmap == BL_CMAP_DIVERGING ? "diverging" : "viridis"));
        json_object_set_new(o, "vmin", jnum(vmin));
        json_object_set_new(o, "vmax", jnum(vmax));
        json_object_set_new(o, "row_labels", jstrs(p->row_labels, p->rows));
        json_object_set_new(o, "col_labels", jstrs(p->col_labels, p->cols));
        json_object_set_new(o, "annotate", jstr_or_null(p->annotate));
        json_t *rows = json_array();
        for (int r = 0; r < p->rows; r++) json_array_append_new(rows, jfloats(p->values + (long)r * p->cols, p->cols));
        json_object_set_new(o, "values", rows);
    } else if (p->kind == BL_PANEL_IMAGES) {
        json_object_set_new(o, "shape", json_pack("[iiii]", p->n, p->c, p->h, p->w));
        json_object_set_new(o, "range", json_pack("[ff]", (double)p->lo, (double)p->hi));
        json_object_set_new(o, "data", jfloats(p->pixels, (long)p->n * p->c * p->h * p->w));
    } else if (p->kind == BL_PANEL_TEXT) {
        json_object_set_new(o, "text", json_string(p->text));
    }
    return o;
}

static int save_json(const bl_figure *f, FILE *fp)
{
    json_t *root = json_object(), *panels = json_array(), *meta = json_object();
    json_object_set_new(root, "title", jstr_or_null(f->title));
    json_object_set_new(meta, "software", json_string(BL_SOFTWARE));
    json_object_set_new(meta, "command", jstr_or_null(f->command));
    json_object_set_new(meta, "config", jstr_or_null(f->config));
    json_object_set_new(root, "meta", meta);
    json_object_set_new(root, "grid", json_pack("[ii]", f->rows, f->cols));
    for (int i = 0; i < f->rows * f->cols; i++) json_array_append_new(panels, panel_json(&f->panels[i]));
    json_object_set_new(root, "panels", panels);
    int r = json_dumpf(root, fp, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
    json_decref(root);
    fputc('\n', fp);
    return r ? bl_fail("json encoding failed") : 0;
}

/* ---- the file ---- */

int bl_fig_side_check(const char *who, const char *key, double v, int terminal)
{
    int width = !strcmp(key, "width");
    double lo = terminal ? (width ? BL_FIG_MIN_COLS : BL_FIG_MIN_ROWS) : BL_FIG_MIN_SIDE;
    if (v >= lo && v <= BL_FIG_MAX_SIDE) return 0;
    char num[40];
    return bl_fail("%s: %s %s is out of range: a picture file is %d to %d pixels a side%s", who, key,
                   bl_fmt_g(v, num, sizeof num), BL_FIG_MIN_SIDE, BL_FIG_MAX_SIDE,
                   width ? " (a width from " BL_FIG_STR(BL_FIG_MIN_COLS) " sets the columns on a terminal)"
                         : " (a height from " BL_FIG_STR(BL_FIG_MIN_ROWS) " sets the rows on a terminal)");
}

void bl_fig_size(int w, int h, int *out_w, int *out_h)
{
    if (w <= 0 && h <= 0) w = BL_FIG_W, h = BL_FIG_H;
    else if (h <= 0) h = (int)fmin(BL_FIG_MAX_SIDE, fmax(1, round(w * (double)BL_FIG_H / BL_FIG_W)));
    else if (w <= 0) w = (int)fmin(BL_FIG_MAX_SIDE, fmax(1, round(h * (double)BL_FIG_W / BL_FIG_H)));
    *out_w = w, *out_h = h;
}

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot : "";
}

int bl_fig_save(const bl_figure *f, const char *path, const bl_save_opts *o)
{
    bl_save_opts d = {0};
    if (!o) o = &d;
    const char *ext = extension(path);
    int fmt = !strcasecmp(ext, ".png") ? 1 : !strcasecmp(ext, ".svg") ? 2 : !strcasecmp(ext, ".csv") ? 3
            : !strcasecmp(ext, ".json") ? 4 : !strcasecmp(ext, ".txt") ? 5 : 0;
    if (!fmt)
        return bl_fail("%s: unknown file type '%s' (use .png, .svg, .csv, .json or .txt)", path, ext);
    int w, h;
    bl_fig_size(o->width, o->height, &w, &h);
    double scale = o->scale > 0 ? o->scale : 1;
    /* the sides asked for (the other one follows them, bl_fig_size) */
    if ((o->width > 0 || o->height <= 0) && bl_fig_side_check(path, "width", w, 0) < 0) return -1;
    if ((o->height > 0 || o->width <= 0) && bl_fig_side_check(path, "height", h, 0) < 0) return -1;
    if (!(scale <= 8)) return bl_fail("%s: scale %g is out of range (0 .. 8]", path, scale);
    if (bl_fig_check(f)) return -1;

    bl_atomic_file af;
    if (bl_atomic_open(&af, path) < 0) return -1;   /* "PATH: ..." */
    bl_term_opts to = {100, 0, BL_COLOR_NONE, 0};
    int r;
    switch (fmt) {
    case 1: r = save_png(f, af.f, w, h, scale); break;
    case 2: r = save_svg(f, af.f, w, h); break;
    case 3: r = save_csv(f, af.f); break;
    case 4: r = save_json(f, af.f); break;
    default: r = bl_term_print(f, af.f, &to); break;
    }
    if (r) {
        bl_atomic_abort(&af);
        bl_error_prefix("%s", path);    /* the file, not "save:" (the checkpoint command) */
        return r;
    }
    return bl_atomic_commit(&af);
}
