/* lexer.h - tokens of the blocklab language (DESIGN.md section 7).
 *
 *   x = randn(4, 64, 128) * 3 + 1   # comment
 *   NAME '=' NAME '(' NUM ',' NUM ',' NUM ')' '*' NUM '+' NUM  EOF
 *
 * Statements end at ';' or at a newline outside brackets; a newline inside brackets or after a
 * binary operator or '=' is plain white space (a continued line), and so is a backslash right
 * before a newline (Python's explicit line joining). Characters the language does not
 * use become BL_T_OTHER tokens so that commands can still take file names such as ~/a.bl as words;
 * the expression parser rejects them with a caret.
 */
#ifndef BL_REPL_LEXER_H
#define BL_REPL_LEXER_H

#include <stddef.h>

typedef enum {
    BL_T_EOF, BL_T_END /* ';' or newline */, BL_T_NUM, BL_T_STR, BL_T_NAME,
    BL_T_LPAREN, BL_T_RPAREN, BL_T_LBRACK, BL_T_RBRACK, BL_T_COMMA, BL_T_ASSIGN, BL_T_DOT,
    BL_T_COLON, BL_T_PLUS, BL_T_MINUS, BL_T_STAR, BL_T_SLASH, BL_T_AT, BL_T_GT, BL_T_LT,
    BL_T_LE, BL_T_GE, BL_T_EQ, BL_T_NE, BL_T_POW /* ** */, BL_T_FLOORDIV /* // */, BL_T_PERCENT,
    BL_T_IS, BL_T_ISNOT, BL_T_IN, BL_T_NOTIN /* never made by the lexer: the parser's operators
                                                `is`, `is not`, `in`, `not in` */,
    BL_T_FSTR       /* f"..." (or f'...'): str is the text between the quotes as written (the
                       parser splits it into text and {expressions}; escapes are checked) */,
    BL_T_LBRACE, BL_T_RBRACE,   /* { } of a dict */
    BL_T_BSLASH     /* a '\' that ends the input: the line continues (a '\' before a newline
                       joins the lines and makes no token, as Python's) */,
    BL_T_OTHER
} bl_tok_kind;

/* A place in the source: byte offset, 1-based line and column, length in bytes. */
typedef struct { int off, len, line, col; } bl_pos;

typedef struct {
    bl_tok_kind kind;
    bl_pos pos;
    int space_before;   /* white space (or the start) right before the token */
    int bol;            /* the first token of its line */
    int ind;            /* the indentation of its line: bl_lex_indent of the line's leading
                           white space (the first line: from the column the source starts at) */
    double num;         /* BL_T_NUM */
    char *str;          /* BL_T_STR: the unescaped text (owned); BL_T_NAME: the name (owned) */
} bl_token;

typedef struct {
    bl_token *t;
    int n, cap;
} bl_tokens;

/* Tokenize src (NUL-terminated) whose first byte is at line `line`, column `col`. Returns 0, or
 * -1 with bl_error() set and *errpos at the offending character (an unterminated string). The
 * token list always ends with BL_T_EOF; free it with bl_tokens_free. */
int bl_lex(const char *src, int line, int col, bl_tokens *out, bl_pos *errpos);
void bl_tokens_free(bl_tokens *ts);

/* The character the escape \c in a string stands for (n t r \ " '), or -1 + bl_fail naming it. */
int bl_lex_escape(char c);

/* The indentation of the line that starts at s: its leading spaces count 1, a tab moves to the
 * next multiple of 8 (as Python's tokenizer), from column col (1 for a line's start). */
int bl_lex_indent(const char *s, int col);

/* 1 when src ends inside brackets, after a binary operator or '=', or inside a block (a
 * for/while/if/def header without its `end`, or an indented block whose dedent has not come:
 * parser.h); the REPL then reads a continuation line.
 * A line ending in ',' '.' or ':' outside brackets ends the statement. An unterminated string
 * is an error, not a continuation. */
int bl_lex_incomplete(const char *src);

/* The same question asked one line at a time, for a statement read line by line: st (zeroed
 * for a new statement) keeps the open brackets and the last token, so each line is lexed once
 * (asking bl_lex_incomplete of the whole text after each line was quadratic in the lines).
 * text is one or more whole lines; returns bl_lex_incomplete of everything fed since st was
 * zeroed, or 2 when text's first line starts a new statement: it is indented less than the
 * indented blocks that were open (Python's form, `for i in xs:` and its indented lines), which
 * it closes; the caller runs what came before it and feeds text again to a zeroed st.
 * interactive (set by the prompt): a blank line closes the indented blocks, as Python's REPL. */
#define BL_LEX_BLOCKS 64
typedef struct {
    int hind;           /* its header's indentation */
    int bind;           /* its lines' indentation (>= 0), or before its first line, or ended by
                           `end` (negative: lexer.c) */
} bl_lex_block;
typedef struct {
    int depth;          /* open brackets */
    bl_tok_kind last;   /* the last token that was not a newline */
    int blocks;         /* blocks open: for/while/if/def headers not yet closed by end or a
                           dedent */
    int mid;            /* inside a statement (its first token was seen) */
    char triple;        /* inside a triple-quoted string that opened with this quote, or 0 */
    int header;         /* the statement is a block header: 1 for/while/if, 2 def, 3 elif/else */
    int colon;          /* the header's ':' was the last token */
    int interactive;    /* a blank line closes the indented blocks (the prompt) */
    int hind;           /* the indentation of the statement being read (its first line's) */
    int decor;          /* a decorator line (@torch.no_grad()) is being read (2), or was, and
                           the statement it decorates (a def) has not started yet (1): the
                           input continues */
    bl_lex_block open[BL_LEX_BLOCKS];  /* the outermost BL_LEX_BLOCKS of the blocks open */
} bl_lex_state;
int bl_lex_more(bl_lex_state *st, const char *text);

/* The display width of the first nbytes bytes of UTF-8 text s (stops at a NUL): one column per
 * code point, wcwidth() for wide (CJK: 2) and combining (0) ones when the locale knows them. Used
 * for error columns and carets; a broken sequence counts one column per byte. Wide characters
 * count 2 even in the C locale (a table of the East Asian Wide blocks). */
int bl_text_width(const char *s, int nbytes);

/* A short printable description of a token for messages ("')'", "end of line", "'foo'"). */
const char *bl_tok_desc(const bl_token *t, char *buf, size_t n);

#endif
