/* repl.h - the blocklab session: variables, evaluation, the command table and the function
 * table (DESIGN.md section 7).
 *
 * One table of commands (commands.c) and one of functions (functions.c) drive parsing, `help`,
 * tab completion, the man-page test and the handlers. Errors inside a statement are reported
 * with bl_fail() plus the source position of the offending token (bl_session_errat); the driver
 * prints them as "file:line:col: message" (scripts) or as a caret under the token (terminal),
 * and every variable keeps its value.
 */
#ifndef BL_REPL_H
#define BL_REPL_H

#include "core/graph.h"
#include "core/rng.h"
#include "repl/parser.h"
#include "repl/value.h"
#include <stdint.h>
#include <stdio.h>

typedef struct bl_session bl_session;

/* The most elements a tensor made by a statement's expression may have: 2^28 floats (1 GiB), so
 * a typo cannot exhaust memory (bl_tensor_limit while bl_exec_stmt evaluates it). */
#define BL_REPL_MAX_NUMEL ((size_t)1 << 28)

/* A string list for completion candidates. */
typedef struct {
    char **s;
    int n, cap;
} bl_strlist;
int bl_strlist_add(bl_strlist *l, const char *s);
void bl_strlist_free(bl_strlist *l);

/* Completer of a command's arguments: add the candidates that start with `prefix` for the
 * argument number argi (0 = first after the command name); `words` are the words before it.
 * Return 1 to ask for file-name completion instead. */
typedef int (*bl_completer)(bl_session *s, int argi, const char *const *words, const char *prefix,
                            bl_strlist *out);

typedef struct {
    bl_session *s;
    const bl_stmt *st;
    int n;                  /* words */
    const bl_word *w;
    bl_value *result;       /* a handler may leave a value (a table, a plot) to print/redirect */
    FILE *text;             /* the text held back by bl_cmd_text_out (repl/views.h), or NULL */
    char *text_buf;
    size_t text_size;
} bl_cmdargs;

typedef struct {
    const char *name;
    const char *synopsis;   /* "seed N" */
    const char *help;       /* a paragraph; lines separated by '\n' */
    const char *help_more;  /* text several commands share, shown after help (bl_fig_size_help), or NULL */
    bl_completer complete;
    int (*run)(bl_cmdargs *a);  /* 0, or -1 with bl_fail + bl_session_errat */
    int flags;              /* BL_CMD_RAW, and what it leaves in a->result: BL_WRITES_* */
} bl_command;

/* bl_command.flags. BL_CMD_RAW: the handler reads a->st->rest itself (no words, no '>' redirect).
 * BL_WRITES_*: the value it leaves for a '> FILE' of another type than .txt (its text, which every
 * command writes); none for a command that leaves nothing. Checked before the command runs, so
 * that a statement that cannot write its file fails having changed nothing. BL_WRITES_GPT_TEXT:
 * with a TinyGPT model it leaves its text instead (BL_WRITES_TEXT: .json). */
enum { BL_WRITES_TABLE = 1, BL_WRITES_PICTURE = 2, BL_WRITES_RUN = 3, BL_WRITES_TEXT = 4, BL_WRITES = 7,
       BL_CMD_RAW = 8, BL_WRITES_GPT_TEXT = 16 };

/* Positional and keyword arguments of a function call, evaluated. */
struct bl_callargs {
    bl_session *s;
    const char *fname;
    bl_pos pos;             /* the function name */
    int n;
    bl_value **v;
    bl_pos *vpos;
    int nk;
    const char **key;
    bl_value **kv;
    bl_pos *kpos;           /* where each keyword's value stands */
    bl_pos *kname;          /* where each keyword itself stands */
    unsigned char *kused;
    bl_tensor *tmp[16];     /* tensors converted from numbers and lists, freed after the call */
    int ntmp;
};

typedef struct {
    const char *name;
    const char *synopsis;   /* "mean(x, dim=None, keepdim=off)" */
    const char *help;
    bl_value *(*fn)(bl_callargs *a);    /* new value, or NULL + bl_fail (+ errat) */
} bl_function;
/* Text several functions share, shown after f's help (the paragraph of the reductions sum ...
 * max), or NULL. */
const char *bl_function_help_more(const bl_function *f);

/* Help topics that are neither a command nor a function ("language", "switches", ...). */
typedef struct {
    const char *name;
    const char *help;
} bl_topic;

/* Every command's entry (src/repl/cmd_NAME.c's bl_cmd_NAME_entry) in help order, then NULL. */
extern const bl_command *const bl_commands[];
extern const bl_function bl_functions[];    /* ends with a {NULL} entry */
extern const bl_function bl_grad_functions[];   /* autograd (functions_grad.c), ends with {NULL} */
extern const bl_function bl_math_functions[];   /* math (functions_math.c), ends with {NULL} */
extern const bl_function bl_loss_functions[];   /* cross_entropy, mse_loss (functions_loss.c), ends with {NULL} */
extern const bl_function bl_random_functions[]; /* rand, randint, multinomial (functions_random.c), ends with {NULL} */
extern const bl_function bl_einsum_functions[]; /* einsum (functions_einsum.c), ends with {NULL} */
extern const bl_function bl_nn_functions[];     /* relu, rms_norm, scaled_dot_product_attention, ... (functions_nn.c), ends with {NULL} */
extern const bl_function bl_tensor_functions[]; /* unsqueeze, norm, ... (functions_tensor.c), ends with {NULL} */
extern const bl_function bl_figure_functions[];   /* heatmap, lineplot (figures.c), ends with {NULL} */
extern const bl_function bl_model_functions[];    /* dit, gpt, param (modelvars.c), ends with {NULL} */
extern const bl_function bl_run_functions[];      /* run (runval.c), ends with {NULL} */
extern const bl_function bl_modellab_functions[]; /* forward, losses, grad, ... (modellab.c), ends with {NULL} */
extern const bl_function bl_io_functions[];       /* torch_save, torch_load (functions_io.c), ends with {NULL} */
extern const bl_function bl_optim_functions[];    /* SGD, Adam, AdamW, clip_grad_norm_ (optim.c), ends with {NULL} */
extern const bl_topic bl_topics[];          /* ends with a {NULL} entry */
const bl_command *bl_command_find(const char *name);
/* The command of st as typed, with its sub-command when it has one ("rope check", "plot loss";
 * "train"), in buf (n bytes); returns buf. */
const char *bl_command_typed(const bl_stmt *st, char *buf, size_t n);
/* The i-th of c's sub-commands as its synopsis lists them ("rope table|check ...": 0 table,
 * 1 check) in buf (n bytes): 1, or 0 when c has no sub-command i. */
int bl_command_sub_at(const bl_command *c, int i, char *buf, size_t n);
/* Is w one of c's sub-commands? */
int bl_command_is_sub(const bl_command *c, const char *w);
const bl_function *bl_function_find(const char *name);
/* Every function of the language, in help order, from all tables: the i-th, or NULL past the
 * last (for (i = 0; (f = bl_function_at(i)); i++)). */
const bl_function *bl_function_at(int i);
int bl_is_command(const char *name, int *raw);

/* the longest line a script may have (bytes): a longer one (a device, a binary file) is an error
 * for that line, not a reader that fills the memory */
#define BL_SCRIPT_LINE_MAX (1 << 20)
/* how deep `source` may nest */
#define BL_SOURCE_MAX 16
/* how deep calls of user functions may nest (recursion) */
#define BL_CALL_MAX 200

/* Parsed source kept alive while a function defined in it lives (its statements point into the
 * program's arena; its text and file name serve the carets of errors inside it). */
typedef struct {
    int refs;
    bl_program prog;
    char *src;              /* the text parsed, first line `line` */
    char *file;
    int line;
} bl_code;
void bl_code_unref(bl_code *c);

/* The variables of one call of a user function (lang.c): its locals (sorted names, as the
 * session's globals) and the names `global` declared in it. */
typedef struct bl_frame bl_frame;
struct bl_frame {
    bl_frame *up;
    int nvars, capvars;
    char **names;
    bl_value **vals;
    int nglobal;
    char **global;
    const bl_stmt *def;        /* the function's def: the names it assigns are its locals */
};

struct bl_session {
    int nvars, capvars;
    char **names;
    bl_value **vals;
    uint64_t seed;
    bl_rng rng;             /* randn draws; `seed N` restarts it */
    FILE *out;              /* where values and command output go (stdout or a redirect) */
    FILE *err;
    int interactive;        /* reading from a terminal */
    int keep_going;         /* -k */
    int echo;               /* -x: print each statement before its output (transcripts) */
    int quit;
    int prompt_width;       /* columns before the input on the terminal */
    const char *file;       /* current source ("<stdin>", "-e", a path) */
    const char *src;        /* the text being executed (for carets) */
    int src_line;           /* its first line number */
    bl_pos errpos;          /* where the last error was (valid when has_errpos) */
    int has_errpos;
    int error_shown;        /* the failing statement's error was shown already (in a sourced file) */
    int depth;              /* `source` nesting */
    char *chain[BL_SOURCE_MAX + 1]; /* real paths of the files in the `source` chain: [0] the
                                     * file that started it (NULL for stdin, -e), [1..depth] the
                                     * sourced ones; a file already in it is a cycle */
    char **hist;            /* statements entered, for `history` */
    int nhist, caphist;
    bl_graph *g;            /* scratch graph (recording off) for the ops the functions call */
    void *models;           /* model state (src/repl/modelvars.c) */
    int no_grad;            /* gradients are not recorded (no_grad STATEMENT; repl/autograd.h) */
    /* the language (lang.c): the code running (borrowed), the innermost call's variables, how
     * deep calls nest, the value a `return` gave */
    bl_code *code;
    bl_frame *frame;
    int calls;
    char *stack_top;        /* where the outermost call's frame is, to bound the C stack */
    bl_value *ret;
    /* where the error is (bl_session_errat): the source it points into, kept alive (a function's
     * code); and the traceback, a line per call of a user function it went through */
    const char *err_src, *err_file;
    int err_line;
    bl_code *err_code;
    char *trace;
    int trace_line;         /* the line in the caller's code of the last call the trace names */
    int trace_rep;          /* how many times its last line repeated (not yet said) */
    size_t max_numel;       /* the most elements a statement's tensor may have; 0: BL_REPL_MAX_NUMEL
                             * (a sandbox, as the fuzz targets run, sets it lower) */
};

bl_session *bl_session_new(uint64_t seed);
void bl_session_free(bl_session *s);

/* Variables. set takes a reference of its own. get returns a borrowed value or NULL. Inside a
 * user function (s->frame) get looks at its locals first, then the globals; set and del act on
 * the locals unless `global NAME` declared the name. */
int bl_session_set(bl_session *s, const char *name, bl_value *v);
bl_value *bl_session_get(bl_session *s, const char *name);
int bl_session_del(bl_session *s, const char *name);
/* Rebind name where it is bound: as bl_session_set, except that in a function a global it reads
 * (and has not assigned) is rebound as the global, as Python's xs[0] = v in a function changes
 * the global list xs. 0 or -1 + error. */
int bl_session_rebind(bl_session *s, const char *name, bl_value *v);
void bl_session_reseed(bl_session *s, uint64_t seed);
void bl_session_add_history(bl_session *s, const char *stmt);

/* Mark where the current error is. Returns -1 (NULL-returning callers use BL_ERRAT). */
int bl_session_errat(bl_session *s, bl_pos pos);
#define BL_ERRAT(s, pos) (bl_session_errat((s), (pos)), (bl_value *)NULL)

/* Run the statements in src (first line `line`) from source `file`. Returns 0, or -1 after
 * printing the error (unless keep_going, the first error stops the rest). */
int bl_exec(bl_session *s, const char *file, const char *src, int line);
/* Run a script read from f (named `name` in messages) chunk by chunk: a statement may continue
 * over lines. Returns 0, or -1 after the first error (all errors with keep_going). */
int bl_run_file(bl_session *s, const char *name, FILE *f);
/* While bl_run_file waits for standard input, call idle about once a second (MPI: rank 0 tells
 * the other ranks it lives while a person types). stdin must then be unbuffered (setvbuf
 * _IONBF), since the wait looks at the descriptor. NULL: no hook. */
void bl_script_idle(void (*idle)(void));
/* Open a script: only a regular file (core/fileio.h bl_fopen_regular), so that a folder is not
 * read as nothing and a device (source /dev/zero) is not read forever. NULL + bl_error() (the
 * reason, without the path). */
FILE *bl_open_script(const char *path);
/* Run statements given as one string (-e), with continuation lines inside it. */
int bl_run_string(bl_session *s, const char *name, const char *text);
/* Run one parsed statement (used by `time` and by blocks). 0 or -1 (error not yet printed); in
 * a loop or function body also BL_FLOW_BREAK, _CONTINUE or _RETURN (s->ret holds the value). */
int bl_exec_stmt(bl_session *s, const bl_stmt *st);
enum { BL_FLOW_BREAK = 1, BL_FLOW_CONTINUE = 2, BL_FLOW_RETURN = 3 };
/* Statements of the language itself (lang.c): def, for, while, if, return, break, continue,
 * global. As bl_exec_stmt. */
int bl_lang_stmt(bl_session *s, const bl_stmt *st);
/* Inside a user function: 1 + bl_fail when name is one of its locals (its body assigns it, or
 * loops over it, and no `global` names it) not bound yet, as Python's UnboundLocalError (the
 * global of that name is not read); 0 otherwise. */
int bl_lang_unbound_local(bl_session *s, const char *name);
/* Run the statements of a block in turn: 0, -1, or the flow code that stopped it. Stops at a
 * Ctrl-C (0: the statement it interrupted is abandoned, what ran before is kept). */
int bl_exec_block(bl_session *s, const bl_block *b);

/* Call a callable value: a user function or a handle whose type has `call`. f is called with
 * a's arguments (a->s, fname, pos set; positional and keyword arguments as call() makes them).
 * A new value, or NULL + error (a wrong, missing or unknown argument names the parameter; an
 * error inside a user function adds a traceback line, and the caret points into its source). */
bl_value *bl_call(bl_session *s, bl_value *f, bl_callargs *a);
/* The same with n positional arguments (borrowed), for C code that applies a value the user
 * passed (gradcheck(f, x)). pos: where the call stands, for the error. */
bl_value *bl_call_value(bl_session *s, bl_value *f, int n, bl_value **args, bl_pos pos);
/* t.add(col=value, ...) (parser: BL_N_METHOD): the table in variable t grows by a row; none. */
bl_value *bl_method(bl_session *s, const bl_ast *e);
/* 1 when v can be called: a function, or a handle of a callable kind. */
int bl_callable(const bl_value *v);
/* Clear the current error's position, source and traceback (after it was reported, or when it
 * was dealt with). */
void bl_session_clear_error(bl_session *s);
/* Print the current error at its position, as the mode asks. */
void bl_report_error(bl_session *s);
/* Call the callable value f (a user function, or a handle with a call hook) on n positional
 * arguments (borrowed); pos is where the call stands. New value, or NULL + error. */
bl_value *bl_call_value(bl_session *s, bl_value *f, int n, bl_value **args, bl_pos pos);
/* Evaluate an expression; new value or NULL + error. */
bl_value *bl_eval(bl_session *s, const bl_ast *e);
/* target[indices] for the BL_N_INDEX node e (index.c): a tensor's strided view (whole numbers,
 * slices a:b:c, None for a new dimension of size 1, one ... for the dimensions not named;
 * recorded for autograd), a tensor's rows picked by a tensor or list of whole numbers, a list's
 * item or slice, a list of lists indexed as the tensor it stands for. New value or NULL + error
 * at the offending index (torch / Python semantics and messages). */
bl_value *bl_index_value(bl_session *s, const bl_ast *e, bl_value *target);
/* The assignment TARGET = v where TARGET is the BL_N_INDEX node e (x[0, 1] = v, x[:, 0] = y,
 * xs[2] = v, x[i][j] = v): the value of the name at the root of e made anew with the indexed
 * part replaced, and the name rebound to it (Python's x[i] = v as x = x.index_put(...): another
 * name that held the old value keeps it). v broadcasts to the indexed region as in PyTorch; a
 * leaf that requires grad is refused while gradients are on (PyTorch's in-place error), and a
 * value that needs a gradient (or v that does) gives one recorded through the assignment. 0, or
 * -1 + error at the index or the value (nothing is rebound). */
int bl_index_assign(bl_session *s, const bl_ast *e, bl_value *v);
/* NAME = v, an assignment statement to a name (index.c): NAME op= v (W -= lr * W.grad) on a
 * tensor leaf that requires grad is torch's in-place update: refused while gradients are on (as
 * torch: a leaf Variable ... in an in-place operation), under no_grad the new value stays that
 * leaf (requires grad, its .grad kept; the shape must stay). Otherwise bl_session_set. 0 or -1 +
 * error at the statement. */
int bl_assign_name(bl_session *s, const bl_stmt *st, bl_value *v);
/* The in-place part of it: variable `name`, holding x, takes the new value v as torch's in-place
 * ops would (x.add_(y), W -= ...): a leaf that requires grad keeps being that leaf (refused while
 * gradients are on), a model's live parameter is written where it is (the model changes), a
 * non-leaf under no_grad keeps its grad_fn; otherwise name = v. 0 or -1 + error at pos. */
int bl_store_in_place(bl_session *s, const char *name, bl_value *x, bl_value *v, bl_pos pos);
/* ITEM op= v (st, an augmented assignment to x[i] of a list or dict x holding a tensor): the tensor
 * takes v where it is as bl_store_in_place says (torch's __iadd__: every name holding it sees
 * it, a model's parameter changes the model); otherwise, and for every other target, as
 * bl_index_assign. 0 or -1 + error. */
int bl_index_augment(bl_session *s, const bl_stmt *st, bl_value *v);
/* x's data = src (x's numel, or one element for all), where it is: x's version + 1, or a model's
 * parameter written (bl_lab_param_write). 0, or -1 + error. */
int bl_write_in_place(bl_value *x, const bl_tensor *src);
/* a op b for a binary operator token (BL_T_PLUS, ...), as the expression a op b evaluates it
 * (broadcasting, autograd); errors at pos. Neither is consumed. */
bl_value *bl_binop_values(bl_session *s, int op, bl_pos pos, bl_value *a, bl_value *b);
/* Python's truth of a value (bool(v)): a bool or number not 0 (nan is true), None false, a
 * string or list not empty, a function true, a tensor of one element that element; 1, 0, or -1
 * + PyTorch's "what: Boolean value of Tensor with more than one value is ambiguous" (or no
 * values), or "the condition is a table" for tables, models and runs. */
int bl_truth(const bl_value *v, const char *what);
/* The truth of a condition (if, while, x if c else y, a comprehension's if, and, or, not):
 * bl_truth of e's value; 1, 0, or -1 + the error at e. */
int bl_cond_truth(bl_session *s, const bl_ast *e, const char *what);
/* [elem for NAME in over if cond] (BL_N_COMP): a new list, NAME bound to each item of over as a
 * for loop binds it (a list's items, range(n), a tensor's rows) and put back afterwards, as
 * Python 3 keeps a comprehension's variable to itself. NULL + error. */
bl_value *bl_lang_comprehension(bl_session *s, const bl_ast *e);
/* Item i of what a for loop runs over (a list or a tensor): a list's item, a tensor's row along
 * its first dimension (a number for a 1-D tensor); a new reference, NULL + error. */
bl_value *bl_lang_item(const bl_value *v, int i);
/* a, (b, c) = v (for i, (x, y) in ...: each item): v's items, a list's or a tensor's rows,
 * matched against pattern (a LIST of NAME and LIST nodes: parser.h) as Python's unpacking; 0, or
 * -1 + ValueError (too many or not enough values) at the pattern's or the inner list's first
 * token, with none of the names changed. */
int bl_lang_unpack(bl_session *s, const bl_ast *pattern, const bl_value *v);
/* The function value of def statement d (a def's, or a lambda's one-line def): its defaults
 * evaluated now, as Python's; its source kept alive with it. NULL + error. */
bl_value *bl_lang_func(bl_session *s, const bl_stmt *d);

/* Write the value of a statement to a file (`STATEMENT > FILE`), atomically: handles with a
 * save method (figures: .png .svg .csv .json .txt) write themselves; tables and tensors go to
 * .csv/.json/.txt, any value to .txt as printed. 0 or -1 + error naming the file. */
int bl_write_value(bl_session *s, const bl_value *v, const char *path, const char *cmdline);

/* Ctrl-C: the handler sets a flag that long commands check between steps. It stays set until
 * the prompt clears it (bl_interrupt_clear), so the rest of the line, of a pasted statement list
 * or of a sourced file does not run; a script stops at it. */
void bl_interrupt_install(void);
int bl_interrupted(void);
/* How many Ctrl-C since the flag was last cleared (a third one ends the program). */
int bl_interrupt_count(void);
void bl_interrupt_clear(void);
/* A Ctrl-C the command has reported itself ("train: interrupted after step N"): the flag stays
 * set, but the prompt does not report it again. */
void bl_interrupt_reported(bl_session *s);
int bl_interrupt_was_reported(void);
/* Set the flag for a Ctrl-C that another handler caught (the dashboard's). */
void bl_interrupt_raise(void);
/* Before a message about a Ctrl-C on f: when f is a terminal that echoed ^C (with no newline)
 * and nothing has overwritten it since, end that line, so the message starts on a fresh one.
 * Nothing on a file or pipe, and at most once per Ctrl-C. */
void bl_interrupt_newline(FILE *f);
/* The echoed ^C was overwritten (a progress line redrawn from its first column). */
void bl_interrupt_echo_overwritten(void);

/* Helpers for command handlers: read a word as a number / integer in [lo, hi] / bool. Each
 * reports "cmd: ..." at the word on failure. */
int bl_word_num(bl_cmdargs *a, int i, double *x);
int bl_word_int(bl_cmdargs *a, int i, long lo, long hi, long *x);
int bl_word_bool(bl_cmdargs *a, int i, int *b);
/* Report the error at word i (at the command when there is none). Returns -1. */
int bl_word_err(bl_cmdargs *a, int i);
/* The words from index `from`: at most max_pos positional ones (*pos_i: the last, or -1), the
 * rest key=value with a key among `keys` (NULL-ended); else -1 + "cmd: unexpected 'x' (synopsis)"
 * or "cmd: unknown key 'k' (synopsis)" with the nearest key, at the word. */
int bl_word_keys(bl_cmdargs *a, int from, const char *const *keys, int max_pos, int *pos_i);
/* -1 + "cmd: too many arguments (synopsis)" at word max when there are more than max words. */
int bl_word_max(bl_cmdargs *a, int max);
/* Parse and run the statements after a raw command's name (time, no_grad); "CMD: give a
 * statement, e.g. EXAMPLE" when there are none. 0 or -1. */
int bl_cmd_run_rest(bl_cmdargs *a, const char *example);
/* key=value words. bl_opt_check: every word from index `from` is key=value with a key in `keys`
 * (NULL-ended), else -1 + "cmd: unknown key 'x' (keys: a= b=)" at the word. bl_opt_find: the
 * index of the last word key=..., or -1. bl_opt_num / bl_opt_int / bl_opt_bool: its value as a
 * number in [lo, hi] / a whole number in [lo, hi] / on|off, or def when absent; 0 or -1 + error
 * at the word. */
int bl_opt_check(bl_cmdargs *a, int from, const char *const *keys);
int bl_opt_find(bl_cmdargs *a, const char *key);
int bl_opt_num(bl_cmdargs *a, const char *key, double def, double lo, double hi, double *x);
int bl_opt_int(bl_cmdargs *a, const char *key, long def, long lo, long hi, long *x);
int bl_opt_bool(bl_cmdargs *a, const char *key, int def, int *b);
/* The length of the first sentence of a help text (up to its '.'), as `help functions` shows it. */
size_t bl_first_sentence(const char *text);
/* Complete from a NULL-terminated list of names. */
void bl_complete_from(const char *const *names, const char *prefix, bl_strlist *out);
/* Completers shared by several commands. */
int bl_complete_file(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_topic(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
int bl_complete_var(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
/* All completion candidates for `line` with the cursor at its end, whose last word is `prefix`. */
int bl_complete_line(bl_session *s, const char *line, const char *prefix, bl_strlist *out);

/* Function-argument helpers (functions.c). The i-th positional argument (or keyword `key`) as a
 * tensor: borrowed, valid until the call returns (numbers and lists are converted); as a whole
 * number in [lo, hi]; as a number. bl_kw finds a keyword argument (NULL when absent) and marks it
 * used. All report "fname: ..." at the argument and return NULL / -1. */
bl_tensor *bl_arg_tensor(bl_callargs *a, int i);
bl_tensor *bl_kw_tensor(bl_callargs *a, const char *key);
int bl_arg_int(bl_callargs *a, int i, long lo, long hi, long *x);
int bl_arg_num(bl_callargs *a, int i, double *x);
bl_value *bl_kw(bl_callargs *a, const char *key);
/* Keyword as a number / whole number / bool, with a default when absent. */
int bl_kw_num(bl_callargs *a, const char *key, double def, double *x);
int bl_kw_int(bl_callargs *a, const char *key, long def, long lo, long hi, long *x);
int bl_kw_bool(bl_callargs *a, const char *key, int def, int *b);
/* For a function that changes something (backward, step, set_param ...): -1 + "fname: unknown
 * keyword 'k' (synopsis)" at the keyword when one of the call's keywords is not in keys
 * (NULL-terminated; NULL: none taken), checked before it acts; 0 otherwise. */
int bl_kw_only(bl_callargs *a, const char *const *keys);
/* Check the number of positional arguments: lo <= n <= hi (hi < 0: any). */
int bl_nargs(bl_callargs *a, int lo, int hi);
/* torch's positional-or-keyword parameters names[0..n-1] (at most n positional arguments): v[i]
 * the value given for names[i] (positional i, or the keyword names[i]), NULL when absent or None;
 * pos[i] where it stands. -1 + "fname: NAME given twice" or bl_nargs' error. */
int bl_pos_or_kw(bl_callargs *a, const char *const *names, int n, bl_value **v, bl_pos *pos);
/* functions_io.c: entry i of dict d as a state_dict's (a string name, a tensor): 0, or -1 +
 * "who: key I is a ..." / "who: 'NAME' holds a ..., not a tensor". */
int bl_state_entry(const bl_value *d, int i, const char *who);
/* dtypes.c: torch.ATTR's dtype name ("torch.int64" for long), or NULL when ATTR is none. */
const char *bl_dtype_name(const char *attr);
/* The kind of dtype v ("torch.int64", "long", ...: 0 float, 1 integer, 2 bool), or -1 when v
 * names no dtype (no error set). */
int bl_dtype_of(const bl_value *v);
/* The dtype= keyword of a tensor factory call (tensor, zeros, ones, arange, randint, ...): *kind
 * -1 when absent, None or not a factory, else the dtype's kind for bl_dtype_apply. 0, or -1 +
 * error at the keyword for a value that is no dtype. */
int bl_dtype_arg(bl_callargs *a, int *kind);
/* r (owned) as dtype kind: an integer dtype rounds toward zero, torch.bool makes a mask, a float
 * one changes nothing (tensors hold float32). r, a copy when others hold r, or NULL + error (an
 * integer tensor that requires grad, as torch refuses it). */
bl_value *bl_dtype_apply(bl_value *r, int kind);

#endif
