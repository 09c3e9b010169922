/* cmd_save.c - `save [MODEL] FILE`: the model and its run as a safetensors checkpoint
 * (train/checkpoint.h), written atomically. */
#include "repl/trainstate.h"
#include "repl/modelvars.h"
#include "repl/parser.h"
#include "core/error.h"
#include <string.h>

static int cmd_save(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    if (a->n != used + 1 || a->w[used].key) {
        bl_fail("save: expected one file name (save [MODEL] FILE)");
        return bl_session_errat(a->s, a->n > used + 1 ? a->w[used + 1].pos : a->st->pos);
    }
    /* a checkpoint named as a picture or a table (save w.png) would be a safetensors file under
     * a name that says otherwise: refused; any other name (ckpt, x.pt, x.safetensors) is fine */
    const char *file = a->w[used].text;
    size_t fn = strlen(file);
    const char *e = bl_redirect_ext_of(file, fn);
    if (e) {
        bl_fail("save: '%s' names a %s file, not a checkpoint: save writes safetensors (save %.*s.safetensors)",
                file, e + 1, (int)(fn - strlen(e)), file);
        return bl_session_errat(a->s, a->w[used].pos);
    }
    bl_train_state *t = bl_train_find(m);
    /* a loaded run that has not trained since: with data attached, make its run (so the file
     * names the data it goes on with); without, write the checkpoint's run as it was loaded, so
     * its step, history, moments and data position are never lost */
    if (t && t->has_pending && !t->run && t->data && !bl_train_run(a->s, m, "save"))
        return bl_session_errat(a->s, a->st->pos);
    const bl_run *r = t ? t->run : NULL;
    const bl_ckpt_info *held = t && !r && t->has_pending ? &t->pending : NULL;
    const unsigned char *vocab = t && t->vocab_size ? t->vocab : NULL;
    int vocab_size = t ? t->vocab_size : 0;
    if ((held ? bl_checkpoint_save_info(a->w[used].text, m, held, vocab, vocab_size)
              : bl_checkpoint_save(a->w[used].text, m, r, vocab, vocab_size)) < 0) {
        bl_error_as("save", NULL);
        return bl_session_errat(a->s, a->w[used].pos);
    }
    if (held && held->history)
        fprintf(a->s->out, "saved %s (step %ld, %zu parameters, %s: the loaded checkpoint's run, not "
                "continued)\n", a->w[used].text, held->step, bl_model_param_count(m),
                held->has_optim ? "optimizer state and history" : "history");
    else
        fprintf(a->s->out, "saved %s (step %d, %zu parameters%s)\n", a->w[used].text, r ? bl_run_steps(r) : 0,
                bl_model_param_count(m), r ? ", optimizer state and history" : "");
    return 0;
}


static const char help[] =
    "Save the model and its run as a checkpoint.\n"
    "A safetensors file (PyTorch names; optimizer moments, config, step, history, data and\n"
    "vocab in __metadata__), written atomically. A loaded model whose data could not be\n"
    "reopened keeps the checkpoint's run until data is attached: save writes its step,\n"
    "history, moments and data name, path and position back unchanged. Any name but one\n"
    "of a picture or table (.png .svg .csv .json .md .txt, refused); .safetensors is usual.";

const bl_command bl_cmd_save_entry = {
    .name = "save",
    .synopsis = "save [MODEL] FILE",
    .help = help,
    .complete = bl_complete_file,
    .run = cmd_save,
};
