/* cmd_pictures.c - the `pictures` command (see cmd_pictures.h). */
#include "repl/cmd_pictures.h"
#include "core/error.h"
#include "viz/termdetect.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int bl_cmd_pictures(bl_cmdargs *a)
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

int bl_complete_pictures(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    if (argi != 0) return 0;
    for (int i = BL_PIC_AUTO; i <= BL_PIC_ASCII; i++)
        if (!strncmp(bl_pic_name((bl_pic_mode)i), prefix, strlen(prefix))) bl_strlist_add(out, bl_pic_name((bl_pic_mode)i));
    return 0;
}
