#!/bin/sh
# run.sh - run (or resume) one of issue 17's long experiments, niced (one thread unless THREADS), in a folder
# outside the work tree:
#   block-upgrades  the TinyDiT seven-run table and the lr 2e-3 stress pair on CIFAR-10 at their
#                   full budget (examples/block-upgrades-full.bl)
#   gpt-nanogpt     TinyGPT v1 against v2 at nanoGPT's shakespeare-char settings, batch 16,
#                   1,000 steps (about 2 hours on 2 idle cores with THREADS=2)
#                   (examples/gpt-nanogpt-full.bl)
#   gpt-v1-v2       TinyGPT v1 against v2 at context 128 (dim 128, depth 4, 2,000 steps each) and
#                   their loss per position to 512 (examples/gpt-v1-v2-full.bl; no checkpoints:
#                   about an hour, a stopped run starts again)
#
#   sh docs/results/run.sh EXP              run in the foreground (from the tree's root)
#   setsid nohup sh docs/results/run.sh EXP >/dev/null 2>&1 &     in the background
#
# Stopping it (kill the blocklab process, or the machine going down) loses at most the steps
# since the last checkpoint (written atomically every 250 steps for block-upgrades, every 50 for
# gpt-nanogpt); the same command resumes the runs from their checkpoints and gives the numbers
# of an uninterrupted run. A second copy of the same experiment started while one runs exits at
# once (a lock on RUNS/lock).
#
# Environment (defaults in brackets):
#   RUNS  the folder of the runs, the tables and the log   [/work/runs/EXP]
#   BIN   the blocklab binary; keep one binary for all sittings of a table, so that a resumed run
#         takes the same arithmetic              [/work/runs/bin/EXP/blocklab]
#   DATA  the folder holding cifar10/ and tinyshakespeare.txt   [/work/shared/data]
#   THREADS  OpenMP threads of the run; keep one count for all sittings of a table   [1]
# The probe-FD classifier is cached in RUNS/cache (trained once). Progress: RUNS/log (line by
# line), and the metrics so far in RUNS/compare-*/NAME/metrics.json (rewritten at every
# checkpoint: "steps", "ms" per step).
set -eu
EXP=${1:-}
case "$EXP" in
    block-upgrades|gpt-nanogpt|gpt-v1-v2) ;;
    *) echo "usage: run.sh block-upgrades|gpt-nanogpt|gpt-v1-v2" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-/work/runs/$EXP}
BIN=${BIN:-/work/runs/bin/$EXP/blocklab}
DATA=${DATA:-/work/shared/data}
THREADS=${THREADS:-1}
[ -x "$BIN" ] || { echo "run.sh: $BIN is not an executable (copy the built blocklab there)" >&2; exit 1; }
mkdir -p "$RUNS/cache"
exec 9>"$RUNS/lock"
flock -n 9 || { echo "run.sh: $EXP is already running in $RUNS" >&2; exit 1; }
if [ "$EXP" = block-upgrades ]; then
    [ -f "$DATA/cifar10/test_batch.bin" ] || { echo "run.sh: $DATA/cifar10 holds no test_batch.bin" >&2; exit 1; }
    cp "$here/examples/block-upgrades-full.bl" "$here/examples/block-upgrades-run.bl" "$RUNS/"
    ln -sfn "$DATA/cifar10" "$RUNS/cifar-10-batches-bin"
else
    [ -f "$DATA/tinyshakespeare.txt" ] || { echo "run.sh: $DATA holds no tinyshakespeare.txt" >&2; exit 1; }
    cp "$here/examples/$EXP-full.bl" "$RUNS/"
    [ "$EXP" = gpt-nanogpt ] || cp "$here/examples/$EXP-run.bl" "$RUNS/"
    ln -sfn "$DATA/tinyshakespeare.txt" "$RUNS/tinyshakespeare.txt"
fi
cd "$RUNS"
{
    echo "=== $(date -u '+%Y-%m-%d %H:%M:%S UTC') start: $BIN on $(uname -n), $(nproc) cores"
    rc=0
    XDG_CACHE_HOME="$RUNS/cache" OMP_NUM_THREADS="$THREADS" BLOCKLAB_HISTORY=/dev/null NO_COLOR=1 \
        nice -n 19 stdbuf -oL "$BIN" -k -x -f "$EXP-full.bl" </dev/null || rc=$?
    echo "=== $(date -u '+%Y-%m-%d %H:%M:%S UTC') exit $rc"
} >>"$RUNS/log" 2>&1
