#!/usr/bin/env bash
# The board from power-on, emulated whole: the arm64 package booted on Debian's own arm64
# kernel under qemu-system-aarch64 (machine virt, a Cortex-A53 as on a Raspberry Pi Zero 2 W /
# 3 / 4, two cores, 512 MB as on a Zero 2 W), from Debian's archive alone, and checked from
# outside the board.
#
# The image: a Debian arm64 root (debootstrap minbase with Debian's kernel linux-image-arm64,
# systemd, udev, e2fsprogs; kept in /var/cache/pacer-cross or $PACER_CROSS_CACHE, and shared
# with arm64-install-check.sh), then a maker's steps from
# Hardware/README.md in it: `apt install ./pacer_…_arm64.deb`, `apt install gpsd-tools
# alsa-utils`, gpsd's defaults and asound.conf from the package's examples (option (a), the
# USB sound card), the button and `battery: sim` (no gauge) in /etc/pacer/pacer.yaml, and
# the check's plan activated as user pacer. Made into an ext4 image with `mkfs.ext4 -d` (no
# loop mounts), kept beside the root and made again when the package's files change.
#
# The parts, as real as emulation allows, on QEMU's xHCI controller:
#   GPS     usb-serial (an FTDI FT232 bridge, as on many GPS boards), fed from here at 1 Hz
#           with Scenarios/board-boot/run.nmea from power-on; named /dev/gps0 by the
#           package's udev rule, read through gpsd as Debian ships it, and later through
#           the serial source (gps: serial:///dev/gps0)
#   button  usb-kbd, its Enter key (28) pressed through QEMU's monitor (QMP
#           input-send-event) and read by the evdev adapter
#   sound   usb-audio, written by QEMU's wav audio backend: the cues the board's kernel played
#   battery the simulated gauge (battery: sim), as the guide says for a board without one
#   console a shell on a virtio console (hvc0), the check's serial cable into the board
#
# The run follows Scenarios/board-boot (its script, in recording time): power on; the ready
# sound after the fix (time from power-on reported); a press starts the plan's workout, a
# press marks a waypoint; pace cues; the power cut (QEMU quits, no shutdown); the second
# boot: the activity recovered, the device ready again; a press starts, a very long press
# stops; the device restarted on the serial source, a press starts, a very long press stops;
# a clean shutdown. Then, from outside: the cues found in the WAV files by their tones, each
# matched within 2 s of the same cue in the scenario's run on this machine (after the boot
# offset); the activities read back from the image (the recovered one with its waypoint and
# its points up to the last flush); the journal of pacer.service without an error; the unit
# run by systemd as user pacer; `systemd-analyze security pacer`; /dev/gps0 named by udev;
# pacer's CPU time and memory from the guest's /proc.
#
#   scripts/board-boot-check.sh [--deb FILE] [--suite trixie|bookworm] [--pacer HOSTBIN]
#                               [--keep] [--break udev|unit] [--image-only | --tools-only | --root-only]
#
#   --deb FILE     the arm64 package (default: the newest out/pacer_*_arm64.deb for the suite:
#                  trixie pacer_V_arm64.deb, bookworm pacer_V~deb12_arm64.deb)
#   --suite NAME   the Debian release of the image (default trixie)
#   --pacer BIN    this machine's pacer, for the scenario run the board is compared with and
#                  for reading the activities back (default: .build/release/pacer, else
#                  .build/debug/pacer)
#   --keep         keep the work folder (WAVs, console, overlay image, logs)
#   --break WHAT   break the image on purpose: `udev` (the GPS rule's IDs changed) or `unit`
#                  (ExecStart names a missing binary); the check must then fail
#   --image-only   make (or find) the image and stop
#   --tools-only   install this machine's tools (above) and stop: before two checks run side
#                  by side, so that their apt-gets do not meet
#   --root-only    make (or find) the suite's base root in the cache and stop: it needs no
#                  package, so it can be made while the package is built
#
# Needs root, Debian's archive, qemu-system-arm (installed with apt when missing, with
# qemu-utils, qemu-user-static, binfmt-support, debootstrap, python3-numpy, python3-yaml).
# Exit status: 0 pass; 1 a check failed; 64 bad option; 66 no such .deb; 69 the image
# cannot be made or a tool is missing; 77 not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deb=""
suite=trixie
host_pacer=""
keep=0
breakage=""
image_only=0
tools_only=0
root_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --deb) [ $# -ge 2 ] || { echo "board-boot-check: --deb needs a FILE" >&2; exit 64; }
               deb=$(readlink -f "$2"); shift ;;
        --suite) [ $# -ge 2 ] || { echo "board-boot-check: --suite needs a NAME" >&2; exit 64; }
                 suite=$2; shift ;;
        --pacer) [ $# -ge 2 ] || { echo "board-boot-check: --pacer needs a BINARY" >&2; exit 64; }
                 host_pacer=$(readlink -f "$2"); shift ;;
        --keep) keep=1 ;;
        --break) [ $# -ge 2 ] || { echo "board-boot-check: --break needs udev or unit" >&2; exit 64; }
                 breakage=$2; shift
                 case "$breakage" in udev|unit) ;; *) echo "board-boot-check: --break udev|unit, not '$breakage'" >&2; exit 64 ;; esac ;;
        --image-only) image_only=1 ;;
        --tools-only) tools_only=1 ;;
        --root-only) root_only=1 ;;
        -h|--help) sed -n '2,59p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "board-boot-check: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done
case "$suite" in
    trixie) deb_glob='pacer_[0-9]*[0-9]_arm64.deb' ;;
    bookworm) deb_glob='pacer_*~deb12_arm64.deb' ;;
    *) echo "board-boot-check: --suite trixie or bookworm, not '$suite'" >&2; exit 64 ;;
esac

name=board-boot-check
needs_toolchain=0
root_arch=arm64
source "$repo/scripts/lib/debian-root.sh"
root_cache=$pacer_cross_cache
board_cache=$root_cache/board-$suite
# The board's operating system before the maker's steps (debian-root.sh's board_base_opts,
# the root arm64-install-check.sh installs into too).
debootstrap_opts=("${board_base_opts[@]}")

host_tools() {   # the host's tools, installed with apt when missing
    local need=()
    command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
    command -v qemu-img >/dev/null || need+=(qemu-utils)
    command -v debugfs >/dev/null || need+=(e2fsprogs)
    command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static binfmt-support)
    command -v debootstrap >/dev/null || need+=(debootstrap)
    command -v zstd >/dev/null || need+=(zstd)
    /usr/bin/python3 -c 'import numpy, yaml' 2>/dev/null || need+=(python3-numpy python3-yaml)
    [ ${#need[@]} -eq 0 ] && return 0
    say "installing ${need[*]}"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; } \
        || { say "cannot install ${need[*]}"; exit 69; }
}
host_tools
[ "$tools_only" -eq 0 ] || exit 0
if [ "$root_only" -eq 1 ]; then
    # The base root alone, into the cache: it needs no package, so CI can make it in the
    # background while it builds one.
    root_create
    printf '%s\n' "${figures[@]}" >&2
    exit 0
fi

if [ -z "$deb" ]; then
    # shellcheck disable=SC2086
    deb=$(cd "$repo/out" 2>/dev/null && ls $deb_glob 2>/dev/null | sort -V | tail -1) || true
    [ -n "$deb" ] || { say "no --deb and no out/$deb_glob (sudo scripts/package-deb.sh --arch arm64 makes one)"; exit 66; }
    deb="$repo/out/$deb"
fi
[ -f "$deb" ] || { say "no package at $deb"; exit 66; }
[ "$(dpkg-deb -f "$deb" Architecture 2>/dev/null)" = arm64 ] || { say "$deb is not an arm64 package"; exit 66; }

# --- the image ------------------------------------------------------------------------------
# Its key: the package's files (their md5sums and the control file, not the .deb's own bytes,
# which change with every build's timestamps), this script's image recipe, and the files the
# maker's steps take from the checkout.
image_recipe=3
image_key=$( { dpkg-deb -I "$deb" md5sums; dpkg-deb -f "$deb"; echo "$image_recipe $suite ${debootstrap_opts[*]} $breakage";
               sed -n '/^# --- the image/,/^# --- end of the image/p' "$0"; cat "$repo/Scenarios/plans/board.yaml"; } | sha256sum | cut -c1-16)
image_dir=$board_cache/$image_key
image=$image_dir/root.img

# What the package and the guide's step 1 pull from Debian's archive (its Depends and
# Recommends, gpsd-tools, alsa-utils), installed once into a layer kept beside the base root:
# under emulation that apt-get takes minutes (python3's byte-compiling, for gpsd), and it
# changes only when the package's dependencies do. The package itself is then installed on
# it with the guide's own command, which finds them there.
deps=$( { dpkg-deb -f "$deb" Depends; echo ,; dpkg-deb -f "$deb" Recommends; echo , gpsd-tools, alsa-utils; } \
    | tr -d '\n' | tr ',|' '\n\n' | sed -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -v '^$' | sort -u | tr '\n' ' ')
deps_key=$(echo "$suite ${debootstrap_opts[*]} $deps" | sha256sum | cut -c1-16)
deps_tar=$board_cache/deps-$deps_key.tar.zst

no_daemons() {
    # Nothing the apt-gets install starts a daemon in this machine's namespace (removed again
    # before the image is made: on the board, systemd starts what is enabled).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
    echo 'Acquire::Languages "none";' >"$root/etc/apt/apt.conf.d/99pacer-no-translations"
}

make_image() {
    if [ -s "$deps_tar" ]; then
        # debian-root.sh takes a cached root by its name in root_cache: a folder of one link to it
        local view=$board_cache/view
        rm -rf "$view"; mkdir -p "$view"
        root_cache=$view
        ln "$deps_tar" "$view/root-$(root_cache_key).tar.zst"   # a hard link: zstd skips symbolic ones
        root_create
        root_cache=$pacer_cross_cache
        no_daemons
    else
        root_create
        no_daemons
        check "the package's dependencies, gpsd-tools, alsa-utils (a layer kept for the next image)" \
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y $deps && apt-get clean"
        find "$board_cache" -maxdepth 1 -name 'deps-*.tar.zst' -delete
        phase "keep that layer" bash -c "tar -c --one-file-system --numeric-owner --xattrs --xattrs-include='*' -C '$root' . \
            | zstd -q -T0 -3 >'$deps_tar.tmp' && mv '$deps_tar.tmp' '$deps_tar'" || fail "keeping the dependency layer"
    fi
    cp "$deb" "$root/root/"
    # Hardware/README.md, "Software, step by step", as a maker types it (as root here).
    # Step 1: the package, with its recommends (gpsd), and the tools the guide uses.
    check "step 1: apt install ./$(basename "$deb")" \
        "cd /root && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y ./$(basename "$deb") && rm ./$(basename "$deb")"
    check "step 1: apt install gpsd-tools alsa-utils" \
        "DEBIAN_FRONTEND=noninteractive apt-get install -y gpsd-tools alsa-utils && apt-get clean"
    # Step 4: gpsd reads /dev/gps0 (the package's example of /etc/default/gpsd).
    check "step 4: gpsd reads /dev/gps0" \
        "install -m 0644 /usr/share/doc/pacer/examples/gpsd.default /etc/default/gpsd && systemctl enable gpsd.socket gpsd.service"
    # Step 5: option (a) of the example asound.conf, the USB sound card; QEMU's usb-audio is
    # card "Audio" (aplay -l: card 0: Audio [QEMU USB Audio]).
    check "step 5: asound.conf, option (a) for the USB card" \
        "sed -e '/^# ---- (a)/,/^# ---- (b)/{s/^# \\(pcm\\|ctl\\)\\.!default {/\\1.!default {/; s/^#     /    /; s/^# }/}/; s/CARD=Device/CARD=Audio/; s/card Device/card Audio/}' \
            /usr/share/doc/pacer/examples/asound.conf >/etc/asound.conf && grep -q '^pcm.!default' /etc/asound.conf && grep -q 'hw:CARD=Audio,DEV=0' /etc/asound.conf"
    # The settings: the button (the USB key's Enter, 28, by its stable path) and no gauge.
    check "settings: the button, battery: sim" \
        "sed -i -e 's|^battery: sysfs\$|battery: sim|' /etc/pacer/pacer.yaml && grep -q '^battery: sim\$' /etc/pacer/pacer.yaml && \
         printf '%s\n' '# The check'\"'\"'s button: QEMU'\"'\"'s USB keyboard on xHCI port 2, its Enter key.' \
            'buttons: evdev:/dev/input/by-path/platform-4010000000.pcie-pci-0000:00:02.0-usb-0:2:1.0-event-kbd?keys=28' >>/etc/pacer/pacer.yaml"
    # Step 7: the device's plan (the service is stopped while it is made the device's; here it
    # does not run).
    # The plan file is left in /var/tmp, which the service does not see (PrivateTmp=yes):
    # activate copies it into the data folder.
    install -m 0644 "$repo/Scenarios/plans/board.yaml" "$root/var/tmp/board-plan.yaml"
    check "step 7: plan activate (as pacer)" \
        "setpriv --reuid=pacer --regid=pacer --init-groups -- pacer plan activate /var/tmp/board-plan.yaml --data-dir /var/lib/pacer"
    # The board: its root on the virtio disk, a persistent journal, a name, and the check's
    # console: a root shell on hvc0 (the serial cable a maker would plug in).
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
    echo pacer >"$root/etc/hostname"
    mkdir -p "$root/var/log/journal"
    cat >"$root/etc/systemd/system/board-console.service" <<'UNIT'
[Unit]
Description=The board check's console (a root shell on hvc0)
After=systemd-user-sessions.service
[Service]
ExecStart=/bin/bash --noprofile --norc
StandardInput=tty-force
StandardOutput=tty
TTYPath=/dev/hvc0
TTYReset=yes
Restart=always
# an interactive bash ignores SIGTERM: the shutdown would wait 90 s for it
KillSignal=SIGHUP
TimeoutStopSec=5
Environment=TERM=dumb PS1= LANG=C.UTF-8
[Install]
WantedBy=multi-user.target
UNIT
    in_root "systemctl enable board-console.service && systemctl mask serial-getty@hvc0.service"
    # What a board's first boot would do once (a machine ID; the linker cache, the journal's
    # catalogue and the /etc and /var update stamps that systemd-update-done writes), done
    # here, so that every boot of the check is a board's everyday boot.
    in_root "systemd-machine-id-setup >/dev/null && ldconfig && journalctl --update-catalog && \
        for d in /etc /var; do \
            printf '# This file was created by systemd-update-done.\nTIMESTAMP_NSEC=%s\n' \$(stat -c %.9Y /usr | tr -d .) >\$d/.updated && touch -r /usr \$d/.updated; \
        done"
    case "$breakage" in
        udev) sed -i 's/ATTRS{idVendor}=="0403"/ATTRS{idVendor}=="0404"/' "$root"/usr/lib/udev/rules.d/99-pacer-gps.rules "$root"/lib/udev/rules.d/99-pacer-gps.rules 2>/dev/null || true ;;
        unit) mkdir -p "$root/etc/systemd/system/pacer.service.d"
              printf '[Service]\nExecStart=\nExecStart=/usr/bin/pacer-missing device --config /etc/pacer/pacer.yaml\n' \
                  >"$root/etc/systemd/system/pacer.service.d/broken.conf" ;;
    esac
    rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/dpkg/dpkg.cfg.d/99pacer-unsafe-io"
    : >"$root/etc/resolv.conf"
    # Out of the root: its kernel and initrd (QEMU boots them directly, as the Pi's firmware
    # does from the boot partition), then the image.
    rm -rf "$image_dir.tmp"; mkdir -p "$image_dir.tmp"
    cp -L "$root/vmlinuz" "$image_dir.tmp/vmlinuz"
    cp -L "$root/initrd.img" "$image_dir.tmp/initrd.img"
    local i
    for (( i=${#mounts[@]}-1; i>=0; i-- )); do umount -R -l "${mounts[$i]}" 2>/dev/null || true; done
    mounts=()
    local size_mb
    size_mb=$(( $(du -sm --one-file-system "$root" | cut -f1) + 768 ))
    phase "mkfs.ext4 -d (${size_mb} MB)" mkfs.ext4 -q -F -L pacer-root -d "$root" "$image_dir.tmp/root.img" "${size_mb}M" \
        || fail "mkfs.ext4 -d"
    find "$board_cache" -mindepth 1 -maxdepth 1 -type d ! -name "$image_key.tmp" -exec rm -rf {} +
    mv "$image_dir.tmp" "$image_dir"
}
# --- end of the image -------------------------------------------------------------------------

t_start=$(now)
if [ -s "$image" ]; then
    say "the image for this package from the cache ($image_dir)"
    root=$(mktemp -d "${TMPDIR:-/var/tmp}/pacer-$name.XXXXXX"); log="$root.log"; : >"$log"
    trap root_cleanup EXIT
else
    mkdir -p "$board_cache"
    make_image
fi
[ "$image_only" -eq 0 ] || { printf '%s\n' "${figures[@]}" >&2; say "image: $image"; exit 0; }

# --- the run ----------------------------------------------------------------------------------
if [ -z "$host_pacer" ]; then
    for b in "$repo/.build/release/pacer" "$repo/.build/debug/pacer"; do
        [ -x "$b" ] && { host_pacer=$b; break; }
    done
fi
[ -n "$host_pacer" ] && [ -x "$host_pacer" ] || { say "no pacer for this machine (--pacer, or swift build)"; exit 69; }
work="$root/run"
mkdir -p "$work"
status=0
/usr/bin/python3 "$repo/scripts/lib/board_vm.py" \
    --image "$image" --kernel "$image_dir/vmlinuz" --initrd "$image_dir/initrd.img" \
    --scenario "$repo/Scenarios/board-boot" --cues "$repo/Hardware/cues.yaml" \
    --pacer "$host_pacer" --work "$work" --suite "$suite" \
    2>&1 | tee -a "$log" || status=$?
printf '%s\n' "${figures[@]}" >&2
printf '%-36s %5d s\n' "total" $(( $(now) - t_start )) >&2
[ "$status" -eq 0 ] || { say "FAILED (work folder: $work; --keep keeps it)"; exit 1; }
say "the board boots, coaches, survives a power cut and comes back (Debian $suite arm64, emulated)"
