"""soma serve beyond loopback, as a person would run it: certificates from
soma-certs, `soma serve --listen 0.0.0.0:0 --tls-cert --tls-key`, and a real
headless Chromium that trusts the CA (an NSS database in its HOME, as a user
adds a CA to their browser). The page loads over HTTPS with the store's runs
and its live stream runs over TLS. A browser matches a host against the
certificate's subjectAltName only, never its CN: a certificate soma-certs
issued for another host is refused, and so is one for the right host from a
CA the browser does not trust. Python's TLS, told not to fall back to the
CN (as browsers and Go do not), accepts the same certificate for the API.
A --host that is neither a DNS name nor an address is refused.

    https_test.py SOMA SOMA_CERTS RECORD_CHILD

Every wait has a deadline."""

import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
import webdriver  # noqa: E402
from harness import check, report, started, stop  # noqa: E402

SOMA, SOMA_CERTS, RECORD_CHILD = sys.argv[1], sys.argv[2], sys.argv[3]


def run(*args, env=None):
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=60, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def serve_tls(store, certs, name):
    proc, url = started([SOMA, "serve", "--store", store, "--listen", "0.0.0.0:0",
                         "--tls-cert", os.path.join(certs, name + ".pem"),
                         "--tls-key", os.path.join(certs, name + ".key")], "https://")
    port = int(url.rsplit(":", 1)[1].rstrip("/"))
    return proc, url, port


def trusting_home(work, ca):
    """A HOME whose NSS database trusts `ca` to issue server certificates."""
    home = os.path.join(work, "home")
    db = os.path.join(home, ".pki", "nssdb")
    os.makedirs(db)
    run("certutil", "-d", "sql:" + db, "-N", "--empty-password")
    run("certutil", "-d", "sql:" + db, "-A", "-t", "C,,", "-n", "soma test CA", "-i", ca)
    return home


def refused(b, url):
    """Why the browser refused to load `url` (its error code, NET::ERR_CERT_...),
    or None when it loaded soma's page."""
    try:
        b.open(url)
    except webdriver.WebDriverError as e:
        return str(e)
    return b.until("return document.querySelector('tr[data-run]') ? 'loaded' : "
                   "(document.body.innerText.match(/NET::ERR_CERT_[A-Z_]+/) || [])[0]",
                   20, "the page or the browser's refusal")


def main():
    if not shutil.which("certutil"):
        print("FAIL: certutil (Debian's libnss3-tools) is needed; scripts/setup installs it")
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="soma-https-")
    certs = os.path.join(work, "certs")
    other = os.path.join(work, "other")
    store = os.path.join(work, "store")
    servers = []
    try:
        run(SOMA_CERTS, "ca", certs)
        said = run(SOMA_CERTS, "issue", certs, "web", "--host", "localhost", "--host", "127.0.0.1")
        check("for DNS:web DNS:localhost IP:127.0.0.1" in said, f"soma-certs says the names: {said!r}")
        run(SOMA_CERTS, "issue", certs, "w1")  # a certificate for the host w1 only
        for bad, says in (("a b", "takes a DNS name"), ("300.1.2.3", "an octet over 255"),
                          ("1:::2", "bad ip address")):
            done = subprocess.run([SOMA_CERTS, "issue", certs, "bad", "--host", bad],
                                  capture_output=True, text=True, timeout=60)
            check(done.returncode == 2 and says in done.stderr and bad in done.stderr
                  and not os.path.exists(os.path.join(certs, "bad.key"))
                  and not os.path.exists(os.path.join(certs, "bad.pem")),
                  f"--host {bad!r} exits 2 naming it, making nothing: {done.returncode} {done.stderr!r}")
        run(SOMA_CERTS, "ca", other)
        run(SOMA_CERTS, "issue", other, "web", "--host", "localhost")
        run(RECORD_CHILD, store, "run-a", "30", "10")

        good = serve_tls(store, certs, "web")
        servers.append(good[0])
        wrong_host = serve_tls(store, certs, "w1")
        servers.append(wrong_host[0])
        wrong_ca = serve_tls(store, other, "web")
        servers.append(wrong_ca[0])
        check(good[1] == f"https://0.0.0.0:{good[2]}/", f"the first line is the URL served: {good[1]}")

        # Python's TLS with the CA, never falling back to the CN.
        ctx = ssl.create_default_context(cafile=os.path.join(certs, "ca.pem"))
        ctx.hostname_checks_common_name = False
        with urllib.request.urlopen(f"https://localhost:{good[2]}/api/runs", context=ctx, timeout=10) as r:
            api = json.load(r)
        check([x["run"] for x in api["runs"]] == ["run-a"] and api["runs"][0]["forwards"] == 30,
              f"/api/runs over HTTPS holds the store's run: {api}")
        try:
            urllib.request.urlopen(f"https://localhost:{wrong_host[2]}/api/runs", context=ctx, timeout=10)
            check(False, "a certificate for w1 was accepted for localhost")
        except urllib.error.URLError as e:
            check("match" in str(e.reason), f"a certificate for w1 is refused for localhost: {e.reason}")

        home = trusting_home(work, os.path.join(certs, "ca.pem"))
        with webdriver.Browser(home=home, net_log=True) as b:
            url = f"https://localhost:{good[2]}/"
            b.open(url)
            b.until("return document.querySelectorAll('tr[data-run]').length === 1", 20,
                    "the run over HTTPS")
            shown = b.run("return [location.protocol, document.querySelector('tr[data-run]').dataset.run,"
                          " document.querySelector('tr[data-run] td.forwards').textContent]")
            check(shown == ["https:", "run-a", "30"], f"the page over HTTPS shows the store's run: {shown}")
            b.open(url + "run/run-a")
            b.until("return document.querySelector('#live.on')", 20, "the live stream over TLS")
            b.until("return document.querySelector('#curve svg')", 20, "the curve over HTTPS")

            why = refused(b, f"https://localhost:{wrong_host[2]}/")
            check(why == "NET::ERR_CERT_COMMON_NAME_INVALID",
                  f"the browser refuses a certificate for w1 at localhost: {why}")
            why = refused(b, f"https://localhost:{wrong_ca[2]}/")
            check(why == "NET::ERR_CERT_AUTHORITY_INVALID",
                  f"the browser refuses a certificate from a CA it does not trust: {why}")
    finally:
        for s in servers:
            stop(s)
        shutil.rmtree(work, ignore_errors=True)
    report("https")


main()
