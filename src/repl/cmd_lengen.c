/* cmd_lengen.c - `lengen [MODEL...]`: validation loss per position past the training context,
 * several models on one picture (the lecture's v1 against v2), the mean over many windows with a
 * band of one standard error, smoothed, the context marked (see trainstate.h; the numbers come from
 * train/lengen.c). */
#include "repl/trainstate.h"
#include "repl/figures.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include "data/dataset.h"
#include "train/lengen.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LG_MAX_MODELS = 8 };

typedef struct {
    const char *name;
    bl_model *m;
    int L;              /* positions drawn */
    float *mean, *se;   /* [L] */
} lg_run;

/* The models named by the words before the first key (none: the current model). n, or -1
 * reported at the word. */
static int pick_models(bl_cmdargs *a, lg_run *r, int *first_key)
{
    int n = 0, k = a->n;
    for (int i = 0; i < a->n; i++)
        if (a->w[i].key) {
            k = i;
            break;
        }
    *first_key = k;
    if (k == 0) {
        bl_model *m = bl_models_current(a->s, "lengen");
        if (!m) return -1;
        r[0] = (lg_run){ .name = "model", .m = m };
        for (int i = 0; i < a->s->nvars; i++)
            if (a->s->vals[i]->kind == BL_V_HANDLE && a->s->vals[i]->h == m) r[0].name = a->s->names[i];
        return 1;
    }
    if (k > LG_MAX_MODELS) {
        bl_fail("lengen: at most %d models at once, got %d", LG_MAX_MODELS, k);
        return bl_session_errat(a->s, a->w[LG_MAX_MODELS].pos);
    }
    for (int i = 0; i < k; i++) {
        bl_value *v = bl_session_get(a->s, a->w[i].text);
        if (!v || v->kind != BL_V_HANDLE || v->htype != &bl_model_type) {
            if (!v) bl_fail("lengen: no variable '%s'", a->w[i].text);
            else bl_fail("lengen: '%s' is a %s, not a model", a->w[i].text, bl_val_kind_name(v));
            return bl_session_errat(a->s, a->w[i].pos);
        }
        r[n++] = (lg_run){ .name = a->w[i].text, .m = v->h };
    }
    return n;
}

/* One model's mean and standard error per position on `windows` validation windows of its text
 * (the built-in text when none is attached). 0 or -1 (error not yet reported). */
static int run_one(bl_cmdargs *a, lg_run *r, int factor, int windows, int sliding)
{
    bl_model *m = r->m;
    const bl_kind *is = bl_kind_of(m->kind), *need = bl_kind_with_text(1);
    if (!is->text) return bl_fail("lengen: %s is a %s; lengen needs a %s (model %s)", r->name, is->title, need->title, need->name);
    int ctx = m->cfg.context, learned = bl_config_pos(&m->cfg)->learned;
    /* a learned-position model has no position past its context: drawn up to it, or past it
     * with the sliding window */
    r->L = learned && !sliding ? ctx : factor * ctx;
    bl_train_state *t = bl_train_get(m);
    if (!t) return -1;
    bl_dataset *deflt = t->data ? NULL : bl_train_open_default(m, "lengen");
    const bl_dataset *ds = t->data ? t->data : deflt;
    if (!ds) return -1;
    int *ids = malloc((size_t)windows * (size_t)(r->L + 1) * sizeof *ids);
    r->mean = malloc((size_t)r->L * sizeof(float));
    r->se = malloc((size_t)r->L * sizeof(float));
    int rc = ids && r->mean && r->se ? 0 : bl_fail("lengen: out of memory for %d windows of %d", windows, r->L);
    if (rc == 0 && ds->kind != BL_DATA_TEXT)
        rc = bl_fail("lengen: %s's data is not a text (data %s text FILE)", r->name, r->name);
    if (rc == 0 && bl_text_val_windows(ds, windows, r->L, ids) < 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", bl_error());
        rc = bl_fail("lengen: %s: %s (try a smaller factor=)", r->name, msg);
    }
    /* everything that can fail is checked before the default text is attached (which rebuilds
     * the model to the text's vocab) */
    if (rc < 0) bl_dataset_free(deflt);
    else if (deflt && !bl_train_attach_default(a->s, m, deflt, "lengen")) rc = -1;
    if (rc == 0 && ds->vocab_size != m->cfg.vocab)
        rc = bl_fail("lengen: %s's vocab is %d but its text has %d distinct bytes (data text FILE attaches a text "
                     "and sets it)", r->name, m->cfg.vocab, ds->vocab_size);
    if (rc == 0 && bl_lengen(m, ids, windows, r->L, sliding, r->mean, r->se) < 0) {
        rc = bl_error_as("lengen", NULL);
    }
    free(ids);
    return rc;
}

/* The picture: per model its smoothed mean (centred average over 2 half + 1 positions) over a
 * band of the smoothed mean +- the smoothed standard error, and a dashed mark at each training
 * context; the table one column per model, the unsmoothed mean (NaN past a model's positions). */
static bl_figure *lengen_figure(lg_run *r, int n, int windows, int half, int sliding)
{
    char title[256];
    int k = snprintf(title, sizeof title, "Loss per position: ");
    for (int i = 0; i < n && k < (int)sizeof title; i++) {
        char pos_s[32];
        bl_config_get(&r[i].m->cfg, "pos", pos_s, sizeof pos_s);
        /* the legend names each model's pos=; the title of one model alone names it too */
        k += snprintf(title + k, sizeof title - (size_t)k, n > 1 ? "%s%s" : "%s%s (pos=%s)",
                      i ? (i == n - 1 ? " and " : ", ") : "", r[i].name, pos_s);
    }
    if (k < (int)sizeof title)
        snprintf(title + k, sizeof title - (size_t)k, ", %d windows%s", windows, sliding ? ", sliding window" : "");
    bl_figure *f = bl_fig_new(1, 1, title);
    bl_panel *p = f ? bl_fig_panel(f, 0) : NULL;
    int Lmax = 0;
    for (int i = 0; i < n; i++) Lmax = r[i].L > Lmax ? r[i].L : Lmax;
    float *x = malloc((size_t)Lmax * sizeof *x), *sm = malloc((size_t)Lmax * 3 * sizeof *sm);
    int rc = p && x && sm ? 0 : -1;
    if (rc < 0 && !bl_error()[0]) bl_fail("lengen: out of memory");
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < Lmax && x; i++) x[i] = (float)(i + 1);
    char lab[LG_MAX_MODELS][160], half_s[48] = "";
    if (half > 0) snprintf(half_s, sizeof half_s, ", centred mean of %d positions", 2 * half + 1);
    if (rc == 0) rc = bl_panel_labels(p, NULL, "position (tokens seen)", "val loss (nats)");
    for (int i = 0; rc == 0 && i < n; i++) {
        int L = r[i].L;
        float *mu = sm, *a = sm + Lmax, *b = sm + 2 * Lmax;
        bl_centered_average(r[i].mean, L, half, mu);
        bl_centered_average(r[i].se, L, half, a);
        for (int j = 0; j < L; j++) {
            b[j] = mu[j] + a[j], a[j] = mu[j] - a[j];
            if (isfinite(a[j]) && isfinite(b[j])) lo = fminf(lo, a[j]), hi = fmaxf(hi, b[j]);
        }
        char pos_s[32];
        bl_config_get(&r[i].m->cfg, "pos", pos_s, sizeof pos_s);
        /* short, so that the legend below a slide's plot is one row (800 x 450 font=2 took two) */
        snprintf(lab[i], sizeof lab[i], "%s (%s)", r[i].name, pos_s);
        rc = bl_panel_line(p, lab[i], x, mu, L, 0) < 0 || bl_panel_band(p, x, a, b, L) < 0 ? -1 : 0;
    }
    /* the training contexts, each once */
    for (int i = 0; rc == 0 && i < n; i++) {
        int ctx = r[i].m->cfg.context, seen = 0;
        for (int j = 0; j < i; j++) seen |= r[j].m->cfg.context == ctx;
        if (seen || !isfinite(lo)) continue;
        char c[64];
        snprintf(c, sizeof c, "context %d", ctx);
        float cx[2] = { (float)ctx, (float)ctx }, cy[2] = { lo, hi };
        rc = bl_panel_line(p, c, cx, cy, 2, BL_GUIDE) < 0 ? -1 : 0;
    }
    if (rc == 0) bl_panel_xcount(p, 1);
    /* the table (.csv): position, then one column per model */
    const char *cols[LG_MAX_MODELS + 1] = { "position" };
    char types[LG_MAX_MODELS + 2] = "i";
    for (int i = 0; i < n; i++) cols[i + 1] = r[i].name, types[i + 1] = 'r';
    types[n + 1] = 0;
    if (rc == 0) rc = bl_fig_table(f, cols, types);
    for (int j = 0; rc == 0 && j < Lmax; j++) {
        double row[LG_MAX_MODELS + 1] = { j + 1 };
        for (int i = 0; i < n; i++) row[i + 1] = j < r[i].L ? r[i].mean[j] : NAN;
        rc = bl_fig_row_nums(f, row);
    }
    free(x);
    free(sm);
    if (rc < 0) {
        bl_fig_free(f);
        return NULL;
    }
    return f;
}

static int cmd_lengen(bl_cmdargs *a)
{
    static const char *const keys[] = { "factor", "windows", "smooth", "sliding", BL_FIG_SIZE_KEYS, NULL };
    lg_run r[LG_MAX_MODELS];
    memset(r, 0, sizeof r);
    int first, n = pick_models(a, r, &first), sliding;
    long factor, windows, smooth;
    if (n < 0) return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(r[i].name, r[j].name)) {
                bl_fail("lengen: %s is named twice", r[i].name);
                return bl_session_errat(a->s, a->w[i].pos);
            }
    if (bl_opt_check(a, first, keys) < 0 || bl_opt_int(a, "factor", 4, 1, 64, &factor) < 0 ||
        bl_opt_int(a, "windows", 64, 1, 4096, &windows) < 0 || bl_opt_int(a, "smooth", -1, -1, 1000, &smooth) < 0 ||
        bl_opt_bool(a, "sliding", 0, &sliding) < 0 || bl_cmd_figsize(a, NULL) < 0)
        return -1;
    int rc = 0, ctx_min = 1 << 30;
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = run_one(a, &r[i], (int)factor, (int)windows, sliding);
        if (r[i].m->cfg.context < ctx_min) ctx_min = r[i].m->cfg.context;
    }
    /* smooth=-1 (the default): a centred mean over about 1/8 of the shortest context each side */
    int half = smooth >= 0 ? (int)smooth : ctx_min / 8;
    bl_figure *f = rc == 0 ? lengen_figure(r, n, (int)windows, half, sliding) : NULL;
    const bl_config *cfg = n == 1 ? &r[0].m->cfg : NULL;
    for (int i = 0; i < n; i++) free(r[i].mean), free(r[i].se);
    if (!f) return bl_session_errat(a->s, a->st->pos);
    return bl_cmd_figure(a, f, cfg);
}

static const char help[] =
    "Loss per position past the context, overlaid.\n"
    "Each TinyGPT (lengen v1 v2: {pos:0} positions against RoPE) on windows factor x\n"
    "context long of its text's held-out part: the mean over windows= windows with a band\n"
    "of one standard error, both a centred mean over 2N+1 positions (smooth=N, default\n"
    "context/8; 0: none), and the training context marked (a grey dashed line, named\n"
    "\"context N\" in the legend; labels= names the models only). A pos={pos:0}\n"
    "model has no position past its context: it is drawn up to it, or with sliding=on\n"
    "past it (each prediction past the context sees the last context tokens, as sample\n"
    "sliding=on).\n"
    "width= height= scale= size its file as for plot loss; slide keys title= xlim= ylim=\n"
    "logy= legend= labels= theme= font=: help slides.\n"
    "`lengen v1 v2 > l.csv` writes position,v1,v2: each model's mean loss at each position\n"
    "(from 1, unsmoothed; nan past a model's last position).";

const bl_command bl_cmd_lengen_entry = {
    .name = "lengen",
    .synopsis = "lengen [MODEL...] [factor=4] [windows=64] [smooth=N] [sliding=off]",
    .help = help,
    .complete = bl_complete_modelvar,
    .run = cmd_lengen,
    .flags = BL_WRITES_PICTURE,
};
