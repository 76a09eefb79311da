#!/usr/bin/env bash
# Builds pacer for this machine as the Debian package ships it (the options are in
# scripts/lib/release.sh: Swift runtime linked in, no $ORIGIN run path, generic types reached
# without the runtime's conformance scans) and prints the binary's path on its last line.
#
#   scripts/build-release.sh          then, e.g.: sudo Hardware/install.sh
#
# For arm64, the board: scripts/package-deb.sh --arch arm64 (docs/packaging.md).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo/scripts/lib/release.sh"
cd "$repo"
swift build "${release_build_options[@]}" --product pacer >&2
echo "$(swift build -c release --show-bin-path)/pacer"
