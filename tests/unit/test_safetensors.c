/* test_safetensors.c - the safetensors reader and writer (src/train/safetensors.h).
 *
 * Checked against: the byte layout of the format read back by hand, a file written by Python
 * (tests/golden/gen.py write_fixture, struct + json) with values known by heart, crafted bad
 * files (each refused with its own message), random corruptions (never a crash), and atomic
 * writes (a failed write leaves the old file and no temp file behind).
 */
#include "core/error.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "train/safetensors.h"
#include "../check.h"
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Write a file: 8-byte length (hlen_override when >= 0, else strlen(header)), header, data. */
static void write_raw(const char *path, const char *header, long long hlen_override,
                      const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    uint64_t len = hlen_override >= 0 ? (uint64_t)hlen_override : strlen(header);
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(len >> (8 * i));
    fwrite(b, 1, 8, f);
    fwrite(header, 1, strlen(header), f);
    if (n) fwrite(data, 1, n, f);
    fclose(f);
}

/* Number of entries in `dir` whose name contains ".tmp." (leftover temp files). */
static int count_temp_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp.")) n++;
    if (d) closedir(d);
    return n;
}

static int bits_equal(const float *a, const float *b, size_t n) { return memcmp(a, b, n * 4) == 0; }

BL_TEST(test_round_trip)
{
    /* parameters living in one flat buffer, written from views without copying */
    float flat[1 + 6 + 24];
    bl_rng r;
    bl_rng_named(&r, 3, "st");
    bl_rng_fill_normal(&r, flat, 31, 0.0f, 2.0f);
    flat[3] = -0.0f;
    flat[4] = 1e-40f; /* subnormal survives */
    bl_tensor s = {.data = flat, .ndim = 0, .numel = 1},
              m = {.data = flat + 1, .ndim = 2, .shape = {2, 3}, .numel = 6},
              q = {.data = flat + 7, .ndim = 4, .shape = {1, 2, 3, 4}, .numel = 24};
    m.name = "blocks.0.attn.qkv.weight";
    const bl_tensor *ts[] = {&s, &m, &q};
    const char *names[] = {"step_scale", NULL, "optim.m.x_embedder.proj.weight"};
    const char *keys[] = {"config", "history", "unicode"};
    const char *vals[] = {"{\"dim\": 128, \"norm\": \"rmsnorm\"}", "[1.5, 2.25]\n\"x\"\t\\",
                          "caf\xc3\xa9 \xe2\x9c\x93"};
    const char *path = tmp_path("rt.safetensors");
    CHECK(bl_st_write(path, 3, names, ts, 3, keys, vals) == 0, "write: %s", bl_error());
    CHECK(count_temp_files() == 0, "temp file left behind");

    /* the bytes, by hand: header length multiple of 8, data = the floats in order */
    size_t n = 0;
    unsigned char *raw = bl_test_slurp(path, &n);
    CHECK(raw && n >= 8, "file missing");
    if (raw && n >= 8) {
        uint64_t hl = 0;
        for (int i = 7; i >= 0; i--) hl = (hl << 8) | raw[i];
        CHECK(hl % 8 == 0, "header length %llu not padded to 8", (unsigned long long)hl);
        CHECK(n == 8 + hl + 31 * 4, "file size %zu, header %llu", n, (unsigned long long)hl);
        CHECK(raw[8] == '{', "header starts with %c", raw[8]);
        if (n == 8 + hl + 31 * 4)
            CHECK(memcmp(raw + 8 + hl, flat, 31 * 4) == 0, "data section is not the raw floats");
        char *hdr = strndup((char *)raw + 8, (size_t)hl);
        CHECK(strstr(hdr, "\"blocks.0.attn.qkv.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                          "\"data_offsets\":[4,28]}"), "header: %s", hdr);
        free(hdr);
    }
    free(raw);

    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "read: %s", bl_error());
    if (!f) return;
    CHECK(f->n == 3 && f->nmeta == 3, "n %d nmeta %d", f->n, f->nmeta);
    const bl_tensor *a = bl_st_get(f, "step_scale"), *b = bl_st_get(f, "blocks.0.attn.qkv.weight"),
                    *c = bl_st_get(f, "optim.m.x_embedder.proj.weight");
    CHECK(a && b && c, "tensors missing");
    if (a && b && c) {
        CHECK(a->ndim == 0 && a->numel == 1 && bits_equal(a->data, flat, 1), "scalar");
        CHECK(b->ndim == 2 && b->shape[0] == 2 && b->shape[1] == 3 && bits_equal(b->data, flat + 1, 6),
              "matrix");
        CHECK(c->ndim == 4 && c->shape[3] == 4 && bits_equal(c->data, flat + 7, 24), "4-D");
    }
    CHECK(strcmp(f->tensors[0].name, "step_scale") == 0, "file order kept");
    CHECK(bl_st_get(f, "nope") == NULL, "absent tensor found");
    for (int i = 0; i < 3; i++) {
        const char *v = bl_st_meta(f, keys[i]);
        CHECK(v && strcmp(v, vals[i]) == 0, "meta %s = %s", keys[i], v ? v : "(null)");
    }
    CHECK(bl_st_meta(f, "absent") == NULL, "absent meta found");

    bl_tensor *dst = bl_tensor_new2(2, 3);
    CHECK(bl_st_copy_into(f, "blocks.0.attn.qkv.weight", dst) == 0, "copy: %s", bl_error());
    CHECK(bits_equal(dst->data, flat + 1, 6), "copied values");
    bl_tensor *wrong = bl_tensor_new2(3, 2);
    CHECK(bl_st_copy_into(f, "blocks.0.attn.qkv.weight", wrong) < 0, "shape mismatch accepted");
    CHECK_ERR("has shape [2, 3] but [3, 2] was expected");
    CHECK(bl_st_copy_into(f, "missing.weight", wrong) < 0, "missing tensor accepted");
    CHECK_ERR("tensor missing.weight missing");
    bl_tensor_free(dst);
    bl_tensor_free(wrong);
    bl_st_free(f);

    /* an empty file (no tensors, no metadata) is valid too */
    path = tmp_path("empty.safetensors");
    CHECK(bl_st_write(path, 0, NULL, NULL, 0, NULL, NULL) == 0, "empty write: %s", bl_error());
    f = bl_st_read(path);
    CHECK(f && f->n == 0 && f->nmeta == 0, "empty read: %s", bl_error());
    bl_st_free(f);
}

BL_TEST(test_python_written)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/python_written.safetensors", src ? src : ".");
    if (access(path, R_OK) != 0) SKIP("python_written.safetensors not found (set BL_SRCDIR)");
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "read: %s", bl_error());
    if (!f) return;
    CHECK(f->n == 5, "n = %d", f->n);
    /* header order is sorted by name; the data order differs */
    CHECK(strcmp(f->tensors[0].name, "a.f32") == 0 && strcmp(f->tensors[4].name, "scalar") == 0,
          "order %s .. %s", f->tensors[0].name, f->tensors[4].name);
    const bl_tensor *t = bl_st_get(f, "a.f32");
    CHECK(t && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 4, "a.f32 shape");
    if (t) {
        const float want[7] = {1.5f, -0.0f, 1e-40f, 3.4028234663852886e38f, -2.25f, INFINITY};
        CHECK(bits_equal(t->data, want, 6), "a.f32 values %g %g %g %g %g %g", t->data[0],
              t->data[1], t->data[2], t->data[3], t->data[4], t->data[5]);
        uint32_t nanbits;
        memcpy(&nanbits, &t->data[6], 4);
        CHECK(nanbits == 0x7FC00001u, "NaN payload %08x", nanbits);
        CHECK(t->data[7] == 0.1f, "0.1 = %.9g", t->data[7]);
    }
    t = bl_st_get(f, "c.f16");
    CHECK(t && t->ndim == 1 && t->numel == 6, "c.f16 shape");
    if (t) {
        const float want[6] = {0.5f, -2.0f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f,
                               -INFINITY};
        CHECK(bits_equal(t->data, want, 6), "f16 values %g %g %g %g %g %g", t->data[0], t->data[1],
              t->data[2], t->data[3], t->data[4], t->data[5]);
    }
    t = bl_st_get(f, "b.bf16");
    CHECK(t && t->ndim == 2 && t->numel == 4, "b.bf16 shape");
    if (t) {
        const float want[4] = {1.0f, -3.140625f, 0.0078125f, 3.3895313892515355e38f};
        CHECK(bits_equal(t->data, want, 4), "bf16 values %g %g %g %g", t->data[0], t->data[1],
              t->data[2], t->data[3]);
    }
    t = bl_st_get(f, "scalar");
    CHECK(t && t->ndim == 0 && t->data[0] == 42.0f, "scalar");
    t = bl_st_get(f, "four.d");
    CHECK(t && t->ndim == 4 && t->shape[1] == 2 && t->data[0] == -3.5f && t->data[7] == 3.5f, "4-D");
    const char *cfg = bl_st_meta(f, "config"), *note = bl_st_meta(f, "note");
    CHECK(cfg && strcmp(cfg, "{\"dim\": 128, \"norm\": \"rmsnorm\", \"eps\": 1e-06}") == 0, "config %s",
          cfg ? cfg : "(null)");
    CHECK(note && strcmp(note, "caf\xc3\xa9 \xe2\x9c\x93 \"quoted\"\n") == 0, "note %s",
          note ? note : "(null)");
    CHECK(bl_st_meta(f, "step") && strcmp(bl_st_meta(f, "step"), "20") == 0, "step");
    bl_st_free(f);
}

/* A file of every converted dtype written by tests/golden/gen.py (write_dtypes_fixture): each
 * tensor equals its NAME.want (rounded to float32 in Python; PyTorch's .float() agrees), and the
 * F8_E4M3 and C64 tensors in it are refused only when asked for. */
BL_TEST(test_dtypes_written)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/dtypes_written.safetensors", src ? src : ".");
    if (access(path, R_OK) != 0) SKIP("dtypes_written.safetensors not found (set BL_SRCDIR)");
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "read: %s", bl_error());
    if (!f) return;
    int compared = 0;
    for (int i = 0; i < f->n; i++) {
        const bl_tensor *w = &f->tensors[i];
        size_t L = strlen(w->name);
        if (L < 6 || strcmp(w->name + L - 5, ".want") != 0) continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(L - 5), w->name);
        const bl_tensor *t = bl_st_get(f, name);
        CHECK(t && t->data && bl_same_shape(t, w), "%s: missing, no values or another shape", name);
        if (t && t->data) {
            CHECK(bits_equal(t->data, w->data, (int)w->numel), "%s: %g %g ... want %g %g ...", name,
                  t->data[0], t->data[1], w->data[0], w->data[1]);
            CHECK(strcmp(f->dtypes[t - f->tensors], "F32") != 0, "%s read as F32", name);
        }
        compared++;
    }
    CHECK(compared == 11, "%d tensors compared, 11 expected", compared);
    /* a few by hand: int64 2^53 + 1 -> 2^53, int32 2^31 - 1 -> 2^31, uint8 255, BOOL 1 */
    const bl_tensor *t = bl_st_get(f, "i64.t");
    CHECK(t && t->data[2] == 9007199254740992.0f && t->data[0] == -3.0f, "i64");
    t = bl_st_get(f, "i32.t");
    CHECK(t && t->data[2] == 2147483648.0f, "i32");
    t = bl_st_get(f, "u8.t");
    CHECK(t && t->data[0] == 255.0f, "u8");
    t = bl_st_get(f, "bool.t");
    CHECK(t && t->data[0] == 1.0f && t->data[1] == 0.0f, "bool");
    t = bl_st_get(f, "d.f64");
    CHECK(t && t->data[0] == 0.1f && signbit(t->data[1]) && t->data[1] == 0.0f, "f64");
    /* the ones not converted: there, shaped, no values; refused when asked for, naming the dtype */
    const char *no[2] = {"e.f8", "z.c64"}, *dt[2] = {"F8_E4M3", "C64"};
    for (int k = 0; k < 2; k++) {
        t = bl_st_get(f, no[k]);
        CHECK(t && !t->data && t->numel == (size_t)(k ? 1 : 2), "%s listed without values", no[k]);
        if (!t) continue;
        bl_clear_error();
        CHECK(bl_st_need_values(f, t) < 0, "%s has values", no[k]);
        char want[96];
        snprintf(want, sizeof want, "tensor %s has dtype %s, which blocklab cannot convert", no[k], dt[k]);
        CHECK_ERR(want);
        bl_tensor *dst = bl_tensor_new1((int)t->numel);
        bl_clear_error();
        CHECK(bl_st_copy_into(f, no[k], dst) < 0, "%s copied", no[k]);
        CHECK_ERR(want);
        bl_tensor_free(dst);
    }
    bl_st_free(f);
}

/* Tensors of more than 4 dimensions or with a size-0 dimension (torch.empty(0, 3)) are valid
 * safetensors: the file loads, they are listed with their shape and element count, and only
 * asking for their values is refused. */
BL_TEST(test_unheld_shapes)
{
    const char *path = tmp_path("shapes.safetensors");
    const char *header =
        "{\"ok\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
        " \"five\": {\"dtype\": \"F32\", \"shape\": [1, 1, 1, 1, 2], \"data_offsets\": [8, 16]},"
        " \"empty\": {\"dtype\": \"F32\", \"shape\": [0, 3], \"data_offsets\": [16, 16]},"
        " \"none\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [16, 24]}}";
    float data[4] = {1.5f, -2.0f, 3.0f, 4.0f};
    unsigned char buf[24];
    memcpy(buf, data, 16);
    memset(buf + 16, 0, 8);
    buf[16] = 7;   /* I64 scalar 7 (little-endian) */
    write_raw(path, header, -1, buf, 24);
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "read: %s", bl_error());
    if (!f) return;
    CHECK(f->n == 4, "%d tensors", f->n);
    const bl_tensor *ok = bl_st_get(f, "ok"), *five = bl_st_get(f, "five"), *empty = bl_st_get(f, "empty");
    const bl_tensor *none = bl_st_get(f, "none");
    CHECK(ok && ok->data && ok->data[0] == 1.5f && ok->data[1] == -2.0f, "ok's values");
    CHECK(none && none->data && none->ndim == 0 && none->data[0] == 7.0f, "scalar I64");
    CHECK(ok && bl_st_need_values(f, ok) == 0, "ok refused: %s", bl_error());
    CHECK(five && !five->data && five->numel == 2 && !strcmp(f->shapes[1], "[1, 1, 1, 1, 2]"),
          "five listed: %s", f->shapes[1]);
    CHECK(empty && !empty->data && empty->numel == 0 && !strcmp(f->shapes[2], "[0, 3]"),
          "empty listed: %s", f->shapes[2]);
    CHECK(!strcmp(f->shapes[0], "[2]") && !strcmp(f->shapes[3], "[]"), "shapes %s %s", f->shapes[0],
          f->shapes[3]);
    bl_clear_error();
    CHECK(five && bl_st_need_values(f, five) < 0, "five has values");
    CHECK_ERR("tensor five has 5 dimensions (shape [1, 1, 1, 1, 2]); blocklab tensors have at most 4");
    CHECK_ERR(path);
    bl_clear_error();
    CHECK(empty && bl_st_need_values(f, empty) < 0, "empty has values");
    CHECK_ERR("tensor empty has shape [0, 3], no elements (dimension 0 has size 0)");
    /* copying into a tensor (a model parameter) is refused, whatever its shape */
    bl_tensor *dst = bl_tensor_new1(2);
    bl_clear_error();
    CHECK(bl_st_copy_into(f, "five", dst) < 0, "five copied");
    CHECK_ERR("tensor five has 5 dimensions");
    CHECK(bl_st_copy_into(f, "ok", dst) == 0 && dst->data[1] == -2.0f, "ok not copied: %s", bl_error());
    bl_tensor_free(dst);
    bl_st_free(f);
}

typedef struct {
    const char *header;
    long long hlen;  /* -1: strlen(header) */
    size_t ndata;    /* bytes of zero data after the header */
    const char *err; /* expected part of the message */
} bad_file;

BL_TEST(test_bad_files)
{
    static const bad_file cases[] = {
        {"", 1LL << 40, 0, "header length 1099511627776 is past the end of the file (8 bytes)"},
        {"{}", 3, 0, "header length 3 is past the end of the file (10 bytes)"},
        {"", 0, 0, "header is not valid JSON"},
        {"{\"a\": {\"dtype\": \"F32\"", -1, 0, "header is not valid JSON"},
        {"not json at all", -1, 0, "header is not valid JSON"},
        {"[1, 2, 3]", -1, 0, "header is an array, not a JSON object"},
        {"{\"a\": 5}", -1, 0, "tensor a is an integer, not an object"},
        {"{\"a\": {\"shape\": [1], \"data_offsets\": [0, 4]}}", -1, 4, "tensor a has no dtype"},
        {"{\"a\": {\"dtype\": \"F32\", \"data_offsets\": [0, 4]}}", -1, 4, "tensor a has no shape"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1]}}", -1, 4, "tensor a has no data_offsets"},
        {"{\"a\": {\"dtype\": 7, \"shape\": [1], \"data_offsets\": [0, 4]}}", -1, 4,
         "dtype is an integer, not a string"},
        {"{\"a\": {\"dtype\": \"Q7\", \"shape\": [1], \"data_offsets\": [0, 8]}}", -1, 8,
         "tensor a has dtype Q7, which is not a safetensors dtype"},
        /* bytes = elements x dtype size for every dtype, converted or not */
        {"{\"a\": {\"dtype\": \"I64\", \"shape\": [2], \"data_offsets\": [0, 8]}}", -1, 8,
         "tensor a has 8 bytes but shape [2] of I64 needs 16"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
         " \"b\": {\"dtype\": \"C64\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, 8,
         "tensor b has 4 bytes but shape [1] of C64 needs 8"},
        {"{\"a\": {\"dtype\": \"F8_E4M3\", \"shape\": [2], \"data_offsets\": [0, 2]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, 8,
         "bytes [2, 4) of the data belong to no tensor (before b)"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": 4, \"data_offsets\": [0, 16]}}", -1, 16,
         "shape is an integer, not an array"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2.5], \"data_offsets\": [0, 16]}}", -1, 16,
         "shape entry 0 is a number, not an integer"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", -1, 4,
         "dimension 0 of size -1"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [99999999999], \"data_offsets\": [0, 4]}}", -1, 4,
         "dimension 0 of size 99999999999"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [100000, 100000, 1000], \"data_offsets\": [0, 4]}}",
         -1, 4, "absurd size"},
        /* shapes blocklab cannot hold are still checked against their bytes and offsets */
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1,1,1,1,2], \"data_offsets\": [0, 4]}}", -1, 4,
         "tensor a has 4 bytes but shape [1, 1, 1, 1, 2] of F32 needs 8"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [0, 3], \"data_offsets\": [0, 4]}}", -1, 4,
         "tensor a has 4 bytes but shape [0, 3] of F32 needs 0"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"z\": {\"dtype\": \"F32\", \"shape\": [0], \"data_offsets\": [4, 4]}}", -1, 8,
         "tensors a and z overlap"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0]}}", -1, 4,
         "data_offsets must be two integers"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, \"4\"]}}", -1, 4,
         "data_offsets must be two integers"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}", -1, 12,
         "tensor a has data_offsets [0, 16] outside the data (12 bytes)"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}", -1, 12,
         "outside the data"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [-4, 0]}}", -1, 12,
         "outside the data"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 16]}}", -1, 16,
         "tensor a has 16 bytes but shape [3] of F32 needs 12"},
        {"{\"a\": {\"dtype\": \"F16\", \"shape\": [3], \"data_offsets\": [0, 12]}}", -1, 12,
         "tensor a has 12 bytes but shape [3] of F16 needs 6"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [8, 24]}}", -1, 24,
         "tensors a and b overlap (bytes [0, 16) and [8, 24))"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", -1, 8, "overlap"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [12, 20]}}", -1, 20,
         "bytes [8, 12) of the data belong to no tensor (before b)"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", -1, 12,
         "the tensors cover 8 bytes but the data has 12"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
         " \"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", -1, 4,
         "duplicate object key"},
        {"{\"__metadata__\": {\"step\": 20}}", -1, 0,
         "__metadata__ value for \"step\" is an integer, not a string"},
        {"{\"__metadata__\": [\"x\"]}", -1, 0, "__metadata__ is an array, not an object"},
    };
    static const unsigned char zeros[64];
    const char *path = tmp_path("bad.safetensors");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_file *c = &cases[i];
        write_raw(path, c->header, c->hlen, zeros, c->ndata);
        bl_clear_error();
        bl_st_file *f = bl_st_read(path);
        CHECK(f == NULL, "case %zu (%s) accepted", i, c->header);
        bl_st_free(f);
        CHECK_ERR(c->err);
        CHECK_ERR(path); /* the message names the file */
        CHECK(strncmp(bl_error(), "safetensors: ", 13) == 0, "prefix: %s", bl_error());
        CHECK(strchr(bl_error(), '\n') == NULL, "multi-line message");
    }

    /* too short for the length field */
    FILE *fp = fopen(path, "wb");
    fwrite("abcde", 1, 5, fp);
    fclose(fp);
    CHECK(bl_st_read(path) == NULL, "5-byte file accepted");
    CHECK_ERR("file is 5 bytes, too short for the 8-byte header length");
    fp = fopen(path, "wb");
    fputc('a', fp);
    fclose(fp);
    CHECK(bl_st_read(path) == NULL, "1-byte file accepted");
    CHECK_ERR("file is 1 byte, too short for the 8-byte header length");
    fclose(fopen(path, "wb"));
    CHECK(bl_st_read(path) == NULL, "empty file accepted");
    CHECK_ERR("file is 0 bytes");

    /* a header over the 100 MB limit is refused before it is read */
    fp = fopen(path, "wb");
    unsigned char len[8] = {0, 0, 0, 0x10, 0, 0, 0, 0}; /* 256 MiB */
    fwrite(len, 1, 8, fp);
    fseek(fp, ((long)1 << 28) + 8, SEEK_SET); /* sparse */
    fputc(0, fp);
    fclose(fp);
    CHECK(bl_st_read(path) == NULL, "huge header accepted");
    CHECK_ERR("header length 268435456 is over the limit");

    CHECK(bl_st_read(tmp_path("does-not-exist")) == NULL, "missing file accepted");
    CHECK_ERR("does-not-exist: No such file or directory");
    CHECK(bl_st_read(dir) == NULL, "directory accepted");
    CHECK_ERR("is a directory, expected a file");
    const char *fifo = tmp_path("fifo");
    if (mkfifo(fifo, 0600) == 0) { /* refused at once, not waited on */
        CHECK(bl_st_read(fifo) == NULL, "fifo accepted");
        CHECK_ERR("not a regular file");
        remove(fifo);
    }
    remove(path);
}

/* A valid file cut short anywhere, or with random bytes changed, is refused or read; never a
 * crash or a read out of bounds (run under -fsanitize=address by .ci/run). */
BL_TEST(test_corruptions)
{
    float v[40];
    for (int i = 0; i < 40; i++) v[i] = (float)i * 0.5f;
    bl_tensor a = {.data = v, .ndim = 2, .shape = {4, 5}, .numel = 20},
              b = {.data = v + 20, .ndim = 1, .shape = {20}, .numel = 20};
    const bl_tensor *ts[] = {&a, &b};
    const char *names[] = {"a.weight", "b.bias"};
    const char *keys[] = {"config"}, *vals[] = {"{\"dim\": 4}"};
    const char *good = tmp_path("good.safetensors"), *bad = tmp_path("corrupt.safetensors");
    CHECK(bl_st_write(good, 2, names, ts, 1, keys, vals) == 0, "write: %s", bl_error());
    size_t n = 0;
    unsigned char *raw = bl_test_slurp(good, &n);
    if (!raw) return;
    int refused = 0, read_ok = 0;
    for (size_t cut = 0; cut < n; cut++) {
        FILE *f = fopen(bad, "wb");
        fwrite(raw, 1, cut, f);
        fclose(f);
        bl_st_file *s = bl_st_read(bad);
        if (s) read_ok++;
        else refused++;
        bl_st_free(s);
    }
    CHECK(read_ok == 0 && refused == (int)n, "a truncated file was accepted (%d of %zu)", read_ok, n);
    bl_rng r;
    bl_rng_named(&r, 5, "corrupt");
    unsigned char *mut = malloc(n);
    int empty_msg = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(mut, raw, n);
        int k = 1 + (int)bl_rng_below(&r, 4);
        for (int j = 0; j < k; j++) {
            /* mostly in the length and header, where parsing happens */
            size_t at = bl_rng_below(&r, 4) ? bl_rng_below(&r, (uint32_t)(n - 160)) : bl_rng_below(&r, (uint32_t)n);
            static const char pick[] = "{}[],:\"0123456789-eE. \\u";
            mut[at] = bl_rng_below(&r, 2) ? (unsigned char)bl_rng_u32(&r)
                                          : (unsigned char)pick[bl_rng_below(&r, sizeof pick - 1)];
        }
        FILE *f = fopen(bad, "wb");
        fwrite(mut, 1, n, f);
        fclose(f);
        bl_clear_error();
        bl_st_file *s = bl_st_read(bad);
        if (!s && bl_error()[0] == 0) empty_msg++;
        bl_st_free(s);
    }
    CHECK(empty_msg == 0, "%d refusals without a message", empty_msg);
    free(mut);
    free(raw);
    remove(bad);
    remove(good);
}

BL_TEST(test_atomic_write)
{
    float v[4] = {1, 2, 3, 4};
    bl_tensor t = {.data = v, .ndim = 1, .shape = {4}, .numel = 4, .name = "w"};
    const bl_tensor *ts[] = {&t, &t};
    const char *path = tmp_path("keep.safetensors");
    CHECK(bl_st_write(path, 1, NULL, ts, 0, NULL, NULL) == 0, "write: %s", bl_error());
    size_t n0 = 0, n1 = 0;
    unsigned char *before = bl_test_slurp(path, &n0);

    /* into a missing directory: fails, names the file */
    const char *missing = tmp_path("no/such/dir/x.safetensors");
    CHECK(bl_st_write(missing, 1, NULL, ts, 0, NULL, NULL) < 0, "write into a missing dir");
    CHECK_ERR("safetensors: ");
    CHECK_ERR("no/such/dir/x.safetensors");
    CHECK_ERR("directory");
    CHECK_ERR("/no' does not exist");   /* the first folder missing, not the whole path */

    /* bad arguments: the existing file stays as it was */
    const char *dup[] = {"w", "w"};
    CHECK(bl_st_write(path, 2, dup, ts, 0, NULL, NULL) < 0, "duplicate names accepted");
    CHECK_ERR("tensor name \"w\" given twice");
    const char *reserved[] = {"__metadata__"};
    CHECK(bl_st_write(path, 1, reserved, ts, 0, NULL, NULL) < 0, "reserved name accepted");
    CHECK_ERR("reserved name");
    bl_tensor anon = t;
    anon.name = NULL;
    const bl_tensor *ta[] = {&anon};
    CHECK(bl_st_write(path, 1, NULL, ta, 0, NULL, NULL) < 0, "unnamed tensor accepted");
    CHECK_ERR("tensor 0 has no name");
    const char *k2[] = {"a", "a"}, *v2[] = {"1", "2"};
    CHECK(bl_st_write(path, 1, NULL, ts, 2, k2, v2) < 0, "duplicate meta key accepted");
    CHECK_ERR("metadata key \"a\" given twice");
    const char *badutf[] = {"\xff\xfe"};
    CHECK(bl_st_write(path, 1, NULL, ts, 1, k2, badutf) < 0, "invalid UTF-8 accepted");
    CHECK_ERR("not valid UTF-8");

    /* the rename fails (the destination is a non-empty directory): temp file removed */
    const char *d = tmp_path("adir");
    mkdir(d, 0755);
    char inner[300];
    snprintf(inner, sizeof inner, "%s/f", d);
    fclose(fopen(inner, "wb"));
    CHECK(bl_st_write(d, 1, NULL, ts, 0, NULL, NULL) < 0, "write over a directory");
    CHECK_ERR("adir");
    remove(inner);
    rmdir(d);

    unsigned char *after = bl_test_slurp(path, &n1);
    CHECK(after && n0 == n1 && memcmp(before, after, n0) == 0, "existing file changed");
    CHECK(count_temp_files() == 0, "temp file left behind");
    free(before);
    free(after);
    remove(path);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bl_st_XXXXXX");
    if (!mkdtemp(dir)) {
        printf("Bail out! cannot make a temp directory\n");
        return 1;
    }
    RUN(test_round_trip);
    RUN(test_python_written);
    RUN(test_dtypes_written);
    RUN(test_unheld_shapes);
    RUN(test_bad_files);
    RUN(test_corruptions);
    RUN(test_atomic_write);
    remove(tmp_path("rt.safetensors"));
    remove(tmp_path("empty.safetensors"));
    rmdir(dir);
    return bl_test_done();
}
