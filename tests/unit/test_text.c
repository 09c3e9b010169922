/* test_text.c - text sets: vocabulary, 90/10 split, windows, seeded batches, bad files, the
 * built-in manual. */
#include "core/error.h"
#include "data/dataset.h"
#include "../check.h"
#include "data_testutil.h"

BL_TEST(test_tinyshakespeare)
{
    const char *p = tu_shared("tinyshakespeare.txt");
    if (!p) SKIP("../shared/data/tinyshakespeare.txt not found");
    char path[1100];
    snprintf(path, sizeof path, "%s", p);
    size_t n;
    unsigned char *raw = bl_test_slurp(path, &n);
    bl_dataset *ds = bl_data_open("text", path, 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (!ds || !raw) { free(raw); bl_dataset_free(ds); return; }
    /* published: 1,115,394 characters, 65 distinct; nanoGPT's split int(n * 0.9) */
    CHECK(ds->n_tokens == 1115394 && n == 1115394, "%zu characters", ds->n_tokens);
    CHECK(ds->vocab_size == 65, "vocab %d", ds->vocab_size);
    CHECK(ds->n_train == 1003854 && ds->n_val == 111540, "split %zu + %zu", ds->n_train, ds->n_val);
    /* nanoGPT's vocabulary: '\n', ' ', '!', ... sorted; 'A' is id 13, 'a' is id 39 */
    CHECK(ds->vocab[0] == '\n' && ds->vocab[1] == ' ' && ds->byte_to_id['A'] == 13 && ds->byte_to_id['a'] == 39,
          "vocabulary order");
    /* ids decode back to the file */
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= ds->vocab[ds->ids[i]] == raw[i];
    CHECK(ok, "ids do not decode to the file");
    int ids[16];
    CHECK(bl_text_encode(ds, "ROMEO:", ids) == 6, "%s", bl_error());
    char back[16];
    CHECK(bl_text_decode(ds, ids, 6, back) == 6 && !strcmp(back, "ROMEO:"), "round trip '%s'", back);
    CHECK(bl_text_encode(ds, "caf\xc3\xa9", ids) == -1, "a byte outside the vocabulary was accepted");
    CHECK_ERR("byte 0xc3 at position 3 is not in the vocabulary");
    CHECK(bl_text_encode(ds, "50%", ids) == -1, "'%%' accepted");
    CHECK_ERR("character '5' at position 0 is not in the vocabulary");
    char line[512];
    bl_dataset_describe(ds, line, sizeof line);
    CHECK(strstr(line, "text: 1115394 bytes (1003854 train + 111540 val), vocab 65 distinct bytes, from ") != NULL, "%s", line);
    bl_dataset_free(ds);
    free(raw);
}

/* a deterministic text of n bytes over the letters a..j and newlines */
static unsigned char *make_text(size_t n)
{
    unsigned char *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++) t[i] = i % 37 == 36 ? '\n' : (unsigned char)('a' + (i * 7 + i / 13) % 10);
    t[n] = 0;
    return t;
}

BL_TEST(test_split_and_windows)
{
    unsigned char *t = make_text(1000);
    bl_dataset *ds = bl_data_text_mem("mem", t, 1000);
    CHECK(ds && ds->n_train == 900 && ds->n_val == 100 && ds->vocab_size == 11, "split / vocab");
    if (!ds) { free(t); return; }
    CHECK(ds->vocab[0] == '\n' && ds->vocab[1] == 'a' && ds->vocab[10] == 'j', "sorted vocabulary");

    enum { B = 8, T = 16 };
    int a[B * (T + 1)], b[B * (T + 1)], c[B * (T + 1)];
    bl_batcher ba, bb, bc;
    bl_batcher_init(&ba, ds, 11);
    bl_batcher_init(&bb, ds, 11);
    bl_batcher_init(&bc, ds, 12);
    CHECK(bl_batch_text(&ba, B, T, a) == 0 && bl_batch_text(&bb, B, T, b) == 0 && bl_batch_text(&bc, B, T, c) == 0,
          "%s", bl_error());
    CHECK(memcmp(a, b, sizeof a) == 0, "same seed, different windows");
    CHECK(memcmp(a, c, sizeof a) != 0, "another seed, same windows");
    /* every window is T + 1 consecutive characters of the training part (found by search) */
    for (int i = 0; i < B; i++) {
        char w[T + 2];
        bl_text_decode(ds, a + i * (T + 1), T + 1, w);
        int found = 0;
        for (size_t s = 0; s + T + 1 <= 900 && !found; s++) found = memcmp(t + s, w, T + 1) == 0;
        CHECK(found, "window %d is not a slice of the training text", i);
    }
    /* resuming: 2 batches, or seek to B then one batch, give the same second batch */
    bl_batch_text(&ba, B, T, a);
    bl_batcher_seek(&bc, B);
    bl_batcher_free(&bc);
    bl_batcher_init(&bc, ds, 11);
    bl_batcher_seek(&bc, B);
    bl_batch_text(&bc, B, T, c);
    CHECK(memcmp(a, c, sizeof a) == 0, "seek did not resume the window stream");
    /* starts are spread over the whole training part: over many windows both ends are reached */
    size_t lo = 900, hi = 0;
    bl_batcher_seek(&bb, 0);
    for (int k = 0; k < 400; k++) {
        int one[T + 1];
        bl_batch_text(&bb, 1, T, one);
        char w[T + 2];
        bl_text_decode(ds, one, T + 1, w);
        for (size_t s = 0; s + T + 1 <= 900; s++)
            if (!memcmp(t + s, w, T + 1)) { lo = s < lo ? s : lo; hi = s > hi ? s : hi; break; }
    }
    CHECK(lo < 40 && hi > 840, "starts span [%zu, %zu]", lo, hi);

    /* fixed validation windows: evenly spaced from the start of the validation part to its end */
    int v[4 * (T + 1)], v2[4 * (T + 1)];
    CHECK(bl_text_val_windows(ds, 4, T, v) == 0 && bl_text_val_windows(ds, 4, T, v2) == 0, "%s", bl_error());
    CHECK(memcmp(v, v2, sizeof v) == 0, "validation windows change");
    for (int j = 0; j < 4; j++) {
        size_t start = 900 + (size_t)j * (100 - T - 1) / 3;   /* 900, 927, 954, 983 */
        for (int k = 0; k <= T; k++) CHECK(ds->vocab[v[j * (T + 1) + k]] == t[start + k], "val window %d", j);
    }
    /* a context the validation part cannot hold */
    CHECK(bl_text_check_context(ds, 99) == 0, "context 99 fits");
    CHECK(bl_text_check_context(ds, 100) == -1, "context 100 does not fit 100 validation characters");
    CHECK_ERR("has 100 bytes in its validation part (10%), fewer than context + 1 = 101");
    CHECK(bl_batch_text(&ba, 1, 2000, a) == -1, "context 2000 on 1000 characters");
    CHECK_ERR("mem has 1000 bytes, fewer than context + 1 = 2001");
    CHECK(bl_batch_images(&ba, 1, (float *)a, NULL) == -1, "image batch from text");
    CHECK_ERR("holds text, not images");
    bl_batcher_free(&ba);
    bl_batcher_free(&bb);
    bl_batcher_free(&bc);
    bl_dataset_free(ds);
    free(t);
}

BL_TEST(test_bad_text_files)
{
    tu_tmpdir();
    tu_write("empty.txt", "", 0, 0);
    CHECK(bl_data_text(tu_path("empty.txt")) == NULL, "empty file accepted");
    CHECK_ERR("text: ");
    CHECK_ERR("empty.txt: file is empty");
    unsigned char bin[400];
    for (int i = 0; i < 400; i++) bin[i] = (unsigned char)(i * 37 + 11);
    bin[0] = 'x';
    bin[123] = 0;
    memcpy(bin + 100, "abc", 3);
    tu_write("nul.bin", "hello\0world", 11, 0);
    CHECK(bl_data_text(tu_path("nul.bin")) == NULL, "NUL byte accepted");
    CHECK_ERR("nul.bin: NUL byte at offset 5: a binary file, not text");
    for (int i = 0; i < 400; i++) if (!bin[i]) bin[i] = 1;
    tu_write("noise.bin", bin, 400, 0);
    CHECK(bl_data_text(tu_path("noise.bin")) == NULL, "random bytes accepted");
    CHECK_ERR("noise.bin: ");
    CHECK_ERR("control bytes or invalid UTF-8: a binary file, not text");
    CHECK(bl_data_text(tu_path("missing.txt")) == NULL, "missing file accepted");
    CHECK_ERR("missing.txt: No such file or directory");
    /* UTF-8 text is text; a .gz text is read through zlib */
    const char *u = "na\xc3\xafve caf\xc3\xa9 \xe2\x80\x94 d\xc3\xa9j\xc3\xa0 vu\n";
    tu_write("u.txt.gz", u, strlen(u), 1);
    bl_dataset *ds = bl_data_text(tu_path("u.txt.gz"));
    CHECK(ds && ds->n_tokens == strlen(u), "%s", bl_error());
    /* a file shorter than the context + 1 */
    if (ds) {
        CHECK(bl_text_check_context(ds, 128) == -1, "short text accepted");
        CHECK_ERR("u.txt.gz has 27 bytes, fewer than context + 1 = 129");
    }
    bl_dataset_free(ds);
    tu_cleanup();
}

BL_TEST(test_builtin_manual)
{
    bl_dataset *ds = bl_data_open("text", NULL, 0);
    CHECK(ds != NULL, "%s", bl_error());
    if (!ds) return;
    /* 30-60 KB of prose, plain text, long enough for nanoGPT's context 256 and the 4x windows
     * of the length-generalisation plot at the default context 128 */
    CHECK(ds->n_tokens >= 30000 && ds->n_tokens <= 60000, "%zu bytes", ds->n_tokens);
    CHECK(bl_text_check_context(ds, 256) == 0 && bl_text_check_context(ds, 4 * 128) == 0, "%s", bl_error());
    CHECK(ds->vocab_size >= 60 && ds->vocab_size <= 100, "vocab %d", ds->vocab_size);
    CHECK(strstr(ds->source, "built-in") != NULL, "source %s", ds->source);
    /* the embedded copy is byte for byte the file in the source tree */
    const char *src = getenv("BL_SRCDIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/share/blocklab.txt", src && *src ? src : ".");
    size_t n;
    unsigned char *raw = bl_test_slurp(path, &n);
    if (raw) {
        int same = n == ds->n_tokens;
        for (size_t i = 0; same && i < n; i++) same = ds->vocab[ds->ids[i]] == raw[i];
        CHECK(same, "embedded text differs from %s (%zu vs %zu bytes)", path, ds->n_tokens, n);
        free(raw);
    } else {
        printf("# %s not readable; embedded copy not compared\n", path);
    }
    int ids[16];
    CHECK(bl_text_encode(ds, "blocklab", ids) == 8, "%s", bl_error());
    char back[9];
    bl_text_decode(ds, ids, 8, back);
    CHECK(!strcmp(back, "blocklab"), "%s", back);
    bl_dataset_free(ds);
}

/* Generated text is shown as valid UTF-8: each maximal ill-formed subpart becomes one U+FFFD.
 * The expected bytes are Python's b.decode("utf-8", "replace").encode(): a truncated 3-byte
 * sequence is one U+FFFD, a stray byte, an overlong lead (c0), a surrogate (ed a0 80) and a code
 * point past U+10FFFF (f4 90 80 80) one per byte, a truncated 4-byte one before f4 is one. */
BL_TEST(test_utf8_repair)
{
    static const char in[] = "\xe6\x97\xa5\xe6\x9c\xacx\xe6\x97 \xe6\xff\xc0\xaf\xed\xa0\x80\xf0\x9f\x98\x80"
                             "\xf0\x9f\x98\xf4\x90\x80\x80" "A\xe0\x80\xe9";
#define R "\xef\xbf\xbd"
    static const char want[] = "\xe6\x97\xa5\xe6\x9c\xacx" R " " R R R R R R R "\xf0\x9f\x98\x80" R R R R R "A" R R R;
#undef R
    char out[3 * sizeof in];
    size_t n = bl_utf8_repair(in, sizeof in - 1, out);
    CHECK(n == sizeof want - 1 && !memcmp(out, want, sizeof want), "repaired %zu bytes: %s", n, out);
    CHECK(bl_utf8_repair("h\xc3\xa9llo", 6, out) == 6 && !strcmp(out, "h\xc3\xa9llo"), "valid text changed: %s", out);
    CHECK(bl_utf8_repair("\xc3", 1, out) == 3 && !strcmp(out, "\xef\xbf\xbd"), "lone lead byte: %s", out);
}

int main(void)
{
    RUN(test_utf8_repair);
    RUN(test_tinyshakespeare);
    RUN(test_split_and_windows);
    RUN(test_bad_text_files);
    RUN(test_builtin_manual);
    return bl_test_done();
}
