#!/usr/bin/env python3
"""bench.py STORE_PROGRAM PYTHONPATH [--runs N] [--points N] [--reps N]:
soma's Python module against the C++ reader alone, on the same store, in
the same run (docs/python.md, benchmarks/README.md "Python").

  curve  store.curve() of a run of N points (1,000,000) into NumPy arrays,
         against soma::curve_series() alone: target <= 2x.
  runs   store.runs() on N runs (10,000), dicts and all: target <= 50 ms;
         soma::runs() + select_runs() alone beside it.

Each figure is the median of --reps (5) calls, after one warm call; the
spread (min..max) is printed beside it. Exits 1 when an answer differs
from what the C++ reader returned (never for a missed target).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def timed(fn, reps):
    fn()  # warm: the pages in memory, as the C++ side's first call left them
    ms = []
    for _ in range(reps):
        began = time.perf_counter()
        out = fn()
        ms.append((time.perf_counter() - began) * 1e3)
    ms.sort()
    return ms[len(ms) // 2], ms[0], ms[-1], out


def cpp(program, where, kind, n):
    out = subprocess.run([program, where, kind, str(n)], check=True, capture_output=True, text=True).stdout
    said = dict(line.split(" ", 1) for line in out.splitlines())
    return float(said["cpp_ms"]), int(said["returned"])


def row(name, ms, lo, hi, floor, target, met):
    print(f"{name:<44} {ms:9.2f} ms  ({lo:.2f}..{hi:.2f})  {floor:<34} target {target}: "
          f"{'met' if met else 'MISSED'}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store_program")
    p.add_argument("pythonpath")
    p.add_argument("--runs", type=int, default=10000)
    p.add_argument("--points", type=int, default=1000000)
    p.add_argument("--reps", type=int, default=5)
    a = p.parse_args()
    sys.path.insert(0, a.pythonpath)
    import soma

    wrong = False
    with tempfile.TemporaryDirectory(prefix="soma-bench-python-") as d:
        where = os.path.join(d, "curve")
        cpp_ms, n = cpp(a.store_program, where, "curve", a.points)
        s = soma.open(where)
        ms, lo, hi, c = timed(lambda: s.curve("long"), a.reps)
        if len(c["value"]) != n or len(c["when_us"]) != n:
            print(f"curve: {len(c['value'])} points, the C++ reader {n}")
            wrong = True
        ratio = ms / cpp_ms
        row(f"curve: {n:,} points into NumPy", ms, lo, hi,
            f"C++ curve_series {cpp_ms:.2f} ms: {ratio:.2f}x", "<= 2x", ratio <= 2)
        s.close()

        where = os.path.join(d, "runs")
        cpp_ms, n = cpp(a.store_program, where, "runs", a.runs)
        s = soma.open(where)
        ms, lo, hi, rows = timed(lambda: s.runs(), a.reps)
        if len(rows) != n:
            print(f"runs: {len(rows)} rows, the C++ reader {n}")
            wrong = True
        row(f"runs: {n:,} runs as dicts", ms, lo, hi,
            f"C++ runs()+select_runs() {cpp_ms:.2f} ms", "<= 50 ms", ms <= 50)
        s.close()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
