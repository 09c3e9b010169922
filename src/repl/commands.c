/* commands.c - the one command table (name, synopsis, help, completer, handler) and the
 * generic commands: help, quit, seed, vars, del, source, history, time.
 *
 * The table drives the parser (bl_is_command), `help`, tab completion and the test that every
 * command has help text and an entry in man/blocklab.1. Model commands live in models.c and
 * are listed here, so this table stays the only list.
 */
#include "repl/repl.h"
#include "repl/autograd.h"
#include "repl/models.h"
#include "repl/cmd_plots.h"
#include "repl/cmd_pictures.h"
#include "repl/figures.h"
#include "repl/train.h"
#include "repl/cmd_compare.h"
#include "repl/histfile.h"
#include "repl/line.h"
#include "repl/didyoumean.h"
#include "core/suggest.h"
#include "core/error.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- word helpers ---- */
static int word_err(bl_cmdargs *a, int i)
{
    return bl_session_errat(a->s, i < a->n ? a->w[i].vpos : a->st->pos);
}

int bl_word_num(bl_cmdargs *a, int i, double *x)
{
    if (i >= a->n) {
        bl_fail("%s: missing argument (%s)", a->st->name, bl_command_find(a->st->name)->synopsis);
        return word_err(a, i);
    }
    char *end;
    errno = 0;
    *x = strtod(a->w[i].text, &end);
    if (end == a->w[i].text || *end || errno == ERANGE) {
        bl_value *v = bl_session_get(a->s, a->w[i].text);
        if (v && (v->kind == BL_V_NUM)) {
            *x = v->num;
            return 0;
        }
        bl_fail("%s: expected a number, got '%s'", a->st->name, a->w[i].text);
        return word_err(a, i);
    }
    return 0;
}

int bl_word_int(bl_cmdargs *a, int i, long lo, long hi, long *x)
{
    double d;
    if (bl_word_num(a, i, &d) < 0) return -1;
    if (d != floor(d) || d < lo || d > hi) {
        bl_fail("%s: expected a whole number in [%ld, %ld], got %s", a->st->name, lo, hi, a->w[i].text);
        return word_err(a, i);
    }
    *x = (long)d;
    return 0;
}

int bl_word_bool(bl_cmdargs *a, int i, int *b)
{
    const char *t = i < a->n ? a->w[i].text : "";
    if (!strcmp(t, "on") || !strcmp(t, "true") || !strcmp(t, "1")) *b = 1;
    else if (!strcmp(t, "off") || !strcmp(t, "false") || !strcmp(t, "0")) *b = 0;
    else {
        bl_fail("%s: expected on or off, got '%s'", a->st->name, t);
        return word_err(a, i);
    }
    return 0;
}

/* ---- key=value words (repl.h) ---- */
int bl_opt_find(bl_cmdargs *a, const char *key)
{
    for (int i = a->n - 1; i >= 0; i--)   /* the last one wins: `n=4 n=8` means 8 */
        if (a->w[i].key && !strcmp(a->w[i].key, key)) return i;
    return -1;
}

int bl_opt_check(bl_cmdargs *a, int from, const char *const *keys)
{
    for (int i = from; i < a->n; i++) {
        int ok = 0;
        for (const char *const *k = keys; a->w[i].key && *k && !ok; k++) ok = !strcmp(*k, a->w[i].key);
        if (ok) continue;
        char list[256] = "";
        for (const char *const *k = keys; *k; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s=", k == keys ? "" : " ", *k);
        char cmd[96];
        bl_command_typed(a->st, cmd, sizeof cmd);   /* "rope check", not "rope" */
        char dym[160];
        if (a->w[i].key) bl_fail("%s: unknown key '%s' (keys: %s)%s", cmd, a->w[i].key, list,
                                 bl_dym_keys(a->w[i].key, list, dym, sizeof dym));
        else bl_fail("%s: unexpected word '%s' (keys: %s)", cmd, a->w[i].text, list);
        return bl_session_errat(a->s, a->w[i].pos);
    }
    return 0;
}

int bl_opt_num(bl_cmdargs *a, const char *key, double def, double lo, double hi, double *x)
{
    int i = bl_opt_find(a, key);
    *x = def;
    if (i < 0) return 0;
    if (bl_word_num(a, i, x) < 0) return -1;
    if (!(*x >= lo && *x <= hi)) {
        bl_fail("%s: %s must be in [%g, %g], got %s", a->st->name, key, lo, hi, a->w[i].text);
        return bl_session_errat(a->s, a->w[i].vpos);
    }
    return 0;
}

int bl_opt_int(bl_cmdargs *a, const char *key, long def, long lo, long hi, long *x)
{
    int i = bl_opt_find(a, key);
    *x = def;
    return i < 0 ? 0 : bl_word_int(a, i, lo, hi, x);
}

int bl_opt_bool(bl_cmdargs *a, const char *key, int def, int *b)
{
    int i = bl_opt_find(a, key);
    *b = def;
    return i < 0 ? 0 : bl_word_bool(a, i, b);
}

static int no_more(bl_cmdargs *a, int max)
{
    if (a->n <= max) return 0;
    char cmd[96];
    bl_fail("%s: too many arguments (%s)", bl_command_typed(a->st, cmd, sizeof cmd),
            bl_command_find(a->st->name)->synopsis);
    return word_err(a, max);
}

/* ---- help ---- */
static void print_block(FILE *out, const char *text, int indent)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "%*s%.*s\n", indent, "", len, p);
        p += len + (nl != NULL);
    }
}

/* The length of the first sentence of text: up to a '.' followed by white space or the end,
 * whatever comes next ("(...). weights=on returns" ends it), but not the last '.' of "..." nor
 * one ending an abbreviation ("e.g. [4, 64]", "Ba et al. 2016"). */
size_t bl_first_sentence(const char *text)
{
    static const char *const abbr[] = { "e.g.", "i.e.", "al.", "cf.", "vs.", NULL };
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        if (text[i] != '.' || (i + 1 < n && !isspace((unsigned char)text[i + 1])) || (i > 0 && text[i - 1] == '.'))
            continue;
        size_t w = i;   /* the word the '.' ends */
        while (w > 0 && !isspace((unsigned char)text[w - 1]) && text[w - 1] != '(') w--;
        int abbreviation = 0;
        for (int k = 0; abbr[k]; k++)
            abbreviation |= i + 1 - w == strlen(abbr[k]) && !strncmp(text + w, abbr[k], i + 1 - w);
        if (!abbreviation) return i + 1;
    }
    return n;
}

/* A function's synopsis at `indent`, each of its forms ("a(x) | a(x, y)") on a line of its own. */
static void print_synopsis(FILE *out, const char *syn, int indent)
{
    for (const char *p = syn, *bar; p; p = bar ? bar + 3 : NULL) {
        bar = strstr(p, " | ");
        fprintf(out, "%*s%.*s\n", indent, "", bar ? (int)(bar - p) : (int)strlen(p), p);
    }
}

/* The first sentence of text, its lines joined and wrapped to 79 columns after `indent`. */
static void print_sentence(FILE *out, const char *text, int indent)
{
    size_t end = bl_first_sentence(text);
    int col = 0;
    for (size_t i = 0; i < end;) {
        while (i < end && isspace((unsigned char)text[i])) i++;
        size_t w = i;
        while (w < end && !isspace((unsigned char)text[w])) w++;
        if (w == i) break;
        if (col && col + 1 + (int)(w - i) > 79) fputc('\n', out), col = 0;
        col += col ? fprintf(out, " %.*s", (int)(w - i), text + i)
                   : fprintf(out, "%*s%.*s", indent, "", (int)(w - i), text + i);
        i = w;
    }
    fputc('\n', out);
}

/* The i-th of c's sub-commands, as its synopsis lists them ("rope table|check ...": 0 table,
 * 1 check), in buf (n bytes); 0 when c has no sub-command i. */
static int sub_at(const bl_command *c, int i, char *buf, size_t n)
{
    const char *p = c->synopsis + strlen(c->name);
    if (*p != ' ' || !islower((unsigned char)p[1])) return 0;
    p++;
    const char *end = p + strcspn(p, " ");
    size_t k = strcspn(p, "| ");
    for (; i > 0 && p < end; i--) {
        p += k + (p[k] == '|');
        k = strcspn(p, "| ");
    }
    if (p >= end || !k) return 0;
    snprintf(buf, n, "%.*s", (int)k, p);
    return 1;
}

/* Is w one of c's sub-commands? */
static int is_sub(const bl_command *c, const char *w)
{
    char sub[32];
    for (int i = 0; sub_at(c, i, sub, sizeof sub); i++)
        if (!strcmp(sub, w)) return 1;
    return 0;
}

/* Does text hold `key=` as a word of its own? */
static int has_key(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key))
        if (p[n] == '=' && (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) return 1;
    return 0;
}

/* Is key one of sub-command sub's own, as the line of c's help that starts with "NAME SUB "
 * lists them ("rope check [dr=1] ...: ...")? */
static int sub_has_key(const bl_command *c, const char *sub, const char *key)
{
    char head[64], line[256];
    snprintf(head, sizeof head, "%s %s ", c->name, sub);
    for (const char *p = c->help; (p = strstr(p, head)); p++)
        if (p == c->help || p[-1] == '\n') {
            snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
            return has_key(line, key);
        }
    return 0;
}

/* Append to list (size bytes, len so far) what takes key among c and its sub-commands, as typed:
 * "attn"; "rope check" (dr=); "rope table, rope check" (width=, which neither names as its own).
 * The first goes to first (fsize bytes) when that is still empty. Returns the new len. */
static size_t key_names(const bl_command *c, const char *key, char *list, size_t size, size_t len,
                        char *first, size_t fsize)
{
    char sub[32], name[64];
    int own = 0, nsub = 0;
    for (; sub_at(c, nsub, sub, sizeof sub); nsub++) own |= sub_has_key(c, sub, key);
    for (int i = 0; i < (nsub ? nsub : 1); i++) {
        if (nsub) {
            sub_at(c, i, sub, sizeof sub);
            if (own && !sub_has_key(c, sub, key)) continue;
        }
        snprintf(name, sizeof name, "%s%s%s", c->name, nsub ? " " : "", nsub ? sub : "");
        len += (size_t)snprintf(list + len, len < size ? size - len : 0, "%s%s", len ? ", " : "", name);
        if (!*first) snprintf(first, fsize, "%s", name);
    }
    return len;
}

/* "help: no topic 'width'; width= is a key of plot loss, attn, ... (help plot loss)" for the key
 * of a command or function; 0 when t is none. */
static int key_topic(const char *t)
{
    char list[512] = "", first[64] = "";
    size_t len = 0;
    for (const bl_command *c = bl_commands; c->name; c++)
        if (has_key(c->synopsis, t) || has_key(c->help, t)) len = key_names(c, t, list, sizeof list, len, first, sizeof first);
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++)
        if (has_key(f->synopsis, t))
            len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s()", len ? ", " : "", f->name);
    if (!len) return 0;
    return bl_fail("help: no topic '%s'; %s= is a key of %s (help %s)", t, t, list, *first ? first : "functions");
}

static int cmd_help(bl_cmdargs *a)
{
    FILE *o = a->s->out;
    if (no_more(a, 2) < 0) return -1;
    if (a->n == 2) {   /* a command and its sub-command: `help plot loss`, `help rope check` */
        const bl_command *c = bl_command_find(a->w[0].text);
        if (!c || !is_sub(c, a->w[1].text)) {
            bl_fail("help: '%s %s' is not a command with its sub-command (help [TOPIC], help CMD SUB)",
                    a->w[0].text, a->w[1].text);
            return word_err(a, c ? 1 : 0);
        }
        fprintf(o, "%s\n", c->synopsis);
        print_block(o, c->help, 2);
        return 0;
    }
    if (a->n == 0) {
        fprintf(o, "Commands (help NAME for one; help functions, language, keys, slides):\n");
        for (const bl_command *c = bl_commands; c->name; c++) {
            /* the first sentence of the help, cut to the width of a terminal */
            int len = (int)strcspn(c->help, "\n");
            const char *dot = strstr(c->help, ". ");
            if (dot && dot - c->help < len) len = (int)(dot - c->help);
            int col = 2 + (strlen(c->synopsis) > 26 ? (int)strlen(c->synopsis) + 1 : 27);
            if (strlen(c->synopsis) > 26) fprintf(o, "  %s\n  %-26s ", c->synopsis, ""), col = 29;
            else fprintf(o, "  %-26s ", c->synopsis);
            if (col + len > 79) fprintf(o, "%.*s...\n", 79 - col - 3, c->help);
            else fprintf(o, "%.*s\n", len, c->help);
        }
        fprintf(o, "Functions:");
        int col = 10;
        const bl_function *f;
        for (int fi = 0; (f = bl_function_at(fi)); fi++) {
            int more = bl_function_at(fi + 1) != NULL;   /* the next may be in another table */
            int w = (int)strlen(f->name) + more;
            if (col + 1 + w > 79) fprintf(o, "\n "), col = 1;
            col += fprintf(o, " %s%s", f->name, more ? "," : "\n");
        }
        return 0;
    }
    const char *t = a->w[0].text;
    const bl_command *c = bl_command_find(t);
    const bl_function *f = bl_function_find(t);
    if (c) {
        fprintf(o, "%s\n", c->synopsis);
        print_block(o, c->help, 2);
    }
    if (f) {
        print_synopsis(o, f->synopsis, 0);
        print_block(o, f->help, 2);
    }
    if (c || f) return 0;
    if (!strcmp(t, "functions")) {
        /* one line each: what the function gives; help NAME has the rest */
        for (int fi = 0; (f = bl_function_at(fi)); fi++) {
            print_synopsis(o, f->synopsis, 2);
            print_sentence(o, f->help, 6);
        }
        return 0;
    }
    for (const bl_topic *tp = bl_topics; tp->name; tp++)
        if (!strcmp(tp->name, t)) {
            print_block(o, tp->help, 0);
            return 0;
        }
    if (bl_models_help(a->s, t, o) == 0) return 0;
    if (!key_topic(t)) {
        bl_suggest sg;
        char dym[160];
        bl_suggest_init(&sg, t);
        for (const bl_command *c = bl_commands; c->name; c++) bl_suggest_add(&sg, c->name);
        for (const bl_function *f = bl_functions; f->name; f++) bl_suggest_add(&sg, f->name);
        for (const bl_topic *tp = bl_topics; tp->name; tp++) bl_suggest_add(&sg, tp->name);
        bl_fail("help: no command, function or topic '%s' (try help)%s", t, bl_suggest_text(&sg, dym, sizeof dym));
    }
    return word_err(a, 0);
}

static int cmd_quit(bl_cmdargs *a)
{
    if (no_more(a, 0) < 0) return -1;
    a->s->quit = 1;
    return 0;
}

static int cmd_seed(bl_cmdargs *a)
{
    long n;
    if (a->n == 0) {
        fprintf(a->s->out, "seed %llu\n", (unsigned long long)a->s->seed);
        return 0;
    }
    if (no_more(a, 1) < 0 || bl_word_int(a, 0, 0, 9007199254740991L, &n) < 0) return -1;
    bl_session_reseed(a->s, (uint64_t)n);
    return 0;
}

static int cmd_vars(bl_cmdargs *a)
{
    if (no_more(a, 0) < 0) return -1;
    const char *cols[] = { "name", "value" };
    bl_table *t = bl_table_new(2, cols);
    for (int i = 0; t && i < a->s->nvars; i++) {
        char d[256];
        bl_val_describe(a->s->vals[i], d, sizeof d);
        if (bl_table_addf(t, "%s\t%s", a->s->names[i], d) < 0) {
            bl_table_free(t);
            return -1;
        }
    }
    if (!t) return -1;
    if (t->nrow == 0) {
        bl_table_free(t);
        fprintf(a->s->out, "no variables yet (x = randn(4, 8) makes one)\n");
        return 0;
    }
    a->result = bl_val_table(t);
    return a->result ? 0 : -1;
}

static int cmd_del(bl_cmdargs *a)
{
    if (a->n == 0) {
        bl_fail("del: name the variables to delete");
        return -1;
    }
    for (int i = 0; i < a->n; i++)
        if (!bl_session_get(a->s, a->w[i].text)) {
            bl_fail("del: no variable '%s'", a->w[i].text);
            return word_err(a, i);
        }
    for (int i = 0; i < a->n; i++) bl_session_del(a->s, a->w[i].text);
    return 0;
}

static int cmd_source(bl_cmdargs *a)
{
    if (a->n != 1) {
        bl_fail("source: expected one file name (source FILE)");
        return a->n ? word_err(a, 1) : -1;
    }
    /* a relative name missing here is looked up beside the script that sources it, so
     * `blocklab -f examples/x.bl` works from any folder */
    const char *path = a->w[0].text, *cur = a->s->file, *slash = cur ? strrchr(cur, '/') : NULL;
    char beside[4096];
    struct stat sb;
    if (path[0] != '/' && stat(path, &sb) != 0 && slash &&
        snprintf(beside, sizeof beside, "%.*s/%s", (int)(slash - cur), cur, path) < (int)sizeof beside &&
        stat(beside, &sb) == 0)
        path = beside;
    /* a cycle is refused before anything in it runs again: the file running now, or one further
     * up the chain, sources itself */
    bl_session *ss = a->s;
    if (ss->depth == 0) {
        free(ss->chain[0]);
        ss->chain[0] = cur ? realpath(cur, NULL) : NULL;
    }
    char *self = realpath(path, NULL);
    for (int i = ss->depth; self && i >= 0; i--)
        if (ss->chain[i] && !strcmp(ss->chain[i], self)) {
            if (i == ss->depth) bl_fail("source: %s sources itself", a->w[0].text);
            else bl_fail("source: %s is already running (files that source each other)", a->w[0].text);
            free(self);
            return word_err(a, 0);
        }
    if (ss->depth >= BL_SOURCE_MAX) {
        free(self);
        bl_fail("source: files nested more than %d deep", BL_SOURCE_MAX);
        return word_err(a, 0);
    }
    FILE *f = bl_open_script(path);
    if (!f) {
        free(self);
        bl_error_prefix("source: %s", a->w[0].text);
        return word_err(a, 0);
    }
    ss->chain[++ss->depth] = self;
    int rc = bl_run_file(ss, path, f);
    free(ss->chain[ss->depth]);
    ss->chain[ss->depth--] = NULL;
    fclose(f);
    if (rc < 0) {
        /* the error inside the file has been shown, at its FILE:LINE:COL: one error, one line */
        a->s->error_shown = 1;
        return -1;
    }
    return 0;
}

static int cmd_history(bl_cmdargs *a)
{
    long n = 20;
    if (a->n >= 1 && a->w[0].key) {     /* history size=N: how many statements are kept */
        static const char *const keys[] = { "size", NULL };
        long size;
        if (no_more(a, 1) < 0 || bl_opt_check(a, 0, keys) < 0 ||
            bl_opt_int(a, "size", BL_HIST_SIZE_DEFAULT, 0, BL_HIST_SIZE_MAX, &size) < 0)
            return -1;
        bl_line_set_histsize((int)size);
        fprintf(a->s->out, "history: keeping the last %ld statement%s%s\n", size, size == 1 ? "" : "s",
                bl_line_history_path() ? " (and as many in the history file)" : "");
        return 0;
    }
    if (no_more(a, 1) < 0 || (a->n == 1 && bl_word_int(a, 0, 1, 1000000, &n) < 0)) return -1;
    int from = a->s->nhist > n ? a->s->nhist - (int)n : 0;
    for (int i = from; i < a->s->nhist; i++) fprintf(a->s->out, "%5d  %s\n", i + 1, a->s->hist[i]);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Parse and run the statements after a raw command's name (time, no_grad). 0 or -1. */
static int run_rest(bl_cmdargs *a, const char *example)
{
    const bl_stmt *st = a->st;
    bl_program prog;
    bl_pos ep = st->rest_pos;
    if (!st->rest[0]) {
        bl_fail("%s: give a statement, e.g. %s", st->name, example);
        return -1;
    }
    if (bl_parse(st->rest, st->rest_pos.line, st->rest_pos.col, bl_is_command, &prog, &ep) < 0) {
        bl_session_errat(a->s, ep);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < prog.n && rc == 0 && !bl_interrupted(); i++) rc = bl_exec_stmt(a->s, &prog.s[i]);
    bl_program_free(&prog);
    return rc;
}

/* no_grad STATEMENT: torch.no_grad() for one statement (repl/autograd.h). */
static int cmd_no_grad(bl_cmdargs *a)
{
    int was = bl_ag_set_enabled(a->s, 0);
    int rc = run_rest(a, "no_grad w = w - 0.1 * w.grad");
    bl_ag_set_enabled(a->s, was);
    return rc;
}

static int cmd_time(bl_cmdargs *a)
{
    double t0 = now();
    int rc = run_rest(a, "time x @ x.T");
    double dt = now() - t0;
    if (rc == 0 && !bl_interrupted()) {     /* after Ctrl-C: abandoned, as the line is */
        if (dt < 1) fprintf(a->s->out, "time: %.3f ms\n", dt * 1e3);
        else fprintf(a->s->out, "time: %.3f s\n", dt);
    }
    return rc;
}

/* ---- completers ---- */
int bl_complete_topic(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    size_t n = strlen(prefix);
    if (argi > 0) return 0;
    for (const bl_command *c = bl_commands; c->name; c++)
        if (!strncmp(c->name, prefix, n)) bl_strlist_add(out, c->name);
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++)
        if (!strncmp(f->name, prefix, n)) bl_strlist_add(out, f->name);
    for (const bl_topic *t = bl_topics; t->name; t++)
        if (!strncmp(t->name, prefix, n)) bl_strlist_add(out, t->name);
    if (!strncmp("functions", prefix, n)) bl_strlist_add(out, "functions");
    bl_models_complete_topics(prefix, out);
    return 0;
}

int bl_complete_var(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    size_t n = strlen(prefix);
    for (int i = 0; i < s->nvars; i++)
        if (!strncmp(s->names[i], prefix, n)) bl_strlist_add(out, s->names[i]);
    return 0;
}

int bl_complete_file(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    return 1;
}

/* ---- the table ---- */
const bl_command bl_commands[] = {
    { "help", "help [TOPIC]",
      "List the commands, or explain one of them.\n"
      "Topics: functions, language, keys, pictures, every key of `help keys`, and every command\n"
      "and function name, also with a sub-command (help rope check). A key of a command\n"
      "such as width names the commands that take it.",
      bl_complete_topic, cmd_help, 0 },
    { "quit", "quit", "Leave blocklab (Ctrl-D does the same).", NULL, cmd_quit, 0 },
    { "exit", "exit", "Leave blocklab (the same as quit).", NULL, cmd_quit, 0 },
    { "seed", "seed [N]",
      "Restart the random generator from N, or show it.\n"
      "randn draws from this generator, so a script that starts with `seed 0` gives the same\n"
      "numbers every time.", NULL, cmd_seed, 0 },
    { "vars", "vars", "List the variables with their type and shape.", NULL, cmd_vars, BL_WRITES_TABLE },
    { "del", "del NAME...", "Delete variables (and free what they hold).", bl_complete_var, cmd_del, 0 },
    { "source", "source FILE",
      "Run the statements of a script file here.\n"
      "They run as if typed; the file stops at its first error, shown once at its\n"
      "FILE:LINE:COL. Files nest at most 16 deep.",
      bl_complete_file, cmd_source, 0 },
    { "history", "history [N] | history size=N",
      "Show the last N statements (20 by default).\n"
      "history size=N sets how many statements the history keeps at the prompt and in\n"
      "its file (2000 by default, or $BLOCKLAB_HISTSIZE; 0 keeps none). A statement longer\n"
      "than 64 KiB is not kept; a history file that is not text (a NUL byte, invalid UTF-8)\n"
      "is read as far as it is text, with one warning, and rewritten clean on exit.",
      NULL, cmd_history, 0 },
    { "time", "time STATEMENT",
      "Run a statement and print its wall-clock time.\n"
      "For example: time y = x @ x.T",
      NULL, cmd_time, BL_CMD_RAW },
    { "no_grad", "no_grad STATEMENT",
      "Run a statement without recording gradients.\n"
      "As torch.no_grad(): its results need no gradient even when their inputs do, e.g. an\n"
      "update by hand:\n"
      "no_grad w = requires_grad(w - 0.1 * w.grad)",
      NULL, cmd_no_grad, BL_CMD_RAW },
    BL_MODEL_COMMANDS
    BL_TRAIN_COMMANDS
    BL_PLOT_COMMANDS
    BL_COMPARE_COMMANDS
    BL_PICTURE_COMMANDS
    { NULL, NULL, NULL, NULL, NULL, 0 },
};

const bl_command *bl_command_find(const char *name)
{
    for (const bl_command *c = bl_commands; c->name; c++)
        if (!strcmp(c->name, name)) return c;
    return NULL;
}

const char *bl_command_typed(const bl_stmt *st, char *buf, size_t n)
{
    const bl_command *c = bl_command_find(st->name);
    if (c && st->nwords && !st->words[0].key && is_sub(c, st->words[0].text))
        snprintf(buf, n, "%s %s", st->name, st->words[0].text);
    else
        snprintf(buf, n, "%s", st->name);
    return buf;
}

int bl_is_command(const char *name, int *raw)
{
    const bl_command *c = bl_command_find(name);
    if (c && raw) *raw = (c->flags & BL_CMD_RAW) != 0;
    return c != NULL;
}

const bl_topic bl_topics[] = {
    { "language",
      "A line is a command, an assignment or an expression whose value is printed:\n"
      "  seed 0                          a command: a name and words (key=value allowed)\n"
      "  x = randn(4, 64, 128) * 3 + 1   an assignment\n"
      "  rms(rmsnorm(x), dim=-1)         an expression: its value is printed\n"
      "Command words are split at white space; key=value (or key = value, a space on both\n"
      "sides) sets a key, once per command: a lone = (a =b), a key without a value (a=) and\n"
      "a key given twice are errors at the word, before the command runs. A word (or a\n"
      "key's value, or the file after >) written in brackets is an expression, evaluated as\n"
      "the command runs; its string or number is the word (a loop names its files so:\n"
      "for k in [1, 2]: train 100; plot loss > (\"loss\" + str(k) + \".png\")).\n"
      "Values: numbers, strings \"...\", true/false (on/off), lists [1, 2], tensors, tables,\n"
      "models and runs. Numbers print with 6 significant digits, whole ones exactly, a\n"
      "negative zero as -0 (round(-0.5), as Python's -0.0). Models are handles: after\n"
      "b = a both names share one model, so set a dim=64 (or train) changes b too; every\n"
      "other value (a run is a snapshot) never changes behind a name.\n"
      "Strings know the escapes \\n \\t \\r \\\\ \\\" \\'.\n"
      "Operators + - * / ** (NumPy broadcasting; ** binds tighter than unary - on its left\n"
      "and is right-associative, as Python: -2**2 = -4), @ (matrix product), unary -,\n"
      "comparisons < <= > >= == != (of a tensor: elementwise 0/1; of numbers true/false;\n"
      "== and != of strings, and of lists item by item as in Python; true == 1, so\n"
      "[true] == [1]); x[0, :, 1:3] indexes and slices (negative indices count from the end;\n"
      "a slice of a list is a list; lists nest at most 1000 deep), w[idx] with a tensor or\n"
      "list of whole numbers picks rows (an embedding lookup); f(a, key=value) calls a\n"
      "function; m.name reads a field; a model is a function too: m(xt, t) or m(tokens)\n"
      "runs it (help forward).\n"
      "A line that starts with a command's name runs the command unless = or an adjacent\n"
      "( [ . follows: a variable may have that name (train = 3, load f name=train) and is\n"
      "read inside an expression, as (train), train.params or print(train).\n"
      "`;` separates statements, `#` starts a comment, and a line that ends inside brackets\n"
      "or after an operator or = continues on the next one (not after , . or :, so\n"
      "`qk growth scales=1,2,` is an error at its trailing comma).\n"
      "`STATEMENT > FILE` writes the value\n"
      "(a table, tensor or picture) to FILE when FILE ends in .txt .csv .json .md .png or\n"
      ".svg (the extension picks the format; .md takes tables, .csv 1-D and 2-D tensors,\n"
      ".json any shape, and numbers, strings, booleans and lists, a list as a JSON array;\n"
      "a picture's .csv is one table with one header row, whose columns help CMD names;\n"
      "otherwise > compares, and x > out.xyz that fails says which extensions a redirect\n"
      "takes; NaN is written nan and infinities inf and -inf, as NumPy and\n"
      "pandas read them, null in .json). A command writes its text as .txt, and its table\n"
      "or picture, if it makes one, as the other types: both the type and the folder are\n"
      "checked before it runs. Errors show a caret under the offending\n"
      "token (columns count characters, two for a wide CJK one) and change nothing; a mistyped\n"
      "command, function, variable, keyword, key or value offers the nearest known names\n"
      "(trian 10: did you mean 'train'?). print(...) > out.txt writes what print shows.\n"
      "Ctrl-C stops a long command at its next safe point (train: after the current step) and,\n"
      "as in bash and Python, abandons the rest of the line or sourced file; what was assigned\n"
      "before is kept, and a statement it interrupts (b = a @ a) leaves b as it was.\n"
      "\n"
      "Functions, loops and conditions: a one-line form after ':' (to the end of the line,\n"
      "statements split by ;) or a block of lines up to `end` (its header may end in ':';\n"
      "the prompt shows ... until the end; the whole block enters the history once):\n"
      "  def f(x, w=1) = rmsnorm(x) * w      a function in one line\n"
      "  def g(x)                             a block: its value is what return gives\n"
      "    y = x * 2\n"
      "    return y + 1\n"
      "  end\n"
      "  for s in [1, 4, 16]: print(s, f(x * s))\n"
      "  for i in range(3) ... end            a list, range(n), or a tensor row by row\n"
      "  while n < 10 ... end                 break and continue inside a loop\n"
      "  if c: a else: b       if c ... elif d ... else ... end\n"
      "Conditions are true/false or numbers (reduce a tensor first: max(x) > 0).\n"
      "Functions are values: f alone is <function f(x, w=1)>, g = f names it again, and it\n"
      "passes to other functions; vars lists them. Arguments as for built-ins: positional,\n"
      "then name=value; defaults are evaluated once, when def runs. A call evaluates its\n"
      "arguments left to right, then runs the body; a body that ends without return (or a\n"
      "bare return) gives nothing. A variable holding a function is called before a\n"
      "built-in of the same name. Calls nest at most 200 deep (recursion).\n"
      "Scope: parameters and the names a function assigns are its own (locals), gone when\n"
      "it returns; it reads global names but assigns them only after `global n` (in the\n"
      "function, before the assignment). Loops and ifs make no scope of their own: the loop\n"
      "variable and what the body assigns stay after it. Errors in a function point at its\n"
      "own line (FILE:LINE:COL, or the caret under it at the prompt), followed by a line per\n"
      "call: `  in g, line 2, called at FILE:LINE:COL`. Ctrl-C stops a loop at once; what\n"
      "it assigned so far is kept.\n"
      "Tables grow a row at a time: t = table(), then t.add(scale=4, top=0.5); the first row\n"
      "names the columns. t.add makes t the longer table; another name that held the table\n"
      "(u = t) keeps the old one, as values never change behind a name.\n"
      "Keywords (not names): def return for in while if elif else end break continue global." },
    { "slides", BL_FIG_SLIDE_HELP },
    { NULL, NULL },
};

/* ---- string lists ---- */
int bl_strlist_add(bl_strlist *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->s[i], s)) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        char **ns = realloc(l->s, (size_t)cap * sizeof *ns);
        if (!ns) return -1;
        l->s = ns;
        l->cap = cap;
    }
    if (!(l->s[l->n] = strdup(s))) return -1;
    l->n++;
    return 0;
}

void bl_strlist_free(bl_strlist *l)
{
    for (int i = 0; i < l->n; i++) free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

void bl_complete_from(const char *const *names, const char *prefix, bl_strlist *out)
{
    size_t n = strlen(prefix);
    for (; *names; names++)
        if (!strncmp(*names, prefix, n)) bl_strlist_add(out, *names);
}
