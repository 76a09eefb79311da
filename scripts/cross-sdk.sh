#!/usr/bin/env bash
# The arm64 toolchain for the board, from Debian's archive alone (scripts/lib/cross.sh says
# what it is made of and why): a Debian sid amd64 root with sid's Swift 6.2.3 (pinned:
# cross_swift_version in scripts/lib/cross.sh), and a Swift SDK for aarch64 whose sysroot
# is Debian 13's, so what it builds runs on Debian 13 and Raspberry Pi OS 13 (64-bit); with
# --suite bookworm, one whose sysroot is Debian 12's (Raspberry Pi OS 12). Made once and
# kept in /var/cache/pacer-cross (or $PACER_CROSS_CACHE); a later run reuses it, and remakes
# a layer whose recipe changed.
#
#   scripts/cross-sdk.sh [--suite trixie|bookworm] COMMAND   (default trixie)
#
#   scripts/cross-sdk.sh                 make it (when missing) and say what is there
#   scripts/cross-sdk.sh build OUT       make it, then build pacer for arm64 (release, Swift
#                                        runtime linked in) and copy the binary to OUT
#   scripts/cross-sdk.sh check-sid       build pacer with sid's Swift 6.2.3 for amd64 against
#                                        sid's own libraries (libgps API 16): the third
#                                        libgps API the source must compile against
#   scripts/cross-sdk.sh run BINARY [ARGS]  run an arm64 binary here under qemu-aarch64-static
#                                        with the sysroot's libraries
#   scripts/cross-sdk.sh test [ARGS]     build the tests for arm64 and run them here under qemu
#                                        (ARGS to the test binary: --filter REGEX, --skip REGEX)
#   scripts/cross-sdk.sh shell           a shell in the sid root, the checkout at its own path
#
# Needs root. Exit status: 0 done; 1 a build failed; 64 bad usage; 69 Debian's archive or
# debootstrap failed, or the pinned swiftlang is not in sid (any more); 77 not root.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cross_repo=$repo
case "${1:-}" in
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --suite) [ $# -ge 2 ] || { echo "cross-sdk: --suite trixie|bookworm" >&2; exit 64; }
             cross_suite=$2; shift 2 ;;
esac
source "$repo/scripts/lib/cross.sh" || exit 64

t0=$SECONDS
cross_prepare || exit $?
case "${1:-}" in
    "")
        echo "toolchain root: $cross_root ($(cross_in_root 'swift --version 2>&1 | head -1'))"
        echo "pinned:         swiftlang $cross_swift_version, amd64 and arm64 (cross_swift_version in scripts/lib/cross.sh)"
        echo "Swift SDK:      $cross_bundle (name $cross_sdk_name, target $cross_triple)"
        echo "sysroot:        $cross_sysroot ($cross_sysroot_suite; glibc $(dpkg-deb -f "$cross_root"/srv/apt-arm64-$cross_sysroot_suite/archives/libc6_*.deb Version))"
        echo "dpkg database:  $cross_admindir ($(grep -c '^Package:' "$cross_admindir/status") packages, for dpkg-shlibdeps --admindir)"
        echo "sizes:          root $(du -sh --exclude=srv "$cross_root" | cut -f1), SDK $(du -sh "$cross_bundle" | cut -f1)"
        ;;
    build)
        [ $# -eq 2 ] || { echo "cross-sdk: build OUT" >&2; exit 64; }
        out=$(readlink -f "$2")
        cross_build "$out"
        echo "built $out ($(du -h "$out" | cut -f1)) in $((SECONDS - t0)) s" >&2
        ;;
    check-sid)
        cross_in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libgps-dev libasound2-dev libespeak-ng-dev libsqlite3-dev libcrypt-dev libxml2-dev libsystemd-dev >/dev/null \
            && grep -m1 'define GPSD_API_MAJOR_VERSION' /usr/include/gps.h \
            && cd '$repo' && { swift build --product pacer --scratch-path /srv/build-sid-amd64 >/srv/build-sid-amd64.log 2>&1 \
                || { grep -E 'error:' /srv/build-sid-amd64.log | sort -u | head -n 20; tail -n 15 /srv/build-sid-amd64.log; exit 1; }; } \
            && tail -n 1 /srv/build-sid-amd64.log && /srv/build-sid-amd64/debug/pacer version" \
            || { echo "cross-sdk: the sid amd64 build failed" >&2; exit 1; }
        ;;
    run)
        [ $# -ge 2 ] || { echo "cross-sdk: run BINARY [ARGS]" >&2; exit 64; }
        shift
        command -v qemu-aarch64-static >/dev/null || { apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null || exit 69; }
        exec qemu-aarch64-static -L "$cross_sysroot" "$@" ;;
    test) shift; cross_test "$@" ;;
    shell) cross_in_root "cd '$repo' && exec bash -i" ;;
    *) echo "cross-sdk: unknown command '$1' (see --help)" >&2; exit 64 ;;
esac
