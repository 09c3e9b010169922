/* config.h - the one table of model switches and hyper-parameters (tmux-options style).
 *
 * A bl_config is the blueprint of one model (llm.c's Config) plus the trainer's hyper-parameters,
 * so that one struct goes into a checkpoint's `__metadata__` ("config": bl_config_to_json) and
 * brings back exactly the same run. Every key has one row in a static table (name, type, allowed
 * values or range, default per model kind, one-line help); that table drives bl_config_set/get,
 * the REPL's `set`, tab completion, `help set` and the man page.
 *
 *   key          type    TinyDiT     TinyGPT     allowed
 *   norm         choice  layernorm   layernorm   layernorm | rmsnorm
 *   pos          choice  learned     learned     learned | rope2d (DiT) ; learned | rope (GPT)
 *   mlp          choice  gelu        gelu        gelu | swiglu
 *   qk_norm      choice  off         off         on | off
 *   kv_heads     int     heads       heads       divisor of heads ("auto" = heads)
 *   dim depth heads patch channels image_size context vocab mlp_ratio multiple_of rope_base eps
 *   seed dropout, and the trainer's lr batch warmup cosine clip weight_decay beta1 beta2
 *   eval_every steps: see the table in config.c (`bl_config_key_at`) or `help set`.
 *
 * Keys that do not apply to a kind (patch for TinyGPT, context for TinyDiT) are refused by set.
 * Which changes need a rebuild of the model (new parameter shapes or new initial values) is
 * answered by bl_config_needs_rebuild(); the others (eps, lr, batch, ...) apply in place.
 *
 * Trainer keys (documented here for src/train): lr (AdamW learning rate), batch (examples per
 * step), warmup (linear warmup steps, 0 = none), cosine (on: cosine decay to 0.1 lr over `steps`),
 * clip (max global grad norm, 0 = off), weight_decay (matrices only, 0 = off), beta1, beta2
 * (AdamW; DiT 0.999, GPT 0.99), eval_every (validation interval in steps, 0 = never), steps (the
 * run's planned length, used by cosine). The models never read them.
 *
 * Errors: functions return -1 (or NULL) with one line in bl_error() that starts with the key:
 *   "kv_heads: 3 does not divide heads 4", "pos: rope2d is for TinyDiT; TinyGPT takes learned or rope".
 */
#ifndef BL_CONFIG_H
#define BL_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

typedef enum { BL_MODEL_DIT = 0, BL_MODEL_GPT = 1 } bl_model_kind;
typedef enum { BL_NORM_LAYERNORM = 0, BL_NORM_RMSNORM = 1 } bl_norm_kind;
typedef enum { BL_POS_LEARNED = 0, BL_POS_ROPE = 1, BL_POS_ROPE2D = 2 } bl_pos_kind;
typedef enum { BL_MLP_GELU = 0, BL_MLP_SWIGLU = 1 } bl_mlp_kind;

/* Largest depth a model may have (the per-layer arrays of bl_model are sized by it). */
#define BL_MAX_DEPTH 64

typedef struct bl_config {
    bl_model_kind kind;
    /* the switches (DESIGN.md section 1) */
    bl_norm_kind norm;
    bl_pos_kind pos;
    bl_mlp_kind mlp;
    int qk_norm;            /* 0 / 1 */
    int kv_heads;           /* 0 = same as heads; read it through bl_config_kv_heads() */
    /* shape */
    int dim, depth, heads;
    float mlp_ratio;        /* GELU hidden = mlp_ratio * dim; SwiGLU hidden = int(2 ratio dim / 3) */
    int multiple_of;        /* SwiGLU hidden rounded up to a multiple of this; 0 = no rounding */
    int patch, channels, image_size;   /* TinyDiT: images channels x image_size x image_size */
    int context, vocab;                /* TinyGPT */
    float rope_base;        /* DiT rope2d 100, GPT rope 10000 */
    float eps;              /* 0 = auto: 1e-5 for TinyGPT LayerNorm, 1e-6 otherwise (bl_config_eps) */
    float dropout;          /* training dropout p in [0, 1) (models/model.h: where and which masks) */
    uint64_t seed;          /* parameter init: bl_rng_named(seed, name); data/noise streams too */
    /* trainer hyper-parameters (read by src/train only; see above) */
    float lr;
    int batch, warmup, cosine;
    float clip, weight_decay, beta1, beta2;
    int eval_every, steps;
} bl_config;

/* The type of a key's value. */
typedef enum { BL_KEY_INT, BL_KEY_FLOAT, BL_KEY_CHOICE } bl_key_type;

/* Flags of a key. */
enum {
    BL_KEY_DIT = 1,         /* applies to TinyDiT */
    BL_KEY_GPT = 2,         /* applies to TinyGPT */
    BL_KEY_REBUILD = 4,     /* changing it rebuilds the model (parameters re-initialised) */
    BL_KEY_SWITCH = 8,      /* one of the five ablation switches */
    BL_KEY_TRAIN = 16,      /* a trainer hyper-parameter */
    BL_KEY_AUTO = 32,       /* also accepts "auto" (kv_heads = heads; eps by norm kind) */
    BL_KEY_SIZE = 64,       /* one of the sizes a model's short summary names (dim depth heads) */
    BL_KEY_ARCH = 128,      /* what the model computes: a checkpoint's config must hold it */
};

/* The sets of keys that callers list (each is a rule on the flags and type above, so a new row
 * joins every list it belongs to without edits elsewhere). */
typedef enum {
    BL_KEYS_CHOICES,    /* the switches that are choices (norm pos mlp qk_norm): the dashboard title */
    BL_KEYS_BRIEF,      /* the switches and the size (dim depth heads): a model's value and `model` */
    BL_KEYS_REBUILD,    /* every key whose change rebuilds the model: figure metadata */
    BL_KEYS_ARCH,       /* what makes the model: the keys a checkpoint must hold */
    BL_KEYS_ARITH,      /* what weights of the same names and shapes can disagree on: the choices
                         * and the architecture keys that apply in place (rope_base eps) */
} bl_key_set;

/* One row of the key table. */
typedef struct bl_config_key {
    const char *name;
    bl_key_type type;
    const char *choices;    /* BL_KEY_CHOICE: "layernorm|rmsnorm"; otherwise NULL */
    double min, max;        /* BL_KEY_INT / BL_KEY_FLOAT: allowed range, inclusive */
    const char *def_dit;    /* default for TinyDiT as text, NULL when the key does not apply */
    const char *def_gpt;    /* default for TinyGPT as text, NULL when the key does not apply */
    unsigned flags;         /* BL_KEY_* */
    const char *help;       /* one line */
} bl_config_key;

/* The key table: bl_config_nkeys() rows, in the order `help set` shows them. */
int bl_config_nkeys(void);
const bl_config_key *bl_config_key_at(int i);
/* The row named `name`, or NULL (no error set). */
const bl_config_key *bl_config_find_key(const char *name);
/* 1 when `key` applies to `kind`. */
int bl_config_key_applies(const bl_config_key *key, bl_model_kind kind);
/* 1 when `key` is in the set `set` (whatever the kind; combine with bl_config_key_applies). */
int bl_config_key_in(const bl_config_key *key, bl_key_set set);
/* The choices of a BL_KEY_CHOICE key one by one: the i-th value into buf (NUL-terminated); 0 when
 * there is no i-th value (or the key is not a choice). Index = the enum value. */
int bl_config_choice_at(const bl_config_key *key, int i, char *buf, size_t n);

/* The position encodings the `pos` switch picks from: row i is the switch's value i (the choices
 * of its row in the key table, in order; test_models checks they agree). The models, the checks
 * and the REPL read a row's fields instead of testing the value, so a new encoding is a row here
 * and its tables in src/nn/rope.c (or a new kind of table). */
typedef struct bl_pos_def {
    const char *name;   /* the switch value: "learned" */
    unsigned kinds;     /* BL_KEY_DIT | BL_KEY_GPT: the model kinds it is for */
    int learned;        /* 1: learned position tables (TinyGPT wpe [context, D], TinyDiT pos_embed.row
                         * and .col [grid, D]), which have no position past the training context */
    int rope_axes;      /* 0: no RoPE; 1: RoPE over the token index (bl_rope_table_1d); 2: over the
                         * rows and columns of the patch grid (bl_rope_table_2d). head_dim must be a
                         * multiple of 2 * rope_axes */
} bl_pos_def;
extern const bl_pos_def bl_pos_defs[];   /* ends with a {NULL} row */
/* The row of cfg->pos. */
const bl_pos_def *bl_config_pos(const bl_config *cfg);
/* The name of the first encoding of `kind` that runs past the training context (not learned),
 * "?" when none: what an error about a learned model's context suggests ("rope" for TinyGPT). */
const char *bl_pos_unbounded(bl_model_kind kind);

/* The values of a choice key joined by `sep` ("layernorm or rmsnorm" with sep " or "), into buf
 * (NUL-terminated, cut to n - 1 chars; "" for a key that is not a choice): what help and messages
 * list, from the table. Returns buf. */
char *bl_config_choices_text(const bl_config_key *key, const char *sep, char *buf, size_t n);
/* The i-th value of choice key `name` (index = the enum value), a pointer into a static buffer
 * of its own per call site round (valid until 8 later calls); "?" when there is none. For
 * messages and help that name a value: bl_config_value("pos", 1) is "rope". */
const char *bl_config_value(const char *name, int i);

/* Model kind names: "dit"/"gpt" <-> BL_MODEL_*. Returns -1 + error for an unknown name. */
const char *bl_model_kind_name(bl_model_kind kind);
int bl_model_kind_parse(const char *name, bl_model_kind *kind);

/* The defaults of DESIGN.md section 1 for a kind (TinyDiT: 3x32x32, patch 4, dim 128, depth 4,
 * heads 4; TinyGPT: dim 128, depth 4, heads 4, context 128, vocab 65). */
bl_config bl_config_default(bl_model_kind kind);

/* Set key = value (text, as typed in the REPL). Checks the type, the range or the choices, that
 * the key applies to cfg->kind, and the whole config after the change (divisibility, head_dim
 * parity for rope, ...); on any error cfg is left unchanged and -1 is returned with bl_error()
 * e.g. "heads: 6 does not divide dim 128", "lr: expected a number, got 'fast'". */
int bl_config_set(bl_config *cfg, const char *key, const char *value);

/* Set several keys at once, all-or-nothing, checking consistency only after the last one (so
 * `dim=384 heads=6` and `heads=6 dim=384` both work). keys[i] = values[i], n pairs. */
int bl_config_set_many(bl_config *cfg, int n, const char *const *keys, const char *const *values);

/* The value of a key as text ("rmsnorm", "128", "0.0003") into buf (always NUL-terminated).
 * kv_heads and eps give their effective values. Returns 0, or -1 for an unknown key or one
 * that does not apply to the kind. */
int bl_config_get(const bl_config *cfg, const char *key, char *buf, size_t n);

/* Check a whole config (the cross-key rules). Returns 0 or -1 with the first problem. */
int bl_config_check(const bl_config *cfg);

/* 1 when changing `key` needs the model rebuilt (parameter shapes or initial values change),
 * 0 when it applies in place, -1 (with error) for an unknown key. */
int bl_config_needs_rebuild(const char *key);

/* Effective values. */
int bl_config_kv_heads(const bl_config *cfg);
float bl_config_eps(const bl_config *cfg);
int bl_config_head_dim(const bl_config *cfg);
/* Tokens per image for TinyDiT ((image_size / patch)^2), the context for TinyGPT. */
int bl_config_tokens(const bl_config *cfg);
/* Hidden width of the MLP: the rule of the `mlp` value's row (nn.h bl_mlp_defs). */
int bl_config_mlp_hidden(const bl_config *cfg);

/* One line "dit norm=layernorm pos=learned ... ": the kind, then KEY=VALUE for each key of `set`
 * that applies to the kind, in table order (BL_KEYS_CHOICES for the dashboard title, BL_KEYS_BRIEF
 * for a model's value, BL_KEYS_REBUILD for PNG tEXt chunks). Returns buf (cut to n - 1 chars). */
char *bl_config_summary(const bl_config *cfg, bl_key_set set, char *buf, size_t n);

/* JSON object {"kind": "dit", "norm": "layernorm", "dim": 128, ...} with every key that applies
 * (numbers as numbers, choices as strings). NULL on out of memory. The caller owns the result. */
json_t *bl_config_to_json(const bl_config *cfg);
/* Read such an object: starts from the kind's defaults, sets every key found (unknown keys are an
 * error naming them, so a newer checkpoint is not misread), then checks. Returns 0 or -1. */
int bl_config_from_json(const json_t *obj, bl_config *cfg);

#endif
