"""Headless Chromium over the DevTools pipe, with the Python standard library only: what
scripts/check-page.py (a report, opened as a file) and scripts/companion-browser-test.py (the
companion page, driven as a runner would) share.

Chromium is started with --remote-debugging-pipe: it reads commands on its fd 3 and answers on
its fd 4, NUL-terminated JSON. `problems(...)` turns what a tab did into the reasons it failed:
uncaught exceptions, console errors, the browser's own error messages (a failed resource, a
Content-Security-Policy violation), failed requests, HTTP statuses of 400 and more, dialogs.
"""
import fcntl
import json
import os
import select
import signal
import tempfile
import time


class Browser:
    """A headless Chromium spoken to over the DevTools pipe."""

    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # Above the standard three and out of the way of 3 and 4 before they are placed there.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.log = tempfile.TemporaryFile()
        args = [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=" + profile]
        devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        # The browser reads our commands on its fd 3 and writes its answers on its fd 4; every
        # other descriptor of ours is close-on-exec.
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                   (os.POSIX_SPAWN_DUP2, self.log.fileno(), 2),
                   (os.POSIX_SPAWN_DUP2, high_r, 3), (os.POSIX_SPAWN_DUP2, high_w, 4)]
        try:
            self.pid = os.posix_spawn(chromium, args, os.environ, file_actions=actions)
        finally:
            os.close(high_r)
            os.close(high_w)
            os.close(devnull)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        """The next message, or None at the deadline."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe (it exited: %s)" % self.stderr_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=30):
        """Sends a command and waits for its answer; events met on the way are kept."""
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.read(deadline)
            if message is None:
                raise RuntimeError("no answer to %s within %d s" % (method, timeout))
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"].get("message")))
                return message.get("result", {})
            if "method" in message:
                self.keep(message)

    def wait_for(self, method, timeout):
        """Waits for an event (kept with the others); False at the timeout."""
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event["method"] == method:
                return True
        while True:
            message = self.read(deadline)
            if message is None:
                return False
            if "method" in message:
                self.keep(message)
                if message["method"] == method:
                    return True

    def drain(self, quiet):
        """Keeps reading events until none has come for `quiet` seconds."""
        while True:
            message = self.read(time.monotonic() + quiet)
            if message is None:
                return
            if "method" in message:
                self.keep(message)

    def keep(self, event):
        """Keeps an event; dismisses a dialog at once (it would hold the page's loading)."""
        self.events.append(event)
        if event["method"] == "Page.javascriptDialogOpening":
            self.send("Page.handleJavaScriptDialog", {"accept": False}, session=event.get("sessionId"))

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = None
                return True
            time.sleep(0.05)
        return False

    def stderr_tail(self):
        self.wait(5)
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-600:]

    def close(self):
        if self.pid:
            try:
                self.send("Browser.close")
            except OSError:
                pass
            if not self.wait(10):
                os.kill(self.pid, signal.SIGKILL)
                self.wait(10)
        os.close(self.to_browser)
        os.close(self.from_browser)
        self.log.close()


def describe_exception(params):
    details = params.get("exceptionDetails", {})
    text = details.get("exception", {}).get("description") or details.get("text", "")
    where = "%s:%s" % (details.get("url", ""), details.get("lineNumber", "?"))
    return "uncaught exception at %s: %s" % (where, text.splitlines()[0] if text else "?")


def problems(browser, session, url=None, self_contained=False, allowed_statuses=()):
    """What the tab `session` did wrong, and notes (warnings): (problems, notes).
    `allowed_statuses`: (status, url suffix) pairs that are expected (a refusal the test asks for)."""
    problems = []
    notes = []
    events = [e for e in browser.events if e.get("sessionId") == session]
    urls = {e["params"]["requestId"]: e["params"].get("request", {}).get("url", "")
            for e in events if e["method"] == "Network.requestWillBeSent"}
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            problems.append(describe_exception(params))
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            if params.get("type") in ("error", "assert"):
                problems.append("console.%s: %s" % (params["type"], text))
            elif params.get("type") == "warning":
                notes.append("console.warn: %s" % text)
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            message = "%s message (%s): %s%s" % (entry.get("level"), entry.get("source"), entry.get("text"),
                                                 " " + entry["url"] if entry.get("url") else "")
            expected = entry.get("source") == "network" and any(
                ("status of %d" % st) in (entry.get("text") or "") and (entry.get("url") or "").endswith(sfx)
                for st, sfx in allowed_statuses)
            if entry.get("level") == "error" and not expected:
                problems.append("console " + message)
            elif entry.get("level") == "warning":
                notes.append("console " + message)
        elif method == "Network.loadingFailed":
            reason = params.get("errorText", "") + (" (%s)" % params["blockedReason"]
                                                    if params.get("blockedReason") else "")
            problems.append("failed request: %s: %s" % (urls.get(params.get("requestId"), "?"), reason))
        elif method == "Network.responseReceived":
            response = params.get("response", {})
            if response.get("status", 0) >= 400 and not any(
                    response.get("status") == st and response.get("url", "").endswith(sfx) for st, sfx in allowed_statuses):
                problems.append("HTTP %s for %s" % (response.get("status"), response.get("url")))
        elif method == "Network.requestWillBeSent":
            requested = params.get("request", {}).get("url", "")
            if self_contained and requested != url and not requested.startswith("data:"):
                problems.append("the page fetches %s (it must be self-contained)" % requested)
        elif method == "Page.javascriptDialogOpening":
            problems.append("the page opened a%s %s dialog: %s" % (
                "n" if params.get("type", "")[:1] in "aeiou" else "", params.get("type"), params.get("message")))
    return problems, notes


# What a reader sees laid out at the window's width: a word of up to 30 characters broken
# across two lines (a long name, a URL, may break: nothing else), a page wider than the window,
# and (for a phone's page) table cells beyond the window's right edge: cut off, reached only by
# scrolling the table sideways.
LAYOUT = r"""
(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest("svg, script, style, pre, code")
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.textContent.matchAll(/\S+/g)) {
      if (m[0].length > 30) continue;
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(c => c.width > 0).map(c => Math.round(c.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  const cut = [...document.querySelectorAll("td, th")]
    .filter(c => getComputedStyle(c).display !== "none" && c.getClientRects().length
                 && c.getBoundingClientRect().right > window.innerWidth + 1)
    .map(c => (c.closest("table").id || "table") + ": " + (c.dataset.label || c.textContent.trim().slice(0, 20)));
  const page = document.documentElement;
  return {broken: broken, cut: cut, scrollWidth: page.scrollWidth, clientWidth: page.clientWidth};
})()
"""


def layout_problems(evaluate, width, cells=False):
    """Problems of the layout at `width`: `evaluate(js)` runs LAYOUT in the page and returns its
    value. With `cells`, table cells beyond the window's edge are problems too."""
    value = evaluate(LAYOUT) or {}
    problems = []
    broken = value.get("broken", [])
    if broken:
        problems.append("layout at %d px: %d word(s) broken across lines: %s"
                        % (width, len(broken), ", ".join(repr(w) for w in broken[:5])))
    if value.get("scrollWidth", 0) > value.get("clientWidth", width) + 1:
        problems.append("layout at %d px: the page is %d px wide, wider than the window (%d px): "
                        "something in it neither wraps nor scrolls within itself"
                        % (width, value["scrollWidth"], value["clientWidth"]))
    cut = value.get("cut", [])
    if cells and cut:
        problems.append("layout at %d px: %d table cell(s) cut off at the window's edge: %s"
                        % (width, len(cut), ", ".join(cut[:6])))
    return problems
