#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs every test target, then runs
# every bundled scenario (Scenarios/) twice and checks it against its goldens and its
# stated expectations.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --build-tests
swift test --skip-build
.build/debug/pacer scenario test Scenarios
