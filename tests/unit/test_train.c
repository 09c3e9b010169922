/* test_train.c - AdamW against torch.optim.AdamW, the lr schedule, clipping, metrics and spikes. */
#include "core/error.h"
#include "train/metrics.h"
#include "train/optim.h"
#include "train/trainer.h"
#include "models/config.h"
#include "../check.h"
#include <unistd.h>

/* torch.optim.AdamW([p], lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1), three steps
 * with the gradients below, printed by PyTorch 1.13 (python3-torch, Debian 12). */
BL_TEST(test_adamw_matches_pytorch)
{
    float p[4] = {0.5f, -1.0f, 2.0f, 0.0f}, m[4] = {0}, v[4] = {0}, g[4];
    unsigned char decay[4] = {1, 1, 1, 1};
    const float grads[3][4] = {{0.1f, -0.2f, 0.3f, 0.0f}, {1.0f, 1.0f, -1.0f, 0.5f}, {-0.5f, 0.25f, 0.0f, 2.0f}};
    const float want[3][4] = {{0.395000011f, -0.889999986f, 1.88f, 0.0f},
                              {0.310341239f, -0.940935433f, 1.91323316f, -0.0744136795f},
                              {0.279853016f, -0.991664827f, 1.93432271f, -0.149589956f}};
    bl_adamw o;
    bl_adamw_defaults(&o);
    o.lr = 0.1f;
    o.weight_decay = 0.1f;
    for (int s = 0; s < 3; s++) {
        memcpy(g, grads[s], sizeof g);
        bl_adamw_step(&o, p, g, m, v, decay, 4);
        for (int i = 0; i < 4; i++) CHECK_CLOSE(p[i], want[s][i], 2e-6);
    }
}

BL_TEST(test_nan_gradient_keeps_weights)
{
    float p[2] = {1, 2}, m[2] = {0}, v[2] = {0}, g[2] = {NAN, 1};
    bl_adamw o;
    bl_adamw_defaults(&o);
    double n = bl_adamw_step(&o, p, g, m, v, NULL, 2);
    CHECK(isnan(n), "norm reported");
    CHECK(p[0] == 1 && p[1] == 2 && o.step == 0, "weights untouched");
}

BL_TEST(test_schedule)
{
    bl_adamw o;
    bl_adamw_defaults(&o);
    o.lr = 1e-3f; o.warmup = 10; o.cosine = 1; o.total = 110; o.min_lr_ratio = 0.1f;
    o.step = 0;  CHECK_CLOSE(bl_adamw_lr(&o), 1e-4, 1e-8);   /* step 1 of 10 warmup */
    o.step = 9;  CHECK_CLOSE(bl_adamw_lr(&o), 1e-3, 1e-8);   /* end of warmup */
    o.step = 59; CHECK_CLOSE(bl_adamw_lr(&o), 5.5e-4, 1e-8); /* half way: min + (max-min)/2 */
    o.step = 109; CHECK_CLOSE(bl_adamw_lr(&o), 1e-4, 1e-8);  /* floor */
}

BL_TEST(test_clip)
{
    /* grad (3, 4) has norm 5; clip 1 -> grad (0.6, 0.8): Adam's first step moves by lr*sign */
    float p[2] = {0, 0}, m[2] = {0}, v[2] = {0}, g[2] = {3, 4};
    bl_adamw o;
    bl_adamw_defaults(&o);
    o.clip = 1.0f;
    CHECK_CLOSE(bl_adamw_step(&o, p, g, m, v, NULL, 2), 5.0, 1e-6);
    CHECK_CLOSE(m[0], 0.1 * 0.6, 1e-6);
    CHECK_CLOSE(m[1], 0.1 * 0.8, 1e-6);
}

BL_TEST(test_spikes_and_json)
{
    bl_metrics m;
    bl_metrics_init(&m, 1234, "images");
    int spikes = 0;
    for (int i = 0; i < 50; i++) spikes += bl_metrics_step(&m, 1.0f + 0.01f * (i % 3), 10, 1e-3f, 64);
    CHECK(spikes == 0, "no spikes on a flat curve");
    CHECK(bl_metrics_step(&m, 1.6f, 10, 1e-3f, 64) == 1, "1.6 > 1.5 x median 1.01 is a spike");
    CHECK(bl_metrics_step(&m, 1.5f, 10, 1e-3f, 64) == 0, "1.5 is not above 1.5 x 1.01");
    CHECK_CLOSE(bl_metrics_median(&m, 3, 100), 1.01, 1e-6); /* median of 1.00 1.01 1.02 */
    bl_metrics_val(&m, 52, 0.75f);
    CHECK_CLOSE(bl_metrics_ms_per_step(&m), 10.0, 1e-9);
    json_t *j = bl_metrics_to_json(&m);
    CHECK_CLOSE(json_number_value(json_object_get(j, "items_per_s")), 6400.0, 1e-6);
    bl_metrics back;
    bl_metrics_init(&back, 0, "images");
    CHECK(bl_metrics_from_json(&back, j) == 0, "%s", bl_error());
    CHECK(back.steps == 52 && back.nval == 1 && back.nspikes == 1 && back.spikes[0] == 51, "round trip");
    CHECK(back.params == 1234, "params");
    json_object_set_new(j, "loss", json_array());
    CHECK(bl_metrics_from_json(&back, j) == -1, "bad json accepted");
    CHECK_ERR("\"loss\"");
    CHECK(back.steps == 52, "failed load keeps the old records");
    json_decref(j);
    bl_metrics_free(&back);
    bl_metrics_free(&m);
}

/* metrics.json as PyTorch users read it (json.load): counts (params, steps, items, the step of
 * each val point and of each spike) are JSON integers, measurements (losses, ms, lr, rates,
 * seconds) real numbers even when they happen to be whole. */
BL_TEST(test_metrics_json_types)
{
    bl_metrics m;
    bl_metrics_init(&m, 1152176, "images");
    for (int i = 0; i < 30; i++) bl_metrics_step(&m, i == 20 ? 4.0f : 1.0f, 10, 1e-3f, 64);
    bl_metrics_val(&m, 0, 2.0f);
    bl_metrics_val(&m, 30, 1.0f);
    char path[64];
    snprintf(path, sizeof path, "/tmp/bl-metrics-%d.json", (int)getpid());
    CHECK(bl_metrics_write(&m, path) == 0, "%s", bl_error());
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    remove(path);
    CHECK(j != NULL, "metrics.json: %s", e.text);
    if (!j) return;
    const char *ints[] = {"params", "steps", "items"};
    for (int i = 0; i < 3; i++)
        CHECK(json_is_integer(json_object_get(j, ints[i])), "\"%s\" is not a JSON integer", ints[i]);
    CHECK(json_integer_value(json_object_get(j, "items")) == 30 * 64, "items %lld",
          (long long)json_integer_value(json_object_get(j, "items")));
    CHECK(json_integer_value(json_object_get(j, "params")) == 1152176, "params");
    const char *reals[] = {"ms_per_step", "it_per_s", "items_per_s", "wall_s"};
    for (int i = 0; i < 4; i++)
        CHECK(json_is_real(json_object_get(j, reals[i])), "\"%s\" is not a real number", reals[i]);
    json_t *loss = json_object_get(j, "loss");
    CHECK(json_array_size(loss) == 30 && json_is_real(json_array_get(loss, 0)), "loss 1.0 is not a real number");
    json_t *val = json_object_get(j, "val");
    CHECK(json_array_size(val) == 2, "%zu val points", json_array_size(val));
    for (size_t i = 0; i < json_array_size(val); i++) {
        json_t *p = json_array_get(val, i);
        CHECK(json_is_integer(json_array_get(p, 0)) && json_is_real(json_array_get(p, 1)),
              "val point %zu is not [integer step, real loss]", i);
    }
    json_t *sp = json_object_get(j, "spikes");
    CHECK(json_array_size(sp) == 1 && json_is_integer(json_array_get(sp, 0)) &&
          json_integer_value(json_array_get(sp, 0)) == 21, "spikes are not [21]");
    /* and it reads back, as do files that stored the counts as reals (older versions) */
    bl_metrics back;
    bl_metrics_init(&back, 0, "images");
    json_object_set_new(j, "items", json_real(1920.0));
    json_array_set_new(json_array_get(val, 1), 0, json_real(30.0));
    json_array_set_new(sp, 0, json_real(21.0));
    CHECK(bl_metrics_from_json(&back, j) == 0, "%s", bl_error());
    CHECK(back.items == 1920 && back.nval == 2 && back.val_step[1] == 30 && back.spikes[0] == 21,
          "read back: items %g, val step %d, spike %d", (double)back.items, back.nval == 2 ? back.val_step[1] : -1,
          back.nspikes ? back.spikes[0] : -1);
    bl_metrics_free(&back);
    json_decref(j);
    bl_metrics_free(&m);
}

int main(void)
{
    RUN(test_adamw_matches_pytorch);
    RUN(test_nan_gradient_keeps_weights);
    RUN(test_schedule);
    RUN(test_clip);
    RUN(test_spikes_and_json);
    RUN(test_metrics_json_types);
    return bl_test_done();
}

/* beta2 per kind has one home, the config's switch table: nanoGPT's shakespeare-char 0.99 for
 * TinyGPT, PyTorch's default 0.999 for TinyDiT (DESIGN.md section 1). */
BL_TEST(test_adamw_beta2_per_kind)
{
    bl_adamw o;
    bl_config g = bl_config_default(BL_MODEL_GPT), d = bl_config_default(BL_MODEL_DIT);
    bl_adamw_defaults(&o);
    CHECK_CLOSE(o.beta2, 0.999, 1e-7);
    bl_adamw_from_config(&o, &g);
    CHECK_CLOSE(o.beta2, 0.99, 1e-7);
    bl_adamw_from_config(&o, &d);
    CHECK_CLOSE(o.beta2, 0.999, 1e-7);
}
