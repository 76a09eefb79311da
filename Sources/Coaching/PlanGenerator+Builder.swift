import PacerCore

/// One plan's arithmetic: the week structure, volumes, training VDOTs and phases.
struct Builder {
    enum Kind {
        case recreational
        /// A distance to cover, no time.
        case finish(Double)
        /// A distance under the marathon in a time.
        case timed(Double, Duration)
        /// The marathon, perhaps in a time.
        case marathon(Duration?)
    }

    enum Session: Hashable {
        case easy, long, goalPace, intervals, tempo, repetitions
    }

    static let walkOrJogNames: Set<String> = ["warm-up", "cool-down", "recovery"]

    let goal: Goal
    let kind: Kind
    let fitness: RunningFitness
    let frequency: Int
    let weeks: Int
    /// Multiplies every starting duration (BMI; lowered further for a heavy novice's first week).
    var load: Double
    let taperWeeks: Int
    /// Training VDOT per week.
    let vdots: [Double]
    /// The VDOT the goal asks for (timed goals), and the highest the plan may reach.
    let goalVDOT: Double?
    let reachVDOT: Double
    let ceilingKmh: Double
    /// The fastest a repetition may be, km/h (`SafetyBounds.repetitionCeilingKmh`).
    let repetitionCeilingKmh: Double

    init(goal: Goal, fitness: RunningFitness, frequency: Int, weeks: Int) {
        self.goal = goal
        self.fitness = fitness
        self.frequency = frequency
        self.weeks = weeks
        load = fitness.loadFactor
        if let distance = goal.distance {
            if goal.isMarathon {
                kind = .marathon(goal.time)
            } else if let time = goal.time {
                kind = .timed(distance, time)
            } else {
                kind = .finish(distance)
            }
        } else {
            kind = .recreational
        }
        // Taper before a race goal: one week; two for a marathon plan long enough to afford them.
        switch kind {
        case .recreational: taperWeeks = 0
        case .marathon: taperWeeks = weeks >= 8 ? 2 : weeks >= 3 ? 1 : 0
        default: taperWeeks = weeks >= 3 ? 1 : 0
        }
        let build = weeks - taperWeeks

        let v0 = fitness.vdot
        let ceilingVDOT = VDOT.at(speedAtMaximum: SafetyBounds.fastestAboveCurrent * VDOT.speedAtMaximum(v0))
        if let distance = goal.distance, let time = goal.time {
            let target = VDOT.of(distance: distance, time: time)
            goalVDOT = target
            reachVDOT = target <= v0 ? v0 : min(target, v0 + PlanGenerator.vdotGainPerWeek * Double(build - 1), ceilingVDOT)
        } else {
            goalVDOT = nil
            reachVDOT = v0
        }
        // Linear from today's VDOT in week 1 to the reachable one in the last week before the
        // taper; the taper keeps it.
        let reach = reachVDOT
        vdots = (1...weeks).map { w in
            w >= build ? reach : v0 + (reach - v0) * Double(w - 1) / Double(build - 1)
        }
        ceilingKmh = SafetyBounds.ceilingKmh(for: fitness)
        repetitionCeilingKmh = SafetyBounds.repetitionCeilingKmh(for: fitness)
    }

    var goalReached: Bool { goalVDOT.map { $0 <= reachVDOT + 1e-9 } ?? true }

    // MARK: Week structure

    /// The sessions of week `w`, the week's first training day first: at most two hard ones,
    /// never on consecutive training days.
    func layout(week w: Int) -> [Session] {
        let n = frequency
        let easy = { (count: Int) in [Session](repeating: .easy, count: max(0, count)) }
        switch kind {
        case .recreational:
            return easy(n)
        case .finish:
            return easy(n - 1) + [.long]
        case .marathon:
            if n >= 3 && fitness.level > .novice { return [.tempo] + easy(n - 2) + [.long] }
            return easy(n - 1) + [.long]
        case .timed(let distance, _):
            if n == 1 { return [.goalPace] }
            let second: Session = fitness.level > .novice ? quality(week: w, distance: distance) : .easy
            if n == 2 { return [.goalPace, .easy] }
            if n == 3 { return [.goalPace, .easy, second] }
            return [.goalPace, .easy, second] + easy(n - 4) + [.long]
        }
    }

    /// A timed goal's second hard session in week `w`, after Daniels' season (DRF ch. 5 and his
    /// 5K–10K programs): the build weeks in thirds, the last third nearest the race: first
    /// repetitions (R: speed and economy), then intervals (I: the hardest, VO2max), then the
    /// race's own emphasis: intervals again under 10 km, threshold (T) from 10 km. From 15 km
    /// (the half marathon) threshold throughout, Daniels' emphasis for the longer races. A
    /// plan too short for three thirds keeps the later ones; the taper keeps the last.
    func quality(week w: Int, distance: Double) -> Session {
        if distance >= 15_000 { return .tempo }
        let build = weeks - taperWeeks
        let fromEnd = build - min(w, build)  // 0 in the last build week and the taper
        switch 2 - min(2, fromEnd * 3 / build) {
        case 0: return .repetitions
        case 1: return .intervals
        default: return distance < 10_000 ? .intervals : .tempo
        }
    }

    func title(_ session: Session) -> String {
        switch session {
        case .easy: return "easy run"
        case .long:
            if case .marathon = kind { return "long steady run" }
            return "long run"
        case .goalPace: return "goal-pace repeats"
        case .intervals: return "intervals"
        case .tempo: return "tempo"
        case .repetitions: return "repetitions"
        }
    }

    /// Starting minutes by level (novice, racer, marathoner): running minutes for easy and
    /// long runs (warm-up and cool-down come on top), the whole session for the others.
    func baseMinutes(_ session: Session) -> Double {
        let i = fitness.level.rawValue
        switch session {
        case .easy: return [20, 30, 40][i]
        case .long: return [30, 50, 70][i]
        case .goalPace, .intervals, .tempo, .repetitions: return [35, 45, 55][i]
        }
    }

    /// The most minutes a session grows to.
    func capMinutes(_ session: Session, speeds: Speeds) -> Double {
        switch session {
        case .easy:
            if case .recreational = kind { return 45 }
            return 60
        case .long:
            switch kind {
            case .finish(let distance):
                // A little over the goal distance at easy speed, so race day is not the first time.
                return min(PlanGenerator.longRunMinutes, distance * 1.1 / mid(speeds.easy) / 60)
            case .marathon(let time):
                let fastest = time == nil ? mid(speeds.steady) : max(mid(speeds.steady), mid(speeds.marathonPace))
                let warm = 10 * 60 * mid(speeds.jog)
                return min(PlanGenerator.longRunMinutes, (PlanGenerator.longRunMetres - warm) / fastest / 60)
            default:
                return 90
            }
        case .goalPace, .intervals, .tempo, .repetitions:
            return 75
        }
    }
}
