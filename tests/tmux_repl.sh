#!/bin/sh
# tmux_repl.sh - types into the real interactive blocklab inside a private tmux server and reads
# the screen: tab completion, a continued line, history recall, the error caret, Ctrl-C at the
# prompt, during a long command, during `train` and (twice) during `compare`, `dash` around a
# model's run, the history file, Ctrl-D, `history N`, carets after UTF-8 text, the history under a
# missing $XDG_STATE_HOME, blocks (for ... end, and Python's indented ones) at the prompt and in the
# history, a decorator's line (@torch.no_grad()) waiting for its def, an error inside a function,
# Ctrl-C in a loop that never ends. Prints TAP.
# Skipped (with a message) when tmux is missing.
set -u
bin=${BL_BUILDDIR:-$(pwd)}/blocklab
if ! command -v tmux >/dev/null 2>&1; then
    echo "1..0 # SKIP tmux missing"
    exit 0
fi
if [ ! -x "$bin" ]; then
    echo "1..0 # SKIP $bin is not built"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-tmux.XXXXXX") || exit 99
T="tmux -L bltest$$ -f /dev/null"
cleanup() { $T kill-server >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
    n=$((n + 1)); failed=1
    echo "not ok $n - $1"
    screen | sed 's/^/# | /'
    # the session gone: say how blocklab ended (once), to tell a crash from a lost tmux server
    if ! $T has-session -t t 2>/dev/null && [ -z "${told_gone:-}" ]; then
        told_gone=1
        echo "# the tmux session is gone; $(cat "$tmp/ended" 2>/dev/null || echo 'blocklab had not ended')"
    fi
}
screen() { $T capture-pane -p -t t 2>/dev/null; }
# wait until the screen shows a fixed string (up to 60 s; at once when the session is gone, so a
# dead server fails each check quickly instead of waiting a minute for each)
wait_for() {
    i=0
    while [ $i -lt 600 ]; do
        screen | grep -qF -- "$1" && return 0
        $T has-session -t t 2>/dev/null || return 1
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
# start the session running the command $1; tried three times (once, on a busy machine, the
# server was gone before the first check)
start() {
    for try in 1 2 3; do
        $T new-session -d -s t -x 100 -y 40 "$1" && $T has-session -t t 2>/dev/null && return 0
        $T kill-server >/dev/null 2>&1
        sleep 1
    done
    echo "# tmux could not start a session" >&2
    return 1
}
check() { if wait_for "$2"; then ok "$1"; else notok "$1 (no \"$2\" on the screen)"; fi; }
keys() { $T send-keys -t t "$@"; sleep 0.2; }

start \
    "env BLOCKLAB_HISTORY=$tmp/history NO_COLOR=1 TERM=xterm OMP_NUM_THREADS=2 $bin -q; echo \"blocklab ended with status \$?\" >>$tmp/ended; sleep 30"
check "prompt" "bl>"

# (rand would stop at randn: randn_like shares it, as in torch)
keys 'x = resh' Tab
check "tab completes a function name" "bl> x = reshape("
keys 'arange(6), 2, 3)' Enter 'sha' Tab
check "tab completes another function name" "bl> shape("
keys 'x)' Enter
check "the value is printed" "[2, 3]"
keys 'x.spl' Tab
check "tab completes a tensor method after x." "bl> x.split("
keys '1)[0].shape' Enter
check "the method runs" "[1, 3]"
keys 's = """one' Enter 'two"""' Enter 'print(s + "|")' Enter
check "a triple-quoted string reads on over lines" "two|"

keys 'model d' Tab 'qk' Tab
check "tab completes a model kind and a switch name" "bl> model dit qk_norm="
keys 'o' Tab Tab
check "tab lists a switch's values" "off  on"
keys C-u 'seed 0' Enter

keys 'y = [1,' Enter
check "an open bracket gives the continuation prompt" "..."
keys '2]' Enter 'y' Enter
check "the continued line runs as one statement" "[1, 2]"

keys Up Up
check "history recall joins the continued line" "bl> y = [1, 2]"
keys C-u
keys 'history 3' Enter
check "history N shows the continued statement joined" "  y = [1, 2]"

keys 'x + zz' Enter
if wait_for "^^ unknown name 'zz'" && screen | grep -q "^        ^^ unknown name 'zz'"; then
    ok "the caret stands under the unknown name"
else
    notok "the caret stands under the unknown name"
fi

# blocks (issue 15): a header gives the second prompt up to its end, the block enters the
# history once (Up brings all of it back), an error inside a function shows the function's own
# line and a traceback line, and Ctrl-C stops a loop that never ends, keeping its values
keys C-l 'for s in [1, 4]' Enter
check "a block header gives the continuation prompt" "bl> for s in [1, 4]"
if screen | grep -qx "\.\.\."; then ok "the second prompt waits for the block's end"; else notok "the second prompt waits for the block's end"; fi
# (-l: a bare "end" would be the End key to tmux)
keys 'print("sq", s * s)' Enter; keys -l end; keys Enter
check "the block runs when its end is typed" "sq 16"
keys C-l Up Enter
check "Up brings the whole block back and it runs again" "sq 16"
# Python's indented block: it waits with ... until a blank line, as Python's REPL; a line back
# under the header ends the block too and runs after it; a bad unindent is one line
keys C-l 'for i in range(3):' Enter '    if i > 0:' Enter '        print("py", i * 10)' Enter
if screen | grep -q "py 10"; then notok "an indented block waits for its blank line"; else ok "an indented block waits for its blank line"; fi
keys Enter
check "a blank line runs the indented block" "py 20"
# Tab at the start of a continuation line indents (4 spaces), as Python's REPL; on "bl> " it completes
keys C-l 'for i in range(2):' Enter Tab 'print("tab", i + 5)' Enter Enter
check "Tab at the start of a block's line indents it" "tab 6"
keys C-l 'def g(a):' Enter '    return a * 7' Enter 'print("g", g(6))' Enter
check "a line under the header ends the block and runs after it" "g 42"
# nanoGPT's @torch.no_grad(): the decorator's line waits with ... for its def, as Python's REPL
keys C-l '@torch.no_grad()' Enter
if screen | grep -qx "\.\.\."; then ok "a decorator's line waits for its def"; else notok "a decorator's line waits for its def"; fi
keys 'def dg(t):' Enter '    return t * 2' Enter Enter 'print("dg", dg(torch.ones(2, requires_grad=True)).requires_grad)' Enter
check "the decorated def runs its body without recording gradients" "dg false"
keys C-l 'for i in range(2):' Enter '        y = i' Enter '    z = 1' Enter
check "an unindent that matches no outer level is one error" "IndentationError: unindent does not match any outer indentation level"
keys 'def f(x)' Enter 'return x + "a"' Enter; keys -l end; keys Enter 'f(1)' Enter
check "an error inside a function shows the function's own line" '    return x + "a"'
check "with a traceback line per call" "  in f, line 2, called at <input>:1:1"
keys C-l 'n = 0; while true: n = n + 1' Enter
sleep 1
keys C-c
check "Ctrl-C stops a loop that never ends" "interrupted"
keys 'print("loop kept", n > 0)' Enter
check "the values the loop made are kept" "loop kept true"

keys 'abc def'
keys C-c
check "Ctrl-C at the prompt clears the line" "abc def^C"
keys 'print("after", 1 + 1)' Enter
check "the session goes on after Ctrl-C" "after 2"

keys 'time z = randn(5000, 5000) @ randn(5000, 5000)' Enter
sleep 0.3
keys C-c
check "Ctrl-C during a long command returns to the prompt when it ends" "interrupted"
keys 'print("still", shape(x))' Enter
check "every value is intact after the interrupt" "still [2, 3]"
# a statement with no safe point runs to its end, but its assignment and the rest of the line
# are abandoned; "interrupted" starts a line of its own after the terminal's ^C
keys C-l 'big = 1; big = randn(5000, 5000) @ randn(5000, 5000); print("rest", 3 * 3)' Enter
sleep 0.3
keys C-c
check "Ctrl-C during a long expression says interrupted" "interrupted"
keys 'print("big", big)' Enter
check "the interrupted assignment is abandoned and the old value kept" "big 1"
if screen | grep -q "rest 9"; then notok "the rest of the line after a long expression is abandoned"
else ok "the rest of the line after a long expression is abandoned"; fi
if screen | grep -qx "interrupted" && ! screen | grep -q '\^C.'; then ok "interrupted is on a line of its own"
else notok "interrupted is on a line of its own"; fi

keys 'model gpt dim=32 depth=1 heads=2 batch=8 context=32 eval_every=0' Enter
check "a small model to train" "m1: (current) gpt"
keys 'train 1000000' Enter
check "train draws a progress bar on one line" "it/s  ETA"
keys C-c
check "Ctrl-C during train stops after the current step" "train: interrupted after step"
keys 'print("kept", m1.run.steps > 0, m1.run.steps < 1000000)' Enter
check "the model and its run are kept after Ctrl-C" "kept true true"
keys 'train 2' Enter
check "training continues after Ctrl-C" "[####################] step"
# with an exam after every step the exams take most of the time: the bar keeps the training-only
# it/s to its last redraw, and the summary line's wall-clock figure, lower, says it counts them
keys C-l 'ex = gpt(dim=32, depth=1, heads=2, batch=8, context=32, eval_every=1)' Enter 'train ex 20' Enter
check "a train with exams ends with a summary that says so" "it/s with exams)"
if screen | awk '/^\[#+\] step [0-9]+ .* it\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "it/s") bar = $i }
                 /steps in .* it\/s with exams\)/ { s = $0; sub(/.*\(/, "", s); sub(/ .*/, "", s); sum = s }
                 END { exit !(bar > 0 && sum > 0 && bar > 1.5 * sum) }'
then ok "the final bar keeps the training-only it/s, above the summary's with exams"
else notok "the final bar keeps the training-only it/s, above the summary's with exams"; fi

# Ctrl-C abandons the rest of the line, as bash and Python do: the statements after the one it
# stopped do not run, and what was assigned before it is kept. train quiet=on draws no bar that
# would overwrite the terminal's ^C, so its message must start a line of its own.
keys C-l 'before_c = 7; train 1000000 quiet=on; print("rest", 1 + 1); train 5' Enter
sleep 1
keys C-c
check "Ctrl-C stops the train of a line with more statements" "train: interrupted after step"
keys 'print("prompt", before_c)' Enter
check "the prompt comes back with the values assigned before Ctrl-C" "prompt 7"
if screen | grep -q "rest 2\|5 steps in"; then notok "Ctrl-C abandons the rest of the line"
else ok "Ctrl-C abandons the rest of the line"; fi
if screen | grep -q '^train: interrupted after step' && ! screen | grep -q '\^C[a-z]'; then
    ok "the interrupt message starts a line of its own after the echoed ^C"
else
    notok "the interrupt message starts a line of its own after the echoed ^C"
fi
# the same for a statement list pasted at once (bracketed paste, run when Enter is pressed) and
# for a sourced file: Ctrl-C stops all of it
$T set-buffer -b bl 'train 1000000 quiet=on
print("pasted", 2 + 2)'
$T paste-buffer -p -d -b bl -t t
keys C-l Enter
sleep 1
keys C-c
check "Ctrl-C stops a pasted statement list's train" "train: interrupted after step"
printf 'train 1000000 quiet=on\nprint("sourced", 3 + 3)\n' >"$tmp/long.bl"
keys "source $tmp/long.bl" Enter
sleep 1
keys C-c
keys 'print("back", 6 * 7)' Enter
check "the prompt comes back after Ctrl-C in a sourced file" "back 42"
if screen | grep -q "pasted 4\|sourced 6"; then notok "Ctrl-C stops the whole paste and the whole source"
else ok "Ctrl-C stops the whole paste and the whole source"; fi
$T resize-window -t t -x 40
keys 'train 3' Enter
check "on 40 columns the final line of train is shown whole, on a line of its own" "3 steps in"
# the bar of train 3 has fewer than 40 columns (it did not wrap) and its summary line follows it
if screen | awk '/^step [0-9]+: loss .*3 steps in/ { ok = length(prev) < 40 && prev ~ /step [0-9]+  loss / }
                 { prev = $0 } END { exit !ok }'
then ok "the progress bar fits 40 columns"; else notok "the progress bar fits 40 columns"; fi
# a long run on 40 columns keeps its ETA (it came last and was cut), in m:ss or h:mm:ss as dash's
keys 'train 1000000' Enter
i=0
while [ $i -lt 150 ] && ! screen | grep -Eq '^(\[[#.]+\] )?step [0-9]+  loss [0-9.]+  ETA [0-9]+(:[0-9]{2}){1,2} *$'; do
    sleep 0.1; i=$((i + 1))
done
if [ $i -lt 150 ]; then ok "on 40 columns a long train keeps its ETA (m:ss)"; else notok "on 40 columns a long train keeps its ETA (m:ss)"; fi
keys C-c
check "Ctrl-C stops the long train" "train: interrupted after step"
$T resize-window -t t -x 100

keys 'dash steps=3' Enter
check "dash trains the model inside the dashboard to the end" "] 100%"
check "dash's bar counts its own steps, as train's does, after the run's step" "  3/3 [####################] 100%"
keys q
check "q leaves the dashboard with the run kept" "dash: the run is at step"

# a resize while dash runs (readline's SIGWINCH handler is installed here, unlike in dash.sh):
# the overview is laid out again, its loss panel now ending at column 39 = 72 * 11 / 20, not 55
keys 'dash steps=1000000' Enter
check "a long dash starts" "view overview"
$T resize-window -t t -x 72 -y 22
u=; locale -a 2>/dev/null | grep -qix 'c.utf-\{0,1\}8' && u=C.UTF-8
i=0
while [ $i -lt 100 ] && ! screen | LC_ALL=${u:-C} grep -q '^.\{39\}[|│]'; do sleep 0.1; i=$((i + 1)); done
if [ $i -lt 100 ]; then ok "dash lays itself out again after a resize"; else notok "dash lays itself out again after a resize"; fi
keys q
check "q leaves the resized dashboard" "dash: the run is at step"
$T resize-window -t t -x 100 -y 40

echo 'print("sourced")' >"$tmp/script_one.bl"
keys "source $tmp/scri" Tab
check "tab completes a file name after source" "script_one.bl"
keys Enter
check "source runs the file" "sourced"
mkdir -p "$tmp/dsets/cifar_dir"
keys "data cifar10 $tmp/dsets/ci" Tab
check "tab completes a folder after data KIND" "bl> data cifar10 $tmp/dsets/cifar_dir/"
keys C-u

# compare: the first Ctrl-C stops training after the round and says the runs are being measured;
# a second one skips the measuring (a big exam keeps it busy for seconds): the table follows with
# no error, the values stay, and a line typed after the Ctrl-C runs
keys 'model dit batch=2 eval_every=0' Enter
check "a TinyDiT to compare" "m2: (current) dit"
keys 'data shapes exam=6000' Enter
check "a big exam" "shapes: endless train"
keys "compare a b=norm:rmsnorm steps=1000000 fd=off dir=$tmp/cmp" Enter
check "compare shows its progress" "compare: step"
i=0   # its ETA in m:ss or h:mm:ss, the one duration format of train and dash (not "ETA 27 s")
while [ $i -lt 100 ] && ! screen | grep -Eq 'compare: step .*ETA [0-9]+(:[0-9]{2}){1,2}'; do sleep 0.1; i=$((i + 1)); done
if [ $i -lt 100 ]; then ok "compare writes its ETA as train does (m:ss)"; else notok "compare writes its ETA as train does (m:ss)"; fi
keys C-c
check "the first Ctrl-C during compare stops training and measures the runs" "(Ctrl-C again skips that)"
keys C-c 'print("typed", 6 * 7)' Enter
check "a second Ctrl-C skips the measuring and the table follows" "compare: measuring skipped (Ctrl-C): - marks what was not measured"
check "the line typed after the Ctrl-C runs" "typed 42"
if screen | grep -q "seed gap" && ! screen | grep -q "interrupted after [0-9]* of 6000"; then
    ok "the table is shown and no error follows it"
else
    notok "the table is shown and no error follows it"
fi
keys 'print("runs", cmp_a.steps == cmp_seed2.steps, cmp_table.variant[2] == "seed2")' Enter
check "the runs and the table are kept" "runs true true"

keys C-d
i=0
while [ $i -lt 50 ] && ! grep -q "still" "$tmp/history" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if grep -qxF 'y = [1, 2]' "$tmp/history" && grep -qxF 'x = reshape(arange(6), 2, 3)' "$tmp/history" &&
   grep -A2 -xF 'for s in [1, 4]' "$tmp/history" | tail -1 | grep -qxF 'end'; then
    ok "Ctrl-D leaves and the history file holds the statements"
else
    notok "Ctrl-D leaves and the history file holds the statements"
    sed 's/^/# h: /' "$tmp/history" 2>/dev/null
fi

# a second session: the history goes to $XDG_STATE_HOME/blocklab/history, made when missing;
# carets count display columns (a CJK character is two, e acute one)
$T kill-session -t t >/dev/null 2>&1
utf8=
locale -a 2>/dev/null | grep -qix 'c.utf-\{0,1\}8' && utf8="LC_ALL=C.UTF-8"
start \
    "env -u BLOCKLAB_HISTORY XDG_STATE_HOME=$tmp/state/new $utf8 NO_COLOR=1 TERM=xterm $bin -q; echo \"blocklab ended with status \$?\" >>$tmp/ended; sleep 30"
check "a second session" "bl>"
if [ -n "$utf8" ]; then
    keys '"日本語éé" + zz' Enter
    if wait_for "^^ unknown name 'zz'" && screen | grep -q "^                 ^^ unknown name 'zz'"; then
        ok "the caret counts display columns after UTF-8 text"
    else
        notok "the caret counts display columns after UTF-8 text"
    fi
fi
keys 'print("xdg", 6 * 7)' Enter
check "the second session runs" "xdg 42"
keys C-d
i=0
while [ $i -lt 50 ] && ! grep -q "xdg" "$tmp/state/new/blocklab/history" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if grep -qF 'print("xdg", 6 * 7)' "$tmp/state/new/blocklab/history" 2>/dev/null; then
    ok "the history folder under a missing XDG_STATE_HOME is made"
else
    notok "the history folder under a missing XDG_STATE_HOME is made"
fi

# a third session (issue 15, issue 20): the startup file runs at an interactive start; a history
# file that is not text is read as far as it is text with one warning and rewritten clean on
# exit; BLOCKLAB_HISTSIZE caps the history (file included); an entry over 64 KiB is left out
$T kill-session -t t >/dev/null 2>&1
mkdir -p "$tmp/cfg/blocklab"
printf 'rcvar = 41\nprint("rc ran")\n' >"$tmp/cfg/blocklab/blocklabrc"
{ printf 'print("old1")\n'; head -c 70000 /dev/zero | tr '\0' 'x'; printf '\nprint("old2")\n\377\376 bad\nprint("lost")\n'; } >"$tmp/hist3"
start \
    "env BLOCKLAB_HISTORY=$tmp/hist3 BLOCKLAB_HISTSIZE=3 XDG_CONFIG_HOME=$tmp/cfg NO_COLOR=1 TERM=xterm $bin -q; echo \"blocklab ended with status \$?\" >>$tmp/ended; sleep 30"
check "a corrupt history file is one warning, naming where the text ends" "is not text after byte 70029 (a NUL byte or inv"
check "the startup file runs at an interactive start" "rc ran"
keys Up
check "the history holds what was text before the bad bytes" 'bl> print("old2")'
keys C-u 'print(rcvar + 1)' Enter
check "the startup file's values are kept" "42"
keys 'a3 = 1' Enter 'b3 = 2' Enter 'history size=3' Enter
check "history size= says what it keeps" "history: keeping the last 3 statements"
keys C-d
i=0
while [ $i -lt 50 ] && ! grep -q "size=3" "$tmp/hist3" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
# each entry follows readline's "#TIME" line (the timestamps are left out of the comparison)
if [ "$(grep -v '^#[0-9]*$' "$tmp/hist3" 2>/dev/null)" = "b3 = 2
history size=3" ] || [ "$(grep -v '^#[0-9]*$' "$tmp/hist3" 2>/dev/null)" = "a3 = 1
b3 = 2
history size=3" ]; then
    ok "the history file is rewritten clean, with at most BLOCKLAB_HISTSIZE statements"
else
    notok "the history file is rewritten clean, with at most BLOCKLAB_HISTSIZE statements"
    od -c "$tmp/hist3" | head -20 | sed 's/^/# h: /'
fi
# -n skips the startup file
$T kill-session -t t >/dev/null 2>&1
start \
    "env BLOCKLAB_HISTORY=/dev/null XDG_CONFIG_HOME=$tmp/cfg NO_COLOR=1 TERM=xterm $bin -q -n; echo \"blocklab ended with status \$?\" >>$tmp/ended; sleep 30"
check "a fourth session" "bl>"
keys 'print(rcvar)' Enter
check "-n skips the startup file" "unknown name 'rcvar'"
echo "1..$n"
exit $failed
