#!/usr/bin/env bash
# How often `pacer device` wakes the board while it waits for a press, with each kind of GPS:
# system calls per second (`strace -f -c`) and context switches per second (the
# voluntary_ctxt_switches and nonvoluntary_ctxt_switches of every thread in
# /proc/PID/task/*/status, read at the start and the end of a window).
#
# Three cases, one after the other, each the real process a device runs (`pacer device`, idle,
# with a settings file naming the receiver):
#   gpsd     gps: gpsd://127.0.0.1:PORT, a real gpsd started here (-N -n -b, on a free port, as
#            the LinuxHardware tests start it), reading a pseudo-terminal this script writes a
#            1 Hz recording into (one receiver cycle a second)
#   serial   gps: serial:///dev/pts/N?baud=9600, the same recording written into a pseudo-terminal
#   none     gps: none (the idle loop alone: buttons, control socket, battery, clock)
#   companion  gps: none, and the companion page on (127.0.0.1, a free port), as the board's
#            settings have it while the device waits
# Each case runs DURATION seconds unobserved (the context switches; strace itself would add
# two per system call) and then DURATION seconds under `strace -f -c` (the system calls), after
# WARMUP seconds to connect and reach a fix. Per thread, the voluntary switches per second
# say which thread wakes.
#
#   scripts/bench-wakeups.sh                          # builds the release pacer first
#   PACER=/path/to/pacer scripts/bench-wakeups.sh     # that binary, no build
#   DURATION=20 CASES="gpsd serial" scripts/bench-wakeups.sh
#
# Environment:
#   PACER     the pacer binary (default: swift build -c release --product pacer, then
#             .build/release/pacer)
#   DURATION  seconds per window (default: 60)
#   WARMUP    seconds before the first window (default: 6)
#   CASES     which cases, in order (default: "gpsd serial none companion")
#   KEEP      1 keeps the work folder (strace output, logs) and prints its path
#
# Needs strace, gpsd (package gpsd) and python3 (the pseudo-terminal writer); strace and gpsd
# are installed with apt-get when missing. Runs as root or as a user who may start gpsd.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
duration="${DURATION:-60}"
warmup="${WARMUP:-6}"
cases="${CASES:-gpsd serial none companion}"

die() {
    echo "bench-wakeups: $*" >&2
    exit 1
}

ensure_tools() {
    local -a missing=()
    command -v strace >/dev/null 2>&1 || missing+=(strace)
    [ -x /usr/sbin/gpsd ] || missing+=(gpsd)
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get install -y "${missing[@]}" >/dev/null || {
            $sudo apt-get update >/dev/null && $sudo apt-get install -y "${missing[@]}" >/dev/null
        } || die "cannot install ${missing[*]}"
    fi
    command -v python3 >/dev/null 2>&1 || die "python3 is needed to write the pseudo-terminal"
}
ensure_tools

if [ -n "${PACER:-}" ]; then
    pacer="$PACER"
else
    (cd "$repo_root" && swift build -c release --product pacer >&2)
    pacer="$repo_root/.build/release/pacer"
fi
[ -x "$pacer" ] || die "no pacer binary at $pacer"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-wakeups.XXXXXX")"
chmod 755 "$work"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then echo "work folder: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

recording="$repo_root/Hardware/recordings/easy-run.nmea"

# Writes the recording into a new pseudo-terminal, one receiver cycle (the sentences up to the
# next change of time) a second; prints the slave's path on its first line.
start_feeder() {
    python3 -u - "$recording" <<'PY' &
import os, sys, time, pty
master, slave = pty.openpty()
name = os.ttyname(slave)
os.chmod(name, 0o666)          # gpsd drops root and must be able to reopen it
import termios, tty
tty.setraw(slave)
print(name, flush=True)
cycles, current, stamp = [], [], None
for line in open(sys.argv[1], encoding="ascii"):
    if not line.startswith("$"):
        continue
    fields = line.split(",")
    kind = fields[0][3:]
    if kind in ("GGA", "RMC") and fields[1] != stamp:
        if current and stamp is not None:
            cycles.append("".join(current))
            current = []
        stamp = fields[1]
    current.append(line.rstrip("\r\n") + "\r\n")
if current:
    cycles.append("".join(current))
start = time.monotonic()
i = 0
while True:
    try:
        os.write(master, cycles[i % len(cycles)].encode())
    except OSError:
        pass
    i += 1
    time.sleep(max(0.0, start + i - time.monotonic()))
PY
    feeder_pid=$!
    pids+=("$feeder_pid")
    local tries=0
    while [ ! -s "$work/feeder.out" ] && [ $tries -lt 50 ]; do sleep 0.1; tries=$((tries + 1)); done
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Context switches of every thread of $1 (one "tid name voluntary nonvoluntary" line each).
switches() {
    local task
    for task in /proc/"$1"/task/*; do
        [ -r "$task/status" ] || continue
        awk -v tid="${task##*/}" '
            /^Name:/ { name = $2 }
            /^voluntary_ctxt_switches:/ { v = $2 }
            /^nonvoluntary_ctxt_switches:/ { n = $2 }
            END { print tid, name, v, n }' "$task/status"
    done
}

# Measures the running `pacer device` $2 for case $1.
measure() {
    local name="$1" pid="$2"
    sleep "$warmup"
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; die "$name: pacer device ended early"; }
    switches "$pid" >"$work/$name.before"
    sleep "$duration"
    switches "$pid" >"$work/$name.after"
    # -C: every call (to say which thread made it) and the summary of `strace -c` at the end.
    timeout -s INT "$duration" strace -f -C -q -p "$pid" -o "$work/$name.strace" 2>/dev/null || true
    python3 - "$name" "$duration" "$work/$name.before" "$work/$name.after" "$work/$name.strace" <<'PY'
import sys
name, duration = sys.argv[1], float(sys.argv[2])
def read(path):
    out = {}
    for line in open(path):
        tid, comm, v, n = line.split()
        out[tid] = (comm, int(v), int(n))
    return out
before, after = read(sys.argv[3]), read(sys.argv[4])
vol = invol = 0
threads = []
for tid, (comm, v, n) in after.items():
    v0, n0 = before.get(tid, (comm, 0, 0))[1:]
    dv, dn = v - v0, n - n0
    vol += dv
    invol += dn
    if dv:
        threads.append((dv, comm, tid))
import re
calls, top, summary, per_thread = 0, [], False, {}
for line in open(sys.argv[5]):
    parts = line.split()
    if line.startswith("% time"):
        summary = True
    elif summary and len(parts) >= 5 and parts[-1] == "total":
        calls = int(parts[3])
    elif summary and len(parts) >= 5 and parts[0][0].isdigit():
        top.append((int(parts[3]), parts[-1]))
    elif not summary:
        # "TID call(…" starts a call; "TID <... call resumed>" ends one already counted.
        m = re.match(r"(\d+)\s+([a-z_0-9]+)\(", line)
        if m:
            calls_of = per_thread.setdefault(m.group(1), {})
            calls_of[m.group(2)] = calls_of.get(m.group(2), 0) + 1
top.sort(reverse=True)
print(f"{name:7} {calls / duration:6.2f} syscalls/s  {vol / duration:5.2f} voluntary + "
      f"{invol / duration:4.2f} involuntary context switches/s  (windows of {duration:g} s)")
print("        syscalls: " + ", ".join(f"{c / duration:.2f} {n}" for c, n in top[:6]))
threads.sort(reverse=True)
for tid, calls_of in sorted(per_thread.items(), key=lambda t: -sum(t[1].values())):
    listed = sorted(calls_of.items(), key=lambda c: -c[1])
    print(f"        thread {tid}: " + ", ".join(f"{c / duration:.2f} {n}" for n, c in listed[:5]))
print("        woken threads: " + (", ".join(f"{comm}[{tid}] {dv / duration:.2f}/s" for dv, comm, tid in threads[:6]) or "none"))
PY
}

# A settings file for `pacer device` with this GPS (and these further lines); the rest as the
# simulated setup.
settings() {
    cat >"$work/$1.yaml" <<EOF
${3:-}
gps: $2
buzzer: "null"
battery: sim?level=100
profile: medium
data_dir: $work/$1-data
hardware_dir: $repo_root/Hardware
hardware: zero-m8n
EOF
    echo "$work/$1.yaml"
}

start_device() {
    local name="$1" config="$2"
    "$pacer" plan activate easy-run --config "$config" >/dev/null 2>&1 || true
    "$pacer" device --config "$config" --socket "$work/$name.sock" >"$work/$name.log" 2>&1 &
    device_pid=$!
    pids+=("$device_pid")
}

stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}

echo "pacer device idle, $($pacer --version), $(uname -m), $(nproc) cores; DURATION=$duration s"
for case in $cases; do
    case "$case" in
    gpsd)
        start_feeder >"$work/feeder.out"
        sleep 0.5
        pty="$(head -n 1 "$work/feeder.out")"
        port="$(free_port)"
        mkdir -p "$work/gpsd"
        timeout -k 3 $((duration * 2 + warmup + 30)) /usr/sbin/gpsd -N -n -b -S "$port" \
            -F "$work/gpsd/gpsd.sock" "$pty" >"$work/gpsd.log" 2>&1 &
        pids+=("$!")
        sleep 1
        start_device gpsd "$(settings gpsd "gpsd://127.0.0.1:$port")"
        measure gpsd "$device_pid"
        stop_all
        ;;
    serial)
        start_feeder >"$work/feeder.out"
        sleep 0.5
        pty="$(head -n 1 "$work/feeder.out")"
        start_device serial "$(settings serial "serial://$pty?baud=9600")"
        measure serial "$device_pid"
        stop_all
        ;;
    none)
        start_device none "$(settings none none)"
        measure none "$device_pid"
        stop_all
        ;;
    companion)
        start_device companion "$(settings companion none "companion: {listen: \"127.0.0.1:$(free_port)\"}")"
        measure companion "$device_pid"
        stop_all
        ;;
    *) die "unknown case $case (gpsd, serial, none, companion)" ;;
    esac
done
