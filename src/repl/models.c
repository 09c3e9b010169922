/* models.c - models as REPL values and the model commands (see models.h). */
#include "repl/models.h"
#include "repl/modellab.h"
#include "core/fmt.h"
#include "core/error.h"
#include "models/config.h"
#include "repl/train.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bl_value *cur;      /* the current model (a reference) or NULL */
    int counter;        /* the last mN name given */
} mstate;

static mstate *st(bl_session *s) { return s->models; }

/* ---- the model value ---- */
static void mfree(void *p)
{
    bl_train_forget(p);     /* its data and run go with it */
    bl_model_free(p);
}

static void mdescribe(void *p, char *buf, size_t n)
{
    bl_model *m = p;
    char sum[512];
    snprintf(buf, n, "%s, %zu parameters", bl_config_summary(&m->cfg, BL_KEYS_BRIEF, sum, sizeof sum), bl_model_param_count(m));
}

static void mprint(void *p, FILE *out)
{
    char d[600];
    mdescribe(p, d, sizeof d);
    fprintf(out, "<model %s>\n", d);
}

static bl_value *mfield(void *p, const char *name)
{
    bl_model *m = p;
    char buf[128];
    if (!strcmp(name, "kind")) return bl_val_str(bl_model_kind_name(m->kind));
    if (!strcmp(name, "params")) return bl_val_num((double)bl_model_param_count(m));
    if (!strcmp(name, "run")) return bl_train_run_value(m, "run");
    const bl_config_key *k = bl_config_find_key(name);
    if (!k || bl_config_get(&m->cfg, name, buf, sizeof buf) < 0) {
        bl_clear_error();
        return BL_FAILP("a %s model has no field '%s' (fields: kind, params, run and the keys of help keys)",
                        bl_model_kind_name(m->kind), name);
    }
    if (k->type == BL_KEY_CHOICE) {
        if (!strcmp(buf, "on") || !strcmp(buf, "off")) return bl_val_bool(buf[1] == 'n');
        return bl_val_str(buf);
    }
    return bl_val_num(strtod(buf, NULL));
}

const bl_handle_type bl_model_type = { "model", mfree, mprint, mfield, mdescribe, NULL, bl_model_call };

void bl_models_init(bl_session *s) { s->models = calloc(1, sizeof(mstate)); }

void bl_models_free(bl_session *s)
{
    if (!s->models) return;
    bl_val_unref(st(s)->cur);
    free(s->models);
    s->models = NULL;
}

bl_model *bl_models_current(bl_session *s, const char *cmd)
{
    if (!st(s) || !st(s)->cur)
        return BL_FAILP("%s: no model yet (model dit or model gpt makes one)", cmd);
    return st(s)->cur->h;
}

static int is_model(const bl_value *v) { return v && v->kind == BL_V_HANDLE && v->htype == &bl_model_type; }

bl_model *bl_models_pick(bl_cmdargs *a, int *used)
{
    *used = 0;
    if (a->n > 0 && !a->w[0].key) {
        bl_value *v = bl_session_get(a->s, a->w[0].text);
        if (is_model(v)) {
            *used = 1;
            return v->h;
        }
        if (v && v->kind != BL_V_NUM) {   /* a number is an argument: `train steps` */
            bl_fail("%s: '%s' is a %s, not a model", a->st->name, a->w[0].text, bl_val_kind_name(v));
            bl_session_errat(a->s, a->w[0].pos);
            return NULL;
        }
    }
    return bl_models_current(a->s, a->st->name);
}

/* A model of `kind` with keys[i] = vals[i] set all at once. */
static bl_model *make(bl_model_kind kind, int n, const char *const *keys, const char *const *vals)
{
    bl_config cfg = bl_config_default(kind);
    if (n && bl_config_set_many(&cfg, n, keys, vals) < 0) return NULL;
    bl_model *m = bl_model_new(&cfg);
    if (m) m->interrupted = bl_interrupted;    /* Ctrl-C stops sampling between steps */
    return m;
}

static void announce(bl_session *s, const char *name, bl_model *m, const char *what)
{
    char sum[512];
    fprintf(s->out, "%s: %s%s, %zu parameters\n", name, what, bl_config_summary(&m->cfg, BL_KEYS_BRIEF, sum, sizeof sum),
            bl_model_param_count(m));
}

/* Which word's key does the config error name or mention? (for the caret) */
static int names_key(const char *key, int *quoted);
static int mentions_key(const char *key);
/* The word a config error is about: one whose key the message starts with ("dim: ...") or
 * quotes ('foo'); else one whose key the message names as a word (`set heads=1` with kv_heads 2:
 * "kv_heads: 2 does not divide heads 1"). -1 when none. *quoted tells a quoted key (an unknown
 * one: the caret goes under the key, not the value). */
static int word_of_error(bl_cmdargs *a, int from, int *quoted)
{
    *quoted = 0;
    for (int i = from; i < a->n; i++)
        if (a->w[i].key && names_key(a->w[i].key, quoted)) return i;
    for (int i = from; i < a->n; i++)
        if (a->w[i].key && mentions_key(a->w[i].key)) return i;
    return -1;
}

/* After bl_models_pick left word `used` unread: is it a plain name meant as a model (`set x
 * dim=64`, `show zz`)? Then -1 + "cmd: 'x' is not a model (it is a number)" or
 * "cmd: unknown model 'zz'" at the word; else 0. */
static int not_a_model(bl_cmdargs *a, int used)
{
    if (used >= a->n || a->w[used].key) return 0;
    const char *t = a->w[used].text;
    if (!(isalpha((unsigned char)*t) || *t == '_')) return 0;
    for (const char *c = t; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_')) return 0;
    bl_value *v = bl_session_get(a->s, t);
    if (v) bl_fail("%s: '%s' is not a model (it is a %s)", a->st->name, t, bl_val_kind_name(v));
    else bl_fail("%s: unknown model '%s'", a->st->name, t);
    return bl_session_errat(a->s, a->w[used].pos);
}

static int kv_words(bl_cmdargs *a, int from, const char **keys, const char **vals)
{
    int n = 0;
    for (int i = from; i < a->n; i++) {
        if (!a->w[i].key) {
            bl_fail("%s: expected KEY=VALUE, got '%s' (help keys lists the keys)", a->st->name, a->w[i].text);
            bl_session_errat(a->s, a->w[i].pos);
            return -1;
        }
        keys[n] = a->w[i].key;
        vals[n++] = a->w[i].text;
    }
    return n;
}

/* The config's message, without a "set: " it may start with (the caller names itself). */
static void config_msg(char *msg, size_t n)
{
    const char *e = bl_error();
    snprintf(msg, n, "%s", strncmp(e, "set: ", 5) ? e : e + 5);
}

/* Does the config error name this key ("key: ..." or "... 'key'")? *quoted = 1 for the latter. */
static int names_key(const char *key, int *quoted)
{
    char q[80];
    const char *e = bl_error();
    if (!strncmp(e, "set: ", 5)) e += 5;
    snprintf(q, sizeof q, "'%s'", key);
    if (!strncmp(e, key, strlen(key)) && e[strlen(key)] == ':') return 1;
    if (strstr(e, q)) return *quoted = 1;
    return 0;
}

/* Does the config error mention this key as a whole word ("... divide heads 1")? */
static int mentions_key(const char *key)
{
    size_t k = strlen(key);
    for (const char *e = strstr(bl_error(), key); e; e = strstr(e + 1, key)) {
        int before = e == bl_error() || !(isalnum((unsigned char)e[-1]) || e[-1] == '_');
        int after = !(isalnum((unsigned char)e[k]) || e[k] == '_');
        if (before && after) return 1;
    }
    return 0;
}

static int config_error(bl_cmdargs *a, int from)
{
    int quoted, i = word_of_error(a, from, &quoted);
    char msg[512];
    config_msg(msg, sizeof msg);
    bl_fail("%s: %s", a->st->name, msg);
    return bl_session_errat(a->s, i < 0 ? a->st->pos : quoted ? a->w[i].pos : a->w[i].vpos);
}

int bl_cmd_model(bl_cmdargs *a)
{
    mstate *ms = st(a->s);
    if (a->n == 0) {
        if (!ms->cur) {
            fprintf(a->s->out, "no model yet: model dit or model gpt makes one\n");
            return 0;
        }
        for (int i = 0; i < a->s->nvars; i++)
            if (a->s->vals[i] == ms->cur) {
                announce(a->s, a->s->names[i], ms->cur->h, "(current) ");
                return 0;
            }
        announce(a->s, "current", ms->cur->h, "");
        return 0;
    }
    bl_model_kind kind;
    if (a->w[0].key || bl_model_kind_parse(a->w[0].text, &kind) < 0) {
        bl_fail("model: expected dit or gpt, got '%s'", a->w[0].text);
        return bl_session_errat(a->s, a->w[0].pos);
    }
    const char *keys[64], *vals[64];
    if (a->n > 65) return bl_fail("model: too many keys");
    int n = kv_words(a, 1, keys, vals);
    if (n < 0) return -1;
    bl_model *m = make(kind, n, keys, vals);
    if (!m) return config_error(a, 1);
    bl_value *v = bl_val_handle(&bl_model_type, m);
    if (!v) return -1;
    char name[32];
    do snprintf(name, sizeof name, "m%d", ++ms->counter);
    while (bl_session_get(a->s, name));
    if (bl_session_set(a->s, name, v) < 0) {
        bl_val_unref(v);
        return -1;
    }
    bl_val_unref(ms->cur);
    ms->cur = v;    /* the reference from creation */
    announce(a->s, name, m, "(current) ");
    return 0;
}

int bl_models_adopt(bl_session *s, bl_model *m, const char *name)
{
    mstate *ms = st(s);
    bl_value *v = bl_val_handle(&bl_model_type, m);
    if (!v) return -1;
    char buf[32];
    if (!name) {
        do snprintf(buf, sizeof buf, "m%d", ++ms->counter);
        while (bl_session_get(s, buf));
        name = buf;
    }
    m->interrupted = bl_interrupted;
    if (bl_session_set(s, name, v) < 0) {
        bl_val_unref(v);    /* frees m (and its training state) */
        return -1;
    }
    bl_val_unref(ms->cur);
    ms->cur = v;
    announce(s, name, m, "(current) ");
    return 0;
}

int bl_cmd_use(bl_cmdargs *a)
{
    if (a->n != 1) {
        bl_fail("use: name one model variable (use a)");
        return a->n ? bl_session_errat(a->s, a->w[1].pos) : -1;
    }
    bl_value *v = bl_session_get(a->s, a->w[0].text);
    if (!is_model(v)) {
        if (v) bl_fail("use: '%s' is a %s, not a model", a->w[0].text, bl_val_kind_name(v));
        else bl_fail("use: no variable '%s'", a->w[0].text);
        return bl_session_errat(a->s, a->w[0].pos);
    }
    bl_val_unref(st(a->s)->cur);
    st(a->s)->cur = bl_val_ref(v);
    announce(a->s, a->w[0].text, v->h, "(current) ");
    return 0;
}

/* Do two configs of one kind agree on every key that applies, by effective value (kv_heads
 * and eps as bl_config_get gives them; floats as round-trip text, so equal text is equal value)?
 * only_rebuild: just the keys whose change rebuilds the model. */
static int same_keys(const bl_config *x, const bl_config *y, int only_rebuild)
{
    if (x->kind != y->kind) return 0;
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        if (!bl_config_key_applies(k, x->kind) || (only_rebuild && !(k->flags & BL_KEY_REBUILD))) continue;
        char u[64], v[64];
        bl_config_get(x, k->name, u, sizeof u);
        bl_config_get(y, k->name, v, sizeof v);
        if (strcmp(u, v)) return 0;
    }
    return 1;
}
static int same_config(const bl_config *x, const bl_config *y) { return same_keys(x, y, 0); }
static int same_arch(const bl_config *x, const bl_config *y) { return same_keys(x, y, 1); }

/* The name the model is bound to (the first variable holding it), for messages. */
static const char *model_name(bl_session *s, const bl_model *m)
{
    for (int i = 0; i < s->nvars; i++)
        if (is_model(s->vals[i]) && s->vals[i]->h == m) return s->names[i];
    return "the model";
}

int bl_cmd_set(bl_cmdargs *a)
{
    int used = a->n > 0 && !a->w[0].key && is_model(bl_session_get(a->s, a->w[0].text));
    if (not_a_model(a, used) < 0) return -1;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    const char *keys[64], *vals[64];
    if (a->n > 64) return bl_fail("set: too many keys");
    int n = kv_words(a, used, keys, vals);
    if (n < 0) return -1;
    if (n == 0) {
        bl_fail("set: expected KEY=VALUE... (help keys lists the keys)");
        return -1;
    }
    bl_config cfg = m->cfg;
    if (bl_config_set_many(&cfg, n, keys, vals) < 0) return config_error(a, used);
    /* A value the model already has changes nothing: no rebuild, the run is kept (`set
     * pos=learned` on a trained learned-pos model used to throw the run away). Keys are compared
     * by their effective values, so kv_heads=auto with kv_heads = heads is no change either. */
    if (same_config(&m->cfg, &cfg)) {
        m->cfg = cfg;       /* kv_heads=auto, eps=auto: the same model, the key as asked */
        char line[1024];
        size_t len = (size_t)snprintf(line, sizeof line, "%s: unchanged (",
                                      used ? a->w[0].text : model_name(a->s, m));
        for (int i = 0; i < n && len < sizeof line; i++) {
            char buf[64];
            bl_config_get(&m->cfg, keys[i], buf, sizeof buf);
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s is already %s", i ? ", " : "",
                                    keys[i], buf);
        }
        fprintf(a->s->out, "%s)\n", line);
        return 0;
    }
    if (!same_arch(&m->cfg, &cfg)) {
        if (bl_model_rebuild(m, &cfg) < 0) return config_error(a, used);
        char sum[512];
        fprintf(a->s->out, "rebuilt %s, %zu parameters\n"
                "  (initial values from seed %llu and each name: shared parameters are unchanged)\n",
                bl_config_summary(&m->cfg, BL_KEYS_BRIEF, sum, sizeof sum), bl_model_param_count(m),
                (unsigned long long)m->cfg.seed);
        bl_train_discard_run(m, a->s->out);
    } else {
        /* in place; a new rope_base also remakes the RoPE tables (bl_model_set does), which
         * setting the config alone left at the old base */
        char base[64];
        int new_base = cfg.rope_base != m->cfg.rope_base;
        bl_config_get(&cfg, "rope_base", base, sizeof base);
        cfg.rope_base = m->cfg.rope_base;
        bl_config old = m->cfg;
        m->cfg = cfg;
        if (new_base && bl_model_set(m, "rope_base", base, NULL) < 0) {
            m->cfg = old;
            return config_error(a, used);
        }
        for (int i = 0; i < n; i++) {
            char buf[64];
            bl_config_get(&m->cfg, keys[i], buf, sizeof buf);
            fprintf(a->s->out, "%s = %s\n", keys[i], buf);
        }
    }
    return 0;
}

static void show_keys(FILE *out, const bl_config *cfg, unsigned want, unsigned avoid, const char *title)
{
    int col = fprintf(out, "  %-9s", title);
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        char buf[64], item[128];
        if (!(k->flags & want) || (k->flags & avoid) || !bl_config_key_applies(k, cfg->kind)) continue;
        if (bl_config_get(cfg, k->name, buf, sizeof buf) < 0) continue;
        int n = snprintf(item, sizeof item, " %s=%s", k->name, buf);
        if (col + n > 78) col = fprintf(out, "\n  %-9s", "");
        col += fprintf(out, "%s", item);
    }
    fputc('\n', out);
}

int bl_cmd_show(bl_cmdargs *a)
{
    int used = a->n > 0 && !a->w[0].key && is_model(bl_session_get(a->s, a->w[0].text));
    if (not_a_model(a, used) < 0) return -1;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    if (a->n > used) {
        bl_fail("show: too many arguments (show [MODEL])");
        return bl_session_errat(a->s, a->w[used].pos);
    }
    FILE *o = a->s->out;
    fprintf(o, "%s model, %zu parameters\n", bl_kind_of(m->kind)->title,
            bl_model_param_count(m));
    show_keys(o, &m->cfg, BL_KEY_SWITCH, 0, "switches");
    show_keys(o, &m->cfg, ~0u, BL_KEY_SWITCH | BL_KEY_TRAIN, "shape");
    show_keys(o, &m->cfg, BL_KEY_TRAIN, 0, "training");
    bl_train_show(m, o);
    return 0;
}

int bl_cmd_params(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    long depth = bl_kind_of(m->kind)->params_depth;
    for (int i = used; i < a->n; i++) {
        if (!a->w[i].key || strcmp(a->w[i].key, "depth")) {
            bl_fail("params: expected depth=N, got '%s'", a->w[i].text);
            return bl_session_errat(a->s, a->w[i].pos);
        }
        char *end;
        depth = strtol(a->w[i].text, &end, 10);
        if (*end || end == a->w[i].text || depth < 0 || depth > 16) {
            bl_fail("params: depth must be a whole number in [0, 16], got '%s'", a->w[i].text);
            return bl_session_errat(a->s, a->w[i].vpos);
        }
    }
    bl_param_group *g = NULL;
    int ng = bl_params_groups(m->params, depth == 0 ? -1 : (int)depth, &g);
    if (ng < 0) return -1;
    const char *cols[] = { "module", "tensors", "parameters" };
    bl_table *t = bl_table_new(3, cols);
    int ntensors = 0;
    for (int i = 0; t && i < ng; i++) {
        ntensors += g[i].ntensors;
        if (bl_table_addf(t, "%s\t%d\t%zu", g[i].prefix, g[i].ntensors, g[i].count) < 0) {
            bl_table_free(t);
            t = NULL;
        }
    }
    free(g);
    if (!t) return -1;
    size_t total = bl_model_param_count(m);
    if (!a->st->redirect || bl_stmt_redirects_to(a->st, ".txt")) {
        bl_table_write_txt(t, a->s->out);
        fprintf(a->s->out, "total %zu\n", total);
        bl_table_free(t);
        return 0;
    }
    if (bl_table_addf(t, "total\t%d\t%zu", ntensors, total) < 0) {
        bl_table_free(t);
        return -1;
    }
    a->result = bl_val_table(t);
    return a->result ? 0 : -1;
}

/* ---- functions ---- */
bl_value *bl_fn_model(bl_callargs *a)
{
    bl_model_kind kind = BL_MODEL_DIT;
    bl_model_kind_parse(a->fname, &kind);   /* dit() or gpt(): each is named after its kind */
    if (bl_nargs(a, 0, 0) < 0) return NULL;
    const char *keys[64], *vals[64];
    char bufs[64][64];
    for (int j = 0; j < a->nk; j++) {
        bl_value *v = bl_kw(a, a->key[j]);
        keys[j] = a->key[j];
        if (v->kind == BL_V_STR) snprintf(bufs[j], sizeof bufs[j], "%s", v->str);
        else if (v->kind == BL_V_BOOL) snprintf(bufs[j], sizeof bufs[j], "%s", v->num ? "on" : "off");
        else if (v->kind == BL_V_NUM) bl_snprintf(bufs[j], sizeof bufs[j], "%.17g", v->num);
        else {
            bl_fail("%s: %s must be a number, a string or on/off, got a %s", a->fname, a->key[j],
                    bl_val_kind_name(v));
            bl_session_errat(a->s, a->kpos[j]);
            return NULL;
        }
        vals[j] = bufs[j];
    }
    bl_model *m = make(kind, a->nk, keys, vals);
    if (!m) {
        for (int j = 0; j < a->nk; j++)
            if (names_key(keys[j], &(int){0})) bl_session_errat(a->s, a->kname[j]);
        char msg[512];
        config_msg(msg, sizeof msg);
        bl_fail("%s: %s", a->fname, msg);
        return NULL;
    }
    return bl_val_handle(&bl_model_type, m);
}

bl_value *bl_fn_param(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    if (!is_model(a->v[0])) {
        bl_fail("param: the first argument must be a model, got a %s", bl_val_kind_name(a->v[0]));
        bl_session_errat(a->s, a->vpos[0]);
        return NULL;
    }
    if (a->v[1]->kind != BL_V_STR) {
        bl_fail("param: the name must be a string like \"blocks.0.attn.qkv.weight\"");
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    bl_model *m = a->v[0]->h;
    bl_tensor *p = bl_params_find(m->params, a->v[1]->str);
    if (!p) {
        bl_fail("param: the model has no parameter '%s' (params %s depth=0 lists them)", a->v[1]->str,
                "MODEL");
        bl_session_errat(a->s, a->vpos[1]);
        return NULL;
    }
    return bl_val_tensor(bl_tensor_copy(p));
}

/* ---- help and completion ---- */
int bl_models_help(bl_session *s, const char *topic, FILE *out)
{
    if (!strcmp(topic, "keys")) {
        fprintf(out, "Keys of `model`, `set`, dit() and gpt() (D: TinyDiT, G: TinyGPT, R: a change rebuilds):\n");
        for (int i = 0; i < bl_config_nkeys(); i++) {
            const bl_config_key *k = bl_config_key_at(i);
            fprintf(out, "  %-13s %c%c%c %s\n", k->name, k->flags & BL_KEY_DIT ? 'D' : '-',
                    k->flags & BL_KEY_GPT ? 'G' : '-', k->flags & BL_KEY_REBUILD ? 'R' : '-', k->help);
        }
        return 0;
    }
    const bl_config_key *k = bl_config_find_key(topic);
    if (!k) return -1;
    fprintf(out, "%s: %s\n", k->name, k->help);
    if (k->choices) fprintf(out, "  values: %s\n", k->choices);
    else fprintf(out, "  range: %g to %g\n", k->min, k->max);
    if (k->def_dit) fprintf(out, "  TinyDiT default: %s\n", k->def_dit);
    if (k->def_gpt) fprintf(out, "  TinyGPT default: %s\n", k->def_gpt);
    fprintf(out, "  %s\n", k->flags & BL_KEY_REBUILD ? "changing it rebuilds the model" : "applies in place");
    (void)s;
    return 0;
}

void bl_models_complete_topics(const char *prefix, bl_strlist *out)
{
    size_t n = strlen(prefix);
    if (!strncmp("keys", prefix, n)) bl_strlist_add(out, "keys");
    for (int i = 0; i < bl_config_nkeys(); i++)
        if (!strncmp(bl_config_key_at(i)->name, prefix, n)) bl_strlist_add(out, bl_config_key_at(i)->name);
}

/* KEY= names, or after '=' the key's choices (prefix is the whole word "norm=rms"). */
static void complete_kv(bl_model_kind kind, const char *prefix, bl_strlist *out)
{
    const char *eq = strchr(prefix, '=');
    char buf[256];
    if (!eq) {
        for (int i = 0; i < bl_config_nkeys(); i++) {
            const bl_config_key *k = bl_config_key_at(i);
            if (!bl_config_key_applies(k, kind) || strncmp(k->name, prefix, strlen(prefix))) continue;
            snprintf(buf, sizeof buf, "%s=", k->name);
            bl_strlist_add(out, buf);
        }
        return;
    }
    char key[64], val[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - prefix), prefix);
    const bl_config_key *k = bl_config_find_key(key);
    if (!k || !k->choices) return;
    const char *c = k->choices;
    while (*c) {
        const char *bar = strchr(c, '|');
        int len = bar ? (int)(bar - c) : (int)strlen(c);
        snprintf(val, sizeof val, "%.*s", len, c);
        snprintf(buf, sizeof buf, "%s=%s", key, val);
        /* offer only values this kind accepts (pos=rope2d is TinyDiT's, pos=rope TinyGPT's) */
        bl_config cfg = bl_config_default(kind);
        if (!strncmp(buf, prefix, strlen(prefix)) && bl_config_set(&cfg, key, val) == 0)
            bl_strlist_add(out, buf);
        bl_clear_error();
        c += len + (bar != NULL);
    }
}

int bl_complete_model(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    static const char *const kinds[] = { "dit", "gpt", NULL };
    if (argi == 0) {
        bl_complete_from(kinds, prefix, out);
        return 0;
    }
    bl_model_kind kind;
    if (bl_model_kind_parse(words[0], &kind) < 0) {
        bl_clear_error();
        return 0;
    }
    complete_kv(kind, prefix, out);
    return 0;
}

int bl_complete_modelvar(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    if (argi > 0) return 0;
    size_t n = strlen(prefix);
    for (int i = 0; i < s->nvars; i++)
        if (is_model(s->vals[i]) && !strncmp(s->names[i], prefix, n)) bl_strlist_add(out, s->names[i]);
    return 0;
}

int bl_complete_set(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    bl_model_kind kind = BL_MODEL_DIT;
    bl_value *v = argi > 0 ? bl_session_get(s, words[0]) : NULL;
    if (is_model(v)) kind = ((bl_model *)v->h)->kind;
    else if (st(s) && st(s)->cur) kind = ((bl_model *)st(s)->cur->h)->kind;
    if (argi == 0 && !strchr(prefix, '=')) bl_complete_modelvar(s, 0, words, prefix, out);
    complete_kv(kind, prefix, out);
    return 0;
}
