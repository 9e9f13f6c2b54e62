"""A run page's curve and two runs node by node, in a real headless Chromium
(issue 26, item 3): the log y toggle turns the axis' ticks into powers of
ten; the window control redraws the rolling mean over the window asked and
names an even one as wrong beside it; a mistyped name in "compare with" is
named beside the input while the chart still draws the other runs; the
legend's box never overlaps the plot area's, whole, zoomed and compared;
the CSV download holds exactly `soma curve RUN NAME --csv`'s rows (and the
JSON, SVG and PNG downloads are what they say); the node-by-node view,
reached from the run's page, shows `soma nodes`' numbers of each run and
their difference.

    curve_test.py SOMA RECORD_CHILD OUT_DIR

Every wait has a deadline; screenshots are left in OUT_DIR."""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from harness import HOVER_MIDDLE, check, report, started, stop  # noqa: E402

SOMA, RECORD_CHILD, OUT = sys.argv[1:4]
os.makedirs(OUT, exist_ok=True)


def soma(*args):
    return subprocess.run([SOMA, *args], check=True, capture_output=True, text=True,
                          timeout=60).stdout


def fetched(url):
    with urllib.request.urlopen(url, timeout=30) as res:
        return res.read()


# The chart's y tick labels: the texts ending just left of its area.
Y_TICKS = """
const svg = document.querySelector('#curve svg');
const left = Number(svg.dataset.area.split(' ')[0]);
return [...svg.querySelectorAll('text[text-anchor="end"]')]
  .filter(t => Math.abs(Number(t.getAttribute('x')) - (left - 8)) < 0.01).map(t => t.textContent);"""

# Every mark of the legend whose box overlaps the plot area's, in the SVG's
# own units (data-area), with how many legend marks there are.
LEGEND_OVER_AREA = """
const svg = document.querySelector('#curve svg');
const [l, t, r, b] = svg.dataset.area.split(' ').map(Number);
const marks = [...svg.querySelectorAll('.series-legend')];
const over = marks.map(m => { const x = m.getBBox(); return [m.textContent || m.tagName, x.x, x.y, x.width, x.height]; })
  .filter(([, x, y, w, h]) => x < r && x + w > l && y < b && y + h > t);
return {marks: marks.length, over, area: [l, t, r, b]};"""


def number_of(label):
    """A tick label's value: "1k" is 1000, "1e6" a million."""
    return float(label[:-1]) * 1000 if label.endswith("k") else float(label)


def legend_clear(b, where):
    got = b.run(LEGEND_OVER_AREA)
    check(got["marks"] >= 2, f"{where}: the figure has a legend ({got['marks']} marks)")
    check(not got["over"], f"{where}: no legend mark overlaps the plot area {got['area']}: {got['over']}")


def main():
    work = tempfile.mkdtemp(prefix="soma-curve-")
    store = os.path.join(work, "store")
    # loss told is the forward's number: 0 (which a log axis cannot show) to 119.
    for run, count in (("run-a", 120), ("run-b", 60), ("run-c", 30)):
        subprocess.run([RECORD_CHILD, store, run, str(count), "10"], check=True,
                       capture_output=True, timeout=60)
    server, url = started([SOMA, "serve", "--store", store, "--listen", "127.0.0.1:0"], "http://")
    try:
        with webdriver.Browser() as b:
            b.open(url + "run/run-a")
            b.until("return document.querySelector('#curve svg') && "
                    "document.querySelector('#downloads a[data-download=csv]')", 20, "run-a's curve")
            legend_clear(b, "run-a's whole curve")
            linear = b.run(Y_TICKS)
            check("0" in linear and "100" in linear, f"a linear axis first, from 0: {linear}")

            # Log y: the axis' ticks become powers of ten, and the figure and
            # the page say that forward 0's loss (0) is left off it.
            b.run("document.getElementById('log-y').click()")
            b.until("return document.querySelector('#curve svg').dataset.y === '1 1000'", 20,
                    "the curve redrawn on a log axis (1 to 1000)")
            ticks = b.run(Y_TICKS)
            powers = [number_of(t) for t in ticks]
            check(len(ticks) >= 3 and all(math.log10(v) == round(math.log10(v)) for v in powers),
                  f"the log axis' ticks are powers of ten: {ticks}")
            check(ticks != linear, f"the ticks changed ({linear} to {ticks})")
            check("1 value of 0 or less not drawn on the log axis"
                  in b.run("return document.querySelector('#curve svg').textContent"),
                  "the figure says the value of 0 is left off the log axis")
            check(b.run("return !document.getElementById('log-note').hidden"),
                  "the page says what a log axis leaves out")
            check("log_y=1" in b.run("return location.search"), "the log axis is in the address")
            legend_clear(b, "the log axis")
            b.screenshot(os.path.join(OUT, "log.png"))

            # The window: the bold line over 31 values, as soma plot --window 31.
            b.run("const w = document.getElementById('window'); w.value = '31'; "
                  "w.dispatchEvent(new Event('change'));")
            b.until("return document.querySelector('#curve svg').textContent"
                    ".includes('centred rolling mean over 31 values')", 20, "the mean over 31 values")
            check(b.run("return [...document.querySelectorAll('#curve svg .series-legend')]"
                        ".some(t => t.textContent === 'rolling mean, window 31')"),
                  "the legend names the window 31")
            # An even window is named as wrong beside the input; the chart stays.
            b.run("const w = document.getElementById('window'); w.value = '4'; "
                  "w.dispatchEvent(new Event('change'));")
            note = b.until("const n = document.getElementById('window-note'); "
                           "return !n.hidden && n.textContent", 10, "the even window named")
            check("odd" in note and "4 is not" in note, f"the even window's note says why: {note!r}")
            check("over 31 values" in b.run("return document.querySelector('#curve svg').textContent"),
                  "an even window leaves the chart as it was")

            # The CSV download: exactly soma curve --csv's rows.
            csv_href = b.run("return document.querySelector('#downloads [data-run=\"run-a\"] a[data-download=csv]').href")
            got = fetched(csv_href).decode()
            want = soma("curve", "run-a", "loss.value", "--csv", "--store", store)
            check(got == want, f"the page's CSV is soma curve --csv's ({len(got.splitlines())} "
                               f"against {len(want.splitlines())} lines; first {got.splitlines()[:3]})")
            json_href = b.run("return document.querySelector('#downloads [data-run=\"run-a\"] a[data-download=json]').href")
            points = json.loads(fetched(json_href))["points"]
            check(points == json.loads(soma("curve", "run-a", "loss.value", "--json", "--store", store)),
                  "the page's JSON holds soma curve --json's points")
            svg = fetched(b.run("return document.querySelector('#downloads a[data-download=svg]').href")).decode()
            check("<title>loss.value over run run-a</title>" in svg and "over 31 values" in svg
                  and 'data-y="1 1000"' in svg, "the SVG download is the figure shown (log axis, window 31)")
            png = fetched(b.run("return document.querySelector('#downloads a[data-download=png]').href"))
            check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000, f"the PNG download is a PNG ({len(png)} bytes)")
            names = b.run("return [...document.querySelectorAll('#downloads a')].map(a => a.getAttribute('download'))")
            check(names == ["run-a-loss.value.csv", "run-a-loss.value.json", "run-a-loss.value.svg",
                            "run-a-loss.value.png"], f"the downloads' file names: {names}")

            # Zoomed (forwards 10 to 40): the legend still outside the area,
            # and the CSV holds soma curve --csv's rows of those forwards.
            b.open(url + "run/run-a?fact=loss.value&from=10&to=40")
            b.until("return document.querySelector('#curve svg') && "
                    "document.querySelector('#curve svg').dataset.x === '10 40'", 20, "the zoomed curve")
            legend_clear(b, "the zoomed curve")
            got = fetched(b.run("return document.querySelector('#downloads a[data-download=csv]').href")).decode()
            lines = want.splitlines()
            zoomed = "\n".join([lines[0]] + [l for l in lines[1:] if 10 <= int(l.split(",")[0]) <= 40]) + "\n"
            check(got == zoomed, f"the zoomed CSV is soma curve --csv's rows 10 to 40 (got {got.splitlines()[:2]}...)")

            # Against the wall time (soma plot --x time): x in seconds since
            # the first value, kept in the address; each hover point's x is
            # its forward's time less the first's, and hover names both.
            b.open(url + "run/run-a")
            b.until("return document.querySelector('#curve svg')", 20, "run-a's curve, for the time axis")
            b.run("document.getElementById('x-time').click()")
            b.until("return document.querySelector('#curve svg').textContent"
                    ".includes('seconds since the first value')", 20, "the curve against the wall time")
            check("x=time" in b.run("return location.search"), "the time axis is in the address")
            points = b.run("return document.querySelector('#curve svg').dataset.points.split(';')"
                           ".filter(Boolean).map(p => p.split(' ').map(Number))")
            forwards = json.loads(soma("forwards", "run-a", "--json", "--store", store))
            t0 = forwards[0]["when_us"]
            check(len(points) == 120 and all(len(p) == 3 for p in points)
                  and all(abs(x - (forwards[int(n)]["when_us"] - t0) / 1e6) < 1e-9 for n, _, x in points),
                  f"each point's x is its forward's seconds since the first (first points {points[:3]})")
            tip = b.run(HOVER_MIDDLE)
            check(re.fullmatch(r"forward \d+( \([0-9.e+-]+ s\))?: loss\.value = \d+", tip or "") is not None,
                  f"hover on the time axis names the forward and its time (got {tip!r})")
            legend_clear(b, "the time axis")
            b.screenshot(os.path.join(OUT, "time.png"))

            # "compare with" a mistyped name: it is named beside the input,
            # and the chart draws the other runs.
            b.open(url + "run/run-a")
            b.until("return document.querySelector('#curve svg')", 20, "run-a's curve again")
            b.run("const w = document.getElementById('with'); w.value = 'run-b,run-bb,run-c'; "
                  "w.dispatchEvent(new Event('change'));")
            b.until("return document.querySelector('#curve svg title').textContent === 'loss.value over 3 runs'",
                    20, "run-a, run-b and run-c on one chart")
            note = b.until("const n = document.getElementById('with-note'); "
                           "return !n.hidden && n.textContent.includes('did you mean') && n.textContent", 20,
                           "the mistyped name named beside the input")
            check("no run 'run-bb' in this store (did you mean 'run-b'?)" in note
                  and "the other runs are drawn" in note, f"the note names run-bb: {note!r}")
            legend = b.run("return [...document.querySelectorAll('#curve svg text.series-legend')].map(t => t.textContent)")
            check([t.split(" ")[0] for t in legend] == ["run-a", "run-b", "run-c"],
                  f"the chart's legend names the three runs drawn: {legend}")
            legend_clear(b, "three runs compared")
            runs_offered = b.run("return [...document.querySelectorAll('#downloads span[data-run]')].map(s => s.dataset.run)")
            check(runs_offered == ["run-a", "run-b", "run-c"], f"a CSV and JSON per run drawn: {runs_offered}")
            b.screenshot(os.path.join(OUT, "compare-typo.png"))
            # Fixed, the note goes.
            b.run("const w = document.getElementById('with'); w.value = 'run-b'; "
                  "w.dispatchEvent(new Event('change'));")
            b.until("return document.querySelector('#curve svg title').textContent === 'loss.value over 2 runs' "
                    "&& document.getElementById('with-note').hidden", 20, "the note gone with the typo")

            # Node by node, from the run's page: soma nodes' numbers of each
            # run and their difference.
            b.run("[...document.querySelectorAll('#nodes-with-links a')].find(a => a.textContent === 'against run-b').click()")
            b.until("return location.pathname === '/run/run-a/compare/run-b' && "
                    "document.querySelectorAll('tr[data-node]').length", 20, "the node-by-node view")
            shown = b.run("return [...document.querySelectorAll('tr[data-node]')].map(r => [r.dataset.node, "
                          "[...r.querySelectorAll('td span[data-value]')].map(s => s.dataset.value), "
                          "[...r.querySelectorAll('td span[data-value]')].map(s => s.textContent)])")
            nodes_a = {r["node"]: r for r in json.loads(soma("nodes", "run-a", "--json", "--store", store))}
            nodes_b = {r["node"]: r for r in json.loads(soma("nodes", "run-b", "--json", "--store", store))}
            check([n for n, _, _ in shown] == list(nodes_a), f"a row per node of run-a: {[n for n, _, _ in shown]}")
            for node, values, texts in shown:
                a, bb = nodes_a[node], nodes_b[node]
                for i, key in enumerate(["mean_us", "took_us", "ran", "recalled", "failed"]):
                    got = [float(v) for v in values[3 * i:3 * i + 3]]
                    want = [a[key], bb[key], bb[key] - a[key]]
                    check(all(abs(g - w) <= 1e-6 * max(1, abs(w)) for g, w in zip(got, want)),
                          f"{node}'s {key}: the page shows {got}, soma nodes {want}")
                check(texts[6:9] == ["120", "60", "-60"], f"{node} ran 120 in run-a, 60 in run-b: {texts[6:9]}")
            check("carries parameters" in b.run("return document.getElementById('params').textContent"),
                  "the parameters' place says neither run has any")
            b.screenshot(os.path.join(OUT, "nodes-compared.png"))
            b.open(url + "run/run-a/compare/nope")
            said = b.until("const e = document.querySelector('p.error'); return e && e.textContent", 20,
                           "the unknown run's error")
            check("no run 'nope'" in said, f"an unknown run is named: {said!r}")
    finally:
        stop(server)
        shutil.rmtree(work, ignore_errors=True)
    report("curve")


main()
