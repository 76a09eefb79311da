#!/usr/bin/env bash
# Proves the Debian package on a clean system: a fresh Debian 12 root (debootstrap
# --variant=minbase) gets the .deb and nothing else from this machine (no toolchain, no
# checkout), `apt-get install ./pacer_….deb` resolves its Depends from Debian's archive, and
# inside the root, from /:
#
#   - `pacer version` runs (the binary needs nothing the package does not pull in);
#   - `pacer hw check --json` on a root without gpsd and without a sound card reports the
#     GPS and the sound output missing, and exits 1 as Hardware/README.md says (in a network
#     namespace of its own, so a gpsd on this machine cannot answer);
#   - `pacer scenario run` of a bundled scenario (/usr/share/pacer/scenarios/steady), and
#     `pacer scenario test` of it against its golden;
#   - as user `pacer`: the device's plan made (`pacer plan activate`, into /var/lib/pacer)
#     and `pacer run` of it on the bundled recording, on a virtual clock, the activity stored;
#   - the user `pacer` exists, in groups dialout, audio and input; /var/lib/pacer is its,
#     0770; the unit is enabled the Debian way (deb-systemd-helper's symlink in
#     multi-user.target.wants) and /etc/pacer/pacer.yaml is a conffile;
#   - `systemd-analyze verify` of the installed unit (systemd installed in the root, as a
#     board has it);
#   - `apt-get remove` keeps the settings and the activities; `apt-get purge` removes them
#     and the unit's enablement, and keeps the user.
#
#   scripts/deb-install-check.sh [--deb FILE] [--keep]
#
# Without --deb, scripts/package-deb.sh makes one first (building pacer when needed).
# Needs root and Debian's archive. Exit status: 0 pass; 1 a check failed; 64 bad option;
# 66 no such .deb; 69 the root cannot be made; 77 not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deb=""
keep=0
root=""

while [ $# -gt 0 ]; do
    case "$1" in
        --deb) deb=$(readlink -f "$2"); shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "deb-install-check: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

name=deb-install-check
needs_toolchain=0
source "$repo/scripts/lib/debian-root.sh"

if [ -z "$deb" ]; then
    say "making the package (scripts/package-deb.sh)"
    deb=$(bash "$repo/scripts/package-deb.sh" | tail -1)
fi
[ -f "$deb" ] || { say "no package at $deb"; exit 66; }
deb_name=$(basename "$deb")

as_pacer() {   # the command as user pacer, from /
    echo "setpriv --reuid=pacer --regid=pacer --init-groups -- $1"
}

root_create

# Only the .deb goes into the root.
cp "$deb" "$root/tmp/$deb_name"
phase "apt-get install ./$deb_name" in_root \
    "cd /tmp && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ./$deb_name" \
    || fail "apt-get install of the package"
rm -f "$root/tmp/$deb_name"
grep -E "^(Setting up|The following NEW packages)|^  " "$log" | tail -n 12 >&2 || true

check "pacer version" "pacer version | tee -a /dev/stderr | grep -q '^pacer [0-9]'"

phase "pacer hw check --json (no parts)" hw_check || fail "pacer hw check --json on a root without the parts"

check "pacer scenario run (bundled steady)" \
    "pacer scenario run /usr/share/pacer/scenarios/steady --out /tmp/steady --quiet && test -s /tmp/steady/summary.json && test -s /tmp/steady/track.gpx && grep -q 'FINISHED (completed)' /tmp/steady/timeline.txt"
check "pacer scenario test (bundled steady)" "pacer scenario test /usr/share/pacer/scenarios/steady"

# The unit's user runs the device's plan on the bundled recording, into its data folder,
# with the installed settings but for the battery: `pacer run` refuses `battery: sysfs`
# where there is no gauge (as here), so the settings are those of a board without one
# (board.yaml: "with `battery: sim` (a board without a gauge)").
sed 's/^battery: sysfs$/battery: sim/' "$root/etc/pacer/pacer.yaml" >"$root/tmp/no-gauge.yaml"
chmod 0644 "$root/tmp/no-gauge.yaml"
grep -q '^battery: sim$' "$root/tmp/no-gauge.yaml" || fail "/etc/pacer/pacer.yaml has no 'battery: sysfs' line"
check "plan activate + pacer run (as pacer)" "$(as_pacer "pacer plan activate easy-run --data-dir /var/lib/pacer") && \
    $(as_pacer "pacer run --config /tmp/no-gauge.yaml --source file:/usr/share/pacer/recordings/easy-run.nmea --fast --buzzer null --data-dir /var/lib/pacer --today 2026-01-01") >/tmp/run.out && \
    $(as_pacer "pacer activities list --data-dir /var/lib/pacer") | tee -a /dev/stderr | grep -q 'Easy run: .* completed'"

check "user pacer, its groups and data folder" \
    "id pacer | tee -a /dev/stderr && for g in dialout audio input; do id -nG pacer | tr ' ' '\n' | grep -qx \$g || { echo \"pacer is not in \$g\"; exit 1; }; done && \
     test \"\$(stat -c '%U:%G %a' /var/lib/pacer)\" = 'pacer:pacer 770'"
check "unit enabled, settings a conffile" \
    "test -L /etc/systemd/system/multi-user.target.wants/pacer.service && readlink /etc/systemd/system/multi-user.target.wants/pacer.service && \
     dpkg-query -W -f='\${Conffiles}\n' pacer | tee -a /dev/stderr | grep -q '^ /etc/pacer/pacer.yaml ' && \
     grep -q '^hardware_dir: /usr/share/pacer$' /etc/pacer/pacer.yaml"

# systemd-analyze verify: the host's systemd checks the unit against the root (its binary,
# user, directives), with the root's systemd installed for the targets it names. Warnings
# about gpsd (Recommends, not installed here) and sound.target are expected; anything else fails.
phase "systemd (in the root, as on a board)" root_apt systemd || fail "installing systemd in the root"
phase "systemd-analyze verify" verify_unit /lib/systemd/system/pacer.service || fail "systemd-analyze verify of the installed unit"

remove_and_purge

say "the package installs, runs and goes away cleanly in a clean Debian $suite root"
# What the root printed, in short: the version, the parts report, the scenario, the run, the user.
grep -E "^(pacer [0-9]|libgps API|exit status|GPS: |sound: |.* expectations hold|[0-9]+/[0-9]+ scenarios pass|uid=[0-9]+\(pacer\)| +[0-9]+ +[0-9-]+ [0-9:]+ .* completed )" "$log" \
    | awk '!seen[$0]++' >&2 || true
printf '%s\n' "${figures[@]}" >&2
