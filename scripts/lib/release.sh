# shellcheck shell=bash
# The options of the board's build of pacer, as the Debian package ships it: sourced (not run)
# by scripts/build-release.sh (which package-deb.sh, bench-startup.sh and .ci/run run) and by
# the arm64 cross build (lib/cross.sh), so that every one of them builds the same binary.
#
#   --static-swift-stdlib   the Swift runtime and Foundation linked in: no toolchain on a board
#   --disable-local-rpath   no $ORIGIN run path: with one, the loader searched the binary's own
#                           folder (and its glibc-hwcaps folders) first for every library, 30
#                           failed system calls at each start
#   -disable-concrete-type-metadata-mangled-name-accessors
#                           concrete generic types (swift-argument-parser's, SwiftPM applies
#                           -Xswiftc to dependencies too) are reached through their metadata
#                           accessors, which are handed the conformances, instead of by mangled
#                           name, which the runtime demangles and whose conformances it looks up
#                           by scanning the binary's ~9,600 conformance records: 2.7 M of the
#                           18.8 M instructions of `pacer --version`, 4.8 M of an empty decode
#                           (docs/measured.md, "Start-up"); the binary grows by 0.4 %.
release_build_options=(-c release --static-swift-stdlib --disable-local-rpath
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
