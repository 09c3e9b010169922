/* idx.c - MNIST and Fashion-MNIST in the IDX format (LeCun et al.,
 * http://yann.lecun.com/exdb/mnist/; Xiao et al. 2017 for Fashion-MNIST):
 *
 *   bytes 0-1  zero        byte 2  type (0x08 = unsigned byte)      byte 3  number of dims
 *   then one big-endian uint32 per dim, then the data
 *   images: magic 0x00000803, dims [N, rows, cols];  labels: magic 0x00000801, dims [N]
 *
 * Files: {train,t10k}-{images-idx3,labels-idx1}-ubyte (also the "train-images.idx3-ubyte"
 * spelling), each optionally .gz. t10k is the held-out part; without it the last 10% is.
 */
#include "data/data_internal.h"
#include "core/error.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const digit_names[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
static const char *const fashion_names[10] = {
    "t-shirt/top", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle boot",
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Read one IDX file expecting `ndim` dims of unsigned bytes; dims into dims[], the data
 * (owned by *buf) at *data. */
static int read_idx(const char *what, const char *path, int ndim, uint32_t *dims, uint8_t **buf,
                    const uint8_t **data)
{
    size_t n;
    if (bl_read_all(what, path, buf, &n)) return -1;
    const uint8_t *p = *buf;
    size_t head = 4 + 4 * (size_t)ndim;
    uint32_t magic = n >= 4 ? be32(p) : 0, want = 0x800u | (uint32_t)ndim;
    if (n < 4 || magic != want) {
        bl_fail("%s: %s: wrong magic number 0x%08x, expected 0x%08x (IDX %s file)", what, path,
                (unsigned)magic, (unsigned)want, ndim == 3 ? "images" : "labels");
        goto fail;
    }
    if (n < head) {
        bl_fail("%s: %s: truncated header (%zu byte%s)", what, path, n, BL_PLURAL(n));
        goto fail;
    }
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        dims[i] = be32(p + 4 + 4 * i);
        if (dims[i] == 0 || (i > 0 && dims[i] > 4096)) {
            bl_fail("%s: %s: bad dimension %u in the header", what, path, (unsigned)dims[i]);
            goto fail;
        }
        count *= dims[i];
    }
    if (n - head != count) {
        bl_fail("%s: %s: header promises %zu data bytes but the file holds %zu (%s)", what, path, count,
                n - head, n - head < count ? "truncated file" : "trailing bytes");
        goto fail;
    }
    *data = p + head;
    return 0;
fail:
    free(*buf);
    *buf = NULL;
    return -1;
}

/* Find prefix-{images-idx3,labels-idx1}-ubyte (or the '.' spelling), optionally .gz. */
static int find_pair(const char *dir, const char *prefix, char *img, char *lab, size_t n)
{
    char base[64];
    snprintf(base, sizeof base, "%s-images-idx3-ubyte", prefix);
    if (!bl_find_file(dir, base, img, n)) {
        snprintf(base, sizeof base, "%s-images.idx3-ubyte", prefix);
        if (!bl_find_file(dir, base, img, n)) return 0;
    }
    snprintf(base, sizeof base, "%s-labels-idx1-ubyte", prefix);
    if (!bl_find_file(dir, base, lab, n)) {
        snprintf(base, sizeof base, "%s-labels.idx1-ubyte", prefix);
        if (!bl_find_file(dir, base, lab, n)) return -1;
    }
    return 1;
}

/* Append one images file + labels file pair after the first *have images. */
static int load_pair(bl_dataset *ds, const char *img, const char *lab, size_t *have)
{
    const char *what = ds->name;
    uint32_t di[3], dl[1];
    uint8_t *bi = NULL, *bl = NULL;
    const uint8_t *pi, *pl;
    if (read_idx(what, img, 3, di, &bi, &pi)) return -1;
    if (read_idx(what, lab, 1, dl, &bl, &pl)) goto fail;
    if (di[0] != dl[0]) {
        bl_fail("%s: size mismatch: %s holds %u images but %s holds %u labels", what, img, (unsigned)di[0],
                lab, (unsigned)dl[0]);
        goto fail;
    }
    if (*have == 0) {
        ds->H = (int)di[1];
        ds->W = (int)di[2];
    } else if ((int)di[1] != ds->H || (int)di[2] != ds->W) {
        bl_fail("%s: %s: images are %ux%u but the training images are %dx%d", what, img, (unsigned)di[1],
                (unsigned)di[2], ds->H, ds->W);
        goto fail;
    }
    for (uint32_t i = 0; i < dl[0]; i++)
        if (pl[i] > 9) {
            bl_fail("%s: %s: label %d out of range 0..9 at item %u", what, lab, pl[i], (unsigned)i);
            goto fail;
        }
    uint8_t *dst = bl_ds_grow(ds, *have, di[0]);
    if (!dst) goto fail;
    memcpy(dst, pi, (size_t)di[0] * di[1] * di[2]);
    memcpy(ds->labels + *have, pl, di[0]);
    *have += di[0];
    free(bi);
    free(bl);
    return 0;
fail:
    free(bi);
    free(bl);
    return -1;
}

bl_dataset *bl_data_idx(const char *name, const char *dir)
{
    int fashion = name && !strcmp(name, "fashion-mnist");
    const char *what = fashion ? "fashion-mnist" : "mnist";
    char img[4200], lab[4200];
    if (!dir || !*dir) return BL_FAILP("%s: needs a directory", what);
    if (!bl_is_dir(dir)) {
        if (fashion && !strcmp(dir, BL_FASHION_MNIST_DIR))
            return BL_FAILP("%s: %s: no such directory (install the Debian package dataset-fashion-mnist, "
                            "or give the directory that holds the IDX files)", what, dir);
        return BL_FAILP("%s: %s: %s", what, dir, bl_why_not_dir(dir));
    }
    int f = find_pair(dir, "train", img, lab, sizeof img);
    if (f == 0) return BL_FAILP("%s: %s: no train-images-idx3-ubyte (or .gz) in this directory", what, dir);
    if (f < 0) return BL_FAILP("%s: %s: no train-labels-idx1-ubyte (or .gz) beside the training images", what, dir);

    bl_dataset *ds = bl_ds_new(BL_DATA_IMAGES, what, dir);
    if (!ds) return NULL;
    ds->C = 1;
    size_t have = 0;
    if (load_pair(ds, img, lab, &have)) goto fail;
    size_t n_train = have;
    f = find_pair(dir, "t10k", img, lab, sizeof img);
    if (f < 0) {
        bl_fail("%s: %s: t10k images found but no t10k-labels-idx1-ubyte (or .gz)", what, dir);
        goto fail;
    }
    if (f > 0) {
        if (load_pair(ds, img, lab, &have)) goto fail;
        ds->n_train = n_train;
        ds->n_val = have - n_train;
    } else {
        bl_ds_split_tail(ds, have);
    }
    if (bl_ds_set_classes(ds, 10, fashion ? fashion_names : digit_names)) goto fail;
    return ds;
fail:
    bl_dataset_free(ds);
    return NULL;
}
