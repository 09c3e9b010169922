/* test_gpt.c - TinyGPT parameter counts (against PyTorch), loss, gradients, overfitting, the KV
 * cache against full recompute, greedy decoding, positions past the context, per-position loss. */
#include "core/error.h"
#include "core/rng.h"
#include "models/tinygpt.h"
#include "model_test.h"
#include "../check.h"

/* Printed by tests/golden/counts.py (PyTorch modules, nanoGPT style, tied lm_head). */
BL_TEST(test_counts_vs_pytorch)
{
    static const struct { const char *name; const char *k[5]; const char *v[5]; int n; size_t count; } v[] = {
        {"v1_default", {0}, {0}, 0, 812288},
        {"v2_rmsnorm_rope", {"norm", "pos"}, {"rmsnorm", "rope"}, 2, 795904},
        {"v3_swiglu_qknorm_kv2", {"mlp", "qk_norm", "kv_heads"}, {"swiglu", "on", "2"}, 3, 746496},
        {"v4_swiglu_multiple_of_32", {"mlp", "multiple_of"}, {"swiglu", "32"}, 2, 828672},
        {"v5_shakespeare", {"dim", "depth", "heads", "context"}, {"384", "6", "6", "256"}, 4, 10745088},
        {"v6_all_switches_kv1", {"norm", "pos", "mlp", "qk_norm", "kv_heads"},
         {"rmsnorm", "rope", "swiglu", "on", "1"}, 5, 697344},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        bl_config c = bl_config_default(BL_MODEL_GPT);
        CHECK(bl_config_set_many(&c, v[i].n, v[i].k, v[i].v) == 0, "%s: %s", v[i].name, bl_error());
        bl_model *m = bl_model_new(&c);
        CHECK(m && bl_model_param_count(m) == v[i].count, "%s: %zu, PyTorch %zu", v[i].name,
              m ? bl_model_param_count(m) : 0, v[i].count);
        bl_model_free(m);
    }
}

/* Breakdown of the default, by hand: wte 65*128 = 8,320; wpe 128*128 = 16,384;
 * block: ln_1 128 + c_attn 384*128 = 49,152 + c_proj 16,384 + ln_2 128 + c_fc 65,536
 * + c_proj 65,536 = 196,864; ln_f 128. Names of counts.py's named_parameters for v3. */
BL_TEST(test_breakdown_and_names)
{
    bl_config c = bl_config_default(BL_MODEL_GPT);
    bl_model *m = bl_model_new(&c);
    bl_param_group *g;
    int n = bl_params_groups(m->params, 2, &g);
    CHECK(n == 7, "%d groups", n);
    static const char *names[] = {"transformer.wte", "transformer.wpe", "transformer.h.0", "transformer.h.1",
                                  "transformer.h.2", "transformer.h.3", "transformer.ln_f"};
    static const size_t counts[] = {8320, 16384, 196864, 196864, 196864, 196864, 128};
    for (int i = 0; i < n && i < 7; i++)
        CHECK(strcmp(g[i].prefix, names[i]) == 0 && g[i].count == counts[i], "%s %zu", g[i].prefix, g[i].count);
    free(g);
    bl_model_free(m);
    const char *k[] = {"mlp", "qk_norm", "kv_heads"}, *v[] = {"swiglu", "on", "2"};
    bl_config_set_many(&c, 3, k, v);
    m = bl_model_new(&c);
    static const struct { const char *name; int d0, d1; } want[] = {
        {"transformer.h.0.ln_1.weight", 128, 0}, {"transformer.h.0.attn.c_attn.weight", 256, 128},
        {"transformer.h.0.attn.q_norm.weight", 32, 0}, {"transformer.h.0.attn.k_norm.weight", 32, 0},
        {"transformer.h.0.attn.c_proj.weight", 128, 128}, {"transformer.h.0.ln_2.weight", 128, 0},
        {"transformer.h.0.mlp.w1.weight", 341, 128}, {"transformer.h.0.mlp.w2.weight", 341, 128},
        {"transformer.h.0.mlp.w3.weight", 128, 341}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const bl_tensor *t = bl_params_find(m->params, want[i].name);
        CHECK(t && t->shape[0] == want[i].d0 && (want[i].d1 == 0 ? t->ndim == 1 : t->shape[1] == want[i].d1),
              "%s", want[i].name);
    }
    CHECK(bl_params_find(m->params, "transformer.wpe.weight") != NULL, "learned positions");
    CHECK(bl_params_find(m->params, "lm_head.weight") == NULL, "lm_head is tied to wte");
    bl_model_free(m);
}

typedef struct { int *tok; int B, T; } windows;

static windows make_windows(int B, int T, int V, uint64_t seed)
{
    windows w = {malloc((size_t)B * (T + 1) * sizeof(int)), B, T};
    bl_rng r;
    bl_rng_named(&r, seed, "test-windows");
    /* a learnable sequence: mostly "next = (prev * 7 + 3) mod V", some noise */
    for (int b = 0; b < B; b++) {
        int x = (int)bl_rng_below(&r, (uint32_t)V);
        for (int t = 0; t <= T; t++) {
            w.tok[b * (T + 1) + t] = x;
            x = bl_rng_below(&r, 10) == 0 ? (int)bl_rng_below(&r, (uint32_t)V) : (x * 7 + 3) % V;
        }
    }
    return w;
}

static bl_tensor *loss_fn(bl_model *m, int record, void *ctx)
{
    windows *w = ctx;
    return bl_gpt_loss(m, w->tok, w->B, w->T, record);
}

static bl_model *gpt_with(int n, const char *const *k, const char *const *v)
{
    bl_config c = bl_config_default(BL_MODEL_GPT);
    if (bl_config_set_many(&c, n, k, v) < 0) return NULL;
    return bl_model_new(&c);
}

static bl_model *tiny(int n, const char *const *k, const char *const *v)
{
    bl_config c = bl_config_default(BL_MODEL_GPT);
    const char *k0[] = {"dim", "depth", "heads", "context", "vocab"}, *v0[] = {"16", "2", "2", "8", "11"};
    if (bl_config_set_many(&c, 5, k0, v0) < 0 || bl_config_set_many(&c, n, k, v) < 0) return NULL;
    return bl_model_new(&c);
}

/* At init the logits are small (wte ~ N(0, 0.02)), so the loss is close to ln(vocab). */
BL_TEST(test_initial_loss)
{
    bl_model *m = gpt_with(0, NULL, NULL);
    windows w = make_windows(4, 64, 65, 1);
    bl_tensor *L = bl_gpt_loss(m, w.tok, w.B, w.T, 0);
    CHECK(L && fabs(L->data[0] - log(65.0)) < 0.1, "loss %g, ln 65 = %g", L ? L->data[0] : NAN, log(65.0));
    bl_tensor *lg = bl_gpt_forward(m, w.tok, 1, 16, 0);
    CHECK(lg && lg->ndim == 3 && lg->shape[1] == 16 && lg->shape[2] == 65, "logits [B, T, V]");
    CHECK(m->attn[0] && m->attn[0]->data[1] == 0.0f && m->attn[0]->data[0] == 1.0f, "causal: row 0 sees only key 0");
    free(w.tok);
    bl_model_free(m);
}

static void fd_variant(const char *what, int n, const char *const *k, const char *const *v)
{
    bl_model *m = tiny(n, k, v);
    CHECK(m != NULL, "%s: %s", what, bl_error());
    if (!m) return;
    mt_scramble(m, 5, 1.5f);
    windows w = make_windows(2, 8, 11, 3);
    printf("# %s\n", what);
    double err = mt_fd_check(m, loss_fn, &w, 3, 1e-2f, 1e-2);
    CHECK(err < 2e-2, "%s: finite differences disagree with backward (%g)", what, err);
    free(w.tok);
    bl_model_free(m);
}

BL_TEST(test_gradients_fd)
{
    fd_variant("v1 layernorm learned", 0, NULL, NULL);
    const char *k2[] = {"norm", "pos"}, *v2[] = {"rmsnorm", "rope"};
    fd_variant("v2 rmsnorm rope", 2, k2, v2);
    const char *k3[] = {"mlp", "qk_norm", "kv_heads", "pos"}, *v3[] = {"swiglu", "on", "1", "rope"};
    fd_variant("swiglu qk_norm kv_heads 1 rope", 4, k3, v3);
}

static void overfit(const char *what, int n, const char *const *k, const char *const *v)
{
    const char *k0[] = {"dim", "depth", "context"}, *v0[] = {"64", "2", "32"};
    bl_config c = bl_config_default(BL_MODEL_GPT);
    bl_config_set_many(&c, 3, k0, v0);
    if (bl_config_set_many(&c, n, k, v) < 0) { CHECK(0, "%s", bl_error()); return; }
    bl_model *m = bl_model_new(&c);
    windows w = make_windows(4, 32, 65, 7);
    double l0 = 0, l1 = 0;
    CHECK(mt_overfit(m, loss_fn, &w, 40, 1e-2f, &l0, &l1) == 0, "%s", bl_error());
    printf("# %s: loss %.4f -> %.4f\n", what, l0, l1);
    CHECK(l1 < 0.4 * l0, "%s: loss %g -> %g did not fall clearly", what, l0, l1);
    free(w.tok);
    bl_model_free(m);
}

BL_TEST(test_overfit_one_batch)
{
    overfit("v1", 0, NULL, NULL);
    const char *k[] = {"norm", "pos", "mlp", "qk_norm", "kv_heads"}, *v[] = {"rmsnorm", "rope", "swiglu", "on", "2"};
    overfit("all switches", 5, k, v);
}

/* Generation with the KV cache gives the tokens of recomputing the whole window. */
static void cache_equals_recompute(const char *what, bl_model *m, float temp, int top_k, int n_new)
{
    int prompt[5] = {3, 1, 4, 1, 5}, a[400], b[400];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = n_new;
    o.temperature = temp;
    o.top_k = top_k;
    o.seed = 9;
    o.use_cache = 1;
    int na = bl_gpt_generate(m, prompt, 5, &o, a);
    o.use_cache = 0;
    int nb = bl_gpt_generate(m, prompt, 5, &o, b);
    CHECK(na == 5 + n_new && nb == na, "%s: %s", what, bl_error());
    int same = na == nb, distinct = 0;
    for (int i = 0; same && i < na; i++) same = a[i] == b[i];
    for (int i = 6; i < na; i++) distinct += a[i] != a[i - 1];
    CHECK(same, "%s: KV cache and recompute differ", what);
    CHECK(distinct > n_new / 10, "%s: degenerate output (%d changes)", what, distinct);
}

BL_TEST(test_kv_cache)
{
    bl_model *m = gpt_with(0, NULL, NULL);
    mt_scramble(m, 1, 3.0f);
    cache_equals_recompute("v1 greedy", m, 0.0f, 0, 60);
    cache_equals_recompute("v1 sampled", m, 0.8f, 10, 60);
    bl_model_free(m);
    const char *k[] = {"norm", "pos", "context"}, *v[] = {"rmsnorm", "rope", "32"};
    m = gpt_with(3, k, v);
    mt_scramble(m, 2, 3.0f);
    cache_equals_recompute("v2 rope past the context", m, 1.0f, 0, 100);
    bl_model_free(m);
    const char *k3[] = {"mlp", "qk_norm", "kv_heads", "pos"}, *v3[] = {"swiglu", "on", "2", "rope"};
    m = gpt_with(4, k3, v3);
    mt_scramble(m, 3, 3.0f);
    cache_equals_recompute("gqa qk_norm swiglu", m, 0.0f, 0, 50);
    bl_model_free(m);
}

/* temperature 0: each new token is the argmax of the last logits, checked step by step with an
 * independent full forward. */
BL_TEST(test_greedy)
{
    bl_model *m = gpt_with(0, NULL, NULL);
    mt_scramble(m, 8, 3.0f);
    int prompt[3] = {10, 20, 30}, out[23];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = 20;
    o.temperature = 0.0f;
    o.top_k = 5;
    CHECK(bl_gpt_generate(m, prompt, 3, &o, out) == 23, "%s", bl_error());
    int ok = 1;
    for (int len = 3; len < 23 && ok; len++) {
        bl_tensor *lg = bl_gpt_forward(m, out, 1, len, 0);
        const float *l = lg->data + (size_t)(len - 1) * 65;
        int best = 0;
        for (int v = 1; v < 65; v++)
            if (l[v] > l[best]) best = v;
        ok = out[len] == best;
        CHECK(ok, "token %d is %d, argmax %d", len, out[len], best);
    }
    /* seeds do not matter when greedy; they do when sampling */
    int out2[23];
    o.seed = 123;
    bl_gpt_generate(m, prompt, 3, &o, out2);
    CHECK(memcmp(out, out2, sizeof out) == 0, "greedy ignores the seed");
    o.temperature = 1.0f;
    o.top_k = 0;
    bl_gpt_generate(m, prompt, 3, &o, out2);
    o.seed = 124;
    bl_gpt_generate(m, prompt, 3, &o, out);
    CHECK(memcmp(out, out2, sizeof out) != 0, "sampling depends on the seed");
    /* top_k = 1 is greedy too */
    o.top_k = 1;
    bl_gpt_generate(m, prompt, 3, &o, out2);
    o.temperature = 0.0f;
    bl_gpt_generate(m, prompt, 3, &o, out);
    CHECK(memcmp(out, out2, sizeof out) == 0, "top_k 1 equals greedy");
    bl_model_free(m);
}

BL_TEST(test_context_limits)
{
    const char *k[] = {"context"}, *v[] = {"16"};
    bl_model *m = gpt_with(1, k, v);
    int prompt[4] = {1, 2, 3, 4}, out[64];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = 13; /* positions 0..15: fits exactly */
    CHECK(bl_gpt_generate(m, prompt, 4, &o, out) == 17, "%s", bl_error());
    o.max_new_tokens = 14;
    CHECK(bl_gpt_generate(m, prompt, 4, &o, out) < 0, "past the context with learned positions");
    CHECK_ERR("use pos=rope");
    CHECK_ERR("pos=learned has positions for 16 tokens");
    o.max_new_tokens = 40;
    o.sliding_window = 1;
    CHECK(bl_gpt_generate(m, prompt, 4, &o, out) == 44, "sliding window: %s", bl_error());
    int ids[40] = {0};
    CHECK(bl_gpt_forward(m, ids, 1, 17, 0) == NULL, "forward past the context");
    CHECK_ERR("use pos=rope");
    float loss[40];
    CHECK(bl_gpt_position_loss(m, ids, 1, 20, loss) < 0, "per-position loss past the context");
    CHECK_ERR("pos=rope");
    bl_model_free(m);
    const char *k2[] = {"context", "pos"}, *v2[] = {"16", "rope"};
    m = gpt_with(2, k2, v2);
    o.sliding_window = 0;
    o.max_new_tokens = 40;
    CHECK(bl_gpt_generate(m, prompt, 4, &o, out) == 44, "rope runs past the context: %s", bl_error());
    bl_model_free(m);
}

/* Per-position validation loss; its mean equals the ordinary loss on the same windows. */
BL_TEST(test_position_loss)
{
    const char *k[] = {"context", "pos"}, *v[] = {"16", "rope"};
    bl_model *m = gpt_with(2, k, v);
    mt_scramble(m, 6, 2.0f);
    windows w = make_windows(3, 64, 65, 4);   /* 4x the context */
    float loss[64];
    CHECK(bl_gpt_position_loss(m, w.tok, 3, 64, loss) == 0, "%s", bl_error());
    double mean = 0;
    int finite = 1;
    for (int p = 0; p < 64; p++) { mean += loss[p]; finite &= isfinite(loss[p]) && loss[p] > 0; }
    bl_tensor *L = bl_gpt_loss(m, w.tok, 3, 64, 0);
    CHECK(finite && L && fabs(mean / 64 - L->data[0]) < 1e-4, "mean %g vs loss %g", mean / 64, L ? L->data[0] : NAN);
    /* position 0 by hand: -log softmax(logits[0])[target] averaged over the windows */
    double p0 = 0;
    for (int b = 0; b < 3; b++) {
        bl_tensor *lg = bl_gpt_forward(m, w.tok + b * 65, 1, 1, 0);
        double mx = -1e30, se = 0;
        for (int i = 0; i < 65; i++) mx = fmax(mx, lg->data[i]);
        for (int i = 0; i < 65; i++) se += exp(lg->data[i] - mx);
        p0 += log(se) + mx - lg->data[w.tok[b * 65 + 1]];
    }
    CHECK_CLOSE(loss[0], p0 / 3, 1e-4);
    free(w.tok);
    bl_model_free(m);
}

BL_TEST(test_shakespeare_config)
{
    const char *k[] = {"dim", "depth", "heads", "context"}, *v[] = {"384", "6", "6", "256"};
    bl_model *m = gpt_with(4, k, v);
    CHECK(m && bl_config_head_dim(&m->cfg) == 64, "%s", bl_error());
    windows w = make_windows(1, 32, 65, 2);
    bl_tensor *L = m ? bl_gpt_loss(m, w.tok, 1, 32, 1) : NULL;
    CHECK(L && isfinite(L->data[0]) && bl_graph_backward(m->graph, L) == 0, "%s", bl_error());
    free(w.tok);
    bl_model_free(m);
}

static int calls;
static int stop_after_3(void) { return ++calls > 3; }

BL_TEST(test_interrupt)
{
    bl_model *m = gpt_with(0, NULL, NULL);
    m->interrupted = stop_after_3;
    calls = 0;
    int prompt[2] = {1, 2}, out[12];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = 10;
    CHECK(bl_gpt_generate(m, prompt, 2, &o, out) == 5, "stopped after 3 new tokens (calls %d)", calls);
    bl_model_set(m, "norm", "rmsnorm", NULL);
    CHECK(m->interrupted == stop_after_3, "the hook survives a rebuild");
    bl_model_free(m);
}

BL_TEST(test_bad_input)
{
    bl_model *m = gpt_with(0, NULL, NULL);
    int ids[4] = {1, 70, 2, 3}, out[16];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = 4;
    CHECK(bl_gpt_forward(m, ids, 1, 4, 0) == NULL, "token out of vocabulary");
    CHECK_ERR("gpt: token 70 at index 1 is outside the vocabulary (0..64)");
    CHECK(bl_gpt_generate(m, ids, 4, &o, out) < 0, "prompt out of vocabulary");
    CHECK_ERR("generate: prompt: token 70 at index 1 is outside the vocabulary");
    ids[1] = 5;
    CHECK(bl_gpt_generate(m, ids, 0, &o, out) < 0, "empty prompt");
    CHECK_ERR("generate: the prompt is empty");
    o.temperature = -1.0f;
    CHECK(bl_gpt_generate(m, ids, 4, &o, out) < 0, "negative temperature");
    CHECK_ERR("temperature must be >= 0");
    o.temperature = NAN;
    CHECK(bl_gpt_generate(m, ids, 4, &o, out) < 0, "NaN temperature");
    o.temperature = 1.0f;
    o.top_k = -2;
    CHECK(bl_gpt_generate(m, ids, 4, &o, out) < 0, "negative top_k");
    CHECK_ERR("top_k must be >= 0");
    int tok[6] = {1, 2, 3, -1, 4, 5};
    CHECK(bl_gpt_loss(m, tok, 1, 5, 0) == NULL, "an input token of -1");
    CHECK_ERR("input token -1");
    CHECK(bl_gpt_loss(m, tok, 0, 5, 0) == NULL, "B = 0");
    CHECK_ERR("need at least one window");
    int tg[3] = {1, 2, -1};   /* a target of -1 is ignored */
    CHECK(bl_gpt_loss(m, tg, 1, 2, 0) != NULL, "ignored target: %s", bl_error());
    bl_model_free(m);
}

int main(void)
{
    RUN(test_counts_vs_pytorch);
    RUN(test_breakdown_and_names);
    RUN(test_initial_loss);
    RUN(test_gradients_fd);
    RUN(test_overfit_one_batch);
    RUN(test_kv_cache);
    RUN(test_greedy);
    RUN(test_context_limits);
    RUN(test_position_loss);
    RUN(test_shakespeare_config);
    RUN(test_interrupt);
    RUN(test_bad_input);
    return bl_test_done();
}
