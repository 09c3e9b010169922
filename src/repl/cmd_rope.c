/* cmd_rope.c - `rope table` and `rope check`: the RoPE tables and the relative-position property
 * (the check itself is train/ropecheck.c; DESIGN.md section 3, Su et al. 2021 "RoFormer"). */
#include "repl/views.h"
#include "train/ropecheck.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"
#include "nn/nn.h"
#include "repl/figures.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


static const char *const rope_table_keys[] = { "head_dim", "base", "grid", "tokens", BL_FIG_SIZE_KEYS, NULL };
static const char *const rope_check_keys[] = { "dr", "dc", "head_dim", "base", "grid", BL_FIG_SIZE_KEYS, NULL };

/* Offset labels -(g-1) .. g-1 (static strings for the heatmap). */
static const char *const *offset_labels(int grid, char (*buf)[12])
{
    static const char *p[64];
    for (int i = 0; i < 2 * grid - 1; i++) {
        snprintf(buf[i], 12, "%d", i - grid + 1);
        p[i] = buf[i];
    }
    return p;
}

static int cmd_rope_check(bl_cmdargs *a)
{
    long dr, dc, hd, grid;
    double base;
    if (bl_opt_check(a, 1, rope_check_keys) < 0 || bl_opt_int(a, "dr", 1, -31, 31, &dr) < 0 ||
        bl_opt_int(a, "dc", 2, -31, 31, &dc) < 0 || bl_opt_int(a, "head_dim", 32, 4, 1024, &hd) < 0 ||
        bl_opt_num(a, "base", 100, 1e-30, 1e30, &base) < 0 || bl_opt_int(a, "grid", 8, 1, 32, &grid) < 0 ||
        bl_cmd_figsize(a, NULL) < 0)
        return -1;
    int g = (int)grid, n2 = 2 * g - 1;
    if (labs(dr) >= grid || labs(dc) >= grid) {
        const char *k = labs(dr) >= grid ? "dr" : "dc";
        int wi = bl_opt_find(a, k) >= 0 ? bl_opt_find(a, k) : bl_opt_find(a, "grid");
        bl_fail("rope check: offset (%ld, %ld) leaves the %dx%d grid (|dr|, |dc| < grid)", dr, dc, g, g);
        return bl_session_errat(a->s, wi >= 0 ? a->w[wi].pos : a->st->pos);
    }
    float *at = malloc(sizeof(float) * (size_t)(g * g)), *offs = malloc(sizeof(float) * (size_t)(n2 * n2));
    int count = at && offs ? bl_rope_check_scores((int)hd, (float)base, g, (int)dr, (int)dc, at, offs) : -1;
    if (count < 0) {
        if (!at || !offs) bl_fail("rope check: out of memory");
        free(at);
        free(offs);
        return -1;
    }
    /* the text goes to the terminal, or into a .txt redirect; a .png/.csv/... file instead of it */
    FILE *o = bl_cmd_text_out(a);
    fprintf(o, "rope check: q = k = ones(%ld), 2-D RoPE base %g on a %dx%d grid, score q.k\n", hd, base, g, g);
    fprintf(o, "  q at (r, c)   k at (r%+ld, c%+ld)   score\n", dr, dc);
    /* a few of the position pairs, evenly spread over those on the grid */
    int idx[64], nidx = 0;
    for (int i = 0; i < g * g; i++)
        if (isfinite(at[i])) idx[nidx < 64 ? nidx++ : 63] = i;
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < g * g; i++)
        if (isfinite(at[i])) lo = fminf(lo, at[i]), hi = fmaxf(hi, at[i]);
    int shown = count < 5 ? count : 5;
    for (int j = 0; j < shown; j++) {
        int i = idx[shown > 1 ? j * (nidx - 1) / (shown - 1) : 0], r = i / g, c = i % g;
        fprintf(o, "  (%d, %d)%*s(%ld, %ld)%*s%.4f\n", r, c, 8, "", r + dr, c + dc, r + dr >= 10 || c + dc >= 10 ? 9 : 10,
                "", at[i]);
    }
    fprintf(o, "  all %d pairs: min %.4f max %.4f (spread %.2g): one constant\n", count, lo, hi, hi - lo);
    /* a few other offsets for comparison, each once: on the grid, not (dr, dc) and not listed yet
     * ((0, 0) and (-dr, -dc) coincide with (dr, dc) when that is (0, 0)) */
    int others[][2] = { { 0, 0 }, { (int)dr + 1, (int)dc }, { (int)dr, (int)dc + 1 }, { (int)-dr, (int)-dc } };
    int listed = 0;
    for (int j = 0; j < 4; j++) {
        int r = others[j][0], c = others[j][1], seen = r == dr && c == dc;
        for (int k = 0; k < j; k++) seen |= others[k][0] == r && others[k][1] == c;
        if (seen || abs(r) >= g || abs(c) >= g) continue;
        fprintf(o, "%s (%d, %d) %.4f", listed++ ? "," : "  other offsets:", r, c, offs[(r + g - 1) * n2 + c + g - 1]);
    }
    if (listed) fputc('\n', o);
    float m = 0;
    for (int i = 0; i < n2 * n2; i++) m = fmaxf(m, fabsf(offs[i]));
    char title[128], t0[96];
    snprintf(title, sizeof title, "RoPE 2-D (head_dim %ld, base %g): the score depends only on the offset", hd, base);
    snprintf(t0, sizeof t0, "q at (r, c), k at (r%+ld, c%+ld)", dr, dc);
    bl_figure *f = bl_fig_new(1, 2, title);
    bl_panel *p0 = f ? bl_fig_panel(f, 0) : NULL, *p1 = f ? bl_fig_panel(f, 1) : NULL;
    char lab[64][12];
    int rc = !f ? -1 : 0;
    if (rc == 0)
        rc = bl_panel_heatmap(p0, at, g, g, BL_CMAP_DIVERGING) < 0 || bl_panel_heatmap_range(p0, -m, m) < 0 ||
                     bl_panel_heatmap_annotate(p0, "%.2f") < 0 || bl_panel_labels(p0, t0, "column c", "row r") < 0 ||
                     bl_panel_heatmap(p1, offs, n2, n2, BL_CMAP_DIVERGING) < 0 ||
                     bl_panel_heatmap_range(p1, -m, m) < 0 || bl_panel_heatmap_annotate(p1, "%.1f") < 0 ||
                     bl_panel_heatmap_labels(p1, offset_labels(g, lab), offset_labels(g, lab)) < 0 ||
                     bl_panel_labels(p1, "score against offset (q at the centre)", "dc", "dr") < 0
                 ? -1
                 : 0;
    /* the table (.csv): one row per q, k pair of either panel, the block naming the panel:
     * "pairs" every pair on the grid at offset (dr, dc), "offsets" q at the centre of a
     * (2g - 1)^2 grid and k at every offset */
    static const char *const cols[] = { "block", "q_row", "q_col", "k_row", "k_col", "dr", "dc", "score" };
    if (rc == 0) rc = bl_fig_table(f, cols, "siiiiiir");
    for (int i = 0; rc == 0 && i < g * g; i++)
        if (isfinite(at[i]))
            rc = bl_fig_row(f, "pairs", i / g, i % g, i / g + (int)dr, i % g + (int)dc, (int)dr, (int)dc, (double)at[i]);
    for (int i = 0; rc == 0 && i < n2 * n2; i++)
        rc = bl_fig_row(f, "offsets", g - 1, g - 1, i / n2, i % n2, i / n2 - (g - 1), i % n2 - (g - 1), (double)offs[i]);
    free(at);
    free(offs);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, NULL);
}

/* ---- rope table ---- */

/* The angle of pair `pair` at every token, as nn.h defines the tables (DESIGN.md section 3):
 * 1-D a = pos * base^(-2i/hd); 2-D pair i < hd/4 turns with the row, the others with the column,
 * a = (row or column) * base^(-(i mod hd/4)/(hd/4)). out [T]. */
static void table_angles(int T, int hd, double base, int grid, int pair, float *out)
{
    for (int t = 0; t < T; t++) {
        if (!grid) out[t] = (float)(t * pow(base, -2.0 * pair / hd));
        else {
            int q = hd / 4, pos = pair < q ? t / grid : t % grid;
            out[t] = (float)(pos * pow(base, -(double)(pair % q) / q));
        }
    }
}

static int cmd_rope_table(bl_cmdargs *a)
{
    long hd, grid, tokens;
    double base;
    if (bl_opt_check(a, 1, rope_table_keys) < 0 || bl_opt_int(a, "head_dim", 32, 2, 1024, &hd) < 0 ||
        bl_opt_int(a, "grid", 0, 0, 32, &grid) < 0 || bl_opt_int(a, "tokens", 64, 2, 1024, &tokens) < 0)
        return -1;
    int two = grid > 0;
    if (bl_opt_num(a, "base", two ? 100 : 10000, 1e-30, 1e30, &base) < 0) return -1;
    if (two && bl_opt_find(a, "tokens") >= 0) {
        bl_fail("rope table: tokens= is for 1-D tables; with grid=%ld there are %ld tokens", grid, grid * grid);
        return bl_session_errat(a->s, a->w[bl_opt_find(a, "tokens")].pos);
    }
    int T = two ? (int)(grid * grid) : (int)tokens, H = (int)hd;
    float *cos = malloc(sizeof(float) * (size_t)T * H), *sin = malloc(sizeof(float) * (size_t)T * H);
    float *ang = malloc(sizeof(float) * (size_t)T * 8), *pos = malloc(sizeof(float) * (size_t)T);
    bl_figure *f = NULL;
    int rc = cos && sin && ang && pos ? 0 : bl_fail("rope table: out of memory");
    if (rc == 0)
        rc = two ? bl_rope_table_2d((int)grid, (int)grid, 0, H, (float)base, cos, sin)
                 : bl_rope_table_1d(T, H, (float)base, 0, cos, sin);
    if (rc < 0) {
        /* "rope: ..." from nn names the problem (odd head_dim, not a multiple of 4): one prefix */
        bl_error_as("rope table", "rope|rope2d");
        bl_session_errat(a->s, a->w[bl_opt_find(a, "head_dim") >= 0 ? bl_opt_find(a, "head_dim") : 0].pos);
    }
    char title[128];
    if (two)
        snprintf(title, sizeof title, "2-D RoPE tables: %ldx%ld grid, head_dim %ld, base %g", grid, grid, hd, base);
    else
        snprintf(title, sizeof title, "RoPE tables: %d tokens, head_dim %ld, base %g", T, hd, base);
    if (rc == 0 && !(f = bl_fig_new(1, 3, title))) rc = -1;
    const char *ylab = two ? "token (8 r + c)" : "position";
    char tokl[32];
    if (two) snprintf(tokl, sizeof tokl, "token (%ld r + c)", grid), ylab = tokl;
    for (int k = 0; rc == 0 && k < 2; k++) {
        bl_panel *p = bl_fig_panel(f, k);
        char pt[48];   /* [tokens, head_dim] in numbers: one line over a narrow map on a slide */
        snprintf(pt, sizeof pt, "%s [%d, %d]", k ? "sin" : "cos", T, H);
        rc = bl_panel_heatmap(p, k ? sin : cos, T, H, BL_CMAP_DIVERGING) < 0 || bl_panel_heatmap_range(p, -1, 1) < 0 ||
                     bl_panel_labels(p, pt, "feature", ylab) < 0
                 ? -1
                 : 0;
    }
    if (rc == 0) {
        /* the angle of a few pairs against position: 1-D up to 6 pairs evenly spread (log y, from
         * position 1); 2-D the first and last pair of each half (row half, column half) */
        bl_panel *p = bl_fig_panel(f, 2);
        int pairs[8], np = 0, from = two ? 0 : 1;
        if (two) {
            int q = H / 4;
            int cand[4] = { 0, q / 2, q, q + q / 2 };
            for (int i = 0; i < 4; i++)
                if (np == 0 || cand[i] != pairs[np - 1]) pairs[np++] = cand[i];
        } else {
            int npair = H / 2;
            np = npair < 6 ? npair : 6;
            for (int i = 0; i < np; i++) pairs[i] = np > 1 ? i * (npair - 1) / (np - 1) : 0;
        }
        for (int t = 0; t < T; t++) pos[t] = (float)t;
        for (int i = 0; rc == 0 && i < np; i++) {
            char lab[48];
            float *y = ang + (size_t)i * T;
            table_angles(T, H, base, (int)grid, pairs[i], y);
            if (two) snprintf(lab, sizeof lab, "%s pair %d", pairs[i] < H / 4 ? "row" : "col", pairs[i] % (H / 4));
            else snprintf(lab, sizeof lab, "pair %d", pairs[i]);
            rc = bl_panel_line(p, lab, pos + from, y + from, T - from, 0) < 0 ? -1 : 0;
        }
        if (rc == 0)
            rc = bl_panel_labels(p, "angle of each pair",
                                 two ? ylab : "position", "angle (radians)");
        /* 1-D: log-log, each pair a straight line of slope 1, a ladder of frequencies; both
         * axes fitted to the data and ending at the first labelled tick past it (bl_scale_cover:
         * angles 1.8e-4 .. 63 give 1e-4 .. 100). 2-D: linear, the angle axis likewise fitted
         * (angles 0 .. 7 on an 8 x 8 grid end at 7 or 8, by the ticks). The legend goes where it
         * covers the fewest points, or beside the lines when every place covers some (draw.c).
         * (Fixed limits with room above for the legend, 300 x and 1.6 x the largest angle, ran
         * the axes to 1e4 and 11.2.) */
        if (!two && rc == 0) bl_panel_log(p, 1, 1);
        bl_panel_xcount(p, 1);
    }
    /* the table (.csv): one row per token and feature, with the angle of the feature's pair
     * (every pair, not only those drawn) and the table's cos and sin */
    static const char *const cols1[] = { "position", "feature", "pair", "angle", "cos", "sin" };
    static const char *const cols2[] = { "token", "row", "col", "feature", "pair", "angle", "cos", "sin" };
    if (rc == 0) rc = two ? bl_fig_table(f, cols2, "iiiiirrr") : bl_fig_table(f, cols1, "iiirrr");
    float *all = rc == 0 ? malloc(sizeof(float) * (size_t)T * (H / 2)) : NULL;  /* [H/2, T] */
    if (rc == 0 && !all) rc = bl_fail("rope table: out of memory");
    for (int i = 0; rc == 0 && i < H / 2; i++) table_angles(T, H, base, (int)grid, i, all + (size_t)i * T);
    for (int t = 0; rc == 0 && t < T; t++)
        for (int k = 0; rc == 0 && k < H; k++) {
            double an = all[(size_t)(k / 2) * T + t], c = cos[(size_t)t * H + k], s = sin[(size_t)t * H + k];
            rc = two ? bl_fig_row(f, t, t / (int)grid, t % (int)grid, k, k / 2, an, c, s) : bl_fig_row(f, t, k, k / 2, an, c, s);
        }
    free(all);
    free(cos);
    free(sin);
    free(ang);
    free(pos);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, NULL);
}

static int cmd_rope(bl_cmdargs *a)
{
    if (a->n >= 1 && !a->w[0].key && !strcmp(a->w[0].text, "table")) return cmd_rope_table(a);
    if (a->n >= 1 && !a->w[0].key && !strcmp(a->w[0].text, "check")) return cmd_rope_check(a);
    bl_fail("rope: expected table or check, got '%s'", a->n ? a->w[0].text : "");
    return a->n ? bl_session_errat(a->s, a->w[0].pos) : -1;
}

static int complete_rope(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    static const char *const sub[] = { "table", "check", NULL };
    static const char *const tk[] = { "head_dim=", "base=", "grid=", "tokens=", BL_FIG_KEY_WORDS, NULL };
    static const char *const ck[] = { "dr=", "dc=", "head_dim=", "base=", "grid=", BL_FIG_KEY_WORDS, NULL };
    if (argi == 0) bl_complete_from(sub, prefix, out);
    else bl_complete_from(!strcmp(words[0], "check") ? ck : tk, prefix, out);
    return 0;
}

static const char help[] =
    "RoPE pictures: the tables and the relative check.\n"
    "rope table [head_dim=32] [base=10000] [grid=0] [tokens=64]: cos and\n"
    "sin [tokens, head_dim] and each pair's angle against position;\n"
    "grid=8 shows the 2-D tables (base 100).\n"
    "rope check [dr=1] [dc=2] [head_dim=32] [base=100] [grid=8]: q = k =\n"
    "ones at every cell pair with offset (dr, dc) give one score; a heatmap\n"
    "of the score against every offset, with the numbers printed.\n"
    "As .csv, one table each. rope table: a row per token and feature,\n"
    "  position,feature,pair,angle,cos,sin\n"
    "  (grid=G: token,row,col,feature,pair,angle,cos,sin).\n"
    "rope check: a row per q, k pair,\n"
    "  block,q_row,q_col,k_row,k_col,dr,dc,score\n"
    "  block pairs: the pairs at (dr, dc) on the grid; block offsets: q at\n"
    "  the centre (grid-1, grid-1) of a (2 grid - 1)^2 grid, k at every offset.";

const bl_command bl_cmd_rope_entry = {
    .name = "rope",
    .synopsis = "rope table|check [KEY=VALUE...]",
    .help = help,
    .help_more = bl_fig_size_help,
    .complete = complete_rope,
    .run = cmd_rope,
    .flags = BL_WRITES_PICTURE,
};
