#!/usr/bin/env bash
# Makes the Debian package that puts Pacer on a board: `apt install ./pacer_VERSION_ARCH.deb`,
# and no toolchain there. arm64 (the board: Debian 13 / Raspberry Pi OS 13, 64-bit; with
# --suite bookworm, Debian 12 / Raspberry Pi OS 12) is cross-built with scripts/cross-sdk.sh's
# toolchain; amd64 (Debian 12, a desktop or a test root) is built with this machine's Swift. Either way `pacer` is built in release with the
# Swift runtime linked in (--static-swift-stdlib) and stripped; the package is laid out,
# built with dpkg-deb and checked with lintian (installed with apt when missing), which
# must report no error.
#
#   scripts/package-deb.sh [--arch amd64|arm64] [--suite trixie|bookworm] [--out DIR]
#                          [--skip-build BINARY]
#
#   --arch ARCH          the board's architecture: arm64 cross-builds (needs root, once, to
#                        make the toolchain: scripts/cross-sdk.sh); default this machine's
#   --suite SUITE        the Debian an arm64 package is for: trixie (default: Debian 13,
#                        pacer_V_arm64.deb) or bookworm (Debian 12, pacer_V~deb12_arm64.deb,
#                        built against a bookworm sysroot); amd64 is always bookworm
#   --out DIR            where the .deb goes (default: out/ in the checkout)
#   --skip-build BINARY  package this already-built pacer (a copy is stripped) instead of
#                        building one; its architecture is read from its ELF header
#
# The target Debian: arm64 packages are for Debian 13 (trixie), whose libraries the cross
# sysroot holds (glibc 2.41, libgps30), or with --suite bookworm for Debian 12 (a bookworm
# sysroot: glibc 2.36, libgps28; the version gets ~deb12, so that both files sit in one
# folder and apt takes a trixie build of the same version over it); amd64 ones for Debian 12
# (bookworm), what this machine builds against. The binary's highest GLIBC_ symbol version
# must be at most the target's glibc, or the package is refused.
#
# The version is the one `pacer version` prints (Sources/PacerCLI/VersionCommand.swift);
# when the binary runs on this machine, the two are checked to agree. What goes where:
#
#   /usr/bin/pacer                            the binary, stripped
#   /usr/share/pacer/                         plans, profiles, parts, builds, cues.yaml,
#                                             recordings, speech, config/simulated.yaml, and the
#                                             bundled scenarios (Scenarios/, goldens too)
#   /etc/pacer/pacer.yaml                     conffile: Hardware/config/board.yaml with
#                                             hardware_dir: /usr/share/pacer
#   /lib/systemd/system/pacer.service         the unit, running /usr/bin/pacer (trixie:
#                                             /usr/lib/systemd/system, below /usr as DEP 17 says)
#   /lib/udev/rules.d/99-pacer-gps.rules      /dev/gps0 for a USB GPS (trixie: /usr/lib/udev)
#   /lib/udev/rules.d/70-pacer-rfkill.rules   the Wi-Fi radio's rfkill switch writable by group pacer
#   /usr/share/man/man1/pacer.1.gz            the manual: every command and option
#   /usr/share/doc/pacer/                     copyright, changelog.gz, README.md.gz (the
#                                             board guide), examples/gpsd.default and
#                                             examples/asound.conf
#   user `pacer` (groups dialout, audio, input), /var/lib/pacer: made by the postinst
#
# The unit and the udev rule go under /lib, where bookworm's debhelper puts them; bookworm's
# lintian accepts /lib and /usr/lib alike, and DEP 17 asks packages not to move files
# between the two during the bookworm cycle. /etc/default/gpsd is gpsd's conffile: a
# package may not ship another package's file (dpkg refuses the overwrite), so Pacer's
# version is only an example for the maker to copy (Hardware/README.md, step 4).
#
# Depends comes from dpkg-shlibdeps on the binary (for arm64, against the cross sysroot's
# dpkg database: the arm64 libraries' own symbols files), plus adduser for the postinst. Lintian's
# remaining tags are explained where they are overridden, Hardware/debian/lintian-overrides.
#
# Exit status: 0 the package is made and lintian reports no error; 1 a step failed
# (lintian's errors included); 64 bad option; 66 the --skip-build binary is missing;
# 69 a tool is missing and cannot be installed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
target_arch=""
target_suite=""
out="$repo/out"
binary=""

while [ $# -gt 0 ]; do
    case "$1" in
        --arch) target_arch="$2"; shift ;;
        --suite) target_suite="$2"; shift ;;
        --out) out="$2"; shift ;;
        --skip-build) binary=$(readlink -f "$2"); shift ;;
        -h|--help) sed -n '2,60p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

say() { echo "package-deb: $*" >&2; }
die() { say "$1"; exit "${2:-1}"; }
hw="$repo/Hardware"
deb_files="$hw/debian"

# --- the tools ---------------------------------------------------------------------------
need_apt=()
command -v dpkg-deb >/dev/null || need_apt+=(dpkg)
command -v dpkg-shlibdeps >/dev/null || need_apt+=(dpkg-dev)
command -v lintian >/dev/null || need_apt+=(lintian)
command -v readelf >/dev/null || need_apt+=(binutils)
if [ ${#need_apt[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "missing ${need_apt[*]}: sudo apt-get install ${need_apt[*]}" 69
    say "installing ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null \
        || die "cannot install ${need_apt[*]}" 69
fi

# --- the binary --------------------------------------------------------------------------
# The Debian architecture of a target triple (SwiftPM's bin folder is named after it).
triple_arch() {
    case "$1" in
        x86_64-*) echo amd64 ;;
        aarch64-*|arm64-*) echo arm64 ;;
        armv7*-*gnueabihf|armv7*-*-linux*|armv6*-*gnueabihf) echo armhf ;;
        i?86-*) echo i386 ;;
        riscv64-*) echo riscv64 ;;
        *) return 1 ;;
    esac
}
# The Debian architecture of an ELF binary, from its header.
elf_arch() {
    local header machine
    header=$(readelf -h "$1") || return 1
    machine=$(echo "$header" | sed -n 's/^ *Machine: *//p')
    case "$machine" in
        *X86-64*) echo amd64 ;;
        AArch64) echo arm64 ;;
        ARM) if echo "$header" | grep -q "hard-float"; then echo armhf; else echo armel; fi ;;
        "Intel 80386") echo i386 ;;
        RISC-V) echo riscv64 ;;
        *) return 1 ;;
    esac
}

host_arch=$(dpkg --print-architecture)
case "${target_arch:-$host_arch}" in
    "$host_arch"|arm64) ;;
    *) die "no way to build for ${target_arch} here: --arch $host_arch or arm64" 64 ;;
esac
case "${target_arch:-$host_arch}:${target_suite}" in
    arm64:|arm64:trixie|arm64:bookworm|"$host_arch":|"$host_arch":bookworm) ;;
    *) die "no $target_suite package for ${target_arch:-$host_arch}: arm64 is made for trixie or bookworm, $host_arch for bookworm" 64 ;;
esac

if [ -n "$binary" ]; then
    [ -f "$binary" ] || die "no binary at $binary" 66
elif [ "${target_arch:-$host_arch}" = "$host_arch" ]; then
    say "building: scripts/build-release.sh"
    binary=$(bash "$repo/scripts/build-release.sh" | tail -1) || die "the build failed"
    [ -x "$binary" ] || die "the build made no $binary"
else
    cross_suite=${target_suite:-trixie}
    say "cross-building for $target_arch, $cross_suite (scripts/cross-sdk.sh)"
    source "$repo/scripts/lib/cross.sh"
    cross_prepare || die "cannot make the cross toolchain" 69
    binary="$repo/.build-$target_arch/pacer"
    [ "$cross_suite" = trixie ] || binary="$repo/.build-$target_arch-$cross_suite/pacer"
    cross_build "$binary" || die "the $target_arch build failed"
fi

arch=$(elf_arch "$binary") || die "cannot tell the architecture of $binary (readelf -h)"
# A board has no Swift toolchain: the runtime must be in the binary.
if readelf -d "$binary" | grep -q 'NEEDED.*libswiftCore'; then
    die "$binary needs the Swift runtime's shared libraries: build it with --static-swift-stdlib"
fi
# Nothing of the binary's own folder is loaded: SwiftPM's $ORIGIN run path would make the
# loader search /usr/bin (and its glibc-hwcaps folders) first for every library at each start.
if readelf -d "$binary" | grep -q 'R\(UN\)\?PATH.*\$ORIGIN'; then
    die "$binary searches its own folder for libraries (\$ORIGIN): build it with --disable-local-rpath"
fi
if [ -n "$target_arch" ] && [ "$target_arch" != "$arch" ]; then
    die "--arch $target_arch, but $binary is $arch"
fi
case "$arch" in
    "$host_arch") suite=bookworm; lib_dir=/lib; run_binary=("$binary") ;;
    arm64)
        suite=${target_suite:-trixie}
        # trixie is merged-/usr and its debhelper installs below /usr/lib (DEP 17); bookworm's
        # below /lib, as for amd64.
        if [ "$suite" = trixie ]; then lib_dir=/usr/lib; else lib_dir=/lib; fi
        # The cross sysroot (its dpkg database gives Depends; its libraries let the binary
        # run here under qemu, for the version check and the manual page).
        [ -n "${cross_sysroot:-}" ] || { cross_suite=$suite; source "$repo/scripts/lib/cross.sh"; cross_prepare || die "cannot make the cross toolchain" 69; }
        if ! command -v qemu-aarch64-static >/dev/null && [ "$(id -u)" -eq 0 ]; then
            say "installing qemu-user-static (to run the arm64 binary here)"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null || true
        fi
        run_binary=()
        command -v qemu-aarch64-static >/dev/null && run_binary=(qemu-aarch64-static -L "$cross_sysroot" "$binary")
        ;;
    *) die "no Debian release known for $arch packages: $host_arch or arm64" ;;
esac

# --- the version -------------------------------------------------------------------------
version_source="$repo/Sources/PacerCLI/VersionCommand.swift"
version=$(sed -n 's/.*static let number = "\([0-9][0-9A-Za-z.+~]*\)".*/\1/p' "$version_source")
[ -n "$version" ] && [ "$(echo "$version" | wc -l)" -eq 1 ] \
    || die "cannot read the version from $version_source (a line static let number = \"X.Y.Z\")"
if [ ${#run_binary[@]} -gt 0 ]; then
    said=$("${run_binary[@]}" version | head -1)
    [ "$said" = "pacer $version" ] \
        || die "$binary says '$said' but $version_source says pacer $version: package the binary of this checkout"
fi
# The package's version: a bookworm build for arm64 sorts below the trixie one of the same
# release (~), so both files sit in one folder and an upgraded board takes the trixie one.
package_version=$version
[ "$arch" = arm64 ] && [ "$suite" = bookworm ] && package_version="$version~deb12"

# The binary must not need a newer glibc than the target Debian's (a symbol versioned above
# it would stop it at start with "version `GLIBC_2.xx' not found"). The target's glibc is
# the libc6 package linked against: the sysroot's for arm64, this machine's for amd64.
if [ "$arch" = "$host_arch" ]; then
    target_glibc=$(dpkg-query -W -f='${Version}' libc6)
else
    target_glibc=$(awk '/^Package: libc6$/ {p = 1} p && /^Version: / {print $2; exit}' "$cross_admindir/status")
fi
target_glibc=$(echo "$target_glibc" | sed 's/^[0-9]*://; s/-.*//')
# readelf -V lists the versions the binary needs (.gnu.version_r), for any architecture.
needed_glibc=$(readelf -W -V "$binary" | grep -o 'Name: GLIBC_[0-9][0-9.]*' | sed 's/^Name: GLIBC_//' | sort -uV | tail -1)
[ -n "$needed_glibc" ] && [ -n "$target_glibc" ] || die "cannot tell the glibc $binary needs (readelf -V) or the target's ($target_glibc)"
[ "$(printf '%s\n%s\n' "$needed_glibc" "$target_glibc" | sort -V | tail -1)" = "$target_glibc" ] \
    || die "$binary needs GLIBC_$needed_glibc, but $suite has glibc $target_glibc: readelf -W --dyn-syms $binary | grep GLIBC_$needed_glibc"
say "the binary needs glibc $needed_glibc at most ($suite has $target_glibc)"

# Dates in the package (file times, the changelog, the manual) are the commit's.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}"

# --- the package tree --------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/pacer-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage="$work/pacer"
umask 022
install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/share/pacer/config" \
    "$stage/usr/share/doc/pacer/examples" "$stage/etc/pacer" \
    "$stage$lib_dir/systemd/system" "$stage$lib_dir/udev/rules.d" "$stage/usr/share/lintian/overrides"

# The binary, stripped of its symbols and of the sections Debian's dh_strip also removes.
# llvm-objcopy (the toolchain's) strips any architecture, so a cross-build is stripped the
# same way; binutils' strip is the fallback for a native one.
if objcopy_bin=$(command -v llvm-objcopy); then
    "$objcopy_bin" --strip-all --remove-section=.comment --remove-section=.note \
        "$binary" "$stage/usr/bin/pacer"
elif [ "$arch" = "$host_arch" ]; then
    strip --strip-all --remove-section=.comment --remove-section=.note -o "$stage/usr/bin/pacer" "$binary"
else
    die "no llvm-objcopy on the PATH to strip a $arch binary" 69
fi
chmod 0755 "$stage/usr/bin/pacer"
if [ ${#run_binary[@]} -gt 0 ]; then
    "${run_binary[@]:0:${#run_binary[@]}-1}" "$stage/usr/bin/pacer" version >/dev/null || die "the stripped binary does not run"
fi

# The data the binary reads from hardware_dir, and the bundled scenarios.
share="$stage/usr/share/pacer"
for dir in plans profiles parts builds recordings speech; do
    cp -r "$hw/$dir" "$share/$dir"
done
install -m 0644 "$hw/cues.yaml" "$share/"
install -m 0644 "$hw/config/simulated.yaml" "$share/config/"
cp -r "$repo/Scenarios" "$share/scenarios"
# A scenario whose recording lies outside the checkout (real-receiver reads gpsd's corpus in
# ../shared in place) cannot run on a board: it stays out of the package, said here.
for scenario in "$share/scenarios"/*/scenario.yaml; do
    recording=$(sed -n 's/^recording: *//p' "$scenario" | head -1)
    case "$recording" in ""|/*) continue ;; esac
    source_dir="$repo/Scenarios/$(basename "$(dirname "$scenario")")"
    resolved=$(realpath -m "$source_dir/$recording")
    case "$resolved" in
        "$repo"/*) ;;
        *) say "leaving out scenario $(basename "$source_dir"): its recording $recording is not in the checkout"
           rm -r "$(dirname "$scenario")" ;;
    esac
done

# The settings, pointing at the package's data; the unit, running the package's binary.
# Each rewrite is checked: a source line that changed shape must fail here, not on a board.
sed 's|^hardware_dir: /usr/local/share/pacer$|hardware_dir: /usr/share/pacer|' \
    "$hw/config/board.yaml" >"$stage/etc/pacer/pacer.yaml"
grep -q '^hardware_dir: /usr/share/pacer$' "$stage/etc/pacer/pacer.yaml" \
    || die "Hardware/config/board.yaml has no 'hardware_dir: /usr/local/share/pacer' line to point at /usr/share/pacer"
unit="$stage$lib_dir/systemd/system/pacer.service"
sed -e 's|^ExecStart=/usr/local/bin/pacer |ExecStart=/usr/bin/pacer |' \
    -e 's|^Documentation=file:///usr/local/share/pacer/README.md$|Documentation=file:///usr/share/doc/pacer/README.md.gz|' \
    "$hw/systemd/pacer.service" >"$unit"
grep -q '^ExecStart=/usr/bin/pacer device ' "$unit" && grep -q '^Documentation=file:///usr/share/doc/pacer/' "$unit" \
    || die "Hardware/systemd/pacer.service: its ExecStart= or Documentation= line is not the one this script rewrites"
if grep -v '^#' "$stage/etc/pacer/pacer.yaml" "$unit" | grep -q '/usr/local'; then
    die "a /usr/local path is left in the packaged settings or unit"
fi
install -m 0644 "$hw/udev/99-pacer-gps.rules" "$stage$lib_dir/udev/rules.d/"
install -m 0644 "$hw/udev/70-pacer-rfkill.rules" "$stage$lib_dir/udev/rules.d/"

# The manual page, pacer(1): swift-argument-parser's own generate-manual (built here, for
# this machine) writes it from the binary's help (--experimental-dump-help), so it needs a
# pacer that runs here: the packaged one, or an arm64 one under qemu (a wrapper that runs it
# with the cross sysroot). With neither, the package has no manual page and lintian says
# no-manual-page (a warning, not an error).
man_source=""
if [ "$arch" = "$host_arch" ]; then
    man_source="$binary"
elif [ ${#run_binary[@]} -gt 0 ]; then
    mkdir -p "$work/emulated"
    man_source="$work/emulated/pacer"
    printf '#!/bin/sh\nexec %q %q %q %q "$@"\n' "${run_binary[@]}" >"$man_source"
    chmod 0755 "$man_source"
fi
if [ -n "$man_source" ]; then
    (cd "$repo" && swift build --product generate-manual >"$work/generate-manual.log" 2>&1) \
        || { cat "$work/generate-manual.log" >&2; die "building swift-argument-parser's generate-manual failed"; }
    generate_manual="$(cd "$repo" && swift build --show-bin-path)/generate-manual"
    mkdir -p "$work/man"
    "$generate_manual" "$man_source" --output-directory "$work/man" \
        --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" >/dev/null
    # generate-manual leaves a blank line between a discussion's paragraphs, which mdoc
    # warns about: a paragraph break is .Pp.
    install -d "$stage/usr/share/man/man1"
    sed 's/^$/.Pp/' "$work/man/pacer.1" | gzip -9n >"$stage/usr/share/man/man1/pacer.1.gz"
else
    say "no pacer that runs here to write the manual page from: the package has none"
fi

# Documentation: Debian wants changelog and copyright; the board guide and the examples
# the maker copies by hand (gpsd's defaults belong to the gpsd package).
doc="$stage/usr/share/doc/pacer"
install -m 0644 "$deb_files/copyright" "$doc/copyright"
gzip -9n <"$hw/README.md" >"$doc/README.md.gz"
install -m 0644 "$hw/gpsd/gpsd.default" "$doc/examples/gpsd.default"
install -m 0644 "$hw/alsa/asound.conf" "$doc/examples/asound.conf"
install -m 0644 "$deb_files/lintian-overrides" "$stage/usr/share/lintian/overrides/pacer"

# The changelog: one entry for this build, dated and signed as the commit it is built from.
maintainer="${DEBFULLNAME:-} <${DEBEMAIL:-}>"
commit=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -z "${DEBFULLNAME:-}" ] || [ -z "${DEBEMAIL:-}" ]; then
    maintainer=$(git -C "$repo" log -1 --format='%cn <%ce>' 2>/dev/null) \
        || die "set DEBFULLNAME and DEBEMAIL: the maintainer to name in the package"
fi
dirty=""
git -C "$repo" diff --quiet HEAD -- 2>/dev/null || dirty=yes
{
    echo "pacer ($package_version) $suite; urgency=medium"
    echo
    echo "  * Built by scripts/package-deb.sh for $arch ($suite), with the Swift"
    echo "    runtime linked in, from commit $commit of the Pacer repository."
    [ -n "$dirty" ] && echo "    The working tree had uncommitted changes."
    echo
    echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"

# The maintainer scripts and the conffile list.
install -m 0755 "$deb_files/postinst" "$deb_files/prerm" "$deb_files/postrm" "$stage/DEBIAN/"
echo /etc/pacer/pacer.yaml >"$stage/DEBIAN/conffiles"

# Everything readable by all, owned by root (dpkg-deb --root-owner-group), dated as the commit.
find "$stage" -path "$stage/DEBIAN" -prune -o -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
chmod 0755 "$stage/usr/bin/pacer"

# --- Depends, from the binary ------------------------------------------------------------
# dpkg-shlibdeps reads the libraries' symbols files from a dpkg database: this machine's for
# a native binary; for arm64, the cross sysroot's (scripts/lib/cross.sh makes it from the
# same trixie packages the binary was linked against, their files listed at the sysroot's
# paths, which -l adds to the search).
mkdir -p "$work/debian"
printf 'Source: pacer\n\nPackage: pacer\nArchitecture: any\n' >"$work/debian/control"
multiarch=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
shlibdeps_options=()
if [ "$arch" != "$host_arch" ]; then
    shlibdeps_options=(--admindir="$cross_admindir" -l"$cross_sysroot/usr/lib/$multiarch" -l"$cross_sysroot/usr/lib")
fi
shlibs=$(cd "$work" && DEB_HOST_ARCH="$arch" DEB_HOST_MULTIARCH="$multiarch" \
    dpkg-shlibdeps "${shlibdeps_options[@]}" -O -e"pacer/usr/bin/pacer" 2>"$work/shlibdeps.err") || {
    cat "$work/shlibdeps.err" >&2
    die "dpkg-shlibdeps failed"
}
grep -v "^dpkg-shlibdeps: warning: binaries to analyze should already be stripped" "$work/shlibdeps.err" >&2 || true
depends=$(echo "$shlibs" | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependency: $shlibs"

# libgps, libasound, libespeak-ng and libsystemd (LinuxHardware's DynamicLibrary) and libxml2 (Storage's
# LibXML2) are opened at first use (dlopen), not linked, so dpkg-shlibdeps does not see them.
# The binary opens the SONAME of the library whose headers it was built with: the one the -dev
# package's link points to (in the cross sysroot for arm64). Its package and version come from
# that library package's shlibs file, as dpkg-shlibdeps would take them.
dpkg_info="${cross_admindir:-/var/lib/dpkg}/info"
[ "$arch" != "$host_arch" ] && lib_root="$cross_sysroot" || lib_root=""
for dev_link in libgps.so libasound.so libespeak-ng.so libsystemd.so libxml2.so; do
    library=$(readlink -f "$lib_root/usr/lib/$multiarch/$dev_link") && [ -f "$library" ] ||
        die "no $lib_root/usr/lib/$multiarch/$dev_link (its -dev package) to tell which library pacer opens"
    soname=$(objdump -p "$library" | awk '$1 == "SONAME" {print $2}')
    grep -qaF "$soname" "$binary" || die "$binary does not name $soname: was it built against other headers?"
    # awk reads the files itself: `cat | awk '{...; exit}'` would end cat with SIGPIPE, which
    # pipefail turns into the script's failure.
    dependency=$(awk -v n="${soname%%.so.*}" -v v="${soname##*.so.}" \
        '$1 == n && $2 == v && !found {$1 = ""; $2 = ""; sub(/^ +/, ""); print; found = 1}' \
        "$dpkg_info"/*.shlibs 2>/dev/null || true)
    [ -n "$dependency" ] || die "no shlibs entry for $soname in $dpkg_info"
    depends="$depends, $dependency"
done

installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$package_version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" \
    "$deb_files/control" >"$stage/DEBIAN/control"
(cd "$stage" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' \
    | LC_ALL=C sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"
find "$stage" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

# --- build and check ---------------------------------------------------------------------
mkdir -p "$out"
deb="$(cd "$out" && pwd)/pacer_${package_version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
say "built $deb"
say "Depends: $depends, espeak-ng-data, adduser"
say "size $(du -k "$deb" | cut -f1) kB; installed size $installed_size kB"

# Every tag is shown, the overridden ones as O: (their reasons are in the overrides file, so
# lintian's N: copies of them are left out). With --show-overrides lintian's exit status
# counts overridden errors too, so the verdict is read from the tags: no E: line.
say "lintian $(lintian --version | awk '{print $2}')"
status=0
lintian --display-info --show-overrides "$deb" >"$work/lintian.out" 2>&1 || status=$?
grep -v '^N: ' "$work/lintian.out" >&2 || true
# 2 is --fail-on's (errors, by default, overridden ones included); 1 is lintian's own failure.
case "$status" in 0|2) ;; *) die "lintian failed (exit status $status)" ;; esac
if grep -q '^E: ' "$work/lintian.out"; then
    die "lintian reports errors in $deb"
fi
say "lintian: no errors ($(grep -c '^W: ' "$work/lintian.out" || true) warnings, $(grep -c '^O: ' "$work/lintian.out" || true) overridden)"
echo "$deb"
