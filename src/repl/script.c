/* script.c - running statements that come from a file, a string or the terminal, one complete
 * chunk at a time (a chunk ends at a line that leaves no bracket open, no operator dangling and
 * no block open; an indented block ends before the first line indented as its header). */
#include "repl/repl.h"
#include "core/error.h"
#include "core/fileio.h"
#include "dist/dist.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>

typedef struct {
    char *buf;
    size_t len, cap;
} sbuf;

static int sbuf_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 2 > b->cap) {
        size_t cap = (b->len + n + 2) * 2;
        char *nb = realloc(b->buf, cap);
        if (!nb) return bl_fail("out of memory");
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return 0;
}

static void echo(bl_session *s, const char *chunk)
{
    const char *p = chunk;
    int first = 1;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(s->out, "%s%.*s\n", first ? ">>> " : "... ", len, p);
        first = 0;
        p += len + (nl != NULL);
    }
}

/* A chunk with only blanks and comments does nothing. */
static int blank(const char *s)
{
    for (; *s; s++) {
        if (*s == '#') return 1;
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return 0;
    }
    return 1;
}

static int run_chunk(bl_session *s, const char *name, sbuf *b, int line, int *failed)
{
    if (b->len && b->buf[b->len - 1] == '\n') b->buf[--b->len] = '\0';
    if (!blank(b->buf)) {
        if (s->echo) echo(s, b->buf);
        if (s->depth == 0) bl_session_add_history(s, b->buf);
        if (s->depth == 0) bl_dist_share(name, b->buf, line);     /* MPI: every rank runs it */
        if (bl_exec(s, name, b->buf, line) < 0) {
            *failed = 1;
            if (!s->keep_going) return -1;
        }
    }
    b->len = 0;
    if (b->buf) b->buf[0] = '\0';
    return 0;
}

/* Report a bad line of a script (a NUL byte at off, or a line over the length limit) at its
 * place; -1. */
static int bad_line(bl_session *s, const char *name, const char *line, int off, int lineno, const char *msg)
{
    const char *saved = s->file;
    s->file = name;
    bl_fail("%s", msg);
    bl_session_errat(s, (bl_pos){ .off = off, .len = 1, .line = lineno,
                                  .col = 1 + bl_text_width(line, off) });
    bl_report_error(s);
    s->file = saved;
    return -1;
}

static void (*idle_fn)(void);
void bl_script_idle(void (*idle)(void)) { idle_fn = idle; }

/* With an idle hook: wait until fd has input (or its end, an error, a signal), calling the hook
 * about once a second meanwhile. */
static void wait_input(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    while (poll(&p, 1, 1000) == 0) idle_fn();
}

/* getline with a limit: one line of f (with its newline) into *line; at most BL_SCRIPT_LINE_MAX
 * bytes: a longer line stops there with *long_line set (skip_line reads past its rest). Bytes
 * read (0 at the end of the input; -1 for a read error). */
static ssize_t read_line(FILE *f, char **line, size_t *cap, int *long_line)
{
    size_t n = 0;
    int c = 0;
    *long_line = 0;
    for (;;) {
        if (idle_fn && f == stdin) wait_input(fileno(f));
        if ((c = getc_unlocked(f)) == EOF) break;
        if (n == BL_SCRIPT_LINE_MAX) {
            *long_line = 1;
            ungetc(c, f);
            break;
        }
        if (n + 2 > *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            char *nl = realloc(*line, nc);
            if (!nl) return bl_fail("out of memory"), -1;
            *line = nl;
            *cap = nc;
        }
        (*line)[n++] = (char)c;
        if (c == '\n') break;
    }
    if (*cap) (*line)[n] = '\0';
    if (c == EOF && ferror(f)) return bl_fail("read error: %s", strerror(errno)), -1;
    return (ssize_t)n;
}

/* Read past the rest of a line (to its newline or the end); stops at Ctrl-C. */
static void skip_line(FILE *f)
{
    int c;
    for (unsigned long i = 1; (c = getc_unlocked(f)) != EOF && c != '\n'; i++)
        if ((i & 0xffff) == 0 && bl_interrupted()) break;
}

int bl_run_file(bl_session *s, const char *name, FILE *f)
{
    sbuf b = { 0 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = 0;
    int lineno = 0, first = 1, failed = 0, rc = 0, long_line;
    bl_lex_state ls = { 0 };
    while (!s->quit && (n = read_line(f, &line, &cap, &long_line)) > 0) {
        const char *text = line;
        lineno++;
        /* a UTF-8 byte order mark before the first line is skipped, as Python does */
        if (lineno == 1 && n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) text += 3, n -= 3;
        /* a NUL byte would end the text there (an "unterminated string", or a line cut short);
         * a line that never ends (a device, a binary file) would fill the memory: an error for
         * that line, and the statement it belongs to is dropped; -k goes on after it */
        const char *z = memchr(text, '\0', (size_t)n);
        if (long_line || z) {
            char msg[96];
            if (long_line) snprintf(msg, sizeof msg, "line longer than %d MiB (is it a text file?)",
                                    BL_SCRIPT_LINE_MAX >> 20);
            bad_line(s, name, text, long_line ? 0 : (int)(z - text), lineno,
                     long_line ? msg : "NUL byte in the script (is it a text file?)");
            failed = 1;
            b.len = 0;
            if (b.buf) b.buf[0] = '\0';
            ls = (bl_lex_state){ 0 };
            if (!s->keep_going || bl_interrupted()) break;
            if (long_line) skip_line(f);
            continue;
        }
        int more = bl_lex_more(&ls, text);
        if (more == 2) {
            /* a line indented less than the open indented blocks (Python's form) ends them: they
             * are a statement of their own, and this line starts the next one */
            ls = (bl_lex_state){ 0 };
            if (run_chunk(s, name, &b, first, &failed) < 0 || bl_interrupted()) break;
            more = bl_lex_more(&ls, text);
        }
        if (b.len == 0) first = lineno;
        if (sbuf_add(&b, text, (size_t)n) < 0) { rc = -1; break; }
        if (more) continue;
        ls = (bl_lex_state){ 0 };
        if (run_chunk(s, name, &b, first, &failed) < 0 || bl_interrupted()) break;
    }
    if (n < 0) {
        rc = -1;
        s->has_errpos = 0;
        bl_error_prefix("%s", name);
        bl_report_error(s);
    }
    /* an unfinished statement at the end of the file: the parser reports where */
    if (rc == 0 && b.len && !s->quit && !(failed && !s->keep_going) && !bl_interrupted())
        run_chunk(s, name, &b, first, &failed);
    free(line);
    free(b.buf);
    return rc < 0 || failed ? -1 : 0;
}

FILE *bl_open_script(const char *path)
{
    return bl_fopen_regular(path);
}

int bl_run_string(bl_session *s, const char *name, const char *text)
{
    if (!*text) return 0;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) return bl_fail("out of memory");
    int rc = bl_run_file(s, name, f);
    fclose(f);
    return rc;
}
