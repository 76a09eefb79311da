# A scratch Debian root for the checks that prove an installation on a clean system
# (scripts/clean-root-check.sh, scripts/install-check.sh, scripts/deb-install-check.sh).
# Sourced, not run. The caller sets `name` (for messages) and may set `root`, `keep`,
# `mirror`, `suite`, `needs_toolchain` before calling `root_create`; it then has `root`,
# `log`, `toolchain`, `figures` and the functions below.
#
#   root_create        debootstrap --variant=minbase into $root (a fresh temporary folder
#                      when unset), with main, updates and security, name resolution, and
#                      proc, sys and dev (ptys included) mounted; removed at exit unless
#                      keep=1. Exits 69 when the root cannot be made, 77 when not root.
#   root_bind SRC DST [ro]   a bind mount, undone at exit
#   in_root COMMAND    bash -c COMMAND in the root as root, with the toolchain (if any) on the PATH
#   phase NAME CMD...  runs CMD with its output in $log, timed into $figures
#   root_apt PKG...    apt-get install in the root

: "${keep:=0}" "${root:=}" "${mirror:=http://deb.debian.org/debian}" "${suite:=bookworm}"
figures=()
mounts=()

say() { echo "$name: $*" >&2; }

[ "$(id -u)" -eq 0 ] || { say "needs root (debootstrap, chroot and mount)"; exit 77; }

# The toolchain's folder, for the checks that bind-mount it; a caller that needs no toolchain
# in the root (scripts/deb-install-check.sh) sets needs_toolchain=0 and gets toolchain="".
: "${needs_toolchain:=1}"
toolchain=""
if [ "$needs_toolchain" -eq 1 ]; then
    swift_bin=$(command -v swift) || { say "no swift on the PATH: the toolchain is bind-mounted from there"; exit 69; }
    swift_bin=$(readlink -f "$swift_bin")
    toolchain=$(dirname "$(dirname "$(dirname "$swift_bin")")")   # …/usr/bin/swift -> …
    [ -x "$toolchain/usr/bin/swift" ] || { say "cannot tell the toolchain's folder from $swift_bin"; exit 69; }
fi

root_cleanup() {
    local i
    for (( i=${#mounts[@]}-1; i>=0; i-- )); do
        umount -R -l "${mounts[$i]}" 2>/dev/null || true
    done
    if [ "$keep" -eq 1 ]; then
        say "kept the root at $root (log: $log)"
        return
    fi
    # Never delete through a mount: refuse while anything is still mounted below the root.
    if grep -q " $root/" /proc/mounts; then
        say "something is still mounted below $root; not deleting it"
        return
    fi
    rm -rf --one-file-system "$root"
}

root_bind() {   # root_bind SOURCE TARGET [ro]
    mkdir -p "$2"
    mount --bind "$1" "$2"
    mounts+=("$2")
    if [ "${3:-}" = ro ]; then
        mount -o remount,bind,ro "$2"
    fi
}

in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH="${toolchain:+$toolchain/usr/bin:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        bash -c "$1"
}

root_apt() {
    in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $*"
}

now() { date +%s; }
phase() {   # phase NAME COMMAND...: runs the command, logs its output, times it
    local label=$1; shift
    local t0; t0=$(now)
    say "$label…"
    if "$@" >>"$log" 2>&1; then
        figures+=("$(printf '%-36s %5d s' "$label" $(( $(now) - t0 )))")
        return 0
    fi
    figures+=("$(printf '%-36s %5d s  FAILED' "$label" $(( $(now) - t0 )))")
    return 1
}

fail() {   # fail WHAT: says what failed, the log's last lines and the phases' times; exits 1
    say "FAILED: $1"
    echo "---- last lines of the log ($log) ----" >&2
    tail -n 40 "$log" >&2
    printf '%s\n' "${figures[@]}" >&2
    exit 1
}

check() {   # check NAME COMMAND: runs COMMAND (bash) in the root from /, as root; fails the check if it fails
    phase "$1" in_root "cd / && $2" || fail "$1"
}

verify_unit() {   # verify_unit PATH: the host's systemd-analyze verify of the installed unit PATH
    # The host's systemd checks the unit against the root: its ExecStart binary, user,
    # directives. Warnings about units the root does not have (gpsd, sound.target) are
    # expected in a root without gpsd; anything else fails.
    local out
    out=$(systemd-analyze verify --root="$root" "$1" 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    if echo "$out" | grep -v -E "gpsd\.(service|socket)|sound\.target" | grep -q .; then
        echo "unexpected output from systemd-analyze verify"
        return 1
    fi
}

root_create() {
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    fi
    if [ -z "$root" ]; then
        root=$(mktemp -d "${TMPDIR:-/var/tmp}/pacer-$name.XXXXXX")
    fi
    mkdir -p "$root"
    # A Debian's / is 0755; mktemp's 0700 would lock every user but root out of the whole root.
    chmod 0755 "$root"
    root=$(cd "$root" && pwd)
    log="$root.log"
    : >"$log"
    trap root_cleanup EXIT

    phase "root (debootstrap minbase)" debootstrap --variant=minbase "$suite" "$root" "$mirror" \
        || { say "debootstrap failed (log: $log)"; tail -n 20 "$log" >&2; exit 69; }
    # A fresh Debian as a user has it: main with updates and security, and name resolution.
    cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
SOURCES
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    # debootstrap writes no /etc/hosts; Debian's installer does, and without it `localhost`
    # does not resolve (gpsd://localhost:2947 would be "unknown host", not "not reachable").
    if [ ! -e "$root/etc/hosts" ]; then
        printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
    fi
    mkdir -p "$root/proc" "$root/sys" "$root/dev"
    mount -t proc proc "$root/proc"; mounts+=("$root/proc")
    mount -t sysfs sysfs "$root/sys"; mounts+=("$root/sys")
    mount --rbind /dev "$root/dev"; mount --make-rslave "$root/dev"; mounts+=("$root/dev")
}
