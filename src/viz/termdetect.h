/* termdetect.h - which pictures the terminal can show, and how large its window is in pixels.
 *
 * Four ways to print a picture on a terminal:
 *   kitty   the kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole): PNG in APC chunks
 *   iterm   iTerm2's inline images (iTerm2, WezTerm): OSC 1337 File=inline=1
 *   sixel   DEC sixel graphics (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal)
 *   blocks  the text renderer of term.c: braille curves, half-block heatmaps (colours when the
 *           terminal has them)
 *   ascii   the text renderer in plain ASCII
 *
 * The choice, first that applies (bl_pic_choose):
 *   1. the session's setting (`pictures MODE`, bl_pic_set) when not auto;
 *   2. $BLOCKLAB_PICTURES = kitty|iterm|sixel|blocks|ascii (auto or unset: go on; another value
 *      is one warning on stderr, then as auto);
 *   3. output that is not a terminal: blocks (a file, a pipe, the examples' transcripts);
 *   4. GNU screen ($STY): blocks (its passthrough cuts long sequences);
 *   5. the terminal's answers (bl_term_query, standard input and output both terminals): an
 *      "OK" to kitty's graphics query (a=q) -> kitty; $TERM_PROGRAM=iTerm.app or WezTerm or
 *      $LC_TERMINAL=iTerm2 -> iterm (iTerm2 answers no query for its images); attribute 4 in
 *      the primary device attributes (DA1, CSI c) -> sixel; nothing within the timeout -> blocks;
 *   6. without answers to ask for (standard input is not a terminal), the environment's hints:
 *      $KITTY_WINDOW_ID or $TERM_PROGRAM=ghostty -> kitty, the iTerm2 hints above -> iterm; else
 *      blocks. $TERM alone never decides.
 * Inside tmux ($TMUX) the kitty query and the kitty and iTerm2 pictures travel in tmux's DCS
 * passthrough (ESC P tmux; ... ESC \ with every ESC doubled; tmux 3.3+ needs
 * `set -g allow-passthrough on`, else the query stays unanswered and blocks are used); tmux's own
 * DA1 tells whether tmux itself draws sixel (tmux 3.4 built with sixel), which then goes
 * unwrapped.
 */
#ifndef BL_VIZ_TERMDETECT_H
#define BL_VIZ_TERMDETECT_H

#include <stddef.h>

typedef enum { BL_PIC_AUTO = 0, BL_PIC_KITTY, BL_PIC_ITERM, BL_PIC_SIXEL, BL_PIC_BLOCKS, BL_PIC_ASCII } bl_pic_mode;

/* "auto", "kitty", "iterm", "sixel", "blocks", "ascii" */
const char *bl_pic_name(bl_pic_mode m);
/* The mode named s (the names above), or -1 with "pictures: unknown mode 'x' (auto, kitty, ...)". */
int bl_pic_parse(const char *s, bl_pic_mode *out);

/* What the terminal answered to bl_term_query. */
typedef struct {
    int answered;       /* the DA1 answer came (the terminal answers queries) */
    int kitty;          /* kitty's graphics query was answered OK */
    int sixel;          /* DA1 lists attribute 4 (sixel graphics) */
    int px_w, px_h;     /* the text area in pixels (CSI 4 ; height ; width t), 0 when not said */
} bl_term_answers;

/* Parse n bytes a terminal sent back after the queries of bl_term_query into *a (fields only
 * ever set, so that pieces read one after another add up). Returns 1 when the DA1 answer
 * (CSI ? ... c, which every terminal sends and which comes last) is among them, else 0. */
int bl_term_parse_answers(const char *buf, size_t n, bl_term_answers *a);

/* Ask the terminal on fds in (its input, switched to raw mode and back) and out: kitty's
 * graphics query ESC _ G i=31,s=1,v=1,a=q,t=d,f=24;AAAA ESC \ (wrapped in tmux's passthrough
 * when tmux), the text area's pixel size CSI 14 t, and DA1 CSI c; read the answers until DA1's
 * or timeout_ms milliseconds (about 100: a terminal answers in a few). A terminal that stays
 * silent gives a zeroed *a after the timeout. Returns 0, or -1 when in is not a terminal or
 * its mode cannot be set. */
int bl_term_query(int in, int out, int timeout_ms, int tmux, bl_term_answers *a);

/* Bytes that arrived with the answers but are not answers (keys typed ahead while a command ran)
 * are kept for the line editor: bl_term_pending_getc returns the next (-1: none left),
 * bl_term_pending_count how many are left. */
int bl_term_pending_getc(void);
int bl_term_pending_count(void);

/* Whether buf[0..n) is, or begins, an answer to bl_term_query's queries: 2 a whole answer (CSI ?
 * digits and ; c, CSI 4 ; H ; W t, APC G ... ESC \), 1 the start of one (more bytes may make
 * it one), 0 none (a key, e.g. ESC [ A or ESC [ 4 ~). */
int bl_term_answer_prefix(const char *buf, size_t n);

/* Whether a query went unanswered within its timeout this session (its answer may come late),
 * so that the line editor drops answers among the keys it reads (bl_term_late_filter). */
int bl_term_late_possible(void);

/* A key reader for the line editor that drops a terminal's late answers (a DA1 answer that came
 * after the 100 ms of the detection was typed at the prompt as "[?64;1;2;4c"): on ESC, when a
 * query went unanswered (bl_term_late_possible), the bytes that follow within 30 ms each are
 * read from fd with rd and, when they make an answer (bl_term_answer_prefix), dropped; else
 * returned one by one. rd(ctx) reads one byte (-1 at the end). Returns the next key byte. */
int bl_term_late_filter(int fd, int (*rd)(void *ctx), void *ctx);
/* The bytes bl_term_late_filter read and holds to return (the rest of ESC [ A): input the line
 * editor has, though the terminal has none left to read. */
int bl_term_held_count(void);

/* The pictures setting of this session (BL_PIC_AUTO: choose by bl_pic_choose's rules). Setting
 * it forgets the detected mode and the terminal's answers, so that the next picture asks again. */
void bl_pic_set(bl_pic_mode m);
bl_pic_mode bl_pic_get(void);

/* How pictures are printed on out_fd (standard input asked when both are terminals, once per
 * session; the answers are kept). *tmux: the pictures go through tmux's passthrough. why (may
 * be NULL): a short reason, e.g. "the terminal answered kitty's graphics query". Inside tmux,
 * kitty or iterm pictures chosen by the setting or $BLOCKLAB_PICTURES become blocks when tmux
 * says `allow-passthrough` is off (`tmux show -gv allow-passthrough`, asked once; the pictures
 * were blank), with why saying so. */
bl_pic_mode bl_pic_choose(int out_fd, int *tmux, const char **why);

/* The terminal window behind fd: cols x rows cells, each cell_w x cell_h pixels (from
 * TIOCGWINSZ's pixel size, else the CSI 14 t answer of the detection over the columns and
 * rows, else 0). Returns 0, or -1 when fd is not a terminal. */
int bl_term_window(int fd, int *cols, int *rows, int *cell_w, int *cell_h);

#endif
