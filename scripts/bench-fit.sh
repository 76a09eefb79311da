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
if [ -n "${PACER:-}" ]; then
    pacer=$(readlink -f "$PACER")
    [ -x "$pacer" ] || { echo "bench-fit: PACER=$PACER is not an executable" >&2; exit 64; }
else
    source scripts/setup.sh
    swift build -c release --product pacer
    pacer="$PWD/.build/release/pacer"
fi
work="${PACER_BENCH_DIR:-/tmp/pacer-bench-fit}"
rm -rf "$work" && mkdir -p "$work"

generate() {  # records file
    python3 - "$@" <<'PY'
import math, struct, sys
count, path = int(sys.argv[1]), sys.argv[2]

def crc(data, value=0):
    table = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    for byte in data:
        tmp = table[value & 0xF]; value = (value >> 4) & 0x0FFF; value ^= tmp ^ table[byte & 0xF]
        tmp = table[value & 0xF]; value = (value >> 4) & 0x0FFF; value ^= tmp ^ table[(byte >> 4) & 0xF]
    return value

semicircles = lambda degrees: int(round(degrees * 2**31 / 180))
east = 111195.0 * math.cos(math.radians(45))
t0 = 1_083_398_400  # 2024-05-01T06:00:00Z in FIT's seconds
body = bytearray()
# file_id: type 4 (activity); then the record's definition: timestamp, lat, lon, altitude,
# speed, distance.
body += bytes([0x40, 0, 0, 0, 0, 1, 0, 1, 0x00]) + bytes([0x00, 4])
body += bytes([0x41, 0, 0, 20, 0, 6, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84, 6, 2, 0x84, 5, 4, 0x86])
pack = struct.Struct("<BIiiHHI").pack
for i in range(count):
    a = i * 3.0 / 2000
    lat, lon = 45 + 2000 * math.sin(a) / 111195.0, 6 + 2000 * (1 - math.cos(a)) / east
    altitude = int((200 + 20 * math.sin(i / 600) + 500) * 5)
    body += pack(0x01, t0 + i, semicircles(lat), semicircles(lon), altitude, 3000, i * 300)
header = bytearray([14, 0x20, 0x54, 0x08]) + struct.pack("<I", len(body)) + b".FIT"
header += struct.pack("<H", crc(header))
whole = header + body
with open(path, "wb") as f:
    f.write(whole + struct.pack("<H", crc(whole)))
PY
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
