import PacerCore

/// A day of the week, Monday first (ISO 8601).
public enum Weekday: Int, CaseIterable, Comparable, Sendable, CustomStringConvertible {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// The weekday of `date` (1970-01-01 was a Thursday).
    public init(of date: CivilDate) {
        let offset = (date.daysSince1970 + 3) % 7
        self = Weekday(rawValue: offset < 0 ? offset + 7 : offset)!
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }

    /// `Mon`, `Tue`, … `Sun`.
    public var description: String { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rawValue] }

    /// A day as people write it: `mon`, `Monday`, `tue`, `thu`, … (case does not matter; the
    /// first three letters or the whole name).
    public init?(name: String) {
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        let lower = name.lowercased()
        guard let i = names.firstIndex(where: { $0 == lower || (lower.count >= 3 && $0.hasPrefix(lower)) }) else { return nil }
        self.init(rawValue: i)
    }

    /// `mon,wed,sat` as days, or the first word that is not a day.
    public static func list(_ text: String) -> (days: [Weekday], unknown: String?) {
        var days: [Weekday] = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            let w = String(word.filter { $0 != " " })
            guard let day = Weekday(name: w) else { return (days, w) }
            days.append(day)
        }
        return (days, nil)
    }
}

extension PlanGenerator {
    /// The days after the start's weekday the default training days fall on, by frequency:
    /// spread over the week, the week's first session (a race goal's goal-pace repeats) two
    /// days or more from its other hard session, the last (the long run) five days after the
    /// first, then a rest day from four days a week up. A plan started on a Tuesday runs Tue,
    /// Thu and Sun at three days a week.
    static let defaultOffsets: [[Int]] = [[0], [0, 3], [0, 2, 5], [0, 2, 3, 5], [0, 1, 2, 4, 5], [0, 1, 2, 3, 4, 5],
                                          [0, 1, 2, 3, 4, 5, 6]]

    /// The training days when the athlete names none: `defaultOffsets` from `start`'s weekday.
    public static func defaultTrainingDays(frequency: Int, start: CivilDate) -> [Weekday] {
        let first = Weekday(of: start).rawValue
        return defaultOffsets[min(max(frequency, 1), 7) - 1].map { Weekday(rawValue: (first + $0) % 7)! }.sorted()
    }

    /// Checks the athlete's training days against their frequency: one weekday a session,
    /// none twice.
    static func check(trainingDays days: [Weekday], frequency: Int) throws(PlanGeneratorError) {
        guard Set(days).count == days.count else {
            throw .profile("training days", "\(days.map(\.description).joined(separator: ", ")) names a day twice")
        }
        guard days.count == frequency else {
            throw .profile("training days", "\(days.count) day\(days.count == 1 ? "" : "s") "
                + "(\(days.map(\.description).joined(separator: ", "))) for \(frequency) workout\(frequency == 1 ? "" : "s") a week: "
                + "name one day for each")
        }
    }

    /// The workouts of a plan (whole weeks of `days.count`, each week in the builder's order),
    /// dated: week `w` spans the 7 days from `start + 7(w − 1)`, and its sessions fall in order
    /// on its training days, the first on the first training day on or after the start's
    /// weekday. Every week keeps the same session on the same weekday, the dates strictly
    /// increase, and the plan's first workout is its first session.
    static func dated(_ workouts: [Workout], start: CivilDate, days: [Weekday]) -> [Workout] {
        let first = Weekday(of: start).rawValue
        let offsets = days.map { ($0.rawValue - first + 7) % 7 }.sorted()
        guard !offsets.isEmpty else { return workouts }
        return workouts.enumerated().map { i, workout in
            var dated = workout
            dated.date = start.adding(days: 7 * (i / offsets.count) + offsets[i % offsets.count])
            return dated
        }
    }
}
