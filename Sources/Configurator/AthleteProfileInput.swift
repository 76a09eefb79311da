import Coaching
import Foundation
import PacerCore

/// A change of the athlete profile refused, in `pacer profile set`'s words (every problem at
/// once, a line each).
public struct ProfileInputError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The fields a `pacer profile set` (or the companion's profile page) gives, checked; nil:
/// keep the stored value. Messages name the fields as the command line's options.
public struct AthleteProfileChanges: Equatable, Sendable {
    public var weight: Double?
    public var height: Double?
    public var frequency: Int?
    public var raced: Bool?
    public var marathon: Bool?
    public var bestRace: AthleteProfile.Mark?
    public var bestMarathon: Duration?
    /// The heart-rate figures (`HeartRateFigures`): set to a value, or cleared (`none`).
    public var maximumHeartRate: FigureChange?
    public var restingHeartRate: FigureChange?
    public var thresholdHeartRate: FigureChange?
    public var age: FigureChange?

    /// A heart-rate figure's change: a new value, or none (the figure forgotten, as when a
    /// measured maximum turns out wrong and the zones should come from the others again).
    public enum FigureChange: Equatable, Sendable {
        case set(Int)
        case clear

        func applied(to value: Int?) -> Int? {
            switch self {
            case .set(let new): new
            case .clear: nil
            }
        }
    }

    public init() {}

    /// The values as given (text, as typed), each checked against its allowed range; every
    /// problem is said at once.
    public static func parse(
        weight: String? = nil, height: String? = nil, frequency: String? = nil, raced: Bool? = nil,
        marathon: Bool? = nil, bestRace: String? = nil, bestMarathon: String? = nil, maxHeartRate: String? = nil,
        restingHeartRate: String? = nil, thresholdHeartRate: String? = nil, age: String? = nil
    ) throws(ProfileInputError) -> AthleteProfileChanges {
        var changes = AthleteProfileChanges()
        var problems: [String] = []
        func number(_ text: String?, _ option: String, _ unit: String, _ range: ClosedRange<Double>) -> Double? {
            guard let text else { return nil }
            let allowed = "\(AthleteProfile.number(range.lowerBound)) to \(AthleteProfile.number(range.upperBound)) \(unit)"
            guard let value = YAMLMapping.decimal(text), value.isFinite else {
                problems.append("\(option) '\(text)' is not a number: give \(allowed)")
                return nil
            }
            guard range.contains(value) else {
                problems.append("\(option) \(text) is outside \(allowed)")
                return nil
            }
            return value
        }
        changes.weight = number(weight, "--weight", "kg", AthleteProfile.weightRange)
        changes.height = number(height, "--height", "cm", AthleteProfile.heightRange)
        if let frequency {
            let range = AthleteProfile.frequencyRange
            let allowed = "\(range.lowerBound) to \(range.upperBound) days a week"
            if let days = Int(frequency) {
                if range.contains(days) {
                    changes.frequency = days
                } else {
                    problems.append("--frequency \(frequency) is outside \(allowed)")
                }
            } else {
                problems.append("--frequency '\(frequency)' is not a whole number of days: give \(allowed)")
            }
        }
        changes.raced = raced
        changes.marathon = marathon
        if let bestRace {
            if let mark = AthleteProfile.parseMark(bestRace) {
                if let problem = AthleteProfile.problem(mark) {
                    problems.append("--best-race \(bestRace): \(problem)")
                } else {
                    changes.bestRace = mark
                }
            } else {
                problems.append("--best-race '\(bestRace)' is not DISTANCE@TIME, like 10km@48:30, 5000m@22:10 "
                    + "or 21.1km@1:45:00 (1 to 100 km; time M:SS or H:MM:SS)")
            }
        }
        if let bestMarathon {
            let range = AthleteProfile.marathonTimeRange
            let allowed = "\(AthleteProfile.clock(range.lowerBound)) to \(AthleteProfile.clock(range.upperBound))"
            if let time = AthleteProfile.parseClock(bestMarathon) {
                if range.contains(time) {
                    changes.bestMarathon = time
                } else {
                    problems.append("--best-marathon \(bestMarathon) is outside \(allowed)")
                }
            } else {
                problems.append("--best-marathon '\(bestMarathon)' is not a time: give H:MM:SS, \(allowed)")
            }
        }
        // Heart-rate figures: whole numbers in their ranges, or `none` to forget one.
        func figure(_ text: String?, _ option: String, _ range: ClosedRange<Int>, _ unit: String) -> FigureChange? {
            guard let text else { return nil }
            let allowed = "\(range.lowerBound) to \(range.upperBound) \(unit)"
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.lowercased() == "none" { return .clear }
            guard let value = Int(trimmed) else {
                problems.append("\(option) '\(text)' is not a whole number: give \(allowed), or none to clear it")
                return nil
            }
            guard range.contains(value) else {
                problems.append("\(option) \(text) is outside \(allowed)")
                return nil
            }
            return .set(value)
        }
        changes.maximumHeartRate = figure(maxHeartRate, "--max-hr", HeartRateFigures.maximumRange, "bpm")
        changes.restingHeartRate = figure(restingHeartRate, "--resting-hr", HeartRateFigures.restingRange, "bpm")
        changes.thresholdHeartRate = figure(thresholdHeartRate, "--threshold-hr", HeartRateFigures.thresholdRange, "bpm")
        changes.age = figure(age, "--age", HeartRateFigures.ageRange, "years")
        if raced == false, bestRace != nil {
            problems.append("--raced no clears the best race: give --best-race only with --raced yes")
        }
        if marathon == false, bestMarathon != nil {
            problems.append("--marathon no clears the best marathon: give --best-marathon only with --marathon yes")
        }
        guard problems.isEmpty else { throw ProfileInputError(problems.joined(separator: "\n")) }
        guard changes != AthleteProfileChanges() else {
            throw ProfileInputError("nothing to set: give at least one of --weight, --height, --frequency, --raced, "
                + "--marathon, --best-race, --best-marathon, --max-hr, --resting-hr, --threshold-hr, --age")
        }
        return changes
    }

    /// The profile these changes make of `current` (nil: none yet, so weight, height and
    /// frequency are needed; no race and no marathon unless said).
    public func applied(to current: AthleteProfile?) throws(ProfileInputError) -> AthleteProfile {
        var profile: AthleteProfile
        if let current {
            profile = current
        } else {
            var missing: [String] = []
            if weight == nil { missing.append("--weight (30 to 250 kg)") }
            if height == nil { missing.append("--height (120 to 230 cm)") }
            if frequency == nil { missing.append("--frequency (1 to 7 days a week)") }
            guard let weight, let height, let frequency else {
                throw ProfileInputError("there is no athlete profile yet: the first set needs --weight, --height "
                    + "and --frequency; missing: \(missing.joined(separator: ", "))")
            }
            profile = AthleteProfile(weight: weight, height: height, weeklyFrequency: frequency, hasRaced: false,
                                     hasRunMarathon: false)
        }
        if let weight { profile.weight = weight }
        if let height { profile.height = height }
        if let frequency { profile.weeklyFrequency = frequency }
        if let raced {
            profile.hasRaced = raced
            if !raced { profile.bestRace = nil }
        }
        if let marathon {
            profile.hasRunMarathon = marathon
            if !marathon { profile.bestMarathon = nil }
        }
        var problems: [String] = []
        if let bestRace {
            if profile.hasRaced {
                profile.bestRace = bestRace
            } else {
                problems.append("--best-race needs --raced yes: the profile says the runner has not raced")
            }
        }
        if let bestMarathon {
            if profile.hasRunMarathon {
                profile.bestMarathon = bestMarathon
            } else {
                problems.append("--best-marathon needs --marathon yes: the profile says the runner has not run a marathon")
            }
        }
        if let maximumHeartRate { profile.heartRate.maximum = maximumHeartRate.applied(to: profile.heartRate.maximum) }
        if let restingHeartRate { profile.heartRate.resting = restingHeartRate.applied(to: profile.heartRate.resting) }
        if let thresholdHeartRate {
            profile.heartRate.threshold = thresholdHeartRate.applied(to: profile.heartRate.threshold)
        }
        if let age { profile.heartRate.age = age.applied(to: profile.heartRate.age) }
        problems += profile.problems.filter { !$0.field.isHeartRate }.map(\.message)
        // The figures together, said with the options and the stored values that disagree:
        // a resting rate given now may clash with a maximum set last year.
        if let reason = profile.heartRate.inconsistency {
            problems.append("the heart-rate figures disagree: \(reason) (--max-hr, --resting-hr and --threshold-hr "
                + "together; `pacer profile show` has the stored ones, none clears one)")
        } else {
            problems += profile.problems.filter(\.field.isHeartRate).map(\.message)
        }
        guard problems.isEmpty else { throw ProfileInputError(problems.joined(separator: "\n")) }
        return profile
    }
}

extension AthleteProfile.Field {
    /// The field's value as `pacer profile show` and the companion's athlete page show it:
    /// `68 kg`, `3 days a week`, `10 km in 48:30`, `none`.
    public func shown(of profile: AthleteProfile) -> String {
        switch self {
        case .weight: "\(AthleteProfile.number(profile.weight)) kg"
        case .height: "\(AthleteProfile.number(profile.height)) cm"
        case .weeklyFrequency: "\(profile.weeklyFrequency) day\(profile.weeklyFrequency == 1 ? "" : "s") a week"
        case .hasRaced: profile.hasRaced ? "yes" : "no"
        case .bestRace: profile.bestRace.map { "\(AthleteProfile.kilometres($0.distance)) km in \(AthleteProfile.clock($0.time))" } ?? "none"
        case .hasRunMarathon: profile.hasRunMarathon ? "yes" : "no"
        case .bestMarathon: profile.bestMarathon.map(AthleteProfile.clock) ?? "none"
        case .maximumHeartRate: profile.heartRate.maximum.map { "\($0) bpm" } ?? "none"
        case .restingHeartRate: profile.heartRate.resting.map { "\($0) bpm" } ?? "none"
        case .thresholdHeartRate: profile.heartRate.threshold.map { "\($0) bpm" } ?? "none"
        case .age: profile.heartRate.age.map { "\($0) years" } ?? "none"
        }
    }
}
