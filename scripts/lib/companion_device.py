"""A real `pacer device` for the companion page's scripts (companion-browser-test.py,
companion-load.py): its settings in a folder of the script's (the bundled recording replayed
in real time, a simulated battery, no sound, the page on a free loopback port and kept on
during a workout), its password, started, and switched off as systemd does (SIGTERM)."""
import os
import re
import signal
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer to look at (a login's 303 and its cookie), not to follow."""
    def redirect_request(self, *args):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(base, method, path, body=None, headers=None, timeout=120):
    """(status, headers, text) of one request to the page; redirects are not followed."""
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        response = OPENER.open(req, timeout=timeout)
        return response.status, response.headers, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:  # a 303 without a redirect handler, a 4xx, a 5xx
        return error.code, error.headers, error.read().decode("utf-8", "replace")


def login_cookie(base, password, who):
    """The session cookie (`pacer_session=…`) the login with `password` gives; exits saying
    `who` could not log in otherwise."""
    status, headers, text = request(base, "POST", "/login", urllib.parse.urlencode({"password": password}).encode(),
                                    {"Content-Type": "application/x-www-form-urlencoded"}, timeout=30)
    for value in headers.get_all("Set-Cookie") or []:
        match = re.match(r"(pacer_session=[^;]+)", value)
        if match and status == 303:
            return match.group(1)
    raise SystemExit("%s: the login answered %d without a session cookie: %s" % (who, status, text[:200]))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Device:
    def __init__(self, pacer, root, work, profile, password, companion_lines=()):
        self.pacer = pacer
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.socket = "/tmp/pacer-companion-%d.sock" % os.getpid()
        self.data = work / "data"
        self.settings = work / "pacer.yaml"
        self.log_path = work / "device.log"
        self.settings.write_text("\n".join([
            "gps: file:%s/Hardware/recordings/track-loop.nmea?pace=clock" % root,
            'buzzer: "null"', "battery: sim", "profile: %s" % profile,
            "data_dir: %s" % self.data, "hardware_dir: %s/Hardware" % root,
            "companion:", "  listen: 127.0.0.1:%d" % self.port, "  during_workout: on"] + ["  " + line for line in companion_lines] + [""]))
        self.data.mkdir(parents=True)
        subprocess.run(pacer + ["companion", "password", "--config", str(self.settings)], input=password + "\n",
                       text=True, check=True, capture_output=True)
        self.process = None
        self.log = None

    def run(self, *words):
        return subprocess.run(self.pacer + list(words) + ["--config", str(self.settings)], check=True,
                              capture_output=True)

    def ctl(self, *words):
        run = subprocess.run(self.pacer + ["ctl", *words, "--socket", self.socket], capture_output=True, text=True)
        return run.returncode, (run.stdout + run.stderr).strip()

    def start(self):
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(self.pacer + ["device", "--config", str(self.settings), "--socket", self.socket],
                                        stdout=self.log, stderr=subprocess.STDOUT)

    def switch_off(self, seconds=30):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()
        if self.log:
            self.log.close()
        try:
            os.unlink(self.socket)
        except OSError:
            pass
