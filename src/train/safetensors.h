/* safetensors.h - read and write safetensors files (the checkpoint format of blocklab).
 *
 * Format (https://github.com/huggingface/safetensors, README "Format"):
 *
 *   [8 bytes]  N, unsigned 64-bit little-endian: the length of the header
 *   [N bytes]  JSON object, UTF-8, padded with spaces:
 *                { "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
 *                  "__metadata__": {"key": "string value", ...} }
 *   [rest]     the data buffer; tensor bytes are buffer[begin, end), row-major, little-endian.
 *              The tensors cover the buffer exactly: no overlap, no hole, nothing after the end.
 *
 * blocklab writes F32 only (in the order given, header padded to a multiple of 8 bytes like the
 * reference writer) and reads every safetensors dtype's structure, converting F32, F16, BF16,
 * F64, I64, I32, I16, I8, U64, U32, U16, U8 and BOOL to float on load (the halves exactly, F64
 * and integers rounded to the nearest float, BOOL to 0 or 1; PyTorch files often hold int64
 * buffers). F8_E4M3, F8_E5M2, F8_E8M0 and C64 tensors, tensors of more than 4 dimensions and
 * tensors with a dimension of size 0 (torch.empty(0, 3)) are validated but keep no values: only
 * loading one of them is refused (bl_st_need_values), not the file. Checkpoints (DESIGN.md section 5) keep parameters under their PyTorch names, the
 * optimizer state under `optim.` names, and config, step and history as JSON strings in
 * `__metadata__`, so a file loads with safetensors.torch.load_file and back.
 *
 * Errors: every function returns NULL / -1 and sets bl_error() to one line
 * "safetensors: PATH: what is wrong (values seen)"; nothing prints, aborts or crashes on any
 * input file.
 */
#ifndef BL_SAFETENSORS_H
#define BL_SAFETENSORS_H

#include "core/tensor.h"

/* Largest header the reader accepts (the reference implementation's limit is 100 MB). */
#define BL_ST_MAX_HEADER ((size_t)100 << 20)

/* Write `n` tensors and `nmeta` string key/value pairs to `path`, atomically (core/fileio.h:
 * the bytes go to PATH.tmp.PID in the same directory, which is flushed, fsynced and renamed over
 * PATH; on any failure the temp file is removed, PATH is left as it was, and -1 is returned).
 * names[i] is the tensor's name (NULL names, or names == NULL, fall back to tensors[i]->name);
 * names must be unique, non-empty and not "__metadata__". tensors[i]->data is written straight
 * from where it lives (views into one flat parameter buffer are written without a copy).
 * keys/values may be NULL when nmeta == 0; values are any strings (JSON text for a config or
 * a history is stored as a string, escaped by jansson). Returns 0 or -1. */
int bl_st_write(const char *path, int n, const char *const *names, const bl_tensor *const *tensors,
                int nmeta, const char *const *keys, const char *const *values);

/* A loaded file: its tensors (owned float data, names owned, in file order) and metadata. */
typedef struct bl_st_file {
    char *path;
    int n;                  /* number of tensors */
    bl_tensor *tensors;     /* [n] views into `data`; tensors[i].name is the tensor's name;
                               data NULL for a tensor blocklab cannot hold (bl_st_need_values),
                               then numel is right but ndim is 0 past 4 dimensions */
    const char **dtypes;    /* [n] each tensor's dtype as stored: "F32", "I64", ... (static) */
    char **shapes;          /* [n] each tensor's shape as stored: "[2, 3]", "[1, 2, 3, 4, 5]" */
    char **unheld;          /* [n] NULL, or why the tensor keeps no values (bl_st_need_values) */
    float *data;            /* one buffer holding every tensor's values */
    int nmeta;
    char **meta_keys;       /* [nmeta] */
    char **meta_values;     /* [nmeta] */
} bl_st_file;

/* Read and validate a whole file. Refused, with the reason: a file shorter than 8 bytes, a
 * header length past the end of the file or over BL_ST_MAX_HEADER, a header that is not a JSON
 * object, an entry without dtype / shape / data_offsets or with ones of the wrong type, a dtype
 * that is not a safetensors dtype, a negative dimension, a shape of at most 4 dimensions with
 * more than BL_MAX_NUMEL elements, offsets outside the data, a byte size not matching the shape,
 * overlapping tensors, holes or trailing bytes in the data, non-string metadata values.
 * Returns the file (free with bl_st_free) or NULL. */
bl_st_file *bl_st_read(const char *path);

/* The tensor named `name`, or NULL (no error is set: absence is not an error). Its data is NULL
 * when its dtype is not converted: check with bl_st_need_values before reading the values. */
const bl_tensor *bl_st_get(const bl_st_file *f, const char *name);

/* 0 when t (a tensor of f) has values, else -1 with "safetensors: PATH: tensor NAME has dtype
 * F8_E4M3, which blocklab cannot convert to float32" / "... has 5 dimensions (shape [1, 2, 3, 4,
 * 5]); blocklab tensors have at most 4" / "... has shape [0, 3], no elements (dimension 0 has
 * size 0); blocklab tensors have at least one". */
int bl_st_need_values(const bl_st_file *f, const bl_tensor *t);

/* The metadata value for `key`, or NULL when absent. */
const char *bl_st_meta(const bl_st_file *f, const char *key);

/* Copy the tensor `name` into dst (same numel and same shape required). Returns 0, or -1 with
 * "safetensors: PATH: tensor NAME missing" / "... has shape [..] but [..] was expected" / the
 * bl_st_need_values message. */
int bl_st_copy_into(const bl_st_file *f, const char *name, bl_tensor *dst);

void bl_st_free(bl_st_file *f);

#endif
