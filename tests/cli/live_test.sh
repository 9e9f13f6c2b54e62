#!/usr/bin/env bash
# live_test.sh CASE SOMA RECORD_CHILD WORK: one case of the tests of `soma
# live` (tests/cli/CMakeLists.txt makes each case a CTest test). The store is
# the one cli_test.sh's setup records (WORK/store: runs "tuesday" and
# "plain"); the cases that follow a run being recorded drive record_child
# (tests/store) beside a view in a tmux pane or a pipe. Every wait has a
# deadline and waits on what it waits for (the pane's content, a file's
# lines), never a fixed sleep before an assertion.

set -u
case_=$1 SOMA=$2 RECORD_CHILD=$3 WORK=$4
STORE=$WORK/store
FLEET=$WORK/fleet
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/soma-live-test.XXXXXX")
SOCKET=soma-live-test-$$
CHILD=
VIEWER=
cleanup() {
  tmux -L "$SOCKET" kill-server 2>/dev/null
  for p in $CHILD $VIEWER; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

# fail, soma
. "$HERE/helpers.sh"

# pane: what the tmux pane shows now, in $T/pane (-J: a wrapped line as one).
pane() { tmux -L "$SOCKET" capture-pane -p -J -t live | sed 's/ *$//' >"$T/pane"; }

# forwards_shown: the N of "forwards N" on the pane, or nothing.
forwards_shown() { pane; sed -n 's/^forwards \([0-9]*\) .*/\1/p' "$T/pane" | head -1; }

# pane_until SECONDS TEST...: until the command TEST (run on a fresh capture
# in $T/pane) succeeds, looking every 0.05 s, for SECONDS at most; false when
# it never did. A look, not a sleep before an assertion: tmux has no event
# for "the pane now shows X", so the pane is read again until it does. (The
# panes' commands end in `sleep 30` only to keep the pane, and what it said
# last, on the screen; nothing waits for that sleep: cleanup kills the server.)
pane_until() {
  local deadline=$((SECONDS + $1))
  shift
  while :; do
    pane
    "$@" && return 0
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

# shows TEXT: the pane shows TEXT.
shows() { grep -qF -- "$1" "$T/pane"; }

# shows_line REGEX: a line of the pane matches REGEX (grep's).
shows_line() { grep -q -- "$1" "$T/pane"; }

# wait_for TEXT: until the pane shows TEXT (10 s at most).
wait_for() { pane_until 10 shows "$1" || fail "the pane never showed '$1'"; }

# fitting W H: no line of the pane is wider than W columns, and the lines
# the view wrote (the pane less its blank rows at the end) are H at most; the
# pane is a W x H one, so a view that scrolled would lose its first line.
# fits W H: the same, or the test fails saying why.
fits() { fitting "$@" || fail "the view does not fit $1 x $2"; }
fitting() {
  python3 - "$T/pane" "$1" "$2" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
while lines and not lines[-1].strip():
    lines.pop()
w, h = int(sys.argv[2]), int(sys.argv[3])
wide = [l for l in lines if len(l) > w]
assert not wide, f"wider than {w}: {wide}"
assert len(lines) <= h, f"{len(lines)} lines"
assert lines and lines[0].startswith("soma live: run"), "the first line is not the view's"
PY
}

# rate_shown: the N of "rate N/s" on the pane, or nothing.
rate_shown() { sed -n 's/^rate \([0-9.]*\)\/s.*/\1/p' "$T/pane" | head -1; }

# rate_positive: the pane shows a rate above 0.
rate_positive() {
  local r
  r=$(rate_shown)
  [ -n "$r" ] && python3 -c "import sys; sys.exit(0 if float('$r') > 0 else 1)"
}

# count_is N: the pane's forward count is N.
count_is() { [ "$(sed -n 's/^forwards \([0-9]*\) .*/\1/p' "$T/pane" | head -1)" = "$1" ]; }

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

# recording STORE RUN COUNT PACE_MS: record_child records RUN in the
# background (CHILD); returns once its first forwards are durable.
recording() {
  "$RECORD_CHILD" "$1" "$2" "$3" 10 "$4" >"$T/child" 2>&1 &
  CHILD=$!
  await "$T/child" durable 20 || fail "record_child never made its store: $(cat "$T/child")"
}

# live_in_tmux KEY: soma live in a tmux pane while record_child records;
# the count must rise, KEY must end it with exit code 0, and the terminal
# must be as it was (echo and line mode back, the normal screen shown).
live_in_tmux() {
  local key=$1 store=$T/busy
  recording "$store" busy 0 20
  tmux -L "$SOCKET" new-session -d -s live -x 100 -y 30 \
    "echo before-live; stty -a | grep -o -- ' -*icanon' > $T/stty-before; \
     $SOMA live --run busy --store $store --interval 100 2>$T/err; echo exited=\$?; \
     stty -a | grep -o -- ' -*icanon' > $T/stty-after; sleep 30"
  wait_for "soma live: run busy"
  local first second
  first=$(forwards_shown)
  [ -n "$first" ] || fail "no forward count on the pane"
  rises() { second=$(sed -n 's/^forwards \([0-9]*\) .*/\1/p' "$T/pane" | head -1); [ -n "$second" ] && [ "$second" -gt "$first" ]; }
  pane_until 10 rises || fail "the forward count did not rise ($first, then $second)"
  echo "the pane showed forwards $first, then $second" >&2
  pane_until 10 shows_line "^slowest nodes" || fail "no slowest nodes on the pane"
  grep -q "tokenize" "$T/pane" || fail "no node on the pane"
  tmux -L "$SOCKET" send-keys -t live "$key"
  wait_for "exited=0"
  grep -q "before-live" "$T/pane" || fail "the screen before soma live did not come back"
  grep -q "soma live: run busy" "$T/pane" && fail "the live view was left on the screen"
  await "$T/stty-after" icanon 10 || fail "the shell never wrote the modes after soma live"
  diff "$T/stty-before" "$T/stty-after" >&2 || fail "the terminal's modes were not restored"
  grep -q " icanon" "$T/stty-after" || fail "line mode is off after soma live"
}

case $case_ in
  live_once)
    soma 0 live --run tuesday --store "$STORE" --once
    grep -q "^forwards 12   ok 12   broke 0   open 0$" "$T/out" || fail "no counts"
    grep -q "^rate [0-9.]*/s (last 5 s)   elapsed " "$T/out" || fail "no rate and elapsed time"
    grep -q "^loss   last 1.00021   (told by 12 forwards: 1 to 2.1)$" "$T/out" || fail "no last value and range"
    grep -q "^  tokenize " "$T/out" || fail "no nodes"
    soma 0 live plain --store "$STORE" --once --fact acc
    grep -q "^forwards 3   ok 2   broke 1   open 0$" "$T/out" || fail "no broke count"
    # Not summarised: the values come from the fact blobs, the whole run.
    grep -q "^acc   last 0.75   (told by 3 forwards: 0.25 to 0.75)$" "$T/out" || fail "no values of an unsummarised fact"
    # A finished run says that its recorder closed it, not how long it is quiet.
    grep -q "^finished: its recorder closed it at [0-9-]*T[0-9:]*Z$" "$T/out" || fail "no finished line: $(cat "$T/out")"
    if grep -q "no forward for" "$T/out"; then fail "a finished run said it is quiet"; fi
    # A run that went to workers names their machines: w1 is alpha-101 by
    # its machine facts, still reporting (the newest reading); w2's machine
    # wrote no readings, so it has no state to show.
    soma 0 live --run remote --store "$FLEET" --once
    grep -q "^machines: w1 alpha-101 reporting$" "$T/out" || fail "no machines line: $(cat "$T/out")"
    soma 0 live --run tuesday --store "$STORE" --once
    if grep -q "^machines:" "$T/out"; then fail "a run that went nowhere named machines"; fi
    # Looked at once, a run that is not there is an error (the view that
    # stays waits for it).
    soma 2 live --run later --store "$STORE" --once
    grep -qF "soma: no run 'later' in the store '$STORE'; \`soma runs\` lists the runs it holds" "$T/err" \
      || fail "no error for an unknown run: $(cat "$T/err")"
    # Nor does the view wait for a run the store does not hold without
    # --wait: an error at once (bounded here), naming the nearest runs.
    timeout 10 "$SOMA" live tuesdy --store "$STORE" >"$T/out" 2>"$T/err"
    [ $? -eq 2 ] || fail "live on an unknown run did not exit 2 at once"
    grep -qF "soma: no run 'tuesdy' in the store '$STORE'; did you mean 'tuesday'? (\`soma runs\` lists the runs it holds)" "$T/err" \
      || fail "no near run named: $(cat "$T/err")"
    # With --wait it waits for it, and says so.
    timeout 20 bash -c "'$SOMA' live tuesdy --wait --store '$STORE' --interval 20 | head -n 2" >"$T/waiting" 2>&1
    grep -qF "waiting for run 'tuesdy' to be recorded..." "$T/waiting" || fail "--wait did not wait: $(cat "$T/waiting")"
    soma 2 live --run tuesday --store "$T/nothere" --once
    [ ! -e "$T/nothere" ] || fail "live created a store"
    soma 2 live tuesday --once --quiet-after x --store "$STORE"
    grep -qF "quiet-after" "$T/err" || fail "no error for a bad --quiet-after"
    # Into a pipe (no terminal): frames one after another, plain, without
    # the escapes that redraw a screen; it ends when the reader goes (head
    # here; bounded: a view that outlived its reader would be killed).
    timeout 20 bash -c "'$SOMA' live --run tuesday --store '$STORE' --interval 20 | head -n 40; exit \${PIPESTATUS[0]}" \
      >"$T/piped" 2>"$T/err" || fail "live into a pipe did not end with its reader, quietly (exit $?: 141 is SIGPIPE)"
    [ ! -s "$T/err" ] || fail "live said something when its reader went: $(cat "$T/err")"
    grep -q "^forwards 12   ok 12   broke 0   open 0$" "$T/piped" || fail "no counts when piped"
    if grep -q $'\x1b' "$T/piped"; then fail "live wrote terminal escapes into a pipe"; fi
    [ "$(grep -c '^soma live: run tuesday' "$T/piped")" -ge 2 ] || fail "live drew one frame only into a pipe"
    ;;
  live_executions)
    # A program that records a run again is a second execution of it: the
    # runs table counts them, --json says where each began and who wrote
    # it, live says where the latest began, and the plot draws a line there.
    S=$T/store
    "$RECORD_CHILD" "$S" again 5 5 >/dev/null || fail "the first record_child failed"
    "$RECORD_CHILD" "$S" again 3 3 >/dev/null &
    second=$!
    wait "$second" || fail "the second record_child failed"
    soma 0 runs --store "$S" --json
    python3 - "$T/out" "$second" "$(hostname)" <<'PY' || fail "runs --json: $(cat "$T/out")"
import json, sys
rows = json.load(open(sys.argv[1]))
r = rows[0]
assert r["run"] == "again" and r["forwards"] == 8, r
assert r["executions"] == 2, r
first, second = r["began"]
assert first["forward"] == 0 and second["forward"] == 5, r["began"]
assert second["pid"] == int(sys.argv[2]) and second["host"] == sys.argv[3], r["began"]
assert first["pid"] != second["pid"] and 0 < first["began_us"] <= second["began_us"], r["began"]
PY
    soma 0 runs --store "$S"
    head=$(head -1 "$T/out") row=$(sed -n 2p "$T/out")
    [ "$(echo $head | cut -d' ' -f1-7)" = "run status forwards broke execs duration took" ] \
      && [ "$(echo $row | cut -d' ' -f1,3-5)" = "again 8 0 2" ] || fail "runs table: $(cat "$T/out")"
    soma 0 live --run again --store "$S" --once
    grep -q "^executions: 2; the latest began at forward 5, [0-9:-]* *[0-9:]*, $(hostname) pid $second$" "$T/out" \
      || fail "live does not say where the latest execution began: $(cat "$T/out")"
    soma 0 live --run tuesday --store "$STORE" --once
    if grep -q "^executions:" "$T/out"; then fail "a run written once said executions"; fi
    soma 0 plot progress again --store "$S" -o "$T/again.svg"
    grep -q "execution 2: $(hostname) pid $second [0-9-]* [0-9:]*Z" "$T/again.svg" \
      || fail "the plot does not mark where the second execution began"
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
    VIEWER=
    [ ! -e "$T/never" ] || fail "live created a store while waiting"
    ;;
  live_tmux_q) live_in_tmux q ;;
  live_tmux_ctrl_c) live_in_tmux C-c ;;
  live_tmux_small)
    # A 40 x 10 terminal while record_child records 300 forwards, one every
    # 10 ms: nothing wraps or scrolls, the counts and the rate stay, the
    # count reaches 300, and once the recorder stops the view says the run
    # finished.
    store=$T/small
    recording "$store" small 300 10
    tmux -L "$SOCKET" new-session -d -s live -x 40 -y 10 \
      "$SOMA live --run small --store $store --interval 50 --quiet-after 1 2>$T/err; echo exited=\$?; sleep 30"
    wait_for "soma live: run small"
    pane_until 10 rate_positive || fail "no rate above 0 while recording (rate '$(rate_shown)')"
    # tmux may size the pane after the view's first frame; SIGWINCH redraws.
    pane_until 5 fitting 40 10 2>/dev/null
    fits 40 10
    grep -q "^forwards [0-9]" "$T/pane" || fail "no counts line at 40 x 10"
    pane_until 30 count_is 300 || fail "the count never reached 300 (it showed $(forwards_shown))"
    fits 40 10
    # The whole run's range, not the last values': losses 0 to 299 were told.
    pane_until 5 shows_line "^loss  last 299  (300 told: 0 to 299)$" || fail "the fact line is not the whole run's"
    wait "$CHILD" || fail "record_child failed"
    CHILD=
    # Its recorder closed the run: the view says so (at 40 columns, the word).
    pane_until 10 shows_line "^finished" \
      || fail "no line saying the run finished once the recorder stopped"
    fits 40 10
    shows_line "^forwards 300 " || fail "the counts line went when the finished line came"
    shows_line "^rate " || fail "the rate line went when the finished line came"
    grep -q "^slowest nodes" "$T/pane" || fail "no slowest nodes at 40 x 10"
    tmux -L "$SOCKET" send-keys -t live q
    wait_for "exited=0"
    ;;
  live_tmux_resize)
    # A resize redraws at once at the new size (SIGWINCH), not at the next
    # frame: the interval here is a minute, the deadline 3 s.
    soma 0 live --run tuesday --store "$STORE" --once # the store is there
    tmux -L "$SOCKET" new-session -d -s live -x 40 -y 10 \
      "$SOMA live --run tuesday --store $STORE --interval 60000 2>$T/err; echo exited=\$?; sleep 30"
    wait_for "soma live: run tuesday"
    # The narrow layout: the nodes' title alone, a node's row whole within
    # 40 columns (a wide frame cut at 40 shows the title alone too). Ten
    # rows hold one node's row, the slowest by its measured mean, which may
    # be any of the run's three nodes. tmux may size the pane after the
    # first frame; SIGWINCH redraws.
    narrow() { shows_line "^slowest nodes (last 100 forwards)$" \
               && shows_line "^  \(tokenize\|embed\|score\) .*[0-9]$" && fitting 40 10 2>/dev/null; }
    pane_until 5 narrow || fail "no narrow layout at 40 x 10"
    fits 40 10
    tmux -L "$SOCKET" resize-window -t live -x 90 -y 24
    wide() { shows_line "^slowest nodes (last 100 forwards) .* mean  *ran  failed$" && shows_line "^  score "; }
    pane_until 3 wide || fail "no redraw at 90 x 24 within 3 s of the resize"
    fits 90 24
    tmux -L "$SOCKET" resize-window -t live -x 40 -y 10
    pane_until 3 narrow || fail "no redraw at 40 x 10 within 3 s of the resize"
    fits 40 10
    tmux -L "$SOCKET" send-keys -t live q
    wait_for "exited=0"
    grep -q "^exited=0" "$T/pane" || fail "the view did not end cleanly after resizes"
    ;;
  live_piped_recording)
    # Into a pipe while record_child records: frames follow each other, the
    # count reaches the total, and the finished line comes once it stops.
    store=$T/piped
    recording "$store" piped 200 5
    timeout 60 "$SOMA" live --run piped --store "$store" --interval 50 --quiet-after 1 \
      >"$T/frames" 2>"$T/err" &
    VIEWER=$!
    await "$T/frames" "^rate [0-9.]*[1-9][0-9.]*/s" 20 || fail "no rate above 0 while recording"
    await "$T/frames" "^forwards 200 " 20 || fail "the count never reached 200: $(tail -12 "$T/frames")"
    await "$T/frames" "^finished: its recorder closed it at " 20 \
      || fail "no finished line once the recorder stopped: $(tail -12 "$T/frames")"
    kill -TERM $VIEWER
    wait $VIEWER || fail "live did not end cleanly on SIGTERM (exit $?)"
    VIEWER=
    if grep -q $'\x1b' "$T/frames"; then fail "live wrote terminal escapes into a pipe"; fi
    ;;
  *) fail "unknown case" ;;
esac
exit 0
