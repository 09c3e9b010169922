/* test_dit.c - TinyDiT forward, flow-matching loss, gradients (finite differences through the
 * whole model), overfitting one batch, the Euler sampler, bad input. */
#include "core/error.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include "model_test.h"
#include "../check.h"

typedef struct { bl_tensor *x0, *e; float t[8]; } batch;

static batch make_batch(const bl_config *c, int B, uint64_t seed)
{
    batch b;
    b.x0 = bl_tensor_new4(B, c->channels, c->image_size, c->image_size);
    b.e = bl_tensor_new4(B, c->channels, c->image_size, c->image_size);
    bl_rng r;
    bl_rng_named(&r, seed, "test-batch");
    /* smooth "images" in [-1, 1]: a few sinusoids per image */
    for (size_t i = 0; i < b.x0->numel; i++) b.x0->data[i] = sinf(0.3f * (float)(i % 97) + (float)(i / 97));
    bl_rng_fill_normal(&r, b.e->data, b.e->numel, 0, 1);
    for (int i = 0; i < B && i < 8; i++) b.t[i] = bl_rng_uniform(&r);
    return b;
}

static void free_batch(batch *b)
{
    bl_tensor_free(b->x0);
    bl_tensor_free(b->e);
}

static bl_tensor *loss_fn(bl_model *m, int record, void *ctx)
{
    batch *b = ctx;
    return bl_dit_loss(m, b->x0, b->e, b->t, record);
}

static bl_model *tiny(const char *const *keys, const char *const *vals, int n)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    const char *k[] = {"dim", "depth", "heads", "image_size", "channels"};
    const char *v[] = {"16", "2", "2", "8", "2"};
    if (bl_config_set_many(&c, 5, k, v) < 0 || bl_config_set_many(&c, n, keys, vals) < 0) return NULL;
    return bl_model_new(&c);
}

BL_TEST(test_forward_shapes)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    bl_model *m = bl_model_new(&c);
    batch b = make_batch(&c, 2, 1);
    mt_scramble(m, 3, 1.0f);
    bl_tensor *v = bl_dit_forward(m, b.x0, b.t, 0);
    CHECK(v && v->ndim == 4 && v->shape[0] == 2 && v->shape[1] == 3 && v->shape[3] == 32, "%s", bl_error());
    const bl_tensor *a = m->attn[3];
    CHECK(a && a->shape[0] == 2 && a->shape[1] == 4 && a->shape[2] == 64 && a->shape[3] == 64, "attn map [B,H,T,T]");
    if (a) {
        double s = 0;
        for (int j = 0; j < 64; j++) s += a->data[5 * 64 + j];
        CHECK_CLOSE(s, 1.0, 1e-5);
    }
    CHECK(m->tap_in[0] && m->tap_norm[2] && m->tap_q[1] && m->tap_k[1] && m->tap_q[1]->shape[3] == 32, "taps");
    /* the tape is only recorded when asked */
    CHECK(bl_graph_node_count(m->graph) == 0, "eval forward records nothing");
    CHECK(bl_dit_loss(m, b.x0, b.e, b.t, 1) != NULL && bl_graph_node_count(m->graph) > 40, "training forward records");
    free_batch(&b);
    bl_model_free(m);
}

/* adaLN-Zero: the final layer starts at 0, so v = 0 and the loss is mean((e - x0)^2), computed
 * here independently in double. */
BL_TEST(test_initial_loss)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    bl_model *m = bl_model_new(&c);
    batch b = make_batch(&c, 3, 2);
    bl_tensor *L = bl_dit_loss(m, b.x0, b.e, b.t, 0);
    double want = 0;
    for (size_t i = 0; i < b.x0->numel; i++) {
        double d = (double)b.e->data[i] - b.x0->data[i];
        want += d * d;
    }
    want /= (double)b.x0->numel;
    CHECK(L && fabs(L->data[0] - want) < 1e-5 * want, "loss %g, expected %g", L ? L->data[0] : NAN, want);
    free_batch(&b);
    bl_model_free(m);
}

static void fd_variant(const char *what, const char *const *k, const char *const *v, int n)
{
    bl_model *m = tiny(k, v, n);
    CHECK(m != NULL, "%s: %s", what, bl_error());
    if (!m) return;
    mt_scramble(m, 11, 1.5f);
    batch b = make_batch(&m->cfg, 2, 5);
    printf("# %s\n", what);
    double err = mt_fd_check(m, loss_fn, &b, 3, 1e-2f, 1e-2);
    CHECK(err < 2e-2, "%s: finite differences disagree with backward (%g)", what, err);
    free_batch(&b);
    bl_model_free(m);
}

BL_TEST(test_gradients_fd)
{
    fd_variant("baseline", NULL, NULL, 0);
    const char *k[] = {"norm", "pos", "mlp", "qk_norm", "kv_heads"};
    const char *v[] = {"rmsnorm", "rope2d", "swiglu", "on", "1"};
    fd_variant("all four + kv_heads 1", k, v, 5);
}

/* A few dozen Adam steps on one fixed batch lower the flow-matching loss clearly. */
static void overfit(const char *what, const char *const *k, const char *const *v, int n)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    const char *k0[] = {"dim", "depth", "image_size"}, *v0[] = {"64", "2", "16"};
    bl_config_set_many(&c, 3, k0, v0);
    if (bl_config_set_many(&c, n, k, v) < 0) { CHECK(0, "%s", bl_error()); return; }
    bl_model *m = bl_model_new(&c);
    batch b = make_batch(&c, 4, 9);
    double l0 = 0, l1 = 0;
    CHECK(mt_overfit(m, loss_fn, &b, 60, 3e-3f, &l0, &l1) == 0, "%s", bl_error());
    printf("# %s: loss %.4f -> %.4f\n", what, l0, l1);
    CHECK(l1 < 0.35 * l0, "%s: loss %g -> %g did not fall clearly", what, l0, l1);
    free_batch(&b);
    bl_model_free(m);
}

BL_TEST(test_overfit_one_batch)
{
    overfit("baseline", NULL, NULL, 0);
    const char *k[] = {"norm", "pos", "mlp", "qk_norm"}, *v[] = {"rmsnorm", "rope2d", "swiglu", "on"};
    overfit("all four", k, v, 4);
}

/* After the first step, later steps of the same shape allocate no new arena memory. */
BL_TEST(test_no_alloc_after_first_step)
{
    bl_model *m = tiny(NULL, NULL, 0);
    batch b = make_batch(&m->cfg, 2, 1);
    size_t after1 = 0;
    for (int s = 0; s < 4; s++) {
        bl_params_zero_grad(m->params);
        bl_tensor *L = bl_dit_loss(m, b.x0, b.e, b.t, 1);
        bl_graph_backward(m->graph, L);
        if (s == 1) after1 = bl_graph_arena_mallocs(m->graph);
    }
    CHECK(bl_graph_arena_mallocs(m->graph) == after1, "arena grew: %zu -> %zu mallocs", after1,
          bl_graph_arena_mallocs(m->graph));
    free_batch(&b);
    bl_model_free(m);
}

BL_TEST(test_sampler)
{
    bl_model *m = tiny(NULL, NULL, 0);
    const bl_config *c = &m->cfg;
    /* at init v = 0 (adaLN-Zero), so the sample is the clamped starting noise */
    bl_tensor *s = bl_dit_sample(m, 3, 5, 42);
    CHECK(s && s->shape[0] == 3 && s->shape[1] == 2 && s->shape[2] == 8, "%s", bl_error());
    bl_rng r;
    bl_rng_named(&r, 42, "sample");
    int same = 1;
    for (size_t i = 0; s && i < s->numel; i++) same &= s->data[i] == fminf(1, fmaxf(-1, bl_rng_normal(&r)));
    CHECK(same, "zero velocity keeps the clamped noise");
    bl_tensor_free(s);
    /* a trained-looking model: 2 Euler steps by hand with the forward pass */
    mt_scramble(m, 4, 1.0f);
    s = bl_dit_sample(m, 2, 2, 7);
    bl_tensor *x = bl_tensor_new4(2, c->channels, c->image_size, c->image_size);
    bl_rng_named(&r, 7, "sample");
    bl_rng_fill_normal(&r, x->data, x->numel, 0, 1);
    float t1[2] = {1, 1}, th[2] = {0.5f, 0.5f};
    bl_tensor *v = bl_dit_forward(m, x, t1, 0);
    for (size_t i = 0; i < x->numel; i++) x->data[i] -= 0.5f * v->data[i];
    v = bl_dit_forward(m, x, th, 0);
    double worst = 0;
    int inside = 1;
    for (size_t i = 0; i < x->numel; i++) {
        float want = fminf(1, fmaxf(-1, x->data[i] - 0.5f * v->data[i]));
        worst = fmax(worst, fabs(want - s->data[i]));
        inside &= s->data[i] >= -1 && s->data[i] <= 1;
    }
    CHECK(worst < 1e-5 && inside, "Euler by hand differs by %g", worst);
    /* chunks of 64: image 0 of a 70-image run is image 0 of a 2-image run */
    bl_tensor *big = bl_dit_sample(m, 70, 2, 7);
    worst = 0;
    for (size_t i = 0; big && i < s->numel / 2; i++) worst = fmax(worst, fabs(big->data[i] - s->data[i]));
    CHECK(big && worst < 1e-4, "batching changed a sample by %g", worst);
    bl_tensor_free(big);
    bl_tensor_free(s);
    bl_tensor_free(x);
    bl_model_free(m);
}

static int calls;
static int stop_after_2(void) { return ++calls > 2; }

BL_TEST(test_interrupt)
{
    bl_model *m = tiny(NULL, NULL, 0);
    m->interrupted = stop_after_2;
    calls = 0;
    CHECK(bl_dit_sample(m, 2, 10, 1) == NULL && calls == 3, "stopped at the third step (calls %d)", calls);
    CHECK_ERR("sample: interrupted");
    bl_model_free(m);
}

BL_TEST(test_grey_28_forward)
{
    const char *k[] = {"channels", "image_size", "pos"}, *v[] = {"1", "28", "rope2d"};
    bl_config c = bl_config_default(BL_MODEL_DIT);
    CHECK(bl_config_set_many(&c, 3, k, v) == 0, "%s", bl_error());
    bl_model *m = bl_model_new(&c);
    batch b = make_batch(&c, 2, 3);
    bl_tensor *L = bl_dit_loss(m, b.x0, b.e, b.t, 1);
    CHECK(L && isfinite(L->data[0]) && bl_graph_backward(m->graph, L) == 0, "%s", bl_error());
    CHECK(m->attn[0] && m->attn[0]->shape[2] == 49, "49 tokens");
    free_batch(&b);
    bl_model_free(m);
}

BL_TEST(test_bad_input)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    bl_model *m = bl_model_new(&c);
    bl_tensor *x = bl_tensor_new4(2, 1, 28, 28), *e = bl_tensor_new4(2, 3, 32, 32), *x0 = bl_tensor_new4(2, 3, 32, 32);
    float t[2] = {0.5f, 0.5f}, tbad[2] = {0.5f, 1.5f};
    CHECK(bl_dit_forward(m, x, t, 0) == NULL, "wrong image size");
    CHECK_ERR("dit: expected images [B, 3, 32, 32], got [2, 1, 28, 28]");
    CHECK(bl_dit_loss(m, x0, x, t, 0) == NULL, "noise shape");
    CHECK_ERR("dit loss: noise [2, 1, 28, 28] does not match x0 [2, 3, 32, 32]");
    CHECK(bl_dit_loss(m, x0, e, tbad, 0) == NULL, "t out of range");
    CHECK_ERR("dit loss: t[1] = 1.5 is outside [0, 1]");
    CHECK(bl_dit_sample(m, 0, 10, 1) == NULL, "n = 0");
    CHECK_ERR("sample: number of images must be 1..65536, got 0");
    CHECK(bl_dit_sample(m, 1, 0, 1) == NULL, "steps = 0");
    CHECK_ERR("sample: steps must be 1..100000, got 0");
    bl_config g = bl_config_default(BL_MODEL_GPT);
    bl_model *gm = bl_model_new(&g);
    CHECK(bl_dit_loss(gm, x0, e, t, 0) == NULL, "a GPT is not a DiT");
    CHECK_ERR("the model is not a TinyDiT");
    int ids[2] = {1, 2};
    CHECK(bl_gpt_forward(m, ids, 1, 2, 0) == NULL, "a DiT is not a GPT");
    CHECK_ERR("the model is not a TinyGPT");
    bl_model_free(gm);
    bl_tensor_free(x);
    bl_tensor_free(e);
    bl_tensor_free(x0);
    bl_model_free(m);
}

int main(void)
{
    RUN(test_forward_shapes);
    RUN(test_initial_loss);
    RUN(test_gradients_fd);
    RUN(test_overfit_one_batch);
    RUN(test_no_alloc_after_first_step);
    RUN(test_sampler);
    RUN(test_interrupt);
    RUN(test_grey_28_forward);
    RUN(test_bad_input);
    return bl_test_done();
}
