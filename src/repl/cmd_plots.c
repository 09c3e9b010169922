/* cmd_plots.c - `plot loss`, `attn` and `stats` (see cmd_plots.h), and the word helpers of the
 * picture commands. attn and stats run the model once on a fixed input (fixed_forward) and read
 * the per-layer activations it keeps (models/model.h: attn[], tap_in[], tap_norm[]). */
#include "repl/cmd_plots.h"
#include "core/error.h"
#include "data/dataset.h"
#include "models/tinydit.h"
#include "models/tinygpt.h"
#include "nn/nn.h"
#include "repl/figures.h"
#include "repl/train.h"
#include "train/trainer.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

FILE *bl_cmd_text_out(bl_cmdargs *a)
{
    if (!a->st->redirect || bl_stmt_redirects_to(a->st, ".txt")) return a->s->out;
    static FILE *null;
    if (!null) null = fopen("/dev/null", "w");
    return null ? null : a->s->out;
}


/* ---- plot loss ---- */

bl_figure *bl_plot_loss_figure(const bl_metrics *const *runs, const char *const *labels, int n, float smooth,
                               int logy, int val)
{
    if (!(smooth >= 0 && smooth < 1)) return BL_FAILP("plot loss: smooth must be in [0, 1), got %g", smooth);
    int any = 0;
    for (int i = 0; i < n; i++) any |= runs[i] && (val == 2 ? runs[i]->nval : runs[i]->steps) > 0;
    if (!any && val == 2) return BL_FAILP("plot loss: no validation loss yet (eval, or train with eval_every)");
    if (!any) return BL_FAILP("plot loss: no training steps yet (train N first)");
    char title[192];
    snprintf(title, sizeof title, "%s loss%s%s", val == 2 ? "Validation" : "Train", n > 1 ? "" : ": ", n > 1 ? "" : labels[0]);
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    static const char *const cols[] = { "run", "curve", "step", "loss" };
    int rc = p && bl_fig_table(f, cols, "ssir") == 0 ? bl_panel_labels(p, NULL, "step", "loss") : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        const bl_metrics *m = runs[i];
        if (!m || (val == 2 ? m->nval : m->steps) == 0) continue;
        int first = p->nseries;
        float *x = malloc(sizeof(float) * (size_t)(m->steps + m->nval + 1));
        if (!x) {
            rc = bl_fail("plot loss: out of memory");
            break;
        }
        for (int s = 0; s < m->steps; s++) x[s] = (float)(s + 1);  /* loss of step s+1 */
        if (val != 2) rc = bl_panel_smoothed(p, labels[i], x, m->loss, m->steps, smooth) < 0 ? -1 : 0;
        if (rc == 0 && val && m->nval > 0) {
            /* val=only: the validation points joined, named by the run */
            char lab[160];
            snprintf(lab, sizeof lab, val == 2 ? "%s" : "%s val", labels[i]);
            for (int v = 0; v < m->nval; v++) x[v] = (float)m->val_step[v];
            rc = bl_panel_line(p, lab, x, m->val_loss, m->nval, val == 2 ? BL_MARKERS : BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR) < 0 ? -1 : 0;
        }
        free(x);
        /* the table (.csv): this run's curves as drawn, one row per point */
        for (int s = first; rc == 0 && s < p->nseries; s++) {
            const bl_series *se = &p->series[s];
            const char *curve = (se->flags & BL_NO_LINE) || val == 2 ? "val" : (se->flags & BL_FAINT) || smooth == 0 ? "raw" : "ema";
            for (int k = 0; rc == 0 && k < se->n; k++)
                rc = bl_fig_row(f, labels[i], curve, (int)se->x[k], (double)se->y[k]);
        }
    }
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    if (logy) bl_panel_log(p, 0, 1);
    bl_panel_xcount(p, 1);
    return f;
}

/* The EMA (bias-corrected, weight smooth; smooth 0: the raw values) of a run's first n losses
 * into out. */
static void ema_of(const bl_metrics *m, int n, float smooth, float *out)
{
    if (smooth > 0) bl_ema(m->loss, n, smooth, out);
    else memcpy(out, m->loss, (size_t)n * sizeof *out);
}

/* the validation loss of m at `step`, NaN when m has none there */
static float val_at(const bl_metrics *m, int step)
{
    for (int v = 0; v < m->nval; v++)
        if (m->val_step[v] == step) return m->val_loss[v];
    return NAN;
}

static int is_seed2(const char *label)
{
    size_t n = strlen(label);
    return n >= 5 && !strcmp(label + n - 5, "seed2");
}

bl_figure *bl_plot_loss_relative_figure(const bl_metrics *const *runs, const char *const *labels, int n, float smooth,
                                        int val, int base)
{
    if (!(smooth >= 0 && smooth < 1)) return BL_FAILP("plot loss: smooth must be in [0, 1), got %g", smooth);
    if (base < 0 || base >= n || !runs[base]) return BL_FAILP("plot loss: no baseline run");
    const bl_metrics *b = runs[base];
    if (val != 2 && b->steps == 0) return BL_FAILP("plot loss: the baseline %s has no training steps yet", labels[base]);
    if (val == 2 && b->nval == 0) return BL_FAILP("plot loss: the baseline %s has no validation loss yet", labels[base]);
    char title[192];
    snprintf(title, sizeof title, "%s loss minus %s's%s", val == 2 ? "Validation" : "Train", labels[base],
             val == 2 ? "" : smooth > 0 ? " (EMA)" : "");
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    static const char *const cols[] = { "run", "curve", "step", "loss_minus_baseline" };
    char ylab[160];
    snprintf(ylab, sizeof ylab, "loss - %s (nats)", labels[base]);
    int rc = p && bl_fig_table(f, cols, "ssir") == 0 ? bl_panel_labels(p, NULL, "step", ylab) : -1;
    int S = b->steps, cap = b->steps > b->nval ? b->steps : b->nval;
    float *x = malloc(sizeof(float) * (size_t)(cap + 1)), *d = malloc(sizeof(float) * (size_t)(cap + 1));
    float *eb = malloc(sizeof(float) * (size_t)(cap + 1)), *e = malloc(sizeof(float) * (size_t)(cap + 1));
    if (rc == 0 && !(x && d && eb && e)) rc = bl_fail("plot loss: out of memory");
    if (rc == 0 && val != 2) ema_of(b, S, smooth, eb);
    /* the order: the baseline first (its zero line), then the others as given */
    for (int k = -1; rc == 0 && k < n; k++) {
        int i = k < 0 ? base : k;
        if (k == base || !runs[i]) continue;
        const bl_metrics *m = runs[i];
        int first = p->nseries, npt = 0;
        char lab[160];
        snprintf(lab, sizeof lab, i == base ? "%s (baseline)" : "%s", labels[i]);
        if (val == 2) {
            for (int v = 0; v < m->nval; v++) {
                float vb = val_at(b, m->val_step[v]);
                if (!isfinite(vb)) continue;
                x[npt] = (float)m->val_step[v], d[npt++] = m->val_loss[v] - vb;
            }
        } else {
            npt = m->steps < S ? m->steps : S;
            ema_of(m, npt, smooth, e);
            for (int s = 0; s < npt; s++) x[s] = (float)(s + 1), d[s] = e[s] - eb[s];
        }
        if (npt == 0) continue;
        rc = bl_panel_line(p, lab, x, d, npt, val == 2 ? BL_MARKERS : 0) < 0 ? -1 : 0;
        /* the seed gap: |seed2 - baseline| either side of 0, in seed2's colour */
        if (rc == 0 && i != base && is_seed2(labels[i])) {
                        float *hi = malloc(sizeof(float) * (size_t)npt);
            if (!hi) rc = bl_fail("plot loss: out of memory");
            for (int s = 0; rc == 0 && s < npt; s++) e[s] = fabsf(d[s]);
            /* the gap is noise itself: a centred mean over about 1/20 of the steps */
            if (rc == 0) bl_centered_average(e, npt, npt / 40, hi);
            for (int s = 0; rc == 0 && s < npt; s++) e[s] = -hi[s];
            if (rc == 0) rc = bl_panel_band(p, x, e, hi, npt) < 0 ? -1 : 0;
            for (int s = 0; rc == 0 && s < npt; s++) rc = bl_fig_row(f, labels[i], "seed_gap", (int)x[s], (double)hi[s]);
            free(hi);
        }
        if (rc == 0 && val == 1 && i != base) {
            /* validation differences as markers in the run's colour (the baseline's are all 0) */
            int nv = 0;
            for (int v = 0; v < m->nval; v++) {
                float vb = val_at(b, m->val_step[v]);
                if (isfinite(vb)) x[nv] = (float)m->val_step[v], d[nv++] = m->val_loss[v] - vb;
            }
            char vl[170];
            snprintf(vl, sizeof vl, "%s val", labels[i]);
            if (nv > 0) rc = bl_panel_line(p, vl, x, d, nv, BL_MARKERS | BL_NO_LINE | BL_SAME_COLOR) < 0 ? -1 : 0;
        }
        for (int s = first; rc == 0 && s < p->nseries; s++) {
            const bl_series *se = &p->series[s];
            if (se->flags & BL_BAND) continue;
            const char *curve = (se->flags & BL_NO_LINE) || val == 2 ? "val" : smooth == 0 ? "raw" : "ema";
            for (int q = 0; rc == 0 && q < se->n; q++) rc = bl_fig_row(f, labels[i], curve, (int)se->x[q], (double)se->y[q]);
        }
    }
    free(x), free(d), free(eb), free(e);
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    bl_panel_xcount(p, 1);
    return f;
}

/* The run history behind a value: a run value (`r = m.run`, a snapshot) or a model with a run
 * (repl/train.h keeps one per model) or a checkpoint's run not continued yet. NULL when none. */
static const bl_metrics *value_metrics(const bl_value *v)
{
    if (!v || v->kind != BL_V_HANDLE) return NULL;
    const bl_metrics *r = bl_runval_metrics(v);
    if (r || v->htype != &bl_model_type) return r;
    return bl_train_metrics(v->h);   /* its run, or the run of the checkpoint it was loaded from */
}

static int cmd_plot_loss(bl_cmdargs *a)
{
    static const char *const keys[] = { "smooth", "val", "relative", BL_FIG_SIZE_KEYS, NULL };
    double smooth;
    int val = 1, first_key = a->n, vi = bl_opt_find(a, "val"), ri = bl_opt_find(a, "relative");
    for (int i = 1; i < a->n; i++)
        if (a->w[i].key) {
            first_key = i;
            break;
        }
    if (bl_opt_check(a, first_key, keys) < 0 || bl_opt_num(a, "smooth", 0.9, 0, 0.999, &smooth) < 0 ||
        (vi >= 0 && strcmp(a->w[vi].text, "only") && bl_word_bool(a, vi, &val) < 0))
        return -1;
    if (vi >= 0 && !strcmp(a->w[vi].text, "only")) val = 2;   /* val=only: the validation points alone */
    if (ri >= 0 && bl_opt_find(a, "logy") >= 0 && !strcmp(a->w[bl_opt_find(a, "logy")].text, "on")) {
        bl_fail("plot loss: relative= draws differences, below and above 0: no log axis (leave out logy=on)");
        return bl_session_errat(a->s, a->w[bl_opt_find(a, "logy")].pos);
    }
    int n = first_key - 1;
    if (n > 16) {
        bl_fail("plot loss: at most 16 runs at once, got %d", n);
        return bl_session_errat(a->s, a->w[17].pos);
    }
    const bl_metrics *runs[16];
    const char *labels[16];
    const bl_config *cfg = NULL;    /* the model's, when the picture shows one model's run */
    char curname[160];
    int rc = 0;
    if (n == 0) {
        /* the current model, named by its switches */
        bl_model *m = bl_models_current(a->s, "plot loss");
        if (!m) return -1;
        bl_value *cur = NULL;
        snprintf(curname, sizeof curname, "model");
        for (int i = 0; i < a->s->nvars && !cur; i++)
            if (a->s->vals[i]->kind == BL_V_HANDLE && a->s->vals[i]->h == m) {
                cur = a->s->vals[i];
                snprintf(curname, sizeof curname, "%s", a->s->names[i]);
            }
        runs[0] = value_metrics(cur);
        labels[0] = curname;
        cfg = &m->cfg;
        n = 1;
        if (!runs[0]) rc = bl_fail("plot loss: %s has no training run yet (train N first)", curname);
    }
    int k = 0;  /* the runs so far: a name given twice is one run, drawn and listed once */
    for (int i = 0; rc == 0 && i < first_key - 1; i++) {
        const bl_word *w = &a->w[i + 1];
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= !strcmp(labels[j], w->text);
        if (dup) continue;
        bl_value *v = bl_session_get(a->s, w->text);
        labels[k] = w->text;
        runs[k] = value_metrics(v);
        if (v && v->kind == BL_V_HANDLE && v->htype == &bl_model_type) cfg = &((const bl_model *)v->h)->cfg;
        if (!runs[k++]) {
            if (!v) bl_fail("plot loss: no variable '%s'", w->text);
            else bl_fail("plot loss: '%s' is a %s with no training run (train it first)", w->text, bl_val_kind_name(v));
            rc = bl_session_errat(a->s, w->pos);
        }
    }
    if (first_key > 1) {
        n = k;
        if (k > 1) cfg = NULL;
    }
    int base = -1;
    for (int i = 0; ri >= 0 && i < n; i++)     /* a compare's run by its name too: baseline = cmp_baseline */
        if (!strcmp(labels[i], a->w[ri].text) ||
            (!strncmp(labels[i], "cmp_", 4) && !strcmp(labels[i] + 4, a->w[ri].text) && base < 0))
            base = i;
    if (rc == 0 && ri >= 0 && base < 0) {
        char names[512] = "";
        for (int i = 0; i < n; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", labels[i]);
        bl_fail("plot loss: relative=%s is not one of the runs drawn (%s)", a->w[ri].text, names);
        rc = bl_session_errat(a->s, a->w[ri].vpos);
    }
    /* log y where the losses span more than a decade (logy=auto), unless logy= says otherwise;
     * differences (relative=) on a linear axis */
    bl_figure *f = rc == 0 ? base >= 0 ? bl_plot_loss_relative_figure(runs, labels, n, (float)smooth, val, base)
                                       : bl_plot_loss_figure(runs, labels, n, (float)smooth, 0, val)
                           : NULL;
    if (f && base < 0) f->logy_auto = 1;
    return bl_cmd_figure(a, f, cfg);
}

int bl_cmd_plot(bl_cmdargs *a)
{
    if (a->n >= 1 && !a->w[0].key && !strcmp(a->w[0].text, "loss")) return cmd_plot_loss(a);
    bl_fail("plot: expected loss, got '%s' (plot loss [MODELS...])", a->n ? a->w[0].text : "");
    return a->n ? bl_session_errat(a->s, a->w[0].pos) : -1;
}

int bl_complete_plot(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    static const char *const sub[] = { "loss", NULL };
    static const char *const k[] = { "smooth=", "val=", "relative=", BL_FIG_KEY_WORDS, NULL };
    if (argi == 0) {
        bl_complete_from(sub, prefix, out);
        return 0;
    }
    bl_complete_from(k, prefix, out);
    return bl_complete_modelvar(s, argi, words, prefix, out);
}

/* ---- the fixed input of attn and stats ---- */

typedef struct {
    int L;                  /* tokens */
    int H, D;               /* heads, model width */
    float *attn;            /* [H, L, L] of the chosen layer */
    float *tin, *tnorm;     /* [L, D] */
    float *img;             /* DiT: x0 and x_t, [2, C, S, S] */
    int C, S, gh, gw;
    char **labels;          /* GPT: L characters ("_" for a space) */
    char desc[96];
} fixed_out;

static void fixed_free(fixed_out *o)
{
    free(o->attn);
    free(o->tin);
    free(o->tnorm);
    free(o->img);
    for (int i = 0; o->labels && i < o->L; i++) free(o->labels[i]);
    free(o->labels);
}

/* TinyDiT's fixed input: validation image 0 of the model's data (repl/train.h; `shapes` with
 * seed 0 when it has none), resized (nearest) and made grey to the model's size and channels,
 * noised to t = 0.5 with fixed noise. */
static int dit_input(const bl_model *m, fixed_out *o, bl_tensor **xt, int index)
{
    int C = m->cfg.channels, S = m->cfg.image_size;
    const bl_train_state *ts = bl_train_find(m);
    bl_dataset *own = NULL;
    const bl_dataset *ds = ts && ts->data && ts->data->kind == BL_DATA_IMAGES && ts->data->n_val > 0
                               ? ts->data
                               : (own = bl_data_shapes(0));
    float *src = ds ? malloc(sizeof(float) * (size_t)(ds->C * ds->H * ds->W)) : NULL;
    o->img = malloc(sizeof(float) * (size_t)(2 * C * S * S));
    *xt = bl_tensor_new4(1, C, S, S);
    int label = -1;
    int rc = src && o->img && *xt ? bl_dataset_val_images(ds, (size_t)index, 1, src, &label) : -1;
    if (rc == 0) {
        bl_rng r;
        bl_rng_named(&r, 0, "attn noise");
        for (int c = 0; c < C; c++)
            for (int y = 0; y < S; y++)
                for (int x = 0; x < S; x++) {
                    int sy = y * ds->H / S, sx = x * ds->W / S;
                    float v = 0;
                    if (C == ds->C) v = src[(c * ds->H + sy) * ds->W + sx];
                    else
                        for (int k = 0; k < ds->C; k++) v += src[(k * ds->H + sy) * ds->W + sx] / (float)ds->C;
                    size_t i = (size_t)(c * S + y) * S + x;
                    o->img[i] = v;
                    o->img[(size_t)C * S * S + i] = (*xt)->data[i] = 0.5f * v + 0.5f * bl_rng_normal(&r);
                }
    }
    o->C = C;
    o->S = S;
    o->gh = o->gw = S / m->cfg.patch;
    if (rc == 0 && ds->class_names && label >= 0 && label < ds->n_classes)
        snprintf(o->desc, sizeof o->desc, "%s %d (%s), t = 0.5", ds->name, index, ds->class_names[label]);
    else if (ds)
        snprintf(o->desc, sizeof o->desc, "%s image %d, t = 0.5", ds->name, index);
    free(src);
    bl_dataset_free(own);
    if (rc < 0 && !bl_error()[0]) bl_fail("attn: out of memory");
    return rc;
}

/* TinyGPT's fixed input: a sentence written with the model's vocabulary (the characters of the
 * text it was trained on, repl/train.h, else of the built-in text when the sizes agree); when
 * the sentence needs a character outside it, or there is no vocabulary, ids 0, 1, 2, ...
 * labelled with their numbers. */
static int gpt_input(const bl_model *m, fixed_out *o, int *ids, int L)
{
    static const char phrase[] = "the cat sat on the mat. the model reads the text and attends to it. ";
    unsigned char vocab[256];
    int nv = 0;
    const bl_train_state *ts = bl_train_find(m);
    if (ts && ts->vocab_size == m->cfg.vocab) {
        nv = ts->vocab_size;
        memcpy(vocab, ts->vocab, (size_t)nv);
    } else {
        bl_dataset *ds = bl_data_text(NULL);
        if (ds && ds->vocab_size == m->cfg.vocab) memcpy(vocab, ds->vocab, (size_t)(nv = ds->vocab_size));
        bl_dataset_free(ds);
        bl_clear_error();
    }
    int ok = nv > 0;
    for (int i = 0; ok && i < L; i++) {
        unsigned char ch = (unsigned char)phrase[i % (sizeof phrase - 1)];
        ids[i] = -1;
        for (int v = 0; v < nv; v++)
            if (vocab[v] == ch) ids[i] = v;
        ok = ids[i] >= 0;
    }
    o->labels = calloc((size_t)L, sizeof *o->labels);
    if (!o->labels) return bl_fail("attn: out of memory");
    for (int i = 0; i < L; i++) {
        char lab[16];
        if (ok) snprintf(lab, sizeof lab, "%c", vocab[ids[i]] == ' ' ? '_' : vocab[ids[i]]);
        else snprintf(lab, sizeof lab, "%d", ids[i] = i % m->cfg.vocab);
        if (!(o->labels[i] = strdup(lab))) return bl_fail("attn: out of memory");
    }
    snprintf(o->desc, sizeof o->desc, ok ? "a fixed sentence of %d characters" : "token ids 0..%d", ok ? L : L - 1);
    return 0;
}

/* Run m once on its fixed input and copy layer `layer`'s attention [H, L, L] and norm taps. */
static int fixed_forward(bl_model *m, int layer, int image, fixed_out *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    int keep = m->keep_attn, rc = 0;
    bl_tensor *xt = NULL;
    int ids[64];
    m->keep_attn = 1;
    if (!bl_kind_of(m->kind)->text) {
        float t = 0.5f;
        rc = dit_input(m, o, &xt, image);
        if (rc == 0 && !bl_dit_forward(m, xt, &t, 0)) rc = -1;
    } else {
        o->L = m->cfg.context < 32 ? m->cfg.context : 32;
        rc = gpt_input(m, o, ids, o->L);
        if (rc == 0 && !bl_gpt_forward(m, ids, 1, o->L, 0)) rc = -1;
    }
    m->keep_attn = keep;
    bl_tensor_free(xt);
    const bl_tensor *at = rc == 0 ? m->attn[layer] : NULL, *ti = m->tap_in[layer], *tn = m->tap_norm[layer];
    if (rc == 0 && (!at || !ti || !tn)) rc = bl_fail("%s: the model kept no activations of layer %d", cmd, layer);
    if (rc == 0) {
        o->H = at->shape[1];
        o->L = at->shape[2];
        o->D = ti->shape[2];
        size_t na = (size_t)o->H * o->L * at->shape[3], nt = (size_t)o->L * o->D;
        o->attn = malloc(sizeof(float) * na);
        o->tin = malloc(sizeof(float) * nt);
        o->tnorm = malloc(sizeof(float) * nt);
        if (!o->attn || !o->tin || !o->tnorm || at->shape[3] != o->L) {
            rc = o->attn && o->tin && o->tnorm ? bl_fail("%s: attention is %d x %d, not square", cmd, o->L, at->shape[3])
                                               : bl_fail("%s: out of memory", cmd);
        } else {
            memcpy(o->attn, at->data, sizeof(float) * na);   /* batch entry 0 */
            memcpy(o->tin, ti->data, sizeof(float) * nt);
            memcpy(o->tnorm, tn->data, sizeof(float) * nt);
        }
    }
    if (rc < 0) fixed_free(o);
    return rc;
}

static int layer_word(bl_cmdargs *a, const bl_model *m, long *layer)
{
    return bl_opt_int(a, "layer", 0, 0, m->cfg.depth - 1, layer);
}

/* image=N (TinyDiT: which validation image is the fixed input; 0 by default). */
static int image_word(bl_cmdargs *a, const bl_model *m, long *image)
{
    int i = bl_opt_find(a, "image");
    if (i >= 0 && bl_kind_of(m->kind)->text) {
        bl_fail("%s: image= picks TinyDiT's input image; a TinyGPT model reads a fixed text", a->st->name);
        return bl_session_errat(a->s, a->w[i].pos);
    }
    return bl_opt_int(a, "image", 0, 0, 9999, image);
}

/* ---- attn ---- */

/* The columns of `attn query=`'s n square images (each with its colour bar, DR_BAR_ROOM) that
 * make them largest on a 1600 x 900 page: 1 2 2 2 3 3 4 4 for 1 .. 8 heads. */
static int query_cols(int n)
{
    int best = 1;
    double top = 0;
    for (int c = 1; c <= n; c++) {
        int r = (n + c - 1) / c;
        double s = fmin((1552.0 - (c - 1) * 36) / c - 110, (786.0 - (r - 1) * 36) / r - 40);
        if (s > top + 1) top = s, best = c;
    }
    return best;
}

int bl_cmd_attn(bl_cmdargs *a)
{
    static const char *const keys[] = { "layer", "head", "query", "image", BL_FIG_SIZE_KEYS, NULL };
    int used;
    bl_model *m = bl_models_pick(a, &used);
    long layer, query = -1, head = -1, image;
    if (!m || bl_opt_check(a, used, keys) < 0 || layer_word(a, m, &layer) < 0 ||
        image_word(a, m, &image) < 0 || bl_cmd_figsize(a, NULL) < 0)
        return -1;
    int hw = bl_opt_find(a, "head"), qw = bl_opt_find(a, "query");
    if (hw >= 0 && strcmp(a->w[hw].text, "all") && bl_word_int(a, hw, 0, m->cfg.heads - 1, &head) < 0) return -1;
    if (qw >= 0) {
        if (bl_kind_of(m->kind)->text) {
            bl_fail("attn: query= draws one patch's attention over the image, for TinyDiT models only");
            return bl_session_errat(a->s, a->w[qw].pos);
        }
        int T = bl_config_tokens(&m->cfg);
        if (bl_word_int(a, qw, 0, T - 1, &query) < 0) return -1;
    }
    fixed_out o;
    if (fixed_forward(m, (int)layer, (int)image, &o, "attn") < 0) return -1;
    int h0 = head >= 0 ? (int)head : 0, nh = head >= 0 ? 1 : o.H, L = o.L;
    if (query >= 0 && nh > 8) nh = 8;
    if (nh > 64) nh = 64;
    char title[256];
    if (query >= 0)
        snprintf(title, sizeof title, "TinyDiT layer %ld, query patch %ld (row %ld, col %ld): %s", layer, query,
                 query / o.gw, query % o.gw, o.desc);
    else
        snprintf(title, sizeof title, "%s layer %ld attention, %s", bl_kind_of(m->kind)->title,
                 layer, o.desc);
    /* query=: each head's weights over the patch grid laid over the image at its own scale */
    int cols = query >= 0 ? query_cols(nh) : nh <= 2 ? nh : nh <= 4 ? 2 : nh <= 9 ? 3 : 4, rows = (nh + cols - 1) / cols;
    bl_figure *f = bl_fig_new(rows, cols, title);
    static const char *const names[] = { "layer", "head", "query", "key", "prob" };
    int rc = f ? bl_fig_table(f, names, "iiiir") : -1;
    float vmax = 0;
    for (int h = h0; h < h0 + nh; h++)
        for (int i = 0; i < L * L; i++)
            if (query < 0 || i / L == query) vmax = fmaxf(vmax, o.attn[(size_t)h * L * L + i]);
    int qr = (int)query / (o.gw > 0 ? o.gw : 1), qc = (int)query % (o.gw > 0 ? o.gw : 1);
    for (int k = 0; rc == 0 && k < nh; k++) {
        int h = h0 + k;
        const float *A = o.attn + (size_t)h * L * L;
        char pt[32];
        snprintf(pt, sizeof pt, "head %d", h);
        if (query < 0) {
            bl_panel *p = bl_fig_panel(f, k);
            rc = bl_panel_heatmap(p, A, L, L, BL_CMAP_VIRIDIS) < 0 || bl_panel_heatmap_range(p, 0, vmax > 0 ? vmax : 1) < 0 ||
                         bl_panel_labels(p, pt, "key", "query") < 0 ||
                         (o.labels && bl_panel_heatmap_labels(p, (const char *const *)o.labels,
                                                              (const char *const *)o.labels) < 0)
                     ? -1
                     : 0;
        } else {
            const float *row = A + (size_t)query * L;
            bl_panel *pi = bl_fig_panel(f, k);
            rc = bl_panel_images(pi, o.img, 1, o.C, o.S, o.S, -1, 1, 0) < 0 ||
                         bl_panel_images_overlay(pi, row, o.gh, o.gw, 0.6f) < 0 ||
                         bl_panel_images_overlay_range(pi, 0, vmax > 0 ? vmax : 1) < 0 ||
                         bl_panel_images_mark(pi, qr, qc, o.gh, o.gw) < 0 || bl_panel_labels(pi, pt, NULL, NULL) < 0
                     ? -1
                     : 0;
        }
        /* the table (.csv): one row per (query, key) pair shown, keys numbered as tokens
         * (TinyDiT: patch r * grid + c) */
        for (int q = query < 0 ? 0 : (int)query; rc == 0 && q < (query < 0 ? L : query + 1); q++)
            for (int key = 0; rc == 0 && key < L; key++)
                rc = bl_fig_row(f, (int)layer, h, q, key, (double)A[(size_t)q * L + key]);
    }
    fixed_free(&o);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, &m->cfg);
}

/* ---- stats ---- */

/* Mean and rms over the last dim of x [N, D] into mean[N], rms[N]. */
static void row_stats(const float *x, int N, int D, float *mean, float *rms)
{
    for (int i = 0; i < N; i++) {
        double s = 0, q = 0;
        for (int d = 0; d < D; d++) s += x[(size_t)i * D + d], q += (double)x[(size_t)i * D + d] * x[(size_t)i * D + d];
        mean[i] = (float)(s / D);
        rms[i] = (float)sqrt(q / D);
    }
}

/* Two panels (mean, rms per token) of ns series xs[k] [N, D] named names[k]; the table (.csv)
 * "layer,series,token,mean,rms" (no layer column when layer < 0: a tensor's statistics). */
static bl_figure *stats_figure(const char *title, const float *const *xs, const char *const *names, int ns, int N,
                               int D, int layer)
{
    float *st = malloc(sizeof(float) * (size_t)N * 2 * ns);
    bl_figure *f = st ? bl_fig_new(1, 2, title) : NULL;
    static const char *const cols[] = { "layer", "series", "token", "mean", "rms" };
    int rc = f ? bl_fig_table(f, layer < 0 ? cols + 1 : cols, layer < 0 ? "sirr" : "isirr") : -1;
    float top = 0;
    for (int k = 0; rc == 0 && k < ns; k++) {
        float *mean = st + (size_t)2 * k * N, *rms = mean + N;
        row_stats(xs[k], N, D, mean, rms);
        if (bl_panel_line(bl_fig_panel(f, 0), names[k], NULL, mean, N, 0) < 0 ||
            bl_panel_line(bl_fig_panel(f, 1), names[k], NULL, rms, N, 0) < 0)
            rc = -1;
        for (int i = 0; i < N; i++) top = fmaxf(top, rms[i]);
        for (int i = 0; rc == 0 && i < N; i++)
            rc = layer < 0 ? bl_fig_row(f, names[k], i, (double)mean[i], (double)rms[i])
                           : bl_fig_row(f, layer, names[k], i, (double)mean[i], (double)rms[i]);
    }
    /* rms from 0, up to the first labelled tick at or past the largest (the legend finds its
     * own room) */
    if (rc == 0 && top > 0) bl_panel_yfrom(bl_fig_panel(f, 1), 0);
    if (rc == 0 && (bl_panel_labels(bl_fig_panel(f, 0), "mean per token", "token", "mean") < 0 ||
                    bl_panel_labels(bl_fig_panel(f, 1), "rms per token", "token", "rms") < 0))
        rc = -1;
    if (rc == 0) bl_panel_xcount(bl_fig_panel(f, 0), 1), bl_panel_xcount(bl_fig_panel(f, 1), 1);
    free(st);
    if (rc < 0) {
        if (!f && !bl_error()[0]) bl_fail("stats: out of memory");
        bl_fig_free(f);
        return NULL;
    }
    return f;
}

static int stats_tensor(bl_cmdargs *a, const bl_tensor *x, const char *name)
{
    int D = x->shape[x->ndim - 1], N = (int)(x->numel / (size_t)D);
    if (x->ndim < 1 || D < 2 || N > 4096) {
        char sh[64];
        bl_fail("stats: expects a tensor [..., D] with D >= 2 and at most 4096 rows, got %s", bl_shape_str(x, sh, sizeof sh));
        return bl_session_errat(a->s, a->w[0].pos);
    }
    bl_tensor x2;
    bl_graph_reset(a->s->g);
    bl_tensor *ln = NULL, *rn = NULL;
    if (bl_tensor_view_as(&x2, x, 2, (int[]){ N, D }) == 0) {
        ln = bl_layernorm(a->s->g, &x2, NULL, NULL, 1e-6f);
        rn = ln ? bl_rmsnorm(a->s->g, &x2, NULL, 1e-6f) : NULL;
    }
    if (!rn) return -1;
    const float *xs[3] = { x->data, ln->data, rn->data };
    const char *names[3] = { name, "layernorm", "rmsnorm" };
    char title[128];
    snprintf(title, sizeof title, "%s before and after a norm (no weights, eps 1e-6)", name);
    bl_figure *f = stats_figure(title, xs, names, 3, N, D, -1);
    bl_graph_reset(a->s->g);
    return bl_cmd_figure(a, f, NULL);
}

int bl_cmd_stats(bl_cmdargs *a)
{
    static const char *const keys[] = { "layer", "image", BL_FIG_SIZE_KEYS, NULL };
    static const char *const size_keys[] = { BL_FIG_SIZE_KEYS, NULL };
    if (a->n >= 1 && !a->w[0].key) {
        bl_value *v = bl_session_get(a->s, a->w[0].text);
        if (v && v->kind == BL_V_TENSOR) {
            if (a->n > 1 && (!a->w[1].key || bl_opt_find(a, "layer") >= 0 || bl_opt_find(a, "image") >= 0)) {
                int i = bl_opt_find(a, "layer") >= 0 ? bl_opt_find(a, "layer") : bl_opt_find(a, "image") >= 0 ? bl_opt_find(a, "image") : 1;
                bl_fail("stats: a tensor takes only width= height= scale= (layer= is for models), got '%s%s%s'",
                        a->w[i].key ? a->w[i].key : "", a->w[i].key ? "=" : "", a->w[i].text);
                return bl_session_errat(a->s, a->w[i].pos);
            }
            if (bl_opt_check(a, 1, size_keys) < 0) return -1;
            return stats_tensor(a, v->t, a->w[0].text);
        }
    }
    int used;
    bl_model *m = bl_models_pick(a, &used);
    long layer, image;
    if (!m || bl_opt_check(a, used, keys) < 0 || layer_word(a, m, &layer) < 0 ||
        image_word(a, m, &image) < 0)
        return -1;
    fixed_out o;
    if (fixed_forward(m, (int)layer, (int)image, &o, "stats") < 0) return -1;
    const float *xs[2] = { o.tin, o.tnorm };
    char after[64], title[160];
    char norm[32];
    bl_config_get(&m->cfg, "norm", norm, sizeof norm);
    snprintf(after, sizeof after, "after %s", norm);
    const char *names[2] = { "before norm", after };
    snprintf(title, sizeof title, "%s layer %ld: before and after its first norm",
             bl_kind_of(m->kind)->title, layer);
    bl_figure *f = stats_figure(title, xs, names, 2, o.L, o.D, (int)layer);
    fixed_free(&o);
    return bl_cmd_figure(a, f, &m->cfg);
}
