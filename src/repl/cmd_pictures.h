/* cmd_pictures.h - the `pictures` command: how pictures are shown on this terminal (kitty,
 * iTerm2 or sixel pixels, half blocks, ASCII), see viz/termdetect.h. */
#ifndef BL_REPL_CMD_PICTURES_H
#define BL_REPL_CMD_PICTURES_H

#include "repl/repl.h"

int bl_cmd_pictures(bl_cmdargs *a);
int bl_complete_pictures(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);

#define BL_PICTURE_COMMANDS                                                                        \
    { "pictures", "pictures [auto|kitty|iterm|sixel|blocks|ascii]",                                \
      "Show or choose how the terminal shows pictures.\n"                 \
      "A picture printed on a terminal (plot, attn, rope, sample, lengen, heatmap(), ...) is\n"    \
      "the PNG's own drawing in pixels where the terminal can show them: kitty's graphics\n"       \
      "protocol (kitty, WezTerm, Ghostty, Konsole), iTerm2's inline images, or sixel (xterm\n"     \
      "-ti vt340, foot, mlterm, Windows Terminal); else braille and half blocks (blocks), or\n"    \
      "plain ASCII (ascii). auto asks the terminal once (kitty's graphics query and DA1,\n"        \
      "100 ms at most) and reads $KITTY_WINDOW_ID, $TERM_PROGRAM and $LC_TERMINAL, never $TERM\n"  \
      "alone; $BLOCKLAB_PICTURES=MODE chooses at start. Inside tmux the pictures go through its\n" \
      "passthrough (set -g allow-passthrough on), else half blocks; GNU screen gets half blocks.\n" \
      "Every picture fits the window: at most its width, and 2 rows less than its height so\n"     \
      "that the statement and the prompt stay in view; a picture's width and height are\n"    \
      "its columns and rows at most on a terminal (pixels only in a .png or .svg file).\n"        \
      "Output that is not a terminal (a pipe, a file, a script's transcript) gets blocks.\n"      \
      "Without a word: the mode and why, e.g. `pictures: sixel (the terminal's DA1 lists\n"      \
      "sixel (attribute 4))`.",                                                                    \
      bl_complete_pictures, bl_cmd_pictures, 0 },

#endif
