/* cmd_qk.c - `qk growth` (see views.h): the table and picture of the attention-logit growth
 * experiment with and without QK-norm; the experiment itself is train/qkgrowth.c (DESIGN.md
 * section 2, Dehghani et al. 2023). */
#include "repl/views.h"
#include "core/error.h"
#include "repl/figures.h"
#include "train/qkgrowth.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* scales=1,4,16 (the word's text) into s[0..n). The count, or -1 reported at the word. */
static int parse_scales(bl_cmdargs *a, double *s, int max)
{
    int wi = bl_opt_find(a, "scales");
    const char *p = wi >= 0 ? a->w[wi].text : "1,4,16";
    int n = 0;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v > 0 && v <= BL_QK_MAX_SCALE) || n == max) {
            bl_fail("qk growth: scales must be up to %d numbers in (0, %g] separated by commas, got '%s'", max,
                    BL_QK_MAX_SCALE, a->w[wi].text);
            return bl_session_errat(a->s, a->w[wi].vpos);
        }
        s[n++] = v;
        p = *end ? end + 1 : end;
    }
    if (n == 0) {
        bl_fail("qk growth: scales is empty");
        return bl_session_errat(a->s, a->w[wi].vpos);
    }
    return n;
}

/* -1, the shared key parsers' "qk: ..." (they name the command word) said as "qk growth: ...",
 * the prefix of qk growth's own errors */
static int as_growth(void) { return bl_error_as("qk growth", "qk"); }

static int cmd_qk(bl_cmdargs *a)
{
    static const char *const keys[] = { "scales", "random", "seed", "tokens", "head_dim", BL_FIG_SIZE_KEYS, NULL };
    if (a->n < 1 || a->w[0].key || strcmp(a->w[0].text, "growth")) {
        bl_fail("qk: expected growth, got '%s'", a->n ? a->w[0].text : "");
        return a->n ? bl_session_errat(a->s, a->w[0].pos) : -1;
    }
    double sc[32];
    int n, random;
    long seed, tokens, hd;
    if (bl_opt_check(a, 1, keys) < 0 || (n = parse_scales(a, sc, 32)) < 0 || bl_opt_bool(a, "random", 1, &random) < 0 ||
        bl_opt_int(a, "seed", 0, 0, 9007199254740991L, &seed) < 0 ||
        bl_opt_int(a, "tokens", 64, 2, BL_QK_MAX_TOKENS, &tokens) < 0 ||
        bl_opt_int(a, "head_dim", 32, 2, BL_QK_MAX_HEAD_DIM, &hd) < 0 || bl_cmd_figsize(a, NULL) < 0)
        return as_growth();
    bl_qk_opts o = { .random = random, .tokens = (int)tokens, .head_dim = (int)hd, .seed = (uint64_t)seed };
    float ml[2][32], tw[2][32], xs[32];
    if (bl_qk_growth(&o, sc, n, 0, ml[0], tw[0]) < 0 || bl_qk_growth(&o, sc, n, 1, ml[1], tw[1]) < 0)
        return bl_session_errat(a->s, a->st->pos);
    const char *cols[] = { "scale", "max_logit", "growth", "top_weight", "max_logit_qk_norm", "top_weight_qk_norm" };
    bl_table *t = bl_table_new(6, cols);
    for (int i = 0; t && i < n; i++) {
        xs[i] = (float)sc[i];
        if (bl_table_addf(t, "%g\t%.4g\t%.4g\t%.3f\t%.4g\t%.3f", sc[i], ml[0][i], ml[0][i] / ml[0][0], tw[0][i],
                          ml[1][i], tw[1][i]) < 0) {
            bl_table_free(t);
            t = NULL;
        }
    }
    if (!t) return bl_fail("qk growth: out of memory");
    FILE *out = bl_cmd_text_out(a);
    if (random)
        fprintf(out, "qk growth: q, k [%ld, %ld] ~ N(0, 1) (seed %ld), each times s; logits q k^T / sqrt(%ld)\n",
                tokens, hd, seed, hd);
    else
        fprintf(out, "qk growth: x [%ld, 64] ~ N(0, 1) (seed %ld), q, k = s x W [64, %ld], logits q k^T / sqrt(%ld)\n",
                tokens, seed, hd, hd);
    bl_table_write_txt(t, out);
    bl_table_free(t);
    char title[128];
    /* one line on a projected 800 x 450 slide at font=2 */
    snprintf(title, sizeof title, "QK-norm keeps the logits bounded as %s", random ? "q and k grow" : "the weights grow");
    bl_figure *f = bl_fig_new(1, 2, title);
    bl_panel *p0 = f ? bl_fig_panel(f, 0) : NULL, *p1 = f ? bl_fig_panel(f, 1) : NULL;
    int rc = f ? 0 : -1;
    for (int k = 0; rc == 0 && k < 2; k++) {
        const char *lab = k ? "QK-norm on" : "QK-norm off";
        if (bl_panel_line(p0, lab, xs, ml[k], n, BL_MARKERS) < 0 || bl_panel_line(p1, lab, xs, tw[k], n, BL_MARKERS) < 0)
            rc = -1;
    }
    const char *xl = random ? "scale s of q, k" : "weight scale s";
    if (rc == 0 && (bl_panel_labels(p0, "max |logit| ~ s^2", xl, "max |logit|") < 0 ||
                    bl_panel_labels(p1, "mean top weight", xl, "top weight") < 0))
        rc = -1;
    if (rc == 0) bl_panel_yfrom(p1, 0);   /* weights from 0; the top fitted, the legend finds its room */
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    /* the logits' axes fitted to the data, ending at the first labelled tick past it (1.45 .. 370
     * on 1 .. 1000; fixed limits, 8 x the largest logit for the legend's room, ran it to 2960) */
    bl_panel_log(p0, 1, 1);
    bl_panel_log(p1, 1, 0);
    /* the table (.csv): one row per scale, without and with QK-norm */
    static const char *const tcols[] = { "qk_norm", "scale", "max_logit", "top_weight" };
    rc = bl_fig_table(f, tcols, "srrr");
    for (int k = 0; rc == 0 && k < 2; k++)
        for (int i = 0; rc == 0 && i < n; i++) rc = bl_fig_row(f, bl_config_value("qk_norm", k), sc[i], (double)ml[k][i], (double)tw[k][i]);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, NULL) < 0 ? as_growth() : 0;
}

static int complete_qk(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    (void)s, (void)words;
    static const char *const sub[] = { "growth", NULL };
    static const char *const k[] = { "scales=", "random=", "seed=", "tokens=", "head_dim=", BL_FIG_KEY_WORDS, NULL };
    bl_complete_from(argi == 0 ? sub : k, prefix, out);
    return 0;
}

static const char help[] =
    "Attention-logit growth with and without QK-norm.\n"
    "random=on (the lecture's experiment): q, k [tokens, head_dim] ~ N(0, 1)\n"
    "from seed=, each times s; random=off: q, k = s x W (x [tokens, 64] and\n"
    "W fixed). Prints max |logit| and the mean top attention weight per\n"
    "scale and draws them against s: without QK-norm the logits grow as s^2\n"
    "and the top weight goes to 1; with it (RMSNorm of q and k) both stay\n"
    "the same. torch.manual_seed(0) gives 3.8/0.11, 60.5/0.90, 969/1.00\n"
    "against 3.4/0.10; blocklab draws its own q, k, so its numbers are\n"
    "close, not equal. Scales are in (0, 1e6].\n"
    "qk.csv: columns qk_norm,scale,max_logit,top_weight (qk_norm {qk_norm:0}, {qk_norm:1}).";

const bl_command bl_cmd_qk_entry = {
    .name = "qk",
    .synopsis = "qk growth [random=on] [scales=1,4,16] [seed=0] [tokens=64] [head_dim=32]",
    .help = help,
    .help_more = bl_fig_size_help,
    .complete = complete_qk,
    .run = cmd_qk,
    .flags = BL_WRITES_PICTURE,
};
