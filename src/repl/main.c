/* main.c - the blocklab program: options, the interactive loop, scripts. */
#include "config.h"
#include "repl/line.h"
#include "repl/modelvars.h"
#include "repl/repl.h"
#include "core/blas.h"
#include "core/error.h"
#include "core/fileio.h"
#include "dist/dist.h"
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROMPT "bl> "
#define PROMPT2 "... "

static void usage(FILE *out)
{
    fputs("usage: blocklab [options] [SCRIPT]\n"
          "An interactive lab for the parts of a transformer block (man blocklab).\n"
          "\n"
          "  -f, --file SCRIPT    run the statements in SCRIPT (- for standard input); may be\n"
          "                       repeated\n"
          "  -e, --eval STMTS     run STMTS ('x = randn(2, 3); x * 2'); may be repeated\n"
          "  -k, --keep-going     go on after an error (the exit status is still 1)\n"
          "  -q, --quiet          no banner\n"
          "  -x, --echo           print each statement before its output (a transcript)\n"
          "  -n, --no-rc          do not run the startup file at an interactive start\n"
          "  -s, --seed N         start the random generator from N (default 0)\n"
          "      --mpi            start MPI even without a launcher's environment (mpirun -np N\n"
          "                       blocklab starts it by itself): rank 0 reads, every rank runs\n"
          "                       each statement; compare spreads its runs, train its batch\n"
          "  -h, --help           this text\n"
          "  -V, --version        the version, and what multiplies the matrices\n"
          "\n"
          "The -e strings and scripts (-f and SCRIPT) run in the order given, in one session.\n"
          "Without SCRIPT, -f or -e, blocklab reads standard input: a prompt with line editing,\n"
          "history and tab completion on a terminal, a script otherwise. Errors in scripts are\n"
          "printed as FILE:LINE:COLUMN: message (-e#N:LINE:COLUMN for the Nth -e) and stop the\n"
          "run with exit status 1.\n"
          "An interactive start first runs the startup file ~/.blocklabrc\n"
          "($XDG_CONFIG_HOME/blocklab/blocklabrc when XDG_CONFIG_HOME is set), unless -n.\n", out);
}

/* Run the statement the prompt read (buf: its lines joined by '\n'; block: it is a block, whose
 * newlines matter): it enters the history once, as `history N` shows it. */
static void run_input(bl_session *s, const char *buf, int block)
{
    /* a block keeps its lines (an entry of several lines) */
    char *h = strdup(buf);
    if (h) {
        int comment = strchr(h, '#') != NULL || block;
        for (char *p = h; !comment && *p; p++)
            if (*p == '\n') *p = ' ';
        bl_line_add_history(h);
    }
    bl_session_add_history(s, h ? h : buf);
    free(h);
    bl_interrupt_clear();
    bl_dist_share("<input>", buf, 1);      /* MPI: every rank runs it */
    bl_exec(s, "<input>", buf, 1);
    /* Ctrl-C: the rest of the line did not run (repl.h); said once, on a line of its own */
    if (bl_interrupted()) {
        if (!bl_interrupt_was_reported()) {
            bl_interrupt_newline(stderr);
            fprintf(stderr, "interrupted\n");
        }
        bl_interrupt_newline(stdout);   /* a report that went to a file: the prompt below ^C */
        bl_interrupt_clear();
    }
}

/* The interactive loop: a second prompt while the statement is unfinished. An indented block
 * (Python's form) ends at a blank line, or at a line indented as its header: that line starts
 * the next statement. */
static void interactive(bl_session *s, int quiet)
{
    bl_line_init(s);
    if (!quiet)
        printf("blocklab %s - transformer block lab. help lists the commands, Tab completes,\n"
               "quit or Ctrl-D leaves.\n", PACKAGE_VERSION);
    s->prompt_width = (int)strlen(PROMPT);
    char *buf = NULL;
    size_t len = 0;
    bl_lex_state ls = { .interactive = 1 };
    int block = 0;      /* the statement is a block (for ... end): its newlines matter */
    while (!s->quit) {
        char *line;
        int r = bl_line_read(len ? PROMPT2 : PROMPT, &line);
        if (r == BL_LINE_EOF) {
            if (!len) break;
            /* Ctrl-D inside an unfinished statement: run what is there (the parser reports) */
            line = strdup("");
            if (!line) break;
        } else if (r == BL_LINE_INTERRUPTED) {
            free(buf);
            buf = NULL;
            len = 0;
            ls = (bl_lex_state){ .interactive = 1 };
            block = 0;
            continue;
        }
        size_t n = strlen(line);
        char *nb = realloc(buf, len + n + 2);
        if (!nb) {
            free(line);
            break;
        }
        buf = nb;
        int more = r != BL_LINE_EOF ? bl_lex_more(&ls, line) : 0;
        if (more == 2) {
            /* a line indented as the open block's header: the block is a statement of its own */
            run_input(s, buf, 1);
            len = 0;
            block = 0;
            ls = (bl_lex_state){ .interactive = 1 };
            more = bl_lex_more(&ls, line);
            if (s->quit) {
                free(line);
                break;
            }
        }
        if (len) buf[len++] = '\n';
        memcpy(buf + len, line, n + 1);
        len += n;
        block |= ls.blocks > 0 || ls.triple;     /* a string's newlines matter too */
        free(line);
        if (more) continue;
        ls = (bl_lex_state){ .interactive = 1 };
        /* a blank line that closed an indented block ends it: not part of the statement */
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t')) buf[--len] = '\0';
        if (len) run_input(s, buf, block);
        free(buf);
        buf = NULL;
        len = 0;
        block = 0;
    }
    free(buf);
    bl_line_close();
}

/* What the command line asks to run, in its order: -e strings and scripts (-f, SCRIPT). */
typedef struct {
    const char *arg;
    int file;
} source;

/* Run the script at path ("-": standard input); errors are reported, -1 then. */
static int run_script(bl_session *s, const char *path)
{
    if (!strcmp(path, "-")) return bl_run_file(s, "<stdin>", stdin);
    FILE *f = bl_open_script(path);
    if (!f) {
        fflush(stdout);     /* after what the -e strings before it printed */
        fprintf(stderr, "blocklab: %s: %s\n", path, bl_error());
        return -1;
    }
    int rc = bl_run_file(s, path, f);
    fclose(f);
    return rc;
}

/* The startup file (~/.blocklabrc, or $XDG_CONFIG_HOME/blocklab/blocklabrc when set) in buf;
 * NULL when there is no home to look in. */
static const char *rc_path(char *buf, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) snprintf(buf, n, "%s/blocklab/blocklabrc", xdg);
    else if (home && *home) snprintf(buf, n, "%s/.blocklabrc", home);
    else return NULL;
    return buf;
}

/* What option a (-e, --eval, ...) takes as its value, as an error names it; NULL for one that
 * takes none or is unknown. */
static const char *option_value(const char *a)
{
    static const char *const opts[][3] = {
        { "-e", "--eval", "a statement to run" },
        { "-f", "--file", "a script file" },
        { "-s", "--seed", "a whole number" },
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strcmp(a, opts[i][0]) || !strcmp(a, opts[i][1])) return opts[i][2];
    return NULL;
}

int main(int argc, char **argv)
{
    /* OpenBLAS's fast kernels on CPUs Debian's 0.3.21 does not know, and a short libgomp spin:
     * may re-execute the program once, before anything is read (core/blas.h) */
    bl_blas_pick_kernel(argv);
    const char *gemm = getenv("BLOCKLAB_GEMM");
    if (gemm && *gemm && bl_gemm_set_backend(gemm) < 0)
        fprintf(stderr, "blocklab: BLOCKLAB_GEMM: %s; using %s\n", bl_error(), bl_gemm_backend());
    int quiet = 0, keep = 0, echo = 0, nsrc = 0, rc = 0, no_rc = 0, mpi = 0;
    const char *file = NULL;    /* the SCRIPT argument (one at most) */
    source *srcs = calloc((size_t)argc, sizeof *srcs);
    unsigned long long seed = 0;
    if (!srcs) return 2;
    /* the terminal's character set (ncurses and the half-block pictures need UTF-8), but numbers
     * are always read and written with a decimal point */
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(srcs);
            return 0;
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            char what[256];
            printf("blocklab %s\n%s\n", PACKAGE_VERSION, bl_blas_describe(what, sizeof what));
            free(srcs);
            return 0;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "-k") || !strcmp(a, "--keep-going")) {
            keep = 1;
        } else if (!strcmp(a, "-n") || !strcmp(a, "--no-rc")) {
            no_rc = 1;
        } else if (!strcmp(a, "--mpi")) {
            mpi = 1;
        } else if (!strcmp(a, "-x") || !strcmp(a, "--echo")) {
            echo = 1;
        } else if ((!strcmp(a, "-f") || !strcmp(a, "--file")) && more) {
            srcs[nsrc++] = (source){ argv[++i], 1 };
        } else if ((!strcmp(a, "-e") || !strcmp(a, "--eval")) && more) {
            srcs[nsrc++] = (source){ argv[++i], 0 };
        } else if ((!strcmp(a, "-s") || !strcmp(a, "--seed")) && more) {
            char *end;
            errno = 0;
            seed = strtoull(argv[++i], &end, 10);
            if (*end || errno || argv[i][0] == '-') {
                fprintf(stderr, "blocklab: --seed expects a whole number, got '%s'\n", argv[i]);
                free(srcs);
                return 2;
            }
        } else if (a[0] == '-' && a[1] && option_value(a)) {   /* the last argument */
            fprintf(stderr, "blocklab: %s needs a value (%s)\n", a, option_value(a));
            free(srcs);
            return 2;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "blocklab: unknown option '%s'\n", a);
            usage(stderr);
            free(srcs);
            return 2;
        } else if (!file) {
            file = a;
            srcs[nsrc++] = (source){ a, 1 };
        } else {
            fprintf(stderr, "blocklab: one script at a time ('%s' and '%s')\n", file, a);
            free(srcs);
            return 2;
        }
    }
    /* under an MPI launcher (or --mpi): after the options (-h and -V need no MPI) */
    int dist = bl_dist_init(&argc, &argv, mpi);
    if (dist < 0) {
        if (dist == -1 && bl_dist_rank() == 0) fprintf(stderr, "blocklab: %s\n", bl_error());   /* once, not N times */
        free(srcs);
        return 2;
    }
    /* mpirun's pseudo-terminal is not the person's: plain progress lines, no colours */
    if (bl_dist_on()) bl_terminal_distrust(1);
    bl_session *s = bl_session_new(seed);
    if (!s) {
        fprintf(stderr, "blocklab: %s\n", bl_error());
        free(srcs);
        return 2;
    }
    s->keep_going = keep;
    s->echo = echo;
    bl_models_init(s);
    bl_interrupt_install();
    if (bl_dist_rank() > 0) {
        /* the other ranks run what rank 0 sends; rank 0 alone prints and writes files
         * (BLOCKLAB_MPI_VERBOSE=1 keeps their output, for finding a rank that goes its own way) */
        bl_dist_quiet();
        bl_fileio_discard(1);
        bl_dist_follow(s);     /* rank 0's exit status is the job's: this rank ends with 0 */
        rc = 0;
        bl_models_free(s);
        bl_session_free(s);
        free(srcs);
        bl_dist_finalize(rc);
        return rc;
    }
    for (int i = 0, ne = 0; i < nsrc && !s->quit && !bl_interrupted(); i++) {
        /* errors name the string: -e#2:1:6 is line 1, column 6 of the second -e */
        char name[32];
        if (!srcs[i].file) snprintf(name, sizeof name, "-e#%d", ++ne);
        if ((srcs[i].file ? run_script(s, srcs[i].arg) : bl_run_string(s, name, srcs[i].arg)) < 0) {
            rc = 1;
            if (!keep) break;
        }
    }
    if (nsrc == 0) {
        /* several ranks (srun --pty gives rank 0 a terminal): no line editor, whose wait for a
         * key would leave the other ranks without word from rank 0 (dist.h) */
        if (isatty(STDIN_FILENO) && bl_dist_size() < 2) {
            s->interactive = 1;
            /* the startup file, as redis-cli and gnuplot read theirs: its errors are shown, the
             * session starts anyway; a missing one is no error */
            char path[4200];
            struct stat st;
            if (!no_rc && rc_path(path, sizeof path) && stat(path, &st) == 0) {
                run_script(s, path);
                bl_interrupt_clear();
            }
            interactive(s, quiet);
        } else {
            if (bl_dist_size() > 1) {
                /* under mpirun, rank 0's standard input is a pipe even at a terminal: a person
                 * may be typing, so an error does not end the session (scripts: -f), and the
                 * other ranks hear that rank 0 lives while it waits for the next line */
                s->keep_going = 1;
                setvbuf(stdin, NULL, _IONBF, 0);
                bl_script_idle(bl_dist_alive);
            }
            if (bl_run_file(s, "<stdin>", stdin) < 0) rc = 1;
        }
    }
    if (bl_interrupted() && !s->interactive) {
        bl_interrupt_newline(stderr);
        fprintf(stderr, "blocklab: interrupted\n");
        rc = 130;
    }
    bl_dist_end(rc);
    bl_models_free(s);
    bl_session_free(s);
    free(srcs);
    bl_dist_finalize(rc);
    return rc;
}
