/* test_termimg.c - pictures on terminals: the escape sequences byte by byte against the protocols'
 * documents (kitty's graphics protocol, iTerm2's inline images, tmux's passthrough, base64 of
 * RFC 4648 section 10), the parsing of terminals' answers (xterm's DA1 as vt340, kitty's OK),
 * detection on a pseudo-terminal that stays silent (it gives up after 100 ms and picks half
 * blocks) or answers, the fitting of pictures into the window, and bl_term_show on a pty. */
#include "core/error.h"
#include "viz/plot.h"
#include "viz/progress.h"
#include "viz/termdetect.h"
#include "viz/termimg.h"
#include "../check.h"
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "config.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* what f wrote to a memory stream */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} mem;

static void mem_open(mem *m) { m->buf = NULL, m->len = 0, m->f = open_memstream(&m->buf, &m->len); }
static void mem_close(mem *m) { fclose(m->f); }

BL_TEST(base64_rfc4648)
{
    /* RFC 4648 section 10 test vectors */
    const char *in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    const char *out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
    for (int i = 0; i < 7; i++) {
        char b[16] = {0};
        size_t n = bl_base64((const unsigned char *)in[i], strlen(in[i]), b);
        CHECK(n == strlen(out[i]) && !memcmp(b, out[i], n), "%s -> %.*s, want %s", in[i], (int)n, b, out[i]);
    }
}

BL_TEST(kitty_one_chunk)
{
    /* "Transferring PNG data": f=100; a=T transmit and display; q=2 no answers; m=0 last chunk */
    mem m;
    mem_open(&m);
    CHECK(bl_kitty_write(m.f, (const unsigned char *)"foobar", 6, 0) == 0, "%s", bl_error());
    mem_close(&m);
    const char want[] = "\033_Ga=T,f=100,q=2,m=0;Zm9vYmFy\033\\";
    CHECK(m.len == sizeof want - 1 && !memcmp(m.buf, want, m.len), "got %zu bytes: %.*s", m.len, (int)m.len, m.buf);
    free(m.buf);
}

BL_TEST(kitty_chunks)
{
    /* 3073 zero bytes: 4100 base64 bytes = a first chunk of 4096 (m=1, all the keys) and a
     * second of 4 with only m=0; 3072 bytes (4096 base64 bytes) fit one chunk */
    unsigned char z[3073] = {0};
    mem m;
    mem_open(&m);
    CHECK(bl_kitty_write(m.f, z, 3073, 0) == 0, "%s", bl_error());
    mem_close(&m);
    const char head[] = "\033_Ga=T,f=100,q=2,m=1;";
    size_t h = sizeof head - 1;
    CHECK(m.len == h + 4096 + 2 + 7 + 4 + 2, "length %zu", m.len);
    if (m.len == h + 4096 + 2 + 7 + 4 + 2) {
        CHECK(!memcmp(m.buf, head, h), "first chunk's keys: %.30s", m.buf);
        int all_a = 1;
        for (size_t i = h; i < h + 4096; i++) all_a &= m.buf[i] == 'A';
        CHECK(all_a, "first chunk's 4096 base64 bytes");
        CHECK(!memcmp(m.buf + h + 4096, "\033\\\033_Gm=0;AA==\033\\", 2 + 7 + 4 + 2), "second chunk: %.15s", m.buf + h + 4096);
    }
    free(m.buf);
    mem_open(&m);
    bl_kitty_write(m.f, z, 3072, 0);
    mem_close(&m);
    CHECK(m.len == h + 4096 + 2 && !memcmp(m.buf, "\033_Ga=T,f=100,q=2,m=0;", h), "3072 bytes: one chunk");
    free(m.buf);
}

BL_TEST(iterm_sequence)
{
    /* ESC ] 1337 ; File = [arguments] : base-64 encoded file contents ^G */
    mem m;
    mem_open(&m);
    CHECK(bl_iterm_write(m.f, (const unsigned char *)"foobar", 6, 40, 0) == 0, "%s", bl_error());
    mem_close(&m);
    const char want[] = "\033]1337;File=inline=1;size=6;width=40;preserveAspectRatio=1:Zm9vYmFy\a";
    CHECK(m.len == sizeof want - 1 && !memcmp(m.buf, want, m.len), "got %.*s", (int)m.len, m.buf);
    free(m.buf);
}

BL_TEST(tmux_passthrough)
{
    /* tmux: DCS tmux; <sequence with each ESC doubled> ST */
    mem m;
    mem_open(&m);
    CHECK(bl_kitty_write(m.f, (const unsigned char *)"foo", 3, 1) == 0, "%s", bl_error());
    mem_close(&m);
    const char want[] = "\033Ptmux;\033\033_Ga=T,f=100,q=2,m=0;Zm9v\033\033\\\033\\";
    CHECK(m.len == sizeof want - 1 && !memcmp(m.buf, want, m.len), "got %zu bytes", m.len);
    free(m.buf);
}

BL_TEST(sixel_sequence)
{
#ifndef HAVE_LIBSIXEL
    SKIP("built without libsixel");
#else
    /* a 12 x 12 red image: DCS ... q, a palette entry #N;2;100;0;0 (RGB in percent), sixel
     * data, ST */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 12, 12);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 0, 0);
    cairo_paint(cr);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    mem m;
    mem_open(&m);
    CHECK(bl_sixel_write(m.f, s, 0) == 0, "%s", bl_error());
    mem_close(&m);
    cairo_surface_destroy(s);
    CHECK(m.len > 10 && m.buf[0] == 0x1b && m.buf[1] == 'P', "starts with DCS: %.10s", m.buf);
    CHECK(m.len > 10 && m.buf[m.len - 2] == 0x1b && m.buf[m.len - 1] == '\\', "ends with ST");
    CHECK(memchr(m.buf, 'q', m.len) != NULL, "sixel's q");
    const char *pal = memmem(m.buf, m.len, "#0;2;", 5);   /* RGB in percent */
    int r = -1, g = -1, b = -1;
    if (pal) sscanf(pal + 5, "%d;%d;%d", &r, &g, &b);
    CHECK(r >= 94 && g >= 0 && g <= 3 && b >= 0 && b <= 3, "the red palette entry: %.*s", (int)m.len, m.buf);
    free(m.buf);
#endif
}

BL_TEST(parse_answers)
{
    bl_term_answers a = {0};
    /* xterm -ti vt340: DA1 with attribute 4 (sixel), no answer to kitty's query */
    const char *x = "\033[4;390;600t\033[?63;1;2;4;6;9;15;16;22;28c";
    CHECK(bl_term_parse_answers(x, strlen(x), &a) == 1, "DA1 seen");
    CHECK(a.answered && a.sixel && !a.kitty, "xterm vt340: sixel");
    CHECK(a.px_w == 600 && a.px_h == 390, "CSI 4;390;600t: %d x %d", a.px_w, a.px_h);
    /* kitty: OK to the query, DA1 without 4 */
    memset(&a, 0, sizeof a);
    const char *k = "\033_Gi=31;OK\033\\\033[?62;c";
    CHECK(bl_term_parse_answers(k, strlen(k), &a) == 1 && a.kitty && !a.sixel, "kitty OK");
    /* an error to the query is not kitty; the terminal class 4 is not an attribute */
    memset(&a, 0, sizeof a);
    const char *e = "\033_Gi=31;ENOTSUPPORTED:no\033\\\033[?4;6c";
    CHECK(bl_term_parse_answers(e, strlen(e), &a) == 1 && !a.kitty && !a.sixel, "an error, class 4");
    /* no DA1 yet (a piece of the answers) */
    memset(&a, 0, sizeof a);
    CHECK(bl_term_parse_answers("\033[?63;4", 7, &a) == 0 && !a.answered, "a cut DA1 is not an answer");
}

/* a pty pair with a window of cols x rows (cells of 6 x 13 pixels when px) */
static int pty(int *master, int *slave, int cols, int rows, int px)
{
    struct winsize ws = { (unsigned short)rows, (unsigned short)cols, (unsigned short)(px ? cols * 6 : 0),
                          (unsigned short)(px ? rows * 13 : 0) };
    return openpty(master, slave, NULL, NULL, &ws);
}

BL_TEST(silent_terminal)
{
    int ma, sl;
    if (pty(&ma, &sl, 80, 24, 0) < 0) SKIP("no pty");
    bl_term_answers a;
    double t0 = now_ms();
    CHECK(bl_term_query(sl, sl, 100, 0, &a) == 0, "%s", bl_error());
    double dt = now_ms() - t0;
    CHECK(dt >= 95 && dt < 400, "gave up after %.0f ms", dt);
    CHECK(!a.answered && !a.kitty && !a.sixel, "nothing answered");
    char buf[256];
    ssize_t n = read(ma, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    CHECK(n > 0 && strstr(buf, "\033_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\033\\") && strstr(buf, "\033[c"),
          "the queries went out: kitty's a=q and DA1");
    /* the choice: standard input is this silent pty too */
    int in = dup(STDIN_FILENO);
    dup2(sl, STDIN_FILENO);
    unsetenv("BLOCKLAB_PICTURES"), unsetenv("TMUX"), unsetenv("STY");
    unsetenv("KITTY_WINDOW_ID"), unsetenv("TERM_PROGRAM"), unsetenv("LC_TERMINAL");
    setenv("TERM", "xterm-kitty", 1);   /* TERM alone never decides */
    bl_pic_set(BL_PIC_AUTO);
    int tmux;
    const char *why;
    t0 = now_ms();
    bl_pic_mode m = bl_pic_choose(sl, &tmux, &why);
    dt = now_ms() - t0;
    CHECK(m == BL_PIC_BLOCKS, "a silent terminal: %s (%s)", bl_pic_name(m), why);
    CHECK(dt < 400, "chosen in %.0f ms", dt);
    CHECK(strstr(why, "did not answer") != NULL, "why: %s", why);
    /* kept: asked once */
    t0 = now_ms();
    bl_pic_choose(sl, &tmux, &why);
    CHECK(now_ms() - t0 < 20, "the second picture does not ask again");
    setenv("BLOCKLAB_PICTURES", "kitty", 1);
    CHECK(bl_pic_choose(sl, &tmux, &why) == BL_PIC_KITTY, "BLOCKLAB_PICTURES=kitty");
    bl_pic_set(BL_PIC_ASCII);
    CHECK(bl_pic_choose(sl, &tmux, &why) == BL_PIC_ASCII, "the session's setting before the environment");
    bl_pic_set(BL_PIC_AUTO);
    unsetenv("BLOCKLAB_PICTURES");
    dup2(in, STDIN_FILENO);
    close(in), close(ma), close(sl);
}

BL_TEST(answering_terminal)
{
    int ma, sl;
    if (pty(&ma, &sl, 80, 24, 0) < 0) SKIP("no pty");
    /* the answers of xterm -ti vt340, typed before the query reads them */
    const char *ans = "\033[4;312;480t\033[?63;1;2;4;6;9;15;22c";
    CHECK(write(ma, ans, strlen(ans)) == (ssize_t)strlen(ans), "write");
    bl_term_answers a;
    double t0 = now_ms();
    CHECK(bl_term_query(sl, sl, 100, 0, &a) == 0, "%s", bl_error());
    CHECK(now_ms() - t0 < 90, "done at the DA1 answer, before the timeout");
    CHECK(a.answered && a.sixel && !a.kitty && a.px_w == 480 && a.px_h == 312, "sixel, 480 x 312");
    /* the choice on it, with no pixel size from TIOCGWINSZ: sixel, and cells of 480 / 80 x
     * 312 / 24 pixels from the CSI 14 t answer */
    CHECK(write(ma, ans, strlen(ans)) == (ssize_t)strlen(ans), "write");
    int in = dup(STDIN_FILENO);
    dup2(sl, STDIN_FILENO);
    unsetenv("BLOCKLAB_PICTURES"), unsetenv("TMUX"), unsetenv("STY"), unsetenv("TERM_PROGRAM"), unsetenv("LC_TERMINAL");
    bl_pic_set(BL_PIC_AUTO);
    int tmux, cols, rows, cw, ch;
    const char *why;
    bl_pic_mode m = bl_pic_choose(sl, &tmux, &why);
    CHECK(m == BL_PIC_SIXEL && !tmux, "%s (%s)", bl_pic_name(m), why);
    CHECK(bl_term_window(sl, &cols, &rows, &cw, &ch) == 0 && cols == 80 && rows == 24 && cw == 6 && ch == 13,
          "window %d x %d, cells %d x %d", cols, rows, cw, ch);
    dup2(in, STDIN_FILENO);
    close(in), close(ma), close(sl);
    bl_pic_set(BL_PIC_AUTO);
}

static int pipe_byte(void *ctx)
{
    unsigned char c;
    return read(*(int *)ctx, &c, 1) == 1 ? c : -1;
}

/* A terminal's answer that comes after the detection gave up (100 ms) is not typed at the
 * prompt: "[?64;1;2;4c" showed up as text. The line editor's key reader drops whole answers
 * (DA1, CSI 4 ; H ; W t, kitty's APC G ... ESC \) once a query went unanswered, and keeps
 * every key, escape sequences (arrows, End as ESC [ 4 ~) included. */
BL_TEST(late_answers_are_not_keys)
{
    CHECK(bl_term_answer_prefix("\033[?64;1;2;4c", strlen("\033[?64;1;2;4c")) == 2 && bl_term_answer_prefix("\033[?64;1", strlen("\033[?64;1")) == 1 &&
              bl_term_answer_prefix("\033[4;312;480t", strlen("\033[4;312;480t")) == 2 && bl_term_answer_prefix("\033[4~", strlen("\033[4~")) == 0 &&
              bl_term_answer_prefix("\033[A", strlen("\033[A")) == 0 && bl_term_answer_prefix("\033_Gi=31;OK\033\\", strlen("\033_Gi=31;OK\033\\")) == 2 &&
              bl_term_answer_prefix("\033b", strlen("\033b")) == 0,
          "answers told from keys");
    int ma, sl;
    if (pty(&ma, &sl, 80, 24, 0) < 0) SKIP("no pty");
    bl_term_answers a;
    CHECK(bl_term_query(sl, sl, 100, 0, &a) == 0 && !a.answered, "a silent terminal");
    close(ma), close(sl);
    CHECK(bl_term_late_possible(), "an unanswered query is remembered");
    int fd[2];
    if (pipe(fd) < 0) SKIP("no pipe");
    const char *in = "\033[?64;1;2;4cab\033[Ax\033[4~\033[4;312;480ty\033_Gi=31;OK\033\\z";
    CHECK(write(fd[1], in, strlen(in)) == (ssize_t)strlen(in), "write");
    close(fd[1]);
    char got[64];
    int n = 0, c;
    while (n < 63 && (c = bl_term_late_filter(fd[0], pipe_byte, &fd[0])) >= 0) got[n++] = (char)c;
    got[n] = 0;
    CHECK(!strcmp(got, "ab\033[Ax\033[4~yz"), "keys read: '%s'", got);
    close(fd[0]);
    /* an arrow key read past its ESC: the rest is held, and said to be there (readline would
     * else take the ESC alone) */
    if (pipe(fd) < 0) SKIP("no pipe");
    CHECK(write(fd[1], "\033[A", 3) == 3, "write");
    CHECK(bl_term_late_filter(fd[0], pipe_byte, &fd[0]) == 0x1b && bl_term_held_count() == 2, "ESC, then %d held",
          bl_term_held_count());
    CHECK(bl_term_late_filter(fd[0], pipe_byte, &fd[0]) == '[' && bl_term_late_filter(fd[0], pipe_byte, &fd[0]) == 'A' &&
              bl_term_held_count() == 0,
          "the held bytes in order");
    close(fd[0]), close(fd[1]);
}

BL_TEST(fit)
{
    int w, h, r;
    /* 100 x 30 cells of 6 x 13: the whole width, 16:9 */
    CHECK(bl_pic_fit(100, 30, 6, 13, 0, 0, &w, &h, &r) == 0 && w == 600 && h == 337 && r == 26, "%d %d %d", w, h, r);
    /* 16 rows: 14 of them (statement and prompt stay), the width from 16:9 */
    CHECK(bl_pic_fit(100, 16, 6, 13, 0, 0, &w, &h, &r) == 0 && h == 182 && w == 323 && r == 14, "%d %d %d", w, h, r);
    /* width= and height= are columns and rows: the box */
    CHECK(bl_pic_fit(100, 48, 6, 13, 80, 20, &w, &h, &r) == 0 && w == 480 && h == 260 && r == 20, "%d %d %d", w, h, r);
    /* larger than the window: the window */
    CHECK(bl_pic_fit(100, 30, 6, 13, 300, 0, &w, &h, &r) == 0 && w == 600, "%d", w);
    CHECK(bl_pic_fit(100, 30, 0, 0, 0, 0, &w, &h, &r) < 0, "an unknown pixel size");
    CHECK(bl_term_fit_rows(48, 0) == 46 && bl_term_fit_rows(48, 20) == 20 && bl_term_fit_rows(3, 0) == 4, "rows");
}

/* drain a pty's master into a buffer while the test writes to the slave */
typedef struct {
    int fd;
    char buf[1 << 20];
    size_t n;
    volatile int stop;
} drain;

static void *drain_run(void *p)
{
    drain *d = p;
    while (!d->stop || 1) {
        struct pollfd pf = { d->fd, POLLIN, 0 };
        int r = poll(&pf, 1, 50);
        if (r <= 0) {
            if (d->stop) break;
            continue;
        }
        ssize_t k = read(d->fd, d->buf + d->n, sizeof d->buf - 1 - d->n);
        if (k <= 0) break;
        d->n += (size_t)k;
    }
    d->buf[d->n] = 0;
    return NULL;
}

/* bl_term_show of f on a pty of cols x rows (px: with a pixel size) with BLOCKLAB_PICTURES=mode */
static void show_on_pty(const bl_figure *f, int cols, int rows, int px, const char *mode, drain *d)
{
    int ma, sl;
    d->n = 0, d->stop = 0;
    if (pty(&ma, &sl, cols, rows, px) < 0) return;
    struct termios t;
    tcgetattr(sl, &t);
    cfmakeraw(&t);   /* bytes as written, no \n -> \r\n */
    tcsetattr(sl, TCSANOW, &t);
    d->fd = ma;
    pthread_t th;
    pthread_create(&th, NULL, drain_run, d);
    setenv("BLOCKLAB_PICTURES", mode, 1);
    setenv("COLORTERM", "truecolor", 1);
    unsetenv("NO_COLOR");
    FILE *out = fdopen(dup(sl), "w");
    CHECK(bl_term_show(f, out) == 0, "%s", bl_error());
    fclose(out);
    d->stop = 1;
    pthread_join(th, NULL);
    unsetenv("BLOCKLAB_PICTURES");
    close(ma), close(sl);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static bl_figure *big_heatmap(void)
{
    static float v[64 * 64];
    for (int i = 0; i < 64 * 64; i++) v[i] = (float)(i % 64) - (float)(i / 64);
    bl_figure *f = bl_fig_new(1, 1, "64 x 64");
    bl_panel_heatmap(bl_fig_panel(f, 0), v, 64, 64, BL_CMAP_DIVERGING);
    return f;
}

BL_TEST(blocks_fit_the_window)
{
    static drain d;
    bl_figure *f = big_heatmap();
    /* natural: more rows than a 24-row window has */
    mem m;
    mem_open(&m);
    bl_term_opts o = { 80, 0, BL_COLOR_NONE, 0 };
    bl_term_print(f, m.f, &o);
    mem_close(&m);
    int natural = count_lines(m.buf);
    free(m.buf);
    CHECK(natural > 22, "natural height %d", natural);
    show_on_pty(f, 80, 24, 0, "blocks", &d);
    int lines = count_lines(d.buf);
    CHECK(lines <= 22 && lines >= 12, "on 80 x 24: %d lines (natural %d)", lines, natural);
    CHECK(strstr(d.buf, "\033[") != NULL, "in colour");
    /* height= is the rows on a terminal */
    f->height = 12;
    show_on_pty(f, 80, 24, 0, "blocks", &d);
    CHECK(count_lines(d.buf) == 12, "height=12: %d lines", count_lines(d.buf));
    f->height = 0;
    /* ascii: no escape codes, no UTF-8 */
    show_on_pty(f, 80, 24, 0, "ascii", &d);
    int plain = 1;
    for (size_t i = 0; i < d.n; i++) plain &= (unsigned char)d.buf[i] < 128 && d.buf[i] != 0x1b;
    CHECK(plain && count_lines(d.buf) <= 22, "ascii");
    bl_fig_free(f);
}

BL_TEST(kitty_on_pty)
{
    static drain d;
    bl_figure *f = big_heatmap();
    show_on_pty(f, 100, 30, 1, "kitty", &d);
    /* a PNG (base64 "iVBORw0KGgo" = \x89PNG\r\n\x1a\n) in chunks, then a line feed */
    CHECK(!strncmp(d.buf, "\033_Ga=T,f=100,q=2,m=1;iVBORw0KGgo", 32), "starts: %02x %.40s", d.buf[0], d.buf + 1);
    CHECK(d.n > 4 && !strcmp(d.buf + d.n - 4, "\033\\\r\n"), "ends with the last chunk and a new line");
    CHECK(strstr(d.buf, "\033_Gm=0;") != NULL, "a last chunk m=0");
    /* without a pixel size: half blocks */
    show_on_pty(f, 100, 30, 0, "kitty", &d);
    CHECK(strstr(d.buf, "\033_G") == NULL && count_lines(d.buf) <= 28, "no pixel size: half blocks");
    /* iTerm2 */
    show_on_pty(f, 100, 30, 1, "iterm", &d);
    CHECK(!strncmp(d.buf, "\033]1337;File=inline=1;size=", 26) && strstr(d.buf, ";width=100;preserveAspectRatio=1:iVBORw0KGgo"),
          "iterm: %.80s", d.buf);
    bl_fig_free(f);
}

BL_TEST(status_line_after_a_resize)
{
    /* a bar of 80 characters drawn on 100 columns, then the window narrows to 50: a reflowing
     * terminal (tmux) wrapped the old bar into 2 rows, so the redraw goes up 1 and erases down */
    bl_status_line st = {0};
    char bar[81];
    memset(bar, '#', 80), bar[80] = 0;
    unsetenv("XTERM_VERSION");
    mem m;
    mem_open(&m);
    bl_status_draw(&st, m.f, 100, bar);
    mem_close(&m);
    CHECK(m.len == 84 && !memcmp(m.buf, "\r", 1) && !memcmp(m.buf + 81, "\033[K", 3), "first draw");
    free(m.buf);
    CHECK(bl_status_rows(&st, 100) == 1 && bl_status_rows(&st, 50) == 2 && bl_status_rows(&st, 30) == 3 &&
          bl_status_rows(&st, 80) == 1, "rows of 80 characters");
    mem_open(&m);
    bl_status_draw(&st, m.f, 30, "step 2");
    mem_close(&m);
    CHECK(m.len == strlen("\r\033[2A\033[Jstep 2") && !memcmp(m.buf, "\r\033[2A\033[Jstep 2", m.len), "after narrowing: %.*s",
          (int)m.len, m.buf);
    free(m.buf);
    /* xterm cuts lines instead: no moving up over earlier output */
    setenv("XTERM_VERSION", "XTerm(379)", 1);
    unsetenv("TMUX");
    st.len = 80;
    mem_open(&m);
    bl_status_draw(&st, m.f, 30, "step 3");
    mem_close(&m);
    CHECK(!strcmp(m.buf, "\rstep 3\033[K"), "xterm: %s", m.buf);
    free(m.buf);
    unsetenv("XTERM_VERSION");
}

int main(void)
{
    RUN(base64_rfc4648);
    RUN(kitty_one_chunk);
    RUN(kitty_chunks);
    RUN(iterm_sequence);
    RUN(tmux_passthrough);
    RUN(sixel_sequence);
    RUN(parse_answers);
    RUN(silent_terminal);
    RUN(answering_terminal);
    RUN(fit);
    RUN(blocks_fit_the_window);
    RUN(kitty_on_pty);
    RUN(status_line_after_a_resize);
    RUN(late_answers_are_not_keys);
    return bl_test_done();
}
