import Coaching
import Foundation
import HAL
import NMEA
import PacerCore
import Storage

/// `track.gpx` and `summary.json`, from what the device stored.
enum ScenarioResults {
    /// Cues added after the summary's form was set: listed only when they sounded.
    static let laterCues: Set<Cue> = [.lap, .toGo, .countdown, .hrHigh, .hrLow, .hrInZone, .strapLost, .strapBack]
    static func writeGPX(_ details: [ActivityDetail], scenario: Scenario, to path: String) throws {
        var bytes: [UInt8] = []
        try GPXExchange.writeGPX(details, name: scenario.name, time: details.first?.summary.startedAt) {
            bytes.append(contentsOf: $0)
        }
        try ScenarioOutputFile.write(bytes, to: path)
    }

    static func writeSummary(
        _ outcome: ScenarioOutcome, plan: TrainingPlan, runs: [ScenarioRunner.RunRecord], to path: String
    ) throws {
        let scenario = outcome.scenario
        var cueTotals: [String: Int] = [:]
        for detail in outcome.activities {
            for c in detail.cues { cueTotals[c.cue, default: 0] += 1 }
        }
        var head: [(String, JSONValue)] = [("scenario", .text(scenario.name)), ("plan", .text(plan.name))]
        // In device mode the device picks each workout (its activities name them).
        head.append(scenario.deviceMode ? ("mode", .text("device")) : ("workout", .text(plan.workouts[scenario.workoutIndex].name)))
        var deviceCues: [(String, JSONValue)] = []
        if scenario.deviceMode {
            // The device's own cues (power-on, searching, ready, …): heard, but no activity's.
            var counts: [String: Int] = [:]
            for e in outcome.events where e.kind == "cue" && e.activity == nil { counts[e.name ?? "", default: 0] += 1 }
            deviceCues = Cue.allCases.compactMap { c in counts[c.rawValue].map { (c.rawValue, .int($0)) } }
        }
        let summary: JSONValue = .object(JSONObject(head + [
            ("profile", .text(scenario.profile)),
            ("duration_s", .number(outcome.duration.inSeconds, places: 3)),
            ("runs", .array(runs.map { run in
                var fields: [(String, JSONValue)] = [
                    ("from_s", .number(run.start.inSeconds, places: 3)),
                    ("to_s", .number(run.end.inSeconds, places: 3)),
                    ("ended", .text(run.cut ? "power-cut" : "finished")),
                    ("battery_percent", .number(run.batteryPercent, places: 1)),
                    ("gps_cycles_delivered", .int(run.delivered)),
                ]
                if let e = run.energy { fields.append(("energy", energy(e))) }
                if let n = run.nmea {
                    fields.append(("nmea", .object([
                        ("sentences", .int(n.sentences)), ("rejected", .int(n.rejected)),
                        ("skipped", .int(n.skipped)), ("fixes", .int(n.fixes)),
                    ])))
                }
                return .object(JSONObject(fields))
            })),
            ("activities", .array(outcome.activities.map(activity))),
            // Every cue with its count; a cue added after the summary's form was set (`lap`)
            // only when it sounded, so that summaries of runs without it compare as before.
            ("cues", .object(JSONObject(Cue.allCases.compactMap { c in
                let n = cueTotals[c.rawValue] ?? 0
                return n == 0 && ScenarioResults.laterCues.contains(c) ? nil : (c.rawValue, .int(n))
            }))),
        ] + (scenario.deviceMode ? [("device_cues", .object(JSONObject(deviceCues)))] : [])))
        var out: [UInt8] = []
        summary.writeIndented(to: &out)
        out.append(0x0A)
        try ScenarioOutputFile.write(out, to: path)
    }

    /// The energy account of a device run: what each part cost at the battery, and why.
    static func energy(_ e: EnergyLedger) -> JSONValue {
        let total = (e.settled - e.start).inSeconds
        var fields: [(String, JSONValue)] = [
            ("hardware", .text(e.model.name)),
            ("used_mah", .number(e.totalMilliampHours, places: 3)),
            ("board_mah", .number(e.boardMilliampHours, places: 3)),
            ("gps_mah", .number(e.gpsMilliampHours, places: 3)),
            ("buzzer_mah", .number(e.buzzerMilliampHours, places: 3)),
            ("average_ma", .number(e.averageMilliamps, places: 2)),
            ("wakeups", .int(e.wakeups)),
            ("buzzer_s", .number(e.buzzerTime.inSeconds, places: 3)),
            ("suspended_s", .number(e.suspendedTime.inSeconds, places: 3)),
        ]
        // Words said, or a build with a speaker: its part (null: the build has none, the
        // words cost nothing), its charge and the seconds said.
        if e.speakingTime > .zero || e.model.speaker != nil {
            fields.append(("speaker", e.model.speaker.map { .text($0.name) } ?? .null))
            fields.append(("speaker_mah", .number(e.speakerMilliampHours, places: 3)))
            fields.append(("speaking_s", .number(e.speakingTime.inSeconds, places: 3)))
        }
        // The Wi-Fi radio switched off (a scenario with `radio: sim`): how long, and what the
        // board saved (already out of board_mah).
        if e.radioOffTime > .zero {
            fields.append(("radio_off_s", .number(e.radioOffTime.inSeconds, places: 3)))
            fields.append(("radio_saved_mah", .number(e.radioSavedMilliampHours, places: 3)))
        }
        // The Bluetooth radio for a heart-rate strap (a scenario with `heart_rate:`): its charge
        // on top of the board's idle (0 on a build without Bluetooth figures) and its time
        // scanning and connected. Nothing for a device without a strap, whose summaries
        // compare as before.
        if !e.bluetoothTime.isEmpty {
            fields.append(("bluetooth_mah", .number(e.bluetoothMilliampHours, places: 3)))
            fields.append(("bluetooth_s", .object(JSONObject([BluetoothRadioState.scanning, .connected].map { state in
                (state.rawValue, JSONValue.number((e.bluetoothTime[state] ?? .zero).inSeconds, places: 3))
            }))))
        }
        fields.append(("gps_s", .object(JSONObject(GPSPowerState.allCases.compactMap { state in
            e.gpsTime[state].map { (state.rawValue, JSONValue.number($0.inSeconds, places: 3)) }
        }))))
        fields.append(("span_s", .number(total, places: 3)))
        return .object(JSONObject(fields))
    }

    static func activity(_ d: ActivityDetail) -> JSONValue {
        let s = d.summary
        var cues: [String: Int] = [:]
        for c in d.cues { cues[c.cue, default: 0] += 1 }
        var fields: [(String, JSONValue)] = []
        fields.append(("id", .int(Int(s.id))))
        fields.append(("name", .text(s.name)))
        fields.append(("state", .text(s.state.rawValue)))
        fields.append(("started", s.startedAt.map { .text($0.iso8601) } ?? .null))
        fields.append(("ended", s.endedAt.map { .text($0.iso8601) } ?? .null))
        fields.append(("active_s", s.activeTime.map { .number($0.inSeconds, places: 3) } ?? .null))
        fields.append(("elapsed_s", .number(s.elapsedTime.inSeconds, places: 3)))
        fields.append(("moving_s", .number(s.movingTime.inSeconds, places: 3)))
        fields.append(("distance_m", .number(s.distance, places: 1)))
        fields.append(("average_kmh", .number(s.averageSpeed * 3.6, places: 2)))
        fields.append(("max_kmh", .number(s.maximumSpeed * 3.6, places: 2)))
        fields.append(("elevation_gain_m", .number(s.elevationGain, places: 1)))
        fields.append(("points", .int(s.pointCount)))
        fields.append(("segments", .int(d.segments.count)))
        fields.append(("waypoints", .array(d.waypoints.map(waypoint))))
        fields.append(("phases", .array(d.phaseResults.map(phase))))
        fields.append(("cues", .object(JSONObject(Cue.allCases.compactMap { c in cues[c.rawValue].map { (c.rawValue, JSONValue.int($0)) } }))))
        return .object(JSONObject(fields))
    }

    static func waypoint(_ w: Waypoint) -> JSONValue {
        .object([
            ("name", .text(w.name)), ("time", .text(w.time.iso8601)),
            ("lat", .number(w.position.latitude, places: 7)), ("lon", .number(w.position.longitude, places: 7)),
            ("at_last_known_position", .bool(w.atLastKnownPosition)),
        ])
    }

    static func phase(_ r: PhaseResult) -> JSONValue {
        let band: JSONValue = .array([.number(r.minimumSpeed * 3.6, places: 2), .number(r.maximumSpeed * 3.6, places: 2)])
        return .object([
            ("phase", .int(r.index + 1)), ("name", .text(r.name)), ("band_kmh", band),
            ("duration_s", .number(r.duration.inSeconds, places: 3)),
            ("in_band_s", .number(r.timeInBand.inSeconds, places: 3)),
            ("distance_m", .number(r.distance, places: 1)),
            ("average_kmh", .number(r.averageSpeed * 3.6, places: 2)),
        ])
    }
}
