#!/bin/sh
# dash.sh - the live dashboard in tmux (TAP): start src/viz/dash_demo (the dashboard around a fake
# trainer), check that it draws and trains, switch views and heads, pause (not counted in the
# steps/s), exams (not counted either, but in the ETA), resize, quit with q and
# with Ctrl-C, and check that the terminal is restored each time (alternate screen left, cursor
# shown, stty back to canonical mode with echo).
builddir=${BL_BUILDDIR:-.}
demo="$builddir/src/viz/dash_demo"
if ! command -v tmux >/dev/null 2>&1; then echo "1..0 # SKIP tmux missing"; exit 0; fi
if [ ! -x "$demo" ]; then echo "1..1"; echo "not ok 1 - $demo is not built"; exit 1; fi
case $demo in /*) ;; *) demo="$PWD/$demo" ;; esac

unset TMUX
sock="bl-dash-$$"
T="tmux -L $sock -f /dev/null"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-dash.XXXXXX")
trap '$T kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
loc=C
locale -a 2>/dev/null | grep -qi '^c\.utf-*8$' && loc=C.UTF-8

n=0
failed=0
ok() { # status description
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
screen() { $T capture-pane -p -t dash > "$tmp/screen" 2>/dev/null; }
wait_for() { # pattern [tenths of a second]
    i=0
    while [ "$i" -lt "${2:-50}" ]; do
        screen
        grep -q -- "$1" "$tmp/screen" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
flag() { $T display -p -t dash "#{$1}"; }
sane() { # canonical mode and echo after the dashboard left
    grep -q '[^-]icanon' "$tmp/screen" && grep -q '[^-]echo ' "$tmp/screen"
}
run="env LC_ALL=$loc '$demo' 100000 10; echo rc=\$?; stty -a | tr '\n' ' ' | fold -w 90; echo; echo END; sleep 60"

echo "1..18"
$T new-session -d -s dash -x 100 -y 30 "$run"
wait_for "blocklab dash"; ok $? "the dashboard starts"
[ "$(flag alternate_on)" = 1 ]; ok $? "it uses the alternate screen"
wait_for "step [1-9][0-9]*  [1-9][0-9]*/100000"; ok $? "it trains steps and shows the progress"
wait_for "loss [0-9]*\.[0-9]\{4\}  val [0-9]*\.[0-9]\{4\}\( @[0-9]*\)\{0,1\}  lr "; ok $? "loss and val show 4 decimals, as train prints them"
# an exam every 25 steps: between them the val loss says its step, as train and show write it
wait_for "val [0-9]*\.[0-9]\{4\} @[1-9][0-9]*  lr "; ok $? "a val loss of an earlier step says which (@N)"
wait_for "attention layer 0 head 0"; ok $? "the overview shows the attention map"
$T send-keys -t dash 3
wait_for "view attention"; ok $? "key 3 switches to the attention view"
$T send-keys -t dash Right Down
wait_for "attention layer 1 head 1"; ok $? "arrow keys switch head and layer"
$T send-keys -t dash p
wait_for "PAUSED"
s1=$(grep -o 'step [0-9]*' "$tmp/screen" | head -1)
sleep 0.4
screen
s2=$(grep -o 'step [0-9]*' "$tmp/screen" | head -1)
[ -n "$s1" ] && [ "$s1" = "$s2" ]; ok $? "p pauses training ($s1, $s2)"
# steps/s counts training time only, as a progress bar's: after a pause of 3 s it stays near the
# rate before it (counting the pause, the first rate after it was under a sixth of that)
rate() { grep -o '[0-9.]* steps/s' "$tmp/screen" | head -1 | cut -d' ' -f1; }
$T resize-window -t dash -x 140 -y 30 2>/dev/null    # room on the top line for steps/s
wait_for "steps/s"
r1=$(rate)
sleep 2.5
$T send-keys -t dash p
after=""
i=0
while [ "$i" -lt 20 ]; do
    screen
    grep -q PAUSED "$tmp/screen" || after="$after $(rate)"
    sleep 0.1
    i=$((i + 1))
done
low=$(echo $after | tr ' ' '\n' | sort -g | head -1)
awk -v a="$r1" -v b="$low" 'BEGIN { exit !(a > 0 && b > a / 3) }'
ok $? "a pause does not lower steps/s ($r1 before it, at least $low after)"
$T resize-window -t dash -x 72 -y 22 2>/dev/null
sleep 0.3
wait_for "q back" && sed -n 22p "$tmp/screen" | grep -q "q back"; ok $? "it redraws for the new size after a resize"
$T send-keys -t dash q
wait_for "^END"; ok $? "q leaves the dashboard"
grep -q "dash_demo: quit at step" "$tmp/screen"; ok $? "the program goes on after q"
[ "$(flag alternate_on)" = 0 ] && [ "$(flag cursor_flag)" = 1 ] && sane; ok $? "the terminal is restored after q"

# validation exams are not training time either: a demo of 150 steps of 30 ms (at most 33 steps/s)
# with an exam of 1 s every 25 steps. Its steps/s stays the training rate all along (with the
# exams on the clock it swung from 57 to 8.9 and back around each one), the ETA counts the exams
# to come (it said 0:15 with 2.5 s left), and when done the header shows the run's training rate
# (it showed the last, exam-laden window: 10.9 after 85.6)
$T resize-window -t dash -x 140 -y 30 2>/dev/null    # before it starts: room for steps/s and eta
$T respawn-pane -k -t dash "env LC_ALL=$loc '$demo' 150 30 1000; echo END; sleep 60"
wait_for "blocklab dash"
start=$(date +%s.%N)
: > "$tmp/samples"
i=0
while [ "$i" -lt 300 ]; do
    screen
    now=$(date +%s.%N)
    if grep -q "  done  " "$tmp/screen"; then
        echo "done $now $(rate)" >> "$tmp/samples"
        break
    fi
    r=$(rate)
    e=$(grep -o 'eta [0-9:]*' "$tmp/screen" | head -1 | cut -d' ' -f2)
    [ -n "$r" ] && echo "run $now $r ${e:-none}" >> "$tmp/samples"
    sleep 0.1
    i=$((i + 1))
done
awk -v t0="$start" -v top=33.3 '
    function secs(s,  a, n) { n = split(s, a, ":"); return n == 3 ? a[1] * 3600 + a[2] * 60 + a[3] : a[1] * 60 + a[2] }
    $1 == "run" { n++; r[n] = $3; if (!eta_at && $2 - t0 >= 2.5 && $4 != "none") { eta_at = $2 - t0; eta = secs($4) } }
    $1 == "done" { end = $2 - t0; final = $3 }
    END {
        if (!n || !end) { print "# no samples or never done"; exit 1 }
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { x = r[i]; r[i] = r[j]; r[j] = x }
        printf "# %d rates from %s to %s steps/s, done after %.1f s at %s steps/s; eta %s s at %.1f s\n", n, r[1], r[n], end, final, eta, eta_at
        bad = 0
        if (r[1] < top / 2 || r[n] > top * 1.3) { print "# the rate leaves the training rate"; bad = 1 }
        if (!(final > top / 2 && final < top * 1.3)) { print "# the final rate is not the training rate"; bad = 1 }
        if (!eta_at || eta_at + eta < end * 0.8 - 1 || eta_at + eta > end * 1.2 + 1) { print "# the eta misses the end"; bad = 1 }
        exit bad
    }' "$tmp/samples"
ok $? "exams are not training time: steady steps/s, an eta that counts them, the run's rate at the end"
$T send-keys -t dash q
wait_for "^END"

$T respawn-pane -k -t dash "$run"
wait_for "blocklab dash"; ok $? "the dashboard starts again"
sleep 0.3
$T send-keys -t dash C-c
wait_for "^END"
grep -q "dash_demo: interrupted at step" "$tmp/screen"; ok $? "Ctrl-C stops the dashboard"
[ "$(flag alternate_on)" = 0 ] && [ "$(flag cursor_flag)" = 1 ] && sane; ok $? "the terminal is restored after Ctrl-C"
exit $failed
