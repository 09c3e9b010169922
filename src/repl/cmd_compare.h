/* cmd_compare.h - the `compare` command: a fair ablation of the current model (train/compare.h).
 *
 *   compare [MODEL] VARIANT... [steps=N] [fd=on|off] [n=N] [probe_steps=N] [every=N] [dir=PATH]
 *   VARIANT:  NAME                      the model as it is (e.g. baseline)
 *             NAME=KEY:VALUE[,KEY:VALUE...]   the model with these keys changed
 *
 * The first variant is the reference; a run of it with seed + 1 ("seed2") gives the seed gap.
 * Leaves the table value (printable, `> t.csv|.md|.json|.txt`), binds each run's metrics to
 * cmp_NAME (so `plot loss cmp_baseline cmp_rope` overlays them) and writes DIR/NAME/metrics.json.
 */
#ifndef BL_REPL_CMD_COMPARE_H
#define BL_REPL_CMD_COMPARE_H

#include "repl/repl.h"

int bl_cmd_compare(bl_cmdargs *a);
int bl_complete_compare(bl_session *s, int argi, const char *const *words, const char *prefix, bl_strlist *out);

#define BL_COMPARE_COMMANDS                                                                     \
    { "compare", "compare [MODEL] VARIANT... [steps=N] [fd=on|off] [n=N] [every=N] [dir=PATH]",           \
      "Fair ablation: variants trained side by side.\n"    \
      "VARIANT is NAME (the model as it is) or NAME=KEY:VALUE[,KEY:VALUE...] (each key once),\n" \
      "e.g.\n"                                                                                 \
      "  compare baseline rmsnorm=norm:rmsnorm rope=pos:rope2d all=norm:rmsnorm,pos:rope2d\n"  \
      "Every run has the model's seed (same data order, noise, t and shared initial weights),\n" \
      "so seed and steps are refused as a variant's KEY; every variant (name, keys, values,\n" \
      "fit to the data) and the folder dir= are checked before anything is attached,\n"      \
      "loaded or trained;\n"                                                                   \
      "one more run, `seed2`, repeats the first variant with seed + 1: the table's gap is\n"   \
      "|val(first) - val(seed2)| and `*` marks a difference from the first beyond it.\n"       \
      "Steps go round-robin (one step of each run in turn) so machine load hits all alike.\n"  \
      "steps= defaults to the model's steps key; eval_every applies to every run; the exam is\n" \
      "the model's (data exam=N). fd=on (TinyDiT default) adds probe-FD of n=500 samples\n"   \
      "(probe_steps= trains the probe shorter). The runs' metrics become cmp_NAME (plot loss\n" \
      "cmp_baseline cmp_rope) and DIR/NAME/metrics.json (dir= default compare-DATE-TIME);\n"  \
      "the table stays as cmp_table.\n"                                                        \
      "Ctrl-C stops after the current round, then measures the runs (val, fd) and tabulates\n" \
      "the steps done; Ctrl-C again skips the measuring (- where it was not done).\n"         \
      "every=N saves every run to DIR/NAME/checkpoint.safetensors every N steps (and where\n" \
      "Ctrl-C stopped it); the same compare with the same dir= resumes the saved runs where\n" \
      "they stopped, with the numbers of an uninterrupted comparison (a folder holding another\n" \
      "comparison's runs is refused, naming the key that differs).\n"                        \
      "Under MPI (mpirun -np N blocklab -f ...) run i trains on rank i mod N and rank 0\n"     \
      "prints the one table (equal to one process's); ranks save their own runs (every=N:\n" \
      "dir= on a shared folder); kill -USR1 on mpirun is Ctrl-C; a dead rank's runs are\n"   \
      "reported lost after BLOCKLAB_MPI_TIMEOUT s (README: Several machines).",                          \
      bl_complete_compare, bl_cmd_compare, BL_WRITES_TABLE },

#endif
