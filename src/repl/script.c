/* script.c - running statements that come from a file, a string or the terminal, one complete
 * chunk at a time (a chunk ends at a line that leaves no bracket open and no operator dangling). */
#include "repl/repl.h"
#include "core/error.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
        if (bl_exec(s, name, b->buf, line) < 0) {
            *failed = 1;
            if (!s->keep_going) return -1;
        }
    }
    b->len = 0;
    if (b->buf) b->buf[0] = '\0';
    return 0;
}

/* A NUL byte would end the text there (an "unterminated string", or a line cut short without a
 * word): report where it is. 0 when the line has none. */
static int nul_byte(bl_session *s, const char *name, const char *line, size_t n, int lineno)
{
    const char *z = memchr(line, '\0', n);
    if (!z) return 0;
    const char *saved = s->file;
    s->file = name;
    bl_fail("NUL byte in the script (is it a text file?)");
    int off = (int)(z - line);
    bl_session_errat(s, (bl_pos){ .off = off, .len = 1, .line = lineno,
                                  .col = 1 + bl_text_width(line, off) });
    bl_report_error(s);
    s->file = saved;
    return -1;
}

int bl_run_file(bl_session *s, const char *name, FILE *f)
{
    sbuf b = { 0 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, first = 1, failed = 0, rc = 0;
    bl_lex_state ls = { 0 };
    while (!s->quit && (n = getline(&line, &cap, f)) >= 0) {
        const char *text = line;
        lineno++;
        /* a UTF-8 byte order mark before the first line is skipped, as Python does */
        if (lineno == 1 && n >= 3 && !memcmp(line, "\xef\xbb\xbf", 3)) text += 3, n -= 3;
        if (nul_byte(s, name, text, (size_t)n, lineno) < 0) { rc = -1; break; }
        if (b.len == 0) first = lineno;
        if (sbuf_add(&b, text, (size_t)n) < 0) { rc = -1; break; }
        if (bl_lex_more(&ls, text)) continue;
        ls = (bl_lex_state){ 0 };
        if (run_chunk(s, name, &b, first, &failed) < 0 || bl_interrupted()) break;
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
    FILE *f = fopen(path, "r");
    struct stat sb;
    if (f && fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
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
