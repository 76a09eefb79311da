import PacerCore

/// How a phase ends (R1): on the timer, on the odometer, or at the runner's lap press.
public enum PhaseEnd: Hashable, Sendable {
    /// After this much active time (pauses excluded).
    case time(Duration)
    /// After this many metres on the odometer: the distance the runner hears and sees.
    case distance(Double)
    /// At a lap press ("easy until I press lap"): an open phase.
    case lapPress
    /// Only when the runner stops: a free run. A lap press splits it into laps.
    case stop
}

/// What the runner is coached to hold in a phase: a pace band, a heart-rate zone (judged over
/// its own window, once the heart has caught up with the effort), or nothing.
public enum PhaseTarget: Hashable, Sendable {
    /// No target: a recovery jog, an open phase, a free run. No pace cues.
    case none
    /// A speed range, metres per second.
    case speed(minimum: Double, maximum: Double)
    /// A heart-rate band: no pace cues, heart-rate cues instead.
    case heartRate(HeartRateTarget)
}

/// A heart-rate band a phase targets: one of the athlete's zones, or beats per minute.
public enum HeartRateTarget: Hashable, Sendable {
    /// Zone 1…5 of the athlete's zones (`HeartRateZones`), resolved when the workout runs.
    case zone(Int)
    /// A band of beats per minute.
    case bpm(minimum: Int, maximum: Int)

    /// The band in beats per minute; nil for a zone when the athlete has no zones.
    public func range(_ zones: HeartRateZones?) -> ClosedRange<Int>? {
        switch self {
        case .zone(let n): zones?.range(zone: n)
        case .bpm(let minimum, let maximum): minimum...maximum
        }
    }

    /// How people write it: "zone 2", "140-150 bpm".
    public var label: String {
        switch self {
        case .zone(let n): "zone \(n)"
        case .bpm(let minimum, let maximum): "\(minimum)-\(maximum) bpm"
        }
    }
}

/// A heart rate a phase is not to go above, beside its pace band (an easy run's, a long run's):
/// beats per minute, or the top of one of the athlete's zones.
public enum HeartRateCeiling: Hashable, Sendable {
    case bpm(Int)
    /// The highest rate of zone 1…5.
    case zoneTop(Int)

    /// Beats per minute; nil for a zone when the athlete has no zones.
    public func bpm(_ zones: HeartRateZones?) -> Int? {
        switch self {
        case .bpm(let b): b
        case .zoneTop(let n): zones?.range(zone: n).upperBound
        }
    }

    /// How people write it: "150 bpm", "top of zone 2".
    public var label: String {
        switch self {
        case .bpm(let b): "\(b) bpm"
        case .zoneTop(let n): "top of zone \(n)"
        }
    }
}

/// Where a phase stands in a repeated group ("repeat 3 of 6").
public struct Repetition: Hashable, Sendable {
    /// The group's number in its workout, from 0 (a workout may repeat several groups).
    public var group: Int
    /// This pass through the group, from 1.
    public var number: Int
    /// How many times the group runs.
    public var count: Int

    public init(group: Int, number: Int, count: Int) {
        self.group = group
        self.number = number
        self.count = count
    }
}

/// A phase of a workout: a name, how it ends, and what the runner should hold (R1, R11).
/// Speeds are metres per second inside; km/h and min/km for people.
public struct Phase: Hashable, Sendable {
    public var name: String
    public var end: PhaseEnd
    public var target: PhaseTarget
    /// A lap press ends the phase early (always so for `PhaseEnd.lapPress`). Otherwise a
    /// lap press only splits the activity into laps, the coaching unchanged.
    public var lapEndsEarly: Bool
    /// Its place in a repeated group, when it is in one.
    public var repetition: Repetition?
    /// Words for the runner from the workout's author (a FIT step's notes).
    public var notes: String?
    /// A heart rate not to go above, beside the pace band (an easy or long run's cap).
    public var heartRateCeiling: HeartRateCeiling?

    public init(name: String, end: PhaseEnd, target: PhaseTarget, lapEndsEarly: Bool = false,
                repetition: Repetition? = nil, notes: String? = nil, heartRateCeiling: HeartRateCeiling? = nil) {
        self.name = name
        self.end = end
        self.target = target
        self.lapEndsEarly = lapEndsEarly || end == .lapPress
        self.repetition = repetition
        self.notes = notes
        self.heartRateCeiling = heartRateCeiling
    }

    /// The heart-rate band the phase targets, when it targets one.
    public var heartRateTarget: HeartRateTarget? {
        guard case .heartRate(let t) = target else { return nil }
        return t
    }

    /// The phase is coached by heart rate: a band, or a ceiling.
    public var usesHeartRate: Bool { heartRateTarget != nil || heartRateCeiling != nil }

    /// A phase that ends on time, with a speed range.
    public init(name: String, duration: Duration, minimumSpeed: Double, maximumSpeed: Double) {
        self.init(name: name, end: .time(duration), target: .speed(minimum: minimumSpeed, maximum: maximumSpeed))
    }

    /// The speed range, when the phase has one.
    public var speedBand: ClosedRange<Double>? {
        guard case .speed(let minimum, let maximum) = target else { return nil }
        return minimum...maximum
    }

    /// Metres per second; 0 without a speed range.
    public var minimumSpeed: Double { speedBand?.lowerBound ?? 0 }
    /// Metres per second; 0 without a speed range.
    public var maximumSpeed: Double { speedBand?.upperBound ?? 0 }

    /// The middle of the range: the speed the phase is built around; 0 without one.
    public var targetSpeed: Double { (minimumSpeed + maximumSpeed) / 2 }

    /// The phase's time when it ends on time.
    public var timeLimit: Duration? {
        if case .time(let d) = end { return d }
        return nil
    }

    /// The phase's metres when it ends on distance.
    public var distanceLimit: Double? {
        if case .distance(let m) = end { return m }
        return nil
    }

    /// A jog's speed (m/s, 8 km/h): what a distance phase without a target is planned at.
    public static let plannedJogSpeed = 8 / 3.6

    /// The time the phase is planned to last: its time, or its distance at its target speed
    /// (a jog's without one); zero for a phase that ends at a press.
    public var duration: Duration {
        switch end {
        case .time(let d): return d
        case .distance(let m):
            let speed = targetSpeed > 0 ? targetSpeed : Self.plannedJogSpeed
            return .milliseconds(Int64((m / speed * 1000).rounded()))
        case .lapPress, .stop: return .zero
        }
    }

    /// The distance the phase implies (R1): its distance, or its target speed times its
    /// duration, metres.
    public var impliedDistance: Double { distanceLimit ?? targetSpeed * duration.inSeconds }

    /// The same phase, without its place in a repeated group: two passes through a group
    /// are the same phases.
    public var unrepeated: Phase {
        var p = self
        p.repetition = nil
        return p
    }
}

/// A workout: phases followed in order.
public struct Workout: Hashable, Sendable {
    public var name: String
    /// The day it is planned for, when the plan dates its workouts.
    public var date: CivilDate?
    public var phases: [Phase]

    public init(name: String, date: CivilDate? = nil, phases: [Phase]) {
        self.name = name
        self.date = date
        self.phases = phases
    }

    /// The time it is planned to last (`Phase.duration`: distance phases at their target speed,
    /// open phases not counted).
    public var duration: Duration { phases.reduce(.zero) { $0 + $1.duration } }

    /// The same workout with its runs of a repeated group (up to four phases, repeated in a
    /// row) marked as repeats (`Repetition`), for a workout built phase by phase; the group
    /// covering the most phases wins, the shorter on a tie. Phases already marked stay so.
    public func groupingRepeats() -> Workout {
        var out = self
        var groups = (phases.compactMap { $0.repetition?.group }.max() ?? -1) + 1
        var i = 0
        while i < phases.count {
            guard phases[i].repetition == nil else { i += 1; continue }
            var best = (period: 1, count: 1)
            for period in 1...4 where i + 2 * period <= phases.count {
                let group = phases[i..<i + period]
                guard group.allSatisfy({ $0.repetition == nil }) else { continue }
                var count = 1
                while i + (count + 1) * period <= phases.count,
                      phases[i + count * period..<i + (count + 1) * period].elementsEqual(group) {
                    count += 1
                }
                if count > 1 && period * count > best.period * best.count { best = (period, count) }
            }
            if best.count > 1 {
                for n in 0..<best.count {
                    for k in 0..<best.period {
                        out.phases[i + n * best.period + k].repetition = Repetition(group: groups, number: n + 1, count: best.count)
                    }
                }
                groups += 1
                i += best.period * best.count
            } else {
                i += 1
            }
        }
        return out
    }

    /// Whether every phase ends on the timer (the workout's time is exact, not planned).
    public var endsOnTime: Bool { phases.allSatisfy { $0.timeLimit != nil } }
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
