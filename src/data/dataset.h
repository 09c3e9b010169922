/* dataset.h - the data the models train on: image sets and text sets (DESIGN.md section 6).
 *
 * A bl_dataset is either a set of images (N images C x H x W with integer labels and class
 * names) or a text (bytes as characters, a vocabulary sorted by byte value). Every set has a
 * training part and a held-out (validation) part:
 *
 *   shapes         built in, endless: 10 classes of procedurally drawn 3x32x32 images; the
 *                  training stream is any index, the held-out part a separate fixed family
 *   cifar10 PATH   data_batch_*.bin -> train, test_batch.bin -> held out (.bin.gz works too);
 *                  with no test batch, or a single batch file, the last 10% is held out
 *   mnist DIR      train-{images-idx3,labels-idx1}-ubyte -> train, t10k-* -> held out
 *   fashion-mnist  same as mnist; with no DIR it looks in /usr/share/datasets/fashion-mnist
 *   images DIR     one sub-folder of PNGs per class (sorted names = labels); the last 10% of
 *                  each class is held out
 *   text FILE      bytes as characters; first 90% train, last 10% validation; with no FILE the
 *                  built-in manual of blocklab (share/blocklab.txt, embedded at build time)
 *
 * Pixels are stored as bytes and handed out as float in [-1, 1]: x = byte / 127.5 - 1
 * (DiT and rectified-flow convention: data scaled to [-1, 1]). Batches are [B, C, H, W],
 * row-major, channel planes (CIFAR's own layout).
 *
 * Randomness (DESIGN.md section 4): a batcher derives its key from bl_rng_named(seed, "data").
 * Its whole state is the number of samples it has served, so a checkpoint stores one integer
 * and bl_batcher_seek() resumes exactly (train 20 + save + load + train 20 == train 40).
 *   images: epoch e is a Fisher-Yates shuffle of the training part drawn from the stream
 *           (key, e); sample k is perm_e[k mod N] with e = k / N.
 *   shapes: sample k is image index splitmix64(key + k) >> 1 (endless; labels balanced).
 *   text:   window k starts at a uniform offset drawn from the stream (key, k).
 * Validation batches are fixed (no seed): the first n held-out images, or n text windows at
 * evenly spaced offsets of the validation part.
 *
 * Errors: every loader returns NULL with one line in bl_error() that names the command, the
 * file and what is wrong (truncated file, wrong magic number, size mismatch, label out of
 * range, missing or empty directory, unreadable PNG, binary or too short text). Nothing here
 * prints or aborts.
 */
#ifndef BL_DATASET_H
#define BL_DATASET_H

#include <stddef.h>
#include <stdint.h>

typedef enum { BL_DATA_IMAGES = 0, BL_DATA_TEXT = 1 } bl_data_kind;
typedef enum { BL_SPLIT_TRAIN = 0, BL_SPLIT_VAL = 1 } bl_split;

/* Fields are read-only for users of the API; the loaders fill them. */
typedef struct bl_dataset {
    bl_data_kind kind;
    char name[32];          /* "shapes", "cifar10", "mnist", "fashion-mnist", "images", "text" */
    char *source;           /* the path it came from, or "built in" */

    /* images */
    int C, H, W;            /* one image is C x H x W */
    int n_classes;
    char **class_names;     /* [n_classes] */
    int endless;            /* 1 for shapes: any training index exists, n_train is 0 */
    size_t n_train, n_val;  /* images in each part (shapes: n_val is a nominal 10,000) */
    uint8_t *pixels;        /* [n_train + n_val, C, H, W] bytes, train part first (not shapes) */
    uint8_t *labels;        /* [n_train + n_val] */
    uint64_t shapes_seed;   /* shapes: the seed that, with the index, fixes every image */

    /* text */
    int vocab_size;         /* distinct bytes in the file */
    unsigned char vocab[256];  /* id -> byte, sorted ascending */
    int byte_to_id[256];    /* byte -> id, -1 when the byte is not in the vocabulary */
    uint8_t *ids;           /* [n_tokens] token ids; ids[0 .. n_train) train, rest validation */
    size_t n_tokens;        /* (n_train / n_val above count tokens for text) */
} bl_dataset;

/* ---- opening ---- */

/* The set names bl_data_open accepts, NULL-terminated (for help and tab completion). */
extern const char *const bl_data_kinds[];

/* Open a set by command name and argument: kind is "shapes", "cifar10", "mnist",
 * "fashion-mnist", "images" or "text"; path may be NULL for shapes, fashion-mnist and text
 * (the built-in manual). seed only matters for shapes. NULL + error (unknown kind, missing
 * path, or the loader's error). */
bl_dataset *bl_data_open(const char *kind, const char *path, uint64_t seed);

/* The built-in shapes set (see shapes.c for the ten classes). Never fails except out of memory. */
bl_dataset *bl_data_shapes(uint64_t seed);
/* CIFAR-10 binary batches: a directory holding data_batch_{1..5}.bin[.gz] and optionally
 * test_batch.bin[.gz] (or its cifar-10-batches-bin sub-folder), or one batch file. */
bl_dataset *bl_data_cifar10(const char *path);
/* MNIST-style IDX files in dir ({train,t10k}-{images-idx3,labels-idx1}-ubyte, '.' for the
 * second '-' also accepted, optionally .gz). name is "mnist" or "fashion-mnist" (class names). */
bl_dataset *bl_data_idx(const char *name, const char *dir);
/* The default Fashion-MNIST directory (Debian's dataset-fashion-mnist). */
#define BL_FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"
/* A folder of PNGs, one sub-folder per class (libpng; grey, RGB, RGBA, palette all read; alpha
 * composited on black). C is 1 when every image is grey, else 3. All images one size. */
bl_dataset *bl_data_images(const char *dir);
/* Text from a file (bytes as characters), or the built-in manual when path is NULL. Refuses an
 * empty file, a file with NUL bytes and a file that is mostly not text. */
bl_dataset *bl_data_text(const char *path);
/* Text from memory (name and source go into the description). Same checks. */
bl_dataset *bl_data_text_mem(const char *source, const unsigned char *bytes, size_t n);

void bl_dataset_free(bl_dataset *ds);

/* One line for `show` / `data`, e.g.
 *   "cifar10: 10000 train + 10000 val images 3x32x32, 10 classes, from ../shared/data/cifar10"
 *   "text: 1115394 characters (1003854 train + 111540 val), vocab 65, from tiny.txt"
 * Written into buf (always NUL-terminated); returns buf. */
char *bl_dataset_describe(const bl_dataset *ds, char *buf, size_t n);

/* ---- images ---- */

/* Image `index` of a split as float [C, H, W] in [-1, 1] into x (C*H*W floats) and its label into
 * *label (may be NULL). -1 + error when the set holds no images or index is out of range
 * (shapes: any train index; val index < n_val). */
int bl_dataset_image(const bl_dataset *ds, bl_split split, size_t index, float *x, int *label);

/* The fixed held-out batch: images first .. first + n - 1 of the validation part into
 * x [n, C, H, W] and labels [n] (may be NULL). -1 + error when they do not exist. */
int bl_dataset_val_images(const bl_dataset *ds, size_t first, int n, float *x, int *labels);

/* ---- text ---- */

/* Check that both text parts hold at least T + 1 tokens (one window of context T plus its
 * target). -1 + "text: FILE has N characters in its validation part, fewer than context + 1 = M". */
int bl_text_check_context(const bl_dataset *ds, int T);

/* Encode a string into ids (out has room for strlen(s)); returns the count, or -1 + error that
 * names the first character outside the vocabulary and its position. */
int bl_text_encode(const bl_dataset *ds, const char *s, int *out);
/* Decode n ids into buf (room for n + 1 bytes, NUL-terminated; note a text may hold bytes that
 * are not valid UTF-8 on their own). Returns n, or -1 + error on an id outside the vocabulary. */
int bl_text_decode(const bl_dataset *ds, const int *ids, int n, char *buf);

/* Copy n bytes of src to dst (room for 3n + 1 bytes, NUL-terminated) as valid UTF-8 for showing
 * generated text: each maximal ill-formed subpart (a stray byte, a truncated sequence) becomes
 * U+FFFD, as Python's bytes.decode("utf-8", "replace"). Returns the bytes written. */
size_t bl_utf8_repair(const char *src, size_t n, char *dst);
/* The length in bytes (1-4) of the valid UTF-8 sequence at p (left >= 1 bytes there), or 0 when
 * it is ill-formed (Unicode 3.9 table 3-7: no overlong forms, surrogates or code points past
 * U+10FFFF). */
size_t bl_utf8_seq_len(const char *p, size_t left);

/* n fixed validation windows of T + 1 tokens into ids [n, T + 1]: window j starts at
 * n_train + floor(j * (n_val - T - 1) / max(n - 1, 1)) (evenly spaced, the same every call).
 * Inputs are ids[:, :T], targets ids[:, 1:]. -1 + error when the validation part is too short. */
int bl_text_val_windows(const bl_dataset *ds, int n, int T, int *ids);

/* ---- seeded training batches ---- */

typedef struct bl_batcher {
    const bl_dataset *ds;   /* not owned; must outlive the batcher */
    uint64_t key;           /* from bl_rng_named(seed, "data") */
    uint64_t drawn;         /* samples (images or windows) served so far: the whole state */
    uint32_t *perm;         /* images: the current epoch's order [n_train] */
    uint64_t perm_epoch;    /* epoch that perm holds (UINT64_MAX when none yet) */
} bl_batcher;

/* Set up a batcher for ds with the given seed (allocates the permutation once). -1 + error. */
int bl_batcher_init(bl_batcher *b, const bl_dataset *ds, uint64_t seed);
void bl_batcher_free(bl_batcher *b);
/* Resume at sample `drawn` (as if that many had been served). Always succeeds. */
void bl_batcher_seek(bl_batcher *b, uint64_t drawn);

/* The next B training images into x [B, C, H, W] (floats in [-1, 1]) and labels [B] (may be
 * NULL). Allocates nothing. -1 + error when the set holds no images or B < 1. */
int bl_batch_images(bl_batcher *b, int B, float *x, int *labels);

/* B random training windows of T + 1 tokens into ids [B, T + 1] (inputs ids[:, :T], targets
 * ids[:, 1:]). Allocates nothing. -1 + error when the set is not text or too short for T. */
int bl_batch_text(bl_batcher *b, int B, int T, int *ids);

#endif
