#!/bin/sh
# run_script.sh - one script test: run DIR/NAME.bl (tests/scripts/ or examples/) as a transcript
# (blocklab -q -k -x: each statement echoed before its output, errors included, going on after
# them) in a scratch folder holding a copy of DIR's scripts, and compare with
# tests/scripts/NAME.out, whose last line is the exit status. Prints TAP (one test) with the
# differences as comments; exits 1 when they differ.
# Run by `make check` as BL_LOG_COMPILER (see src/repl/local.am); by hand:
#   BL_BUILDDIR=/path/to/build sh tests/run_script.sh examples/norms.bl
set -u
script=$1
name=$(basename "$script" .bl)
dir=$(cd "$(dirname "$script")" && pwd)
bin=${BL_BUILDDIR:-$(pwd)}/blocklab
expected=$(cd "$(dirname "$0")" && pwd)/scripts/$name.out
echo "1..1"
if [ ! -x "$bin" ]; then
    echo "not ok 1 - $name # $bin is not built"
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-script.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cp "$dir"/*.bl "$tmp"/
# the committed PyTorch golden files, for scripts that compare with them (golden/NAME.safetensors)
ln -s "$(cd "$(dirname "$0")" && pwd)/golden" "$tmp/golden"
(
    cd "$tmp" || exit 99
    BLOCKLAB_HISTORY=/dev/null BLOCKLAB_PICTURES= NO_COLOR=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
        "$bin" -q -k -x "$name.bl" </dev/null >actual.txt 2>&1
    echo "exit $?" >>actual.txt
    # wall-clock figures change from run to run: "3 steps in 0.5 s (6.5 it/s" -> "in T s (R it/s"
    # (what follows, " with exams)" or ")", is kept)
    sed -E 's/ in [0-9.]+ s \([0-9.]+ it\/s/ in T s (R it\/s/' actual.txt >actual.norm && mv actual.norm actual.txt
)
if diff -u "$expected" "$tmp/actual.txt" >"$tmp/diff.txt" 2>&1; then
    echo "ok 1 - $name"
else
    echo "not ok 1 - $name"
    sed 's/^/# /' "$tmp/diff.txt"
    exit 1
fi
