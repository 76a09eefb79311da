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
source scripts/setup.sh
if grep -rln --include='*.swift' -E '^[[:space:]]*(@[A-Za-z]+ )*(public |internal |package )?import (Foundation|FoundationEssentials|FoundationInternationalization)\b' \
    Sources/PacerCore Sources/Coaching Sources/NMEA Sources/HAL Sources/Charts; then
    echo "test: the files above import Foundation, which the inner layers may not (ARCHITECTURE.md)" >&2
    exit 1
fi
swift build --build-tests --explicit-target-dependency-import-check error
swift test --skip-build
.build/debug/pacer scenario test Scenarios
