/* dash.c - the live training dashboard: a step loop, keys, and the terminal renderer's canvases
 * drawn with ncurses (see dash.h). */
#include "viz/dash.h"
#include "viz/canvas.h"
#include "viz/color.h"
#include "viz/term.h"
#include "core/error.h"
#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PLOT_POINTS 2000 /* the loss curve is smoothed, then downsampled to this many points */

static volatile sig_atomic_t stop_signal;
static SCREEN *active_screen; /* non-NULL while the dashboard owns the terminal */

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* restore the terminal if someone calls exit() while the dashboard runs */
static void restore_at_exit(void)
{
    if (active_screen) endwin();
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- growing history of the loss ---- */

typedef struct {
    float *x, *y;
    int n, cap;
} curve;

static int curve_push(curve *c, float x, float y)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 256;
        float *nx = realloc(c->x, (size_t)cap * sizeof *nx);
        if (!nx) return bl_fail("dash: out of memory");
        c->x = nx;
        float *ny = realloc(c->y, (size_t)cap * sizeof *ny);
        if (!ny) return bl_fail("dash: out of memory");
        c->y = ny;
        c->cap = cap;
    }
    c->x[c->n] = x;
    c->y[c->n] = y;
    c->n++;
    return 0;
}

static void curve_free(curve *c)
{
    free(c->x);
    free(c->y);
}

/* ---- ncurses colour pairs for the canvas's RGB colours ---- */

typedef struct {
    int ncolors;        /* 256, 8 or 0 */
    int next_pair;
    short *pair_of;     /* (fg + 1) * 257 + (bg + 1) -> pair, 0 = none yet */
} palette;

static short color_index(const palette *p, uint32_t rgb)
{
    if (rgb == BL_NO_RGB) return -1;
    if (p->ncolors >= 256) return (short)bl_rgb_to_xterm256(rgb);
    /* 8 colours: one bit per channel at half intensity */
    int r = ((rgb >> 16) & 255) > 110, g = ((rgb >> 8) & 255) > 110, b = (rgb & 255) > 110;
    return (short)(r * COLOR_RED | g * COLOR_GREEN | b * COLOR_BLUE);
}

static int pair_for(palette *p, uint32_t fg, uint32_t bg)
{
    if (!p->ncolors) return 0;
    short f = color_index(p, fg), b = color_index(p, bg);
    if (f < 0 && b < 0) return 0;
    int key = (f + 1) * 257 + (b + 1);
    if (!p->pair_of[key]) {
        if (p->next_pair >= COLOR_PAIRS || p->next_pair > 32767) return 0;
        init_pair((short)p->next_pair, f, b);
        p->pair_of[key] = (short)p->next_pair++;
    }
    return p->pair_of[key];
}

/* draw a canvas at (y0, x0), clipped to w x h cells */
static void blit(palette *pal, const bl_canvas *c, int y0, int x0, int w, int h)
{
    for (int y = 0; y < c->h && y < h; y++)
        for (int x = 0; x < c->w && x < w; x++) {
            const bl_cell *e = &c->cells[(long)y * c->w + x];
            char buf[5];
            const char *g = bl_cell_glyph(e, buf);
            int pair = pair_for(pal, e->fg, e->bg);
            if (pair) attron(COLOR_PAIR(pair));
            mvaddstr(y0 + y, x0 + x, g);
            if (pair) attroff(COLOR_PAIR(pair));
        }
}

/* render a one-panel figure into the box; a message instead when it cannot be drawn */
static void draw_figure(palette *pal, const bl_figure *f, int y, int x, int w, int h, int unicode)
{
    if (w < 20 || h < 6) return;
    bl_canvas *c = bl_term_canvas(f, w, h, pal->ncolors > 0, unicode);
    if (!c) {
        mvaddnstr(y + h / 2, x + 1, bl_error(), w - 2);
        return;
    }
    blit(pal, c, y, x, w, h);
    bl_canvas_free(c);
}

/* ---- the state of one run ---- */

typedef struct {
    bl_dash_view view;
    bl_dash_frame fr;
    curve loss, val;
    float smooth;
    int paused, done, logy, unicode;
    bl_rate rate;           /* steps per second of training time, pauses and exams left out */
    palette pal;
} dash;

static const char *view_names[BL_DASH_NVIEWS] = {"overview", "loss", "attention", "stats"};

static bl_figure *loss_figure(dash *d)
{
    bl_figure *f = bl_fig_new(1, 1, NULL);
    if (!f) return NULL;
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_labels(p, "loss", "step", NULL);
    if (d->loss.n == 0) {
        bl_panel_text(p, "waiting for the first step ...");
        return f;
    }
    int n = d->loss.n, m = n < MAX_PLOT_POINTS ? n : MAX_PLOT_POINTS;
    float *sm = malloc((size_t)n * sizeof *sm), *xo = malloc((size_t)m * sizeof *xo), *yo = malloc((size_t)m * sizeof *yo),
          *ro = malloc((size_t)m * sizeof *ro), *rx = malloc((size_t)m * sizeof *rx);
    int ok = sm && xo && yo && ro && rx;
    if (ok && d->smooth > 0) { /* smooth every step first, then downsample both curves */
        ok = bl_ema(d->loss.y, n, d->smooth, sm) == 0;
        int k = ok ? bl_downsample(d->loss.x, d->loss.y, n, m, rx, ro) : -1;
        if (k > 0) bl_panel_line(p, "raw", rx, ro, k, BL_FAINT);
        k = ok ? bl_downsample(d->loss.x, sm, n, m, xo, yo) : -1;
        if (k > 0) bl_panel_line(p, "train (EMA)", xo, yo, k, BL_SAME_COLOR);
    } else if (ok) {
        int k = bl_downsample(d->loss.x, d->loss.y, n, m, xo, yo);
        if (k > 0) bl_panel_line(p, "train", xo, yo, k, 0);
    }
    if (d->fr.total > 0) bl_panel_limits(p, 'x', 0, (double)d->fr.total); /* the curve grows to the right */
    if (d->val.n) bl_panel_line(p, "val", d->val.x, d->val.y, d->val.n, BL_MARKERS | BL_NO_LINE);
    int positive = 1;
    for (int i = 0; i < n; i++) positive &= !(d->loss.y[i] <= 0);
    for (int i = 0; i < d->val.n; i++) positive &= !(d->val.y[i] <= 0);
    bl_panel_log(p, 0, d->logy && positive);
    free(sm), free(xo), free(yo), free(ro), free(rx);
    return f;
}

static bl_figure *attn_figure(dash *d)
{
    bl_figure *f = bl_fig_new(1, 1, NULL);
    if (!f) return NULL;
    bl_panel *p = bl_fig_panel(f, 0);
    char t[96];
    snprintf(t, sizeof t, "attention layer %d head %d", d->view.layer, d->view.head);
    if (!d->fr.attn || d->fr.attn_rows < 1 || d->fr.attn_cols < 1) {
        bl_panel_text(p, "no attention map");
        return f;
    }
    bl_panel_heatmap(p, d->fr.attn, d->fr.attn_rows, d->fr.attn_cols, BL_CMAP_VIRIDIS);
    if (d->fr.attn_labels && d->fr.attn_rows == d->fr.attn_cols)
        bl_panel_heatmap_labels(p, d->fr.attn_labels, d->fr.attn_labels);
    bl_panel_labels(p, t, NULL, NULL);
    return f;
}

static bl_figure *stats_figure(dash *d)
{
    bl_figure *f = bl_fig_new(1, 1, NULL);
    if (!f) return NULL;
    bl_panel *p = bl_fig_panel(f, 0);
    bl_panel_labels(p, d->fr.stat_title ? d->fr.stat_title : "activation stats", "token", NULL);
    for (int i = 0; i < d->fr.nstats && i < BL_DASH_MAX_STATS; i++)
        if (d->fr.stat[i] && d->fr.stat_n > 0)
            bl_panel_line(p, d->fr.stat_name[i] ? d->fr.stat_name[i] : "", NULL, d->fr.stat[i], d->fr.stat_n, 0);
    if (p->kind == BL_PANEL_EMPTY) bl_panel_text(p, "no statistics");
    return f;
}

static void draw_box(dash *d, bl_figure *(*make)(dash *), int y, int x, int w, int h)
{
    bl_figure *f = make(d);
    if (f) draw_figure(&d->pal, f, y, x, w, h, d->unicode);
    bl_fig_free(f);
}

/* "  NAME VALUE", or nothing for NaN: a loss with 4 decimals as train prints it, others (lr)
 * with 4 significant digits */
static void fmt_num(char *buf, size_t n, const char *name, double v, int loss)
{
    if (isnan(v)) buf[0] = 0;
    else snprintf(buf, n, loss ? "  %s %.4f" : "  %s %.4g", name, v);
}

static void draw_header(dash *d, int W)
{
    const bl_dash_frame *fr = &d->fr;
    char bar[32] = "", pct[16] = "", steps[48], loss[32], val[32], lr[32], speed[32] = "", eta[32] = "";
    if (fr->total > fr->start) {
        /* the run's step, then this dashboard's own steps and its bar, as train's bar counts them */
        long done = fr->step - fr->start, n = fr->total - fr->start;
        int k = (int)(20.0 * done / n);
        k = k < 0 ? 0 : k > 20 ? 20 : k;
        bar[0] = '[';
        for (int i = 0; i < 20; i++) bar[1 + i] = i < k ? '#' : '.';
        bar[21] = ']';
        bar[22] = 0;
        snprintf(pct, sizeof pct, " %3d%%", (int)(100.0 * done / n));
        snprintf(steps, sizeof steps, "step %ld  %ld/%ld ", fr->step, done, n);
    } else {
        snprintf(steps, sizeof steps, "step %ld", fr->step);
    }
    fmt_num(loss, sizeof loss, "loss", d->loss.n ? d->loss.y[d->loss.n - 1] : NAN, 1);
    bl_fmt_val(val, sizeof val, d->val.n ? d->val.y[d->val.n - 1] : 0, d->val.n ? (long)d->val.x[d->val.n - 1] : -1,
               fr->step);
    fmt_num(lr, sizeof lr, "lr", fr->lr, 0);
    /* done: the run's training rate; else the current one, and the time left at it (the exams
     * to come included) */
    double rate = fr->steps_per_s > 0 ? fr->steps_per_s : d->done ? bl_rate_overall(&d->rate) : bl_rate_now(&d->rate);
    if (rate > 0) {
        snprintf(speed, sizeof speed, "  %.1f steps/s", rate);
        double left = fr->steps_per_s > 0 ? (fr->total - fr->step) / rate
                                          : bl_rate_eta(&d->rate, fr->total - fr->step, fr->exams_left);
        char dur[24];
        if (fr->total > fr->step && !d->done && left >= 0)
            snprintf(eta, sizeof eta, "  eta %s", bl_fmt_duration(dur, sizeof dur, left));
    }
    attron(A_BOLD);
    mvaddnstr(0, 0, " blocklab dash  ", W);
    attroff(A_BOLD);
    char line[512];
    snprintf(line, sizeof line, "%s%s%s%s%s%s%s%s", steps, bar, pct, loss, val, lr, speed, eta);
    addnstr(line, W - 16 > 0 ? W - 16 : 0);
    const char *state = d->done ? "done" : d->paused ? "PAUSED" : "running";
    /* counted from 0, as in the panel titles and the layer= / head= of the commands */
    snprintf(line, sizeof line, " layer %d of %d  head %d of %d  view %s  %s  %s", d->view.layer,
             fr->n_layers > 0 ? fr->n_layers : 1, d->view.head, fr->n_heads > 0 ? fr->n_heads : 1,
             view_names[d->view.view], state, fr->title);
    mvaddnstr(1, 0, line, W);
}

static void draw(dash *d)
{
    int H, W;
    getmaxyx(stdscr, H, W);
    erase();
    if (W < 40 || H < 12) {
        mvaddnstr(0, 0, "dash: the terminal is too small (need 40 x 12); q quits", W);
        refresh();
        return;
    }
    if (d->pal.ncolors && d->pal.next_pair > COLOR_PAIRS - 1024) { /* recycle the pairs; all is redrawn */
        memset(d->pal.pair_of, 0, 258 * 258 * sizeof *d->pal.pair_of);
        d->pal.next_pair = 1;
    }
    draw_header(d, W);
    int top = 3, bh = H - top - 1;
    switch (d->view.view) {
    case BL_DASH_LOSS: draw_box(d, loss_figure, top, 0, W, bh); break;
    case BL_DASH_ATTN: draw_box(d, attn_figure, top, 0, W, bh); break;
    case BL_DASH_STATS: draw_box(d, stats_figure, top, 0, W, bh); break;
    default: {
        int lw = W * 11 / 20, rw = W - lw - 1, ah = bh * 3 / 5;
        draw_box(d, loss_figure, top, 0, lw, bh);
        for (int y = top; y < top + bh; y++) mvaddstr(y, lw, d->unicode ? "│" : "|");
        draw_box(d, attn_figure, top, lw + 1, rw, ah);
        draw_box(d, stats_figure, top + ah, lw + 1, rw, bh - ah);
    }
    }
    const char *help = d->unicode ? " q back  p pause  v/tab view  1-4 views  ←/→ head  ↑/↓ layer  g log y"
                                  : " q back  p pause  v/tab view  1-4 views  left/right head  up/down layer  g log y";
    attron(A_REVERSE);
    mvaddnstr(H - 1, 0, help, W);
    for (int x = getcurx(stdscr); x < W && x > 0; x++) addch(' ');
    attroff(A_REVERSE);
    refresh();
}

/* keys: returns 1 when the selection changed (the callback should refill), 2 to quit */
static int key(dash *d, int ch)
{
    int nl = d->fr.n_layers > 0 ? d->fr.n_layers : 1, nh = d->fr.n_heads > 0 ? d->fr.n_heads : 1;
    switch (ch) {
    case 'q': case 'Q': case 27: return 2;
    case 'p': case 'P': case ' ':
        d->paused = !d->paused;
        bl_rate_pause(&d->rate, now_s(), d->paused);   /* a pause is not training time */
        return 0;
    case 'v': case '\t': d->view.view = (d->view.view + 1) % BL_DASH_NVIEWS; return 0;
    case KEY_BTAB: d->view.view = (d->view.view + BL_DASH_NVIEWS - 1) % BL_DASH_NVIEWS; return 0;
    case '1': case '2': case '3': case '4': d->view.view = ch - '1'; return 0;
    case 'g': d->logy = !d->logy; return 0;
    case KEY_RIGHT: case 'l': d->view.head = (d->view.head + 1) % nh; return 1;
    case KEY_LEFT: case 'h': d->view.head = (d->view.head + nh - 1) % nh; return 1;
    case KEY_DOWN: case 'j': d->view.layer = (d->view.layer + 1) % nl; return 1;
    case KEY_UP: case 'k': d->view.layer = (d->view.layer + nl - 1) % nl; return 1;
    default: return 0;
    }
}

static int call_step(dash *d, bl_dash_step_fn step, void *ctx, int peek)
{
    d->view.peek = peek;
    d->fr.val_loss = NAN;
    d->fr.exam_s = 0;
    int r = step(ctx, &d->view, &d->fr);
    if (r < 0) return -1;
    /* keep the selection inside what the model has */
    if (d->fr.n_layers > 0 && d->view.layer >= d->fr.n_layers) d->view.layer = d->fr.n_layers - 1;
    if (d->fr.n_heads > 0 && d->view.head >= d->fr.n_heads) d->view.head = d->fr.n_heads - 1;
    if (peek) return r;
    if (isfinite(d->fr.loss) && curve_push(&d->loss, (float)d->fr.step, (float)d->fr.loss)) return -1;
    if (isfinite(d->fr.val_loss) && curve_push(&d->val, (float)d->fr.step, (float)d->fr.val_loss)) return -1;
    if (d->fr.exam_s > 0) bl_rate_exam(&d->rate, d->fr.exam_s, 1);   /* not training time */
    bl_rate_step(&d->rate, now_s(), d->fr.step);
    return r;
}

/* SIGWINCH: our own handler, as ncurses installs its own only when none is (readline's may be
 * there in the REPL, and then no KEY_RESIZE ever came) */
static volatile sig_atomic_t winch_signal;
static void on_winch(int sig)
{
    (void)sig;
    winch_signal = 1;
}

/* After a resize: take the terminal's new size and repaint all of it on the next refresh, as
 * the terminal may have kept (or reflowed) fragments of the old layout. */
static void resized(void)
{
    struct winsize ws;
    if (ioctl(fileno(stdout), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
        resize_term(ws.ws_row, ws.ws_col);
    clearok(curscr, TRUE);
}

static void sig_install(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    sigaction(SIGHUP, &sa, &old[2]);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, &old[3]);
}

static void sig_restore(const struct sigaction *old)
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
    sigaction(SIGHUP, &old[2], NULL);
    sigaction(SIGWINCH, &old[3], NULL);
}

int bl_dash_run(bl_dash_step_fn step, void *ctx, const bl_dash_opts *o)
{
    bl_dash_opts defaults = {0};
    if (!o) o = &defaults;
    if (!step) return bl_fail("dash: no step function");
    if (!isatty(STDOUT_FILENO)) return bl_fail("dash: standard output is not a terminal");
    if (!isatty(STDIN_FILENO)) return bl_fail("dash: standard input is not a terminal");
    if (active_screen) return bl_fail("dash: already running");
    static int registered;
    if (!registered) registered = atexit(restore_at_exit) == 0;

    dash d;
    memset(&d, 0, sizeof d);
    d.fr.loss = d.fr.val_loss = d.fr.lr = NAN;
    d.smooth = o->smooth == 0 ? 0.9f : o->smooth;
    d.view.view = o->view >= 0 && o->view < BL_DASH_NVIEWS ? o->view : 0;
    const char *cs = nl_langinfo(CODESET);
    d.unicode = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    int redraw_ms = o->redraw_ms > 0 ? o->redraw_ms : 100;
    /* a run that already has steps: its curve so far, so the plot starts at step 1 */
    for (int i = 0; i < o->hist_n; i++)
        if (isfinite(o->hist_loss[i]) && curve_push(&d.loss, (float)(i + 1), o->hist_loss[i])) {
            curve_free(&d.loss);
            return bl_fail("dash: out of memory");
        }
    for (int i = 0; i < o->hist_val_n; i++)
        if (isfinite(o->hist_val_loss[i]) &&
            curve_push(&d.val, (float)o->hist_val_step[i], o->hist_val_loss[i])) {
            curve_free(&d.loss);
            curve_free(&d.val);
            return bl_fail("dash: out of memory");
        }

    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        const char *t = getenv("TERM");
        return bl_fail("dash: cannot start ncurses for TERM=%s", t ? t : "(unset)");
    }
    active_screen = scr;
    stop_signal = 0;
    winch_signal = 0;
    struct sigaction old[4];
    sig_install(old);
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        d.pal.ncolors = COLORS >= 256 ? 256 : COLORS >= 8 ? 8 : 0;
        if (d.pal.ncolors && !(d.pal.pair_of = calloc(258 * 258, sizeof *d.pal.pair_of))) d.pal.ncolors = 0;
        d.pal.next_pair = 1;
    }

    int result = 0, refill = 0;
    double last_draw = 0;
    bl_rate_start(&d.rate, now_s(), o->hist_n);
    if (o->exam_s > 0) bl_rate_exam(&d.rate, o->exam_s, 0);   /* the exam before: only for the ETA */
    for (;;) {
        int ch, quit = 0;
        timeout(d.paused || d.done ? 50 : 0);
        while ((ch = getch()) != ERR) {
            if (ch == KEY_RESIZE) resized();
            int k = key(&d, ch);
            if (k == 2) quit = 1;
            if (k == 1) refill = 1;
            last_draw = 0; /* show the change at once */
            timeout(0);
        }
        if (quit) break;
        if (winch_signal) {
            winch_signal = 0;
            resized();
            last_draw = 0;
        }
        if (stop_signal) {
            result = 1;
            break;
        }
        if (!d.paused && !d.done) {
            int r = call_step(&d, step, ctx, 0);
            if (r < 0) {
                result = -1;
                break;
            }
            refill = 0;
            if (r == 1) {
                d.done = 1;
                last_draw = 0;
                if (o->exit_when_done) {
                    draw(&d);
                    break;
                }
            }
        } else if (refill) {
            if (call_step(&d, step, ctx, 1) < 0) {
                result = -1;
                break;
            }
            refill = 0;
        }
        double t = now_s();
        if (t - last_draw >= redraw_ms / 1000.0) {
            draw(&d);
            last_draw = t;
        }
    }
    endwin();
    active_screen = NULL;
    delscreen(scr);
    sig_restore(old);
    free(d.pal.pair_of);
    curve_free(&d.loss);
    curve_free(&d.val);
    return result;
}
