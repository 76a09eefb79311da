# A scratch Debian root for the checks that prove an installation on a clean system
# (scripts/clean-root-check.sh, scripts/install-check.sh, scripts/deb-install-check.sh,
# scripts/arm64-install-check.sh).
# Sourced, not run. The caller sets `name` (for messages) and may set `root`, `keep`,
# `mirror`, `suite`, `needs_toolchain`, `root_arch`, `root_cache`, `debootstrap_opts` before
# calling `root_create`; it then has `root`, `log`, `toolchain`, `figures` and the functions
# below.
#
#   root_create        debootstrap --variant=minbase into $root (a fresh temporary folder
#                      when unset), with main, updates and security, name resolution, and
#                      proc, sys and dev (ptys included) mounted, and apt not checking
#                      Release files' Valid-Until (a mirror's snapshot may be served past
#                      it); removed at exit unless keep=1. Exits 69 when the root cannot
#                      be made, 77 when not root.
#
# A root of another architecture (scripts/arm64-install-check.sh): root_arch=arm64 (a Debian
# architecture; unset or empty: this machine's). Its programs run under qemu-user-static
# through binfmt_misc: root_create mounts binfmt_misc when it is not, installs
# qemu-user-static and binfmt-support when missing and registers the interpreter with the F
# (fix-binary) flag, so that it works inside the chroot; debootstrap then does both stages
# at once. An interpreter registered without F (by someone else) is copied into the root.
# root_cache=DIR keeps the pristine debootstrapped root as DIR/root-SUITE-ARCH-minbase.tar.zst
# (made by the first run, reused by later ones while younger than 30 days), since an
# emulated second stage takes minutes. debootstrap_opts=(…) adds options to debootstrap.
#   root_bind SRC DST [ro]   a bind mount, undone at exit
#   in_root COMMAND    bash -c COMMAND in the root as root, with the toolchain (if any) on the PATH
#   phase NAME CMD...  runs CMD with its output in $log, timed into $figures
#   root_apt PKG...    apt-get install in the root
#   hw_check           pacer hw check --json in the root, on a network of its own: GPS and
#                      sound must be missing, exit status 69 (the package checks)
#   press_buttons      start, waypoint, very long stop, as input events into the FIFO
#                      $root/tmp/buttons (the device checks)
#   write_check_plan   the two-minute plan those checks run, at $root/tmp/check-plan.yaml
#   remove_and_purge   apt-get remove keeps the data, purge removes it (the package checks)

: "${keep:=0}" "${root:=}" "${mirror:=http://deb.debian.org/debian}" "${suite:=bookworm}"
: "${root_arch:=}" "${root_cache:=}"
[ -n "${debootstrap_opts+set}" ] || debootstrap_opts=()
figures=()
mounts=()

# The board's operating system before the maker's steps, as an emulated arm64 root: what
# Raspberry Pi OS Lite or a Debian arm64 image has (the kernel and its initrd, systemd, udev,
# the ext4 tools for the fsck after a power cut, ps). scripts/board-boot-check.sh boots it;
# scripts/arm64-install-check.sh installs the package into the same root, so a machine
# debootstraps one emulated root a suite, not two (each takes many minutes the first time).
board_base_opts=(--include=linux-image-arm64,systemd-sysv,udev,e2fsprogs,kmod,procps)
# Where the emulated roots and the cross toolchain are kept between runs
# (PACER_CROSS_CACHE: another folder, to try a machine's first run without losing the cache).
pacer_cross_cache=${PACER_CROSS_CACHE:-/var/cache/pacer-cross}

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

# The qemu architecture name of a Debian architecture, for binfmt_misc's entry.
qemu_arch() {
    case "$1" in
        arm64) echo aarch64 ;;
        armhf|armel) echo arm ;;
        riscv64) echo riscv64 ;;
        ppc64el) echo ppc64le ;;
        s390x) echo s390x ;;
        *) return 1 ;;
    esac
}

# For a root of another architecture: binfmt_misc mounted, qemu-user-static's interpreter
# registered and enabled. Sets binfmt_interpreter (its path) and binfmt_fixed (1 when
# registered with the F flag: the kernel opens it at registration, so it needs not be in
# the root).
binfmt_interpreter=""
binfmt_fixed=1
root_binfmt() {
    local qarch entry conf
    qarch=$(qemu_arch "$root_arch") || { say "no qemu emulation known for architecture $root_arch"; exit 69; }
    conf=/usr/lib/binfmt.d/qemu-$qarch.conf
    if [ ! -e "$conf" ] || ! command -v update-binfmts >/dev/null; then
        say "installing qemu-user-static and binfmt-support (to run $root_arch programs)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            qemu-user-static binfmt-support >/dev/null; } || { say "cannot install qemu-user-static"; exit 69; }
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
            || { say "cannot mount binfmt_misc on /proc/sys/fs/binfmt_misc"; exit 69; }
    fi
    entry=/proc/sys/fs/binfmt_misc/qemu-$qarch
    if [ ! -e "$entry" ]; then
        # binfmt-support registers Debian's entry (fix_binary yes: the F flag); straight
        # from qemu's binfmt.d line (flags OPF) when it will not.
        update-binfmts --enable "qemu-$qarch" >/dev/null 2>&1 || true
        [ -e "$entry" ] || grep -v '^#' "$conf" >/proc/sys/fs/binfmt_misc/register 2>/dev/null || true
        [ -e "$entry" ] || { say "cannot register qemu-$qarch with binfmt_misc"; exit 69; }
    fi
    [ "$(head -1 "$entry")" = enabled ] || echo 1 >"$entry"
    binfmt_interpreter=$(sed -n 's/^interpreter //p' "$entry")
    if sed -n 's/^flags: //p' "$entry" | grep -q F; then
        binfmt_fixed=1
    else
        binfmt_fixed=0
        [ -x "$binfmt_interpreter" ] || { say "binfmt_misc's qemu-$qarch names $binfmt_interpreter, which is not there"; exit 69; }
    fi
}

# Without the F flag, the kernel looks the interpreter up in the chroot: it goes in there.
root_put_interpreter() {
    [ "$binfmt_fixed" -eq 1 ] && return 0
    mkdir -p "$root$(dirname "$binfmt_interpreter")"
    cp "$(readlink -f "$binfmt_interpreter")" "$root$binfmt_interpreter"
}

# The cache's name for this root: suite, architecture, variant (and debootstrap_opts).
root_cache_key() {
    local key="$suite-${root_arch:-$(dpkg --print-architecture)}-minbase"
    [ ${#debootstrap_opts[@]} -eq 0 ] || key+="-$(printf '%s\n' "${debootstrap_opts[@]}" | md5sum | cut -c1-8)"
    echo "$key"
}

# The cached pristine root's tarball, if there is one younger than 30 days (an older one is
# deleted: the archive moves on).
root_cached() {
    local key f
    [ -n "$root_cache" ] && [ -d "$root_cache" ] || return 0
    key=$(root_cache_key)
    find "$root_cache" -maxdepth 1 -name "root-$key.tar.*" -mtime +30 -delete
    for f in "$root_cache/root-$key.tar.zst" "$root_cache/root-$key.tar.gz"; do
        if [ -s "$f" ]; then echo "$f"; return 0; fi
    done
}

# debootstrap into $root, or the pristine root from $root_cache; with root_cache set, a
# debootstrap made here is kept there for the next run.
root_debootstrap() {
    local arch host opts=(--variant=minbase) key cache="" tmp
    host=$(dpkg --print-architecture)
    arch=${root_arch:-$host}
    if [ "$arch" != "$host" ]; then opts+=(--arch="$arch"); fi
    opts+=("${debootstrap_opts[@]}")
    if [ -n "$root_cache" ]; then
        key=$(root_cache_key)
        cache=$(root_cached)
        if [ -n "$cache" ]; then
            echo "the pristine root from $cache"
            if [ "${cache##*.}" = zst ]; then zstd -q -dc "$cache"; else gzip -dc "$cache"; fi \
                | tar -x -p --numeric-owner --xattrs --xattrs-include='*' -C "$root" || return 1
            root_put_interpreter
            return 0
        fi
    fi
    if [ "$arch" != "$host" ] && [ "$binfmt_fixed" -eq 0 ]; then
        debootstrap --foreign "${opts[@]}" "$suite" "$root" "$mirror" || return 1
        root_put_interpreter
        chroot "$root" /debootstrap/debootstrap --second-stage || return 1
    else
        debootstrap "${opts[@]}" "$suite" "$root" "$mirror" || return 1
    fi
    [ -n "$root_cache" ] || return 0
    # Kept without the downloaded packages and the package lists (apt-get update comes next).
    rm -f "$root"/var/cache/apt/archives/*.deb
    find "$root/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
    mkdir -p "$root_cache"
    if command -v zstd >/dev/null; then cache="$root_cache/root-$key.tar.zst"; else cache="$root_cache/root-$key.tar.gz"; fi
    tmp=$(mktemp "$cache.XXXXXX")
    if tar -c --one-file-system --numeric-owner --xattrs --xattrs-include='*' \
            ${binfmt_interpreter:+--exclude=".$binfmt_interpreter"} -C "$root" . \
            | if [ "${cache##*.}" = zst ]; then zstd -q -T0 -3; else gzip -1; fi >"$tmp" \
        && chmod 0644 "$tmp" && mv "$tmp" "$cache"; then
        echo "kept the pristine root as $cache ($(du -h "$cache" | cut -f1))"
    else
        rm -f "$tmp"
        echo "could not keep the root in $root_cache (going on without)"
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

    local label="root (debootstrap minbase)"
    if [ -n "$root_arch" ] && [ "$root_arch" != "$(dpkg --print-architecture)" ]; then
        root_binfmt
        label="root (debootstrap minbase $root_arch)"
    fi
    [ -z "$(root_cached)" ] || label="root (from the cache)"
    phase "$label" root_debootstrap \
        || { say "debootstrap failed (log: $log)"; tail -n 20 "$log" >&2; exit 69; }
    # A fresh Debian as a user has it: main with updates and security, and name resolution.
    cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
SOURCES
    # A mirror's snapshot may be served past its Release files' Valid-Until.
    echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99pacer-check-valid-until"
    # A scratch root is thrown away after the check: dpkg need not flush every file it unpacks
    # to the disk (under emulation the package installs took minutes of CI's time).
    echo 'force-unsafe-io' >"$root/etc/dpkg/dpkg.cfg.d/99pacer-unsafe-io"
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

# --- checks shared by the install checks --------------------------------------------------

# The parts: none here. The JSON must say the GPS and sound are missing, and the exit status
# must be 69, EX_UNAVAILABLE (docs/reference.md: a part missing at `hw check`).
hw_check() {   # pacer hw check --json in the root, alone on its network: GPS and sound missing, 69
    local status=0 json
    json=$(unshare --net bash -c "ip link set lo up && chroot '$root' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 bash -c 'cd / && pacer hw check --json'") || status=$?
    echo "$json"
    echo "exit status $status"
    [ "$status" -eq 69 ] || { echo "expected exit status 69 (GPS and sound missing), got $status"; return 1; }
    python3 - "$json" <<'PY'
import json, sys
report = json.loads(sys.argv[1])
parts = {p["part"]: p for p in report["parts"]}
assert report["ok"] is False, "ok should be false"
for name in ("GPS", "sound"):
    assert parts[name]["status"] == "missing", f"{name}: {parts[name]['status']}"
    assert parts[name]["required"] is True, f"{name} should be required"
assert parts["GPS"]["configured"] == "gpsd://localhost:2947", parts["GPS"]["configured"]
print("GPS:", parts["GPS"]["problem"]); print("sound:", parts["sound"]["problem"])
PY
}

# press_buttons: the device's button, as the kernel's input events written to the FIFO
# $root/tmp/buttons once the device has opened it: a short press (start the workout
# offered), a short press (a waypoint), a very long press (stop).
press_buttons() {
    # struct input_event on aarch64 as on x86-64: two int64 (seconds, microseconds), u16 type,
    # u16 code, s32 value: 24 bytes, little-endian, the same "@qqHHi" as the host's.
    python3 - "$root/tmp/buttons" <<'PY'
import errno, os, struct, sys, time
KEY, SYN, ENTER = 1, 0, 28
assert struct.calcsize("@qqHHi") == 24
t0 = time.monotonic()
while True:   # the device opens its end once it runs (slower under emulation); give up after 60 s
    try:
        fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError as e:
        if e.errno != errno.ENXIO or time.monotonic() - t0 > 60:
            sys.exit(f"the device never opened {sys.argv[1]}: {e}")
        time.sleep(0.2)
print(f"the device opened the button FIFO after {time.monotonic() - t0:.1f} s")
os.set_blocking(fd, True)
t0 = time.monotonic()
def event(kind, code, value):
    t = time.time()
    os.write(fd, struct.pack("<qqHHi", int(t), int((t % 1) * 1e6), kind, code, value))
def press(at, hold):
    time.sleep(max(0, t0 + at - time.monotonic()))
    event(KEY, ENTER, 1); event(SYN, 0, 0)
    time.sleep(hold)
    event(KEY, ENTER, 0); event(SYN, 0, 0)
press(6, 0.15)     # short: start the workout offered
press(12, 0.15)    # short: a waypoint
press(18, 3.5)     # very long: stop
time.sleep(3)
PY
}

# remove_and_purge: `apt-get remove` keeps the settings and the activities; `apt-get purge`
# removes them and the unit's enablement, and keeps the user (the package checks).
remove_and_purge() {
    check "apt-get remove keeps settings and activities" \
        "DEBIAN_FRONTEND=noninteractive apt-get remove -y pacer && ! test -e /usr/bin/pacer && test -f /etc/pacer/pacer.yaml && test -d /var/lib/pacer"
    check "apt-get purge removes them, keeps the user" \
        "DEBIAN_FRONTEND=noninteractive apt-get purge -y pacer && ! test -e /etc/pacer && ! test -e /var/lib/pacer && \
         ! test -e /etc/systemd/system/multi-user.target.wants/pacer.service && getent passwd pacer"
}

# write_check_plan: a two-minute plan at $root/tmp/check-plan.yaml, for the device's runs.
write_check_plan() {
    printf '%s\n' "name: Install check" "workouts:" "  - name: Two minutes" "    phases:" \
        "      - {name: run, minutes: 2, speed_kmh: [8, 12]}" >"$root/tmp/check-plan.yaml"
    chmod 0644 "$root/tmp/check-plan.yaml"
}
