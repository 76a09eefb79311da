// libm's pow (the race-time bound), and nothing else of the system: no Foundation in the domain.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PacerCore

/// The athlete profile's fields, its plausibility checks and the text forms of its marks: what
/// the store enforces and what `pacer profile set` parses and explains (R12, R15).
extension AthleteProfile {
    /// One field of the profile: what a change in the history touched, what `profile show`
    /// dates. In the order the profile declares them.
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case weight
        case height
        case weeklyFrequency = "weekly_frequency"
        case hasRaced = "raced"
        case bestRace = "best_race"
        case hasRunMarathon = "marathon"
        case bestMarathon = "best_marathon"
        case maximumHeartRate = "max_hr"
        case restingHeartRate = "resting_hr"
        case thresholdHeartRate = "threshold_hr"
        case age

        /// How a person calls it.
        public var label: String {
            switch self {
            case .weight: "weight"
            case .height: "height"
            case .weeklyFrequency: "weekly frequency"
            case .hasRaced: "raced"
            case .bestRace: "best race"
            case .hasRunMarathon: "marathon"
            case .bestMarathon: "best marathon"
            case .maximumHeartRate: "max HR"
            case .restingHeartRate: "resting HR"
            case .thresholdHeartRate: "threshold HR"
            case .age: "age"
            }
        }

        /// The heart-rate figures' fields (`HeartRateFigures`), which the zones are made from.
        public var isHeartRate: Bool {
            switch self {
            case .maximumHeartRate, .restingHeartRate, .thresholdHeartRate, .age: true
            default: false
            }
        }
    }

    /// The fields whose values differ from `other`'s, in `Field` order.
    public func fields(differingFrom other: AthleteProfile) -> [Field] {
        Field.allCases.filter { field in
            switch field {
            case .weight: weight != other.weight
            case .height: height != other.height
            case .weeklyFrequency: weeklyFrequency != other.weeklyFrequency
            case .hasRaced: hasRaced != other.hasRaced
            case .bestRace: bestRace != other.bestRace
            case .hasRunMarathon: hasRunMarathon != other.hasRunMarathon
            case .bestMarathon: bestMarathon != other.bestMarathon
            case .maximumHeartRate: heartRate.maximum != other.heartRate.maximum
            case .restingHeartRate: heartRate.resting != other.heartRate.resting
            case .thresholdHeartRate: heartRate.threshold != other.heartRate.threshold
            case .age: heartRate.age != other.heartRate.age
            }
        }
    }

    // MARK: - Plausible marks

    /// A best race's distance, metres: 1 km to 100 km.
    public static let bestRaceDistanceRange = 1_000.0...100_000.0

    /// The slowest speed a best race may have, m/s: 2 km/h, a slow walk. Anything slower is a
    /// typing mistake (a time in hours for one in minutes), not a race result.
    public static let slowestRaceSpeed = 2.0 / 3.6

    /// The fastest time a race of `distance` metres may have: the men's 1000 m world record
    /// (Noah Ngeny, 2:11.96, 1999: 27.3 km/h, the fastest anyone has raced 1 km or more)
    /// carried to the distance by Riegel's endurance formula, T = T₁·(D/D₁)^1.06. It stays
    /// under every world record from 1 km to 100 km (10 km: 25:15 against 26:11, Cheptegei
    /// 2020; marathon: 1:56:07 against 2:00:35, Kiptum 2023), so no real mark is refused, and
    /// it catches what a flat speed limit would let through (10 km in 20:00 is 30 km/h; a flat
    /// 25 km/h limit would refuse a real 1500 m record, 26.2 km/h, and accept 10 km in 24:00).
    /// Whole seconds, rounded down.
    public static func fastestPlausibleTime(forDistance distance: Double) -> Duration {
        let seconds = 131.96 * pow(distance / 1000, 1.06)
        return .seconds(Int64(seconds.rounded(.down)))
    }

    /// The times a best race of `distance` metres may have: from the world-record bound to
    /// `slowestRaceSpeed` (whole seconds, rounded up).
    public static func plausibleRaceTimes(forDistance distance: Double) -> ClosedRange<Duration> {
        let slowest = Duration.seconds(Int64((distance / slowestRaceSpeed).rounded(.up)))
        return fastestPlausibleTime(forDistance: distance)...slowest
    }

    /// A best marathon time: 2:00:00 (the world record is 2:00:35, Kiptum 2023) to 8:00:00
    /// (beyond the cut-off of nearly every marathon: 6 to 7 hours in the big city races).
    public static let marathonTimeRange: ClosedRange<Duration> = .seconds(2 * 3600)...(.seconds(8 * 3600))

    /// What is wrong with the profile, field by field, in `Field` order; empty when it is
    /// usable. A best race needs `hasRaced`, a best marathon `hasRunMarathon`.
    public var problems: [(field: Field, message: String)] {
        var problems: [(field: Field, message: String)] = []
        if !(weight.isFinite && Self.weightRange.contains(weight)) {
            problems.append((.weight, "weight \(Self.number(weight)) kg is outside \(Self.range(Self.weightRange)) kg"))
        }
        if !(height.isFinite && Self.heightRange.contains(height)) {
            problems.append((.height, "height \(Self.number(height)) cm is outside \(Self.range(Self.heightRange)) cm"))
        }
        if !Self.frequencyRange.contains(weeklyFrequency) {
            problems.append((.weeklyFrequency, "weekly frequency \(weeklyFrequency) days is outside "
                + "\(Self.frequencyRange.lowerBound) to \(Self.frequencyRange.upperBound) days a week"))
        }
        if let race = bestRace {
            if !hasRaced {
                problems.append((.bestRace, "a best race needs 'raced: yes'"))
            }
            if let message = Self.problem(race) {
                problems.append((.bestRace, message))
            }
        }
        if let time = bestMarathon {
            if !hasRunMarathon {
                problems.append((.bestMarathon, "a best marathon needs 'marathon: yes'"))
            }
            if !Self.marathonTimeRange.contains(time) {
                problems.append((.bestMarathon, "a marathon in \(Self.clock(time)) is outside "
                    + "\(Self.clock(Self.marathonTimeRange.lowerBound)) to \(Self.clock(Self.marathonTimeRange.upperBound))"))
            }
        }
        problems += heartRateProblems
        return problems
    }

    /// The heart-rate figures' problems: each outside its range (`HeartRateFigures`), then,
    /// when every one is in range, what is wrong with them together (`inconsistency`, said
    /// against the maximum's field: the zones cannot be made from them).
    var heartRateProblems: [(field: Field, message: String)] {
        let h = heartRate
        var problems: [(field: Field, message: String)] = []
        let checks: [(Field, Int?, ClosedRange<Int>, String)] = [
            (.maximumHeartRate, h.maximum, HeartRateFigures.maximumRange, "bpm"),
            (.restingHeartRate, h.resting, HeartRateFigures.restingRange, "bpm"),
            (.thresholdHeartRate, h.threshold, HeartRateFigures.thresholdRange, "bpm"),
            (.age, h.age, HeartRateFigures.ageRange, "years"),
        ]
        for (field, value, range, unit) in checks {
            if let value, !range.contains(value) {
                problems.append((field, "\(field.label) \(value) \(unit) is outside \(range.lowerBound) to \(range.upperBound) \(unit)"))
            }
        }
        if problems.isEmpty, let reason = h.inconsistency {
            let field: Field = h.maximum != nil && (h.resting != nil || h.threshold != nil) ? .maximumHeartRate : .thresholdHeartRate
            problems.append((field, "the heart-rate figures disagree: \(reason)"))
        }
        return problems
    }

    /// Why a best race mark is not plausible, or nil when it is.
    public static func problem(_ race: Mark) -> String? {
        guard race.distance.isFinite, bestRaceDistanceRange.contains(race.distance) else {
            return "a best race of \(kilometres(race.distance)) km is outside "
                + "\(kilometres(bestRaceDistanceRange.lowerBound)) to \(kilometres(bestRaceDistanceRange.upperBound)) km"
        }
        let times = plausibleRaceTimes(forDistance: race.distance)
        guard times.contains(race.time) else {
            let speed = race.time > .zero ? "\(ActivityFormat.kilometresPerHour(race.speed)) km/h" : "no time"
            let why = race.time < times.lowerBound ? "faster than the world record allows" : "slower than 2 km/h"
            return "\(kilometres(race.distance)) km in \(clock(race.time)) (\(speed)) is \(why): "
                + "for \(kilometres(race.distance)) km the time must be \(clock(times.lowerBound)) to \(clock(times.upperBound))"
        }
        return nil
    }

    // MARK: - Text forms

    /// `48:30`, `1:45:00`, `22:10.5`: minutes and seconds under an hour, else hours, minutes
    /// and seconds; tenths to milliseconds only when there are some.
    public static func clock(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let seconds = ms / 1000
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = seconds >= 3600
            ? "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
            : "\(seconds / 60):\(two(seconds % 60))"
        let fraction = ms % 1000
        if fraction > 0 {
            var digits = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// Parses `M:SS` or `H:MM:SS` (seconds may have up to three decimals): `48:30`, `1:45:00`,
    /// `22:10.5`. Minutes in `M:SS` may pass 59 (`90:00`); in `H:MM:SS` minutes and seconds are
    /// two digits under 60. Nil for anything else, and for zero.
    public static func parseClock(_ text: String) -> Duration? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { return nil }
        func whole(_ s: Substring) -> Int64? {
            guard !s.isEmpty, s.count <= 6, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(s)
        }
        let secondParts = parts[parts.count - 1].split(separator: ".", omittingEmptySubsequences: false)
        guard secondParts.count <= 2, secondParts[0].count == 2, let seconds = whole(secondParts[0]), seconds < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if secondParts.count == 2 {
            let digits = secondParts[1]
            guard (1...3).contains(digits.count), let value = whole(digits) else { return nil }
            milliseconds = value * [100, 10, 1][digits.count - 1]
        }
        guard let minutes = whole(parts[parts.count - 2]) else { return nil }
        var total = minutes * 60 + seconds
        if parts.count == 3 {
            guard parts[1].count == 2, minutes < 60, let hours = whole(parts[0]) else { return nil }
            total += hours * 3600
        }
        let duration = Duration.milliseconds(total * 1000 + milliseconds)
        return duration > .zero ? duration : nil
    }

    /// Parses a distance with its unit, in metres: `10km`, `21.1km`, `5000m`. Nil for a
    /// number that is not finite and positive, or another unit.
    public static func parseDistance(_ text: String) -> Double? {
        let (number, scale): (Substring, Double)
        if text.hasSuffix("km") {
            (number, scale) = (text.dropLast(2), 1000)
        } else if text.hasSuffix("m") {
            (number, scale) = (text.dropLast(1), 1)
        } else {
            return nil
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number), value.isFinite, value > 0
        else { return nil }
        return value * scale
    }

    /// Parses a best mark, `DISTANCE@TIME`: `10km@48:30`, `5000m@22:10`, `21.1km@1:45:00`.
    /// Only the form is checked here; `problem(_:)` says whether it is plausible.
    public static func parseMark(_ text: String) -> Mark? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let distance = parseDistance(String(parts[0])), let time = parseClock(String(parts[1]))
        else { return nil }
        return Mark(distance: distance, time: time)
    }

    /// `10`, `21.1`, `42.195`: kilometres with the decimals they need (up to three).
    public static func kilometres(_ metres: Double) -> String {
        number(metres / 1000, places: 3)
    }

    /// `70`, `70.5`, `70.25`: a value with the decimals it needs (up to `places`).
    public static func number(_ value: Double, places: Int = 2) -> String {
        var text = ActivityFormat.fixed(value, places: places)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    static func range(_ range: ClosedRange<Double>) -> String {
        "\(number(range.lowerBound)) to \(number(range.upperBound))"
    }
}
