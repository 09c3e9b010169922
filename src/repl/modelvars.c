/* modelvars.c - models as REPL values (see modelvars.h): the model value, the current model, the
 * words the model commands share, dit()/gpt()/param(), help keys and completion. */
#include "repl/modelvars.h"
#include "repl/modellab.h"
#include "core/fmt.h"
#include "core/error.h"
#include "models/config.h"
#include "repl/trainstate.h"
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
    if (!strcmp(name, "training")) return bl_val_bool(bl_lab_training(m));   /* m.train() / m.eval() */
    const bl_config_key *k = bl_config_find_key(name);
    if (!k || bl_config_get(&m->cfg, name, buf, sizeof buf) < 0) {
        bl_clear_error();
        return BL_FAILP("a %s model has no field '%s' (fields: kind, params, run, training and the keys of help keys)",
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

bl_value *bl_models_current_value(bl_session *s) { return st(s) ? st(s)->cur : NULL; }

void bl_models_use(bl_session *s, bl_value *v, const char *name)
{
    bl_val_unref(st(s)->cur);
    st(s)->cur = bl_val_ref(v);
    bl_models_announce(s, name, v->h, "(current) ");
}

void bl_models_rebound(bl_session *s, const bl_value *old, bl_value *v)
{
    if (st(s) && st(s)->cur && old == st(s)->cur && bl_is_model_value(v) && v != old) {
        bl_val_unref(st(s)->cur);
        st(s)->cur = bl_val_ref(v);
    }
}

bl_model *bl_models_current(bl_session *s, const char *cmd)
{
    if (!st(s) || !st(s)->cur)
        return BL_FAILP("%s: no model yet (model dit or model gpt makes one)", cmd);
    return st(s)->cur->h;
}

int bl_is_model_value(const bl_value *v) { return v && v->kind == BL_V_HANDLE && v->htype == &bl_model_type; }

bl_model *bl_models_pick(bl_cmdargs *a, int *used)
{
    *used = 0;
    if (a->n > 0 && !a->w[0].key) {
        bl_value *v = bl_session_get(a->s, a->w[0].text);
        if (bl_is_model_value(v)) {
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
bl_model *bl_models_make(bl_model_kind kind, int n, const char *const *keys, const char *const *vals)
{
    bl_config cfg = bl_config_default(kind);
    if (n && bl_config_set_many(&cfg, n, keys, vals) < 0) return NULL;
    bl_model *m = bl_model_new(&cfg);
    if (m) m->interrupted = bl_interrupted;    /* Ctrl-C stops sampling between steps */
    return m;
}

void bl_models_announce(bl_session *s, const char *name, bl_model *m, const char *what)
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
int bl_models_not_a_model(bl_cmdargs *a, int used)
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

int bl_models_kv_words(bl_cmdargs *a, int from, const char **keys, const char **vals)
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

int bl_models_config_error(bl_cmdargs *a, int from)
{
    int quoted, i = word_of_error(a, from, &quoted);
    char msg[512];
    config_msg(msg, sizeof msg);
    bl_fail("%s: %s", a->st->name, msg);
    return bl_session_errat(a->s, i < 0 ? a->st->pos : quoted ? a->w[i].pos : a->w[i].vpos);
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
    bl_models_announce(s, name, m, "(current) ");
    return 0;
}

/* ---- functions ---- */
static bl_value *fn_model(bl_callargs *a)
{
    bl_model_kind kind = bl_kind_at(0)->kind;
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
    bl_model *m = bl_models_make(kind, a->nk, keys, vals);
    if (!m) {
        for (int j = 0; j < a->nk; j++)
            if (names_key(keys[j], &(int){0})) bl_session_errat(a->s, a->kname[j]);
        char msg[512];
        config_msg(msg, sizeof msg);
        bl_fail("%s: %s", a->fname, msg);
        return NULL;
    }
    bl_value *v = bl_val_handle(&bl_model_type, m);
    if (v && st(a->s) && !st(a->s)->cur) st(a->s)->cur = bl_val_ref(v);   /* the first model is current */
    return v;
}

static bl_value *fn_param(bl_callargs *a)
{
    if (bl_nargs(a, 2, 2) < 0) return NULL;
    if (!bl_is_model_value(a->v[0])) {
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
void bl_models_complete_kv(bl_model_kind kind, const char *prefix, bl_strlist *out)
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


int bl_complete_modelvar(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    if (argi > 0) return 0;
    size_t n = strlen(prefix);
    for (int i = 0; i < s->nvars; i++)
        if (bl_is_model_value(s->vals[i]) && !strncmp(s->names[i], prefix, n)) bl_strlist_add(out, s->names[i]);
    return 0;
}

/* dit(...), gpt(...) and param() with their help: this file's function table (repl.h;
 * bl_function_at lists it after functions.c's own). */
const bl_function bl_model_functions[] = {
    { "dit", "dit(key=value, ...)",
      "A new TinyDiT model (images, flow matching) with the given keys. For example\n"
      "a = dit(pos=\"{pos:2}\", qk_norm={qk_norm:1}). It becomes the current model when there is\n"
      "none; otherwise it does not change the current model (use a does), but binding a new\n"
      "model to the current model's name (m = dit(...) again) makes the new one current.", fn_model },
    { "gpt", "gpt(key=value, ...)",
      "A new TinyGPT model (characters, next-token prediction). The given keys set it up,\n"
      "for example b = gpt(norm=\"{norm:1}\"). The current model as dit() says.",
      fn_model },
    { "param", "param(m, \"name\")",
      "A copy of one parameter of model m by its PyTorch name. For example\n"
      "param(m1, \"blocks.0.attn.qkv.weight\"); `params m1 depth=0` lists the names.", fn_param },
    { NULL, NULL, NULL, NULL },
};
