#!/usr/bin/env python3
"""The board booted whole under qemu-system-aarch64, driven and checked from outside.

Run by scripts/board-boot-check.sh (which makes the image and says what is checked). This
side is the world around the board: the USB receiver (QEMU's usb-serial, fed a recording
at 1 Hz from power-on), the runner's thumb (QMP input-send-event on a usb-kbd), the ears
(QEMU's usb-audio written to a WAV file; the file's growth timed here, so each cue gets the
moment it was played), the power switch (QMP quit is the cut) and a serial cable (a root
shell on the board's virtio console, for what only the board can say: its journal, /proc).

The schedule is Scenarios/board-boot's script, in the recording's time (second s of the
recording is sent at power-on + s): its first power-cut is a real one (QEMU quits, a new QEMU
boots the same disk), its second is the switch to the serial source (gpsd masked, the
settings changed, the service restarted through the console). Afterwards the cues found in
the WAV files are matched with those of the same scenario run by this machine's pacer.
"""
import argparse
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

import numpy as np
import yaml

TOLERANCE_S = 2.0   # a board cue within this of the scenario's (issue 42: "within 2 s")


def say(msg):
    print(f"board: {msg}", flush=True)


class CheckFailed(Exception):
    pass


def parse_clock(text):
    """'2:00', '10:35', '6:00.5' or seconds -> seconds."""
    if isinstance(text, (int, float)):
        return float(text)
    parts = str(text).split(":")
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + float(p)
    return seconds


def clock(seconds):
    m, s = divmod(seconds, 60)
    return f"{int(m)}:{s:04.1f}"


# --- the receiver ----------------------------------------------------------------------------

def nmea_epochs(path):
    """The recording as one chunk of bytes per second: sentences are grouped by the UTC time
    of the time-bearing ones (GGA, RMC, GLL, ZDA, GNS); the others go with the epoch they
    follow."""
    epochs, current, current_time = [], [], None
    time_field = {"GGA": 1, "RMC": 1, "GLL": 5, "ZDA": 1, "GNS": 1}
    for line in open(path, encoding="ascii", errors="replace"):
        line = line.strip()
        if not line.startswith("$"):
            continue
        fields = line.split("*")[0].split(",")
        kind = fields[0][3:]
        stamp = None
        if kind in time_field and len(fields) > time_field[kind]:
            stamp = fields[time_field[kind]][:6] or None
        if stamp is not None and current_time is not None and stamp != current_time and current:
            epochs.append("".join(current).encode())
            current = []
        if stamp is not None:
            current_time = stamp
        current.append(line + "\r\n")
    if current:
        epochs.append("".join(current).encode())
    return epochs


class Receiver(threading.Thread):
    """Sends epoch k at t0 + k to whichever QEMU's usb-serial is connected; what the board
    says back (receiver commands) is read and dropped, so that QEMU never waits on it."""

    def __init__(self, epochs, t0):
        super().__init__(daemon=True)
        self.epochs, self.t0 = epochs, t0
        self.sock = None
        self.lock = threading.Lock()
        self.sent = 0
        self.stopped = False

    def attach(self, path, deadline=20):
        end = time.monotonic() + deadline
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                break
            except OSError:
                if time.monotonic() > end:
                    raise CheckFailed(f"QEMU's usb-serial socket {path} never answered")
                time.sleep(0.02)
        with self.lock:
            self.sock = s
        threading.Thread(target=self._drain, args=(s,), daemon=True).start()

    def _drain(self, s):
        while True:
            try:
                data = s.recv(4096)
            except OSError:
                return
            if not data:
                return

    def detach(self):
        with self.lock:
            if self.sock is not None:
                try:
                    self.sock.close()
                except OSError:
                    pass
            self.sock = None

    def run(self):
        for k, epoch in enumerate(self.epochs):
            delay = self.t0 + k - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if self.stopped:
                return
            with self.lock:
                s = self.sock
            if s is None:
                continue   # the board is off: the receiver talks into nothing
            try:
                s.sendall(epoch)
                self.sent += 1
            except OSError:
                self.detach()


# --- the ears ----------------------------------------------------------------------------------

class WavWatch(threading.Thread):
    """Polls the WAV file QEMU writes and notes when it grew: (monotonic time, size)."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.growth = []
        self.stopped = False

    def run(self):
        last = -1
        while not self.stopped:
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                size = -1
            if size != last and size >= 0:
                self.growth.append((time.monotonic(), size))
                last = size
            time.sleep(0.005)


def wav_samples(path):
    """QEMU's wav backend: a 44-byte RIFF header (its sizes written when QEMU exits, which a
    kill would skip), then 16-bit little-endian frames; returns (rate, channels, mono float
    samples, header size)."""
    data = open(path, "rb").read()
    if len(data) < 44 or data[:4] != b"RIFF":
        raise CheckFailed(f"{path}: not a WAV file ({len(data)} bytes)")
    channels, rate = struct.unpack("<HI", data[22:28])
    bits = struct.unpack("<H", data[34:36])[0]
    if bits != 16:
        raise CheckFailed(f"{path}: {bits}-bit samples, expected 16")
    frames = np.frombuffer(data[44: 44 + (len(data) - 44) // (2 * channels) * 2 * channels], dtype="<i2")
    mono = frames.reshape(-1, channels).astype(np.float64).mean(axis=1) / 32768.0
    return rate, channels, mono, 44


def tone_segments(samples, rate, frame_s=0.005):
    """The tones in a stretch of samples: [(start s, duration s, Hz)], by 5 ms frames whose
    level is above the floor, joined while the pitch stays within 3 %."""
    n = int(rate * frame_s)
    frames = len(samples) // n
    out, current = [], None
    window = np.hanning(n * 4)
    for i in range(frames):
        chunk = samples[i * n:(i + 1) * n]
        level = np.sqrt(np.mean(chunk ** 2))
        if level < 0.01:
            if current:
                out.append(current); current = None
            continue
        # the pitch from a 20 ms window centred on the frame
        lo = max(0, i * n - n * 2 + n // 2)
        seg = samples[lo: lo + n * 4]
        if len(seg) < n * 4:
            seg = np.pad(seg, (0, n * 4 - len(seg)))
        spectrum = np.abs(np.fft.rfft(seg * window, n=8192))
        hz = np.argmax(spectrum[1:]) + 1
        hz = hz * rate / 8192
        if current and abs(hz - current[2]) <= 0.03 * current[2]:
            current[1] += frame_s
        else:
            if current:
                out.append(current)
            current = [i * frame_s, frame_s, hz]
    if current:
        out.append(current)
    # clicks and the pitch's wobble at a tone's edges: drop pieces under 15 ms
    return [tuple(s) for s in out if s[1] >= 0.015]


def signature(segments):
    return [(round(hz), round(d * 1000)) for _, d, hz in segments]


def same_tune(a, b, cut_short=False):
    """Two tone lists are the same cue: as many tones, each pitch within 3 %, each length
    within 25 ms or 20 %. `cut_short`: the last tone ends the sound card's stream, whose
    last 10 to 40 ms QEMU's usb-audio keeps back (they come out at the start of the next
    stream), so it may be up to 45 ms shorter."""
    if len(a) != len(b) or not a:
        return False
    for i, ((ha, da), (hb, db)) in enumerate(zip(a, b)):
        if abs(ha - hb) > 0.03 * hb:
            return False
        if cut_short and i == len(a) - 1 and db - 45 <= da <= db + max(25, 0.2 * db):
            continue
        if abs(da - db) > max(25, 0.2 * db):
            return False
    return True


def reference_tunes(pacer, cues_yaml, work):
    """Each cue in each style, rendered by this machine's pacer (`pacer beep CUE --style S
    --buzzer wav:FILE`), as the tone lists the board's must match."""
    cues = yaml.safe_load(open(cues_yaml))
    tunes = {}
    for cue in cues:
        for style in ("beeps", "melody"):
            path = os.path.join(work, f"ref-{cue}-{style}.wav")
            r = subprocess.run([pacer, "beep", cue, "--style", style, "--buzzer", f"wav:{path}"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise CheckFailed(f"pacer beep {cue} --style {style}: {r.stderr.strip() or r.stdout.strip()}")
            rate, _, mono, _ = wav_samples(path)
            tunes[(cue, style)] = signature(tone_segments(mono, rate))
    return tunes


def heard_cues(wav, growth, t0, tunes, expected=()):
    """The cues in one boot's WAV: [(recording time s, cue, style, tones)].

    The file grows only while the sound card's stream runs (QEMU writes nothing while it is
    stopped): a pause in its growth of 150 ms or more ends a burst. A burst holds one cue or
    several queued back to back (power-on, ready and the count; a phase's end and the next's
    start), read as a run of whole cues, each timed by the moment its first tone reached the
    file. A fragment under 30 ms that matches nothing is the previous stream's held-back end
    (see same_tune) and is skipped. Where two cues sound alike once cut short (the count's
    70 ms beep and the countdown's 40 ms tick), the one `expected` (time, cue) names within 2 s
    is taken."""
    rate, channels, mono, header = wav_samples(wav)
    bytes_per_frame = 2 * channels
    marks = [(t, max(0, (size - header) // bytes_per_frame)) for t, size in growth if size >= header]
    if not marks or len(mono) == 0:
        return []

    def frame_time(index):
        for t, frames in marks:
            if frames > index:
                # written in the poll that took the file past it: back off by the frames that
                # poll wrote after it
                return t - (frames - index) / rate
        return marks[-1][0]
    # bursts: frame ranges between growth stalls
    cuts = [0] + [fa for (ta, fa), (tb, fb) in zip(marks, marks[1:]) if tb - ta >= 0.15] + [len(mono)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        if b <= a:
            continue
        segments = tone_segments(mono[a:b], rate)
        i = 0
        # the previous stream's held-back end, replayed as this one starts: a short piece at
        # the last tone's pitch before the burst's own tones
        if out and len(segments) > 1 and segments[0][1] <= 0.045 and out[-1][3] and \
                abs(segments[0][2] - out[-1][3][-1][0]) <= 0.03 * out[-1][3][-1][0]:
            i = 1
        while i < len(segments):
            at = frame_time(a + int(segments[i][0] * rate)) - t0
            candidates = []
            for key, tune in tunes.items():
                n = len(tune)
                if n and same_tune(signature(segments[i:i + n]), tune, cut_short=(i + n == len(segments))):
                    candidates.append((n, key, tune))
            if not candidates:
                if segments[i][1] < 0.03:
                    i += 1
                    continue
                out.append((at, "?", "?", signature(segments[i:])))
                break
            longest = max(n for n, _, _ in candidates)
            candidates = [c for c in candidates if c[0] == longest]
            near = {c for t, c in expected if abs(t - at) <= TOLERANCE_S}
            candidates.sort(key=lambda c: (c[1][0] not in near, c[1][1] != "beeps", c[1][0]))
            n, (cue, style), tune = candidates[0]
            out.append((at, cue, style, tune))
            i += n
    return out


# --- the board ---------------------------------------------------------------------------------

class QMP:
    def __init__(self, path, deadline=20):
        end = time.monotonic() + deadline
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                if time.monotonic() > end:
                    raise CheckFailed(f"QEMU's monitor socket {path} never answered")
                time.sleep(0.02)
        self.file = self.sock.makefile("rwb", buffering=0)
        json.loads(self.file.readline())   # the greeting
        self.call("qmp_capabilities")

    def call(self, command, **arguments):
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.file.write(json.dumps(msg).encode() + b"\n")
        while True:
            line = self.file.readline()
            if not line:
                return None   # QEMU went away (after quit)
            reply = json.loads(line)
            if "return" in reply or "error" in reply:
                if "error" in reply:
                    raise CheckFailed(f"QMP {command}: {reply['error']}")
                return reply["return"]

    def key(self, down):
        self.call("input-send-event", events=[
            {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": "ret"}}}])


class Console:
    """A root shell on the board's hvc0 (the check's serial cable)."""

    def __init__(self, path):
        self.path = path
        self.sock = None
        self.buffer = b""
        self.count = 0

    def connect(self, deadline):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.path)
                self.sock = s
                break
            except OSError:
                time.sleep(0.05)
        if self.sock is None:
            raise CheckFailed("the board's console socket never answered")
        # the shell starts with the board; ask until it answers
        while time.monotonic() < end:
            try:
                out = self.run("stty -echo; echo shell-up", timeout=5)
                if "shell-up" in out:
                    return
            except CheckFailed:
                pass
        raise CheckFailed("no shell on the board's console (board-console.service)")

    def run(self, command, timeout=120, check=False):
        self.count += 1
        token = f"@@{self.count}@@"
        self.sock.sendall(f"{command}; echo \"{token}$?@@\"\n".encode())
        pattern = re.compile(re.escape(token).encode() + rb"(\d+)@@")
        end = time.monotonic() + timeout
        self.sock.settimeout(0.5)
        while True:
            m = pattern.search(self.buffer)
            if m:
                out = self.buffer[:m.start()]
                self.buffer = self.buffer[m.end():]
                text = out.decode(errors="replace").replace("\r", "")
                # the command's own echo, if the tty still echoed it
                text = text.replace(f"{command}; echo \"{token}$?@@\"\n", "")
                if check and int(m.group(1)) != 0:
                    raise CheckFailed(f"on the board, `{command}` failed ({m.group(1)}): {text.strip()[-400:]}")
                return text
            if time.monotonic() > end:
                raise CheckFailed(f"on the board, `{command}` did not finish within {timeout} s")
            try:
                data = self.sock.recv(65536)
                if not data:
                    raise CheckFailed("the board's console closed")
                self.buffer += data
            except socket.timeout:
                pass

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None


BOARDS = []


class Board:
    def __init__(self, args, work):
        BOARDS.append(self)
        self.args, self.work = args, work
        self.overlay = os.path.join(work, "disk.qcow2")
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", args.image, self.overlay], check=True)
        self.boot = 0
        self.proc = None

    def power_on(self, receiver):
        self.boot += 1
        n = self.boot
        w = self.work
        for s in ("gps", "qmp", "con"):
            try:
                os.unlink(os.path.join(w, f"{s}-{n}.sock"))
            except FileNotFoundError:
                pass
        self.wav = os.path.join(w, f"cues-{n}.wav")
        cmd = [
            "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a53", "-smp", "2", "-m", "512",
            "-kernel", self.args.kernel, "-initrd", self.args.initrd,
            "-append", "root=/dev/vda ro console=ttyAMA0 loglevel=4 systemd.show_status=1 panic=-1",
            "-drive", f"file={self.overlay},format=qcow2,if=none,id=disk,cache=writeback",
            "-device", "virtio-blk-pci,drive=disk",
            "-device", "qemu-xhci,id=xhci",
            "-chardev", f"socket,id=gps,path={w}/gps-{n}.sock,server=on,wait=off",
            "-device", "usb-serial,bus=xhci.0,port=1,chardev=gps",
            "-device", "usb-kbd,bus=xhci.0,port=2",
            "-audiodev", f"wav,id=snd,path={self.wav},out.frequency=48000,out.channels=2",
            "-device", "usb-audio,bus=xhci.0,port=3,audiodev=snd",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=con,path={w}/con-{n}.sock,server=on,wait=off",
            "-device", "virtconsole,chardev=con",
            "-qmp", f"unix:{w}/qmp-{n}.sock,server=on,wait=off",
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-nic", "none", "-no-reboot",
        ]
        self.powered_at = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        threading.Thread(target=self._console_reader, args=(self.proc, n), daemon=True).start()
        self.qmp = QMP(f"{w}/qmp-{n}.sock")
        # The receiver is plugged in from power-on: QEMU attaches the usb-serial device once
        # its socket has a peer.
        receiver.attach(f"{w}/gps-{n}.sock")
        self.wav_watch = WavWatch(self.wav)
        self.wav_watch.start()
        self.console = Console(f"{w}/con-{n}.sock")

    def _console_reader(self, proc, n):
        with open(os.path.join(self.work, f"console-{n}.log"), "w") as f:
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\r\n")
                f.write(f"{time.monotonic() - self.powered_at:8.2f}  {line}\n")
                f.flush()

    def cut(self):
        """The power cut: QEMU quits at once; the guest gets no shutdown."""
        self.qmp.call("quit")
        self.proc.wait(timeout=30)
        self.wav_watch.stopped = True
        self.console.close()

    def press(self, hold):
        self.qmp.key(True)
        time.sleep(hold)
        self.qmp.key(False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--cues", required=True)
    ap.add_argument("--pacer", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--suite", required=True)
    args = ap.parse_args()
    work = args.work
    os.makedirs(work, exist_ok=True)
    try:
        return run(args, work)
    except CheckFailed as e:
        say(f"FAILED: {e}")
        return 1
    finally:
        # a board left running by a failed check is switched off
        for board in BOARDS:
            if board.proc is not None and board.proc.poll() is None:
                board.proc.kill()
                board.proc.wait()


def run(args, work):
    scenario = yaml.safe_load(open(os.path.join(args.scenario, "scenario.yaml")))
    script = [dict(step, at=parse_clock(step["at"])) for step in scenario["script"]]
    until = parse_clock(scenario["until"])
    epochs = nmea_epochs(os.path.join(args.scenario, scenario["recording"]))
    say(f"recording: {len(epochs)} s of NMEA; schedule until {clock(until)} (the scenario {os.path.basename(args.scenario)})")

    # The scenario on this machine first: the cues the board must give, and the tunes.
    ref_dir = os.path.join(work, "scenario")
    r = subprocess.run([args.pacer, "scenario", "run", args.scenario, "--out", ref_dir], capture_output=True, text=True)
    if r.returncode != 0:
        raise CheckFailed(f"pacer scenario run {args.scenario}: {r.stderr.strip()[-600:]}")
    ref_events = [json.loads(l) for l in open(os.path.join(ref_dir, "events.jsonl")) if l.strip()]
    tunes = reference_tunes(args.pacer, args.cues, work)

    board = Board(args, work)
    facts = {"suite": args.suite}
    t_host_start = time.monotonic()
    # Power on: the receiver talks from this moment (recording second 0).
    receiver = Receiver(epochs, 0)
    board.power_on(receiver)
    t0 = board.powered_at
    receiver.t0 = t0
    receiver.start()
    boots = [{"n": 1, "powered": 0.0, "wav": board.wav, "watch": board.wav_watch}]
    at = lambda r: t0 + r   # host time of recording time r
    rec = lambda: time.monotonic() - t0

    def sleep_until(r):
        d = at(r) - time.monotonic()
        if d > 0:
            time.sleep(d)

    # Boot 1: the shell, then what the board says about itself.
    board.console.connect(deadline=at(150))
    facts["boot1_shell_s"] = round(rec(), 1)
    say(f"boot 1: the console's shell answers {rec():.1f} s after power-on")
    # udev is still bringing the USB devices up when the shell answers: the board is looked
    # at once the receiver has its fix (1:20) and the device had time to say ready
    sleep_until(95)
    inspect_board(board, facts, args)

    cuts = [s for s in script if s["do"] == "power-cut"]
    for step in script:
        r = step["at"]
        if step["do"] == "press":
            last_cut = max([c["at"] for c in cuts if c["at"] < r] or [-1.0])
            first_since = min(s["at"] for s in script if s["do"] == "press" and s["at"] > last_cut)
            if r == first_since:
                # the device must be ready before the press that starts the workout
                sleep_until(r - 12)
                status = board.console.run("pacer ctl status 2>&1 | head -n 3", timeout=30)
                if not status.strip().startswith("ready"):
                    problem(f"at {clock(rec())} the device is not ready for the press at {clock(r)}: {status.strip()}")
                say(f"{clock(rec())}  pacer ctl status: {status.strip().splitlines()[0]}")
            sleep_until(r)
            say(f"{clock(rec())}  press, {step.get('hold', 0.2)} s")
            board.press(step.get("hold", 0.2))
        elif step["do"] == "power-cut" and step is cuts[0]:
            # the real power cut
            sleep_until(r - 8)
            sample_process(board, facts, "before the cut")
            sleep_until(r)
            say(f"{clock(rec())}  POWER CUT (QEMU quits; no shutdown)")
            board.cut()
            receiver.detach()
            board.power_on(receiver)
            boots.append({"n": 2, "powered": board.powered_at - t0, "wav": board.wav, "watch": board.wav_watch})
            say(f"{clock(rec())}  power on again (boot 2)")
            board.console.connect(deadline=time.monotonic() + 150)
            facts["boot2_shell_s"] = round(time.monotonic() - board.powered_at, 1)
            say(f"boot 2: the shell answers {facts['boot2_shell_s']} s after power-on")
        elif step["do"] == "power-cut":
            # the other configuration: the receiver read directly
            sleep_until(r)
            say(f"{clock(rec())}  switch to the serial source (gpsd masked, settings, restart)")
            board.console.run(
                "systemctl stop pacer && systemctl mask --now gpsd.socket gpsd.service && "
                "sed -i 's|^gps: .*|gps: serial:///dev/gps0?baud=9600|' /etc/pacer/pacer.yaml && "
                "grep '^gps:' /etc/pacer/pacer.yaml && systemctl start pacer", timeout=90, check=True)
        else:
            raise CheckFailed(f"the scenario's step {step} is not one the board check knows")
    sleep_until(until)
    sample_process(board, facts, "at the end")
    final_checks(board, facts, args)
    say(f"{clock(rec())}  shutdown")
    board.console.run("systemctl poweroff", timeout=10)
    try:
        board.proc.wait(timeout=180)
    except subprocess.TimeoutExpired:
        raise CheckFailed("the board did not power off within 180 s")
    board.wav_watch.stopped = True
    receiver.stopped = True

    for step in (lambda: compare(args, work, boots, t0, ref_events, tunes, facts, script, cuts, until),
                 lambda: read_back(args, work, board, facts)):
        try:
            step()
        except CheckFailed as e:
            problem(str(e))
    facts["wall_s"] = round(time.monotonic() - t_host_start)
    with open(os.path.join(work, "facts.json"), "w") as f:
        json.dump(facts, f, indent=2)
    say("facts: " + json.dumps(facts))
    if PROBLEMS:
        raise CheckFailed(f"{len(PROBLEMS)} check(s) failed: " + "; ".join(PROBLEMS))
    return 0


PROBLEMS = []


def problem(text):
    """A check that failed but leaves the run worth finishing: said now, failed at the end."""
    say(f"PROBLEM: {text}")
    PROBLEMS.append(text)


def inspect_board(board, facts, args):
    c = board.console
    # systemd started the unit, as user pacer
    out = c.run("systemctl show -p ActiveState -p MainPID -p User pacer; "
                "pid=$(systemctl show -p MainPID --value pacer); ps -o user=,group=,supgrp=,args= -p $pid", timeout=60)
    say("pacer.service: " + " | ".join(l for l in out.strip().splitlines()))
    if "ActiveState=active" not in out:
        raise CheckFailed(f"pacer.service is not active: {out.strip()}")
    proc_line = out.strip().splitlines()[-1].split()
    if proc_line[0] != "pacer" or proc_line[1] != "pacer":
        raise CheckFailed(f"pacer runs as {proc_line[0]}:{proc_line[1]}, not pacer:pacer")
    facts["unit_user"] = f"{proc_line[0]}:{proc_line[1]} ({proc_line[2]})"
    # the receiver, named by the package's udev rule
    out = c.run("ls -l /dev/gps0; readlink -f /dev/gps0; udevadm info -q property -n /dev/gps0 | grep -E '^(ID_VENDOR_ID|ID_MODEL_ID|DEVLINKS)='; "
                "stat -c '%G %a' $(readlink -f /dev/gps0)", timeout=60)
    say("receiver: " + " | ".join(out.strip().splitlines()))
    if "/dev/ttyUSB" not in out or "ID_VENDOR_ID=0403" not in out or "dialout 660" not in out:
        raise CheckFailed(f"the USB receiver is not /dev/gps0 (group dialout, 0660) by the udev rule: {' | '.join(out.strip().splitlines())}")
    facts["receiver"] = [l for l in out.strip().splitlines() if l.startswith("/dev/ttyUSB")][0]
    out = c.run("systemctl is-active gpsd; aplay -l | grep '^card'; ls -l /dev/input/by-path/ | grep kbd", timeout=60)
    say("gpsd, sound, button: " + " | ".join(out.strip().splitlines()))
    out = c.run("systemd-analyze security pacer --no-pager 2>&1 | tail -n 1", timeout=120)
    facts["security"] = out.strip()
    say("systemd-analyze security pacer: " + out.strip())
    out = c.run("systemd-analyze time 2>&1 | head -n 2", timeout=60)
    facts["systemd_analyze_time"] = " ".join(out.split())
    say("systemd-analyze time: " + facts["systemd_analyze_time"])


def sample_process(board, facts, label):
    out = board.console.run(
        "pid=$(systemctl show -p MainPID --value pacer); cat /proc/uptime; cut -d' ' -f14,15,22 /proc/$pid/stat; "
        "grep -E '^(VmRSS|VmHWM):' /proc/$pid/status; getconf CLK_TCK", timeout=60)
    lines = out.strip().splitlines()
    try:
        uptime = float(lines[0].split()[0])
        utime, stime, start = (int(x) for x in lines[1].split())
        hz = int(lines[-1])
        rss = [l for l in lines if l.startswith("VmRSS")][0].split()[1]
        hwm = [l for l in lines if l.startswith("VmHWM")][0].split()[1]
    except (IndexError, ValueError):
        raise CheckFailed(f"cannot read pacer's /proc on the board: {out.strip()}")
    running = uptime - start / hz
    cpu = (utime + stime) / hz
    sample = {"cpu_s": round(cpu, 2), "running_s": round(running, 1),
              "cpu_share": round(cpu / running, 4) if running > 0 else None,
              "rss_kb": int(rss), "hwm_kb": int(hwm)}
    facts.setdefault("process", {})[label] = sample
    say(f"pacer on the board, {label}: {sample}")


def final_checks(board, facts, args):
    c = board.console
    # The emulation's slowdown: one bundled scenario run on the board and here, the same
    # work (decoding, coaching, storage) on the emulated Cortex-A53 and on this machine.
    out = c.run("s=$(date +%s.%N); pacer scenario run /usr/share/pacer/scenarios/steady --out /var/tmp/steady >/dev/null 2>&1; "
                "echo $? $(date +%s.%N) $s", timeout=300)
    try:
        code, end, start = out.split()[-3:]
        board_s = float(end) - float(start)
        t = time.monotonic()
        subprocess.run([args.pacer, "scenario", "run", os.path.join(args.scenario, "..", "steady"), "--out",
                        os.path.join(args.work, "steady")], capture_output=True, check=True)
        here_s = time.monotonic() - t
        facts["slowdown"] = {"board_s": round(board_s, 2), "here_s": round(here_s, 2), "ratio": round(board_s / here_s, 1)}
        say(f"the emulation's slowdown: `pacer scenario run steady` {board_s:.2f} s on the board, {here_s:.2f} s here "
            f"(×{board_s / here_s:.0f}; this machine's pacer: {os.path.basename(args.pacer)})")
    except (ValueError, subprocess.CalledProcessError) as e:
        problem(f"the slowdown measure failed: {out.strip()[-200:]} {e}")
    out = c.run("journalctl -u pacer --no-pager -o short-monotonic > /var/tmp/pacer-journal.txt; "
                "journalctl -u pacer --no-pager -p err -o short-monotonic 2>/dev/null | grep -v '^-- ' ; true", timeout=120)
    facts["journal_errors"] = [l for l in out.strip().splitlines() if l.strip()]
    out = c.run("journalctl -u pacer --no-pager | grep -ciE 'recovered'; journalctl --list-boots --no-pager | wc -l", timeout=60)
    say("journal: " + " | ".join(out.strip().splitlines()))


def compare(args, work, boots, t0, ref_events, tunes, facts, script, cuts, until):
    heard = []
    for b in boots:
        with open(os.path.join(work, f"growth-{b['n']}.json"), "w") as f:   # for a look afterwards
            json.dump({"t0": t0, "powered": b["powered"], "growth": b["watch"].growth}, f)
        cues = heard_cues(b["wav"], b["watch"].growth, t0, tunes,
                          expected=[(e["t"], e["cue"]) for e in ref_events if e.get("event") == "cue"])
        for r, cue, style, tones in cues:
            heard.append((r, cue, style, b["n"], tones))
    with open(os.path.join(work, "heard.txt"), "w") as f:
        for r, cue, style, n, tones in heard:
            f.write(f"{clock(r):>8}  boot {n}  {cue:<18} {style:<7} {tones}\n")
    unknown = [h for h in heard if h[1] == "?"]
    if unknown:
        raise CheckFailed(f"sounds in the WAV that are no cue: {[(clock(h[0]), h[4]) for h in unknown][:5]}")
    ref = [(e["t"], e["cue"]) for e in ref_events if e.get("event") == "cue"]
    # The windows where the board's times are the scenario's: from each press that starts a
    # workout after a (re)start to the next (re)start; before that the board boots in its own
    # time (power-on, searching, ready and the count are heard, not timed).
    presses = [s["at"] for s in script if s["do"] == "press"]
    bounds = sorted([c["at"] for c in cuts]) + [until]
    windows, last = [], -1.0
    for b in bounds:
        starts = [p for p in presses if last < p < b]
        if starts:
            windows.append((starts[0], b))
        last = b
    def in_windows(r):
        return any(a - 0.5 <= r < b for a, b in windows)
    expected = [(r, c) for r, c in ref if in_windows(r)]
    got = [(r, c) for r, c, *_ in heard if in_windows(r)]
    missing, offsets, used = [], [], set()
    for r, c in expected:
        best = None
        for i, (gr, gc) in enumerate(got):
            if i in used or gc != c or abs(gr - r) > TOLERANCE_S:
                continue
            if best is None or abs(gr - r) < abs(got[best][0] - r):
                best = i
        if best is None:
            missing.append((clock(r), c))
        else:
            used.add(best)
            offsets.append(got[best][0] - r)
    extra = [(clock(r), c) for i, (r, c) in enumerate(got) if i not in used]
    say(f"cues while running: {len(expected)} in the scenario, {len(got)} heard, {len(offsets)} matched within {TOLERANCE_S} s")
    if offsets:
        say(f"  board minus scenario: mean {np.mean(offsets):+.2f} s, from {min(offsets):+.2f} to {max(offsets):+.2f} s")
        facts["cue_offsets_s"] = {"n": len(offsets), "mean": round(float(np.mean(offsets)), 2),
                                  "min": round(min(offsets), 2), "max": round(max(offsets), 2)}
    kinds = sorted({c for _, c in expected})
    facts["cue_kinds_matched"] = kinds
    # the boots: each heard its ready cue; the time from power-on to it (the receiver has its
    # fix at once at the second boot: that one is the board's own boot-to-ready)
    for b in boots:
        readies = [h for h in heard if h[3] == b["n"] and h[1] == "ready"]
        if not readies:
            raise CheckFailed(f"boot {b['n']}: no ready cue in {b['wav']}")
        facts[f"boot{b['n']}_power_to_ready_s"] = round(readies[0][0] - b["powered"], 1)
        say(f"boot {b['n']}: the ready sound {readies[0][0] - b['powered']:.1f} s after power-on")
    # the first fix (1:20 in the recording) to the first cue: when the device was up and
    # searching before it (a searching tick heard), the ready cue's delay after the fix
    fix_at = next((e["t"] for e in ref_events if e.get("event") == "gps" and e.get("gps") == "fix"), None)
    first = [h for h in heard if h[3] == 1]
    if fix_at is not None and any(h[1] == "searching" and h[0] < fix_at for h in first):
        ready = next(h for h in first if h[1] == "ready")
        facts["first_fix_to_ready_s"] = round(ready[0] - fix_at, 2)
        say(f"the first fix ({clock(fix_at)}) to the ready cue: {ready[0] - fix_at:.2f} s")
    else:
        say("the device was not up before the first fix: no fix-to-cue figure this run")
    if missing or extra:
        raise CheckFailed(f"cues not as in the scenario: missing {missing}; extra {extra} (all heard: {work}/heard.txt)")
    if len(kinds) < 4 or "slow-down" not in kinds or "speed-up" not in kinds:
        raise CheckFailed(f"too few kinds of cue to tell anything: {kinds}")


def read_back(args, work, board, facts):
    """The board's disk after the second boot's shutdown, read here: the data folder copied
    out of the ext4 image with debugfs, its activities listed by this machine's pacer."""
    raw = os.path.join(work, "disk.raw")
    subprocess.run(["qemu-img", "convert", "-O", "raw", board.overlay, raw], check=True)
    out = os.path.join(work, "var-lib-pacer")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["debugfs", "-R", f"rdump /var/lib/pacer {out}", raw], check=True, capture_output=True)
    subprocess.run(["debugfs", "-R", f"dump /var/tmp/pacer-journal.txt {work}/journal.txt", raw], check=True, capture_output=True)
    os.unlink(raw)
    data = os.path.join(out, "pacer")
    listing = subprocess.run([args.pacer, "activities", "list", "--data-dir", data], capture_output=True, text=True)
    say("read back from the image:\n" + listing.stdout.rstrip())
    if listing.returncode != 0:
        raise CheckFailed(f"pacer activities list on the image's data: {listing.stderr.strip()}")
    rows = [l for l in listing.stdout.splitlines() if re.match(r"^\s*\d+\s", l)]
    ends = [("recovered" in l, "stopped" in l) for l in rows]
    facts["activities"] = [" ".join(l.split()) for l in rows]
    if len(rows) != 3 or not ends[0][0] or not ends[1][1] or not ends[2][1]:
        raise CheckFailed(f"expected 3 activities (recovered, stopped, stopped): {rows}")
    # each activity's distance as the scenario's (the recovered one up to its last commit)
    summary = json.load(open(os.path.join(work, "scenario", "summary.json")))
    for row, ref in zip(rows, summary["activities"]):
        words = row.split()
        state = next(i for i, w in enumerate(words) if w in ("recovered", "stopped", "completed"))
        km = float(words[state + 1])
        if abs(km - ref["distance_m"] / 1000) > 0.03:
            raise CheckFailed(f"activity {words[0]}: {km:.2f} km on the board, {ref['distance_m'] / 1000:.2f} km in the scenario")
    facts["distances_km"] = [(float(r.split()[next(i for i, w in enumerate(r.split()) if w in ('recovered', 'stopped', 'completed')) + 1]),
                              round(a["distance_m"] / 1000, 3)) for r, a in zip(rows, summary["activities"])]
    show = subprocess.run([args.pacer, "activities", "show", rows[0].split()[0], "--data-dir", data], capture_output=True, text=True)
    say("activity 1:\n" + show.stdout.rstrip())
    if "Waypoint 1" not in show.stdout:
        raise CheckFailed("the recovered activity has no waypoint")


if __name__ == "__main__":
    sys.exit(main())
