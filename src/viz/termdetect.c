/* termdetect.c - detecting the terminal's pictures and pixel size (see termdetect.h). */
#include "viz/termdetect.h"
#include "core/error.h"
#include "core/fileio.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *const NAMES[] = { "auto", "kitty", "iterm", "sixel", "blocks", "ascii" };

const char *bl_pic_name(bl_pic_mode m)
{
    return m >= BL_PIC_AUTO && m <= BL_PIC_ASCII ? NAMES[m] : "?";
}

int bl_pic_parse(const char *s, bl_pic_mode *out)
{
    for (int i = 0; i <= BL_PIC_ASCII; i++)
        if (s && !strcmp(s, NAMES[i])) {
            *out = (bl_pic_mode)i;
            return 0;
        }
    return bl_fail("pictures: unknown mode '%s' (auto, kitty, iterm, sixel, blocks or ascii)", s ? s : "");
}

/* ---- the answers ---- */

/* numbers of a CSI's parameters "a;b;c" (digits and ;) into v (at most max); their count */
static int csi_params(const char *p, const char *end, int *v, int max)
{
    int n = 0, cur = 0, any = 0;
    for (; p < end; p++) {
        if (*p >= '0' && *p <= '9') cur = cur * 10 + (*p - '0'), any = 1;
        else if (*p == ';') {
            if (n < max) v[n++] = any ? cur : 0;
            cur = 0, any = 0;
        }
    }
    if (n < max && (any || n > 0)) v[n++] = any ? cur : 0;
    return n;
}

int bl_term_parse_answers(const char *buf, size_t n, bl_term_answers *a)
{
    int da1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != 0x1b || i + 1 >= n) continue;
        if (buf[i + 1] == '_' && i + 2 < n && buf[i + 2] == 'G') {
            /* APC G keys ; message ESC \  -- kitty's answer, "OK" when the query's image is fine */
            size_t j = i + 3, semi = 0;
            while (j < n && buf[j] != 0x1b) {
                if (buf[j] == ';' && !semi) semi = j;
                j++;
            }
            if (semi && j - semi - 1 >= 2 && !strncmp(buf + semi + 1, "OK", 2)) a->kitty = 1;
            i = j;
        } else if (buf[i + 1] == '[') {
            /* CSI [?] params final */
            size_t j = i + 2;
            int priv = j < n && buf[j] == '?';
            if (priv) j++;
            size_t p0 = j;
            while (j < n && ((buf[j] >= '0' && buf[j] <= '9') || buf[j] == ';')) j++;
            if (j >= n) break;
            int v[32], k = csi_params(buf + p0, buf + j, v, 32);
            if (priv && buf[j] == 'c') {
                da1 = 1;
                a->answered = 1;
                for (int q = 1; q < k; q++) a->sixel |= v[q] == 4;
            } else if (!priv && buf[j] == 't' && k == 3 && v[0] == 4 && v[1] > 0 && v[2] > 0) {
                a->px_h = v[1], a->px_w = v[2];
            }
            i = j;
        }
    }
    return da1;
}

/* ---- keys typed ahead ---- */

static char pending[1024];
static int npending, pending_at;

int bl_term_pending_getc(void)
{
    return pending_at < npending ? (unsigned char)pending[pending_at++] : -1;
}

int bl_term_pending_count(void) { return npending - pending_at; }

/* keep what of buf[0..n) is not an answer (APC G ... ST, CSI ? ... c, CSI 4 ; H ; W t) */
static void keep_typed(const char *buf, size_t n)
{
    /* what is left of an earlier piece first */
    memmove(pending, pending + pending_at, (size_t)(npending - pending_at));
    npending -= pending_at, pending_at = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == 0x1b && i + 2 < n && buf[i + 1] == '_' && buf[i + 2] == 'G') {
            size_t j = i + 3;
            while (j + 1 < n && !(buf[j] == 0x1b && buf[j + 1] == '\\')) j++;
            i = j + 1;
            continue;
        }
        if (buf[i] == 0x1b && i + 1 < n && buf[i + 1] == '[') {
            size_t j = i + 2;
            int priv = j < n && buf[j] == '?';
            j += priv;
            while (j < n && ((buf[j] >= '0' && buf[j] <= '9') || buf[j] == ';')) j++;
            if (j < n && ((priv && buf[j] == 'c') || (!priv && buf[j] == 't'))) {
                i = j;
                continue;
            }
        }
        if (npending < (int)sizeof pending) pending[npending++] = buf[i];
    }
}

int bl_term_answer_prefix(const char *buf, size_t n)
{
    if (n == 0 || buf[0] != 0x1b) return 0;
    if (n == 1) return 1;
    if (buf[1] == '_') {   /* APC G ... ESC \ */
        if (n == 2) return 1;
        if (buf[2] != 'G') return 0;
        for (size_t i = 3; i + 1 < n; i++)
            if (buf[i] == 0x1b) return buf[i + 1] == '\\' ? 2 : 0;
        return 1;
    }
    if (buf[1] != '[') return 0;
    size_t j = 2;
    int priv = j < n && buf[j] == '?';
    j += priv;
    if (!priv && j < n && buf[j] != '4') return 0;   /* CSI 4 ; H ; W t */
    int semis = 0;
    for (; j < n; j++) {
        char c = buf[j];
        if (c >= '0' && c <= '9') continue;
        if (c == ';') {
            semis++;
            continue;
        }
        return (priv && c == 'c') || (!priv && c == 't' && semis == 2) ? 2 : 0;
    }
    return 1;
}

static int unanswered;   /* a query of this session went unanswered (its answer may come late) */

int bl_term_late_possible(void) { return unanswered; }

static char held[64];
static int nheld, at;   /* bytes read past an ESC that were no answer, still to return */

int bl_term_held_count(void) { return nheld - at; }

int bl_term_late_filter(int fd, int (*rd)(void *ctx), void *ctx)
{
    for (;;) {
        if (at < nheld) return (unsigned char)held[at++];
        nheld = at = 0;
        int c = rd(ctx);
        if (c != 0x1b || !unanswered) return c;
        held[nheld++] = (char)c;
        int kind = 1;
        while (kind == 1 && nheld < (int)sizeof held) {
            struct pollfd pf = { fd, POLLIN, 0 };
            if (poll(&pf, 1, 30) <= 0) break;
            int d = rd(ctx);
            if (d < 0) break;
            held[nheld++] = (char)d;
            kind = bl_term_answer_prefix(held, (size_t)nheld);
        }
        if (kind == 2) nheld = 0;   /* a late answer: not a key */
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* write all of s, or -1 */
static int put_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        s += k, n -= (size_t)k;
    }
    return 0;
}

#define KITTY_QUERY "\033_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\033\\"
#define KITTY_QUERY_TMUX "\033Ptmux;\033\033_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\033\033\\\033\\"

int bl_term_query(int in, int out, int timeout_ms, int tmux, bl_term_answers *a)
{
    memset(a, 0, sizeof *a);
    struct termios old, raw;
    if (!isatty(in) || tcgetattr(in, &old) < 0) return bl_fail("term: standard input is not a terminal");
    raw = old;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    raw.c_cc[VMIN] = 0, raw.c_cc[VTIME] = 0;
    if (tcsetattr(in, TCSANOW, &raw) < 0) return bl_fail("term: cannot set the terminal's mode");
    char q[160];
    snprintf(q, sizeof q, "%s\033[14t\033[c", tmux ? KITTY_QUERY_TMUX : KITTY_QUERY);
    int rc = put_all(out, q, strlen(q));
    char buf[1024];
    size_t n = 0;
    double end = now_ms() + timeout_ms;
    while (rc == 0) {
        int left = (int)(end - now_ms());
        if (left <= 0) break;
        struct pollfd pf = { in, POLLIN, 0 };
        int r = poll(&pf, 1, left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        ssize_t k = read(in, buf + n, sizeof buf - 1 - n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) break;
        n += (size_t)k;
        bl_term_answers t = {0};
        if (bl_term_parse_answers(buf, n, &t) || n >= sizeof buf - 1) break;
    }
    bl_term_parse_answers(buf, n, a);
    keep_typed(buf, n);
    if (!a->answered) unanswered = 1;   /* its DA1 answer may still come, after the prompt */
    tcsetattr(in, TCSANOW, &old);
    return 0;
}

/* ---- the choice ---- */

static bl_pic_mode setting = BL_PIC_AUTO;
static int detected;            /* the choice below is made */
static bl_pic_mode chosen;
static int chosen_tmux;
static const char *chosen_why = "";
static int q_cols, q_rows, q_pxw, q_pxh;   /* the CSI 14 t answer and the window then */

void bl_pic_set(bl_pic_mode m)
{
    setting = m;
    detected = 0;
    q_cols = q_rows = q_pxw = q_pxh = 0;
}

bl_pic_mode bl_pic_get(void) { return setting; }

static int env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && !strcmp(v, value);
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

static int iterm_hint(void)
{
    return env_is("TERM_PROGRAM", "iTerm.app") || env_is("TERM_PROGRAM", "WezTerm") || env_is("LC_TERMINAL", "iTerm2");
}

static int kitty_hint(void) { return env_set("KITTY_WINDOW_ID") || env_is("TERM_PROGRAM", "ghostty"); }

static bl_pic_mode detect(int out_fd, int tmux, const char **why)
{
    if (!bl_is_terminal(out_fd)) return *why = "the output is not a terminal", BL_PIC_BLOCKS;
    if (!tmux && env_set("STY")) return *why = "GNU screen (no passthrough for pictures)", BL_PIC_BLOCKS;
    bl_term_answers a;
    if (isatty(STDIN_FILENO) && bl_term_query(STDIN_FILENO, out_fd, 100, tmux, &a) == 0) {
        struct winsize ws;
        if (a.px_w > 0 && ioctl(out_fd, TIOCGWINSZ, &ws) == 0)
            q_cols = ws.ws_col, q_rows = ws.ws_row, q_pxw = a.px_w, q_pxh = a.px_h;
        if (a.kitty) return *why = "the terminal answered kitty's graphics query", BL_PIC_KITTY;
        if (iterm_hint()) return *why = "iTerm2 inline images ($TERM_PROGRAM or $LC_TERMINAL)", BL_PIC_ITERM;
        if (a.sixel) return *why = tmux ? "tmux draws sixel (DA1 attribute 4)" : "the terminal's DA1 lists sixel (attribute 4)", BL_PIC_SIXEL;
        if (!a.answered) return *why = "the terminal did not answer within 100 ms", BL_PIC_BLOCKS;
        return *why = "the terminal answered without kitty graphics or sixel", BL_PIC_BLOCKS;
    }
    if (kitty_hint()) return *why = "kitty graphics ($KITTY_WINDOW_ID or $TERM_PROGRAM)", BL_PIC_KITTY;
    if (iterm_hint()) return *why = "iTerm2 inline images ($TERM_PROGRAM or $LC_TERMINAL)", BL_PIC_ITERM;
    return *why = "standard input is not a terminal to ask", BL_PIC_BLOCKS;
}

/* tmux's allow-passthrough (tmux 3.3+): 0 when tmux says "off", else 1 (on, all, or a tmux
 * without the option, which passes everything); asked once a session */
static int tmux_passes(void)
{
    static int known = -1;
    if (known >= 0) return known;
    known = 1;
    FILE *p = popen("tmux show -gv allow-passthrough 2>/dev/null", "r");
    if (!p) return known;
    char line[32] = "";
    if (fgets(line, sizeof line, p)) known = strncmp(line, "off", 3) != 0;
    pclose(p);
    return known;
}

/* kitty or iterm pictures set by hand inside tmux whose passthrough is off are drawn blank:
 * blocks instead, saying why */
static bl_pic_mode through_tmux(bl_pic_mode m, int in_tmux, const char **why)
{
    if (!in_tmux || (m != BL_PIC_KITTY && m != BL_PIC_ITERM) || tmux_passes()) return m;
    *why = m == BL_PIC_KITTY ? "kitty pictures cannot pass tmux: allow-passthrough is off (tmux set -g allow-passthrough on)"
                             : "iTerm2 pictures cannot pass tmux: allow-passthrough is off (tmux set -g allow-passthrough on)";
    return BL_PIC_BLOCKS;
}

bl_pic_mode bl_pic_choose(int out_fd, int *tmux, const char **why)
{
    int in_tmux = env_set("TMUX");
    const char *dummy;
    if (!why) why = &dummy;
    *tmux = in_tmux;
    if (setting != BL_PIC_AUTO) {
        *why = "chosen for this session by the pictures command";
        return through_tmux(setting, in_tmux, why);
    }
    bl_pic_mode m;
    const char *env = getenv("BLOCKLAB_PICTURES");
    if (env && *env && strcmp(env, "auto")) {
        if (bl_pic_parse(env, &m) == 0) {
            *why = "$BLOCKLAB_PICTURES";
            return through_tmux(m, in_tmux, why);
        }
        static int warned;   /* once a session, then as unset */
        if (!warned++) fprintf(stderr, "blocklab: BLOCKLAB_PICTURES: %s; choosing as auto\n", bl_error());
    }
    if (!bl_is_terminal(out_fd)) {   /* not asked, not kept: a later picture may go to the terminal */
        *why = "the output is not a terminal";
        return BL_PIC_BLOCKS;
    }
    if (!detected) {
        chosen = detect(out_fd, in_tmux, &chosen_why);
        chosen_tmux = in_tmux && chosen != BL_PIC_SIXEL;   /* tmux draws sixel itself */
        detected = 1;
    }
    *tmux = chosen_tmux;
    *why = chosen_why;
    return chosen;
}

int bl_term_window(int fd, int *cols, int *rows, int *cell_w, int *cell_h)
{
    struct winsize ws;
    *cols = *rows = *cell_w = *cell_h = 0;
    if (!bl_is_terminal(fd) || ioctl(fd, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0 || ws.ws_row == 0) return -1;
    *cols = ws.ws_col, *rows = ws.ws_row;
    if (ws.ws_xpixel > 0 && ws.ws_ypixel > 0) {
        *cell_w = ws.ws_xpixel / ws.ws_col, *cell_h = ws.ws_ypixel / ws.ws_row;
    } else if (q_pxw > 0 && q_cols > 0 && q_rows > 0) {   /* cells keep their size on a resize */
        *cell_w = q_pxw / q_cols, *cell_h = q_pxh / q_rows;
    }
    return 0;
}
