import Coaching
import Foundation
import Storage
import PacerCore

/// Writes a `TrainingPlan` as a plan file (R3, R14): the YAML `PlanLoader` reads, so that a
/// generated plan is shown, started and used in scenarios like a hand-written one. The text is
/// a pure function of the plan and the header (fixed number formatting, no locale, no clock),
/// and reads back equal: `PlanLoader.load(file:text:)` of the output is the plan.
///
/// ```yaml
/// # <header lines>
/// name: "7 km in 35:00 by 2027-02-23"
/// summary: "A 12-week plan for …"
/// deadline: 2027-02-23
/// workouts:
///   - name: "Week 1 · day 1: goal-pace repeats"
///     phases:
///       - {name: "warm-up", minutes: 10, speed_kmh: [4.5, 9.3]}
///       - repeat: 2
///         phases:
///           - {name: "goal pace", minutes: 5, speed_kmh: [11.6, 12]}
///           - {name: "recovery", minutes: 2.5, speed_kmh: [4.5, 9.3]}
///       - {name: "cool-down", minutes: 10, speed_kmh: [4.5, 9.3]}
/// ```
///
/// A repeated group (the phases' `Repetition`) is written as a `repeat` group. Speeds are
/// written in km/h with the fewest decimals that read back to the same metres per second; a
/// speed that came from a pace (`pace_min_per_km: ["5:30", …]`) and has no short km/h form is
/// written as that pace. Durations are written to the millisecond, which is what the loader
/// keeps.
public enum PlanWriter {
    /// The plan file's text; `header` lines become `# ` comments at the top.
    public static func text(_ plan: TrainingPlan, header: [String] = []) -> String {
        var out = ""
        for line in header { out += line.isEmpty ? "#\n" : "# \(line)\n" }
        out += "name: \(quoted(plan.name))\n"
        if let summary = plan.summary, !summary.isEmpty { out += "summary: \(quoted(summary))\n" }
        if let deadline = plan.deadline { out += "deadline: \(deadline)\n" }
        out += "workouts:\n"
        for workout in plan.workouts {
            out += "  - name: \(quoted(workout.name))\n"
            if let date = workout.date { out += "    date: \(date)\n" }
            out += "    phases:\n"
            out += phaseList(workout.phases, indent: "      ")
        }
        return out
    }

    /// Writes the plan file at `path`; refuses to replace an existing file unless `replace`.
    public static func write(
        _ plan: TrainingPlan, header: [String] = [], to path: String, replace: Bool = false
    ) throws(DataFileError) {
        if !replace && FileManager.default.fileExists(atPath: path) {
            throw DataFileError(file: path, reason: "already exists: choose another file, or replace it (--force)")
        }
        do {
            try OutputFile.write(path, text: text(plan, header: header))
        } catch {
            throw DataFileError(file: path, reason: "cannot be written (\(error))")
        }
    }

    // MARK: - Phases

    static func phaseList(_ phases: [Phase], indent: String) -> String {
        var out = ""
        var i = 0
        while i < phases.count {
            if let r = phases[i].repetition {
                // The group's passes: every phase of it in a row; its first pass is written.
                var j = i
                while j < phases.count, phases[j].repetition?.group == r.group { j += 1 }
                let pass = phases[i..<j].filter { $0.repetition?.number == r.number }
                out += "\(indent)- repeat: \(r.count)\n"
                out += "\(indent)  phases:\n"
                for phase in pass { out += "\(indent)    - \(line(phase))\n" }
                i = j
            } else {
                out += "\(indent)- \(line(phases[i]))\n"
                i += 1
            }
        }
        return out
    }

    static func line(_ phase: Phase) -> String {
        var fields = ["name: \(quoted(phase.name))"]
        switch phase.end {
        case .time(let d): fields.append("minutes: \(minutes(d))")
        case .distance(let m): fields.append(m >= 1000 && m.truncatingRemainder(dividingBy: 1000) == 0
            ? "km: \(Int(m / 1000))" : "m: \(trimmed(PlanRendering.fixed(m, 3)))")
        case .lapPress: fields.append("until: lap")
        case .stop: fields.append("until: stop")
        }
        if phase.speedBand != nil { fields.append(speeds(phase)) }
        switch phase.heartRateTarget {
        case .zone(let n)?: fields.append("hr_zone: \(n)")
        case .bpm(let lo, let hi)?: fields.append("hr_bpm: [\(lo), \(hi)]")
        case nil: break
        }
        switch phase.heartRateCeiling {
        case .bpm(let b)?: fields.append("hr_max_bpm: \(b)")
        case .zoneTop(let n)?: fields.append("hr_max_zone: \(n)")
        case nil: break
        }
        if phase.lapEndsEarly && phase.end != .lapPress { fields.append("lap_ends: true") }
        if let notes = phase.notes { fields.append("notes: \(quoted(notes))") }
        return "{\(fields.joined(separator: ", "))}"
    }

    /// `speed_kmh: [9.3, 10.5]`, or `pace_min_per_km: ["6:00", "5:30"]` for a pace-born range.
    static func speeds(_ phase: Phase) -> String {
        if let lo = shortKmh(phase.minimumSpeed), let hi = shortKmh(phase.maximumSpeed) {
            return "speed_kmh: [\(lo), \(hi)]"
        }
        if let slow = pace(phase.minimumSpeed), let fast = pace(phase.maximumSpeed) {
            return "pace_min_per_km: [\"\(slow)\", \"\(fast)\"]"
        }
        return "speed_kmh: [\(exactKmh(phase.minimumSpeed)), \(exactKmh(phase.maximumSpeed))]"
    }

    /// km/h with up to three decimals that read back to exactly `metresPerSecond`.
    static func shortKmh(_ metresPerSecond: Double) -> String? {
        let kmh = Pace.kilometresPerHour(metresPerSecond)
        for decimals in 0...3 {
            let text = trimmed(PlanRendering.fixed(kmh, decimals))
            if let v = Double(text), Pace.metresPerSecond(kilometresPerHour: v) == metresPerSecond { return text }
        }
        return nil
    }

    /// km/h with as many decimals as reading back exactly takes (Swift's shortest form last).
    static func exactKmh(_ metresPerSecond: Double) -> String {
        let kmh = Pace.kilometresPerHour(metresPerSecond)
        for decimals in 4...12 {
            let text = trimmed(PlanRendering.fixed(kmh, decimals))
            if let v = Double(text), Pace.metresPerSecond(kilometresPerHour: v) == metresPerSecond { return text }
        }
        return "\(kmh)"
    }

    /// `5:30` when `metresPerSecond` is exactly what the loader makes of that pace.
    static func pace(_ metresPerSecond: Double) -> String? {
        guard metresPerSecond > 0 else { return nil }
        let seconds = (1000 / metresPerSecond).rounded()
        guard seconds >= 1, seconds < 6000, 1000 / seconds == metresPerSecond else { return nil }
        let s = Int(seconds)
        return "\(s / 60):\(s % 60 < 10 ? "0" : "")\(s % 60)"
    }

    /// Minutes to the millisecond, no trailing zeros: `30`, `2.5`, `0.016667`.
    static func minutes(_ duration: Duration) -> String {
        let milliseconds = (duration.inSeconds * 1000).rounded()
        return trimmed(PlanRendering.fixed(milliseconds / 60_000, 6))
    }

    static func trimmed(_ s: String) -> String {
        guard s.contains(".") else { return s }
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t
    }

    /// A YAML double-quoted scalar: any text reads back unchanged.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
