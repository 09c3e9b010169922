/* cmdargs.c - what every command handler uses: its words as numbers, whole numbers and on/off,
 * key=value options, the count check, running the statements after a raw command's name,
 * the completers several commands share, and string lists (repl.h). */
#include "repl/repl.h"
#include "repl/didyoumean.h"
#include "repl/parser.h"
#include "core/suggest.h"
#include "core/error.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- word helpers ---- */
/* "cols: " for the word cols=0, so that a bad value names its key; "" for a positional word. */
static const char *word_key(const bl_cmdargs *a, int i, char *buf, size_t n)
{
    if (a->w[i].key) snprintf(buf, n, "%s: ", a->w[i].key);
    else buf[0] = 0;
    return buf;
}


int bl_word_err(bl_cmdargs *a, int i)
{
    return bl_session_errat(a->s, i < a->n ? a->w[i].vpos : a->st->pos);
}

int bl_word_num(bl_cmdargs *a, int i, double *x)
{
    if (i >= a->n) {
        char cmd[96];
        bl_fail("%s: missing argument (%s)", bl_command_typed(a->st, cmd, sizeof cmd),
                bl_command_find(a->st->name)->synopsis);
        return bl_word_err(a, i);
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
        char cmd[96], key[72];
        bl_fail("%s: %sexpected a number, got '%s'", bl_command_typed(a->st, cmd, sizeof cmd),
                word_key(a, i, key, sizeof key), a->w[i].text);
        return bl_word_err(a, i);
    }
    return 0;
}

int bl_word_int(bl_cmdargs *a, int i, long lo, long hi, long *x)
{
    double d;
    if (bl_word_num(a, i, &d) < 0) return -1;
    if (d != floor(d) || d < lo || d > hi) {
        char cmd[96], key[72];
        bl_fail("%s: %sexpected a whole number in [%ld, %ld], got %s", bl_command_typed(a->st, cmd, sizeof cmd),
                word_key(a, i, key, sizeof key), lo, hi, a->w[i].text);
        return bl_word_err(a, i);
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
        char cmd[96], key[72];
        bl_fail("%s: %sexpected on or off, got '%s'", bl_command_typed(a->st, cmd, sizeof cmd),
                i < a->n ? word_key(a, i, key, sizeof key) : "", t);
        return bl_word_err(a, i);
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
        char cmd[96];
        bl_fail("%s: %s must be in [%g, %g], got %s", bl_command_typed(a->st, cmd, sizeof cmd), key, lo, hi,
                a->w[i].text);
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

int bl_word_keys(bl_cmdargs *a, int from, const char *const *keys, int max_pos, int *pos_i)
{
    int npos = 0;
    *pos_i = -1;
    for (int i = from; i < a->n; i++) {
        if (!a->w[i].key) {
            if (npos++ >= max_pos) {
                char cmd[96];
                bl_fail("%s: unexpected '%s' (%s)", bl_command_typed(a->st, cmd, sizeof cmd), a->w[i].text,
                        bl_command_find(a->st->name)->synopsis);
                return bl_session_errat(a->s, a->w[i].pos);
            }
            *pos_i = i;
            continue;
        }
        int ok = 0;
        for (int k = 0; keys[k]; k++) ok |= !strcmp(keys[k], a->w[i].key);
        if (!ok) {
            char dym[160];
            bl_suggest sg;
            bl_suggest_init(&sg, a->w[i].key);
            bl_suggest_list(&sg, keys);
            char cmd[96];
            bl_fail("%s: unknown key '%s' (%s)%s", bl_command_typed(a->st, cmd, sizeof cmd), a->w[i].key,
                    bl_command_find(a->st->name)->synopsis, bl_suggest_text(&sg, dym, sizeof dym));
            return bl_session_errat(a->s, a->w[i].pos);
        }
    }
    return 0;
}

int bl_word_max(bl_cmdargs *a, int max)
{
    if (a->n <= max) return 0;
    char cmd[96];
    bl_fail("%s: too many arguments (%s)", bl_command_typed(a->st, cmd, sizeof cmd),
            bl_command_find(a->st->name)->synopsis);
    return bl_word_err(a, max);
}

/* Parse and run the statements after a raw command's name (time, no_grad). 0 or -1. */
int bl_cmd_run_rest(bl_cmdargs *a, const char *example)
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
