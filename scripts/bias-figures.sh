#!/usr/bin/env bash
# The odometer on a receiver whose Doppler speeds read 3 % low (docs/figures.md, "A
# receiver's speed bias").
#
# Copies bundled synthesized scenarios, runs `pacer battery compare` on each as recorded and
# with `speed_scale: 0.97` added to its recipe (every RMC speed 3 % low; positions and courses
# untouched: the receiver's positions do not share its speeds' bias), and prints each
# profile's distance error against the recipe's truth (battery compare's `dist err %`: the
# path the synthesized runner ran, pauses left out).
#   pause-resume     13 min with a one-minute pause, medium's plan (the issue's case)
#   steady           12 min, park laps
#   battery-compare  30 min, park, four spells out of the band
# then `steady` again with each of twelve seeds (the positions' noise and the speeds' differ),
# true and 3 % low: each profile's smallest and largest error, and the runs within 1 %.
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
    cp Scenarios/$name/scenario.yaml Scenarios/$name/run.synth.yaml "$tmp/$name/"
    sed -i '/^recording:/d' "$tmp/$name/scenario.yaml"   # the recipe makes it afresh
    echo "| $name | as recorded |$(errors "$tmp/$name")"
    echo 'speed_scale: 0.97' >> "$tmp/$name/run.synth.yaml"
    rm -rf "$tmp/$name/out"
    echo "| $name | 3 % low |$(errors "$tmp/$name")"
done
echo "(distance error against each recipe's truth, pacer battery compare)"
echo

# Twelve seeds of `steady`.
mkdir -p "$tmp/seeds"
for seed in $(seq 1 12); do
    for scale in 1 0.97; do
        run="$tmp/seeds/$seed-$scale"
        mkdir -p "$run"
        cp Scenarios/steady/scenario.yaml "$run/"
        sed -i '/^recording:/d' "$run/scenario.yaml"
        sed -e "s/^seed:.*/seed: $seed/" -e 's#\.\./routes/#../../routes/#' Scenarios/steady/run.synth.yaml > "$run/run.synth.yaml"
        echo "speed_scale: $scale" >> "$run/run.synth.yaml"
        sed -i 's#\.\./plans/#../../plans/#' "$run/scenario.yaml"
        "$pacer" battery compare "$run" --out "$run/out" \
            | awk -v scale="$scale" '$1=="low"||$1=="medium"||$1=="high"{print scale, $1, $8}'
    done
done | python3 -c '
import sys, collections
errors = collections.defaultdict(list)
for line in sys.stdin:
    scale, profile, error = line.split()
    errors[(scale, profile)].append(float(error))
print("| `steady`, 12 seeds | profile | smallest error | largest error | within 1 % |")
print("|---|---|---|---|---|")
for scale in ("1", "0.97"):
    for profile in ("low", "medium", "high"):
        e = errors[(scale, profile)]
        label = "true speeds" if scale == "1" else "3 % low"
        print("| %s | %s | %+.2f %% | %+.2f %% | %d of %d |" % (label, profile, min(e), max(e), sum(abs(x) <= 1 for x in e), len(e)))
'
