#!/usr/bin/env bash
# Times `pacer nmea decode --json` against gpsd's `gpsdecode` on the same input, side by side
# in one hyperfine run.
#
# The input is every *.log recording of the gpsd corpus, concatenated, ten times over (about
# 11 MB). Both decoders' output goes to /dev/null. hyperfine's JSON export is kept (its path is
# printed); the one-line summary at the end gives the input size, both mean times and their
# ratio.
#
#   scripts/bench-decode.sh
#   CORPUS_DIR=/path/to/logs WARMUP=5 MIN_RUNS=20 scripts/bench-decode.sh
#
# Environment:
#   CORPUS_DIR  directory of *.log recordings (default: ../shared/corpus/gpsd from the repo root)
#   REPEAT      how many times the corpus is concatenated (default: 10)
#   WARMUP      hyperfine warm-up runs per command (default: 3)
#   MIN_RUNS    hyperfine minimum measured runs per command (default: 10)
#   JSON_OUT    where to write hyperfine's JSON (default: a new file under $TMPDIR or /tmp)
#
# hyperfine and gpsdecode (package gpsd-clients) are installed with apt-get when missing.
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
command -v swift >/dev/null 2>&1 || die "swift is not on PATH (the toolchain's usr/bin)"

# --- Corpus ----------------------------------------------------------------------------------

[[ -d "$corpus_dir" ]] || die "corpus directory not found: $corpus_dir (set CORPUS_DIR)"
corpus_dir="$(cd "$corpus_dir" && pwd)"
shopt -s nullglob
logs=("$corpus_dir"/*.log)
shopt -u nullglob
((${#logs[@]} > 0)) || die "no *.log files in $corpus_dir"

# --- Build -----------------------------------------------------------------------------------

echo "bench-decode: building pacer (release)" >&2
(cd "$repo_root" && swift build -c release --product pacer) >&2
pacer="$(cd "$repo_root" && swift build -c release --show-bin-path)/pacer"
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

python3 - "$json" "$input" "$repeat" <<'PY'
import json, os, sys

path, input_path, repeat = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path) as f:
    results = {r["command"]: r for r in json.load(f)["results"]}
gpsdecode, pacer = results["gpsdecode"]["mean"], results["pacer"]["mean"]
size_mb = os.path.getsize(input_path) / 1e6
ratio = gpsdecode / pacer
verdict = f"pacer is {ratio:.1f}x faster" if ratio >= 1 else f"pacer is {1 / ratio:.1f}x slower"
print(f"corpus x{repeat} ({size_mb:.1f} MB): gpsdecode {gpsdecode:.3g} s, pacer {pacer:.3g} s, {verdict}")
PY
