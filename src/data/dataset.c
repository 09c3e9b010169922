/* dataset.c - what every set shares: construction, description, image access, the seeded
 * batcher and the dispatcher by command name (see dataset.h). */
#include "data/data_internal.h"
#include "core/error.h"
#include "core/rng.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

bl_dataset *bl_ds_new(bl_data_kind kind, const char *name, const char *source)
{
    bl_dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->source = strdup(source ? source : "built in"))) {
        free(ds);
        return BL_FAILP("%s: out of memory", name);
    }
    ds->kind = kind;
    snprintf(ds->name, sizeof ds->name, "%s", name);
    for (int i = 0; i < 256; i++) ds->byte_to_id[i] = -1;
    return ds;
}

int bl_ds_set_classes(bl_dataset *ds, int n, const char *const *names)
{
    ds->class_names = calloc((size_t)n, sizeof *ds->class_names);
    if (!ds->class_names) return bl_fail("%s: out of memory", ds->name);
    ds->n_classes = n;
    for (int i = 0; i < n; i++)
        if (!(ds->class_names[i] = strdup(names[i]))) return bl_fail("%s: out of memory", ds->name);
    return 0;
}

void bl_dataset_free(bl_dataset *ds)
{
    if (!ds) return;
    if (ds->class_names)
        for (int i = 0; i < ds->n_classes; i++) free(ds->class_names[i]);
    free(ds->class_names);
    free(ds->pixels);
    free(ds->labels);
    free(ds->ids);
    free(ds->source);
    free(ds);
}

const char *const bl_data_kinds[] = {"shapes", "cifar10", "mnist", "fashion-mnist", "images", "text", NULL};

bl_dataset *bl_data_open(const char *kind, const char *path, uint64_t seed)
{
    if (!kind) return BL_FAILP("data: no data set named (shapes, cifar10, mnist, fashion-mnist, images, text)");
    if (path && !*path) path = NULL;
    if (!strcmp(kind, "shapes")) {
        if (path) return BL_FAILP("shapes: takes no path (it is built in), got '%s'", path);
        return bl_data_shapes(seed);
    }
    if (!strcmp(kind, "text")) return bl_data_text(path);
    if (!strcmp(kind, "fashion-mnist")) return bl_data_idx(kind, path ? path : BL_FASHION_MNIST_DIR);
    int needs_path = !strcmp(kind, "cifar10") || !strcmp(kind, "mnist") || !strcmp(kind, "images");
    if (!needs_path)
        return BL_FAILP("data: unknown data set '%s' (shapes, cifar10, mnist, fashion-mnist, images, text)", kind);
    if (!path) return BL_FAILP("%s: needs a path (%s PATH)", kind, kind);
    if (!strcmp(kind, "cifar10")) return bl_data_cifar10(path);
    if (!strcmp(kind, "mnist")) return bl_data_idx(kind, path);
    return bl_data_images(path);
}

char *bl_dataset_describe(const bl_dataset *ds, char *buf, size_t n)
{
    if (!n) return buf;
    if (ds->kind == BL_DATA_TEXT)
        snprintf(buf, n, "%s: %zu byte%s (%zu train + %zu val), vocab %d distinct bytes, from %s", ds->name,
                 ds->n_tokens, BL_PLURAL(ds->n_tokens), ds->n_train, ds->n_val, ds->vocab_size, ds->source);
    else if (ds->endless)
        snprintf(buf, n, "%s: endless train + %zu val images %dx%dx%d, %d classes, %s (seed %llu)",
                 ds->name, ds->n_val, ds->C, ds->H, ds->W, ds->n_classes, ds->source,
                 (unsigned long long)ds->shapes_seed);
    else
        snprintf(buf, n, "%s: %zu train + %zu val images %dx%dx%d, %d class%s, from %s", ds->name,
                 ds->n_train, ds->n_val, ds->C, ds->H, ds->W, ds->n_classes,
                 ds->n_classes == 1 ? "" : "es", ds->source);
    return buf;
}

/* ---- images ---- */

/* Bytes to floats in [-1, 1]: x = v / 127.5 - 1 (0 -> -1, 255 -> 1). */
static void bytes_to_unit(const uint8_t *src, size_t n, float *x)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)src[i] * (1.0f / 127.5f) - 1.0f;
}

/* Image number `abs` of the whole stored array (train part first). */
static int stored_image(const bl_dataset *ds, size_t abs, float *x, int *label)
{
    size_t sz = (size_t)ds->C * ds->H * ds->W;
    bytes_to_unit(ds->pixels + abs * sz, sz, x);
    if (label) *label = ds->labels[abs];
    return 0;
}

static int need_images(const bl_dataset *ds, const char *what)
{
    if (ds->kind != BL_DATA_IMAGES)
        return bl_fail("%s: data set '%s' holds text, not images", what, ds->name);
    return 0;
}

int bl_dataset_image(const bl_dataset *ds, bl_split split, size_t index, float *x, int *label)
{
    if (need_images(ds, "image")) return -1;
    if (ds->endless) {
        if (split == BL_SPLIT_VAL && index >= ds->n_val)
            return bl_fail("image: index %zu out of range (%s has %zu val images)", index, ds->name, ds->n_val);
        int l = bl_shapes_draw(ds->shapes_seed, split == BL_SPLIT_VAL ? BL_SHAPES_VAL_BASE + index : index, x);
        if (label) *label = l;
        return 0;
    }
    size_t n = split == BL_SPLIT_VAL ? ds->n_val : ds->n_train;
    if (index >= n)
        return bl_fail("image: index %zu out of range (%s has %zu %s images)", index, ds->name, n,
                       split == BL_SPLIT_VAL ? "val" : "train");
    return stored_image(ds, split == BL_SPLIT_VAL ? ds->n_train + index : index, x, label);
}

int bl_dataset_val_images(const bl_dataset *ds, size_t first, int n, float *x, int *labels)
{
    if (need_images(ds, "val images")) return -1;
    if (n < 1) return bl_fail("val images: count must be at least 1, got %d", n);
    if (first + (size_t)n > ds->n_val)
        return bl_fail("val images: images %zu..%zu asked for but %s holds %zu held-out images", first,
                       first + (size_t)n - 1, ds->name, ds->n_val);
    size_t sz = (size_t)ds->C * ds->H * ds->W;
    for (int i = 0; i < n; i++)
        bl_dataset_image(ds, BL_SPLIT_VAL, first + (size_t)i, x + (size_t)i * sz, labels ? labels + i : NULL);
    return 0;
}

/* ---- batcher ---- */

int bl_batcher_init(bl_batcher *b, const bl_dataset *ds, uint64_t seed)
{
    memset(b, 0, sizeof *b);
    b->ds = ds;
    bl_rng r;
    bl_rng_named(&r, seed, "data");
    b->key = ((uint64_t)bl_rng_u32(&r) << 32) | bl_rng_u32(&r);
    b->perm_epoch = UINT64_MAX;
    if (ds->kind == BL_DATA_IMAGES && !ds->endless) {
        if (ds->n_train < 1) return bl_fail("batch: %s has no training images", ds->name);
        if (ds->n_train > UINT32_MAX) return bl_fail("batch: %s has too many images (%zu)", ds->name, ds->n_train);
        b->perm = malloc(ds->n_train * sizeof *b->perm);
        if (!b->perm) return bl_fail("batch: out of memory for %zu indices", ds->n_train);
    }
    return 0;
}

void bl_batcher_free(bl_batcher *b)
{
    free(b->perm);
    b->perm = NULL;
}

void bl_batcher_seek(bl_batcher *b, uint64_t drawn) { b->drawn = drawn; }

/* Fisher-Yates shuffle of 0..n-1 from the stream (key, epoch) (Knuth, TAOCP vol. 2, 3.4.2 P). */
static void shuffle_epoch(bl_batcher *b, uint64_t epoch)
{
    size_t n = b->ds->n_train;
    bl_rng r;
    bl_rng_init(&r, b->key, epoch);
    for (size_t i = 0; i < n; i++) b->perm[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = bl_rng_below(&r, (uint32_t)(i + 1));
        uint32_t t = b->perm[i];
        b->perm[i] = b->perm[j];
        b->perm[j] = t;
    }
    b->perm_epoch = epoch;
}

int bl_batch_images(bl_batcher *b, int B, float *x, int *labels)
{
    const bl_dataset *ds = b->ds;
    if (need_images(ds, "batch")) return -1;
    if (B < 1) return bl_fail("batch: batch size must be at least 1, got %d", B);
    size_t sz = (size_t)ds->C * ds->H * ds->W;
    if (ds->endless) {
        /* drawing costs about 40 us an image (2.5 ms at batch 64, ~1% of a TinyDiT step), so
         * it stays single-threaded: no second thread pool beside BLAS (DESIGN.md section 4) */
        uint64_t k0 = b->drawn;
        for (int i = 0; i < B; i++) {
            uint64_t idx = bl_splitmix64(b->key + k0 + (uint64_t)i) >> 1;
            int l = bl_shapes_draw(ds->shapes_seed, idx, x + (size_t)i * sz);
            if (labels) labels[i] = l;
        }
        b->drawn += (uint64_t)B;
        return 0;
    }
    for (int i = 0; i < B; i++, b->drawn++) {
        uint64_t epoch = b->drawn / ds->n_train;
        if (epoch != b->perm_epoch) shuffle_epoch(b, epoch);
        stored_image(ds, b->perm[b->drawn % ds->n_train], x + (size_t)i * sz, labels ? labels + i : NULL);
    }
    return 0;
}

/* ---- helpers for the image loaders ---- */

uint8_t *bl_ds_grow(bl_dataset *ds, size_t have, size_t n_more)
{
    size_t sz = (size_t)ds->C * ds->H * ds->W, n = have + n_more;
    uint8_t *p = realloc(ds->pixels, n * sz), *l;
    if (!p) return BL_FAILP("%s: out of memory for %zu images", ds->name, n);
    ds->pixels = p;
    if (!(l = realloc(ds->labels, n))) return BL_FAILP("%s: out of memory for %zu labels", ds->name, n);
    ds->labels = l;
    return ds->pixels + have * sz;
}

void bl_ds_split_tail(bl_dataset *ds, size_t total)
{
    ds->n_val = total >= 2 ? (total / 10 ? total / 10 : 1) : 0;
    ds->n_train = total - ds->n_val;
}
