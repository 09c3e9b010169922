#!/bin/sh
# gen_dict.sh - writes the fuzzers' dictionary (tests/fuzz/blocklab.dict) from the tables: every
# command and function name (the { "name", "synopsis", ... } rows of src/repl), every key of a
# synopsis (the names before '='), the switch values of models/config.c, and the language's
# operators and literals. Run from the source root: sh tests/fuzz/gen_dict.sh > tests/fuzz/blocklab.dict
set -eu
{
    # table rows: { "name", "synopsis", ...
    grep -ho '^ *{ "[a-z_0-9]*", "[^"]*"' src/repl/*.c src/repl/*.h | sed 's/^ *{ "\([^"]*\)", "\(.*\)"$/\1\n\2/' |
        grep -o '[a-z_][a-z_0-9]*=\?' | sort -u
    # switch values: "a|b|c" choices
    grep -ho '"[a-z0-9_]*|[a-z0-9_|]*"' src/models/config.c | tr -d '"' | tr '|' '\n'
    printf '%s\n' '(' ')' '[' ']' ',' ';' '=' '==' '!=' '<=' '>=' '<' '>' '+' '-' '*' '/' '@' '.' ':' '#' \
        '"' 'NEWLINE' 'on' 'off' 'true' 'false' '//' '%' '**' '...' ' is ' ' is not ' 'None' ' if ' ' else ' ' for ' ' in ' '> out.txt' '> out.csv' '> out.json' '> out.png' '1e9' '-1' '0.5' 'nan' 'inf'
} | sort -u | awk 'length($0) > 0 { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); if ($0 == "NEWLINE") $0 = "\\x0a"; printf "\"%s\"\n", $0 }'
