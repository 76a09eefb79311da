#!/usr/bin/env python3
"""A load on the companion page (issue 26) while a workout runs, from a second process on
loopback, and whether the device kept its cues on time:

    scripts/companion-load.py [--pacer .build/release/pacer] [--clients 50] [--seconds 60]

A real `pacer device` replays the bundled recording in real time (the scenario's pace:
`file:…?pace=clock`), with the page kept on during the workout (`during_workout: on`: by
default it is off then, which is what a runner gets). The script logs in once, starts the
workout (`pacer ctl start`), then wrk opens CLIENTS connections for SECONDS, each asking for
the live state again and again with a page now and then (scripts/lib/companion-load.lua). Then
the workout is stopped and the device switched off, and the script prints:

  - wrk's figures: requests, requests per second, latency (50/90/99 % and the worst), the
    responses that were not 2xx/3xx and the socket errors (a connection refused, reset or
    timed out: none should be);
  - the device's clock loop (`clock loop:` in its output when it stops, `LoopLateness`): how
    late it began its tasks, which is how late a cue can be;
  - the activity stored, its cues and points.

It fails (exit 1) when any request failed or was refused, when the workout was not stored,
or when the loop began a task more than --late-ms late (default 100 ms: a cue a tenth of a
second late is not heard as late).
"""
import argparse
import os
import pathlib
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import companion_device  # noqa: E402  (scripts/lib/companion_device.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PASSWORD = "load test password"


def login(base):
    """The session cookie for PASSWORD."""
    return companion_device.login_cookie(base, PASSWORD, "companion-load")


def wait_state(device, word, seconds):
    deadline = time.monotonic() + seconds
    text = ""
    while time.monotonic() < deadline:
        status, text = device.ctl("status")
        if status == 0 and word in text:
            return text
        time.sleep(0.3)
    raise SystemExit("companion-load: the device is not %s after %d s: %s" % (word, seconds, text))


def wrk_figures(text):
    figures = {}
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", text)
    if m:
        figures["requests"] = int(m.group(1))
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if m:
        figures["per_second"] = float(m.group(1))
    for pct in ("50", "90", "99"):
        m = re.search(r"\s%s%%\s+([\d.]+\w+)" % pct, text)
        if m:
            figures["p" + pct] = m.group(1)
    m = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", text)
    if m:
        figures["max"] = m.group(1)
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    figures["not_ok"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    figures["socket_errors"] = sum(int(g) for g in m.groups()) if m else 0
    figures["socket_detail"] = m.group(0) if m else "Socket errors: none"
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pacer", default=str(ROOT / ".build/release/pacer"))
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--late-ms", type=float, default=100)
    args = parser.parse_args()
    pacer = [str(pathlib.Path(args.pacer).resolve())]
    work = pathlib.Path(tempfile.mkdtemp(prefix="pacer-load-"))
    # wrk's clients all come from 127.0.0.1: the page's limit per address (16 by default, a
    # phone's browser opens up to 6) is raised for them.
    device = companion_device.Device(pacer, ROOT, work, "high", PASSWORD,
                                     ["connections_per_address: %d" % max(16, args.clients + 4)])
    base, data, log_path = device.base, device.data, device.log_path
    device.run("plan", "activate", "easy-run")
    device.start()
    failures = []
    try:
        wait_state(device, "ready", 30)
        cookie = login(base)
        status, text = device.ctl("start")
        if status != 0:
            raise SystemExit("companion-load: pacer ctl start: %s" % text)
        wait_state(device, "phase ", 10)  # a running workout's status line: 00:00:10  phase 1/3 …
        started = time.monotonic()
        env = dict(os.environ, PACER_COOKIE=cookie)
        wrk = subprocess.run(["wrk", "-t", "2", "-c", str(args.clients), "-d", "%ds" % args.seconds, "--latency",
                              "--timeout", "5s", "-s", str(ROOT / "scripts/lib/companion-load.lua"), base + "/"],
                             capture_output=True, text=True, env=env)
        if wrk.returncode != 0:
            raise SystemExit("companion-load: wrk: %s" % wrk.stderr.strip())
        figures = wrk_figures(wrk.stdout)
        status, line = device.ctl("status")
        if "phase " not in line:
            failures.append("the workout was not running at the end of the load: %s" % line)
        status, text = device.ctl("stop")
        wait_state(device, "ready", 20)
        ran = time.monotonic() - started
    finally:
        device.switch_off()
    output = log_path.read_text()
    loop = re.search(r"clock loop: (\d+) tasks; 99 % began within ([\d.]+ ms|over 1000 ms) of their time, "
                     r"99\.9 % within ([\d.]+ ms|over 1000 ms); the latest ([\d.]+) ms late", output)
    db = sqlite3.connect(str(data / "pacer.sqlite"))
    activity = db.execute("SELECT id, state, distance_m FROM activities ORDER BY id DESC LIMIT 1").fetchone()
    points = db.execute("SELECT COUNT(*) FROM track_points").fetchone()[0]
    cues = db.execute("SELECT COUNT(*) FROM cues").fetchone()[0]
    db.close()

    print("companion load: %d clients for %d s on loopback while a workout ran (%.0f s in all)"
          % (args.clients, args.seconds, ran))
    print("  wrk: %d requests, %.0f per second; latency 50 %% %s, 90 %% %s, 99 %% %s, worst %s"
          % (figures.get("requests", 0), figures.get("per_second", 0), figures.get("p50"), figures.get("p90"),
             figures.get("p99"), figures.get("max")))
    print("  wrk: %d responses not 2xx/3xx; %s" % (figures["not_ok"], figures["socket_detail"]))
    if loop:
        print("  device clock loop: %s tasks; 99 %% began within %s of their time, 99.9 %% within %s; the latest %s ms late"
              % loop.groups())
    else:
        failures.append("the device did not say how late its loop ran (no 'clock loop:' line in %s)" % log_path)
    print("  activity %s: %s, %.0f m, %d points, %d cues stored" % (
        activity[0] if activity else "-", activity[1] if activity else "none", activity[2] if activity else 0, points, cues))
    if figures["not_ok"] or figures["socket_errors"]:
        failures.append("requests failed: %d not 2xx/3xx, %s" % (figures["not_ok"], figures["socket_detail"]))
    if not figures.get("requests"):
        failures.append("wrk made no request")
    if loop and float(loop.group(4)) > args.late_ms:
        failures.append("the loop began a task %s ms late (at most %g ms)" % (loop.group(4), args.late_ms))
    if not activity or points < 4 or cues < 1:
        failures.append("the workout was not stored with its points")
    if failures:
        for failure in failures:
            print("FAIL companion load: " + failure)
        print("  (the device's output: %s)" % log_path)
        return 1
    print("OK companion load")
    return 0


if __name__ == "__main__":
    sys.exit(main())
