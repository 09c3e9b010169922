/* text.c - character-level text sets (nanoGPT's shakespeare_char/prepare.py): bytes are the
 * characters, the vocabulary is the sorted set of distinct bytes, ids index it; the first 90%
 * (int(n * 0.9) tokens) trains, the rest validates. With no file, the built-in manual of
 * blocklab (share/blocklab.txt, embedded at build time) is the text.
 */
#include "data/data_internal.h"
#include "core/error.h"
#include "core/rng.h"
#include <stdlib.h>
#include <string.h>

#define BUILTIN_SOURCE "built-in manual (share/blocklab.txt)"

/* Length of a valid UTF-8 sequence starting at p (RFC 3629: no overlong forms, surrogates or
 * code points past U+10FFFF), 0 when invalid; then *bad (when given) is the length of its
 * maximal ill-formed subpart (Unicode 3.9, "U+FFFD substitution of maximal subparts"), >= 1. */
static size_t utf8_seq(const unsigned char *p, size_t left, size_t *bad)
{
    size_t n, i = 1;
    unsigned char lo = 0x80, hi = 0xbf;
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) n = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) n = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4) n = 4;
    else n = 0;
    if (p[0] == 0xe0) lo = 0xa0;
    else if (p[0] == 0xed) hi = 0x9f;
    else if (p[0] == 0xf0) lo = 0x90;
    else if (p[0] == 0xf4) hi = 0x8f;
    for (; n && i < n && i < left && p[i] >= lo && p[i] <= hi; i++) lo = 0x80, hi = 0xbf;
    if (n && i == n) return n;
    if (bad) *bad = i;
    return 0;
}

static size_t utf8_len(const unsigned char *p, size_t left) { return utf8_seq(p, left, NULL); }

size_t bl_utf8_seq_len(const char *p, size_t left) { return utf8_len((const unsigned char *)p, left); }

size_t bl_utf8_repair(const char *src, size_t n, char *dst)
{
    const unsigned char *b = (const unsigned char *)src;
    size_t o = 0;
    for (size_t i = 0, k, bad; i < n; i += k ? k : bad) {
        if ((k = utf8_seq(b + i, n - i, &bad))) memcpy(dst + o, b + i, k), o += k;
        else memcpy(dst + o, "\xef\xbf\xbd", 3), o += 3;
    }
    dst[o] = '\0';
    return o;
}

/* Refuse what is not text: any NUL byte, or more than 5% control bytes (other than tab,
 * newline, carriage return, vertical tab, form feed) and bytes outside valid UTF-8. */
static int check_text(const char *src, const unsigned char *b, size_t n)
{
    const unsigned char *z = memchr(b, 0, n);
    if (z) return bl_fail("text: %s: NUL byte at offset %zu: a binary file, not text", src, (size_t)(z - b));
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = b[i];
        if (c < 0x80) {
            if ((c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f) bad++;
            i++;
            continue;
        }
        size_t k = utf8_len(b + i, n - i);
        if (k == 0) { bad++; i++; } else i += k;
    }
    if (bad * 20 > n)
        return bl_fail("text: %s: %zu of %zu bytes are control bytes or invalid UTF-8: a binary file, not text",
                       src, bad, n);
    return 0;
}

bl_dataset *bl_data_text_mem(const char *source, const unsigned char *bytes, size_t n)
{
    if (!source) source = "text";
    if (n == 0) return BL_FAILP("text: %s: file is empty", source);
    if (check_text(source, bytes, n)) return NULL;
    bl_dataset *ds = bl_ds_new(BL_DATA_TEXT, "text", source);
    if (!ds) return NULL;
    if (!(ds->ids = malloc(n))) {
        bl_dataset_free(ds);
        return BL_FAILP("text: %s: out of memory (%zu bytes)", source, n);
    }
    int seen[256] = {0};
    for (size_t i = 0; i < n; i++) seen[bytes[i]] = 1;
    for (int c = 0; c < 256; c++)
        if (seen[c]) {
            ds->byte_to_id[c] = ds->vocab_size;
            ds->vocab[ds->vocab_size++] = (unsigned char)c;
        }
    for (size_t i = 0; i < n; i++) ds->ids[i] = (uint8_t)ds->byte_to_id[bytes[i]];
    ds->n_tokens = n;
    ds->n_train = (size_t)((double)n * 0.9);   /* int(n * 0.9), as nanoGPT's prepare.py */
    ds->n_val = n - ds->n_train;
    return ds;
}

bl_dataset *bl_data_text(const char *path)
{
    if (!path) return bl_data_text_mem(BUILTIN_SOURCE, bl_builtin_text, bl_builtin_text_len);
    uint8_t *buf;
    size_t n;
    if (bl_read_all("text", path, &buf, &n)) return NULL;
    bl_dataset *ds = bl_data_text_mem(path, buf, n);
    free(buf);
    return ds;
}

static int need_text(const bl_dataset *ds, const char *what)
{
    if (ds->kind != BL_DATA_TEXT) return bl_fail("%s: data set '%s' holds images, not text", what, ds->name);
    return 0;
}

int bl_text_check_context(const bl_dataset *ds, int T)
{
    if (need_text(ds, "text")) return -1;
    if (T < 1) return bl_fail("text: context must be at least 1, got %d", T);
    size_t need = (size_t)T + 1;
    if (ds->n_tokens < need)
        return bl_fail("text: %s has %zu byte%s, fewer than context + 1 = %zu", ds->source, ds->n_tokens,
                       BL_PLURAL(ds->n_tokens), need);
    if (ds->n_train < need)
        return bl_fail("text: %s has %zu byte%s in its training part (90%%), fewer than context + 1 = %zu",
                       ds->source, ds->n_train, BL_PLURAL(ds->n_train), need);
    if (ds->n_val < need)
        return bl_fail("text: %s has %zu byte%s in its validation part (10%%), fewer than context + 1 = %zu",
                       ds->source, ds->n_val, BL_PLURAL(ds->n_val), need);
    return 0;
}

int bl_text_encode(const bl_dataset *ds, const char *s, int *out)
{
    if (need_text(ds, "encode")) return -1;
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
        int id = ds->byte_to_id[*p];
        if (id < 0) {
            if (*p >= 0x20 && *p < 0x7f)
                return bl_fail("encode: character '%c' at position %d is not in the vocabulary of %s (%d bytes)",
                               *p, n, ds->source, ds->vocab_size);
            return bl_fail("encode: byte 0x%02x at position %d is not in the vocabulary of %s (%d bytes)", *p,
                           n, ds->source, ds->vocab_size);
        }
        out[n] = id;
    }
    return n;
}

int bl_text_decode(const bl_dataset *ds, const int *ids, int n, char *buf)
{
    if (need_text(ds, "decode")) return -1;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= ds->vocab_size) {
            buf[i] = 0;
            return bl_fail("decode: id %d at position %d is outside the vocabulary (0..%d)", ids[i], i,
                           ds->vocab_size - 1);
        }
        buf[i] = (char)ds->vocab[ids[i]];
    }
    buf[n < 0 ? 0 : n] = 0;
    return n;
}

static void copy_window(const bl_dataset *ds, size_t start, int T, int *dst)
{
    for (int t = 0; t <= T; t++) dst[t] = ds->ids[start + (size_t)t];
}

int bl_text_val_windows(const bl_dataset *ds, int n, int T, int *ids)
{
    if (bl_text_check_context(ds, T)) return -1;
    if (n < 1) return bl_fail("text: number of validation windows must be at least 1, got %d", n);
    size_t span = ds->n_val - (size_t)T - 1, den = n > 1 ? (size_t)(n - 1) : 1;
    for (int j = 0; j < n; j++) {
        size_t off = (size_t)((uint64_t)span * (uint64_t)j / den);
        copy_window(ds, ds->n_train + off, T, ids + (size_t)j * (T + 1));
    }
    return 0;
}

int bl_batch_text(bl_batcher *b, int B, int T, int *ids)
{
    const bl_dataset *ds = b->ds;
    if (B < 1) return bl_fail("batch: batch size must be at least 1, got %d", B);
    if (bl_text_check_context(ds, T)) return -1;
    uint64_t range = ds->n_train - (uint64_t)T;   /* starts 0 .. n_train - T - 1 */
    for (int i = 0; i < B; i++, b->drawn++) {
        bl_rng r;
        bl_rng_init(&r, b->key, b->drawn);
        uint64_t start;
        if (range <= UINT32_MAX) start = bl_rng_below(&r, (uint32_t)range);
        else start = (((uint64_t)bl_rng_u32(&r) << 32) | bl_rng_u32(&r)) % range;
        copy_window(ds, (size_t)start, T, ids + (size_t)i * (T + 1));
    }
    return 0;
}
