/* commands.c - the command table: the list of every command's entry, in help order, and the
 * look-ups on it. Each command lives in src/repl/cmd_NAME.c, which holds its entry (name,
 * synopsis, help text, completer, handler, flags; an alias such as exit beside the command it
 * repeats) as bl_cmd_NAME_entry, as tmux's cmd-*.c hold their cmd_entry.
 *
 * The table drives the parser (bl_is_command), `help`, tab completion and the test that every
 * command has help text and an entry in man/blocklab.1.
 */
#include "repl/repl.h"
#include <ctype.h>
#include <string.h>

extern const bl_command bl_cmd_help_entry;
extern const bl_command bl_cmd_quit_entry;
extern const bl_command bl_cmd_exit_entry;
extern const bl_command bl_cmd_seed_entry;
extern const bl_command bl_cmd_vars_entry;
extern const bl_command bl_cmd_del_entry;
extern const bl_command bl_cmd_source_entry;
extern const bl_command bl_cmd_history_entry;
extern const bl_command bl_cmd_time_entry;
extern const bl_command bl_cmd_no_grad_entry;
extern const bl_command bl_cmd_model_entry;
extern const bl_command bl_cmd_use_entry;
extern const bl_command bl_cmd_set_entry;
extern const bl_command bl_cmd_show_entry;
extern const bl_command bl_cmd_params_entry;
extern const bl_command bl_cmd_data_entry;
extern const bl_command bl_cmd_train_entry;
extern const bl_command bl_cmd_eval_entry;
extern const bl_command bl_cmd_sample_entry;
extern const bl_command bl_cmd_lengen_entry;
extern const bl_command bl_cmd_save_entry;
extern const bl_command bl_cmd_load_entry;
extern const bl_command bl_cmd_metrics_entry;
extern const bl_command bl_cmd_dash_entry;
extern const bl_command bl_cmd_plot_entry;
extern const bl_command bl_cmd_attn_entry;
extern const bl_command bl_cmd_stats_entry;
extern const bl_command bl_cmd_rope_entry;
extern const bl_command bl_cmd_qk_entry;
extern const bl_command bl_cmd_compare_entry;
extern const bl_command bl_cmd_pictures_entry;

const bl_command *const bl_commands[] = {
    &bl_cmd_help_entry,
    &bl_cmd_quit_entry,
    &bl_cmd_exit_entry,
    &bl_cmd_seed_entry,
    &bl_cmd_vars_entry,
    &bl_cmd_del_entry,
    &bl_cmd_source_entry,
    &bl_cmd_history_entry,
    &bl_cmd_time_entry,
    &bl_cmd_no_grad_entry,
    &bl_cmd_model_entry,
    &bl_cmd_use_entry,
    &bl_cmd_set_entry,
    &bl_cmd_show_entry,
    &bl_cmd_params_entry,
    &bl_cmd_data_entry,
    &bl_cmd_train_entry,
    &bl_cmd_eval_entry,
    &bl_cmd_sample_entry,
    &bl_cmd_lengen_entry,
    &bl_cmd_save_entry,
    &bl_cmd_load_entry,
    &bl_cmd_metrics_entry,
    &bl_cmd_dash_entry,
    &bl_cmd_plot_entry,
    &bl_cmd_attn_entry,
    &bl_cmd_stats_entry,
    &bl_cmd_rope_entry,
    &bl_cmd_qk_entry,
    &bl_cmd_compare_entry,
    &bl_cmd_pictures_entry,
    NULL,
};

const bl_command *bl_command_find(const char *name)
{
    for (const bl_command *const *c = bl_commands; *c; c++)
        if (!strcmp((*c)->name, name)) return *c;
    return NULL;
}

/* The i-th of c's sub-commands, as its synopsis lists them ("rope table|check ...": 0 table,
 * 1 check), in buf (n bytes); 0 when c has no sub-command i. */
int bl_command_sub_at(const bl_command *c, int i, char *buf, size_t n)
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
int bl_command_is_sub(const bl_command *c, const char *w)
{
    char sub[32];
    for (int i = 0; bl_command_sub_at(c, i, sub, sizeof sub); i++)
        if (!strcmp(sub, w)) return 1;
    return 0;
}

const char *bl_command_typed(const bl_stmt *st, char *buf, size_t n)
{
    const bl_command *c = bl_command_find(st->name);
    if (c && st->nwords && !st->words[0].key && bl_command_is_sub(c, st->words[0].text))
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
