#!/usr/bin/env bash
# Pace cues against what the runner ran (docs/figures.md, "Pace cues against the runner").
#
# Takes the real Garmin Fenix 2 trail run (../shared/tracks/fenix2-trail-run.nmea, 1 Hz,
# 3,000 s, hilly), degrades its positions (scripts/lib/degrade-track.py: as-is, rounded to
# 0.001', seeded 3 m jitter; speeds untouched) and its speeds (spikes: seeded spikes of 1.7
# times the speed and dropouts to a fifth), runs `pacer battery compare` (low, medium,
# high) on each with two 50-minute workouts whose bands the runner crosses often:
#   steady   one phase, the runner's median speed (the watch's 1 Hz speeds) ±1 km/h
#   changes  five 10-minute phases, bands shifted around the median (see plan.yaml below)
# and checks every speed-up, slow-down and on-pace cue of the runs (their events.jsonl)
# against what the runner ran over the 10 s before the cue, from the unmodified track:
#   TRUE speed  the mean of the watch's own 1 Hz speeds over those 10 s (time-weighted,
#               between the first fix at or after t-10 s and the last at or before t)
# A cue CONTRADICTS the true speed when:
#   speed-up   the true speed is not below the band (at or above its minimum)
#   slow-down  the true speed is not above the band (at or below its maximum)
#   on-pace    the true speed is outside the band by more than the hysteresis
#              (0.36 km/h, or a quarter of the band's width when that is less)
# A second table checks the same cues against the watch's 1 Hz positions instead (their
# length over the same 10 s): the watch smooths the speeds it records, so on this hilly
# trail they lag its positions by several seconds (at 6:24 the positions slow from 10.5 to
# 5 km/h within 6 s, the recorded speed takes 30 s); the coach is given those speeds, and
# no rule of the coach's can judge better than the speeds it is given.
# It prints, per profile and degradation, the pace cues and how many contradict, and each
# run's distance against the watch's odometer.
#
# Usage: scripts/pace-figures.sh [PACER] [TRACK]
#   PACER defaults to .build/debug/pacer, TRACK to ../shared/tracks/fenix2-trail-run.nmea.
#   VERBOSE=1 also lists every contradicting cue; KEEP=1 keeps the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
pacer=${1:-.build/debug/pacer}
track=${2:-../shared/tracks/fenix2-trail-run.nmea}
[ -f "$track" ] || { echo "no track at $track" >&2; exit 1; }
track=$(cd "$(dirname "$track")" && pwd)/$(basename "$track")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacer-pace-XXXXXX")
[ -n "${KEEP:-}" ] && echo "kept in $tmp" >&2 || trap 'rm -rf "$tmp"' EXIT

python3 scripts/lib/degrade-track.py "$track" "$tmp"

# The runner's median speed (km/h, to 0.1) and the plan around it.
median=$(python3 - "$track" <<'PY'
import statistics, sys
speeds = []
for line in open(sys.argv[1]):
    f = line.split("*")[0].split(",")
    if f[0].endswith("RMC") and f[2] == "A" and f[7]:
        speeds.append(float(f[7]) * 1.852)
print("%.1f" % statistics.median(speeds))
PY
)
python3 - "$median" "$tmp/plan.yaml" <<'PY'
import sys
m, out = float(sys.argv[1]), sys.argv[2]
def band(lo, hi): return "[%.1f, %.1f]" % (m + lo, m + hi)
phases = [("a", -1.5, 0.5), ("b", -0.5, 1.5), ("c", -1, 1), ("d", -2, 0), ("e", 0, 2)]
with open(out, "w") as w:
    w.write("name: Pace check\nsummary: Bands around the runner's median speed (%.1f km/h).\nworkouts:\n" % m)
    w.write("  - name: Steady\n    phases:\n      - {name: run, minutes: 50, speed_kmh: %s}\n" % band(-1, 1))
    w.write("  - name: Changes\n    phases:\n")
    for name, lo, hi in phases:
        w.write("      - {name: %s, minutes: 10, speed_kmh: %s}\n" % (name, band(lo, hi)))
PY

for kind in as-is rounded jitter spikes 5s; do
    for workout in 1 2; do
        dir="$tmp/$kind-$workout"
        mkdir -p "$dir"
        cat > "$dir/scenario.yaml" <<YAML
name: Pace check ($kind, workout $workout)
plan: ../plan.yaml
workout: $workout
profile: high
hardware: imx6ull-m8n
recording: ../$kind.nmea
YAML
        "$pacer" battery compare "$dir" --out "$dir/out" --json > "$dir/compare.json"
    done
done

python3 - "$track" "$tmp" "$median" <<'PY'
import bisect, json, math, os, sys
track, tmp, median = sys.argv[1], sys.argv[2], float(sys.argv[3])
verbose = bool(os.environ.get("VERBOSE"))

def to_deg(v, h):
    d = 2 if h in "NS" else 3
    x = int(v[:d]) + float(v[d:]) / 60
    return -x if h in "SW" else x

def metres(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[1]), math.radians(b[1])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[2] - a[2]) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(h))

fixes = []  # (seconds of the day, latitude, longitude)
for line in open(track):
    f = line.split("*")[0].split(",")
    if not (f[0].endswith("RMC") and f[2] == "A"): continue
    s = int(f[1][0:2]) * 3600 + int(f[1][2:4]) * 60 + float(f[1][4:])
    if fixes and s <= fixes[-1][0]: continue
    fixes.append((s, to_deg(f[3], f[4]), to_deg(f[5], f[6])))
t0 = fixes[0][0]
times = [f[0] - t0 for f in fixes]
along = [0.0]
for a, b in zip(fixes, fixes[1:]): along.append(along[-1] + metres(a, b))

speeds = []
for line in open(track):
    f = line.split("*")[0].split(",")
    if not (f[0].endswith("RMC") and f[2] == "A"): continue
    s = int(f[1][0:2]) * 3600 + int(f[1][2:4]) * 60 + float(f[1][4:])
    if speeds and s <= t0 + times[len(speeds) - 1]: continue
    speeds.append(float(f[7]) * 1.852)
ran = [0.0]
for k in range(1, len(times)): ran.append(ran[-1] + (speeds[k - 1] + speeds[k]) / 2 * (times[k] - times[k - 1]))

def window(t):
    i = bisect.bisect_right(times, t + 1e-6) - 1
    j = bisect.bisect_left(times, t - 10 - 1e-6)
    return (i, j) if i > j else None

def by_speeds(t):
    """km/h: the mean of the watch's 1 Hz speeds over the 10 s before t."""
    w = window(t)
    return w and (ran[w[0]] - ran[w[1]]) / (times[w[0]] - times[w[1]])

def by_positions(t):
    """km/h along the 1 Hz positions over the 10 s before t."""
    w = window(t)
    return w and (along[w[0]] - along[w[1]]) / (times[w[0]] - times[w[1]]) * 3.6

m = median
bands = {1: [(m - 1, m + 1)], 2: [(m - 1.5, m + 0.5), (m - 0.5, m + 1.5), (m - 1, m + 1), (m - 2, m), (m, m + 2)]}
listed = []
for truth, title in ((by_speeds, "the watch's speeds"), (by_positions, "the watch's positions")):
    print("Against %s:\n" % title)
    print("| recording | low | medium | high |\n|---|---|---|---|")
    for kind in ("as-is", "rounded", "jitter", "spikes", "5s"):
        row = "| %s |" % kind
        for p in ("low", "medium", "high"):
            n = bad = 0
            for workout in (1, 2):
                for line in open(f"{tmp}/{kind}-{workout}/out/{p}/events.jsonl"):
                    e = json.loads(line)
                    if e.get("event") != "cue" or e.get("cue") not in ("speed-up", "slow-down", "on-pace"): continue
                    lo, hi = bands[workout][e["phase"] - 1]
                    h = min(0.36, (hi - lo) / 4)
                    v = truth(e["t"])
                    if v is None: continue
                    n += 1
                    wrong = {"speed-up": v >= lo, "slow-down": v <= hi, "on-pace": v < lo - h or v > hi + h}[e["cue"]]
                    if wrong:
                        bad += 1
                        listed.append("%s: %s %s workout %d: %s at %s (judged %.2f km/h, band %.1f-%.1f): ran %.2f km/h"
                                      % (title, kind, p, workout, e["cue"], e["time"], e.get("speed_kmh", float("nan")), lo, hi, v))
            row += " %d of %d (%.1f %%) |" % (bad, n, 100.0 * bad / n if n else 0)
        print(row)
    print()
print("(contradicting pace cues of all pace cues, both workouts; bands around the median %.1f km/h)" % median)
# The same runs' distance against the watch's odometer (6930.1 m at 3000 s): one phase
# (workout 1) and five (workout 2), whose ends fall inside the sparse profiles' legs.
print("\nDistance against the watch's odometer (workout 1, one phase / workout 2, five phases):\n")
print("| recording | low | medium | high |\n|---|---|---|---|")
for kind in ("as-is", "rounded", "jitter", "spikes", "5s"):
    row = "| %s |" % kind
    for p in ("low", "medium", "high"):
        cells = []
        for workout in (1, 2):
            s = json.load(open(f"{tmp}/{kind}-{workout}/out/{p}/summary.json"))
            d = sum(a["distance_m"] for a in s["activities"])
            cells.append("%+.2f %%" % ((d - 6930.1) / 6930.1 * 100))
        row += " %s |" % " / ".join(cells)
    print(row)
if verbose:
    for l in listed: print(l)
PY
