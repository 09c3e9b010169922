/* didyoumean.c - "did you mean" at the prompt (didyoumean.h). */
#include "repl/didyoumean.h"
#include "core/error.h"
#include "core/suggest.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The function tables whose names are offered: functions.c's and those that were spliced into it
 * (pictures, models, runs, the model lab), not the math and gradient tables (bl_function_at has
 * every one; tests/cli.sh pins `help trian`'s offers). */
static const bl_function *const offered[] = { bl_functions,     bl_figure_functions,   bl_model_functions,
                                              bl_run_functions, bl_modellab_functions, NULL };

void bl_dym_add_functions(bl_suggest *sg)
{
    for (int k = 0; offered[k]; k++)
        for (const bl_function *f = offered[k]; f->name; f++) bl_suggest_add(sg, f->name);
}

const char *bl_dym_names(bl_session *s, const char *word, int what, char *buf, size_t n)
{
    bl_suggest sg;
    bl_suggest_init(&sg, word);
    if ((what & BL_DYM_VARS) && s)
        for (int i = 0; i < s->nvars; i++) bl_suggest_add(&sg, s->names[i]);
    if (what & BL_DYM_FUNCS) bl_dym_add_functions(&sg);
    if (what & BL_DYM_CMDS)
        for (const bl_command *const *c = bl_commands; *c; c++) bl_suggest_add(&sg, (*c)->name);
    return bl_suggest_text(&sg, buf, n);
}

const char *bl_dym_keys(const char *word, const char *synopsis, char *buf, size_t n)
{
    char keys[16][32];
    int nk = 0;
    bl_suggest sg;
    bl_suggest_init(&sg, word);
    for (const char *p = synopsis; p && *p && nk < 16; p++) {
        if (*p != '=') continue;
        const char *e = p, *b = p;
        while (b > synopsis && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
        if (e - b < 1 || e - b >= 32) continue;
        memcpy(keys[nk], b, (size_t)(e - b));
        keys[nk][e - b] = '\0';
        bl_suggest_add(&sg, keys[nk++]);
    }
    return bl_suggest_text(&sg, buf, n);
}

void bl_dym_command(bl_session *s, const char *src, bl_pos *ep)
{
    if (!src || ep->off <= 0 || ep->off > (int)strlen(src)) return;
    if (!strstr(bl_error(), "expected an operator or the end of the statement")) return;
    /* back from the error: white space, a name, white space, then the start of the statement */
    int e = ep->off;
    while (e > 0 && (src[e - 1] == ' ' || src[e - 1] == '\t')) e--;
    int b = e;
    while (b > 0 && (isalnum((unsigned char)src[b - 1]) || src[b - 1] == '_')) b--;
    if (b == e || isdigit((unsigned char)src[b])) return;
    int c = b;
    while (c > 0 && (src[c - 1] == ' ' || src[c - 1] == '\t')) c--;
    if (c > 0 && src[c - 1] != ';' && src[c - 1] != '\n') return;
    char name[64];
    if (e - b >= (int)sizeof name) return;
    memcpy(name, src + b, (size_t)(e - b));
    name[e - b] = '\0';
    if (bl_session_get(s, name) || bl_function_find(name) || bl_command_find(name)) return;
    char sug[160];
    bl_dym_names(s, name, BL_DYM_CMDS, sug, sizeof sug);
    if (!*sug) return;
    bl_fail("unknown command '%s'%s", name, sug);
    ep->col -= bl_text_width(src + b, ep->off - b);
    ep->off = b;
    ep->len = e - b;
}
