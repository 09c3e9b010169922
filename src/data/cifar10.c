/* cifar10.c - CIFAR-10 binary batches (Krizhevsky 2009, "Learning Multiple Layers of Features
 * from Tiny Images"; layout from https://www.cs.toronto.edu/~kriz/cifar.html):
 *
 *   one record = 1 label byte (0..9), then 1024 R, 1024 G, 1024 B bytes (32x32, row-major)
 *   data_batch_1.bin .. data_batch_5.bin   10,000 records each (training)
 *   test_batch.bin                         10,000 records (held out)
 *
 * The file has no magic number, so the checks are: a whole number of 3073-byte records, and
 * every label in 0..9. .bin.gz files are read through zlib.
 */
#include "data/data_internal.h"
#include "core/error.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CIFAR_PIX 3072
#define CIFAR_REC (1 + CIFAR_PIX)

static const char *const cifar_names[10] = {
    "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck",
};

/* Append the records of one batch file after the first *have images. */
static int load_batch(bl_dataset *ds, const char *path, size_t *have)
{
    uint8_t *buf;
    size_t n;
    if (bl_read_all("cifar10", path, &buf, &n)) return -1;
    if (n % CIFAR_REC) {
        free(buf);
        return bl_fail("cifar10: %s: %zu byte%s is not a whole number of %d-byte records "
                       "(truncated file, or not a CIFAR-10 binary batch)", path, n, BL_PLURAL(n), CIFAR_REC);
    }
    size_t recs = n / CIFAR_REC;
    for (size_t i = 0; i < recs; i++)
        if (buf[i * CIFAR_REC] > 9) {
            int lab = buf[i * CIFAR_REC];
            free(buf);
            return bl_fail("cifar10: %s: label %d out of range 0..9 in record %zu "
                           "(not a CIFAR-10 binary batch?)", path, lab, i);
        }
    uint8_t *dst = bl_ds_grow(ds, *have, recs);
    if (!dst) { free(buf); return -1; }
    for (size_t i = 0; i < recs; i++) {
        ds->labels[*have + i] = buf[i * CIFAR_REC];
        memcpy(dst + i * CIFAR_PIX, buf + i * CIFAR_REC + 1, CIFAR_PIX);
    }
    *have += recs;
    free(buf);
    return 0;
}

/* Class names from batches.meta.txt (one per line) when it is there and sane, else the
 * official ten. */
static int set_names(bl_dataset *ds, const char *dir)
{
    char path[4096];
    uint8_t *buf = NULL;
    size_t n = 0;
    const char *names[10];
    int k = 0;
    if (dir && bl_find_file(dir, "batches.meta.txt", path, sizeof path) && !bl_read_all("cifar10", path, &buf, &n)) {
        char *s = (char *)buf, *end = s + n;
        while (s < end && k < 10) {
            char *e = memchr(s, '\n', (size_t)(end - s));
            if (!e) e = end;
            *e = 0;
            while (e > s && (e[-1] == '\r' || e[-1] == ' ')) *--e = 0;
            if (*s) names[k++] = s;
            s = e + 1;
        }
    }
    bl_clear_error();
    int rc = bl_ds_set_classes(ds, 10, k == 10 ? names : cifar_names);
    free(buf);
    return rc;
}

bl_dataset *bl_data_cifar10(const char *path)
{
    char dir[4400], file[4400];
    if (!path || !*path) return BL_FAILP("cifar10: needs a directory or a batch file");
    if (!bl_is_dir(path) && !bl_is_file(path))
        return BL_FAILP("cifar10: %s: %s", path, strcmp(bl_why_not_dir(path), "no such directory")
                            ? "not a regular file (a device, pipe or socket)" : "no such file or directory");
    bl_dataset *ds = bl_ds_new(BL_DATA_IMAGES, "cifar10", path);
    if (!ds) return NULL;
    ds->C = 3;
    ds->H = ds->W = 32;
    size_t have = 0;

    if (bl_is_file(path)) {   /* one batch: hold out its last 10% */
        if (load_batch(ds, path, &have) || set_names(ds, NULL)) goto fail;
        bl_ds_split_tail(ds, have);
        return ds;
    }
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(file, sizeof file, "%s/cifar-10-batches-bin", path);
    if (bl_is_dir(file)) snprintf(dir, sizeof dir, "%s", file);   /* the official tarball's folder */
    for (int b = 1; b <= 5; b++) {
        char base[32];
        snprintf(base, sizeof base, "data_batch_%d.bin", b);
        if (bl_find_file(dir, base, file, sizeof file) && load_batch(ds, file, &have)) goto fail;
    }
    if (have == 0) {
        bl_fail("cifar10: %s: no data_batch_1.bin .. data_batch_5.bin (or .bin.gz) in this directory", dir);
        goto fail;
    }
    size_t n_train = have;
    if (bl_find_file(dir, "test_batch.bin", file, sizeof file)) {
        if (load_batch(ds, file, &have)) goto fail;
        ds->n_train = n_train;
        ds->n_val = have - n_train;   /* >= 1: an empty file is refused by bl_read_all */
    } else {
        bl_ds_split_tail(ds, have);
    }
    if (set_names(ds, dir)) goto fail;
    return ds;
fail:
    bl_dataset_free(ds);
    return NULL;
}
