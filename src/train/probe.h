/* probe.h - probe-FD: a small image classifier trained inside blocklab, whose penultimate
 * features measure how far generated images are from real ones (a CPU-sized stand-in for FID).
 *
 * FID (Heusel et al. 2017) compares Inception-v3 pool features of real and generated images
 * with the Fréchet distance (train/frechet.h). blocklab cannot ship Inception, so it trains its
 * own feature network per dataset, once, and caches it:
 *
 *   img [B, C, H, W]
 *     stage s = 0 .. S-1:  patch embed p x p, stride p (a non-overlapping conv) -> [B, T_s, D_s]
 *                          -> LayerNorm over D_s -> GELU -> back to an image [B, D_s, h_s, w_s]
 *     mean over the T tokens of the last stage         -> features [B, D]   (D = 128)
 *     linear D -> n_classes                             -> logits (trained with cross-entropy)
 *
 *   32x32 images: S = 2 stages, p = 4 then p = 2 (8x8x64 -> 4x4x128). In general the first
 *   patch is 4 (sides divisible by 4 and at least 8), else 2 (even sides, at least 4), else 1;
 *   a second stage of p = 2 follows when the grid left is even and at least 4; widths
 *   128 / 2^(S-1-s). Parameter names: probe.stages.S.proj.{weight,bias},
 *   probe.stages.S.norm.{weight,bias}, probe.head.{weight,bias}.
 *
 * Training: AdamW (lr 2e-3, warmup 5%, cosine to 10%, weight decay 0.05 on matrices), batches
 * of the dataset's training split from bl_batcher (seed), random horizontal flips (not for
 * mnist, whose digits are not mirror-symmetric), cross-entropy on the class logits.
 *
 * Cache: DIR/probe-NAME-CxHxW.safetensors (NAME the dataset's name; -XXXXXXXX, a hash of the
 * options, is added when the training options are not the defaults), DIR = opts.cache_dir, else
 * $XDG_CACHE_HOME/blocklab, else ~/.cache/blocklab. The file holds the parameters and, in its
 * metadata, the architecture, the training options, a 64-bit hash of the training data (pixels
 * and labels; shapes: its seed) and the held-out accuracy. A file that cannot be read, or whose
 * metadata or tensors do not match, or whose values are not finite, is not trusted: the probe is
 * retrained, the file rewritten (atomically) and the reason kept in probe->note.
 *
 * Errors: NULL / -1 with "probe: ..." in bl_error(); nothing prints or aborts.
 */
#ifndef BL_PROBE_H
#define BL_PROBE_H

#include <stdint.h>
#include "core/graph.h"
#include "data/dataset.h"
#include "models/model.h"
#include "models/params.h"

#define BL_PROBE_MAX_STAGES 2
#define BL_PROBE_DIM 128

typedef struct bl_probe_opts {
    const char *cache_dir;  /* NULL: the default above; "" = no cache (always train, never save) */
    int steps;              /* training steps (default 1500) */
    int batch;              /* images per step (default 128) */
    float lr;               /* peak learning rate (default 2e-3) */
    uint64_t seed;          /* initial weights, data order, flips (default 0) */
    int n_eval;             /* held-out images for the accuracy (default 10000; capped at n_val) */
    int retrain;            /* 1: ignore an existing cache file (it is overwritten) */
    /* optional: called every 50 steps and at the end (the REPL's progress bar) */
    void (*progress)(void *ctx, int step, int steps, float loss);
    void *progress_ctx;
    /* optional: checked between steps; nonzero stops training ("probe: training interrupted") */
    int (*interrupted)(void);
} bl_probe_opts;

typedef struct bl_probe {
    int C, H, W, n_classes;
    int nstages, patch[BL_PROBE_MAX_STAGES], width[BL_PROBE_MAX_STAGES];
    int dim;                /* feature size (BL_PROBE_DIM) */
    bl_params *params;      /* probe.* parameters */
    bl_tensor *proj_w[BL_PROBE_MAX_STAGES], *proj_b[BL_PROBE_MAX_STAGES];   /* views into params */
    bl_tensor *norm_w[BL_PROBE_MAX_STAGES], *norm_b[BL_PROBE_MAX_STAGES];
    bl_tensor *head_w, *head_b;
    bl_graph *graph;        /* run state of the forward pass */
    char dataset[32];       /* the dataset's name */
    double accuracy;        /* held-out accuracy in [0, 1] */
    int n_eval;             /* held-out images it was measured on */
    double train_seconds;   /* wall time of training (as measured when it was trained) */
    int from_cache;         /* 1 when loaded from cache_path */
    char cache_path[4096];  /* "" when caching is off */
    char note[1024];        /* what happened, one line: "loaded PATH", "trained (...)", why a
                             * cache file was refused, or why saving failed */
} bl_probe;

/* Defaults as documented above. */
void bl_probe_opts_default(bl_probe_opts *o);

/* The probe for an image dataset: loaded from the cache when a valid file is there, else trained
 * on ds's training split, its accuracy measured on the held-out split, and saved. o may be NULL
 * (defaults). Training with the defaults on CIFAR-10's 10,000-image batch took 62 s of one
 * core (measured 2026-11-30 on the lab machine, one OpenMP thread) and reached 48.6% held-out
 * accuracy on its 10,000 test images (chance 10%). NULL + error: ds is not an image set, bad
 * options (steps, batch, n_eval < 1, lr <= 0), training interrupted, out of memory. A cache that
 * cannot be written is not an error (said in p->note). */
bl_probe *bl_probe_get(const bl_dataset *ds, const bl_probe_opts *o);
void bl_probe_free(bl_probe *p);

/* Class logits [N, n_classes] and/or penultimate features [N, dim] of images [N, C, H, W]
 * (values in [-1, 1] like the dataset's), as new owned tensors (either out pointer may be NULL).
 * Computed in chunks of 256. Returns 0, or -1 + "probe: images [..] do not match the probe's
 * [N, C, H, W]". */
int bl_probe_forward(bl_probe *p, const bl_tensor *images, bl_tensor **logits,
                     bl_tensor **features);
/* Penultimate features [N, dim] of images [N, C, H, W]; NULL + error. */
bl_tensor *bl_probe_features(bl_probe *p, const bl_tensor *images);
/* Fraction of the first n held-out images of ds classified correctly; -1 + error. */
double bl_probe_accuracy(bl_probe *p, const bl_dataset *ds, int n);

/* probe-FD: the Fréchet distance (train/frechet.h) between the probe features of real
 * [N1, C, H, W] and generated [N2, C, H, W] images. Returns FD >= 0, or -1 + error. */
double bl_probe_fd(bl_probe *p, const bl_tensor *real, const bl_tensor *generated);

/* probe-FD of a TinyDiT: the first n held-out images of ds against n images sampled from m with
 * 20 Euler steps (bl_dit_sample(m, n, 20, seed)). Errors: m is not a TinyDiT, its image shape
 * differs from the probe's or from ds's, ds has fewer than n held-out images, n < 2, sampling
 * interrupted. Returns FD >= 0, or -1 + error. */
double bl_probe_fd_model(bl_probe *p, bl_model *m, const bl_dataset *ds, int n, uint64_t seed);

#endif
