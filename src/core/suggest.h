/* suggest.h - "did you mean": the known names nearest to a mistyped one, as git and zsh offer
 * (`trian 10` -> did you mean 'train'?).
 *
 * Nearness is the optimal-string-alignment edit distance (Damerau 1964; Levenshtein 1966 plus
 * the swap of two neighbours, each one edit): a name is offered when it is at most 1 edit away
 * for a word of up to 4 characters, 2 for a longer one, and closer than the word is long. The
 * closest names come first (ties in the order given), at most three.
 */
#ifndef BL_CORE_SUGGEST_H
#define BL_CORE_SUGGEST_H

#include <stddef.h>

typedef struct {
    const char *word;
    const char *best[3];
    int dist[3];
    int n;
} bl_suggest;

/* Start a search for names near word. */
void bl_suggest_init(bl_suggest *sg, const char *word);
/* Consider one known name (kept by pointer: it must outlive the search). */
void bl_suggest_add(bl_suggest *sg, const char *name);
/* Consider every name of a NULL-terminated list. */
void bl_suggest_list(bl_suggest *sg, const char *const *names);
/* "; did you mean 'a'?" / "; did you mean 'a' or 'b'?" / "; did you mean 'a', 'b' or 'c'?",
 * or "" when no name is near; in buf (n bytes), returned. */
const char *bl_suggest_text(const bl_suggest *sg, char *buf, size_t n);
/* The optimal-string-alignment distance of a and b (bytes), stopping early past max: any value
 * over max means "more than max". */
int bl_edit_distance(const char *a, const char *b, int max);

#endif
