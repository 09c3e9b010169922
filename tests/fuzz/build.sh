#!/bin/sh
# build.sh - builds the libFuzzer targets of tests/fuzz (make fuzz): the library's sources are
# compiled again with clang under AddressSanitizer and UndefinedBehaviorSanitizer (and the
# fuzzer's coverage), into $FUZZ_OUT/obj, and each target is linked with -fsanitize=fuzzer.
# From make: FUZZ_CC, FUZZ_CPPFLAGS, FUZZ_LIBS, FUZZ_SOURCES (the library's .c files),
# BL_SRCDIR, FUZZ_OUT. Rebuilds only what is older than its source.
set -eu
cc=${FUZZ_CC:?no clang with libFuzzer: see ./configure}
out=${FUZZ_OUT:-tests/fuzz/build}
src=${BL_SRCDIR:-.}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cflags="-std=c11 -D_GNU_SOURCE -g -O1 -fopenmp -Wno-pass-failed $san"
mkdir -p "$out/obj"
objs=
for f in $FUZZ_SOURCES; do
    o="$out/obj/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')"
    p="$src/$f"
    [ -f "$p" ] || p=$f     # made in the build folder (src/data/builtin_text.c)
    if [ ! -f "$o" ] || [ "$p" -nt "$o" ] || [ -n "$(find "$src/src" -name '*.h' -newer "$o" | head -1)" ]; then
        echo "  FUZZCC   $f"
        $cc $cflags -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS -I"$src/src" -I. -c "$p" -o "$o"
    fi
    objs="$objs $o"
done
link() {   # NAME SOURCE [DEFINES]
    echo "  FUZZLD   $1"
    $cc $cflags -fsanitize=fuzzer $FUZZ_CPPFLAGS -I"$src/src" -I. $3 "$src/tests/fuzz/$2" $objs $FUZZ_LIBS -o "$out/$1"
}
link parse fuzz_parse.c ""
link eval fuzz_eval.c ""
link safetensors fuzz_safetensors.c ""
link checkpoint fuzz_checkpoint.c ""
link cifar10 fuzz_data.c -DFUZZ_READER=1
link idx fuzz_data.c -DFUZZ_READER=2
link pngdir fuzz_data.c -DFUZZ_READER=3
link text fuzz_data.c -DFUZZ_READER=4
link history fuzz_history.c ""
