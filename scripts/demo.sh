#!/usr/bin/env bash
# The main job on the simulated default (no GPS attached): build the firmware and run a
# bundled scenario end to end: half an hour on a recorded run with four sudden spells out
# of the band, on a virtual clock, as fast as it computes. It says what the run shows and
# what to listen for, prints its timeline (every cue, phase change and GPS event at its
# time), renders the cues to a WAV file, and ends with the run's figures and where the
# results are: timeline, events, the track as GPX, the summary, the audio.
#
#   scripts/demo.sh [SCENARIO]     (default Scenarios/battery-compare)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
scenario="${1:-Scenarios/battery-compare}"
# The debug build: the scenario takes a fraction of a second in it, and scripts/test.sh
# builds on it rather than compiling everything a second time with optimization.
echo "demo: building pacer"
swift build --product pacer 2>&1 | grep -E '(warning|error): |Compiling pacer|Build complete' || true
out="${PACER_DEMO_DIR:-$(mktemp -d /tmp/pacer-demo.XXXXXX)}"

echo
echo "== $(sed -n 's/^name: //p' "$scenario/scenario.yaml")"
# The scenario's own words (its `summary:`, folded).
awk '/^summary:/ {on = 1; next} on && /^[a-z_]+:/ {exit} on {sub(/^ +/, ""); print}' "$scenario/scenario.yaml" | fmt -w 92
cat <<'TEXT'
Listen for (in cues.wav; `pacer beep --list` names every cue): speed-up, three quick
rising beeps, when the runner falls below the band; slow-down, two long falling beeps,
above it; on-pace, one short beep, now and then inside it; phase-change, a quick trill;
workout-complete at the end. The timeline below has each at its time (SPEED UP, SLOW DOWN).
TEXT
echo
.build/debug/pacer scenario run "$scenario" --out "$out" --buzzer "wav:$out/cues.wav"

echo
echo "The run in figures ($out/summary.json):"
# The first activity's figures, and the cues heard (those heard at least once).
sed -n '/"activities": \[/,/"phases"/p' "$out/summary.json" \
    | grep -E '"(state|distance_m|active_s|average_kmh|points)"' | sed -E 's/^ +/  /; s/,$//'
echo "  cues heard:"
sed -n '/^  "cues": {/,/^  }/p' "$out/summary.json" | grep -vE '": 0,?$|"cues"|^  }' | sed -E 's/^ +/    /; s/,$//'
