/* cmd_pictures.c - `pictures [MODE]`: how pictures are shown on this terminal (kitty, iTerm2 or
 * sixel pixels, half blocks, ASCII), see viz/termdetect.h. */
#include "repl/repl.h"
#include "core/error.h"
#include "viz/termdetect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int cmd_pictures(bl_cmdargs *a)
{
    if (a->n > 1 || (a->n == 1 && a->w[0].key)) {
        bl_fail("pictures: expects one mode at most (pictures [auto|kitty|iterm|sixel|blocks|ascii])");
        return bl_session_errat(a->s, a->w[a->n > 1 ? 1 : 0].pos);
    }
    if (a->n == 1) {
        bl_pic_mode m;
        if (bl_pic_parse(a->w[0].text, &m) < 0) return bl_session_errat(a->s, a->w[0].pos);
        bl_pic_set(m);
        /* kitty or iterm inside tmux that passes no pictures: one line saying what is drawn */
        int tmux;
        const char *why;
        if ((m == BL_PIC_KITTY || m == BL_PIC_ITERM) && bl_pic_choose(STDOUT_FILENO, &tmux, &why) != m)
            fprintf(a->s->out, "pictures: %s; drawing half blocks\n", why);
        return 0;
    }
    /* the terminal the pictures go to: standard output, also when this text is redirected */
    int tmux;
    const char *why;
    bl_pic_mode m = bl_pic_choose(STDOUT_FILENO, &tmux, &why);
    fprintf(a->s->out, "pictures: %s (%s)%s\n", bl_pic_name(m), why,
            tmux && m != BL_PIC_BLOCKS && m != BL_PIC_ASCII ? ", through tmux's passthrough" : "");
    return 0;
}

static int complete_pictures(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    if (argi != 0) return 0;
    for (int i = BL_PIC_AUTO; i <= BL_PIC_ASCII; i++)
        if (!strncmp(bl_pic_name((bl_pic_mode)i), prefix, strlen(prefix))) bl_strlist_add(out, bl_pic_name((bl_pic_mode)i));
    return 0;
}

static const char help[] =
    "Show or choose how the terminal shows pictures.\n"
    "A picture printed on a terminal (plot, attn, rope, sample, lengen, heatmap(), ...) is\n"
    "the PNG's own drawing in pixels where the terminal can show them: kitty's graphics\n"
    "protocol (kitty, WezTerm, Ghostty, Konsole), iTerm2's inline images, or sixel (xterm\n"
    "-ti vt340, foot, mlterm, Windows Terminal); else braille and half blocks (blocks), or\n"
    "plain ASCII (ascii). auto asks the terminal once (kitty's graphics query and DA1,\n"
    "100 ms at most) and reads $KITTY_WINDOW_ID, $TERM_PROGRAM and $LC_TERMINAL, never $TERM\n"
    "alone; $BLOCKLAB_PICTURES=MODE chooses at start. Inside tmux the pictures go through its\n"
    "passthrough (set -g allow-passthrough on), else half blocks; GNU screen gets half blocks.\n"
    "Every picture fits the window: at most its width, and 2 rows less than its height so\n"
    "that the statement and the prompt stay in view; a picture's width and height are\n"
    "its columns and rows at most on a terminal (pixels only in a .png or .svg file).\n"
    "Output that is not a terminal (a pipe, a file, a script's transcript) gets blocks.\n"
    "Without a word: the mode and why, e.g. `pictures: sixel (the terminal's DA1 lists\n"
    "sixel (attribute 4))`.";

const bl_command bl_cmd_pictures_entry = {
    .name = "pictures",
    .synopsis = "pictures [auto|kitty|iterm|sixel|blocks|ascii]",
    .help = help,
    .complete = complete_pictures,
    .run = cmd_pictures,
};
