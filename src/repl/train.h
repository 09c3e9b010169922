/* train.h - training from the REPL: the data and the run each model carries, and the commands
 * data, train, eval, sample, lengen, save, load, metrics and dash (issues 3-6, DESIGN.md 5-8).
 *
 * Every model value may carry a training state (cmd_data.c keeps a list keyed by the model):
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
 * The state is freed with the model (models.c calls bl_train_forget).
 */
#ifndef BL_REPL_TRAIN_H
#define BL_REPL_TRAIN_H

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
    /* the model functions of the prompt (modellab.h) */
    bl_tensor *lab_x;           /* m(xt, t)'s images: the graph's patch embedding reads them in
                                   backward, so they live until the next call */
    float *lab_t;               /* its times [B] */
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
int bl_cmd_data(bl_cmdargs *a);
int bl_cmd_train(bl_cmdargs *a);
int bl_cmd_eval(bl_cmdargs *a);
int bl_cmd_sample(bl_cmdargs *a);
int bl_cmd_lengen(bl_cmdargs *a);
int bl_cmd_save(bl_cmdargs *a);
int bl_cmd_load(bl_cmdargs *a);
int bl_cmd_metrics(bl_cmdargs *a);
int bl_cmd_dash(bl_cmdargs *a);
int bl_complete_data(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);
bl_value *bl_fn_run(bl_callargs *a);   /* run(m) */

#define BL_TRAIN_COMMANDS                                                                       \
    { "data", "data [MODEL] [KIND [PATH]] [exam=N]",                                           \
      "Attach a dataset to the model, or show it.\n"                                           \
      "KIND: shapes (built in), cifar10 DIR, mnist DIR, fashion-mnist [DIR], images DIR (one\n" \
      "folder of PNGs per class), text [FILE] (no FILE: the built-in manual). For TinyGPT the\n" \
      "model's vocab becomes the text's (a rebuild when it changes). Without `data`, training\n" \
      "uses shapes (TinyDiT) or the built-in text (TinyGPT). The wrong kind, a text no longer\n" \
      "than the context and an exam larger than the held-out part are refused at once (the\n"  \
      "data attached stays). A new dataset starts a new run.\n"                                \
      "exam=N: the validation exam takes N held-out images or windows (default 2000 images,\n" \
      "64 windows; fewer is faster, the same N gives every model the same exam).",             \
      bl_complete_data, bl_cmd_data, 0 },                                                      \
    { "train", "train [MODEL] N [quiet=on]",                                                   \
      "Train N steps (the run continues across calls).\n"                                      \
      "On a terminal a progress bar shows step, loss, the last val loss, it/s of training time\n" \
      "(exams left out, to the bar's end) and the ETA (m:ss or h:mm:ss, the exams to come\n"  \
      "included); then, as otherwise, one final line (quiet=on: none) with the wall-clock\n" \
      "it/s, \"(11.5 it/s with exams)\" when exams ran. A val loss from an earlier step than\n" \
      "the current one says which: \"step 140: loss 3.5512  val 3.6210 @100\". Validation every\n" \
      "eval_every steps (set eval_every=0: never). Ctrl-C stops after the current step and\n" \
      "keeps everything (the rest of the line does not run); a NaN or inf loss stops with the\n" \
      "weights of the last good step. `set lr=...` applies to the next step. A step whose loss\n" \
      "is above 1.5x the median of the previous 100 (from step 11) is a spike (metrics,\n"    \
      "m.run.spikes).\n"                                                                       \
      "Under MPI (mpirun -np N) training is data-parallel: each rank takes B/N rows of the\n" \
      "batch, gradients are averaged (MPI_Iallreduce), the weights compared every eval_every\n" \
      "steps; exams and save on rank 0; kill -USR1 on mpirun stops all after one step.",      \
      bl_complete_modelvar, bl_cmd_train, 0 },                                                  \
    { "eval", "eval [MODEL]",                                                                  \
      "Print the validation loss on the fixed exam.\n"                                         \
      "TinyDiT: flow MSE on held-out images with fixed noise and t; TinyGPT: cross-entropy on\n" \
      "fixed held-out windows. The point goes into the run's val history.",                    \
      bl_complete_modelvar, bl_cmd_eval, 0 },                                                   \
    { "sample", "sample [MODEL] [KEY=VALUE...]",                                               \
      "Generate images (TinyDiT) or text (TinyGPT).\n"                                         \
      "TinyDiT: n=16 steps=20 seed=0; the result is a picture, the images in the most\n"     \
      "square grid (16: 4 x 4) with sharp pixels (sample > s.png saves it;\n"                \
      "width= height= scale= size the file as for plot loss; slide keys title= theme=\n"     \
      "font=: help slides).\n"                                                                \
      "TinyGPT: prompt=\"ROMEO:\" n=200 temperature=1 top_k=0 seed=0 cache=on sliding=off;\n" \
      "the result is the text. Characters outside the vocabulary are reported.\n"            \
      "Ctrl-C stops it with one line: the text so far is kept; TinyDiT makes no picture.",    \
      bl_complete_modelvar, bl_cmd_sample, BL_WRITES_PICTURE | BL_WRITES_GPT_TEXT },            \
    { "lengen", "lengen [MODEL...] [factor=4] [windows=64] [smooth=N] [sliding=off]",            \
      "Loss per position past the context, overlaid.\n"                                      \
      "Each TinyGPT (lengen v1 v2: learned positions against RoPE) on windows factor x\n"     \
      "context long of its text's held-out part: the mean over windows= windows with a band\n" \
      "of one standard error, both a centred mean over 2N+1 positions (smooth=N, default\n"   \
      "context/8; 0: none), and the training context marked (a grey dashed line, named\n"   \
      "\"training context N\" in the legend; labels= names the models only). A pos=learned\n" \
      "model has no position past its context: it is drawn up to it, or with sliding=on\n" \
      "past it (each prediction past the context sees the last context tokens, as sample\n" \
      "sliding=on).\n"                                                                        \
      "width= height= scale= size its file as for plot loss; slide keys title= xlim= ylim=\n" \
      "logy= legend= labels= theme= font=: help slides.\n"                                   \
      "`lengen v1 v2 > l.csv` writes position,v1,v2: each model's mean loss at each position\n" \
      "(from 1, unsmoothed; nan past a model's last position).",                            \
      bl_complete_modelvar, bl_cmd_lengen, BL_WRITES_PICTURE },                                 \
    { "save", "save [MODEL] FILE",                                                             \
      "Save the model and its run as a checkpoint.\n"                                          \
      "A safetensors file (PyTorch names; optimizer moments, config, step, history, data and\n" \
      "vocab in __metadata__), written atomically. A loaded model whose data could not be\n"  \
      "reopened keeps the checkpoint's run until data is attached: save writes its step,\n"  \
      "history, moments and data name, path and position back unchanged. Any name but one\n" \
      "of a picture or table (.png .svg .csv .json .md .txt, refused); .safetensors is usual.", \
      bl_complete_file, bl_cmd_save, 0 },                                                       \
    { "load", "load FILE [name=NAME] | load FILE into=MODEL",                                  \
      "Load a checkpoint as a new model, made current.\n"                                      \
      "into=MODEL loads a plain PyTorch state_dict (safetensors.torch.save_file(m.state_dict()),\n" \
      "no metadata needed; F16 and BF16 convert to float32) into an existing model of its shape,\n" \
      "strictly as load_state_dict(strict=True): every missing, unexpected, wrongly shaped or\n" \
      "non-finite tensor is named in one error and the model is left unchanged. TinyGPT's\n"  \
      "lm_head.weight (tied) must equal transformer.wte.weight. The run and data stay. A\n"   \
      "checkpoint made with other switches (norm, pos, ...) loads with a note naming them.\n" \
      "name=NAME takes any name an assignment takes, a command's too (name=train: read it as\n" \
      "train.params or (train), since a line that starts with train runs the command).\n"    \
      "Its run continues where it stopped (step, history, data position); the data is reopened\n" \
      "from the name and path stored in the file when possible; when not, the run waits for\n"  \
      "data KIND [PATH] (show, m.run and plot loss give its history, save writes it back\n"     \
      "unchanged). A checkpoint with a nan or inf in any tensor is refused, naming the first\n" \
      "one, and so is one whose metadata does not hold together, naming the field: config\n"  \
      "(every key that makes the model: switches and sizes), step (a whole number, the\n"     \
      "history's step count), history (well-formed, finite), data (drawn: the samples the\n"  \
      "history counts; exam), vocab (the config's vocab of distinct bytes), kind, and the\n"  \
      "optimizer state (present after a step, zero before the first). load(\"f\", \"name\")\n" \
      "reads one tensor instead (nan and inf included).",                                       \
      bl_complete_file, bl_cmd_load, 0 },                                                       \
    { "metrics", "metrics [MODEL]",                                                            \
      "The run's metrics (steps, loss, val, speed).\n"                                         \
      "`metrics > metrics.json` writes metrics.json (params, steps, items, loss, ms, val,\n"   \
      "spikes, ms_per_step, it_per_s, items_per_s, wall_s); run(m) gives them as a value.",   \
      bl_complete_modelvar, bl_cmd_metrics, BL_WRITES_RUN },                                    \
    { "dash", "dash [MODEL] [steps=N] | dash demo",                                            \
      "Train inside the live ncurses dashboard.\n"                                             \
      "Loss curve, progress (the run's step, then this command's steps done of N with their\n" \
      "bar, as train's: \"step 365  31/150 [####....] 20%\"; the val loss with @STEP when\n" \
      "stale, as train writes it; steps/s of training time: a pause and the validation exams do\n" \
      "not count; the ETA adds the exams to come at their mean time), the attention map of\n" \
      "the last step and per-token statistics;\n"                                             \
      "keys: q back (everything kept), p pause, v view, arrows layer and head, g log y.\n"     \
      "steps= defaults to the model's steps key. `dash demo` shows a fake run.",               \
      bl_complete_modelvar, bl_cmd_dash, 0 },

#define BL_TRAIN_FUNCTIONS                                                                      \
    { "run", "run(m)",                                                                          \
      "A snapshot of model m's training run. Fields: steps, loss (a tensor of the losses), val\n" \
      "([k, 2]: step, loss), ms_per_step, spikes, items, params. r = run(m); r > r.json writes\n" \
      "metrics.json. m.run is the same.", bl_fn_run },

#endif
