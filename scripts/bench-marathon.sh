#!/usr/bin/env bash
# Speed and scale of the whole pipeline: a marathon recording at 1 Hz (RMC, GGA, GSA and
# GSV for GPS, GLONASS and Galileo every epoch), made by `pacer nmea synth` from the
# marathon scenario's recipe, run through `pacer scenario run` (NMEA parsing, coaching,
# recording into SQLite, GPX export, timeline and summary) for 1, 2, 4 and 8 hours, with
# wall time and peak memory; then side by side with gpsd's decoder (`gpsdecode`) on the
# same 4-hour recording in one hyperfine run.
#
#   scripts/bench-marathon.sh            # results in /tmp/pacer-bench-marathon
#   PACER_SCRATCH=/tmp scripts/...       # the scratch database on disk instead of RAM
#   PACER=/path/to/pacer scripts/...     # that binary; nothing is built
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
if [ -n "${PACER:-}" ]; then
    [ -x "$PACER" ] || { echo "bench-marathon: PACER=$PACER is not an executable" >&2; exit 1; }
    pacer="$PACER"
else
    swift build -c release --product pacer
    pacer="$PWD/.build/release/pacer"
fi
work="${PACER_BENCH_DIR:-/tmp/pacer-bench-marathon}"
rm -rf "$work" && mkdir -p "$work"
scratch=()
if [ -n "${PACER_SCRATCH:-}" ]; then scratch=(--scratch "$PACER_SCRATCH"); fi

for hours in 1 2 4 8; do
    dir="$work/${hours}h"
    mkdir -p "$dir"
    # The marathon's recipe, stretched: the same route and pace, for `hours` hours.
    sed -e "s|route: ../routes/|route: $PWD/Scenarios/routes/|" \
        -e '/^speeds:/,$d' Scenarios/marathon/marathon.synth.yaml > "$dir/run.synth.yaml"
    printf 'speeds:\n  - {for: "%d:00:00", kmh: 10.8}\n' "$hours" >> "$dir/run.synth.yaml"
    "$pacer" nmea synth "$dir/run.synth.yaml" --out "$dir/run.nmea" 2>/dev/null
    cat > "$dir/plan.yaml" <<PLAN
name: Bench ${hours} h
workouts:
  - name: ${hours} h at marathon pace
    phases:
      - {name: marathon pace, minutes: $((hours * 60)), speed_kmh: [10, 11.5]}
PLAN
    printf 'name: Bench %d h\nplan: plan.yaml\nprofile: medium\nrecording: run.nmea\n' "$hours" > "$dir/scenario.yaml"
    size=$(stat -c %s "$dir/run.nmea")
    epochs=$(grep -c '^$..RMC' "$dir/run.nmea")
    # Best of three; /usr/bin/time reports wall seconds and the peak resident set.
    best=""
    for _ in 1 2 3; do
        t=$( { /usr/bin/time -f "%e %M" "$pacer" scenario run "$dir" --out "$dir/out" --quiet "${scratch[@]}" >/dev/null; } 2>&1 | tail -1)
        if [ -z "$best" ] || awk -v a="${t% *}" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best="$t"; fi
    done
    printf '%d h: %6d epochs, %5.1f MB NMEA: %5.2f s wall, %5.1f MB peak\n' "$hours" "$epochs" \
        "$(awk -v s="$size" 'BEGIN{print s/1e6}')" "${best% *}" "$(awk -v k="${best#* }" 'BEGIN{print k/1024}')"
done

echo
hyperfine --warmup 1 --runs 5 --style basic \
    -n "pacer scenario run (4 h, whole pipeline)" "$pacer scenario run $work/4h --out $work/4h/out --quiet ${scratch[*]}" \
    -n "gpsdecode (4 h, decoding only)" "gpsdecode < $work/4h/run.nmea > /dev/null"
