/* cmd_attn.c - `attn [MODEL]`: the attention maps of the model on its fixed input (views.h). */
#include "repl/views.h"
#include "core/error.h"
#include "repl/figures.h"
#include "repl/trainstate.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns of `attn query=`'s n square images (one colour bar right of them all, DR_BAR_ROOM)
 * that make them largest on a 1600 x 900 page: 1 2 2 2 3 3 4 4 for 1 .. 8 heads (with gaps of
 * 36 units: the narrower ones drawn would make a row of 4 larger than 2 x 2 by 1.5%, too
 * little to leave the usual shape) */
static int query_cols(int n)
{
    int best = 1;
    double top = 0;
    for (int c = 1; c <= n; c++) {
        int r = (n + c - 1) / c;
        double s = fmin((1552.0 - 110 - (c - 1) * 36) / c, (786.0 - (r - 1) * 36) / r - 40);
        if (s > top + 1) top = s, best = c;
    }
    return best;
}

static int cmd_attn(bl_cmdargs *a)
{
    static const char *const keys[] = { "layer", "head", "query", "image", "cols", BL_FIG_SIZE_KEYS, NULL };
    int used;
    bl_model *m = bl_models_pick(a, &used);
    long layer, query = -1, head = -1, image;
    if (!m || bl_opt_check(a, used, keys) < 0 || bl_layer_word(a, m, &layer) < 0 ||
        bl_image_word(a, m, &image) < 0 || bl_cmd_figsize(a, NULL) < 0)
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
    bl_fixed_input o;
    if (bl_fixed_forward(m, (int)layer, (int)image, &o, "attn") < 0) return -1;
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
    /* cols=, else the columns that make the maps largest on the page asked for: a map needs about
     * 70 units left of it (row labels, y label) and 110 above and below (title, column labels,
     * x label); query='s images 40 above each (its title) and 110 right of them all (their one
     * colour bar) */
    int deflt = query >= 0 ? query_cols(nh) : nh <= 2 ? nh : nh <= 4 ? 2 : nh <= 9 ? 3 : 4;
    long gc;
    if (bl_cmd_grid_cols(a, nh, query >= 0 ? 0 : 70, query >= 0 ? 110 : 0, query >= 0 ? 40 : 110, 1, deflt, &gc) < 0) {
        bl_fixed_free(&o);
        return -1;
    }
    int cols = (int)gc, rows = (nh + cols - 1) / cols;
    if (rows > BL_FIG_MAX_GRID) {
        bl_fixed_free(&o);
        bl_fail("attn: %d heads in %d columns need %d rows, more than %d (cols=%d or more)", nh, cols, rows,
                BL_FIG_MAX_GRID, (nh + BL_FIG_MAX_GRID - 1) / BL_FIG_MAX_GRID);
        int ci = bl_opt_find(a, "cols");
        return bl_session_errat(a->s, ci >= 0 ? a->w[ci].vpos : a->st->pos);
    }
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
    bl_fixed_free(&o);
    if (rc < 0) {
        bl_fig_free(f);
        return -1;
    }
    return bl_cmd_figure(a, f, &m->cfg);
}

static const char help[] =
    "Attention maps of the model on a fixed input.\n"
    "TinyDiT: validation image 0 (image=N) of its data (or shapes) at\n"
    "t = 0.5; TinyGPT: a fixed text window, labelled with its characters.\n"
    "Shows the L x L attention of one head or all heads (small multiples).\n"
    "query=N (TinyDiT): each head's weights of patch N (row N / grid,\n"
    "column N mod grid) over the patch grid, drawn as a translucent\n"
    "heat overlay on the clean image at the image's scale, patch N\n"
    "outlined, one colour bar for all heads right of the grid (their one\n"
    "range; PNG, SVG, terminal).\n"
    "`attn layer=1 > attn.png` saves it. attn.csv: one row per query and\n"
    "key, columns layer,head,query,key,prob (keys and queries numbered as\n"
    "tokens; a TinyDiT patch at row r, column c is r * grid + c; with\n"
    "query=N the rows of query N); each query's probs sum to 1 over keys.\n"
    "cols=N lays the heads out N to a row (attn cols=4: 4 heads in a row\n"
    "across a 16:9 slide); without it 2 x 2 for 4 heads, unless the page's\n"
    "shape and font= make another grid's maps a quarter larger (width=1600\n"
    "height=400, or query= at font=2 on a 16:9 page: one row).";

const bl_command bl_cmd_attn_entry = {
    .name = "attn",
    .synopsis = "attn [MODEL] [layer=0] [head=all|N] [query=N] [image=0] [cols=auto]",
    .help = help,
    .help_more = bl_fig_size_help,
    .complete = bl_complete_modelvar,
    .run = cmd_attn,
    .flags = BL_WRITES_PICTURE,
};
