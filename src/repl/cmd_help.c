/* cmd_help.c - `help [TOPIC]`: the command list, one command, function or topic (topics.c),
 * a command with its sub-command (help rope check), and for a key such as width= the commands
 * that take it. The text is the tables' (each command's entry, the function tables). */
#include "repl/repl.h"
#include "repl/didyoumean.h"
#include "repl/figures.h"
#include "repl/modelvars.h"
#include "core/suggest.h"
#include "core/error.h"
#include "models/config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Help text with each {KEY:I} replaced by the I-th value of switch KEY (models/config.h's key
 * table) and each {KEY:*} by all its values ("layernorm, rmsnorm"): help names switch values
 * without spelling them, so a renamed or new value needs no edit here. {pos:2} is "rope2d". text itself when it has no mark (or is too long); otherwise
 * one of two static buffers, the older overwritten by the next call. */
static const char *help_text(const char *text)
{
    static char buf[2][1 << 15];
    static int which;
    if (!strchr(text, '{')) return text;
    char *out = buf[which ^= 1];
    size_t len = 0, cap = sizeof buf[0];
    for (const char *p = text; *p && len + 1 < cap;) {
        char key[32];
        int i, used = 0;
        const bl_config_key *k;
        if (*p == '{' && sscanf(p, "{%31[a-z_]:%d}%n", key, &i, &used) == 2 && used > 0 &&
            (k = bl_config_find_key(key)) && k->type == BL_KEY_CHOICE) {
            len += (size_t)snprintf(out + len, cap - len, "%s", bl_config_value(key, i));
            p += used;
        } else if (*p == '{' && sscanf(p, "{%31[a-z_]:*}%n", key, &used) == 1 && used > 0 &&
                   (k = bl_config_find_key(key)) && k->type == BL_KEY_CHOICE) {
            char all[256];
            len += (size_t)snprintf(out + len, cap - len, "%s", bl_config_choices_text(k, ", ", all, sizeof all));
            p += used;
        } else {
            out[len++] = *p++;
        }
    }
    if (len + 1 >= cap) return text;
    out[len] = 0;
    return out;
}

static void print_block(FILE *out, const char *text, int indent)
{
    const char *p = help_text(text);
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(out, "%*s%.*s\n", indent, "", len, p);
        p += len + (nl != NULL);
    }
}

/* A command's synopsis, then its help and the shared text it includes, indented by 2. */
static void print_command(FILE *out, const bl_command *c)
{
    fprintf(out, "%s\n", c->synopsis);
    print_block(out, c->help, 2);
    if (c->help_more) print_block(out, c->help_more, 2);
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
    text = help_text(text);
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

/* Does text hold `key=` as a word of its own? */
static int has_key(const char *text, const char *key)
{
    size_t n = strlen(key);
    text = help_text(text);
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
    for (; bl_command_sub_at(c, nsub, sub, sizeof sub); nsub++) own |= sub_has_key(c, sub, key);
    for (int i = 0; i < (nsub ? nsub : 1); i++) {
        if (nsub) {
            bl_command_sub_at(c, i, sub, sizeof sub);
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
    for (const bl_command *const *cp = bl_commands; *cp; cp++) {
        const bl_command *c = *cp;
        if (has_key(c->synopsis, t) || has_key(c->help, t) || (c->help_more && has_key(c->help_more, t)))
            len = key_names(c, t, list, sizeof list, len, first, sizeof first);
    }
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
    if (bl_word_max(a, 2) < 0) return -1;
    if (a->n == 2) {   /* a command and its sub-command: `help plot loss`, `help rope check` */
        const bl_command *c = bl_command_find(a->w[0].text);
        if (!c || !bl_command_is_sub(c, a->w[1].text)) {
            bl_fail("help: '%s %s' is not a command with its sub-command (help [TOPIC], help CMD SUB)",
                    a->w[0].text, a->w[1].text);
            return bl_word_err(a, c ? 1 : 0);
        }
        print_command(o, c);
        return 0;
    }
    if (a->n == 0) {
        fprintf(o, "Commands (help NAME for one; help functions, language, keys, slides):\n");
        for (const bl_command *const *cp = bl_commands; *cp; cp++) {
            const bl_command *c = *cp;
            /* the first sentence of the help, cut to the width of a terminal */
            const char *h = help_text(c->help);
            int len = (int)strcspn(h, "\n");
            const char *dot = strstr(h, ". ");
            if (dot && dot - h < len) len = (int)(dot - h);
            int col = 2 + (strlen(c->synopsis) > 26 ? (int)strlen(c->synopsis) + 1 : 27);
            if (strlen(c->synopsis) > 26) fprintf(o, "  %s\n  %-26s ", c->synopsis, ""), col = 29;
            else fprintf(o, "  %-26s ", c->synopsis);
            if (col + len > 79) fprintf(o, "%.*s...\n", 79 - col - 3, h);
            else fprintf(o, "%.*s\n", len, h);
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
    if (!strcmp(t, "autograd")) t = "backward";   /* the topic's usual name: one home (grad is grad(m, name)) */
    if (!strcmp(t, "optim") || !strcmp(t, "optimizer") || !strcmp(t, "torch.optim")) t = "SGD";
    /* help F.cross_entropy, help torch.randn: the builtin the prefix names (language's modules) */
    static const char *const prefixes[] = { "torch.nn.functional.", "torch.optim.", "torch.nn.utils.", "torch.",
                                            "nn.utils.", "optim.", "F.", "math." };
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (!strncmp(t, prefixes[i], strlen(prefixes[i])) && t[strlen(prefixes[i])]) {
            t += strlen(prefixes[i]);
            break;
        }
    const bl_command *c = bl_command_find(t);
    const bl_function *f = bl_function_find(t);
    if (c) {
        print_command(o, c);
    }
    if (f) {
        print_synopsis(o, f->synopsis, 0);
        print_block(o, f->help, 2);
        if (bl_function_help_more(f)) print_block(o, bl_function_help_more(f), 2);
        /* a function that is also a model key (norm(x) and norm=rmsnorm): the key's help too */
        if (!c && bl_config_find_key(t)) {
            fprintf(o, "\nThe model key %s= (set %s=...):\n", t, t);
            bl_models_help(a->s, t, o);
        }
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
        for (const bl_command *const *c = bl_commands; *c; c++) bl_suggest_add(&sg, (*c)->name);
        bl_dym_add_functions(&sg);
        for (const bl_topic *tp = bl_topics; tp->name; tp++) bl_suggest_add(&sg, tp->name);
        bl_fail("help: no command, function or topic '%s' (try help)%s", a->w[0].text, bl_suggest_text(&sg, dym, sizeof dym));
    }
    return bl_word_err(a, 0);
}

int bl_complete_topic(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    size_t n = strlen(prefix);
    if (argi > 0) return 0;
    for (const bl_command *const *c = bl_commands; *c; c++)
        if (!strncmp((*c)->name, prefix, n)) bl_strlist_add(out, (*c)->name);
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++)
        if (!strncmp(f->name, prefix, n)) bl_strlist_add(out, f->name);
    for (const bl_topic *t = bl_topics; t->name; t++)
        if (!strncmp(t->name, prefix, n)) bl_strlist_add(out, t->name);
    if (!strncmp("functions", prefix, n)) bl_strlist_add(out, "functions");
    bl_models_complete_topics(prefix, out);
    return 0;
}

static const char help[] =
    "List the commands, or explain one of them.\n"
    "Topics: functions, language, keys, pictures, every key of `help keys`, and every command\n"
    "and function name, also with a sub-command (help rope check). A key of a command\n"
    "such as width names the commands that take it.";

const bl_command bl_cmd_help_entry = {
    .name = "help",
    .synopsis = "help [TOPIC]",
    .help = help,
    .complete = bl_complete_topic,
    .run = cmd_help,
};
