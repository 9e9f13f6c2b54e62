#!/usr/bin/env python3
"""Damage: a store of format 1 still reads, and damaged stores are detected,
never crashed on and never believed (docs/store.md, "Damage").

  damage_test.py CASE SOMA MAKE_STORE FIXTURES WORK

Cases:
  format1     the fixture store (tests/fixtures/store-v1, written by the soma
              of format 1) reads as it did, `soma check` finds it clean, and
              a recorder of today writes beside it; a value that soma told as
              text then and that is a number ("318", "2.1") now reads as that
              number, of its kind
  format2     the same for tests/fixtures/store-v2, written by the soma of
              format 2 (its compact encoding)
  format3     the same for tests/fixtures/store-v3, written by the soma of
              format 3 (packed Cap'n Proto, no run dictionary): every answer
              exactly as that soma gave it, and those of the readers added
              to the fixture later (trials, critical, compare, health --at,
              trace) exactly as soma 0.5.0 gave them
  format4     the same for tests/fixtures/store-v4, written by soma 0.5.0
              (format 4: fact blobs name a run's words by number)
  truncated   data.mdb cut to half: every reader and `soma check` refuse it,
              naming the store, with no signal
  permissions as an unprivileged user: an unreadable directory and data.mdb
              are "permission denied"; a store whose lock.mdb it may not
              write reads all the same (MDB_NOLOCK)
  fuzz        fuzz_keys, fuzz_flags and fuzz_random, which the suite runs
              as four tests (fuzz_random_a and fuzz_random_b: its even and
              its odd copies):
  fuzz_keys   every letter of every key's run name flipped in the fixtures
              of formats 2, 3 and 4: `soma live` ends by exit 0, or by exit 2
              saying "damaged", never by a signal
  fuzz_flags  every bit of every database's flags in LMDB's main database
              flipped in the same fixtures: `soma runs` likewise
  fuzz_random random single-byte flips and truncations of a store made now
              (a fixed seed, so the test is the same every run;
              SOMA_FUZZ_SEED and SOMA_FUZZ_FLIPS change it):
              every reader and `soma check` end in time and by
              exit, never by a signal; an answer that differs from the clean
              store's is always an error saying "damaged"; `soma check` exits
              2 whenever a reader saw damage, and 0 only when every reader
              answered as on the clean store
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

case, SOMA, MAKE_STORE, FIXTURES, WORK = sys.argv[1], *map(os.path.abspath, sys.argv[2:6])
FIXTURE = os.path.join(FIXTURES, {"format2": "store-v2", "format3": "store-v3", "format4": "store-v4"}.get(case, "store-v1"))
T = tempfile.mkdtemp(prefix="soma-damage-test.")
TIMEOUT = 20  # seconds; a reader of a 100 KB store takes milliseconds


def fail(why):
    print(f"FAIL [{case}]: {why}", file=sys.stderr)
    shutil.rmtree(T, ignore_errors=True)
    sys.exit(1)


def soma(*args, store, user=None):
    """(exit status, stdout, stderr); a signal is a negative status."""
    cmd = [SOMA, *args, "--store", store]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, cwd=T)
    except subprocess.TimeoutExpired:
        fail(f"`soma {' '.join(args)}` did not end within {TIMEOUT} s")
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


# The commands a user reads a store with, on the runs make_store records.
READERS = [
    ["runs"], ["forwards", "tuesday"], ["forwards", "plain"], ["curve", "tuesday", "loss"],
    ["curve", "plain", "acc"], ["facts", "tuesday", "3"], ["facts", "plain", "1"],
    ["nodes", "tuesday"], ["nodes", "plain", "--last", "2"], ["cache", "ls"], ["standing"],
    ["fleet", "remote"], ["live", "--once", "--run", "tuesday"], ["trials"], ["trials", "lr"],
    ["plot", "progress", "tuesday", "-o", "p.svg"],
]


def answers(store):
    out = {}
    for r in READERS:
        rc, o, e = soma(*r, store=store)
        if r[0] == "plot" and rc == 0:
            with open(os.path.join(T, "p.svg"), "rb") as f:
                o = f.read()
        if r[0] == "live":
            # The rate and the quiet line follow the clock, not the store.
            o = re.sub(rb"(?m)^(rate |no forward for ).*\n", b"", o)
        out[" ".join(r)] = (rc, o, e)
    return out


def make_full_store(d):
    for mode in ([], ["--cached"], ["--fleet"]):
        if subprocess.run([MAKE_STORE, d, *mode]).returncode != 0:
            fail(f"make_store {d} {' '.join(mode)} failed")


def copy_store(src, dst):
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "data.mdb"), dst)


def told_number(text):
    """The number a fact's text stood for, as soma reads an older store: an
    integer written exactly as soma writes one, or a real written as the
    shortest text that reads back to it; else None (a text stays a text)."""
    if re.fullmatch(r"-?[1-9][0-9]*|0", text) and -2**63 <= int(text) < 2**63:
        return int(text)
    if re.search(r"[.e]", text):
        try:
            x = float(text)
        except ValueError:
            return None
        if repr(x) == text:
            return x
    return None


def same(want, got, typed):
    """Whether `got` (today's answer) says what `want` (the older soma's)
    said. Where `typed` (what facts told), a number the older soma wrote as
    text ("318", "2.1") must now be that number, of its kind: an integer for
    "318", a real for "2.1"; any other text stays text."""
    if isinstance(want, dict):
        return (isinstance(got, dict) and list(want) == list(got)
                and all(same(want[k], got[k], typed) for k in want))
    if isinstance(want, list):
        return (isinstance(got, list) and len(want) == len(got)
                and all(same(w, g, typed) for w, g in zip(want, got)))
    if typed and isinstance(want, str) and (n := told_number(want)) is not None:
        return type(got) is type(n) and got == n
    return type(want) is type(got) and want == got


def answers_or_says_damaged(d, original, at, bit, args, what):
    """`soma ARGS` on a copy of `original` in `d` with bit `bit` of byte `at`
    flipped ends by exit 0, or by exit 2 saying "damaged"; never by a signal."""
    data = bytearray(original)
    data[at] ^= 1 << bit
    with open(os.path.join(d, "data.mdb"), "wb") as f:
        f.write(data)
    rc, o, e = soma(*args, store=d)
    if rc < 0:
        fail(f"{what}: `soma {args[0]}` died of signal {-rc}")
    if rc not in (0, 2) or (rc == 2 and "damaged" not in e):
        fail(f"{what}: `soma {args[0]}` exited {rc}: {e}")


if case in ("format1", "format2", "format3", "format4"):
    s = os.path.join(T, "v" + case[-1])
    copy_store(FIXTURE, s)
    expected = {
        "runs": ["runs", "--sort", "run"], "forwards_tuesday": ["forwards", "tuesday"],
        "forwards_plain": ["forwards", "plain"], "curve_tuesday_loss": ["curve", "tuesday", "loss"],
        "curve_plain_acc": ["curve", "plain", "acc"], "facts_tuesday_3": ["facts", "tuesday", "3"],
        "facts_remote_0": ["facts", "remote", "0"], "nodes_tuesday": ["nodes", "tuesday"],
        "nodes_plain_last_2": ["nodes", "plain", "--last", "2"], "cache_ls": ["cache", "ls"],
        "standing": ["standing"], "fleet_remote": ["fleet", "remote", "--all-machines"],
    }
    # The format-3 and format-4 fixtures keep every reader's answer: the study, the
    # critical path, a comparison, the opinions as of a stated moment, and
    # a trace (written to a file).
    if case in ("format3", "format4"):
        with open(os.path.join(FIXTURE, "at")) as f:
            at = f.read().strip()
        expected.update({
            "trials": ["trials"], "trials_lr": ["trials", "lr"], "critical_remote": ["critical", "remote"],
            "compare_tuesday_plain": ["compare", "tuesday", "plain"],
            "health_at": ["health", "--at", at],
            "trace_remote": ["trace", "remote", "--output", os.path.join(T, "trace_remote.json")],
        })
    for name, args in expected.items():
        rc, o, e = soma(*([] if args[0] == "trace" else ["--json"]), *args, store=s)
        if rc != 0:
            fail(f"`soma {' '.join(args)}` on the {case} store: {e}")
        with open(os.path.join(FIXTURE, name + ".json")) as f:
            want = json.load(f)
        if args[0] == "trace":
            with open(args[-1]) as f:
                o = f.read().encode()
        got = json.loads(o)
        # Keys added since (a claimant's "claims" and "trials") read as a
        # worker's: nothing claimed; where a worker listens and what it
        # serves read as unsaid. Beyond them, the rows are as they were.
        if case == "format1" and name in ("standing", "fleet_remote"):
            for row in got:
                if row.pop("claims", "missing") is not None or row.pop("trials", "missing") not in (0, None):
                    fail(f"`soma {' '.join(args)}` on the {case} store: a machine claims trials: {row}")
            if case == "format1" and name == "standing":
                for row in got:
                    said = (row.pop("listens", "missing"), row.pop("serves", "missing"),
                            row.pop("serves_store", "missing"))
                    if said != (None, [], None):
                        fail(f"`soma standing` on the {case} store says where it listens: {said}")
        # A machine's state, since: an opinion that takes this test's clock
        # once the fixture's readings (2027) are in its past, so only what
        # the writers decide is held: 3 unsaid intervals (0.5 s) behind the
        # newest is quiet whatever the clock says.
        if name in ("standing", "fleet_remote"):
            for row in want:  # the format-3 fixture's rows say it too
                row.pop("state", None)
            for row in got:
                state, quiet = row.pop("state", "missing"), row.get("quiet_s")
                if (quiet is None and state is not None) or (quiet is not None and state not in ("reporting", "quiet")) \
                        or (quiet is not None and quiet > 1.5 and state != "quiet"):
                    fail(f"`soma {' '.join(args)}` on the {case} store: state {state} with quiet_s {quiet}")
        # What a run says of itself since (status, params, tags): an older
        # soma's runs have no params or tags, and stand finished (their
        # recorder closed them: format 2) or unknown (format 1 kept nothing).
        # Executions, since: a run an older soma wrote is one, of unknown origin.
        # And summarised values, since: kept by a writer of 0.4 on; counted
        # from the records only for a run with no totals (format 1's).
        if name == "runs" and case != "format4":
            for row in got:
                values = row.pop("values", "missing")
                if not isinstance(values, dict) or (case != "format1" and values != {}):
                    fail(f"`soma runs` on the {case} store: {row['run']} says values {values}")
                lasted = row.pop("duration_us", "missing")
                if not (lasted is None or (type(lasted) is int and lasted >= 0)):  # counted: known
                    fail(f"`soma runs` on the {case} store: {row['run']} says duration_us {lasted}")
                said = (row.pop("executions", "missing"), row.pop("began", "missing"))
                if said != (1, []):
                    fail(f"`soma runs` on the {case} store: {row['run']} says executions {said}")
        if name == "runs" and case in ("format1", "format2"):
            for row in got:
                said = {k: row.pop(k, "missing") for k in ("status", "how", "ended_us", "params", "tags", "trial")}
                # (run "remote" was written straight, by no recorder.)
                standing = "unknown" if case == "format1" or row["run"] == "remote" else "finished"
                if (said["params"] != {} or said["tags"] != [] or said["status"] != standing
                        or not said["how"] or said["trial"] is not None):
                    fail(f"`soma runs` on the {case} store: {row['run']} says {said}")
        # A record's moment to the microsecond, since: an older one's is its second.
        if name.startswith("forwards_") and case in ("format1", "format2"):
            for row in got:
                if row.pop("when_us", None) != row["when"] * 1000000:
                    fail(f"`soma {' '.join(args)}` on the {case} store: when_us is not when's second")
        if not same(want, got, name.startswith(("facts_", "forwards_")) and case in ("format1", "format2")):
            fail(f"`soma {' '.join(args)}` on the {case} store reads differently:\n{o.decode()}")
    rc, o, e = soma("check", store=s)
    if rc != 0 or "no damage found" not in e:
        fail(f"`soma check` on the {case} store: {rc} {o.decode()} {e}")
    # A store written before trials existed has no trials database: no study.
    # The format-2 fixture has one: study lr, its 4 trials in every state.
    rc, o, e = soma("--json", "trials", store=s)
    studies = [(x["study"], x["trials"], x["done"], x["broke"]) for x in json.loads(o)] if rc == 0 else None
    if studies != ([] if case == "format1" else [("lr", 4, 1, 1)]):
        fail(f"`soma trials` on the {case} store: {rc} {o.decode()} {e}")
    # Today's recorder continues beside format-1 runs: it records run
    # tuesday again (overwriting it) and plain, and the store stays sound.
    if subprocess.run([MAKE_STORE, s]).returncode != 0:
        fail(f"make_store into the {case} store failed")
    rc, o, e = soma("--json", "runs", store=s)
    runs = {r["run"]: r["forwards"] for r in json.loads(o)}
    if runs != {"plain": 3, "remote": 4, "tuesday": 12}:
        fail(f"runs after writing into the {case} store: {runs}")
    rc, o, e = soma("check", store=s)
    if rc != 0:
        fail(f"`soma check` after writing into the {case} store: {o.decode()} {e}")

elif case == "truncated":
    s = os.path.join(T, "cut")
    make_full_store(s)
    data = os.path.join(s, "data.mdb")
    with open(data, "r+b") as f:
        f.truncate(os.path.getsize(data) // 2)
    for r in READERS + [["check"]]:
        rc, o, e = soma(*r, store=s)
        if rc != 2:
            fail(f"`soma {' '.join(r)}` on a cut-off store exited {rc}: {e}")
        if f"the store '{s}' is damaged" not in e or "shorter than" not in e:
            fail(f"`soma {' '.join(r)}` on a cut-off store says: {e}")

elif case == "permissions":
    if os.geteuid() != 0:
        print("skipped: runs as root only (it switches to an unprivileged user)")
        sys.exit(77)
    nobody = 65534
    os.chmod(T, 0o755)
    probe = subprocess.run(["setpriv", f"--reuid={nobody}", f"--regid={nobody}",
                            "--clear-groups", SOMA, "--version"], capture_output=True)
    if probe.returncode != 0:
        print(f"skipped: user {nobody} cannot run {SOMA} here (its directories are closed to "
              f"it): {probe.stderr.decode(errors='replace')}")
        shutil.rmtree(T, ignore_errors=True)
        sys.exit(77)
    s = os.path.join(T, "s")
    make_full_store(s)
    rc, clean, _ = soma("--json", "runs", store=s)
    # Read-only for the user: the directory, data.mdb and lock.mdb are root's.
    os.chmod(s, 0o755)
    os.chmod(os.path.join(s, "data.mdb"), 0o644)
    os.chmod(os.path.join(s, "lock.mdb"), 0o644)
    rc, o, e = soma("--json", "runs", store=s, user=nobody)
    if rc != 0 or o != clean:
        fail(f"a user who may only read the store could not read it: {rc} {e}")
    rc, o, e = soma("check", store=s, user=nobody)
    if rc != 0:
        fail(f"`soma check` by a user who may only read the store: {rc} {e}")
    # No lock.mdb, and a directory the user may not write: read all the same.
    os.remove(os.path.join(s, "lock.mdb"))
    rc, o, e = soma("--json", "runs", store=s, user=nobody)
    if rc != 0 or o != clean or os.path.exists(os.path.join(s, "lock.mdb")):
        fail(f"a reader without lock.mdb: {rc} {e}")
    # data.mdb unreadable.
    os.chmod(os.path.join(s, "data.mdb"), 0o600)
    rc, o, e = soma("runs", store=s, user=nobody)
    if rc != 2 or not e.startswith(f"soma: permission denied: cannot read '{s}/data.mdb'"):
        fail(f"an unreadable data.mdb: {rc} {e}")
    # The directory unreadable.
    os.chmod(os.path.join(s, "data.mdb"), 0o644)
    os.chmod(s, 0o700)
    rc, o, e = soma("runs", store=s, user=nobody)
    if rc != 2 or not e.startswith(f"soma: permission denied: cannot look into the store directory '{s}'"):
        fail(f"an unreadable store directory: {rc} {e}")
    if "no data.mdb" in e:
        fail(f"an unreadable directory was said to hold no data.mdb: {e}")

elif case in ("fuzz", "fuzz_keys", "fuzz_flags", "fuzz_random", "fuzz_random_a", "fuzz_random_b"):
    # The suite runs the parts as four tests, each well within its CTest
    # bound (the random copies in two halves, a and b); `fuzz` runs them all.
    parts = ("keys", "flags", "random") if case == "fuzz" else (case[len("fuzz_"):].split("_")[0],)
    # Which random copies: all, the even ones (a) or the odd ones (b). Every
    # copy's damage is drawn all the same, so that copy i is the same in
    # each.
    halves = {"fuzz_random_a": (0,), "fuzz_random_b": (1,)}.get(case, (0, 1))
    said = []
    # First, on purpose: each letter of a key's run name changed by one bit,
    # so the run's keys are out of order and the key before the next run's
    # first can be another run's (once a crash in `soma live`, found by a
    # random flip in CI). Every key of the form run/<name>/<n>, in both
    # databases: the live view, which reads every run's tail to judge, must
    # answer or say "damaged", never die.
    # Both on the fixtures of formats 2, 3 and 4, whose bytes never change, so
    # these flips land in the same places every run (a store made now differs
    # in its times, and so in where its pages fall).
    for fixture in ("store-v2", "store-v3", "store-v4"):
        with open(os.path.join(FIXTURES, fixture, "data.mdb"), "rb") as f:
            fixed = f.read()
        if "keys" in parts:
            keys = list(re.finditer(rb"run/([a-z]+)/\x00", fixed))
            if len(keys) < 20:
                fail(f"{fixture}: the store's keys were not found to flip (only {len(keys)})")
            d = os.path.join(T, fixture + "-keys")
            os.makedirs(d)
            for m in keys:
                for at in range(m.start(1), m.end(1)):
                    what = f"{fixture}: letter {at - m.start(1)} of a key's run name '{m.group(1).decode()}' flipped at byte {at}"
                    answers_or_says_damaged(d, fixed, at, 0, ["live", "--once", "--run", "tuesday"], what)
            shutil.rmtree(d)
            said.append(f"{fixture}: {len(keys)} keys' run names flipped letter by letter")
        if "flags" in parts:
            # And LMDB's main database, which names the others: each bit of a
            # database's node flags there, in every copy of its page the file
            # holds (a flipped flag once sent mdb_dbi_open out of the map while
            # the store was being opened).
            names = [b"records", b"facts", b"meta", b"cache", b"cache_age", b"readings", b"trials"]
            nodes = [(n, m.start()) for n in names for m in re.finditer(bytes([len(n), 0]) + n, fixed)]
            if len(nodes) < len(names):
                fail(f"{fixture}: the main database's nodes were not found to flip (only {len(nodes)})")
            d = os.path.join(T, fixture + "-main")
            os.makedirs(d)
            for name, at in nodes:
                byte = at - 2  # the flags' low byte (the key size is at `at`)
                for bit in range(8):
                    what = f"{fixture}: bit {bit} of byte {byte} (the node of database '{name.decode()}' in the main database) flipped"
                    answers_or_says_damaged(d, fixed, byte, bit, ["runs"], what)
            shutil.rmtree(d)
            said.append(f"{fixture}: {len(nodes)} database nodes' flags flipped bit by bit")
    # Then at random, with a fixed seed.
    seed = int(os.environ.get("SOMA_FUZZ_SEED", "20261201"))
    flips = int(os.environ.get("SOMA_FUZZ_FLIPS", "60")) if "random" in parts else 0
    rng = random.Random(seed)
    if flips:
        clean_dir = os.path.join(T, "clean")
        make_full_store(clean_dir)
        clean = answers(clean_dir)
        for k, (rc, o, e) in clean.items():
            if rc != 0:
                fail(f"`soma {k}` fails on the clean store: {e}")
        with open(os.path.join(clean_dir, "data.mdb"), "rb") as f:
            original = f.read()
    tried = 0
    seen_damage = 0
    for i in range(flips + flips // 6):
        d = os.path.join(T, f"d{i}")
        os.makedirs(d)
        data = bytearray(original)
        if i < flips:
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
            what = f"byte {at} flipped"
        else:
            at = rng.randrange(len(data))
            data = data[:at]
            what = f"cut to {at} bytes"
        if i % 2 not in halves:
            shutil.rmtree(d)
            continue
        with open(os.path.join(d, "data.mdb"), "wb") as f:
            f.write(data)
        got = answers(d)
        rc_check, o_check, e_check = soma("check", store=d)
        if rc_check < 0:
            fail(f"{what} (seed {seed}): `soma check` died of signal {-rc_check}")
        if rc_check not in (0, 2):
            fail(f"{what} (seed {seed}): `soma check` exited {rc_check}: {e_check}")
        differs = False
        for k, (rc, o, e) in got.items():
            if rc < 0:
                fail(f"{what} (seed {seed}): `soma {k}` died of signal {-rc}")
            if (rc, o) == clean[k][:2]:
                continue
            differs = True
            if rc == 0 and k == "cache ls" and b"(damaged)" in o:
                # A kept output that is damaged is listed as such (and read as a miss).
                if rc_check != 2:
                    fail(f"{what} (seed {seed}): `soma cache ls` saw damage, `soma check` did not")
                continue
            if rc == 0 and k.startswith("live") and b"cannot be judged: the store is damaged" in o:
                # The view of a run goes on; the opinions, judged over the
                # whole store, say it is damaged elsewhere.
                if rc_check != 2:
                    fail(f"{what} (seed {seed}): `soma live` saw damage, `soma check` did not")
                continue
            if rc == 0:
                fail(f"{what} (seed {seed}): `soma {k}` answered differently with exit 0, "
                     f"believing damage:\n{o[:400]!r}\nclean:\n{clean[k][1][:400]!r}")
            if "damaged" not in e:
                fail(f"{what} (seed {seed}): `soma {k}` failed without saying damage: {e}")
            if rc_check != 2:
                fail(f"{what} (seed {seed}): `soma {k}` saw damage, `soma check` did not: "
                     f"{e} / {o_check.decode()} {e_check}")
        seen_damage += differs
        tried += 1
        shutil.rmtree(d)
    if flips:
        said.append(f"seed {seed}, {tried} damaged copies of a {len(original)}-byte store, "
                    f"{seen_damage} with an answer changed (each said damaged)")
    print(f"{case}: " + "; ".join(said) + "; no signal, no hang")

else:
    fail(f"unknown case {case}")

shutil.rmtree(T, ignore_errors=True)
