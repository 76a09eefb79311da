import PacerCore

/// Jack Daniels' and Jimmy Gilbert's running model (*Oxygen Power*, 1979), the one Daniels'
/// Running Formula builds its VDOT tables and training paces on. Two regressions:
///
/// - the oxygen cost of running at `v` metres per minute:
///   `VO2 = −4.60 + 0.182258·v + 0.000104·v²` (ml/kg/min);
/// - the fraction of VO2max a race lasting `t` minutes is run at:
///   `F = 0.8 + 0.1894393·e^(−0.012778·t) + 0.2989558·e^(−0.1932605·t)`.
///
/// A race's VDOT (a "pseudo-VO2max") is `VO2 / F`; the same VDOT predicts the runner's times
/// at other distances and gives the training speeds, each zone a fraction of VDOT. With
/// these formulas a 5 km in 24:34 is VDOT 39.1 and VDOT 38 runs 5 km in about 25:1x, as in
/// Daniels' table (VDOT 38: 25:12). Pure arithmetic and a hand-made `exp`, so that a plan comes
/// out bit for bit the same on every machine.
public enum VDOT {
    /// What the generator plans for: VDOT 20 (5 km in about 39 min, easy running near
    /// 5–6.5 km/h) to 85, the top of Daniels' table (world class).
    public static let range = 20.0...85.0

    /// ml/kg/min of oxygen running at `v` metres per minute costs.
    public static func oxygenCost(metresPerMinute v: Double) -> Double {
        -4.60 + 0.182258 * v + 0.000104 * v * v
    }

    /// The fraction of VO2max a race lasting `minutes` is run at.
    public static func sustainableFraction(minutes t: Double) -> Double {
        0.8 + 0.1894393 * PortableMath.exp(-0.012778 * t) + 0.2989558 * PortableMath.exp(-0.1932605 * t)
    }

    /// The VDOT of running `distance` metres in `time`.
    public static func of(distance: Double, time: Duration) -> Double {
        let minutes = time.inSeconds / 60
        return oxygenCost(metresPerMinute: distance / minutes) / sustainableFraction(minutes: minutes)
    }

    /// Metres per second at which running costs `fraction` of `vdot` (the inverse of the
    /// oxygen cost: the positive root of the quadratic).
    public static func speed(fraction: Double, of vdot: Double) -> Double {
        let a = 0.000104, b = 0.182258, c = -4.60 - fraction * vdot
        let metresPerMinute = (-b + (b * b - 4 * a * c).squareRoot()) / (2 * a)
        return metresPerMinute / 60
    }

    /// The speed at VO2max (Daniels' "vVO2max", the top of the interval zone), m/s.
    public static func speedAtMaximum(_ vdot: Double) -> Double { speed(fraction: 1, of: vdot) }

    /// The time `vdot` predicts for `distance` metres: where the race's VDOT equals `vdot`
    /// (bisection on the minutes; the VDOT of a distance falls as its time grows).
    public static func raceTime(distance: Double, vdot: Double) -> Duration {
        var fast = distance / (speedAtMaximum(vdot) * 60) * 0.5  // minutes, surely too fast
        var slow = distance / 20  // 1.2 km/h: surely too slow
        for _ in 0..<80 {
            let middle = (fast + slow) / 2
            if of(distance: distance, time: .milliseconds(Int64(middle * 60_000))) > vdot {
                fast = middle
            } else {
                slow = middle
            }
        }
        return .milliseconds(Int64(((fast + slow) / 2 * 60_000).rounded()))
    }

    /// The average speed `vdot` predicts for a race of `distance` metres, m/s.
    public static func raceSpeed(distance: Double, vdot: Double) -> Double {
        distance / raceTime(distance: distance, vdot: vdot).inSeconds
    }

    /// The VDOT whose speed at VO2max is `metresPerSecond`.
    public static func at(speedAtMaximum metresPerSecond: Double) -> Double {
        oxygenCost(metresPerMinute: metresPerSecond * 60)
    }
}

/// Daniels' training zones as fractions of VDOT (Daniels' Running Formula, chapter 4): easy
/// 59–74 % of VO2max, marathon 75–84 %, threshold 83–88 %, interval 95–100 %.
public enum TrainingZone: String, CaseIterable, Sendable {
    case easy, marathon, threshold, interval

    /// The zone's fractions of VDOT.
    public var fractions: ClosedRange<Double> {
        switch self {
        case .easy: return 0.59...0.74
        case .marathon: return 0.75...0.84
        case .threshold: return 0.83...0.88
        case .interval: return 0.95...1.00
        }
    }

    /// The zone's speeds at `vdot`, m/s.
    public func speeds(at vdot: Double) -> ClosedRange<Double> {
        VDOT.speed(fraction: fractions.lowerBound, of: vdot)...VDOT.speed(fraction: fractions.upperBound, of: vdot)
    }
}

/// The single paces Daniels prescribes for his quality sessions (Daniels' Running Formula,
/// 3rd ed., ch. 4, and the training-intensity table of ch. 5), each from the runner's VDOT with
/// the Daniels–Gilbert model above:
///
/// - T (threshold): 88 % of VDOT, the pace a runner could race for about an hour; the top of
///   the threshold zone (`TrainingZone.threshold`, 83–88 %).
/// - I (interval): 97.5 % of VDOT, the middle of the interval zone (95–100 %).
/// - R (repetition): the runner's current mile race pace ("R pace is about current mile race
///   pace"): the mile time the VDOT predicts.
///
/// Checked against rows of the book's table in `DanielsPaceTests` (VDOT 40, 49, 51, 80).
public enum DanielsPace: String, CaseIterable, Sendable {
    case threshold = "T"
    case interval = "I"
    case repetition = "R"

    /// Metres in a statute mile: R pace is mile race pace.
    public static let mile = 1609.344

    /// The pace's speed at `vdot`, m/s.
    public func speed(at vdot: Double) -> Double {
        switch self {
        case .threshold: return VDOT.speed(fraction: 0.88, of: vdot)
        case .interval: return VDOT.speed(fraction: 0.975, of: vdot)
        case .repetition: return VDOT.raceSpeed(distance: Self.mile, vdot: vdot)
        }
    }
}

/// What the generator knows of the runner's current fitness: a VDOT, how experienced they
/// are, and how much training volume their body should start with.
public struct RunningFitness: Hashable, Sendable {
    /// Experience, from the profile's flags: it sets the starting volumes, the length of
    /// interval repeats and whether a second hard session fits in a week.
    public enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        /// Has never raced.
        case novice
        /// Has raced, not a marathon.
        case racer
        /// Has run a marathon.
        case marathoner

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        public var description: String {
            switch self {
            case .novice: return "has not raced"
            case .racer: return "has raced"
            case .marathoner: return "has run a marathon"
            }
        }
    }

    /// Where the VDOT comes from.
    public enum Source: Hashable, Sendable {
        case bestRace(AthleteProfile.Mark)
        case bestMarathon(Duration)
        /// No mark: a conservative default for the level, lowered for a body-mass index over 25.
        case estimate
    }

    public var vdot: Double
    public var level: Level
    public var source: Source
    /// The body-mass index the volumes were scaled for.
    public var bodyMassIndex: Double
    /// What the starting durations are multiplied by: 1 up to BMI 25, 4 % less per unit
    /// above, at least 0.6 (BMI 35 and over).
    public var loadFactor: Double

    /// Default VDOT without a mark, by level: Daniels' table starts at VDOT 30 (5 km in
    /// 30:40), and a runner who has never raced is put there; a finished race or marathon
    /// without a time shows a little more endurance, so a little more (a 5 km in about 29:00
    /// and 27:40): cautious guesses, replaced by the VDOT of a real race when there is one.
    public static func defaultVDOT(for level: Level) -> Double {
        switch level {
        case .novice: return 30
        case .racer: return 32
        case .marathoner: return 34
        }
    }

    /// VDOT is oxygen per kilogram: the same heart and lungs moving more body mass give a
    /// lower VDOT. Without a mark, the default is lowered by 0.5 per BMI unit over 25 (BMI
    /// 35: 5 less), never below `VDOT.range.lowerBound`.
    public static func vdotPenalty(bodyMassIndex: Double) -> Double {
        max(0, bodyMassIndex - 25) * 0.5
    }

    /// A higher BMI starts gentler: heavier novice runners get injured more often, most
    /// when they start with more running (Nielsen et al. 2014, Int J Sports Phys Ther
    /// 9(3):338–345: BMI > 30 novices who ran more than 3 km in their first week).
    public static func loadFactor(bodyMassIndex: Double) -> Double {
        min(1, max(0.6, 1 - 0.04 * (bodyMassIndex - 25)))
    }

    /// The fitness a checked profile shows: the higher VDOT of its best race and its best
    /// marathon (Daniels: train at the VDOT of your best current performance), or the
    /// default for its level and BMI.
    public init(profile: AthleteProfile) {
        level = profile.hasRunMarathon ? .marathoner : profile.hasRaced ? .racer : .novice
        bodyMassIndex = profile.bodyMassIndex
        loadFactor = RunningFitness.loadFactor(bodyMassIndex: bodyMassIndex)
        var marks: [(vdot: Double, source: Source)] = []
        if let mark = profile.bestRace {
            marks.append((VDOT.of(distance: mark.distance, time: mark.time), .bestRace(mark)))
        }
        if let marathon = profile.bestMarathon {
            marks.append((VDOT.of(distance: Goal.marathonDistance, time: marathon), .bestMarathon(marathon)))
        }
        if let best = marks.max(by: { $0.vdot < $1.vdot }) {
            (vdot, source) = best
        } else {
            vdot = max(VDOT.range.lowerBound,
                       RunningFitness.defaultVDOT(for: level) - RunningFitness.vdotPenalty(bodyMassIndex: bodyMassIndex))
            source = .estimate
        }
    }
}

