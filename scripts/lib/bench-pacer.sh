# The pacer a benchmark measures, for scripts/bench-*.sh (sourced from the repository's
# root): `bench_pacer NAME` sets `pacer` to $PACER when it is given (an executable, else
# exit 64 saying so), else to a release build made now, the project's packages installed.
bench_pacer() {  # NAME (for the message)
    if [ -n "${PACER:-}" ]; then
        pacer=$(readlink -f "$PACER")
        [ -x "$pacer" ] || { echo "$1: PACER=$PACER is not an executable" >&2; exit 64; }
    else
        source scripts/setup.sh
        swift build -c release --product pacer
        pacer="$PWD/.build/release/pacer"
    fi
}
