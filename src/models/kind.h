/* kind.h - one row per model kind: what differs between TinyDiT and TinyGPT (tmux's cmd_entry,
 * llama2.c's Config), so that callers read a field instead of testing the kind.
 *
 *   const bl_kind *k = bl_kind_of(m->kind);
 *   printf("%d held-out %s\n", n, k->item);          // "images" / "windows"
 *   if (k->text) ...                                 // vocab, context windows, tied head
 *
 * The rows are data plus the model's own construction (declare, setup); the loss, batch and exam
 * of each kind are the trainer's (src/train/trainer.c keeps its per-kind table beside them), and
 * sampling the REPL's (src/repl/cmd_sample.c), so that no layer reaches up.
 */
#ifndef BL_KIND_H
#define BL_KIND_H

#include "models/config.h"

struct bl_model;
struct bl_builder;

typedef struct bl_kind {
    bl_model_kind kind;
    const char *name;        /* as typed: "dit", "gpt" (model dit, dit(...), checkpoint "kind") */
    const char *title;       /* in messages: "TinyDiT", "TinyGPT" */
    const char *unit;        /* what the throughput counts: "images", "tokens" */
    const char *item;        /* one example of a batch or of the exam: "images", "windows" */
    const char *data;        /* the data training opens when none is attached: "shapes", "text" */
    const char *data_title;  /* that data in messages: "shapes", "the built-in text" */
    int text;                /* 1: a next-character model on a text (vocab, context windows of tokens,
                              * the tied head); 0: a denoiser of images (probe-FD, image=, query=) */
    int params_depth;        /* the depth `params` lists by default */
    unsigned key_flag;       /* its flag in the key table (config.h BL_KEY_DIT, BL_KEY_GPT) */
    int fd;                  /* 1: probe-FD (a Frechet distance of a probe's features, src/train/probe.h)
                              * measures its samples: compare's fd= default, what a run's fd needs */
    const char *tied_head;   /* a head tied to an embedding (GPT-2's lm_head.weight), or NULL: a
                              * checkpoint holds it under this name too, equal to tied_to */
    const char *tied_to;     /* the parameter the tied head equals ("transformer.wte.weight") */
    /* declare the parameters into the builder (model_internal.h), then set up derived state
     * (RoPE tables) once they are allocated; both return 0 or -1 with bl_error() */
    int (*declare)(struct bl_model *m, struct bl_builder *b);
    int (*setup)(struct bl_model *m);
} bl_kind;

/* The row of `kind` (never NULL for a valid kind; TinyDiT's for any other value). */
const bl_kind *bl_kind_of(bl_model_kind kind);

/* The i-th row (from 0), or NULL past the last: for (i = 0; (k = bl_kind_at(i)); i++). */
const bl_kind *bl_kind_at(int i);
/* The first row whose `text` flag is `text` (1: the next-character model, 0: the image model),
 * or NULL when none: what a function that needs a text model names in its error. */
const bl_kind *bl_kind_with_text(int text);

/* Examples per item of the throughput unit: the context for a text model (tokens per window), 1
 * for images. */
int bl_kind_unit_per_item(const bl_config *cfg);

#endif
