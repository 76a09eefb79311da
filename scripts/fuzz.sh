#!/usr/bin/env bash
# Fuzzes what the device reads from outside with libFuzzer and the address sanitizer:
#
#   scripts/fuzz.sh [--runs N | --seconds S] [TARGET…]
#
# TARGET is nmea (the NMEA decoder on arbitrary bytes), yaml (every data file's loader on
# arbitrary text), gpx (the GPX reader on arbitrary bytes), tcx (the TCX reader on arbitrary
# bytes, each run it reads written as a replay writes it), fit (the FIT reader on arbitrary
# bytes, and on them with the CRCs made right), workout (the FIT workout reader the same way,
# each workout read checked to make a plan file that loads back equal), control (the control
# socket's command parser), http (the companion page's request handling: a raw request
# through CompanionCore) or heartrate (a heart-rate strap's 0x2A37 notifications, each read
# checked to read back the same from the bytes it writes); all nine when none is named.
# Each runs for N executions (--runs) or S seconds (--seconds; default 60), one after the
# other, then a table gives each target's executions, time, executions per second and
# crashes. Exits 1 when any target crashed.
#
# The targets (Fuzz/) are built with SwiftPM into .build/fuzz, release with
# `-sanitize=fuzzer,address`; PACER_FUZZ=1 is what adds them to the package, so `swift build`
# and `swift test` never build them. (swiftc keeps only the last `-sanitize=` it is given:
# SwiftPM's `--sanitize=fuzzer --sanitize=address` would build without coverage, so the pair
# goes in one -Xswiftc flag; `--sanitize=fuzzer` stays for SwiftPM to link libFuzzer's main.)
#
# Seed corpora are made from the project's own data on each run, into .build/fuzz/seeds: the
# recordings (Hardware/recordings, Scenarios/*/*.nmea) cut into pieces of 40 lines, every
# YAML file under Hardware/ and Scenarios/, the GPX routes of Scenarios/routes with a track
# exported by a scenario run (when .build/debug/pacer is built), the TCX files three scenario
# runs export to, the FIT files two scenario
# runs and a plan's workout export to, one line of each control command, and a few heart-rate
# measurements' bytes. What the fuzzer learns is kept in .build/fuzz/corpus/TARGET and used again next
# time. A crashing input is kept in Fuzz/findings/TARGET/ (not committed): each one found so
# far is a regression test in the normal suite.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=""
seconds=60
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="${2:-}"; seconds=""; shift $(($# > 1 ? 2 : 1)) ;;
        --seconds) seconds="${2:-}"; runs=""; shift $(($# > 1 ? 2 : 1)) ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        nmea|yaml|gpx|tcx|fit|workout|control|http|heartrate) targets+=("$1"); shift ;;
        *) echo "fuzz.sh: unknown argument '$1' (targets: nmea yaml gpx tcx fit workout control http heartrate; --runs N, --seconds S)" >&2; exit 64 ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(nmea yaml gpx tcx fit workout control http heartrate)
if [[ -z "$runs" && -z "$seconds" ]]; then
    echo "fuzz.sh: --runs and --seconds need a number" >&2; exit 64
fi
if [[ -n "$runs" && ! "$runs" =~ ^[1-9][0-9]{0,11}$ ]]; then
    echo "fuzz.sh: --runs must be a whole number from 1 to 999999999999, got '$runs'" >&2; exit 64
fi
if [[ -n "$seconds" && ! "$seconds" =~ ^[1-9][0-9]{0,6}$ ]]; then
    echo "fuzz.sh: --seconds must be a whole number from 1 to 9999999, got '$seconds'" >&2; exit 64
fi

product() {
    case "$1" in
        nmea) echo FuzzNMEADecoder ;;
        yaml) echo FuzzDataFiles ;;
        gpx) echo FuzzGPXReader ;;
        tcx) echo FuzzTCXReader ;;
        fit) echo FuzzFITReader ;;
        workout) echo FuzzFITWorkoutReader ;;
        control) echo FuzzControlProtocol ;;
        http) echo FuzzCompanionHTTP ;;
        heartrate) echo FuzzHeartRateMeasurement ;;
    esac
}

# The longest input each target is given: a few sentences' worth more than the seeds.
max_len() {
    case "$1" in
        nmea) echo 8192 ;;
        yaml) echo 8192 ;;
        gpx) echo 16384 ;;
        tcx) echo 16384 ;;
        fit) echo 8192 ;;
        workout) echo 8192 ;;
        control) echo 1024 ;;
        http) echo 16384 ;;
        heartrate) echo 64 ;;
    esac
}

build=.build/fuzz
for target in "${targets[@]}"; do
    echo "== building $(product "$target")" >&2
    # The build's own status decides (a binary left by an earlier build must not be fuzzed
    # in place of a failed one).
    mkdir -p "$build"
    status=0
    PACER_FUZZ=1 swift build -c release --scratch-path "$build" \
        --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address \
        --product "$(product "$target")" >"$build/build-$target.log" 2>&1 || status=$?
    grep -vE "^\[|Cannot export local symbol" "$build/build-$target.log" >&2 || true
    if [[ $status -ne 0 || ! -x "$build/release/$(product "$target")" ]]; then
        echo "fuzz.sh: the build of $(product "$target") failed" >&2
        exit 1
    fi
done

seeds() {
    local target="$1" dir="$build/seeds/$1"
    rm -rf "$dir"
    mkdir -p "$dir"
    case "$target" in
        nmea)
            # The first byte of an input picks the chunk size and checksum policy
            # (Fuzz/NMEADecoder): 0x7F feeds 255-byte chunks, checksums as a receiver sends.
            local n=0 file piece
            for file in Hardware/recordings/*.nmea Scenarios/*/*.nmea; do
                [[ -f "$file" ]] || continue
                split -l 40 -d -a 4 "$file" "$dir/piece-"
                for piece in "$dir"/piece-*; do
                    { printf '\x7f'; cat "$piece"; } > "$dir/$n"
                    rm "$piece"
                    n=$((n + 1))
                done
            done ;;
        yaml)
            # The first byte of an input picks the loader (Fuzz/DataFiles): 0 plan, 1 profile,
            # 2 cue book, 3 settings, 4 scenario, 5 synthesis recipe, 6 to 9 the parts, 10 a phrase
            # book, 11 a speaker part, 12 the data folder's device.yaml (the companion page's
            # settings, over the settings), 13 a recorded heart-rate stream (a sim: strap's CSV).
            local n=0 file kind
            while IFS= read -r file; do
                case "$file" in
                    */plans/*|*/plan.yaml) kind=0 ;;
                    Hardware/profiles/*) kind=1 ;;
                    Hardware/cues.yaml) kind=2 ;;
                    Hardware/config/*) kind=3 ;;
                    */scenario.yaml) kind=4 ;;
                    *.synth.yaml) kind=5 ;;
                    Hardware/parts/boards/*) kind=6 ;;
                    Hardware/parts/gps/*) kind=7 ;;
                    Hardware/parts/buzzers/*) kind=8 ;;
                    Hardware/parts/batteries/*) kind=9 ;;
                    Hardware/speech/*) kind=a ;;
                    Hardware/parts/speakers/*) kind=b ;;
                    *) continue ;;
                esac
                { printf "\\x0$kind"; cat "$file"; } > "$dir/$n-$(basename "$file")"
                n=$((n + 1))
            done < <(find Hardware Scenarios -name '*.yaml' | sort)
            printf '\x0cprofile: low\nspeech:\n  enabled: yes\n  language: de\n  split_m: 500\n  alerts: beep\n' \
                > "$dir/$n-device.yaml"
            # A plan whose YAML aliases repeat a workout, and one whose aliases nest: the
            # fuzzer learns anchors and aliases from them (a small bomb stays under the
            # loader's expanded-values limit; the fuzzer grows it).
            printf '\x00name: aliases\nworkouts:\n  - &w {name: w, phases: [&p {name: p, minutes: 1, speed_kmh: [8, 10]}, *p]}\n  - *w\n  - *w\n' \
                > "$dir/$((n + 1))-aliases.yaml"
            printf '\x00name: nested\nx: &a [1, 1, 1, 1]\ny: &b [*a, *a, *a, *a]\nz: &c [*b, *b, *b, *b]\nworkouts: [{name: w, phases: [{name: p, minutes: 1, speed_kmh: [8, 10]}]}]\n' \
                > "$dir/$((n + 2))-nested-aliases.yaml"
            printf '\x0d# seconds,bpm[,RR ms]\n0,92\n1,93,645 650\n2.5,0\n61,lost\n75,battery,80\n76,140\n' \
                > "$dir/$((n + 3))-strap.csv" ;;
        gpx)
            cp Scenarios/routes/*.gpx "$dir/"
            if [[ -x .build/debug/pacer ]]; then
                local out
                out=$(mktemp -d)
                if .build/debug/pacer scenario run Scenarios/pause-resume --out "$out" > /dev/null 2>&1; then
                    find "$out" -name '*.gpx' -exec cp {} "$dir/" \;
                fi
                rm -rf "$out"
            fi ;;
        tcx)
            # TCX files exported from scenario runs (laps, a pause, heart rates), when
            # .build/debug/pacer is built.
            if [[ -x .build/debug/pacer ]]; then
                local out name
                out=$(mktemp -d)
                for name in intervals pause-resume hr-zone-intervals; do
                    if .build/debug/pacer scenario run "Scenarios/$name" --quiet --out "$out/out" \
                        --data-dir "$out/$name" > /dev/null 2>&1; then
                        .build/debug/pacer activities export 1 --tcx "$dir/$name.tcx" --data-dir "$out/$name" > /dev/null 2>&1 || true
                    fi
                done
                rm -rf "$out"
            fi ;;
        fit)
            # FIT files exported from scenario runs (laps, a pause, a plan's workout), when
            # .build/debug/pacer is built.
            if [[ -x .build/debug/pacer ]]; then
                local out name
                out=$(mktemp -d)
                for name in intervals pause-resume; do
                    if .build/debug/pacer scenario run "Scenarios/$name" --quiet --out "$out/out" \
                        --data-dir "$out/$name" > /dev/null 2>&1; then
                        .build/debug/pacer activities export 1 --fit "$dir/$name.fit" --data-dir "$out/$name" > /dev/null 2>&1 || true
                    fi
                done
                .build/debug/pacer plan export Scenarios/plans/intervals.yaml --workout 1 \
                    --fit "$dir/workout.fit" > /dev/null 2>&1 || true
                rm -rf "$out"
            fi ;;
        workout)
            # Every bundled plan's workouts exported as FIT workouts (repeats, distances, lap
            # presses, paces), when .build/debug/pacer is built; and, with fit-tool, workouts
            # of steps Pacer refuses (power, cadence, heart rate, a speed zone, a nested repeat).
            if [[ -x .build/debug/pacer ]]; then
                local plan n
                for plan in Hardware/plans/*.yaml Scenarios/plans/*.yaml; do
                    for n in 1 2 3; do
                        .build/debug/pacer plan export "$plan" --workout "$n" \
                            --fit "$dir/$(dirname "$plan" | tr / -)-$(basename "$plan" .yaml)-$n.fit" > /dev/null 2>&1 || break
                    done
                done
            fi
            if /usr/bin/python3 -c "import fit_tool" 2>/dev/null; then
                local i=0 step
                for step in \
                    '{"duration": "time", "seconds": 60, "target": "power", "low_raw": 1250, "high_raw": 1300}' \
                    '{"duration": "time", "seconds": 60, "target": "cadence", "low_raw": 170, "high_raw": 180}' \
                    '{"duration": "hr_less_than", "value": 230, "target": "open"}' \
                    '{"duration": "distance", "metres": 400, "target": "speed", "zone": 3}' \
                    '{"name": "n", "duration": "open", "notes": "x"}, {"duration": "repeat_until_steps_cmplt", "from": 1, "count": 2}, {"duration": "repeat_until_steps_cmplt", "from": 0, "count": 2}'; do
                    printf '{"name": "seed", "steps": [{"duration": "time", "seconds": 60, "target": "speed", "low": 3, "high": 3.5}, %s]}' \
                        "$step" > "$dir/spec-$i.json"
                    /usr/bin/python3 scripts/fit-workout.py "$dir/spec-$i.json" "$dir/refused-$i.fit" > /dev/null 2>&1 || true
                    rm -f "$dir/spec-$i.json"
                    i=$((i + 1))
                done
            fi ;;
        control)
            local line n=0
            for line in 'waypoint Water stop' 'pause' 'resume' 'stop' 'status' 'start' 'watch' \
                        'WAYPOINT  Bridge  ' $'status\r'; do
                printf '%s\n' "$line" > "$dir/$n"
                n=$((n + 1))
            done ;;
        http)
            # Raw requests: `@S` stands for an open session's id, `@C` for its CSRF token
            # (Fuzz/CompanionHTTP).
            printf 'GET / HTTP/1.1\r\nHost: b\r\n\r\n' > "$dir/anonymous"
            printf 'GET /health HTTP/1.1\r\nHost: b\r\n\r\n' > "$dir/health"
            printf 'GET /static/../companion.js HTTP/1.1\r\nHost: b\r\n\r\n' > "$dir/static"
            printf 'POST /login HTTP/1.1\r\nHost: b\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\npassword=fuzz-password' > "$dir/login"
            printf 'GET /?a=1&b=%%41 HTTP/1.1\r\nHost: b\r\nCookie: x=1; pacer_session=@S\r\n\r\n' > "$dir/page"
            printf 'GET /api/state HTTP/1.1\r\nCookie: pacer_session=@S\r\n\r\n' > "$dir/api"
            printf 'POST /command/waypoint HTTP/1.1\r\nHost: b\r\nOrigin: http://b\r\nCookie: pacer_session=@S\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\ncsrf=@C&label=Gate+%%C3%%A9' > "$dir/command"
            printf 'POST /api/command/pause HTTP/1.1\r\nX-CSRF-Token: @C\r\nCookie: pacer_session=@S\r\n\r\n' > "$dir/api-command"
            printf 'POST /command/stop HTTP/1.1\r\nCookie: pacer_session=@S\r\nContent-Type: multipart/form-data; boundary=XX\r\n\r\n--XX\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n@C\r\n--XX\r\nContent-Disposition: form-data; name="file"; filename="a.gpx"\r\nContent-Type: application/gpx+xml\r\n\r\n<gpx/>\r\n--XX--\r\n' > "$dir/multipart"
            printf 'POST /logout HTTP/1.1\r\nCookie: pacer_session=@S\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\ncsrf=@C' > "$dir/logout"
            ;;
        heartrate)
            # Measurements as straps send them: 8-bit with contact, with RR intervals (one and
            # three), 16-bit with energy, every field at once, and the flag for RR with none.
            printf '\x06\x48' > "$dir/8-bit-contact"
            printf '\x16\x8e\xb0\x01' > "$dir/rr-one"
            printf '\x16\x8f\xae\x01\xac\x01\xb2\x01' > "$dir/rr-three"
            printf '\x09\x2c\x01\x00\x02' > "$dir/16-bit-energy"
            printf '\x1f\x2c\x01\xe8\x03\x00\x04\x00\x02' > "$dir/every-field"
            printf '\x10\x3c' > "$dir/rr-flag-none"
            ;;
    esac
}

summary=()
failed=0
for target in "${targets[@]}"; do
    seeds "$target"
    corpus="$build/corpus/$target"
    findings="Fuzz/findings/$target"
    mkdir -p "$corpus" "$findings"
    limit=(-max_total_time="$seconds")
    [[ -n "$runs" ]] && limit=(-runs="$runs")
    log="$build/$target.log"
    echo "== fuzzing $target (${runs:+$runs runs}${seconds:+$seconds s}); log: $log" >&2
    status=0
    # Swift's own crash reporter would read the crashed process's memory under the
    # sanitizer and bury the finding: libFuzzer and ASan report it.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" \
        "$build/release/$(product "$target")" "${limit[@]}" -max_len="$(max_len "$target")" -timeout=20 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$build/seeds/$target" \
        > "$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    # A crash ends the run without its `Done` line: the time is then the executions over
    # their rate.
    if [[ -z "$time" && -n "$execs" && -n "$rate" && "$rate" -gt 0 ]]; then time=$((execs / rate)); fi
    crashes=0
    if [[ $status -ne 0 ]]; then
        # libFuzzer stops at the first crash; the log says what and where.
        failed=1
        crashes=1
        grep -E "Fatal error|ERROR:|SUMMARY|Test unit written" "$log" | head -5 >&2
    fi
    summary+=("$(printf '%-8s %14s %8s %10s %8s' "$target" "${execs:-?}" "${time:-?}" "${rate:-?}" "$crashes")")
done

echo
printf '%-8s %14s %8s %10s %8s\n' target executions seconds "exec/s" crashes
for line in "${summary[@]}"; do echo "$line"; done
exit $failed
