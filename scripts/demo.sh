#!/usr/bin/env bash
# The main job on the simulated default (no GPS attached): build the firmware and run a
# bundled scenario end to end (the interval workout on its recorded NMEA, on a virtual
# clock, as fast as possible). It prints the scenario's timeline (every cue, phase change
# and GPS event at its time), then where the results went: timeline, events, the track as
# GPX, the summary, and the cues rendered as audio.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product pacer
out="${PACER_DEMO_DIR:-$(mktemp -d /tmp/pacer-demo.XXXXXX)}"
.build/release/pacer scenario run Scenarios/intervals --out "$out" --buzzer "wav:$out/cues.wav"
echo
echo "summary ($out/summary.json):"
sed -n '/"energy"/,/"span_s"/p' "$out/summary.json"
sed -n '/"activities"/,/"waypoints"/p' "$out/summary.json" | sed -n '2,20p'
