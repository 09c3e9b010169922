#!/bin/sh
# run-block-upgrades.sh - run (or resume) the published block-upgrades experiments of issue 17:
# the TinyDiT seven-run table and the lr 2e-3 stress pair on CIFAR-10 at their full budget
# (examples/block-upgrades-full.bl), niced, one thread, in one folder outside the work tree.
#
#   sh docs/results/run-block-upgrades.sh            run in the foreground (from the tree's root)
#   setsid nohup sh docs/results/run-block-upgrades.sh >/dev/null 2>&1 &     in the background
#
# Stopping it (kill the blocklab process, or the machine going down) loses at most the steps
# since the last checkpoint (every 250 steps, written atomically); the same command resumes the
# runs from their checkpoints and gives the numbers of an uninterrupted run. A second copy started
# while one runs exits at once (a lock on RUNS/lock).
#
# Environment (defaults in brackets):
#   RUNS  the folder of the runs, the tables and the log   [/work/runs/block-upgrades]
#   BIN   the blocklab binary; keep one binary for all sittings of a table, so that a resumed run
#         takes the same arithmetic                         [/work/runs/bin/blocklab]
#   DATA  the CIFAR-10 binary batches                       [/work/shared/data/cifar10]
# The probe-FD classifier is cached in RUNS/cache (trained once). Progress: RUNS/log (line by
# line), and the metrics so far in RUNS/compare-*/NAME/metrics.json (rewritten at every
# checkpoint: "steps", "ms" per step).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-/work/runs/block-upgrades}
BIN=${BIN:-/work/runs/bin/blocklab}
DATA=${DATA:-/work/shared/data/cifar10}
[ -x "$BIN" ] || { echo "run-block-upgrades: $BIN is not an executable (copy the built blocklab there)" >&2; exit 1; }
[ -f "$DATA/test_batch.bin" ] || { echo "run-block-upgrades: $DATA holds no CIFAR-10 test_batch.bin" >&2; exit 1; }
mkdir -p "$RUNS/cache"
exec 9>"$RUNS/lock"
flock -n 9 || { echo "run-block-upgrades: already running in $RUNS" >&2; exit 1; }
cp "$here/examples/block-upgrades-full.bl" "$here/examples/block-upgrades-run.bl" "$RUNS/"
ln -sfn "$DATA" "$RUNS/cifar-10-batches-bin"
cd "$RUNS"
{
    echo "=== $(date -u '+%Y-%m-%d %H:%M:%S UTC') start: $BIN on $(uname -n), $(nproc) cores"
    rc=0
    XDG_CACHE_HOME="$RUNS/cache" OMP_NUM_THREADS=1 BLOCKLAB_HISTORY=/dev/null NO_COLOR=1 \
        nice -n 19 stdbuf -oL "$BIN" -k -x -f block-upgrades-full.bl </dev/null || rc=$?
    echo "=== $(date -u '+%Y-%m-%d %H:%M:%S UTC') exit $rc"
} >>"$RUNS/log" 2>&1
