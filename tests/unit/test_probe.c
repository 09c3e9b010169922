/* test_probe.c - the probe-FD classifier (src/train/probe.h) on the built-in shapes set.
 *
 * Checked: a short training (120 steps of 32) classifies held-out shapes far above chance
 * (10%; it reaches about 55%); the cache
 * round trip (a second get loads the file and gives the same features bit for bit); cache files
 * that are garbage, or valid safetensors made for something else, are refused with the reason
 * and the probe retrained and rewritten; an unwritable cache is reported but not an error;
 * FD(real, real) = 0, FD(real, noise) is far above FD(real, other real images); the TinyDiT
 * convenience; bad input (non-image data, wrong image shape, bad options, wrong model).
 */
#include "core/blas.h"
#include "core/error.h"
#include "core/rng.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/probe.h"
#include "train/safetensors.h"
#include "../check.h"
#include "data_testutil.h"

static bl_dataset *shapes;

static bl_probe_opts short_opts(void)
{
    bl_probe_opts o;
    bl_probe_opts_default(&o);
    o.steps = 120;
    o.batch = 32;
    o.lr = 3e-3f;
    o.n_eval = 500;
    o.cache_dir = tu_path("cache");
    return o;
}

/* n held-out shapes starting at `first` as [n, 3, 32, 32] */
static bl_tensor *val_images(size_t first, int n)
{
    bl_tensor *x = bl_tensor_new4(n, 3, 32, 32);
    if (bl_dataset_val_images(shapes, first, n, x->data, NULL) < 0) {
        bl_tensor_free(x);
        return NULL;
    }
    return x;
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static bl_tensor *features_ref; /* features of val images 0..63 from the first trained probe */
static char cache_file[4096];

BL_TEST(test_train_and_cache)
{
    bl_probe_opts o = short_opts();
    bl_probe *p = bl_probe_get(shapes, &o);
    CHECK(p != NULL, "%s", bl_error());
    if (!p) return;
    CHECK(!p->from_cache, "nothing to load yet: %s", p->note);
    CHECK(p->dim == 128 && p->nstages == 2 && p->patch[0] == 4 && p->patch[1] == 2,
          "dim %d, %d stages", p->dim, p->nstages);
    CHECK(p->n_eval == 500, "n_eval %d", p->n_eval);
    CHECK(p->accuracy > 0.4, "held-out accuracy %.3f after %d steps (chance 0.1)", p->accuracy,
          o.steps);
    CHECK(strstr(p->note, "trained on shapes") && strstr(p->note, ", saved "), "note: %s", p->note);
    /* the file name: dataset, image shape and the options' hash (not the defaults) */
    CHECK(strstr(p->cache_path, "/cache/probe-shapes-3x32x32-") &&
          strstr(p->cache_path, ".safetensors"), "cache path %s", p->cache_path);
    CHECK(file_exists(p->cache_path), "no file at %s", p->cache_path);
    snprintf(cache_file, sizeof cache_file, "%s", p->cache_path);
    /* recompute the accuracy from the logits: argmax against the labels */
    bl_tensor *x = val_images(0, 200), *lo = NULL;
    int labels[200], right = 0;
    bl_dataset_val_images(shapes, 0, 200, x->data, labels);
    CHECK(bl_probe_forward(p, x, &lo, NULL) == 0, "%s", bl_error());
    for (int i = 0; lo && i < 200; i++) {
        int best = 0;
        for (int k = 1; k < 10; k++)
            if (lo->data[i * 10 + k] > lo->data[i * 10 + best]) best = k;
        right += best == labels[i];
    }
    CHECK(right > 80, "%d of 200 right", right);
    bl_tensor_free(lo);
    bl_tensor_free(x);

    x = val_images(0, 64);
    features_ref = bl_probe_features(p, x);
    CHECK(features_ref && features_ref->shape[0] == 64 && features_ref->shape[1] == 128, "features");
    bl_probe_free(p);

    /* second get: loaded, same features bit for bit, same accuracy */
    p = bl_probe_get(shapes, &o);
    CHECK(p && p->from_cache, "not loaded: %s", p ? p->note : bl_error());
    if (p) {
        CHECK(strstr(p->note, "probe: loaded ") != NULL, "note: %s", p->note);
        bl_tensor *f = bl_probe_features(p, x);
        CHECK(f && features_ref && memcmp(f->data, features_ref->data, 64 * 128 * 4) == 0,
              "features differ after loading");
        bl_tensor_free(f);
    }
    bl_probe_free(p);
    bl_tensor_free(x);
}

/* Get the probe after the cache file was replaced; it must be refused, retrained (the same
 * weights: training is seeded) and rewritten, so a further get loads it. */
static void check_refused(const char *what, const char *reason)
{
    bl_probe_opts o = short_opts();
    bl_probe *p = bl_probe_get(shapes, &o);
    CHECK(p && !p->from_cache, "%s: %s", what, p ? p->note : bl_error());
    if (!p) return;
    CHECK(strstr(p->note, "refused cache") && strstr(p->note, reason), "%s: note %s", what, p->note);
    CHECK(p->accuracy > 0.4, "%s: accuracy %.3f", what, p->accuracy);
    bl_tensor *x = val_images(0, 64), *f = bl_probe_features(p, x);
    CHECK(f && features_ref && memcmp(f->data, features_ref->data, 64 * 128 * 4) == 0,
          "%s: retrained features differ from the first training", what);
    bl_tensor_free(f);
    bl_tensor_free(x);
    bl_probe_free(p);
    p = bl_probe_get(shapes, &o);
    CHECK(p && p->from_cache, "%s: rewritten file not loaded: %s", what, p ? p->note : bl_error());
    bl_probe_free(p);
}

BL_TEST(test_corrupt_cache)
{
    if (!cache_file[0]) SKIP("no cache file from the first test");
    /* garbage: a header length far past the end of the file */
    FILE *f = fopen(cache_file, "wb");
    fputs("\xff\xff\xff\xff\xff\xff\x00\x00 not a safetensors file", f);
    fclose(f);
    check_refused("garbage", "safetensors: ");

    /* a valid safetensors file made for something else */
    float v[2] = {1, 2};
    bl_tensor t = {.data = v, .ndim = 1, .shape = {2}, .numel = 2, .name = "probe.head.bias"};
    const bl_tensor *ts[1] = {&t};
    const char *k[1] = {"probe.config"}, *val[1] = {"probe v0; something else"};
    CHECK(bl_st_write(cache_file, 1, NULL, ts, 1, k, val) == 0, "%s", bl_error());
    check_refused("other config", "made for other data or options (probe v0; something else)");
}

BL_TEST(test_cache_off_and_unwritable)
{
    bl_probe_opts o = short_opts();
    o.steps = 3;
    o.cache_dir = "";
    bl_probe *p = bl_probe_get(shapes, &o);
    CHECK(p && !p->from_cache && p->cache_path[0] == 0, "%s", p ? p->note : bl_error());
    CHECK(p && !strstr(p->note, "saved"), "note %s", p ? p->note : "");
    bl_probe_free(p);
    /* a cache directory below a plain file cannot be made: reported in the note only */
    tu_write("plainfile", "x", 1, 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/sub", tu_path("plainfile"));
    o.cache_dir = dir;
    p = bl_probe_get(shapes, &o);
    CHECK(p != NULL, "%s", bl_error());
    CHECK(p && strstr(p->note, ", not saved: probe: cannot create ") &&
          strstr(p->note, "Not a directory"), "note %s", p ? p->note : "");
    CHECK(bl_error()[0] == 0, "error left set: %s", bl_error());
    bl_probe_free(p);
}

BL_TEST(test_fd)
{
    bl_probe_opts o = short_opts();
    bl_probe *p = bl_probe_get(shapes, &o);
    CHECK(p && p->from_cache, "%s", p ? p->note : bl_error());
    if (!p) return;
    const int n = 300;
    bl_tensor *real = val_images(0, n), *other = val_images(n, n);
    bl_tensor *noise = bl_tensor_new4(n, 3, 32, 32);
    bl_rng r;
    bl_rng_init(&r, 1, 2);
    bl_rng_fill_uniform(&r, noise->data, noise->numel, -1, 1);
    double self = bl_probe_fd(p, real, real);
    double fd_other = bl_probe_fd(p, real, other);
    double fd_noise = bl_probe_fd(p, real, noise);
    bl_tensor *f = bl_probe_features(p, real);
    double tr = 0, mean[128] = {0};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 128; j++) mean[j] += f->data[i * 128 + j] / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 128; j++) {
            double dv = f->data[i * 128 + j] - mean[j];
            tr += dv * dv / (n - 1);
        }
    CHECK(self >= 0 && self <= 1e-6 * tr, "fd(real, real) = %g (trace %g)", self, tr);
    CHECK(fd_other > 0 && fd_noise > 10 * fd_other, "fd(real, other real) %g, fd(real, noise) %g",
          fd_other, fd_noise);
    printf("# fd(real, other real) %.4g, fd(real, noise) %.4g, trace %.4g\n", fd_other, fd_noise, tr);

    /* an untrained TinyDiT's samples are far from the data */
    bl_config c = bl_config_default(BL_MODEL_DIT);
    const char *k[] = {"dim", "depth", "heads", "image_size", "channels", "patch"};
    const char *v[] = {"32", "1", "2", "32", "3", "8"};
    bl_model *m = bl_config_set_many(&c, 6, k, v) == 0 ? bl_model_new(&c) : NULL;
    CHECK(m != NULL, "%s", bl_error());
    if (m) {
        double fd_model = bl_probe_fd_model(p, m, shapes, 64, 7);
        CHECK(fd_model > fd_other, "fd of an untrained model %g vs real/real %g (%s)", fd_model,
              fd_other, bl_error());
        CHECK(bl_probe_fd_model(p, m, shapes, 1, 7) < 0, "n = 1 accepted");
        CHECK_ERR("probe: fd needs at least 2 images per set, got 1");
        CHECK(bl_probe_fd_model(p, m, shapes, 20000, 7) < 0, "n > n_val accepted");
        CHECK_ERR("probe: fd of 20000 images but shapes holds 10000 held-out images");
        bl_model_free(m);
    }
    c = bl_config_default(BL_MODEL_DIT);
    const char *v2[] = {"32", "1", "2", "16", "3", "8"};
    m = bl_config_set_many(&c, 6, k, v2) == 0 ? bl_model_new(&c) : NULL;
    CHECK(m && bl_probe_fd_model(p, m, shapes, 8, 7) < 0, "16x16 model accepted");
    CHECK_ERR("probe: the model makes 3x16x16 images but the probe (shapes) reads 3x32x32");
    bl_model_free(m);
    bl_config g = bl_config_default(BL_MODEL_GPT);
    m = bl_model_new(&g);
    CHECK(m && bl_probe_fd_model(p, m, shapes, 8, 7) < 0, "gpt accepted");
    CHECK_ERR("probe: fd needs a TinyDiT model");
    bl_model_free(m);

    bl_tensor_free(f);
    bl_tensor_free(real);
    bl_tensor_free(other);
    bl_tensor_free(noise);
    bl_probe_free(p);
}

BL_TEST(test_errors)
{
    bl_probe_opts o = short_opts();
    bl_dataset *txt = bl_data_text(NULL);
    CHECK(txt && bl_probe_get(txt, &o) == NULL, "text accepted");
    CHECK_ERR("probe: needs an image dataset, got text");
    bl_dataset_free(txt);
    o.steps = 0;
    CHECK(bl_probe_get(shapes, &o) == NULL, "steps 0 accepted");
    CHECK_ERR("probe: steps 0, batch 32, n_eval 500 must be at least 1 and lr 0.003 above 0");
    o = short_opts();
    bl_probe *p = bl_probe_get(shapes, &o);
    CHECK(p != NULL, "%s", bl_error());
    if (!p) return;
    bl_tensor *x = bl_tensor_new4(2, 1, 32, 32);
    CHECK(bl_probe_features(p, x) == NULL, "1 channel accepted");
    CHECK_ERR("probe: images [2, 1, 32, 32] do not match the probe's [N, 3, 32, 32] (shapes)");
    bl_tensor *ok = val_images(0, 4);
    CHECK(bl_probe_fd(p, ok, x) < 0, "fd with a bad set accepted");
    CHECK_ERR("do not match the probe's");
    bl_tensor *one = val_images(0, 1);
    CHECK(bl_probe_fd(p, ok, one) < 0, "fd of 1 image accepted");
    CHECK_ERR("frechet: need at least 2 feature vectors for a covariance, got 1");
    bl_tensor_free(one);
    bl_tensor_free(ok);
    bl_tensor_free(x);
    bl_probe_free(p);
}

int main(int argc, char **argv)
{
    (void)argc;
    bl_blas_pick_kernel(argv);  /* the fast BLAS kernels, as the program does */
    tu_tmpdir();
    shapes = bl_data_shapes(0);
    RUN(test_train_and_cache);
    RUN(test_corrupt_cache);
    RUN(test_cache_off_and_unwritable);
    RUN(test_fd);
    RUN(test_errors);
    bl_tensor_free(features_ref);
    bl_dataset_free(shapes);
    tu_cleanup();
    return bl_test_done();
}
