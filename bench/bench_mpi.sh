#!/bin/sh
# bench_mpi.sh - issue 18's two speed claims, as ratios taken in one run (JSON lines, one per
# claim; `make bench` runs it when blocklab is built with MPI):
#   mpi_compare  a compare of 4 TinyDiT runs (3 variants and the seed-2 baseline) on 2 ranks x 1
#                thread against one process x 1 thread: the ratio of wall times (target <= 0.55)
#   mpi_dp_gpt   data-parallel train of a TinyGPT at the nanoGPT shakespeare-char size (dim 384,
#                depth 6, heads 6, context 256, global batch 64) on 2 ranks x 1 thread against
#                one process x 1 thread: the ratio of tokens/s (target >= 1.8), the allreduce's
#                ms per step and its fraction of the step as train prints them
# The two set-ups alternate (A B A B, BENCH_MPI_ROUNDS rounds, default 2; medians), so a busy
# spell of the machine hits both; the load average and the CPU are printed with each line. Two
# ranks can only be faster than one on two idle cores: read the load average first.
# Environment: BL_BUILDDIR (the build folder, default .), BENCH_MPI_ROUNDS, BENCH_MPI_STEPS
# (compare steps per run, default 40), BENCH_MPI_GPT_STEPS (timed train steps, default 3, after
# one untimed warm-up step).
set -eu
bin=${BL_BUILDDIR:-$(pwd)}/blocklab
rounds=${BENCH_MPI_ROUNDS:-2}
steps=${BENCH_MPI_STEPS:-40}
gsteps=${BENCH_MPI_GPT_STEPS:-3}
command -v mpirun >/dev/null 2>&1 || { echo "bench_mpi: no mpirun; skipped" >&2; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-bench-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export BLOCKLAB_HISTORY=/dev/null NO_COLOR=1 OMP_NUM_THREADS=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
root=""; [ "$(id -u)" = 0 ] && root="--allow-run-as-root"
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
avx=$(grep -q avx512f /proc/cpuinfo && echo avx512 || echo avx2)
load() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
run() {     # run NP SCRIPT: blocklab on NP ranks (1: one process without mpirun), in $tmp
    if [ "$1" = 1 ]; then (cd "$tmp" && "$bin" -q -f "$2"); else
        (cd "$tmp" && mpirun $root --oversubscribe -np "$1" "$bin" -q -f "$2"); fi
}

cat >"$tmp/cmp.bl" <<BL
model dit dim=64 depth=2 heads=4 batch=32 eval_every=0
data shapes
compare baseline rms=norm:rmsnorm qk=qk_norm:on steps=$steps fd=off
BL
l0=$(load)
for r in $(seq "$rounds"); do
    for np in 1 2; do
        t=$(now); run "$np" cmp.bl >/dev/null 2>&1; e=$(now)
        calc "$e - $t" >>"$tmp/cmp$np"
    done
done
s1=$(median <"$tmp/cmp1"); s2=$(median <"$tmp/cmp2")
printf '{"bench":"mpi_compare","runs":4,"steps":%d,"ranks":2,"threads":1,"s_1rank":%.2f,"s_2ranks":%.2f,"ratio":%.3f,"target":"<=0.55","rounds":%d,"load_start":%s,"load_end":%s,"cpu":"%s","isa":"%s"}\n' \
    "$steps" "$s1" "$s2" "$(calc "$s2 / $s1")" "$rounds" "$l0" "$(load)" "$cpu" "$avx"

cat >"$tmp/gpt.bl" <<BL
model gpt dim=384 depth=6 heads=6 context=256 batch=64 eval_every=0
train 1
train $gsteps
BL
l0=$(load)
for r in $(seq "$rounds"); do
    for np in 1 2; do
        run "$np" gpt.bl >"$tmp/out" 2>&1 || { echo "bench_mpi: gpt on $np ranks failed:" >&2; tail -3 "$tmp/out" >&2; exit 1; }
        # the last "N steps in T s" line is the timed train: steps per second
        sed -n 's/.*, \([0-9]*\) steps* in \([0-9.]*\) s (.*/\1 \2/p' "$tmp/out" | tail -1 |
            awk '{ print $1 / $2 }' >>"$tmp/gpt$np"
        [ "$np" = 2 ] && sed -n 's/.*allreduce \([0-9.]*\) ms per step (\([0-9]*\)%.*/\1 \2/p' "$tmp/out" | tail -1 >>"$tmp/ar"
    done
done
i1=$(median <"$tmp/gpt1"); i2=$(median <"$tmp/gpt2")
ar=$(cut -d' ' -f1 "$tmp/ar" | median); frac=$(cut -d' ' -f2 "$tmp/ar" | median)
tok=$((64 * 256))
printf '{"bench":"mpi_dp_gpt","dim":384,"depth":6,"context":256,"global_batch":64,"steps":%d,"ranks":2,"threads":1,"tok_s_1rank":%.0f,"tok_s_2ranks":%.0f,"speedup":%.3f,"target":">=1.8","allreduce_ms":%s,"allreduce_pct":%s,"rounds":%d,"load_start":%s,"load_end":%s,"cpu":"%s","isa":"%s"}\n' \
    "$gsteps" "$(calc "$i1 * $tok")" "$(calc "$i2 * $tok")" "$(calc "$i2 / $i1")" \
    "$ar" "$frac" "$rounds" "$l0" "$(load)" "$cpu" "$avx"
