import PacerCore

/// Training plans from the athlete's data (R3, R9, R14, R15): a pure, deterministic function
/// of the profile, the goal, the start date and the deadline. The same inputs give the same
/// plan, on any machine; the plan is an ordinary `TrainingPlan`, written in the plan file
/// format by `PlanWriter` and followed like a hand-written one.
///
/// The rules, and the running-training sources they follow:
///
/// | rule | value | source |
/// |---|---|---|
/// | current fitness | VDOT of the best race or marathon (the higher) | Daniels & Gilbert, *Oxygen Power* (1979); Daniels' Running Formula (DRF) ch. 3–4 |
/// | without a mark | VDOT 30 (never raced), 32 (raced), 34 (marathon), −0.5 per BMI unit over 25, ≥ 20 | DRF table starts at 30; VDOT is per kg |
/// | zones | easy 59–74 %, marathon = predicted marathon pace, threshold 83–88 %, interval 95–100 % of VDOT | DRF ch. 4 |
/// | progression | training VDOT rises ≤ 0.25 a week (1 per 4 weeks) toward the goal's VDOT | derived from DRF: hold a training stress several weeks before raising it; paces come from a race ("prove it by racing faster") |
/// | fastest phase | ≤ 5 % above today's speed at VO2max (top of the interval zone) | DRF: I pace is VO2max pace, faster adds stress, not benefit |
/// | hard sessions | ≤ 2 a week (goal pace, intervals, tempo, marathon long run) | DRF's programs: two quality sessions a week |
/// | interval volume | ≤ 8 % of the week's time, repeats 2–4 min, equal jog | DRF ch. 4 (I ≤ 8 % of weekly mileage, 3–5 min bouts, recovery ≤ the bout) |
/// | tempo volume | ≤ 10 % of the week, 20 min continuous, cruise repeats beyond | DRF ch. 4 (T ≤ 10 % of weekly mileage; the 20-minute tempo; cruise intervals) |
/// | long runs | ≤ 150 min (marathon; 32 km too), marathon-pace part ≤ 110 min | DRF (long runs ≤ 2.5 h; M runs ≤ the lesser of 110 min and 18 mi) |
/// | weekly volume | ≤ +10 % on the biggest week so far; every 4th week −20 % | the "10 % rule" of coaching practice; Nielsen et al. 2014 (JOSPT 44(10)): more injuries after > 30 % in two weeks |
/// | heavier runners | durations × (1 − 4 % per BMI unit over 25), ≥ 0.6 (a design choice); a novice over BMI 30 runs < 3 km in week 1 | Nielsen et al. 2014, IJSPT 9(3) |
/// | taper | last week −45 % volume (marathon: last two, −40 % then −55 %), same speeds and frequency | Bosquet et al. 2007, MSSE 39(8) |
/// | hard bounds | phases 4–25 km/h, 1–180 min; workouts ≤ 210 min | `SafetyBounds` |
public enum PlanGenerator {
    /// The longest plan: a season. Beyond it fitness and life change too much to plan now.
    public static let maximumWeeks = 52
    /// The deadline when none is given: 12 weeks, 16 for a marathon (common plan lengths).
    public static let defaultWeeks = 12
    public static let defaultMarathonWeeks = 16
    /// Training VDOT gained per week at most: one point per four weeks. Daniels raises
    /// training paces only after several weeks at a stress, and then by about one VDOT; a
    /// bigger step needs a race to show it.
    public static let vdotGainPerWeek = 0.25
    /// Weekly volume growth at most (the "10 % rule"), and the cut-back every 4th week.
    public static let weeklyGrowth = 1.10
    public static let cutBack = 0.80
    /// The longest marathon long run, minutes of running (2.5 h with warm-up and cool-down),
    /// and metres.
    public static let longRunMinutes = 140.0
    public static let longRunMetres = 32_000.0
    /// Daniels' cap on a marathon-pace run, minutes.
    public static let marathonPaceMinutes = 110.0
    /// The first week's running for a novice over BMI 30, metres (Nielsen et al. 2014).
    public static let heavyNoviceFirstWeekMetres = 3_000.0

    /// The deadline when none is given.
    public static func defaultDeadline(for goal: Goal, start: CivilDate) -> CivilDate {
        start.adding(days: 7 * (goal.isMarathon ? defaultMarathonWeeks : defaultWeeks))
    }

    /// Whole weeks from `start` to `deadline`: at least 1, at most `maximumWeeks`.
    public static func weeks(start: CivilDate, deadline: CivilDate) throws(PlanGeneratorError) -> Int {
        let days = deadline.daysSince1970 - start.daysSince1970
        guard days > 0 else { throw .deadlineNotAfterStart(start: start, deadline: deadline) }
        guard days >= 7 else { throw .deadlineTooNear(start: start, deadline: deadline) }
        guard days <= 7 * maximumWeeks else { throw .deadlineTooFar(start: start, deadline: deadline) }
        return days / 7
    }

    /// Refuses a goal the generator does not plan for, saying why.
    public static func check(goal: Goal) throws(PlanGeneratorError) {
        guard let distance = goal.distance else {
            if goal.time != nil {
                throw .goalOutOfRange(goal.name, "a time without a distance: give the distance too (10km-in-50:00)")
            }
            return
        }
        guard distance.isFinite, distance >= 1000 else {
            throw .goalOutOfRange(goal.name, "\(GoalCatalog.format(metres: distance)) is shorter than 1 km, the shortest goal planned")
        }
        guard distance <= Goal.marathonDistance + 0.5 else {
            throw .goalOutOfRange(
                goal.name, "\(GoalCatalog.format(metres: distance)) is longer than the marathon (42.195 km), the longest "
                    + "goal planned: Daniels' tables end there (for the marathon write `marathon` or 42.195km)")
        }
        guard let time = goal.time else { return }
        guard distance >= 5000 else {
            throw .goalOutOfRange(
                goal.name, "a timed goal needs at least 5 km: shorter races are run faster than the interval zone "
                    + "and need repetition training, which the generator does not plan (drop the time to just run it)")
        }
        let kmh = Pace.kilometresPerHour(distance / time.inSeconds)
        guard kmh >= SafetyBounds.minimumKmh else {
            throw .goalOutOfRange(
                goal.name, "\(format(kmh)) km/h is slower than a walk (\(format(SafetyBounds.minimumKmh)) km/h): "
                    + "drop the time, the goal is to finish")
        }
        let vdot = VDOT.of(distance: distance, time: time)
        guard vdot <= VDOT.range.upperBound else {
            throw .goalOutOfRange(
                goal.name, "\(format(kmh)) km/h is beyond world class (VDOT \(format(vdot)); Daniels' table ends at "
                    + "\(format(VDOT.range.upperBound))): is the time right?")
        }
    }

    /// Refuses a profile the generator cannot plan from, saying which value and why.
    public static func check(profile: AthleteProfile) throws(PlanGeneratorError) {
        func within(_ value: Double, _ range: ClosedRange<Double>, _ field: String, _ unit: String) throws(PlanGeneratorError) {
            guard value.isFinite else { throw .profile(field, "not a number") }
            guard range.contains(value) else {
                throw .profile(field, "\(format(value)) \(unit) is outside \(format(range.lowerBound))–\(format(range.upperBound)) \(unit)")
            }
        }
        try within(profile.weight, AthleteProfile.weightRange, "weight", "kg")
        try within(profile.height, AthleteProfile.heightRange, "height", "cm")
        guard AthleteProfile.frequencyRange.contains(profile.weeklyFrequency) else {
            throw .profile("weekly frequency", "\(profile.weeklyFrequency) days a week is outside 1–7")
        }
        if profile.hasRunMarathon && !profile.hasRaced {
            throw .profile("raced", "has run a marathon but has not raced: a marathon is a race")
        }
        if let mark = profile.bestRace {
            guard profile.hasRaced else { throw .profile("best race", "given, but the profile says the runner has not raced") }
            guard mark.distance.isFinite, (1500...Goal.marathonDistance + 0.5).contains(mark.distance) else {
                throw .profile("best race", "\(GoalCatalog.format(metres: mark.distance)) is outside 1.5–42.195 km, "
                    + "the distances Daniels' model predicts from")
            }
            guard mark.time > .zero else { throw .profile("best race", "the time must be positive") }
            try checkMark(VDOT.of(distance: mark.distance, time: mark.time), "best race",
                          "\(GoalCatalog.format(metres: mark.distance)) in \(GoalCatalog.format(mark.time))")
        }
        if let marathon = profile.bestMarathon {
            guard profile.hasRunMarathon else {
                throw .profile("best marathon", "given, but the profile says the runner has not run a marathon")
            }
            guard marathon > .zero else { throw .profile("best marathon", "the time must be positive") }
            try checkMark(VDOT.of(distance: Goal.marathonDistance, time: marathon), "best marathon", GoalCatalog.format(marathon))
        }
    }

    private static func checkMark(_ vdot: Double, _ field: String, _ shown: String) throws(PlanGeneratorError) {
        guard vdot.isFinite, vdot >= VDOT.range.lowerBound else {
            throw .profile(field, "\(shown) is slower than the generator plans for (VDOT \(format(VDOT.range.lowerBound)), "
                + "5 km in about 39 minutes): its easy running would be a slow walk; is the time right?")
        }
        guard vdot <= VDOT.range.upperBound else {
            throw .profile(field, "\(shown) is beyond world class (VDOT \(format(vdot)); Daniels' table ends at "
                + "\(format(VDOT.range.upperBound))): is the time right?")
        }
    }

    /// The plan for `goal`, from `start` to `deadline` (the plan's deadline: the last day a
    /// workout may be started). Refuses a bad profile, goal or deadline with the reason.
    public static func generate(
        profile: AthleteProfile, goal: Goal, start: CivilDate, deadline: CivilDate
    ) throws(PlanGeneratorError) -> TrainingPlan {
        try check(profile: profile)
        try check(goal: goal)
        let weeks = try weeks(start: start, deadline: deadline)
        let fitness = RunningFitness(profile: profile)
        var builder = Builder(goal: goal, fitness: fitness, frequency: profile.weeklyFrequency, weeks: weeks)
        var workouts = builder.build()
        // A novice over BMI 30 runs less than 3 km in the first week (Nielsen et al. 2014):
        // scale every duration down until the first week fits.
        if builder.heavyNovice {
            for _ in 0..<20 {
                let metres = runningMetres(workouts.prefix(profile.weeklyFrequency))
                guard metres >= heavyNoviceFirstWeekMetres else { break }
                builder.load *= 0.95 * heavyNoviceFirstWeekMetres / metres
                workouts = builder.build()
            }
        }
        let plan = TrainingPlan(
            name: "\(capitalized(goal.name)) by \(deadline)",
            summary: builder.summary(start: start, deadline: deadline),
            deadline: deadline, workouts: workouts)
        let violations = SafetyBounds.violations(of: plan, frequency: profile.weeklyFrequency, fitness: fitness)
        if let first = violations.first { throw .unsafe(first) }
        return plan
    }

    /// Metres of running (warm-ups, cool-downs and recoveries left out) in `workouts`.
    public static func runningMetres(_ workouts: some Sequence<Workout>) -> Double {
        workouts.reduce(0) { total, workout in
            workout.phases.filter { !Builder.walkOrJogNames.contains($0.name) }.reduce(total) { $0 + $1.impliedDistance }
        }
    }

    /// `70`, `22.9`: one decimal, dropped when zero. A value beyond any a profile holds
    /// (a refused `--weight 1e20`) as Swift writes it, never trapping on the conversion.
    static func format(_ v: Double) -> String {
        guard v.isFinite, abs(v) < 1e15 else { return "\(v)" }
        let tenths = Int((v * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// `12.0`: always one decimal.
    static func tenths(_ v: Double) -> String {
        let t = Int((v * 10).rounded())
        return "\(t / 10).\(abs(t % 10))"
    }

    static func capitalized(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }
}

/// The bounds no generated phase, workout or week crosses, whatever the inputs.
public enum SafetyBounds {
    /// A slow walk; slower, the GPS speed is mostly noise.
    public static let minimumKmh = 4.0
    /// Above elite 5 km race pace (the 5000 m world record, 12:35, is 23.8 km/h).
    public static let maximumKmh = 25.0
    /// Shorter phases are gone before a pace cue can help; longer ones exceed any long run.
    public static let phaseMinutes = 1.0...180.0
    /// 3.5 h: the longest workout, warm-up and cool-down included.
    public static let maximumWorkoutMinutes = 210.0
    /// No phase faster than this times today's speed at VO2max.
    public static let fastestAboveCurrent = 1.05
    /// Hard sessions a week at most.
    public static let hardSessionsPerWeek = 2
    /// Workout titles that count as hard sessions.
    public static let hardTitles: Set<String> = ["goal-pace repeats", "intervals", "tempo", "long steady run"]

    /// The fastest speed allowed for a runner of `fitness`, km/h (one decimal, rounded down).
    public static func ceilingKmh(for fitness: RunningFitness) -> Double {
        (Pace.kilometresPerHour(fastestAboveCurrent * VDOT.speedAtMaximum(fitness.vdot)) * 10).rounded(.down) / 10
    }

    /// The title of a generated workout: `tempo` for `Week 3 · day 2: tempo (taper)`.
    public static func title(of workout: Workout) -> String {
        var title = Substring(workout.name)
        if let colon = title.firstRange(of: ": ") { title = title[colon.upperBound...] }
        if title.hasSuffix(" (taper)") { title = title.dropLast(8) }
        return String(title)
    }

    /// What a generated plan breaks, in words; empty when it keeps every bound.
    public static func violations(of plan: TrainingPlan, frequency: Int, fitness: RunningFitness) -> [String] {
        var found: [String] = []
        let ceiling = ceilingKmh(for: fitness) + 1e-9
        for workout in plan.workouts {
            let minutes = workout.duration.inSeconds / 60
            if minutes > maximumWorkoutMinutes + 1e-9 {
                found.append("\(workout.name): \(minutes) min is longer than \(maximumWorkoutMinutes) min")
            }
            for phase in workout.phases {
                let lo = Pace.kilometresPerHour(phase.minimumSpeed), hi = Pace.kilometresPerHour(phase.maximumSpeed)
                let m = phase.duration.inSeconds / 60
                if lo < minimumKmh - 1e-9 || hi > maximumKmh + 1e-9 || !(lo < hi) {
                    found.append("\(workout.name), \(phase.name): \(lo)–\(hi) km/h is outside \(minimumKmh)–\(maximumKmh) km/h")
                }
                if hi > ceiling {
                    found.append("\(workout.name), \(phase.name): \(hi) km/h is more than 5 % above today's VO2max speed")
                }
                if !phaseMinutes.contains(m) {
                    found.append("\(workout.name), \(phase.name): \(m) min is outside 1–180 min")
                }
            }
        }
        guard frequency > 0, plan.workouts.count % frequency == 0 else {
            found.append("\(plan.workouts.count) workouts are not whole weeks of \(frequency)")
            return found
        }
        var biggest = 0.0
        for (index, start) in stride(from: 0, to: plan.workouts.count, by: frequency).enumerated() {
            let week = plan.workouts[start..<start + frequency]
            let hard = week.filter { hardTitles.contains(title(of: $0)) }.count
            if hard > hardSessionsPerWeek {
                found.append("week \(index + 1): \(hard) hard sessions")
            }
            let minutes = week.reduce(0) { $0 + $1.duration.inSeconds / 60 }
            if index > 0 && minutes > biggest * PlanGenerator.weeklyGrowth + 1e-6 {
                found.append("week \(index + 1): \(minutes) min is more than 10 % above the biggest earlier week (\(biggest) min)")
            }
            biggest = max(biggest, minutes)
        }
        return found
    }
}

extension AthleteProfile {
    /// `70 kg, 175 cm (BMI 22.9), 3 days a week, has raced, best race 5 km in 25:00`.
    public var summary: String {
        var parts = [
            "\(PlanGenerator.format(weight)) kg", "\(PlanGenerator.format(height)) cm (BMI \(PlanGenerator.format(bodyMassIndex)))",
            "\(weeklyFrequency) day\(weeklyFrequency == 1 ? "" : "s") a week",
            hasRunMarathon ? "has run a marathon" : hasRaced ? "has raced" : "has not raced",
        ]
        if let mark = bestRace {
            parts.append("best race \(GoalCatalog.format(metres: mark.distance)) in \(GoalCatalog.format(mark.time))")
        }
        if let marathon = bestMarathon { parts.append("best marathon \(GoalCatalog.format(marathon))") }
        return parts.joined(separator: ", ")
    }
}

// MARK: - Building

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
        case easy, long, goalPace, intervals, tempo
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
    }

    var goalReached: Bool { goalVDOT.map { $0 <= reachVDOT + 1e-9 } ?? true }

    // MARK: Week structure

    /// The sessions of a week, day 1 first: at most two hard ones, never back to back.
    var layout: [Session] {
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
            let second: Session = fitness.level > .novice ? (distance < 10_000 ? .intervals : .tempo) : .easy
            if n == 2 { return [.goalPace, .easy] }
            if n == 3 { return [.goalPace, .easy, second] }
            return [.goalPace, .easy, second] + easy(n - 4) + [.long]
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
        }
    }

    /// Starting minutes by level (novice, racer, marathoner): running minutes for easy and
    /// long runs (warm-up and cool-down come on top), the whole session for the others.
    func baseMinutes(_ session: Session) -> Double {
        let i = fitness.level.rawValue
        switch session {
        case .easy: return [20, 30, 40][i]
        case .long: return [30, 50, 70][i]
        case .goalPace, .intervals, .tempo: return [35, 45, 55][i]
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
        case .goalPace, .intervals, .tempo:
            return 75
        }
    }

    // MARK: Speeds (km/h, rounded to 0.1 and kept inside the bounds)

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
        var threshold: Range
        var interval: Range
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
            threshold: zone(.threshold, vdot),
            interval: zone(.interval, vdot),
            goalPaceSpeed: goalSpeed,
            goalPace: around(goalSpeed))
    }

    func kmh(_ metresPerSecond: Double) -> Double { Pace.kilometresPerHour(metresPerSecond) }
    func mid(_ r: Range) -> Double { Pace.metresPerSecond(kilometresPerHour: (r.lo + r.hi) / 2) }

    func zone(_ z: TrainingZone, _ vdot: Double) -> Range {
        let s = z.speeds(at: vdot)
        return bounded(kmh(s.lowerBound), kmh(s.upperBound))
    }

    /// ±1.5 % around a pace.
    func around(_ metresPerSecond: Double) -> Range {
        bounded(kmh(metresPerSecond * 0.985), kmh(metresPerSecond * 1.015))
    }

    /// Rounded to 0.1 km/h, at least 4 km/h, at most 25 km/h and the runner's ceiling, and
    /// at least 0.1 km/h wide.
    func bounded(_ lo: Double, _ hi: Double) -> Range {
        let top = min(SafetyBounds.maximumKmh, ceilingKmh)
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

    static func halves(_ minutes: Double) -> Double { (minutes * 2).rounded(.down) / 2 }

    // MARK: The plan

    func build() -> [Workout] {
        let days = layout
        var workouts: [Workout] = []
        var largest: [Session: Double] = [:], previous: [Session: Double] = [:]
        for w in 1...weeks {
            let speeds = self.speeds(vdots[w - 1])
            let taper = w > weeks - taperWeeks
            // Minutes per session: the start for the level and BMI in week 1; then 10 % over
            // the session's largest so far, within its cap; 20 % under last week's every 4th
            // week; a share of the largest in the taper (45 % less; 40 then 55 % less over two).
            var minutes: [Double] = []
            for session in days {
                let cap = capMinutes(session, speeds: speeds)
                var m: Double
                if let before = largest[session], let last = previous[session] {
                    if taper {
                        let share = taperWeeks == 1 ? 0.55 : (w == weeks ? 0.45 : 0.60)
                        m = before * share
                    } else if w % 4 == 0 {
                        m = last * PlanGenerator.cutBack
                    } else {
                        m = min(cap, before * PlanGenerator.weeklyGrowth)
                    }
                } else {
                    m = min(cap, baseMinutes(session) * load)
                }
                minutes.append(max(1, Builder.halves(m)))
            }
            for (session, m) in zip(days, minutes) {
                previous[session] = m
                if !taper { largest[session] = max(largest[session] ?? 0, m) }
            }
            let weekMinutes = zip(days, minutes).reduce(0) { $0 + (($1.0 == .easy || $1.0 == .long) ? $1.1 + 10 : $1.1) }
            let progress = weeks - taperWeeks <= 1 ? 1 : min(1, Double(w - 1) / Double(weeks - taperWeeks - 1))
            for (d, (session, m)) in zip(days, minutes).enumerated() {
                let phases = self.phases(session, minutes: m, weekMinutes: weekMinutes, speeds: speeds, progress: progress)
                workouts.append(Workout(
                    name: "Week \(w) · day \(d + 1): \(title(session))\(taper ? " (taper)" : "")", phases: phases))
            }
        }
        return workouts
    }

    func phases(_ session: Session, minutes m: Double, weekMinutes: Double, speeds: Speeds, progress: Double) -> [Phase] {
        let jog = speeds.jog
        switch session {
        case .easy:
            return [phase("warm-up", 5, jog), phase("easy", m, speeds.easy), phase("cool-down", 5, jog)]
        case .long:
            if case .marathon(let time) = kind {
                var pace = 0.0
                if time != nil {
                    // Daniels: part of the long run at marathon pace, growing to a third of it.
                    pace = min(PlanGenerator.marathonPaceMinutes, Builder.halves(m * (0.1 + 0.23 * progress)))
                    if pace < 1 || m - pace < 1 { pace = 0 }
                }
                var phases = [phase("warm-up", 5, jog), phase("steady", m - pace, speeds.steady)]
                if pace > 0 { phases.append(phase("marathon pace", pace, speeds.marathonPace)) }
                return phases + [phase("cool-down", 5, jog)]
            }
            return [phase("warm-up", 5, jog), phase("long easy", m, speeds.easy), phase("cool-down", 5, jog)]
        case .goalPace:
            let distance = goal.distance ?? 5000
            let repMetres = distance < 10_000 ? 1000.0 : 2000.0
            let rep = max(1, Builder.halves(repMetres / speeds.goalPaceSpeed / 60))
            let share = distance < 10_000 ? 0.08 : 0.10
            return repeats("goal pace", rep: rep, recovery: max(1, Builder.halves(rep / 2)), range: speeds.goalPace,
                           fastMinutes: min(30, share * weekMinutes), budget: m, speeds: speeds)
        case .intervals:
            let rep = [2.0, 3, 4][fitness.level.rawValue]
            return repeats("interval", rep: rep, recovery: rep, range: speeds.interval,
                           fastMinutes: min(24, 0.08 * weekMinutes), budget: m, speeds: speeds)
        case .tempo:
            let t = max(1, Builder.halves(min(40, 0.10 * weekMinutes)))
            if t <= 20 {
                return [phase("warm-up", 10, jog), phase("tempo", t, speeds.threshold)]
                    + finish(budget: m, used: 10 + t, speeds: speeds)
            }
            // Daniels' cruise intervals: threshold repeats with a short jog, for more than 20 minutes.
            return repeats("tempo", rep: 10, recovery: 2, range: speeds.threshold,
                           fastMinutes: t, budget: m, speeds: speeds)
        }
    }

    /// Warm-up, `rep`/`recovery` pairs adding up to at most `fastMinutes` of fast running
    /// (at least one), then easy running and a cool-down filling the session to `budget`.
    func repeats(_ name: String, rep: Double, recovery: Double, range: Range, fastMinutes: Double,
                 budget: Double, speeds: Speeds) -> [Phase] {
        var n = max(1, Int(fastMinutes / rep))
        while n > 1 && 15 + Double(n) * (rep + recovery) > budget { n -= 1 }
        var phases = [phase("warm-up", 10, speeds.jog)]
        for _ in 0..<n { phases += [phase(name, rep, range), phase("recovery", recovery, speeds.jog)] }
        return phases + finish(budget: budget, used: 10 + Double(n) * (rep + recovery), speeds: speeds)
    }

    /// The end of a quality session: easy running for what the budget leaves beyond a
    /// 5-minute cool-down (when a minute or more), then the cool-down.
    func finish(budget: Double, used: Double, speeds: Speeds) -> [Phase] {
        let easy = budget - used - 5
        return (easy >= 1 ? [phase("easy", easy, speeds.easy)] : []) + [phase("cool-down", 5, speeds.jog)]
    }

    // MARK: Summary

    /// A novice over BMI 30: the first week holds under 3 km of running.
    var heavyNovice: Bool { fitness.level == .novice && fitness.bodyMassIndex > 30 }

    func summary(start: CivilDate, deadline: CivilDate) -> String {
        let f = PlanGenerator.tenths
        func range(_ r: Range) -> String { "\(f(r.lo))–\(f(r.hi)) km/h" }
        var s: [String] = []
        s.append("A \(weeks)-week plan for the goal '\(goal.name)', \(frequency) workout\(frequency == 1 ? "" : "s") "
            + "a week, from \(start) to the deadline \(deadline).")
        let v0 = fitness.vdot
        switch fitness.source {
        case .bestRace(let mark):
            s.append("Current fitness: VDOT \(f(v0)) from the best race, \(GoalCatalog.format(metres: mark.distance)) "
                + "in \(GoalCatalog.format(mark.time)) (Daniels–Gilbert).")
        case .bestMarathon(let time):
            s.append("Current fitness: VDOT \(f(v0)) from the best marathon, \(GoalCatalog.format(time)) (Daniels–Gilbert).")
        case .estimate:
            let penalty = RunningFitness.vdotPenalty(bodyMassIndex: fitness.bodyMassIndex)
            s.append("Current fitness: VDOT \(f(v0)), a cautious estimate without a race mark for a runner who "
                + "\(fitness.level)\(penalty > 0 ? ", lowered for BMI \(PlanGenerator.format(fitness.bodyMassIndex))" : ""); "
                + "a race time in the profile makes it exact.")
        }
        s.append("Speeds follow Daniels' zones: easy \(range(zone(.easy, v0))), threshold \(range(zone(.threshold, v0))), "
            + "interval \(range(zone(.interval, v0))); no phase is faster than \(f(ceilingKmh)) km/h, "
            + "5 % above today's VO2max speed.")
        let build = weeks - taperWeeks
        switch kind {
        case .recreational:
            s.append("Easy runs at a conversational pace (\(range(zone(.easy, v0)))), a little longer each week up to 45 minutes of running.")
        case .finish(let distance):
            let covered = firstWeekCovering(distance)
            s.append(covered.map { "The weekly long run covers \(GoalCatalog.format(metres: distance)) from week \($0)." }
                ?? "The weekly long run reaches \("\(f(longestLongRun() / 1000)) km") by the end: not yet "
                + "the \(GoalCatalog.format(metres: distance)) of the goal, which this plan does not reach; a later "
                + "deadline gives it time.")
        case .marathon:
            let longest = longestLongRun()
            s.append("Long runs at a steady speed (\(range(speeds(vdots[build - 1]).steady))) grow at most 10 % a week, "
                + "up to \(f(longest / 1000)) km, within 2.5 hours and 32 km (Daniels).")
            if longest < 25_000 {
                s.append("That is short of the 25–32 km long runs marathon plans build to: the plan does not "
                    + "prepare the marathon itself; a later deadline gives it time.")
            }
        case .timed:
            break
        }
        if let goalVDOT, let speed = goal.speed {
            let what = goal.isMarathon ? "Marathon-pace parts of the long runs" : "Goal-pace repeats"
            let first = kmh(speeds(vdots[0]).goalPaceSpeed)
            let last = kmh(speeds(reachVDOT).goalPaceSpeed)
            let pace = "\(f(kmh(speed))) km/h, \(Pace.minutesPerKilometre(speed)) /km"
            if goalVDOT <= v0 {
                s.append("The goal (VDOT \(f(goalVDOT)), \(pace)) is within current fitness: \(what.lowercased()) "
                    + "run at the goal's pace throughout.")
            } else if goalReached {
                s.append("\(what) progress week by week from \(f(first)) km/h to the goal pace (\(pace), VDOT "
                    + "\(f(goalVDOT))) by week \(build), at most 1 VDOT per 4 weeks (after Daniels).")
            } else {
                s.append("The goal needs VDOT \(f(goalVDOT)) (\(pace)); safe progress from VDOT \(f(v0)) (at most "
                    + "1 VDOT per 4 weeks, and 5 % above today's VO2max speed) reaches VDOT \(f(reachVDOT)) by "
                    + "week \(build), so this plan does NOT reach the goal: \(what.lowercased()) end at \(f(last)) km/h. "
                    + "A later deadline, or a new race time once fitter, brings it closer.")
            }
        }
        s.append("Volume grows at most 10 % a week, and every 4th week eases off by 20 %.")
        if taperWeeks > 0 {
            s.append(taperWeeks == 1
                ? "The last week is a taper: 45 % less volume, the same speeds and days (Bosquet et al. 2007)."
                : "The last two weeks taper: 40 % then 55 % less volume, the same speeds and days (Bosquet et al. 2007).")
        }
        if fitness.loadFactor < 1 {
            s.append("Durations start at \(Int((fitness.loadFactor * 100).rounded())) % for BMI \(PlanGenerator.format(fitness.bodyMassIndex))"
                + (heavyNovice ? ", and the first week holds under 3 km of running (Nielsen et al. 2014)." : "."))
        }
        return s.joined(separator: " ")
    }

    /// The first week whose long run (its running phases) covers `distance`.
    func firstWeekCovering(_ distance: Double) -> Int? {
        let workouts = build()
        for w in 1...weeks {
            let week = workouts[(w - 1) * frequency..<w * frequency]
            let covers = week.contains { workout in
                SafetyBounds.title(of: workout) == "long run" && PlanGenerator.runningMetres([workout]) >= distance - 1
            }
            if covers { return w }
        }
        return nil
    }

    /// The longest long run's running distance, metres.
    func longestLongRun() -> Double {
        build().filter { SafetyBounds.title(of: $0).hasPrefix("long") }.map { PlanGenerator.runningMetres([$0]) }.max() ?? 0
    }
}
