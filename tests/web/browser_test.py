"""soma serve's page in a real headless Chromium (Debian's chromium and
chromedriver): each page against a store recorded here holds the store's
runs and numbers; screenshots are not blank; while a recorder writes, an open
run page's forward count rises; the server killed and started again, the page
resumes and misses no forward; a forward a_fleet sent to real workers shows
its trips with the workers' nodes inside them; two soma-node workers report into the store
and the fleet page shows them, a stopped one's quiet_s growing live and
falling again once it is woken, and quiet_machine's opinion of it firing on
the health page meanwhile; a study added while the trials page is open
appears on it with the store's counts.

    browser_test.py SOMA RECORD_CHILD SOMA_NODE A_FLEET ADDING_TRIALS OUT_DIR

Every wait has a deadline; screenshots are left in OUT_DIR."""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from harness import HOVER_MIDDLE, check, eventually, line_of, report, started, stop  # noqa: E402

SOMA, RECORD_CHILD, SOMA_NODE, A_FLEET, ADDING_TRIALS, OUT = sys.argv[1:7]
os.makedirs(OUT, exist_ok=True)


def soma(*args):
    return json.loads(subprocess.run([SOMA, *args, "--json"], check=True, capture_output=True,
                                     text=True, timeout=60).stdout)


def serve(store, listen="127.0.0.1:0"):
    return started([SOMA, "serve", "--store", store, "--listen", listen], "http://")


def not_blank(png, name):
    """A screenshot with content: its decoded scanlines hold more than a page
    of one colour would (bytes other than 0x00 and 0xff, filters included)."""
    check(png[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is a PNG")
    at, idat, size = 8, b"", None
    while at < len(png):
        n, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IHDR":
            size = struct.unpack(">II", png[at + 8:at + 16])
        if kind == b"IDAT":
            idat += png[at + 8:at + 8 + n]
        at += 12 + n
    raw = zlib.decompress(idat)
    other = sum(1 for b in raw[::7] if b not in (0, 255)) * 7
    check(size and size[0] >= 800 and size[1] >= 600, f"{name} is a page's size ({size})")
    check(other > len(raw) * 0.001, f"{name} is not blank ({other} of {len(raw)} bytes drawn)")


def main():
    work = tempfile.mkdtemp(prefix="soma-browser-")
    store = os.path.join(work, "store")
    for run, count in (("run-a", 120), ("run-b", 60)):
        subprocess.run([RECORD_CHILD, store, run, str(count), "10"], check=True,
                       capture_output=True, timeout=60)
    server, url = serve(store)
    port = int(re.search(r":(\d+)/$", url).group(1))
    recorder = None
    workers = []
    servers = []
    try:
        with webdriver.Browser() as b:
            # Runs: the rows and their numbers are the store's.
            b.open(url)
            b.until("return document.querySelectorAll('tr[data-run]').length === 2", 20, "two runs")
            shown = b.run("return [...document.querySelectorAll('tr[data-run]')].map("
                          "r => [r.dataset.run, r.querySelector('td.forwards').textContent])")
            stored = {r["run"]: str(r["forwards"]) for r in soma("runs", "--store", store)}
            check(dict(shown) == stored, f"the runs page shows {shown}, the store holds {stored}")
            not_blank(b.screenshot(os.path.join(OUT, "runs.png")), "runs.png")

            # A run: its count, its last forwards, its curve, spent and machines.
            b.open(url + "run/run-a")
            b.until("return document.querySelector('#curve svg') && "
                    "document.querySelectorAll('#forwards tbody tr').length && "
                    "document.querySelector('#spent svg') && document.querySelector('#nodes table')",
                    20, "the run page's curve, forwards, spent and nodes")
            check(b.run("return document.getElementById('forwards-count').textContent") == "120",
                  "run-a's page counts 120 forwards")
            rows = b.run("return [...document.querySelectorAll('#forwards tbody tr')].map(r => Number(r.dataset.forward))")
            check(rows == list(range(20, 120)), f"run-a's page lists its last 100 forwards (got {rows[:3]}...{rows[-3:]})")
            check(b.run("return document.querySelector('#curve svg title').textContent") == "loss.value over run run-a",
                  "the curve is soma plot's figure of loss.value")
            ran = {n["node"]: n["ran"] for n in soma("nodes", "run-a", "--store", store)}
            shown_nodes = b.run("return Object.fromEntries([...document.querySelectorAll('#nodes tbody tr')]"
                                ".map(r => [r.cells[0].textContent, Number(r.cells[1].textContent)]))")
            check(shown_nodes == ran, f"the nodes table {shown_nodes} is soma nodes' {ran}")
            # Hover over the chart's middle names the forward and value there.
            tip = b.run(HOVER_MIDDLE)
            check(re.fullmatch(r"forward (59|60): loss\.value = (59|60)", tip or "") is not None,
                  f"hover in the middle shows forward 59 or 60 and its value (got {tip!r})")
            not_blank(b.screenshot(os.path.join(OUT, "run.png")), "run.png")
            # Dragging across the left half zooms to about forwards 0 to 60.
            b.run("""
                const svg = document.querySelector('#curve svg');
                const [l, t, r, bt] = svg.dataset.area.split(' ').map(Number);
                const box = svg.getBoundingClientRect(), k = box.width / svg.viewBox.baseVal.width;
                const at = (f) => box.left + (l + (r - l) * f) * k, y = box.top + (t + bt) / 2 * k;
                const fig = document.getElementById('curve');
                fig.dispatchEvent(new MouseEvent('mousedown', {clientX: at(0.0), clientY: y, bubbles: true}));
                fig.dispatchEvent(new MouseEvent('mousemove', {clientX: at(0.5), clientY: y, bubbles: true}));
                window.dispatchEvent(new MouseEvent('mouseup', {clientX: at(0.5), clientY: y, bubbles: true}));""")
            zoomed = b.until("const x = document.querySelector('#curve svg').dataset.x; "
                             "return x !== '0 119' && x", 20, "the zoomed curve")
            lo, hi = map(float, zoomed.split())
            check(lo == 0 and 55 <= hi <= 65, f"the zoom redrew forwards 0 to about 60 (got {zoomed})")
            check("from=0" in b.run("return location.search"), "the zoom is in the address")
            # Compared with run-b: one chart of two runs.
            b.run("const w = document.getElementById('with'); w.value = 'run-b'; "
                  "document.getElementById('unzoom').click(); w.dispatchEvent(new Event('change'));")
            b.until("return document.querySelector('#curve svg title').textContent === 'loss.value over 2 runs'",
                    20, "the two runs compared")
            not_blank(b.screenshot(os.path.join(OUT, "compare.png")), "compare.png")

            # A forward: its facts in order and a timeline of its nodes.
            b.open(url + "run/run-a/forward/3")
            b.until("return document.querySelectorAll('tr[data-fact]').length && "
                    "document.querySelector('#timeline svg')", 20, "the forward's facts and timeline")
            facts = soma("facts", "run-a", "3", "--store", store)
            shown_facts = b.run("return [...document.querySelectorAll('tr[data-fact]')].map(r => r.dataset.fact)")
            check(shown_facts == [f["fact"] for f in facts], f"forward 3's facts {shown_facts} are the store's")
            spans = b.run("return document.querySelectorAll('#timeline rect').length")
            check(spans == sum(1 for f in facts if f["fact"] == "ran"), f"a span per node that ran ({spans})")
            not_blank(b.screenshot(os.path.join(OUT, "forward.png")), "forward.png")

            # A forward that went to a worker: a_fleet records runs through
            # real soma-node workers. Each trip is a span on the client's
            # lane, and the worker's nodes sit inside it on the worker's lane.
            fleet = os.path.join(work, "fleet")
            subprocess.run([A_FLEET, fleet], check=True, capture_output=True, timeout=120)
            # A stopped fleet looks stopped: a_fleet has exited, so within
            # 5 s every machine it started is quiet (3 of their 0.5 s
            # intervals and 1 s behind this clock, since none writes any more).
            def all_quiet():
                machines = soma("standing", "--store", os.path.join(fleet, "store"))
                return len(machines) == 3 and all(m["state"] == "quiet" for m in machines)
            check(eventually(all_quiet, 5), "a_fleet's three machines all quiet within 5 s of its exit: "
                  f"{soma('standing', '--store', os.path.join(fleet, 'store'))}")
            remote_server, remote_url = serve(os.path.join(fleet, "store"))
            servers.append(remote_server)
            # And so does its page: each machine with a quiet badge, and the
            # live mark stale (3 intervals without a write), not green.
            b.open(remote_url + "fleet")
            b.until("const rows = [...document.querySelectorAll('tr[data-machine]')];"
                    " return rows.length === 3 && rows.every(r => r.dataset.state === 'quiet'"
                    " && r.querySelector('span.machine.quiet'))", 20, "a_fleet's machines quiet on its fleet page")
            b.until("const m = document.getElementById('live');"
                    " return m.classList.contains('stale') && !m.classList.contains('on')"
                    " && m.textContent.includes('stale')", 20, "the stopped fleet's page marked stale")
            b.open(remote_url + "run/costly/forward/0")
            b.until("return document.querySelector('#timeline svg')", 20, "a remote forward's timeline")
            told = soma("facts", "costly", "0", "--store", os.path.join(fleet, "store"))
            trips = {f["host"] for f in told if f["fact"] == "left"}
            spans = b.run("return [...document.querySelectorAll('#timeline rect')].map(r => ["
                          "r.querySelector('title').textContent, Number(r.getAttribute('x')),"
                          " Number(r.getAttribute('width'))])")
            lanes = b.run("return [...document.querySelectorAll('#timeline text')].map(t => t.textContent)")
            check(trips and all(h in lanes for h in trips), f"a lane per worker {trips}: {lanes}")
            for host in trips:
                # As told: the worker's nodes began and ended within the round
                # trip the client saw (on the worker's clock, from its start).
                left = next(f for f in told if f["fact"] == "left" and f["host"] == host)
                for f in told:
                    if f["fact"] == "ran" and f.get("host") == host:
                        check(int(f["began_us"]) + int(f["took_us"]) <= int(left["took_us"]),
                              f"{f['node']} on {host} ends within its trip as told: {f} in {left}")
                trip = [s for s in spans if s[0].startswith(f"trip to {host} (left)")]
                away = [f["node"] for f in told if f["fact"] == "ran" and f.get("host") == host]
                check(len(trip) == 1, f"one trip to {host} on the timeline: {spans}")
                for node in away:
                    inside = [s for s in spans if s[0].startswith(f"{node} (ran)")]
                    check(len(inside) == 1 and trip and trip[0][1] - 1 <= inside[0][1]
                          and inside[0][1] + inside[0][2] <= trip[0][1] + trip[0][2] + 1,
                          f"{node}, run on {host}, sits inside its trip: {inside} in {trip}")
            not_blank(b.screenshot(os.path.join(OUT, "forward-remote.png")), "forward-remote.png")

            # Where the remote run's time went: the run page shows soma
            # critical's numbers, the same as the command's.
            b.open(remote_url + "run/costly")
            b.until("return document.querySelector('#critical tr[data-segment]')", 20, "the critical section")
            said = soma("critical", "costly", "--store", os.path.join(fleet, "store"))
            shown = b.run("return [...document.querySelectorAll('#critical tr[data-segment]')]"
                          ".map(r => [r.dataset.host, r.dataset.segment])")
            check(shown == [[x["host"], x["segment"]] for x in said["shares"]],
                  f"the page's shares {shown} are soma critical's {said['shares']}")
            what_if = b.run("return document.getElementById('what-if').textContent")
            check(said["slowest"]["node"] in what_if and "w2" in what_if, f"the what-if names b at w2: {what_if}")
            not_blank(b.screenshot(os.path.join(OUT, "critical.png")), "critical.png")

            # The fleet: two real workers report into the store; one stopped
            # (SIGSTOP) falls quiet on the open page while the other writes.
            for _ in range(2):
                workers.append(subprocess.Popen([SOMA_NODE, "--store", store, "--reporting", "0.2"],
                                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
                line_of(workers[-1], "", 20)  # its port: it listens (its readings follow)
            b.open(url + "fleet")
            b.until("return document.querySelectorAll('tr[data-machine]').length === 2", 20, "two machines")
            shown = sorted(b.run("return [...document.querySelectorAll('tr[data-machine]')].map(r => r.dataset.machine)"))
            stored = sorted(m["id"] for m in soma("standing", "--store", store))
            check(shown == stored, f"the fleet page shows {shown}, the store's standing {stored}")
            quiet_of = ("return Object.fromEntries([...document.querySelectorAll('tr[data-machine]')].map("
                        "r => [r.dataset.machine, Number(r.querySelector('td.quiet').textContent)]))")
            stopped = f"{socket.gethostname()}-{workers[0].pid}"
            for attempt in range(5):
                workers[0].send_signal(signal.SIGSTOP)
                try:
                    b.until(f"const q = ({quiet_of.replace('return ', '', 1)}); return q['{stopped}'] > 1.5",
                            8, "the stopped worker's quiet_s to pass 1.5 s on the open page")
                    break
                except webdriver.WebDriverError:
                    # Stopped inside its LMDB write transaction, it holds the
                    # store's writer lock (one writer at a time): the other
                    # cannot write either, and nothing grows quiet. Woken, it
                    # is stopped again.
                    workers[0].send_signal(signal.SIGCONT)
            else:
                check(False, "the stopped worker's quiet_s never passed 1.5 s on the open page in 5 tries")
            # Past 3 of its 0.2 s intervals behind the other, it is quiet: a
            # badge on its row; the other still reports.
            b.until("const s = Object.fromEntries([...document.querySelectorAll('tr[data-machine]')]"
                    ".map(r => [r.dataset.machine, r.dataset.state]));"
                    f" return s['{stopped}'] === 'quiet' && Object.values(s).filter(x => x === 'reporting').length === 1",
                    10, "the stopped worker quiet, the other reporting, on the fleet page")
            not_blank(b.screenshot(os.path.join(OUT, "fleet.png")), "fleet.png")
            # Still stopped, it is the subject of an opinion: quiet_machine,
            # pending and then firing once it held its 5 s, on the open
            # health page, under the note that says these are opinions.
            b.open(url + "health")
            b.until("return [...document.querySelectorAll('tr[data-rule=\"quiet_machine\"]')].some("
                    f"r => r.textContent.includes('{stopped}') && r.cells[0].textContent === 'firing')",
                    30, "quiet_machine firing about the stopped worker on the open health page")
            check("opinions, not facts" in b.run("return document.getElementById('note').textContent"),
                  "the health page says its opinions are opinions")
            # Replayed over the last hour, the stop is an episode on the
            # timeline: a pending bar, then a firing one, in its subject's row.
            b.until("const bars = [...document.querySelectorAll('#replay svg.episodes rect')]"
                    f".filter(r => r.dataset.rule === 'quiet_machine' && r.dataset.subject === 'machine {stopped}');"
                    " return bars.some(r => r.classList.contains('pending'))"
                    " && bars.some(r => r.classList.contains('firing'))",
                    30, "the replay's pending and firing bars of the stopped worker on the health page")
            check("opinions, not facts" in b.run("return document.getElementById('replay-note').textContent"),
                  "the replay says its episodes are opinions")
            not_blank(b.screenshot(os.path.join(OUT, "health.png")), "health.png")
            b.open(url + "fleet")
            b.until("return document.querySelectorAll('tr[data-machine]').length === 2", 20, "the fleet again")
            workers[0].send_signal(signal.SIGCONT)  # it writes again: quiet again on the page
            b.until(f"const q = ({quiet_of.replace('return ', '', 1)}); return q['{stopped}'] < 1", 20,
                    "the woken worker's quiet_s to fall under 1 s on the open page")

            # Trials: a study added (by the adding_trials example) while the
            # page is open appears on it, with the store's counts; its page
            # has a row per trial.
            b.open(url + "trials")
            b.until("return document.querySelector('#studies p')", 20, "the trials page, no study yet")
            subprocess.run([ADDING_TRIALS, store], check=True, capture_output=True, timeout=60)
            # adding_trials writes in three transactions: the page shows the
            # study as the store has it once it caught up with the last.
            studies = soma("trials", "--store", store)
            check(len(studies) == 1, f"one study in the store: {studies}")
            want = [studies[0]["study"], studies[0]["trials"], studies[0]["waiting"]]
            b.until("const r = document.querySelectorAll('tr[data-study]');"
                    " return r.length === 1 && JSON.stringify([r[0].dataset.study,"
                    " Number(r[0].cells[1].textContent), Number(r[0].cells[2].textContent)]) === arguments[0]",
                    20, f"the study added while the page was open, as the store has it ({want})",
                    json.dumps(want, separators=(",", ":")))
            not_blank(b.screenshot(os.path.join(OUT, "trials.png")), "trials.png")
            b.open(url + f"trials/{studies[0]['study']}")
            b.until("return document.querySelectorAll('tr[data-trial]').length", 20, "the study's trials")
            rows = b.run("return document.querySelectorAll('tr[data-trial]').length")
            check(rows == len(soma("trials", studies[0]["study"], "--store", store)),
                  f"a row per trial ({rows})")


            # Live: a recorder writes while the page is open.
            recorder = subprocess.Popen([RECORD_CHILD, store, "run-live", "0", "5", "15"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            line_of(recorder, "durable 5", 20)
            b.open(url + "run/run-live")
            b.until("return document.querySelector('#live.on')", 20, "the live stream")
            first = b.run("return window.soma.loaded")
            b.until(f"return Number(document.getElementById('forwards-count').textContent) > {first + 10}",
                    20, "the forward count to rise while the recorder writes")
            # The header and the table's pager never disagree on the count:
            # the header is at least the total the table read.
            agree = ("const t = document.getElementById('fpager').textContent.match(/of (\\d+)/);"
                     " return !t || Number(document.getElementById('forwards-count').textContent) >= Number(t[1])")
            check(b.run(agree), "the header counts the forwards the table says the run has")

            # The server killed: the page says so, and when a server is back
            # on the port it resumes from the last forward it had.
            server.kill()
            server.wait(10)
            b.until("return document.querySelector('#live.off')", 20, "the page to see its server gone")
            server, url2 = serve(store, f"127.0.0.1:{port}")
            check(url2 == url, f"the server came back at {url} ({url2})")
            b.until("return document.querySelector('#live.on')", 30, "the page to reconnect")
            seen_before_stop = b.run("return window.soma.seen.length")
            b.until(f"return window.soma.seen.length > {seen_before_stop + 10}", 20,
                    "forwards after the reconnect")
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(20)
            recorder = None
            total = {r["run"]: r["forwards"] for r in soma("runs", "--store", store)}["run-live"]
            b.until(f"return Number(document.getElementById('forwards-count').textContent) === {total}", 20,
                    f"the page to count all {total} forwards")
            seen = b.run("return window.soma.seen")
            check(seen == list(range(first, total)),
                  f"the page received each forward from {first} to {total - 1} once, in order "
                  f"(got {len(seen)}; missing {sorted(set(range(first, total)) - set(seen))[:10]}, "
                  f"twice {sorted(x for x in set(seen) if seen.count(x) > 1)[:10]})")
            not_blank(b.screenshot(os.path.join(OUT, "live.png")), "live.png")
    finally:
        for w in workers:
            w.send_signal(signal.SIGCONT)
            w.terminate()
            try:
                w.wait(10)
            except subprocess.TimeoutExpired:
                w.kill()
                check(False, "a soma-node did not stop within 10 s of SIGTERM")
        if recorder:
            recorder.kill()
            recorder.wait(10)
        for s in [server, *servers]:
            stop(s)
        shutil.rmtree(work, ignore_errors=True)
    report("browser")


main()
