/* fuzz_parse.c - the lexer and the parser on any bytes: statements, blocks, continuation
 * (bl_lex_more line by line, as the script reader asks). No crash, no sanitizer report. */
#include "repl/repl.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *src = malloc(n + 1);
    if (!src) return 0;
    memcpy(src, data, n);
    src[n] = '\0';
    bl_program prog;
    bl_pos ep = { 0, 1, 1, 1 };
    bl_parse(src, 1, 1, bl_is_command, &prog, &ep);
    bl_program_free(&prog);
    /* line by line, as a script is read: is the statement open at the end of each line? */
    bl_lex_state ls = { 0 };
    for (char *line = src; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        bl_lex_more(&ls, line);
        line = nl ? nl + 1 : NULL;
    }
    free(src);
    return 0;
}
