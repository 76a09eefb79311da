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
# Its progress a line each tenth of the way: from nothing it takes about 4 minutes on 2 cores.
echo "demo: building pacer (from nothing about 4 minutes on 2 cores; seconds once built)"
swift build --product pacer 2>&1 | awk '
    /(warning|error): / { print; fflush(); next }
    /^\[[0-9]+\/[0-9]+\]/ {
        split(substr($1, 2), step, "/"); n = step[1] + 0; m = step[2] + 0
        if (m >= 20 && n - last >= m / 10) { printf "demo: building pacer: step %d of %d\n", n, m; fflush(); last = n }
        next
    }
    /Build complete/ { print "demo: " $0; fflush() }'
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
.build/debug/pacer scenario run "$scenario" --out "$out" --buzzer "wav:$out/cues.wav" --data-dir "$out/data"

echo
echo "The run in figures ($out/summary.json):"
# The first activity's figures, and the cues heard (those heard at least once).
sed -n '/"activities": \[/,/"phases"/p' "$out/summary.json" \
    | grep -E '"(state|distance_m|active_s|average_kmh|points)"' | sed -E 's/^ +/  /; s/,$//'
echo "  cues heard:"
sed -n '/^  "cues": {/,/^  }/p' "$out/summary.json" | grep -vE '": 0,?$|"cues"|^  }' | sed -E 's/^ +/    /; s/,$//'

# The run kept in a store of its own, its report made: what to look at and try next.
.build/debug/pacer activities report 1 --out "$out/report.html" --data-dir "$out/data" >/dev/null
cat <<TEXT

Try next:
  open $out/report.html
      the run as a page: its route, its speed against the bands, the cues
  .build/debug/pacer activities show 1 --data-dir $out/data
      the run as the device stored it (and activities list, export --gpx or --fit)
  .build/debug/pacer beep --list
      every cue's beeps and melody (pacer beep speed-up plays one)
  .build/debug/pacer battery compare $scenario
      the same run on each power profile: battery life against coaching
  .build/debug/pacer run --plan demo --source file:Hardware/recordings/track-loop.nmea --buzzer null --fast
      a workout on a recording, as the device runs one (docs/using.md)
TEXT
