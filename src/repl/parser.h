/* parser.h - the recursive-descent parser of the blocklab language.
 *
 *   program   := statement (END statement)*
 *   statement := 'def' NAME '(' params ')' '=' expr             a function in one line
 *              | 'def' NAME '(' params ')' body                  a function of statements
 *              | 'for' NAME 'in' expr body                       a loop over a list, range(n) or
 *                                                               the first dimension of a tensor
 *              | 'while' expr body
 *              | 'if' expr body ('elif' expr body)* ['else' body] (one line: `if c: a else: b`)
 *              | 'for' target 'in' expr body     each item unpacked into target's names
 *              | 'with' ('torch' '.')? 'no_grad' '(' ')' body   the body runs under no_grad
 *                                                 (inference_mode the same)
 *              | ('@' decorator END)+ 'def' ...  decorator := ['torch' '.'] ('no_grad' |
 *                                                 'inference_mode') ['(' ')']: each call of the
 *                                                 function runs its body under no_grad
 *              | 'import' module ['as' NAME] (',' ...)*         torch, torch.nn.functional as F,
 *              | 'from' module 'import' NAME ['as' NAME]       math: no-ops (repl/modules.c)
 *              | 'return' [exprs] | 'break' | 'continue'         (in a function / a loop)
 *              | 'pass' | 'assert' expr [',' expr]               AssertionError: the message
 *              | 'global' NAME (',' NAME)*                       (in a function)
 *              | COMMAND word* ['>' FILE]          a name from the command table, not followed
 *                                                 by '=' or an adjacent '('
 *              | NAME ('=' NAME)* '=' exprs        assignment (chained: each name the value)
 *              | target '=' exprs                  unpacking: the value's items, one to each name
 *                                                 (a list's, or a tensor's rows), nested ones
 *                                                 into the bracketed names
 *              | NAME ('[' index (',' index)* ']')+ '=' expr    index assignment (x[0, 1] = v):
 *                                                 the name is rebound to a new value
 *              | NAME '.' 'grad' '=' expr          x.grad = None (the value must be None)
 *              | expr ['>' FILE]                   the value is printed (or written to FILE)
 *   target    := item (',' item)* [','],  item := NAME | '(' target ')' | '[' target ']'
 *   exprs     := expr (',' expr)* [',']              several: their list (Python's tuple)
 *   expr      := test ['if' test 'else' expr]      Python's conditional expression
 *              | 'lambda' params ':' expr          a function value (a one-line def)
 *   test      := and_test ('or' and_test)*         short-circuit: the deciding operand
 *   and_test  := not_test ('and' not_test)*
 *   not_test  := 'not' not_test | comparison       a bool
 *   comparison:= sum (('<' | '<=' | '>' | '>=' | '==' | '!=' | 'is' | 'is' 'not' | 'in' |
 *                'not' 'in') sum)*              chained as Python's: a < b < c is a < b and b < c
 *                ('>' followed by one file name ending in .txt .csv .json .md .png .svg up to
 *                the end of the statement is output redirection instead: bl_redirect_exts)
 *   sum       := product (('+' | '-') product)*
 *   product   := unary (('*' | '/' | '//' | '%' | '@') unary)*
 *   unary     := '-' unary | postfix
 *   postfix   := primary ('(' args ')' | '[' index (',' index)* ']' | '.' NAME ['(' args ')'])*
 *                (a call of anything but a name calls its value: a lambda, fs[0], f(1))
 *   index     := expr | [expr] ':' [expr] [':' [expr]] | '...'     (None: a new dimension)
 *   args      := [arg (',' arg)*],  arg := NAME '=' expr | expr
 *   primary   := NUMBER | STRING | FSTRING | NAME | None | '(' expr ')' | '[' [expr (',' expr)*] ']'
 *              | '(' [expr (',' expr)* [',']] ')'   a tuple: a list (blocklab has no tuples)
 *              | '{' [expr ':' expr (',' expr ':' expr)* [',']] '}'   a dict
 *              | '[' expr 'for' NAME (',' NAME)* 'in' test ['if' test] ']'   a list comprehension
 *   params    := [NAME ['=' expr] (',' NAME ['=' expr])*]      defaults after the others
 *   body      := [':'] END block ('end' | 'elif' | 'else')       a block: lines up to its end
 *              | [':'] END INDENTED-block ['end']               Python's: its first line indented
 *                                                               deeper than the header's line, it
 *                                                               ends before a line indented less
 *                                                               than its lines (an `end` or
 *                                                               elif/else under the header follows)
 *              | ':' statement (';' statement)*                 one line: up to the line's end
 *   block     := (statement END)*
 *
 * The block keywords count only where a statement starts; keywords are not names (x = 1 may
 * not name a variable end). A one-line body (after ':') runs to the end of its line; a block's
 * header ends at its line's end (or ';'), and the block at its matching `end`, or, when its first
 * line is indented deeper than the header's (the tokens' ind, lexer.h), at the dedent; a line
 * indented deeper than its block's lines, or back to no enclosing level, is an IndentationError,
 * and so is a statement's line indented at the top level (Python's "unexpected indent").
 * FSTRING: f"text {expr} {expr:spec}" ({{ and }} are braces; the spec as format()'s: strfmt.h).
 *
 * Command words are runs of tokens without white space between them ("loss.png", "dim=64",
 * "~/a.bl"), or NAME = VALUE with white space on both sides of '='; "key=value" words carry the
 * key. A word that starts with '=', a key without a value and a key given twice are parse
 * errors at the word (raw commands excepted). Every node keeps its source position for carets.
 * All memory of a parsed program lives in one arena freed by bl_program_free.
 */
#ifndef BL_REPL_PARSER_H
#define BL_REPL_PARSER_H

#include "repl/lexer.h"

typedef enum {
    BL_N_NUM, BL_N_STR, BL_N_BOOL, BL_N_NAME, BL_N_LIST, BL_N_BINOP, BL_N_NEG, BL_N_CALL,
    BL_N_INDEX, BL_N_FIELD, BL_N_SLICE, BL_N_METHOD,
    BL_N_NONE,      /* None (or none) */
    BL_N_COND,      /* a if c else b: a in a, b in b, the condition in c */
    BL_N_COMP,      /* [a for str in b if c]: c NULL without the if; [a for x, y in b]: the
                       n names in keys (n 0 for one) */
    BL_N_ELLIPSIS,  /* ... inside [] */
    BL_N_AND, BL_N_OR,  /* a and b and ...: the operands in items (n >= 2), pos at the first
                           keyword; the value is the deciding operand, as Python's */
    BL_N_NOT,       /* not a: a bool */
    BL_N_FSTR,      /* f"...": its pieces in items, each formatted with its spec keys[i] (NULL:
                       as str() shows it; the text between the {} is a STR piece) */
    BL_N_CMPCHAIN,  /* a < b <= c: the comparisons (BINOP) in items, n >= 2, items[i]->a the
                       node items[i - 1]->b (evaluated once), true when each is */
    BL_N_LAMBDA,    /* lambda x: e: the function, a one-line def (name "<lambda>") in def */
    BL_N_DICT       /* {k: v, ...}: items key, value, key, value ... (n even) */
} bl_node_kind;

typedef struct bl_ast bl_ast;
typedef struct bl_stmt bl_stmt;
struct bl_ast {
    bl_node_kind kind;
    bl_pos pos;             /* the token that names the node (operator, name, bracket) */
    double num;             /* NUM, BOOL; CALL: 1 when it calls the builtin str whatever a variable
                               of that name holds (F.rms_norm, x.norm() beside a def rms_norm) */
    const char *str;        /* STR, NAME, CALL (function name), FIELD and METHOD (its name) */
    bl_tok_kind op;         /* BINOP */
    int file_hint;          /* BINOP '>': its right side is one word that reads as a file name
                               with an extension blocklab does not write (x > out.xyz) */
    bl_ast *a, *b;          /* BINOP operands; INDEX/FIELD/METHOD target in a; SLICE: a = start,
                               b = stop; CALL of a value, not a name ((lambda x: x)(1), fs[0](2)):
                               the callee in a, str "" */
    bl_ast *step;           /* SLICE step or NULL */
    bl_ast *c;              /* COND, COMP: the condition (COMP: or NULL) */
    int n;                  /* LIST items, CALL and METHOD args, INDEX indices */
    bl_ast **items;
    const char **keys;      /* CALL: keys[i] is the keyword of argument i or NULL; FSTR: the
                               format spec of piece i or NULL */
    bl_pos *keypos;         /* CALL: where keys[i] stands */
    bl_ast *pattern;        /* COMP: what an item is unpacked into (below), or NULL */
    const bl_stmt *def;     /* LAMBDA */
};

typedef struct {
    const char *text;       /* the word, or the value part of key=value (strings unquoted) */
    const char *key;        /* NULL unless key=value */
    bl_pos pos, vpos;       /* the whole word; the value part */
    bl_ast *expr;           /* the value written as (EXPR): evaluated when the command runs, its
                               string or number replacing text; NULL otherwise */
} bl_word;

typedef enum {
    BL_S_EXPR, BL_S_ASSIGN, BL_S_CMD,
    BL_S_DEF, BL_S_RETURN, BL_S_FOR, BL_S_WHILE, BL_S_IF, BL_S_BREAK, BL_S_CONTINUE, BL_S_GLOBAL,
    BL_S_PASS, BL_S_ASSERT,
    BL_S_WITH,      /* with torch.no_grad(): body (the only context blocklab has) */
    BL_S_IMPORT     /* import torch, import torch.nn.functional as F: the modules in params, each
                       one's `as` name in as (or NULL); checked when it runs (repl/modules.c) */
} bl_stmt_kind;

/* The statements of a block (a body, an else part). */
typedef struct {
    int n;
    bl_stmt *s;
} bl_block;

struct bl_stmt {
    bl_stmt_kind kind;
    bl_pos pos;             /* first token */
    const char *name;       /* ASSIGN target, CMD name, DEF function name, FOR loop variable (the
                               first of several: params) */
    bl_ast *target;         /* ASSIGN to an index (x[0, 1] = v): the INDEX node whose root is
                               the NAME `name`, or the FIELD node of x.grad = None; NULL for
                               NAME = expr */
    bl_ast *expr;           /* EXPR, ASSIGN; RETURN (or NULL); FOR what it runs over; WHILE, IF
                               and ASSERT the condition */
    bl_ast *msg;            /* ASSERT: the message, or NULL */
    int nwords;             /* CMD */
    bl_word *words;
    const char *rest;       /* CMD: source text after the name (for `time STATEMENT`) */
    bl_pos rest_pos;
    const char *redirect;   /* '>' FILE, or NULL */
    bl_pos redirect_pos;
    bl_ast *redirect_expr;  /* '>' (EXPR): the file name it evaluates to, when the statement runs */
    const char *text;       /* the whole statement's source text */
    bl_block body;          /* FOR, WHILE, IF, DEF (a one-line def: one RETURN), WITH; ASSIGN
                               chained (a = b = v): the assignments after the first, b = a */
    bl_block orelse;        /* IF: the else part (an elif is an IF alone in it) */
    int nparams;            /* DEF parameters, GLOBAL names; ASSIGN and FOR: the names a value is
                               unpacked into (a, b = ...; for i, x in ...), else 0; IMPORT modules */
    bl_ast *pattern;        /* ASSIGN and FOR that unpack: the target as written, a LIST of NAME
                               and LIST nodes (a, (b, c) = ...), its names those in params */
    const char **as;        /* IMPORT: each module's `as` name, or NULL */
    const char **params;
    bl_ast **defaults;      /* DEF: each parameter's default, or NULL */
    bl_pos *ppos;           /* where each parameter (name) stands */
    const char *sig;        /* DEF: "f(x, w=1)" as written */
    int no_grad;            /* DEF: decorated @torch.no_grad() (or inference_mode): each call's
                               body runs without recording gradients, as under with */
};

/* The words that start or end a block, and the rest of the language's keywords: not names. */
extern const char *const bl_keywords[];
int bl_is_keyword(const char *name);

typedef struct bl_arena bl_arena;

typedef struct {
    int n;
    bl_stmt *s;
    bl_arena *arena;
} bl_program;

/* Does this name start a command? (the command table answers; see commands.c) */
typedef int (*bl_is_command_fn)(const char *name, int *raw);

/* Parse src (first byte at line/col) into *prog. Returns 0, or -1 with bl_error() set and
 * *errpos at the offending token (prog is then empty). prog is always safe to bl_program_free. */
int bl_parse(const char *src, int line, int col, bl_is_command_fn is_cmd, bl_program *prog,
             bl_pos *errpos);
void bl_program_free(bl_program *prog);

/* The extensions that make '>' an output redirection (NULL-terminated); what each takes is
 * bl_write_value's business (repl.h). help language, the man page and README.md list them. */
extern const char *const bl_redirect_exts[];
/* The one of bl_redirect_exts that the n characters at name end in, in any case ("x.PNG" ->
 * ".png"); NULL when none (the extension alone is no file name). */
const char *bl_redirect_ext_of(const char *name, size_t n);

/* 1 when st redirects its output ('>' FILE) to a file whose name ends in ext (".txt", ...), in
 * any case, as '>' itself matches the extensions; 0 otherwise (no redirect, another type). */
int bl_stmt_redirects_to(const bl_stmt *st, const char *ext);

/* Whether NAME = ... may bind s: a name as the lexer reads one (a letter or _, then letters,
 * digits and _) other than the constants true, false, on, off, True, False, None and none. Command and function names
 * are names too (`train = 3`: a line that starts with train runs the command, so such a
 * variable is read inside an expression, as (train) or train.params). load ... name=NAME takes
 * exactly these. 1 or 0; *constant says which rule refused it. */
int bl_name_assignable(const char *s, int *constant);

#endif
