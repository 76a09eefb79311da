#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs every test target, then runs
# every bundled scenario (Scenarios/) twice and checks it against its goldens and its
# stated expectations.
#
# The build checks the layer rule (ARCHITECTURE.md): a target may import only the targets
# Package.swift says it depends on (SwiftPM's explicit import check, as an error), and the
# inner layers (PacerCore, Coaching, NMEA, HAL, Charts) import no Foundation.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every script is executable as committed (issue 42: one was not, and a clone gave
# "Permission denied"): git's index is what a clone gets, whatever this checkout's own bits.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    not_executable=$(git ls-files -s -- ':(glob)scripts/*.sh' | awk '$1 != "100755" { print $4 }')
    if [ -n "$not_executable" ]; then
        for script in $not_executable; do
            echo "test: $script is not executable in git (git update-index --chmod=+x $script)" >&2
        done
        exit 1
    fi
fi
source scripts/setup.sh
if grep -rln --include='*.swift' -E '^[[:space:]]*(@[A-Za-z]+ )*(public |internal |package )?import (Foundation|FoundationEssentials|FoundationInternationalization)\b' \
    Sources/PacerCore Sources/Coaching Sources/NMEA Sources/HAL Sources/Charts; then
    echo "test: the files above import Foundation, which the inner layers may not (ARCHITECTURE.md)" >&2
    exit 1
fi
# Quiet when all is well: the build's and the tests' full output goes to a log; what is
# printed is each warning and error, each failing test with its issues, and a summary line.
# On a failure the log's path is printed with its end.
log_dir=$(mktemp -d /tmp/pacer-test.XXXXXX)
fail() {   # fail STEP LOG: the end of LOG, and where the rest is
    echo "test: $1 failed; the end of its output (all of it in $2):" >&2
    tail -n 60 "$2" >&2
    exit 1
}
started=$SECONDS
echo "test: building the tests (log: $log_dir/build.log)"
swift build --build-tests --explicit-target-dependency-import-check error >"$log_dir/build.log" 2>&1 \
    || fail "the build" "$log_dir/build.log"
grep -E '(warning|error): ' "$log_dir/build.log" | sort -u || true
# The project's own code builds without a warning: one would be lost among passing tests.
if grep -qE "^$PWD/(Sources|Tests)/.*warning: " "$log_dir/build.log"; then
    echo "test: the warnings above are in the project's code: fix them (a warning fails the test command)" >&2
    exit 1
fi
echo "test: running the tests (log: $log_dir/test.log)"
status=0
swift test --skip-build --disable-xctest >"$log_dir/test.log" 2>&1 || status=$?
grep -E '^✘ Test .* recorded an issue|^✘ Test .* failed' "$log_dir/test.log" | head -n 100 || true
summary=$(grep -E '^[✔✘] Test run with' "$log_dir/test.log" | tail -n 1)
[ "$status" -eq 0 ] || fail "swift test (${summary:-no summary})" "$log_dir/test.log"
tests=$(sed -E 's/.*Test run with ([0-9]+ tests in [0-9]+ suites).*/\1/' <<<"$summary")
echo "test: $tests passed"
echo "test: the bundled scenarios, each twice, against their goldens"
.build/debug/pacer scenario test Scenarios >"$log_dir/scenarios.log" 2>&1 || { cat "$log_dir/scenarios.log"; exit 1; }
grep -vE '^PASS |scenarios pass$' "$log_dir/scenarios.log" || true
echo "test: all passed in $((SECONDS - started)) s: $tests, $(tail -n 1 "$log_dir/scenarios.log")"
