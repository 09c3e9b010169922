#!/bin/sh
# xterm_pictures.sh - pictures in a real terminal (TAP): blocklab runs inside xterm with sixel
# (-ti vt340, 256 colour registers) on a virtual X display (Xvfb); a screenshot of the display
# (ImageMagick's import) must show the picture's pixels: its white page and its blue line (tab10's
# first colour, #1f77b4), within the window's width and leaving 2 rows (the statement and the
# prompt) of its height. The same script with BLOCKLAB_PICTURES=blocks is the control: half blocks
# and braille leave no white page. `pictures` must say that the terminal's DA1 answer chose sixel.
# Skipped when Xvfb, xterm, ImageMagick or xwininfo is missing (Debian: xvfb xterm imagemagick
# x11-utils). The screenshots stay in $BL_SHOTS when it is set, to look at.
set -u
bin=${BL_BUILDDIR:-$(pwd)}/blocklab
for p in Xvfb xterm import convert xwininfo; do
    if ! command -v $p >/dev/null 2>&1; then echo "1..0 # SKIP $p missing"; exit 0; fi
done
if [ ! -x "$bin" ]; then echo "1..0 # SKIP $bin is not built"; exit 0; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bl-xterm.XXXXXX") || exit 99
xvfb=
cleanup() { [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

# a free display: Xvfb writes the number it took to fd 3
exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xvfb=$!
exec 3>&-
i=0
while [ ! -s "$tmp/display" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -s "$tmp/display" ]; then echo "1..0 # SKIP Xvfb did not start: $(head -1 "$tmp/xvfb.log")"; exit 0; fi
DISPLAY=:$(head -1 "$tmp/display"); export DISPLAY
unset TMUX STY KITTY_WINDOW_ID TERM_PROGRAM LC_TERMINAL BLOCKLAB_PICTURES

n=0
failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

cat >"$tmp/pic.bl" <<EOF
pictures > $tmp/mode.txt
lineplot(sin(arange(200) / 20), title="sine")
EOF

# run NAME COLSxROWS [env...]: blocklab in xterm, then a screenshot $tmp/NAME.png and the window's
# size in pixels in $tmp/NAME.size ("W H")
run() {
    name=$1 geom=$2
    shift 2
    rm -f "$tmp/done" "$tmp/mode.txt"
    env "$@" xterm -T "bl-$name" -ti vt340 -xrm 'XTerm*decTerminalID: vt340' -xrm 'XTerm*numColorRegisters: 256' \
        -bg black -fg gray -geometry "$geom+0+0" \
        -e sh -c "'$bin' '$tmp/pic.bl' 2>'$tmp/$name.err'; touch '$tmp/done'; sleep 60" &
    xt=$!
    i=0
    while [ ! -e "$tmp/done" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    xwininfo -name "bl-$name" 2>/dev/null | awk '/Width:/ {w=$2} /Height:/ {h=$2} END {print w, h}' >"$tmp/$name.size"
    import -window root "$tmp/$name.png" 2>/dev/null
    [ -n "${BL_SHOTS:-}" ] && cp "$tmp/$name.png" "$BL_SHOTS/xterm-$name.png"
    kill $xt 2>/dev/null
    wait $xt 2>/dev/null
}
# pixels of a colour (fuzz in %) in a screenshot
count() { convert "$1" -fuzz "$3%" -fill black +opaque "$2" -fill white -opaque "$2" -format '%[fx:round(mean*w*h)]' info:; }
# the bounding box of the white pixels: "W H X Y"
white_box() { convert "$1" -fuzz 3% -fill black +opaque white -trim -format '%w %h %X %Y' info: | tr -d +; }

run sixel 100x30
ok "$([ -e "$tmp/done" ]; echo $?)" "blocklab ran inside xterm"
grep -q "pictures: sixel (the terminal's DA1 lists sixel" "$tmp/mode.txt" 2>/dev/null
ok $? "pictures: sixel, chosen by xterm's DA1 answer (got: $(cat "$tmp/mode.txt" 2>/dev/null))"
white=$(count "$tmp/sixel.png" white 3) blue=$(count "$tmp/sixel.png" '#1f77b4' 12)
set -- $(cat "$tmp/sixel.size") ; ww=${1:-0} wh=${2:-0}
set -- $(white_box "$tmp/sixel.png"); bw=${1:-0} bh=${2:-0}
echo "# window ${ww}x${wh} px; white page ${bw}x${bh} px, $white white pixels, $blue blue ones"
[ "$white" -gt $((ww * wh / 3)) ] && [ "$blue" -gt 300 ]
ok $? "the picture's white page and blue line are on the screen"
[ "$bw" -le "$ww" ] && [ "$bw" -ge $((ww * 9 / 10)) ] && [ "$bh" -le $((wh * 28 / 30)) ]
ok $? "the picture takes the window's width and leaves 2 of its 30 rows"

run short 100x16
set -- $(cat "$tmp/short.size") ; ww=${1:-0} wh=${2:-0}
set -- $(white_box "$tmp/short.png"); bw=${1:-0} bh=${2:-0}
echo "# window ${ww}x${wh} px; white page ${bw}x${bh} px"
[ "$bh" -le $((wh * 14 / 16)) ] && [ "$bh" -ge $((wh * 12 / 16)) ] && [ "$bw" -lt "$ww" ]
ok $? "in a short window the picture is as tall as 14 of its 16 rows, narrower than the window"

run blocks 100x30 BLOCKLAB_PICTURES=blocks
white=$(count "$tmp/blocks.png" white 3) blue=$(count "$tmp/blocks.png" '#1f77b4' 12)
echo "# blocks: $white white pixels, $blue blue ones"
[ "$white" -lt 2000 ] && [ "$blue" -gt 50 ]
ok $? "BLOCKLAB_PICTURES=blocks draws braille in colour, no white page"

echo "1..$n"
exit $failed
