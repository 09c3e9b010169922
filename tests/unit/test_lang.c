/* test_lang.c - the language's blocks (issue 15): when the reader waits for more lines, syntax
 * errors inside blocks at their line and column, functions called from C (bl_call_value) and
 * callable handles, scoping, errors inside functions at the prompt, a block entered in the
 * history once, Ctrl-C inside a loop that never ends, and the trailing ',' and '.' that no longer
 * continue a line (issue 20). Expected values are worked out by hand. */
#include "../check.h"
#include "repl_testutil.h"
#include "core/error.h"
#include "repl/lexer.h"
#include "repl/modelvars.h"
#include "repl/repl.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bl_session *fresh(void)
{
    bl_session *s = bl_session_new(0);
    bl_models_init(s);
    return s;
}

static void done(bl_session *s)
{
    bl_models_free(s);
    bl_session_free(s);
}

/* A block keeps the reader waiting up to its end; one-line forms do not; a trailing ',' '.' or
 * ':' ends the line (they continued it before, so the next statement was swallowed). */
BL_TEST(incomplete_blocks)
{
    static const struct { const char *src; int more; } cases[] = {
        { "for s in [1, 2]\n", 1 },
        { "for s in [1, 2]", 1 },               /* the prompt's lines come without '\n' */
        { "for s in [1, 2]:\n", 1 },
        { "for s in [1, 2]: print(s)\n", 0 },
        { "with torch.no_grad():", 1 },          /* a with block, as a for's */
        { "with torch.no_grad(): x = 1", 0 },
        { "x = 1 + \\", 1 },                     /* a backslash at the end: the line continues */
        { "x = 1 + \\\n  2", 0 },
        { "f = lambda x: x", 0 },
        { "d = {\"a\": 1,", 1 },                 /* an open brace continues, as a bracket */
        { "d = {\"a\": 1,\n \"b\": 2}", 0 },
        { "s = f\"{x:>4}\"", 0 },
        { "for s in [1, 2]\n  print(s)\nend\n", 0 },
        { "for a in [1]\n  for b in [2]\n  end\n", 1 },
        { "for a in [1]\n  for b in [2]\n  end\nend", 0 },
        { "def f(x) = x * 2\n", 0 },
        { "def f(x, w=1)\n", 1 },
        { "def f(x)\n  return x\nend\n", 0 },
        { "def f(x):\n", 1 },
        { "def f(x): return x\n", 0 },
        { "if c\n  a = 1\nelse\n  a = 2\n", 1 },
        { "if c\n  a = 1\nelif d\n  a = 2\nelse\n  a = 3\nend", 0 },
        { "if c: a = 1 else: a = 2\n", 0 },
        { "while true\n", 1 },
        { "x = [1, 2,\n", 1 },
        { "qk growth scales=1,2,\n", 0 },
        { "save .\n", 0 },
        { "y = 1 +\n", 1 },
        { "end\n", 0 },
        { "s = \"for\"\n", 0 },
        { "print(end_of)\n", 0 },
        /* a body line that ends in an operator or an open bracket does not swallow the `end`:
         * the block ends there (the parser then says what is missing), not at the end of file */
        { "def f(x)\n  return x +\nend\n", 0 },
        { "def f(x)\n  y = (1 +\nend\n", 0 },
        { "for i in [1]\n  y = i +\n    2\nend\n", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(bl_lex_incomplete(cases[i].src) == cases[i].more, "\"%s\": want %d", cases[i].src, cases[i].more);
    /* line by line, as the script reader and the prompt feed it */
    bl_lex_state st = { 0 };
    /* Python's form: indented blocks end at a line indented less (2: it starts the next statement) */
    static const struct { const char *src; int more; } indented[] = {
        { "for s in [1, 2]:\n    print(s)\n", 1 },       /* the next line may still be in the block */
        { "for s in [1, 2]:\n    print(s)\nx = 1\n", 0 },
        { "if c:\n    a = 1\nelse:\n    a = 2\n", 1 },
        { "if c:\n    a = 1\nelif d:\n    a = 2\nelse:\n    a = 3\nb = 1", 0 },
        { "def f(x):\n    for i in x:\n        y = i\n    return y\n", 1 },
        { "def f(x):\n    for i in x:\n        y = i\n    return y\nf(1)", 0 },
        { "def p(x):\n  return x + 1\nend\n", 0 },     /* `end` under the header closes it too */
        { "for a in [1]:\n    for b in [2]\n    end\n", 1 },   /* a block with `end` inside */
        { "for a in [1]:\n    x = a\n[x]", 0 },         /* a line that starts with no name ends it too */
        { "for a in [1]:\n    x = a\n(x)\n", 0 },
    };
    for (size_t i = 0; i < sizeof indented / sizeof *indented; i++)
        CHECK(bl_lex_incomplete(indented[i].src) == indented[i].more, "\"%s\": want %d", indented[i].src,
              indented[i].more);
    bl_lex_state ind = { 0 };
    CHECK(bl_lex_more(&ind, "for i in x:") == 1 && bl_lex_more(&ind, "    y = i") == 1 &&
          bl_lex_more(&ind, "") == 1 && bl_lex_more(&ind, "z = 1") == 2, "a script's blank line keeps the block open; "
          "the dedent ends it before its own line");
    bl_lex_state prompt = { .interactive = 1 };
    CHECK(bl_lex_more(&prompt, "for i in x:") == 1 && bl_lex_more(&prompt, "    if i:") == 1 &&
          bl_lex_more(&prompt, "        y = i") == 1 && bl_lex_more(&prompt, "  ") == 0,
          "at the prompt a blank line closes the indented blocks, as Python's REPL");
    prompt = (bl_lex_state){ .interactive = 1 };
    CHECK(bl_lex_more(&prompt, "for i in x") == 1 && bl_lex_more(&prompt, "y = i") == 1 &&
          bl_lex_more(&prompt, "") == 1 && bl_lex_more(&prompt, "end") == 0, "a blank line does not close a block "
          "that ends at `end`");
    CHECK(bl_lex_more(&st, "def g(n)") && bl_lex_more(&st, "  if n > 1: return n") &&
          bl_lex_more(&st, "  for i in range(n)") && bl_lex_more(&st, "  end") && !bl_lex_more(&st, "end"),
          "a def with a loop inside, fed a line at a time");
}

/* A syntax error inside a block points at its own line and column; nothing of the block runs. */
BL_TEST(block_syntax_errors)
{
    static const char *const cases[][2] = {
        { "x = 0\nfor s in [1, 2]\n  x = s\n  y = * 2\nend", "t:4:7: expected a value, found '*'\n" },
        { "def f(x)\n  return x +\nend", "t:3:1: expected a value, found 'end'\n" },
        { "for s in [1]\n  print(s)\nend\nfor s in [1]\nprint(s)\n", "t:5:9: expected 'end' to close the 'for' of line 4, found the end of the input\n" },
        { "if 1\n  x = 1\nelse\n  x = 2\nelse\n  x = 3\nend", "t:5:1: 'else' after the else of line 3: an if has one else, last\n" },
        { "for s in [1]\n  x = 1\nelse\n  x = 2\nend", "t:3:1: 'else' belongs to an if, not to the 'for' of line 1\n" },
        { "while true\n  break 2\nend", "t:2:9: expected the end of the statement, found number 2\n" },
        { "def f(x, x) = 1", "t:1:10: this parameter is named twice, found 'x'\n" },
        { "def f(x=1, y) = 1", "t:1:12: a parameter without a default cannot follow one with a default, found 'y'\n" },
        { "for end in [1]: print(1)", "t:1:5: expected the loop variable's name after for, found 'end'\n" },
        { "end = 3", "t:1:1: there is no open block to end (for, while, if or def)\n" },
        { "in = 3", "t:1:1: 'in' belongs in a for loop (for NAME in LIST)\n" },
        { "continue", "t:1:1: 'continue' outside a loop\n" },
        { "if 1: x = 1 else x = 2", "t:1:18: expected ':' or the end of the line, found 'x'\n" },
        /* Python's form: the errors Python's tokenizer gives, at the line */
        { "for i in [1]:\n        x = i\n    y = 2", "t:3:5: IndentationError: unindent does not match any outer "
          "indentation level (this line 4 columns, the block 8, its header 0)\n" },
        { "for i in [1]:\n    x = i\n        y = 2", "t:3:9: IndentationError: unexpected indent (the block's lines "
          "are indented 4)\n" },
        { "for i in [1]:\n    x = i\n    end", "t:3:5: 'end' inside an indented block: the block ends where its "
          "indentation does (leave end out, or write it under the block's header)\n" },
        { "for i in [1]:\nx = i", "t:2:6: expected an indented block after the 'for' of line 1 (or 'end' to close "
          "it), found the end of the input\n" },
        { "if 1:\n    x = 1\n  else:\n    x = 2", "t:3:3: IndentationError: unindent does not match any outer "
          "indentation level (this line 2 columns, the block 4, its header 0)\n" },
        { "for s in [1]:\n    x = 1\nelse:\n    x = 2", "t:3:1: 'else' belongs to an if, not to the 'for' of line 1\n" },
    };
    bl_session *s = fresh();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK(run_in(s, "x = 0") == 0, "%s", errbuf);
        CHECK(run_in(s, cases[i][0]) < 0 && !strcmp(errbuf, cases[i][1]), "%s:\n%s", cases[i][0], errbuf);
        CHECK(run_in(s, "x") == 0 && !strcmp(outbuf, "0\n"), "%s: part of the block ran: %s", cases[i][0], outbuf);
    }
    done(s);
}

/* Issue 20: `qk growth scales=1,2,` or `save .` at the end of a line swallowed the next line,
 * whose statement never ran (and the error blamed it). Now the comma is the error, at its
 * column, and the next line runs. */
BL_TEST(trailing_comma_ends_the_line)
{
    bl_session *s = fresh();
    s->keep_going = 1;
    CHECK(run_in(s, "seed 1,\nx = 5") < 0 && !strcmp(errbuf, "t:1:7: seed: a trailing ',' (the list has no next "
                                                     "value; a line does not continue after ',')\n"), "%s", errbuf);
    CHECK(run_in(s, "x") == 0 && !strcmp(outbuf, "5\n"), "the line after the comma did not run: %s%s", outbuf, errbuf);
    run_in(s, "help .\ny = 6");
    CHECK(run_in(s, "y") == 0 && !strcmp(outbuf, "6\n"), "the line after a trailing '.' did not run: %s%s", outbuf, errbuf);
    CHECK(run_in(s, "z = [1,\n2]; z") == 0 && !strcmp(outbuf, "[1, 2]\n"), "an open bracket still continues: %s%s",
          outbuf, errbuf);
    done(s);
}

/* Python's indented blocks run as Python runs them (the values worked out by hand: 0 + 10 + 2 +
 * 100 = 112; f(3) = 3 * 2 * 2 = 12); `end` blocks and indented ones nest in each other. */
BL_TEST(indented_blocks)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "total = 0\nfor i in range(4):\n    if i % 2 == 0:\n        total += i\n    elif i == 1:\n"
                    "        total += 10\n\n    else:\n        total += 100\nprint(total)") == 0 &&
          !strcmp(outbuf, "112\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "def f(x, n=2):\n    y = x\n    for k in range(n):\n        y = y * 2\n    return y\n\nf(3)") == 0 &&
          !strcmp(outbuf, "12\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "for a in [1, 2]:\n    for b in [10]\n    print(a + b)\n    end\n    print(a)\nend") == 0 &&
          !strcmp(outbuf, "11\n1\n12\n2\n"), "end inside an indented block, end under its header: %s%s", outbuf,
          errbuf);
    CHECK(run_in(s, "for a in [1]:\n\tprint(a)\n\tif a:\n\t\tprint(3)\nprint(2)") == 0 && !strcmp(outbuf, "1\n3\n2\n"),
          "tabs: %s%s", outbuf, errbuf);
    /* a top-level line indented is Python's IndentationError, and nothing of it runs */
    CHECK(run_in(s, "\tprint(5)") < 0 && !*outbuf && strstr(errbuf, "IndentationError: unexpected indent"),
          "an indented top-level line: %s%s", outbuf, errbuf);
    /* the line after the block starts with a bracket: it ends the block all the same (it was
     * taken into the block's statement, which ran only with the next line) */
    bl_lex_state st = { .interactive = 1 };
    CHECK(bl_lex_more(&st, "def g(a):") == 1 && bl_lex_more(&st, "    return a * 7") == 1 &&
          bl_lex_more(&st, "[g(1)]") == 2, "a dedented line that starts with '[' ends the block");
    CHECK(run_in(s, "def g(a):\n    return a * 7\n[g(1), 2]\n-g(2)\n\"s\"") == 0 && !strcmp(outbuf, "[7, 2]\n-14\ns\n"),
          "%s%s", outbuf, errbuf);
    done(s);
}

/* A callable handle, as the models will be: it adds its arguments and takes a keyword. */
static void h_free(void *p) { (void)p; }
static bl_value *h_call(void *p, bl_callargs *a)
{
    double x, y, k;
    (void)p;
    if (bl_nargs(a, 2, 2) < 0 || bl_arg_num(a, 0, &x) < 0 || bl_arg_num(a, 1, &y) < 0 ||
        bl_kw_num(a, "k", 1, &k) < 0)
        return NULL;
    return bl_val_num(k * (x + y));
}
static const bl_handle_type adder = { "adder", h_free, NULL, NULL, NULL, NULL, h_call };

/* Functions are values that C code can call (the lead's gradcheck(f, x)); handles with a call
 * method are called by name like functions. */
BL_TEST(call_values_from_c)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "def p(x):\n  return x + 1\nend\ndef q(x): y = x; return y * 3\np(1); q(2)") == 0 &&
          !strcmp(outbuf, "2\n6\n"), "def with ':' as Python writes it: %s%s", outbuf, errbuf);
    CHECK(run_in(s, "def f(x, w=2) = x * w + 1") == 0, "%s", errbuf);
    bl_value *f = bl_session_get(s, "f"), *arg = bl_val_num(20);
    bl_pos pos = { 0, 1, 1, 1 };
    bl_value *r = bl_call_value(s, f, 1, &arg, pos);
    CHECK(r && r->kind == BL_V_NUM && r->num == 41, "f(20) = %g", r ? r->num : -1);
    bl_val_unref(r);
    bl_value *args[3] = { arg, arg, arg };
    r = bl_call_value(s, f, 3, args, pos);
    CHECK(!r && strstr(bl_error(), "f takes 2 arguments, got 3"), "%s", bl_error());
    bl_session_clear_error(s);
    r = bl_call_value(s, arg, 1, &arg, pos);
    CHECK(!r && strstr(bl_error(), "a number is not a function"), "%s", bl_error());
    bl_session_clear_error(s);
    CHECK(bl_callable(f) && !bl_callable(arg), "bl_callable");
    bl_val_unref(arg);

    bl_value *h = bl_val_handle(&adder, (void *)1);
    CHECK(bl_session_set(s, "m", h) == 0, "set");
    bl_val_unref(h);
    CHECK(run_in(s, "m(2, 3); m(2, 3, k=10); def twice_m(a) = m(a, a); twice_m(4)") == 0 &&
          !strcmp(outbuf, "5\n50\n8\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "m(1, 2, z=3)") < 0 && !strcmp(errbuf, "t:1:9: m: unknown keyword 'z'\n"), "%s", errbuf);
    /* a function shadows a built-in of the same name; a variable that is no function does not */
    CHECK(run_in(s, "def abs(x) = 7; abs(-2); mean = 3; max([1, 4])") == 0 && !strcmp(outbuf, "7\n4\n"),
          "%s%s", outbuf, errbuf);
    done(s);
}

/* Locals stay in their call, globals are read, and assigned only when declared. */
BL_TEST(scoping)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "a = 1; b = 2\n"
                    "def f(x)\n  a = x\n  c = a + b\n  return c\nend\n"
                    "f(10); a; c_defined = 0") == 0 && !strcmp(outbuf, "12\n1\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "c") < 0 && strstr(errbuf, "unknown name 'c'"), "a local leaked: %s", errbuf);
    CHECK(run_in(s, "def g()\n  global a, d\n  a = 5\n  d = 6\nend\ng(); a; d") == 0 && !strcmp(outbuf, "5\n6\n"),
          "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "def h()\n  a = 1\n  global a\nend\nh()") < 0 &&
          strstr(errbuf, "global: 'a' is a local variable of this function already"), "%s", errbuf);
    /* a loop's variable and what its body assigns stay */
    CHECK(run_in(s, "for i in range(3): last = i * 10\ni; last") == 0 && !strcmp(outbuf, "2\n20\n"), "%s%s", outbuf,
          errbuf);
    done(s);
}

/* At the prompt an error inside a function shows the function's own line with the caret, then
 * the traceback; the recursion bound is an error, after which the session goes on. */
BL_TEST(errors_inside_functions_at_the_prompt)
{
    bl_session *s = fresh();
    s->interactive = 1;
    s->prompt_width = 4;
    CHECK(run_in(s, "def f(x)\n  y = 1\n  return x + \"a\"\nend") == 0, "%s", errbuf);
    CHECK(run_in(s, "z = f(2)") < 0, "no error");
    CHECK(!strcmp(errbuf, "      return x + \"a\"\n"
                          "               ^ '+' needs numbers or tensors, got a number and a string (str(x) makes a value a string)\n"
                          "  in f, line 3, called at t:1:5\n"), "%s", errbuf);
    /* 200 calls deep, or fewer where the C stack guard stops first (a sanitizer build's frames
     * are larger): N, then the repeated line said once with N - 2 */
    int depth = 0, rep = 0;
    const char *m = run_in(s, "def r(n) = r(n + 1)\nr(0)") < 0 ? strstr(errbuf, "r: calls nested more than ") : NULL;
    CHECK(m && sscanf(m, "r: calls nested more than %d deep", &depth) == 1 && depth > 100 && depth <= 200 &&
          strstr(m, " deep (a recursion without an end?)\n  in r, line 1, called at t:1:12\n  [the line above repeated ") &&
          sscanf(strstr(m, "repeated "), "repeated %d more times]", &rep) == 1 && rep == depth - 2 &&
          strstr(m, "more times]\n  in r, line 1, called at t:2:1\n"), "%s", errbuf);
    CHECK(run_in(s, "print(\"still\", 1 + 1)") == 0 && !strcmp(outbuf, "still 2\n"), "%s%s", outbuf, errbuf);
    done(s);
}

/* t.add grows the table a name holds; another name keeps the table it had. */
BL_TEST(table_grows)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "t = table(); t; for s in [1, 2]: t.add(a=s, b=s * 10)\nu = t; t.add(b=30, a=3)\nu; t.a; t.b") == 0 &&
          !strcmp(outbuf, "(an empty table)\na   b\n1  10\n2  20\n[1, 2, 3]\n[10, 20, 30]\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "t.add(a=4)") < 0 && !strcmp(errbuf, "t:1:3: add: the table has 2 columns, the row 1\n"), "%s", errbuf);
    CHECK(run_in(s, "t.add(a=4, c=1)") < 0 && !strcmp(errbuf, "t:1:12: add: the table has no column 'c' (its columns "
                                                          "are set by the first row)\n"), "%s", errbuf);
    CHECK(run_in(s, "t.add(a=[1], b=2)") < 0 && !strcmp(errbuf, "t:1:9: add: column 'a' takes a number, string or "
                                                            "bool, not a list\n"), "%s", errbuf);
    CHECK(run_in(s, "x = 1; x.add(a=1)") < 0 && strstr(errbuf, "add: call it on a variable holding a table"), "%s", errbuf);
    CHECK(run_in(s, "numel(tensor(t.a))") == 0 && !strcmp(outbuf, "3\n"), "a failed add changed the table: %s", outbuf);
    done(s);
}

/* A block of several lines is one statement of the history. */
BL_TEST(block_enters_history_once)
{
    bl_session *s = fresh();
    int n = s->nhist;
    CHECK(run_in(s, "for s in [1, 2]\n  t = s\nend\nu = 1") == 0, "%s", errbuf);
    CHECK(s->nhist == n + 2 && !strcmp(s->hist[n], "for s in [1, 2]\n  t = s\nend"), "%d entries: %s", s->nhist - n,
          s->nhist > n ? s->hist[n] : "");
    done(s);
}

/* Ctrl-C stops a loop that never ends, inside a function too: the rest of the line does not
 * run, what the loop assigned is kept, and the statement it interrupted is abandoned. */
BL_TEST(interrupt_stops_a_loop)
{
    bl_interrupt_install();
    bl_interrupt_clear();
    bl_session *s = fresh();
    timer_t t = ctrl_c_in(200);
    CHECK(run_in(s, "n = 0; while true: n = n + 1\nafter = 1") == 0 && !errbuf[0], "%s", errbuf);
    timer_delete(t);
    CHECK(bl_interrupted(), "the flag was cleared");
    bl_interrupt_clear();
    CHECK(run_in(s, "n > 0") == 0 && !strcmp(outbuf, "true\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "after") < 0, "the line after the loop ran");
    CHECK(run_in(s, "def spin()\n  global k\n  k = 0\n  while true: k = k + 1\n  return 5\nend\nk = -1") == 0, "%s",
          errbuf);
    t = ctrl_c_in(200);
    CHECK(run_in(s, "v = 1; v = spin()") == 0 && !errbuf[0], "%s", errbuf);
    timer_delete(t);
    bl_interrupt_clear();
    CHECK(run_in(s, "v; k > 0") == 0 && !strcmp(outbuf, "1\ntrue\n"), "%s%s", outbuf, errbuf);
    done(s);
}

/* and, or, not as Python's: precedence (not > and > or, all below the comparisons), the deciding
 * operand as the value, short-circuit (an unknown name after the decision is never read), and
 * one-line errors that change nothing. Expected values from Python 3 by hand (0 or 5 is 5). */
BL_TEST(and_or_not)
{
    static const char *const ok[][2] = {
        { "1 or 0 and 0", "1\n" },             /* or binds looser: 1 or (0 and 0) */
        { "not 1 == 2", "true\n" },            /* not (1 == 2) */
        { "not 0 and 0", "0\n" },              /* (not 0) and 0 */
        { "0 or nosuch == 2 or 3", "3\n" },    /* nosuch is 1: 0 or false or 3 */
        { "[] or [2]", "[2]\n" },
        { "2 > 1 and \"yes\"", "yes\n" },
        { "0 and nosuch", "0\n" },
        { "1 or nosuch", "1\n" },
        { "x = 5 if 0 or 1 else 6\nx", "5\n" },
    };
    bl_session *s = fresh();
    CHECK(run_in(s, "nosuch = 1") == 0, "%s", errbuf);
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        CHECK(run_in(s, ok[i][0]) == 0 && !strcmp(outbuf, ok[i][1]), "%s: %s%s", ok[i][0], outbuf, errbuf);
    done(s);
    s = fresh();
    static const char *const bad[][2] = {
        { "0 and nosuch", NULL },   /* short-circuit: runs fine although nosuch is unknown */
        { "x = 1 or", "t:1:9: expected a value, found the end of the input\n" },
        { "x = not", "t:1:8: expected a value, found the end of the input\n" },
        { "or = 1", "t:1:1: 'and' and 'or' join two values (a and b, a or b), not a name\n" },
        { "x = randn(2) and 1", "t:1:5: and: Boolean value of Tensor with more than one value is ambiguous "
                                "(reduce it first: max(x) > 0, allclose(a, b))\n" },
        { "x = table() or 1", "t:1:5: or: the condition is a table, not true/false, a number, a string, a "
                              "list or a one-element tensor\n" },
        { "x = 1 and nosuch", "t:1:11: unknown name 'nosuch'\n" },
    };
    CHECK(run_in(s, "x = 0") == 0, "%s", errbuf);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = run_in(s, bad[i][0]);
        if (!bad[i][1]) CHECK(rc == 0 && !strcmp(outbuf, "0\n"), "%s: %s%s", bad[i][0], outbuf, errbuf);
        else CHECK(rc < 0 && !strcmp(errbuf, bad[i][1]), "%s:\n%s", bad[i][0], errbuf);
        CHECK(run_in(s, "x") == 0 && !strcmp(outbuf, "0\n"), "%s: x changed: %s", bad[i][0], outbuf);
    }
    done(s);
}

/* x OP= v is x = x OP v on names and indices; a target that is neither is a parse error at the
 * operator, and an error changes nothing. Values by hand (Python: 7 // 2 ** ... as below). */
BL_TEST(augmented_assignment)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "x = 7\nx //= 2\nx **= 2\nx -= 1\nx") == 0 && !strcmp(outbuf, "8\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "xs = [1, [2, 3]]\nxs[1][0] += 5\nxs") == 0 && !strcmp(outbuf, "[1, [7, 3]]\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "f(1) += 2") < 0 && !strcmp(errbuf, "t:1:6: can only assign to a name or to an index of one "
                                                      "(x[i] += v), found '+'\n"), "%s", errbuf);
    CHECK(run_in(s, "x += [1] + nosuch") < 0 && !strcmp(errbuf, "t:1:12: unknown name 'nosuch'\n"), "%s", errbuf);
    CHECK(run_in(s, "x += \"a\"") < 0, "a number plus a string");
    CHECK(run_in(s, "x") == 0 && !strcmp(outbuf, "8\n"), "x changed: %s", outbuf);
    done(s);
}

/* The Python forms a lecturer types (the expected text is what Python 3.11 prints for the same
 * lines: tests/unit/test_lang.c's strings were checked against python3). */
BL_TEST(python_forms)
{
    bl_session *s = fresh();
    /* f-strings and '%' share one formatter (strfmt.c) */
    CHECK(run_in(s, "x = 5; l = 0.123456\n"
                    "print(f\"loss {l:.4f} step {x} [{x:>4}] [{x:<4}] [{x:^5}] [{x:*^7}] [{x:04d}] [{-x:05}] "
                    "[{l:+.2e}] [{l:.1%}] [{255:x}] [{5:b}] [{l:.3}] [{'ab':>4}] [{'abc':.2}] {{}} {[1, 2][1] * 3:d}\")\n"
                    "print(\"%.3f|%5.1f|%-4d|%04d|%s|%x|%+d|%e|%%\" % (3.14159, 2.25, 3, 42, \"s\", 255, 7, 1234.5))\n"
                    "print(\"%d\" % 2.7, \"%s\" % 0.5)") == 0 &&
          !strcmp(outbuf, "loss 0.1235 step 5 [   5] [5   ] [  5  ] [***5***] [0005] [-0005] [+1.23e-01] [12.3%] "
                          "[ff] [101] [0.123] [  ab] [ab] {} 6\n"
                          "3.142|  2.2|3   |0042|s|ff|+7|1.234500e+03|%\n2 0.5\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "f\"{2.5:d}\"") < 0 && strstr(errbuf, "t:1:4: format: 'd' needs a whole number, got 2.5"),
          "%s", errbuf);
    CHECK(run_in(s, "\"%d %d\" % [1]") < 0 && strstr(errbuf, "not enough arguments for format string"), "%s", errbuf);
    CHECK(run_in(s, "\"%d\" % [1, 2]") < 0 && strstr(errbuf, "not all arguments converted"), "%s", errbuf);
    CHECK(run_in(s, "f\"{ones(2):.2f}\"") < 0 && strstr(errbuf, "takes no format spec"), "%s", errbuf);
    /* tuples, unpacking, chained assignment and comparisons, in */
    CHECK(run_in(s, "t = (1, (2, 3),)\na, (b, c) = t\nd = e = a + c\n"
                    "print(t, (), (4,), (5), a, b, c, d, e)\n"
                    "for i, (p, q) in enumerate(zip([1, 2], [3, 4])):\n    print(i, p * q)\n"
                    "print([p + q for p, (q, _) in [(1, (2, 0)), (3, (4, 0))]])\n"
                    "print(0 < a < 2, 0 < a < 1, 1 < 2 > 0 == 0, 2 in [1, 2], 2 not in [1, 2], \"ab\" in \"cabd\", "
                    "3 in tensor([1, 3]), None in [1, None])") == 0 &&
          !strcmp(outbuf, "[1, [2, 3]] [] [4] 5 1 2 3 4 4\n0 3\n1 8\n[3, 7]\ntrue false true true false true true true\n"),
          "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "a, (b, c) = 1, (2, 3, 4)") < 0 && strstr(errbuf, "t:1:4: ValueError: too many values to unpack "
                                                                    "(expected 2, got 3)"), "%s", errbuf);
    CHECK(run_in(s, "print(a, b, c)") == 0 && !strcmp(outbuf, "1 2 3\n"), "a failed unpacking binds nothing: %s", outbuf);
    CHECK(run_in(s, "1 in 2") < 0 && strstr(errbuf, "'in' needs a list, a dict, a string or a tensor"), "%s", errbuf);
    /* a chained comparison evaluates its middle once, and stops at the first false */
    CHECK(run_in(s, "n = 0\ndef g():\n    global n\n    n += 1\n    return 5\nprint(0 < g() < 10, 9 < 0 < g(), n)") == 0 &&
          !strcmp(outbuf, "true false 1\n"), "%s%s", outbuf, errbuf);
    /* lambda, docstrings, backslash continuation */
    CHECK(run_in(s, "def h(x):\n    \"\"\n    'doc'\n    return x + 1\nk = lambda x, w=2: h(x) * w\n"
                    "y = k(1) + \\\n    k(1, w=10)\nprint(y, (lambda: 7)(), k)") == 0 &&
          !strcmp(outbuf, "24 7 <function <lambda>(x, w=2)>\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "k(1, 2, 3)") < 0 && strstr(errbuf, "<lambda> takes 2 arguments, got 3"), "%s", errbuf);
    /* a lambda or def made in a function sees that function's variables (Python: 6 50 6) */
    CHECK(run_in(s, "def make(k):\n    return lambda x: x * k\ndef outer(n):\n    def inner(x):\n        return x * n\n"
                    "    return inner(2) + inner(3)\ndef rec(n):\n    f = lambda: rec(n - 1) if n > 0 else 0\n"
                    "    return f() + 1\nprint(make(3)(2), outer(10), rec(5))") == 0 && !strcmp(outbuf, "6 50 6\n"),
          "%s%s", outbuf, errbuf);
    /* dicts: Python prints the same lines (its lists quote with ', True is true here) */
    CHECK(run_in(s, "d = {\"lr\": 1e-3, \"steps\": 100,}\nd[\"steps\"] = 200\nd[\"warmup\"] = 10\n"
                    "cfg = {\"opt\": {\"lr\": 0.5}}\ncfg[\"opt\"][\"lr\"] = 0.25\n"
                    "print(len(d), d.keys(), [k for k in d], \"lr\" in d, \"x\" not in d, d.get(\"x\", 5), d.get(\"lr\"), "
                    "d.get(\"no\"))\nfor k, v in d.items():\n    print(f\"{k:>6} = {v}\")\n"
                    "print(cfg[\"opt\"][\"lr\"], not {}, len({1: 2, 1.0: 3, True: 4}))\nd") == 0 &&
          !strcmp(outbuf, "3 [\"lr\", \"steps\", \"warmup\"] [\"lr\", \"steps\", \"warmup\"] true true 5 0.001 None\n"
                          "    lr = 0.001\n steps = 200\nwarmup = 10\n0.25 true 1\n"
                          "{\"lr\": 0.001, \"steps\": 200, \"warmup\": 10}\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "d[\"nope\"]") < 0 && strstr(errbuf, "t:1:3: KeyError: 'nope'"), "%s", errbuf);
    CHECK(run_in(s, "d[[1]] = 2") < 0 && strstr(errbuf, "TypeError: a dict key is a string, number, bool or None"),
          "%s", errbuf);
    CHECK(run_in(s, "len(d)") == 0 && !strcmp(outbuf, "3\n"), "a failed d[k] = v keeps d: %s%s", outbuf, errbuf);
    done(s);
}

/* with torch.no_grad(): the body's results need no gradient, and recording is back on after it,
 * even when the body fails; import and the torch. / F. / math. prefixes name the builtins. */
BL_TEST(torch_forms)
{
    bl_session *s = fresh();
    CHECK(run_in(s, "import torch\nimport torch.nn.functional as F, math\nfrom torch.nn import functional as F\n"
                    "w = tensor([1, 2], grad=on)\nwith torch.no_grad():\n    y = w * 2\n    z = y + w\n"
                    "print(y.requires_grad, z.requires_grad, (w * 2).requires_grad)") == 0 &&
          !strcmp(outbuf, "false false true\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "with torch.no_grad():\n    q = w * 3\n    nosuch + 1") < 0 && strstr(errbuf, "unknown name 'nosuch'"),
          "%s", errbuf);
    CHECK(run_in(s, "print(q.requires_grad, (w * 3).requires_grad)") == 0 && !strcmp(outbuf, "false true\n"),
          "recording back on after a failed body: %s%s", outbuf, errbuf);
    CHECK(run_in(s, "def upd(v):\n    with torch.no_grad(): return v * 2\nprint(upd(w).requires_grad)") == 0 &&
          !strcmp(outbuf, "false\n"), "return inside with: %s%s", outbuf, errbuf);
    CHECK(run_in(s, "print((w * 2).requires_grad)") == 0 && !strcmp(outbuf, "true\n"), "%s%s", outbuf, errbuf);
    /* math.sqrt(2) + math.pi = 1.41421356 + 3.14159265 = 4.55580621 */
    CHECK(run_in(s, "print(torch.zeros(2, 3).shape, F.softmax(torch.zeros(4), dim=-1)[0], math.sqrt(2) + math.pi, "
                    "torch.nn.functional.softmax(tensor([0, 0]))[1])") == 0 &&
          !strcmp(outbuf, "[2, 3] 0.25 4.55581 0.5\n"), "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "torch.foo(1)") < 0 && !strcmp(errbuf, "t:1:7: torch.foo: blocklab has no function foo (help "
                                                         "functions lists them)\n"), "%s", errbuf);
    CHECK(run_in(s, "import numpy as np") < 0 && strstr(errbuf, "t:1:8: ModuleNotFoundError: blocklab has no module "
                                                               "'numpy'"), "%s", errbuf);
    CHECK(run_in(s, "import torch.nn.functional as G") < 0 && strstr(errbuf, "knows torch.nn.functional as F"),
          "%s", errbuf);
    CHECK(run_in(s, "from torch import nosuch") < 0 && strstr(errbuf, "ImportError: blocklab has no 'nosuch' in torch"),
          "%s", errbuf);
    CHECK(run_in(s, "torch = 3\ntorch + 1") == 0 && !strcmp(outbuf, "4\n"), "a variable hides the module: %s%s",
          outbuf, errbuf);
    done(s);
}

/* nanoGPT's @torch.no_grad(): a decorator's line keeps the reader waiting for its def (at the
 * prompt and in a script); `@` elsewhere is matrix multiplication; each call of the function runs
 * its body without recording gradients and the caller's mode comes back, after an error too. */
BL_TEST(decorators)
{
    static const struct { const char *src; int more; } cases[] = {
        { "@torch.no_grad()", 1 },
        { "@torch.no_grad()\n", 1 },
        { "@torch.no_grad\n@no_grad()\n", 1 },               /* two decorators */
        { "@torch.no_grad()\ndef f(t):", 1 },
        { "@torch.no_grad()\ndef f(t):\n    return t * 2\ny = 1", 0 },
        { "@torch.no_grad()\ndef f(t) = t * 2", 0 },
        { "@torch.no_grad()\ny = 1", 0 },                     /* no def: the parser says so */
        { "y = a @ b", 0 },
        { "y = a @", 1 },                                      /* a trailing operator, as before */
        { "y = a @ \\\n  b", 0 },
        { "x @= w", 0 },
        { "y = (a\n@ b)", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(bl_lex_incomplete(cases[i].src) == cases[i].more, "\"%s\": want %d", cases[i].src, cases[i].more);
    bl_lex_state st = { .interactive = 1 };
    CHECK(bl_lex_more(&st, "@torch.no_grad()") == 1 && bl_lex_more(&st, "def f(t):") == 1 &&
          bl_lex_more(&st, "    return t * 2") == 1 && bl_lex_more(&st, "") == 0, "the prompt waits for the def");
    st = (bl_lex_state){ .interactive = 1 };
    CHECK(bl_lex_more(&st, "@torch.no_grad()") == 1 && bl_lex_more(&st, "") == 0,
          "a blank line at the prompt ends a decorator without its def (the parser says so)");
    st = (bl_lex_state){ 0 };
    CHECK(bl_lex_more(&st, "@torch.no_grad()") == 1 && bl_lex_more(&st, "") == 1 && bl_lex_more(&st, "# c") == 1 &&
          bl_lex_more(&st, "def f(t):") == 1 && bl_lex_more(&st, "    return t") == 1 && bl_lex_more(&st, "z = 1") == 2,
          "a script's blank lines and comments between a decorator and its def");
    st = (bl_lex_state){ 0 };
    CHECK(bl_lex_more(&st, "def g(t):") == 1 && bl_lex_more(&st, "    return t") == 1 &&
          bl_lex_more(&st, "@torch.no_grad()") == 2, "a decorator after an indented block starts a statement");

    bl_session *s = fresh();
    CHECK(run_in(s, "x = torch.ones(3, requires_grad=True)\n@torch.no_grad()\ndef f(t):\n    return t * 2\n"
                    "print(f(x).requires_grad, (x * 2).requires_grad)") == 0 && !strcmp(outbuf, "false true\n"),
          "%s%s", outbuf, errbuf);
    CHECK(run_in(s, "@torch.no_grad()\ndef g(t):\n    return t * nothing\ng(x)") < 0 &&
          strstr(errbuf, "unknown name 'nothing'"), "%s", errbuf);
    CHECK(run_in(s, "print((x * 2).requires_grad)") == 0 && !strcmp(outbuf, "true\n"),
          "recording again after an error in the body: %s%s", outbuf, errbuf);
    CHECK(run_in(s, "@staticmethod\ndef h(t):\n    return t") < 0 && strstr(errbuf, "@torch.no_grad()") &&
          strchr(errbuf, '\n') == strrchr(errbuf, '\n') && !strstr(errbuf, "found '@'"), "one line: %s", errbuf);
    CHECK(run_in(s, "@torch.no_grad()\nh = lambda t: t") < 0 && strstr(errbuf, "a decorator goes on a def"),
          "%s", errbuf);
    CHECK(run_in(s, "a = tensor([[1., 2.], [3., 4.]])\nb = a @ a\na @= a\nprint(b[0, 0], a[1, 1])") == 0 &&
          !strcmp(outbuf, "7 22\n"), "@ multiplies matrices: %s%s", outbuf, errbuf);
    done(s);
}

int main(void)
{
    RUN(incomplete_blocks);
    RUN(and_or_not);
    RUN(augmented_assignment);
    RUN(block_syntax_errors);
    RUN(trailing_comma_ends_the_line);
    RUN(indented_blocks);
    RUN(call_values_from_c);
    RUN(scoping);
    RUN(errors_inside_functions_at_the_prompt);
    RUN(table_grows);
    RUN(block_enters_history_once);
    RUN(interrupt_stops_a_loop);
    RUN(python_forms);
    RUN(torch_forms);
    RUN(decorators);
    return bl_test_done();
}
