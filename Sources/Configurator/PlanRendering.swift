import Coaching
import PacerCore

/// Plans as text for people (R11: the runner sees the criteria they are measured by): what
/// `pacer plan show` and `pacer plan list` print. Pure functions of the plan and of `today`
/// (the caller's date), so the text can be checked in tests.
public enum PlanRendering {
    /// The plan: name, summary, deadline, and per workout (with its date, when it has one) a
    /// table of its phases with their minutes, speed range (km/h), pace range (min/km) and
    /// implied distance. A phase that ends on distance shows its distance, and its minutes
    /// marked `~` (planned at its target speed); a phase without a target shows "not judged".
    ///
    /// ```
    /// Plan: Easy run
    /// Forty relaxed minutes at a conversational pace: you can talk in full sentences.
    /// Walk briskly into it and out of it.
    /// Deadline: none (the plan does not expire)
    ///
    /// Workout 1: Easy 40 (40 min, 5.77 km)
    ///   #  Phase                 Minutes          Speed            Pace  Distance
    ///   1  warm-up walk and jog        5   5.5–8.5 km/h  10:55–7:04 /km   0.58 km
    ///   2  easy                       30  8.6–10.0 km/h   7:00–6:00 /km   4.64 km
    ///   3  cool-down                   5   5.0–8.0 km/h  12:00–7:30 /km   0.54 km
    /// ```
    public static func render(_ plan: TrainingPlan, today: CivilDate) -> String {
        var out = "Plan: \(plan.name)\n"
        if let summary = plan.summary, !summary.isEmpty {
            for line in wrap(summary, width: 80) { out += "\(line)\n" }
        }
        out += "Deadline: \(deadline(plan, today: today))\n"
        if plan.workouts.contains(where: { $0.phases.contains { $0.distanceLimit != nil } }) {
            let note = "Minutes marked ~ are estimates: the phase ends on its distance, timed here at its target "
                + "speed (\(fixed(Pace.kilometresPerHour(Phase.plannedJogSpeed), 0)) km/h for a jog without one)."
            for line in wrap(note, width: 80) { out += "\(line)\n" }
        }
        for (index, workout) in plan.workouts.enumerated() {
            let distance = workout.phases.reduce(0) { $0 + $1.impliedDistance }
            let date = workout.date.map { ", \(Weekday(of: $0)) \($0)" } ?? ""
            let total = workout.endsOnTime ? minutes(workout.duration) : "~" + estimate(workout.duration)
            out += "\nWorkout \(index + 1): \(workout.name) (\(total) min, \(kilometres(distance)))\(date)\n"
            // A heart-rate column only where a phase has a heart-rate target or ceiling.
            let heart = workout.phases.contains(where: \.usesHeartRate)
            var rows = [["#", "Phase", "Minutes", "Speed", "Pace", "Distance"] + (heart ? ["Heart rate"] : [])]
            for (n, phase) in workout.phases.enumerated() {
                let judged = phase.speedBand != nil
                let byHeart = phase.heartRateTarget != nil
                rows.append([
                    "\(n + 1)", phase.name, phaseMinutes(phase), judged ? speedRange(phase) : byHeart ? "by heart rate" : "not judged",
                    judged ? paceRange(phase) : "", phaseDistance(phase),
                ] + (heart ? [heartRate(phase)] : []))
            }
            out += table(rows, rightAligned: [true, false, true, true, true, true] + (heart ? [false] : []), indent: "  ")
        }
        return out
    }

    /// `30` for a phase on time; `~4.2` for one on distance (planned at its target speed);
    /// `until lap`, `until stop` for an open phase.
    static func phaseMinutes(_ phase: Phase) -> String {
        switch phase.end {
        case .time(let d): return minutes(d)
        case .distance: return "~" + estimate(phase.duration)
        case .lapPress: return "until lap"
        case .stop: return "until stop"
        }
    }

    /// `800 m`, `1.60 km` for a phase on distance (the distance it ends on); for one on time
    /// the distance its target speed implies (`4.64 km`); nothing for a jog on time without a
    /// target or an open phase.
    static func phaseDistance(_ phase: Phase) -> String {
        if let metres = phase.distanceLimit {
            return metres < 1000 && metres == metres.rounded() ? "\(Int(metres)) m" : kilometres(metres)
        }
        guard phase.timeLimit != nil, phase.speedBand != nil else { return "" }
        return kilometres(phase.impliedDistance)
    }

    /// One line per plan file: the file, the plan's name, its workouts and its deadline; a
    /// file that does not load says why instead.
    public static func list(_ plans: [(file: String, plan: Result<TrainingPlan, DataFileError>)], today: CivilDate) -> String {
        var rows = [["File", "Plan", "Workouts", "Deadline"]]
        var broken: [String] = []
        for (file, result) in plans {
            switch result {
            case .success(let plan):
                let deadline = plan.deadline.map { plan.hasExpired(on: today) ? "\($0) (expired)" : "\($0)" } ?? "none"
                rows.append([file, plan.name, "\(plan.workouts.count)", deadline])
            case .failure(let error):
                rows.append([file, "(does not load, see below)", "", ""])
                broken.append(error.description)
            }
        }
        if plans.isEmpty { return "No plans.\n" }
        var out = table(rows, rightAligned: [false, false, true, false], indent: "")
        if !broken.isEmpty {
            out += "\n" + broken.map { "\($0)\n" }.joined()
        }
        return out
    }

    /// `2026-06-30 (the last day to start a workout; 12 days left)`, or expired, or none.
    public static func deadline(_ plan: TrainingPlan, today: CivilDate) -> String {
        guard let deadline = plan.deadline else { return "none (the plan does not expire)" }
        let left = deadline.daysSince1970 - today.daysSince1970
        if left < 0 {
            return "\(deadline), expired (today is \(today)): its workouts can be viewed but not started"
        }
        if left == 0 { return "\(deadline) (today is the last day to start a workout)" }
        return "\(deadline) (the last day to start a workout; \(left) day\(left == 1 ? "" : "s") left)"
    }

    /// `10.0–11.0 km/h`.
    public static func speedRange(_ phase: Phase) -> String {
        "\(fixed(Pace.kilometresPerHour(phase.minimumSpeed), 1))–\(fixed(Pace.kilometresPerHour(phase.maximumSpeed), 1)) km/h"
    }

    /// `6:00–5:27 /km`, the slower pace (the minimum speed) first.
    public static func paceRange(_ phase: Phase) -> String {
        "\(Pace.minutesPerKilometre(phase.minimumSpeed))–\(Pace.minutesPerKilometre(phase.maximumSpeed)) /km"
    }

    /// Minutes with at most two decimals and no trailing zeros: `30`, `0.5`, `1.25`.
    public static func minutes(_ duration: Duration) -> String {
        var s = fixed(duration.inSeconds / 60, 2)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// Minutes with at most one decimal: an estimate (`4`, `1.5`, `44.9`).
    static func estimate(_ duration: Duration) -> String {
        var s = fixed(duration.inSeconds / 60, 1)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }

    /// `6.56 km`.
    public static func kilometres(_ metres: Double) -> String {
        "\(fixed(metres / 1000, 2)) km"
    }

    /// `v` with `decimals` digits after the point, rounded half away from zero; no locale.
    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let n = Int64((abs(v) * Double(scale)).rounded())
        let sign = v < 0 && n != 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(n) }
        var fraction = String(n % scale)
        while fraction.count < decimals { fraction = "0" + fraction }
        return "\(sign)\(n / scale).\(fraction)"
    }

    /// Columns padded to their widest cell, two spaces apart; no trailing spaces.
    static func table(_ rows: [[String]], rightAligned: [Bool], indent: String) -> String {
        var widths = [Int](repeating: 0, count: rightAligned.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        var out = ""
        for row in rows {
            var line = indent
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                if i > 0 { line += "  " }
                line += rightAligned[i] ? pad + cell : cell + pad
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    /// Words of `text` in lines of at most `width` characters (a longer word gets its own line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " \(word)"
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// A phase's heart-rate column: `zone 2`, `140-150 bpm`, `≤ 150 bpm`, `≤ top of zone 2`.
    static func heartRate(_ phase: Phase) -> String {
        if let target = phase.heartRateTarget { return target.label }
        if let ceiling = phase.heartRateCeiling { return "≤ " + ceiling.label }
        return ""
    }
}
