/* line.c - GNU readline behind four functions (see line.h), using readline's callback
 * interface so that Ctrl-C at the prompt can clear the line without leaving the program. */
#include "repl/line.h"
#include "repl/histfile.h"
#include "core/error.h"
#include "viz/termdetect.h"
#include <errno.h>
#include <poll.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>

static bl_session *sess;
static char hist_path[4096];
static int have_hist;
static int hist_size = BL_HIST_SIZE_DEFAULT;
static int hist_dirty;      /* the file held what is not text: rewritten clean on exit */
static void load_history(void);
static char *got;
static int got_line, got_eof;

const char *bl_line_history_path(void) { return have_hist ? hist_path : NULL; }

/* mkdir -p: make dir and the folders above it (0700); errors show when the history is written. */
static void make_dirs(const char *dir)
{
    char p[2048];
    snprintf(p, sizeof p, "%s", dir);
    for (char *c = p + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            mkdir(p, 0700);
            *c = '/';
        }
    mkdir(p, 0700);
}

static void pick_history_path(void)
{
    const char *env = getenv("BLOCKLAB_HISTORY");
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    have_hist = 0;
    if (env) {
        if (!*env || !strcmp(env, "/dev/null")) return;
        snprintf(hist_path, sizeof hist_path, "%s", env);
    } else if (xdg && *xdg) {
        char dir[2048];
        snprintf(dir, sizeof dir, "%.2000s/blocklab", xdg);
        make_dirs(dir);
        snprintf(hist_path, sizeof hist_path, "%s/history", dir);
    } else if (home && *home) {
        snprintf(hist_path, sizeof hist_path, "%s/.blocklab_history", home);
    } else {
        return;
    }
    have_hist = 1;
}

/* ---- completion ---- */
static bl_strlist cands;
static int cand_i;
static size_t strip;    /* bytes of each candidate before the text readline replaces */

static char *gen(const char *text, int state)
{
    (void)text;
    while (cand_i < cands.n) {
        const char *c = cands.s[cand_i++];
        if (strlen(c) >= strip) return strdup(c + strip);
    }
    return NULL;
}

/* File names may hold '-', '=', ':', '/' ...: where a file name is being typed (where the
 * command's completer asks for one: `source`, `load`, `data KIND`, ...; or after '>'), only
 * white space separates words. */
static int wants_file(const char *line)
{
    const char *st = strrchr(line, ';');
    st = st ? st + 1 : line;
    const char *gt = strrchr(st, '>');
    if (gt && gt[1] != '=' && !strpbrk(gt + 1 + strspn(gt + 1, " \t"), " \t")) return 1;
    size_t ws = strlen(line);
    while (ws > 0 && line[ws - 1] != ' ' && line[ws - 1] != '\t' && line[ws - 1] != ';') ws--;
    bl_strlist tmp = { 0 };
    int files = bl_complete_line(sess, line, line + ws, &tmp);
    bl_strlist_free(&tmp);
    return files;
}

static char *word_breaks(void)
{
    static char files[] = " \t\n\"';";
    char *line = strndup(rl_line_buffer, (size_t)rl_point);
    int f = line && wants_file(line);
    free(line);
    return f ? files : (char *)rl_basic_word_break_characters;
}

static char **attempt(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;
    bl_strlist_free(&cands);
    cand_i = 0;
    char *line = strndup(rl_line_buffer, (size_t)rl_point);
    if (!line) return NULL;
    /* the whole word at the cursor (back to white space), of which `text` is the tail */
    int ws = start;
    while (ws > 0 && line[ws - 1] != ' ' && line[ws - 1] != '\t' && line[ws - 1] != ';') ws--;
    strip = (size_t)(start - ws);
    int files = wants_file(line) || bl_complete_line(sess, line, line + ws, &cands);
    free(line);
    if (files) {
        rl_attempted_completion_over = 0;   /* readline's file-name completion */
        return NULL;
    }
    if (cands.n == 0) return NULL;
    if (cands.n == 1) {
        const char *c = cands.s[0];
        size_t n = strlen(c);
        /* no space after "key=" or a directory, so the value can follow */
        if (n && (c[n - 1] == '=' || c[n - 1] == '/' || c[n - 1] == '(')) rl_completion_suppress_append = 1;
    }
    return rl_completion_matches(text, gen);
}

static int read_key(void *in) { return rl_getc((FILE *)in); }

/* the keys typed while a picture asked the terminal what it shows (viz/termdetect.h) first;
 * then the keys, without a terminal's answer that came after the detection gave up waiting */
static int getc_typed_ahead(FILE *in)
{
    int c = bl_term_pending_getc();
    return c >= 0 ? c : bl_term_late_filter(fileno(in), read_key, in);
}

/* readline's question whether a key sequence goes on (ESC [ A after ESC): the bytes held by the
 * key reader first, then the terminal within 0.1 s, as readline's own test waits */
static int input_available(void)
{
    if (bl_term_pending_count() > 0 || bl_term_held_count() > 0) return 1;
    int us = rl_set_keyboard_input_timeout(100000);   /* readline's wait, read back */
    rl_set_keyboard_input_timeout(us);
    struct pollfd pf = { fileno(rl_instream ? rl_instream : stdin), POLLIN, 0 };
    return poll(&pf, 1, us / 1000) > 0;
}

/* Tab: in a block's continuation lines ("... ") with only white space before the cursor, an
 * indent of 4 spaces (as Python's REPL and IPython); elsewhere completion (an empty "bl> "
 * line still lists the commands). */
static int tab_key(int count, int key)
{
    int blank = 1;
    for (int i = 0; i < rl_point; i++) blank &= rl_line_buffer[i] == ' ' || rl_line_buffer[i] == '\t';
    if (blank && rl_prompt && strstr(rl_prompt, "...")) return rl_insert_text("    ") < 0 ? -1 : 0;
    if (rl_last_func == tab_key) rl_last_func = rl_complete;   /* a second Tab lists, as readline's own */
    return rl_complete(count, key);
}

void bl_line_init(bl_session *s)
{
    sess = s;
    rl_readline_name = "blocklab";
    rl_attempted_completion_function = attempt;
    rl_bind_key('\t', tab_key);
    rl_basic_word_break_characters = " \t\n\"'()[],;=+-*/@<>:";
    rl_completer_word_break_characters = rl_basic_word_break_characters;
    rl_completion_word_break_hook = word_breaks;
    rl_catch_signals = 0;       /* SIGINT is ours: it clears the line (see bl_line_read) */
    rl_getc_function = getc_typed_ahead;
    rl_input_available_hook = input_available;
    using_history();
    const char *hs = getenv("BLOCKLAB_HISTSIZE");
    int size = bl_hist_size_parse(hs);
    if (size < 0) fprintf(stderr, "blocklab: BLOCKLAB_HISTSIZE: %s; keeping %d\n", bl_error(), BL_HIST_SIZE_DEFAULT);
    bl_line_set_histsize(size < 0 ? BL_HIST_SIZE_DEFAULT : size);
    /* an entry of several lines (a block: for ... end) is written after a #TIME line and read
     * back as one entry */
    history_comment_char = '#';
    history_write_timestamps = 1;
    history_multiline_entries = 1;
    pick_history_path();
    if (have_hist) load_history();
}

static void add_loaded(void *ctx, const char *line)
{
    (void)ctx;
    add_history(line);
}

/* Read the history file (histfile.h): what is not text, and entries over 64 KiB, are left out
 * with one warning, and the file is rewritten clean on exit. */
static void load_history(void)
{
    bl_hist_scan r;
    if (bl_hist_read(hist_path, add_loaded, NULL, &r) < 0) {
        fprintf(stderr, "blocklab: cannot read the history file %s (history is not saved)\n", bl_error());
        have_hist = 0;
        return;
    }
    struct stat st;
    char msg[512];
    const char *w = stat(hist_path, &st) == 0 ? bl_hist_warning(hist_path, &r, (size_t)st.st_size, msg, sizeof msg) : NULL;
    if (w) {
        fprintf(stderr, "blocklab: %s\n", w);
        hist_dirty = 1;
    }
}

void bl_line_set_histsize(int n)
{
    hist_size = n;
    stifle_history(n);
}

int bl_line_histsize(void) { return hist_size; }

static void on_line(char *line)
{
    got = line;
    got_line = 1;
    got_eof = line == NULL;
    rl_callback_handler_remove();
}

int bl_line_read(const char *prompt, char **out)
{
    *out = NULL;
    got = NULL;
    got_line = got_eof = 0;
    rl_callback_handler_install(prompt, on_line);
    while (!got_line) {
        if (bl_term_pending_count() > 0 || bl_term_held_count() > 0) {   /* keys typed ahead or held: no waiting */
            rl_callback_read_char();
            continue;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fileno(rl_instream ? rl_instream : stdin), &fds);
        int r = select(fileno(rl_instream ? rl_instream : stdin) + 1, &fds, NULL, NULL, NULL);
        if (r < 0 && errno == EINTR) {
            if (!bl_interrupted()) continue;    /* a window resize, say */
            bl_interrupt_clear();
            /* Ctrl-C at the prompt: drop the line, show ^C and a fresh prompt */
            FILE *o = rl_outstream ? rl_outstream : stdout;
            rl_point = rl_end;
            rl_redisplay();
            fputs("^C\n", o);
            fflush(o);
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_replace_line("", 0);
            rl_point = rl_end = 0;
            rl_callback_handler_remove();
            return BL_LINE_INTERRUPTED;
        }
        if (r < 0) {
            rl_callback_handler_remove();
            return BL_LINE_EOF;
        }
        rl_callback_read_char();
    }
    if (got_eof) {
        fputc('\n', rl_outstream ? rl_outstream : stdout);
        return BL_LINE_EOF;
    }
    *out = got;
    return BL_LINE_OK;
}

void bl_line_add_history(const char *stmt)
{
    if (!*stmt) return;
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last && !strcmp(last->line, stmt)) return;     /* no repeats */
    if (strlen(stmt) > BL_HIST_ENTRY_MAX) {             /* scrolling past it would crawl */
        static int said;
        if (!said++) fprintf(stderr, "blocklab: a statement longer than %d KiB is not kept in the history\n",
                             BL_HIST_ENTRY_MAX >> 10);
        return;
    }
    if (hist_size == 0) return;
    add_history(stmt);
    if (have_hist && !hist_dirty && append_history(1, hist_path) != 0) {
        FILE *f = fopen(hist_path, "a");    /* append_history needs the file to exist */
        int err = f ? 0 : errno;
        if (f) {
            fclose(f);
            err = append_history(1, hist_path);
        }
        static int warned;
        if (err && !warned) {
            warned = 1;
            fprintf(stderr, "blocklab: cannot write the history file %s: %s (history is not saved)\n",
                    hist_path, strerror(err));
        }
    }
}

void bl_line_close(void)
{
    if (have_hist && hist_dirty) {
        /* the file held what is not text: write the entries kept, clean */
        HIST_ENTRY **l = history_list();
        int n = 0;
        while (l && l[n]) n++;
        const char **e = malloc((size_t)(n ? n : 1) * sizeof *e);
        for (int i = 0; e && i < n; i++) e[i] = l[i]->line;
        if (!e || bl_hist_write(hist_path, e, n) < 0)
            fprintf(stderr, "blocklab: cannot rewrite the history file: %s\n", e ? bl_error() : "out of memory");
        free(e);
        hist_dirty = 0;
    } else if (have_hist) {
        history_truncate_file(hist_path, hist_size);
    }
    bl_strlist_free(&cands);
    rl_callback_handler_remove();
    clear_history();
}
