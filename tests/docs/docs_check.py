#!/usr/bin/env python3
"""docs_check.py [--update] [--path DIR]... [--work NAME=DIR]... [--python EXE
--pythonpath DIR] FILE...: the code and the output the docs show are the code
that builds and the output it gives.

Three markers, each on the line before a fenced block:

  <!-- code: PATH#NAME -->
      The block is the region NAME of PATH (relative to the repository): the
      lines between two lines holding `//! [NAME]` (Doxygen's snippet
      markers, so `\\snippet PATH NAME` shows the same lines), dedented.

  <!-- output: NAME -->
      The block is `$ COMMAND` lines each followed by what it prints (stdout,
      then stderr). Each command is run with bash in the directory --work
      gave NAME (cli: the stores tests/cli's setup records, store, fleet and
      damaged; demo: recording_a_run's store), SOMA_STORE=store, with each
      --path DIR (the programs) first on PATH. What a run does not decide is
      compared as a shape: a duration (850µs, 1.25s, 2m05s) matches any
      duration (a difference of two, +850µs or -1.25s, any too), a UTC time
      any UTC time, a temporary directory any; runs of blanks count as one.
      A line `...` (indented or not) stands for any lines up to the next
      one shown.

  <!-- python: NAME -->
      The block is a Python session: `>>> ` lines (and their `... `
      continuations) each followed by what the interpreter shows, run in
      order by --python (with --pythonpath first on its path) in the
      directory --work gave NAME, one namespace for the block. An exception
      shows as the interpreter shows it, with its traceback's frames as one
      line `  ...`. Compared as output blocks are. Without --python these
      blocks are not checked (a build without the Python module).

Without --update it exits 1 naming each block that differs, and how. With
--update it rewrites the blocks from the files and the commands (review the
diff: times become this run's).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"^<!-- (code|output|python): (\S+) -->$")

DURATION = re.compile(r"(?<![\w.])(?:[0-9]+(?:\.[0-9]+)?(?:µs|ms|s)|[0-9]+m[0-5][0-9]s"
                      r"|[0-9]+h[0-5][0-9]m|[0-9]+d[0-2][0-9]h)(?![\w.])")
TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{3})?Z")
SPACED = re.compile(r"(?<![\w.])[0-9]+(?:\.[0-9]+)? (?:µs|ms|s)(?![\w.])")
# A difference of two durations (`soma compare`): its sign is the run's too.
SIGNED = re.compile(r"(?<![\w.])[+-]~")
TEMP = re.compile(r"/tmp/[\w.-]+")
# --json keeps raw times: microseconds and unix seconds (quoted as JSON or as
# Python's repr quotes a dict's keys).
RAW_TIME = re.compile(r'(["\'](?:\w+_us|when|first|last|kept_at)["\']: ?)"?-?[0-9][0-9.e+-]*"?')
# --json names processes: the host and pid of whatever ran the example.
PROCESS = re.compile(r'(["\'](?:host|pid)["\']: ?)(?:"[^"]*"|\'[^\']*\'|[0-9]+)')


def shape(line):
    line = TIME.sub("@", line)
    line = DURATION.sub("~", line)
    line = SPACED.sub("~", line)
    line = SIGNED.sub("~", line)
    line = RAW_TIME.sub(r"\1#", line)
    line = PROCESS.sub(r"\1#", line)
    line = TEMP.sub("/tmp/…", line)
    return " ".join(line.split())


def region(path, name):
    """The lines of PATH between its two `//! [NAME]` lines, dedented."""
    full = os.path.join(ROOT, path)
    try:
        lines = open(full, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise SystemExit(f"docs_check: cannot read {path}: {e.strerror}")
    marks = [i for i, l in enumerate(lines) if l.strip() == f"//! [{name}]"]
    if len(marks) != 2:
        raise SystemExit(f"docs_check: {path} has {len(marks)} lines '//! [{name}]'; "
                         "a region needs exactly two (its start and its end)")
    # A region inside this one shows without its markers.
    body = [l for l in lines[marks[0] + 1:marks[1]] if not re.fullmatch(r"\s*//! \[[\w-]+\]", l)]
    indent = min((len(l) - len(l.lstrip()) for l in body if l.strip()), default=0)
    return [l[indent:] for l in body]


def run(command, paths, work):
    env = dict(os.environ, PATH=os.pathsep.join(paths + [os.environ["PATH"]]),
               SOMA_STORE="store", NO_COLOR="1", COLUMNS="80")
    try:
        done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True,
                              text=True, timeout=30)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"docs_check: `{command}` did not end within 30 s")
    out = done.stdout.splitlines() + done.stderr.splitlines()
    return out


def outputs(block, paths, work):
    """The block with each command's output as it is now."""
    fresh = []
    for k, line in enumerate(block):
        if line.startswith("$ "):
            if k > 0 and block[k - 1] == "" and fresh and fresh[-1] != "":
                fresh.append("")  # the blank line the docs keep between commands
            fresh.append(line)
            fresh.extend(run(line[2:], paths, work))
    return fresh


# What runs a Python block: its statements as JSON on stdin, each compiled as
# the interactive interpreter compiles a line ("single": an expression's
# value is printed with its repr), then a NUL line after each one's output.
SESSION = r"""
import json, sys
ns = {"__name__": "__main__"}
for source in json.load(sys.stdin):
    try:
        exec(compile(source, "<docs>", "single"), ns)
    except Exception as e:
        kind = type(e)
        name = kind.__qualname__ if kind.__module__ == "builtins" else kind.__module__ + "." + kind.__qualname__
        print("Traceback (most recent call last):")
        print("  ...")
        print(f"{name}: {e}")
    sys.stdout.flush()
    print("\0", flush=True)
"""


def session(block, python, pythonpath, work):
    """The Python block with each statement's output as it is now."""
    statements = []  # each statement's lines: `>>> ` and its `... ` continuations
    continuing = False
    for line in block:
        if line.startswith(">>> "):
            statements.append([line])
            continuing = True
        elif continuing and line.startswith("... "):
            statements[-1].append(line)
        else:
            continuing = False  # its output (where a line `...` stands for any lines)
    sources = ["\n".join(l[4:] for l in lines) + ("\n" if len(lines) > 1 else "")
               for lines in statements]
    env = dict(os.environ, PYTHONPATH=pythonpath, SOMA_STORE="store", NO_COLOR="1")
    try:
        done = subprocess.run([python, "-c", SESSION], input=json.dumps(sources), cwd=work, env=env,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise SystemExit("docs_check: a Python block did not end within 60 s")
    if done.returncode != 0:
        raise SystemExit(f"docs_check: the Python session failed: {done.stderr}")
    said = done.stdout.split("\0\n")
    fresh = []
    for k, lines in enumerate(statements):
        fresh.extend(lines)
        fresh.extend(said[k].splitlines() if k < len(said) else [])
    return fresh


def matches(shown, fresh):
    """Where SHOWN (with its `...` lines) and FRESH first part, or None: the
    part the furthest into SHOWN of every way the `...` lines may be read."""
    worst = [(-1, None)]

    def at(i, j):
        if i == len(shown):
            if j == len(fresh):
                return True
            worst[0] = max(worst[0], (i, fresh[j]), key=lambda w: w[0])
            return False
        if shown[i].strip() == "...":
            # Any lines of this command's output, as few as need be.
            for k in range(j, len(fresh) + 1):
                if at(i + 1, k):
                    return True
                if k < len(fresh) and fresh[k].startswith("$ "):
                    break
            return False
        if j < len(fresh) and shape(shown[i]) == shape(fresh[j]):
            return at(i + 1, j + 1)
        worst[0] = max(worst[0], (i, fresh[j] if j < len(fresh) else "(nothing)"),
                       key=lambda w: w[0])
        return False

    return None if at(0, 0) else worst[0]


def blocks(lines):
    """(kind, what, first line, end line) of each marked fenced block."""
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            end = i + 2
            while end < len(lines) and lines[end] != "```":
                end += 1
            if end == len(lines):
                raise SystemExit(f"docs_check: the block after line {i + 1} never closes")
            yield m.group(1), m.group(2), i + 2, end
            i = end
        i += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--update", action="store_true")
    p.add_argument("--path", action="append", default=[])
    p.add_argument("--work", action="append", default=[])
    p.add_argument("--python", default="")
    p.add_argument("--pythonpath", default="")
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    works = dict(w.split("=", 1) for w in a.work)
    paths = [os.path.abspath(d) for d in a.path]
    wrong = checked = 0
    for path in a.files:
        lines = open(path, encoding="utf-8").read().splitlines()
        new = list(lines)
        shift = 0
        for kind, what, first, end in list(blocks(lines)):
            shown = lines[first:end]
            if kind == "code":
                file, _, name = what.partition("#")
                fresh = region(file, name)
                differs = None if fresh == shown else next(
                    ((k, fresh[k] if k < len(fresh) else "(nothing)")
                     for k in range(max(len(shown), len(fresh)))
                     if k >= len(shown) or k >= len(fresh) or shown[k] != fresh[k]), None)
            elif kind == "python":
                if not a.python:
                    continue  # no Python module in this build
                if what not in works:
                    raise SystemExit(f"docs_check: {path}:{first}: no --work {what}=DIR for its session")
                fresh = session(shown, a.python, os.path.abspath(a.pythonpath), works[what])
                differs = matches(shown, fresh)
            else:
                if what not in works:
                    if a.work:
                        raise SystemExit(f"docs_check: {path}:{first}: no --work {what}=DIR "
                                         "for its output")
                    continue  # code only
                fresh = outputs(shown, paths, works[what])
                differs = matches(shown, fresh)
            checked += 1
            if differs is None:
                continue
            if a.update:
                new[first + shift:end + shift] = fresh
                shift += len(fresh) - len(shown)
                continue
            wrong += 1
            at, got = differs
            said = shown[at] if at < len(shown) else "(nothing)"
            print(f"{path}:{first + at + 1}: the docs show {said!r}, but {what} gives {got!r}; "
                  f"`tests/docs/docs_check.py --update` rewrites the block", file=sys.stderr)
        if a.update and new != lines:
            open(path, "w", encoding="utf-8").write("\n".join(new) + "\n")
            print(f"docs_check: rewrote {path}", file=sys.stderr)
    if not checked:
        raise SystemExit("docs_check: no marked block in " + " ".join(a.files))
    if wrong:
        raise SystemExit(f"docs_check: {wrong} of {checked} blocks differ from what they show")
    print(f"docs_check: {checked} blocks are current")


main()
