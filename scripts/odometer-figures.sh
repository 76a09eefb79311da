#!/usr/bin/env bash
# The odometer against a runner's watch (docs/figures.md, "Distance against the watch").
#
# Takes the real Garmin Fenix 2 trail run (../shared/tracks/fenix2-trail-run.nmea, 1 Hz,
# 3,000 s; the watch's own odometer: 6930.1 m at 3000 s), degrades its positions as a
# runner's receiver would deliver them, writes each degraded recording to a temporary
# folder with a 50-minute scenario, runs `pacer battery compare` on it (low, medium,
# high) and prints each profile's distance against the watch's odometer.
#
# Degradations (scripts/lib/degrade-track.py, shared with scripts/pace-figures.sh; speeds and
# times untouched, so only the positions' noise differs):
#   as-is    the positions as the watch wrote them (0.0001' in the NMEA)
#   rounded  positions rounded to 0.001' (about 1.9 m in latitude; as gpsbabel writes NMEA)
#   jitter   Gaussian noise, 3 m per axis (north, east), first-order Gauss-Markov in time
#            (correlation time 10 s), seeded, same noise for an epoch's RMC and GGA
#
# Usage: scripts/odometer-figures.sh [PACER] [TRACK]
#   PACER defaults to .build/debug/pacer, TRACK to ../shared/tracks/fenix2-trail-run.nmea.
set -euo pipefail
cd "$(dirname "$0")/.."
pacer=${1:-.build/debug/pacer}
track=${2:-../shared/tracks/fenix2-trail-run.nmea}
[ -f "$track" ] || { echo "no track at $track" >&2; exit 1; }
track=$(cd "$(dirname "$track")" && pwd)/$(basename "$track")
watch=6930.1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacer-odometer-XXXXXX")
[ -n "${KEEP:-}" ] && echo "kept in $tmp" >&2 || trap 'rm -rf "$tmp"' EXIT

python3 scripts/lib/degrade-track.py "$track" "$tmp"

cat > "$tmp/plan.yaml" <<'YAML'
name: Watch check
summary: The fifty minutes the watch's odometer covers, one phase.
workouts:
  - name: Fifty minutes
    phases:
      - {name: run, minutes: 50, speed_kmh: [5, 14]}
YAML

printf '| positions | low | medium | high |\n|---|---|---|---|\n'
for kind in as-is rounded jitter 5s; do
    mkdir -p "$tmp/$kind"
    cat > "$tmp/$kind/scenario.yaml" <<YAML
name: Watch check ($kind)
plan: ../plan.yaml
profile: high
hardware: imx6ull-m8n
recording: ../$kind.nmea
YAML
    "$pacer" battery compare "$tmp/$kind" --out "$tmp/$kind/out" --json > "$tmp/$kind/compare.json"
    row="| $kind |"
    for p in low medium high; do
        d=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sum(a["distance_m"] for a in s["activities"]))' "$tmp/$kind/out/$p/summary.json")
        row="$row $(python3 -c 'import sys; d,w=float(sys.argv[1]),float(sys.argv[2]); print("%.1f m (%+.2f %%)" % (d, (d-w)/w*100))' "$d" "$watch") |"
    done
    echo "$row"
done
echo "(against the watch's odometer: $watch m at 3000 s)"
