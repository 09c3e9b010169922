/* cmd_sample.c - sample (TinyDiT image grids, TinyGPT text) from the REPL (see trainstate.h). */
#include "repl/trainstate.h"
#include "repl/figures.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include "data/dataset.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every word from `from` on must be KEY=VALUE with a key of `keys`. */
static int step_of(const bl_model *m)
{
    bl_train_state *t = bl_train_find(m);
    if (t && t->run) return bl_run_steps(t->run);
    return t && t->has_pending ? (int)t->pending.step : 0;
}

static int sample_dit(bl_cmdargs *a, bl_model *m, int used)
{
    static const char *const keys[] = { "n", "steps", "seed", "cols", BL_FIG_SIZE_KEYS, NULL };
    long n, steps, seed, cols = 0;
    if (bl_opt_check(a, used, keys) < 0 || bl_opt_int(a, "n", 16, 1, 256, &n) < 0 ||
        bl_opt_int(a, "steps", 20, 1, 10000, &steps) < 0 ||
        bl_opt_int(a, "seed", 0, 0, 9007199254740991L, &seed) < 0 || bl_cmd_figsize(a, NULL) < 0)
        return -1;
    int ci = bl_opt_find(a, "cols");
    if (ci >= 0 && bl_word_int(a, ci, 1, n, &cols) < 0) return -1;
    bl_tensor *x = bl_dit_sample(m, (int)n, (int)steps, (uint64_t)seed);
    if (!x && bl_interrupted()) {   /* Ctrl-C: one plain line, as train says it, and nothing to write */
        bl_interrupt_newline(a->s->out);
        fprintf(a->s->out, "%s (no picture made)\n", bl_error());
        bl_clear_error();
        bl_interrupt_reported(a->s);
        a->result = bl_val_none();
        return a->result ? 0 : -1;
    }
    if (!x) return bl_session_errat(a->s, a->st->pos);
    char title[160];
    snprintf(title, sizeof title, "TinyDiT samples: step %d, %ld Euler steps, seed %ld", step_of(m), steps, seed);
    bl_figure *f = bl_fig_new(1, 1, title);
    int rc = f ? bl_panel_images(bl_fig_panel(f, 0), x->data, (int)n, x->shape[1], x->shape[2], x->shape[3],
                                 -1.0f, 1.0f, (int)cols) : -1;
    bl_tensor_free(x);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, NULL);
}

/* The vocabulary of GPT model m from its text or checkpoint. When it has neither, *deflt is the
 * default text, opened but not attached (so the command can check its input first and attach it
 * with use_default only when it will succeed) and the vocabulary is that text's. NULL + error. */
static bl_train_state *peek_vocab(bl_model *m, const char *cmd, bl_dataset **deflt, const unsigned char **vocab,
                                  int *vocab_size)
{
    bl_train_state *t = bl_train_get(m);
    *deflt = NULL;
    if (!t) return NULL;
    *vocab = t->vocab;
    *vocab_size = t->vocab_size;
    if (t->vocab_size) return t;
    if (!(*deflt = bl_train_open_default(m, cmd))) return NULL;
    *vocab = (*deflt)->vocab;
    *vocab_size = (*deflt)->vocab_size;
    return t;
}

/* Attach the default text peek_vocab opened (when it did) and check the model's vocab is the
 * text's. The state or NULL + error. */
static bl_train_state *use_default(bl_session *s, bl_model *m, bl_dataset *deflt, const char *cmd)
{
    if (deflt && !bl_train_attach_default(s, m, deflt, cmd)) return NULL;
    bl_train_state *t = bl_train_get(m);
    if (t && t->vocab_size != m->cfg.vocab)
        return BL_FAILP("%s: the model's vocab is %d but its text has %d distinct bytes (data text FILE "
                        "attaches a text and sets it)", cmd, m->cfg.vocab, t->vocab_size);
    return t;
}

static int sample_gpt(bl_cmdargs *a, bl_model *m, int used)
{
    static const char *const keys[] = { "prompt", "n", "temperature", "top_k", "seed", "cache", "sliding", NULL };
    long n, top_k, seed;
    double temp;
    int cache, sliding;
    if (bl_opt_check(a, used, keys) < 0 || bl_opt_int(a, "n", 200, 0, 1000000, &n) < 0 ||
        bl_opt_num(a, "temperature", 1, 0, 1e6, &temp) < 0 ||
        bl_opt_int(a, "top_k", 0, 0, 1048576, &top_k) < 0 ||
        bl_opt_int(a, "seed", 0, 0, 9007199254740991L, &seed) < 0 ||
        bl_opt_bool(a, "cache", 1, &cache) < 0 || bl_opt_bool(a, "sliding", 0, &sliding) < 0)
        return -1;
    int pi = bl_opt_find(a, "prompt");
    const char *prompt = pi >= 0 ? a->w[pi].text : "ROMEO:";
    int np = (int)strlen(prompt);
    if (np == 0) {
        bl_fail("sample: the prompt is empty (give at least one character, e.g. prompt=\"\\n\")");
        return bl_session_errat(a->s, a->w[pi].vpos);
    }
    if (bl_config_pos(&m->cfg)->learned && !sliding && np + n - 1 > m->cfg.context) {
        /* how to go on, in the same line: the window that slides, or the n that still fits */
        long left = (long)m->cfg.context - np + 1;
        char how[160];
        if (left >= 1)
            snprintf(how, sizeof how, "sample ... sliding=on, or n=%ld (the context left)", left);
        else
            snprintf(how, sizeof how, "sample ... sliding=on, or a prompt of at most %d bytes", m->cfg.context);
        bl_fail("sample: pos=%s has positions for %d tokens but %ld were asked (prompt %d byte%s + %ld new); "
                "go on with %s; pos=%s runs past the context", bl_config_pos(&m->cfg)->name, m->cfg.context,
                np + n - 1, np, BL_PLURAL(np), n, how, bl_pos_unbounded(m->kind));
        return bl_session_errat(a->s, a->st->pos);
    }
    /* the prompt is checked before the default text is attached: a failing sample changes nothing */
    bl_dataset *deflt;
    const unsigned char *vocab = NULL;
    int vocab_size = 0;
    bl_train_state *t = peek_vocab(m, "sample", &deflt, &vocab, &vocab_size);
    if (!t) return bl_session_errat(a->s, a->st->pos);
    int byte_to_id[256];
    for (int i = 0; i < 256; i++) byte_to_id[i] = -1;
    for (int i = 0; i < vocab_size; i++) byte_to_id[vocab[i]] = i;
    for (int i = 0; i < np; i++) {
        unsigned char c = (unsigned char)prompt[i];
        if (byte_to_id[c] < 0) {
            char what[32];
            if (c >= 32 && c < 127) snprintf(what, sizeof what, "'%c'", c);
            else snprintf(what, sizeof what, "byte 0x%02x", c);
            bl_fail("sample: the prompt's %s (byte %d) is not in the %s vocabulary of %d "
                    "bytes", what, i + 1, deflt ? "built-in text's" : "model's", vocab_size);
            bl_dataset_free(deflt);
            return bl_session_errat(a->s, pi >= 0 ? a->w[pi].vpos : a->st->pos);
        }
    }
    if (!(t = use_default(a->s, m, deflt, "sample"))) return bl_session_errat(a->s, a->st->pos);
    size_t total = (size_t)np + (size_t)n;
    int *ids = malloc(total * sizeof *ids);
    char *text = malloc(4 * total + 1); /* the bytes after room for them as valid UTF-8 */
    if (!ids || !text) {
        free(ids), free(text);
        return bl_fail("sample: out of memory for %zu tokens", total);
    }
    int rc = 0;
    for (int i = 0; i < np; i++) ids[i] = byte_to_id[(unsigned char)prompt[i]];
    bl_gen_opts o = bl_gen_opts_default();
    o.max_new_tokens = (int)n;
    o.temperature = (float)temp;
    o.top_k = (int)top_k;
    o.seed = (uint64_t)seed;
    o.use_cache = cache;
    o.sliding_window = sliding;
    int got = rc == 0 ? bl_gpt_generate(m, ids, np, &o, ids) : -1;
    if (got < 0 && rc == 0) {
        bl_error_as("sample", "generate");
        rc = bl_session_errat(a->s, a->st->pos);
    }
    if (rc == 0) {
        char *raw = text + 3 * total + 1;
        for (int i = 0; i < got; i++) raw[i] = (char)t->vocab[ids[i]];
        bl_utf8_repair(raw, (size_t)got, text); /* a byte model may stop inside a character */
        a->result = bl_val_str(text);
        if (!a->result) rc = -1;
        else if (got < (int)total) {
            bl_interrupt_newline(a->s->out);
            fprintf(a->s->out, "sample: interrupted after %d tokens\n", got - np);
            bl_interrupt_reported(a->s);
        }
    }
    free(ids);
    free(text);
    return rc;
}

static int cmd_sample(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    /* each kind's sampler (models/kind.h has the rest of what differs) */
    static int (*const sample_of[])(bl_cmdargs *, bl_model *, int) = {
        [BL_MODEL_DIT] = sample_dit,
        [BL_MODEL_GPT] = sample_gpt,
    };
    return sample_of[bl_kind_of(m->kind)->kind](a, m, used);
}

static const char help[] =
    "Generate images (TinyDiT) or text (TinyGPT).\n"
    "TinyDiT: n=16 steps=20 seed=0 cols=auto; the result is a picture, the images in\n"
    "the most square full-row grid that keeps them at least 80% of the largest\n"
    "(16: 4 x 4), or cols=N to a row (cols=8: 2 x 8), with sharp pixels\n"
    "(sample > s.png saves it;\n"
    "width= height= scale= size the file as for plot loss; slide keys title= theme=\n"
    "font=: help slides).\n"
    "TinyGPT: prompt=\"ROMEO:\" n=200 temperature=1 top_k=0 seed=0 cache=on sliding=off;\n"
    "the result is the text. Characters outside the vocabulary are reported.\n"
    "Ctrl-C stops it with one line: the text so far is kept; TinyDiT makes no picture.";

const bl_command bl_cmd_sample_entry = {
    .name = "sample",
    .synopsis = "sample [MODEL] [KEY=VALUE...]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_sample,
    .flags = BL_WRITES_PICTURE | BL_WRITES_GPT_TEXT,
};
