/* fuzz_eval.c - the evaluator on a sandboxed session: the input is a script (statements,
 * commands included) run with -k. The sandbox: no file is written (core/fileio.h
 * bl_fileio_readonly), every tensor a statement makes holds at most 65,536 elements
 * (s->max_numel), and the work per input is bounded: at most 64 statements run, and the
 * commands that train or compare (whose cost a number in the input sets) are skipped.
 * When loops come to the language, they count against the same statement budget. */
#include "core/fileio.h"
#include "repl/modelvars.h"
#include "repl/repl.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_STATEMENTS = 64 };

/* commands whose work grows with their arguments, or that wait for a terminal */
static int heavy(const char *name)
{
    static const char *const skip[] = { "train", "compare", "dash", "lengen", "sample", "time",
                                        "rope", "source", "probe", "attnmap", NULL };
    for (const char *const *k = skip; *k; k++)
        if (!strcmp(*k, name)) return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static int init;
    if (!init) {
        init = 1;
        bl_fileio_readonly(1);
        setenv("OMP_NUM_THREADS", "1", 1);
    }
    bl_session *s = bl_session_new(0);
    if (!s) return 0;
    s->keep_going = 1;
    s->max_numel = 1 << 16;
    s->out = fopen("/dev/null", "w");
    s->err = s->out;
    bl_models_init(s);
    char *src = malloc(n + 1);
    if (src) {
        memcpy(src, data, n);
        src[n] = '\0';
        bl_program prog;
        bl_pos ep = { 0, 1, 1, 1 };
        s->file = "fuzz", s->src = src, s->src_line = 1;
        if (bl_parse(src, 1, 1, bl_is_command, &prog, &ep) == 0)
            for (int i = 0; i < prog.n && i < MAX_STATEMENTS && !s->quit; i++) {
                const bl_stmt *st = &prog.s[i];
                if (st->kind == BL_S_CMD && heavy(st->name)) continue;
                bl_exec_stmt(s, st);
            }
        bl_program_free(&prog);
        free(src);
    }
    FILE *o = s->out;
    bl_models_free(s);
    bl_session_free(s);
    fclose(o);
    return 0;
}
