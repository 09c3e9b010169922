/* trainstate.h - training from the REPL: the data and the run each model carries (trainstate.c),
 * run values (runval.c) and train's progress bar, used by the commands data, train, eval,
 * sample, lengen, save, load, metrics and dash (cmd_NAME.c; issues 3-6, DESIGN.md 5-8).
 *
 * Every model value may carry a training state (trainstate.c keeps a list keyed by the model):
 *   data     the attached dataset (`data KIND [PATH]`); when none is attached, training opens
 *            the default: shapes (TinyDiT) or the built-in manual text (TinyGPT)
 *   run      the bl_run, made by the first `train`/`eval` and kept, so `train 100; train 100`
 *            continues; a switch change that rebuilds the model discards it (set says so)
 *   vocab    TinyGPT: the characters of the vocabulary (from the text or the checkpoint)
 *   pending  what `load` read from a checkpoint (step, history, optimizer moments, data name,
 *            source and position) until the run that continues it is made: that needs data, so
 *            when the checkpoint's could not be reopened it stays until `data` attaches some and
 *            training (or save) makes the run; meanwhile save writes it back unchanged and show,
 *            m.run and plot loss show its history
 * The state is freed with the model (modelvars.c calls bl_train_forget).
 */
#ifndef BL_REPL_TRAINSTATE_H
#define BL_REPL_TRAINSTATE_H

#include "repl/repl.h"
#include "train/checkpoint.h"

typedef struct bl_train_state {
    const bl_model *m;          /* the key */
    bl_dataset *data;           /* owned, or NULL */
    bl_run *run;                /* owned, or NULL */
    int exam_n;                 /* held-out examples of the exam (0 = the trainer's default) */
    int vocab_size;             /* TinyGPT: 0 when unknown */
    unsigned char vocab[256];
    int has_pending;            /* pending holds a checkpoint's run to continue */
    bl_ckpt_info pending;
    bl_metrics *pending_hist;   /* pending's history as metrics (NULL when it has none) */
    int from_checkpoint;        /* the weights came from `load`: never rebuilt silently */
    int edited;                 /* step(m) or set_param changed the weights: never rebuilt silently */
    /* the model functions of the prompt (modellab.h) */
    int lab_eval;               /* m.eval() (1) / m.train() (0, the default): dropout in the
                                   prompt's forwards (modellab.c), PyTorch's module mode */
    bl_graph *lab_graph;        /* the graph of the last forward at the prompt (m(...), a loss):
                                   its per-layer views (acts) point into it; a value whose backward
                                   needs it holds another reference (modellab.c lab_enter) */
    bl_adamw lab_opt;           /* step(m) while the model has no run (before the first train) */
    float lab_loss;             /* the last flow_loss / ce_loss (the loss step records in a run) */
    long long lab_items;        /* its images or tokens */
    struct bl_train_state *next;
} bl_train_state;

/* The state of m, made when absent (NULL + error on out of memory). */
bl_train_state *bl_train_get(const bl_model *m);
/* The state of m or NULL; does not make one. */
bl_train_state *bl_train_find(const bl_model *m);
/* Take info (a checkpoint's run, read by bl_checkpoint_load) as t's pending run, to continue
 * when its run is made: its history moves to t (info->history becomes NULL), the rest is copied.
 * -1 + error (out of memory), t then holds none. */
int bl_train_set_pending(bl_train_state *t, bl_ckpt_info *info);
/* The history of m's run, or of the checkpoint run it holds pending; NULL when it has neither. */
const bl_metrics *bl_train_metrics(const bl_model *m);
/* Free m's state (the model is being freed). */
void bl_train_forget(const bl_model *m);
/* The model was rebuilt (new weights): drop its run, saying so on out when it had steps. */
void bl_train_discard_run(const bl_model *m, FILE *out);

/* The data of m, opening the default when none is attached (printing what it did on out).
 * For TinyGPT, sets the model's vocab to the text's, rebuilding the model and saying so when it
 * changes (refused, with an error, for weights loaded from a checkpoint). NULL + "CMD: ...". */
const bl_dataset *bl_train_data(bl_session *s, bl_model *m, const char *cmd);
/* The default data of m (shapes or the built-in text), opened but not attached, so a command
 * can check its input against it first (the caller owns it). NULL + "CMD: ..." error. */
bl_dataset *bl_train_open_default(const bl_model *m, const char *cmd);
/* Attach ds (taken, freed on failure) as m's data like bl_train_data does, printing what it did
 * and fitting a TinyGPT's vocab to it. The data, or NULL + "CMD: ..." error (nothing changed). */
const bl_dataset *bl_train_attach_default(bl_session *s, bl_model *m, bl_dataset *ds, const char *cmd);
/* Attach ds (taking it, freed on failure) to m, saying so first with its description after
 * prefix (then what it changes: the vocab rebuilt, the run ended): a new dataset ends the old
 * run. 0, or -1 + "CMD: ..." error (a loaded model's vocab that the text would change). */
int bl_train_attach(bl_session *s, bl_model *m, bl_train_state *t, bl_dataset *ds, const char *cmd,
                    const char *prefix);
/* Refuse data of the wrong kind for m (TinyDiT trains on images, TinyGPT on text): 0, or -1 +
 * "CMD: TinyGPT needs a text, not images ...". */
int bl_train_check_kind(const bl_model *m, int is_text, const char *cmd);
/* "text t.txt", "shapes built in": the data set t's pending checkpoint run was on, in buf. */
const char *bl_train_pending_data(const bl_train_state *t, char *buf, size_t n);
/* Whether the last error is the trainer's "eval: interrupted ..." (Ctrl-C during the exam). */
int bl_train_exam_interrupted(void);
/* The run of m, made on first use (with the pending checkpoint state), re-made keeping its step,
 * history and data position when `batch` changed. NULL + "CMD: ..." error. */
bl_run *bl_train_run(bl_session *s, bl_model *m, const char *cmd);

/* "  val 0.1234" of the last exam of a run's history mt, then " @STEP" when it was taken at another
 * step than `step`, the run's current one (the val of step 100 beside step 140: "val 6.8856
 * @100"); "" before the first exam. train's progress bar and final line and show print it. */
void bl_train_val_text(char *buf, size_t n, const bl_metrics *mt, int step);

/* Two lines for `show`: the attached data and the run (step, last loss and val, optimizer). */
void bl_train_show(const bl_model *m, FILE *out);

/* A run value: a snapshot of a run's metrics (fields steps, loss, val, ms_per_step, spikes,
 * items, params; `> FILE.json` writes metrics.json). */
extern const bl_handle_type bl_runval_type;
/* A snapshot of m's run (NULL + "CMD: MODEL has not been trained yet" when it has none). */
bl_value *bl_train_run_value(const bl_model *m, const char *cmd);
/* The metrics a run value holds (for plots of several runs), or NULL when v is not one. */
const bl_metrics *bl_runval_metrics(const bl_value *v);

/* train's progress bar for a terminal of `width` columns into buf: "[####....] " and text
 * ("step S  loss L ..."), never wider than width - 1 columns so it never wraps. The bar shrinks
 * first (from 20 marks), is left out below 4, and only then is the text cut. */
void bl_progress_line(char *buf, size_t size, int width, int done, int total, const char *text);
/* The text of that bar: head ("step S  loss L"), val, rate and eta (each "" or starting with two
 * spaces) into buf, as much as fits in width - 1 columns: the rate is left out first, then val,
 * so the ETA stays once a rate is known (a longer head is then cut by bl_progress_line). */
void bl_progress_text(char *buf, size_t size, int width, const char *head, const char *val, const char *rate,
                      const char *eta);

#endif
