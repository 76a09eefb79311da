import Coaching
import Foundation
import HAL
import NMEA
import PacerCore
import Storage

/// `track.gpx` and `summary.json`, from what the device stored.
enum ScenarioResults {
    static func writeGPX(_ details: [ActivityDetail], scenario: Scenario, to path: String) throws {
        var bytes: [UInt8] = []
        try ActivityStore.writeGPX(details, name: scenario.name, time: details.first?.summary.startedAt) {
            bytes.append(contentsOf: $0)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func writeSummary(
        _ outcome: ScenarioOutcome, plan: TrainingPlan, runs: [ScenarioRunner.RunRecord], to path: String
    ) throws {
        let scenario = outcome.scenario
        var cueTotals: [String: Int] = [:]
        for detail in outcome.activities {
            for c in detail.cues { cueTotals[c.cue, default: 0] += 1 }
        }
        var head: [(String, JSONTree)] = [("scenario", .text(scenario.name)), ("plan", .text(plan.name))]
        // In device mode the device picks each workout (its activities name them).
        head.append(scenario.deviceMode ? ("mode", .text("device")) : ("workout", .text(plan.workouts[scenario.workoutIndex].name)))
        var deviceCues: [(String, JSONTree)] = []
        if scenario.deviceMode {
            // The device's own cues (power-on, searching, ready, …): heard, but no activity's.
            var counts: [String: Int] = [:]
            for e in outcome.events where e.kind == "cue" && e.activity == nil { counts[e.name ?? "", default: 0] += 1 }
            deviceCues = Cue.allCases.compactMap { c in counts[c.rawValue].map { (c.rawValue, .int($0)) } }
        }
        let summary: JSONTree = .object(head + [
            ("profile", .text(scenario.profile)),
            ("duration_s", .number(outcome.duration.inSeconds, 3)),
            ("runs", .array(runs.map { run in
                var fields: [(String, JSONTree)] = [
                    ("from_s", .number(run.start.inSeconds, 3)),
                    ("to_s", .number(run.end.inSeconds, 3)),
                    ("ended", .text(run.cut ? "power-cut" : "finished")),
                    ("battery_percent", .number(run.batteryPercent, 1)),
                    ("gps_cycles_delivered", .int(run.delivered)),
                ]
                if let e = run.energy { fields.append(("energy", energy(e))) }
                if let n = run.nmea {
                    fields.append(("nmea", .object([
                        ("sentences", .int(n.sentences)), ("rejected", .int(n.rejected)),
                        ("skipped", .int(n.skipped)), ("fixes", .int(n.fixes)),
                    ])))
                }
                return .object(fields)
            })),
            ("activities", .array(outcome.activities.map(activity))),
            ("cues", .object(Cue.allCases.map { ($0.rawValue, .int(cueTotals[$0.rawValue] ?? 0)) })),
        ] + (scenario.deviceMode ? [("device_cues", .object(deviceCues))] : []))
        var out: [UInt8] = []
        summary.render(into: &out, indent: 0)
        out.append(0x0A)
        try Data(out).write(to: URL(fileURLWithPath: path))
    }

    /// The energy account of a device run: what each part cost at the battery, and why.
    static func energy(_ e: EnergyLedger) -> JSONTree {
        let total = (e.settled - e.start).inSeconds
        var fields: [(String, JSONTree)] = [
            ("hardware", .text(e.model.name)),
            ("used_mah", .number(e.totalMilliampHours, 3)),
            ("board_mah", .number(e.boardMilliampHours, 3)),
            ("gps_mah", .number(e.gpsMilliampHours, 3)),
            ("buzzer_mah", .number(e.buzzerMilliampHours, 3)),
            ("average_ma", .number(e.averageMilliamps, 2)),
            ("wakeups", .int(e.wakeups)),
            ("buzzer_s", .number(e.buzzerTime.inSeconds, 3)),
            ("suspended_s", .number(e.suspendedTime.inSeconds, 3)),
        ]
        fields.append(("gps_s", .object(GPSPowerState.allCases.compactMap { state in
            e.gpsTime[state].map { (state.rawValue, JSONTree.number($0.inSeconds, 3)) }
        })))
        fields.append(("span_s", .number(total, 3)))
        return .object(fields)
    }

    static func activity(_ d: ActivityDetail) -> JSONTree {
        let s = d.summary
        var cues: [String: Int] = [:]
        for c in d.cues { cues[c.cue, default: 0] += 1 }
        var fields: [(String, JSONTree)] = []
        fields.append(("id", .int(Int(s.id))))
        fields.append(("name", .text(s.name)))
        fields.append(("state", .text(s.state.rawValue)))
        fields.append(("started", s.startedAt.map { .text($0.iso8601) } ?? .null))
        fields.append(("ended", s.endedAt.map { .text($0.iso8601) } ?? .null))
        fields.append(("active_s", s.activeTime.map { .number($0.inSeconds, 3) } ?? .null))
        fields.append(("elapsed_s", .number(s.elapsedTime.inSeconds, 3)))
        fields.append(("moving_s", .number(s.movingTime.inSeconds, 3)))
        fields.append(("distance_m", .number(s.distance, 1)))
        fields.append(("average_kmh", .number(s.averageSpeed * 3.6, 2)))
        fields.append(("max_kmh", .number(s.maximumSpeed * 3.6, 2)))
        fields.append(("elevation_gain_m", .number(s.elevationGain, 1)))
        fields.append(("points", .int(s.pointCount)))
        fields.append(("segments", .int(d.segments.count)))
        fields.append(("waypoints", .array(d.waypoints.map(waypoint))))
        fields.append(("phases", .array(d.phaseResults.map(phase))))
        fields.append(("cues", .object(Cue.allCases.compactMap { c in cues[c.rawValue].map { (c.rawValue, JSONTree.int($0)) } })))
        return .object(fields)
    }

    static func waypoint(_ w: Waypoint) -> JSONTree {
        .object([
            ("name", .text(w.name)), ("time", .text(w.time.iso8601)),
            ("lat", .number(w.position.latitude, 7)), ("lon", .number(w.position.longitude, 7)),
            ("at_last_known_position", .bool(w.atLastKnownPosition)),
        ])
    }

    static func phase(_ r: PhaseResult) -> JSONTree {
        let band: JSONTree = .array([.number(r.minimumSpeed * 3.6, 2), .number(r.maximumSpeed * 3.6, 2)])
        return .object([
            ("phase", .int(r.index + 1)), ("name", .text(r.name)), ("band_kmh", band),
            ("duration_s", .number(r.duration.inSeconds, 3)),
            ("in_band_s", .number(r.timeInBand.inSeconds, 3)),
            ("distance_m", .number(r.distance, 1)),
            ("average_kmh", .number(r.averageSpeed * 3.6, 2)),
        ])
    }
}

/// A JSON document written with two-space indentation and keys in the order given, so that
/// a golden's diff reads line by line. Arrays of plain values stay on one line.
indirect enum JSONTree {
    case object([(String, JSONTree)])
    case array([JSONTree])
    case text(String)
    case int(Int)
    case number(Double, Int)
    case bool(Bool)
    case null

    var isPlain: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    func render(into out: inout [UInt8], indent: Int) {
        switch self {
        case .object(let fields):
            guard !fields.isEmpty else { return out.append(contentsOf: "{}".utf8) }
            out.append(contentsOf: "{\n".utf8)
            for (i, (key, value)) in fields.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent + 2))
                JSONObject.string(key, into: &out)
                out.append(contentsOf: ": ".utf8)
                value.render(into: &out, indent: indent + 2)
                out.append(contentsOf: (i == fields.count - 1 ? "\n" : ",\n").utf8)
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            guard !items.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            if items.allSatisfy(\.isPlain) {
                out.append(UInt8(ascii: "["))
                for (i, item) in items.enumerated() {
                    if i > 0 { out.append(contentsOf: ", ".utf8) }
                    item.render(into: &out, indent: indent)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append(contentsOf: "[\n".utf8)
            for (i, item) in items.enumerated() {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent + 2))
                item.render(into: &out, indent: indent + 2)
                out.append(contentsOf: (i == items.count - 1 ? "\n" : ",\n").utf8)
            }
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
            out.append(UInt8(ascii: "]"))
        case .text(let s): JSONObject.string(s, into: &out)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .number(let v, let places): out.appendDecimal(v, places: places)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        }
    }
}
