/* data_internal.h - helpers shared by the loaders in src/data (not part of the public API). */
#ifndef BL_DATA_INTERNAL_H
#define BL_DATA_INTERNAL_H

#include "data/dataset.h"

/* A zeroed dataset of the given kind, name and source (copied). NULL + error (out of memory). */
bl_dataset *bl_ds_new(bl_data_kind kind, const char *name, const char *source);
/* Copy n class names into ds. -1 + error (out of memory). */
int bl_ds_set_classes(bl_dataset *ds, int n, const char *const *names);

/* Make room for n_more more images after the first `have` (pixels and labels realloc'd);
 * returns the first new pixel slot, or NULL + error (out of memory). */
uint8_t *bl_ds_grow(bl_dataset *ds, size_t have, size_t n_more);
/* With no separate held-out files: hold out the last 10% of `total` images (at least one when
 * total >= 2) and set n_train / n_val. */
void bl_ds_split_tail(bl_dataset *ds, size_t total);

/* Read a whole file, plain or gzip-compressed (zlib's gzread reads both), into a malloc'd buffer.
 * -1 + "WHAT: PATH: <reason>" (missing, unreadable, corrupt or truncated gzip data, empty). */
int bl_read_all(const char *what, const char *path, uint8_t **buf, size_t *n);

/* Does PATH exist as a regular file / a directory? */
int bl_is_file(const char *path);
int bl_is_dir(const char *path);
/* Why path is not a folder, for a message: "no such directory", "is a file, not a directory" or
 * "not a directory (a device, pipe or socket)". */
const char *bl_why_not_dir(const char *path);

/* Look for dir/base, then dir/base.gz; write the one found to out and return 1, else 0. */
int bl_find_file(const char *dir, const char *base, char *out, size_t n);

/* Draw shapes image `index` for `seed` as float [3, 32, 32] in [-1, 1]; returns its label. */
int bl_shapes_draw(uint64_t seed, uint64_t index, float *x);
/* The first held-out shapes index (train indices stay below it). */
#define BL_SHAPES_VAL_BASE ((uint64_t)1 << 63)
#define BL_SHAPES_SIZE 32

/* The built-in manual (share/blocklab.txt), embedded by the rule in src/data/local.am. */
extern const unsigned char bl_builtin_text[];
extern const size_t bl_builtin_text_len;

#endif
