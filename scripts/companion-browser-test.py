#!/usr/bin/env python3
"""The companion page (issue 26) driven end to end in headless Chromium, as a runner would
use it from a phone, against a real `pacer device` on the bundled recording in real time:

    scripts/companion-browser-test.py [--pacer .build/debug/pacer] [--screenshots DIR]

  1. log in with the password `pacer companion password` set (a wrong one first: refused);
  2. upload a route (a GPX the script writes), choose it for the next workout;
  3. activate a plan;
  4. start the workout with a simulated press (`pacer ctl press short`, as the button's
     decoder hands it on) and watch the live state on the page turn to running, its
     distance grow, then stop it with the page's own Stop button and see it ready again;
  5. download the activity's FIT from its page and check it with Garmin's FIT SDK
     (scripts/fit-dump.py: integrity, a lap, records with positions).

Any console error, uncaught exception, failed request or HTTP status of 400 or more (but the
wrong password's 401, which step 1 asks for) fails the test, as does any step that does not
do what it says. The device runs with `during_workout: on` so that the page can be watched
during the workout; the page going off during a workout by default is the server's own test.
With --screenshots, each page is saved as a PNG (docs/images/companion-*.png come from here).

Prints a line per step and "OK companion: …" at the end; exit status 0 when every step
passed, 1 otherwise, 69 when Chromium cannot be found.
"""
import argparse
import base64
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import companion_device  # noqa: E402  (scripts/lib/companion_device.py)
import devtools  # noqa: E402  (scripts/lib/devtools.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple"


class Failed(Exception):
    pass


STEPS = []




def route_gpx(path):
    """A route of 21 points along the bundled recording's loop (Delft), 1 km or so."""
    points = []
    for i in range(21):
        lat = 52.0130 + i * 0.00045
        lon = 4.3660 + i * 0.00012
        points.append('<trkpt lat="%.6f" lon="%.6f"/>' % (lat, lon))
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<gpx version="1.1" creator="companion-browser-test" xmlns="http://www.topografix.com/GPX/1/1">'
                    '<trk><name>Canal loop</name><trkseg>' + "".join(points) + '</trkseg></trk></gpx>\n')


class Page:
    """One tab, with the steps a person takes: go to a page, fill a field, press a button."""

    def __init__(self, browser, base, timeout, screenshots):
        self.browser = browser
        self.base = base
        self.timeout = timeout
        self.screenshots = screenshots
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network", "DOM"):
            browser.call(domain + ".enable", session=self.session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 420, "height": 860, "deviceScaleFactor": 1, "mobile": True}, session=self.session)

    def call(self, method, params=None):
        return self.browser.call(method, params, session=self.session, timeout=self.timeout)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise Failed("script %r: %s" % (expression, devtools.describe_exception(result)))
        return result.get("result", {}).get("value")

    def loaded(self):
        """Waits for the next load of the tab (the failure says after which steps)."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            for i, event in enumerate(self.browser.events):
                if event["method"] == "Page.loadEventFired" and event.get("sessionId") == self.session:
                    event["method"] = "Page.loadEventFired (seen)"
                    return
            self.browser.wait_for("Page.loadEventFired", 0.2)
        raise Failed("the page did not load within %d s (at %s, after: %s)"
                     % (self.timeout, self.evaluate("location.href"), "; ".join(STEPS)))

    def go(self, path):
        navigation = self.call("Page.navigate", {"url": self.base + path})
        if navigation.get("errorText"):
            raise Failed("%s did not load: %s" % (path, navigation["errorText"]))
        self.loaded()

    def submit(self, form_selector, button_selector=None):
        """Presses a form's button (the first, or `button_selector`) and waits for the page it leads to."""
        button = (button_selector or form_selector + " button")
        clicked = self.evaluate("(() => { const b = document.querySelector(%s); if (!b) return false; b.click(); return true })()"
                                % json.dumps(button))
        if not clicked:
            raise Failed("no %s on %s" % (button, self.evaluate("location.pathname")))
        self.loaded()

    def click(self, selector):
        """Presses a button the page's script answers in place (no new page)."""
        if not self.evaluate("(() => { const b = document.querySelector(%s); if (!b) return false; b.click(); return true })()"
                             % json.dumps(selector)):
            raise Failed("no %s on %s" % (selector, self.evaluate("location.pathname")))

    def fill(self, selector, value):
        if not self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return false; e.value = %s; return true })()"
                             % (json.dumps(selector), json.dumps(value))):
            raise Failed("no field %s on %s" % (selector, self.evaluate("location.pathname")))

    def attach(self, selector, path):
        root = self.call("DOM.getDocument")["root"]["nodeId"]
        node = self.call("DOM.querySelector", {"nodeId": root, "selector": selector}).get("nodeId")
        if not node:
            raise Failed("no file field %s on %s" % (selector, self.evaluate("location.pathname")))
        self.call("DOM.setFileInputFiles", {"files": [str(path)], "nodeId": node})

    def text(self, selector):
        return self.evaluate("(() => { const e = document.querySelector(%s); return e ? e.textContent : null })()"
                             % json.dumps(selector))

    def wait_text(self, selector, predicate, what, seconds):
        deadline = time.monotonic() + seconds
        seen = None
        while time.monotonic() < deadline:
            seen = self.text(selector)
            if seen is not None and predicate(seen):
                return seen
            self.browser.drain(quiet=0.25)
        raise Failed("%s: %s still reads %r after %d s" % (what, selector, seen, seconds))

    def shot(self, name):
        if not self.screenshots:
            return
        metrics = self.call("Page.getLayoutMetrics")
        height = int(metrics.get("cssContentSize", metrics.get("contentSize", {})).get("height", 860) + 0.5)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 420, "height": max(height, 300), "deviceScaleFactor": 1, "mobile": True})
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        out = pathlib.Path(self.screenshots) / ("companion-%s.png" % name)
        out.write_bytes(base64.b64decode(shot["data"]))
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 420, "height": 860, "deviceScaleFactor": 1, "mobile": True})
        print("  screenshot %s" % out)


def run(args):
    work = pathlib.Path(tempfile.mkdtemp(prefix="pacer-companion-"))
    pacer = [str(pathlib.Path(args.pacer).resolve())]
    # The high profile keeps a point every 10 s: a short run has a few for its FIT.
    device = companion_device.Device(pacer, ROOT, work, "high", PASSWORD)
    base = device.base
    device.start()
    profile = tempfile.mkdtemp(prefix="pacer-companion-chromium-")
    browser = None
    steps = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as r:
                    health = json.loads(r.read())
                    break
            except OSError:
                if time.monotonic() > deadline or device.process.poll() is not None:
                    raise Failed("the page never answered /health on %s (device log: %s)" % (base, device.log_path))
                time.sleep(0.2)
        steps.append("health: %s" % health.get("state"))
        global STEPS
        STEPS = steps

        browser = devtools.Browser(args.chromium, profile)
        downloads = work / "downloads"
        downloads.mkdir()
        browser.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads),
                                                     "eventsEnabled": True})
        page = Page(browser, base, args.timeout, args.screenshots)

        # 1. Log in: a wrong password is refused (401), the right one opens the live state.
        page.go("/")
        if page.text("form#login") is None:
            raise Failed("/ without a login does not show the login form")
        page.shot("login")
        page.fill("#password", "not the password")
        page.submit("form#login")
        if page.text("form#login") is None or page.text("#refused") is None:
            raise Failed("a wrong password was not refused with a message: %s" % page.text("body"))
        page.fill("#password", PASSWORD)
        page.submit("form#login")
        page.wait_text("#state", lambda s: s.strip() in ("searching", "ready"), "the live state after login", 20)
        steps.append("logged in (a wrong password refused first)")

        # 2. A route: uploaded, then chosen for the next workout.
        route = work / "canal-loop.gpx"
        route_gpx(route)
        page.go("/routes")
        page.attach("form#route-upload input[type=file]", route)
        page.submit("form#route-upload")
        if "Canal loop" not in (page.text("main") or ""):
            raise Failed("the uploaded route is not listed: %r" % (page.text("#notice") or page.text("#refused")))
        page.shot("routes")
        page.submit("form#follow", "form#follow button")
        if "Canal loop" not in (page.text("#following") or ""):
            raise Failed("the routes page does not say the next workout follows it: %r" % page.text("main"))
        steps.append("route uploaded and chosen: %s" % (page.text("#notice") or "").strip())

        # 3. A plan activated.
        page.go("/plans")
        page.submit("form#form-activate-bundled-easy-run-yaml", "button#activate-bundled-easy-run-yaml")
        notice = (page.text("#notice") or "").strip()
        if not notice:
            raise Failed("activating a plan said nothing: %r" % page.text("#refused"))
        page.shot("plans")
        steps.append("plan activated: %s" % notice)

        # 4. The workout: started by a press, watched live, stopped from the page.
        page.go("/")
        page.wait_text("#state", lambda s: s.strip() == "ready", "the device before the press", 30)
        # The buttons of the state alone: Start while ready; Pause, Stop, Waypoint while running.
        def shown():
            return page.evaluate("Array.from(document.querySelectorAll('#controls form'))"
                                 ".filter(f => getComputedStyle(f).display !== 'none').map(f => f.id).join(' ')")
        if shown() != "command-start":
            raise Failed("the buttons while ready: %r (only Start should be shown)" % shown())
        status, answer = device.ctl("press", "short")
        if status != 0:
            raise Failed("pacer ctl press short: %s" % answer)
        page.wait_text("#state", lambda s: s.strip() == "running", "the live state after the press", 15)
        if shown() != "command-pause command-lap command-stop command-waypoint":
            raise Failed("the buttons while running: %r" % shown())
        first = page.wait_text("#distance", lambda s: "km" in s, "the live distance", 15)
        time.sleep(22)  # the high profile keeps a point every 10 s: three or more in the FIT
        later = page.wait_text("#distance", lambda s: "km" in s and s != first, "the live distance growing", 15)
        page.shot("running")
        # Lap from the page: the workout's timed phase goes on, and the device answers with
        # its status line.
        page.click("form#command-lap button")
        page.wait_text("#reply", lambda s: "phase" in s, "the answer to Lap", 15)
        if page.text("#state").strip() != "running":
            raise Failed("Lap stopped the workout: %r" % page.text("#state"))
        page.click("form#command-stop button")
        page.wait_text("#state", lambda s: s.strip() == "ready", "the live state after Stop", 20)
        steps.append("workout started by a press, watched (%s then %s), lapped and stopped from the page" % (first.strip(), later.strip()))

        # 5. The activity's FIT, downloaded from its page, read by Garmin's SDK. First, on the
        # phone's width, the list and the activity's phases: every column in view (no cell cut
        # off at the edge), no word broken, the page no wider than the window.
        page.go("/activities")
        page.shot("activities")
        for path in ("/activities", "/activities/1"):
            if path != "/activities":
                page.go(path)
            cut = devtools.layout_problems(page.evaluate, 420, cells=True)
            if cut:
                raise Failed("%s on a phone: %s" % (path, "; ".join(cut)))
            if path == "/activities/1" and page.text("#phases") is None:
                raise Failed("/activities/1 shows no phases table")
        steps.append("the activities and their phases read whole at 420 px (no cell cut off, no word broken)")
        page.go("/activities")
        link = page.evaluate("(() => { const a = document.querySelector('a.download-fit'); return a ? a.getAttribute('href') : null })()")
        if not link:
            raise Failed("no FIT download on /activities")
        page.evaluate("document.querySelector('a.download-fit').click()")
        deadline = time.monotonic() + args.timeout
        fit = None
        while time.monotonic() < deadline and fit is None:
            browser.drain(quiet=0.25)
            done = [f for f in downloads.iterdir() if f.suffix == ".fit"]
            if done and any(e["method"] == "Browser.downloadProgress" and e["params"].get("state") == "completed"
                            for e in browser.events):
                fit = done[0]
        if fit is None:
            raise Failed("the FIT download (%s) did not arrive" % link)
        # The system's python3, where scripts/setup.sh installs the SDK.
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        dump = subprocess.run([python, str(ROOT / "scripts/fit-dump.py"), str(fit)], capture_output=True, text=True)
        if dump.returncode != 0:
            raise Failed("fit-dump.py: %s" % dump.stderr.strip())
        read = json.loads(dump.stdout)
        messages = read.get("messages", {})
        laps = messages.get("lap_mesgs", [])
        records = [r for r in messages.get("record_mesgs", []) if "position_lat" in r]
        if not read.get("integrity") or read.get("errors") or not laps or len(records) < 3:
            raise Failed("the FIT is not what a watch would read: integrity %s, errors %s, %d laps, %d records"
                         % (read.get("integrity"), read.get("errors"), len(laps), len(records)))
        steps.append("FIT downloaded (%s, %d bytes): the SDK's integrity check passes, %d laps, %d records"
                     % (fit.name, fit.stat().st_size, len(laps), len(records)))

        # Everything the browser saw: no console error, no failed request, no HTTP error
        # but the wrong password's.
        browser.drain(quiet=0.5)
        found, _ = devtools.problems(browser, page.session, allowed_statuses=[(401, "/login")])
        if found:
            raise Failed("the browser saw: " + "; ".join(found[:8]))
        return steps
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)
        device.switch_off()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("  kept %s" % work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pacer", default=str(ROOT / ".build/debug/pacer"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", help="save each page as DIR/companion-NAME.png")
    parser.add_argument("--timeout", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="keep the data folder and the device's log")
    args = parser.parse_args()
    if not os.path.exists(args.chromium):
        print("companion: no Chromium at %s (scripts/setup.sh installs it)" % args.chromium, file=sys.stderr)
        return 69
    try:
        steps = run(args)
    except (Failed, RuntimeError) as error:
        print("FAIL companion: %s" % error)
        return 1
    for step in steps:
        print("  " + step)
    print("OK companion: %d steps in a real browser against a real device" % len(steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
