/* imagefolder.c - a folder of PNG images with one sub-folder per class (the layout of
 * torchvision's ImageFolder): DIR/<class>/<anything>.png. Classes are the sub-folder names in
 * sorted order (label = position); files are taken in sorted order and the last 10% of each
 * class (at least one when a class has two or more) is held out.
 *
 * Decoding uses libpng's simplified API (png_image, libpng 1.6), which converts grey, grey +
 * alpha, palette, RGB, RGBA and 16-bit images to 8-bit grey or RGB; alpha is composited on
 * black. The set is grey (C = 1) when every image is grey, else RGB (C = 3).
 */
#include "data/data_internal.h"
#include "core/error.h"
#include <dirent.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SIDE 4096

typedef struct {
    char **v;
    size_t n, cap;
} strlist;

static int sl_push(strlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 16;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) return bl_fail("images: out of memory");
        l->v = nv;
        l->cap = nc;
    }
    if (!(l->v[l->n] = strdup(s))) return bl_fail("images: out of memory");
    l->n++;
    return 0;
}

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_png_name(const char *s)
{
    size_t n = strlen(s);
    return n > 4 && !strcasecmp(s + n - 4, ".png");
}

/* Names in dir (no hidden ones): sub-folders when want_dirs, else .png files; sorted. */
static int list_dir(const char *dir, int want_dirs, strlist *out)
{
    DIR *d = opendir(dir);
    if (!d) return bl_fail("images: %s: cannot open directory", dir);
    struct dirent *e;
    char path[4600];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int ok = want_dirs ? bl_is_dir(path) : (is_png_name(e->d_name) && bl_is_file(path));
        if (ok && sl_push(out, e->d_name)) { closedir(d); return -1; }
    }
    closedir(d);
    if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_str);
    return 0;
}

/* Open a PNG's header; message on failure names the file. */
static int png_head(const char *path, png_image *im)
{
    memset(im, 0, sizeof *im);
    im->version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(im, path)) {
        bl_fail("images: %s: unreadable PNG (%s)", path, im->message[0] ? im->message : "not a PNG file");
        png_image_free(im);
        return -1;
    }
    return 0;
}

bl_dataset *bl_data_images(const char *dir)
{
    if (!dir || !*dir) return BL_FAILP("images: needs a directory with one sub-folder of PNGs per class");
    if (!bl_is_dir(dir)) return BL_FAILP("images: %s: %s", dir, bl_why_not_dir(dir));
    strlist classes = {0}, *files = NULL;
    size_t *n_val_c = NULL;
    uint8_t *hwc = NULL;
    bl_dataset *ds = NULL;
    char path[9300], first[9300] = "";
    if (list_dir(dir, 1, &classes)) goto fail;
    if (classes.n == 0) {
        bl_fail("images: %s: no class sub-folders (expected DIR/<class>/*.png)", dir);
        goto fail;
    }
    if (classes.n > 256) {
        bl_fail("images: %s: %zu class sub-folders, at most 256 are supported", dir, classes.n);
        goto fail;
    }
    files = calloc(classes.n, sizeof *files);
    n_val_c = calloc(classes.n, sizeof *n_val_c);
    if (!files || !n_val_c || !(ds = bl_ds_new(BL_DATA_IMAGES, "images", dir))) goto oom;

    /* pass 1: list the files, read every header, check sizes, decide grey or colour */
    size_t total = 0;
    int colour = 0;
    for (size_t c = 0; c < classes.n; c++) {
        snprintf(path, sizeof path, "%s/%s", dir, classes.v[c]);
        if (list_dir(path, 0, &files[c])) goto fail;
        if (files[c].n == 0) {
            bl_fail("images: %s: no .png files in this class folder", path);
            goto fail;
        }
        for (size_t i = 0; i < files[c].n; i++) {
            png_image im;
            snprintf(path, sizeof path, "%s/%s/%s", dir, classes.v[c], files[c].v[i]);
            if (png_head(path, &im)) goto fail;
            if (total == 0) {
                if (im.width > MAX_SIDE || im.height > MAX_SIDE) {
                    bl_fail("images: %s: %ux%u is too large (at most %dx%d)", path, (unsigned)im.width,
                            (unsigned)im.height, MAX_SIDE, MAX_SIDE);
                    png_image_free(&im);
                    goto fail;
                }
                ds->W = (int)im.width;
                ds->H = (int)im.height;
                snprintf(first, sizeof first, "%s", path);
            } else if ((int)im.width != ds->W || (int)im.height != ds->H) {
                bl_fail("images: %s is %ux%u but %s is %dx%d (all images must be the same size)", path,
                        (unsigned)im.width, (unsigned)im.height, first, ds->W, ds->H);
                png_image_free(&im);
                goto fail;
            }
            if (im.format & PNG_FORMAT_FLAG_COLOR) colour = 1;
            png_image_free(&im);
            total++;
        }
        size_t n = files[c].n;
        n_val_c[c] = n >= 2 ? (n / 10 ? n / 10 : 1) : 0;
        ds->n_val += n_val_c[c];
    }
    ds->C = colour ? 3 : 1;
    ds->n_train = total - ds->n_val;
    if (bl_ds_set_classes(ds, (int)classes.n, (const char *const *)classes.v)) goto fail;
    if (!bl_ds_grow(ds, 0, total)) goto fail;

    /* pass 2: decode into [C, H, W]; training images first, then every class's held-out tail */
    size_t plane = (size_t)ds->H * ds->W, img = plane * ds->C, at_train = 0, at_val = ds->n_train;
    if (!(hwc = malloc(img))) goto oom;
    png_color black = {0, 0, 0};
    for (size_t c = 0; c < classes.n; c++)
        for (size_t i = 0; i < files[c].n; i++) {
            png_image im;
            snprintf(path, sizeof path, "%s/%s/%s", dir, classes.v[c], files[c].v[i]);
            if (png_head(path, &im)) goto fail;
            im.format = colour ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
            if (!png_image_finish_read(&im, &black, hwc, 0, NULL)) {
                bl_fail("images: %s: unreadable PNG (%s)", path, im.message[0] ? im.message : "decode failed");
                png_image_free(&im);
                goto fail;
            }
            size_t at = i < files[c].n - n_val_c[c] ? at_train++ : at_val++;
            uint8_t *dst = ds->pixels + at * img;
            for (size_t p = 0; p < plane; p++)
                for (int ch = 0; ch < ds->C; ch++) dst[ch * plane + p] = hwc[p * ds->C + ch];
            ds->labels[at] = (uint8_t)c;
        }
    free(hwc);
    for (size_t c = 0; c < classes.n; c++) sl_free(&files[c]);
    free(files);
    free(n_val_c);
    sl_free(&classes);
    return ds;
oom:
    bl_fail("images: out of memory");
fail:
    free(hwc);
    if (files)
        for (size_t c = 0; c < classes.n; c++) sl_free(&files[c]);
    free(files);
    free(n_val_c);
    sl_free(&classes);
    bl_dataset_free(ds);
    return NULL;
}
