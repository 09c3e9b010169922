/* fuzz_data.c - the data readers on any bytes, one binary per reader (FUZZ_READER, set by
 * tests/fuzz/build.sh): cifar10 (a batch file), idx (an MNIST folder: the input split at its
 * first 4 bytes' count into the image and the label file), pngdir (a one-class folder with
 * the input as a .png) and text (a text file). */
#include "data/dataset.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    bl_dataset *ds = NULL;
#if FUZZ_READER == 1
    ds = bl_data_open("cifar10", fuzz_file("data_batch_1.bin", data, n), 0);
#elif FUZZ_READER == 2
    /* first 4 bytes (little-endian): how many of the rest are the images file */
    size_t k = 0;
    if (n >= 4) k = (size_t)(data[0] | data[1] << 8 | data[2] << 16) % (n - 3);
    const uint8_t *rest = n >= 4 ? data + 4 : data;
    size_t nr = n >= 4 ? n - 4 : 0;
    if (k > nr) k = nr;
    fuzz_file("mnist/train-images-idx3-ubyte", rest, k);
    const char *lab = fuzz_file("mnist/train-labels-idx1-ubyte", rest + k, nr - k);
    char dir[512];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(lab, '/') - lab), lab);
    ds = bl_data_open("mnist", dir, 0);
#elif FUZZ_READER == 3
    const char *png = fuzz_file("imgs/cls/a.png", data, n);
    char dir[512];
    snprintf(dir, sizeof dir, "%.*s", (int)(strstr(png, "/cls/") - png), png);
    ds = bl_data_open("images", dir, 0);
#else
    ds = bl_data_open("text", fuzz_file("t.txt", data, n), 0);
#endif
    bl_dataset_free(ds);
    return 0;
}
