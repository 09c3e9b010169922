#!/bin/sh
# cli.sh - the command line of the blocklab program (TAP): the order of -e and -f, where errors in -e strings are
# reported, what -k does with several of them, the exit status, and Ctrl-C (SIGINT) during a
# script's compare.
# Run by `make check`; by hand: BL_BUILDDIR=/path/to/build sh tests/cli.sh
set -u
bin=${BL_BUILDDIR:-$(pwd)}/blocklab
if [ ! -x "$bin" ]; then
    echo "1..1"
    echo "not ok 1 - $bin is not built"
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
export BLOCKLAB_HISTORY=/dev/null NO_COLOR=1
n=0
failed=0

# expect DESCRIPTION STATUS STDOUT STDERR -- blocklab ARGS...: runs blocklab in $tmp and compares
# its exit status, standard output and standard error (each exactly, "" for none)
expect() {
    desc=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    (cd "$tmp" && timeout 120 "$bin" "$@" >"$tmp/out" 2>"$tmp/err" <"${stdin:-/dev/null}")
    rc=$?
    printf '%s' "$want_out" >"$tmp/want_out"
    printf '%s' "$want_err" >"$tmp/want_err"
    [ -n "$want_out" ] && echo >>"$tmp/want_out"
    [ -n "$want_err" ] && echo >>"$tmp/want_err"
    n=$((n + 1))
    if [ "$rc" = "$want_rc" ] && cmp -s "$tmp/out" "$tmp/want_out" && cmp -s "$tmp/err" "$tmp/want_err"; then
        echo "ok $n - $desc"
    else
        failed=1
        echo "not ok $n - $desc"
        echo "# exit status $rc (expected $want_rc)"
        diff "$tmp/want_out" "$tmp/out" | sed 's/^/# stdout: /'
        diff "$tmp/want_err" "$tmp/err" | sed 's/^/# stderr: /'
    fi
}

nl='
'
expect "an error in the second -e names it: -e#2" 1 "" \
    "-e#2:1:6: expected a value, found the end of the input" \
    -- -q -e 'x = 1' -e 'y = (' -e 'print(3)'
expect "a lone -e is -e#1" 1 "" \
    "-e#1:1:6: expected a value, found the end of the input" \
    -- -q -e 'y = ('
expect "-k goes on after each failing -e, and each error names its -e" 1 "1$nl""3" \
    "-e#2:1:6: expected a value, found the end of the input$nl-e#3:1:5: unknown name 'zz'" \
    -- -q -k -e 'x = 1' -e 'y = (' -e 'z = zz' -e 'print(x)' -e 'print(3)'
expect "the line number counts within its -e" 1 "" \
    "-e#2:2:6: expected a value, found the end of the input" \
    -- -q -e 'a = 1' -e "b = 2${nl}c = ("
echo 'y = yy' >"$tmp/s.bl"
expect "a script after -e keeps its own name" 1 "" \
    "-e#1:1:5: unknown name 'zz'${nl}s.bl:1:5: unknown name 'yy'" \
    -- -q -k -e 'x = zz' -e 'x = 1' s.bl
# several -f scripts and -e strings run in the order given, in one session
echo 'print("f1"); a = 1' >"$tmp/f1.bl"
echo 'print(a + 1)' >"$tmp/f2.bl"
expect "every -f runs, in order" 0 "f1$nl""2" "" -- -q -f f1.bl -f f2.bl
expect "-e and -f mix in the order given" 0 "0$nl""f1$nl""2$nl""3" "" \
    -- -q -e 'print(0)' -f f1.bl f2.bl -e 'print(a + 2)'
expect "a missing -f stops the run" 1 "" "blocklab: nope.bl: No such file or directory" \
    -- -q -f nope.bl -f f1.bl
expect "-k goes on after a missing -f" 1 "f1" "blocklab: nope.bl: No such file or directory" \
    -- -q -k -f nope.bl -f f1.bl
# an option that takes a value, last on the line without it, says so (not "unknown option")
expect "a bare -e at the end needs a value" 2 "" "blocklab: -e needs a value (a statement to run)" -- -q -e
expect "a bare --file at the end needs a value" 2 "" "blocklab: --file needs a value (a script file)" -- -q --file
expect "a bare -s at the end needs a value" 2 "" "blocklab: -s needs a value (a whole number)" -- -e 'print(1)' -s
mkdir "$tmp/adir"
expect "-f of a directory is an error" 1 "" "blocklab: adir: is a directory, expected a file" -- -q -f adir
expect "a directory as SCRIPT is an error" 1 "" "blocklab: adir: is a directory, expected a file" -- -q adir
# issue 20: inputs that never end. Only regular files are read (source, data text, data images,
# the SCRIPT argument), never a device that reads forever; a line longer than 1 MiB (standard
# input from /dev/zero) is an error for that line; a NUL byte is an error for its line only, and
# -k goes on after both
expect "source /dev/zero is refused, not read forever" 1 "" \
    "-e#1:1:8: source: /dev/zero: not a regular file (a device, pipe or socket)" -- -q -k -e 'source /dev/zero'
expect "data text /dev/urandom is refused, not read forever" 1 "m1: (current) gpt norm=layernorm pos=learned mlp=gelu qk_norm=off kv_heads=2 dim=16 depth=1 heads=2, 4288 parameters" \
    "-e#2:1:11: data: text: /dev/urandom: not a regular file (a device, pipe or socket)" \
    -- -q -e 'model gpt dim=16 depth=1 heads=2 context=8' -e 'data text /dev/urandom'
expect "data cifar10 /dev/zero is refused" 1 "m1: (current) dit norm=layernorm pos=learned mlp=gelu qk_norm=off kv_heads=2 dim=16 depth=1 heads=2, 11088 parameters" \
    "-e#2:1:14: data: cifar10: /dev/zero: not a regular file (a device, pipe or socket)" \
    -- -q -e 'model dit dim=16 depth=1 heads=2' -e 'data cifar10 /dev/zero'
expect "data images /dev/zero says it is no directory" 1 "m1: (current) dit norm=layernorm pos=learned mlp=gelu qk_norm=off kv_heads=2 dim=16 depth=1 heads=2, 11088 parameters" \
    "-e#2:1:13: data: images: /dev/zero: not a directory (a device, pipe or socket)" \
    -- -q -e 'model dit dim=16 depth=1 heads=2' -e 'data images /dev/zero'
expect "a device as SCRIPT is refused" 1 "" "blocklab: /dev/zero: not a regular file (a device, pipe or socket)" \
    -- -q /dev/zero
stdin=/dev/zero expect "standard input from /dev/zero: one error for the first 1 MiB, not all the memory" 1 "" \
    "<stdin>:1:1: line longer than 1 MiB (is it a text file?)" -- -q
printf 'print(1)\nprint("a\0b")\nprint(2)\n' >"$tmp/nul.bl"
expect "a NUL byte is an error for its line, and -k goes on" 1 "1$nl""2" \
    "nul.bl:2:9: NUL byte in the script (is it a text file?)" -- -q -k nul.bl
expect "a NUL byte stops a script without -k" 1 "1" \
    "nul.bl:2:9: NUL byte in the script (is it a text file?)" -- -q nul.bl
{ head -c 1100000 /dev/zero | tr '\0' 'a'; printf '\nprint(5)\n'; } >"$tmp/long.bl"
expect "a line over 1 MiB is an error for that line, and -k goes on" 1 "5" \
    "long.bl:1:1: line longer than 1 MiB (is it a text file?)" -- -q -k long.bl
# issue 15: did you mean - the nearest known names of an unknown command, function, variable,
# keyword, key or switch value
expect "did you mean: a command, a function, a variable, a keyword, a switch value" 1 "" \
"-e#2:1:1: unknown command 'trian'; did you mean 'train'?
-e#3:1:8: unknown command 'sohw'; did you mean 'show'?
-e#4:1:1: unknown function 'sofmax' (help functions lists them); did you mean 'softmax'?
-e#5:1:15: unknown name 'spam'; did you mean 'scam'?
-e#6:1:9: mean: unknown keyword 'dimm' (mean(x, dim=, keepdim=off)); did you mean 'dim'?
-e#7:1:16: model: norm: unknown value 'rmsnrm' (one of: layernorm,rmsnorm); did you mean 'rmsnorm'?
-e#8:1:6: help: no command, function or topic 'trian' (try help); did you mean 'train'?" \
    -- -q -k -e 'x = 1' -e 'trian 10' -e 'y = 1; sohw 3' -e 'sofmax(x)' -e 'scam = 2; y = spam' -e 'mean(x, dimm=0)' \
    -e 'model gpt norm=rmsnrm' -e 'help trian'
# issue 15: print(...) > out.txt writes the file (it printed to the screen and wrote nothing);
# print to another type says why not, before it runs
expect "print(...) > FILE.txt writes what print shows, not to the screen" 0 "" "" -- -q -e 'print("a", 6 * 7) > p.txt'
n=$((n + 1))
if [ "$(cat "$tmp/p.txt" 2>/dev/null)" = "a 42" ]; then echo "ok $n - the file holds print's line"; else
    failed=1; echo "not ok $n - the file holds print's line"; sed 's/^/# p.txt: /' "$tmp/p.txt" 2>/dev/null; fi
expect "print(...) > FILE.csv says why not, and writes nothing" 1 "" \
    "-e#1:1:12: print writes text: redirect it to a .txt file (p.csv takes a value: write the value itself, without print)" \
    -- -q -e 'print(1) > p.csv'
# Ctrl-C (SIGINT) during compare in a script: training stops after the round, the runs are
# measured and tabulated, and then the script stops as at any Ctrl-C (exit status 130)
cat >"$tmp/cmp.bl" <<'EOF'
model dit dim=16 depth=1 heads=2 batch=2 eval_every=0
data shapes exam=8
compare a b=norm:rmsnorm steps=100000000 fd=off dir=cmp
print("after compare")
EOF
(cd "$tmp" && exec "$bin" -q cmp.bl >"$tmp/out" 2>"$tmp/err" </dev/null) &
pid=$!
i=0
while [ $i -lt 300 ] && [ ! -d "$tmp/cmp/seed2" ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $pid
i=0
while [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -0 $pid 2>/dev/null && kill -KILL $pid
wait $pid
rc=$?
n=$((n + 1))
if [ $rc = 130 ] && grep -q '^compare: interrupted after [0-9]* of 100000000 steps; measuring the runs' "$tmp/out" &&
    grep -q '^a  *- ' "$tmp/out" && ! grep -q 'after compare' "$tmp/out" && [ "$(cat "$tmp/err")" = "blocklab: interrupted" ]; then
    echo "ok $n - Ctrl-C in a script stops compare's training, shows the table, then stops the script (status 130)"
else
    failed=1
    echo "not ok $n - Ctrl-C in a script stops compare's training, shows the table, then stops the script (status 130)"
    echo "# exit status $rc"
    sed 's/^/# stdout: /' "$tmp/out"
    sed 's/^/# stderr: /' "$tmp/err"
fi

# l = [l] 200,000 times (the language has no loop: 200,000 lines) overflowed the C stack when
# the list was printed, compared, written or freed: lists nest at most 1000 deep, each statement
# past that is one error, l keeps its 1000 levels, and the program ends normally
awk 'BEGIN { print "l = []"; for (i = 0; i < 200000; i++) print "l = [l]"; print "print(l == l[:])"; print "l > deep.json" }' \
    >"$tmp/deep.bl"
(cd "$tmp" && "$bin" -q -k deep.bl >"$tmp/out" 2>"$tmp/err" </dev/null)
rc=$?
n=$((n + 1))
errs=$(grep -c ': lists may nest at most 1000 deep; this one would be 1001$' "$tmp/err")
levels=$(($(tr -cd "[" <"$tmp/deep.json" 2>/dev/null | wc -c)))
if [ $rc = 1 ] && [ "$(cat "$tmp/out")" = "true" ] && [ "$errs" = 199001 ] && [ $(($(wc -l <"$tmp/err"))) = 199001 ] &&
    [ "$(head -n 1 "$tmp/err")" = "deep.bl:1001:6: lists may nest at most 1000 deep; this one would be 1001" ] &&
    [ "$levels" = 1000 ]; then
    echo "ok $n - a list nested 200,000 deep is refused past 1000 levels, and the 1000 print, compare and write"
else
    failed=1
    echo "not ok $n - a list nested 200,000 deep is refused past 1000 levels, and the 1000 print, compare and write"
    echo "# exit status $rc, $errs errors, $levels levels in deep.json"
    head -c 300 "$tmp/out" | sed 's/^/# stdout: /'
    head -n 3 "$tmp/err" | sed 's/^/# stderr: /'
fi

n=$((n + 1))
if "$bin" --help | grep -q -- '-e#N:LINE:COLUMN'; then
    echo "ok $n - --help tells how errors in -e are named"
else
    failed=1
    echo "not ok $n - --help tells how errors in -e are named"
fi
# --version names the matrix-product library; BLOCKLAB_GEMM=openblas picks OpenBLAS, and a name
# that is not a backend is one warning line, the default kept
vcheck() {   # vcheck DESCRIPTION STDOUT-LINE-2-PATTERN STDERR-PATTERN -- env...
    desc=$1 want=$2 want_err=$3
    shift 4
    (cd "$tmp" && env "$@" "$bin" --version >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
    n=$((n + 1))
    if [ $rc = 0 ] && head -n 1 "$tmp/out" | grep -Eq '^blocklab [0-9]+\.[0-9]+' &&
        sed -n 2p "$tmp/out" | grep -Eq "$want" && [ "$(wc -l <"$tmp/out")" -eq 2 ] &&
        { [ -z "$want_err" ] && [ ! -s "$tmp/err" ] || grep -Eq "$want_err" "$tmp/err"; }; then
        echo "ok $n - $desc"
    else
        failed=1
        echo "not ok $n - $desc"
        sed 's/^/# stdout: /' "$tmp/out"
        sed 's/^/# stderr: /' "$tmp/err"
    fi
}
vcheck "--version names the matrix-product library and the BLAS" \
    '^matrix products: (oneDNN [0-9.]+ \(dnnl_sgemm\)|OpenBLAS \(cblas_sgemm\)); BLAS: OpenBLAS.*threading; [0-9]+ threads?$' "" -- BLOCKLAB_GEMM=
vcheck "BLOCKLAB_GEMM=openblas multiplies with OpenBLAS" '^matrix products: OpenBLAS \(cblas_sgemm\);' "" \
    -- BLOCKLAB_GEMM=openblas
vcheck "BLOCKLAB_GEMM=mkl is one warning line and the default stays" '^matrix products: ' \
    "^blocklab: BLOCKLAB_GEMM: unknown matrix-product backend 'mkl' \(onednn or openblas\); using (onednn|openblas)$" \
    -- BLOCKLAB_GEMM=mkl
vcheck "a BLOCKLAB_GEMM holding control bytes is shown with ? for them, not echoed raw" '^matrix products: ' \
    "^blocklab: BLOCKLAB_GEMM: unknown matrix-product backend 'a\\?b' \\(onednn or openblas\\); using (onednn|openblas)$" \
    -- "BLOCKLAB_GEMM=$(printf 'a\033b')"
# standard output and standard error into one file (2>&1, as a terminal or a log shows them): what
# a statement printed comes before the next statement's error, also for a missing script after -e
printf 'x = 1\nx == 1\nprint(2, end="")\nnothing\nprint(3)\n' >"$tmp/order.bl"
(cd "$tmp" && "$bin" -q -k order.bl -e 'print(4)' >"$tmp/both" 2>&1; "$bin" -q -e 'print(5)' -f missing.bl >>"$tmp/both" 2>&1)
printf 'true\n2order.bl:4:1: unknown name '"'"'nothing'"'"'\n3\n4\n5\nblocklab: missing.bl: No such file or directory\n' >"$tmp/want"
n=$((n + 1))
if cmp -s "$tmp/both" "$tmp/want"; then
    echo "ok $n - output and errors interleave in statement order on one stream"
else
    failed=1
    echo "not ok $n - output and errors interleave in statement order on one stream"
    diff "$tmp/want" "$tmp/both" | sed 's/^/# /'
fi
echo "1..$n"
exit $failed
