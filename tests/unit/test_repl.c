/* test_repl.c - the REPL's lexer, parser positions, evaluation, printing, completion, writers,
 * and the rule that every command and function has help text and a man-page entry. */
#include "../check.h"
#include "ckpt_testutil.h"
#include "repl_testutil.h"
#include "core/error.h"
#include "repl/lexer.h"
#include "repl/modelvars.h"
#include "repl/parser.h"
#include "repl/repl.h"
#include "repl/trainstate.h"
#include "train/safetensors.h"
#include "viz/progress.h"
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *src)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    int rc = run_in(s, src);
    bl_models_free(s);
    bl_session_free(s);
    return rc;
}

BL_TEST(lexer_tokens_and_positions)
{
    bl_tokens ts;
    bl_pos ep;
    CHECK(bl_lex("x = 1.5e-3 + y[0, :]  # c\nz", 1, 1, &ts, &ep) == 0, "lex failed: %s", bl_error());
    static const bl_tok_kind want[] = { BL_T_NAME, BL_T_ASSIGN, BL_T_NUM, BL_T_PLUS, BL_T_NAME,
                                        BL_T_LBRACK, BL_T_NUM, BL_T_COMMA, BL_T_COLON, BL_T_RBRACK,
                                        BL_T_END, BL_T_NAME, BL_T_EOF };
    CHECK(ts.n == 13, "%d tokens", ts.n);
    for (int i = 0; i < ts.n && i < 13; i++) CHECK(ts.t[i].kind == want[i], "token %d kind %d", i, ts.t[i].kind);
    CHECK_CLOSE(ts.t[2].num, 1.5e-3, 1e-12);
    CHECK(ts.t[2].pos.col == 5 && ts.t[2].pos.len == 6, "number at col %d len %d", ts.t[2].pos.col, ts.t[2].pos.len);
    CHECK(ts.t[11].pos.line == 2 && ts.t[11].pos.col == 1, "z at %d:%d", ts.t[11].pos.line, ts.t[11].pos.col);
    bl_tokens_free(&ts);
    /* a newline inside brackets or after an operator is white space */
    CHECK(bl_lex("f(1,\n2) +\n3", 1, 1, &ts, &ep) == 0, "lex");
    int ends = 0;
    for (int i = 0; i < ts.n; i++) ends += ts.t[i].kind == BL_T_END;
    CHECK(ends == 0, "%d statement ends", ends);
    bl_tokens_free(&ts);
    CHECK(bl_lex("s = \"open", 3, 1, &ts, &ep) < 0, "unterminated string accepted");
    CHECK_ERR("unterminated string");
    CHECK(ep.line == 3 && ep.col == 5, "error at %d:%d", ep.line, ep.col);
    /* strings keep escapes; "0x10" is a number 0 then a name, not hexadecimal */
    CHECK(bl_lex("'a\\'b' 0x10", 1, 1, &ts, &ep) == 0, "lex");
    CHECK(ts.t[0].kind == BL_T_STR && !strcmp(ts.t[0].str, "a'b"), "string %s", ts.t[0].str);
    CHECK(ts.t[1].kind == BL_T_NUM && ts.t[1].num == 0 && ts.t[2].kind == BL_T_NAME, "0x10 lexed as hex");
    bl_tokens_free(&ts);
    /* an unknown escape is an error at its backslash, naming the known ones */
    CHECK(bl_lex("s = \"a\\qb\"", 2, 1, &ts, &ep) < 0, "unknown escape accepted");
    CHECK_ERR("unknown escape '\\q' in a string (known: \\n \\t");
    CHECK(ep.line == 2 && ep.col == 7, "escape error at %d:%d", ep.line, ep.col);
    /* columns are display columns: "\xc3\xa9" (e acute) is one, a CJK character two
     * (in any locale) */
    CHECK(bl_text_width("a\xc3\xa9" "b", 4) == 3, "width %d", bl_text_width("a\xc3\xa9" "b", 4));
    CHECK(bl_lex("\"\xc3\xa9\xc3\xa9\" + x", 1, 1, &ts, &ep) == 0, "lex");
    CHECK(ts.t[1].pos.col == 6 && ts.t[2].pos.col == 8, "+ at col %d, x at %d", ts.t[1].pos.col, ts.t[2].pos.col);
    bl_tokens_free(&ts);
    CHECK(bl_text_width("\xe6\x97\xa5x", 4) == 3, "CJK width %d", bl_text_width("\xe6\x97\xa5x", 4));
}

BL_TEST(incomplete_lines)
{
    CHECK(bl_lex_incomplete("x = randn(4,"), "open bracket");
    CHECK(bl_lex_incomplete("x = [1, [2"), "nested brackets");
    CHECK(bl_lex_incomplete("y = 1 +"), "trailing operator");
    CHECK(bl_lex_incomplete("y = 1 +   # comment"), "operator before a comment");
    CHECK(!bl_lex_incomplete("y = (1 + 2)"), "closed");
    CHECK(bl_lex_incomplete("y = 7 //") && bl_lex_incomplete("y = 7 %"), "// and %% continue as / does");
    CHECK(!bl_lex_incomplete("y = 1 if c else 2") && !bl_lex_incomplete("x[0, 1] = 5"), "a conditional, an index assignment");
    CHECK(!bl_lex_incomplete("ys = [k for k in xs if k]"), "a comprehension opens no block");
    CHECK(!bl_lex_incomplete("plot loss > loss.png"), "redirect");
    CHECK(!bl_lex_incomplete("s = \"(\""), "bracket in a string");
    CHECK(!bl_lex_incomplete("s = 'open"), "an unterminated string is an error, not a continuation");
}

/* Columns are counted from the previous token, not from the line's start (a long line was
 * quadratic): on every line, after wide and multi-byte tokens, they are the display columns. */
BL_TEST(lexer_columns_on_long_lines)
{
    bl_tokens ts;
    bl_pos ep;
    /* "\xc3\xa9" is one column, "\xe6\x97\xa5" two, an unknown character one */
    const char *src = "x = [\"\xc3\xa9\", \xe6\x97\xa5, \xc2\xa7,  22]  # \xe6\x97\xa5\n"
                      "  \xe6\x97\xa5 y;z";
    CHECK(bl_lex(src, 4, 3, &ts, &ep) == 0, "lex: %s", bl_error());
    static const int want[][2] = { { 4, 3 }, { 4, 5 }, { 4, 7 }, { 4, 8 }, { 4, 11 }, { 4, 13 },
                                   { 4, 15 }, { 4, 17 }, { 4, 18 }, { 4, 21 }, { 4, 23 },
                                   { 4, 30 }, { 5, 3 }, { 5, 6 }, { 5, 7 }, { 5, 8 }, { 5, 9 } };
    CHECK(ts.n == 17, "%d tokens", ts.n);
    for (int i = 0; i < ts.n && i < 17; i++)
        CHECK(ts.t[i].pos.line == want[i][0] && ts.t[i].pos.col == want[i][1],
              "token %d at %d:%d, not %d:%d", i, ts.t[i].pos.line, ts.t[i].pos.col, want[i][0], want[i][1]);
    bl_tokens_free(&ts);
}

/* bl_lex_more, fed a statement one line at a time, answers as bl_lex_incomplete of all the lines
 * fed so far (the script reader asks it after every line instead of re-lexing the statement) */
BL_TEST(incomplete_line_by_line)
{
    static const char *const lines[][5] = {
        { "x = f(1,\n", "  [2,\n", "3])\n", NULL },
        { "y = 1 +\n", "# a comment\n", "\n", "2\n", NULL },
        { "z = (1\n", ")) +\n", "1\n", NULL },
        { "a = 1; b =\n", "2; c = 3\n", NULL },
        { "s = [\"(\",\n", "'open\n", NULL },
        { "w = 1 *", "\n", NULL },
    };
    for (size_t c = 0; c < sizeof lines / sizeof *lines; c++) {
        char all[256] = "";
        bl_lex_state st = { 0 };
        for (int i = 0; lines[c][i]; i++) {
            strcat(all, lines[c][i]);
            int more = bl_lex_more(&st, lines[c][i]);
            CHECK(more == bl_lex_incomplete(all), "case %zu line %d: %d for \"%s\"", c, i, more, all);
        }
    }
    bl_lex_state st = { 0 };
    CHECK(bl_lex_more(&st, "x = [1,\n") && bl_lex_more(&st, "2,\n") && !bl_lex_more(&st, "3]\n"),
          "a list over three lines");
}

static bl_pos parse_err(const char *src)
{
    bl_program p;
    bl_pos ep = { 0, 0, 0, 0 };
    int rc = bl_parse(src, 1, 1, bl_is_command, &p, &ep);
    CHECK(rc < 0, "'%s' parsed", src);
    bl_program_free(&p);
    return ep;
}

BL_TEST(parser_statements_and_error_positions)
{
    bl_program p;
    bl_pos ep;
    CHECK(bl_parse("seed 5; seed = 3; x = mean(y, dim=-1) > out.csv; set norm=rmsnorm qk_norm = on > a.txt",
                   1, 1, bl_is_command, &p, &ep) < 0, "an assignment cannot be redirected");
    CHECK(bl_parse("seed 5; seed = 3; mean(y, dim=-1) > out.csv; set norm=rmsnorm qk_norm = on > a.txt; a > 0",
                   1, 1, bl_is_command, &p, &ep) == 0, "parse: %s", bl_error());
    CHECK(p.n == 5, "%d statements", p.n);
    CHECK(p.s[0].kind == BL_S_CMD && p.s[0].nwords == 1 && !strcmp(p.s[0].words[0].text, "5"), "seed 5");
    CHECK(p.s[1].kind == BL_S_ASSIGN && !strcmp(p.s[1].name, "seed"), "seed = 3 assigns");
    CHECK(p.s[2].kind == BL_S_EXPR && p.s[2].redirect && !strcmp(p.s[2].redirect, "out.csv"), "redirect");
    CHECK(p.s[2].expr->kind == BL_N_CALL && p.s[2].expr->n == 2 && p.s[2].expr->keys[1] &&
          !strcmp(p.s[2].expr->keys[1], "dim"), "keyword argument");
    const bl_stmt *set = &p.s[3];
    CHECK(set->nwords == 2 && !strcmp(set->words[0].key, "norm") && !strcmp(set->words[0].text, "rmsnorm") &&
          !strcmp(set->words[1].key, "qk_norm") && !strcmp(set->words[1].text, "on"), "set words");
    CHECK(set->redirect && !strcmp(set->redirect, "a.txt"), "command redirect");
    CHECK(p.s[4].kind == BL_S_EXPR && p.s[4].expr->kind == BL_N_BINOP && p.s[4].expr->op == BL_T_GT,
          "'> 0' is a comparison");
    bl_program_free(&p);
    bl_pos e;
    /* command words: KEY = VALUE with white space on both sides is one word; a lone side is
     * refused, as are a key without a value and a key given twice (every command, one place) */
    e = parse_err("set norm =rmsnorm");
    CHECK(e.col == 10, "col %d", e.col);
    CHECK_ERR("set: '=' without a key before it");
    e = parse_err("set norm= rmsnorm");
    CHECK(e.col == 5, "col %d", e.col);
    CHECK_ERR("set: norm= without a value");
    e = parse_err("x = 1; train 5 quiet=on quiet=off");
    CHECK(e.col == 25, "col %d", e.col);
    CHECK_ERR("train: key 'quiet' given twice");
    e = parse_err("attn layer=0 layer = 1");
    CHECK(e.col == 14, "col %d", e.col);
    CHECK_ERR("attn: key 'layer' given twice");
    e = parse_err("x = (1 + 2]");
    CHECK(e.col == 11, "mismatched bracket at col %d", e.col);
    CHECK_ERR("'(' at column 5 is open");
    e = parse_err("y = 1 2");
    CHECK(e.col == 7, "col %d", e.col);
    e = parse_err("f(a=1, 2)");
    CHECK(e.col == 8, "col %d", e.col);
    CHECK_ERR("positional argument after a keyword");
    e = parse_err("f(x)[1] = 2");    /* x[1] = 2 rebinds x; a call's result is no name */
    CHECK(e.col == 9, "col %d", e.col);
    CHECK_ERR("can only assign to a name or to an index of one");
    e = parse_err("a <\n b $ c");
    CHECK(e.line == 2 && e.col == 4, "'$' on a continued line at %d:%d", e.line, e.col);
    /* the Python forms' errors: each where it stands (line 0: the first), with its message */
    static const struct { const char *src; int line, col; const char *msg; } py[] = {
        { "x = 1\n  y = 2", 2, 3, "IndentationError: unexpected indent" },   /* Python's */
        { "s = f\"a {x +} b\"", 0, 13, "expected a value" },     /* inside an f-string: in the line */
        { "s = f\"a {x:.2f b\"", 0, 17, "f-string: expected '}' to close the '{'" },
        { "s = f\"a } b\"", 0, 9, "f-string: a single '}'" },
        { "with open(\"f\"):\n    pass", 0, 6, "blocklab has one context, `with torch.no_grad():`" },
        { "a = f(x) = 1", 0, 10, "a chained assignment takes names" },
        { "a, (b, b) = 1, (2, 3)", 0, 8, "this name is given twice" },
        { "x = 1 + \\", 0, 9, "expected a value" },     /* a backslash that ends the input */
    };
    for (size_t i = 0; i < sizeof py / sizeof *py; i++) {
        e = parse_err(py[i].src);
        CHECK(e.line == (py[i].line ? py[i].line : 1) && e.col == py[i].col, "'%s': error at %d:%d", py[i].src,
              e.line, e.col);
        CHECK_ERR(py[i].msg);
    }
    e = parse_err("3 $ 4");
    CHECK(e.col == 3, "col %d", e.col);
    CHECK_ERR("character '$'");
}

BL_TEST(eval_values_and_errors)
{
    const char *bad = "x = 1; 7 + * 2";
    CHECK(run(bad) < 0, "+ * accepted");
    CHECK(!strcmp(errbuf, "t:1:12: expected a value, found '*'\n"), "error: %s", errbuf);
    CHECK(outbuf[0] == '\0', "a line with a syntax error ran: %s", outbuf);
    CHECK(run("x = tensor([[1, 2], [3, 4]]); x * 2 - 1; x @ x; x[1]; x[:, 1]; x.T") == 0, "%s", errbuf);
    const char *want =
        "tensor([[1., 3.],\n        [5., 7.]], shape=[2, 2], dtype=float32)\n"
        "tensor([[ 7., 10.],\n        [15., 22.]], shape=[2, 2], dtype=float32)\n"
        "tensor([3., 4.], shape=[2], dtype=float32)\n"
        "tensor([2., 4.], shape=[2], dtype=float32)\n"
        "tensor([[1., 3.],\n        [2., 4.]], shape=[2, 2], dtype=float32)\n";
    CHECK(!strcmp(outbuf, want), "output:\n%s", outbuf);
    /* the first error stops a script; -k goes on; values stay */
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "a = 1\nb = a + nope\nc = 3") < 0, "error not reported");
    CHECK(bl_session_get(s, "c") == NULL, "ran past the error");
    CHECK(!strcmp(errbuf, "t:2:9: unknown name 'nope'\n"), "error: %s", errbuf);
    s->keep_going = 1;
    CHECK(run_in(s, "a = randn(100000, 100000, 100)\nc = 3") < 0, "absurd size accepted");
    CHECK(strstr(errbuf, "t:1:11: randn: shape [100000, 100000, 100] has 1000000000000 elements") != NULL,
          "error: %s", errbuf);
    CHECK(bl_session_get(s, "a") && bl_session_get(s, "a")->num == 1, "a changed");
    CHECK(bl_session_get(s, "c") != NULL, "-k did not go on");
    /* the same limit for every tensor an expression makes: broadcasting, @; refused before any
     * memory is taken, the session keeps its values, and commands (models, data) are not limited */
    CHECK(run_in(s, "a = ones(20000, 1) + ones(1, 20000)\nb = ones(16384, 1) @ ones(1, 16385)\nb = zeros(268435457)") < 0 &&
          !strcmp(errbuf, "t:1:20: tensor: shape [20000, 20000] has 400000000 elements (1.49 GiB of float32), more than "
                          "the 268435456 (1 GiB) a tensor may have\n"
                          "t:2:20: tensor: shape [16384, 16385] has 268451840 elements (1.00 GiB of float32), more than "
                          "the 268435456 (1 GiB) a tensor may have\n"
                          "t:3:11: zeros: shape [268435457] has 268435457 elements (1.00 GiB of float32), more than "
                          "the 268435456 (1 GiB) a tensor may have\n"), "error: %s", errbuf);
    CHECK(bl_session_get(s, "a")->num == 1 && !bl_session_get(s, "b"), "a or b changed");
    CHECK(bl_tensor_limit(0) == BL_MAX_NUMEL, "the expression's limit outlived it");
    /* numbers print with 6 significant digits, whole numbers exactly, a negative zero as -0 (as
     * help says round(-0.5) is, and tensors print -0.; it printed 0) */
    CHECK(run_in(s, "1/3; 1152176; 2 > 1; [1, \"a\"]; round(2.71828, 2); -0 * 1; round(-0.5); "
                    "print(-0.0, [-0.0, 0])") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "0.333333\n1152176\ntrue\n[1, \"a\"]\n2.72\n-0\n-0\n-0 [-0, 0]\n"), "output:\n%s", outbuf);
    /* time prints how long the statement took */
    CHECK(run_in(s, "time y = ones(3) * 2; y") == 0, "%s", errbuf);
    CHECK(!strncmp(outbuf, "time: ", 6) && strstr(outbuf, "tensor([2., 2., 2.]"), "output:\n%s", outbuf);
    bl_models_free(s);
    bl_session_free(s);
}

/* A flat chain of operators has no depth to limit: 100,000 terms of + or - and 50,000 of * are
 * evaluated (they overflowed the stack, one C frame per operator) and left to right
 * (100000 - 1 - ... - 1 with 99,999 ones is 1; right to left it would be 100000 - 0 or so).
 * Chained [] . and () after a value nest, and are bounded like brackets. */
static char *chain(const char *head, const char *op, const char *term, int n, const char *tail)
{
    size_t len = strlen(head) + (size_t)n * (strlen(op) + strlen(term)) + strlen(tail) + 1;
    char *src = malloc(len), *p = src;
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; i++) p += sprintf(p, "%s%s", op, term);
    sprintf(p, "%s", tail);
    return src;
}

BL_TEST(long_operator_chains)
{
    char *src = chain("x = 1", "+", "1", 99999, "; x");
    CHECK(run(src) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "100000\n"), "1+1+... (100,000 terms) = %s", outbuf);
    free(src);
    src = chain("x = 100000", " - ", "1", 99999, "; x");
    CHECK(run(src) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "1\n"), "100000-1-... = %s", outbuf);
    free(src);
    src = chain("y = 3", "*", "1", 49999, "; y");
    CHECK(run(src) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "3\n"), "3*1*1*... (50,000 terms) = %s", outbuf);
    free(src);
    src = chain("ones(2)", "+", "ones(2)", 999, "");
    CHECK(run(src) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([1000., 1000.], shape=[2], dtype=float32)\n"), "%s", outbuf);
    free(src);
    /* an error inside a long chain points at its operand; the values made before stay */
    src = chain("a = 2; b = 1", "+", "1", 20000, "+nope+1");
    bl_session *s = bl_session_new(0);
    CHECK(run_in(s, src) < 0, "unknown name accepted");
    CHECK(!strcmp(errbuf, "t:1:40014: unknown name 'nope'\n"), "error: %s", errbuf);
    CHECK(bl_session_get(s, "a") && bl_session_get(s, "a")->num == 2 && !bl_session_get(s, "b"),
          "values changed");
    bl_session_free(s);
    free(src);
    src = chain("x = [1]; x", "", "[0]", 300, "");
    CHECK(run(src) < 0, "300 chained indices accepted");
    CHECK(strstr(errbuf, "expression nested too deeply") != NULL, "error: %s", errbuf);
    free(src);
    src = chain("x = [1]; x", "", "[0]", 1, "");
    CHECK(run(src) == 0 && !strcmp(outbuf, "1\n"), "%s%s", outbuf, errbuf);
    free(src);
}

/* A slice of a list is a list of its items, as in Python, whatever the items are (python3:
 * [1, 2, 3][0:2] == [1, 2], ["a", "b"][1:] == ["b"], [1, 2, [3, "a"]][0:2] == [1, 2],
 * l[::-1] == [3, 2, 1], l[-2:] == [2, 3], l[5:] == [], l[::2] == [1, 3], l[2:0:-1] == [3, 2]);
 * several indices still index the tensor a list of lists stands for */
BL_TEST(list_slicing)
{
    bl_session *s = bl_session_new(0);
    CHECK(run_in(s, "l = [1, 2, 3]; l[0:2]; [\"a\", \"b\"][1:]; [1, 2, [3, \"a\"]][0:2]; "
                    "[1, 2, [3, \"a\"]][1:]; l[::-1]; l[-2:]; l[5:]; l[::2]; l[2:0:-1]; l[:]; "
                    "l[0:2][-1]; [[1, 2], [3, 4]][:, 1]") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "[1, 2]\n[\"b\"]\n[1, 2]\n[2, [3, \"a\"]]\n[3, 2, 1]\n[2, 3]\n[]\n[1, 3]\n"
                          "[3, 2]\n[1, 2, 3]\n2\ntensor([2., 4.], shape=[2], dtype=float32)\n"),
          "output:\n%s", outbuf);
    CHECK(run_in(s, "l[::0]") < 0 && !strcmp(errbuf, "t:1:5: slice step cannot be zero\n"), "%s", errbuf);
    CHECK(run_in(s, "l[\"a\":]") < 0 && !strcmp(errbuf, "t:1:3: slice bounds must be whole numbers\n"),
          "%s", errbuf);
    /* a flat list has one dimension: several indices are refused in a list's words */
    CHECK(run_in(s, "m = [1, 2, 3, 4, 5]; m[1, 2]") < 0 &&
          !strcmp(errbuf, "t:1:27: index: a list of 5 items takes one index or one slice\n"), "%s", errbuf);
    CHECK(run_in(s, "[\"a\"][0:1, 0]") < 0 &&
          !strcmp(errbuf, "t:1:12: index: a list of 1 item takes one index or one slice\n"), "%s", errbuf);
    CHECK(run_in(s, "[[1, 2], [3, 4]][0, 1, 1]") < 0 &&
          !strcmp(errbuf, "t:1:24: index: 3 indices for a list of shape [2, 2]\n"), "%s", errbuf);
    CHECK(run_in(s, "l") == 0 && !strcmp(outbuf, "[1, 2, 3]\n"), "l changed: %s", outbuf);
    bl_session_free(s);
}

/* An index out of range of a list says so as Python's "list index out of range" does, with the
 * length in words: "an empty list", "a list of 1 item", "a list of 3 items", by every path that
 * indexes a list (one index, an index of an item, several indices of a list of lists); the
 * session keeps its values */
BL_TEST(list_index_errors)
{
    bl_session *s = bl_session_new(0);
    static const char *const cases[][2] = {
        { "l[0][1]", "t:1:3: index 0 is out of range for an empty list\n" },
        { "l[-1]", "t:1:3: index -1 is out of range for an empty list\n" },
        { "l[0, 1]", "t:1:6: index: an empty list takes one index or one slice\n" },
        { "m[5]", "t:1:3: index 5 is out of range for a list of 3 items\n" },
        { "m[-4]", "t:1:3: index -4 is out of range for a list of 3 items\n" },
        { "[7][1]", "t:1:5: index 1 is out of range for a list of 1 item\n" },
        { "[[1, 2], []][1][0]", "t:1:17: index 0 is out of range for an empty list\n" },
        { "n[2, 0]", "t:1:3: index 2 is out of range for a list of 2 items\n" },
        { "n[0, -3]", "t:1:6: index -3 is out of range for a list of 2 items\n" },
        { "n[1][5]", "t:1:6: index 5 is out of range for a list of 2 items\n" },
    };
    CHECK(run_in(s, "l = []; m = [1, 2, 3]; n = [[1, 2], [3, 4]]") == 0, "%s", errbuf);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(run_in(s, cases[i][0]) < 0 && !strcmp(errbuf, cases[i][1]), "%s: %s", cases[i][0], errbuf);
    /* tensors keep their words */
    CHECK(run_in(s, "ones(2)[2]") < 0 && !strcmp(errbuf, "t:1:9: index: 2 is out of range for dimension 0 of size 2\n"),
          "%s", errbuf);
    CHECK(run_in(s, "l; m; n[1, 1]") == 0 && !strcmp(outbuf, "[]\n[1, 2, 3]\n4\n"), "values changed: %s%s", outbuf, errbuf);
    bl_session_free(s);
}

/* Lists nest at most BL_MAX_LIST_DEPTH (1000) deep: l = [l] once more is an error at the item,
 * l keeps its value, and a list that deep prints, compares, slices, is written as .json and is
 * freed (200,000 levels overflowed the C stack in each of those; CPython stops its repr and ==
 * at its recursion limit, 1000) */
BL_TEST(list_nesting_bounded)
{
    enum { WRAPS = 200000 };
    size_t len = 16 + (size_t)WRAPS * 8;
    char *src = malloc(len), *p = src;
    p += sprintf(p, "l = []\n");
    for (int i = 0; i < WRAPS; i++) p += sprintf(p, "l = [l]\n");
    bl_session *s = bl_session_new(0);
    CHECK(run_in(s, src) < 0 && !strcmp(errbuf, "t:1001:6: lists may nest at most 1000 deep; this one would be 1001\n"),
          "%s", errbuf);
    const bl_value *l = bl_session_get(s, "l");
    CHECK(l && l->kind == BL_V_LIST && l->depth == 1000, "l is %d deep", l ? l->depth : -1);
    /* -k: every further one fails the same way, and nothing crashes */
    s->keep_going = 1;
    CHECK(run_in(s, src + 7 + 999 * 8) < 0 && strstr(errbuf, "t:1:6: lists may nest") == errbuf, "%.200s", errbuf);
    s->keep_going = 0;
    free(src);
    CHECK(bl_session_get(s, "l")->depth == 1000, "l changed");
    char want[2 * 1000 + 2];
    memset(want, '[', 1000);
    memset(want + 1000, ']', 1000);
    want[2000] = '\n', want[2001] = '\0';
    CHECK(run_in(s, "l") == 0 && !strcmp(outbuf, want), "printed %zu bytes", strlen(outbuf));
    CHECK(run_in(s, "m = l[:]; l == m; l == l[0]; l != [l[0]]; l[0] == l[0][:]") == 0 &&
          !strcmp(outbuf, "true\nfalse\nfalse\ntrue\n"), "%s%s", outbuf, errbuf);
    /* every way to wrap it once more is refused at the item that is too deep (an index or slice
     * at its '[', as index errors are) */
    CHECK(run_in(s, "[1, l]") < 0 && !strcmp(errbuf, "t:1:5: lists may nest at most 1000 deep; this one would be 1001\n"),
          "%s", errbuf);
    CHECK(run_in(s, "x = [l[:]]") < 0 && !strcmp(errbuf, "t:1:7: lists may nest at most 1000 deep; this one would be 1001\n"),
          "%s", errbuf);
    CHECK(run_in(s, "x = [[l[0]]]") < 0 && !strcmp(errbuf, "t:1:6: lists may nest at most 1000 deep; this one would be 1001\n"),
          "%s", errbuf);
    CHECK(!bl_session_get(s, "x"), "x was made");
    CHECK(run_in(s, "x = [l[0]]; x == l") == 0 && !strcmp(outbuf, "true\n"), "%s%s", outbuf, errbuf);
    char dir[] = "/tmp/bl-test-deep.XXXXXX", cmd[128], path[128];
    if (mkdtemp(dir)) {
        snprintf(cmd, sizeof cmd, "l > %s/l.json", dir);
        snprintf(path, sizeof path, "%s/l.json", dir);
        CHECK(run_in(s, cmd) == 0, "%s", errbuf);
        static char got[4096];
        FILE *f = fopen(path, "r");
        got[0] = '\0';
        if (f) got[fread(got, 1, sizeof got - 1, f)] = '\0', fclose(f);
        CHECK(!strcmp(got, want), "l.json holds %zu bytes", strlen(got));
        unlink(path);
        rmdir(dir);
    }
    bl_session_free(s);   /* frees a list 1000 deep */
}

/* Run n bytes of script text (NUL bytes and all) through bl_run_file, as a file named "f". */
static int run_bytes(bl_session *s, const char *text, size_t n)
{
    FILE *f = fmemopen((void *)text, n, "r"), *o = tmpfile(), *e = tmpfile();
    s->out = o, s->err = e;
    int rc = bl_run_file(s, "f", f);
    fclose(f);
    rewind(o);
    outbuf[fread(outbuf, 1, sizeof outbuf - 1, o)] = '\0';
    rewind(e);
    errbuf[fread(errbuf, 1, sizeof errbuf - 1, e)] = '\0';
    fclose(o), fclose(e);
    s->out = stdout, s->err = stderr;
    return rc;
}

/* A UTF-8 byte order mark before a script is skipped (as Python does), and columns count from
 * after it; a NUL byte is an error at its place (not "unterminated string"), and the script
 * stops there with the values made before it kept */
BL_TEST(script_bom_and_nul)
{
    bl_session *s = bl_session_new(0);
    static const char bom[] = "\xef\xbb\xbfx = 1\nx\ny = nope\n";
    CHECK(run_bytes(s, bom, sizeof bom - 1) < 0, "unknown name accepted");
    CHECK(!strcmp(outbuf, "1\n") && !strcmp(errbuf, "f:3:5: unknown name 'nope'\n"), "%s%s", outbuf, errbuf);
    static const char bom_err[] = "\xef\xbb\xbf" "z = ?";
    CHECK(run_bytes(s, bom_err, sizeof bom_err - 1) < 0 && !strcmp(errbuf, "f:1:5: expected a value, found character '?'\n"),
          "%s", errbuf);
    static const char nul[] = "a = 2\nb = \"x\0y\"\nc = 3\n";
    s->keep_going = 1;
    CHECK(run_bytes(s, nul, sizeof nul - 1) < 0, "a NUL byte accepted");
    CHECK(!strcmp(errbuf, "f:2:7: NUL byte in the script (is it a text file?)\n"), "%s", errbuf);
    /* under -k the line with the NUL byte is one error and the script goes on (issue 20) */
    CHECK(bl_session_get(s, "a") && bl_session_get(s, "a")->num == 2 && !bl_session_get(s, "b") &&
          bl_session_get(s, "c") && bl_session_get(s, "c")->num == 3 && bl_session_get(s, "x")->num == 1, "values");
    bl_session_free(s);
}

/* A dimension argument's range in messages is that of the tensor given ([-2, 1] for a 2-D one,
 * as torch says "Dimension out of range (expected to be in range of [-2, 1], but got 5)"), not
 * that of the largest tensor blocklab has */
BL_TEST(dim_ranges_follow_the_tensor)
{
    static const struct { const char *src, *err; } cases[] = {
        { "transpose(randn(2, 3), 0, 5)", "t:1:27: transpose: argument 3 must be in [-2, 1], got 5\n" },
        { "transpose(randn(2, 3), -3)", "t:1:24: transpose: argument 2 must be in [-2, 1], got -3\n" },
        { "transpose(ones(2, 3, 4), 3)", "t:1:26: transpose: argument 2 must be in [-3, 2], got 3\n" },
        { "transpose(ones(3), 0, 1)", "t:1:1: transpose: needs at least 2 dimensions, got 1\n" },
        { "softmax(ones(2, 3), dim=2)", "t:1:25: softmax: dim must be in [-2, 1], got 2\n" },
        { "mean(ones(2, 3), dim=-3)", "t:1:22: mean: dim must be in [-2, 1], got -3\n" },
        { "mean(sum(ones(2)), dim=0)", "t:1:24: mean: dim picks a dimension, but the tensor is 0-D (one number)\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK(run(cases[i].src) < 0, "%s accepted", cases[i].src);
        CHECK(!strcmp(errbuf, cases[i].err), "%s: %s", cases[i].src, errbuf);
    }
    CHECK(run("transpose(ones(2, 3), -2, 1).shape; softmax(ones(2, 2), dim=-2)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "[3, 2]\ntensor([[0.5000, 0.5000],\n        [0.5000, 0.5000]], shape=[2, 2], dtype=float32)\n"),
          "%s", outbuf);
}

/* == and != of lists compare every kind of item, as Python does (python3: ["a"] == ["a"] is True,
 * [1, 2] == [1, 2, 3] and [1] == ["1"] are False, [True] == [1] is True); tensors inside lists
 * are refused as tensor == tensor is (Python: "Boolean value of Tensor ... is ambiguous") */
BL_TEST(list_equality)
{
    CHECK(run("[\"a\"] == [\"a\"]; [\"a\", 1] == [\"a\", 1]; [\"a\"] != [\"b\"]; [\"a\"] == [\"b\"]; "
              "[1, [2, \"x\"]] == [1, [2, \"x\"]]; [1, [2, \"x\"]] == [1, [2, \"y\"]]; [1, [2, \"x\"]] != [1, [2, \"y\"]]; "
              "[1, 2] == [1, 2, 3]; [1] == [\"1\"]; [on] == [1]; [] == []; [ones(2)] == [1, 2]") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "true\ntrue\ntrue\nfalse\ntrue\nfalse\ntrue\nfalse\nfalse\ntrue\ntrue\nfalse\n"),
          "output:\n%s", outbuf);
    /* a boolean is the number 1 or 0 inside a list as outside, as the manual says (python3:
     * True == 1, [True] == [1], [[False]] == [[0]] and [True] != [1.0] is False, [True] == ["1"]
     * and [True] == [2] are False) */
    CHECK(run("true == 1; [true] == [1]; [[false]] == [[0]]; [true] != [1.0]; [true] == [\"1\"]; [true] == [2]") == 0,
          "%s", errbuf);
    CHECK(!strcmp(outbuf, "true\ntrue\ntrue\nfalse\nfalse\nfalse\n"), "output:\n%s", outbuf);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "l = [\"a\", ones(2)]\nl == [\"a\", ones(2)]") < 0, "tensors in lists compared");
    CHECK(!strcmp(errbuf, "t:2:3: '==' cannot compare a tensor and a tensor inside lists: for tensors use "
                          "allclose(a, b) or reduce them first (max, mean)\n"), "%s", errbuf);
    CHECK(run_in(s, "l[0]") == 0 && !strcmp(outbuf, "a\n"), "l changed: %s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
}

BL_TEST(tensor_printing_abbreviates)
{
    /* as PyTorch 1.13 prints them (repr(torch.arange(2000.)), ...), then shape and dtype: whole
     * numbers spanning more than 1000x in scientific notation, "..." after two spaces */
    CHECK(run("arange(2000)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
                          "        1.9990e+03], shape=[2000], dtype=float32)\n"), "%s", outbuf);
    CHECK(run("tensor([1e-6, -2])") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([ 1.0000e-06, -2.0000e+00], shape=[2], dtype=float32)\n"), "%s", outbuf);
    CHECK(run("reshape(arange(3000), 3, 1000)[:, 0:2]") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([[0.0000e+00, 1.0000e+00],\n        [1.0000e+03, 1.0010e+03],\n"
                          "        [2.0000e+03, 2.0010e+03]], shape=[3, 2], dtype=float32)\n"), "%s", outbuf);
}

/* tests/golden/repr.safetensors (gen_repr.py): tensors and the text PyTorch's own repr code gives
 * for each (with blocklab's shape and dtype added by its suffix rule): wrapping at 80 columns,
 * widths, fixed, whole and scientific numbers, summaries of 1-D to 3-D, nan and inf */
BL_TEST(tensor_printing_matches_pytorch)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/repr.safetensors", src ? src : ".");
    if (access(path, R_OK) != 0) SKIP("repr.safetensors not found (set BL_SRCDIR)");
    bl_st_file *f = bl_st_read(path);
    CHECK(f != NULL, "%s", bl_error());
    if (!f) return;
    CHECK(f->n >= 20, "%d cases", f->n);
    for (int i = 0; i < f->n; i++) {
        const char *want = bl_st_meta(f, f->tensors[i].name);
        char *got = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&got, &len);
        if (!m) break;
        bl_val_print_tensor(&f->tensors[i], m);
        fclose(m);
        CHECK(want && !strcmp(got, want), "%s:\n%s\nPyTorch:\n%s", f->tensors[i].name, got, want ? want : "(none)");
        free(got);
    }
    bl_st_free(f);
}

BL_TEST(print_shows_values_as_the_prompt_does)
{
    /* print(x) is what the prompt shows for x, with no blank line before or after (as print(x) and
     * repr(x) in PyTorch); values after it follow on its last line, separated by spaces */
    const char *x = "tensor([[ 1.5000, -2.0000],\n        [ 3.0000,  4.0000]], shape=[2, 2], dtype=float32)";
    char want[512];
    CHECK(run("x = tensor([[1.5, -2], [3, 4]]); print(x); x; print(\"x =\", x, 1)") == 0, "%s", errbuf);
    snprintf(want, sizeof want, "%s\n%s\nx = %s 1\n", x, x, x);
    CHECK(!strcmp(outbuf, want), "output:\n%s", outbuf);
    CHECK(run("print(table(a=[1, 2])); print(); print(\"n\", 2, [1, 2])") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "a\n1\n2\n\nn 2 [1, 2]\n"), "output:\n%s", outbuf);
    /* lists of strings, nested lists and booleans too: print(l) shows what the prompt shows */
    CHECK(run("l = [\"a\", \"b\"]; print(l); l; m = [1, [\"x\", on], 2.5]; print(m, \"s\"); m") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "[\"a\", \"b\"]\n[\"a\", \"b\"]\n[1, [\"x\", true], 2.5] s\n[1, [\"x\", true], 2.5]\n"),
          "output:\n%s", outbuf);
    /* a string inside a list is shown as a literal that reads back (Python's repr: ['b\n']); on
     * its own, print shows the text itself */
    CHECK(run("q = [\"b\\n\", \"t\\tq\\\"\\\\\"]; q; print(q[0] + \"|\")") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "[\"b\\n\", \"t\\tq\\\"\\\\\"]\nb\n|\n"), "output:\n%s", outbuf);
    /* Python's sep= and end=; a wrong argument prints nothing at all (it was checked after) */
    CHECK(run("print(1, \"a\", sep=\", \"); print(1, end=\"\"); print(2, 3, sep=\"\", end=\"!\\n\"); print(sep=\"-\")") == 0,
          "%s", errbuf);
    CHECK(!strcmp(outbuf, "1, a\n123!\n\n"), "output:\n%s", outbuf);
    CHECK(run("print(1, 2, foo=3)") < 0 && !strcmp(outbuf, "") && strstr(errbuf, "print: unknown keyword 'foo'"),
          "out '%s' err %s", outbuf, errbuf);
    CHECK(run("print(1, 2, sep=0)") < 0 && !strcmp(outbuf, "") && strstr(errbuf, "sep must be a string, not a number"),
          "out '%s' err %s", outbuf, errbuf);
    CHECK(run("print(1, end=[1])") < 0 && !strcmp(outbuf, "") && strstr(errbuf, "end must be a string"),
          "out '%s' err %s", outbuf, errbuf);
}

/* The number after the first `key` in text (up to a space, comma, '>' or the line's end). */
static const char *figure(const char *text, const char *key, char *buf, size_t n)
{
    const char *p = strstr(text, key);
    buf[0] = '\0';
    if (p) {
        p += strlen(key);
        snprintf(buf, n, "%.*s", (int)strcspn(p, " ,>\n"), p);
    }
    return buf;
}

static int four_decimals(const char *x)
{
    const char *d = strchr(x, '.');
    return d && strlen(d + 1) == 4 && strspn(d + 1, "0123456789") == 4;
}

/* show, a run value and vars print the last loss and val loss as train and eval do, with 4
 * decimals: the figures of train's own line (a loss of 1.3577 is never shown as 1.358) */
BL_TEST(losses_print_with_4_decimals)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    char loss[32], val[32], got[32];
    CHECK(run_in(s, "model dit dim=32 depth=1 heads=2 batch=8 eval_every=2; data shapes exam=16; train 2") == 0,
          "%s", errbuf);
    figure(outbuf, "step 2: loss ", loss, sizeof loss);
    figure(outbuf, "  val ", val, sizeof val);
    CHECK(four_decimals(loss) && four_decimals(val), "train printed loss '%s', val '%s':\n%s", loss, val, outbuf);
    static const char *const stmts[] = { "show", "eval", "r = run(m1); r", "vars" };
    for (int i = 0; i < 4; i++) {
        CHECK(run_in(s, stmts[i]) == 0, "%s: %s", stmts[i], errbuf);
        if (i != 1) CHECK(!strcmp(figure(outbuf, ", loss ", got, sizeof got), loss), "%s: loss '%s', train printed '%s':\n%s",
                          stmts[i], got, loss, outbuf);
        CHECK(!strcmp(figure(outbuf, i == 1 ? "val loss " : ", val ", got, sizeof got), val),
              "%s: val '%s', train printed '%s':\n%s", stmts[i], got, val, outbuf);
    }
    bl_models_free(s);
    bl_session_free(s);
}

BL_TEST(functions_match_formulas)
{
    /* DESIGN.md section 2: rmsnorm([3, 4]) = [0.8485, 1.1314], silu(1) = 0.7311 */
    CHECK(run("print(round(rmsnorm(tensor([3, 4])), 4), round(silu(1), 4), round(silu(-1), 4))") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([0.8485, 1.1314], shape=[2], dtype=float32) 0.7311 -0.2689\n"), "%s", outbuf);
    /* silu at the ends of float32 as torch.nn.functional.silu prints it (it gave
     * -6.0546e-09 and -inf for the first two) */
    CHECK(run("silu(tensor([-1e30, -exp(1000), exp(1000), -0.0, -3e38]))") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([-0., nan, inf, -0., -0.], shape=[5], dtype=float32)\n"), "%s", outbuf);
    CHECK(run("swiglu_hidden(128); swiglu_hidden(128, 4, multiple_of=32)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "341\n352\n"), "%s", outbuf);
    /* var and std are torch's, unbiased (divide by n - 1 = 2: torch.tensor([1., 2, 3]).var() is 1);
     * unbiased=off divides by n (2 / 3) */
    CHECK(run("x = tensor([[1, 2, 3]]); mean(x); var(x); var(x, unbiased=off); std(x, dim=1); sum(x, dim=0); softmax(tensor([0, 0]))") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "2\n1\n0.666667\ntensor([1.], shape=[1], dtype=float32)\n"
                          "tensor([1., 2., 3.], shape=[3], dtype=float32)\n"
                          "tensor([0.5000, 0.5000], shape=[2], dtype=float32)\n"), "%s", outbuf);
    /* dim given second as torch's: torch.tensor([[1., 5, 3], [4, 2, 6]]).softmax(-1)[0] is
     * [0.0159, 0.8668, 0.1173] (e^1, e^5, e^3 over their sum), .argmax(1) [1, 2], .argmin(0) [0, 1, 0] */
    CHECK(run("x = tensor([[1, 5, 3], [4, 2, 6]]); x.softmax(-1)[0]; softmax(x, 1)[1]; x.argmax(1); argmin(x, 0)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([0.0159, 0.8668, 0.1173], shape=[3], dtype=float32)\n"
                          "tensor([0.1173, 0.0159, 0.8668], shape=[3], dtype=float32)\n"
                          "tensor([1., 2.], shape=[2], dtype=float32)\n"
                          "tensor([0., 1., 0.], shape=[3], dtype=float32)\n"), "%s", outbuf);
    CHECK(run("x = ones(2, 3); softmax(x, 1, dim=1)") < 0 && strstr(errbuf, "softmax: dim given twice"), "%s", errbuf);
    /* attention with one key returns v; weights=on gives the weights */
    CHECK(run("q = ones(1, 2); k = ones(1, 2); v = tensor([[3, 4]]); attention(q, k, v); attention(q, k, v, weights=on)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([[3., 4.]], shape=[1, 2], dtype=float32)\ntensor([[1.]], shape=[1, 1], dtype=float32)\n"),
          "%s", outbuf);
    CHECK(run("mean(ones(2), dmi=0)") < 0, "unknown keyword accepted");
    CHECK(!strcmp(errbuf, "t:1:15: mean: unknown keyword 'dmi' (mean(x, dim=, keepdim=off)); did you mean 'dim'?\n"), "%s", errbuf);
    CHECK(run("layernorm(ones(2, 3), w=ones(4))") < 0, "shape mismatch accepted");
    CHECK(strstr(errbuf, "t:1:1: layernorm") != NULL, "%s", errbuf);
}

/* Each file dir/NAME of files[i] = {NAME, CONTENT} holds exactly CONTENT; each is removed. */
static void check_files(const char *dir, const char *(*files)[2], size_t n)
{
    char path[600];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "r");
        char buf[512] = "";
        if (f) {
            buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
            fclose(f);
        }
        CHECK(!strcmp(buf, files[i][1]), "%s:\n%s", files[i][0], buf);
        unlink(path);
    }
}

/* NaN is "nan" in messages and files (glibc printf wrote the NaN of 0/0, whose sign bit is set,
 * as "-nan", which pandas does not read as a number), infinities "inf" and "-inf"; sizes and
 * indices the user gave appear as the shortest text that reads back ("%.0f" wrote 1e30 as
 * 1000000000000000019884624838656, "%g" 1234567.5 as 1.23457e+06). */
BL_TEST(nan_and_big_numbers_print_readably)
{
    static const struct { const char *src, *err; } msgs[] = {
        { "randn(2, std=(exp(1000) - exp(1000)))", "t:1:25: randn: std must be >= 0, got nan\n" },
        { "randn((exp(1000) - exp(1000)))", "t:1:18: randn: a size must be a whole number, got nan\n" },
        { "randn(1e30)", "t:1:7: randn: a size must be in [1, 2147483647], got 1e+30\n" },
        { "ones(2147483648)", "t:1:6: ones: a size must be in [1, 2147483647], got 2147483648\n" },
        { "zeros(1234567.5)", "t:1:7: zeros: a size must be a whole number, got 1234567.5\n" },
        { "ones(3)[1e30]", "t:1:9: index: 1e+30 is out of range for dimension 0 of size 3\n" },
        { "dit(lr=(exp(1000) - exp(1000)))", "t:1:5: dit: lr: expected a number, got 'nan'\n" },
    };
    for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
        CHECK(run(msgs[i].src) < 0, "%s: no error", msgs[i].src);
        CHECK(!strcmp(errbuf, msgs[i].err), "%s:\n  got  %s  want %s", msgs[i].src, errbuf, msgs[i].err);
    }
    char dir[] = "/tmp/bl-test-nan.XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "n = (exp(1000) - exp(1000)); i = exp(1000)\n"
                              "tensor([i, -i, n]) > %s/v.csv\n"
                              "tensor([[i, -i, n]]) > %s/m.csv\n"
                              "table(a=tensor([n, 1, -i])) > %s/t.csv\n"
                              "table(a=tensor([n, 1, -i])) > %s/t.md\n"
                              "table(a=tensor([n, 1, -i])) > %s/t.json\n"
                              "print(n, tensor([n, -i]), [n])", dir, dir, dir, dir, dir);
    CHECK(run(cmd) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "nan tensor([nan, -inf], shape=[2], dtype=float32) [nan]\n"), "%s", outbuf);
    static const char *files[][2] = {
        { "v.csv", "inf\n-inf\nnan\n" },
        { "m.csv", "inf,-inf,nan\n" },
        { "t.csv", "a\nnan\n1\n-inf\n" },
        { "t.md", "| a |\n| ---: |\n| nan |\n| 1 |\n| -inf |\n" },
        { "t.json", "[\n  {\"a\": null},\n  {\"a\": 1},\n  {\"a\": null}\n]\n" },
    };
    check_files(dir, files, sizeof files / sizeof *files);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
}

/* round follows torch.round(x, decimals=): halves to even, -0 kept, a tensor in float32 and a
 * number as a float64 tensor. The expected values are torch 1.13's (torch.round on the same
 * inputs); round(2.5) was 3 and round(-0.5) -1 (C's round, halves away from zero). */
BL_TEST(round_halves_to_even)
{
    CHECK(run("print(round(2.5), round(3.5), round(-2.5), round(-0.5), round(0.125, 2), round(0.35, 1), "
              "round(2.675, digits=2), round(1250, -2), round(1350, -2), round(1e30, 3))") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "2 4 -2 -0 0.12 0.4 2.68 1200 1400 1e+30\n"), "%s", outbuf);
    CHECK(run("round(tensor([2.5, -0.5, 0.5, 1.5, -2.5]))\n"
              "x = tensor([0.35, 0.25, 0.15, -0.45, 2.675]); round(x, 1); round(x, digits=2)\n"
              "round(tensor([1250, 1350, -150]), -2)") == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([ 2., -0.,  0.,  2., -2.], shape=[5], dtype=float32)\n"
                          "tensor([ 0.4000,  0.2000,  0.2000, -0.4000,  2.7000], shape=[5], dtype=float32)\n"
                          "tensor([ 0.3500,  0.2500,  0.1500, -0.4500,  2.6800], shape=[5], dtype=float32)\n"
                          "tensor([1200., 1400., -200.], shape=[3], dtype=float32)\n"), "%s", outbuf);
    /* where x * 10^digits overflows float32, x (torch gives inf) */
    CHECK(run("x = tensor([3e38, -3e38]); max(abs(round(x, 1) - x)) == 0") == 0 && !strcmp(outbuf, "true\n"),
          "%s%s", outbuf, errbuf);
    CHECK(run("round(1, 10)") < 0 && strstr(errbuf, "round: argument 2 must be in [-9, 9], got 10"), "%s", errbuf);
}

BL_TEST(completion)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    bl_value *v = bl_val_num(1);
    bl_session_set(s, "rate", v);
    bl_val_unref(v);
    v = bl_val_tensor(bl_tensor_new1(3));
    bl_session_set(s, "t", v);
    bl_val_unref(v);
    CHECK(run_in(s, "opt = torch.optim.SGD([tensor([1.]).requires_grad_()], lr=0.1)") == 0, "%s", errbuf);
    struct { const char *line; int word; const char *want; } cases[] = {
        { "se", 0, "seed" }, { "se", 0, "set" }, { "x = ra", 4, "randn(" }, { "x = ra", 4, "rate" },
        { "y=ra", 0, "y=randn(" }, { "help rms", 5, "rmsnorm" }, { "help rms", 5, "rms" },
        { "help ke", 5, "keys" }, { "model ", 6, "dit" }, { "model dit qk", 10, "qk_norm=" },
        { "model dit qk_norm=o", 10, "qk_norm=on" }, { "set no", 4, "norm=" },
        { "set norm=r", 4, "norm=rmsnorm" }, { "model gpt pos=", 10, "pos=rope" },
        { "x = 1; see", 7, "seed" }, { "time x = mea", 9, "mean(" },
        /* compare's variants, one per switch value that is no default, made from the key table */
        { "compare r", 8, "rmsnorm=norm:rmsnorm" }, { "compare q", 8, "qknorm=qk_norm:on" },
        { "compare sw", 8, "swiglu=mlp:swiglu" }, { "compare rope2", 8, "rope2d=pos:rope2d" },
        { "compare rope=", 8, "rope=pos:rope" }, { "compare st", 8, "steps=" },
        /* after a dot: a module's functions, a tensor's methods and fields */
        { "y = torch.eins", 4, "torch.einsum(" }, { "F.ge", 0, "F.gelu(" }, { "math.p", 0, "math.pi" },
        { "y = t.spl", 4, "t.split(" }, { "t.sh", 0, "t.shape" }, { "t.requires_", 0, "t.requires_grad_(" },
        { "(t @ t.T).su", 0, "(t @ t.T).sum(" }, { "t[0].mu", 0, "t[0].multinomial(" },
        /* torch.optim and torch.nn.utils, and an optimizer's methods */
        { "opt = torch.optim.Ada", 6, "torch.optim.AdamW(" }, { "torch.nn.utils.cl", 0, "torch.nn.utils.clip_grad_norm_(" },
        { "torch.op", 0, "torch.optim" }, { "opt.ze", 0, "opt.zero_grad(" }, { "opt.param", 0, "opt.param_groups" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bl_strlist l = { 0 };
        int files = bl_complete_line(s, cases[i].line, cases[i].line + cases[i].word, &l);
        int found = 0;
        for (int j = 0; j < l.n; j++) found |= !strcmp(l.s[j], cases[i].want);
        CHECK(!files && found, "'%s' does not offer '%s' (%d candidates)", cases[i].line, cases[i].want, l.n);
        bl_strlist_free(&l);
    }
    bl_strlist l = { 0 };
    bl_complete_line(s, "rate.", "rate.", &l);      /* a number has no methods to offer */
    CHECK(l.n == 0, "'rate.' offers %d names", l.n);
    bl_strlist_free(&l);
    bl_complete_line(s, "torch.Ad", "torch.Ad", &l);   /* torch.optim's, not torch's */
    CHECK(l.n == 0, "'torch.Ad' offers %d names", l.n);
    bl_strlist_free(&l);
    bl_complete_line(s, "t.", "t.", &l);            /* no function whose first argument is no tensor */
    for (int j = 0; j < l.n; j++) CHECK(strcmp(l.s[j], "t.range(") && strcmp(l.s[j], "t.print("), "%s offered", l.s[j]);
    bl_strlist_free(&l);
    CHECK(bl_complete_line(s, "source ex", "source ex" + 7, &l) == 1, "source completes file names");
    bl_strlist_free(&l);
    bl_complete_line(s, "model gpt pos=", "model gpt pos=" + 10, &l);
    for (int j = 0; j < l.n; j++) CHECK(strcmp(l.s[j], "pos=rope2d"), "rope2d offered for TinyGPT");
    bl_strlist_free(&l);
    bl_complete_line(s, "compare ", "compare " + 8, &l);   /* no variant of a default value */
    for (int j = 0; j < l.n; j++)
        CHECK(!strstr(l.s[j], ":layernorm") && !strstr(l.s[j], ":gelu") && !strstr(l.s[j], ":learned") &&
              !strstr(l.s[j], ":off"), "compare offers the default %s", l.s[j]);
    /* the 7 fixed words and one variant per (switch, value) that is no kind's default: 5 with
     * DESIGN.md's switches (rmsnorm, swiglu, rope, rope2d, qknorm), more with each new row */
    int variants = 0;
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        char v[32];
        for (int j = 0; bl_config_key_in(k, BL_KEYS_CHOICES) && bl_config_choice_at(k, j, v, sizeof v); j++)
            variants += !(k->def_dit && !strcmp(v, k->def_dit)) && !(k->def_gpt && !strcmp(v, k->def_gpt));
    }
    CHECK(variants >= 5 && l.n == 7 + variants, "compare offers %d words, not 7 + %d", l.n, variants);
    bl_strlist_free(&l);
    bl_models_free(s);
    bl_session_free(s);
}

/* A list is written as .json as a JSON array: nested lists, strings escaped, booleans, a tensor as
 * nested arrays; a list holding something else (a table) is refused, leaving the file as it was. */
BL_TEST(writers_json_list)
{
    char dir[] = "/tmp/bl-test-repl.XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    char cmd[600], path[300], buf[256] = "";
    snprintf(path, sizeof path, "%s/l.json", dir);
    bl_session *s = bl_session_new(0);
    snprintf(cmd, sizeof cmd, "l = [1, \"a\\\"b\", true, [2.5, tensor([[1, 2], [3, 4]])], [], -0.1]\nl > %s", path);
    CHECK(run_in(s, cmd) == 0, "%s", errbuf);
    FILE *f = fopen(path, "r");
    if (f) buf[fread(buf, 1, sizeof buf - 1, f)] = '\0', fclose(f);
    /* numbers as the prompt shows them (1 is an integer); a tensor's elements are float32: reals */
    CHECK(!strcmp(buf, "[1, \"a\\\"b\", true, [2.5, [[1.0, 2.0], [3.0, 4.0]]], [], -0.1]\n"), "l.json:\n%s", buf);
    snprintf(cmd, sizeof cmd, "[1, table(a=[1])] > %s", path);
    CHECK(run_in(s, cmd) < 0 && strstr(errbuf, "cannot write a list holding a table as .json") &&
          !strchr(errbuf, '\n')[1], "%s", errbuf);
    char again[256] = "";
    if ((f = fopen(path, "r"))) again[fread(again, 1, sizeof again - 1, f)] = '\0', fclose(f);
    CHECK(!strcmp(again, buf), "l.json changed by a failed write:\n%s", again);
    CHECK(run_in(s, "l[1]") == 0 && !strcmp(outbuf, "a\"b\n"), "the session lost l: %s%s", outbuf, errbuf);
    /* a whole number is a JSON integer with every digit (a count past 1e9: 40960000000 tokens,
     * a seed of 2^53 - 1), a fraction the shortest form that reads back as the same double */
    snprintf(cmd, sizeof cmd, "[40960000000, 9007199254740991, 0.1, 1/3, -0] > %s", path);
    CHECK(run_in(s, cmd) == 0, "%s", errbuf);
    if ((f = fopen(path, "r"))) buf[fread(buf, 1, sizeof buf - 1, f)] = '\0', fclose(f);
    CHECK(!strcmp(buf, "[40960000000, 9007199254740991, 0.1, 0.3333333333333333, 0]\n"), "l.json:\n%s", buf);
    bl_session_free(s);
    unlink(path);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
}

BL_TEST(writers)
{
    char dir[] = "/tmp/bl-test-repl.XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    char cmd[512], path[300];
    snprintf(cmd, sizeof cmd, "table(step=[1, 2], run=[\"a,b\", \"q\\\"\"]) > %s/t.csv\n"
                              "table(step=[1, 2], loss=[0.5, 0.25]) > %s/t.json\n"
                              "tensor([[1, 2], [3, 4]]) > %s/m.csv\nvars > %s/v.txt\nvars > %s/V.TXT", dir, dir,
             dir, dir, dir);
    CHECK(run(cmd) == 0, "%s", errbuf);
    static const char *files[][2] = {
        { "t.csv", "step,run\n1,\"a,b\"\n2,\"q\"\"\"\n" },
        { "t.json", "[\n  {\"step\": 1, \"loss\": 0.5},\n  {\"step\": 2, \"loss\": 0.25}\n]\n" },
        { "m.csv", "1,2\n3,4\n" },
        { "v.txt", "no variables yet (x = randn(4, 8) makes one)\n" },
        { "V.TXT", "no variables yet (x = randn(4, 8) makes one)\n" },   /* any case, as '>' */
    };
    check_files(dir, files, 5);
    /* `command > FILE.txt` is written atomically: a command that fails leaves an existing file as
     * it was and no temporary file beside it; one that works replaces it */
    snprintf(path, sizeof path, "%s/v.txt", dir);
    FILE *old = fopen(path, "w");
    if (old) fputs("old\n", old), fclose(old);
    snprintf(cmd, sizeof cmd, "show zz > %s/v.txt", dir);
    CHECK(run(cmd) < 0 && strstr(errbuf, "show: unknown model 'zz'") && !strchr(errbuf, '\n')[1], "%s", errbuf);
    char got[64] = "";
    if ((old = fopen(path, "r"))) got[fread(got, 1, sizeof got - 1, old)] = '\0', fclose(old);
    CHECK(!strcmp(got, "old\n"), "v.txt changed by a failing command:\n%s", got);
    unlink(path);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
    CHECK(mkdir(dir, 0700) == 0, "%s", dir);
    CHECK(run("vars > /nonexistent-dir/v.txt") < 0 &&
          !strcmp(errbuf, "t:1:8: /nonexistent-dir/v.txt: directory '/nonexistent-dir' does not exist\n"), "%s", errbuf);
    /* the reason the folder takes no file: a file in its place, or a folder that makes none */
    snprintf(path, sizeof path, "%s/keep.csv", dir);
    if ((old = fopen(path, "w"))) fclose(old);
    snprintf(cmd, sizeof cmd, "vars > %s/keep.csv/v.csv", dir);
    char want[700];
    snprintf(want, sizeof want, "t:1:8: %s/keep.csv/v.csv: '%s/keep.csv' is a file, not a directory\n", dir, dir);
    CHECK(run(cmd) < 0 && !strcmp(errbuf, want), "%s", errbuf);
    /* the first component that is missing or no folder is named, not the whole folder (it said
     * "directory 'DIR/keep.csv/a' does not exist" when keep.csv is a file) */
    snprintf(cmd, sizeof cmd, "vars > %s/keep.csv/a/b/v.csv", dir);
    snprintf(want, sizeof want, "t:1:8: %s/keep.csv/a/b/v.csv: '%s/keep.csv' is a file, not a directory\n", dir, dir);
    CHECK(run(cmd) < 0 && !strcmp(errbuf, want), "%s", errbuf);
    snprintf(cmd, sizeof cmd, "x = 1; x > %s/no//such/v.json", dir);
    snprintf(want, sizeof want, "t:1:12: %s/no//such/v.json: directory '%s/no' does not exist\n", dir, dir);
    CHECK(run(cmd) < 0 && !strcmp(errbuf, want), "%s", errbuf);
    char pipe[300];   /* neither a file nor a folder */
    snprintf(pipe, sizeof pipe, "%s/pipe", dir);
    if (mkfifo(pipe, 0600) == 0) {
        snprintf(cmd, sizeof cmd, "vars > %s/v.csv", pipe);
        snprintf(want, sizeof want, "t:1:8: %s/v.csv: '%s' is not a directory\n", pipe, pipe);
        CHECK(run(cmd) < 0 && !strcmp(errbuf, want), "%s", errbuf);
        /* a fifo (like /dev/null or /dev/stdout, not a plain file) is written in place and stays
         * a fifo: the temp-and-rename put a plain file where it was (as root, `x > /dev/null`
         * replaced the device). The reader is opened first so the write does not block. */
        unlink(pipe);
        snprintf(pipe, sizeof pipe, "%s/fifo.txt", dir);
        int rd = mkfifo(pipe, 0600) == 0 ? open(pipe, O_RDONLY | O_NONBLOCK) : -1;
        snprintf(cmd, sizeof cmd, "x = 7; x > %s", pipe);
        CHECK(rd >= 0 && run(cmd) == 0, "%s", errbuf);
        char fb[16] = "";
        ssize_t nr = rd >= 0 ? read(rd, fb, sizeof fb - 1) : -1;
        fb[nr > 0 ? nr : 0] = '\0';
        struct stat fst;
        CHECK(!strcmp(fb, "7\n") && stat(pipe, &fst) == 0 && S_ISFIFO(fst.st_mode),
              "fifo read '%s', still a fifo: %d", fb, stat(pipe, &fst) == 0 && S_ISFIFO(fst.st_mode));
        if (rd >= 0) close(rd);
        unlink(pipe);
    }
    /* a symbolic link: the file it names is replaced (keeping that file's mode), the link kept */
    char real[300], link_[300];
    snprintf(real, sizeof real, "%s/real.txt", dir);
    snprintf(link_, sizeof link_, "%s/link.txt", dir);   /* named by a relative link */
    if ((old = fopen(real, "w"))) fputs("old\n", old), fclose(old);
    chmod(real, 0640);
    if (symlink("real.txt", link_) == 0) {
        snprintf(cmd, sizeof cmd, "x = 8; x > %s", link_);
        CHECK(run(cmd) == 0, "%s", errbuf);
        struct stat lst, rst;
        got[0] = '\0';
        if ((old = fopen(real, "r"))) got[fread(got, 1, sizeof got - 1, old)] = '\0', fclose(old);
        CHECK(lstat(link_, &lst) == 0 && S_ISLNK(lst.st_mode), "the link was replaced by a file");
        CHECK(!strcmp(got, "8\n") && stat(real, &rst) == 0 && (rst.st_mode & 0777) == 0640,
              "real.txt holds '%s', mode %o", got, (unsigned)(rst.st_mode & 0777));
        unlink(link_);
    }
    unlink(real);
    unlink(path);
    struct stat proc;
    if (stat("/proc", &proc) == 0 && S_ISDIR(proc.st_mode)) {
        CHECK(run("vars > /proc/v.csv") < 0 && strstr(errbuf, "t:1:8: /proc/v.csv: ") == errbuf &&
              !strstr(errbuf, "does not exist"), "%s", errbuf);
    }
    /* a figure writes itself: the CSV holds the heatmap's numbers, the PNG starts with its signature */
    snprintf(cmd, sizeof cmd, "h = heatmap(tensor([[1, -2], [3, 4]]))\nh > %s/h.csv\nh > %s/h.png", dir, dir);
    CHECK(run(cmd) == 0, "%s", errbuf);
    snprintf(path, sizeof path, "%s/h.csv", dir);
    FILE *f = fopen(path, "r");
    char buf[512] = "";
    if (f) {
        buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(strstr(buf, "0,1,-2\n1,3,4") != NULL, "h.csv:\n%s", buf);
    unlink(path);
    snprintf(path, sizeof path, "%s/h.png", dir);
    f = fopen(path, "rb");
    unsigned char sig[8] = { 0 };
    if (f) {
        if (fread(sig, 1, 8, f) != 8) sig[0] = 0;
        fclose(f);
    }
    CHECK(!memcmp(sig, "\x89PNG\r\n\x1a\n", 8), "h.png is not a PNG");
    unlink(path);
    /* CSV is rows and columns: a tensor of more dimensions is refused before any file is made
     * (an older file of that name stays as it was), the session keeps the tensor, and 1-D and
     * 2-D tensors still write and read back */
    snprintf(path, sizeof path, "%s/x4.csv", dir);
    f = fopen(path, "w");
    if (f) fputs("old\n", f), fclose(f);
    snprintf(cmd, sizeof cmd, "x = reshape(arange(24), 2, 2, 3, 2) / 4; x > %s/x4.csv", dir);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, cmd) < 0, "a 4-D tensor was written as CSV");
    CHECK(strstr(errbuf, "x4.csv: a .csv file holds a 1-D or 2-D tensor, not [2, 2, 3, 2]: reshape it first "
                         "(e.g. reshape(x, 12, 2)) or write .json, which keeps the shape\n") &&
          !strchr(errbuf, '\n')[1], "%s", errbuf);
    f = fopen(path, "r");
    buf[0] = '\0';
    if (f) {
        buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
        fclose(f);
    }
    CHECK(!strcmp(buf, "old\n"), "x4.csv changed:\n%s", buf);
    unlink(path);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
    CHECK(mkdir(dir, 0700) == 0, "%s", dir);
    snprintf(cmd, sizeof cmd, "shape(x); x[0, 1] > %s/x2.csv; x[1, 0, 2] > %s/x1.csv", dir, dir);
    CHECK(run_in(s, cmd) == 0 && !strcmp(outbuf, "[2, 2, 3, 2]\n"), "%s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    /* as numpy.savetxt(f, a, fmt="%.9g", delimiter=",") writes x[0, 1] and x[1, 0, 2]: a 1-D array
     * one value per line ("4\n4.25\n", which numpy.loadtxt reads back as array([4., 4.25])) */
    static const char *rows[][2] = { { "x2.csv", "1.5,1.75\n2,2.25\n2.5,2.75\n" }, { "x1.csv", "4\n4.25\n" } };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, rows[i][0]);
        f = fopen(path, "r");
        buf[0] = '\0';
        if (f) {
            buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
            fclose(f);
        }
        CHECK(!strcmp(buf, rows[i][1]), "%s:\n%s", rows[i][0], buf);
        unlink(path);
    }
    rmdir(dir);
    CHECK(run("3 > /nonexistent-dir/x.csv") < 0, "writing to a missing folder succeeded");
    /* a picture's errors name its file, not "save:" (the checkpoint command, which was not typed) */
    CHECK(run("h = heatmap(ones(2, 2)); h > h.md") < 0 &&
          !strcmp(errbuf, "t:1:30: h.md: unknown file type '.md' (use .png, .svg, .csv, .json or .txt)\n"), "%s", errbuf);
    CHECK(run("heatmap(ones(2, 2), width=8000, height=8000, scale=3) > /tmp/bl-test-big.png") < 0 &&
          !strcmp(errbuf, "t:1:57: /tmp/bl-test-big.png: 24000 x 24000 pixels is too large (at most 16384 a side)\n"),
          "%s", errbuf);
    CHECK(run("rope check > /nonexistent-dir/r.svg") < 0 &&
          !strcmp(errbuf, "t:1:14: /nonexistent-dir/r.svg: directory '/nonexistent-dir' does not exist\n"), "%s", errbuf);
    CHECK(run("heatmap(ones(2, 2, 2))") < 0, "3-D heatmap accepted");
    CHECK(strstr(errbuf, "t:1:9: heatmap: expects a 2-D tensor, got [2, 2, 2]") != NULL, "%s", errbuf);
}

/* A statement that cannot write its '> FILE' is refused before its command runs: nothing
 * changes (the seed, the variables), nothing is printed and no file (or temporary file) is made. */
BL_TEST(redirect_checked_first)
{
    char dir[] = "/tmp/bl-test-redir.XXXXXX";
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    char cmd[256], want[512];
    CHECK(run_in(s, "x = ones(2)") == 0, "%s", errbuf);
    /* commands that leave no value write only .txt */
    static const char *const stmts[][2] = { { "seed 5", "seed" }, { "del x", "del" } };
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "%s > %s/f.json", stmts[i][0], dir);
        snprintf(want, sizeof want, "t:1:%d: '%s' has no table or picture to write to %s/f.json (its text goes to a "
                 ".txt file)\n", (int)strlen(stmts[i][0]) + 4, stmts[i][1], dir);
        CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s: %s%s", cmd, outbuf, errbuf);
    }
    /* a table is not a picture, a picture not a Markdown table */
    snprintf(cmd, sizeof cmd, "vars > %s/v.png", dir);
    snprintf(want, sizeof want, "t:1:8: %s/v.png: 'vars' makes a table, written as .txt, .csv, .json or .md\n", dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "rope check > %s/r.md", dir);
    snprintf(want, sizeof want, "t:1:14: %s/r.md: 'rope check' makes a picture, written as .txt, .png, .svg, .csv or .json\n",
             dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "qk growth > %s/q.md", dir);   /* the command as typed, sub-command and all */
    snprintf(want, sizeof want, "t:1:13: %s/q.md: 'qk growth' makes a picture, written as .txt, .png, .svg, .csv or .json\n",
             dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    /* the folder too, before the command */
    CHECK(run_in(s, "del x > /nonexistent-dir/x.txt") < 0 &&
          !strcmp(errbuf, "t:1:9: /nonexistent-dir/x.txt: directory '/nonexistent-dir' does not exist\n"), "%s", errbuf);
    CHECK(run_in(s, "seed 7 > /nonexistent-dir/x.csv") < 0 && strstr(errbuf, "t:1:10: ") == errbuf, "%s", errbuf);
    CHECK(run_in(s, "vars > /nonexistent-dir/x.csv") < 0 &&
          !strcmp(errbuf, "t:1:8: /nonexistent-dir/x.csv: directory '/nonexistent-dir' does not exist\n") && !outbuf[0],
          "%s%s", outbuf, errbuf);
    /* a folder where the file would go: refused before the command (the rename failed after it) */
    char sub[64];
    static const char *const exts[] = { "txt", "csv" };
    for (int i = 0; i < 2; i++) {
        snprintf(sub, sizeof sub, "%s/d.%s", dir, exts[i]);
        CHECK(mkdir(sub, 0700) == 0, "%s", sub);
        snprintf(cmd, sizeof cmd, "%s > %s", i ? "vars" : "seed 9", sub);
        snprintf(want, sizeof want, "t:1:%d: %s: is a directory, not a file\n", i ? 8 : 10, sub);
        CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
        if (i < 1) CHECK(rmdir(sub) == 0, "a file was left in %s", sub);
    }
    CHECK(rmdir(sub) == 0, "a file was left in %s", sub);
    CHECK(run_in(s, "seed; shape(x)") == 0 && !strcmp(outbuf, "seed 0\n[2]\n"), "%s%s", outbuf, errbuf);
    /* sample makes text with a TinyGPT model: refused before it samples (nor attaches the text) */
    CHECK(run_in(s, "model gpt dim=32 depth=1 heads=2") == 0, "%s", errbuf);
    snprintf(cmd, sizeof cmd, "sample n=3 > %s/s.png", dir);
    snprintf(want, sizeof want, "t:1:14: %s/s.png: 'sample' makes text, written as .txt or .json\n", dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
}

/* data refuses at once what train would refuse of it with this model (train's message), and the
 * model keeps the data it had: an exam larger than the held-out part, a text shorter than the
 * context (which would otherwise rebuild the model to the text's vocab first) */
BL_TEST(data_checked_when_attached)
{
    char path[] = "/tmp/bl-test-short-XXXXXX.txt", cmd[256], want[512];
    int fd = mkstemps(path, 4);
    if (fd < 0) SKIP("no temporary file");
    CHECK(write(fd, "hello world\n", 12) == 12, "write");
    close(fd);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "model dit dim=32 depth=1 heads=2") == 0, "%s", errbuf);
    CHECK(run_in(s, "data shapes exam=100000") < 0 &&
          !strcmp(errbuf, "t:1:6: data: the exam needs 100000 held-out images but shapes has 10000\n") && !outbuf[0],
          "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "data shapes exam=10") == 0, "%s", errbuf);
    CHECK(run_in(s, "data shapes exam=10001") < 0 &&
          !strcmp(errbuf, "t:1:6: data: the exam needs 10001 held-out images but shapes has 10000\n"), "%s", errbuf);
    CHECK(run_in(s, "data") == 0 &&
          !strcmp(outbuf, "shapes: endless train + 10000 val images 3x32x32, 10 classes, built in (seed 0)\n"),
          "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "model gpt dim=32 depth=1 heads=2 context=32") == 0, "%s", errbuf);
    snprintf(cmd, sizeof cmd, "data text %s", path);
    snprintf(want, sizeof want, "t:1:11: data: text: %s has 12 bytes, fewer than context + 1 = 33\n", path);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    CHECK(truncate(path, 1) == 0, "truncate");   /* one byte is "1 byte" */
    snprintf(want, sizeof want, "t:1:11: data: text: %s has 1 byte, fewer than context + 1 = 33\n", path);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s%s", outbuf, errbuf);
    /* 10 bytes: 9 to train, 1 to validate, and that one is "1 byte" (was "1 bytes") */
    FILE *ten = fopen(path, "w");
    CHECK(ten && fputs("abcdefghij", ten) >= 0 && fclose(ten) == 0, "rewrite %s", path);
    CHECK(run_in(s, "set context=1") == 0, "%s", errbuf);
    snprintf(cmd, sizeof cmd, "data text %s", path);
    snprintf(want, sizeof want, "t:1:11: data: text: %s has 1 byte in its validation part (10%%), fewer "
             "than context + 1 = 2\n", path);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "set context=32") == 0, "%s", errbuf);
    CHECK(run_in(s, "m2.vocab; data") == 0 &&
          !strcmp(outbuf, "65\nno data attached: training uses the built-in text (data KIND [PATH] attaches one)\n"),
          "%s%s", outbuf, errbuf);
    /* images of another size than the model's: refused by data as by train (was attached) */
    CHECK(run_in(s, "model dit dim=32 depth=1 heads=2 image_size=16") == 0, "%s", errbuf);
    CHECK(run_in(s, "data shapes") < 0 &&
          !strcmp(errbuf, "t:1:6: data: the data has 3x32x32 images but the model expects 3x16x16 (set "
                          "channels=3 image_size=32)\n") && !outbuf[0], "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "data") == 0 && !strncmp(outbuf, "no data attached", 16), "%s%s", outbuf, errbuf);
    /* the suggested set must be one set accepts: a patch that divides 32 when 3 does not */
    CHECK(run_in(s, "model dit dim=32 depth=1 heads=2 image_size=30 patch=3") == 0, "%s", errbuf);
    CHECK(run_in(s, "data shapes") < 0 &&
          !strcmp(errbuf, "t:1:6: data: the data has 3x32x32 images but the model expects 3x30x30 (set "
                          "channels=3 image_size=32 patch=2)\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "set channels=3 image_size=32 patch=2; data shapes") == 0, "%s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    unlink(path);
}

/* compare refuses a bad variant (a name twice or taken, a bad key or value, a switch set the data
 * cannot train) at its word before anything is touched: no data attached, no probe-FD probe
 * trained or loaded (fd=on is the TinyDiT default), no output folder, nothing printed */
BL_TEST(compare_refuses_variants_first)
{
    char dir[] = "/tmp/bl-test-cmp.XXXXXX", cache[300], cmd[512], want[512];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    snprintf(cache, sizeof cache, "%s/cache", dir);
    const char *old_cache = getenv("XDG_CACHE_HOME");
    char *saved = old_cache ? strdup(old_cache) : NULL;
    setenv("XDG_CACHE_HOME", cache, 1);
    static const char *const cases[][2] = {
        { "compare baseline a=dim:64 a=dim:32", "t:1:27: compare: key 'a' given twice\n" },
        { "compare a a", "t:1:11: compare: variant 'a' is named twice\n" },
        /* words are split at white space: a lone '=' or a key without a value is refused */
        { "compare baseline =norm:rmsnorm", "t:1:18: compare: '=' without a key before it (KEY=VALUE, with no "
                                            "space before '=')\n" },
        { "compare baseline other =qk_norm:on", "t:1:24: compare: '=' without a key before it (KEY=VALUE, with "
                                                "no space before '=')\n" },
        { "compare a fd=off =", "t:1:18: compare: '=' without a key before it (KEY=VALUE, with no space before "
                                "'=')\n" },
        { "compare a x=", "t:1:11: compare: x= without a value (KEY=VALUE, with no space after '=')\n" },
        { "compare a x= norm:rmsnorm", "t:1:11: compare: x= without a value (KEY=VALUE, with no space after "
                                       "'=')\n" },
        { "compare a x=norm:rmsnorm,", "t:1:13: compare: norm:rmsnorm,: an empty KEY:VALUE pair (a ',' too "
                                       "many)\n" },
        { "compare a x=,norm:rmsnorm", "t:1:13: compare: ,norm:rmsnorm: an empty KEY:VALUE pair (a ',' too "
                                       "many)\n" },
        { "compare a x=norm:rmsnorm,norm:layernorm", "t:1:13: compare: norm:rmsnorm,norm:layernorm: norm is "
                                                     "given twice\n" },
        { "compare a steps=0", "t:1:19: compare: key 'steps' given twice\n" },
        { "compare a seed2", "t:1:11: compare: 'seed2' is the name of the reference's seed + 1 run; pick another\n" },
        /* qk_norm's values are fixed (off, on): a new norm value needs no edit here */
        { "compare a b=qk_norm:bogus", "t:1:13: compare: qk_norm:bogus: qk_norm: unknown value 'bogus' (one of: off,on)\n" },
        { "compare a b=steps:5", "t:1:13: compare: steps:5: steps is the comparison's own (set it with compare ... "
                                 "steps=N), not a variant's\n" },
        { "compare a b=image_size:16", "t:1:13: compare: b: the data has 3x32x32 images but the model expects "
                                       "3x16x16 (set channels=3 image_size=32)\n" },
    };
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "model dit dim=16 depth=1 heads=2 batch=2") == 0, "%s", errbuf);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(cmd, sizeof cmd, "%s steps=2 n=2 probe_steps=1 dir=%s/out", cases[i][0], dir);
        snprintf(want, sizeof want, "%s", cases[i][1]);
        CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s:\n%s%s", cmd, outbuf, errbuf);
        CHECK(run_in(s, "data") == 0 && !strncmp(outbuf, "no data attached", 16), "%s: %s", cmd, outbuf);
        CHECK(access(cache, F_OK) != 0, "%s: the probe cache %s was made", cmd, cache);
        snprintf(want, sizeof want, "%s/out", dir);
        CHECK(access(want, F_OK) != 0, "%s: the output folder was made", cmd);
    }
    /* the folder is checked before the data is attached or the probe trained */
    char file[64];
    snprintf(file, sizeof file, "%s/file", dir);
    FILE *f = fopen(file, "w");
    CHECK(f && fclose(f) == 0, "%s", file);
    const char *const dirs[][2] = {
        { "/proc/nope", "t:1:56: compare: /proc/nope: No such file or directory\n" },
        { file, NULL },
    };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(cmd, sizeof cmd, "compare a b=norm:rmsnorm steps=2 n=2 probe_steps=1 dir=%s", dirs[i][0]);
        if (dirs[i][1]) snprintf(want, sizeof want, "%s", dirs[i][1]);
        else snprintf(want, sizeof want, "t:1:56: compare: %s: exists and is not a folder\n", file);
        CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !outbuf[0], "%s:\n%s%s", cmd, outbuf, errbuf);
        CHECK(run_in(s, "data") == 0 && !strncmp(outbuf, "no data attached", 16), "%s: %s", cmd, outbuf);
        CHECK(access(cache, F_OK) != 0, "%s: the probe cache %s was made", cmd, cache);
    }
    bl_models_free(s);
    bl_session_free(s);
    if (saved) setenv("XDG_CACHE_HOME", saved, 1);
    else unsetenv("XDG_CACHE_HOME");
    free(saved);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* One error, one line: an error inside a sourced file is shown once, at its FILE:LINE:COL (the
 * values it made are kept); a file that sources itself says so once; no doubled prefixes, no
 * internal shapes, "1 argument" */
BL_TEST(one_error_one_line)
{
    char dir[] = "/tmp/bl-test-src.XXXXXX", path[256], cmd[300], want[512];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    static const char *const files[][2] = { { "s.bl", "x = 1\nprint(\"in s\")\nsource s.bl\n" },
                                            { "inner.bl", "y = 2\nz = nope\n" },
                                            { "a.bl", "print(\"in a\")\nsource b.bl\n" },
                                            { "b.bl", "print(\"in b\")\nsource a.bl\n" } };
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        FILE *f = fopen(path, "w");
        if (f) fputs(files[i][1], f), fclose(f);
    }
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    snprintf(cmd, sizeof cmd, "source %s/s.bl", dir);
    /* refused when met, before the file's statements run a second time */
    snprintf(want, sizeof want, "%s/s.bl:3:8: source: s.bl sources itself\n", dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !strcmp(outbuf, "in s\n"), "%s%s", outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "source %s/a.bl", dir);
    snprintf(want, sizeof want, "%s/b.bl:2:8: source: a.bl is already running (files that source each other)\n", dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want) && !strcmp(outbuf, "in a\nin b\n"), "%s%s", outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "source %s/inner.bl", dir);
    snprintf(want, sizeof want, "%s/inner.bl:2:5: unknown name 'nope'\n", dir);
    CHECK(run_in(s, cmd) < 0 && !strcmp(errbuf, want), "%s", errbuf);
    CHECK(run_in(s, "x + y") == 0 && !strcmp(outbuf, "3\n"), "%s%s", outbuf, errbuf);
    static const struct { const char *src, *err; } cases[] = {
        { "rope table head_dim=3", "t:1:12: rope table: head_dim must be even and >= 2, got 3\n" },
        { "apply_rope(ones(6, 8), rope_table(5, 8))",
          "t:1:24: apply_rope: x [6, 8] needs a table [2, 6, 8] (T, head_dim), got [2, 5, 8]\n" },
        { "load()", "t:1:1: load: expected at least 1 argument, got 0 (load(\"file.safetensors\", \"name\", grad=off))\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(run_in(s, cases[i].src) < 0 && !strcmp(errbuf, cases[i].err), "%s: %s", cases[i].src, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
        unlink(path);
    }
    CHECK(rmdir(dir) == 0, "%s was left behind", dir);
}

/* help: help functions lists each function's synopsis and the first sentence of its help, one
 * line (the manual says so; help NAME has all of it), a command with its sub-command as a topic,
 * and a command key pointing to the commands that take it */
BL_TEST(help_topics)
{
    CHECK(run("help functions") == 0, "%s", errbuf);
    CHECK(strstr(outbuf, "  var(x, dim=, keepdim=off, unbiased=on, correction=1)\n"
                         "      The variance of x, or along dimension dim.\n"
                         "  std("), "%s", outbuf);
    /* "e.g." and "..." end no sentence; a '.' before a lower-case word does */
    CHECK(strstr(outbuf, "      The shape of x as a list, e.g. [4, 64, 128].\n"), "%s", outbuf);
    CHECK(strstr(outbuf, "      The 1-D tensor start, start+step, ... below stop (NumPy's arange).\n"), "%s", outbuf);
    CHECK(strstr(outbuf, "  attention(q, k, v, causal=off, scale=, weights=off, mask=, additive=)\n"
                         "      Scaled dot-product attention: softmax(q k^T * scale + mask) v.\n"
                         "  allclose("), "%s", outbuf);
    CHECK(strstr(outbuf, "  rope_table(T, hd, base=10000, offset=0)\n  rope_table(gh, gw, hd, base=100, prefix=0)\n"),
          "%s", outbuf);
    /* every function: its synopsis (a line per form), then one line of at most 79 columns */
    int want = 0, lines = 0, longest = 0;
    const bl_function *f;
    for (int fi = 0; (f = bl_function_at(fi)); fi++) {
        want += 2;
        for (const char *p = strstr(f->synopsis, " | "); p; p = strstr(p + 3, " | ")) want++;
    }
    for (const char *p = outbuf; *p; lines++) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        if (len > longest) longest = len;
        p += len + (nl != NULL);
    }
    CHECK(lines == want && longest <= 79, "help functions: %d lines (want %d), the longest %d columns:\n%s", lines,
          want, longest, outbuf);
    static const struct { const char *text; size_t len; } sentences[] = {
        { "Ends here. Not here.", 10 }, { "As in (Ba et al. 2016). next", 23 }, { "e.g. this. x", 10 },
        { "0, 1, ... by default. y", 21 }, { "x.T does. y", 9 }, { "no period", 9 }, { "end.", 4 },
    };
    for (size_t i = 0; i < sizeof sentences / sizeof *sentences; i++)
        CHECK(bl_first_sentence(sentences[i].text) == sentences[i].len, "'%s': first sentence of %zu bytes",
              sentences[i].text, bl_first_sentence(sentences[i].text));
    CHECK(run("help var") == 0 && strstr(outbuf, "unbiased=off (correction=0) divides by n, as inside LayerNorm."), "%s", outbuf);
    static const char *const subs[][2] = { { "plot loss", "plot loss [" }, { "rope check", "rope table|check [" },
                                           { "qk growth", "qk growth [" } };
    char cmd[64];
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "help %s", subs[i][0]);
        CHECK(run(cmd) == 0 && strstr(outbuf, subs[i][1]) == outbuf, "%s: %s%s", cmd, outbuf, errbuf);
    }
    CHECK(run("help plot foo") < 0 && !strcmp(errbuf, "t:1:11: help: 'plot foo' is not a command with its "
                                                      "sub-command (help [TOPIC], help CMD SUB)\n"), "%s", errbuf);
    /* keys name the commands as typed: with the sub-commands that take them */
    CHECK(run("help smooth") < 0 &&
          !strcmp(errbuf, "t:1:6: help: no topic 'smooth'; smooth= is a key of lengen, plot loss (help lengen)\n"),
          "%s", errbuf);
    CHECK(run("help width") < 0 &&
          !strcmp(errbuf, "t:1:6: help: no topic 'width'; width= is a key of sample, lengen, plot loss, attn, stats, "
                          "rope table, rope check, qk growth, heatmap(), lineplot() (help sample)\n"), "%s", errbuf);
    CHECK(run("help dr") < 0 && !strcmp(errbuf, "t:1:6: help: no topic 'dr'; dr= is a key of rope check (help rope check)\n"),
          "%s", errbuf);
    CHECK(run("help layer") < 0 && !strcmp(errbuf, "t:1:6: help: no topic 'layer'; layer= is a key of attn, stats (help attn)\n"),
          "%s", errbuf);
}

/* The documentation says what blocklab does: every file quickstart.bl writes is in its header,
 * the man page's FILES has the probe cache, the spike rule is in help train and the manual,
 * sample is not said to give a value; randn refuses std < 0 (torch.normal: "normal expects
 * std >= 0.0") */
static int read_src(const char *rel, char *buf, size_t n)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    buf[fread(buf, 1, n - 1, f)] = '\0';
    fclose(f);
    return 0;
}

BL_TEST(docs_match_behaviour)
{
    static char man[1 << 18], qs[1 << 14], run_bl[1 << 14];
    if (read_src("man/blocklab.1", man, sizeof man) < 0 || read_src("examples/quickstart.bl", qs, sizeof qs) < 0 ||
        read_src("examples/quickstart-run.bl", run_bl, sizeof run_bl) < 0)
        SKIP("sources not found (set BL_SRCDIR)");
    char *hdr_end = strstr(qs, "\nmodel ");
    if (hdr_end) *hdr_end = '\0';
    int files = 0;
    for (const char *p = strstr(run_bl, "> "); p; p = strstr(p + 1, "> ")) {
        char name[128];
        if (sscanf(p + 2, "%127s", name) != 1) continue;
        files++;
        CHECK(strstr(qs, name) != NULL, "quickstart.bl's header does not name %s", name);
    }
    CHECK(files == 5, "%d files", files);
    const char *fs = strstr(man, ".SH FILES"), *env = strstr(man, ".SH ENVIRONMENT");
    const char *probe = strstr(man, "probe-*.safetensors");
    CHECK(fs && env && probe && probe > fs && probe < env, "the probe cache is not in FILES");
    CHECK(!strstr(man, "the value is a grid"), "the manual gives sample a value");
    CHECK(strstr(man, "1.5 times the median loss of the") != NULL, "the spike rule is not in the manual");
    CHECK(run("help train") == 0 && strstr(outbuf, "above 1.5x the median of the previous 100"), "%s", outbuf);
    CHECK(run("randn(2, std=-1)") < 0 && !strcmp(errbuf, "t:1:14: randn: std must be >= 0, got -1\n"), "%s", errbuf);
    CHECK(run("randn(2, std=0)") == 0 && !strcmp(outbuf, "tensor([0., 0.], shape=[2], dtype=float32)\n"), "%s%s",
          outbuf, errbuf);
}

BL_TEST(load_safetensors)
{
    char path[] = "/tmp/bl-test-repl-XXXXXX.safetensors";
    int fd = mkstemps(path, 12);
    if (fd < 0) SKIP("no temporary file");
    close(fd);
    float w[6] = { 1, 2, 3, 4, 5, 6 };
    bl_tensor *t = bl_tensor_from(2, (int[]){ 2, 3 }, w);
    const char *names[] = { "blocks.0.w" };
    const bl_tensor *ts[] = { t };
    CHECK(bl_st_write(path, 1, names, ts, 0, NULL, NULL) == 0, "%s", bl_error());
    bl_tensor_free(t);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "w = load(\"%s\", \"blocks.0.w\"); w[1]; sum(w); load(\"%s\")", path, path);
    CHECK(run(cmd) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "tensor([4., 5., 6.], shape=[3], dtype=float32)\n21\n"
                          "name        shape   elements  dtype\nblocks.0.w  [2, 3]         6  F32\n"),
          "%s", outbuf);
    snprintf(cmd, sizeof cmd, "load(\"%s\", \"nope\")", path);
    CHECK(run(cmd) < 0 && strstr(errbuf, "has no tensor 'nope'"), "%s", errbuf);
    /* a 5-D tensor and a size-0 one (torch.empty(0, 3)) are listed; only loading them is refused */
    static const char hdr[] = "{\"ok\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                              "\"five\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1],\"data_offsets\":[4,8]},"
                              "\"empty\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[8,8]}}";
    FILE *hf = fopen(path, "wb");
    if (hf) {
        unsigned char len[8] = { sizeof hdr - 1 };
        float vals[2] = { 2.5f, 7 };
        fwrite(len, 1, 8, hf);
        fwrite(hdr, 1, sizeof hdr - 1, hf);
        fwrite(vals, 4, 2, hf);
        fclose(hf);
    }
    snprintf(cmd, sizeof cmd, "load(\"%s\"); load(\"%s\", \"ok\")", path, path);
    CHECK(run(cmd) == 0, "%s", errbuf);
    CHECK(!strcmp(outbuf, "name   shape            elements  dtype\n"
                          "ok     [1]                     1  F32\n"
                          "five   [1, 1, 1, 1, 1]         1  F32\n"
                          "empty  [0, 3]                  0  F32\n"
                          "tensor([2.5000], shape=[1], dtype=float32)\n"), "%s", outbuf);
    snprintf(cmd, sizeof cmd, "load(\"%s\", \"five\")", path);
    CHECK(run(cmd) < 0 && strstr(errbuf, "tensor five has 5 dimensions (shape [1, 1, 1, 1, 1]); blocklab "
                                         "tensors have at most 4") && strstr(errbuf, "t:1:"),
          "%s", errbuf);
    snprintf(cmd, sizeof cmd, "load(\"%s\", \"empty\")", path);
    CHECK(run(cmd) < 0 && strstr(errbuf, "tensor empty has shape [0, 3], no elements"), "%s", errbuf);
    /* a malformed file: one line, no crash */
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite("\xff\xff\xff\xff\xff\xff\xff\x7f{}", 1, 10, f);
        fclose(f);
    }
    snprintf(cmd, sizeof cmd, "load(\"%s\", \"w\")", path);
    CHECK(run(cmd) < 0 && strstr(errbuf, "t:1:6: safetensors: ") && !strchr(strchr(errbuf, '\n') + 1, '\n'),
          "%s", errbuf);
    unlink(path);
    CHECK(run("load(\"/nonexistent.safetensors\", \"w\")") < 0 && strstr(errbuf, "t:1:6:"), "%s", errbuf);
}

BL_TEST(interrupt_flag)
{
    bl_interrupt_install();
    bl_interrupt_clear();
    CHECK(!bl_interrupted(), "flag set");
    raise(SIGINT);
    CHECK(bl_interrupted(), "SIGINT did not set the flag");
    bl_interrupt_clear();
    CHECK(!bl_interrupted(), "flag not cleared");
    /* Ctrl-C during a TinyDiT sample: one plain line, as train's, no error and nothing written */
    char dir[] = "/tmp/bl-test-int.XXXXXX", cmd[256];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    s->interactive = 1;
    CHECK(run_in(s, "model dit dim=32 depth=1 heads=2") == 0, "%s", errbuf);
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "sample n=2 steps=5");
        if (i) snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " > %s/s.png", dir);
        raise(SIGINT);
        CHECK(run_in(s, cmd) == 0 && !errbuf[0] &&
              !strcmp(outbuf, "sample: interrupted at Euler step 1 of 5 for images 1-2 of 2 (no picture made)\n"),
              "%s: %s%s", cmd, outbuf, errbuf);
        /* reported by the command, so the prompt does not say it again, but still set: the rest
         * of the line stops too; the prompt clears it */
        CHECK(bl_interrupted() && bl_interrupt_was_reported(), "%s: the interrupt is reported and kept", cmd);
        bl_interrupt_clear();
    }
    bl_models_free(s);
    bl_session_free(s);
    CHECK(rmdir(dir) == 0, "a file was left in %s", dir);
}

/* At the prompt, as in bash and Python, Ctrl-C abandons the rest of the line (and of a sourced
 * file), and what was assigned before it is kept; an assignment whose long computation it hit is
 * abandoned too (the name keeps its value). The flag stays set until the prompt clears it. */
BL_TEST(interrupt_stops_the_line)
{
    bl_interrupt_install();
    bl_interrupt_clear();
    char path[] = "/tmp/bl-test-int-src.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) SKIP("no temporary file");
    const char *text = "train 100000000 quiet=on\nin_file = 1\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
    close(fd);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    s->interactive = 1;
    CHECK(run_in(s, "model gpt dim=16 depth=1 heads=2 batch=2 context=8 eval_every=0; data text") == 0, "%s", errbuf);
    timer_t t = ctrl_c_in(300);
    CHECK(run_in(s, "before = 1; train 100000000 quiet=on; after = 2; print(\"rest\")") == 0, "%s", errbuf);
    timer_delete(t);
    CHECK(strstr(outbuf, "train: interrupted after step") && !strstr(outbuf, "rest"), "%s", outbuf);
    CHECK(bl_interrupted() && bl_interrupt_was_reported(), "the flag was cleared before the prompt");
    bl_interrupt_clear();
    CHECK(run_in(s, "print(before, m1.run.steps > 0)") == 0 && !strcmp(outbuf, "1 true\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "after") < 0, "the statement after the interrupted train ran");
    /* a sourced file stops at Ctrl-C, and so does the line that sourced it */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "source %s; after_source = 1", path);
    t = ctrl_c_in(300);
    CHECK(run_in(s, cmd) == 0, "%s", errbuf);
    timer_delete(t);
    bl_interrupt_clear();
    CHECK(run_in(s, "in_file") < 0 && run_in(s, "after_source") < 0, "the source went on after Ctrl-C");
    /* a long product has no safe point: it ends, but its assignment and the rest are abandoned */
    CHECK(run_in(s, "big = 1") == 0, "%s", errbuf);
    t = ctrl_c_in(2);
    CHECK(run_in(s, "big = randn(2000, 2000) @ randn(2000, 2000); more = 1") == 0, "%s", errbuf);
    timer_delete(t);
    CHECK(bl_interrupted() && !bl_interrupt_was_reported() && !outbuf[0] && !errbuf[0], "%s%s", outbuf, errbuf);
    bl_interrupt_clear();
    CHECK(run_in(s, "big") == 0 && !strcmp(outbuf, "1\n"), "the interrupted assignment was made: %s", outbuf);
    CHECK(run_in(s, "more") < 0, "the statement after the interrupted one ran");
    bl_models_free(s);
    bl_session_free(s);
    unlink(path);
}

/* A terminal echoes a typed Ctrl-C as ^C with no newline: the message about it starts a line of
 * its own there, once; on a file (a transcript) nothing is added. */
/* Up to n bytes from fd, waiting up to 1 s for each (a pseudo-terminal hands over what has
 * arrived so far: one read may see "\r\n" before the "x" written after it). */
static ssize_t read_upto(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 1000) <= 0) break;
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

BL_TEST(interrupt_message_on_a_fresh_line)
{
    bl_interrupt_install();
    bl_interrupt_clear();
    FILE *file = tmpfile();
    raise(SIGINT);
    bl_interrupt_newline(file);
    CHECK(ftell(file) == 0, "a newline went to a file");
    fclose(file);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) SKIP("no pseudo-terminal");
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    FILE *tty = slave >= 0 ? fdopen(slave, "w") : NULL;
    if (!tty) SKIP("no pseudo-terminal");
    bl_interrupt_newline(tty);
    bl_interrupt_newline(tty);      /* once per Ctrl-C */
    fputs("x", tty);
    fflush(tty);
    char got[16] = "";
    ssize_t n = read_upto(master, got, 3);
    CHECK(n == 3 && !memcmp(got, "\r\nx", 3), "the terminal got %zd bytes '%.*s'", n, (int)(n > 0 ? n : 0), got);
    /* a progress line redrawn over the ^C needs none */
    raise(SIGINT);
    bl_interrupt_echo_overwritten();
    bl_interrupt_newline(tty);
    fputs("y", tty);
    fflush(tty);
    n = read_upto(master, got, 2);   /* a second byte would be a stray newline */
    CHECK(n == 1 && got[0] == 'y', "after an overwritten ^C the terminal got %zd bytes", n);
    bl_interrupt_clear();
    fclose(tty);
    close(master);
}

/* Every command and function has a synopsis, help text and an entry in man/blocklab.1: a line
 * ".B NAME" (commands) or ".B NAME(" (functions). */
static int man_has(const char *man, const char *name, int fn)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\n.B %s%s", name, fn ? "(" : "");
    for (const char *p = strstr(man, pat); p; p = strstr(p + 1, pat)) {
        char c = p[strlen(pat)];
        if (fn || c == ' ' || c == '\n') return 1;
    }
    return 0;
}

BL_TEST(help_and_manual_cover_everything)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/man/blocklab.1", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f) SKIP("man/blocklab.1 not found (set BL_SRCDIR)");
    static char man[1 << 18];
    man[fread(man, 1, sizeof man - 1, f)] = '\0';
    fclose(f);
    int nc = 0, nf = 0;
    for (const bl_command *const *cp = bl_commands; *cp; cp++, nc++) {
        const bl_command *c = *cp;
        CHECK(c->synopsis && !strncmp(c->synopsis, c->name, strlen(c->name)), "%s: synopsis", c->name);
        CHECK(c->help && strlen(c->help) > 10, "command %s has no help text", c->name);
        /* `help` lists the first line of each next to the synopsis: it must fit 80 columns */
        CHECK(c->help && strcspn(c->help, "\n") <= 50, "command %s: the first line of its help is "
              "longer than 50 characters", c->name);
        CHECK(c->run != NULL, "command %s has no handler", c->name);
        CHECK(man_has(man, c->name, 0), "command %s has no entry in man/blocklab.1", c->name);
    }
    const bl_function *fn;
    for (int fi = 0; (fn = bl_function_at(fi)); fi++, nf++) {
        CHECK(fn->synopsis && !strncmp(fn->synopsis, fn->name, strlen(fn->name)), "%s: synopsis", fn->name);
        CHECK(fn->help && strlen(fn->help) > 10, "function %s has no help text", fn->name);
        CHECK(man_has(man, fn->name, 1), "function %s has no entry in man/blocklab.1", fn->name);
    }
    CHECK(nc >= 14 && nf >= 30, "%d commands, %d functions", nc, nf);
    /* help NAME works for each */
    for (const bl_command *const *cp = bl_commands; *cp; cp++) {
        const bl_command *c = *cp;
        char cmd[64];
        snprintf(cmd, sizeof cmd, "help %s", c->name);
        CHECK(run(cmd) == 0 && !strncmp(outbuf, c->synopsis, strlen(c->synopsis)), "help %s:\n%s", c->name, outbuf);
    }
}

/* Is word in text between characters that are not letters or digits? */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if ((p == text || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n])) return 1;
    return 0;
}

/* The file formats `>` writes (the parser's list) are all named by help language, by the man
 * page's "Output redirection" paragraph and by README.md */
BL_TEST(redirect_formats_documented)
{
    const char *src = getenv("BL_SRCDIR");
    char path[4096];
    static char man[1 << 18], readme[1 << 16];
    char *texts[] = { man, readme };
    const char *files[] = { "man/blocklab.1", "README.md" };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", src ? src : ".", files[i]);
        FILE *f = fopen(path, "r");
        if (!f) SKIP("man/blocklab.1 or README.md not found (set BL_SRCDIR)");
        texts[i][fread(texts[i], 1, (i ? sizeof readme : sizeof man) - 1, f)] = '\0';
        fclose(f);
    }
    char *par = strstr(man, "\\fBOutput redirection"), *end = par ? strstr(par, "\n.PP") : NULL;
    CHECK(par && end, "no Output redirection paragraph in the man page");
    if (!par || !end) return;
    *end = '\0';
    char *line = strstr(readme, "`cmd ... > file.png`"), *stop = line ? strstr(line, "\n\n") : NULL;
    CHECK(line && stop, "README.md does not describe `cmd ... > file.png`");
    if (!line || !stop) return;
    *stop = '\0';
    CHECK(run("help language") == 0, "%s", errbuf);
    for (const char *const *e = bl_redirect_exts; *e; e++) {
        char bold[32];
        snprintf(bold, sizeof bold, "\\fB%s\\fR", *e);
        CHECK(has_word(outbuf, *e), "help language does not name %s:\n%s", *e, outbuf);
        CHECK(strstr(par, bold) != NULL, "the man page's Output redirection does not name %s", *e);
        CHECK(has_word(line, *e), "README.md does not name %s:\n%s", *e, line);
    }
}

/* train's progress bar never wraps: on 80 columns it is 20 marks, on 40 it shrinks to what is
 * left (39 - 31 - 3 = 5 marks), below 4 it is left out, and only then is the text cut. */
BL_TEST(progress_line_fits)
{
    char line[256];
    bl_progress_line(line, sizeof line, 80, 300, 600, "step 300  loss 1.5000");
    CHECK(!strcmp(line, "[##########..........] step 300  loss 1.5000"), "80 columns: '%s'", line);
    bl_progress_line(line, sizeof line, 40, 600, 600, "step 600  loss 0.1234  0.5 it/s");
    CHECK(!strcmp(line, "[#####] step 600  loss 0.1234  0.5 it/s"), "40 columns: '%s'", line);
    bl_progress_line(line, sizeof line, 40, 1, 2, "step 600  loss 0.1234  val 0.56  1 it/s");
    CHECK(!strcmp(line, "step 600  loss 0.1234  val 0.56  1 it/s"), "no room for a bar: '%s'", line);
    bl_progress_line(line, sizeof line, 40, 1, 2, "step 600  loss 0.0123  val 0.0456  45.2 it/s");
    CHECK(!strcmp(line, "step 600  loss 0.0123  val 0.0456  45.2"), "cut to 39 columns: '%s'", line);
}

/* The ETA is always shown once there is a rate (train 100000 lost it: it came last on the line,
 * which was cut first); in h:mm:ss / m:ss as dash writes it (it was "ETA 158s"). Where the text
 * does not fit the line, the rate goes first, then the val loss; the bar takes what room is left
 * (80 columns: 16 marks, 60: 8, 45: 5, 40: none) and only then is the text cut. */
BL_TEST(progress_text_keeps_the_eta)
{
    const char *head = "step 12345  loss 2.4309", *val = "  val 2.6568", *rate = "  815.4 it/s";
    char eta[32], dur[16], text[256], line[256];
    snprintf(eta, sizeof eta, "  ETA %s", bl_fmt_duration(dur, sizeof dur, 5025.9));
    CHECK(!strcmp(eta, "  ETA 1:23:45"), "'%s'", eta);
    bl_progress_text(text, sizeof text, 80, head, val, rate, eta);
    bl_progress_line(line, sizeof line, 80, 12345, 100000, text);
    CHECK(!strcmp(line, "[#...............] step 12345  loss 2.4309  val 2.6568  815.4 it/s  ETA 1:23:45"),
          "80 columns: '%s'", line);
    bl_progress_text(text, sizeof text, 60, head, val, rate, eta);
    bl_progress_line(line, sizeof line, 60, 12345, 100000, text);
    CHECK(!strcmp(line, "[........] step 12345  loss 2.4309  val 2.6568  ETA 1:23:45"), "60 columns: '%s'", line);
    bl_progress_text(text, sizeof text, 45, head, val, rate, eta);
    bl_progress_line(line, sizeof line, 45, 12345, 100000, text);
    CHECK(!strcmp(line, "[.....] step 12345  loss 2.4309  ETA 1:23:45"), "45 columns: '%s'", line);
    bl_progress_text(text, sizeof text, 40, head, val, rate, eta);
    bl_progress_line(line, sizeof line, 40, 12345, 100000, text);
    CHECK(!strcmp(line, "step 12345  loss 2.4309  ETA 1:23:45"), "40 columns: '%s'", line);
    bl_progress_text(text, sizeof text, 30, head, val, rate, eta);
    bl_progress_line(line, sizeof line, 30, 12345, 100000, text);
    CHECK(strlen(line) == 29 && !strncmp(line, "step 12345  loss 2.4309  ETA", 28), "30 columns: '%s'", line);
    bl_progress_text(text, sizeof text, 80, head, val, "", "");   /* no rate yet: no ETA */
    CHECK(!strcmp(text, "step 12345  loss 2.4309  val 2.6568"), "'%s'", text);
}

/* load reopens the text a TinyGPT was trained on; when that file now holds as many distinct bytes
 * but other ones, its token ids would stand for other characters than the checkpoint's vocabulary:
 * the data is not attached (it was, and sample decoded with the wrong characters). */
BL_TEST(load_checks_the_texts_vocabulary)
{
    char dir[] = "/tmp/bl-test-vocab-XXXXXX", text[64], ck[64], cmd[512];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    snprintf(text, sizeof text, "%s/t.txt", dir);
    snprintf(ck, sizeof ck, "%s/ck.safetensors", dir);
    FILE *f = fopen(text, "w");
    for (int i = 0; f && i < 60; i++) fputs("the quick brown fox jumps over the lazy dog. ", f);
    if (f) fclose(f);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    snprintf(cmd, sizeof cmd, "model gpt dim=16 depth=1 heads=2 batch=2 context=8 eval_every=0; data text %s; "
             "train 2 quiet=on; save %s", text, ck);
    CHECK(run_in(s, cmd) == 0, "%s", errbuf);
    snprintf(cmd, sizeof cmd, "load %s name=a", ck);
    CHECK(run_in(s, cmd) == 0 && strstr(outbuf, "step 2, data text"), "the same text: %s%s", outbuf, errbuf);
    f = fopen(text, "w");   /* 'z' becomes 'Z': as many distinct bytes (28), one of them another */
    for (int i = 0; f && i < 60; i++) fputs("the quick brown fox jumps over the laZy dog. ", f);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "load %s name=b", ck);
    CHECK(run_in(s, cmd) == 0 && strstr(outbuf, "are not the checkpoint's vocabulary): not attached") &&
          strstr(outbuf, "step 2 kept"), "another text of as many bytes: %s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    remove(text);
    remove(ck);
    rmdir(dir);
}

/* The metadata value `key` of checkpoint path, parsed (json_decref it), or NULL. */
static json_t *ckpt_meta(const char *path, const char *key)
{
    bl_st_file *f = bl_st_read(path);
    const char *v = f ? bl_st_meta(f, key) : NULL;
    json_t *j = v ? json_loads(v, JSON_DECODE_ANY, NULL) : NULL;
    bl_st_free(f);
    return j;
}

/* A checkpoint loaded while its data cannot be reopened (the text file moved) keeps its run until
 * data is attached: save wrote step 0 and no history, moments or data position, so saving it
 * again (over itself too) lost the run. Now save writes it back byte for byte; show, m.run and
 * plot loss show the checkpoint's run; and once the text is attached again the run goes on
 * exactly as the uninterrupted one. */
BL_TEST(loaded_run_kept_without_its_data)
{
    char dir[] = "/tmp/bl-test-held-XXXXXX", text[64], moved[64], a[64], b[64], c[64], d[64], csv[64], cmd[1024];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    snprintf(text, sizeof text, "%s/t.txt", dir);
    snprintf(moved, sizeof moved, "%s/moved.txt", dir);
    snprintf(a, sizeof a, "%s/a.safetensors", dir);
    snprintf(b, sizeof b, "%s/b.safetensors", dir);
    snprintf(c, sizeof c, "%s/c.safetensors", dir);
    snprintf(d, sizeof d, "%s/d.safetensors", dir);
    snprintf(csv, sizeof csv, "%s/loss.csv", dir);
    FILE *f = fopen(text, "w");
    for (int i = 0; f && i < 60; i++) fputs("the quick brown fox jumps over the lazy dog. ", f);
    if (f) fclose(f);
    bl_session *s1 = bl_session_new(0), *s2 = bl_session_new(0);
    bl_models_init(s1);
    bl_models_init(s2);
    snprintf(cmd, sizeof cmd, "model gpt dim=16 depth=1 heads=2 batch=2 context=8 eval_every=2; data text %s exam=4; "
             "train 3 quiet=on; save %s", text, a);
    CHECK(run_in(s1, cmd) == 0, "%s", errbuf);
    CHECK(rename(text, moved) == 0, "rename");
    snprintf(cmd, sizeof cmd, "load %s", a);
    CHECK(run_in(s2, cmd) == 0 && strstr(outbuf, "cannot reopen the data") && strstr(outbuf, "step 3 kept"), "%s%s",
          outbuf, errbuf);
    /* the checkpoint's run, as show, m.run and plot loss report it */
    char want[128];
    snprintf(want, sizeof want, "the checkpoint's run was on text %s)\n", text);
    CHECK(run_in(s2, "show") == 0 && strstr(outbuf, want) && strstr(outbuf, "  run       step 3 from a checkpoint, loss ") &&
          strstr(outbuf, " @2 (data KIND [PATH] to continue)\n"), "show: %s%s", outbuf, errbuf);
    CHECK(run_in(s2, "m1.run.steps; numel(m1.run.loss); m1.run.val[:, 0]") == 0 &&
          !strncmp(outbuf, "3\n3\ntensor([0., 2.]", 19), "m.run: %s%s", outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "plot loss > %s", csv);
    CHECK(run_in(s2, cmd) == 0, "plot loss: %s", errbuf);
    static char rows[4096];
    f = fopen(csv, "r");
    rows[f ? fread(rows, 1, sizeof rows - 1, f) : 0] = 0;
    if (f) fclose(f);
    CHECK(strstr(rows, "m1,raw,3,") && strstr(rows, "m1,val,2,"), "plot loss > csv:\n%s", rows);
    /* saved again, and over itself: the same file */
    char why[256];
    snprintf(cmd, sizeof cmd, "save %s", b);
    CHECK(run_in(s2, cmd) == 0 && strstr(outbuf, "step 3, ") && strstr(outbuf, "optimizer state and history"), "%s%s",
          outbuf, errbuf);
    CHECK(ckpt_same(a, b, why, sizeof why), "save after load: %s", why);
    snprintf(cmd, sizeof cmd, "save %s", a);
    CHECK(run_in(s2, cmd) == 0, "%s", errbuf);
    CHECK(ckpt_same(b, a, why, sizeof why), "save over the loaded file: %s", why);
    /* the text attached again (at its new path): the run goes on as the uninterrupted one */
    snprintf(cmd, sizeof cmd, "data text %s exam=4; train 3 quiet=on; save %s", moved, c);
    CHECK(run_in(s2, cmd) == 0, "%s", errbuf);
    snprintf(cmd, sizeof cmd, "train 3 quiet=on; save %s", d);
    CHECK(run_in(s1, cmd) == 0, "%s", errbuf);
    json_t *hc = ckpt_meta(c, "history"), *hd = ckpt_meta(d, "history"), *dc = ckpt_meta(c, "data"),
           *dd = ckpt_meta(d, "data");
    const char *keys[] = { "steps", "items", "loss", "val", "lr", "spikes" };
    for (int i = 0; i < 6; i++)
        CHECK(hc && hd && json_equal(json_object_get(hc, keys[i]), json_object_get(hd, keys[i])),
              "history \"%s\" differs from the uninterrupted run's", keys[i]);
    CHECK(dc && dd && json_equal(json_object_get(dc, "drawn"), json_object_get(dd, "drawn")) &&
          json_integer_value(json_object_get(dd, "drawn")) == 12, "data position");
    json_decref(hc);
    json_decref(hd);
    json_decref(dc);
    json_decref(dd);
    bl_st_file *fc = bl_st_read(c), *fd = bl_st_read(d);
    int n = 0, same = fc && fd && fc->n == fd->n;
    for (int i = 0; same && i < fc->n; i++, n++) {
        const bl_tensor *t = bl_st_get(fd, fc->tensors[i].name);
        same = t && t->numel == fc->tensors[i].numel && !memcmp(t->data, fc->tensors[i].data, t->numel * sizeof(float));
        if (!same) printf("# %s differs\n", fc->tensors[i].name);
    }
    CHECK(same && n > 0, "the weights and moments after 3 + save/load/save + 3 steps differ from 6 steps'");
    bl_st_free(fc);
    bl_st_free(fd);
    bl_models_free(s1);
    bl_session_free(s1);
    bl_models_free(s2);
    bl_session_free(s2);
    const char *files[] = { moved, a, b, c, d, csv };
    for (int i = 0; i < 6; i++) remove(files[i]);
    rmdir(dir);
}

/* New data ends the run and training starts a new one from the weights: its optimizer starts
 * afresh too. The old run's AdamW moments stayed, so the new run's first steps used them at step
 * 0's bias correction, and a save before its first step wrote moments that are not zero at step
 * 0: a file that load refuses. */
BL_TEST(new_data_starts_a_fresh_optimizer)
{
    char dir[] = "/tmp/bl-test-fresh-XXXXXX", ck[64], cmd[512];
    if (!mkdtemp(dir)) SKIP("no temporary folder");
    snprintf(ck, sizeof ck, "%s/z.safetensors", dir);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    snprintf(cmd, sizeof cmd, "model dit dim=16 depth=1 heads=2 batch=2 eval_every=0; data shapes exam=4; "
             "train 2 quiet=on; data shapes exam=4; eval; save %s", ck);
    CHECK(run_in(s, cmd) == 0 && strstr(outbuf, "the run ends at step 2") && strstr(outbuf, "(step 0, "), "%s%s",
          outbuf, errbuf);
    snprintf(cmd, sizeof cmd, "load %s name=z", ck);
    CHECK(run_in(s, cmd) == 0 && strstr(outbuf, "step 0, data shapes"), "the new run's checkpoint: %s%s", outbuf,
          errbuf);
    /* its moments are zero: the new run takes the steps a fresh one takes from these weights */
    bl_st_file *f = bl_st_read(ck);
    int zero = f != NULL, n = 0;
    for (int i = 0; f && i < f->n; i++)
        if (!strncmp(f->tensors[i].name, "optim.", 6) && ++n)
            for (size_t k = 0; k < f->tensors[i].numel; k++) zero &= f->tensors[i].data[k] == 0;
    CHECK(zero && n > 0, "%d moment tensors, all zero: %d", n, zero);
    bl_st_free(f);
    bl_models_free(s);
    bl_session_free(s);
    remove(ck);
    rmdir(dir);
}

/* train's final line and show name the step of a val loss that is not the current step's: after
 * train 3 with eval_every=2 the last exam was at step 2, and "step 3: loss ...  val V" read as
 * step 3's val (eval then gives another number). */
BL_TEST(stale_val_names_its_step)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "model dit dim=16 depth=1 heads=2 batch=2 eval_every=2; data shapes exam=4; train 3") == 0, "%s",
          errbuf);
    char want[64];
    const char *line = strstr(outbuf, "step 3: loss ");
    CHECK(line && strstr(line, " @2, 3 steps in "), "the final line: %s", outbuf);
    CHECK(run_in(s, "show") == 0 && strstr(outbuf, "step 3, AdamW") && strstr(outbuf, " @2\n"), "show: %s", outbuf);
    CHECK(run_in(s, "eval; show") == 0 && strstr(outbuf, "val loss ") && !strstr(outbuf, " @"), "after eval: %s", outbuf);
    CHECK(run_in(s, "train 1") == 0 && strstr(outbuf, "step 4: loss ") && !strstr(outbuf, " @"),
          "an exam at the last step is the current one: %s", outbuf);
    CHECK(run_in(s, "train 1") == 0, "%s", errbuf);
    snprintf(want, sizeof want, " @4, 1 step in ");
    CHECK(strstr(outbuf, "step 5: loss ") && strstr(outbuf, want), "%s", outbuf);
    bl_models_free(s);
    bl_session_free(s);
}

/* A set that leaves the model as it is rebuilds nothing and keeps the run: the value it already
 * has (pos=learned, dim=16), kv_heads=auto when kv_heads is heads, and the training keys, which
 * never rebuild; a set that changes a switch still rebuilds and says the run is discarded. */
BL_TEST(set_same_value_keeps_the_run)
{
    char ck[] = "/tmp/bl-test-set.XXXXXX", file[300], cmd[700];
    if (!mkdtemp(ck)) SKIP("no temporary folder");
    snprintf(file, sizeof file, "%s/d.safetensors", ck);
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    CHECK(run_in(s, "model gpt dim=16 depth=1 heads=2 batch=2 context=8 eval_every=0; train 3 quiet=on") == 0,
          "%s", errbuf);
    static const char *const same[][2] = {
        { "set norm=layernorm", "m1: unchanged (norm is already layernorm)\n" },
        { "set m1 pos=learned", "m1: unchanged (pos is already learned)\n" },
        { "set dim=16 kv_heads=auto", "m1: unchanged (dim is already 16, kv_heads is already 2)\n" },
        { "set lr=0.001", "lr = 0.001\n" },
        { "set batch=4 eval_every=5 norm=layernorm", "batch = 4\neval_every = 5\nnorm = layernorm\n" },
        { "set batch=4", "m1: unchanged (batch is already 4)\n" },
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        CHECK(run_in(s, same[i][0]) == 0 && !strcmp(outbuf, same[i][1]), "%s:\n%s%s", same[i][0], outbuf, errbuf);
        CHECK(run_in(s, "print(m1.run.steps)") == 0 && !strcmp(outbuf, "3\n"), "%s lost the run: %s", same[i][0], outbuf);
    }
    /* the finding: a checkpoint loaded under a name, then its own pos */
    snprintf(cmd, sizeof cmd, "save %s; load %s name=d", file, file);
    CHECK(run_in(s, cmd) == 0, "%s", errbuf);
    CHECK(run_in(s, "set d pos=learned; print(d.run.steps)") == 0 &&
          !strcmp(outbuf, "d: unchanged (pos is already learned)\n3\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "set d norm=rmsnorm") == 0 && strstr(outbuf, "rebuilt gpt norm=rmsnorm") &&
          strstr(outbuf, "(the training run of 3 steps is discarded"), "%s%s", outbuf, errbuf);
    bl_models_free(s);
    bl_session_free(s);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ck);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* set rope_base applies to the model at once (its RoPE tables are made again): the val loss is
 * the one of a model made with that base, not the old base's */
BL_TEST(set_rope_base_takes_effect)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    char fresh[128];
    CHECK(run_in(s, "a = gpt(dim=16, depth=1, heads=2, context=16, pos=\"rope\", rope_base=2); "
                    "data a text exam=4; eval a") == 0, "%s", errbuf);
    const char *v = strstr(outbuf, "val loss ");
    snprintf(fresh, sizeof fresh, "%s", v ? v : "?");
    CHECK(run_in(s, "model gpt dim=16 depth=1 heads=2 context=16 pos=rope; data text exam=4; "
                    "set rope_base=2; eval") == 0, "%s", errbuf);
    v = strstr(outbuf, "rope_base = 2\n");
    CHECK(v && !strcmp(v + 14, fresh), "set rope_base=2 then eval:\n%s\nfresh: %s", outbuf, fresh);
    bl_models_free(s);
    bl_session_free(s);
}

/* `help keys` shows every value of every switch (issue 19): each choice key's line there names
 * each of the table's values as a word, and `help KEY` lists them all, so a new value (norm=dyt)
 * reaches help through its table row alone. on|off keys need no words. */
BL_TEST(help_keys_lists_switch_values)
{
    bl_session *s = bl_session_new(0);
    CHECK(run_in(s, "help keys") == 0, "help keys: %s", errbuf);
    static char keys[1 << 16];
    snprintf(keys, sizeof keys, "%s", outbuf);
    for (int i = 0; i < bl_config_nkeys(); i++) {
        const bl_config_key *k = bl_config_key_at(i);
        if (k->type != BL_KEY_CHOICE) continue;
        char head[64], line[512], v[32], cmd[64];
        snprintf(head, sizeof head, "\n  %s ", k->name);
        const char *at = strstr(keys, head);
        CHECK(at, "help keys has no line for %s", k->name);
        if (!at) continue;
        snprintf(line, sizeof line, "%.*s", (int)strcspn(at + 1, "\n"), at + 1);
        snprintf(cmd, sizeof cmd, "help %s", k->name);
        CHECK(run_in(s, cmd) == 0 && strstr(outbuf, "values: ") && strstr(outbuf, k->choices),
              "help %s does not list %s: %s", k->name, k->choices, outbuf);
        if (!strcmp(k->choices, "off|on")) continue;
        for (int j = 0; bl_config_choice_at(k, j, v, sizeof v); j++) {
            int found = 0;
            for (const char *p = strstr(line, v); p && !found; p = strstr(p + 1, v)) {
                char before = p == line ? ' ' : p[-1], after = p[strlen(v)];
                found = !isalnum((unsigned char)before) && before != '_' && !isalnum((unsigned char)after) &&
                        after != '_';
            }
            CHECK(found, "%s=%s is not on help keys' line of %s: %s", k->name, v, k->name, line);
        }
    }
    bl_session_free(s);
}

int main(void)
{
    RUN(progress_line_fits);
    RUN(progress_text_keeps_the_eta);
    RUN(stale_val_names_its_step);
    RUN(set_same_value_keeps_the_run);
    RUN(set_rope_base_takes_effect);
    RUN(lexer_tokens_and_positions);
    RUN(incomplete_lines);
    RUN(lexer_columns_on_long_lines);
    RUN(incomplete_line_by_line);
    RUN(parser_statements_and_error_positions);
    RUN(eval_values_and_errors);
    RUN(long_operator_chains);
    RUN(list_slicing);
    RUN(list_index_errors);
    RUN(list_nesting_bounded);
    RUN(script_bom_and_nul);
    RUN(dim_ranges_follow_the_tensor);
    RUN(list_equality);
    RUN(tensor_printing_abbreviates);
    RUN(tensor_printing_matches_pytorch);
    RUN(print_shows_values_as_the_prompt_does);
    RUN(losses_print_with_4_decimals);
    RUN(functions_match_formulas);
    RUN(nan_and_big_numbers_print_readably);
    RUN(round_halves_to_even);
    RUN(completion);
    RUN(writers);
    RUN(writers_json_list);
    RUN(redirect_checked_first);
    RUN(data_checked_when_attached);
    RUN(one_error_one_line);
    RUN(compare_refuses_variants_first);
    RUN(help_topics);
    RUN(docs_match_behaviour);
    RUN(load_safetensors);
    RUN(load_checks_the_texts_vocabulary);
    RUN(loaded_run_kept_without_its_data);
    RUN(new_data_starts_a_fresh_optimizer);
    RUN(interrupt_flag);
    RUN(interrupt_stops_the_line);
    RUN(interrupt_message_on_a_fresh_line);
    RUN(help_and_manual_cover_everything);
    RUN(redirect_formats_documented);
    RUN(help_keys_lists_switch_values);
    return bl_test_done();
}
