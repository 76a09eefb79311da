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
/// | T, I, R paces | T 88 % of VDOT, I 97.5 %, R the VDOT's mile race pace (`DanielsPace`) | DRF 3rd ed. (2014) ch. 4 and its table of training intensities (ch. 5) |
/// | fastest phase | ≤ 5 % above today's speed at VO2max (top of the interval zone); repetitions ≤ R pace at the VDOT whose VO2max speed that is | DRF: I pace is VO2max pace, faster adds stress, not benefit; R pace is mile race pace, from the current VDOT |
/// | hard sessions | ≤ 2 a week (goal pace, repetitions, intervals, tempo, marathon long run) | DRF's programs: two quality sessions a week |
/// | a timed goal's second hard session | the build in thirds: R, then I, then I (under 10 km) or T (10 km up); T throughout from 15 km | DRF ch. 5 (the season's phases: R before I, the race's emphasis last) |
/// | repetitions | 400 m at R pace, 400 m jog; ≤ the lesser of 8 km and 5 % of the week's distance | DRF ch. 4 (R 200–400 m, equal-distance jog, ≤ 5 % and 8 km) |
/// | intervals | 800–1200 m at I pace (≤ 4 min, 5 after a marathon), jog as long or less; ≤ the lesser of 10 km and 8 % of the week's distance | DRF ch. 4 (I bouts ≤ 5 min, recovery ≤ the bout, ≤ 8 % and 10 km) |
/// | tempo | 20 min at T pace, cruise intervals of 1.6 km with 1 min rest per 5 min when more; ≤ 10 % of the week's distance | DRF ch. 4 (the 20-minute tempo; cruise intervals; T ≤ 10 % of weekly mileage) |
/// | dates | week `w` spans the 7 days from `start + 7(w − 1)`; its sessions in order on its training days (the athlete's, or `defaultTrainingDays`: Tue, Thu, Sun for 3 a week from a Tuesday) | a plan is followed on a calendar |
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
    /// workout may be started), every workout dated on one of `trainingDays` (one weekday per
    /// workout a week; `defaultTrainingDays` from the start when nil). Refuses a bad profile, goal, deadline
    /// or set of days with the reason.
    /// `heartRateCeiling`: the easy and long runs' easy running is also held under it (the top
    /// of zone 2, for a runner with a strap: an easy run by pace alone drifts up on a hot day or
    /// a hilly route, and the heart says so first). Quality sessions keep their paces alone.
    public static func generate(
        profile: AthleteProfile, goal: Goal, start: CivilDate, deadline: CivilDate, trainingDays: [Weekday]? = nil,
        heartRateCeiling: HeartRateCeiling? = nil
    ) throws(PlanGeneratorError) -> TrainingPlan {
        var plan = try generateByPace(profile: profile, goal: goal, start: start, deadline: deadline, trainingDays: trainingDays)
        guard let heartRateCeiling else { return plan }
        for w in plan.workouts.indices {
            for p in plan.workouts[w].phases.indices where Self.cappedByHeartRate.contains(plan.workouts[w].phases[p].name) {
                plan.workouts[w].phases[p].heartRateCeiling = heartRateCeiling
            }
        }
        return plan
    }

    /// The phases a heart-rate ceiling holds: easy running, in easy and long runs.
    static let cappedByHeartRate: Set<String> = ["easy", "long easy"]

    static func generateByPace(
        profile: AthleteProfile, goal: Goal, start: CivilDate, deadline: CivilDate, trainingDays: [Weekday]?
    ) throws(PlanGeneratorError) -> TrainingPlan {
        try check(profile: profile)
        try check(goal: goal)
        let days = trainingDays ?? defaultTrainingDays(frequency: profile.weeklyFrequency, start: start)
        try check(trainingDays: days, frequency: profile.weeklyFrequency)
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
            summary: builder.summary(start: start, deadline: deadline, days: days),
            deadline: deadline, workouts: dated(workouts, start: start, days: days))
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
    public static let hardTitles: Set<String> = ["goal-pace repeats", "repetitions", "intervals", "tempo", "long steady run"]
    /// The shortest phase that ends on distance: Daniels' shortest repetition.
    public static let phaseMetres = 200.0

    /// The fastest speed allowed for a runner of `fitness`, km/h (one decimal, rounded down).
    public static func ceilingKmh(for fitness: RunningFitness) -> Double {
        (Pace.kilometresPerHour(fastestAboveCurrent * VDOT.speedAtMaximum(fitness.vdot)) * 10).rounded(.down) / 10
    }

    /// The fastest a repetition (a phase named `repetition`) may be, km/h: R pace at the VDOT
    /// whose VO2max speed is the ceiling above (the most a plan's training VDOT reaches), when
    /// that is faster than the ceiling (R pace is faster than VO2max pace by design, from VDOT
    /// 30 up), at most 25 km/h; one decimal, rounded down.
    public static func repetitionCeilingKmh(for fitness: RunningFitness) -> Double {
        let vdot = VDOT.at(speedAtMaximum: fastestAboveCurrent * VDOT.speedAtMaximum(fitness.vdot))
        let kmh = Pace.kilometresPerHour(DanielsPace.repetition.speed(at: vdot))
        return min(maximumKmh, max(ceilingKmh(for: fitness), (kmh * 10).rounded(.down) / 10))
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
        let repetitionCeiling = repetitionCeilingKmh(for: fitness) + 1e-9
        for workout in plan.workouts {
            let minutes = workout.duration.inSeconds / 60
            if minutes > maximumWorkoutMinutes + 1e-9 {
                found.append("\(workout.name): \(minutes) min is longer than \(maximumWorkoutMinutes) min")
            }
            for phase in workout.phases {
                let m = phase.duration.inSeconds / 60
                if let metres = phase.distanceLimit {
                    if metres < phaseMetres || m > phaseMinutes.upperBound {
                        found.append("\(workout.name), \(phase.name): \(metres) m (\(m) min) is outside \(phaseMetres) m–180 min")
                    }
                } else if !phaseMinutes.contains(m) {
                    found.append("\(workout.name), \(phase.name): \(m) min is outside 1–180 min")
                }
                // A recovery jog without a target is not judged: no speeds to bound.
                guard phase.speedBand != nil else { continue }
                let lo = Pace.kilometresPerHour(phase.minimumSpeed), hi = Pace.kilometresPerHour(phase.maximumSpeed)
                if lo < minimumKmh - 1e-9 || hi > maximumKmh + 1e-9 || !(lo < hi) {
                    found.append("\(workout.name), \(phase.name): \(lo)–\(hi) km/h is outside \(minimumKmh)–\(maximumKmh) km/h")
                }
                if phase.name == "repetition" {
                    if hi > repetitionCeiling {
                        found.append("\(workout.name), \(phase.name): \(hi) km/h is above R pace at the highest VDOT the plan may reach")
                    }
                } else if hi > ceiling {
                    found.append("\(workout.name), \(phase.name): \(hi) km/h is more than 5 % above today's VO2max speed")
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
