#!/bin/sh
# run.sh SECONDS [keep] - runs every fuzz target of tests/fuzz for SECONDS each, starting from
# its seed corpus (tests/fuzz/corpus/NAME) with the language's dictionary (tests/fuzz/blocklab.dict).
# A finding (crash, sanitizer report, leak, timeout of over 10 s, over 2 GB) fails the run and
# prints the reproducer (its bytes, base64) and the command that replays it. Without "keep" the
# corpus grows in a temporary copy; with it (make fuzz-long) in tests/fuzz/corpus-long/NAME, kept
# between runs. Prints one "ok"/"not ok" line per target (TAP) and exits 1 on any finding.
set -u
secs=${1:-30}
keep=${2:-}
src=${BL_SRCDIR:-.}
out=${FUZZ_OUT:-tests/fuzz/build}
targets=${FUZZ_TARGETS:-parse eval safetensors checkpoint cifar10 idx pngdir text history}
work=$(mktemp -d "${TMPDIR:-/tmp}/bl-fuzzrun.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
n=0 failed=0
for t in $targets; do
    n=$((n + 1))
    if [ ! -x "$out/$t" ]; then echo "not ok $n - fuzz $t: not built (make fuzz)"; failed=1; continue; fi
    if [ -n "$keep" ]; then corpus="$src/tests/fuzz/corpus-long/$t"; else corpus="$work/corpus-$t"; fi
    mkdir -p "$corpus" "$work/art-$t"
    cp "$src/tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null
    "$out/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -dict="$src/tests/fuzz/blocklab.dict" -artifact_prefix="$work/art-$t/" "$corpus" \
        >"$work/log-$t" 2>&1
    rc=$?
    found=$(ls "$work/art-$t" 2>/dev/null | head -1)
    if [ $rc -eq 0 ] && [ -z "$found" ]; then
        echo "ok $n - fuzz $t ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log-$t" | grep -o '[0-9]*$') runs in ${secs} s)"
    else
        failed=1
        echo "not ok $n - fuzz $t: a finding (exit status $rc)"
        grep -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$work/log-$t" | head -30 | sed 's/^/# /'
        if [ -n "$found" ]; then
            echo "# reproducer $found (base64; save as FILE and run $out/$t FILE):"
            base64 "$work/art-$t/$found" | head -40 | sed 's/^/#   /'
            mkdir -p "$src/tests/fuzz/findings" && cp "$work/art-$t/$found" "$src/tests/fuzz/findings/$t-$found"
            echo "# kept as tests/fuzz/findings/$t-$found"
        fi
    fi
done
echo "1..$n"
exit $failed
