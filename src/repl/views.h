/* views.h - what the picture commands of the REPL share (DESIGN.md section 8; issue 6 item 2):
 *
 *   plot loss [MODELS...]  cmd_plot.c: train loss of runs overlaid (viz/lossplot.h)
 *   attn [MODEL]           cmd_attn.c: the attention matrices of the model on a fixed input
 *   stats [MODEL|TENSOR]   cmd_stats.c: per-token mean and rms before and after the norm
 *   rope table|check       cmd_rope.c: RoPE tables and the relative check (train/ropecheck.h)
 *   qk growth              cmd_qk.c: attention logits against a weight scale (train/qkgrowth.h)
 *
 * Each command leaves a figure value (repl/figures.h), so `rope check > rope.png` (.svg .csv
 * .json .txt) saves the picture.
 */
#ifndef BL_REPL_VIEWS_H
#define BL_REPL_VIEWS_H

#include "repl/modelvars.h"
#include "repl/repl.h"

/* Where a command's text table goes: the session's output (the terminal, or the file of a
 * `> FILE.txt` redirect), or a stream that discards everything when the statement writes its
 * picture to a .png, .svg, .csv or .json file instead. Text for a terminal is held back until
 * bl_cmd_text_flush, which counts the rows it takes. */
FILE *bl_cmd_text_out(bl_cmdargs *a);

/* Write the text bl_cmd_text_out held back to the session's output; returns the terminal rows it
 * took at the window's width (a line wider than the window wraps), 0 when none was held. The
 * picture the command leaves takes those rows off its height (bl_figure.rows_above), so that the
 * statement and the text stay in view. eval.c calls it after every command, so a command that
 * fails still prints what it wrote. */
int bl_cmd_text_flush(bl_cmdargs *a);

/* The fixed input of attn and stats, run through the model once: TinyDiT's validation image
 * `image` of its data (or shapes) noised to t = 0.5, TinyGPT's fixed sentence. */
typedef struct {
    int L;                  /* tokens */
    int H, D;               /* heads, model width */
    float *attn;            /* [H, L, L] of the chosen layer */
    float *tin, *tnorm;     /* [L, D] */
    float *img;             /* DiT: x0 and x_t, [2, C, S, S] */
    int C, S, gh, gw;
    char **labels;          /* GPT: L characters ("_" for a space) */
    char desc[96];
} bl_fixed_input;

/* Run m once on its fixed input and copy layer `layer`'s attention [H, L, L] and norm taps into
 * o (freed with bl_fixed_free). 0, or -1 + "CMD: ..." (o then holds nothing). */
int bl_fixed_forward(bl_model *m, int layer, int image, bl_fixed_input *o, const char *cmd);
void bl_fixed_free(bl_fixed_input *o);
/* layer=N (0 .. depth - 1, default 0) and image=N (TinyDiT's input image, default 0; refused for
 * TinyGPT) of the command's words: 0, or -1 reported at the word. */
int bl_layer_word(bl_cmdargs *a, const bl_model *m, long *layer);
int bl_image_word(bl_cmdargs *a, const bl_model *m, long *image);

#endif
