/* didyoumean.h - "did you mean" at the prompt (core/suggest.h for the distance): a mistyped
 * command, function, variable, keyword or key gets the nearest known names in its error line. */
#ifndef BL_REPL_DIDYOUMEAN_H
#define BL_REPL_DIDYOUMEAN_H

#include "repl/repl.h"
#include "core/suggest.h"

enum { BL_DYM_VARS = 1, BL_DYM_FUNCS = 2, BL_DYM_CMDS = 4 };

/* "; did you mean 'x'?" for word among the session's variables, the functions and/or the
 * commands (what: BL_DYM_* flags), or "" when none is near; in buf (n bytes). */
const char *bl_dym_names(bl_session *s, const char *word, int what, char *buf, size_t n);
/* Add the names of the functions "did you mean" offers to sg. */
void bl_dym_add_functions(bl_suggest *sg);
/* The same among the keys of a synopsis (the names right before '=': "mean(x, dim=None)" has
 * dim) or a list of keys "a= b= c=". */
const char *bl_dym_keys(const char *word, const char *synopsis, char *buf, size_t n);
/* After a parse error at *ep of src: when the statement there is a lone name that is no
 * command, variable or function followed by more words (`trian 10`) and a command is near,
 * the error becomes "unknown command 'trian'; did you mean 'train'?" at the name. */
void bl_dym_command(bl_session *s, const char *src, bl_pos *ep);

#endif
