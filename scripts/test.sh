#!/usr/bin/env bash
# The whole test suite: installs what it needs, then builds and runs every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build --build-tests
swift test --skip-build
