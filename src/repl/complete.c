/* complete.c - what Tab offers: commands, functions and variables at the start of a statement,
 * the command's own completer after it (switch names and values, help topics, file names),
 * variables and functions inside expressions. */
#include "repl/repl.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Names that continue `word`: its leading part up to the identifier at its end, plus each name
 * in the session (variables), the function table ("name(") and, when cmds, the command table. */
static void complete_ident(bl_session *s, const char *word, int cmds, bl_strlist *out)
{
    size_t n = strlen(word), k = n;
    while (k > 0 && (isalnum((unsigned char)word[k - 1]) || word[k - 1] == '_')) k--;
    const char *id = word + k;
    size_t idn = n - k;
    char buf[512];
    if (k > 0 && word[k - 1] == '.') return;   /* fields: nothing to offer generically */
#define ADD(name, suffix)                                                        \
    do {                                                                         \
        if (!strncmp((name), id, idn)) {                                         \
            snprintf(buf, sizeof buf, "%.*s%s%s", (int)k, word, (name), (suffix)); \
            bl_strlist_add(out, buf);                                            \
        }                                                                        \
    } while (0)
    if (cmds)
        for (const bl_command *const *c = bl_commands; *c; c++) ADD((*c)->name, "");
    for (int i = 0; i < s->nvars; i++) ADD(s->names[i], "");
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++) ADD(f->name, "(");
#undef ADD
}

int bl_complete_line(bl_session *s, const char *line, const char *word, bl_strlist *out)
{
    const char *stmt = strrchr(line, ';');
    stmt = stmt ? stmt + 1 : line;
    /* the words before the one at the cursor */
    char *copy = strdup(stmt);
    if (!copy) return 0;
    const char *words[64];
    int nw = 0;
    size_t wordoff = (size_t)(word - line) - (size_t)(stmt - line);
    char *p = copy;
    while (*p && nw < 64) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || (size_t)(p - copy) >= wordoff) break;
        words[nw++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        if (*p) *p++ = '\0';
    }
    int files = 0;
    const bl_command *c = nw > 0 ? bl_command_find(words[0]) : NULL;
    int assign = nw >= 2 && !strcmp(words[1], "=");
    if (nw == 0) {
        complete_ident(s, word, 1, out);
    } else if (c && (c->flags & BL_CMD_RAW)) {
        /* `time STATEMENT`: complete the statement after the command name */
        const char *rest = strstr(stmt, words[0]) + strlen(words[0]);
        files = bl_complete_line(s, rest, word, out);
    } else if (c && !assign) {
        if (c->complete) files = c->complete(s, nw - 1, words + 1, word, out);
    } else {
        complete_ident(s, word, 0, out);
    }
    free(copy);
    return files;
}
