#!/usr/bin/env python3
"""soma's Python module (docs/python.md), read against the soma command:
each reader's answer is what `soma ... --json` prints on the same store,
local and through soma:// (a real soma-node serving a copy); errors are
soma.StoreError with their kind; a damaged store is never crashed on; a
curve of 1,000,000 points comes back as NumPy arrays; the GIL is free while
a reader reads.

    readers_test.py CLASS   (Local, Served, TLS, OddText, Errors, Damage, Curve, Frames)

CTest gives the programs and stores in the environment: SOMA_PROGRAM,
SOMA_NODE_PROGRAM, RECORD_CHILD, CLI_WORK (tests/cli's stores: store,
fleet), SOMA_FIXTURES (tests/fixtures), SOMA_CERTS (apps/soma-certs),
MAKE_STORE (tests/cli's), and PYTHONPATH (the built module).
"""
import datetime
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy

import soma

SOMA = os.environ["SOMA_PROGRAM"]
NODE = os.environ.get("SOMA_NODE_PROGRAM", "")
RECORD_CHILD = os.environ.get("RECORD_CHILD", "")
WORK = os.environ["CLI_WORK"]
FIXTURES = os.environ.get("SOMA_FIXTURES", "")
CERTS = os.environ.get("SOMA_CERTS", "")
MAKE_STORE = os.environ.get("MAKE_STORE", "")


def serving(args):
    """A soma-node started with ARGS (serving a store on 127.0.0.1:0) and the
    soma:// address it listens on: its first line, within 30 s."""
    node = subprocess.Popen([NODE, *args, "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ready, _, _ = select.select([node.stdout], [], [], 30)
    port = node.stdout.readline().strip() if ready else ""
    if not port.isdigit():
        node.kill()
        node.wait(timeout=10)
        raise AssertionError(f"soma-node said {port!r} within 30 s where its port belongs")
    return node, f"soma://127.0.0.1:{port}"


def cli(store, *args):
    """What `soma ARGS --store STORE --json` prints, parsed."""
    out = subprocess.run([SOMA, *args, "--store", store, "--json"], capture_output=True, text=True,
                         timeout=60)
    if out.returncode != 0:
        raise AssertionError(f"soma {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def without(rows, *keys):
    """`rows` (a list of dicts) without `keys`: what depends on the reader's clock."""
    return [{k: v for k, v in r.items() if k not in keys} for r in rows]


class Readers:
    """The reader checks, for a store opened as `self.where` (a directory or
    soma://) against the directories STORE and FLEET the CLI reads."""

    STORE = os.path.join(WORK, "store")
    FLEET = os.path.join(WORK, "fleet")

    def open(self, which):
        return soma.open(self.where[which])

    def test_runs(self):
        s = self.open("store")
        self.assertEqual(s.runs(), cli(self.STORE, "runs"))
        self.assertEqual([r["run"] for r in s.runs()], ["plain", "tuesday"])
        for args, kw in [(["--sort", "loss"], {"sort": "loss"}),
                         (["--sort", "forwards", "--reverse"], {"sort": "forwards", "reverse": True}),
                         (["--param", "lr=0.05"], {"param": "lr=0.05"}),
                         (["--where", "loss<2"], {"where": "loss<2"}),
                         (["--status", "finished", "--tag", "baseline"],
                          {"status": ["finished"], "tag": "baseline"}),
                         (["tue"], {"prefix": "tue"})]:
            with self.subTest(args=args):
                self.assertEqual(s.runs(**kw), cli(self.STORE, "runs", *args))
        self.assertEqual(s.runs(where="loss>5"), [])
        self.assertEqual(s.runs(first=1), cli(self.STORE, "runs", "--first", "1"))
        self.assertEqual(s.runs(sort="run", last=1), cli(self.STORE, "runs", "--sort", "run", "--last", "1"))
        self.assertEqual(self.open("fleet").runs(), cli(self.FLEET, "runs"))

    def test_forwards(self):
        s = self.open("store")
        rows = s.forwards("tuesday")
        self.assertEqual(rows, cli(self.STORE, "forwards", "tuesday"))
        self.assertEqual([r["forward"] for r in rows], list(range(12)))
        self.assertEqual(s.forwards("tuesday", last=2), cli(self.STORE, "forwards", "tuesday", "--last", "2"))
        self.assertEqual(s.forwards("tuesday", first=3), rows[:3])
        self.assertEqual(s.forwards("plain"), cli(self.STORE, "forwards", "plain"))
        self.assertEqual([r["state"] for r in s.forwards("plain")], ["ok", "broke", "ok"])

    def test_facts(self):
        s = self.open("store")
        for run, n in [("tuesday", 3), ("plain", 1)]:
            self.assertEqual(s.facts(run, n), cli(self.STORE, "facts", run, str(n)))
        self.assertEqual(s.facts("tuesday", 0)[0]["fact"], "ran")

    def test_nodes(self):
        s = self.open("store")
        self.assertEqual(s.nodes("tuesday"), cli(self.STORE, "nodes", "tuesday"))
        self.assertEqual(s.nodes("tuesday", last=2), cli(self.STORE, "nodes", "tuesday", "--last", "2"))

    def test_standing(self):
        got = self.open("fleet").standing()
        self.assertEqual([m["id"] for m in got], ["alpha-101", "beta-202", "delta-404"])
        self.assertEqual(got, cli(self.FLEET, "standing"))
        self.assertEqual(got[1]["quiet_s"], 2.5)

    def test_fleet(self):
        s = self.open("fleet")
        self.assertEqual(s.fleet("remote"), cli(self.FLEET, "fleet", "remote"))
        self.assertEqual(s.fleet("remote", all_machines=True),
                         cli(self.FLEET, "fleet", "remote", "--all-machines"))

    def test_trials(self):
        s = self.open("fleet")
        self.assertEqual(s.trials(), cli(self.FLEET, "trials"))
        self.assertEqual(s.trials()[0]["study"], "lr")
        self.assertEqual(s.trials("lr"), cli(self.FLEET, "trials", "lr"))
        self.assertEqual(self.open("store").trials(), [])

    def test_health(self):
        s = self.open("store")
        at = max(r["last"] for r in s.runs()) + 1000
        got = s.health(at=at)
        self.assertEqual(got, cli(self.STORE, "health", "--at", str(at)))
        self.assertIn("broke_forwards", [o["rule"] for o in got])
        self.assertEqual(s.health(at=at, run="plain"), cli(self.STORE, "health", "plain", "--at", str(at)))
        moment = datetime.datetime.fromtimestamp(at, datetime.timezone.utc)
        self.assertEqual(s.health(moment), got)
        self.assertEqual(self.open("fleet").health(), cli(self.FLEET, "health"))

    def test_critical(self):
        s = self.open("store")
        self.assertEqual(s.critical("tuesday"), cli(self.STORE, "critical", "tuesday"))
        self.assertEqual(s.critical("tuesday", last=3), cli(self.STORE, "critical", "tuesday", "--last", "3"))
        self.assertEqual(self.open("fleet").critical("remote"), cli(self.FLEET, "critical", "remote"))

    def test_curve(self):
        s = self.open("store")
        c = s.curve("tuesday")
        want = cli(self.STORE, "curve", "tuesday", "loss")
        self.assertEqual(c["forward"].dtype, numpy.uint64)
        self.assertEqual(c["value"].dtype, numpy.float64)
        self.assertEqual(c["when_us"].dtype, numpy.int64)
        self.assertEqual(c["forward"].tolist(), [p["forward"] for p in want])
        self.assertEqual(c["value"].tolist(), [p["value"] for p in want])
        when = {r["forward"]: r["when_us"] for r in s.forwards("tuesday")}
        self.assertEqual(c["when_us"].tolist(), [when[n] for n in c["forward"].tolist()])
        # A fact the recorder did not summarise: read from the blobs.
        acc = s.curve("plain", "acc")
        self.assertEqual(acc["value"].tolist(), [p["value"] for p in cli(self.STORE, "curve", "plain", "acc")])
        when = {r["forward"]: r["when_us"] for r in s.forwards("plain")}
        self.assertEqual(acc["when_us"].tolist(), [when[n] for n in acc["forward"].tolist()])
        self.assertEqual(len(s.curve("plain", "nothing")["value"]), 0)


class Local(Readers, unittest.TestCase):
    where = {"store": Readers.STORE, "fleet": Readers.FLEET}


class Served(Readers, unittest.TestCase):
    """The same readers through soma://, each store a copy a soma-node serves."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="soma-python-served-")
        cls.nodes = []
        cls.where = {}
        for which in ("store", "fleet"):
            copy = os.path.join(cls.dir, which)
            shutil.copytree(os.path.join(WORK, which), copy)
            node, cls.where[which] = serving(["--serve-store", copy])
            cls.nodes.append(node)

    @classmethod
    def tearDownClass(cls):
        for node in cls.nodes:
            node.terminate()
            node.wait(timeout=10)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_where(self):
        s = self.open("store")
        self.assertTrue(s.where.startswith("soma://127.0.0.1:"))
        self.assertFalse(s.closed)
        s.close()
        self.assertTrue(s.closed)
        with self.assertRaisesRegex(ValueError, "closed"):
            s.runs()
        with soma.open(self.where["fleet"]) as t:
            self.assertEqual(t.trials()[0]["study"], "lr")
        self.assertTrue(t.closed)


class TLS(unittest.TestCase):
    """soma:// with mutual TLS, through the settings the soma command takes:
    $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA, read when a store opens."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="soma-python-tls-")
        certs = os.path.join(cls.dir, "certs")
        for args in (["ca", certs], ["issue", certs, "node", "--host", "127.0.0.1"],
                     ["issue", certs, "client"]):
            subprocess.run(["bash", CERTS, *args], check=True, capture_output=True, timeout=60)
        cls.files = {name: os.path.join(certs, name) for name in
                     ("node.pem", "node.key", "client.pem", "client.key", "ca.pem")}
        copy = os.path.join(cls.dir, "store")
        shutil.copytree(os.path.join(WORK, "store"), copy)
        cls.node, cls.where = serving(["--serve-store", copy, "--tls-cert", cls.files["node.pem"],
                                       "--tls-key", cls.files["node.key"], "--tls-ca", cls.files["ca.pem"]])

    @classmethod
    def tearDownClass(cls):
        cls.node.terminate()
        cls.node.wait(timeout=10)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in ("SOMA_TLS_CERT", "SOMA_TLS_KEY", "SOMA_TLS_CA")}

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def test_with_certificates(self):
        os.environ.update(SOMA_TLS_CERT=self.files["client.pem"], SOMA_TLS_KEY=self.files["client.key"],
                          SOMA_TLS_CA=self.files["ca.pem"])
        s = soma.open(self.where)
        self.assertEqual(s.runs(), soma.open(Readers.STORE).runs())
        self.assertEqual(s.curve("tuesday")["value"].tolist(),
                         soma.open(Readers.STORE).curve("tuesday")["value"].tolist())

    def test_without_certificates(self):
        for k in self.saved:
            os.environ.pop(k, None)
        began = time.monotonic()
        with self.assertRaises(soma.StoreError) as e:
            soma.open(self.where).runs()
        self.assertIn(e.exception.kind, ("unreachable", "timed_out", "refused"))
        self.assertLess(time.monotonic() - began, 15)


class OddText(unittest.TestCase):
    """Texts a recorder was told that are not UTF-8 (a tag, a parameter, a
    fact's text): each byte that is not becomes U+FFFD, as --json writes it,
    and the rest of the answer stands."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="soma-python-odd-")
        cls.store = os.path.join(cls.dir, "s")
        subprocess.run([MAKE_STORE, cls.store, "--odd-text"], check=True, timeout=60)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_replaced(self):
        s = soma.open(self.store)
        rows = s.runs()
        self.assertEqual(rows, cli(self.store, "runs"))
        self.assertEqual(rows[0]["tags"], ["caf\ufffd"])
        self.assertEqual(rows[0]["params"], {"city": "Gen\ufffdve"})
        told = s.facts("odd", 0)
        self.assertEqual(told, cli(self.store, "facts", "odd", "0"))
        self.assertEqual(told[-1], {"fact": "said", "text": "d\ufffdj\ufffd"})


class Errors(unittest.TestCase):
    def test_missing_run(self):
        s = soma.open(os.path.join(WORK, "store"))
        for call in (lambda: s.forwards("wednesday"), lambda: s.curve("wednesday"),
                     lambda: s.facts("wednesday", 0), lambda: s.nodes("wednesday"),
                     lambda: s.critical("wednesday")):
            with self.assertRaises(soma.StoreError) as e:
                call()
            self.assertEqual(e.exception.kind, "no_such_run")
            self.assertIn("no run 'wednesday'", str(e.exception))
        with self.assertRaises(soma.StoreError) as e:
            s.facts("tuesday", 99)
        self.assertEqual(e.exception.kind, "missing")
        with self.assertRaises(soma.StoreError) as e:
            s.trials("nope")
        self.assertEqual(e.exception.kind, "missing")
        self.assertIsInstance(e.exception, RuntimeError)

    def test_no_store(self):
        where = os.path.join(tempfile.gettempdir(), "soma-python-no-such-store")
        with self.assertRaises(soma.StoreError) as e:
            soma.open(where)
        self.assertEqual(e.exception.kind, "missing")
        self.assertIn(where, str(e.exception))
        self.assertFalse(os.path.exists(where))  # read-only: nothing made

    def test_unreachable(self):
        # A port nothing listens on: refused at once, said within the bound.
        began = time.monotonic()
        with self.assertRaises(soma.StoreError) as e:
            soma.open("soma://127.0.0.1:1")
        self.assertEqual(e.exception.kind, "unreachable")
        self.assertLess(time.monotonic() - began, 10)

    def test_bad_arguments(self):
        s = soma.open(os.path.join(WORK, "store"))
        with self.assertRaisesRegex(ValueError, "status"):
            s.runs(status="sleeping")
        with self.assertRaisesRegex(ValueError, "wobble"):
            s.runs(sort="wobble")
        with self.assertRaisesRegex(ValueError, "first or last"):
            s.forwards("tuesday", first=1, last=1)
        with self.assertRaises(soma.StoreError) as e:
            s.curve("plain", "ran.node")  # a text, not a number
        self.assertEqual(e.exception.kind, "invalid")
        with self.assertRaises(ValueError):
            s.health(rules=os.path.join(WORK, "no-such.rules"))
        for at in (float("nan"), float("inf"), -5, 1e30):
            with self.assertRaisesRegex(ValueError, "1970 to 9999"):
                s.health(at=at)
        with self.assertRaisesRegex(ValueError, "unix seconds"):
            s.health(at="yesterday")
        with self.assertRaisesRegex(ValueError, "1 or more, not 0"):
            s.critical("tuesday", last=0)
        with self.assertRaisesRegex(ValueError, "1 or more, not 0"):
            s.nodes("tuesday", last=0)
        with self.assertRaisesRegex(ValueError, "0 or more"):
            s.forwards("tuesday", last=-1)
        with self.assertRaisesRegex(ValueError, "one of them"):
            s.runs(first=1, last=1)


class Damage(unittest.TestCase):
    """Bytes flipped in a copy of the format-3 fixture: every reader answers or
    raises StoreError; none crashes the interpreter (the fault guard holds in
    Python), and none raises anything else."""

    def read_all(self, where):
        """How many readers answered (0 when the store would not open)."""
        try:
            s = soma.open(where)
        except soma.StoreError as e:
            self.assertIn(e.kind, ("damaged", "failed"))
            return 0
        answered = 0
        readers = [lambda: s.runs(), lambda: s.standing(), lambda: s.trials()]
        for run in ("tuesday", "plain", "remote"):
            readers += [lambda run=run: s.forwards(run), lambda run=run: s.facts(run, 1),
                        lambda run=run: s.nodes(run), lambda run=run: s.curve(run),
                        lambda run=run: s.fleet(run), lambda run=run: s.critical(run)]
        for read in readers:
            try:
                read()
                answered += 1
            except soma.StoreError as e:
                self.assertIn(e.kind, ("damaged", "missing", "invalid", "failed"))
        return answered

    def test_flips(self):
        fixture = os.path.join(FIXTURES, "store-v3")
        rng = random.Random(40)
        with tempfile.TemporaryDirectory(prefix="soma-python-damage-") as d:
            size = os.path.getsize(os.path.join(fixture, "data.mdb"))
            answered = 0
            for i in range(60):
                copy = os.path.join(d, f"s{i}")
                os.mkdir(copy)
                shutil.copy(os.path.join(fixture, "data.mdb"), copy)
                with open(os.path.join(copy, "data.mdb"), "r+b") as f:
                    for _ in range(8):
                        f.seek(rng.randrange(size))
                        f.write(bytes([rng.randrange(256)]))
                answered += self.read_all(copy)
            # Most flips land where readers still read (a flip that hits
            # every store at open would test nothing).
            self.assertGreater(answered, 300)
            # One damage every reader must see: a record's bytes overwritten.
            copy = os.path.join(d, "records")
            shutil.copytree(fixture, copy, ignore=shutil.ignore_patterns("*.json"))
            with open(os.path.join(copy, "data.mdb"), "r+b") as f:
                data = bytearray(f.read())
                at = data.rfind(b"run/tuesday/")
                self.assertGreater(at, 0)
                f.seek(at + 40)
                f.write(bytes([data[at + 40] ^ 0xFF]))
            with self.assertRaises(soma.StoreError) as e:
                soma.open(copy).forwards("tuesday")
            self.assertEqual(e.exception.kind, "damaged")
            self.assertIn("soma check", str(e.exception))


class Curve(unittest.TestCase):
    """A run of 1,000,000 forwards, recorded by record_child (its loss n at
    forward n): its curve into NumPy, and the GIL free while it is read."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="soma-python-curve-")
        cls.where = os.path.join(cls.dir, "s")
        subprocess.run([RECORD_CHILD, cls.where, "long", "1000000", "250000"], check=True,
                       stdout=subprocess.DEVNULL, timeout=120)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_million(self):
        s = soma.open(self.where)
        c = s.curve("long")
        self.assertEqual(len(c["value"]), 1000000)
        self.assertTrue(numpy.array_equal(c["forward"], numpy.arange(1000000, dtype=numpy.uint64)))
        self.assertTrue(numpy.array_equal(c["value"], numpy.arange(1000000, dtype=numpy.float64)))
        self.assertTrue(bool(numpy.all(numpy.diff(c["when_us"]) >= 0)))
        last = s.forwards("long", last=1)[0]
        self.assertEqual(int(c["when_us"][-1]), last["when_us"])
        # The arrays own their memory: still right once the store is gone.
        s.close()
        del s
        self.assertEqual(float(c["value"][999999]), 999999.0)

    def test_gil_released(self):
        s = soma.open(self.where)
        done = threading.Event()
        took = []

        def read():
            began = time.monotonic()
            s.curve("long")
            took.append(time.monotonic() - began)
            done.set()

        t = threading.Thread(target=read)
        # Timed from before the start: the new thread may take the GIL at once.
        gap, last = 0.0, time.monotonic()
        t.start()
        while not done.is_set():
            now = time.monotonic()
            gap, last = max(gap, now - last), now
        gap = max(gap, time.monotonic() - last)  # a stall may end where the loop does
        t.join(timeout=60)
        # While the reader read (hundreds of ms), this thread never stood
        # still for long: a reader holding the GIL would have stopped it for
        # the whole read.
        self.assertGreater(took[0], 0.1)
        self.assertLess(gap, took[0] / 2, f"this thread stood still {gap:.3f} s of a {took[0]:.3f} s read")

    def test_closed_while_read(self):
        # Closing a store another thread reads drops the handle; a read under
        # way keeps the store until it is done, and answers whole. The
        # reader reads again and again; the store is closed once its first
        # read is back, so the next one is under way (or, at worst, begins
        # after the close and is told so).
        s = soma.open(self.where)
        got, refused, first = [], [], threading.Event()

        def read():
            while True:
                try:
                    got.append(len(s.curve("long")["value"]))
                except ValueError as e:
                    refused.append(str(e))
                    return
                first.set()

        t = threading.Thread(target=read)
        t.start()
        self.assertTrue(first.wait(60), "the first read never came back")
        s.close()
        t.join(timeout=60)
        self.assertFalse(t.is_alive())
        self.assertGreaterEqual(len(got), 1)
        self.assertEqual(set(got), {1000000})
        self.assertEqual(len(refused), 1)
        self.assertIn("closed", refused[0])
        s.close()  # twice is fine


class Frames(unittest.TestCase):
    def test_frames(self):
        import pandas
        s = soma.open(os.path.join(WORK, "store"))
        f = soma.frame(s.forwards("tuesday"))
        self.assertIsInstance(f, pandas.DataFrame)
        self.assertEqual(list(f["forward"]), list(range(12)))
        self.assertEqual(list(f.columns[:4]), ["forward", "state", "nodes", "took_us"])
        c = soma.frame(s.curve("tuesday"))
        self.assertEqual(list(c.columns), ["forward", "value", "when_us"])
        r = s.runs_frame(sort="run")
        self.assertEqual(list(r["run"]), ["plain", "tuesday"])
        self.assertEqual(list(r["params.lr"]), [0.5, 0.05])
        self.assertTrue(pandas.isna(r["params.seed"][0]))
        self.assertEqual(r["params.seed"][1], 7)
        self.assertAlmostEqual(r["values.loss"][1], s.runs(prefix="tuesday")[0]["values"]["loss"]["last"])
        self.assertNotIn("params", r.columns)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:]], verbosity=2)
