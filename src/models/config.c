/* config.c - the key table and its parsing, checking and JSON form (see config.h). */
#include "models/config.h"
#include "models/kind.h"
#include "core/error.h"
#include "core/suggest.h"
#include "nn/nn.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a key's value lives in bl_config and how it is stored. */
typedef enum { S_INT, S_FLOAT, S_U64, S_ENUM } storage;

/* "auto" is stored as 0; get prints the effective value. */
#define KEY_AUTO BL_KEY_AUTO

typedef struct {
    bl_config_key pub;
    size_t offset;
    storage st;
} key_row;

#define D BL_KEY_DIT
#define G BL_KEY_GPT
#define R BL_KEY_REBUILD
#define SW BL_KEY_SWITCH
#define TR BL_KEY_TRAIN
#define SZ BL_KEY_SIZE
#define A BL_KEY_ARCH
#define OFF(f) offsetof(bl_config, f)
#define MAXSEED 9007199254740991.0 /* 2^53 - 1: exact in JSON numbers */

/* The one table. Choice values are listed in enum order (index = enum value). */
static const key_row rows[] = {
    {{"norm", BL_KEY_CHOICE, "layernorm|rmsnorm", 0, 0, "layernorm", "layernorm", D | G | R | SW | A,
      "normalisation in every block: layernorm (mean and variance) or rmsnorm (rms only)"},
     OFF(norm), S_ENUM},
    {{"pos", BL_KEY_CHOICE, "learned|rope|rope2d", 0, 0, "learned", "learned", D | G | R | SW | A,
      "positions: learned tables, rope (1-D, TinyGPT) or rope2d (rows and columns, TinyDiT)"},
     OFF(pos), S_ENUM},
    {{"mlp", BL_KEY_CHOICE, "gelu|swiglu", 0, 0, "gelu", "gelu", D | G | R | SW | A,
      "feed-forward: gelu (fc1, GELU, fc2) or swiglu (w3(silu(w1 x) * w2 x))"},
     OFF(mlp), S_ENUM},
    {{"qk_norm", BL_KEY_CHOICE, "off|on", 0, 0, "off", "off", D | G | R | SW | A,
      "RMSNorm on each head's q and k before the scores"},
     OFF(qk_norm), S_ENUM},
    {{"kv_heads", BL_KEY_INT, NULL, 1, 256, "auto", "auto", D | G | R | SW | KEY_AUTO | A,
      "key/value heads, a divisor of heads (grouped-query attention); auto = heads (plain MHA)"},
     OFF(kv_heads), S_INT},
    {{"dim", BL_KEY_INT, NULL, 8, 4096, "128", "128", D | G | R | SZ | A, "width of the residual stream"},
     OFF(dim), S_INT},
    {{"depth", BL_KEY_INT, NULL, 1, BL_MAX_DEPTH, "4", "4", D | G | R | SZ | A, "number of blocks"},
     OFF(depth), S_INT},
    {{"heads", BL_KEY_INT, NULL, 1, 256, "4", "4", D | G | R | SZ | A,
      "attention heads (query heads); must divide dim"},
     OFF(heads), S_INT},
    {{"mlp_ratio", BL_KEY_FLOAT, NULL, 0.25, 16, "4", "4", D | G | R | A,
      "MLP hidden width / dim (swiglu uses 2/3 of it)"},
     OFF(mlp_ratio), S_FLOAT},
    {{"multiple_of", BL_KEY_INT, NULL, 0, 4096, "0", "0", D | G | R | A,
      "round the swiglu hidden width up to a multiple of this (0 = no rounding)"},
     OFF(multiple_of), S_INT},
    {{"patch", BL_KEY_INT, NULL, 1, 64, "4", NULL, D | R | A, "patch size p (p x p pixels per token)"},
     OFF(patch), S_INT},
    {{"channels", BL_KEY_INT, NULL, 1, 4, "3", NULL, D | R | A, "image channels (3 colour, 1 grey)"},
     OFF(channels), S_INT},
    {{"image_size", BL_KEY_INT, NULL, 4, 512, "32", NULL, D | R | A,
      "image height and width in pixels; a multiple of patch"},
     OFF(image_size), S_INT},
    {{"context", BL_KEY_INT, NULL, 1, 65536, NULL, "128", G | R | A,
      "training window in tokens (learned positions stop here)"},
     OFF(context), S_INT},
    {{"vocab", BL_KEY_INT, NULL, 2, 1048576, NULL, "65", G | R | A, "vocabulary size (set by the text)"},
     OFF(vocab), S_INT},
    {{"rope_base", BL_KEY_FLOAT, NULL, 1, 1e9, "100", "10000", D | G | A,
      "RoPE frequency base (rope2d 100, rope 10000)"},
     OFF(rope_base), S_FLOAT},
    {{"eps", BL_KEY_FLOAT, NULL, 1e-12, 0.1, "auto", "auto", D | G | KEY_AUTO | A,
      "norm epsilon; auto = 1e-5 for TinyGPT layernorm, 1e-6 otherwise"},
     OFF(eps), S_FLOAT},
    {{"dropout", BL_KEY_FLOAT, NULL, 0, 0.999, "0", "0", D | G,
      "dropout probability in training (nanoGPT's places; off at eval and sampling)"},
     OFF(dropout), S_FLOAT},
    {{"seed", BL_KEY_INT, NULL, 0, MAXSEED, "0", "0", D | G | R,
      "seed of the initial weights and of the data, noise and t streams"},
     OFF(seed), S_U64},
    {{"lr", BL_KEY_FLOAT, NULL, 0, 10, "0.0003", "0.0003", D | G | TR, "AdamW learning rate"},
     OFF(lr), S_FLOAT},
    {{"batch", BL_KEY_INT, NULL, 1, 65536, "64", "32", D | G | TR, "examples per training step"},
     OFF(batch), S_INT},
    {{"warmup", BL_KEY_INT, NULL, 0, 1000000000, "0", "0", D | G | TR,
      "linear learning-rate warmup steps (0 = none)"},
     OFF(warmup), S_INT},
    {{"cosine", BL_KEY_CHOICE, "off|on", 0, 0, "off", "off", D | G | TR,
      "cosine decay of the learning rate over `steps` (to 0.1 lr)"},
     OFF(cosine), S_ENUM},
    {{"clip", BL_KEY_FLOAT, NULL, 0, 1e9, "0", "0", D | G | TR,
      "clip the global gradient norm to this (0 = off)"},
     OFF(clip), S_FLOAT},
    {{"weight_decay", BL_KEY_FLOAT, NULL, 0, 10, "0", "0", D | G | TR,
      "AdamW weight decay, matrices only (0 = off)"},
     OFF(weight_decay), S_FLOAT},
    {{"beta1", BL_KEY_FLOAT, NULL, 0, 0.999999, "0.9", "0.9", D | G | TR, "AdamW beta1"},
     OFF(beta1), S_FLOAT},
    {{"beta2", BL_KEY_FLOAT, NULL, 0, 0.999999, "0.999", "0.99", D | G | TR, "AdamW beta2"},
     OFF(beta2), S_FLOAT},
    {{"eval_every", BL_KEY_INT, NULL, 0, 1000000000, "50", "50", D | G | TR,
      "validation loss every this many steps (0 = never)"},
     OFF(eval_every), S_INT},
    {{"steps", BL_KEY_INT, NULL, 1, 1000000000, "500", "1000", D | G | TR,
      "planned training steps (the length of the cosine schedule)"},
     OFF(steps), S_INT},
};

#define NROWS ((int)(sizeof rows / sizeof rows[0]))

/* The position encodings, in the order of pos's choices above (config.h). */
const bl_pos_def bl_pos_defs[] = {
    { "learned", D | G, 1, 0 },
    { "rope", G, 0, 1 },
    { "rope2d", D, 0, 2 },
    { NULL, 0, 0, 0 },
};

int bl_config_nkeys(void) { return NROWS; }

const bl_config_key *bl_config_key_at(int i)
{
    return i >= 0 && i < NROWS ? &rows[i].pub : NULL;
}

static const key_row *find_row(const char *name)
{
    for (int i = 0; i < NROWS; i++)
        if (strcmp(rows[i].pub.name, name) == 0) return &rows[i];
    return NULL;
}

const bl_config_key *bl_config_find_key(const char *name)
{
    const key_row *r = name ? find_row(name) : NULL;
    return r ? &r->pub : NULL;
}

int bl_config_key_in(const bl_config_key *k, bl_key_set set)
{
    switch (set) {
    case BL_KEYS_CHOICES: return (k->flags & BL_KEY_SWITCH) && k->type == BL_KEY_CHOICE;
    case BL_KEYS_BRIEF: return (k->flags & (BL_KEY_SWITCH | BL_KEY_SIZE)) != 0;
    case BL_KEYS_REBUILD: return (k->flags & BL_KEY_REBUILD) != 0;
    case BL_KEYS_ARCH: return (k->flags & BL_KEY_ARCH) != 0;
    case BL_KEYS_ARITH:
        return (k->flags & BL_KEY_ARCH) && (k->type == BL_KEY_CHOICE || !(k->flags & BL_KEY_REBUILD));
    }
    return 0;
}

/* The key-table flag of a kind (BL_KEY_DIT, BL_KEY_GPT). */
static unsigned kind_flag(bl_model_kind kind) { return bl_kind_of(kind)->key_flag; }

int bl_config_key_applies(const bl_config_key *key, bl_model_kind kind)
{
    return (key->flags & kind_flag(kind)) != 0;
}

const char *bl_model_kind_name(bl_model_kind kind) { return bl_kind_of(kind)->name; }

static const char *kind_title(bl_model_kind kind) { return bl_kind_of(kind)->title; }

int bl_model_kind_parse(const char *name, bl_model_kind *kind)
{
    const bl_kind *k;
    char names[64];
    size_t len = 0;
    for (int i = 0; (k = bl_kind_at(i)); i++) {
        if (strcmp(name, k->name) == 0) return (*kind = k->kind), 0;
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? " or " : "", k->name);
    }
    return bl_fail("model: unknown kind '%s' (%s)", name, names);
}

/* The i-th '|'-separated word of a choice list into buf; 0 when there is none. */
static int choice_at(const char *choices, int i, char *buf, size_t n)
{
    const char *s = choices;
    for (; i > 0; i--) {
        s = strchr(s, '|');
        if (!s) return 0;
        s++;
    }
    size_t len = strcspn(s, "|");
    if (len + 1 > n) len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    return 1;
}

int bl_config_choice_at(const bl_config_key *key, int i, char *buf, size_t n)
{
    if (n) buf[0] = 0;
    return key->type == BL_KEY_CHOICE && i >= 0 && choice_at(key->choices, i, buf, n);
}

static int choice_index(const char *choices, const char *value)
{
    char w[32];
    for (int i = 0; choice_at(choices, i, w, sizeof w); i++)
        if (strcmp(w, value) == 0) return i;
    return -1;
}

const bl_pos_def *bl_config_pos(const bl_config *cfg) { return &bl_pos_defs[cfg->pos]; }

const char *bl_pos_unbounded(bl_model_kind kind)
{
    for (const bl_pos_def *p = bl_pos_defs; p->name; p++)
        if ((p->kinds & kind_flag(kind)) && !p->learned) return p->name;
    return "?";
}

/* The encodings of `kind` joined by " or " into buf. */
static char *pos_names(bl_model_kind kind, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (const bl_pos_def *p = bl_pos_defs; p->name && len < n; p++)
        if (p->kinds & kind_flag(kind))
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " or " : "", p->name);
    return buf;
}

/* The first kind that `p` is for. */
static const char *pos_kind_title(const bl_pos_def *p)
{
    const bl_kind *k;
    for (int i = 0; (k = bl_kind_at(i)); i++)
        if (p->kinds & kind_flag(k->kind)) return k->title;
    return "?";
}

char *bl_config_choices_text(const bl_config_key *key, const char *sep, char *buf, size_t n)
{
    size_t len = 0;
    char v[32];
    buf[0] = 0;
    for (int i = 0; bl_config_choice_at(key, i, v, sizeof v) && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? sep : "", v);
    return buf;
}

const char *bl_config_value(const char *name, int i)
{
    static char ring[8][32];
    static int next;
    char *buf = ring[next++ % 8];
    const bl_config_key *k = bl_config_find_key(name);
    if (!k || !bl_config_choice_at(k, i, buf, sizeof ring[0])) snprintf(buf, sizeof ring[0], "?");
    return buf;
}

/* Parse `value` into cfg's field for row r: type, range and choice only (no cross-key rules). */
static int parse_value(bl_config *cfg, const key_row *r, const char *value)
{
    const bl_config_key *k = &r->pub;
    char *field = (char *)cfg + r->offset;
    if (!bl_config_key_applies(k, cfg->kind))
        return bl_fail("%s: not a %s setting", k->name, kind_title(cfg->kind));
    if (!value || !*value) return bl_fail("%s: missing value", k->name);
    if ((k->flags & KEY_AUTO) && strcmp(value, "auto") == 0) {
        if (r->st == S_INT) *(int *)field = 0;
        else *(float *)field = 0.0f;
        return 0;
    }
    if (k->type == BL_KEY_CHOICE) {
        int i = choice_index(k->choices, value);
        if (i < 0) {
            char alts[64];
            bl_config_choices_text(k, ",", alts, sizeof alts);
            /* did you mean: the choices, split at their commas */
            char names[64], dym[160];
            const char *list[16];
            int nl = 0;
            snprintf(names, sizeof names, "%s", alts);
            for (char *tok = strtok(names, ","); tok && nl < 15; tok = strtok(NULL, ",")) list[nl++] = tok;
            list[nl] = NULL;
            bl_suggest sg;
            bl_suggest_init(&sg, value);
            bl_suggest_list(&sg, list);
            return bl_fail("%s: unknown value '%s' (one of: %s)%s", k->name, value, alts,
                           bl_suggest_text(&sg, dym, sizeof dym));
        }
        *(int *)field = i;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    while (*end == ' ') end++;
    if (end == value || *end || errno == ERANGE || !isfinite(v))
        return bl_fail("%s: expected a number, got '%s'", k->name, value);
    if (k->type == BL_KEY_INT && v != floor(v))
        return bl_fail("%s: expected an integer, got '%s'", k->name, value);
    if (v < k->min || v > k->max) {
        if (k->type == BL_KEY_INT)
            return bl_fail("%s: %s is out of range %.0f..%.0f", k->name, value, k->min, k->max);
        return bl_fail("%s: %s is out of range %g..%g", k->name, value, k->min, k->max);
    }
    switch (r->st) {
    case S_INT: *(int *)field = (int)v; break;
    case S_FLOAT: *(float *)field = (float)v; break;
    case S_U64: *(uint64_t *)field = (uint64_t)v; break;
    case S_ENUM: break;
    }
    return 0;
}

bl_config bl_config_default(bl_model_kind kind)
{
    bl_config c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    for (int i = 0; i < NROWS; i++) {
        const char *d = kind == BL_MODEL_DIT ? rows[i].pub.def_dit : rows[i].pub.def_gpt;
        if (d) parse_value(&c, &rows[i], d);   /* the table's defaults always parse */
    }
    return c;
}

int bl_config_kv_heads(const bl_config *cfg) { return cfg->kv_heads > 0 ? cfg->kv_heads : cfg->heads; }

float bl_config_eps(const bl_config *cfg)
{
    if (cfg->eps > 0) return cfg->eps;
    return cfg->kind == BL_MODEL_GPT && cfg->norm == BL_NORM_LAYERNORM ? 1e-5f : 1e-6f;
}

int bl_config_head_dim(const bl_config *cfg) { return cfg->heads > 0 ? cfg->dim / cfg->heads : 0; }

int bl_config_tokens(const bl_config *cfg)
{
    if (cfg->kind == BL_MODEL_GPT) return cfg->context;
    int g = cfg->patch > 0 ? cfg->image_size / cfg->patch : 0;
    return g * g;
}

int bl_config_mlp_hidden(const bl_config *cfg)
{
    return bl_mlp_defs[cfg->mlp].hidden(cfg->dim, cfg->mlp_ratio, cfg->multiple_of);
}

/* A value of norm, mlp or pos without its definition row (a choice added to the table above
 * but not to nn.h's or config.h's rows) is refused here, never run. */
static int check_rows(const bl_config *c)
{
    int nn = 0, nm = 0, np = 0;
    while (bl_norm_defs[nn].name) nn++;
    while (bl_mlp_defs[nm].name) nm++;
    while (bl_pos_defs[np].name) np++;
    if ((unsigned)c->norm >= (unsigned)nn)
        return bl_fail("norm: %s has no kernels (src/nn/nn.h bl_norm_defs)", bl_config_value("norm", (int)c->norm));
    if ((unsigned)c->mlp >= (unsigned)nm)
        return bl_fail("mlp: %s has no kernels (src/nn/nn.h bl_mlp_defs)", bl_config_value("mlp", (int)c->mlp));
    if ((unsigned)c->pos >= (unsigned)np)
        return bl_fail("pos: %s has no definition (src/models/config.h bl_pos_defs)", bl_config_value("pos", (int)c->pos));
    return 0;
}

int bl_config_check(const bl_config *c)
{
    if (c->kind != BL_MODEL_DIT && c->kind != BL_MODEL_GPT) return bl_fail("config: unknown model kind %d", (int)c->kind);
    if (check_rows(c) < 0) return -1;
    const bl_pos_def *pd = bl_config_pos(c);
    char names[64];
    if (!(pd->kinds & kind_flag(c->kind)))
        return bl_fail("pos: %s is for %s; %s takes %s", pd->name, pos_kind_title(pd), kind_title(c->kind),
                       pos_names(c->kind, names, sizeof names));
    if (c->heads < 1 || c->dim % c->heads)
        return bl_fail("heads: %d does not divide dim %d", c->heads, c->dim);
    int kvh = bl_config_kv_heads(c);
    if (kvh > c->heads || c->heads % kvh)
        return bl_fail("kv_heads: %d does not divide heads %d", kvh, c->heads);
    int hd = c->dim / c->heads;
    int mult = 2 * pd->rope_axes;   /* RoPE turns pairs of features, per axis */
    if (mult == 2 && hd % 2)
        return bl_fail("pos: %s needs an even head_dim, got %d (dim %d / heads %d)", pd->name, hd, c->dim, c->heads);
    if (mult > 2 && hd % mult)
        return bl_fail("pos: %s needs a head_dim that is a multiple of %d, got %d (dim %d / heads %d)",
                       pd->name, mult, hd, c->dim, c->heads);
    if (bl_config_mlp_hidden(c) < 1)
        return bl_fail("mlp_ratio: %g gives an empty hidden layer at dim %d", c->mlp_ratio, c->dim);
    if (c->kind == BL_MODEL_DIT) {
        if (c->patch < 1 || c->image_size % c->patch)
            return bl_fail("patch: %d does not divide image_size %d", c->patch, c->image_size);
    } else {
        if (c->vocab < 2) return bl_fail("vocab: need at least 2 tokens, got %d", c->vocab);
        if (c->context < 1) return bl_fail("context: need at least 1 token, got %d", c->context);
    }
    return 0;
}

int bl_config_set(bl_config *cfg, const char *key, const char *value)
{
    return bl_config_set_many(cfg, 1, &key, &value);
}

int bl_config_set_many(bl_config *cfg, int n, const char *const *keys, const char *const *values)
{
    bl_config c = *cfg;
    for (int i = 0; i < n; i++) {
        const key_row *r = keys[i] ? find_row(keys[i]) : NULL;
        if (!r) return bl_fail("set: unknown setting '%s'", keys[i] ? keys[i] : "(null)");
        if (parse_value(&c, r, values[i]) < 0) return -1;
    }
    if (bl_config_check(&c) < 0) return -1;
    *cfg = c;
    return 0;
}

/* The shortest decimal text that reads back as the same float ("0.0003", not 0.000300000014). */
static void float_text(float v, char *buf, size_t n)
{
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, n, "%.*g", prec, (double)v);
        if ((float)strtod(buf, NULL) == v) return;
    }
}

int bl_config_get(const bl_config *cfg, const char *key, char *buf, size_t n)
{
    const key_row *r = key ? find_row(key) : NULL;
    if (n) buf[0] = 0;
    if (!r) return bl_fail("get: unknown setting '%s'", key ? key : "(null)");
    if (!bl_config_key_applies(&r->pub, cfg->kind))
        return bl_fail("%s: not a %s setting", key, kind_title(cfg->kind));
    const char *field = (const char *)cfg + r->offset;
    if (strcmp(key, "kv_heads") == 0) { snprintf(buf, n, "%d", bl_config_kv_heads(cfg)); return 0; }
    if (strcmp(key, "eps") == 0) { float_text(bl_config_eps(cfg), buf, n); return 0; }
    switch (r->st) {
    case S_INT: snprintf(buf, n, "%d", *(const int *)field); break;
    case S_FLOAT: float_text(*(const float *)field, buf, n); break;
    case S_U64: snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)field); break;
    case S_ENUM:
        if (!choice_at(r->pub.choices, *(const int *)field, buf, n)) snprintf(buf, n, "?");
        break;
    }
    return 0;
}

int bl_config_needs_rebuild(const char *key)
{
    const key_row *r = key ? find_row(key) : NULL;
    if (!r) return bl_fail("set: unknown setting '%s'", key ? key : "(null)");
    return (r->pub.flags & BL_KEY_REBUILD) != 0;
}

char *bl_config_summary(const bl_config *cfg, bl_key_set set, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "%s", bl_model_kind_name(cfg->kind));
    for (int i = 0; i < NROWS && len < n; i++) {
        const bl_config_key *k = &rows[i].pub;
        if (!bl_config_key_in(k, set) || !bl_config_key_applies(k, cfg->kind)) continue;
        char v[32];
        bl_config_get(cfg, k->name, v, sizeof v);
        len += (size_t)snprintf(buf + len, n - len, " %s=%s", k->name, v);
    }
    return buf;
}

json_t *bl_config_to_json(const bl_config *cfg)
{
    json_t *o = json_object();
    if (!o) return BL_FAILP("config: out of memory");
    json_object_set_new(o, "kind", json_string(bl_model_kind_name(cfg->kind)));
    for (int i = 0; i < NROWS; i++) {
        const key_row *r = &rows[i];
        if (!bl_config_key_applies(&r->pub, cfg->kind)) continue;
        char v[64];
        bl_config_get(cfg, r->pub.name, v, sizeof v);
        json_t *j;
        if (r->pub.type == BL_KEY_CHOICE) j = json_string(v);
        else if (r->pub.type == BL_KEY_INT) j = json_integer((json_int_t)strtoll(v, NULL, 10));
        else j = json_real(strtod(v, NULL));
        if (!j || json_object_set_new(o, r->pub.name, j) < 0) {
            json_decref(o);
            return BL_FAILP("config: out of memory");
        }
    }
    return o;
}

int bl_config_from_json(const json_t *obj, bl_config *out)
{
    if (!json_is_object(obj)) return bl_fail("config: expected a JSON object");
    json_t *jk = json_object_get(obj, "kind");
    if (!json_is_string(jk)) return bl_fail("config: missing \"kind\" (dit or gpt)");
    bl_model_kind kind = BL_MODEL_DIT;
    if (bl_model_kind_parse(json_string_value(jk), &kind) < 0) return -1;
    bl_config c = bl_config_default(kind);
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        if (strcmp(key, "kind") == 0) continue;
        const key_row *r = find_row(key);
        if (!r) return bl_fail("config: unknown setting '%s'", key);
        char text[64];
        if (json_is_string(val)) snprintf(text, sizeof text, "%s", json_string_value(val));
        else if (json_is_integer(val)) snprintf(text, sizeof text, "%lld", (long long)json_integer_value(val));
        else if (json_is_real(val)) snprintf(text, sizeof text, "%.17g", json_real_value(val));
        else return bl_fail("config: '%s' must be a number or a string", key);
        if (parse_value(&c, r, text) < 0) return -1;
    }
    if (bl_config_check(&c) < 0) return -1;
    *out = c;
    return 0;
}
