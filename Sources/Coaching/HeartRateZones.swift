import PacerCore

/// What the athlete's heart is known to do: the figures the five zones are made from. Set
/// with `pacer profile set --max-hr --resting-hr --threshold-hr --age`; any may be missing.
public struct HeartRateFigures: Hashable, Sendable {
    /// The highest rate measured (a race's finish, a hill test), beats per minute.
    public var maximum: Int?
    /// The rate at rest, on waking, beats per minute.
    public var resting: Int?
    /// The lactate threshold heart rate (the mean of a 30-minute solo time trial's last 20
    /// minutes, as Friel tests it), beats per minute.
    public var threshold: Int?
    /// Years; used only to estimate a maximum when none was measured.
    public var age: Int?

    public init(maximum: Int? = nil, resting: Int? = nil, threshold: Int? = nil, age: Int? = nil) {
        self.maximum = maximum
        self.resting = resting
        self.threshold = threshold
        self.age = age
    }

    public var isEmpty: Bool { maximum == nil && resting == nil && threshold == nil && age == nil }

    /// The allowed ranges, with the reason a value outside is refused.
    public static let maximumRange = 120...230
    public static let restingRange = 30...110
    public static let thresholdRange = 100...220
    public static let ageRange = 10...100

    /// What is wrong with the figures together (each is in its range), or nil.
    public var inconsistency: String? {
        if let maximum, let resting, resting >= maximum - 40 {
            return "a resting heart rate of \(resting) bpm is too close to the maximum of \(maximum) bpm (at least 40 bpm apart)"
        }
        if let maximum, let threshold, threshold >= maximum {
            return "a threshold heart rate of \(threshold) bpm is not below the maximum of \(maximum) bpm"
        }
        if let resting, let threshold, threshold <= resting + 30 {
            return "a threshold heart rate of \(threshold) bpm is too close to the resting rate of \(resting) bpm"
        }
        return nil
    }

    /// The zones these figures give, by the first method they allow (`HeartRateZones.Method`,
    /// in its order); nil when there is nothing to make them from.
    public var zones: HeartRateZones? {
        if let threshold { return .friel(threshold: threshold, maximum: maximum) }
        if let maximum, let resting { return .karvonen(maximum: maximum, resting: resting, estimated: false) }
        if let maximum { return .percentOfMaximum(maximum, estimated: false) }
        if let age {
            let estimate = HeartRateZones.tanakaMaximum(age: age)
            if let resting { return .karvonen(maximum: estimate, resting: resting, estimated: true) }
            return .percentOfMaximum(estimate, estimated: true)
        }
        return nil
    }
}

/// Five heart-rate zones, by a named and cited method. Zone 1 is the easiest; a rate below
/// zone 1's floor is "below zone 1", above zone 5's ceiling "above zone 5".
public struct HeartRateZones: Hashable, Sendable {
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// Percentages of the lactate threshold heart rate (Friel's running zones), when the
        /// threshold is known.
        case friel = "lthr"
        /// Karvonen's percentages of the heart-rate reserve (maximum less resting), when both
        /// are known.
        case karvonen = "hrr"
        /// Percentages of the maximum, when only it is known (or estimated from age).
        case percentOfMaximum = "max"

        public var title: String {
            switch self {
            case .friel: "% of lactate threshold heart rate (Friel)"
            case .karvonen: "% of heart-rate reserve (Karvonen)"
            case .percentOfMaximum: "% of maximum heart rate"
            }
        }

        /// Where the method comes from.
        public var citation: String {
            switch self {
            case .friel:
                "J. Friel, The Triathlete's Training Bible, 4th ed. (VeloPress, 2016), running zones as % of LTHR: Z1 < 85, Z2 85-89, Z3 90-94, Z4 95-99, Z5 100 and above"
            case .karvonen:
                "M. J. Karvonen, E. Kentala, O. Mustala, \"The effects of training on heart rate; a longitudinal study\", Ann. Med. Exp. Biol. Fenn. 35 (1957) 307-315: target = resting + % x (maximum - resting); zones at 50, 60, 70, 80, 90 and 100 % of the reserve"
            case .percentOfMaximum:
                "the five 10 % bands of maximum heart rate that Garmin's and Polar's watches default to (Garmin: \"Heart Rate Zone Calculations\"; Polar: \"Heart rate zones\"): zones at 50, 60, 70, 80, 90 and 100 %"
            }
        }
    }

    /// What a zone is for, as runners call it.
    public static let names = ["recovery", "endurance", "tempo", "threshold", "maximum"]

    public var method: Method
    /// The figures are partly estimated (the maximum from age): the zones are a guess, and say so.
    public var isEstimate: Bool
    /// The maximum the zones were made with (measured or estimated), bpm; nil for Friel's
    /// zones without a measured maximum.
    public var maximum: Int?
    /// Each zone's lowest rate, zone 1 first, and zone 5's highest: six rising figures, bpm.
    /// Zone n holds [floors[n-1], floors[n]), the last one closed.
    public var floors: [Int]

    public init(method: Method, isEstimate: Bool, maximum: Int?, floors: [Int]) {
        precondition(floors.count == 6, "five zones have six bounds")
        self.method = method
        self.isEstimate = isEstimate
        self.maximum = maximum
        self.floors = floors
    }

    /// Tanaka, Monahan and Seals, "Age-predicted maximal heart rate revisited", J. Am. Coll.
    /// Cardiol. 37 (2001) 153-156: 208 - 0.7 x age (a population's mean; one person's maximum
    /// may be 10 bpm either side).
    public static func tanakaMaximum(age: Int) -> Int {
        Int((208 - 0.7 * Double(age)).rounded())
    }

    public static func friel(threshold: Int, maximum: Int?) -> HeartRateZones {
        let t = Double(threshold)
        // Zone 1 from 65 % of LTHR (below that is not training); zone 5 to the maximum, or to
        // 106 % of LTHR (Friel's 5c) when none was measured.
        let top = maximum ?? Int((t * 1.06).rounded())
        let floors = [0.65, 0.85, 0.90, 0.95, 1.00].map { Int((t * $0).rounded()) } + [max(top, threshold + 1)]
        return HeartRateZones(method: .friel, isEstimate: false, maximum: maximum, floors: floors)
    }

    public static func karvonen(maximum: Int, resting: Int, estimated: Bool) -> HeartRateZones {
        let reserve = Double(maximum - resting)
        let floors = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0].map { resting + Int((reserve * $0).rounded()) }
        return HeartRateZones(method: .karvonen, isEstimate: estimated, maximum: maximum, floors: floors)
    }

    public static func percentOfMaximum(_ maximum: Int, estimated: Bool) -> HeartRateZones {
        let floors = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0].map { Int((Double(maximum) * $0).rounded()) }
        return HeartRateZones(method: .percentOfMaximum, isEstimate: estimated, maximum: maximum, floors: floors)
    }

    /// Zone `n`'s rates (1…5), bpm: from its floor to one below the next zone's (zone 5 to its
    /// ceiling).
    public func range(zone n: Int) -> ClosedRange<Int> {
        precondition((1...5).contains(n), "zones are 1 to 5")
        return floors[n - 1]...(n == 5 ? floors[5] : floors[n] - 1)
    }

    /// The zone a rate is in: 1…5; 0 below zone 1, 6 above zone 5.
    public func zone(of bpm: Int) -> Int {
        if bpm < floors[0] { return 0 }
        if bpm > floors[5] { return 6 }
        for n in 1...4 where bpm < floors[n] { return n }
        return 5
    }

    /// The zones as lines: "Zone 2 endurance  131-143 bpm".
    public var lines: [String] {
        (1...5).map { n in
            let r = range(zone: n)
            return "Zone \(n) \(Self.names[n - 1] + String(repeating: " ", count: max(0, 10 - Self.names[n - 1].count))) \(r.lowerBound)-\(r.upperBound) bpm"
        }
    }
}
