import PacerCore

/// A phase of a workout: a name, how long it lasts, and the speed range the runner should
/// hold (R1, R11). Speeds are metres per second inside; km/h and min/km for people.
public struct Phase: Hashable, Sendable {
    public var name: String
    public var duration: Duration
    /// Metres per second.
    public var minimumSpeed: Double
    /// Metres per second.
    public var maximumSpeed: Double

    public init(name: String, duration: Duration, minimumSpeed: Double, maximumSpeed: Double) {
        self.name = name
        self.duration = duration
        self.minimumSpeed = minimumSpeed
        self.maximumSpeed = maximumSpeed
    }

    /// The middle of the range: the speed the phase is built around.
    public var targetSpeed: Double { (minimumSpeed + maximumSpeed) / 2 }

    /// The distance the phase implies (R1): its target speed times its duration, metres.
    public var impliedDistance: Double { targetSpeed * duration.inSeconds }
}

/// A workout: phases followed in order.
public struct Workout: Hashable, Sendable {
    public var name: String
    public var phases: [Phase]

    public init(name: String, phases: [Phase]) {
        self.name = name
        self.phases = phases
    }

    public var duration: Duration { phases.reduce(.zero) { $0 + $1.duration } }
}

/// A training plan: workouts, and possibly a deadline after which it has expired (R4, R14).
public struct TrainingPlan: Hashable, Sendable {
    public var name: String
    public var summary: String?
    /// The last day on which a workout may be started; nil: the plan never expires.
    public var deadline: CivilDate?
    public var workouts: [Workout]

    public init(name: String, summary: String? = nil, deadline: CivilDate? = nil, workouts: [Workout]) {
        self.name = name
        self.summary = summary
        self.deadline = deadline
        self.workouts = workouts
    }

    /// True once `today` is past the deadline.
    public func hasExpired(on today: CivilDate) -> Bool {
        guard let deadline else { return false }
        return today > deadline
    }
}

/// Speed units for people.
public enum Pace {
    public static func kilometresPerHour(_ metresPerSecond: Double) -> Double { metresPerSecond * 3.6 }
    public static func metresPerSecond(kilometresPerHour: Double) -> Double { kilometresPerHour / 3.6 }

    /// `5:30` min/km for a speed in m/s; `--:--` when standing still.
    public static func minutesPerKilometre(_ metresPerSecond: Double) -> String {
        guard metresPerSecond > 0.05 else { return "--:--" }
        let seconds = Int((1000 / metresPerSecond).rounded())
        let s = seconds % 60
        return "\(seconds / 60):\(s < 10 ? "0" : "")\(s)"
    }
}
