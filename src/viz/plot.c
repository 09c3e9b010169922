/* plot.c - building and checking a figure description (see plot.h). */
#include "viz/plot.h"
#include "core/error.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BL_PLOT_MAX_POINTS (1L << 26) /* 64M floats per array: far beyond any picture */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* replace *dst by a copy of s (NULL leaves *dst alone); 0 or -1 */
static int set_str(char **dst, const char *s)
{
    if (!s) return 0;
    char *c = strdup(s);
    if (!c) return bl_fail("plot: out of memory");
    free(*dst);
    *dst = c;
    return 0;
}

static float *dup_floats(const float *v, long n)
{
    float *c = malloc((size_t)n * sizeof *c);
    if (c) memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

int bl_grid_cols_ok(int n, int c)
{
    if (c < 1 || c > n) return 0;
    if (n % c == 0) return 1;
    for (int k = 2; k * k <= n; k++)
        if (n % k == 0) return 0;
    return 1;
}

int bl_grid_square_cols(int n, double (*scale)(int k, const void *ctx), const void *ctx)
{
    double best = 0, least = INFINITY, at = 0;
    int pick = 1;
    for (int k = 1; k <= n; k++)
        if (bl_grid_cols_ok(n, k)) best = fmax(best, scale(k, ctx));
    for (int k = 1; k <= n; k++) {
        double s = bl_grid_cols_ok(n, k) ? scale(k, ctx) : -1;
        if (s <= 0 || s < BL_GRID_KEEP * best) continue;
        double off = fabs(log((double)k / ((n + k - 1) / k)));
        if (off < least - 1e-9 || (off < least + 1e-9 && s > at - 1e-9)) least = off, pick = k, at = s;
    }
    return pick;
}

bl_figure *bl_fig_new(int rows, int cols, const char *title)
{
    if (rows < 1 || cols < 1 || rows > BL_FIG_MAX_GRID || cols > BL_FIG_MAX_GRID)
        return BL_FAILP("plot: a figure has 1..%d rows and columns of panels, got %d x %d", BL_FIG_MAX_GRID,
                        rows, cols);
    bl_figure *f = calloc(1, sizeof *f);
    if (!f) return BL_FAILP("plot: out of memory");
    f->rows = rows;
    f->cols = cols;
    f->panels = calloc((size_t)rows * cols, sizeof *f->panels);
    f->title = dup_or_null(title);
    if (!f->panels || (title && !f->title)) {
        bl_fig_free(f);
        return BL_FAILP("plot: out of memory");
    }
    return f;
}

static void panel_clear(bl_panel *p)
{
    free(p->title);
    free(p->xlabel);
    free(p->ylabel);
    for (int i = 0; i < p->nseries; i++) {
        free(p->series[i].label);
        free(p->series[i].x);
        free(p->series[i].y2);
        free(p->series[i].y);
    }
    free(p->series);
    free(p->values);
    for (int i = 0; p->row_labels && i < p->rows; i++) free(p->row_labels[i]);
    for (int i = 0; p->col_labels && i < p->cols; i++) free(p->col_labels[i]);
    free(p->row_labels);
    free(p->col_labels);
    free(p->annotate);
    free(p->pixels);
    free(p->overlay);
    free(p->text);
    memset(p, 0, sizeof *p);
}

static void data_free(bl_fig_data *d)
{
    if (!d) return;
    for (int i = 0; d->names && i < d->ncols; i++) free(d->names[i]);
    for (int i = 0; i < d->nstrs; i++) free(d->strs[i]);
    free(d->names);
    free(d->types);
    free(d->cells);
    free(d->strs);
    free(d);
}

int bl_fig_table(bl_figure *f, const char *const *names, const char *types)
{
    int n = (int)strlen(types);
    if (f->data) return bl_fail("plot: the figure already has a table");
    if (n < 1 || n > 64) return bl_fail("plot: a table has 1..64 columns, got %d", n);
    for (int i = 0; i < n; i++) {
        if (!strchr("irs", types[i])) return bl_fail("plot: column type '%c' is not i, r or s", types[i]);
        if (!names[i] || !names[i][0]) return bl_fail("plot: column %d has no name", i);
        for (int k = 0; k < i; k++)
            if (!strcmp(names[i], names[k])) return bl_fail("plot: column name '%s' is repeated", names[i]);
    }
    bl_fig_data *d = calloc(1, sizeof *d);
    if (!d || !(d->names = calloc((size_t)n, sizeof *d->names)) || !(d->types = strdup(types))) {
        data_free(d);
        return bl_fail("plot: out of memory");
    }
    d->ncols = n;
    for (int i = 0; i < n; i++)
        if (!(d->names[i] = strdup(names[i]))) {
            data_free(d);
            return bl_fail("plot: out of memory");
        }
    f->data = d;
    return 0;
}

/* the index of text s in d->strs, added when new; -1 when out of memory */
static int text_index(bl_fig_data *d, const char *s)
{
    for (int i = d->nstrs - 1; i >= 0; i--)
        if (!strcmp(d->strs[i], s)) return i;
    if (d->nstrs == d->strcap) {
        int nc = d->strcap ? 2 * d->strcap : 16;
        char **ns = realloc(d->strs, (size_t)nc * sizeof *ns);
        if (!ns) return -1;
        d->strs = ns;
        d->strcap = nc;
    }
    if (!(d->strs[d->nstrs] = strdup(s))) return -1;
    return d->nstrs++;
}

/* room for one more row of the table: the row's cells, or NULL + error */
static double *row_room(bl_figure *f)
{
    bl_fig_data *d = f->data;
    if (!d) return BL_FAILP("plot: the figure has no table (bl_fig_table)");
    if (d->nrows == d->cap) {
        long nc = d->cap ? 2 * d->cap : 256;
        if (nc > BL_PLOT_MAX_POINTS / d->ncols) return BL_FAILP("plot: the table has too many rows");
        double *c = realloc(d->cells, (size_t)nc * (size_t)d->ncols * sizeof *c);
        if (!c) return BL_FAILP("plot: out of memory");
        d->cells = c;
        d->cap = nc;
    }
    return d->cells + (size_t)d->nrows * (size_t)d->ncols;
}

int bl_fig_row_nums(bl_figure *f, const double *v)
{
    double *row = row_room(f);
    if (!row) return -1;
    for (int i = 0; i < f->data->ncols; i++)
        if (f->data->types[i] == 's') return bl_fail("plot: bl_fig_row_nums: column %d holds text", i);
    for (int i = 0; i < f->data->ncols; i++) row[i] = f->data->types[i] == 'i' ? (double)(int)v[i] : v[i];
    f->data->nrows++;
    return 0;
}

int bl_fig_row(bl_figure *f, ...)
{
    double *row = row_room(f);
    if (!row) return -1;
    bl_fig_data *d = f->data;
    va_list ap;
    va_start(ap, f);
    int rc = 0;
    for (int i = 0; i < d->ncols; i++) {
        if (d->types[i] == 'i') row[i] = va_arg(ap, int);
        else if (d->types[i] == 'r') row[i] = va_arg(ap, double);
        else {
            const char *s = va_arg(ap, const char *);
            int k = text_index(d, s ? s : "");
            if (k < 0) rc = bl_fail("plot: out of memory");
            row[i] = k;
        }
    }
    va_end(ap);
    if (rc == 0) d->nrows++;
    return rc;
}

void bl_fig_free(bl_figure *f)
{
    if (!f) return;
    data_free(f->data);
    for (int i = 0; f->panels && i < f->rows * f->cols; i++) panel_clear(&f->panels[i]);
    free(f->panels);
    free(f->title);
    free(f->command);
    free(f->config);
    free(f);
}

bl_panel *bl_fig_panel(bl_figure *f, int index)
{
    if (index < 0 || index >= f->rows * f->cols)
        return BL_FAILP("plot: panel %d out of range (the figure has %d)", index, f->rows * f->cols);
    return &f->panels[index];
}

void bl_fig_share(bl_figure *f, int sharex, int sharey)
{
    f->sharex = sharex != 0;
    f->sharey = sharey != 0;
}

int bl_fig_meta(bl_figure *f, const char *command, const char *config)
{
    return set_str(&f->command, command) || set_str(&f->config, config) ? -1 : 0;
}

int bl_panel_labels(bl_panel *p, const char *title, const char *xlabel, const char *ylabel)
{
    return set_str(&p->title, title) || set_str(&p->xlabel, xlabel) || set_str(&p->ylabel, ylabel) ? -1 : 0;
}

void bl_panel_log(bl_panel *p, int logx, int logy)
{
    p->logx = logx != 0;
    p->logy = logy != 0;
}

void bl_panel_xcount(bl_panel *p, int on)
{
    p->xcount = on != 0;
}

void bl_panel_yfrom(bl_panel *p, double v)
{
    p->has_yfrom = 1, p->yfrom = v;
}

int bl_panel_limits(bl_panel *p, char axis, double lo, double hi)
{
    if (axis != 'x' && axis != 'y') return bl_fail("plot: limits axis must be 'x' or 'y', got '%c'", axis);
    if (!(isfinite(lo) && isfinite(hi) && lo < hi))
        return bl_fail("plot: %c limits need lo < hi, got %g and %g", axis, lo, hi);
    if (axis == 'x') p->has_xlim = 1, p->xlim[0] = lo, p->xlim[1] = hi;
    else p->has_ylim = 1, p->ylim[0] = lo, p->ylim[1] = hi;
    return 0;
}

static const char *kind_name(bl_panel_kind k)
{
    static const char *names[] = {"nothing", "line series", "a heatmap", "images", "text"};
    return names[k];
}

/* the panel may take content of kind k (it is empty or already of that kind when `more`) */
static int claim(bl_panel *p, bl_panel_kind k, int more)
{
    if (p->kind == BL_PANEL_EMPTY || (more && p->kind == k)) {
        p->kind = k;
        return 0;
    }
    return bl_fail("plot: panel already holds %s", kind_name(p->kind));
}

int bl_panel_line(bl_panel *p, const char *label, const float *x, const float *y, int n, unsigned flags)
{
    if (!label) label = "";
    if (n < 1 || !y) return bl_fail("plot: series '%s' is empty", label);
    if (n > BL_PLOT_MAX_POINTS) return bl_fail("plot: series '%s' has %d points (at most %ld)", label, n, BL_PLOT_MAX_POINTS);
    if (claim(p, BL_PANEL_LINES, 1)) return -1;
    if (p->nseries == p->series_cap) {
        int cap = p->series_cap ? 2 * p->series_cap : 4;
        bl_series *s = realloc(p->series, (size_t)cap * sizeof *s);
        if (!s) return bl_fail("plot: out of memory");
        p->series = s;
        p->series_cap = cap;
    }
    bl_series *s = &p->series[p->nseries];
    memset(s, 0, sizeof *s);
    s->label = strdup(label);
    s->y = dup_floats(y, n);
    s->x = malloc((size_t)n * sizeof *s->x);
    if (!s->label || !s->y || !s->x) {
        free(s->label), free(s->y), free(s->x);
        return bl_fail("plot: out of memory");
    }
    for (int i = 0; i < n; i++) s->x[i] = x ? x[i] : (float)i;
    s->n = n;
    s->flags = flags;
    if (flags & BL_FAINT) s->flags |= BL_NO_LEGEND;
    int prev = p->nseries ? p->series[p->nseries - 1].color : -1, used = -1;
    for (int i = 0; i < p->nseries; i++)
        if (p->series[i].color > used) used = p->series[i].color;
    s->color = flags & BL_GUIDE ? -1 : (flags & BL_SAME_COLOR) && prev >= 0 ? prev : used + 1;
    return p->nseries++;
}

int bl_panel_band(bl_panel *p, const float *x, const float *lo, const float *hi, int n)
{
    if (!hi) return bl_fail("plot: band is empty");
    int k = bl_panel_line(p, "", x, lo, n, BL_BAND | BL_NO_LINE | BL_NO_LEGEND | BL_SAME_COLOR);
    if (k < 0) return -1;
    bl_series *s = &p->series[k];
    if (!(s->y2 = dup_floats(hi, n))) {
        free(s->label), free(s->y), free(s->x);
        p->nseries--;
        return bl_fail("plot: out of memory");
    }
    return k;
}

int bl_series_legend(bl_panel *p, int k, const char *label)
{
    char *l = strdup(label);
    if (!l) return bl_fail("plot: out of memory");
    free(p->series[k].label);
    p->series[k].label = l;
    p->series[k].flags &= ~BL_NO_LEGEND;
    return 0;
}

int bl_panel_smoothed(bl_panel *p, const char *label, const float *x, const float *y, int n, float smooth)
{
    if (smooth == 0) return bl_panel_line(p, label, x, y, n, 0);
    if (n < 1 || !y) return bl_fail("plot: series '%s' is empty", label ? label : "");
    float *sm = malloc((size_t)n * sizeof *sm);
    if (!sm) return bl_fail("plot: out of memory");
    int r = -1;
    if (bl_loss_smooth(y, n, smooth, n / 40, sm) == 0 && bl_panel_line(p, label, x, y, n, BL_FAINT) >= 0)
        r = bl_panel_line(p, label, x, sm, n, BL_SAME_COLOR);
    free(sm);
    return r;
}

int bl_panel_heatmap(bl_panel *p, const float *values, int rows, int cols, bl_cmap cmap)
{
    if (rows < 1 || cols < 1 || !values) return bl_fail("plot: heatmap is empty (%d x %d)", rows, cols);
    if ((long)rows * cols > BL_PLOT_MAX_POINTS) return bl_fail("plot: heatmap %d x %d is too large", rows, cols);
    if (claim(p, BL_PANEL_HEATMAP, 0)) return -1;
    p->values = dup_floats(values, (long)rows * cols);
    if (!p->values) {
        p->kind = BL_PANEL_EMPTY;
        return bl_fail("plot: out of memory");
    }
    p->rows = rows;
    p->cols = cols;
    p->cmap = cmap;
    return 0;
}

int bl_panel_heatmap_range(bl_panel *p, float vmin, float vmax)
{
    if (p->kind != BL_PANEL_HEATMAP) return bl_fail("plot: colour range set on a panel without a heatmap");
    if (!(isfinite(vmin) && isfinite(vmax) && vmin < vmax))
        return bl_fail("plot: colour range needs vmin < vmax, got %g and %g", vmin, vmax);
    p->has_range = 1;
    p->vmin = vmin;
    p->vmax = vmax;
    return 0;
}

static char **dup_labels(const char *const *src, int n)
{
    char **out = calloc((size_t)n, sizeof *out);
    for (int i = 0; out && i < n; i++) {
        out[i] = strdup(src[i] ? src[i] : "");
        if (!out[i]) {
            while (i--) free(out[i]);
            free(out);
            return NULL;
        }
    }
    return out;
}

int bl_panel_heatmap_labels(bl_panel *p, const char *const *row_labels, const char *const *col_labels)
{
    if (p->kind != BL_PANEL_HEATMAP) return bl_fail("plot: tick labels set on a panel without a heatmap");
    char **r = row_labels ? dup_labels(row_labels, p->rows) : NULL;
    char **c = col_labels ? dup_labels(col_labels, p->cols) : NULL;
    if ((row_labels && !r) || (col_labels && !c)) {
        for (int i = 0; r && i < p->rows; i++) free(r[i]);
        for (int i = 0; c && i < p->cols; i++) free(c[i]);
        free(r), free(c);
        return bl_fail("plot: out of memory");
    }
    if (r) {
        for (int i = 0; p->row_labels && i < p->rows; i++) free(p->row_labels[i]);
        free(p->row_labels);
        p->row_labels = r;
    }
    if (c) {
        for (int i = 0; p->col_labels && i < p->cols; i++) free(p->col_labels[i]);
        free(p->col_labels);
        p->col_labels = c;
    }
    return 0;
}

int bl_panel_heatmap_mark(bl_panel *p, int row, int col)
{
    if (p->kind != BL_PANEL_HEATMAP) return bl_fail("plot: mark set on a panel without a heatmap");
    if (row < 0 || row >= p->rows || col < 0 || col >= p->cols)
        return bl_fail("plot: mark (%d, %d) is outside the %d x %d heatmap", row, col, p->rows, p->cols);
    p->has_mark = 1, p->mark_row = row, p->mark_col = col;
    return 0;
}

int bl_panel_heatmap_annotate(bl_panel *p, const char *format)
{
    if (p->kind != BL_PANEL_HEATMAP) return bl_fail("plot: annotation set on a panel without a heatmap");
    /* exactly one conversion, of a floating-point kind, and nothing else with a '%' */
    int convs = 0, ok = 1;
    for (const char *s = format; *s; s++) {
        if (*s != '%') continue;
        if (s[1] == '%') {
            s++;
            continue;
        }
        s++;
        while (*s && strchr("-+ #0", *s)) s++;
        while (*s >= '0' && *s <= '9') s++;
        if (*s == '.') s++;
        while (*s >= '0' && *s <= '9') s++;
        ok &= *s && strchr("fFeEgG", *s) != NULL;
        convs++;
        if (!*s) break;
    }
    if (convs != 1 || !ok) return bl_fail("plot: annotation format needs one %%f, %%e or %%g conversion, got \"%s\"", format);
    return set_str(&p->annotate, format);
}

int bl_panel_images(bl_panel *p, const float *data, int n, int c, int h, int w, float lo, float hi,
                    int grid_cols)
{
    if (n < 1 || h < 1 || w < 1 || !data) return bl_fail("plot: image grid is empty (%d images of %d x %d)", n, h, w);
    if (c != 1 && c != 3) return bl_fail("plot: images need 1 or 3 channels, got %d", c);
    if ((long)n * c * h * w > BL_PLOT_MAX_POINTS) return bl_fail("plot: image grid %d x %d x %d x %d is too large", n, c, h, w);
    if (!(isfinite(lo) && isfinite(hi) && lo < hi))
        return bl_fail("plot: image value range needs lo < hi, got %g and %g", lo, hi);
    if (grid_cols < 0) return bl_fail("plot: image grid columns must be >= 0, got %d", grid_cols);
    if (claim(p, BL_PANEL_IMAGES, 0)) return -1;
    p->pixels = dup_floats(data, (long)n * c * h * w);
    if (!p->pixels) {
        p->kind = BL_PANEL_EMPTY;
        return bl_fail("plot: out of memory");
    }
    p->n = n, p->c = c, p->h = h, p->w = w;
    p->lo = lo, p->hi = hi;
    p->grid_cols = grid_cols;
    return 0;
}

int bl_panel_images_overlay(bl_panel *p, const float *values, int rows, int cols, float alpha)
{
    if (p->kind != BL_PANEL_IMAGES) return bl_fail("plot: overlay needs an images panel");
    if (rows < 1 || cols < 1 || !values) return bl_fail("plot: overlay is empty (%d x %d)", rows, cols);
    if ((long)rows * cols > BL_PLOT_MAX_POINTS) return bl_fail("plot: overlay %d x %d is too large", rows, cols);
    if (!(alpha > 0 && alpha <= 1)) return bl_fail("plot: overlay alpha must be in (0, 1], got %g", alpha);
    float *v = dup_floats(values, (long)rows * cols);
    if (!v) return bl_fail("plot: out of memory");
    free(p->overlay);
    p->overlay = v;
    p->orows = rows, p->ocols = cols, p->oalpha = alpha;
    p->omin = INFINITY, p->omax = -INFINITY;
    for (long i = 0; i < (long)rows * cols; i++)
        if (isfinite(v[i])) p->omin = fminf(p->omin, v[i]), p->omax = fmaxf(p->omax, v[i]);
    if (!(p->omin < p->omax)) p->omax = p->omin + 1; /* flat or all NaN: one colour */
    return 0;
}

int bl_panel_images_overlay_range(bl_panel *p, float lo, float hi)
{
    if (p->kind != BL_PANEL_IMAGES || !p->overlay) return bl_fail("plot: overlay range set on a panel without an overlay");
    if (!(isfinite(lo) && isfinite(hi) && lo < hi)) return bl_fail("plot: overlay range needs lo < hi, got %g and %g", lo, hi);
    p->omin = lo, p->omax = hi;
    return 0;
}

const bl_panel *bl_fig_overlay_one_bar(const bl_figure *f)
{
    const bl_panel *first = NULL;
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind == BL_PANEL_EMPTY) continue;
        if (p->kind != BL_PANEL_IMAGES || !p->overlay) return NULL;
        if (!first) first = p;
        else if (p->omin != first->omin || p->omax != first->omax) return NULL;
    }
    return first;
}

int bl_panel_images_mark(bl_panel *p, int row, int col, int rows, int cols)
{
    if (p->kind != BL_PANEL_IMAGES) return bl_fail("plot: image mark set on a panel without images");
    if (rows < 1 || cols < 1 || rows > p->h || cols > p->w)
        return bl_fail("plot: mark grid %d x %d does not fit %d x %d images", rows, cols, p->h, p->w);
    if (row < 0 || row >= rows || col < 0 || col >= cols)
        return bl_fail("plot: mark (%d, %d) is outside the %d x %d grid", row, col, rows, cols);
    p->has_mark = 1, p->mark_row = row, p->mark_col = col, p->mrows = rows, p->mcols = cols;
    return 0;
}

int bl_panel_text(bl_panel *p, const char *text)
{
    if (!text) return bl_fail("plot: text panel needs a text");
    if (claim(p, BL_PANEL_TEXT, 0)) return -1;
    p->text = strdup(text);
    if (!p->text) {
        p->kind = BL_PANEL_EMPTY;
        return bl_fail("plot: out of memory");
    }
    return 0;
}

/* the first value <= 0 on a log axis of a lines panel */
static int check_log(const bl_panel *p, char axis)
{
    if (axis == 'x' ? p->has_xlim && p->xlim[0] <= 0 : p->has_ylim && p->ylim[0] <= 0)
        return bl_fail("plot: log %c axis needs limits > 0, got %g", axis, axis == 'x' ? p->xlim[0] : p->ylim[0]);
    for (int s = 0; s < p->nseries; s++) {
        const bl_series *se = &p->series[s];
        for (int i = 0; i < se->n; i++) {
            float v = axis == 'x' ? se->x[i] : se->y[i];
            if (isfinite(v) && v <= 0)
                return bl_fail("plot: log %c axis needs values > 0, but series '%s' has %g at index %d", axis,
                               se->label, v, i);
        }
    }
    return 0;
}

int bl_fig_check(const bl_figure *f)
{
    int used = 0;
    for (int i = 0; i < f->rows * f->cols; i++) {
        const bl_panel *p = &f->panels[i];
        if (p->kind != BL_PANEL_EMPTY) used++;
        if (p->kind != BL_PANEL_LINES) continue;
        if ((p->logx && check_log(p, 'x')) || (p->logy && check_log(p, 'y'))) return -1;
    }
    if (!used) return bl_fail("plot: the figure has nothing to draw");
    return 0;
}
