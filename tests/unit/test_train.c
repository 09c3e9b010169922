/* test_train.c - AdamW against torch.optim.AdamW, the lr schedule, clipping, metrics and spikes. */
#include "core/error.h"
#include "train/metrics.h"
#include "train/optim.h"
#include "../check.h"

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
    bl_adamw_defaults(&o, 0);
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
    bl_adamw_defaults(&o, 1);
    double n = bl_adamw_step(&o, p, g, m, v, NULL, 2);
    CHECK(isnan(n), "norm reported");
    CHECK(p[0] == 1 && p[1] == 2 && o.step == 0, "weights untouched");
}

BL_TEST(test_schedule)
{
    bl_adamw o;
    bl_adamw_defaults(&o, 1);
    CHECK_CLOSE(o.beta2, 0.99, 1e-7);
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
    bl_adamw_defaults(&o, 0);
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

int main(void)
{
    RUN(test_adamw_matches_pytorch);
    RUN(test_nan_gradient_keeps_weights);
    RUN(test_schedule);
    RUN(test_clip);
    RUN(test_spikes_and_json);
    return bl_test_done();
}
