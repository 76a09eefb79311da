#!/usr/bin/env bash
# Installs Pacer on the board, as Hardware/README.md ("Software, step by step", steps 4, 5
# and 9) describes, from a checkout with a built binary:
#
#   sudo Hardware/install.sh [--binary PATH] [--root DIR] [--no-start]
#
#   --binary PATH  the pacer to install (default: .build/release/pacer, built by
#                  `scripts/build-release.sh`)
#   --root DIR     install into DIR as if it were / (a board's SD card mounted here, or a
#                  scratch root for a check); nothing is started
#   --no-start     install and enable, but do not start the service now
#
# What goes where:
#   /usr/local/bin/pacer                   the binary
#   /usr/local/share/pacer/                plans, profiles, parts, builds, cues.yaml,
#                                          recordings, speech, config/simulated.yaml, README.md
#   /etc/pacer/pacer.yaml                  the settings (config/board.yaml); an existing
#                                          one is kept, the new one goes beside it as
#                                          pacer.yaml.new
#   /etc/udev/rules.d/99-pacer-gps.rules   /dev/gps0 for the USB receiver
#   /etc/udev/rules.d/70-pacer-rfkill.rules  the Wi-Fi radio's switch writable by group pacer
#   /etc/systemd/system/pacer.service      the unit: `pacer device` at boot
#   user and group `pacer` (system user, groups dialout, audio, input)
#
# It does not install gpsd's defaults or the ALSA configuration: those depend on the
# receiver and the sound card (README steps 6 and 7). Exit status: 0 installed; 64 bad
# option; 66 the binary is missing; 77 not root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
checkout=$(dirname "$here")
binary="$checkout/.build/release/pacer"
root=""
start=1

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift ;;
        --root) root="${2%/}"; start=0; shift ;;
        --no-start) start=0 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

say() { echo "install.sh: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { say "needs root (run it with sudo)"; exit 77; }
[ -x "$binary" ] || { say "no binary at $binary: build it first (scripts/build-release.sh)"; exit 66; }
if [ -n "$root" ]; then
    [ -d "$root/etc" ] || { say "$root does not look like a root (no etc/)"; exit 64; }
    root=$(cd "$root" && pwd)
fi

share="$root/usr/local/share/pacer"
install -D -m 0755 "$binary" "$root/usr/local/bin/pacer"
say "installed $root/usr/local/bin/pacer"

install -d -m 0755 "$share" "$share/config"
# Replace what an earlier version installed: a plan or profile removed upstream must not linger.
for dir in plans profiles parts builds recordings speech; do
    rm -rf "${share:?}/$dir"
    cp -r "$here/$dir" "$share/$dir"
done
install -m 0644 "$here/cues.yaml" "$here/README.md" "$share/"
# The simulated setup, for trying the installed binary without the parts (pacer … --config
# /usr/local/share/pacer/config/simulated.yaml); its paths are relative to its folder.
install -m 0644 "$here/config/simulated.yaml" "$share/config/"
chmod -R u=rwX,go=rX "$share"
say "installed $share"

install -d -m 0755 "$root/etc/pacer"
if [ -e "$root/etc/pacer/pacer.yaml" ]; then
    install -m 0644 "$here/config/board.yaml" "$root/etc/pacer/pacer.yaml.new"
    say "kept $root/etc/pacer/pacer.yaml; the shipped one is pacer.yaml.new"
else
    install -m 0644 "$here/config/board.yaml" "$root/etc/pacer/pacer.yaml"
    say "installed $root/etc/pacer/pacer.yaml"
fi

install -D -m 0644 "$here/udev/99-pacer-gps.rules" "$root/etc/udev/rules.d/99-pacer-gps.rules"
install -D -m 0644 "$here/udev/70-pacer-rfkill.rules" "$root/etc/udev/rules.d/70-pacer-rfkill.rules"
install -D -m 0644 "$here/systemd/pacer.service" "$root/etc/systemd/system/pacer.service"
say "installed the udev rules and the systemd unit"

# The service's user: its groups own the serial ports, the sound devices and the input
# devices (buttons). Debian has dialout and audio; input comes with udev, so it is made
# when missing.
rootopt=()
[ -n "$root" ] && rootopt=(--root "$root")
for group in dialout audio input; do
    grep -q "^$group:" "$root/etc/group" || groupadd "${rootopt[@]}" --system "$group"
done
if grep -q '^pacer:' "$root/etc/passwd"; then
    usermod "${rootopt[@]}" -a -G dialout,audio,input pacer
else
    useradd "${rootopt[@]}" --system --user-group --home-dir /var/lib/pacer --no-create-home \
        --shell /usr/sbin/nologin --groups dialout,audio,input pacer
    say "made the system user pacer"
fi
# BlueZ answers only root and the group bluetooth on the system bus (its D-Bus policy): the
# heart-rate strap needs it. The group comes with bluez, when it is installed.
if grep -q '^bluetooth:' "$root/etc/group"; then
    usermod "${rootopt[@]}" -a -G bluetooth pacer
fi
# systemd makes it at start (StateDirectory=); made here too, so that `pacer plan activate
# --data-dir /var/lib/pacer` works before the first start.
install -d -m 0770 -o "$(grep '^pacer:' "$root/etc/passwd" | cut -d: -f3)" \
    -g "$(grep '^pacer:' "$root/etc/group" | cut -d: -f3)" "$root/var/lib/pacer"

# The companion page's password (docs/companion.md): made when none is set, printed once.
if [ -z "$root" ] && [ ! -e /var/lib/pacer/companion.passwd ]; then
    if made=$(setpriv --reuid=pacer --regid=pacer --init-groups "$root/usr/local/bin/pacer" companion password --generate --if-unset --data-dir /var/lib/pacer 2>&1); then
        say "$made (the page: http://THIS-BOARD:8080; keep it, it is not shown again)"
    else
        say "no companion password made ($made): sudo -u pacer pacer companion password --generate"
    fi
elif [ -n "$root" ]; then
    say "the companion page's password: on the board, sudo -u pacer pacer companion password --generate"
fi

if [ -z "$root" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    udevadm control --reload-rules 2>/dev/null || true
    # The Wi-Fi switch's group now (the pacer group exists from here on), not at the next boot.
    udevadm trigger --subsystem-match=rfkill --action=add 2>/dev/null || true
    systemctl daemon-reload
    systemctl enable pacer.service
    if [ "$start" -eq 1 ]; then
        systemctl restart pacer.service
        say "started: journalctl -u pacer -f"
    fi
fi
say "done. Next: make a plan the device's (sudo -u pacer pacer plan activate PLAN --data-dir /var/lib/pacer)"
