import PacerCore

/// A week's speeds: km/h, rounded to 0.1 and kept inside `SafetyBounds` and the runner's
/// ceiling, and the phases built on them.
extension Builder {
    typealias Range = (lo: Double, hi: Double)

    /// A week's speed ranges, at its training VDOT.
    struct Speeds {
        var vdot: Double
        /// Warm-ups, cool-downs and recoveries: a brisk walk to a relaxed jog (70 % of VDOT).
        var jog: Range
        var easy: Range
        /// Marathon long runs: from the top of the easy zone to marathon race pace.
        var steady: Range
        /// ±1.5 % around marathon race pace (the goal's, once reached).
        var marathonPace: Range
        var interval: Range
        /// Daniels' T, I and R paces at the week's VDOT (`DanielsPace`), m/s.
        var thresholdPace: Double
        var intervalPace: Double
        var repetitionPace: Double
        /// Tempo phases: ±1.5 % around T pace.
        var tempo: Range
        /// Repetitions: ±2.5 % around R pace, within the repetition ceiling.
        var repetition: Range
        /// The race pace for the goal's distance (the goal's own pace once reached), and ±1.5 %.
        var goalPaceSpeed: Double
        var goalPace: Range
    }

    func speeds(_ vdot: Double) -> Speeds {
        let marathonRace = VDOT.raceSpeed(distance: Goal.marathonDistance, vdot: vdot)
        let reached = goalVDOT.map { vdot >= $0 - 1e-9 } ?? false
        let marathonSpeed = goal.isMarathon && reached ? goal.speed ?? marathonRace : marathonRace
        var goalSpeed = marathonSpeed
        if let distance = goal.distance, !goal.isMarathon {
            goalSpeed = reached ? goal.speed ?? 0 : VDOT.raceSpeed(distance: distance, vdot: vdot)
        }
        return Speeds(
            vdot: vdot,
            jog: bounded(4.5, kmh(VDOT.speed(fraction: 0.70, of: vdot))),
            easy: zone(.easy, vdot),
            steady: bounded(kmh(TrainingZone.easy.speeds(at: vdot).upperBound), kmh(marathonRace)),
            marathonPace: around(marathonSpeed),
            interval: zone(.interval, vdot),
            thresholdPace: DanielsPace.threshold.speed(at: vdot),
            intervalPace: DanielsPace.interval.speed(at: vdot),
            repetitionPace: DanielsPace.repetition.speed(at: vdot),
            tempo: around(DanielsPace.threshold.speed(at: vdot)),
            repetition: around(DanielsPace.repetition.speed(at: vdot), by: 0.025, top: repetitionCeilingKmh),
            goalPaceSpeed: goalSpeed,
            goalPace: around(goalSpeed))
    }

    func kmh(_ metresPerSecond: Double) -> Double { Pace.kilometresPerHour(metresPerSecond) }
    func mid(_ r: Range) -> Double { Pace.metresPerSecond(kilometresPerHour: (r.lo + r.hi) / 2) }

    func zone(_ z: TrainingZone, _ vdot: Double) -> Range {
        let s = z.speeds(at: vdot)
        return bounded(kmh(s.lowerBound), kmh(s.upperBound))
    }

    /// ±1.5 % (or `by`) around a pace, within `top` km/h (the runner's ceiling by default).
    func around(_ metresPerSecond: Double, by fraction: Double = 0.015, top: Double? = nil) -> Range {
        bounded(kmh(metresPerSecond * (1 - fraction)), kmh(metresPerSecond * (1 + fraction)), top: top)
    }

    /// Rounded to 0.1 km/h, at least 4 km/h, at most 25 km/h and the runner's ceiling (or
    /// `top`), and at least 0.1 km/h wide.
    func bounded(_ lo: Double, _ hi: Double, top: Double? = nil) -> Range {
        let top = min(SafetyBounds.maximumKmh, top ?? ceilingKmh)
        var l = max(SafetyBounds.minimumKmh, min(top - 0.1, (lo * 10).rounded() / 10))
        var h = min(top, (hi * 10).rounded() / 10)
        if h <= l {
            if l + 0.1 <= top { h = ((l + 0.1) * 10).rounded() / 10 } else { l = ((h - 0.1) * 10).rounded() / 10 }
        }
        return (l, h)
    }

    func phase(_ name: String, _ minutes: Double, _ r: Range) -> Phase {
        Phase(name: name, duration: .milliseconds(Int64((minutes * 60_000).rounded())),
              minimumSpeed: Pace.metresPerSecond(kilometresPerHour: r.lo),
              maximumSpeed: Pace.metresPerSecond(kilometresPerHour: r.hi))
    }

    /// A phase that ends on the odometer after `metres`, with a speed range and the pace it is
    /// built around in its notes.
    func phase(_ name: String, metres: Double, _ r: Range, notes: String? = nil) -> Phase {
        Phase(name: name, end: .distance(metres),
              target: .speed(minimum: Pace.metresPerSecond(kilometresPerHour: r.lo),
                             maximum: Pace.metresPerSecond(kilometresPerHour: r.hi)),
              notes: notes)
    }

    /// A recovery jog without a target (Daniels gives its length, not its pace): not judged.
    func jog(minutes: Double) -> Phase {
        Phase(name: "recovery", end: .time(.milliseconds(Int64((minutes * 60_000).rounded()))), target: .none)
    }

    /// A recovery jog without a target over `metres`.
    func jog(metres: Double) -> Phase {
        Phase(name: "recovery", end: .distance(metres), target: .none)
    }

    static func halves(_ minutes: Double) -> Double { (minutes * 2).rounded(.down) / 2 }
}
