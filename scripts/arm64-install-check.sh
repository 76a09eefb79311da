#!/usr/bin/env bash
# Proves the arm64 Debian package on a clean arm64 system, emulated: a fresh Debian 13
# (trixie) arm64 root, or with --suite bookworm a Debian 12 one for the ~deb12 package
# (debootstrap --arch=arm64 --variant=minbase with the board's kernel, systemd and udev, the
# base root scripts/board-boot-check.sh boots; its programs run by
# qemu-user-static through binfmt_misc) gets the .deb and nothing else from this machine,
# `apt-get install --no-install-recommends ./pacer_…_arm64.deb` resolves its Depends from
# Debian's archive, and inside the root, from /:
#
#   - `pacer version` runs and names the libgps API it was built for (14 on trixie, 11 on
#     bookworm);
#   - `pacer hw check --json`, with no gpsd and no sound card, reports the GPS and the sound
#     output missing and exits 69 (in a network namespace of its own);
#   - `pacer scenario test /usr/share/pacer/scenarios`: every bundled scenario, each run
#     twice, byte-identical to its goldens;
#   - as user `pacer`: `pacer plan activate` and `pacer run` of the plan on the bundled
#     recording (battery: sim, as scripts/deb-install-check.sh does); the user's groups, its
#     data folder, the unit's enablement and the conffile;
#   - `pacer device` as user `pacer`, driven by button events (Linux input_event records,
#     24 bytes on arm64 as on amd64, written to a FIFO as the Pi's gpio-key device gives
#     them): a short press starts, a short press marks a waypoint, a very long press stops;
#     `pacer ctl status` says ready, SIGTERM switches it off (exit 0), the activity stored
#     has the waypoint;
#   - gpsd and systemd installed in the root (one apt-get): the arm64 gpsd on a
#     pseudo-terminal fed the bundled recording's NMEA, and `pacer gps watch` reading fixes
#     from it through the real libgps (in a network namespace of its own);
#   - `pacer beep` through the real libasound into ALSA's file plugin (an /etc/asound.conf
#     whose default pcm writes to a file): the file holds the cue, not silence, as long as
#     `pacer beep` says;
#   - `systemd-analyze verify` of the installed unit (the host's, with --root);
#   - `apt-get remove` keeps /etc/pacer and /var/lib/pacer; `apt-get purge` removes them.
#
#   scripts/arm64-install-check.sh [--deb FILE] [--suite trixie|bookworm] [--keep] [--no-cache]
#                                  [--skip-scenario NAME]…
#
#   --deb FILE            the package (default: the newest out/pacer_*_arm64.deb of the
#                         suite: pacer_V_arm64.deb for trixie, pacer_V~deb12_arm64.deb for
#                         bookworm)
#   --suite SUITE         the Debian of the root: trixie (default) or bookworm; the package
#                         must be the one made for it (package-deb.sh --suite)
#   --keep                keep the root (and its log) after the run
#   --no-cache            debootstrap afresh, and neither use nor fill the root cache
#   --skip-scenario NAME  leave this bundled scenario out of `pacer scenario test` (said in
#                         the summary); every other one must pass
#
# The emulated debootstrap takes minutes, so the pristine root is kept as a tarball in
# /var/cache/pacer-cross/ (or $PACER_CROSS_CACHE), one a suite, shared with
# board-boot-check.sh (made by the first run of either, reused for 30 days;
# scripts/lib/debian-root.sh). binfmt_misc is mounted and qemu-aarch64 registered (F flag)
# when they are not; qemu-user-static, binfmt-support and debootstrap are installed with apt when
# missing. Needs root and Debian's archive. Exit status: 0 pass; 1 a check failed; 64 bad
# option; 66 no such .deb (or not an arm64 one); 69 the root cannot be made; 77 not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deb=""
suite=trixie
keep=0
root=""
root_cache=${PACER_CROSS_CACHE:-/var/cache/pacer-cross}
skipped=()

while [ $# -gt 0 ]; do
    case "$1" in
        --deb) [ $# -ge 2 ] || { echo "arm64-install-check: --deb needs a FILE" >&2; exit 64; }
               deb=$(readlink -f "$2"); shift ;;
        --suite) [ $# -ge 2 ] || { echo "arm64-install-check: --suite needs trixie or bookworm" >&2; exit 64; }
                 suite=$2; shift ;;
        --keep) keep=1 ;;
        --no-cache) root_cache="" ;;
        --skip-scenario) [ $# -ge 2 ] || { echo "arm64-install-check: --skip-scenario needs a NAME" >&2; exit 64; }
                         skipped+=("$2"); shift ;;
        -h|--help) sed -n '2,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "arm64-install-check: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

name=arm64-install-check
needs_toolchain=0
root_arch=arm64
# The libgps API pacer must report: trixie's gpsd 3.25 is 14, bookworm's 3.22 11 (sid's 3.27
# is 16). The package's version tells which Debian it was made for (~deb12: bookworm).
case "$suite" in
    trixie) expected_libgps_api=14; deb_glob='pacer_*_arm64.deb'; package_option="" ;;
    bookworm) expected_libgps_api=11; deb_glob='pacer_*~deb12_arm64.deb'; package_option=" --suite bookworm" ;;
    *) echo "arm64-install-check: --suite trixie or bookworm, not '$suite'" >&2; exit 64 ;;
esac
source "$repo/scripts/lib/debian-root.sh"
# The board's base root (kernel, systemd, udev as well): the root board-boot-check.sh boots,
# so the two checks share one emulated debootstrap a suite.
debootstrap_opts=("${board_base_opts[@]}")

if [ -z "$deb" ]; then
    deb=$(ls "$repo"/out/$deb_glob 2>/dev/null | grep -v "$([ "$suite" = trixie ] && echo '~deb' || echo '^$')" | sort -V | tail -1) || true
    [ -n "$deb" ] || { say "no --deb and no $repo/out/$deb_glob (sudo scripts/package-deb.sh --arch arm64$package_option makes one)"; exit 66; }
fi
[ -f "$deb" ] || { say "no package at $deb"; exit 66; }
deb_arch=$(dpkg-deb -f "$deb" Architecture 2>/dev/null) || { say "$deb is not a Debian package"; exit 66; }
[ "$deb_arch" = arm64 ] || { say "$deb is for $deb_arch, not arm64"; exit 66; }
deb_version=$(dpkg-deb -f "$deb" Version)
case "$suite:$deb_version" in
    bookworm:*~deb12*|trixie:*) ;;
    *) say "$deb ($deb_version) is not the bookworm package (~deb12): package-deb.sh --arch arm64 --suite bookworm makes it"; exit 66 ;;
esac
case "$suite:$deb_version" in
    trixie:*~deb*) say "$deb ($deb_version) is made for an older Debian: --suite bookworm, or the trixie package"; exit 66 ;;
esac
deb_name=$(basename "$deb")
command -v python3 >/dev/null || { say "needs python3 on this machine (it writes the button events and the NMEA)"; exit 69; }

as_pacer() {   # the command as user pacer, from /
    echo "setpriv --reuid=pacer --regid=pacer --init-groups -- $1"
}

t_start=$(now)
root_create
# Nothing installed into the root starts a daemon (gpsd's package would, on the host's
# network); apt fetches no translations (parsing them under emulation costs seconds).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/99pacer-no-translations"
phase "runs arm64 programs (qemu via binfmt)" in_root "test \"\$(uname -m)\" = aarch64 && dpkg --print-architecture | grep -qx arm64" \
    || fail "the root's programs do not run as aarch64"

# Only the .deb goes into the root.
cp "$deb" "$root/tmp/$deb_name"
phase "apt-get install ./$deb_name" in_root \
    "cd /tmp && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ./$deb_name" \
    || fail "apt-get install of the package"
rm -f "$root/tmp/$deb_name"
grep -E "^(Setting up|The following NEW packages)|^  " "$log" | tail -n 12 >&2 || true

check "pacer version" "pacer version | tee -a /dev/stderr >/tmp/version.out && \
    grep -qx 'pacer ${deb_version%%[-~]*}' /tmp/version.out && grep -q '^libgps API $expected_libgps_api\\.' /tmp/version.out"

phase "pacer hw check --json (no parts)" hw_check || fail "pacer hw check --json on a root without the parts"

check "user pacer, its groups and data folder" \
    "id pacer | tee -a /dev/stderr && for g in dialout audio input; do id -nG pacer | tr ' ' '\n' | grep -qx \$g || { echo \"pacer is not in \$g\"; exit 1; }; done && \
     test \"\$(stat -c '%U:%G %a' /var/lib/pacer)\" = 'pacer:pacer 770'"
check "unit enabled, settings a conffile" \
    "test -L /etc/systemd/system/multi-user.target.wants/pacer.service && readlink /etc/systemd/system/multi-user.target.wants/pacer.service && \
     dpkg-query -W -f='\${Conffiles}\n' pacer | tee -a /dev/stderr | grep -q '^ /etc/pacer/pacer.yaml ' && \
     grep -q '^hardware_dir: /usr/share/pacer$' /etc/pacer/pacer.yaml"

# gpsd and systemd, as on a board, for the checks at the end: one apt-get, in the background
# while the scenarios and the run go on (under emulation it takes minutes, mostly python3's
# byte-compiling: gpsd depends on python3). Nothing before the device's run needs them.
bg_log="$root.apt.log"
bg_started=$(now)
in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gpsd systemd" >"$bg_log" 2>&1 &
bg_pid=$!
bg_wait() {   # waits for the background apt-get; its output goes into the log
    local status=0 waited
    [ -n "${bg_pid:-}" ] || return 0
    waited=$(now)
    wait "$bg_pid" || status=$?
    bg_pid=""
    cat "$bg_log" >>"$log"; rm -f "$bg_log"
    figures+=("$(printf '%-36s %5d s  (%d s waited)%s' "gpsd, systemd (apt-get, background)" \
        $(( $(now) - bg_started )) $(( $(now) - waited )) "$([ "$status" -eq 0 ] || echo "  FAILED")")")
    return "$status"
}
# A failed check exits while the apt-get may still run in the root: it ends first.
trap 'bg_wait >/dev/null 2>&1 || true; root_cleanup' EXIT

# Every bundled scenario (the folder holds plans/ and routes/ too: `scenario test` takes
# the subfolders with a scenario.yaml), each against its goldens.
folders=()
for f in "$root"/usr/share/pacer/scenarios/*/scenario.yaml; do
    f=$(basename "$(dirname "$f")")
    if printf '%s\n' "${skipped[@]}" | grep -qxF "$f"; then continue; fi
    folders+=("/usr/share/pacer/scenarios/$f")
done
scenarios=${#folders[@]}
[ "$scenarios" -gt 0 ] || fail "no scenarios in /usr/share/pacer/scenarios"
for f in "${skipped[@]}"; do
    [ -e "$root/usr/share/pacer/scenarios/$f/scenario.yaml" ] || fail "--skip-scenario $f: no such bundled scenario"
done
what="all $scenarios bundled"
[ ${#skipped[@]} -eq 0 ] || what="$scenarios bundled, ${#skipped[@]} skipped"
check "pacer scenario test ($what)" \
    "pacer scenario test ${folders[*]} | tee /tmp/scenarios.out && grep -qx '$scenarios/$scenarios scenarios pass' /tmp/scenarios.out"
[ ${#skipped[@]} -eq 0 ] || echo "scenarios skipped (--skip-scenario): ${skipped[*]}" >>"$log"

# The unit's user runs the device's plan on the bundled recording, into its data folder, with
# the installed settings but for the battery (`pacer run` refuses `battery: sysfs` where
# there is no gauge, as here: scripts/deb-install-check.sh).
sed 's/^battery: sysfs$/battery: sim/' "$root/etc/pacer/pacer.yaml" >"$root/tmp/no-gauge.yaml"
chmod 0644 "$root/tmp/no-gauge.yaml"
grep -q '^battery: sim$' "$root/tmp/no-gauge.yaml" || fail "/etc/pacer/pacer.yaml has no 'battery: sysfs' line"
check "plan activate + pacer run (as pacer)" "$(as_pacer "pacer plan activate easy-run --data-dir /var/lib/pacer") && \
    $(as_pacer "pacer run --config /tmp/no-gauge.yaml --source file:/usr/share/pacer/recordings/easy-run.nmea --fast --buzzer null --data-dir /var/lib/pacer --today 2026-01-01") >/tmp/run.out && \
    $(as_pacer "pacer activities list --data-dir /var/lib/pacer") | tee -a /dev/stderr | grep -q 'Easy run: .* completed'"


# The device's run is timed by the clock: nothing else runs beside it.
bg_wait || fail "installing gpsd and systemd in the root"

# --- the device, driven by the button (scripts/install-check.sh's run) ---------------------
# A two-minute plan, made the device's by the pacer user; the bundled recording for a GPS,
# at the clock's pace, and a FIFO for the button's input device.
write_check_plan
check "plan activate (as pacer)" "$(as_pacer "pacer plan activate /tmp/check-plan.yaml --data-dir /var/lib/pacer")"

rm -f "$root/tmp/buttons" && mkfifo -m 0666 "$root/tmp/buttons"
device_out="$root/tmp/device.out"
in_root "cd / && exec setpriv --reuid=pacer --regid=pacer --init-groups -- pacer device --config /etc/pacer/pacer.yaml \
    --source 'file:/usr/share/pacer/recordings/track-loop.nmea?pace=clock' --buzzer wav:/tmp/cues.wav \
    --buttons evdev:/tmp/buttons --socket /tmp/pacer.sock --data-dir /var/lib/pacer" >"$device_out" 2>&1 &
device_pid=$!
device_stop() {   # the background job is a subshell; pacer is its child (chroot, env, bash
    # and setpriv exec into it, in one process under qemu), which gets the signal, as
    # systemd would send it.
    pkill -TERM -P "$device_pid" 2>/dev/null || true
}
device_fail() {
    device_stop
    wait "$device_pid" 2>/dev/null || true
    cat "$device_out" >>"$log"
    fail "$1"
}

phase "pacer device: button presses (evdev)" press_buttons || device_fail "writing button events to the FIFO"
status_ok() {
    in_root "cd / && $(as_pacer "pacer ctl status --socket /tmp/pacer.sock")" | tee -a /dev/stderr | grep -q "^ready"
}
phase "pacer ctl status (as pacer)" status_ok || device_fail "pacer ctl status after the workout"
device_stop
phase "SIGTERM switches it off" wait "$device_pid" || { cat "$device_out" >>"$log"; fail "pacer device did not exit 0 on SIGTERM"; }
cat "$device_out" >>"$log"

stored() {
    local list show id
    list=$(in_root "cd / && $(as_pacer "pacer activities list --data-dir /var/lib/pacer")")
    echo "$list"
    id=$(echo "$list" | awk '/Install check: Two minu.* stopped / {print $1; exit}')
    [ -n "$id" ] || { echo "no stopped activity 'Install check: Two minutes'"; return 1; }
    show=$(in_root "cd / && $(as_pacer "pacer activities show $id --data-dir /var/lib/pacer")")
    echo "$show"
    echo "$show" | grep -q "Waypoint 1" || { echo "no waypoint in activity $id"; return 1; }
    for line in "state ready" "button short: start" "[waypoint-saved]" "button very-long: stop" "[stopped]" "state off"; do
        grep -qF "$line" "$device_out" || { echo "the device's output lacks '$line'"; return 1; }
    done
    echo "device run: activity $id stopped, with Waypoint 1"
}
phase "the stored activity" stored || fail "the activity recorded by pacer device"

# --- gpsd, ALSA and systemd, as on a board ----------------------------------------------------
# The arm64 gpsd on a pseudo-terminal that this machine's python3 feeds the recording's NMEA
# (four times as fast as recorded), read by the arm64 pacer through libgps: all in a network
# namespace of its own, so that no gpsd on this machine answers (and an IPC namespace: gpsd's
# shared-memory export has fixed keys). gpsd as the tests start it
# (Tests/LinuxHardwareTests/GPSDTestSupport.swift): -N foreground, -n open the device at
# once, -b read-only; the pty's slave 0666 since gpsd drops to its own user.
cat >"$root/tmp/feed-nmea.py" <<'PY'
import os, sys, time
master, slave = os.openpty()
name = os.ttyname(slave)
os.chmod(name, 0o666)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(name)
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
lines = [l.strip() for l in open(sys.argv[1]) if l.startswith("$")]
deadline = time.monotonic() + 120
for line in lines:
    if time.monotonic() > deadline:
        break
    os.write(master, (line + "\r\n").encode())
    if line[3:6] == "RMC":   # one receiver cycle a second in the recording: four a second here
        time.sleep(0.25)
PY
gps_watch() {
    # shellcheck disable=SC2016
    unshare --net --ipc bash -c '
        root=$1
        ip link set lo up
        rm -f "$root/tmp/nmea.pty"
        python3 "$root/tmp/feed-nmea.py" "$root/usr/share/pacer/recordings/track-loop.nmea" "$root/tmp/nmea.pty" &
        feeder=$!
        for _ in $(seq 100); do [ -s "$root/tmp/nmea.pty" ] && break; sleep 0.1; done
        pty=$(cat "$root/tmp/nmea.pty")
        echo "NMEA on $pty"
        chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            timeout -k 3 120 gpsd -N -n -b -S 2947 -F /tmp/gpsd.sock "$pty" &
        gpsd=$!
        status=0
        chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
            pacer gps watch --source gpsd://127.0.0.1:2947 --count 5 --seconds 60 --json \
            >"$root/tmp/gps-watch.out" 2>"$root/tmp/gps-watch.err" || status=$?
        kill "$gpsd" "$feeder" 2>/dev/null
        wait "$gpsd" "$feeder" 2>/dev/null
        cat "$root/tmp/gps-watch.err" "$root/tmp/gps-watch.out"
        echo "pacer gps watch: exit status $status"
        exit "$status"
    ' gps-watch "$root" || return 1
    python3 - "$root/tmp/gps-watch.out" <<'PY'
import json, sys
fixes = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(fixes) == 5, f"{len(fixes)} fixes, expected 5"
print(f"gpsd: {len(fixes)} fixes through libgps, the first {json.dumps(fixes[0])[:160]}")
PY
}
phase "gpsd -> libgps: pacer gps watch" gps_watch || fail "pacer gps watch on the root's gpsd"

# ALSA's default pcm in the root writes what it is sent to a file (the file plugin, as the
# tests' ALSACapture: raw S16_LE, passed on to a null device).
cat >"$root/etc/asound.conf" <<'ALSA'
pcm.!default {
    type file
    slave.pcm "pacer_discard"
    file "/tmp/beep.raw"
    format "raw"
}
pcm.pacer_discard {
    type null
}
ALSA
beep() {
    local said
    rm -f "$root/tmp/beep.raw"
    said=$(in_root "cd / && pacer beep ready --buzzer alsa:default") || return 1
    echo "$said"
    python3 - "$root/tmp/beep.raw" "$said" <<'PY'
import re, struct, sys
data = open(sys.argv[1], "rb").read()
m = re.search(r"\(\w+, ([0-9.]+) s\) on alsa:default", sys.argv[2])
assert m, f"cannot read the cue's length from {sys.argv[2]!r}"
expected = float(m.group(1))
rate = 44100   # ToneSynthesizer.defaultSampleRate: 16-bit mono
samples = struct.unpack(f"<{len(data) // 2}h", data[: len(data) // 2 * 2])
seconds = len(samples) / rate
peak = max((abs(s) for s in samples), default=0)
loud = sum(1 for s in samples if abs(s) > 1000)
print(f"ALSA: {len(data)} bytes, {seconds:.3f} s at {rate} Hz (pacer said {expected} s), peak {peak}, {loud} samples above 1000")
assert expected - 0.02 <= seconds <= expected + 0.25, "not the cue's length"
assert peak > 4000 and loud > rate * expected * 0.2, "silence"
PY
}
phase "ALSA file plugin: pacer beep" beep || fail "pacer beep through ALSA into a file"

# systemd-analyze verify of the installed unit (trixie's debhelper puts units under /usr/lib,
# bookworm's under /lib), with systemd and gpsd installed in the root. First the board's own,
# trixie's systemd run in the root: it must say nothing (the unit's binary, user, directives,
# and the units it names, gpsd's and sound.target, all there). Then this machine's, with
# --root, as verify_unit does for the amd64 package: it is older than trixie's (bookworm's
# 252 against 257) and says so about trixie's own units (directives it does not know:
# ImportCredential=, Type=notify-reload, soft-reboot-force), so only what it says about
# pacer.service counts there.
unit=/usr/lib/systemd/system/pacer.service
[ -e "$root$unit" ] || unit=/lib/systemd/system/pacer.service
verify_in_root() {
    local out
    out=$(in_root "systemd-analyze --version | head -1 && systemd-analyze verify $unit 2>&1") || { echo "$out"; return 1; }
    echo "$out"
    if echo "$out" | sed 1d | grep -q .; then
        echo "unexpected output from the root's systemd-analyze verify"
        return 1
    fi
}
verify_on_host() {
    local out status=0
    command -v systemd-analyze >/dev/null || { echo "no systemd-analyze on this machine: the root's alone"; return 0; }
    out=$(systemd-analyze verify --root="$root" "$unit" 2>&1) || status=$?
    echo "$out"
    if echo "$out" | grep -q "pacer\.service"; then
        echo "this machine's systemd-analyze verify has something to say about pacer.service"
        return 1
    fi
    echo "exit status $status; nothing about pacer.service"
}
phase "systemd-analyze verify (the root's)" verify_in_root || fail "systemd-analyze verify of the installed unit (the root's systemd)"
phase "systemd-analyze verify --root (host's)" verify_on_host || fail "systemd-analyze verify of the installed unit (this machine's systemd)"

remove_and_purge

say "the arm64 package installs, runs and goes away cleanly in a clean Debian $suite arm64 root (emulated)"
# What the root printed, in short: the version, the parts report, the scenarios, the runs.
grep -E "^(pacer [0-9]|libgps API|libasound|exit status|GPS: |sound: |[0-9]+/[0-9]+ scenarios pass|uid=[0-9]+\(pacer\)| +[0-9]+ +[0-9-]+ [0-9:]+ .* (completed|stopped) |scenarios skipped|device run: |gpsd: |ALSA: |the device opened)" "$log" \
    | awk '!seen[$0]++' >&2 || true
printf '%s\n' "${figures[@]}" >&2
printf '%-36s %5d s\n' "total" $(( $(now) - t_start )) >&2
