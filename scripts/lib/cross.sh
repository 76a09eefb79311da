# shellcheck shell=bash
# The arm64 cross toolchain, made from Debian's archive alone: sourced by scripts/cross-sdk.sh
# and scripts/package-deb.sh, not run. Needs root (debootstrap, chroot, mount namespaces).
#
# What it makes, once, and keeps under $cross_cache (default /var/cache/pacer-cross, so later
# runs on the same machine reuse it; each layer is remade when its recipe changes):
#
#   sid-amd64/            a Debian sid amd64 root (debootstrap minbase) with sid's swiftlang,
#                         pinned (cross_swift_version below: 6.2.3): Debian 13 (trixie) ships
#                         6.0.3, which cannot build GRDB 7 (tools version 6.1), and bookworm
#                         none. Its compiler cross-compiles.
#   sid-amd64/srv/sdk/pacer-aarch64.artifactbundle          (cross_suite=trixie, the default)
#                         a SwiftPM Swift SDK for aarch64-unknown-linux-gnu:
#     aarch64-debian13/sysroot   trixie's arm64 -dev packages and their dependencies (dpkg -x),
#                                so the binary needs trixie's libraries (glibc 2.41, libgps30,
#                                ...) and runs on Debian 13 and Raspberry Pi OS 13; plus the
#                                arm64 Swift resources (usr/lib/swift, swift_static for
#                                --static-swift-stdlib, clang) from sid's swiftlang:arm64 at
#                                the pinned version (checked equal to the compiler's)
#     aarch64-debian13/dpkg      a dpkg database of those packages (status, file lists with
#                                the sysroot's paths, symbols and shlibs files), so
#                                dpkg-shlibdeps --admindir computes Depends from the arm64
#                                libraries' real sonames and versions
#     swift-sdk.json, toolset.json (-use-ld=lld: the toolchain's own ld.lld links aarch64)
#     aarch64-debian13/test-runtime   sid's libxml2.so.16: the arm64 Swift runtime's shared
#                                FoundationXML (which only a test build links: pacer itself
#                                links the static one, against trixie's libxml2.so.2) needs it
#                                to run the test suite under qemu
#   sid-amd64/srv/sdk/pacer-aarch64-debian12.artifactbundle (cross_suite=bookworm)
#                         the same for Debian 12 / Raspberry Pi OS 12: bookworm's arm64
#                         libraries (glibc 2.36, libgps28), the same arm64 Swift, and a shim
#                         for the glibc 2.38 names sid's static runtime uses (below)
#   sid-amd64/srv/build-aarch64, build-aarch64-debian12   the build folders, one a suite
#
# Functions: cross_prepare (makes what is missing; sets the variables below), cross_in_root
# COMMAND (runs bash -c COMMAND in the sid root, the checkout mounted at its own path, in a
# private mount namespace so no mount outlives it), cross_build OUT (a release build of pacer
# for arm64, Swift runtime linked in, copied to OUT; cross_swift_build underlies it and
# cross_test), cross_test [ARGS] (the test suite built
# for arm64 and run here under qemu-user).

# The pinned compiler: the exact Debian version of sid's swiftlang, used for amd64 (the
# compiler, in the sid root) and arm64 (its runtime and resources, in the sysroot) alike.
# Moving the pin: set it to a version `apt-cache madison swiftlang` lists in sid (for amd64
# and arm64 both), run scripts/cross-sdk.sh (the root and the SDKs are remade: each recipe
# names it), then rebuild and recheck the packages. A pin sid no longer has fails with exit
# 69, saying what sid has now.
cross_swift_version=6.2.3-1+b1
cross_swift_upstream=${cross_swift_version%%-*}   # what `swift --version` must say

: "${cross_cache:=${PACER_CROSS_CACHE:-/var/cache/pacer-cross}}"
: "${cross_mirror:=http://deb.debian.org/debian}"
# The Debian the arm64 binary is for (its sysroot): trixie (default) or bookworm.
: "${cross_suite:=trixie}"
cross_repo=${cross_repo:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cross_root="$cross_cache/sid-amd64"
cross_triple=aarch64-unknown-linux-gnu
case "$cross_suite" in
    trixie)
        cross_debian=13; cross_gcc=14
        cross_bundle="$cross_root/srv/sdk/pacer-aarch64.artifactbundle"
        cross_build_dir=/srv/build-aarch64 ;;
    bookworm)
        cross_debian=12; cross_gcc=12
        cross_bundle="$cross_root/srv/sdk/pacer-aarch64-debian12.artifactbundle"
        cross_build_dir=/srv/build-aarch64-debian12 ;;
    *) echo "cross: no arm64 sysroot known for Debian '$cross_suite': trixie or bookworm" >&2; return 64 ;;
esac
cross_variant=aarch64-debian$cross_debian
cross_sdk_name=pacer-$cross_variant
cross_sdk_dir="$cross_bundle/$cross_variant"
cross_sysroot="$cross_sdk_dir/sysroot"
cross_admindir="$cross_sdk_dir/dpkg"

# What the root holds, and what the sysroot is made of. A change here remakes that layer.
cross_root_packages="swiftlang=$cross_swift_version libc6-dev libstdc++-14-dev git ca-certificates"
cross_sysroot_suite=$cross_suite
cross_sysroot_packages="libc6-dev libgcc-$cross_gcc-dev libstdc++-$cross_gcc-dev libgps-dev libasound2-dev libespeak-ng-dev libsqlite3-dev libcrypt-dev libxml2-dev libsystemd-dev zlib1g-dev"
cross_swift_packages="swiftlang:arm64=$cross_swift_version libswiftlang:arm64=$cross_swift_version"
cross_test_runtime_packages="libxml2-16:arm64"
cross_recipe_root="1 sid $cross_root_packages"
cross_recipe_sdk="7 $cross_sysroot_suite $cross_sysroot_packages / sid $cross_swift_packages / $cross_test_runtime_packages"

cross_say() { echo "cross: $*" >&2; }

# The bookworm SDK's shim. sid's arm64 Swift runtime (swift_static: libswiftCore,
# Foundation, CoreFoundation, libdispatch, ...) was compiled against sid's glibc 2.41 and
# libstdc++ 15 headers, and its objects name what those headers name: the C23 functions
# glibc 2.38 added and its headers now redirect strtol and sscanf to (__isoc23_strtol,
# __isoc23_strtoll, __isoc23_strtoul, __isoc23_sscanf), strlcpy and strlcat (glibc 2.38), and
# std::ios_base_library_init() (libstdc++ 13's <iostream>, GLIBCXX_3.4.32). Bookworm's glibc
# 2.36 and libstdc++ 12 have none of them, so linking against the bookworm sysroot fails
# ("undefined symbol"), and a binary that bound them would not start on Debian 12. This
# object, linked into every program the bookworm SDK links (its toolset's linker options),
# defines each with what bookworm has: the C99 functions (the same results but for C23's
# 0b binary prefix, which nothing in the runtime parses), strlcpy/strlcat as glibc 2.38
# (and the BSDs) define them, and the iostream initialisation libstdc++ 12 expects each
# translation unit that includes <iostream> to carry (a static std::ios_base::Init). The
# trixie SDK needs none of it: trixie's glibc 2.41 and libstdc++ 14 have them all.
cross_glibc_shim_source() {
    cat <<'CXX'
// Made by scripts/lib/cross.sh for the bookworm (glibc 2.36, libstdc++ 12) arm64 SDK.
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ios>

extern "C" {
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }
// The ISO C99 scanf (%a a float, not GNU's allocation flag), as C23's is.
int __isoc99_vsscanf(const char *s, const char *format, va_list args);
int __isoc23_sscanf(const char *s, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = __isoc99_vsscanf(s, format, args);
    va_end(args);
    return n;
}
int __isoc23_vsscanf(const char *s, const char *format, va_list args) { return __isoc99_vsscanf(s, format, args); }
size_t strlcpy(char *dst, const char *src, size_t size) {
    size_t n = strlen(src);
    if (size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}
size_t strlcat(char *dst, const char *src, size_t size) {
    size_t d = strnlen(dst, size);
    if (d == size) return size + strlen(src);
    return d + strlcpy(dst + d, src, size - d);
}
}

namespace std {
// libstdc++ 13 and later initialise cout and cerr in the library and have <iostream> name
// this function; libstdc++ 12 needs an ios_base::Init object, which this file supplies.
void ios_base_library_init() {}
}
static std::ios_base::Init pacer_ios_base_init;
CXX
}
# The bookworm SDK is remade when the shim changes.
[ "$cross_suite" = trixie ] || cross_recipe_sdk+=" / shim $(cross_glibc_shim_source | md5sum | cut -c1-12) / relative links"

# cross_pin_missing ARCH AVAILABLE: the pinned swiftlang is not in sid (any more); says so.
cross_pin_missing() {
    cross_say "swiftlang $cross_swift_version (Swift $cross_swift_upstream) is pinned, but Debian sid has no such $1 package now: it has ${2:-none}."
    cross_say "Move the pin: cross_swift_version near the top of scripts/lib/cross.sh (to a version sid has for amd64 and arm64 both), then rebuild and recheck the arm64 packages (docs/packaging.md, 'The toolchain's pin')."
}

# cross_check_pin: the root's swiftlang (amd64) and the SDK's arm64 Swift are both the pinned
# version. Read from the root's dpkg status and the bundle's stamp: no chroot, so every run
# checks it.
cross_check_pin() {
    local installed sdk
    installed=$(awk '/^Package: swiftlang$/ {p = 1} p && /^Version: / {print $2; exit}' "$cross_root/var/lib/dpkg/status")
    sdk=$(sed -n 's/^swift-arm64 //p' "$cross_bundle.versions" 2>/dev/null)
    if [ "$installed" != "$cross_swift_version" ] || [ "$sdk" != "$cross_swift_version $cross_swift_version" ]; then
        cross_say "the toolchain is not the pinned swiftlang $cross_swift_version: the root's amd64 swiftlang is ${installed:-missing}, the SDK's arm64 swiftlang and libswiftlang ${sdk:-unknown}"
        return 1
    fi
}

# cross_in_root COMMAND: bash -c COMMAND in the sid root, as root, with /proc, /dev, the
# checkout (at the same path as here: the tests find the repository by their #filePath, so an
# arm64 test binary run here finds it too) and the machine's Swift package mirror (if any)
# mounted, in a mount namespace of its own (the mounts go when the command ends, however it
# ends).
cross_in_root() {
    local mirror_bind=""
    if [ -d /opt/swift-packages ]; then
        mkdir -p "$cross_root/opt/swift-packages"
        mirror_bind="mount --bind /opt/swift-packages '$cross_root/opt/swift-packages' && mount -o remount,bind,ro '$cross_root/opt/swift-packages' &&"
    fi
    mkdir -p "$cross_root$cross_repo" "$cross_root/proc" "$cross_root/dev"
    unshare --mount --propagation private bash -c "
        set -e
        mount -t proc proc '$cross_root/proc'
        mount --rbind /dev '$cross_root/dev'
        mount --bind '$cross_repo' '$cross_root$cross_repo'
        $mirror_bind
        exec chroot '$cross_root' /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c \"\$1\"
    " cross-root "$1"
}

# apt in the root with a configuration of its own: cross_apt NAME SUITE ARCH, then
# `APT_CONFIG=/srv/apt-NAME/apt.conf apt-get ...` in the root. The archive's Release files
# may be past their Valid-Until on a mirror snapshot; they are still signed and checked.
cross_apt_config() {
    local dir="$cross_root/srv/apt-$1"
    mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/etc/preferences.d" "$dir/etc/sources.list.d"
    : >"$dir/status"
    echo "deb $cross_mirror $2 main" >"$dir/etc/sources.list"
    cat >"$dir/apt.conf" <<CONF
APT::Architecture "$3";
APT::Architectures { "$3"; };
APT::Install-Recommends "false";
Dir::State "/srv/apt-$1";
Dir::State::Lists "/srv/apt-$1/lists";
Dir::State::status "/srv/apt-$1/status";
Dir::Cache "/srv/apt-$1";
Dir::Cache::archives "/srv/apt-$1/archives";
Dir::Etc::SourceList "/srv/apt-$1/etc/sources.list";
Dir::Etc::SourceParts "/srv/apt-$1/etc/sources.list.d";
Dir::Etc::Preferences "/srv/apt-$1/etc/preferences";
Dir::Etc::PreferencesParts "/srv/apt-$1/etc/preferences.d";
Acquire::Check-Valid-Until "false";
APT::Sandbox::User "root";
CONF
}

cross_make_root() {
    command -v debootstrap >/dev/null || {
        cross_say "installing debootstrap"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    }
    cross_say "making the sid amd64 root with swiftlang in $cross_root (once; kept for later runs)"
    rm -rf --one-file-system "$cross_root" "$cross_root.stamp"
    mkdir -p "$cross_cache"
    debootstrap --variant=minbase sid "$cross_root" "$cross_mirror" >"$cross_cache/debootstrap.log" 2>&1 \
        || { tail -n 20 "$cross_cache/debootstrap.log" >&2; cross_say "debootstrap of sid failed"; return 69; }
    echo 'Acquire::Check-Valid-Until "false";' >"$cross_root/etc/apt/apt.conf.d/99pacer-snapshot"
    cp -L /etc/resolv.conf "$cross_root/etc/resolv.conf"
    # The Swift packages' github.com addresses, read from the machine's mirror as the host does.
    [ -f /etc/gitconfig ] && cp /etc/gitconfig "$cross_root/etc/gitconfig"
    local available
    available=$(cross_in_root "apt-get update -qq && apt-cache madison swiftlang" | awk '{print $3}' | paste -sd ' ') \
        || { cross_say "apt-get update in the sid root failed"; return 69; }
    case " $available " in
        *" $cross_swift_version "*) ;;
        *) cross_pin_missing amd64 "$available"; return 69 ;;
    esac
    cross_in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $cross_root_packages >/dev/null" \
        || { cross_say "installing $cross_root_packages in the sid root failed"; return 69; }
    # The compiler is the pinned one: the package's version and what it says it is.
    local said
    said=$(cross_in_root "dpkg-query -W -f='\${Version}\n' swiftlang && swift --version 2>&1 | head -1")
    cross_say "$(echo "$said" | paste -sd ' ')"
    { [ "$(echo "$said" | head -1)" = "$cross_swift_version" ] \
        && echo "$said" | sed -n 2p | grep -q "Swift version $cross_swift_upstream "; } \
        || { cross_say "the sid root's swiftlang is not the pinned $cross_swift_version (Swift $cross_swift_upstream): $said"; return 69; }
    echo "$cross_recipe_root" >"$cross_root.stamp"
}

# A dpkg database for dpkg-shlibdeps --admindir: each package's status entry, its file list
# with the sysroot's prefix (dpkg-shlibdeps finds a library in the sysroot with -l, then asks
# which package holds that path) and its symbols and shlibs files.
cross_make_admindir() {
    local deb work name control
    rm -rf "$cross_admindir"
    mkdir -p "$cross_admindir/info" "$cross_admindir/updates"
    echo 1 >"$cross_admindir/info/format"   # the multiarch layout: info/NAME:ARCH.list
    : >"$cross_admindir/status"
    : >"$cross_admindir/available"
    work=$(mktemp -d)
    for deb in "$@"; do
        rm -rf "$work/control"
        dpkg-deb -e "$deb" "$work/control"
        name=$(dpkg-deb -f "$deb" Package)
        if [ "$(dpkg-deb -f "$deb" Multi-Arch)" = same ]; then
            name="$name:$(dpkg-deb -f "$deb" Architecture)"
        fi
        control=$(dpkg-deb -f "$deb")
        { echo "$control" | sed '1a Status: install ok installed'; echo; } >>"$cross_admindir/status"
        # Paths below /lib, /bin, /sbin as the merged sysroot has them: below /usr.
        dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' \
            -e 's#^/\(lib\|bin\|sbin\)\(/\|$\)#/usr/\1\2#' \
            | sed "s|^|$cross_sysroot|" >"$cross_admindir/info/$name.list"
        for f in symbols shlibs; do
            [ -f "$work/control/$f" ] && cp "$work/control/$f" "$cross_admindir/info/$name.$f"
        done
    done
    rm -rf "$work"
}

cross_make_sdk() {
    cross_say "making the arm64 Swift SDK: $cross_sysroot_suite's arm64 libraries, sid's arm64 Swift $cross_swift_version resources"
    rm -rf "$cross_bundle" "$cross_bundle.stamp" "$cross_bundle.versions"
    cross_apt_config arm64-$cross_sysroot_suite $cross_sysroot_suite arm64
    cross_apt_config arm64-sid sid arm64
    # The -dev packages and everything they depend on (the status is empty: nothing counts as
    # installed), downloaded, not installed; then sid's arm64 Swift at the pinned version
    # (kept in /srv/apt-arm64-sid for the other suite's SDK: 0.5 GB).
    local available
    available=$(cross_in_root "
        set -e
        export APT_CONFIG=/srv/apt-arm64-$cross_sysroot_suite/apt.conf
        apt-get update -qq
        rm -f /srv/apt-arm64-$cross_sysroot_suite/archives/*.deb
        apt-get install -y -qq --download-only $cross_sysroot_packages >/dev/null
        export APT_CONFIG=/srv/apt-arm64-sid/apt.conf
        apt-get update -qq
        apt-cache madison swiftlang | awk '{print \$3}' | paste -sd ' '
    ") || { cross_say "downloading $cross_sysroot_suite's arm64 packages failed"; return 69; }
    case " $available " in
        *" $cross_swift_version "*) ;;
        *) cross_pin_missing arm64 "$available"; return 69 ;;
    esac
    cross_in_root "
        set -e
        export APT_CONFIG=/srv/apt-arm64-sid/apt.conf
        mkdir -p /srv/apt-arm64-sid/swift-$cross_swift_version && cd /srv/apt-arm64-sid/swift-$cross_swift_version
        ls swiftlang_*.deb libswiftlang_*.deb >/dev/null 2>&1 || apt-get download -qq $cross_swift_packages
        mkdir -p /srv/apt-arm64-sid/test-runtime && cd /srv/apt-arm64-sid/test-runtime && rm -f *.deb
        apt-get download -qq $cross_test_runtime_packages
    " || { cross_say "downloading sid's arm64 swiftlang $cross_swift_version failed"; return 69; }
    local libs=("$cross_root/srv/apt-arm64-$cross_sysroot_suite/archives/"*.deb)
    local swift_debs=("$cross_root/srv/apt-arm64-sid/swift-$cross_swift_version/"*.deb)
    # The arm64 Swift is the amd64 compiler's own version, or nothing is made.
    local deb versions=""
    for deb in "${swift_debs[@]}"; do
        case "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Architecture)" in
            "swiftlang arm64"|"libswiftlang arm64") versions+="${versions:+ }$(dpkg-deb -f "$deb" Version)" ;;
            *) cross_say "unexpected $deb among the arm64 Swift packages"; return 69 ;;
        esac
    done
    [ "$versions" = "$cross_swift_version $cross_swift_version" ] \
        || { cross_say "sid's arm64 swiftlang and libswiftlang are '$versions', not the pinned $cross_swift_version twice"; return 69; }
    mkdir -p "$cross_sysroot"
    for deb in "${libs[@]}"; do dpkg -x "$deb" "$cross_sysroot"; done
    # A merged-/usr system: the linker scripts name /lib/aarch64-linux-gnu/... Bookworm's
    # packages still ship files below /lib (usrmerge merges them on an installed system), so
    # those are moved below /usr first, as usrmerge would.
    local d
    for d in lib bin sbin; do
        if [ -d "$cross_sysroot/$d" ] && [ ! -L "$cross_sysroot/$d" ]; then
            mkdir -p "$cross_sysroot/usr/$d"
            cp -a "$cross_sysroot/$d/." "$cross_sysroot/usr/$d/"
            rm -rf "$cross_sysroot/$d"
        fi
    done
    ln -sfn usr/lib "$cross_sysroot/lib"
    # Bookworm's -dev links are absolute (libm.so -> /lib/aarch64-linux-gnu/libm.so.6): in
    # the sysroot they would point at the build machine's files, the linker would miss
    # libm.so and take libm.a. Each is made relative, to the same file in the sysroot.
    local link target
    while IFS= read -r -d '' link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$cross_sysroot$target")" "$link"
    done < <(find "$cross_sysroot" -type l -lname '/*' -print0)
    # The arm64 Swift: its resources go into the sysroot, where the driver looks for
    # swiftrt.o and the static runtime with -static-stdlib.
    local swift_tmp
    swift_tmp=$(mktemp -d "$cross_cache/swift-arm64.XXXXXX")
    for deb in "${swift_debs[@]}"; do dpkg -x "$deb" "$swift_tmp"; done
    mv "$swift_tmp/usr/libexec/swift/lib/swift" "$swift_tmp/usr/libexec/swift/lib/swift_static" \
        "$swift_tmp/usr/libexec/swift/lib/clang" "$cross_sysroot/usr/lib/"
    rm -rf "$swift_tmp"
    [ -e "$cross_sysroot/usr/lib/swift_static/linux/static-stdlib-args.lnk" ] \
        || { cross_say "sid's swiftlang:arm64 has no static runtime (swift_static/linux/static-stdlib-args.lnk)"; return 69; }
    cross_make_admindir "${libs[@]}"
    local toolset_linker=""
    if [ "$cross_suite" != trixie ]; then
        local shim=$cross_sdk_dir/glibc-compat.o
        cross_glibc_shim_source >"$cross_sdk_dir/glibc-compat.cpp"
        cross_in_root "/usr/libexec/swift/bin/clang++ --target=aarch64-linux-gnu --sysroot='${cross_sysroot#"$cross_root"}' \
            -std=c++17 -O2 -fPIC -Wall -Werror -c '${cross_sdk_dir#"$cross_root"}/glibc-compat.cpp' -o '${shim#"$cross_root"}'" \
            || { cross_say "compiling the glibc shim for $cross_suite failed"; return 1; }
        toolset_linker=",
  \"linker\": { \"extraCLIOptions\": [\"${shim#"$cross_root"}\"] }"
    fi
    mkdir -p "$cross_sdk_dir/test-runtime"
    for deb in "$cross_root/srv/apt-arm64-sid/test-runtime/"*.deb; do dpkg -x "$deb" "$cross_sdk_dir/test-runtime"; done

    local swift_version=$cross_swift_version
    cat >"$cross_bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$cross_sdk_name": {
      "type": "swiftSDK",
      "version": "$swift_version",
      "variants": [{ "path": "$cross_variant", "supportedTriples": ["x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu"] }]
    }
  }
}
JSON
    cat >"$cross_sdk_dir/swift-sdk.json" <<'JSON'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
    cat >"$cross_sdk_dir/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }$toolset_linker
}
JSON
    echo "swift-arm64 $versions" >"$cross_bundle.versions"
    echo "$cross_recipe_sdk" >"$cross_bundle.stamp"
}

cross_prepare() {
    [ "$(id -u)" -eq 0 ] || { cross_say "needs root (debootstrap, chroot, mount namespaces)"; return 77; }
    if [ "$(cat "$cross_root.stamp" 2>/dev/null)" != "$cross_recipe_root" ]; then
        cross_make_root || return $?
    fi
    if [ "$(cat "$cross_bundle.stamp" 2>/dev/null)" != "$cross_recipe_sdk" ]; then
        cross_make_sdk || return $?
    fi
    cross_check_pin || return 69
}

# cross_swift_build SCRATCH ARGS...: swift build for arm64 in the root, with the SDK and the
# sysroot's pkg-config files (for SwiftPM's systemLibrary targets, CGPS and CALSA); the build
# folder SCRATCH stays in the root, so a later build is incremental.
cross_swift_build() {
    local scratch=$1; shift
    local sysroot=${cross_sysroot#"$cross_root"}
    cross_in_root "cd '$cross_repo' && PKG_CONFIG_SYSROOT_DIR=$sysroot \
        PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig \
        swift build --swift-sdks-path /srv/sdk --swift-sdk $cross_sdk_name --scratch-path $scratch $*" >&2
}

# cross_build OUT: pacer, release, Swift runtime linked in, for arm64; copied to OUT.
cross_build() {
    source "$cross_repo/scripts/lib/release.sh"
    cross_swift_build $cross_build_dir "${release_build_options[@]}" --product pacer \
        || { cross_say "the arm64 build failed"; return 1; }
    install -D -m 0755 "$cross_root$cross_build_dir/release/pacer" "$1"
}

# cross_test [ARGS...]: the test suite built for arm64 (debug, as `swift build --build-tests`
# builds it; Debian's swiftlang has no _Testing_Foundation library, so cross-import overlays
# are off) and run here under qemu-aarch64 with the sysroot, so the tests that start other
# programs (pacer itself, gpsd, xmllint) start them as on amd64: the arm64 pacer through
# binfmt_misc, the host's tools as they are. ARGS go to the test binary (e.g. --filter).
cross_test() {
    local build=$cross_build_dir-tests
    cross_swift_build $build --build-tests -Xswiftc -Xfrontend -Xswiftc -disable-cross-import-overlays \
        || { cross_say "the arm64 test build failed"; return 1; }
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || cross_say "qemu-aarch64 is not registered with binfmt_misc: tests that start pacer will fail"
    (cd "$cross_repo" && QEMU_LD_PREFIX="$cross_sysroot" \
        LD_LIBRARY_PATH="/usr/lib/swift/linux:$cross_sdk_dir/test-runtime/usr/lib/aarch64-linux-gnu" \
        qemu-aarch64-static -L "$cross_sysroot" "$cross_root$build/debug/PacerPackageTests.xctest" --testing-library swift-testing "$@")
}
