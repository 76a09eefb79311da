#!/usr/bin/env bash
# The odometer against a runner's watch (docs/figures.md, "Distance against the watch").
#
# Takes the real Garmin Fenix 2 trail run (../shared/tracks/fenix2-trail-run.nmea, 1 Hz,
# 3,000 s; the watch's own odometer: 6930.1 m at 3000 s), degrades its positions as a
# runner's receiver would deliver them, writes each degraded recording to a temporary
# folder with a 50-minute scenario, runs `pacer battery compare` on it (low, medium,
# high) and prints each profile's distance against the watch's odometer.
#
# Degradations (speeds and times untouched, so only the positions' noise differs):
#   as-is    the positions as the watch wrote them (0.0001' in the NMEA)
#   rounded  positions rounded to 0.001' (about 1.9 m in latitude; as gpsbabel writes NMEA)
#   jitter   Gaussian noise, 3 m per axis (north, east), first-order Gauss-Markov in time
#            (correlation time 10 s: x[k] = a x[k-1] + sqrt(1-a^2) 3 m n[k], a = exp(-1/10)),
#            seeded (Python random.Random(2024)), same noise for an epoch's RMC and GGA
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

python3 - "$track" "$tmp" <<'PY'
import math, random, sys
src, out = sys.argv[1], sys.argv[2]

def checksum(body):
    c = 0
    for ch in body: c ^= ord(ch)
    return "%02X" % c

def to_deg(v, h):
    d = 2 if h in "NS" else 3
    x = int(v[:d]) + float(v[d:]) / 60
    return -x if h in "SW" else x

def fmt(x, lat, decimals):
    h = ("N" if x >= 0 else "S") if lat else ("E" if x >= 0 else "W")
    x = abs(x)
    d = int(x)
    m = round((x - d) * 60, decimals)
    if m >= 60: d, m = d + 1, m - 60
    return ("%02d" if lat else "%03d") % d + ("%0" + str(3 + decimals) + "." + str(decimals) + "f") % m, h

def degrade(kind):
    rng = random.Random(2024)
    a = math.exp(-1 / 10.0)
    q = math.sqrt(1 - a * a)
    nx = rng.gauss(0, 3.0); ny = rng.gauss(0, 3.0)
    noise = {}
    lines = []
    for line in open(src):
        line = line.rstrip("\n")
        if not line.startswith("$") or "*" not in line:
            lines.append(line); continue
        body = line[1:line.index("*")]
        f = body.split(",")
        if f[0].endswith("RMC"): i = 3
        elif f[0].endswith("GGA"): i = 2
        else:
            lines.append(line); continue
        if not f[i] or not f[i + 2]:
            lines.append(line); continue
        lat, lon = to_deg(f[i], f[i + 1]), to_deg(f[i + 2], f[i + 3])
        decimals = 4
        if kind == "rounded":
            decimals = 3
        elif kind == "jitter":
            t = f[1]
            if t not in noise:
                noise[t] = (nx, ny)
                nx = a * nx + q * rng.gauss(0, 3.0); ny = a * ny + q * rng.gauss(0, 3.0)
            dn, de = noise[t]
            lat += dn / 111195.0
            lon += de / (111195.0 * math.cos(math.radians(lat)))
        f[i], f[i + 1] = fmt(lat, True, decimals)
        f[i + 2], f[i + 3] = fmt(lon, False, decimals)
        body = ",".join(f)
        lines.append("$" + body + "*" + checksum(body))
    return lines

for kind in ("as-is", "rounded", "jitter"):
    with open(f"{out}/{kind}.nmea", "w") as w:
        w.write("\n".join(degrade(kind)) + "\n")
PY

cat > "$tmp/plan.yaml" <<'YAML'
name: Watch check
summary: The fifty minutes the watch's odometer covers, one phase.
workouts:
  - name: Fifty minutes
    phases:
      - {name: run, minutes: 50, speed_kmh: [5, 14]}
YAML

printf '| positions | low | medium | high |\n|---|---|---|---|\n'
for kind in as-is rounded jitter; do
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
