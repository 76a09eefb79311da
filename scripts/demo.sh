#!/usr/bin/env bash
# The main job on the simulated default (no GPS attached): build the firmware and run the
# demo workout against the bundled receiver recording on a virtual clock, as fast as
# possible. It prints the cues as they sound, then the stored activity: statistics, phases,
# the route drawn, and where its GPX and the cue audio went.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product pacer
out="${PACER_DEMO_DIR:-$(mktemp -d /tmp/pacer-demo.XXXXXX)}"
.build/release/pacer run --plan demo --source file:Hardware/recordings/track-loop.nmea --fast \
    --buzzer "wav:$out/cues.wav" --data-dir "$out" --today 2026-05-02
.build/release/pacer activities export 1 --gpx "$out/demo.gpx" --data-dir "$out"
echo "activity stored in $out/pacer.sqlite; GPX: $out/demo.gpx; cues: $out/cues.wav"
