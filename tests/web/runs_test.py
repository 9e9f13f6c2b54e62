"""The runs page finds runs as `soma runs` does, and its live mark says when
the store last moved (issue 26), in a real headless Chromium: the status,
params and tags columns show what the store says; a run whose writer was
SIGKILLed mid-recording shows `died`, with how that is known in its title;
each filter (status, tag, param, name prefix) narrows the table to the runs
`soma runs` keeps with the same options, and the address keeps it through a
reload; sorting by a parameter orders the rows as `soma runs --sort` does,
reversed too; /api/runs answers a bad status or sort key with a 400 naming
it; the live mark shows the store's last write's age, stays green while a
recorder writes, and is not green (and says the store is silent) for a
store whose newest write is ten minutes old, until a fresh one comes.

    runs_test.py SOMA RUNS_STORE RECORD_CHILD OUT_DIR

Every wait has a deadline; screenshots are left in OUT_DIR."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from harness import check, line_of, report, started, stop  # noqa: E402

SOMA, RUNS_STORE, RECORD_CHILD, OUT, MAKE_STORE = sys.argv[1:6]
os.makedirs(OUT, exist_ok=True)

GREEN = "rgb(26, 158, 85)"

ROWS = "return [...document.querySelectorAll('tr[data-run]')].map(r => r.dataset.run)"

# What each row shows in the status, params and tags columns, and the
# status cell's title.
CELLS = """return Object.fromEntries([...document.querySelectorAll('tr[data-run]')].map(r => [r.dataset.run, {
  status: r.querySelector('td.status').textContent, how: r.querySelector('td.status span').title,
  params: r.querySelector('td.params').textContent, tags: r.querySelector('td.tags').textContent,
  executions: Number(r.querySelector('td.executions').textContent),
  died: r.classList.contains('died')}]))"""


def soma_runs(store, *args):
    return json.loads(subprocess.run([SOMA, "runs", *args, "--store", store, "--json"], check=True,
                                     capture_output=True, text=True, timeout=60).stdout)


def refused(url):
    """The status and body of a GET that is an HTTP error, or (200, body)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as res:
            return res.status, res.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def params_text(params):
    return ", ".join(f"{k}={v}" for k, v in params.items())


def reloaded_with(b, change, what):
    """Runs `change` (script that sets a filter and fires its change event),
    waits for the page it leads to, and returns its rows."""
    b.run("window.soma.before = true;" + change)
    b.until("return window.soma && !window.soma.before && document.querySelector('#total').textContent", 20,
            f"the page after {what}")
    return b.run(ROWS)


def main():
    work = tempfile.mkdtemp(prefix="soma-runs-")
    store = os.path.join(work, "store")
    old = os.path.join(work, "old")
    servers = []
    writers = []
    try:
        subprocess.run([RUNS_STORE, store, "--runs"], check=True, capture_output=True, timeout=120)
        # Study sweep (lr over five decades, trial 4 broke) beside them.
        subprocess.run([MAKE_STORE, store, "--sweep"], check=True, capture_output=True, timeout=60)
        # A writer killed mid-recording: its run never closes, and its
        # process is gone.
        dying = subprocess.Popen([RUNS_STORE, store, "--recording", "lr.9"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
        writers.append(dying)
        line_of(dying, "recording", 30)
        dying.kill()
        dying.wait(10)
        # A store nobody has written for ten minutes.
        subprocess.run([RUNS_STORE, old, "--old-readings", "600"], check=True, capture_output=True,
                       timeout=60)

        server, url = started([SOMA, "serve", "--store", store, "--listen", "127.0.0.1:0"], "http://")
        servers.append(server)
        old_server, old_url = started([SOMA, "serve", "--store", old, "--listen", "127.0.0.1:0"], "http://")
        servers.append(old_server)

        stored = {r["run"]: r for r in soma_runs(store)}
        check(stored.get("lr.9", {}).get("status") == "died",
              f"soma runs says the killed writer's run died: {stored.get('lr.9')}")

        with webdriver.Browser() as b:
            # The columns: what the store says of each run.
            b.open(url)
            b.until("return document.querySelectorAll('tr[data-run]').length === 5", 20, "five runs")
            cells = b.run(CELLS)
            for run, r in stored.items():
                shown = cells.get(run, {})
                want = {"status": r["status"], "how": r["how"], "params": params_text(r["params"]),
                        "tags": ", ".join(r["tags"]), "executions": r["executions"],
                        "died": r["status"] == "died"}
                check(shown == want, f"{run}'s row shows {shown}; the store says {want}")
            check(cells.get("lr.1", {}).get("params") == "lr=0.1, seed=1", f"lr.1's params: {cells.get('lr.1')}")
            check(cells.get("lr.03", {}).get("tags") == "sweep, short", f"lr.03's tags: {cells.get('lr.03')}")
            check(cells.get("lr.3", {}).get("executions") == 2, f"lr.3's executions: {cells.get('lr.3')}")
            died = b.run("const s = document.querySelector('tr[data-run=\"lr.9\"] td.status span');"
                         " const c = getComputedStyle(s); return [c.color, c.backgroundColor]")
            check(died[1] not in ("rgba(0, 0, 0, 0)", "transparent"), f"died is marked: {died}")
            # Most recent first, as before: soma runs' order by last, reversed.
            want = [r["run"] for r in soma_runs(store, "--sort", "last", "--reverse")]
            check(b.run(ROWS) == want, f"the page's default order {b.run(ROWS)} is most recent first {want}")
            b.screenshot(os.path.join(OUT, "runs.png"))

            # Each filter narrows the table to what soma runs keeps with the
            # same options, and the address keeps it through a reload.
            filters = [
                ("status died", "document.querySelector('input[data-status=\"died\"]').click();",
                 ["--status", "died"], {"lr.9"}),
                ("tags sweep, short", "const t = document.getElementById('tags'); t.value = 'sweep, short';"
                 " t.dispatchEvent(new Event('change', {bubbles: true}));",
                 ["--tag", "sweep", "--tag", "short"], {"lr.03"}),
                ("tag sweep", "const t = document.getElementById('tags'); t.value = 'sweep';"
                 " t.dispatchEvent(new Event('change', {bubbles: true}));",
                 ["--tag", "sweep"], {"lr.3", "lr.03", "lr.9"}),
                ("param lr=1e-1", "const p = document.getElementById('params'); p.value = 'lr=1e-1';"
                 " p.dispatchEvent(new Event('change', {bubbles: true}));",
                 ["--param", "lr=1e-1"], {"lr.1"}),
                ("param seed", "const p = document.getElementById('params'); p.value = 'seed';"
                 " p.dispatchEvent(new Event('change', {bubbles: true}));",
                 ["--param", "seed"], {"lr.1", "lr.3", "lr.03"}),
                ("prefix lr.0", "const p = document.getElementById('prefix'); p.value = 'lr.0';"
                 " p.dispatchEvent(new Event('change', {bubbles: true}));",
                 ["lr.0"], {"lr.03"}),
            ]
            for what, change, cli, want in filters:
                b.open(url)
                b.until("return document.querySelectorAll('tr[data-run]').length === 5", 20, "five runs")
                rows = reloaded_with(b, change, what)
                by_cli = {r["run"] for r in soma_runs(store, *cli)}
                check(set(rows) == want and by_cli == want,
                      f"{what}: the page keeps {rows}, soma runs {sorted(by_cli)}, expected {sorted(want)}")
                address = b.run("return location.search")
                b.run("window.soma.before = true;")
                b._call("POST", f"/session/{b.session}/refresh", {})  # the browser's reload
                b.until("return window.soma && !window.soma.before && document.querySelector('#total').textContent", 20,
                        f"the page reloaded with {what}")
                check(b.run("return location.search") == address and set(b.run(ROWS)) == want,
                      f"{what}: reloaded, the address {b.run('return location.search')} still keeps "
                      f"{b.run(ROWS)}")

            # Sorting by a parameter, and reversed: soma runs --sort's order.
            b.open(url)
            b.until("return [...document.getElementById('sort').options].some(o => o.value === 'lr')", 20,
                    "lr among the sort keys")
            rows = reloaded_with(b, "const s = document.getElementById('sort'); s.value = 'lr';"
                                    " s.dispatchEvent(new Event('change', {bubbles: true}));", "sort lr")
            want = [r["run"] for r in soma_runs(store, "--sort", "lr")]
            check(rows == want == ["lr.03", "lr.1", "lr.3", "lr.9", "plain"],
                  f"sorted by lr: the page {rows}, soma runs {want}")
            rows = reloaded_with(b, "document.getElementById('reverse').click();", "reverse")
            want = [r["run"] for r in soma_runs(store, "--sort", "lr", "--reverse")]
            check(rows == want and rows[-1] == "lr.03",
                  f"sorted by lr, reversed: the page {rows}, soma runs {want}")
            check("sort=lr" in b.run("return location.search") and "reverse=1" in b.run("return location.search"),
                  f"the sort is in the address: {b.run('return location.search')}")

            # A run's summarised loss: a column of its last, as soma runs
            # --json says it; sorting by its least, and keeping those under
            # a bound (soma runs --sort min:loss, --where loss<0.4).
            b.open(url)
            b.until("return document.querySelectorAll('td[data-column=\"loss\"]').length === 5", 20,
                    "a loss column")
            shown = b.run("return Object.fromEntries([...document.querySelectorAll('tr[data-run]')].map("
                          "r => [r.dataset.run, r.querySelector('td[data-column=\"loss\"]').textContent]))")
            stored = {r["run"]: r for r in soma_runs(store)}
            for run, r in stored.items():
                last = r["values"].get("loss", {}).get("last")
                check((shown[run] == "–") if last is None else float(shown[run]) == last,
                      f"{run}'s loss shows {shown[run]!r}; the store says {r['values']}")
            check(stored["lr.3"]["values"]["loss"]["min"] == 0.2 and stored["lr.3"]["values"]["loss"]["last"] != 0.2,
                  f"lr.3's two executions: {stored['lr.3']['values']}")
            b.until("return [...document.getElementById('sort').options].some(o => o.value === 'min:loss')", 20,
                    "min:loss among the sort keys")
            rows = reloaded_with(b, "const s = document.getElementById('sort'); s.value = 'min:loss';"
                                    " s.dispatchEvent(new Event('change', {bubbles: true}));", "sort min:loss")
            want = [r["run"] for r in soma_runs(store, "--sort", "min:loss")]
            check(rows == want and rows[0] == "lr.3", f"sorted by min:loss: the page {rows}, soma runs {want}")
            rows = reloaded_with(b, "const w = document.getElementById('where'); w.value = 'loss<0.4';"
                                    " w.dispatchEvent(new Event('change', {bubbles: true}));", "where loss<0.4")
            want = [r["run"] for r in soma_runs(store, "--sort", "min:loss", "--where", "loss<0.4")]
            check(rows == want and set(rows) == {"lr.1", "lr.3"}, f"where loss<0.4: the page {rows}, soma runs {want}")
            status, body = refused(url + "api/runs?where=loss%3C%3C1")
            check(status == 400 and "'<<' is no operator" in body, f"where=loss<<1: {status} {body!r}")

            # A bad status or sort key: a 400 naming it.
            status, body = refused(url + "api/runs?status=bogus")
            check(status == 400 and "bogus" in body, f"status=bogus: {status} {body!r}")
            status, body = refused(url + "api/runs?sort=nope")
            check(status == 400 and "nope" in body, f"sort=nope: {status} {body!r}")
            status, body = refused(url + "api/runs?status=died&status=finished&sort=lr")
            check(status == 200 and [r["run"] for r in json.loads(body)["runs"]] == ["lr.03", "lr.1", "lr.3", "lr.9", "plain"],
                  f"status repeated: {status} {body[:200]!r}")
            b.open(url + "?status=bogus")
            b.until("return document.querySelector('#runs .error')", 20, "the page naming a bad status")
            check("bogus" in b.run("return document.querySelector('#runs .error').textContent"),
                  "the page says which status is wrong")

            # A run's page says what the run was, as soma runs does: its
            # status and how that is known, its params and its tags.
            for run in ("lr.1", "lr.03", "lr.9", "plain"):
                b.open(url + "run/" + run)
                b.until("return document.getElementById('what')", 20, f"{run}'s page")
                what = b.run("const w = document.getElementById('what'); return {"
                             " status: w.querySelector('.status').textContent,"
                             " how: document.getElementById('how').textContent,"
                             " params: [...w.querySelectorAll('code[data-param]')].map(c => c.textContent),"
                             " tags: [...w.querySelectorAll('code[data-tag]')].map(c => c.dataset.tag),"
                             " trial: !!document.getElementById('trial')}")
                r = stored[run]
                want = {"status": r["status"], "how": r["how"],
                        "params": [f"{k}={v}" for k, v in r["params"].items()], "tags": r["tags"],
                        "trial": False}
                check(what == want, f"{run}'s page says {what}; the store says {want}")

            # A run two programs wrote says so on its page, where the second
            # began, and its curve draws a line there.
            b.open(url + "run/lr.3")
            b.until("return document.querySelector('#curve svg .series-execution')", 20,
                    "the line where lr.3's second execution began")
            began = b.run("return [...document.querySelectorAll('#executions [data-execution]')]"
                          ".map(e => [Number(e.dataset.execution), Number(e.dataset.forward)])")
            shown = b.run("return Number(document.getElementById('executions').dataset.executions)")
            check(shown == 2 and began == [[1, 0], [2, 5]],
                  f"lr.3's page says executions {shown}, began {began}; the store says "
                  f"{[(e['forward']) for e in stored['lr.3']['began']]}")
            label = b.run("return [...document.querySelectorAll('#curve svg text.series-execution')]"
                          ".map(t => t.textContent)")
            check(len(label) == 1 and label[0].startswith("execution 2: "), f"the curve's label: {label}")
            b.open(url + "run/lr.1")
            b.until("return document.querySelector('#curve svg') && document.getElementById('executions')",
                    20, "lr.1's page and its curve")
            check(b.run("return document.querySelectorAll('#curve svg .series-execution').length") == 0
                  and b.run("return document.getElementById('executions').textContent") == "1",
                  "a run written once draws no execution line and says 1")

            # The live mark: the store's age, green while a recorder writes.
            recorder = subprocess.Popen([RECORD_CHILD, store, "run-live", "0", "1", "100"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            writers.append(recorder)
            line_of(recorder, "durable 1", 30)
            b.open(url)
            text = b.until("const m = document.getElementById('live');"
                           " return m.classList.contains('on') && m.textContent.includes('last write') && m.textContent",
                           20, "the live mark with the last write's age")
            check(re.fullmatch(r"live · last write \d+s ago", text) is not None, f"the live mark says {text!r}")
            title = b.run("return document.getElementById('live').title")
            check("silent_store" in title and "writers' clocks" in title and "browser" in title,
                  f"the mark's title says whose clocks and which rule: {title!r}")
            first = b.run("return Number(document.getElementById('live').dataset.newest)")
            # The mark looks again while the recorder writes: a newer write,
            # and the mark still green.
            b.until(f"const m = document.getElementById('live'); return Number(m.dataset.newest) > {first}",
                    20, "the mark to see a newer write")
            check(b.run("return document.getElementById('live').className") == "live on",
                  "a store being written keeps the mark green")
            recorder.terminate()
            recorder.wait(20)

            # A study's page: its figure (soma plot study's, against lr), a
            # trial's numbers at 6 significant digits, and sorting by any
            # column, turned round by a second click, trials without a
            # value last either way.
            b.open(url + "trials/sweep")
            b.until("return document.querySelector('#study-figure svg') && document.querySelectorAll('tr[data-trial]').length === 6",
                    20, "the sweep's figure and trials")
            labels = b.run("return [...document.querySelectorAll('#study-figure svg text')].map(t => t.textContent)")
            check("best: #2 lr=0.01" in labels and "lr (log axis)" in labels, f"the study's figure says {labels}")
            result = b.run("return document.querySelector('tr[data-trial=\"3\"] td.result').textContent")
            check(result == "loss=0.3", f"trial 3's result shows {result!r} (0.30000000000000004 at 6 digits)")
            order = "return [...document.querySelectorAll('tr[data-trial]')].map(r => Number(r.dataset.trial))"
            head = "[...document.querySelectorAll('#trials th')].find(h => h.textContent === 'result').click()"
            b.run(head)
            check(b.run(order) == [2, 3, 1, 0, 5, 4], f"sorted by result: {b.run(order)}")
            b.run(head)
            check(b.run(order) == [5, 0, 1, 3, 2, 4], f"sorted by result, turned round: {b.run(order)}")
            b.screenshot(os.path.join(OUT, "study.png"))

            # A store whose newest write is ten minutes old: not green, and says so.
            # The mark says the store's age as soon as /api/store answers, and
            # "live" once the page's stream is open: on a loaded machine the
            # one can come seconds before the other, so both are waited for.
            b.open(old_url)
            text = b.until("const m = document.getElementById('live');"
                           " return m.textContent.startsWith('live · ') && m.textContent.includes('last write')"
                           " && m.textContent", 20,
                           "the old store's live mark, following the store")
            age = b.run("return Number(document.getElementById('live').dataset.age)")
            check(re.fullmatch(r"live · store silent: last write \d+m \d+s ago", text) is not None
                  and 590 <= age <= 900, f"the old store's mark says {text!r} (age {age} s)")
            mark = b.run("const m = document.getElementById('live');"
                         " return [m.className, getComputedStyle(m, '::before').color]")
            check("on" not in mark[0].split() and mark[1] != GREEN, f"the old store's mark is not green: {mark}")
            b.screenshot(os.path.join(OUT, "silent.png"))
            # A fresh reading: the open page's mark turns green again.
            subprocess.run([RUNS_STORE, old, "--old-readings", "0"], check=True, capture_output=True, timeout=60)
            b.until("return document.getElementById('live').className === 'live on'", 20,
                    "the mark green again after a fresh write")
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
                w.wait(10)
        for s in servers:
            stop(s)
        shutil.rmtree(work, ignore_errors=True)
    report("runs")


main()
