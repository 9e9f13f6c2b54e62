"""bench.py STORE_PROGRAM PYTHONPATH [--runs N] [--points N] [--rounds N]:
soma's Python module against the C++ reader alone, on the same store, in
the same run (docs/python.md, benchmarks/README.md "python").

  curve  store.curve() of a run of N points (1,000,000) into NumPy arrays,
         against soma::curve_series() alone: target <= 2x.
  runs   store.runs() on N runs (10,000), dicts and all: target <= 50 ms;
         soma::runs() + select_runs() alone beside it.

This machine's speed drifts by tens of per cent from one minute to the next,
so the two sides alternate: each of --rounds (5) rounds times the C++ reader
(STORE_PROGRAM: the median of 5 calls) and then the module (the median of 5
calls after a warm one). A row shows the median over the rounds, min..max
beside it, and for curve the median of the rounds' ratios. Exits 1 when an
answer differs in size from the C++ reader's (never for a missed target).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(fn):
    fn()  # warm: the pages in memory, as the C++ side's first call left them
    ms = []
    for _ in range(5):
        began = time.perf_counter()
        out = fn()
        ms.append((time.perf_counter() - began) * 1e3)
    return statistics.median(ms), out


def cpp(program, where, kind):
    out = subprocess.run([program, where, kind], check=True, capture_output=True, text=True).stdout
    said = dict(line.split(" ", 1) for line in out.splitlines())
    return float(said["cpp_ms"]), int(said["returned"])


def rounds(program, where, kind, read, size, n):
    """(python ms, c++ ms, ratios) over n rounds; exits when sizes differ."""
    py_ms, cpp_ms, ratios = [], [], []
    for _ in range(n):
        c, returned = cpp(program, where, kind)
        p, got = timed(read)
        if size(got) != returned:
            print(f"{kind}: the module returned {size(got)}, the C++ reader {returned}")
            sys.exit(1)
        py_ms.append(p)
        cpp_ms.append(c)
        ratios.append(p / c)
    return py_ms, cpp_ms, ratios


def spread(xs):
    return f"{statistics.median(xs):8.2f} ms ({min(xs):.2f}..{max(xs):.2f})"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store_program")
    p.add_argument("pythonpath")
    p.add_argument("--runs", type=int, default=10000)
    p.add_argument("--points", type=int, default=1000000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    sys.path.insert(0, a.pythonpath)
    import soma

    with tempfile.TemporaryDirectory(prefix="soma-bench-python-") as d:
        where = os.path.join(d, "curve")
        subprocess.run([a.store_program, where, "curve", str(a.points)], check=True)
        s = soma.open(where)
        py_ms, cpp_ms, ratios = rounds(a.store_program, where, "curve", lambda: s.curve("long"),
                                       lambda c: len(c["when_us"]), a.rounds)
        s.close()
        ratio = statistics.median(ratios)
        print(f"curve: {a.points:,} points into NumPy  {spread(py_ms)}  C++ curve_series {spread(cpp_ms)}"
              f"  ratio {ratio:.2f} ({min(ratios):.2f}..{max(ratios):.2f})"
              f"  target <= 2x: {'met' if ratio <= 2 else 'MISSED'}")

        where = os.path.join(d, "runs")
        subprocess.run([a.store_program, where, "runs", str(a.runs)], check=True)
        s = soma.open(where)
        py_ms, cpp_ms, _ = rounds(a.store_program, where, "runs", lambda: s.runs(), len, a.rounds)
        s.close()
        ms = statistics.median(py_ms)
        print(f"runs: {a.runs:,} runs as dicts  {spread(py_ms)}  C++ runs()+select_runs() {spread(cpp_ms)}"
              f"  target <= 50 ms: {'met' if ms <= 50 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
