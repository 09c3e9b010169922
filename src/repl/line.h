/* line.h - the seam that hides GNU readline (lua.c style): init, read a line, add it to the
 * history, close. Used only when standard input is a terminal; scripts are read with getline.
 *
 * History file: $BLOCKLAB_HISTORY if set (empty or /dev/null: no history file), else
 * $XDG_STATE_HOME/blocklab/history when XDG_STATE_HOME is set, else ~/.blocklab_history.
 */
#ifndef BL_REPL_LINE_H
#define BL_REPL_LINE_H

#include "repl/repl.h"

enum { BL_LINE_EOF = 0, BL_LINE_OK = 1, BL_LINE_INTERRUPTED = 2 };

/* Set up completion for session s and load the history. */
void bl_line_init(bl_session *s);
/* Read one line with `prompt` into *out (malloc'ed, no newline). Returns BL_LINE_OK,
 * BL_LINE_EOF (Ctrl-D on an empty line) or BL_LINE_INTERRUPTED (Ctrl-C: the line was cleared). */
int bl_line_read(const char *prompt, char **out);
/* Add a statement to the history (and append it to the history file). */
void bl_line_add_history(const char *stmt);
/* Save and release. */
void bl_line_close(void);
/* How many statements the history keeps (BLOCKLAB_HISTSIZE, `history size=N`; 2000 by
 * default; 0 keeps none): applied at once and when the file is trimmed on exit. */
void bl_line_set_histsize(int n);
int bl_line_histsize(void);
/* The history file in use, or NULL when none (for tests and `history`). */
const char *bl_line_history_path(void);

#endif
