#!/usr/bin/env bash
# plot_test.sh CASE SOMA WORK DRAWING_A_GRAPH MAKE_STORE: one case of the tests of
# `soma plot` (tests/cli/CMakeLists.txt makes each case a CTest test; those of
# `soma live` are live_test.sh's). The store is the one cli_test.sh's setup
# records (WORK/store: runs "tuesday" and "plain").

set -u
case_=$1 SOMA=$2 WORK=$3 GRAPH=$4 MAKE_STORE=${5:-}
STORE=$WORK/store
FLEET=$WORK/fleet # make_store --fleet: study lr, one trial done
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/soma-plot-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

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
    # Overlaid, each run is named by its params in the legend.
    soma 0 plot progress tuesday plain --fact loss --fact acc -o "$T/both.svg" --store "$STORE"
    svg_holds "$T/both.svg" '>lr=0.05,seed=7/loss (window 1)</text>' '>lr=0.5/acc (window 1)</text>'
    # Against the wall time: x runs from 0 to the last forward's time less
    # the first's, in seconds (soma forwards --json says both).
    soma 0 plot progress tuesday --x time -o "$T/t.svg" --store "$STORE"
    svg_holds "$T/t.svg" '>seconds since the first value</text>' '12 values told'
    "$SOMA" forwards tuesday --json --store "$STORE" >"$T/fw.json"
    python3 - "$T/t.svg" "$T/fw.json" <<'PY' || fail "the time axis does not span the run's forwards"
import json, re, sys
lo, hi = map(float, re.search(r'data-x="([^"]+)"', open(sys.argv[1]).read()).group(1).split())
when = [r["when_us"] for r in json.load(open(sys.argv[2]))]
span = (when[-1] - when[0]) / 1e6
assert lo == 0 and (abs(hi - span) < 1e-9 or (span == 0 and hi > 0)), (lo, hi, span)
PY
    ;;
  plot_spent_machines)
    # tuesday's times are real, often under 1 µs a node (a part is drawn
    # only when it took time); the fleet's run "remote" has times written
    # (a: 5 µs here, b: 100 µs on w1, c: 50 µs on w2), so its bars are sure.
    soma 0 plot spent tuesday -o "$T/s.svg" --store "$STORE" --last 5
    svg_holds "$T/s.svg" '>tokenize</text>' '>embed</text>' '>score</text>' 'ran 5'
    soma 0 plot spent remote -o "$T/s2.svg" --store "$FLEET"
    svg_holds "$T/s2.svg" '>a</text>' '>b</text>' 'class="series-spent"'
    soma 0 plot machines tuesday -o "$T/m.png" --store "$STORE"
    png_is "$T/m.png" 960 200
    soma 0 plot machines tuesday -o "$T/m.svg" --store "$STORE"
    svg_holds "$T/m.svg" '>here</text>'
    soma 0 plot machines remote -o "$T/m2.svg" --store "$FLEET"
    svg_holds "$T/m2.svg" '>w1</text>' 'class="series-working"' 'class="series-waiting"'
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
    # A study of one parameter is drawn against it: lr over five decades, on
    # a log axis, the best trial (lr 0.01, loss 0.1) named by its params.
    "$MAKE_STORE" "$T/sweep" --sweep || fail "make_store --sweep failed"
    soma 0 plot study sweep -o "$T/sw.svg" --store "$T/sweep"
    svg_holds "$T/sw.svg" 'sweep: loss by lr, loss over each trial' '>lr (log axis)</text>' \
      '>best: #2 lr=0.01</text>' '5 of 6 trials drawn (not drawn: 1 broke)' '>1e-04</text>' '>10</text>'
    # The best is the lowest result, at the x of its lr: left of lr 0.1's.
    python3 - "$T/sw.svg" <<'PY' || fail "the results are not placed by lr"
import re, sys
svg = open(sys.argv[1]).read()
boxes = [(float(x), float(y)) for x, y in re.findall(r'<rect[^>]*class="series-result"[^>]*x="([0-9.]+)" y="([0-9.]+)"', svg)]
if not boxes:
    boxes = [(float(x), float(y)) for y, x in re.findall(r'<rect[^>]*y="([0-9.]+)"[^>]*x="([0-9.]+)"[^>]*class="series-result"', svg)]
xs = sorted(b[0] for b in boxes)
assert len(xs) == 5, boxes
gaps = [b - a for a, b in zip(xs, xs[1:])]
# 0.0001, 0.001, 0.01, 0.1, 10: even steps a decade apart, two for the last.
assert max(gaps[:3]) - min(gaps[:3]) < 1 and abs(gaps[3] - 2 * gaps[0]) < 1, gaps
PY
    # Two parameters: by number unless one is named; an unknown one is named.
    soma 0 plot study pair -o "$T/pair.svg" --store "$T/sweep"
    svg_holds "$T/pair.svg" 'pair: loss per trial' '>trial</text>' '>best: #0 lr=0.1,seed=1</text>'
    soma 0 plot study sweep --by trial -o "$T/sw2.svg" --store "$T/sweep"
    svg_holds "$T/sw2.svg" 'sweep: loss per trial' '>trial</text>'
    soma 0 plot study pair --by seed -o "$T/pair.svg" --store "$T/sweep"
    svg_holds "$T/pair.svg" 'pair: loss by seed' '>seed</text>'
    soma 2 plot study pair --by lrr -o "$T/pair2.svg" --store "$T/sweep"
    grep -qF "soma: no trial of study 'pair' has a parameter 'lrr'; its parameters are 'lr', 'seed'" "$T/err" \
      || fail "no unknown-parameter error: $(cat "$T/err")"
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
    soma 2 plot progress tuesday --x wall -o "$T/p.svg" --store "$STORE"
    grep -qF "soma: --x wall: x is forward (the forward's number) or time (its wall time)" "$T/err" || fail "no --x error: $(cat "$T/err")"
    soma 2 plot progress tuesday plain --x time -o "$T/p.svg" --store "$STORE"
    grep -qF "soma: --x time draws one run's one fact" "$T/err" || fail "no --x time overlay error: $(cat "$T/err")"
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
    # A program that is not there: one line, naming it and why.
    soma 2 plot graph -o "$T/n.svg" /no/such/prog
    [ "$(cat "$T/err")" = "soma: cannot run '/no/such/prog': No such file or directory; give the path of a program that draws its graph (docs/figures.md)" ] \
      || fail "not one line naming the program: $(cat "$T/err")"
    [ -z "$(ls "$T" | grep -v '^out$\|^err$\|^g\.svg$\|^g\.png$')" ] || fail "left files behind: $(ls "$T")"
    ;;
  *) fail "unknown case" ;;
esac
exit 0
