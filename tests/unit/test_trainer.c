/* test_trainer.c - training runs end to end on small models: the loss falls, a resumed run is
 * bit-identical to an uninterrupted one, NaN stops training with the last good weights, bad
 * checkpoints are refused with a clear message. */
#include "core/error.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/checkpoint.h"
#include "train/safetensors.h"
#include "train/trainer.h"
#include "../check.h"
#include "ckpt_testutil.h"
#include <unistd.h>

static bl_config small(bl_model_kind kind, const char *extra_k, const char *extra_v)
{
    bl_config c = bl_config_default(kind);
    const char *k[] = {"dim", "depth", "heads", "batch", "lr", "eval_every", extra_k};
    const char *v[] = {"32", "1", "2", "8", "0.001", "0", extra_v};
    int n = extra_k ? 7 : 6;
    if (bl_config_set_many(&c, n, k, v) < 0) printf("# config: %s\n", bl_error());
    return c;
}

static char tmpdir[64];
/* A path in the test's folder (the last 8 stay valid: tests hold a few at once). */
static const char *tmp_path(const char *name)
{
    static char buf[8][128];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static const char *text =
    "the quick brown fox jumps over the lazy dog. the lazy dog sleeps while the quick brown "
    "fox runs around the yard. a dog and a fox are friends; the fox is quick and the dog is lazy. ";

static bl_dataset *make_text(void)
{
    static unsigned char buf[20000];
    size_t n = 0, L = strlen(text);
    while (n + L < sizeof buf) { memcpy(buf + n, text, L); n += L; }
    return bl_data_text_mem("test text", buf, n);
}

/* Train `steps` steps and write the losses into out. */
static int train_losses(bl_run *r, int steps, float *out)
{
    for (int i = 0; i < steps; i++)
        if (bl_run_step(r, &out[i], NULL) < 0) return -1;
    return 0;
}

/* 40 steps against 20 + save/load + 20 (dropout p: "0" or more; its masks are keyed by the step,
 * so a resumed run draws the same ones, and they must change the losses). */
static void check_resume(bl_model_kind kind, bl_dataset *ds, const char *dropout)
{
    bl_config c = small(kind, kind == BL_MODEL_GPT ? "context" : NULL, "32");
    bl_config_set(&c, "dropout", dropout);
    if (kind == BL_MODEL_GPT) { char v[8]; snprintf(v, sizeof v, "%d", ds->vocab_size); bl_config_set(&c, "vocab", v); }
    float full[40], part[40];
    bl_model *a = bl_model_new(&c);
    bl_run *ra = bl_run_new(a, ds, 16);
    CHECK(a && ra, "%s", bl_error());
    if (!ra) return;
    CHECK(train_losses(ra, 40, full) == 0, "%s", bl_error());

    bl_model *b = bl_model_new(&c);
    bl_run *rb = bl_run_new(b, ds, 16);
    CHECK(train_losses(rb, 20, part) == 0, "%s", bl_error());
    const char *path = tmp_path("ckpt.safetensors");
    CHECK(bl_checkpoint_save(path, b, rb, kind == BL_MODEL_GPT ? ds->vocab : NULL,
                             kind == BL_MODEL_GPT ? ds->vocab_size : 0) == 0, "%s", bl_error());
    bl_run_free(rb);
    bl_model_free(b);

    bl_ckpt_info info;
    bl_model *c2 = bl_checkpoint_load(path, &info);
    CHECK(c2 != NULL, "load: %s", bl_error());
    if (!c2) return;
    CHECK(info.step == 20 && info.has_optim, "step %ld optim %d", info.step, info.has_optim);
    /* saved again before the run continues (the REPL's load when the data cannot be reopened):
     * the same file, step, history, data position and moments included; and loaded from that
     * copy, the run goes on as it would have */
    const char *again = tmp_path("again.safetensors");
    char why[256];
    CHECK(bl_checkpoint_save_info(again, c2, &info, kind == BL_MODEL_GPT ? info.vocab : NULL, info.vocab_size) == 0,
          "%s", bl_error());
    CHECK(ckpt_same(path, again, why, sizeof why), "saved again after load: %s", why);
    bl_ckpt_info_clear(&info);
    bl_model_free(c2);
    c2 = bl_checkpoint_load(again, &info);
    CHECK(c2 != NULL, "load the copy: %s", bl_error());
    if (!c2) return;
    if (kind == BL_MODEL_GPT) CHECK(info.vocab_size == ds->vocab_size && !memcmp(info.vocab, ds->vocab, ds->vocab_size), "vocab");
    bl_run *rc = bl_run_new(c2, ds, 16);
    CHECK(rc && bl_run_restore(rc, &info) == 0, "%s", bl_error());
    CHECK(train_losses(rc, 20, part + 20) == 0, "%s", bl_error());
    int same = 1;
    for (int i = 0; i < 40; i++)
        if (full[i] != part[i]) { same = 0; printf("# step %d: %.9g uninterrupted vs %.9g resumed\n", i + 1, full[i], part[i]); break; }
    CHECK(same, "20 + save/load + 20 steps differ from 40 steps");
    if (c.dropout > 0) { /* the same run without dropout: the third loss differs (TinyDiT's
                          * zero-initialised output layer makes its first loss independent of it) */
        bl_config c0 = c;
        c0.dropout = 0;
        bl_model *z = bl_model_new(&c0);
        bl_run *rz = z ? bl_run_new(z, ds, 16) : NULL;
        float l0[3];
        CHECK(rz && train_losses(rz, 3, l0) == 0 && l0[2] != full[2], "dropout did not change the loss");
        bl_run_free(rz);
        bl_model_free(z);
    }
    CHECK(rc->metrics.steps == 40, "history continued: %d steps", rc->metrics.steps);
    bl_ckpt_info_clear(&info);
    bl_run_free(rc);
    bl_model_free(c2);
    bl_run_free(ra);
    bl_model_free(a);
}

BL_TEST(test_dit_resume_is_exact)
{
    bl_dataset *ds = bl_data_shapes(3);
    check_resume(BL_MODEL_DIT, ds, "0");
    check_resume(BL_MODEL_DIT, ds, "0.2");
    bl_dataset_free(ds);
}

BL_TEST(test_gpt_resume_is_exact)
{
    bl_dataset *ds = make_text();
    CHECK(ds != NULL, "%s", bl_error());
    if (ds) check_resume(BL_MODEL_GPT, ds, "0");
    if (ds) check_resume(BL_MODEL_GPT, ds, "0.2");
    bl_dataset_free(ds);
}

BL_TEST(test_dit_learns_and_evaluates)
{
    bl_dataset *ds = bl_data_shapes(1);
    bl_config c = small(BL_MODEL_DIT, "eval_every", "30");
    bl_model *m = bl_model_new(&c);
    bl_run *r = bl_run_new(m, ds, 64);
    CHECK(r != NULL, "%s", bl_error());
    if (!r) return;
    CHECK(bl_run_train(r, 60, NULL, NULL) == 60, "%s", bl_error());
    CHECK(r->metrics.nval == 3, "val at 0, 30, 60: got %d", r->metrics.nval);
    /* at init the prediction is ~0, so the exam's MSE is about E|e - x0|^2 > 1; it must fall */
    float v0 = r->metrics.val_loss[0], v2 = r->metrics.val_loss[2];
    CHECK(v0 > 1.0f && v2 < 0.8f * v0, "val MSE %.4f -> %.4f", v0, v2);
    CHECK(r->metrics.val_step[1] == 30, "val step");
    /* the exam is the same for every model: a second model of another seed gets the same x0/noise/t */
    bl_config c2 = c;
    bl_config_set(&c2, "seed", "99");
    bl_model *m2 = bl_model_new(&c2);
    bl_run *r2 = bl_run_new(m2, ds, 64);
    /* the exam is drawn at the first one (a compare run another MPI rank trains never draws it) */
    CHECK(r2 && !r2->exam_made && !r2->val_noise, "the exam drawn before the first exam");
    CHECK(r2 && isfinite(bl_run_eval(r2)) && r2->exam_made, "%s", bl_error());
    CHECK(r2 && !memcmp(r->val_noise->data, r2->val_noise->data, r->val_noise->numel * 4) &&
          !memcmp(r->val_t, r2->val_t, 64 * 4), "exam differs between models");
    const char *mj = tmp_path("metrics.json");
    CHECK(bl_metrics_write(&r->metrics, mj) == 0, "%s", bl_error());
    CHECK(access(mj, R_OK) == 0, "metrics.json written");
    bl_run_free(r2); bl_model_free(m2);
    bl_run_free(r); bl_model_free(m);
    bl_dataset_free(ds);
}

BL_TEST(test_nan_stops_and_keeps_weights)
{
    bl_dataset *ds = bl_data_shapes(1);
    bl_config c = small(BL_MODEL_DIT, NULL, NULL);
    bl_model *m = bl_model_new(&c);
    bl_run *r = bl_run_new(m, ds, 8);
    float L;
    CHECK(bl_run_step(r, &L, NULL) == 0, "%s", bl_error());
    bl_params *p = m->params;
    p->values[0] = NAN;  /* poison one weight: the next loss is NaN */
    float *keep = malloc(p->total * sizeof(float));
    memcpy(keep, p->values, p->total * sizeof(float));
    CHECK(bl_run_step(r, &L, NULL) == -1, "NaN step accepted");
    CHECK_ERR("loss is nan at step 2");
    CHECK(memcmp(keep, p->values + 0, 4) != 0 || isnan(p->values[0]), "poisoned weight kept");
    CHECK(memcmp(keep + 1, p->values + 1, (p->total - 1) * sizeof(float)) == 0, "weights changed by a NaN step");
    CHECK(r->metrics.steps == 1 && bl_run_steps(r) == 1, "the NaN step is not counted");
    /* eval says why it failed (its NaN return used to come with an empty error) */
    bl_clear_error();
    CHECK(isnan(bl_run_eval(r)), "eval of a NaN model gave a number");
    CHECK_ERR("eval: loss is nan on exam images 0 to 7 at step 1");
    /* a checkpoint holding it is refused, naming the tensor */
    const char *path = tmp_path("nan.safetensors");
    CHECK(bl_checkpoint_save(path, m, r, NULL, 0) == 0, "%s", bl_error());
    CHECK(bl_checkpoint_load(path, NULL) == NULL, "a checkpoint with a NaN weight loaded");
    char want[256];
    snprintf(want, sizeof want, "tensor %s holds nan at element 0: refused", p->t[0].name);
    CHECK_ERR(want);
    free(keep);
    bl_run_free(r); bl_model_free(m); bl_dataset_free(ds);
}

BL_TEST(test_mismatched_data)
{
    bl_dataset *text = make_text(), *img = bl_data_shapes(1);
    bl_config c = small(BL_MODEL_DIT, NULL, NULL);
    bl_model *m = bl_model_new(&c);
    CHECK(bl_run_new(m, text, 8) == NULL, "TinyDiT took text");
    CHECK_ERR("TinyDiT needs images");
    bl_model_free(m);
    bl_config g = small(BL_MODEL_GPT, NULL, NULL);
    m = bl_model_new(&g);
    CHECK(bl_run_new(m, img, 8) == NULL, "TinyGPT took images");
    CHECK_ERR("TinyGPT needs text");
    CHECK(bl_run_new(m, text, 8) == NULL, "vocab mismatch accepted");
    CHECK_ERR("set vocab=");
    bl_model_free(m);
    bl_dataset_free(text); bl_dataset_free(img);
}

BL_TEST(test_bad_checkpoints)
{
    bl_config c = small(BL_MODEL_DIT, NULL, NULL);
    bl_model *m = bl_model_new(&c);
    /* a plain safetensors file without blocklab metadata */
    const char *plain = tmp_path("plain.safetensors");
    const bl_tensor *t0 = &m->params->t[0];
    CHECK(bl_st_write(plain, 1, NULL, &t0, 0, NULL, NULL) == 0, "%s", bl_error());
    CHECK(bl_checkpoint_load(plain, NULL) == NULL, "plain file accepted");
    CHECK_ERR("not a blocklab checkpoint");
    /* a checkpoint whose config asks for rope2d but holds the learned-position tensors */
    const char *path = tmp_path("m.safetensors");
    CHECK(bl_checkpoint_save(path, m, NULL, NULL, 0) == 0, "%s", bl_error());
    bl_model *ok = bl_checkpoint_load(path, NULL);
    CHECK(ok && !memcmp(ok->params->values, m->params->values, m->params->total * 4), "round trip");
    bl_model_free(ok);
    bl_config c2 = small(BL_MODEL_DIT, "qk_norm", "on");
    bl_model *q = bl_model_new(&c2);
    json_t *cfg = bl_config_to_json(&q->cfg);
    char *cs = json_dumps(cfg, JSON_COMPACT);
    const char *k[] = {"format", "config"}, *v[] = {"blocklab-checkpoint-1", cs};
    int n = m->params->n;
    const bl_tensor **ts = malloc(n * sizeof *ts);
    for (int i = 0; i < n; i++) ts[i] = &m->params->t[i];
    const char *bad = tmp_path("bad.safetensors");
    CHECK(bl_st_write(bad, n, NULL, ts, 2, k, v) == 0, "%s", bl_error());
    CHECK(bl_checkpoint_load(bad, NULL) == NULL, "missing q_norm accepted");
    CHECK_ERR("blocks.0.attn.q_norm.weight is missing");
    /* a config without a key that makes the model is refused naming the key, not as a tensor of
     * the default's shape missing ("tensor blocks.2... is missing" for a missing depth) */
    json_t *nodepth = bl_config_to_json(&m->cfg);
    json_object_del(nodepth, "depth");
    char *nd = json_dumps(nodepth, JSON_COMPACT);
    const char *v2[] = {"blocklab-checkpoint-1", nd};
    CHECK(bl_st_write(bad, n, NULL, ts, 2, k, v2) == 0, "%s", bl_error());
    CHECK(bl_checkpoint_load(bad, NULL) == NULL, "a config without depth accepted");
    CHECK_ERR("metadata \"config\" has no \"depth\"");
    free(nd); json_decref(nodepth);
    CHECK(bl_checkpoint_load(tmp_path("nope.safetensors"), NULL) == NULL, "missing file");
    CHECK_ERR("nope.safetensors");
    free(ts); free(cs); json_decref(cfg);
    bl_model_free(q); bl_model_free(m);
}

/* The checkpoint's __metadata__ as Python reads it (json.loads of each value): the history's
 * counts, the config's whole-number keys and the data position are JSON integers; reals stay
 * reals. safetensors metadata values are strings, so "step" is the string of an integer. */
BL_TEST(test_checkpoint_metadata_types)
{
    bl_dataset *ds = bl_data_shapes(2);
    bl_config c = small(BL_MODEL_DIT, "eval_every", "2");
    bl_model *m = bl_model_new(&c);
    bl_run *r = bl_run_new(m, ds, 8);
    CHECK(r != NULL, "%s", bl_error());
    if (!r) return;
    CHECK(bl_run_train(r, 4, NULL, NULL) == 4, "%s", bl_error());
    const char *path = tmp_path("types.safetensors");
    CHECK(bl_checkpoint_save(path, m, r, NULL, 0) == 0, "%s", bl_error());
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "%s", bl_error());
    if (!f) return;
    const char *step = bl_st_meta(f, "step");
    CHECK(step && !strcmp(step, "4"), "step '%s'", step ? step : "(none)");
    json_t *h = json_loads(bl_st_meta(f, "history") ? bl_st_meta(f, "history") : "", 0, NULL);
    json_t *cf = json_loads(bl_st_meta(f, "config") ? bl_st_meta(f, "config") : "", 0, NULL);
    json_t *dj = json_loads(bl_st_meta(f, "data") ? bl_st_meta(f, "data") : "", 0, NULL);
    CHECK(h && cf && dj, "history, config or data is not JSON");
    const char *hint[] = {"params", "steps", "items"};
    for (int i = 0; i < 3; i++)
        CHECK(json_is_integer(json_object_get(h, hint[i])), "history \"%s\" is not a JSON integer", hint[i]);
    CHECK(json_integer_value(json_object_get(h, "items")) == 4 * 8, "history items");
    json_t *val = json_object_get(h, "val");
    CHECK(json_array_size(val) == 3, "%zu val points", json_array_size(val));
    for (size_t i = 0; i < json_array_size(val); i++)
        CHECK(json_is_integer(json_array_get(json_array_get(val, i), 0)), "val step %zu is not an integer", i);
    const char *cint[] = {"dim", "depth", "heads", "kv_heads", "patch", "batch", "seed", "warmup", "eval_every", "steps"};
    for (int i = 0; i < 10; i++)
        CHECK(json_is_integer(json_object_get(cf, cint[i])), "config \"%s\" is not a JSON integer", cint[i]);
    const char *creal[] = {"lr", "mlp_ratio", "rope_base", "eps", "beta1", "beta2"};
    for (int i = 0; i < 6; i++)
        CHECK(json_is_real(json_object_get(cf, creal[i])), "config \"%s\" is not a real number", creal[i]);
    CHECK(json_is_integer(json_object_get(dj, "drawn")) && json_is_integer(json_object_get(dj, "exam")),
          "data drawn/exam are not integers");
    json_decref(h); json_decref(cf); json_decref(dj);
    bl_st_free(f);
    bl_run_free(r); bl_model_free(m);
    bl_dataset_free(ds);
}


/* ---- crafted files: a checkpoint's header rewritten as Python's json + struct would ----
 * (read the 8-byte length and the JSON header, change it, pad it with spaces to a multiple of 8,
 * write the length, the header and the data bytes unchanged), independent of the library. */
static json_t *raw_header(const char *path, unsigned char **file, size_t *size, size_t *hlen)
{
    *file = bl_test_slurp(path, size);
    if (!*file || *size < 8) return NULL;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | (*file)[i];
    if (n > *size - 8) return NULL;
    *hlen = (size_t)n;
    return json_loadb((const char *)*file + 8, (size_t)n, 0, NULL);
}

static int raw_write(const char *dst, json_t *h, const unsigned char *data, size_t ndata)
{
    char *text = json_dumps(h, JSON_COMPACT);
    if (!text) return -1;
    size_t m = strlen(text), padded = (m + 7) / 8 * 8;
    FILE *f = fopen(dst, "wb");
    if (!f) { free(text); return -1; }
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    int ok = fwrite(len, 1, 8, f) == 8 && fwrite(text, 1, m, f) == m;
    for (size_t i = m; i < padded; i++) ok &= fputc(' ', f) != EOF;
    ok &= fwrite(data, 1, ndata, f) == ndata;
    ok &= fclose(f) == 0;
    free(text);
    return ok ? 0 : -1;
}

/* src with __metadata__[key] set to value (NULL: removed), written to dst. */
static int tamper_meta(const char *src, const char *dst, const char *key, const char *value)
{
    unsigned char *file;
    size_t size, hlen;
    json_t *h = raw_header(src, &file, &size, &hlen);
    int rc = -1;
    json_t *meta = h ? json_object_get(h, "__metadata__") : NULL;
    if (meta) {
        if (value) json_object_set_new(meta, key, json_string(value));
        else json_object_del(meta, key);
        rc = raw_write(dst, h, file + 8 + hlen, size - 8 - hlen);
    }
    json_decref(h);
    free(file);
    return rc;
}

/* src with element i of the F32 tensor `name` set to v, written to dst. */
static int tamper_float(const char *src, const char *dst, const char *name, size_t i, float v)
{
    unsigned char *file;
    size_t size, hlen;
    json_t *h = raw_header(src, &file, &size, &hlen);
    json_t *off = h ? json_object_get(json_object_get(h, name), "data_offsets") : NULL;
    int rc = -1;
    if (off) {
        size_t at = 8 + hlen + (size_t)json_integer_value(json_array_get(off, 0)) + 4 * i;
        if (at + 4 <= size) {
            memcpy(file + at, &v, 4);   /* little-endian hosts, as the library assumes */
            rc = raw_write(dst, h, file + 8 + hlen, size - 8 - hlen);
        }
    }
    json_decref(h);
    free(file);
    return rc;
}

/* The metadata value `key` of a file, parsed as JSON (a new reference, or NULL). */
static json_t *meta_of(const char *path, const char *key)
{
    bl_st_file *f = bl_st_read(path);
    const char *s = f ? bl_st_meta(f, key) : NULL;
    json_t *j = s ? json_loads(s, 0, NULL) : NULL;
    bl_st_free(f);
    return j;
}

/* Load a crafted file: it must be refused with one line naming the file and every `needle`. */
static void check_refused(const char *path, const char *what, const char *n1, const char *n2)
{
    bl_clear_error();
    bl_ckpt_info info;
    bl_model *m = bl_checkpoint_load(path, &info);
    CHECK(m == NULL, "%s: accepted (step %ld, drawn %llu, vocab %d)", what, m ? info.step : 0L,
          m ? (unsigned long long)info.drawn : 0ULL, m ? info.vocab_size : 0);
    if (m) { bl_ckpt_info_clear(&info); bl_model_free(m); return; }
    const char *e = bl_error();
    CHECK(strstr(e, path) && strchr(e, '\n') == NULL, "%s: not one line naming the file: \"%s\"", what, e);
    CHECK(!n1 || strstr(e, n1), "%s: \"%s\" does not name %s", what, e, n1);
    CHECK(!n2 || strstr(e, n2), "%s: \"%s\" does not name %s", what, e, n2);
}

/* good with metadata key set to value, loaded: refused naming n1 and n2 */
static void check_meta(const char *good, const char *key, const char *value, const char *n1, const char *n2)
{
    const char *bad = tmp_path("tampered.safetensors");
    char what[160];
    snprintf(what, sizeof what, "%s = %.100s", key, value ? value : "(removed)");
    CHECK(tamper_meta(good, bad, key, value) == 0, "%s: cannot write the crafted file", what);
    check_refused(bad, what, n1, n2);
}

/* good with one field of a JSON metadata value (an object) replaced (NULL: removed) */
static void check_field(const char *good, const char *key, const char *field, json_t *v, const char *n1,
                        const char *n2)
{
    json_t *o = meta_of(good, key);
    CHECK(o != NULL, "%s is not JSON", key);
    if (!o) { json_decref(v); return; }
    if (v) json_object_set_new(o, field, v);
    else json_object_del(o, field);
    char *s = json_dumps(o, JSON_COMPACT);
    check_meta(good, key, s, n1, n2);
    free(s);
    json_decref(o);
}

/* A TinyGPT trained 12 steps (exams at 0, 5, 10) and saved: step, history, data, vocab, moments.
 * Every metadata field changed on its own to something wrong is refused with one line naming the
 * file and the field, never loaded as a wrong run ("step -1", a vocabulary of 2, drawn -10). */
BL_TEST(test_tampered_metadata)
{
    bl_dataset *ds = make_text();
    bl_config c = small(BL_MODEL_GPT, "context", "16");
    char vs[8];
    snprintf(vs, sizeof vs, "%d", ds->vocab_size);
    bl_config_set(&c, "vocab", vs);
    bl_config_set(&c, "eval_every", "5");
    bl_model *m = bl_model_new(&c);
    bl_run *r = m ? bl_run_new(m, ds, 4) : NULL;
    CHECK(r && bl_run_train(r, 12, NULL, NULL) == 12, "%s", bl_error());
    char good[128];
    snprintf(good, sizeof good, "%s", tmp_path("good.safetensors"));
    CHECK(r && bl_checkpoint_save(good, m, r, ds->vocab, ds->vocab_size) == 0, "%s", bl_error());
    bl_ckpt_info info;
    bl_model *ok = bl_checkpoint_load(good, &info);
    CHECK(ok && info.step == 12 && info.drawn == 12 * 8 && info.vocab_size == ds->vocab_size,
          "the good file: %s", bl_error());
    if (ok) bl_ckpt_info_clear(&info);
    bl_model_free(ok);
    /* a file tampered with nothing changed loads: the helper itself changes nothing else */
    CHECK(tamper_meta(good, tmp_path("same.safetensors"), "format", "blocklab-checkpoint-1") == 0, "rewrite");
    ok = bl_checkpoint_load(tmp_path("same.safetensors"), NULL);
    CHECK(ok != NULL, "the rewritten good file: %s", bl_error());
    bl_model_free(ok);

    /* step: a whole number, checked for overflow, equal to the history's */
    check_meta(good, "step", "99999999999999999999999", "\"step\"", "99999999999999999999999");
    check_meta(good, "step", "-1", "\"step\"", NULL);
    check_meta(good, "step", "12abc", "\"step\"", NULL);
    check_meta(good, "step", "", "\"step\"", NULL);
    check_meta(good, "step", "1e1", "\"step\"", NULL);
    check_meta(good, "step", "11", "\"step\"", "12");
    check_meta(good, "step", NULL, "\"step\"", NULL);
    /* kind: the config's */
    check_meta(good, "kind", "dit", "\"kind\"", NULL);
    check_meta(good, "kind", "xyz\nmore", "\"kind\"", NULL);
    /* vocab: the config's vocab size (= transformer.wte.weight's rows), sorted distinct bytes */
    check_meta(good, "vocab", "[1,2]", "\"vocab\"", vs);
    json_t *v = meta_of(good, "vocab");
    CHECK(json_array_size(v) == (size_t)ds->vocab_size, "vocab stored");
    json_t *w = json_deep_copy(v);
    json_array_set(w, 1, json_array_get(w, 0));   /* a byte twice */
    char *s = json_dumps(w, JSON_COMPACT);
    check_meta(good, "vocab", s, "\"vocab\"", NULL);
    free(s); json_decref(w);
    w = json_deep_copy(v);
    json_t *a0 = json_incref(json_array_get(w, 0));
    json_array_set(w, 0, json_array_get(w, 1));   /* two bytes swapped: not the text's order */
    json_array_set_new(w, 1, a0);
    s = json_dumps(w, JSON_COMPACT);
    check_meta(good, "vocab", s, "\"vocab\"", NULL);
    free(s); json_decref(w);
    w = json_deep_copy(v);
    json_array_set_new(w, json_array_size(w) - 1, json_integer(300));
    s = json_dumps(w, JSON_COMPACT);
    check_meta(good, "vocab", s, "\"vocab\"", "300");
    free(s); json_decref(w);
    w = json_deep_copy(v);
    json_array_set_new(w, 0, json_real(10.5));
    s = json_dumps(w, JSON_COMPACT);
    check_meta(good, "vocab", s, "\"vocab\"", NULL);
    free(s); json_decref(w);
    json_decref(v);
    check_meta(good, "vocab", "\"abc\"", "\"vocab\"", NULL);
    /* data: drawn a count matching the history (8 windows a step), exam a positive count */
    check_field(good, "data", "drawn", json_integer(-10), "\"data\"", "drawn");
    check_field(good, "data", "drawn", json_integer(12 * 8 + 1), "drawn", "97");
    check_field(good, "data", "drawn", json_string("96"), "drawn", NULL);
    check_field(good, "data", "drawn", json_real(1e30), "drawn", NULL);
    check_field(good, "data", "drawn", NULL, "drawn", NULL);
    check_field(good, "data", "exam", json_integer(0), "exam", NULL);
    check_field(good, "data", "exam", json_integer(-3), "exam", NULL);
    check_field(good, "data", "exam", json_string("4"), "exam", NULL);
    check_field(good, "data", "name", json_integer(3), "name", NULL);
    check_field(good, "data", "name", json_string("a name much longer than any data set's name"), "name", NULL);
    check_field(good, "data", "source", json_null(), "source", NULL);
    check_meta(good, "data", "[1]", "\"data\"", NULL);
    check_meta(good, "data", NULL, "\"data\"", NULL);
    /* history: well-formed, finite, its counts consistent with step and the model */
    check_field(good, "history", "steps", json_integer(13), "\"step\"", "13");
    check_field(good, "history", "steps", json_integer(-1), "\"history\"", "steps");
    check_field(good, "history", "params", json_integer(5), "\"history\"", "params");
    check_field(good, "history", "items", json_integer(-5), "\"history\"", "items");
    check_field(good, "history", "items", json_integer(12 * 8 * 16 + 16), "drawn", NULL);
    check_field(good, "history", "wall_s", json_integer(-1), "\"history\"", "wall_s");
    check_field(good, "history", "item_unit", json_string("images"), "\"history\"", "item_unit");
    json_t *h = meta_of(good, "history");
    CHECK(json_array_size(json_object_get(h, "loss")) == 12, "history stored");
    json_t *l = json_deep_copy(json_object_get(h, "loss"));
    json_array_remove(l, 0);
    check_field(good, "history", "loss", l, "\"history\"", "loss");
    l = json_deep_copy(json_object_get(h, "loss"));
    json_array_set_new(l, 3, json_string("x"));
    check_field(good, "history", "loss", l, "\"history\"", "loss");
    l = json_deep_copy(json_object_get(h, "ms"));
    json_array_set_new(l, 3, json_real(-1));
    check_field(good, "history", "ms", l, "\"history\"", "ms");
    l = json_deep_copy(json_object_get(h, "lr"));
    json_array_set_new(l, 0, json_null());
    check_field(good, "history", "lr", l, "\"history\"", "lr");
    check_field(good, "history", "val", json_pack("[[i,f],[i,f]]", 0, 4.0, 99, 3.0), "\"history\"", "val");
    check_field(good, "history", "val", json_pack("[[i,f],[i,f]]", 5, 4.0, 0, 3.0), "\"history\"", "val");
    check_field(good, "history", "val", json_pack("[[i,s]]", 5, "nan"), "\"history\"", "val");
    check_field(good, "history", "val", json_pack("[[i]]", 5), "\"history\"", "val");
    check_field(good, "history", "val", json_pack("[[f,f]]", 1e30, 1.0), "\"history\"", "val");
    check_field(good, "history", "spikes", json_pack("[i]", 99), "\"history\"", "spikes");
    check_field(good, "history", "spikes", json_pack("[i,i]", 12, 11), "\"history\"", "spikes");
    check_field(good, "history", "spikes", json_pack("[s]", "x"), "\"history\"", "spikes");
    check_field(good, "history", "spikes", json_integer(3), "\"history\"", "spikes");
    check_meta(good, "history", "[]", "\"history\"", NULL);
    check_meta(good, "history", NULL, "\"history\"", NULL);
    json_decref(h);
    /* optimizer state: AdamW's v is never negative */
    char vname[BL_PARAM_NAME_MAX + 8];
    snprintf(vname, sizeof vname, "optim.v.%s", m->params->t[0].name);
    CHECK(tamper_float(good, tmp_path("negv.safetensors"), vname, 2, -0.25f) == 0, "crafting %s", vname);
    check_refused(tmp_path("negv.safetensors"), "a negative second moment", vname, NULL);
    bl_run_free(r);
    bl_model_free(m);
    bl_dataset_free(ds);
}

/* The optimizer state must match the step: moments at step 12 (a file without them is a run
 * that cannot continue as it was), all zero at step 0 (no update has been made). A TinyDiT
 * takes no vocabulary. */
BL_TEST(test_tampered_optimizer_state)
{
    bl_dataset *ds = bl_data_shapes(1);
    bl_config c = small(BL_MODEL_DIT, NULL, NULL);
    bl_model *m = bl_model_new(&c);
    bl_run *r = bl_run_new(m, ds, 8);
    CHECK(r != NULL, "%s", bl_error());
    if (!r) return;
    char zero[128];
    snprintf(zero, sizeof zero, "%s", tmp_path("zero.safetensors"));
    CHECK(bl_checkpoint_save(zero, m, r, NULL, 0) == 0, "%s", bl_error());   /* step 0, moments 0 */
    bl_model *ok = bl_checkpoint_load(zero, NULL);
    CHECK(ok != NULL, "a run at step 0: %s", bl_error());
    bl_model_free(ok);
    char mname[BL_PARAM_NAME_MAX + 8];
    snprintf(mname, sizeof mname, "optim.m.%s", m->params->t[1].name);
    CHECK(tamper_float(zero, tmp_path("m0.safetensors"), mname, 0, 0.5f) == 0, "crafting %s", mname);
    check_refused(tmp_path("m0.safetensors"), "moments at step 0", mname, "step");
    check_meta(zero, "vocab", "[1,2,3]", "\"vocab\"", NULL);
    /* a trained run saved without its moments */
    float L;
    CHECK(bl_run_step(r, &L, NULL) == 0 && bl_run_step(r, &L, NULL) == 0, "%s", bl_error());
    const char *two = tmp_path("two.safetensors");
    CHECK(bl_checkpoint_save(two, m, r, NULL, 0) == 0, "%s", bl_error());
    bl_st_file *f = bl_st_read(two);
    CHECK(f != NULL, "%s", bl_error());
    if (f) {
        const char *k[8], *v[8];
        int nm = 0;
        for (int i = 0; i < f->nmeta && nm < 8; i++) k[nm] = f->meta_keys[i], v[nm++] = f->meta_values[i];
        int n = m->params->n;
        const bl_tensor **ts = malloc((size_t)n * sizeof *ts);
        for (int i = 0; i < n; i++) ts[i] = bl_st_get(f, m->params->t[i].name);
        const char *nomo = tmp_path("nomoments.safetensors");
        CHECK(bl_st_write(nomo, n, NULL, ts, nm, k, v) == 0, "%s", bl_error());
        check_refused(nomo, "step 2 without moments", "\"step\"", "optim");
        free(ts);
        bl_st_free(f);
    }
    /* a diverging run's second moment overflows to +inf (the element then takes no update, as in
     * PyTorch): such a file, as save writes it, loads and trains on; nan there, or inf in the
     * first moment, is refused */
    char vname[BL_PARAM_NAME_MAX + 8];
    snprintf(vname, sizeof vname, "optim.v.%s", m->params->t[1].name);
    snprintf(mname, sizeof mname, "optim.m.%s", m->params->t[1].name);
    CHECK(tamper_float(two, tmp_path("vinf.safetensors"), vname, 3, INFINITY) == 0, "crafting %s", vname);
    bl_ckpt_info info;
    bl_model *vm = bl_checkpoint_load(tmp_path("vinf.safetensors"), &info);
    CHECK(vm != NULL, "v = +inf refused: %s", bl_error());
    if (vm) {
        bl_params *vp = vm->params;
        size_t at = vp->info[1].offset + 3;
        CHECK(isinf(vp->v[at]) && vp->v[at] > 0, "v[3] = %g after load", (double)vp->v[at]);
        bl_run *vr = bl_run_new(vm, ds, 8);
        float before = vp->t[1].data[3], before4 = vp->t[1].data[4], lv;
        CHECK(vr && bl_run_restore(vr, &info) == 0, "resume: %s", bl_error());
        CHECK(vr && bl_run_step(vr, &lv, NULL) == 0 && isfinite(lv), "a step after v = +inf: %s", bl_error());
        /* no Adam update there: at most the decoupled weight decay, w lr wd; its neighbour moves */
        double bound = fabs(before) * vm->cfg.lr * vm->cfg.weight_decay + 1e-12;
        CHECK(fabs(vp->t[1].data[3] - before) <= bound, "element 3 moved by %g (decay allows %g)",
              fabs(vp->t[1].data[3] - before), bound);
        CHECK(fabs(vp->t[1].data[4] - before4) > bound, "element 4 did not move (by %g)",
              fabs(vp->t[1].data[4] - before4));
        bl_run_free(vr);
        bl_ckpt_info_clear(&info);
        bl_model_free(vm);
    }
    CHECK(tamper_float(two, tmp_path("vnan.safetensors"), vname, 3, NAN) == 0, "crafting %s", vname);
    check_refused(tmp_path("vnan.safetensors"), "v = nan", vname, "holds nan");
    CHECK(tamper_float(two, tmp_path("minf.safetensors"), mname, 3, INFINITY) == 0, "crafting %s", mname);
    check_refused(tmp_path("minf.safetensors"), "m = inf", mname, "holds inf");
    bl_run_free(r);
    bl_model_free(m);
    bl_dataset_free(ds);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/bl_trainer_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(test_dit_resume_is_exact);
    RUN(test_gpt_resume_is_exact);
    RUN(test_dit_learns_and_evaluates);
    RUN(test_nan_stops_and_keeps_weights);
    RUN(test_mismatched_data);
    RUN(test_bad_checkpoints);
    RUN(test_checkpoint_metadata_types);
    RUN(test_tampered_metadata);
    RUN(test_tampered_optimizer_state);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) return 1;
    return bl_test_done();
}
