#!/usr/bin/env bash
# plot_test.sh CASE SOMA MAKE_STORE RECORD_CHILD WORK DRAWING_A_GRAPH: one case
# of the tests of `soma plot` and `soma live` (tests/cli/CMakeLists.txt makes
# each case a CTest test). The store is the one cli_test.sh's setup records
# (WORK/store: runs "tuesday" and "plain").

set -u
case_=$1 SOMA=$2 RECORD_CHILD=$3 WORK=$4 GRAPH=$5
STORE=$WORK/store
FLEET=$WORK/fleet # make_store --fleet: study lr, one trial done
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/soma-plot-test.XXXXXX")
SOCKET=soma-plot-test-$$
CHILD=
cleanup() {
  tmux -L "$SOCKET" kill-server 2>/dev/null
  if [ -n "$CHILD" ]; then kill "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null; fi
  rm -rf "$T"
}
trap cleanup EXIT

# fail, soma
. "$HERE/helpers.sh"

# svg_holds FILE TEXT...: FILE parses as XML and holds every TEXT.
svg_holds() {
  local file=$1
  shift
  python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$file" \
    || fail "$file does not parse as XML"
  for text in "$@"; do
    grep -qF -- "$text" "$file" || fail "$file does not hold '$text'"
  done
}

# png_is FILE W H: FILE is a PNG of W x H pixels.
png_is() {
  python3 - "$@" <<'PY' || fail "$1 is not a PNG of $2 x $3"
import struct, sys
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n"
assert struct.unpack(">II", png[16:24]) == (int(sys.argv[2]), int(sys.argv[3]))
PY
}

# pane: what the tmux pane shows now, in $T/pane.
pane() { tmux -L "$SOCKET" capture-pane -p -t live >"$T/pane"; }

# forwards_shown: the N of "forwards N" on the pane, or nothing.
forwards_shown() { pane; sed -n 's/^forwards \([0-9]*\) .*/\1/p' "$T/pane" | head -1; }

# wait_for TEXT: until the pane shows TEXT (10 s at most).
wait_for() {
  for _ in $(seq 100); do
    pane
    grep -qF -- "$1" "$T/pane" && return 0
    sleep 0.1
  done
  fail "the pane never showed '$1'"
}

# await FILE PATTERN SECONDS: until a line of FILE matches PATTERN (grep's
# regex), woken by the file's writes (tail -F follows it by inotify), for
# SECONDS at most; false when it never did.
await() {
  local fd found=1
  exec {fd}< <(timeout "$3" tail -n +1 -F "$1" 2>/dev/null)
  local follower=$!
  grep -q -m1 -- "$2" <&"$fd" && found=0
  kill "$follower" 2>/dev/null # timeout passes it on to tail
  exec {fd}<&-
  return $found
}

# live_in_tmux KEY: soma live in a tmux pane while record_child records;
# the count must rise, KEY must end it with exit code 0, and the terminal
# must be as it was (echo and line mode back, the normal screen shown).
live_in_tmux() {
  local key=$1 store=$T/busy
  "$RECORD_CHILD" "$store" busy 0 20 >"$T/child" 2>&1 &
  CHILD=$!
  for _ in $(seq 100); do grep -q durable "$T/child" && break; sleep 0.1; done
  grep -q durable "$T/child" || fail "record_child never made its store"
  tmux -L "$SOCKET" new-session -d -s live -x 100 -y 30 \
    "echo before-live; stty -a | grep -o -- ' -*icanon' > $T/stty-before; \
     $SOMA live --run busy --store $store --interval 100 2>$T/err; echo exited=\$?; \
     stty -a | grep -o -- ' -*icanon' > $T/stty-after; sleep 30"
  wait_for "soma live: run busy"
  local first second
  first=$(forwards_shown)
  [ -n "$first" ] || fail "no forward count on the pane"
  for _ in $(seq 50); do
    sleep 0.2
    second=$(forwards_shown)
    [ -n "$second" ] && [ "$second" -gt "$first" ] && break
  done
  [ -n "$second" ] && [ "$second" -gt "$first" ] || fail "the forward count did not rise ($first, then $second)"
  echo "the pane showed forwards $first, then $second" >&2
  grep -q "^slowest nodes" "$T/pane" || fail "no slowest nodes on the pane"
  grep -q "tokenize" "$T/pane" || fail "no node on the pane"
  tmux -L "$SOCKET" send-keys -t live "$key"
  wait_for "exited=0"
  grep -q "before-live" "$T/pane" || fail "the screen before soma live did not come back"
  grep -q "soma live: run busy" "$T/pane" && fail "the live view was left on the screen"
  for _ in $(seq 50); do [ -s "$T/stty-after" ] && break; sleep 0.1; done
  diff "$T/stty-before" "$T/stty-after" >&2 || fail "the terminal's modes were not restored"
  grep -q " icanon" "$T/stty-after" || fail "line mode is off after soma live"
}

case $case_ in
  plot_progress)
    soma 0 plot progress tuesday -o "$T/p.svg" --store "$STORE"
    [ "$(cat "$T/out")" = "drew loss over run tuesday to $T/p.svg" ] || fail "unexpected stdout"
    svg_holds "$T/p.svg" 'class="series-raw"' 'class="series-mean"' '>forward</text>' '>loss</text>' \
      'rolling mean, window 1' '12 values told'
    soma 0 plot progress tuesday -o "$T/p.png" --store "$STORE" --window 5
    png_is "$T/p.png" 960 540
    soma 0 plot progress plain --fact acc -o "$T/acc.svg" --store "$STORE"
    svg_holds "$T/acc.svg" '>acc</text>' '3 values told'
    ;;
  plot_spent_machines)
    soma 0 plot spent tuesday -o "$T/s.svg" --store "$STORE" --last 5
    svg_holds "$T/s.svg" '>tokenize</text>' '>embed</text>' '>score</text>' 'class="series-spent"' 'ran 5'
    soma 0 plot machines tuesday -o "$T/m.png" --store "$STORE"
    png_is "$T/m.png" 960 200
    soma 0 plot machines tuesday -o "$T/m.svg" --store "$STORE"
    svg_holds "$T/m.svg" '>here</text>' 'class="series-working"'
    ;;
  plot_study)
    # Study lr: one done trial (loss 0.25); its run recorded nothing.
    soma 0 plot study lr -o "$T/st.svg" --store "$FLEET"
    svg_holds "$T/st.svg" 'class="series-result"' '1 of 4 trials drawn (not drawn: 2 waiting or claimed, 1 broke)' \
      "no trial's run told 'loss'"
    soma 0 plot study lr --result steps -o "$T/st.png" --store "$FLEET"
    png_is "$T/st.png" 960 760
    soma 2 plot study lr --result nothing -o "$T/st2.svg" --store "$FLEET"
    grep -qF "soma: nothing to draw: no done trial of study 'lr' has a finite result 'nothing'" "$T/err" || fail "no empty-result error: $(cat "$T/err")"
    soma 2 plot study nope -o "$T/st2.svg" --store "$FLEET"
    grep -qF "has no study named 'nope'; it has 'lr'" "$T/err" || fail "no unknown-study error: $(cat "$T/err")"
    [ ! -e "$T/st2.svg" ] || fail "a failed plot left a file"
    ;;
  plot_errors)
    soma 2 plot progress tuesday -o "$T/p.jpg" --store "$STORE"
    grep -qF "soma: -o $T/p.jpg: the file must end in .svg or .png" "$T/err" || fail "no extension error"
    soma 2 plot progress wednesday -o "$T/p.svg" --store "$STORE"
    grep -qF "soma: no run 'wednesday' in the store" "$T/err" || fail "no unknown-run error"
    soma 2 plot progress tuesday --fact nothing -o "$T/p.svg" --store "$STORE"
    grep -qF "soma: no forward of run 'tuesday' told 'nothing'" "$T/err" || fail "no empty-series error"
    soma 2 plot progress tuesday --window 4 -o "$T/p.svg" --store "$STORE"
    grep -qF "window must be odd" "$T/err" || fail "no even-window error"
    soma 2 plot spent tuesday --store "$STORE"
    soma 2 plot progress tuesday -o "$T/nodir/p.svg" --store "$STORE"
    grep -qF "cannot write the figure" "$T/err" || fail "no unwritable-file error"
    [ ! -e "$T/p.svg" ] || fail "a failed plot left a file"
    # --json has nothing to print for a figure or a live view: refused, saying what does.
    soma 2 --json plot progress tuesday -o "$T/p.svg" --store "$STORE"
    grep -qF "soma: \`soma plot\` draws a figure into -o FILE, and --json has nothing to print there; the numbers behind it are \`soma --json curve RUN NAME\`" "$T/err" || fail "plot --json not refused: $(cat "$T/err")"
    [ ! -e "$T/p.svg" ] || fail "a refused plot left a file"
    soma 2 live tuesday --once --json --store "$STORE"
    grep -qF "soma: \`soma live\` draws for a person, and --json has nothing to print there" "$T/err" || fail "live --json not refused: $(cat "$T/err")"
    soma 2 plot progress tuesday -o "$T/p.svg" --store "$T/nothere"
    [ ! -e "$T/nothere" ] || fail "plot created a store"
    ;;
  plot_graph)
    soma 0 plot graph -o "$T/g.svg" "$GRAPH"
    svg_holds "$T/g.svg" '>tokenize</text>' '>at w1</text>' '>frozen v1, cached</text>'
    soma 0 plot graph -o "$T/g.png" -- "$GRAPH" --ignored
    png_is "$T/g.png" 736 224
    soma 2 plot graph -o "$T/t.svg" true
    grep -qF "ran but drew no graph" "$T/err" || fail "no drew-nothing error"
    soma 2 plot graph -o "$T/t.svg" false
    grep -qF "'false' failed (exit code 1)" "$T/err" || fail "no failed-program error"
    [ -z "$(ls "$T" | grep -v '^out$\|^err$\|^g\.svg$\|^g\.png$')" ] || fail "left files behind: $(ls "$T")"
    ;;
  live_once)
    soma 0 live --run tuesday --store "$STORE" --once
    grep -q "^forwards 12   ok 12   broke 0   open 0$" "$T/out" || fail "no counts"
    grep -q "^loss   last 1.00021 " "$T/out" || fail "no last value"
    grep -q "^  tokenize " "$T/out" || fail "no nodes"
    soma 0 live plain --store "$STORE" --once --fact acc
    grep -q "^forwards 3   ok 2   broke 1   open 0$" "$T/out" || fail "no broke count"
    soma 0 live --run later --store "$STORE" --once
    grep -q "^waiting for run 'later' to be recorded...$" "$T/out" || fail "no waiting line"
    soma 2 live --run tuesday --store "$T/nothere" --once
    [ ! -e "$T/nothere" ] || fail "live created a store"
    # Into a pipe (no terminal): frames one after another, plain, without
    # the escapes that redraw a screen; it ends when the reader goes (head
    # here; bounded: a view that outlived its reader would be killed).
    timeout 20 bash -c "'$SOMA' live --run tuesday --store '$STORE' --interval 20 | head -n 40" \
      >"$T/piped" 2>"$T/err" || fail "live into a pipe did not end with its reader"
    grep -q "^forwards 12   ok 12   broke 0   open 0$" "$T/piped" || fail "no counts when piped"
    if grep -q $'\x1b' "$T/piped"; then fail "live wrote terminal escapes into a pipe"; fi
    [ "$(grep -c '^soma live: run tuesday' "$T/piped")" -ge 2 ] || fail "live drew one frame only into a pipe"
    ;;
  live_waits_for_store)
    # A store that does not exist yet is waited for, as tensorboard --logdir
    # waits: said once on stderr, nothing created, and the run shown once a
    # recorder made it. Every wait here has a deadline.
    store="$T/later"
    timeout 30 "$SOMA" live --run waited --store "$store" --interval 50 >"$T/piped" 2>"$T/err" &
    VIEWER=$!
    await "$T/err" "waiting for a recorder" 10
    grep -qF "soma live: no store at '$store' yet; waiting for a recorder to make it (Ctrl-C stops)" "$T/err" \
      || fail "live did not say it waits for the store: $(cat "$T/err")"
    [ ! -e "$store" ] || fail "live created the store it waits for"
    "$RECORD_CHILD" "$store" waited 20 10 >/dev/null || fail "record_child failed"
    await "$T/piped" "^forwards 20 " 15 || fail "live never showed the 20 forwards recorded: $(tail -5 "$T/piped")"
    kill -TERM $VIEWER
    wait $VIEWER || fail "live did not end cleanly on SIGTERM (exit $?)"
    # Stopped while it waits: exit 0, still nothing created.
    timeout 30 "$SOMA" live --run waited --store "$T/never" --interval 50 >/dev/null 2>"$T/err2" &
    VIEWER=$!
    await "$T/err2" "waiting for a recorder" 10 || fail "live did not say it waits: $(cat "$T/err2")"
    # timeout(1) passes the signal on twice (to its command, then to its
    # process group): the second must not meet a default handler.
    kill -INT $VIEWER
    wait $VIEWER || fail "live waiting for a store did not end cleanly on SIGINT (exit $?)"
    [ ! -e "$T/never" ] || fail "live created a store while waiting"
    ;;
  live_tmux_q) live_in_tmux q ;;
  live_tmux_ctrl_c) live_in_tmux C-c ;;
  *) fail "unknown case" ;;
esac
exit 0
