/* complete.c - what Tab offers: commands, functions and variables at the start of a statement,
 * the command's own completer after it (switch names and values, help topics, file names),
 * variables and functions inside expressions. */
#include "repl/repl.h"
#include "repl/optim.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* 1 when f's first parameter is the tensor a method call passes (x.f(...) calls f(x, ...)):
 * sum(x, ...), cross_entropy(input, ...), backward(y, ...), multinomial(probs, ...); not
 * print(a, ...) nor range(...). */
static int is_method(const bl_function *f)
{
    static const char *const first[] = { "x", "input", "y", "probs", "t", "logits", NULL };
    const char *p = strchr(f->synopsis, '(');
    if (!p) return 0;
    size_t n = strcspn(++p, ",)= ");
    for (const char *const *w = first; *w; w++)
        if (strlen(*w) == n && !strncmp(p, *w, n)) return 1;
    return 0;
}


/* Add word[0..k) + name + suffix to out when name continues the identifier id (idn bytes) that
 * ends word. */
static void add_match(bl_strlist *out, const char *word, size_t k, const char *id, size_t idn, const char *name,
                      const char *suffix)
{
    if (strncmp(name, id, idn)) return;
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)k, word, name, suffix);
    bl_strlist_add(out, buf);
}
#define ADD(name, suffix) add_match(out, word, k, id, idn, (name), (suffix))

/* After "BASE." in word (the identifier id after the dot, k its offset): the module's functions
 * (torch. F. torch.nn.functional. math.), a tensor's methods and fields, a dict's or a list's
 * methods; base is looked up as a variable when it is a name, and an expression that ends in
 * ')' or ']' (x[0]., f(x).) is taken for a tensor. */
static int in_list(const char *const *l, const char *name)
{
    for (; *l; l++)
        if (!strcmp(*l, name)) return 1;
    return 0;
}

static void complete_field(bl_session *s, const char *word, size_t k, const char *id, size_t idn, bl_strlist *out)
{
    size_t b = k - 1;   /* word[b] is the dot */
    while (b > 0 && (isalnum((unsigned char)word[b - 1]) || word[b - 1] == '_' || word[b - 1] == '.')) b--;
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)(k - 1 - b), word + b);
    const bl_function *f;
    int module = !strcmp(base, "torch") || !strcmp(base, "F") || !strcmp(base, "math") ||
                 !strcmp(base, "torch.nn.functional") || !strcmp(base, "nn.functional");
    static const char *const optim[] = { "SGD", "Adam", "AdamW", NULL };
    if (!strcmp(base, "torch.optim") || !strcmp(base, "optim")) {
        for (const char *const *c = optim; *c; c++) ADD(*c, "(");
        return;
    }
    if (!strcmp(base, "torch.nn.utils") || !strcmp(base, "nn.utils")) {
        ADD("clip_grad_norm_", "(");
        return;
    }
    static const char *const init[] = { "normal_", "uniform_", "zeros_", "ones_", "constant_", NULL };
    if (!strcmp(base, "torch.nn.init") || !strcmp(base, "nn.init")) {
        for (const char *const *c = init; *c; c++) ADD(*c, "(");
        return;
    }
    if (!strcmp(base, "torch.nn") || !strcmp(base, "nn")) {
        ADD("functional", "");
        ADD("utils", "");
        ADD("init", "");
        return;
    }
    const bl_value *v = *base && !strchr(base, '.') && !module ? bl_session_get(s, base) : NULL;
    if (module) {
        if (!strcmp(base, "math")) {
            static const char *const consts[] = { "pi", "e", "tau", "inf", "nan", NULL };
            for (const char *const *c = consts; *c; c++) ADD(*c, "");
        }
        for (int fi = 0; (f = bl_function_at(fi)); fi++)   /* not torch.optim's, nor torch_save (torch.save) */
            if (!in_list(optim, f->name) && !in_list(init, f->name) && strcmp(f->name, "clip_grad_norm_") &&
                strncmp(f->name, "torch_", 6))
                ADD(f->name, "(");
        if (!strcmp(base, "torch")) {
            ADD("optim", "");
            ADD("nn", "");
            ADD("save", "(");
            ADD("load", "(");
        }
    } else if (bl_is_optim(v)) {
        ADD("param_groups", "");
        ADD("defaults", "");
        ADD("step", "(");
        ADD("zero_grad", "(");
    } else if (v && v->kind == BL_V_DICT) {
        static const char *const m[] = { "keys", "values", "items", "get", NULL };
        for (const char *const *c = m; *c; c++) ADD(*c, "(");
    } else if (v && v->kind == BL_V_LIST) {
        ADD("append", "(");
        if (v->is_pair) {
            ADD("values", "");
            ADD("indices", "");
        }
    } else if ((v && v->kind == BL_V_TENSOR) || (!*base && b > 0 && (word[b - 1] == ')' || word[b - 1] == ']'))) {
        static const char *const fields[] = { "shape", "T", "grad", "requires_grad", "is_leaf", "grad_fn", "ndim", NULL };
        static const char *const methods[] = { "view", "t", "item", "float", "long", "bool", "requires_grad_", NULL };
        for (const char *const *c = fields; *c; c++) ADD(*c, "");
        for (const char *const *c = methods; *c; c++) ADD(*c, "(");
        for (int fi = 0; (f = bl_function_at(fi)); fi++)
            if (is_method(f)) ADD(f->name, "(");
    }
}

/* Names that continue `word`: its leading part up to the identifier at its end, plus each name
 * in the session (variables), the function table ("name(") and, when cmds, the command table;
 * after a '.', complete_field's. */
static void complete_ident(bl_session *s, const char *word, int cmds, bl_strlist *out)
{
    size_t n = strlen(word), k = n;
    while (k > 0 && (isalnum((unsigned char)word[k - 1]) || word[k - 1] == '_')) k--;
    const char *id = word + k;
    size_t idn = n - k;
    if (k > 0 && word[k - 1] == '.') {
        complete_field(s, word, k, id, idn, out);
        return;
    }
    if (cmds)
        for (const bl_command *const *c = bl_commands; *c; c++) ADD((*c)->name, "");
    for (int i = 0; i < s->nvars; i++) ADD(s->names[i], "");
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++) ADD(f->name, "(");
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
