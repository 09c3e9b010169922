/* checkpoint.h - save and load a model (and its run) as a safetensors file (DESIGN.md section 5).
 *
 * Tensors: every parameter under its PyTorch-style name (TinyGPT's tied head is stored under both
 * names, transformer.wte.weight and lm_head.weight, as nanoGPT's state_dict has it, so PyTorch's
 * load_state_dict(strict=True) takes the file; on load lm_head.weight must equal
 * transformer.wte.weight), and when a run exists AdamW's moments as `optim.m.NAME` and
 * `optim.v.NAME`. `__metadata__` (strings, JSON text where structured):
 *   format   "blocklab-checkpoint-1"
 *   kind     "dit" | "gpt"
 *   config   bl_config_to_json (switches, shape, seed and trainer keys)
 *   step     optimizer steps taken
 *   history  the run's metrics (metrics.h JSON: losses, validation points, spikes, timings)
 *   data     {"name", "source", "drawn", "exam"}: the dataset, how many samples were drawn from
 *            it and the size of the run's validation exam (val_n)
 *   vocab    TinyGPT: the characters of the vocabulary, as a JSON array of byte values
 * so `load` brings back the exact run: training 20 steps, saving, loading and training 20 more
 * gives the losses of 40 uninterrupted steps. Loads in PyTorch with
 * safetensors.torch.load_file (tests/golden/README.md shows how).
 *
 * Errors: -1 / NULL + bl_error() naming the file: what bl_st_read refuses (malformed files), a
 * missing or unknown config, a parameter missing or with the wrong shape for the config, a nan or
 * inf in a tensor, and metadata that does not hold together (one line naming the field):
 *   step     decimal digits only, at most BL_METRICS_MAX_STEPS (absent: 0, a file of weights)
 *   kind     when present, the config's kind
 *   history  bl_metrics_from_json's checks; its steps = step, its params = the model's count
 *   data     name and source strings that fit, drawn a count equal to the history's items
 *            (TinyGPT: items / context windows), exam absent or 1..1e9
 *   vocab    TinyGPT only: exactly config vocab bytes (transformer.wte.weight's rows), ascending
 *   history and data both or neither; a step > 0 needs them and the moments
 *   optim.*  all of them or none; v >= 0; all zero at step 0
 */
#ifndef BL_CHECKPOINT_H
#define BL_CHECKPOINT_H

#include "train/trainer.h"

/* What a checkpoint holds besides the weights, to restore a run. */
typedef struct bl_ckpt_info {
    long step;                  /* optimizer steps */
    int has_optim;              /* moments were stored (and have been loaded into the params) */
    uint64_t drawn;             /* samples drawn from the dataset */
    int exam_n;                 /* the run's exam size (val_n); 0 when not stored */
    char data_name[32];
    char data_source[1024];
    int vocab_size;             /* 0 when absent */
    unsigned char vocab[256];
    json_t *history;            /* metrics JSON (owned; json_decref) or NULL */
} bl_ckpt_info;

/* Write m (and r's optimizer state, history and data position when r != NULL; r->model must be
 * m) to path atomically. `vocab` (vocab_size bytes, may be NULL) is stored for TinyGPT. */
int bl_checkpoint_save(const char *path, const bl_model *m, const bl_run *r,
                       const unsigned char *vocab, int vocab_size);
/* Write m with the run a checkpoint held, as bl_checkpoint_load read it into info: its step,
 * history and data (name, source, drawn, exam as stored) unchanged, and the moments in m's
 * parameter store when info->has_optim. For a loaded model whose run has not continued (its
 * data could not be reopened): saving it again loses nothing of the checkpoint's run. */
int bl_checkpoint_save_info(const char *path, const bl_model *m, const bl_ckpt_info *info,
                            const unsigned char *vocab, int vocab_size);

/* Build the model the file describes and load its weights (and moments when stored). info may
 * be NULL. Returns a new model or NULL + error. */
bl_model *bl_checkpoint_load(const char *path, bl_ckpt_info *info);
void bl_ckpt_info_clear(bl_ckpt_info *info);

/* Load the weights of a plain state_dict file (safetensors.torch.save_file(model.state_dict()):
 * no metadata needed) into the existing model m, strictly, as torch's load_state_dict(strict=True):
 * every parameter of m must be there with m's shape, and finite; nothing else may be there, except
 * TinyGPT's lm_head.weight (the tied head, which must equal transformer.wte.weight) and, in a
 * blocklab checkpoint (format "blocklab-checkpoint-1"), the optimizer's optim.* moments, which are
 * ignored. F16, BF16 and the other dtypes convert to float32 (safetensors.h). Returns 0 (with
 * *nloaded, may be NULL, the tensors copied), or -1 with ONE line naming every missing,
 * unexpected, wrongly shaped or non-finite tensor ("load: PATH does not fit MNAME (3 problems,
 * nothing loaded): missing blocks.0.attn.qkv.weight [72, 24]; ..."), m unchanged. */
int bl_checkpoint_load_into(const char *path, bl_model *m, const char *mname, int *nloaded, char *note, size_t nn);

/* Continue a run from what a checkpoint held: the step count, data position and history.
 * r must be a fresh run of the loaded model. Returns 0 or -1. */
int bl_run_restore(bl_run *r, const bl_ckpt_info *info);

#endif
