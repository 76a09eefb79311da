#!/usr/bin/env bash
# GPX in and out at the sizes devices produce: wall time and peak memory of
# `pacer activities import FILE --as activity` and of `pacer activities export ID --gpx OUT`
# on generated tracks of about 10, 30 and 50 MB, in two shapes:
#
#   watch    a watch's export: indented, with heart rate, cadence and speed in Garmin's
#            TrackPointExtension, about 385 bytes a point; a 24-hour track at 1 Hz
#            (86,400 points), the most a device records in a day, is 33 MB.
#   compact  one line a point, position, elevation and time only, about 108 bytes a point
#            (the issue's 10 MB file had 103,093 points); 50 MB is 465,000 points, five
#            days at 1 Hz: more points than any run, to see what memory follows.
#
# Each figure is the best of three runs; /usr/bin/time gives wall seconds and the peak
# resident set. The files and databases are left in the work folder (printed).
#
# Then the 24-hour watch file against gpsbabel's GPX->GPX conversion of it (`gpsbabel -i gpx
# -f FILE -o gpx -F /dev/null`, which reads the whole file and writes it again): both side by
# side in one hyperfine run (each import into a fresh database), their peak resident sets,
# and the instructions of each under valgrind's callgrind (pacer stripped first, as shipped;
# CALLGRIND=0 leaves them out: about 5 minutes).
#
#   scripts/bench-gpx.sh                 # results in /tmp/pacer-bench-gpx
#   PACER_BENCH_DIR=/path scripts/bench-gpx.sh
#   PACER=/path/to/pacer scripts/bench-gpx.sh   # that binary, nothing built
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-pacer.sh
bench_pacer bench-gpx
for tool in hyperfine gpsbabel; do
    command -v "$tool" >/dev/null || { echo "bench-gpx: $tool is needed (apt-get install $tool)" >&2; exit 69; }
done
work="${PACER_BENCH_DIR:-/tmp/pacer-bench-gpx}"
rm -rf "$work" && mkdir -p "$work"

# A runner at 3 m/s round a 2 km circle from 2024-05-01T06:00Z, a point a second.
generate() {  # shape points file
    python3 - "$@" <<'PY'
import datetime, math, sys
shape, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = datetime.datetime(2024, 5, 1, 6, 0, 0)
east = 111195.0 * math.cos(math.radians(45))
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench-gpx" '
            'xmlns="http://www.topografix.com/GPX/1/1" '
            'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">\n'
            '  <trk>\n    <name>Bench</name>\n    <trkseg>\n')
    for i in range(count):
        a = i * 3.0 / 2000
        lat, lon = 45 + 2000 * math.sin(a) / 111195.0, 6 + 2000 * (1 - math.cos(a)) / east
        ele = 200 + 20 * math.sin(i / 600)
        t = (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        if shape == "watch":
            f.write(f'      <trkpt lat="{lat:.9f}" lon="{lon:.9f}">\n        <ele>{ele:.1f}</ele>\n'
                    f'        <time>{t}</time>\n        <extensions>\n          <gpxtpx:TrackPointExtension>\n'
                    f'            <gpxtpx:hr>{140 + i % 20}</gpxtpx:hr>\n            <gpxtpx:cad>{85 + i % 5}</gpxtpx:cad>\n'
                    f'            <gpxtpx:speed>3.000</gpxtpx:speed>\n'
                    f'          </gpxtpx:TrackPointExtension>\n        </extensions>\n      </trkpt>\n')
        else:
            f.write(f'<trkpt lat="{lat:.9f}" lon="{lon:.9f}"><ele>{ele:.3f}</ele><time>{t}</time></trkpt>\n')
    f.write('    </trkseg>\n  </trk>\n</gpx>\n')
PY
}

# Best of three of a command: "seconds kilobytes".
measure() {
    local best="" t
    for _ in 1 2 3; do
        t=$( { /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -1)
        if [ -z "$best" ] || awk -v a="${t% *}" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best="$t"; fi
    done
    echo "$best"
}

echo "work folder: $work"
printf '%-8s %8s %9s | %-17s | %-17s\n' shape points "file MB" "import: s, peak MB" "export: s, peak MB"
# Files of more than 100,000 points are refused since issue 38 (`TrackPlausibility.maximumPoints`:
# an import's statistics take its points at once), so the sizes stop there.
for spec in "watch 28800" "watch 86400" "compact 97000"; do
    read -r shape points <<<"$spec"
    gpx="$work/$shape-$points.gpx"
    generate "$shape" "$points" "$gpx"
    size=$(stat -c %s "$gpx")
    # Each import into a fresh database, so every run stores the same.
    import=$(measure bash -c 'rm -rf "$2" && exec "$0" activities import "$1" --as activity --data-dir "$2"' \
        "$pacer" "$gpx" "$work/$shape-$points.data")
    export=$(measure "$pacer" activities export 1 --gpx "$work/$shape-$points.out.gpx" --data-dir "$work/$shape-$points.data")
    exported=$(grep -c '<trkpt ' "$work/$shape-$points.out.gpx")
    [ "$exported" -eq "$points" ] || { echo "bench-gpx: exported $exported points of $points" >&2; exit 1; }
    printf '%-8s %8d %9.1f | %6.2f s %6.1f MB | %6.2f s %6.1f MB\n' "$shape" "$points" \
        "$(awk -v s="$size" 'BEGIN{print s/1e6}')" \
        "${import% *}" "$(awk -v k="${import#* }" 'BEGIN{print k/1024}')" \
        "${export% *}" "$(awk -v k="${export#* }" 'BEGIN{print k/1024}')"
done
# For scale: the same binary doing next to nothing.
idle=$(measure "$pacer" activities list --data-dir "$work/watch-28800.data")
printf 'pacer activities list (for scale): %.1f MB peak\n' "$(awk -v k="${idle#* }" 'BEGIN{print k/1024}')"

# --- Against gpsbabel, on the 24-hour watch file ----------------------------------------------
gpx="$work/watch-86400.gpx"
data="$work/watch-86400.vs.data"
echo
echo "24 h watch file ($(awk -v s="$(stat -c %s "$gpx")" 'BEGIN{printf "%.1f", s/1e6}') MB, 86400 points): pacer's import against gpsbabel's GPX->GPX"
hyperfine -N --warmup 1 --runs "${RUNS:-10}" --export-json "$work/vs-gpsbabel.json" \
    --prepare "rm -rf $data" -n "pacer activities import" "$pacer activities import $gpx --as activity --data-dir $data" \
    --prepare "true" -n "gpsbabel GPX->GPX" "gpsbabel -i gpx -f $gpx -o gpx -F /dev/null"
import=$(measure bash -c 'rm -rf "$2" && exec "$0" activities import "$1" --as activity --data-dir "$2"' "$pacer" "$gpx" "$data")
babel=$(measure gpsbabel -i gpx -f "$gpx" -o gpx -F /dev/null)
printf 'peak resident set: pacer %.1f MB, gpsbabel %.1f MB\n' \
    "$(awk -v k="${import#* }" 'BEGIN{print k/1024}')" "$(awk -v k="${babel#* }" 'BEGIN{print k/1024}')"
if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
    strip -o "$work/pacer.stripped" "$pacer"
    instructions() {  # command...: the "I refs" of callgrind, in millions
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
            | sed -n 's/.*I *refs: *//p' | tr -d , | awk '{printf "%.0f M", $1/1e6}'
    }
    rm -rf "$data"
    printf 'instructions (callgrind): pacer %s, gpsbabel %s\n' \
        "$(instructions "$work/pacer.stripped" activities import "$gpx" --as activity --data-dir "$data")" \
        "$(instructions gpsbabel -i gpx -f "$gpx" -o gpx -F /dev/null)"
fi
