#!/usr/bin/env bash
# plot_options_test.sh CASE SOMA MAKE_FIGURE_STORE: one case of the tests of
# `soma plot`'s figure options (--size, --title, --log-y, several runs and
# facts) and their errors; tests/draw/CMakeLists.txt makes each case a CTest
# test. Each case writes its own store (make_figure_store: runs once, three,
# signs) into a scratch directory it removes.

set -u
case_=$1 SOMA=$2 MAKER=$3
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/soma-plot-options.XXXXXX")
trap 'rm -rf "$T"' EXIT
STORE=$T/store

# fail, soma
. "$HERE/../cli/helpers.sh"

"$MAKER" "$STORE" || fail "make_figure_store failed"

# svg_texts FILE: every <text> of FILE, one a line, after parsing it as XML.
svg_texts() {
  python3 - "$1" <<'PY' || fail "$1 does not parse as an SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print("size", root.get("width"), root.get("height"))
for e in root.iter("{http://www.w3.org/2000/svg}text"):
    print(e.text or "")
for e in root.iter():
    if e.get("class"):
        print("class", e.get("class"))
PY
}

# holds FILE LINE...: the SVG at FILE has each LINE among its texts exactly.
holds() {
  local file=$1
  shift
  svg_texts "$file" >"$T/texts"
  for want in "$@"; do
    grep -qxF -- "$want" "$T/texts" || fail "$file has no '$want' (it has: $(tr '\n' '|' <"$T/texts"))"
  done
}

# error_says TEXT: soma's stderr holds TEXT and no figure was written.
error_says() {
  grep -qF -- "$1" "$T/err" || fail "stderr does not say '$1'"
  [ ! -e "$T/f.svg" ] || fail "a refused plot left a file"
}

case $case_ in
  size_title)
    soma 0 plot progress three -o "$T/f.svg" --size 1280x720 --title "my loss" --store "$STORE"
    grep -qF "drew my loss to $T/f.svg" "$T/out" || fail "no drew line"
    holds "$T/f.svg" "size 1280 720" "my loss" "0" "1" "2" "3e12"
    soma 0 plot machines three -o "$T/m.svg" --size 640x480 --title hosts --store "$STORE"
    holds "$T/m.svg" "size 640 480" "hosts" "working 800 ms, waiting 2.3 ms, 1 slice"
    soma 0 plot spent three -o "$T/s.svg" --size 800x300 --store "$STORE"
    holds "$T/s.svg" "size 800 300" "800 ms, ran 1, mean 800 ms"
    soma 0 plot progress once -o "$T/o.png" --size 320x240 --store "$STORE"
    python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); assert struct.unpack(">II", d[16:24]) == (320, 240)' "$T/o.png" \
      || fail "o.png is not 320x240"
    ;;
  size_errors)
    for bad in 100x100 5000x300 640x3001; do
      soma 2 plot progress three -o "$T/f.svg" --size "$bad" --store "$STORE"
      error_says "soma: --size $bad is out of bounds: a figure is from 320x240 to 4000x3000 pixels"
    done
    for bad in 640 x480 640x 640x480px -640x480; do
      soma 2 plot progress three -o "$T/f.svg" --size "$bad" --store "$STORE"
      error_says "is pixels across and down, such as 1280x720, not '$bad'"
    done
    soma 2 plot machines three -o "$T/f.svg" --size 1x1 --store "$STORE"
    error_says "out of bounds"
    ;;
  one_point)
    soma 0 plot progress once -o "$T/f.svg" --store "$STORE"
    holds "$T/f.svg" "class series-point" "0"
    ;;
  log_y)
    soma 0 plot progress signs --log-y -o "$T/f.svg" --store "$STORE"
    holds "$T/f.svg" "1e12" "1e-06" "1"
    grep -qF "2 values of 0 or less not drawn on the log axis" "$T/texts" || fail "the skipped values are not said"
    rm "$T/f.svg"
    soma 2 plot progress once --log-y --fact nothing -o "$T/f.svg" --store "$STORE"
    error_says "no forward of run 'once' told 'nothing'"
    ;;
  two_runs)
    soma 0 plot progress once three --fact loss -o "$T/f.svg" --store "$STORE"
    holds "$T/f.svg" "once (window 1)" "three (window 1)" "class series-mean-2" "class series-point-1"
    grep -qF "drew loss over 2 runs to" "$T/out" || fail "no drew line"
    ;;
  two_facts)
    soma 0 plot progress three --fact loss --fact acc --log-y -o "$T/f.svg" --store "$STORE"
    holds "$T/f.svg" "three/loss (window 1)" "three/acc (window 1)" "loss, acc over run three"
    # A fact one run never told is named on the figure, not an error.
    soma 0 plot progress three once --fact acc -o "$T/g.svg" --store "$STORE"
    holds "$T/g.svg" "three (window 1)"
    grep -qF "told nothing: once" "$T/texts" || fail "the silent run is not named"
    ;;
  unknown_run)
    soma 2 plot progress three nosuch --fact loss -o "$T/f.svg" --store "$STORE"
    error_says "soma: no run 'nosuch' in the store"
    soma 2 plot progress once three --fact nothing -o "$T/f.svg" --store "$STORE"
    error_says "nothing to draw: none of the runs compared told 'nothing'"
    soma 2 plot progress once three signs --fact a --fact b --fact c -o "$T/f.svg" --store "$STORE"
    error_says "overlays at most 8 series (runs times facts) on one figure, not 9"
    ;;
  *)
    echo "unknown case $case_" >&2
    exit 2
    ;;
esac
