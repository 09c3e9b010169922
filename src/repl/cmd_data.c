/* cmd_data.c - `data [MODEL] [KIND [PATH]] [exam=N]`: attach a dataset to the model, or show it
 * (the training state is trainstate.c's). */
#include "repl/trainstate.h"
#include "repl/modelvars.h"
#include "core/error.h"
#include <string.h>

static int cmd_data(bl_cmdargs *a)
{
    int used;
    bl_model *m = bl_models_pick(a, &used);
    if (!m) return -1;
    bl_train_state *t = bl_train_get(m);
    if (!t) return -1;
    if (a->n == used) {
        char d[1200];
        if (t->data) fprintf(a->s->out, "%s\n", bl_dataset_describe(t->data, d, sizeof d));
        else if (t->has_pending && t->pending.data_name[0])
            fprintf(a->s->out, "no data attached: the checkpoint's run (step %ld) was on %s (data KIND [PATH] "
                    "attaches data to continue it)\n", t->pending.step, bl_train_pending_data(t, d, sizeof d));
        else fprintf(a->s->out, "no data attached: training uses %s (data KIND [PATH] attaches one)\n",
                     bl_kind_of(m->kind)->data_title);
        return 0;
    }
    long exam = 0;
    int nw = a->n;
    if (a->w[nw - 1].key) {
        if (strcmp(a->w[nw - 1].key, "exam")) {
            bl_fail("data: unknown key '%s' (data [MODEL] KIND [PATH] [exam=N])", a->w[nw - 1].key);
            return bl_session_errat(a->s, a->w[nw - 1].pos);
        }
        if (bl_word_int(a, nw - 1, 1, 1000000, &exam) < 0) return -1;
        if (--nw == used) {
            bl_fail("data: exam= goes with a data set (data KIND [PATH] exam=N)");
            return bl_session_errat(a->s, a->w[nw].pos);
        }
    }
    if (nw > used + 2) {
        bl_fail("data: too many arguments (data [MODEL] KIND [PATH] [exam=N])");
        return bl_session_errat(a->s, a->w[used + 2].pos);
    }
    const char *kind = a->w[used].text, *path = nw > used + 1 ? a->w[used + 1].text : NULL;
    int known = 0;
    for (int i = 0; bl_data_kinds[i]; i++) known |= !strcmp(bl_data_kinds[i], kind);
    if (!known || a->w[used].key) {
        bl_fail("data: unknown data set '%s' (shapes, cifar10, mnist, fashion-mnist, images, text)", kind);
        return bl_session_errat(a->s, a->w[used].pos);
    }
    /* the wrong kind is refused before anything is opened or changed */
    if (bl_train_check_kind(m, !strcmp(kind, "text"), "data") < 0) return bl_session_errat(a->s, a->w[used].pos);
    bl_dataset *ds = bl_data_open(kind, path, m->cfg.seed);
    if (!ds) {
        bl_error_as("data", "train");
        return bl_session_errat(a->s, a->w[path ? used + 1 : used].pos);
    }
    if (bl_train_check_kind(m, ds->kind == BL_DATA_TEXT, "data") < 0) {
        bl_dataset_free(ds);
        return bl_session_errat(a->s, a->w[used].pos);
    }
    /* what train would refuse of this data with this model, refused now: the old data stays */
    if (bl_run_check_data(m, ds, (int)exam) < 0) {
        bl_error_as("data", "train");
        bl_dataset_free(ds);
        return bl_session_errat(a->s, a->w[path ? used + 1 : used].pos);
    }
    if (bl_train_attach(a->s, m, t, ds, "data", "") < 0) return bl_session_errat(a->s, a->w[used].pos);
    t->exam_n = (int)exam;
    return 0;
}

static int complete_data(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out)
{
    /* the first word may be a model variable */
    int kindi = 0;
    if (argi > 0) {
        bl_value *v = bl_session_get(s, words[0]);
        if (v && v->kind == BL_V_HANDLE && v->htype == &bl_model_type) kindi = 1;
    }
    if (argi == kindi) {
        bl_complete_from(bl_data_kinds, prefix, out);
        if (argi == 0) bl_complete_modelvar(s, 0, words, prefix, out);
        return 0;
    }
    return 1;   /* a path */
}

static const char help[] =
    "Attach a dataset to the model, or show it.\n"
    "KIND: shapes (built in), cifar10 DIR, mnist DIR, fashion-mnist [DIR], images DIR (one\n"
    "folder of PNGs per class), text [FILE] (no FILE: the built-in manual). For TinyGPT the\n"
    "model's vocab becomes the text's (a rebuild when it changes). Without `data`, training\n"
    "uses shapes (TinyDiT) or the built-in text (TinyGPT). The wrong kind, a text no longer\n"
    "than the context and an exam larger than the held-out part are refused at once (the\n"
    "data attached stays). A new dataset starts a new run.\n"
    "exam=N: the validation exam takes N held-out images or windows (default 2000 images,\n"
    "64 windows; fewer is faster, the same N gives every model the same exam).";

const bl_command bl_cmd_data_entry = {
    .name = "data",
    .synopsis = "data [MODEL] [KIND [PATH]] [exam=N]",
    .help = help,
    .complete = complete_data,
    .run = cmd_data,
};
