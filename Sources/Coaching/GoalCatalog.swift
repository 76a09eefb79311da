import PacerCore

/// The goals a runner chooses from (R9), by key, and the syntax for a goal of their own:
/// a distance, no time (`12km`, `10k`, `half`, `marathon`), or a distance in a time
/// (`10km-in-50:00`, `10k-in-50:00`, `21.1km-in-1:55:00`, `half-in-1:55:00`,
/// `marathon-in-3:45:00`). `pacer plan goals` lists them;
/// `pacer plan create --goal KEY` takes one.
public enum GoalCatalog {
    public struct Entry: Hashable, Sendable {
        /// What the runner types: `5k`, `7k-35`, `marathon`, `recreational`.
        public var key: String
        public var goal: Goal
        /// What the plan for it holds, for `pacer plan goals`.
        public var description: String
    }

    public static let entries: [Entry] = [
        Entry(
            key: "5k", goal: Goal(distance: 5000, time: nil, name: "run 5 km"),
            description: "Run 5 km without stopping, at any speed: easy runs, and a weekly long run that "
                + "grows until it covers the distance."),
        Entry(
            key: "7k-35", goal: Goal(distance: 7000, time: .seconds(35 * 60), name: "7 km in 35:00"),
            description: "Run 7 km in 35 minutes (5:00 /km, 12 km/h): goal-pace repeats that speed up week "
                + "by week toward 5:00 /km, intervals, easy runs."),
        Entry(
            key: "marathon", goal: Goal(distance: Goal.marathonDistance, time: nil, name: "finish a marathon"),
            description: "Finish a marathon (42.195 km): a weekly long run at a steady speed that grows up "
                + "to 2.5 hours, easy runs, a tempo run for those who have raced, a two-week taper."),
        Entry(
            key: "recreational", goal: Goal(distance: nil, time: nil, name: "recreational"),
            description: "Run for its own sake, no distance, no time: easy runs at a conversational pace, "
                + "a little longer each week up to 45 minutes."),
    ]

    /// How a goal of one's own is written.
    public static let syntax =
        "a distance without a time (12km, 10k, half, marathon), or a distance in a time "
        + "(10km-in-50:00, 10k-in-50:00, half-in-1:55:00, marathon-in-3:45:00; TIME is M:SS or H:MM:SS)"

    /// A half marathon, metres.
    public static let halfMarathonDistance = Goal.marathonDistance / 2

    /// The goal `text` names: a catalog key, or a goal in the syntax above, checked against
    /// the generator's limits (`PlanGenerator.check(goal:)`).
    public static func goal(_ text: String) throws(PlanGeneratorError) -> Goal {
        let key = text.trimmingASCIISpaces().lowercased()
        guard !key.isEmpty else { throw .unknownGoal(text) }
        if let entry = entries.first(where: { $0.key == key }) { return entry.goal }
        var goal: Goal
        if let range = key.firstRange(of: "-in-") {
            let distanceText = String(key[..<range.lowerBound])
            let timeText = String(key[range.upperBound...])
            guard let distance = parseDistance(distanceText) else {
                throw .malformedGoal(text, "'\(distanceText)' is not a distance like 10km, 10k, 21.1km, half or marathon")
            }
            guard let time = parseTime(timeText) else {
                throw .malformedGoal(text, "'\(timeText)' is not a time like 50:00 (M:SS) or 1:55:00 (H:MM:SS)")
            }
            goal = Goal(distance: distance, time: time, name: "")
        } else if let distance = parseDistance(key) {
            goal = Goal(distance: distance, time: nil, name: "")
        } else if key.hasSuffix("k") || key.hasSuffix("km") || key.first?.isNumber == true {
            throw .malformedGoal(text, "expected a distance like 12km or 10k, or a distance in a time like 10km-in-50:00")
        } else {
            throw .unknownGoal(text)
        }
        goal.name = name(distance: goal.distance, time: goal.time)
        try PlanGenerator.check(goal: goal)
        return goal
    }

    /// How a goal is called: `run 12 km`, `10 km in 50:00`, `finish a marathon`,
    /// `marathon in 3:45:00`, `recreational`.
    public static func name(distance: Double?, time: Duration?) -> String {
        guard let distance else { return "recreational" }
        let marathon = abs(distance - Goal.marathonDistance) < 1
        if abs(distance - halfMarathonDistance) < 1 {
            return time.map { "half marathon in \(format($0))" } ?? "finish a half marathon"
        }
        switch (marathon, time) {
        case (true, nil): return "finish a marathon"
        case (true, let time?): return "marathon in \(format(time))"
        case (false, nil): return "run \(format(metres: distance))"
        case (false, let time?): return "\(format(metres: distance)) in \(format(time))"
        }
    }

    /// `21.1km` (also `5KM`, `42.195km`, `10k`: what runners write), `half` (a half
    /// marathon) or `marathon`, as metres; nil when not that shape. Up to three decimals
    /// (metres), positive.
    public static func parseDistance(_ text: String) -> Double? {
        let t = text.lowercased()
        if ["half", "half-marathon", "halfmarathon"].contains(t) { return halfMarathonDistance }
        if t == "marathon" { return Goal.marathonDistance }
        let number: Substring
        if t.hasSuffix("km") {
            number = t.dropLast(2)
        } else if t.hasSuffix("k") {
            number = t.dropLast(1)
        } else {
            return nil
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 3,
              parts.count == 1 || (1...3).contains(parts[1].count),
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        var metres = Int(parts[0])! * 1000
        if parts.count == 2 {
            var fraction = String(parts[1])
            while fraction.count < 3 { fraction += "0" }
            metres += Int(fraction)!
        }
        return metres > 0 ? Double(metres) : nil
    }

    /// `M:SS` or `H:MM:SS` (`35:00`, `1:55:00`, `105:30`), positive; nil otherwise.
    public static func parseTime(_ text: String) -> Duration? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts[0].count <= 3, parts.dropFirst().allSatisfy({ $0.count == 2 })
        else { return nil }
        let numbers = parts.map { Int($0)! }
        guard numbers.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let seconds = numbers.reduce(0) { $0 * 60 + $1 }
        return seconds > 0 ? .seconds(seconds) : nil
    }

    /// `35:00`, `1:55:00`.
    public static func format(_ time: Duration) -> String {
        let total = Int(time.inSeconds.rounded())
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// `21.1 km`, `5 km`, `42.195 km`.
    public static func format(metres: Double) -> String {
        let m = Int(metres.rounded())
        var fraction = String(m % 1000)
        while fraction.count < 3 { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(m / 1000) km" : "\(m / 1000).\(fraction) km"
    }
}

extension String {
    func trimmingASCIISpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}

/// Why no plan was generated, one case per known reason (R26).
public enum PlanGeneratorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a catalog key, nor the syntax of a goal.
    case unknownGoal(String)
    /// The goal syntax with a bad part.
    case malformedGoal(String, String)
    /// A well-formed goal the generator does not plan for, and why.
    case goalOutOfRange(String, String)
    /// A profile value the generator cannot use: the field, and why.
    case profile(String, String)
    /// The deadline is not after the start.
    case deadlineNotAfterStart(start: CivilDate, deadline: CivilDate)
    /// Less than a week between the start and the deadline.
    case deadlineTooNear(start: CivilDate, deadline: CivilDate)
    /// More than `PlanGenerator.maximumWeeks` weeks away.
    case deadlineTooFar(start: CivilDate, deadline: CivilDate)
    /// The generated plan broke one of its own safety bounds: a bug, never a plan.
    case unsafe(String)

    public var description: String {
        switch self {
        case .unknownGoal(let text):
            let keys = GoalCatalog.entries.map(\.key).joined(separator: ", ")
            return "unknown goal '\(text)': the goals are \(keys) (`pacer plan goals` describes them), "
                + "or \(GoalCatalog.syntax)"
        case .malformedGoal(let text, let reason):
            return "goal '\(text)': \(reason); goals are written \(GoalCatalog.syntax)"
        case .goalOutOfRange(let goal, let reason):
            return "goal '\(goal)': \(reason)"
        case .profile(let field, let reason):
            return "athlete profile: \(field): \(reason)"
        case .deadlineNotAfterStart(let start, let deadline):
            return "deadline \(deadline) is not after the start \(start): a plan needs a deadline in the future"
        case .deadlineTooNear(let start, let deadline):
            let days = deadline.daysSince1970 - start.daysSince1970
            return "deadline \(deadline) is \(days) day\(days == 1 ? "" : "s") after the start \(start): "
                + "a plan spans whole weeks, at least one (deadline \(start.adding(days: 7)) or later)"
        case .deadlineTooFar(let start, let deadline):
            return "deadline \(deadline) is more than \(PlanGenerator.maximumWeeks) weeks after the start \(start) "
                + "(at most \(start.adding(days: 7 * PlanGenerator.maximumWeeks))): choose a nearer goal, "
                + "a season at a time"
        case .unsafe(let reason):
            return "internal error: the generated plan breaks a safety bound (\(reason)); please report it"
        }
    }
}
