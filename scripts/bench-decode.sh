#!/usr/bin/env bash
# Times `pacer nmea decode --json` against gpsd's `gpsdecode` on the same input, side by side
# in one hyperfine run, and counts both decoders' instructions with valgrind's callgrind
# (repeatable where wall times are not); with a minmea checkout, minmea's too.
#
# The input is every *.log recording of the gpsd corpus, concatenated, ten times over (about
# 11 MB). Both decoders' output goes to /dev/null. hyperfine's JSON export is kept (its path is
# printed); the summary at the end gives the input size, both mean times and their ratio, the
# instruction counts and their ratio, and the instructions per line after start-up (the count
# on the input less the count on an empty file, over the input's lines) of pacer and minmea.
#
#   scripts/bench-decode.sh
#   PACER=.build/release/pacer MINMEA_DIR=/tmp/minmea scripts/bench-decode.sh
#   CORPUS_DIR=/path/to/logs WARMUP=5 MIN_RUNS=20 CALLGRIND=0 scripts/bench-decode.sh
#
# Environment:
#   PACER       a pacer binary to measure as it is (no build); default: a release build here
#   CORPUS_DIR  directory of *.log recordings (default: ../shared/corpus/gpsd from the repo root)
#   REPEAT      how many times the corpus is concatenated (default: 10)
#   WARMUP      hyperfine warm-up runs per command (default: 3)
#   MIN_RUNS    hyperfine minimum measured runs per command (default: 10)
#   JSON_OUT    where to write hyperfine's JSON (default: a new file under $TMPDIR or /tmp)
#   CALLGRIND   0 to skip the instruction counts (gpsdecode's takes minutes under valgrind)
#   MINMEA_DIR  a checkout of github.com/kosma/minmea: it is compiled (cc -O2) with a driver
#               that parses each line with the matching minmea_parse_*, in a temp folder, and
#               its instructions per line are counted beside pacer's
#
# hyperfine, gpsdecode (package gpsd-clients) and valgrind are installed with apt-get when
# missing. Instructions are counted on a stripped copy of the pacer binary.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus_dir="${CORPUS_DIR:-$repo_root/../shared/corpus/gpsd}"
repeat="${REPEAT:-10}"
warmup="${WARMUP:-3}"
min_runs="${MIN_RUNS:-10}"

die() {
    echo "bench-decode: $*" >&2
    exit 1
}

# --- Tools -----------------------------------------------------------------------------------

# Installs the Debian packages providing missing commands; refreshes the package lists only
# when apt does not know a package yet.
ensure_tools() {
    local -a missing=()
    command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
    command -v gpsdecode >/dev/null 2>&1 || missing+=(gpsd-clients)
    if [[ "${CALLGRIND:-1}" != 0 ]]; then
        command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
    fi
    ((${#missing[@]} == 0)) && return 0

    command -v apt-get >/dev/null 2>&1 ||
        die "missing ${missing[*]} and no apt-get to install them; install them by hand"
    local -a sudo=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null 2>&1 || die "missing ${missing[*]}; run as root or install sudo"
        sudo=(sudo)
    fi
    echo "bench-decode: installing ${missing[*]} with apt-get (needed for the comparison)" >&2
    local pkg
    for pkg in "${missing[@]}"; do
        if ! apt-cache show "$pkg" >/dev/null 2>&1; then
            echo "bench-decode: apt does not know $pkg yet, running apt-get update first" >&2
            "${sudo[@]}" apt-get update -q
            break
        fi
    done
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    command -v hyperfine >/dev/null 2>&1 || die "hyperfine still missing after apt-get install"
    command -v gpsdecode >/dev/null 2>&1 || die "gpsdecode still missing after apt-get install"
}

ensure_tools
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read hyperfine's JSON"
callgrind="${CALLGRIND:-1}"
minmea_dir="${MINMEA_DIR:-}"
if [[ -n "$minmea_dir" ]]; then
    [[ -f "$minmea_dir/minmea.c" && -f "$minmea_dir/minmea.h" ]] || die "no minmea.c and minmea.h in MINMEA_DIR=$minmea_dir"
    [[ "$callgrind" != 0 ]] || die "MINMEA_DIR is for the instruction counts: drop CALLGRIND=0"
    command -v cc >/dev/null 2>&1 || die "a C compiler (cc) is needed to build minmea"
fi

# --- Corpus ----------------------------------------------------------------------------------

[[ -d "$corpus_dir" ]] || die "corpus directory not found: $corpus_dir (set CORPUS_DIR)"
corpus_dir="$(cd "$corpus_dir" && pwd)"
shopt -s nullglob
logs=("$corpus_dir"/*.log)
shopt -u nullglob
((${#logs[@]} > 0)) || die "no *.log files in $corpus_dir"

# --- Build -----------------------------------------------------------------------------------

if [[ -n "${PACER:-}" ]]; then
    pacer="$PACER"  # measured as given: no build
else
    command -v swift >/dev/null 2>&1 || die "swift is not on PATH (the toolchain's usr/bin); or give PACER="
    echo "bench-decode: building pacer (release)" >&2
    (cd "$repo_root" && swift build -c release --product pacer) >&2
    pacer="$(cd "$repo_root" && swift build -c release --show-bin-path)/pacer"
fi
[[ -x "$pacer" ]] || die "no pacer binary at $pacer"

# --- Input -----------------------------------------------------------------------------------

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-decode.XXXXXX")"
trap 'rm -rf "$work"' EXIT
input="$work/corpus-x$repeat.nmea"
for ((i = 0; i < repeat; i++)); do
    cat "${logs[@]}"
done >"$input"
json="${JSON_OUT:-$(mktemp "${TMPDIR:-/tmp}/bench-decode.XXXXXX.json")}"

# --- Measure ---------------------------------------------------------------------------------

printf -v q_input '%q' "$input"
printf -v q_pacer '%q' "$pacer"
echo "bench-decode: ${#logs[@]} recordings x$repeat -> $input" >&2
hyperfine \
    --warmup "$warmup" \
    --min-runs "$min_runs" \
    --output null \
    --export-json "$json" \
    --command-name gpsdecode "gpsdecode < $q_input" \
    --command-name pacer "$q_pacer nmea decode --json $q_input" >&2
echo "bench-decode: hyperfine JSON in $json" >&2

# --- Instructions ----------------------------------------------------------------------------

# Instructions (callgrind's "I refs") of a command reading STDIN_FILE (default: nothing);
# its stdout goes to /dev/null.
instructions() {
    local out="$work/callgrind.out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" <"${STDIN_FILE:-/dev/null}" 2>&1 >/dev/null |
        sed -n 's/.*I *refs: *//p' | tr -d ,
    rm -f "$out"
}

lines="$(wc -l <"$input")"
pacer_ir="" pacer_empty_ir="" gpsdecode_ir="" minmea_ir="" minmea_empty_ir=""
if [[ "$callgrind" != 0 ]]; then
    empty="$work/empty.nmea"
    : >"$empty"
    strip -o "$work/pacer" "$pacer"
    echo "bench-decode: counting instructions with callgrind (gpsdecode takes a few minutes)" >&2
    pacer_ir="$(instructions "$work/pacer" nmea decode --json "$input")"
    pacer_empty_ir="$(instructions "$work/pacer" nmea decode --json "$empty")"
    gpsdecode_ir="$(STDIN_FILE="$input" instructions gpsdecode)"
    if [[ -n "$minmea_dir" ]]; then
        # The driver is ours: each line to minmea_sentence_id, then the matching parser
        # (which checks the checksum), as `pacer nmea decode` reads every sentence it knows.
        cat >"$work/minmea-driver.c" <<'C'
#include <stdio.h>
#include "minmea.h"

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!f) { perror(argv[1]); return 1; }
    static char line[MINMEA_MAX_SENTENCE_LENGTH * 4];
    long lines = 0, parsed = 0, valid = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        bool ok = false;
        switch (minmea_sentence_id(line, false)) {
        case MINMEA_SENTENCE_RMC: { struct minmea_sentence_rmc s; ok = minmea_parse_rmc(&s, line); if (ok && s.valid) valid++; break; }
        case MINMEA_SENTENCE_GGA: { struct minmea_sentence_gga s; ok = minmea_parse_gga(&s, line); break; }
        case MINMEA_SENTENCE_GSA: { struct minmea_sentence_gsa s; ok = minmea_parse_gsa(&s, line); break; }
        case MINMEA_SENTENCE_GLL: { struct minmea_sentence_gll s; ok = minmea_parse_gll(&s, line); break; }
        case MINMEA_SENTENCE_GSV: { struct minmea_sentence_gsv s; ok = minmea_parse_gsv(&s, line); break; }
        case MINMEA_SENTENCE_VTG: { struct minmea_sentence_vtg s; ok = minmea_parse_vtg(&s, line); break; }
        case MINMEA_SENTENCE_ZDA: { struct minmea_sentence_zda s; ok = minmea_parse_zda(&s, line); break; }
        default: break;
        }
        if (ok) parsed++;
    }
    printf("%ld lines, %ld parsed, %ld valid RMC\n", lines, parsed, valid);
    return 0;
}
C
        cc -O2 -std=c99 -D_GNU_SOURCE -I"$minmea_dir" -o "$work/minmea-driver" \
            "$work/minmea-driver.c" "$minmea_dir/minmea.c" ||
            die "minmea did not build from $minmea_dir"
        minmea_ir="$(instructions "$work/minmea-driver" "$input")"
        minmea_empty_ir="$(instructions "$work/minmea-driver" "$empty")"
    fi
fi

python3 - "$json" "$input" "$repeat" "$lines" "$pacer_ir" "$pacer_empty_ir" "$gpsdecode_ir" "$minmea_ir" "$minmea_empty_ir" <<'PY'
import json, os, sys

path, input_path, repeat, lines = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pacer_ir, pacer_empty, gpsdecode_ir, minmea_ir, minmea_empty = (int(a) if a else None for a in sys.argv[5:10])
with open(path) as f:
    results = {r["command"]: r for r in json.load(f)["results"]}
gpsdecode, pacer = results["gpsdecode"]["mean"], results["pacer"]["mean"]
size_mb = os.path.getsize(input_path) / 1e6
ratio = gpsdecode / pacer
verdict = f"pacer is {ratio:.1f}x faster" if ratio >= 1 else f"pacer is {1 / ratio:.1f}x slower"
print(f"corpus x{repeat} ({size_mb:.1f} MB, {lines} lines): gpsdecode {gpsdecode:.3g} s, pacer {pacer:.3g} s, {verdict}")
if pacer_ir and gpsdecode_ir:
    ratio = gpsdecode_ir / pacer_ir
    fewer = f"{ratio:.1f}x fewer" if ratio >= 1 else f"{1 / ratio:.1f}x more"
    print(f"instructions: gpsdecode {gpsdecode_ir / 1e6:,.1f} M, pacer {pacer_ir / 1e6:,.1f} M "
          f"({fewer}); pacer on an empty file {pacer_empty / 1e6:,.1f} M")
    pacer_line = (pacer_ir - pacer_empty) / lines
    line = f"per line after start-up: pacer {pacer_line:,.0f}"
    if minmea_ir:
        minmea_line = (minmea_ir - minmea_empty) / lines
        line += f", minmea {minmea_line:,.0f} ({pacer_line / minmea_line:.2f}x of minmea's)"
    print(line)
PY
