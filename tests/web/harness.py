"""What the page tests share: checks that are gathered rather than fatal, and
reading a line from a process within a deadline, and pointing at a curve."""

import os
import select
import signal
import subprocess
import sys
import time

failures = []


# Moves the pointer to the middle of the curve's plot area (#curve svg) and
# returns what the page's tip then says.
HOVER_MIDDLE = """
    const svg = document.querySelector('#curve svg');
    const [l, t, r, bt] = svg.dataset.area.split(' ').map(Number);
    const box = svg.getBoundingClientRect(), k = box.width / svg.viewBox.baseVal.width;
    const x = box.left + (l + (r - l) / 2) * k, y = box.top + (t + bt) / 2 * k;
    document.getElementById('curve').dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true}));
    return document.getElementById('tip').textContent;"""


def check(ok, what):
    """Counts `what` as failed unless `ok`; the test goes on to its end."""
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def line_of(proc, prefix, within):
    """The first line of proc's stdout starting with `prefix`, within `within` s."""
    deadline = time.monotonic() + within
    fd = proc.stdout.fileno()
    buf = getattr(proc, "soma_buffer", b"")
    while True:
        *lines, rest = buf.split(b"\n")
        for i, line in enumerate(lines):
            if line.decode().startswith(prefix):
                proc.soma_buffer = b"\n".join(lines[i + 1:] + [rest])
                return line.decode()
        buf = rest
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk
    raise RuntimeError(f"no line starting {prefix!r} within {within} s; got {buf!r}")


def eventually(probe, within):
    """Calls `probe` until it returns something truthy, for at most `within`
    seconds (every 50 ms: what it watches moves on its own clock); returns
    its last answer, truthy or not."""
    deadline = time.monotonic() + within
    while True:
        last = probe()
        if last or time.monotonic() > deadline:
            return last
        time.sleep(0.05)


def started(args, prefix, within=15):
    """Starts `args` and waits for its stdout's first line starting with
    `prefix` (a server's URL); returns the process and that line. A process
    that says nothing of the kind in time is killed, not left running."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return proc, line_of(proc, prefix, within).strip()
    except Exception:
        proc.kill()
        proc.wait(10)
        raise


def stop(server):
    """Stops a `soma serve` with SIGTERM; one still there 10 s later is a failure."""
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(5)
        failures.append("soma serve did not stop within 10 s of SIGTERM")


def report(name):
    """Ends the test: exit 1 naming how many checks failed, else 0."""
    if failures:
        print(f"{len(failures)} failed", flush=True)
        sys.exit(1)
    print(f"{name}: every check passed")
