/* test_models.c - the config table, the parameter store, TinyDiT's published parameter counts
 * and per-module breakdown, bit-identical shared initial values across switch flips. */
#include "core/error.h"
#include "core/rng.h"
#include "models/config.h"
#include "models/model.h"
#include "models/params.h"
#include "nn/nn.h"
#include "repl/repl.h"
#include "../check.h"
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Same value for every key that applies (struct padding makes memcmp unreliable). */
static int same_config(const bl_config *a, const bl_config *b)
{
    char x[64], y[64];
    if (a->kind != b->kind) return 0;
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        if (!bl_config_key_applies(k, a->kind)) continue;
        bl_config_get(a, k->name, x, sizeof x);
        bl_config_get(b, k->name, y, sizeof y);
        if (strcmp(x, y) != 0) return 0;
    }
    return 1;
}

static bl_model *dit_with(const char *k1, const char *v1, const char *k2, const char *v2)
{
    bl_config c = bl_config_default(BL_MODEL_DIT);
    if (k1 && bl_config_set(&c, k1, v1) < 0) return NULL;
    if (k2 && bl_config_set(&c, k2, v2) < 0) return NULL;
    return bl_model_new(&c);
}

/* DESIGN.md section 1, the published table. */
BL_TEST(test_dit_published_counts)
{
    static const struct { const char *what; const char *keys[4]; const char *vals[4]; int n; size_t count; } v[] = {
        {"baseline", {0}, {0}, 0, 1152176},
        {"+ rmsnorm", {"norm"}, {"rmsnorm"}, 1, 1152176},
        {"+ qk_norm", {"qk_norm"}, {"on"}, 1, 1152432},
        {"+ swiglu", {"mlp"}, {"swiglu"}, 1, 1152344},
        {"+ rope2d", {"pos"}, {"rope2d"}, 1, 1150128},
        {"all four", {"norm", "qk_norm", "mlp", "pos"}, {"rmsnorm", "on", "swiglu", "rope2d"}, 4, 1150552},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        bl_config c = bl_config_default(BL_MODEL_DIT);
        CHECK(bl_config_set_many(&c, v[i].n, v[i].keys, v[i].vals) == 0, "%s: %s", v[i].what, bl_error());
        bl_model *m = bl_model_new(&c);
        CHECK(m != NULL, "%s: %s", v[i].what, bl_error());
        if (!m) continue;
        CHECK(bl_model_param_count(m) == v[i].count, "%s: %zu parameters, published %zu", v[i].what,
              bl_model_param_count(m), v[i].count);
        bl_model_free(m);
    }
}

/* Per-module breakdown of the baseline, by hand (dim 128, C 3, p 4, grid 8, hidden 512):
 *   x_embedder  conv 128*3*4*4 + 128                                   =   6,272
 *   pos_embed   row 8*128 + col 8*128                                  =   2,048
 *   t_embedder  mlp.0 256*128 + 128 = 32,896; mlp.2 128*128 + 128 = 16,512  =  49,408
 *   blocks.i    attn.qkv 128*384 + 384 = 49,536; attn.proj 16,512      -> attn 66,048
 *               mlp.fc1 128*512 + 512 = 66,048; mlp.fc2 512*128 + 128 = 65,664 -> mlp 131,712
 *               adaLN_modulation.1 128*512 + 512                       =  66,048
 *               block total                                            = 263,808
 *   final_layer adaLN_modulation.1 128*256 + 256 = 33,024; linear 128*48 + 48 = 6,192 = 39,216
 *   total 6,272 + 2,048 + 49,408 + 4 * 263,808 + 39,216 = 1,152,176 */
BL_TEST(test_dit_breakdown)
{
    bl_model *m = dit_with(NULL, NULL, NULL, NULL);
    CHECK(m != NULL, "%s", bl_error());
    if (!m) return;
    bl_param_group *g = NULL;
    int n = bl_params_groups(m->params, 1, &g);
    static const char *names[] = {"x_embedder", "pos_embed", "t_embedder", "blocks.0", "blocks.1",
                                  "blocks.2", "blocks.3", "final_layer"};
    static const size_t counts[] = {6272, 2048, 49408, 263808, 263808, 263808, 263808, 39216};
    CHECK(n == 8, "%d groups at depth 1", n);
    for (int i = 0; i < n && i < 8; i++) {
        CHECK(strcmp(g[i].prefix, names[i]) == 0, "group %d is %s, expected %s", i, g[i].prefix, names[i]);
        CHECK(g[i].count == counts[i], "%s: %zu, expected %zu", g[i].prefix, g[i].count, counts[i]);
    }
    free(g);
    n = bl_params_groups(m->params, 2, &g);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(g[i].prefix, "blocks.2.attn") == 0) { seen++; CHECK(g[i].count == 66048, "attn %zu", g[i].count); }
        if (strcmp(g[i].prefix, "blocks.2.mlp") == 0) { seen++; CHECK(g[i].count == 131712, "mlp %zu", g[i].count); }
        if (strcmp(g[i].prefix, "blocks.2.adaLN_modulation.1") == 0) {
            seen++;
            CHECK(g[i].count == 66048 && g[i].ntensors == 2, "adaLN %zu/%d", g[i].count, g[i].ntensors);
        }
        if (strcmp(g[i].prefix, "t_embedder.mlp.0") == 0) { seen++; CHECK(g[i].count == 32896, "t0 %zu", g[i].count); }
    }
    CHECK(seen == 4, "depth-2 groups found: %d of 4", seen);
    free(g);
    CHECK(bl_params_count_prefix(m->params, "blocks.1") == 263808, "prefix count");
    CHECK(bl_params_count_prefix(m->params, "blocks.1.attn.qkv") == 49536, "qkv prefix count");
    CHECK(bl_params_count_prefix(m->params, "blocks.1.att") == 0, "prefix must end at a dot");
    /* names and shapes of DESIGN.md 1 */
    bl_tensor *t = bl_params_find(m->params, "x_embedder.proj.weight");
    CHECK(t && t->ndim == 4 && t->shape[0] == 128 && t->shape[1] == 3 && t->shape[2] == 4, "conv weight shape");
    t = bl_params_find(m->params, "blocks.3.attn.qkv.weight");
    CHECK(t && t->shape[0] == 384 && t->shape[1] == 128, "qkv [3D, D]");
    CHECK(bl_params_find(m->params, "final_layer.linear.bias") != NULL, "final_layer.linear.bias");
    CHECK(bl_params_find(m->params, "blocks.4.attn.qkv.weight") == NULL, "only 4 blocks");
    bl_model_free(m);
}

/* 1x28x28 (Fashion-MNIST): grid 7; conv 128*1*16 + 128 = 2,176; pos 2 * 7 * 128 = 1,792;
 * final linear 128*16 + 16 = 2,064 -> 2,176 + 1,792 + 49,408 + 1,055,232 + 33,024 + 2,064. */
BL_TEST(test_dit_grey_28)
{
    bl_model *m = dit_with("channels", "1", "image_size", "28");
    CHECK(m != NULL, "%s", bl_error());
    if (!m) return;
    CHECK(bl_model_param_count(m) == 1143696, "%zu", bl_model_param_count(m));
    CHECK(bl_config_tokens(&m->cfg) == 49, "49 tokens");
    bl_model_free(m);
    m = dit_with("channels", "1", "image_size", "28");
    bl_config c = m->cfg;
    CHECK(bl_config_set(&c, "pos", "rope2d") == 0, "rope2d on a 7x7 grid: %s", bl_error());
    bl_model_free(m);
}

/* Every parameter two variants share (same name, same shape) starts bit-identical. */
static void check_shared(const char *key, const char *value)
{
    bl_model *a = dit_with("seed", "7", NULL, NULL), *b = dit_with("seed", "7", key, value);
    CHECK(a && b, "%s=%s: %s", key, value, bl_error());
    if (!a || !b) { bl_model_free(a); bl_model_free(b); return; }
    int shared = 0, nonzero = 0;
    for (int i = 0; i < b->params->n; i++) {
        const bl_tensor *tb = &b->params->t[i], *ta = bl_params_find(a->params, tb->name);
        if (!ta || !bl_same_shape(ta, tb)) continue;
        shared++;
        CHECK(memcmp(ta->data, tb->data, ta->numel * sizeof(float)) == 0, "%s=%s changed %s", key, value, tb->name);
        for (size_t j = 0; j < ta->numel; j++)
            if (ta->data[j] != 0.0f && ta->data[j] != 1.0f) { nonzero++; break; }
    }
    CHECK(shared >= 20 && nonzero >= 10, "%s=%s: only %d shared (%d random)", key, value, shared, nonzero);
    bl_model_free(a);
    bl_model_free(b);
}

BL_TEST(test_switch_keeps_shared_init)
{
    check_shared("norm", "rmsnorm");
    check_shared("pos", "rope2d");
    check_shared("mlp", "swiglu");
    check_shared("qk_norm", "on");
    check_shared("kv_heads", "2");
    check_shared("depth", "6");
}

/* The init rules of DESIGN.md 4 / the DiT adaLN-Zero choice, checked by statistics. */
BL_TEST(test_init_rules)
{
    bl_model *m = dit_with(NULL, NULL, "qk_norm", "on");
    if (!m) { CHECK(0, "%s", bl_error()); return; }
    const bl_tensor *w = bl_params_find(m->params, "blocks.1.mlp.fc2.weight");  /* fan_in 512 */
    double bound = 1.0 / sqrt(512.0), s2 = 0, mx = 0;
    for (size_t i = 0; i < w->numel; i++) {
        s2 += (double)w->data[i] * w->data[i];
        if (fabs(w->data[i]) > mx) mx = fabs(w->data[i]);
    }
    CHECK(mx <= bound && mx > 0.99 * bound, "max |w| %g, bound %g", mx, bound);
    CHECK_CLOSE(sqrt(s2 / w->numel), bound / sqrt(3.0), 0.02 * bound);   /* std of U(-a, a) */
    const bl_tensor *pe = bl_params_find(m->params, "pos_embed.row");
    s2 = 0;
    for (size_t i = 0; i < pe->numel; i++) s2 += (double)pe->data[i] * pe->data[i];
    CHECK_CLOSE(sqrt(s2 / pe->numel), 0.02, 0.002);
    static const char *zero[] = {"blocks.0.adaLN_modulation.1.weight", "blocks.0.adaLN_modulation.1.bias",
                                 "final_layer.linear.weight", "final_layer.adaLN_modulation.1.weight",
                                 "blocks.0.attn.qkv.bias", "x_embedder.proj.bias"};
    for (size_t k = 0; k < sizeof zero / sizeof zero[0]; k++) {
        const bl_tensor *t = bl_params_find(m->params, zero[k]);
        int ok = t != NULL;
        for (size_t i = 0; ok && i < t->numel; i++) ok = t->data[i] == 0.0f;
        CHECK(ok, "%s starts at 0", zero[k]);
    }
    const bl_tensor *qn = bl_params_find(m->params, "blocks.2.attn.q_norm.weight");
    CHECK(qn && qn->numel == 32 && qn->data[0] == 1.0f && qn->data[31] == 1.0f, "q_norm weight 1");
    /* a value depends on (seed, name) only: redraw blocks.1.mlp.fc2.weight independently */
    bl_rng r;
    bl_rng_named(&r, 0, "blocks.1.mlp.fc2.weight");
    float first[4];
    bl_rng_fill_uniform(&r, first, 4, (float)-bound, (float)bound);
    CHECK(memcmp(first, w->data, sizeof first) == 0, "values come from bl_rng_named(seed, name)");
    /* another seed gives other values */
    bl_model *o = dit_with("seed", "1", "qk_norm", "on");
    CHECK(o && memcmp(bl_params_find(o->params, "blocks.1.mlp.fc2.weight")->data, w->data, 64) != 0, "seed matters");
    bl_model_free(o);
    bl_model_free(m);
}

BL_TEST(test_config_defaults_and_get)
{
    bl_config d = bl_config_default(BL_MODEL_DIT), g = bl_config_default(BL_MODEL_GPT);
    char buf[64];
    CHECK(bl_config_check(&d) == 0 && bl_config_check(&g) == 0, "defaults valid: %s", bl_error());
    CHECK(d.dim == 128 && d.depth == 4 && d.heads == 4 && d.patch == 4 && d.image_size == 32 && d.channels == 3,
          "DiT defaults");
    CHECK(g.context == 128 && g.vocab == 65 && g.dim == 128, "GPT defaults");
    bl_config_get(&d, "kv_heads", buf, sizeof buf);
    CHECK(strcmp(buf, "4") == 0, "kv_heads auto = heads: %s", buf);
    bl_config_get(&d, "eps", buf, sizeof buf);
    CHECK(strcmp(buf, "1e-06") == 0, "DiT eps %s", buf);
    bl_config_get(&g, "eps", buf, sizeof buf);
    CHECK(strcmp(buf, "1e-05") == 0, "GPT layernorm eps %s", buf);
    CHECK(bl_config_set(&g, "norm", "rmsnorm") == 0, "%s", bl_error());
    bl_config_get(&g, "eps", buf, sizeof buf);
    CHECK(strcmp(buf, "1e-06") == 0, "GPT rmsnorm eps %s", buf);
    bl_config_get(&d, "rope_base", buf, sizeof buf);
    CHECK(strcmp(buf, "100") == 0, "DiT rope_base %s", buf);
    bl_config_get(&g, "rope_base", buf, sizeof buf);
    CHECK(strcmp(buf, "10000") == 0, "GPT rope_base %s", buf);
    bl_config_get(&d, "lr", buf, sizeof buf);
    CHECK(strcmp(buf, "0.0003") == 0, "lr %s", buf);
    bl_config_get(&d, "beta2", buf, sizeof buf);
    CHECK(strcmp(buf, "0.999") == 0, "DiT beta2 %s", buf);
    bl_config_get(&g, "beta2", buf, sizeof buf);
    CHECK(strcmp(buf, "0.99") == 0, "GPT beta2 %s", buf);
    CHECK(bl_config_get(&d, "context", buf, sizeof buf) < 0, "context is not a DiT key");
    CHECK_ERR("context: not a TinyDiT setting");
    /* every key: help, a default for a kind it applies to, and get works */
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        CHECK(k->help && *k->help && (k->def_dit || k->def_gpt), "%s documented", k->name);
        CHECK(bl_config_find_key(k->name) == k, "%s found", k->name);
        if (k->def_dit) CHECK(bl_config_get(&d, k->name, buf, sizeof buf) == 0, "get %s", k->name);
        if (k->def_gpt) CHECK(bl_config_get(&g, k->name, buf, sizeof buf) == 0, "get %s", k->name);
    }
    CHECK(bl_config_key_at(bl_config_nkeys()) == NULL, "past the end");
    static const char *must[] = {"norm", "pos", "mlp", "qk_norm", "kv_heads", "dim", "depth", "heads", "patch",
                                 "channels", "image_size", "context", "vocab", "mlp_ratio", "multiple_of",
                                 "rope_base", "eps", "seed", "dropout", "lr", "batch", "warmup", "cosine",
                                 "clip", "weight_decay", "eval_every", "steps"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
        CHECK(bl_config_find_key(must[i]) != NULL, "key %s", must[i]);
    CHECK(bl_config_summary(&g, BL_KEYS_REBUILD, buf, sizeof buf) && strstr(buf, "norm=rmsnorm"), "summary: %s", buf);
}

BL_TEST(test_config_errors)
{
    bl_config c = bl_config_default(BL_MODEL_DIT), keep = c;
    CHECK(bl_config_set(&c, "kv_heads", "3") < 0, "kv_heads 3");
    CHECK_ERR("kv_heads: 3 does not divide heads 4");
    CHECK(bl_config_set(&c, "pos", "rope") < 0, "rope on DiT");
    CHECK_ERR("pos: rope is for TinyGPT; TinyDiT takes learned or rope2d");
    CHECK(bl_config_set(&c, "heads", "6") < 0, "heads 6");
    CHECK_ERR("heads: 6 does not divide dim 128");
    CHECK(bl_config_set(&c, "patch", "5") < 0, "patch 5");
    CHECK_ERR("patch: 5 does not divide image_size 32");
    CHECK(bl_config_set(&c, "context", "64") < 0, "context on DiT");
    CHECK_ERR("context: not a TinyDiT setting");
    CHECK(bl_config_set(&c, "lr", "fast") < 0, "lr fast");
    CHECK_ERR("lr: expected a number, got 'fast'");
    CHECK(bl_config_set(&c, "depth", "2.5") < 0, "depth 2.5");
    CHECK_ERR("depth: expected an integer, got '2.5'");
    CHECK(bl_config_set(&c, "dim", "4") < 0, "dim 4");
    CHECK_ERR("dim: 4 is out of range 8..4096");
    CHECK(bl_config_set(&c, "qk_norm", "maybe") < 0, "qk_norm maybe");
    CHECK_ERR("qk_norm: unknown value 'maybe' (one of: off,on)");
    /* a key whose values grow (a new norm row) lists them all: the two of DESIGN.md among them */
    CHECK(bl_config_set(&c, "norm", "batchnorm") < 0, "batchnorm");
    CHECK(!strncmp(bl_error(), "norm: unknown value 'batchnorm' (one of: ", 41) && strstr(bl_error(), "layernorm") &&
              strstr(bl_error(), "rmsnorm"),
          "%s", bl_error());
    CHECK(bl_config_set(&c, "colour", "red") < 0, "unknown key");
    CHECK_ERR("set: unknown setting 'colour'");
    CHECK(bl_config_set(&c, "lr", "") < 0, "empty value");
    CHECK_ERR("lr: missing value");
    CHECK(bl_config_set(&c, "dim", "136") == 0, "dim 136: %s", bl_error());
    CHECK(bl_config_set(&c, "pos", "rope2d") < 0, "rope2d with head_dim 34");
    CHECK_ERR("pos: rope2d needs a head_dim that is a multiple of 4, got 34");
    c.dim = 128;
    CHECK(same_config(&c, &keep), "failed sets leave the config unchanged");
    bl_config g = bl_config_default(BL_MODEL_GPT);
    CHECK(bl_config_set(&g, "pos", "rope2d") < 0, "rope2d on GPT");
    CHECK_ERR("pos: rope2d is for TinyDiT; TinyGPT takes learned or rope");
    /* dropout: both kinds, 0 <= p < 1 */
    CHECK(bl_config_set(&g, "dropout", "0.2") == 0 && g.dropout == 0.2f, "dropout 0.2: %s", bl_error());
    bl_config dd = bl_config_default(BL_MODEL_DIT);
    CHECK(bl_config_set(&dd, "dropout", "0.1") == 0 && dd.dropout == 0.1f, "DiT dropout 0.1: %s", bl_error());
    CHECK(bl_config_set(&g, "dropout", "1") < 0 && g.dropout == 0.2f, "dropout 1 accepted");
    CHECK(bl_config_set(&g, "dropout", "-0.1") < 0, "dropout -0.1 accepted");
    CHECK_ERR("dropout");
    g.dropout = 0;
    CHECK(bl_config_set(&g, "patch", "2") < 0, "patch on GPT");
    CHECK_ERR("patch: not a TinyGPT setting");
    CHECK(bl_config_set(&g, "kv_heads", "auto") == 0 && bl_config_kv_heads(&g) == 4, "kv_heads auto");
    /* several keys at once, in either order */
    const char *k1[] = {"dim", "heads"}, *v1[] = {"384", "6"};
    const char *k2[] = {"heads", "dim"}, *v2[] = {"6", "384"};
    bl_config a = bl_config_default(BL_MODEL_GPT), b = a;
    CHECK(bl_config_set_many(&a, 2, k1, v1) == 0 && bl_config_set_many(&b, 2, k2, v2) == 0, "%s", bl_error());
    CHECK(a.heads == 6 && b.dim == 384, "set_many applied");
    const char *k3[] = {"heads", "dim"}, *v3[] = {"6", "100"};
    CHECK(bl_config_set_many(&a, 2, k3, v3) < 0 && a.dim == 384, "set_many is all-or-nothing");
    CHECK_ERR("heads: 6 does not divide dim 100");
    CHECK(bl_config_needs_rebuild("norm") == 1 && bl_config_needs_rebuild("kv_heads") == 1, "switches rebuild");
    CHECK(bl_config_needs_rebuild("lr") == 0 && bl_config_needs_rebuild("eps") == 0, "lr/eps in place");
    CHECK(bl_config_needs_rebuild("nope") < 0, "unknown key");
    CHECK(bl_model_new(&(bl_config){.kind = BL_MODEL_GPT}) == NULL, "an all-zero config is refused");
}

BL_TEST(test_config_json)
{
    bl_config c = bl_config_default(BL_MODEL_GPT), r;
    const char *k[] = {"norm", "pos", "kv_heads", "lr", "seed", "eps", "cosine"};
    const char *v[] = {"rmsnorm", "rope", "2", "0.001", "12345678901", "1e-7", "on"};
    CHECK(bl_config_set_many(&c, 7, k, v) == 0, "%s", bl_error());
    json_t *j = bl_config_to_json(&c);
    CHECK(j && json_is_string(json_object_get(j, "norm")), "json");
    CHECK(json_real_value(json_object_get(j, "lr")) == 0.001, "lr written as 0.001");
    CHECK(json_object_get(j, "patch") == NULL, "no DiT keys in a GPT config");
    char *text = json_dumps(j, JSON_COMPACT);
    json_t *back = json_loads(text, 0, NULL);
    CHECK(bl_config_from_json(back, &r) == 0, "%s", bl_error());
    CHECK(same_config(&c, &r) && r.seed == 12345678901ull && r.lr == 0.001f, "JSON round trip");
    json_object_set_new(back, "flux", json_integer(3));
    CHECK(bl_config_from_json(back, &r) < 0, "unknown key refused");
    CHECK_ERR("config: unknown setting 'flux'");
    json_object_del(back, "flux");
    json_object_set_new(back, "kv_heads", json_integer(3));
    CHECK(bl_config_from_json(back, &r) < 0, "inconsistent config refused");
    CHECK_ERR("kv_heads: 3 does not divide heads 4");
    free(text);
    json_decref(j);
    json_decref(back);
}

BL_TEST(test_model_set)
{
    bl_model *m = dit_with(NULL, NULL, NULL, NULL);
    if (!m) { CHECK(0, "%s", bl_error()); return; }
    int rebuilt = -1;
    bl_tensor *w = bl_params_find(m->params, "blocks.0.attn.qkv.weight");
    w->data[0] = 42.0f;   /* "trained" */
    CHECK(bl_model_set(m, "lr", "0.001", &rebuilt) == 0 && rebuilt == 0, "lr in place");
    CHECK(bl_params_find(m->params, "blocks.0.attn.qkv.weight")->data[0] == 42.0f, "weights kept");
    CHECK(bl_model_set(m, "mlp", "swish", &rebuilt) < 0, "bad value");
    CHECK_ERR("mlp: unknown value 'swish'");
    CHECK(m->cfg.mlp == BL_MLP_GELU && bl_model_param_count(m) == 1152176, "model intact after an error");
    CHECK(bl_model_set(m, "mlp", "swiglu", &rebuilt) == 0 && rebuilt == 1, "%s", bl_error());
    CHECK(bl_model_param_count(m) == 1152344 && m->cfg.lr == 0.001f, "rebuilt with swiglu, lr kept");
    CHECK(bl_params_find(m->params, "blocks.0.attn.qkv.weight")->data[0] != 42.0f, "re-initialised");
    CHECK(bl_model_set(m, "rope_base", "50", &rebuilt) == 0 && rebuilt == 0, "rope_base in place");
    bl_model_free(m);
}

BL_TEST(test_params_store)
{
    bl_params *p = bl_params_new();
    CHECK(bl_params_declare(p, "a.weight", 2, (int[]){3, 4}, BL_INIT_UNIFORM, 0.5f) == 0, "declare");
    CHECK(bl_params_declare(p, "a.bias", 1, (int[]){3}, BL_INIT_ZERO, 0) == 1, "declare");
    CHECK(bl_params_declare(p, "a.bias", 1, (int[]){3}, BL_INIT_ZERO, 0) < 0, "duplicate");
    CHECK_ERR("params: 'a.bias' declared twice");
    CHECK(bl_params_declare(p, "b", 1, (int[]){0}, BL_INIT_ZERO, 0) < 0, "empty shape");
    CHECK(bl_params_finish(p, 3) == 0 && p->total == 15, "total %zu", p->total);
    CHECK(bl_params_declare(p, "c", 1, (int[]){2}, BL_INIT_ZERO, 0) < 0, "declare after finish");
    bl_tensor *w = bl_params_find(p, "a.weight"), *b = bl_params_find(p, "a.bias");
    CHECK(w->data == p->values && b->data == p->values + 12 && b->grad == p->grads + 12, "one flat layout");
    CHECK(strcmp(w->name, "a.weight") == 0, "name");
    p->grads[5] = 1.0f;
    bl_params_zero_grad(p);
    CHECK(p->grads[5] == 0.0f, "zero_grad");
    CHECK(bl_params_alloc_moments(p) == 0 && p->m && p->v && p->m[14] == 0.0f, "moments");
    bl_params_free(p);
}

/* Keeping trained weights across a switch change: every same-named, same-shaped tensor. */
BL_TEST(test_copy_shared)
{
    bl_model *a = dit_with(NULL, NULL, NULL, NULL), *b = dit_with("seed", "5", "mlp", "swiglu");
    bl_tensor *w = bl_params_find(a->params, "blocks.0.attn.qkv.weight");
    w->data[3] = 0.5f;
    int n = bl_params_copy_shared(b->params, a->params);
    /* all but the 4 x 4 MLP tensors (fc1/fc2 weight+bias -> w1/w2/w3 weight+bias) are shared */
    CHECK(n == b->params->n - 4 * 6, "%d of %d copied", n, b->params->n);
    CHECK(bl_params_find(b->params, "blocks.0.attn.qkv.weight")->data[3] == 0.5f, "value copied");
    bl_model_free(a);
    bl_model_free(b);
}

/* The text of `man` between `from` and the first `to` after it (into a copy), or NULL. */
static char *man_part(const char *man, const char *from, const char *to, char *buf, size_t n)
{
    const char *a = strstr(man, from), *b = a ? strstr(a + strlen(from), to) : NULL;
    if (!b || (size_t)(b - a) >= n) return NULL;
    memcpy(buf, a, (size_t)(b - a));
    buf[b - a] = 0;
    return buf;
}

/* Is word in text between characters that cannot be part of a key name (a font change \fB
 * before it counts as a space)? */
static int has_key_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int font = p - text >= 3 && p[-3] == '\\' && p[-2] == 'f';
        int before = !font && p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (!before && !isalnum((unsigned char)p[n]) && p[n] != '_') return 1;
    }
    return 0;
}

/* The bold words \fBa b c\fR of text, space-separated in one buffer. */
static void bold_words(const char *text, char *out, size_t n)
{
    size_t o = 0;
    out[0] = 0;
    for (const char *p = strstr(text, "\\fB"); p; p = strstr(p, "\\fB")) {
        p += 3;
        const char *e = strstr(p, "\\fR");
        if (!e) break;
        for (; p < e && o + 2 < n; p++) out[o++] = *p == '\n' ? ' ' : *p;
        out[o++] = ' ';
        out[o] = 0;
    }
}

/* The man page's KEYS section names every key of the table and, in each choice key's entry, every
 * value; its two lists of keys (what a checkpoint's config must hold, what a loaded checkpoint's
 * note compares) are the table's BL_KEYS_ARCH and BL_KEYS_ARITH sets, no more and no fewer. So a
 * new key or value fails here until man/blocklab.1 documents it. */
BL_TEST(test_config_keys_in_man)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/man/blocklab.1", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f) SKIP("man/blocklab.1 not found (set BL_SRCDIR)");
    static char man[1 << 18], keys[1 << 14], arch[2048], arith[1024], words[2048];
    man[fread(man, 1, sizeof man - 1, f)] = '\0';
    fclose(f);
    CHECK(man_part(man, "\n.SH KEYS", "\n.SH ", keys, sizeof keys), "no KEYS section in the man page");
    CHECK(man_part(man, "makes the model (", "a missing one", arch, sizeof arch),
          "the man page's load paragraph does not list the keys that make the model");
    CHECK(man_part(man, "other switches than the model (", ": the same names", arith, sizeof arith),
          "the man page's load paragraph does not list the switches a note compares");
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        CHECK(has_key_word(keys, k->name), "key %s is not in the man page's KEYS section", k->name);
        CHECK(has_key_word(arch, k->name) == bl_config_key_in(k, BL_KEYS_ARCH),
              "key %s: the man page's list of the keys a checkpoint must hold disagrees with the table", k->name);
        CHECK(has_key_word(arith, k->name) == bl_config_key_in(k, BL_KEYS_ARITH),
              "key %s: the man page's list of the switches a load note compares disagrees with the table", k->name);
        if (k->type != BL_KEY_CHOICE) continue;
        /* the entry: from its ".B KEY" line to the next request line */
        char head[64], v[32], bold[48];
        snprintf(head, sizeof head, "\n.B %s\n", k->name);
        const char *body = strstr(keys, head);
        CHECK(body, "choice key %s has no entry (.TP, .B %s) in the man page's KEYS section", k->name, k->name);
        if (!body) continue;
        body += strlen(head);
        const char *stop = strstr(body, "\n.");
        char text[1024];
        snprintf(text, sizeof text, "%.*s", stop ? (int)(stop - body) : (int)strlen(body), body);
        for (int j = 0; bl_config_choice_at(k, j, v, sizeof v); j++) {
            snprintf(bold, sizeof bold, "\\fB%s\\fR", v);
            CHECK(strstr(text, bold), "%s=%s is not in the man page's entry of %s", k->name, v,
                  k->name);
        }
    }
    /* and the lists hold nothing but keys */
    bold_words(arith, words, sizeof words);
    for (char *w = strtok(words, " "); w; w = strtok(NULL, " "))
        CHECK(bl_config_find_key(w), "the man page's list of the switches a load note compares names '%s', "
              "not a key", w);
}

/* A switch's values and the definition table the models call agree, row by row: a value without
 * a row (or a row without a value) fails here, not at a forward. names[i] is row i's name, NULL
 * past the last row; complete[i]: row i has all its kernels. */
static void check_def_table(const char *key, const char *const *names, const int *complete, int nrows)
{
    const bl_config_key *k = bl_config_find_key(key);
    char v[64];
    int i = 0;
    CHECK(k != NULL, "no %s key", key);
    for (; k && bl_config_choice_at(k, i, v, sizeof v); i++)
        CHECK(i < nrows && names[i] && !strcmp(names[i], v) && complete[i], "%s=%s: row %d of its table is %s%s",
              key, v, i, i < nrows && names[i] ? names[i] : "missing", i < nrows && names[i] && !complete[i] ? " without kernels" : "");
    CHECK(i >= 2 && i < nrows && names[i] == NULL, "the %s table has %s past the switch's %d values", key,
          i < nrows && names[i] ? names[i] : "?", i);
}

#define MAXDEF 16
BL_TEST(test_def_tables_match_switches)
{
    const char *names[MAXDEF];
    int complete[MAXDEF], n;
    /* norm: nn.h bl_norm_defs */
    for (n = 0; n < MAXDEF; n++) {
        names[n] = bl_norm_defs[n].name;
        complete[n] = bl_norm_defs[n].norm && bl_norm_defs[n].modulate;
        if (!names[n]) break;
    }
    check_def_table("norm", names, complete, n + 1);
    /* mlp: nn.h bl_mlp_defs, projections within the parameter slots and named (or the model's) */
    for (n = 0; n < MAXDEF; n++) {
        const bl_mlp_def *d = &bl_mlp_defs[n];
        names[n] = d->name;
        complete[n] = d->hidden && d->ffn && d->ffn_dropout_add && d->nproj >= 2 && d->nproj <= BL_MLP_MAXPROJ &&
                      (d->nproj == 2 || (d->proj[0] && d->proj[1] && d->proj[2]));
        if (!names[n]) break;
    }
    check_def_table("mlp", names, complete, n + 1);
    /* pos: config.h bl_pos_defs, each for some kind, and each kind with a learned row has one that
     * runs past the context (what the context errors suggest) */
    for (n = 0; n < MAXDEF; n++) {
        const bl_pos_def *d = &bl_pos_defs[n];
        names[n] = d->name;
        complete[n] = d->kinds != 0 && d->rope_axes >= 0 && d->rope_axes <= 2 && !(d->learned && d->rope_axes);
        if (!names[n]) break;
    }
    check_def_table("pos", names, complete, n + 1);
    CHECK(strcmp(bl_pos_unbounded(BL_MODEL_GPT), "?") != 0, "no TinyGPT encoding runs past the context");
    /* the tables drive the models: the hidden width and the projection names come from the row */
    bl_config c = bl_config_default(BL_MODEL_GPT);
    CHECK(bl_config_set(&c, "mlp", bl_mlp_defs[1].name) == 0 && bl_config_mlp_hidden(&c) == 341,
          "%s hidden at dim 128: %d, expected int(2 * 4 * 128 / 3) = 341", bl_mlp_defs[1].name,
          bl_config_mlp_hidden(&c));
}

/* No switch value is spelled in a string in the source outside its homes (issue 19): the switch
 * table, the kernels (src/nn: their definition rows and error names), the op names, and two files where the value
 * is the same word for another thing (the language's functions layernorm() ... swiglu() named
 * after their kernels; the command `rope` and the rope kernels' error names). Everything else asks
 * the table: messages through bl_config_value / bl_pos_unbounded, help through {KEY:I} marks
 * (cmd_help.c), so norm=dyt is one row plus its kernels. In a string literal a value counts as
 * spelled when it is the whole literal, a word of its own, or, for a value that is also a command
 * or function name (rope, gelu, ...: `help rope`, rmsnorm(x) are those), when it follows KEY=,
 * KEY:, KEY=\" or stands beside a '|' (a choice list), so prose such as "norm is already
 * layernorm" slips through for those values (help writes them {norm:0}). Comments may name values; generated
 * builtin_text.c is left out. */
static const char *const value_homes[] = { "src/models/config.c", "src/nn/", "src/core/op.h", "src/repl/functions.c",
                                           "src/repl/cmd_rope.c", NULL };
static char literal_hit[512];
static int n_source_files;

/* code of a C file with its comments blanked, string and character literals kept */
static void strip_comments(char *s)
{
    for (char *p = s; *p; p++) {
        if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; *p && *p != q; p++)
                if (*p == '\\' && p[1]) p++;
            if (!*p) return;
        } else if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *end = e ? e + 2 : p + strlen(p);
            for (; p < end; p++)
                if (*p != '\n') *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++) *p = ' ';
            if (!*p) return;
        }
    }
}

static int word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Does the string literal body lit[0 .. n) spell value v of key `key` (the rules above)? */
static int spells_value(const char *lit, size_t n, const char *key, const char *v, int other_name)
{
    size_t vn = strlen(v), kn = strlen(key);
    if (n == vn && !strncmp(lit, v, vn)) return 1;
    for (size_t i = 0; i + vn <= n; i++) {
        if (strncmp(lit + i, v, vn) || (i > 0 && word_char(lit[i - 1])) || (i + vn < n && word_char(lit[i + vn])))
            continue;
        if (!other_name) return 1;
        if ((i > 0 && lit[i - 1] == '|') || (i + vn < n && lit[i + vn] == '|')) return 1;
        for (size_t q = 0; q <= 2; q += 2) {   /* KEY=v, KEY:v, KEY=\"v */
            size_t at = i - 1 - q;
            if (i < kn + 1 + q || (lit[at] != '=' && lit[at] != ':') || strncmp(lit + at - kn, key, kn)) continue;
            if (q && strncmp(lit + i - 2, "\\\"", 2)) continue;
            if (at - kn == 0 || !word_char(lit[at - kn - 1])) return 1;
        }
    }
    return 0;
}

/* The first switch value a string literal of text (comments stripped) spells, into literal_hit. */
static void scan_literals(const char *rel, const char *text)
{
    for (const char *p = text; (p = strchr(p, '"'));) {
        if (p > text && p[-1] == '\'' && p[1] == '\'') { p += 2; continue; }   /* the character '"' */
        const char *b = ++p;
        while (*p && *p != '"') p += *p == '\\' && p[1] ? 2 : 1;
        size_t n = (size_t)(p - b);
        for (int i = 0; i < bl_config_nkeys() && !literal_hit[0]; i++) {
            const bl_config_key *k = bl_config_key_at(i);
            char v[32];
            if (k->type != BL_KEY_CHOICE || !strcmp(k->choices, "off|on")) continue;
            for (int j = 0; bl_config_choice_at(k, j, v, sizeof v); j++) {
                int other = bl_command_find(v) || bl_function_find(v);
                if (spells_value(b, n, k->name, v, other) && !literal_hit[0])
                    snprintf(literal_hit, sizeof literal_hit, "%s spells %s=%s in \"%.*s\"", rel, k->name, v,
                             n > 80 ? 80 : (int)n, b);
            }
        }
        if (*p) p++;
    }
}

static void scan_source(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    size_t n = strlen(rel);
    if (n < 3 || (strcmp(rel + n - 2, ".c") && strcmp(rel + n - 2, ".h")) || strstr(rel, "builtin_text.c")) return;
    for (int i = 0; value_homes[i]; i++)   /* a file, or a folder ending in '/' */
        if (!strncmp(rel, value_homes[i], strlen(value_homes[i]))) return;
    FILE *f = fopen(path, "r");
    if (!f) return;
    static char text[1 << 20];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    n_source_files++;
    strip_comments(text);
    scan_literals(rel, text);
}

static void scan_tree(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", rel, e->d_name);
        snprintf(path, sizeof path, "%s/%s", root, sub);
        struct stat st;
        if (stat(path, &st) < 0) continue;
        if (S_ISDIR(st.st_mode)) scan_tree(root, sub);
        else scan_source(root, sub);
    }
    closedir(d);
}

BL_TEST(test_switch_values_only_in_their_homes)
{
    /* the scanner sees a literal, and not one in a comment */
    char t1[] = "x = \"rmsnorm\"; /* \"gelu\" */ // \"rope2d\"\n", t2[] = "a '\"' b /* c */ \"d\"";
    strip_comments(t1);
    strip_comments(t2);
    CHECK(strstr(t1, "\"rmsnorm\"") && !strstr(t1, "gelu") && !strstr(t1, "rope2d"), "comments: %s", t1);
    CHECK(strstr(t2, "'\"'") && strstr(t2, "\"d\"") && !strchr(t2, 'c'), "quotes: %s", t2);
    /* the rules: a value of its own, after KEY= / KEY: / KEY=\", beside '|'; a name of something else
     * (the command rope, the function rmsnorm) in other places is that thing */
    static const struct { const char *text; int hit; } cases[] = {
        { "\"x \" \"rmsnorm\"", 1 }, { "\"a pos=rope2d model\"", 1 }, { "\"the learned tables\"", 1 },
        { "\"norm is already {norm:0}\"", 0 }, { "\"(compare b x=norm:rmsnorm)\"", 1 },
        { "\"gpt(pos=\\\"rope\\\")\"", 1 }, { "\"rope|rope2d\"", 1 }, { "\"(help rope check)\"", 0 },
        { "\"rmsnorm(x) * w\"", 0 }, { "\"rope=pos:{pos:2} cmp_rope\"", 0 }, { "\"a ropey rope2dx\"", 0 },
        { "\"xpos=rope y\"", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        literal_hit[0] = '\0';
        scan_literals("case", cases[i].text);
        CHECK(!!literal_hit[0] == cases[i].hit, "scanner on %s: %s", cases[i].text,
              literal_hit[0] ? literal_hit : "no hit");
    }
    literal_hit[0] = '\0';
    n_source_files = 0;
    scan_tree(getenv("BL_SRCDIR") ? getenv("BL_SRCDIR") : ".", "src");
    if (n_source_files == 0) SKIP("src/ not found (set BL_SRCDIR)");
    CHECK(n_source_files > 100, "only %d source files scanned", n_source_files);
    CHECK(!literal_hit[0], "%s: ask the switch table (models/config.h) instead", literal_hit);
}

int main(void)
{
    RUN(test_dit_published_counts);
    RUN(test_dit_breakdown);
    RUN(test_dit_grey_28);
    RUN(test_switch_keeps_shared_init);
    RUN(test_init_rules);
    RUN(test_config_defaults_and_get);
    RUN(test_config_errors);
    RUN(test_config_json);
    RUN(test_model_set);
    RUN(test_params_store);
    RUN(test_copy_shared);
    RUN(test_config_keys_in_man);
    RUN(test_def_tables_match_switches);
    RUN(test_switch_values_only_in_their_homes);
    return bl_test_done();
}
