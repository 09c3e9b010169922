#!/bin/sh
# bench_mpi.sh - blocklab over MPI ranks against one rank (issue 18), one JSON object a line:
#   {"bench":"mpi_compare", ...}  a compare of 4 runs (3 variants + seed2) on 2 ranks x 1 thread
#                                 against 1 rank x 1 thread: time_ratio = t2/t1 (target <= 0.55)
#   {"bench":"mpi_train", ...}    data-parallel TinyGPT, 2 ranks x 1 thread against 1 rank x 1
#                                 thread at the same global batch: tokens_ratio (target >= 1.8),
#                                 the allreduce ms per step and its share of the step
# Each time has the job's start (mpirun + MPI_Init of `-e 1`, measured apart) taken off. The
# load average is given: on a busy machine the ratios say little. Sizes: BL_BENCH_MPI_STEPS
# (compare steps, default 60), BL_BENCH_MPI_GPT ("dim depth heads context batch steps", default
# "384 6 6 256 64 4": the nanoGPT shakespeare-char size; "64 2 2 64 16 20" for a quick look).
# Skips (a line "# skip ...", status 0) without MPI. Run by `make bench`; by hand from the build
# folder: sh bench/bench_mpi.sh (or BL_BUILDDIR=DIR sh .../bench_mpi.sh).
set -u
dir=${BL_BUILDDIR:-$(pwd)}
bin=$dir/blocklab
if ! grep -q '^#define HAVE_MPI 1' "$dir/config.h" 2>/dev/null || ! command -v mpirun >/dev/null 2>&1; then
    echo "# skip bench_mpi: blocklab built without MPI or no mpirun"; exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-bmpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export BLOCKLAB_HISTORY=/dev/null NO_COLOR=1 OMP_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
root=""; [ "$(id -u)" = 0 ] && root="--allow-run-as-root"
now() { date +%s.%N; }
# wall seconds of blocklab on NP ranks with ARGS (output in $tmp/out)
timed() { np=$1; shift; t0=$(now); (cd "$tmp" && mpirun $root --oversubscribe -np "$np" "$bin" -q "$@" >out 2>&1) \
    || { echo "# bench_mpi: failed: $(tail -3 "$tmp/out")" >&2; exit 1; }; awk -v a="$(now)" -v b="$t0" "BEGIN { print a - b }"; }
load=$(cut -d' ' -f1 /proc/loadavg)
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
start1=$(timed 1 -e 1); start2=$(timed 2 -e 1)

steps=${BL_BENCH_MPI_STEPS:-60}
cat >"$tmp/cmp.bl" <<BL
model dit dim=64 depth=2 heads=4 batch=32 eval_every=0
data shapes exam=64
compare baseline rms=norm:rmsnorm qk=qk_norm:on steps=$steps fd=off dir=o1
BL
t1=$(timed 1 -f cmp.bl); t2=$(timed 2 -f cmp.bl)
awk -v t1="$t1" -v t2="$t2" -v s1="$start1" -v s2="$start2" -v load="$load" -v cpu="$cpu" -v steps="$steps" 'BEGIN {
    a = t1 - s1; b = t2 - s2
    printf "{\"bench\":\"mpi_compare\",\"runs\":4,\"steps\":%d,\"t1_s\":%.2f,\"t2_s\":%.2f,\"start1_s\":%.2f,\"start2_s\":%.2f,\"time_ratio\":%.3f,\"target\":0.55,\"load\":%s,\"cpu\":\"%s\"}\n",
        steps, a, b, s1, s2, b / a, load, cpu }'

set -- ${BL_BENCH_MPI_GPT:-384 6 6 256 64 4}
dim=$1 depth=$2 heads=$3 ctx=$4 batch=$5 n=$6
cat >"$tmp/train.bl" <<BL
model gpt dim=$dim depth=$depth heads=$heads context=$ctx batch=$batch eval_every=0
train 1 quiet=on
train $n
BL
# the second train's line: "step N: loss X, N steps in S s (R it/s)"; the allreduce line (2 ranks)
timed 1 -f train.bl >/dev/null; r1=$(sed -n 's/.* steps* in [0-9.]* s (\([0-9.]*\) it\/s.*/\1/p' "$tmp/out" | tail -1)
timed 2 -f train.bl >/dev/null; r2=$(sed -n 's/.* steps* in [0-9.]* s (\([0-9.]*\) it\/s.*/\1/p' "$tmp/out" | tail -1)
ar=$(sed -n 's/^train: 2 ranks, allreduce \([0-9.]*\) ms per step (\([0-9]*\)% of the step)/\1 \2/p' "$tmp/out" | tail -1)
awk -v r1="$r1" -v r2="$r2" -v ar="$ar" -v b="$batch" -v c="$ctx" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    -v size="$dim/$depth/$heads/$ctx/$batch" -v n="$n" 'BEGIN {
    split(ar, x, " ")
    printf "{\"bench\":\"mpi_train\",\"model\":\"gpt %s\",\"steps\":%d,\"tokens_s_1\":%.0f,\"tokens_s_2\":%.0f,\"tokens_ratio\":%.3f,\"target\":1.8,\"allreduce_ms\":%s,\"allreduce_pct\":%s,\"load\":%s}\n",
        size, n, r1 * b * c, r2 * b * c, (r1 > 0 ? r2 / r1 : 0), (x[1] == "" ? "null" : x[1]), (x[2] == "" ? "null" : x[2]), load }'
