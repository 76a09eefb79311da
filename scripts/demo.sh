#!/usr/bin/env bash
# The main job on the embedded default (simulated hardware, no GPS attached): build the
# firmware and decode the bundled receiver recording into fixes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product pacer
.build/release/pacer nmea decode Hardware/recordings/track-loop.nmea
