#!/usr/bin/env bash
# Proves the README's two commands on a clean system: a fresh Debian 12 root made with
# `debootstrap --variant=minbase`, holding only what the Swift toolchain's own installation
# asks for, then the project cloned into it and `scripts/demo.sh` and `scripts/test.sh` run
# there exactly as the README says. Whatever else they need, they must install themselves
# (scripts/setup.sh); a package they forget fails the check, and the check names it.
#
#   scripts/clean-root-check.sh [--keep] [--root DIR] [--mirror URL]
#
# What comes from this machine, read-only: the Swift toolchain (found from `swift` on the
# PATH), the local copies of Swift packages that this machine's git configuration points
# package URLs to (with that configuration), and ../shared (the development data CI has
# beside the clone). proc, sys and dev (with its pseudo-terminals: the serial tests open
# ptys) are mounted. The project is cloned from this checkout's HEAD: what is committed is
# what is checked. Needs root (debootstrap, chroot, mount) and Debian's archive.
#
# Exit status: 0 when both commands pass in the clean root; 1 when one fails (the missing
# Debian packages it can tell are printed); 69 (EX_UNAVAILABLE) when the root cannot be
# made; 77 (EX_NOPERM) when not root.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
keep=0
root=""
mirror="http://deb.debian.org/debian"
suite="bookworm"

while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=1 ;;
        --root) root="$2"; shift ;;
        --mirror) mirror="$2"; shift ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "clean-root-check: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
    shift
done

# The Swift toolchain's own prerequisites on Debian 12, as swift.org's installation lists
# them, and nothing else: the project's scripts must install the rest.
SWIFT_PREREQUISITES=(binutils-gold gcc git gnupg2 libc6-dev libcurl4-openssl-dev libedit2
    libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev
    libz3-dev pkg-config tzdata zlib1g-dev unzip)

name=clean-root-check
source "$repo/scripts/lib/debian-root.sh"

# Local package copies: every `url.<local folder>.insteadOf` in git's configuration.
package_dirs=()
while read -r key _; do
    dir=${key#url.}; dir=${dir%.insteadof}
    case "$dir" in /*) [ -d "$dir" ] && package_dirs+=("${dir%/}") ;; esac
done < <(git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null || true)
mapfile -t package_dirs < <(printf '%s\n' "${package_dirs[@]}" | sort -u | sed '/^$/d')

# Names the Debian packages the log shows to be missing: each header, program, shared
# library or Python module that was not found is looked up among this machine's
# installed packages (it has them all), which says which package the clean root lacked.
diagnose() {
    local what pkg
    {
        grep -oE "'[^']+\.h' file not found" "$log" | sed -E "s/'([^']+)'.*/\1/" | sed 's|^|*/include/|'
        grep -oE "[A-Za-z0-9_.+-]+: (command )?not found" "$log" | sed -E 's/:.*//' | sed 's|^|*bin/|'
        grep -oE "error while loading shared libraries: [^:]+" "$log" | sed -E 's/.*: //' | sed 's|^|*/|'
        grep -oE "No module named '[^']+'" "$log" | sed -E "s/No module named '([^'.]+).*/\1/" | sed 's|^|*/python3/dist-packages/|'
        grep -oE "could not find pkg-config|pkg-config: not found|Package [a-z0-9_.+-]+ was not found" "$log" \
            | sed -E 's/Package ([^ ]+) was not found/*\/pkgconfig\/\1.pc/; s/.*pkg-config.*/*bin\/pkg-config/'
    } | sort -u | while read -r what; do
        pkg=$(dpkg -S "$what" 2>/dev/null | head -1 | cut -d: -f1)
        if [ -n "$pkg" ]; then
            echo "  missing Debian package: $pkg (provides ${what##*/})"
        else
            echo "  not found in the clean root, and no installed package here provides it: ${what##*/}"
        fi
    done
}

fail() {
    set +e +o pipefail
    say "FAILED: $1"
    echo "---- last lines of the log ($log) ----" >&2
    tail -n 40 "$log" >&2
    echo "----" >&2
    local missing; missing=$(diagnose)
    if [ -n "$missing" ]; then
        echo "The clean root lacked what these provide (install them in scripts/setup.sh):" >&2
        echo "$missing" >&2
    fi
    printf '%s\n' "${figures[@]}" >&2
    exit 1
}

root_create

phase "toolchain prerequisites" root_apt "${SWIFT_PREREQUISITES[*]}" || fail "installing the Swift toolchain's prerequisites"

# The certificate authorities this machine trusts locally (an egress proxy's, on CI): setup.sh
# in the root reaches PyPI through them as it does here (Debian's pip takes the system's
# bundle). A machine without any changes nothing.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$root/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    phase "this machine's local CAs" in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null && update-ca-certificates >/dev/null" \
        || fail "trusting this machine's local certificate authorities in the root"
fi

root_bind "$toolchain" "$root$toolchain" ro
for dir in "${package_dirs[@]}"; do
    root_bind "$dir" "$root$dir" ro
    git config --file "$root/root/.gitconfig" --add "url.$dir/.insteadOf" "https://github.com/"
done
git config --file "$root/root/.gitconfig" user.name "clean root"
git config --file "$root/root/.gitconfig" user.email "clean-root@localhost"
# Package.resolved is written anew in the clone; the local copies' commit ids are not
# upstream's, so git must not carry one in (as on this machine).
printf 'Package.resolved\n' >"$root/root/.gitignore_global"
git config --file "$root/root/.gitconfig" core.excludesfile /root/.gitignore_global

git clone -q "$repo" "$root/root/pacer"
if [ -d "$repo/../shared" ]; then
    root_bind "$(cd "$repo/../shared" && pwd)" "$root/root/shared" ro
fi

phase "scripts/demo.sh (main job)" in_root "cd /root/pacer && scripts/demo.sh" \
    || fail "scripts/demo.sh in the clean root"
phase "scripts/test.sh (tests)" in_root "cd /root/pacer && scripts/test.sh" \
    || fail "scripts/test.sh in the clean root"

say "both README commands pass in a clean Debian $suite root"
grep -E "^test: all passed" "$log" >&2 || true
printf '%s\n' "${figures[@]}" >&2
