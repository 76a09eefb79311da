#!/usr/bin/env bash
# FIT import at the sizes the issue (38, case 2) tried: wall time, peak memory and exit status
# of `pacer activities import FILE --as activity` on generated FIT activity files of 100,000
# records (2.1 MB, the most points an imported file may have: `TrackPlausibility.maximumPoints`),
# 400,000 records (8.4 MB, the companion page's upload limit) and 2.4 M records (50 MB: 28
# days at 1 Hz, more than any device records), the last two refused at record 100,001. Each record has a time, a position, an
# altitude, a speed and a distance (21 bytes, as a watch writes them), a runner at 3 m/s
# round a 2 km circle. /usr/bin/time gives the wall seconds and the peak resident set; the
# reader holds at most 64 kB of the file and hands the records to the store one by one, so
# the peak should not follow the file's size past the limit.
#
#   scripts/bench-fit.sh                 # release build; results in /tmp/pacer-bench-fit
#   PACER=/path/to/pacer scripts/bench-fit.sh   # that binary, nothing built
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench-pacer.sh
bench_pacer bench-fit
work="${PACER_BENCH_DIR:-/tmp/pacer-bench-fit}"
rm -rf "$work" && mkdir -p "$work"

generate() {  # records file (scripts/lib/fit_file.py)
    python3 scripts/lib/fit_file.py "$@"
}

printf '%-10s %10s %10s %12s %6s\n' records "file MB" seconds "peak MB" exit
for count in 100000 400000 2400000; do
    file="$work/run-$count.fit"
    generate "$count" "$file"
    rm -rf "$work/data-$count"
    status=0
    /usr/bin/time -f '%e %M' -o "$work/time-$count" \
        "$pacer" activities import "$file" --as activity --data-dir "$work/data-$count" \
        >"$work/import-$count.txt" 2>&1 || status=$?
    read -r seconds peak < <(tail -1 "$work/time-$count")
    printf '%-10s %10.1f %10s %12.1f %6s\n' "$count" "$(($(stat -c %s "$file") / 1000))e-3" "$seconds" "$((peak))e-3" "$status"
done
