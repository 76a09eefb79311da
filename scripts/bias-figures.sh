#!/usr/bin/env bash
# The odometer on a receiver whose Doppler speeds read 3 % low (docs/figures.md, "A
# receiver's speed bias").
#
# Copies bundled scenarios whose recordings Pacer synthesized (their truth is known), scales
# every RMC speed by 0.97 (positions and courses untouched: the receiver's positions do not
# share its speeds' bias), runs `pacer battery compare` on each copy and on the original, and
# prints each profile's distance error against the recording's truth (battery compare's
# `dist err %`): unbiased, then biased.
#   pause-resume     13 min with a one-minute pause, medium's plan (the issue's case)
#   steady           12 min, park laps
#   battery-compare  30 min, park, four spells out of the band
#
# Usage: scripts/bias-figures.sh [PACER]   (PACER defaults to .build/debug/pacer)
set -euo pipefail
cd "$(dirname "$0")/.."
pacer=${1:-.build/debug/pacer}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacer-bias-XXXXXX")
[ -n "${KEEP:-}" ] && echo "kept in $tmp" >&2 || trap 'rm -rf "$tmp"' EXIT
cp -r Scenarios/plans Scenarios/routes "$tmp/"

errors() {  # the dist err % of low, medium, high
    "$pacer" battery compare "$1" --out "$1/out" | awk '$1=="low"||$1=="medium"||$1=="high"{printf " %+.2f %% |", $8}'
}

printf '| recording | speeds | low | medium | high |\n|---|---|---|---|---|\n'
for name in pause-resume steady battery-compare; do
    mkdir -p "$tmp/$name"
    cp Scenarios/$name/scenario.yaml "$tmp/$name/"
    if [ -f Scenarios/$name/run.nmea ]; then cp Scenarios/$name/run.nmea "$tmp/$name/"; else
        "$pacer" nmea synth Scenarios/$name/run.synth.yaml --out "$tmp/$name/run.nmea" >/dev/null; fi
    sed -i '/^synth:/d' "$tmp/$name/scenario.yaml"
    grep -q '^recording:' "$tmp/$name/scenario.yaml" || echo 'recording: run.nmea' >> "$tmp/$name/scenario.yaml"
    echo "| $name | as recorded |$(errors "$tmp/$name")"
    python3 - "$tmp/$name/run.nmea" <<'PY'
import sys
path = sys.argv[1]
out = []
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("$") and "*" in line:
        body = line[1:line.index("*")]
        f = body.split(",")
        if f[0].endswith("RMC") and f[7]:
            f[7] = "%.3f" % (float(f[7]) * 0.97)
            body = ",".join(f)
            c = 0
            for ch in body: c ^= ord(ch)
            line = "$%s*%02X" % (body, c)
    out.append(line)
open(path, "w").write("\n".join(out) + "\n")
PY
    rm -rf "$tmp/$name/out"
    echo "| $name | 3 % low |$(errors "$tmp/$name")"
done
echo "(distance error against each recording's truth, pacer battery compare)"
