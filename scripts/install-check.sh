#!/usr/bin/env bash
# Proves Hardware/README.md's installation on a clean system: a fresh Debian 12 root
# (debootstrap --variant=minbase) gets only the shared libraries the binary needs (found
# from the binary, as dpkg-shlibdeps would), then `Hardware/install.sh --root` installs
# Pacer into it, and from `/` inside the root:
#
#   - the installed unit passes `systemd-analyze verify`;
#   - `pacer version`, `pacer plan list` and `pacer beep --list` find the binary's plans,
#     settings and cues from /etc/pacer/pacer.yaml and /usr/local/share/pacer;
#   - as user `pacer`, a plan is made the device's and `pacer device` (the unit's command,
#     with the bundled recording as its GPS) runs a workout driven by button events: Linux
#     input events in the kernel's layout written to a FIFO, as the Pi's gpio-key device
#     gives them: a short press starts, a short press marks a waypoint, a very long press
#     stops; then `pacer ctl status` answers, SIGTERM switches the device off, and the
#     stored activity is checked.
#
#   scripts/install-check.sh [--binary PATH] [--keep]
#
# The binary defaults to .build/release/pacer (built when missing). A binary built without
# --static-swift-stdlib needs the toolchain's runtime: the toolchain is bind-mounted
# read-only, as on a machine with Swift installed. Needs root and Debian's archive.
# Exit status: 0 pass; 1 a check failed; 69 the root cannot be made; 77 not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
binary="$repo/.build/release/pacer"
keep=0
root=""

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary=$(readlink -f "$2"); shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-check: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

name=install-check
source "$repo/scripts/lib/debian-root.sh"

if [ ! -x "$binary" ]; then
    say "building $binary"
    (cd "$repo" && swift build -c release --product pacer)
fi


# The Debian packages of the binary's shared libraries, as resolved on this machine (which
# builds it); the toolchain's own libraries come with the bind mount.
packages=()
while read -r lib; do
    case "$lib" in "$toolchain"/*) continue ;; esac
    pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -z "$pkg" ] && pkg=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$pkg" ] && packages+=("$pkg")
done < <(ldd "$binary" | awk '$3 ~ /^\// {print $3}')
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

root_create
phase "shared libraries (${#packages[@]} packages), systemd" root_apt "${packages[*]} systemd python3" \
    || fail "installing the binary's libraries: ${packages[*]}"
root_bind "$toolchain" "$root$toolchain" ro

phase "Hardware/install.sh --root" bash "$repo/Hardware/install.sh" --root "$root" --binary "$binary" \
    || fail "Hardware/install.sh"

as_pacer() {   # as_pacer COMMAND: as user pacer, from /
    in_root "cd / && setpriv --reuid=pacer --regid=pacer --init-groups -- $1"
}

phase "systemd-analyze verify" verify_unit /etc/systemd/system/pacer.service || fail "systemd-analyze verify of the installed unit"
check "pacer version" "pacer version"
check "plans, settings, cues from /" \
    "pacer plan list | grep -q easy-run && pacer beep --list | grep -q '^ready' && pacer hw check --json >/tmp/hw.json; grep -q '\"part\":\"GPS\"' /tmp/hw.json"

# A two-minute plan, made the device's by the pacer user, as Hardware/README.md says.
write_check_plan
phase "plan activate (as pacer)" as_pacer "pacer plan activate /tmp/check-plan.yaml --data-dir /var/lib/pacer" \
    || fail "pacer plan activate as user pacer"

# The device, as the unit runs it, with the bundled recording for a GPS and a FIFO for the
# button's input device.
rm -f "$root/tmp/buttons" && mkfifo -m 0666 "$root/tmp/buttons"
device_out="$root/tmp/device.out"
in_root "cd / && exec setpriv --reuid=pacer --regid=pacer --init-groups -- pacer device --config /etc/pacer/pacer.yaml \
    --source 'file:/usr/local/share/pacer/recordings/track-loop.nmea?pace=clock' --buzzer wav:/tmp/cues.wav \
    --buttons evdev:/tmp/buttons --socket /tmp/pacer.sock --data-dir /var/lib/pacer" >"$device_out" 2>&1 &
device_pid=$!

if ! phase "button presses through evdev" press_buttons; then
    cat "$device_out" >>"$log"
    fail "writing button events to the FIFO"
fi
status_ok() {
    as_pacer "pacer ctl status --socket /tmp/pacer.sock" | tee -a /dev/stderr | grep -q "^ready"
}
phase "pacer ctl status (as pacer)" status_ok || fail "pacer ctl status after the workout"
# The background job is a subshell; pacer is its child (chroot, env, bash and setpriv exec
# into it), which gets the signal, as systemd would send it.
pkill -TERM -P "$device_pid"
phase "SIGTERM switches it off" wait "$device_pid" || { cat "$device_out" >>"$log"; fail "pacer device did not exit 0 on SIGTERM"; }
cat "$device_out" >>"$log"

stored() {
    local list show
    list=$(as_pacer "pacer activities list --data-dir /var/lib/pacer")
    show=$(as_pacer "pacer activities show 1 --data-dir /var/lib/pacer")
    echo "$list"; echo "$show"
    echo "$list" | grep -q "Install check: Two minu.* stopped " || { echo "no stopped activity"; return 1; }
    echo "$show" | grep -q "Waypoint 1" || { echo "no waypoint"; return 1; }
    for line in "state ready" "button short: start" "[waypoint-saved]" "button very-long: stop" "[stopped]" "state off"; do
        grep -qF "$line" "$device_out" || { echo "the device's output lacks '$line'"; return 1; }
    done
}
phase "the stored activity" stored || fail "the activity recorded by pacer device"

say "Hardware/install.sh installs a working device into a clean Debian $suite root"
printf '%s\n' "${figures[@]}" >&2
