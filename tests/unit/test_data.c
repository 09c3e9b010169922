/* test_data.c - image sets: shapes, CIFAR-10 (real and crafted), IDX, PNG folders, batches. */
#include "core/error.h"
#include "data/dataset.h"
#include "../check.h"
#include "data_testutil.h"
#include <png.h>

#define SZ (3 * 32 * 32)

/* ---------------- shapes ---------------- */

BL_TEST(test_shapes_deterministic)
{
    bl_dataset *a = bl_data_shapes(7), *b = bl_data_shapes(7), *c = bl_data_shapes(8);
    CHECK(a && a->n_classes == 10 && a->C == 3 && a->H == 32 && a->W == 32 && a->endless, "shape of the set");
    CHECK(!strcmp(a->class_names[0], "circle") && !strcmp(a->class_names[9], "dot grid"), "class names");
    static float x[SZ], y[SZ], z[SZ];
    int same = 1, differ = 0, in_range = 1;
    for (uint64_t i = 0; i < 40; i++) {
        int la, lb, lc;
        bl_dataset_image(a, BL_SPLIT_TRAIN, i * 1000003u, x, &la);
        bl_dataset_image(b, BL_SPLIT_TRAIN, i * 1000003u, y, &lb);
        bl_dataset_image(c, BL_SPLIT_TRAIN, i * 1000003u, z, &lc);
        CHECK(la == (int)((i * 1000003u) % 10) && la == lb && la == lc, "label %d %d %d", la, lb, lc);
        same &= memcmp(x, y, sizeof x) == 0;
        differ += memcmp(x, z, sizeof x) != 0;
        for (int k = 0; k < SZ; k++) in_range &= x[k] >= -1.0f && x[k] <= 1.0f;
    }
    CHECK(same, "same (seed, index) gave different images");
    CHECK(differ == 40, "another seed changed only %d of 40 images", differ);
    CHECK(in_range, "values outside [-1, 1]");
    /* the held-out family differs from the training stream at the same index */
    bl_dataset_image(a, BL_SPLIT_TRAIN, 3, x, NULL);
    bl_dataset_image(a, BL_SPLIT_VAL, 3, y, NULL);
    CHECK(memcmp(x, y, sizeof x) != 0, "val image 3 equals train image 3");
    CHECK(bl_dataset_image(a, BL_SPLIT_VAL, a->n_val, x, NULL) == -1, "val index past the end accepted");
    CHECK_ERR("out of range");
    bl_dataset_free(a);
    bl_dataset_free(b);
    bl_dataset_free(c);
}

/* Hand-made features of one image: gradient energy along x, along y and the two diagonals
 * (fractions), the share of pixels that differ from the corner pixel, and the edge density. */
#define NF 6
static void features(const float *x, double *f)
{
    double e[4] = {0}, cover = 0, edges = 0;
    for (int i = 0; i < 31; i++)
        for (int j = 0; j < 31; j++) {
            double g[4] = {0};
            for (int c = 0; c < 3; c++) {
                const float *p = x + c * 1024;
                g[0] += fabs(p[i * 32 + j + 1] - p[i * 32 + j]);
                g[1] += fabs(p[(i + 1) * 32 + j] - p[i * 32 + j]);
                g[2] += fabs(p[(i + 1) * 32 + j + 1] - p[i * 32 + j]);
                g[3] += fabs(p[(i + 1) * 32 + j] - p[i * 32 + j + 1]);
            }
            for (int k = 0; k < 4; k++) e[k] += g[k];
            edges += g[0] + g[1] > 0.6;
        }
    for (int p = 0; p < 1024; p++) {
        double d = 0;
        for (int c = 0; c < 3; c++) d += fabs(x[c * 1024 + p] - x[c * 1024]);
        cover += d > 0.3;
    }
    double tot = e[0] + e[1] + e[2] + e[3] + 1e-9;
    for (int k = 0; k < 4; k++) f[k] = e[k] / tot;
    f[4] = cover / 1024;
    f[5] = edges / 961;
}

BL_TEST(test_shapes_classes_differ)
{
    bl_dataset *ds = bl_data_shapes(1);
    static float x[SZ];
    double cent[10][NF] = {{0}}, f[NF];
    const int per = 60;
    /* horizontal bars change down the image, vertical bars across it, for every image */
    for (int i = 0; i < 200; i++) {
        int l;
        bl_dataset_image(ds, BL_SPLIT_TRAIN, (uint64_t)i, x, &l);
        features(x, f);
        if (l == 5) CHECK(f[1] > 4 * f[0], "horizontal bars image %d: dy %.3f dx %.3f", i, f[1], f[0]);
        if (l == 6) CHECK(f[0] > 4 * f[1], "vertical bars image %d: dx %.3f dy %.3f", i, f[0], f[1]);
    }
    /* nearest class centroid on these six features, fitted on one family of indices and tested on
     * another, must beat chance (10%) by far: the classes are different pictures */
    for (int i = 0; i < per * 10; i++) {
        int l;
        bl_dataset_image(ds, BL_SPLIT_TRAIN, (uint64_t)i, x, &l);
        features(x, f);
        for (int k = 0; k < NF; k++) cent[l][k] += f[k] / per;
    }
    int right = 0, n = 0;
    for (int i = 0; i < per * 10; i++, n++) {
        int l, best = -1;
        double bd = 1e30;
        bl_dataset_image(ds, BL_SPLIT_VAL, (uint64_t)i, x, &l);
        features(x, f);
        for (int c = 0; c < 10; c++) {
            double d = 0;
            for (int k = 0; k < NF; k++) d += (f[k] - cent[c][k]) * (f[k] - cent[c][k]);
            if (d < bd) { bd = d; best = c; }
        }
        right += best == l;
    }
    printf("# nearest-centroid accuracy on shapes: %.3f\n", (double)right / n);
    CHECK(right > n / 2, "nearest-centroid accuracy %d / %d", right, n);
    bl_dataset_free(ds);
}

BL_TEST(test_shapes_batches)
{
    bl_dataset *ds = bl_data_shapes(0);
    enum { B = 16 };
    static float x1[B * SZ], x2[B * SZ], x3[B * SZ];
    int l1[B], l2[B], l3[B];
    bl_batcher a, b, c;
    CHECK(bl_batcher_init(&a, ds, 5) == 0 && bl_batcher_init(&b, ds, 5) == 0 && bl_batcher_init(&c, ds, 6) == 0, "init");
    bl_batch_images(&a, B, x1, l1);
    bl_batch_images(&b, B, x2, l2);
    bl_batch_images(&c, B, x3, l3);
    CHECK(memcmp(x1, x2, sizeof x1) == 0 && memcmp(l1, l2, sizeof l1) == 0, "same seed, different batch");
    CHECK(memcmp(x1, x3, sizeof x1) != 0, "another seed, same batch");
    bl_batch_images(&a, B, x1, l1);
    CHECK(memcmp(x1, x2, sizeof x1) != 0, "second batch repeats the first");
    /* resume: seek to sample B and draw again */
    bl_batcher_seek(&b, B);
    bl_batch_images(&b, B, x2, l2);
    CHECK(memcmp(x1, x2, sizeof x1) == 0, "seek did not resume the stream");
    /* each image in a batch is the image of its own index */
    static float one[SZ];
    int l;
    bl_dataset_image(ds, BL_SPLIT_TRAIN, 12345, one, &l);
    CHECK(l == 5, "label of index 12345 is %d", l);
    /* held-out images: fixed and balanced */
    int counts[10] = {0};
    static int labels[2000];
    static float vx[2000 * SZ];
    CHECK(bl_dataset_val_images(ds, 0, 2000, vx, labels) == 0, "%s", bl_error());
    for (int i = 0; i < 2000; i++) counts[labels[i]]++;
    for (int k = 0; k < 10; k++) CHECK(counts[k] == 200, "class %d: %d held-out images", k, counts[k]);
    bl_batcher_free(&a);
    bl_batcher_free(&b);
    bl_batcher_free(&c);
    bl_dataset_free(ds);
}

/* ---------------- CIFAR-10 ---------------- */

BL_TEST(test_cifar10_real)
{
    const char *dir = tu_shared("cifar10/test_batch.bin");
    if (!dir) SKIP("../shared/data/cifar10 not found");
    char path[1100], raw_train[1200];
    snprintf(path, sizeof path, "%s", tu_shared("cifar10"));
    snprintf(raw_train, sizeof raw_train, "%s/data_batch_1.bin", path);
    size_t n_test = 0, n_train = 0;
    unsigned char *test = bl_test_slurp(tu_shared("cifar10/test_batch.bin"), &n_test);
    unsigned char *train = bl_test_slurp(raw_train, &n_train);
    CHECK(test && n_test == 30730000 && train && n_train == 30730000, "raw files");
    if (!test || !train) return;

    bl_dataset *ds = bl_data_open("cifar10", path, 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (!ds) { free(test); free(train); return; }
    CHECK(ds->n_train == 50000 && ds->n_val == 10000, "%zu train %zu val", ds->n_train, ds->n_val);
    CHECK(ds->C == 3 && ds->H == 32 && ds->W == 32 && ds->n_classes == 10, "geometry");
    CHECK(!strcmp(ds->class_names[0], "airplane") && !strcmp(ds->class_names[9], "truck"), "names");

    /* the original order (README of the shared data): first test labels 3 8 8 0 6, and the
     * labels of the first 2,000 test images are the raw file's (counted from the bytes, not
     * balanced in the original release) */
    static float x[2000 * SZ];
    static int lab[2000];
    CHECK(bl_dataset_val_images(ds, 0, 2000, x, lab) == 0, "%s", bl_error());
    static const int first_test[5] = {3, 8, 8, 0, 6};
    for (int i = 0; i < 5; i++) CHECK(lab[i] == first_test[i], "test label %d: %d", i, lab[i]);
    int counts[10] = {0}, raw_counts[10] = {0};
    for (int i = 0; i < 2000; i++) { counts[lab[i]]++; raw_counts[test[(size_t)i * 3073]]++; }
    for (int k = 0; k < 10; k++) CHECK(counts[k] == raw_counts[k], "class %d: %d vs raw %d", k, counts[k], raw_counts[k]);

    /* known pixels against the raw bytes: record = label, 1024 R, 1024 G, 1024 B */
    for (int img = 0; img < 3; img++) {
        const unsigned char *rec = test + (size_t)img * 3073;
        CHECK(lab[img] == rec[0], "test image %d label %d vs raw %d", img, lab[img], rec[0]);
        for (int c = 0; c < 3; c++) {
            int y = 5 + c, xx = 7 + 3 * c;
            double want = rec[1 + c * 1024 + y * 32 + xx] / 127.5 - 1.0;
            CHECK_CLOSE(x[(size_t)img * SZ + (c * 32 + y) * 32 + xx], want, 1e-6);
        }
    }
    static float t0[SZ];
    int l0;
    bl_dataset_image(ds, BL_SPLIT_TRAIN, 0, t0, &l0);
    CHECK(l0 == train[0] && l0 == 6, "train label %d vs raw %d (README: 6)", l0, train[0]);
    CHECK_CLOSE(t0[2 * 1024 + 31 * 32 + 31], train[1 + 2 * 1024 + 31 * 32 + 31] / 127.5 - 1.0, 1e-6);

    /* scaling: min and max of the test set are -1 and 1 exactly where bytes are 0 and 255 */
    float mn = 2, mx = -2;
    for (size_t i = 0; i < 2000 * (size_t)SZ; i++) { mn = x[i] < mn ? x[i] : mn; mx = x[i] > mx ? x[i] : mx; }
    int has0 = 0, has255 = 0;
    for (size_t r = 0; r < 2000; r++)
        for (int p = 0; p < 3072; p++) { has0 |= test[r * 3073 + 1 + p] == 0; has255 |= test[r * 3073 + 1 + p] == 255; }
    CHECK(mn >= -1.0f && mx <= 1.0f, "range [%g, %g]", mn, mx);
    if (has0) CHECK(mn == -1.0f, "byte 0 should give -1, min %g", mn);
    if (has255) CHECK(mx == 1.0f, "byte 255 should give 1, max %g", mx);

    /* one epoch of shuffled batches visits every training image once: 5,000 per class */
    bl_batcher b;
    CHECK(bl_batcher_init(&b, ds, 3) == 0, "%s", bl_error());
    int ec[10] = {0};
    static float bx[100 * SZ];
    int bl[100];
    for (int k = 0; k < 500; k++) {
        bl_batch_images(&b, 100, bx, bl);
        for (int i = 0; i < 100; i++) ec[bl[i]]++;
    }
    for (int k = 0; k < 10; k++) CHECK(ec[k] == 5000, "epoch class %d: %d", k, ec[k]);
    /* and the first batch is shuffled (not the file's order) */
    bl_batcher_seek(&b, 0);
    bl_batch_images(&b, 100, bx, bl);
    int in_order = 1;
    for (int i = 0; i < 100; i++) in_order &= bl[i] == train[(size_t)i * 3073];
    CHECK(!in_order, "first batch is in file order");
    char line[512];
    bl_dataset_describe(ds, line, sizeof line);
    CHECK(strstr(line, "cifar10: 50000 train + 10000 val images 3x32x32, 10 classes") != NULL, "%s", line);
    bl_batcher_free(&b);
    bl_dataset_free(ds);
    free(test);
    free(train);
}

/* n CIFAR records with labels lab[i] and pixel bytes (i * 7 + p) % 256 */
static unsigned char *cifar_records(int n, const int *lab)
{
    unsigned char *b = malloc((size_t)n * 3073);
    for (int i = 0; i < n; i++) {
        b[(size_t)i * 3073] = (unsigned char)lab[i];
        for (int p = 0; p < 3072; p++) b[(size_t)i * 3073 + 1 + p] = (unsigned char)((i * 7 + p) % 256);
    }
    return b;
}

BL_TEST(test_cifar10_crafted)
{
    tu_tmpdir();
    int lab[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 4};
    unsigned char *rec = cifar_records(12, lab);
    static float x[SZ];
    int l;

    /* a directory with two data batches (one gzip-compressed) and a test batch */
    tu_mkdir("c");
    tu_write("c/data_batch_1.bin", rec, 5 * 3073, 0);
    tu_write("c/data_batch_2.bin.gz", rec + 5 * 3073, 4 * 3073, 1);
    tu_write("c/test_batch.bin", rec + 9 * 3073, 3 * 3073, 0);
    bl_dataset *ds = bl_data_cifar10(tu_path("c"));
    CHECK(ds && ds->n_train == 9 && ds->n_val == 3, "%s", ds ? "counts" : bl_error());
    if (ds) {
        bl_dataset_image(ds, BL_SPLIT_TRAIN, 6, x, &l);   /* record 6, from the .gz */
        CHECK(l == 6, "label %d", l);
        CHECK_CLOSE(x[1 * 1024 + 100], ((6 * 7 + 1024 + 100) % 256) / 127.5 - 1, 1e-6);
        bl_dataset_image(ds, BL_SPLIT_VAL, 2, x, &l);     /* record 11 */
        CHECK(l == 4, "val label %d", l);
        CHECK_CLOSE(x[3071], ((11 * 7 + 3071) % 256) / 127.5 - 1, 1e-6);
        bl_dataset_free(ds);
    }
    /* one file: the last 10% (here one image of 5... at least one) is held out */
    ds = bl_data_cifar10(tu_path("c/data_batch_1.bin"));
    CHECK(ds && ds->n_train == 4 && ds->n_val == 1, "single file split");
    bl_dataset_free(ds);
    /* a directory with only data batches: the last 10% of them is held out */
    tu_mkdir("d");
    tu_write("d/data_batch_1.bin", rec, 12 * 3073, 0);
    ds = bl_data_cifar10(tu_path("d"));
    CHECK(ds && ds->n_train == 11 && ds->n_val == 1, "tail split");
    bl_dataset_free(ds);

    /* bad input: each error names the file and the problem */
    tu_write("trunc.bin", rec, 2 * 3073 - 5, 0);
    CHECK(bl_data_cifar10(tu_path("trunc.bin")) == NULL, "truncated file accepted");
    CHECK_ERR("trunc.bin: 6141 bytes is not a whole number of 3073-byte records");
    rec[3 * 3073] = 12;
    tu_write("badlabel.bin", rec, 5 * 3073, 0);
    CHECK(bl_data_cifar10(tu_path("badlabel.bin")) == NULL, "label 12 accepted");
    CHECK_ERR("badlabel.bin: label 12 out of range 0..9 in record 3");
    tu_write("empty.bin", rec, 0, 0);
    CHECK(bl_data_cifar10(tu_path("empty.bin")) == NULL, "empty file accepted");
    CHECK_ERR("empty.bin: file is empty");
    CHECK(bl_data_cifar10(tu_path("nothere")) == NULL, "missing path accepted");
    CHECK_ERR("nothere: no such file or directory");
    tu_mkdir("e");
    CHECK(bl_data_cifar10(tu_path("e")) == NULL, "empty directory accepted");
    CHECK_ERR("no data_batch_1.bin");
    /* a gzip file cut short */
    tu_write("g.bin.gz", rec, 12 * 3073, 1);
    size_t gn;
    unsigned char *gz = bl_test_slurp(tu_path("g.bin.gz"), &gn);
    tu_write("cut.bin.gz", gz, gn / 2, 0);
    CHECK(bl_data_cifar10(tu_path("cut.bin.gz")) == NULL, "cut gzip accepted");
    CHECK_ERR("cut.bin.gz: corrupt or truncated gzip data");
    free(gz);
    free(rec);
    tu_cleanup();
}

/* ---------------- IDX (MNIST, Fashion-MNIST) ---------------- */

/* an IDX images file of n images rows x cols with bytes (i * 31 + p) % 256, or labels */
static unsigned char *idx_images(int n, int rows, int cols, size_t *len)
{
    *len = 16 + (size_t)n * rows * cols;
    unsigned char *b = calloc(1, *len);
    b[2] = 8; b[3] = 3;
    int d[3] = {n, rows, cols};
    for (int k = 0; k < 3; k++) { b[4 + 4 * k + 2] = (unsigned char)(d[k] >> 8); b[4 + 4 * k + 3] = (unsigned char)d[k]; }
    for (size_t i = 0; i < (size_t)n * rows * cols; i++) b[16 + i] = (unsigned char)((i / ((size_t)rows * cols) * 31 + i % ((size_t)rows * cols)) % 256);
    return b;
}

static unsigned char *idx_labels(int n, size_t *len)
{
    *len = 8 + (size_t)n;
    unsigned char *b = calloc(1, *len);
    b[2] = 8; b[3] = 1; b[6] = (unsigned char)(n >> 8); b[7] = (unsigned char)n;
    for (int i = 0; i < n; i++) b[8 + i] = (unsigned char)((i * 3) % 10);
    return b;
}

BL_TEST(test_idx_crafted)
{
    tu_tmpdir();
    size_t ni, nl, ti, tl;
    unsigned char *img = idx_images(5, 4, 3, &ni), *lab = idx_labels(5, &nl);
    unsigned char *timg = idx_images(2, 4, 3, &ti), *tlab = idx_labels(2, &tl);
    tu_mkdir("m");
    tu_write("m/train-images-idx3-ubyte", img, ni, 0);
    tu_write("m/train-labels-idx1-ubyte.gz", lab, nl, 1);
    tu_write("m/t10k-images-idx3-ubyte.gz", timg, ti, 1);
    tu_write("m/t10k-labels.idx1-ubyte", tlab, tl, 0);
    bl_dataset *ds = bl_data_open("mnist", tu_path("m"), 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (ds) {
        CHECK(ds->C == 1 && ds->H == 4 && ds->W == 3 && ds->n_train == 5 && ds->n_val == 2, "geometry %d %d %d %zu %zu",
              ds->C, ds->H, ds->W, ds->n_train, ds->n_val);
        float x[12];
        int l;
        bl_dataset_image(ds, BL_SPLIT_TRAIN, 4, x, &l);
        CHECK(l == 2, "label %d", l);                              /* (4 * 3) % 10 */
        CHECK_CLOSE(x[2 * 3 + 1], ((4 * 31 + 7) % 256) / 127.5 - 1, 1e-6);   /* row 2, col 1 */
        bl_dataset_image(ds, BL_SPLIT_VAL, 1, x, &l);
        CHECK(l == 3 && fabsf(x[0] - ((31 % 256) / 127.5f - 1)) < 1e-6f, "val image");
        CHECK(!strcmp(ds->class_names[7], "7"), "digit names");
        bl_dataset_free(ds);
    }
    ds = bl_data_idx("fashion-mnist", tu_path("m"));
    CHECK(ds && !strcmp(ds->class_names[9], "ankle boot") && !strcmp(ds->name, "fashion-mnist"), "fashion names");
    bl_dataset_free(ds);

    /* no t10k: the last 10% is held out */
    tu_mkdir("n");
    tu_write("n/train-images-idx3-ubyte", img, ni, 0);
    tu_write("n/train-labels-idx1-ubyte", lab, nl, 0);
    ds = bl_data_idx("mnist", tu_path("n"));
    CHECK(ds && ds->n_train == 4 && ds->n_val == 1, "tail split");
    bl_dataset_free(ds);

    /* wrong magic number (a labels file where images belong) */
    tu_mkdir("bad1");
    tu_write("bad1/train-images-idx3-ubyte", lab, nl, 0);
    tu_write("bad1/train-labels-idx1-ubyte", lab, nl, 0);
    CHECK(bl_data_idx("mnist", tu_path("bad1")) == NULL, "wrong magic accepted");
    CHECK_ERR("train-images-idx3-ubyte: wrong magic number 0x00000801, expected 0x00000803");
    /* truncated */
    tu_mkdir("bad2");
    tu_write("bad2/train-images-idx3-ubyte", img, ni - 7, 0);
    tu_write("bad2/train-labels-idx1-ubyte", lab, nl, 0);
    CHECK(bl_data_idx("mnist", tu_path("bad2")) == NULL, "truncated accepted");
    CHECK_ERR("header promises 60 data bytes but the file holds 53 (truncated file)");
    /* size mismatch between images and labels */
    size_t n4;
    unsigned char *lab4 = idx_labels(4, &n4);
    tu_mkdir("bad3");
    tu_write("bad3/train-images-idx3-ubyte", img, ni, 0);
    tu_write("bad3/train-labels-idx1-ubyte", lab4, n4, 0);
    CHECK(bl_data_idx("mnist", tu_path("bad3")) == NULL, "size mismatch accepted");
    CHECK_ERR("size mismatch");
    CHECK_ERR("holds 5 images but");
    CHECK_ERR("holds 4 labels");
    /* label out of range */
    lab[8 + 2] = 10;
    tu_mkdir("bad4");
    tu_write("bad4/train-images-idx3-ubyte", img, ni, 0);
    tu_write("bad4/train-labels-idx1-ubyte", lab, nl, 0);
    CHECK(bl_data_idx("mnist", tu_path("bad4")) == NULL, "label 10 accepted");
    CHECK_ERR("train-labels-idx1-ubyte: label 10 out of range 0..9 at item 2");
    /* missing and empty directories, missing labels */
    CHECK(bl_data_idx("mnist", tu_path("nothere")) == NULL, "missing dir");
    CHECK_ERR("nothere: no such directory");
    tu_mkdir("empty");
    CHECK(bl_data_idx("mnist", tu_path("empty")) == NULL, "empty dir");
    CHECK_ERR("empty: no train-images-idx3-ubyte");
    tu_mkdir("nolab");
    tu_write("nolab/train-images-idx3-ubyte", img, ni, 0);
    CHECK(bl_data_idx("mnist", tu_path("nolab")) == NULL, "missing labels");
    CHECK_ERR("no train-labels-idx1-ubyte");
    free(img); free(lab); free(timg); free(tlab); free(lab4);
    tu_cleanup();
}

BL_TEST(test_fashion_mnist_debian)
{
    char path[512];
    snprintf(path, sizeof path, "%s/t10k-labels-idx1-ubyte.gz", BL_FASHION_MNIST_DIR);
    if (access(path, R_OK) != 0) SKIP("dataset-fashion-mnist not installed");
    bl_dataset *ds = bl_data_open("fashion-mnist", NULL, 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (!ds) return;
    CHECK(ds->n_train == 60000 && ds->n_val == 10000 && ds->C == 1 && ds->H == 28 && ds->W == 28, "geometry");
    /* 6,000 training images per class (Xiao et al. 2017) */
    int counts[10] = {0};
    for (size_t i = 0; i < ds->n_train; i++) counts[ds->labels[i]]++;
    for (int k = 0; k < 10; k++) CHECK(counts[k] == 6000, "class %d: %d", k, counts[k]);
    /* the raw first test label and a pixel, read here with zlib directly */
    gzFile f = gzopen(path, "rb");
    unsigned char h[9];
    CHECK(f && gzread(f, h, 9) == 9, "read labels");
    if (f) gzclose(f);
    snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte.gz", BL_FASHION_MNIST_DIR);
    unsigned char im[16 + 784];
    f = gzopen(path, "rb");
    CHECK(f && gzread(f, im, sizeof im) == (int)sizeof im, "read images");
    if (f) gzclose(f);
    float x[784];
    int l;
    bl_dataset_image(ds, BL_SPLIT_VAL, 0, x, &l);
    CHECK(l == h[8], "label %d vs raw %d", l, h[8]);
    for (int p = 0; p < 784; p += 97) CHECK_CLOSE(x[p], im[16 + p] / 127.5 - 1, 1e-6);
    bl_dataset_free(ds);
}

/* ---------------- PNG folders ---------------- */

static void write_png(const char *rel, int w, int h, png_uint_32 format, const unsigned char *px)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)w;
    im.height = (png_uint_32)h;
    im.format = format;
    if (!png_image_write_to_file(&im, tu_path(rel), 0, px, 0, NULL)) { printf("# png write: %s\n", im.message); exit(99); }
}

BL_TEST(test_image_folder)
{
    tu_tmpdir();
    unsigned char rgb[4 * 5 * 3], grey[4 * 5], rgba[4 * 5 * 4];
    for (int i = 0; i < 60; i++) rgb[i] = (unsigned char)(i * 4);
    for (int i = 0; i < 20; i++) grey[i] = (unsigned char)(i * 12);
    for (int i = 0; i < 20; i++) {
        rgba[i * 4] = 200; rgba[i * 4 + 1] = 100; rgba[i * 4 + 2] = 50;
        rgba[i * 4 + 3] = i == 0 ? 0 : 255;   /* pixel 0 fully transparent: black after compositing */
    }
    tu_mkdir("f");
    tu_mkdir("f/cat");
    tu_mkdir("f/ant");
    write_png("f/ant/1.png", 5, 4, PNG_FORMAT_RGB, rgb);
    write_png("f/ant/2.PNG", 5, 4, PNG_FORMAT_GRAY, grey);
    write_png("f/ant/3.png", 5, 4, PNG_FORMAT_RGBA, rgba);
    write_png("f/cat/a.png", 5, 4, PNG_FORMAT_GRAY, grey);
    write_png("f/cat/b.png", 5, 4, PNG_FORMAT_RGB, rgb);
    tu_write("f/cat/notes.txt", "x", 1, 0);   /* not a PNG: ignored */
    bl_dataset *ds = bl_data_open("images", tu_path("f"), 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (ds) {
        CHECK(ds->C == 3 && ds->H == 4 && ds->W == 5 && ds->n_classes == 2, "geometry");
        CHECK(!strcmp(ds->class_names[0], "ant") && !strcmp(ds->class_names[1], "cat"), "sorted classes");
        /* each class holds out its last file: train = ant/1, ant/2, cat/a; val = ant/3, cat/b */
        CHECK(ds->n_train == 3 && ds->n_val == 2, "split %zu %zu", ds->n_train, ds->n_val);
        float x[60];
        int l;
        bl_dataset_image(ds, BL_SPLIT_TRAIN, 0, x, &l);   /* ant/1.png, RGB: pixel (1, 2) green */
        CHECK(l == 0, "label");
        CHECK_CLOSE(x[1 * 20 + 1 * 5 + 2], rgb[(1 * 5 + 2) * 3 + 1] / 127.5 - 1, 1e-6);
        bl_dataset_image(ds, BL_SPLIT_TRAIN, 1, x, &l);   /* ant/2.PNG, grey copied to R, G, B */
        CHECK_CLOSE(x[2 * 20 + 7], grey[7] / 127.5 - 1, 1e-6);
        CHECK_CLOSE(x[0 * 20 + 7], grey[7] / 127.5 - 1, 1e-6);
        bl_dataset_image(ds, BL_SPLIT_TRAIN, 2, x, &l);   /* cat/a.png */
        CHECK(l == 1, "label of cat/a.png %d", l);
        bl_dataset_image(ds, BL_SPLIT_VAL, 0, x, &l);     /* ant/3.png, RGBA on black */
        CHECK(l == 0 && x[0] == -1.0f && x[20] == -1.0f, "transparent pixel %g", x[0]);
        CHECK_CLOSE(x[0 * 20 + 1], 200 / 127.5 - 1, 1e-6);
        CHECK_CLOSE(x[2 * 20 + 1], 50 / 127.5 - 1, 1e-6);
        bl_dataset_free(ds);
    }
    /* all grey: one channel */
    tu_mkdir("g");
    tu_mkdir("g/only");
    write_png("g/only/a.png", 5, 4, PNG_FORMAT_GRAY, grey);
    ds = bl_data_images(tu_path("g"));
    CHECK(ds && ds->C == 1 && ds->n_train == 1 && ds->n_val == 0, "grey set");
    bl_dataset_free(ds);

    /* errors */
    write_png("f/cat/c.png", 4, 4, PNG_FORMAT_GRAY, grey);
    CHECK(bl_data_images(tu_path("f")) == NULL, "mixed sizes accepted");
    CHECK_ERR("c.png is 4x4 but");
    CHECK_ERR("is 5x4 (all images must be the same size)");
    tu_write("f/cat/c.png", "not a png at all", 16, 0);
    CHECK(bl_data_images(tu_path("f")) == NULL, "garbage PNG accepted");
    CHECK_ERR("f/cat/c.png: unreadable PNG");
    tu_mkdir("h");
    tu_mkdir("h/empty");
    CHECK(bl_data_images(tu_path("h")) == NULL, "empty class accepted");
    CHECK_ERR("h/empty: no .png files in this class folder");
    tu_mkdir("i");
    CHECK(bl_data_images(tu_path("i")) == NULL, "empty dir accepted");
    CHECK_ERR("i: no class sub-folders");
    CHECK(bl_data_images(tu_path("nothere")) == NULL, "missing dir accepted");
    CHECK_ERR("nothere: no such directory");
    tu_cleanup();
}

/* ---------------- the dispatcher ---------------- */

BL_TEST(test_open_errors)
{
    int nk = 0;
    while (bl_data_kinds[nk]) nk++;
    CHECK(nk == 6 && !strcmp(bl_data_kinds[0], "shapes"), "%d kinds", nk);
    CHECK(bl_data_open("cifar100", "x", 0) == NULL, "unknown kind accepted");
    CHECK_ERR("unknown data set 'cifar100'");
    CHECK(bl_data_open("cifar10", NULL, 0) == NULL, "missing path accepted");
    CHECK_ERR("cifar10: needs a path");
    CHECK(bl_data_open("shapes", "x", 0) == NULL, "shapes with a path accepted");
    CHECK_ERR("shapes: takes no path");
    if (access(BL_FASHION_MNIST_DIR, F_OK) != 0) {
        CHECK(bl_data_open("fashion-mnist", NULL, 0) == NULL, "absent fashion-mnist accepted");
        CHECK_ERR("dataset-fashion-mnist");
    }
    bl_dataset *ds = bl_data_open("shapes", NULL, 3);
    char line[256];
    CHECK(ds && strstr(bl_dataset_describe(ds, line, sizeof line), "shapes: endless train + 10000 val images 3x32x32, 10 classes"),
          "%s", line);
    bl_batcher b;
    bl_batcher_init(&b, ds, 0);
    int ids[8];
    CHECK(bl_batch_text(&b, 1, 3, ids) == -1, "text batch from images");
    CHECK_ERR("holds images, not text");
    bl_batcher_free(&b);
    bl_dataset_free(ds);
}

int main(void)
{
    RUN(test_shapes_deterministic);
    RUN(test_shapes_classes_differ);
    RUN(test_shapes_batches);
    RUN(test_cifar10_real);
    RUN(test_cifar10_crafted);
    RUN(test_idx_crafted);
    RUN(test_fashion_mnist_debian);
    RUN(test_image_folder);
    RUN(test_open_errors);
    return bl_test_done();
}
