/* cmd_source.c - `source FILE`: run a script's statements here, found beside the sourcing
 * script when not here, refusing cycles and nesting deeper than BL_SOURCE_MAX. */
#include "repl/repl.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmd_source(bl_cmdargs *a)
{
    if (a->n != 1) {
        bl_fail("source: expected one file name (source FILE)");
        return a->n ? bl_word_err(a, 1) : -1;
    }
    /* a relative name missing here is looked up beside the script that sources it, so
     * `blocklab -f examples/x.bl` works from any folder */
    const char *path = a->w[0].text, *cur = a->s->file, *slash = cur ? strrchr(cur, '/') : NULL;
    char beside[4096];
    struct stat sb;
    if (path[0] != '/' && stat(path, &sb) != 0 && slash &&
        snprintf(beside, sizeof beside, "%.*s/%s", (int)(slash - cur), cur, path) < (int)sizeof beside &&
        stat(beside, &sb) == 0)
        path = beside;
    /* a cycle is refused before anything in it runs again: the file running now, or one further
     * up the chain, sources itself */
    bl_session *ss = a->s;
    if (ss->depth == 0) {
        free(ss->chain[0]);
        ss->chain[0] = cur ? realpath(cur, NULL) : NULL;
    }
    char *self = realpath(path, NULL);
    for (int i = ss->depth; self && i >= 0; i--)
        if (ss->chain[i] && !strcmp(ss->chain[i], self)) {
            if (i == ss->depth) bl_fail("source: %s sources itself", a->w[0].text);
            else bl_fail("source: %s is already running (files that source each other)", a->w[0].text);
            free(self);
            return bl_word_err(a, 0);
        }
    if (ss->depth >= BL_SOURCE_MAX) {
        free(self);
        bl_fail("source: files nested more than %d deep", BL_SOURCE_MAX);
        return bl_word_err(a, 0);
    }
    FILE *f = bl_open_script(path);
    if (!f) {
        free(self);
        bl_error_prefix("source: %s", a->w[0].text);
        return bl_word_err(a, 0);
    }
    ss->chain[++ss->depth] = self;
    int rc = bl_run_file(ss, path, f);
    free(ss->chain[ss->depth]);
    ss->chain[ss->depth--] = NULL;
    fclose(f);
    if (rc < 0) {
        /* the error inside the file has been shown, at its FILE:LINE:COL: one error, one line */
        a->s->error_shown = 1;
        return -1;
    }
    return 0;
}

static const char help[] =
    "Run the statements of a script file here.\n"
    "They run as if typed; the file stops at its first error, shown once at its\n"
    "FILE:LINE:COL. Files nest at most 16 deep.";

const bl_command bl_cmd_source_entry = {
    .name = "source",
    .synopsis = "source FILE",
    .help = help,
    .complete = bl_complete_file,
    .run = cmd_source,
};
