#!/usr/bin/env python3
"""Opens an HTML page in headless Chromium as a person would, and fails when it does not load
cleanly; saves a screenshot of the whole page.

    scripts/check-page.py PAGE.html… [--screenshot OUT.png]… [--width 1000] [--self-contained]
                          [--chromium PATH] [--timeout 60]

Several pages are opened in one browser, a tab each, one after the other; each has its own
lines. The browser runs at a lower priority (nice 10).

It drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: the
browser reads commands on fd 3 and answers on fd 4, NUL-terminated JSON), with the Python
standard library only, and watches everything the page does:

  - the navigation itself (a missing file, a page that does not load: Page.navigate's errorText);
  - uncaught exceptions (Runtime.exceptionThrown);
  - console.error and console.assert (Runtime.consoleAPICalled), and the browser's own error
    messages (Log.entryAdded at level "error": a resource that failed to load, a
    Content-Security-Policy violation, …);
  - failed requests (Network.loadingFailed) and HTTP errors (a status of 400 or more);
  - a dialog (alert, confirm: Page.javascriptDialogOpening), which a report never opens;
  - with --self-contained, any request at all other than the page itself and data: URLs;
  - the layout at the window's width (--width): a word of up to 30 characters broken across
    two lines (only longer ones, a long name or a URL, may break), and a page wider than the
    window (what does not fit must wrap, or scroll within its own box).

Before the browser, the markup itself: every element closed in order, nothing closed that was
not open (Python's html.parser, with HTML's void elements), one <html>, <head>, <title> and
<body>, and no id used twice.

Each is printed on a line of its own, "FAIL PAGE: reason"; a clean page gets one line "OK
PAGE: …". The exit status is 1 when any page failed, 0 when every one loaded cleanly, 2 on bad
usage, 69 when Chromium cannot be found.
"""
import argparse
import base64
import fcntl
import html.parser
import os
import shutil
import sys
import tempfile
import pathlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import devtools  # noqa: E402  (scripts/lib/devtools.py)
from devtools import Browser  # noqa: E402


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Structure(html.parser.HTMLParser):
    """Checks that elements nest: each closed in order, nothing closed that was not open."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open = []
        self.problems = []
        self.counts = {}
        self.ids = set()
        self.svg_depth = 0

    def handle_starttag(self, tag, attrs, closed=False):
        line = self.getpos()[0]
        if tag == "svg" and not closed:
            self.svg_depth += 1
        if not self.svg_depth:
            self.counts[tag] = self.counts.get(tag, 0) + 1
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.problems.append("html: id \"%s\" used twice (line %d)" % (value, line))
                self.ids.add(value)
        if tag in VOID or closed:
            return
        self.open.append((tag, line))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs, closed=True)

    def handle_endtag(self, tag):
        line = self.getpos()[0]
        if tag in VOID:
            self.problems.append("html: </%s> closes a void element (line %d)" % (tag, line))
            return
        if not self.open:
            self.problems.append("html: </%s> closes nothing (line %d)" % (tag, line))
            return
        top, opened = self.open[-1]
        if top != tag:
            self.problems.append("html: </%s> at line %d, but <%s> of line %d is still open" % (tag, line, top, opened))
            if any(t == tag for t, _ in self.open):
                while self.open and self.open[-1][0] != tag:
                    self.open.pop()
                self.open.pop()
            return
        self.open.pop()
        if tag == "svg":
            self.svg_depth -= 1


def check_structure(page):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    parser = Structure()
    parser.feed(text)
    parser.close()
    problems = parser.problems
    for tag, line in parser.open:
        problems.append("html: <%s> of line %d is never closed" % (tag, line))
    if not text.lstrip().lower().startswith("<!doctype html>"):
        problems.append("html: no <!DOCTYPE html> first")
    for tag in ("html", "head", "title", "body"):
        if parser.counts.get(tag, 0) != 1:
            problems.append("html: %d <%s> elements, not 1" % (parser.counts.get(tag, 0), tag))
    return problems


def check_page(browser, page, screenshot, width, self_contained, timeout):
    """Opens one page in a tab of its own; returns its problems and notes."""
    url = pathlib.Path(page).resolve().as_uri()
    problems = []
    notes = []
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        browser.call(domain + ".enable", session=session)
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False}, session=session)
    browser.events.clear()
    navigation = browser.call("Page.navigate", {"url": url}, session=session, timeout=timeout)
    if navigation.get("errorText"):
        problems.append("the page did not load: %s (%s)" % (navigation["errorText"], url))
    elif not browser.wait_for("Page.loadEventFired", timeout):
        problems.append("the page did not finish loading within %d s" % timeout)
    # Late messages: a failed image, a timer's exception.
    browser.drain(quiet=1.0)
    found, more = devtools.problems(browser, session, url, self_contained)
    problems += found
    notes += more
    if not any(p.startswith("the page did not") for p in problems):
        problems += devtools.layout_problems(
            lambda js: browser.call("Runtime.evaluate", {"expression": js, "returnByValue": True},
                                    session=session).get("result", {}).get("value"), width)
    if screenshot and not any(p.startswith("the page did not") for p in problems):
        metrics = browser.call("Page.getLayoutMetrics", session=session)
        height = int(metrics.get("cssContentSize", metrics.get("contentSize", {})).get("height", 800) + 0.5)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        shot = browser.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                            session=session, timeout=timeout)
        with open(screenshot, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
        notes.append("screenshot %s (%d x %d px)" % (screenshot, width, height))
    browser.call("Target.closeTarget", {"targetId": target})
    return problems, notes


def check(pages, screenshots, width, self_contained, chromium, timeout):
    """Every page in one browser, a tab each: {page: (problems, notes)}."""
    results = {}
    profile = tempfile.mkdtemp(prefix="pacer-check-page-")
    try:
        try:
            browser = Browser(chromium, profile)
        except OSError as error:
            return {page: (["cannot start %s: %s" % (chromium, error)], []) for page in pages}
        try:
            for page, screenshot in zip(pages, screenshots):
                if not os.path.isfile(page):
                    results[page] = (["the page did not load: no such file %s" % page], [])
                    continue
                try:
                    results[page] = check_page(browser, page, screenshot, width, self_contained, timeout)
                except RuntimeError as error:
                    results[page] = (["Chromium: %s" % error], [])
                    break
        finally:
            browser.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    for page in pages:
        results.setdefault(page, (["not checked: Chromium failed on an earlier page"], []))
    return results


def close_inherited_descriptors():
    """Closes what the parent left open without close-on-exec (sockets, pipes): Chromium would
    hold them for its life, and a peer waiting for one to close would wait that long."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd < 3:
            continue
        try:
            if not fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC:
                os.close(fd)
        except OSError:
            pass


def main():
    close_inherited_descriptors()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", metavar="PAGE")
    parser.add_argument("--screenshot", action="append", default=[],
                        help="a PNG of the whole page; once per page, in the pages' order")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--self-contained", action="store_true",
                        help="fail on any request but the page itself and data: URLs")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM") or shutil.which("chromium")
                        or shutil.which("chromium-browser") or "")
    parser.add_argument("--timeout", type=int, default=60)
    args = parser.parse_args()
    if args.screenshot and len(args.screenshot) != len(args.pages):
        parser.error("give --screenshot once per page, or not at all")
    if not args.chromium or not os.access(args.chromium, os.X_OK):
        print("FAIL chromium not found (install it: apt-get install chromium; scripts/setup.sh does)")
        return 69
    # The browser is not in a hurry: it yields the processor to whatever runs beside it
    # (a test suite's timing checks).
    os.nice(10)
    screenshots = args.screenshot or [None] * len(args.pages)
    results = check(args.pages, screenshots, args.width, args.self_contained, args.chromium, args.timeout)
    failed = False
    for page in args.pages:
        problems = (check_structure(page) if os.path.isfile(page) else []) + results[page][0]
        for note in results[page][1]:
            print("note %s: %s" % (page, note))
        for problem in problems:
            print("FAIL %s: %s" % (page, problem))
        if problems:
            failed = True
        else:
            print("OK %s: well-formed, and loaded without a console error, an exception or a failed request" % page)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
