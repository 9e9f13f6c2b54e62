#!/usr/bin/env bash
# check_figures.sh DRAWING_FIGURES DRAWING_A_GRAPH A_FLEET DIR: runs the three
# examples into DIR (a_fleet draws machines from runs on real workers), then parses every SVG as XML and checks each holds its series
# and labels, and each PNG is a PNG of the figure's size.
set -eu
figures=$1 graph=$2 fleet=$3 dir=$4
rm -rf "$dir"
mkdir -p "$dir"
"$figures" "$dir" >"$dir/out.txt"
grep -q "live and progress drew the same figure" "$dir/out.txt" || { cat "$dir/out.txt"; echo "FAIL: live and progress differ"; exit 1; }
"$graph" "$dir/graph2.svg" >/dev/null
"$fleet" "$dir" >"$dir/fleet.txt" 2>/dev/null || { cat "$dir/fleet.txt"; echo "FAIL: a_fleet"; exit 1; }
python3 - "$dir" <<'PY'
import struct, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
want = {
  "progress": (["series-raw", "series-mean"], ["forward", "loss", "rolling mean, window 3"]),
  "live": (["series-raw", "series-mean"], ["forward", "loss"]),
  "spent": (["series-spent"], ["tokenize", "embed", "score"]),
  # The cheap run's work is often under 1 µs a host, recorded as 0 and
  # drawn as nothing (a part is drawn only when it took time): its legend
  # still names both.
  "machines-cheap": (["series-waiting"], ["here", "w1", "working", "waiting"]),
  "machines-costly": (["series-working", "series-waiting"], ["here", "w2"]),
  "graph": (["series-here", "series-away"], ["tokenize", "at w1", "frozen v1, cached"]),
  "graph2": (["series-here", "series-away"], ["tokenize", "at w1"]),
}
for name, (classes, texts) in want.items():
    root = ET.parse(f"{d}/{name}.svg").getroot()  # raises on malformed XML
    assert root.tag == ns + "svg", name
    w, h = int(root.get("width")), int(root.get("height"))
    seen = {e.get("class") for e in root.iter() if e.get("class")}
    words = [e.text or "" for e in root.iter(ns + "text")]
    for c in classes:
        assert c in seen, f"{name}.svg has no {c}: {seen}"
    for t in texts:
        assert any(t in x for x in words), f"{name}.svg has no text {t!r}"
    assert root.find(ns + "title").text, f"{name}.svg has no title"
    if name != "graph2":
        png = open(f"{d}/{name}.png", "rb").read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n", f"{name}.png is not a PNG"
        pw, ph = struct.unpack(">II", png[16:24])
        assert (pw, ph) == (w, h), f"{name}.png is {pw}x{ph}, its SVG {w}x{h}"
print("ok:", ", ".join(want))
PY
