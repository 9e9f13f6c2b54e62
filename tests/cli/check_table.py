"""check_table.py TABLE ALIGNS EXPECTED: checks one table `soma` printed.

TABLE is the printed table (header row first). ALIGNS has one letter per
column, L or R: a left-aligned cell starts where its header starts, a
right-aligned one ends where its header ends. EXPECTED has the header's names, then
one line per row, cells separated by tabs; a cell `#` stands for any whole number, `~` for
any duration as tables show one (850µs, 12.3ms, 1.25s, 2m05s, 3h12m, 2d03h), `±` for one
with a sign or none (a difference: +1.20ms, -850µs, 0s), `@` for a UTC
time to the second (2026-12-02T01:23:45Z). Exits 1 naming the first difference.
"""
import re
import sys


# Three significant digits below a minute, then two whole units.
DURATION = (r"0s|[0-9]{1,3}(\.[0-9]{1,2})?(µs|ms|s)"
            r"|[0-9]+m[0-5][0-9]s|[0-9]+h[0-5][0-9]m|[0-9]+d[0-2][0-9]h")


def fail(msg):
    sys.exit(f"check_table: {msg}")


def spans(line):
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]


def main():
    table_path, aligns, expected_path = sys.argv[1:4]
    lines = open(table_path, encoding="utf-8").read().splitlines()
    expected = [l.split("\t") for l in open(expected_path, encoding="utf-8").read().splitlines()]
    if not lines:
        fail("the table is empty")
    header = spans(lines[0])
    names, expected = expected[0], expected[1:]
    if [h[2] for h in header] != names or len(names) != len(aligns):
        fail(f"header {lines[0]!r}, expected the columns {names} ({aligns})")
    rows = lines[1:]
    if len(rows) != len(expected):
        fail(f"{len(rows)} rows, expected {len(expected)}")
    for n, (line, want) in enumerate(zip(rows, expected), 1):
        if line != line.rstrip():
            fail(f"row {n} {line!r} ends in blanks")
        cells = spans(line)
        if len(cells) != len(header):
            fail(f"row {n} {line!r} has {len(cells)} cells, expected {len(header)}")
        for (start, end, text), (hstart, hend, name), side, w in zip(cells, header, aligns, want):
            if side == "L" and start != hstart:
                fail(f"row {n}: {name} {text!r} starts at {start}, its header at {hstart}")
            if side == "R" and end != hend:
                fail(f"row {n}: {name} {text!r} ends at {end}, its header at {hend}")
            ok = {"#": re.fullmatch(r"[0-9]+", text),
                  "~": re.fullmatch(DURATION, text),
                  "±": re.fullmatch(rf"[+-]?({DURATION})", text),
                  "@": re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", text)
                  }.get(w, text == w)
            if not ok:
                fail(f"row {n}: {name} is {text!r}, expected {w!r}")


main()
