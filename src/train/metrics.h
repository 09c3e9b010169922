/* metrics.h - what every training run records (DESIGN.md section 5) and its metrics.json.
 *
 * Per step: train loss, milliseconds, learning rate. At intervals: validation loss (TinyDiT: flow
 * MSE on a fixed held-out set with fixed noise and t; TinyGPT: cross-entropy on fixed windows).
 * A loss spike is a step whose loss exceeds 1.5x the median of the previous 100 steps (needs at
 * least 10 previous steps). Items are images (TinyDiT) or tokens (TinyGPT).
 *
 * metrics.json: {"params", "steps", "items", "item_unit", "loss": [..], "ms": [..],
 *   "val": [[step, loss], ..], "spikes": [step, ..], "ms_per_step", "it_per_s",
 *   "items_per_s", "wall_s"}. Counts (params, steps, items, the steps in val and spikes) are
 *   JSON integers, so json.load gives Python ints; the measurements are JSON reals (1.0, not 1).
 *   Reading also takes counts written as reals (19200.0, as older versions wrote items).
 * Errors: -1 + bl_error() (out of memory, a file that cannot be written or parsed).
 */
#ifndef BL_METRICS_H
#define BL_METRICS_H

#include <stddef.h>
#include <jansson.h>

#define BL_SPIKE_WINDOW 100
#define BL_METRICS_MAX_STEPS 100000000   /* the most steps a run's records are read back with */
#define BL_SPIKE_FACTOR 1.5f

typedef struct bl_metrics {
    size_t params;
    const char *item_unit;      /* "images" or "tokens" (static string) */
    int steps;                  /* recorded steps */
    long long items;            /* images or tokens processed (a JSON integer in metrics.json) */
    double wall_s;              /* summed step time, seconds */
    float *loss, *ms, *lr;      /* [steps] */
    int cap;
    int *val_step; float *val_loss; int nval, valcap;
    int *spikes; int nspikes, spikecap;
} bl_metrics;

void bl_metrics_init(bl_metrics *m, size_t params, const char *item_unit);
void bl_metrics_free(bl_metrics *m);
/* Make room for `more` further steps (call before training so steps do not allocate). */
int bl_metrics_reserve(bl_metrics *m, int more);
/* Record one step; returns 1 when it is a loss spike, 0 otherwise, -1 on out of memory. */
int bl_metrics_step(bl_metrics *m, float loss, float ms, float lr, long long items);
/* Record a validation loss measured after `step` steps (replaces the last record when it is
 * for the same step, so evaluating twice does not duplicate a point). */
int bl_metrics_val(bl_metrics *m, int step, float loss);
/* Median of the last min(n, steps) losses before step index `before` (NaN when none). */
float bl_metrics_median(const bl_metrics *m, int before, int n);
/* Drop every record after the first `steps` steps (used when a step is undone). */
void bl_metrics_truncate(bl_metrics *m, int steps);

double bl_metrics_ms_per_step(const bl_metrics *m);
json_t *bl_metrics_to_json(const bl_metrics *m);
/* Replace m's records with those in j (as written by bl_metrics_to_json), which must be
 * well-formed: "steps" a count up to BL_METRICS_MAX_STEPS, "params" and "items" counts, "loss" a
 * list of that many finite numbers, "ms" and "lr" of finite non-negative ones, "wall_s" finite and
 * non-negative, "val" [step, finite loss] pairs at increasing steps from 0 to "steps", "spikes"
 * increasing steps from 1 to "steps", "item_unit" (when present) m->item_unit. Otherwise -1 +
 * "metrics: \"FIELD\" ..." naming the field, and m is left as it was. */
int bl_metrics_from_json(bl_metrics *m, const json_t *j);
/* A count: a JSON integer, or a whole real number (older files wrote some counts as 19200.0),
 * from lo to hi. 0 and *out, or -1 (nothing set) for anything else. */
int bl_json_count(const json_t *j, long long lo, long long hi, long long *out);
/* What a JSON value is, for messages: its number ("-3", "1.5"), "a string", "a list", "missing"
 * (j NULL) ... Returns buf. */
const char *bl_json_what(const json_t *j, char *buf, size_t n);
/* Write metrics.json atomically. */
int bl_metrics_write(const bl_metrics *m, const char *path);

#endif
