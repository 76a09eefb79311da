#!/usr/bin/env bash
# What starting `pacer` costs: instructions (valgrind's callgrind, repeatable on a noisy
# machine) and wall time (hyperfine, paired with gpsd's `gpsdecode` as the anchor) of
#
#   pacer --version                     the version, through swift-argument-parser
#   pacer version                       the version command: a subcommand's parse, and
#                                       libasound opened to report its version
#   pacer nmea decode --json EMPTY      a decode of an empty file
#   gpsdecode < /dev/null               gpsd's decoder, for scale
#
# on a stripped copy of the binary (symbols change what the loader and valgrind read).
#
#   scripts/bench-startup.sh                      builds the release binary as the Debian
#                                                 package does (scripts/build-release.sh)
#   PACER=/path/to/pacer scripts/bench-startup.sh measures that binary, builds nothing
#
# Environment: RUNS (hyperfine runs per command, default 200), WARMUP (default 20).
# hyperfine, valgrind and gpsdecode are installed with apt-get when missing.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-200}"
warmup="${WARMUP:-20}"
die() { echo "bench-startup: $*" >&2; exit 1; }

missing=()
command -v hyperfine >/dev/null || missing+=(hyperfine)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v gpsdecode >/dev/null || missing+=(gpsd-clients)
if ((${#missing[@]})); then
    echo "bench-startup: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
        die "cannot install ${missing[*]}"
fi

if [[ -n "${PACER:-}" ]]; then
    [[ -x "$PACER" ]] || die "PACER=$PACER is not an executable"
    binary="$PACER"
else
    echo "bench-startup: building pacer as packaged (scripts/build-release.sh)" >&2
    binary=$(bash "$repo_root/scripts/build-release.sh" | tail -1)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-startup.XXXXXX")"
trap 'rm -rf "$work"' EXIT
strip -o "$work/pacer" "$binary"
: >"$work/empty.nmea"
pacer="$work/pacer"

# Instructions of one run of a command (its stdin from /dev/null).
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" </dev/null 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

names=("pacer --version" "pacer version" "pacer nmea decode --json EMPTY" "gpsdecode < /dev/null")
commands=("$pacer --version" "$pacer version" "$pacer nmea decode --json $work/empty.nmea" "gpsdecode")
counts=(
    "$(instructions "$pacer" --version)"
    "$(instructions "$pacer" version)"
    "$(instructions "$pacer" nmea decode --json "$work/empty.nmea")"
    "$(instructions gpsdecode)"
)

hyperfine -N --warmup "$warmup" --runs "$runs" --output null --export-json "$work/times.json" \
    --command-name "${names[0]}" "${commands[0]}" \
    --command-name "${names[1]}" "${commands[1]}" \
    --command-name "${names[2]}" "${commands[2]}" \
    --command-name "${names[3]}" "${commands[3]}" >&2

echo "binary: $binary ($(stat -c %s "$pacer") bytes stripped; $(readelf -d "$pacer" | grep -c NEEDED) shared libraries linked)"
python3 - "$work/times.json" "${counts[@]}" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
counts = [int(c) for c in sys.argv[2:]]
print(f"{'command':34} {'instructions':>14} {'wall, mean ± σ':>18} {'min':>8}")
for r, n in zip(results, counts):
    print(f"{r['command']:34} {n:>14,} {r['mean'] * 1e3:>10.2f} ± {r['stddev'] * 1e3:4.2f} ms {r['min'] * 1e3:>5.2f} ms")
PY
