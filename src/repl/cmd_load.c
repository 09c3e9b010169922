/* cmd_load.c - `load FILE [name=NAME]`: a checkpoint as a new model whose run continues, or
 * `load FILE into=MODEL`: a plain state_dict's weights into a model, strictly. */
#include "repl/trainstate.h"
#include "core/fmt.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include <stdlib.h>
#include <string.h>

/* load FILE into=MODEL: the weights of a plain state_dict into an existing model, strictly
 * (bl_checkpoint_load_into); its run, data and optimizer state stay as they were. */
static int load_into_model(bl_cmdargs *a, int pi, int ii)
{
    if (bl_opt_find(a, "name") >= 0) {
        bl_fail("load: name= makes a new model and into= loads into one: give one of them");
        return bl_session_errat(a->s, a->w[bl_opt_find(a, "name")].pos);
    }
    const char *mname = a->w[ii].text;
    bl_value *v = bl_session_get(a->s, mname);
    if (!v || v->kind != BL_V_HANDLE || v->htype != &bl_model_type) {
        if (v) bl_fail("load: into=%s: '%s' is a %s, not a model", mname, mname, bl_val_kind_name(v));
        else bl_fail("load: into=%s: no model '%s' (make one of the file's shape first, e.g. %s = gpt(...))", mname,
                     mname, mname);
        return bl_session_errat(a->s, a->w[ii].vpos);
    }
    bl_model *m = v->h;
    int n = 0;
    char note[512];
    if (bl_checkpoint_load_into(a->w[pi].text, m, mname, &n, note, sizeof note) < 0) {
        bl_error_as("load", NULL);
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    bl_train_state *t = bl_train_get(m);
    if (t) t->from_checkpoint = 1;  /* loaded weights: a vocab change of `data` is refused, not rebuilt */
    fprintf(a->s->out, "loaded %d tensors (%zu parameters) into %s\n", n, bl_model_param_count(m), mname);
    if (note[0])
        fprintf(a->s->out, "  note: the checkpoint was made with %s; %s computes with its own switches\n", note, mname);
    return 0;
}

static int cmd_load(bl_cmdargs *a)
{
    static const char *const keys[] = { "name", "into", NULL };
    int pi;
    if (bl_word_keys(a, 0, keys, 1, &pi) < 0) return -1;
    if (pi < 0) {
        bl_fail("load: expected a file name (load FILE [name=NAME] | load FILE into=MODEL)");
        return -1;
    }
    int ii = bl_opt_find(a, "into");
    if (ii >= 0) return load_into_model(a, pi, ii);
    int ni = bl_opt_find(a, "name");
    const char *name = ni >= 0 ? a->w[ni].text : NULL;
    int constant;
    if (name && !bl_name_assignable(name, &constant)) {     /* exactly what NAME = ... takes */
        if (constant) bl_fail("load: '%s' is a constant (true, false, on, off), not a name to bind the model to", name);
        else bl_fail("load: '%s' is not a name (a letter or _, then letters, digits and _)", name);
        return bl_session_errat(a->s, a->w[ni].vpos);
    }
    const char *path = a->w[pi].text;
    bl_ckpt_info info;
    memset(&info, 0, sizeof info);
    bl_model *m = bl_checkpoint_load(path, &info);
    if (!m) {
        bl_error_as("load", NULL);
        bl_ckpt_info_clear(&info);
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    bl_train_state *t = bl_train_get(m);
    if (!t) {
        bl_model_free(m);
        bl_ckpt_info_clear(&info);
        return -1;
    }
    t->from_checkpoint = 1;
    t->exam_n = info.exam_n;    /* the continued run takes the same exam */
    t->vocab_size = info.vocab_size;
    memcpy(t->vocab, info.vocab, sizeof t->vocab);
    if (bl_train_set_pending(t, &info) < 0) {   /* takes info */
        bl_train_forget(m);
        bl_model_free(m);
        return bl_session_errat(a->s, a->w[pi].pos);
    }
    if (bl_models_adopt(a->s, m, name) < 0) return bl_session_errat(a->s, a->w[pi].pos);
    /* the model is a value now: from here on nothing fails the command */
    FILE *o = a->s->out;
    if (!info.data_name[0]) {
        fprintf(o, "  step %ld; no data stored (data KIND [PATH] attaches some)\n", info.step);
        return 0;
    }
    /* the built-in sets (shapes; the manual, whose source reads "built-in manual (...)") reopen
     * without a path */
    const char *src = info.data_source[0] && strcmp(info.data_source, "built in") &&
                      strncmp(info.data_source, "built-in manual (", 17) ? info.data_source : NULL;
    bl_dataset *ds = bl_data_open(info.data_name, src, m->cfg.seed);
    char d[1200];
    if (ds) {
        int text = bl_kind_of(m->kind)->text;   /* a text's vocab must be the checkpoint's */
        t->data = ds;
        if (text && ds->vocab_size == m->cfg.vocab && !t->vocab_size) {
            t->vocab_size = ds->vocab_size;
            memcpy(t->vocab, ds->vocab, sizeof t->vocab);
        }
        if (text && ds->vocab_size != m->cfg.vocab) {
            fprintf(o, "  the data %s %s has changed (vocab %d, the model has %d): not attached\n",
                    info.data_name, src ? src : "(built in)", ds->vocab_size, m->cfg.vocab);
            bl_dataset_free(ds);
            t->data = NULL;
        } else if (text && memcmp(t->vocab, ds->vocab, (size_t)ds->vocab_size)) {
            /* as many bytes, but other ones: its token ids would mean other characters */
            fprintf(o, "  the data %s %s has changed (its %d bytes are not the checkpoint's vocabulary): "
                    "not attached\n", info.data_name, src ? src : "(built in)", ds->vocab_size);
            bl_dataset_free(ds);
            t->data = NULL;
        } else if (!bl_train_run(a->s, m, "load")) {
            fprintf(o, "  the run cannot continue on %s: %s\n", info.data_name, bl_error());
            bl_dataset_free(t->data);
            t->data = NULL;
        } else {
            fprintf(o, "  step %d, data %s\n", bl_run_steps(t->run), bl_dataset_describe(ds, d, sizeof d));
            return 0;
        }
    } else {
        fprintf(o, "  cannot reopen the data (%s)\n", bl_error());
    }
    bl_clear_error();
    fprintf(o, "  step %ld kept; data KIND [PATH] attaches data to continue the run\n", info.step);
    return 0;
}

static const char help[] =
    "Load a checkpoint as a new model, made current.\n"
    "into=MODEL loads a plain PyTorch state_dict (safetensors.torch.save_file(m.state_dict()),\n"
    "no metadata needed; F16 and BF16 convert to float32) into an existing model of its shape,\n"
    "strictly as load_state_dict(strict=True): every missing, unexpected, wrongly shaped or\n"
    "non-finite tensor is named in one error and the model is left unchanged. TinyGPT's\n"
    "lm_head.weight (tied) must equal transformer.wte.weight. The run and data stay. A\n"
    "checkpoint made with other switches (norm, pos, ...) loads with a note naming them.\n"
    "name=NAME takes any name an assignment takes, a command's too (name=train: read it as\n"
    "train.params or (train), since a line that starts with train runs the command).\n"
    "Its run continues where it stopped (step, history, data position); the data is reopened\n"
    "from the name and path stored in the file when possible; when not, the run waits for\n"
    "data KIND [PATH] (show, m.run and plot loss give its history, save writes it back\n"
    "unchanged). A checkpoint with a nan or inf in any tensor is refused, naming the first\n"
    "one, and so is one whose metadata does not hold together, naming the field: config\n"
    "(every key that makes the model: switches and sizes), step (a whole number, the\n"
    "history's step count), history (well-formed, finite), data (drawn: the samples the\n"
    "history counts; exam), vocab (the config's vocab of distinct bytes), kind, and the\n"
    "optimizer state (present after a step, zero before the first). load(\"f\", \"name\")\n"
    "reads one tensor instead (nan and inf included).";

const bl_command bl_cmd_load_entry = {
    .name = "load",
    .synopsis = "load FILE [name=NAME] | load FILE into=MODEL",
    .help = help,
    .complete = bl_complete_file,
    .run = cmd_load,
};
