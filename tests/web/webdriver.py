"""A small WebDriver client for Debian's chromium and chromedriver: enough to
open a page, wait for what its script draws, read the DOM and take a
screenshot. Every wait has a deadline; nothing here sleeps for a fixed time
to let something happen."""

import base64
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from harness import eventually


class WebDriverError(RuntimeError):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """Headless chromium driven through chromedriver, for `with`."""

    def __init__(self, width=1280, height=1400, start_within=30, home=None, net_log=False):
        """`home`: the HOME chromium runs with; its .pki/nssdb holds the
        certificate authorities it trusts beyond the system's. `net_log`:
        chromium logs its network events, and a `with` block that fails
        prints the ones that failed (what a page that never loaded met)."""
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="soma-chromium-")
        self.log = open(os.path.join(self.profile, "chromedriver.log"), "w")
        env = dict(os.environ, HOME=home) if home else None
        self.driver = subprocess.Popen(
            ["chromedriver", f"--port={self.port}"], stdout=self.log, stderr=subprocess.STDOUT,
            env=env)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + start_within
        while True:
            try:
                self._call("GET", "/status", timeout=2)
                break
            except (OSError, WebDriverError):
                if time.monotonic() > deadline or self.driver.poll() is not None:
                    self.close()
                    raise WebDriverError(f"chromedriver did not answer within {start_within} s")
                time.sleep(0.05)  # polling a process that is starting; bounded by deadline
        self.net_log = os.path.join(self.profile, "net.json") if net_log else None
        extra = [f"--log-net-log={self.net_log}"] if net_log else []
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--window-size={width},{height}", f"--user-data-dir={self.profile}/data",
                         "--hide-scrollbars", "--no-first-run", "--disable-extensions"] + extra}}}}
        try:
            self.session = self._call("POST", "/session", caps, timeout=60)["sessionId"]
        except Exception:
            self.close()
            raise
        self._call("POST", f"/session/{self.session}/timeouts",
                   {"script": 10000, "pageLoad": 20000, "implicit": 0})

    def _call(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                answer = json.load(res)
        except urllib.error.HTTPError as e:
            raise WebDriverError(f"{method} {path}: {e.code} {e.read()[:500]!r}")
        return answer.get("value")

    def open(self, url):
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script, *args):
        """Runs `script` (a function body) in the page and returns its value."""
        return self._call("POST", f"/session/{self.session}/execute/sync",
                          {"script": script, "args": list(args)})

    def until(self, script, within, what, *args):
        """Runs `script` until it returns something truthy, for at most
        `within` seconds; returns that, or raises naming `what`."""
        last = eventually(lambda: self.run(script, *args), within)
        if not last:
            raise WebDriverError(
                f"waited {within} s for {what}; the page showed: "
                + str(self.run("return document.body.innerText.slice(0, 800)"))
                + "; the requests it finished (ms): "
                + str(self.run("return performance.getEntriesByType('resource')"
                               ".map(e => e.name + ' ' + Math.round(e.duration))")))
        return last

    def screenshot(self, path):
        png = base64.b64decode(self._call("GET", f"/session/{self.session}/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        return png

    def close(self):
        try:
            if getattr(self, "session", None):
                self._call("DELETE", f"/session/{self.session}", timeout=10)
        except Exception:
            pass
        if self.driver.poll() is None:
            self.driver.terminate()
            try:
                self.driver.wait(10)
            except subprocess.TimeoutExpired:
                self.driver.kill()
                self.driver.wait(5)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, *exc):
        self.close()
        if kind is not None and self.net_log:
            self.print_failed_requests()

    def print_failed_requests(self, most=40):
        """Prints the network events of the net log that carry an error,
        counted by error, and the last `most` of them. Name lookups that
        failed (-105) are chromium's own background requests here, where
        nothing but loopback resolves: counted, not shown."""
        try:
            with open(self.net_log) as f:
                lines = [line.strip() for line in f if '"net_error"' in line]
        except OSError as e:
            print(f"no net log to show: {e}")
            return
        counts = {}
        for line in lines:
            code = re.search(r'"net_error":(-?\d+)', line)
            counts[code.group(1) if code else "?"] = counts.get(code.group(1) if code else "?", 0) + 1
        shown = [line for line in lines if '"net_error":-105' not in line][-most:]
        print(f"chromium's network events with an error, by error: {counts}; the last "
              f"{len(shown)} but name lookups:")
        for line in shown:
            print("  " + line[:400])
