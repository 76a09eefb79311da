#!/usr/bin/env bash
# Installs the Debian packages Pacer builds and tests against, when they are missing.
# Idempotent: a machine that has them is left alone. Sourced by demo.sh and test.sh.
#
#   libgps-dev       gpsd's client library (the gpsd GPS source)
#   libasound2-dev   ALSA (the buzzer)
#   libespeak-ng-dev espeak-ng, the speech engine of `espeak:` speakers (its library and header)
#   espeak-ng-data   espeak-ng's voices and phoneme data (the library finds nothing without it)
#   pocketsphinx, pocketsphinx-en-us  an offline recogniser: the speech tests transcribe what
#                    espeak-ng said and check the words and numbers
#   libsqlite3-dev   SQLite's header, for GRDB's system-library module (storage)
#   libcrypt-dev     libxcrypt's header (crypt_r, yescrypt): the companion page's password hash
#   libxml2-dev      libxml2's headers: the GPX reader's SAX2 parser (CLibXML2, opened at first use)
#   libsystemd-dev   sd-bus's header: the BlueZ heart-rate strap's D-Bus client (CSDBus, opened at first use)
#   dbus, python3-dbus, python3-gi  a real dbus-daemon, and what python-dbusmock (below) needs: the
#                    BlueZ tests serve BlueZ's objects on a private bus
#   gpsd             a real gpsd, started by the gpsd source's tests
#   gpsd-clients     gpsdecode, the peer of the decode benchmark
#   python3          the gpsd conformance check in CI
#   libxml2-utils    xmllint, which checks exported GPX against the GPX 1.1 schema in tests
#   python3-gpxpy    an independent GPX reader, for the end-to-end distance check
#   sqlite3          a second SQLite client, killed mid-transaction by the recovery test
#   gpsbabel         an independent NMEA reader: synthesized recordings must read back the same
#   chromium         a real browser: the activity and route reports are opened headless, and any
#                    console error, exception or failed request fails the test (scripts/check-page.py)
#   fonts-dejavu-core  the font the reports ask for and whose widths the charts measure labels with
#   python3-pip      pip, for the Python packages Debian does not package (below)
#   wrk              an HTTP load generator: CI's load test of the companion page
#                    (scripts/companion-load.py, 50 clients for 60 s while a workout runs)
#
# And from PyPI, into the system's python3 (/usr/bin/python3, which the tests run):
#   garmin-fit-sdk   Garmin's FIT SDK for Python: an independent reader of the FIT files Pacer
#                    exports (activities and workouts), checked field by field in the tests
#   fit-tool         an independent FIT encoder: the workout files `pacer plan import` is tested
#                    on (scripts/fit-workout.py writes them)
#   python-dbusmock  BlueZ's D-Bus objects (adapters, a chest strap) for the heart-rate source's tests
set -euo pipefail

PACER_APT_PACKAGES=(libgps-dev libasound2-dev libespeak-ng-dev espeak-ng-data pocketsphinx pocketsphinx-en-us libsqlite3-dev libcrypt-dev libxml2-dev libsystemd-dev dbus python3-dbus python3-gi gpsd gpsd-clients python3 libxml2-utils python3-gpxpy sqlite3 gpsbabel
    chromium fonts-dejavu-core python3-pip wrk)

# PyPI package and the module it installs.
PACER_PIP_PACKAGES=("garmin-fit-sdk:garmin_fit_sdk" "fit-tool:fit_tool" "python-dbusmock:dbusmock")

pacer_missing_packages() {
    local p missing=()
    for p in "${PACER_APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    echo "${missing[@]:-}"
}

pacer_setup() {
    local missing
    missing=$(pacer_missing_packages)
    if [ -z "$missing" ]; then
        return 0
    fi
    echo "pacer: installing missing Debian packages: $missing" >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "pacer: need root (or sudo) to install: $missing" >&2; exit 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
    echo "pacer: installed $missing" >&2
}

# Installs the PyPI packages whose module /usr/bin/python3 cannot import; quiet, and nothing
# at all when every one is there. Debian marks its Python as externally managed, hence
# --break-system-packages (pip puts them in /usr/local, beside Debian's, not over them).
pacer_pip_setup() {
    local entry missing=()
    for entry in "${PACER_PIP_PACKAGES[@]}"; do
        /usr/bin/python3 -c "import ${entry#*:}" 2>/dev/null || missing+=("${entry%%:*}")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "pacer: installing missing Python packages: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        --break-system-packages "${missing[@]}"
    echo "pacer: installed ${missing[*]}" >&2
}

if ! command -v swift >/dev/null; then
    echo "pacer: no Swift toolchain on PATH (Swift 6.0 or later is needed: https://swift.org/install)" >&2
    exit 1
fi

pacer_setup
pacer_pip_setup
