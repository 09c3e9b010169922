/* safetensors.c - safetensors reader and atomic writer (see safetensors.h for the format).
 *
 * The checks follow the reference implementation (huggingface/safetensors, safetensors/src/
 * tensor.rs: Metadata::validate): header under 100 MB, tensors covering the data buffer
 * exactly, byte sizes matching shape x dtype size.
 */
#include "train/safetensors.h"
#include "core/error.h"
#include "core/fileio.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BL_ST_BIG_ENDIAN 1
#else
#define BL_ST_BIG_ENDIAN 0
#endif

/* Bytes converted per chunk when the file's byte order or dtype differs from the host floats. */
#define ST_CHUNK 4096

static uint32_t bswap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static uint64_t le64_decode(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}

static void le64_encode(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
}

/* IEEE binary16 -> binary32, exact (subnormals, infinities and NaN kept). */
static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f); /* m * 2^-24 */
        return sign ? -v : v;
    }
    if (e == 31)
        bits = sign | 0x7f800000u | (m << 13);
    else
        bits = sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static float bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ------------------------------------------------------------------------------------------ */
/* writing                                                                                    */

/* Fail with the "safetensors: PATH: " prefix; returns -1. */
__attribute__((format(printf, 2, 3))) static int st_fail(const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bl_fail("safetensors: %s: %s", path, msg);
}

static int write_floats(FILE *fp, const float *x, size_t n)
{
    if (!BL_ST_BIG_ENDIAN) return fwrite(x, sizeof(float), n, fp) == n ? 0 : -1;
    uint32_t buf[ST_CHUNK];
    for (size_t i = 0; i < n; i += ST_CHUNK) {
        size_t m = n - i < ST_CHUNK ? n - i : ST_CHUNK;
        memcpy(buf, x + i, m * 4);
        for (size_t j = 0; j < m; j++) buf[j] = bswap32(buf[j]);
        if (fwrite(buf, 4, m, fp) != m) return -1;
    }
    return 0;
}

static const char *entry_name(const char *const *names, const bl_tensor *const *tensors, int i)
{
    if (names && names[i]) return names[i];
    return tensors[i] ? tensors[i]->name : NULL;
}

/* The JSON header for the write, padded with spaces to a multiple of 8 bytes; *len gets its
 * length. NULL with an error (not yet prefixed) on bad arguments. */
static char *build_header(int n, const char *const *names, const bl_tensor *const *tensors,
                          int nmeta, const char *const *keys, const char *const *values,
                          size_t *len)
{
    json_t *root = json_object(), *meta = NULL;
    char *text = NULL;
    if (!root) return BL_FAILP("out of memory");
    if (nmeta > 0) {
        meta = json_object();
        if (!meta || json_object_set_new(root, "__metadata__", meta) < 0) {
            bl_fail("out of memory");
            goto out;
        }
        for (int i = 0; i < nmeta; i++) {
            if (!keys[i] || !values[i]) {
                bl_fail("metadata entry %d has no %s", i, keys[i] ? "value" : "key");
                goto out;
            }
            if (json_object_get(meta, keys[i])) {
                bl_fail("metadata key \"%s\" given twice", keys[i]);
                goto out;
            }
            json_t *s = json_string(values[i]);
            if (!s || json_object_set_new(meta, keys[i], s) < 0) {
                bl_fail("metadata \"%s\" is not valid UTF-8", keys[i]);
                goto out;
            }
        }
    }
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        const bl_tensor *t = tensors[i];
        const char *name = entry_name(names, tensors, i);
        if (!t || !t->data) {
            bl_fail("tensor %d (%s) has no data", i, name ? name : "unnamed");
            goto out;
        }
        if (!name || !*name || strcmp(name, "__metadata__") == 0) {
            bl_fail("tensor %d has %s name", i, name && *name ? "the reserved" : "no");
            goto out;
        }
        if (json_object_get(root, name)) {
            bl_fail("tensor name \"%s\" given twice", name);
            goto out;
        }
        json_t *shape = json_array();
        for (int d = 0; shape && d < t->ndim; d++)
            json_array_append_new(shape, json_integer(t->shape[d]));
        uint64_t bytes = (uint64_t)t->numel * 4;
        json_t *e = json_pack("{s:s, s:o, s:[I, I]}", "dtype", "F32", "shape", shape,
                              "data_offsets", (json_int_t)off, (json_int_t)(off + bytes));
        if (!e || json_object_set_new(root, name, e) < 0) {
            bl_fail("tensor name \"%s\" is not valid UTF-8", name);
            goto out;
        }
        off += bytes;
    }
    text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!text) {
        bl_fail("out of memory");
        goto out;
    }
    size_t m = strlen(text), padded = (m + 7) / 8 * 8;
    char *p = realloc(text, padded + 1);
    if (!p) {
        free(text);
        text = NULL;
        bl_fail("out of memory");
        goto out;
    }
    text = p;
    memset(text + m, ' ', padded - m);
    text[padded] = 0;
    *len = padded;
out:
    json_decref(root);
    return text;
}

int bl_st_write(const char *path, int n, const char *const *names, const bl_tensor *const *tensors,
                int nmeta, const char *const *keys, const char *const *values)
{
    if (!path || !*path) return bl_fail("safetensors: no file name given");
    if (n < 0 || nmeta < 0 || (n > 0 && !tensors) || (nmeta > 0 && (!keys || !values)))
        return st_fail(path, "bad arguments (%d tensors, %d metadata entries)", n, nmeta);
    size_t hlen = 0;
    char *header = build_header(n, names, tensors, nmeta, keys, values, &hlen);
    if (!header) {
        bl_error_prefix("safetensors: %s", path);
        return -1;
    }
    bl_atomic_file af;
    if (bl_atomic_open(&af, path) < 0) {
        free(header);
        bl_error_prefix("safetensors");
        return -1;
    }
    unsigned char lenbuf[8];
    le64_encode(lenbuf, (uint64_t)hlen);
    errno = 0;
    int ok = fwrite(lenbuf, 1, 8, af.f) == 8 && fwrite(header, 1, hlen, af.f) == hlen;
    for (int i = 0; ok && i < n; i++) ok = write_floats(af.f, tensors[i]->data, tensors[i]->numel) == 0;
    free(header);
    if (!ok) {
        int e = errno ? errno : EIO;
        bl_atomic_abort(&af);
        return st_fail(path, "write failed: %s", strerror(e));
    }
    if (bl_atomic_commit(&af) < 0) {
        bl_error_prefix("safetensors");
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* reading                                                                                    */

/* The safetensors dtypes (safetensors/src/tensor.rs: Dtype) with byte sizes; all but the last
 * four are converted to float32 on load (integers rounded to the nearest float, BOOL to 0 or 1).
 * The file's structure (offsets, bytes = elements x size) is checked for every one; a tensor of a
 * dtype that is not converted is refused only when it is loaded (bl_st_need_values). */
enum { DT_F32, DT_F16, DT_BF16, DT_F64, DT_I64, DT_I32, DT_I16, DT_I8, DT_U64, DT_U32, DT_U16,
       DT_U8, DT_BOOL, DT_CONVERTED, DT_F8_E4M3 = DT_CONVERTED, DT_F8_E5M2, DT_F8_E8M0, DT_C64 };

static const struct { const char *name; int size; } dtypes[] = {
    [DT_F32] = {"F32", 4}, [DT_F16] = {"F16", 2}, [DT_BF16] = {"BF16", 2}, [DT_F64] = {"F64", 8},
    [DT_I64] = {"I64", 8}, [DT_I32] = {"I32", 4}, [DT_I16] = {"I16", 2},   [DT_I8] = {"I8", 1},
    [DT_U64] = {"U64", 8}, [DT_U32] = {"U32", 4}, [DT_U16] = {"U16", 2},   [DT_U8] = {"U8", 1},
    [DT_BOOL] = {"BOOL", 1}, [DT_F8_E4M3] = {"F8_E4M3", 1}, [DT_F8_E5M2] = {"F8_E5M2", 1},
    [DT_F8_E8M0] = {"F8_E8M0", 1}, [DT_C64] = {"C64", 8},
};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

typedef struct {
    uint64_t begin, end;
    int dtype, index;
} st_span;

static int span_cmp(const void *a, const void *b)
{
    const st_span *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : (x->end > y->end) - (x->end < y->end);
}

void bl_st_free(bl_st_file *f)
{
    if (!f) return;
    for (int i = 0; i < f->n; i++) {
        free((char *)f->tensors[i].name);
        free(f->shapes[i]);
        free(f->unheld[i]);
    }
    for (int i = 0; i < f->nmeta; i++) {
        free(f->meta_keys[i]);
        free(f->meta_values[i]);
    }
    free(f->tensors);
    free(f->dtypes);
    free(f->shapes);
    free(f->unheld);
    free(f->data);
    free(f->meta_keys);
    free(f->meta_values);
    free(f->path);
    free(f);
}

static int dtype_of(const char *s)
{
    for (int i = 0; i < N_DTYPES; i++)
        if (strcmp(s, dtypes[i].name) == 0) return i;
    return -1;
}

static const char *json_kind(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Append to buf (size n, used *len) like snprintf, never past the end. */
__attribute__((format(printf, 4, 5))) static void add(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*len < n) *len += (size_t)vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
}

/* Parse one tensor entry into t (shape, numel), its span, its shape as stored (*shape_out,
 * "[2, 3]") and, for a tensor blocklab cannot hold, why (*unheld_out; see bl_st_need_values);
 * -1 + error (unprefixed) when the entry is malformed. */
static int parse_entry(const char *name, json_t *e, bl_tensor *t, st_span *sp, uint64_t datasize,
                       char **shape_out, char **unheld_out)
{
    if (!json_is_object(e)) return bl_fail("tensor %s is %s, not an object", name, json_kind(e));
    json_t *dt = json_object_get(e, "dtype"), *sh = json_object_get(e, "shape"),
           *of = json_object_get(e, "data_offsets");
    if (!dt) return bl_fail("tensor %s has no dtype", name);
    if (!sh) return bl_fail("tensor %s has no shape", name);
    if (!of) return bl_fail("tensor %s has no data_offsets", name);
    if (!json_is_string(dt)) return bl_fail("tensor %s: dtype is %s, not a string", name, json_kind(dt));
    sp->dtype = dtype_of(json_string_value(dt));
    if (sp->dtype < 0)
        return bl_fail("tensor %s has dtype %.32s, which is not a safetensors dtype", name,
                       json_string_value(dt));
    int esize = dtypes[sp->dtype].size;
    if (!json_is_array(sh)) return bl_fail("tensor %s: shape is %s, not an array", name, json_kind(sh));
    /* any number of dimensions and sizes of 0 are valid safetensors (torch.empty(0, 3)); such a
     * tensor is checked like the others but keeps no values (refused when it is loaded) */
    size_t nd = json_array_size(sh), slen = 0, zero_dim = 0;
    char shape[256];
    uint64_t numel = 1;
    int empty = 0;
    add(shape, sizeof shape, &slen, "[");
    for (size_t d = 0; d < nd; d++) {
        json_t *v = json_array_get(sh, d);
        if (!json_is_integer(v))
            return bl_fail("tensor %s: shape entry %zu is %s, not an integer", name, d, json_kind(v));
        json_int_t x = json_integer_value(v);
        if (x < 0 || x > INT_MAX)
            return bl_fail("tensor %s has dimension %zu of size %lld (sizes must be 0 to %d)", name,
                           d, (long long)x, INT_MAX);
        add(shape, sizeof shape, &slen, "%s%lld", d ? ", " : "", (long long)x);
        if (x == 0 && !empty) {
            empty = 1;
            zero_dim = d;
        }
        numel = numel > UINT64_MAX / ((uint64_t)x + 1) ? UINT64_MAX : numel * (uint64_t)x;
        if (d < BL_MAXDIM) t->shape[d] = (int)x;
    }
    add(shape, sizeof shape, &slen, "]");
    if (slen >= sizeof shape) strcpy(shape + sizeof shape - 5, "...]");
    if (empty) numel = 0;
    char why[768] = "";
    if (sp->dtype >= DT_CONVERTED)
        snprintf(why, sizeof why, "tensor %.256s has dtype %s, which blocklab cannot convert to float32",
                 name, dtypes[sp->dtype].name);
    else if (nd > BL_MAXDIM)
        snprintf(why, sizeof why, "tensor %.256s has %zu dimensions (shape %s); blocklab tensors have at "
                 "most %d", name, nd, shape, BL_MAXDIM);
    else if (empty)
        snprintf(why, sizeof why, "tensor %.256s has shape %s, no elements (dimension %zu has size 0); "
                 "blocklab tensors have at least one", name, shape, zero_dim);
    if (nd > BL_MAXDIM || empty) {   /* held by no bl_tensor: keep the element count only */
        t->ndim = nd > BL_MAXDIM ? 0 : (int)nd;
        t->numel = numel > SIZE_MAX ? SIZE_MAX : (size_t)numel;
    } else {
        t->ndim = (int)nd;
        if (bl_shape_check("shape", t->ndim, t->shape, &t->numel) < 0) {
            bl_error_prefix("tensor %s", name);
            return -1;
        }
    }
    if (!json_is_array(of) || json_array_size(of) != 2 || !json_is_integer(json_array_get(of, 0)) ||
        !json_is_integer(json_array_get(of, 1)))
        return bl_fail("tensor %s: data_offsets must be two integers [begin, end]", name);
    json_int_t b = json_integer_value(json_array_get(of, 0)), en = json_integer_value(json_array_get(of, 1));
    if (b < 0 || en < b || (uint64_t)en > datasize)
        return bl_fail("tensor %s has data_offsets [%lld, %lld] outside the data (%llu bytes)", name,
                       (long long)b, (long long)en, (unsigned long long)datasize);
    sp->begin = (uint64_t)b;
    sp->end = (uint64_t)en;
    uint64_t need = numel > UINT64_MAX / (uint64_t)esize ? UINT64_MAX : numel * (uint64_t)esize;
    if (sp->end - sp->begin != need)
        return bl_fail("tensor %s has %llu bytes but shape %s of %s needs %llu", name,
                       (unsigned long long)(sp->end - sp->begin), shape, json_string_value(dt),
                       (unsigned long long)need);
    if (!(*shape_out = strdup(shape)) || (*why && !(*unheld_out = strdup(why))))
        return bl_fail("out of memory");
    return 0;
}

static int parse_metadata(bl_st_file *f, json_t *meta)
{
    if (!meta || json_is_null(meta)) return 0;
    if (!json_is_object(meta)) return bl_fail("__metadata__ is %s, not an object", json_kind(meta));
    size_t m = json_object_size(meta);
    f->meta_keys = calloc(m ? m : 1, sizeof(char *));
    f->meta_values = calloc(m ? m : 1, sizeof(char *));
    if (!f->meta_keys || !f->meta_values) return bl_fail("out of memory");
    const char *key;
    json_t *v;
    json_object_foreach(meta, key, v) {
        if (!json_is_string(v))
            return bl_fail("__metadata__ value for \"%.64s\" is %s, not a string", key, json_kind(v));
        f->meta_keys[f->nmeta] = strdup(key);
        f->meta_values[f->nmeta] = strdup(json_string_value(v));
        f->nmeta++;
        if (!f->meta_keys[f->nmeta - 1] || !f->meta_values[f->nmeta - 1]) return bl_fail("out of memory");
    }
    return 0;
}

/* One little-endian element of dtype dt (< DT_CONVERTED, not F32) at b, as a float. */
static float decode(int dt, const unsigned char *b)
{
    uint64_t u = 0;
    for (int i = dtypes[dt].size - 1; i >= 0; i--) u = (u << 8) | b[i];
    double d;
    switch (dt) {
    case DT_F16: return f16_to_f32((uint16_t)u);
    case DT_BF16: return bf16_to_f32((uint16_t)u);
    case DT_F64: memcpy(&d, &u, 8); return (float)d;
    case DT_I64: return (float)(int64_t)u;
    case DT_I32: return (float)(int32_t)(uint32_t)u;
    case DT_I16: return (float)(int16_t)(uint16_t)u;
    case DT_I8: return (float)(int8_t)(uint8_t)u;
    case DT_BOOL: return u != 0;
    default: return (float)u;  /* U64, U32, U16, U8 */
    }
}

/* Read `sp`'s bytes at file offset `base + sp->begin` into dst (numel floats). */
static int read_tensor(FILE *fp, uint64_t base, const st_span *sp, float *dst, size_t numel)
{
    if (fseeko(fp, (off_t)(base + sp->begin), SEEK_SET) != 0) return -1;
    if (sp->dtype == DT_F32) {
        if (fread(dst, 4, numel, fp) != numel) return -1;
        if (BL_ST_BIG_ENDIAN)
            for (size_t i = 0; i < numel; i++) {
                uint32_t u;
                memcpy(&u, dst + i, 4);
                u = bswap32(u);
                memcpy(dst + i, &u, 4);
            }
        return 0;
    }
    unsigned char buf[8 * ST_CHUNK];
    size_t esize = (size_t)dtypes[sp->dtype].size;
    for (size_t i = 0; i < numel; i += ST_CHUNK) {
        size_t m = numel - i < ST_CHUNK ? numel - i : ST_CHUNK;
        if (fread(buf, esize, m, fp) != m) return -1;
        for (size_t j = 0; j < m; j++) dst[i + j] = decode(sp->dtype, buf + j * esize);
    }
    return 0;
}

/* Everything after the file is open and its size known; errors are unprefixed. */
static int read_body(bl_st_file *f, FILE *fp, uint64_t fsize)
{
    unsigned char lenbuf[8];
    if (fsize < 8) return bl_fail("file is %llu byte%s, too short for the 8-byte header length", (unsigned long long)fsize,
                                  BL_PLURAL(fsize));
    if (fread(lenbuf, 1, 8, fp) != 8) return bl_fail("cannot read the header length: %s", strerror(errno));
    uint64_t hlen = le64_decode(lenbuf);
    if (hlen > fsize - 8)
        return bl_fail("header length %llu is past the end of the file (%llu bytes)",
                       (unsigned long long)hlen, (unsigned long long)fsize);
    if (hlen > BL_ST_MAX_HEADER)
        return bl_fail("header length %llu is over the limit of %zu bytes", (unsigned long long)hlen,
                       BL_ST_MAX_HEADER);
    uint64_t datasize = fsize - 8 - hlen;
    char *text = malloc(hlen ? hlen : 1);
    if (!text) return bl_fail("out of memory reading a %llu-byte header", (unsigned long long)hlen);
    if (fread(text, 1, hlen, fp) != hlen) {
        free(text);
        return bl_fail("cannot read the header: %s", strerror(errno));
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, hlen, JSON_REJECT_DUPLICATES, &jerr);
    free(text);
    if (!root) return bl_fail("header is not valid JSON (%s at byte %d)", jerr.text, jerr.position);
    int rc = -1;
    st_span *spans = NULL;
    if (!json_is_object(root)) {
        bl_fail("header is %s, not a JSON object", json_kind(root));
        goto out;
    }
    size_t count = json_object_size(root) - (json_object_get(root, "__metadata__") != NULL);
    f->tensors = calloc(count ? count : 1, sizeof(bl_tensor));
    f->dtypes = calloc(count ? count : 1, sizeof(char *));
    f->shapes = calloc(count ? count : 1, sizeof(char *));
    f->unheld = calloc(count ? count : 1, sizeof(char *));
    spans = calloc(count ? count : 1, sizeof(st_span));
    if (!f->tensors || !f->dtypes || !f->shapes || !f->unheld || !spans) {
        bl_fail("out of memory");
        goto out;
    }
    if (parse_metadata(f, json_object_get(root, "__metadata__")) < 0) goto out;
    const char *key;
    json_t *v;
    size_t total = 0;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "__metadata__") == 0) continue;
        bl_tensor *t = &f->tensors[f->n];
        if (!(t->name = strdup(key))) {
            bl_fail("out of memory");
            goto out;
        }
        f->n++;
        if (parse_entry(key, v, t, &spans[f->n - 1], datasize, &f->shapes[f->n - 1],
                        &f->unheld[f->n - 1]) < 0)
            goto out;
        spans[f->n - 1].index = f->n - 1;
        f->dtypes[f->n - 1] = dtypes[spans[f->n - 1].dtype].name;
        if (!f->unheld[f->n - 1]) total += t->numel;
    }
    /* the tensors must tile the data exactly: sorted by begin, each starts where the last ended */
    qsort(spans, (size_t)f->n, sizeof *spans, span_cmp);
    uint64_t pos = 0;
    for (int i = 0; i < f->n; i++) {
        const st_span *s = &spans[i];
        if (s->begin < pos) {
            const st_span *p = &spans[i - 1];
            bl_fail("tensors %s and %s overlap (bytes [%llu, %llu) and [%llu, %llu))",
                    f->tensors[p->index].name, f->tensors[s->index].name, (unsigned long long)p->begin,
                    (unsigned long long)p->end, (unsigned long long)s->begin, (unsigned long long)s->end);
            goto out;
        }
        if (s->begin > pos) {
            bl_fail("bytes [%llu, %llu) of the data belong to no tensor (before %s)",
                    (unsigned long long)pos, (unsigned long long)s->begin, f->tensors[s->index].name);
            goto out;
        }
        pos = s->end;
    }
    if (pos != datasize) {
        bl_fail("the tensors cover %llu bytes but the data has %llu", (unsigned long long)pos,
                (unsigned long long)datasize);
        goto out;
    }
    f->data = malloc((total ? total : 1) * sizeof(float));
    if (!f->data) {
        bl_fail("out of memory allocating %zu floats", total);
        goto out;
    }
    size_t at = 0;
    for (int i = 0; i < f->n; i++) { /* in file order, so the reads are sequential */
        bl_tensor *t = &f->tensors[spans[i].index];
        if (f->unheld[spans[i].index]) continue;   /* data stays NULL: see bl_st_need_values */
        t->data = f->data + at;
        at += t->numel;
        errno = 0;
        if (read_tensor(fp, 8 + hlen, &spans[i], t->data, t->numel) < 0) {
            bl_fail("cannot read tensor %s: %s", t->name, errno ? strerror(errno) : "short read");
            goto out;
        }
    }
    rc = 0;
out:
    free(spans);
    json_decref(root);
    return rc;
}

bl_st_file *bl_st_read(const char *path)
{
    if (!path || !*path) return BL_FAILP("safetensors: no file name given");
    bl_st_file *f = calloc(1, sizeof *f);
    if (f) f->path = strdup(path);
    if (!f || !f->path) {
        bl_st_free(f);
        st_fail(path, "out of memory");
        return NULL;
    }
    struct stat st;
    int rc;
    FILE *fp = NULL;
    int fd = bl_open_regular(path, &st);   /* a device or fifo is refused, never waited on */
    if (fd < 0)
        rc = -1;
    else if (!(fp = fdopen(fd, "rb")))
        rc = bl_fail("cannot open: %s", strerror(errno));
    else
        rc = read_body(f, fp, (uint64_t)st.st_size);
    if (fp)
        fclose(fp);
    else if (fd >= 0)
        close(fd);
    if (rc < 0) {
        bl_error_prefix("safetensors: %s", path);
        bl_st_free(f);
        return NULL;
    }
    return f;
}

const bl_tensor *bl_st_get(const bl_st_file *f, const char *name)
{
    if (!f || !name) return NULL;
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

int bl_st_need_values(const bl_st_file *f, const bl_tensor *t)
{
    const char *why = f->unheld[t - f->tensors];
    return why ? st_fail(f->path, "%s", why) : 0;
}

const char *bl_st_meta(const bl_st_file *f, const char *key)
{
    if (!f || !key) return NULL;
    for (int i = 0; i < f->nmeta; i++)
        if (strcmp(f->meta_keys[i], key) == 0) return f->meta_values[i];
    return NULL;
}

int bl_st_copy_into(const bl_st_file *f, const char *name, bl_tensor *dst)
{
    const bl_tensor *t = bl_st_get(f, name);
    if (!t) return st_fail(f->path, "tensor %s missing", name);
    if (bl_st_need_values(f, t) < 0) return -1;
    if (!bl_same_shape(t, dst)) {
        char a[64], b[64];
        return st_fail(f->path, "tensor %s has shape %s but %s was expected", name,
                       bl_shape_str(t, a, sizeof a), bl_shape_str(dst, b, sizeof b));
    }
    memcpy(dst->data, t->data, t->numel * sizeof(float));
    return 0;
}
