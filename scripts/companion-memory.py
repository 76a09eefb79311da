#!/usr/bin/env python3
"""The device's memory while its page is abused (issue 38): a real `pacer device` (the
bundled recording, a simulated battery, the page on a loopback port), its peak resident set
(`VmHWM` in /proc/PID/status) after each of these, and whether the owner can still log in:

  1. FIT uploads at the most points a file may have (100,000 records, 2.1 MB): one, then three
     at once (two are handled, the third is told 503 "busy" with Retry-After);
  2. an 8.2 MB FIT of 400,000 records (the upload limit): refused at record 100,001;
  3. a plan whose YAML aliases expand a thousand million times: refused;
  4. a route whose waypoint name is 100 kB long: imported with the name cut;
  5. 200 slow clients from one address and 200 from as many addresses, each trickling bytes
     into a request head, while the owner logs in (timed).

    scripts/companion-memory.py [--pacer .build/release/pacer] [--budget-mb 128]

It fails (exit 1) when the device's peak passes the budget, when the owner's login takes 2 s
or more, or when an answer is not the one expected.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import socket
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import companion_device  # noqa: E402  (scripts/lib/companion_device.py)
import fit_file  # noqa: E402  (scripts/lib/fit_file.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PASSWORD = "memory test password"


request = companion_device.request


def login(base):
    """The session cookie and the CSRF token."""
    cookie = companion_device.login_cookie(base, PASSWORD, "companion-memory")
    status, _, page = request(base, "GET", "/", headers={"Cookie": cookie})
    match = re.search(r'name="csrf" value="([^"]+)"', page)
    if status != 200 or not match:
        raise SystemExit("companion-memory: the first page answered %d without a CSRF token" % status)
    return cookie, match.group(1)


def upload(base, session, path, field, filename, data, fields=()):
    """POST a multipart upload; `fields` are (name, value) pairs sent beside the file."""
    cookie, csrf = session
    boundary = "----pacer-memory-%d" % time.monotonic_ns()
    body = b""
    for name, value in (("csrf", csrf),) + tuple(fields):
        body += ("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n" % (boundary, name, value)).encode()
    body += ("--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
             "Content-Type: application/octet-stream\r\n\r\n" % (boundary, field, filename)).encode()
    body += data + ("\r\n--%s--\r\n" % boundary).encode()
    status, headers, text = request(base, "POST", path, body, {
        "Cookie": cookie, "Content-Type": "multipart/form-data; boundary=" + boundary})
    return status, headers, text


def peak_mb(pid):
    status = pathlib.Path("/proc/%d/status" % pid).read_text()
    hwm = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
    rss = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))
    return hwm / 1024, rss / 1024


def alias_bomb():
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i, name in enumerate("bcdefghij"):
        previous = "abcdefghij"[i]
        lines.append("%s: &%s [%s]" % (name, name, ", ".join(["*" + previous] * 10)))
    lines.append("workouts: *j")
    return ("\n".join(lines) + "\n").encode()


def long_name_route():
    name = "x" * 100_000
    points = "".join('<rtept lat="%.6f" lon="6.0"/>' % (45 + i * 0.0001) for i in range(50))
    return ('<?xml version="1.0"?><gpx version="1.1" creator="memory" xmlns="http://www.topografix.com/GPX/1/1">'
            '<wpt lat="45.0" lon="6.0"><name>%s</name></wpt><rte><name>Long</name>%s</rte></gpx>' % (name, points)).encode()


def slow_clients(port, sources):
    sockets = []
    for source in sources:
        s = socket.socket()
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(s)
    return sockets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pacer", default=str(ROOT / ".build/release/pacer"))
    parser.add_argument("--budget-mb", type=float, default=128)
    args = parser.parse_args()
    pacer = [str(pathlib.Path(args.pacer).resolve())]
    failures = []
    work = pathlib.Path(tempfile.mkdtemp(prefix="pacer-companion-memory-"))
    device = companion_device.Device(pacer, ROOT, work, "high", PASSWORD)
    device.start()
    try:
        base = device.base
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(base, "GET", "/health", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("companion-memory: the page did not answer in 60 s")
            time.sleep(0.3)
        pid = device.process.pid
        session = login(base)
        rows = [("started, logged in", "", peak_mb(pid))]

        def expect(what, status, wanted, text=""):
            if status not in wanted:
                failures.append("%s: answered %d, expected %s: %s" % (what, status, wanted, text[:300]))

        at_limit = fit_file.activity(100_000)
        status, _, text = upload(base, session, "/activities/import", "file", "limit.fit", at_limit)
        expect("a FIT at the limit", status, (200, 303), text)
        rows.append(("a FIT of 100,000 records (2.1 MB)", status, peak_mb(pid)))

        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            # The same run again each time: "again" imports it anyway (else each is a 409,
            # the run being stored already, and nothing is measured).
            answers = list(pool.map(lambda i: upload(base, session, "/activities/import", "file", "at-once-%d.fit" % i,
                                                     at_limit, (("again", "on"),)), range(3)))
        statuses = sorted(a[0] for a in answers)
        rows.append(("three of them at once", " ".join(map(str, statuses)), peak_mb(pid)))
        busy = [a for a in answers if a[0] == 503]
        if any(a[1].get("Retry-After") is None for a in busy):
            failures.append("a busy upload without Retry-After")

        status, _, text = upload(base, session, "/activities/import", "file", "large.fit", fit_file.activity(390_000))
        expect("an 8.2 MB FIT", status, (400, 422), text)
        rows.append(("a FIT of 390,000 records (8.2 MB)", status, peak_mb(pid)))

        status, _, text = upload(base, session, "/plans/upload", "plan", "bomb.yaml", alias_bomb())
        expect("an alias bomb", status, (400, 422), text)
        rows.append(("a plan of aliases, 10^10 values expanded", status, peak_mb(pid)))

        status, _, text = upload(base, session, "/routes/import", "file", "long.gpx", long_name_route())
        expect("a 100 kB waypoint name", status, (200, 303), text)
        rows.append(("a route with a 100 kB waypoint name", status, peak_mb(pid)))

        held = slow_clients(device.port, ["127.0.0.2"] * 200) + slow_clients(device.port, ["127.0.1.%d" % i for i in range(1, 201)])
        time.sleep(1)
        started = time.monotonic()
        login(base)
        took = time.monotonic() - started
        rows.append(("400 slow clients; the owner's login took %.3f s" % took, "", peak_mb(pid)))
        if took >= 2:
            failures.append("the owner's login took %.3f s with 400 slow clients" % took)
        for s in held:
            s.close()
    finally:
        device.switch_off()

    print("%-50s %-12s %9s %9s" % ("after", "answer", "peak MB", "now MB"))
    for what, answer, (hwm, rss) in rows:
        print("%-50s %-12s %9.1f %9.1f" % (what, answer, hwm, rss))
    peak = max(hwm for _, _, (hwm, _) in rows)
    if peak > args.budget_mb:
        failures.append("the device peaked at %.1f MB, over the budget of %.0f MB" % (peak, args.budget_mb))
    for failure in failures:
        print("companion-memory: " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
