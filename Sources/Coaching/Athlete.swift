import PacerCore

/// The runner the device coaches (R3, R9, R12, R15): what the plan generator needs to know.
/// Stored with the history of its changes (`PacerStore`), set with `pacer profile set`.
public struct AthleteProfile: Hashable, Sendable {
    /// A best mark: a distance run in a time.
    public struct Mark: Hashable, Sendable {
        /// Metres.
        public var distance: Double
        public var time: Duration

        public init(distance: Double, time: Duration) {
            self.distance = distance
            self.time = time
        }

        /// Metres per second.
        public var speed: Double { distance / time.inSeconds }
    }

    /// Kilograms.
    public var weight: Double
    /// Centimetres.
    public var height: Double
    /// Training days a week, 1…7 (R15).
    public var weeklyFrequency: Int
    public var hasRaced: Bool
    public var hasRunMarathon: Bool
    /// The best race (any distance), when the runner has raced.
    public var bestRace: Mark?
    /// The best marathon time, when the runner has run one.
    public var bestMarathon: Duration?
    /// What the runner's heart is known to do (maximum, resting, threshold, age): the five
    /// zones are made from it. Empty until set; the plan generator does not use it.
    public var heartRate: HeartRateFigures

    public init(weight: Double, height: Double, weeklyFrequency: Int, hasRaced: Bool, hasRunMarathon: Bool,
                bestRace: Mark? = nil, bestMarathon: Duration? = nil, heartRate: HeartRateFigures = HeartRateFigures()) {
        self.weight = weight
        self.height = height
        self.weeklyFrequency = weeklyFrequency
        self.hasRaced = hasRaced
        self.hasRunMarathon = hasRunMarathon
        self.bestRace = bestRace
        self.bestMarathon = bestMarathon
        self.heartRate = heartRate
    }

    /// Body-mass index, kg/m².
    public var bodyMassIndex: Double { weight / ((height / 100) * (height / 100)) }

    /// The allowed ranges, with the reason a value outside is refused.
    public static let weightRange = 30.0...250.0
    public static let heightRange = 120.0...230.0
    public static let frequencyRange = 1...7
}

/// What the plan is for (R9, R14): a distance, with a time or without; or running for its
/// own sake. A goal without a time compares as slower than any goal with one.
public struct Goal: Hashable, Sendable, Comparable {
    /// Metres; nil for a recreational goal (no distance, no time).
    public var distance: Double?
    /// The time to run `distance` in; nil: just finish it.
    public var time: Duration?
    /// How people call it: "run 5 km", "7 km in 35:00", "marathon", "recreational".
    public var name: String

    public init(distance: Double?, time: Duration?, name: String) {
        self.distance = distance
        self.time = time
        self.name = name
    }

    public var isRecreational: Bool { distance == nil }
    /// The marathon's distance, 42.195 km.
    public static let marathonDistance = 42_195.0
    public var isMarathon: Bool { distance.map { abs($0 - Goal.marathonDistance) < 1 } ?? false }

    /// Metres per second the goal asks for, when it has a time.
    public var speed: Double? {
        guard let distance, let time, time > .zero else { return nil }
        return distance / time.inSeconds
    }

    /// Slower first: no goal, then timeless goals (shorter distance first), then timed goals
    /// by the speed they ask for.
    public static func < (a: Goal, b: Goal) -> Bool {
        switch (a.speed, b.speed) {
        case (nil, nil): return (a.distance ?? -1) < (b.distance ?? -1)
        case (nil, _): return true
        case (_, nil): return false
        case let (x?, y?): return x < y
        }
    }
}
