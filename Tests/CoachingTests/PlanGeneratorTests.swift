import Coaching
import Foundation
import PacerCore
import Testing

/// Profiles and helpers for reading generated plans.
enum Athletes {
    static let start = CivilDate(year: 2026, month: 12, day: 1)!

    static func novice(weight: Double = 70, height: Double = 175, frequency: Int = 3) -> AthleteProfile {
        AthleteProfile(weight: weight, height: height, weeklyFrequency: frequency, hasRaced: false, hasRunMarathon: false)
    }

    static func racer(fiveK minutes: Int = 25, weight: Double = 70, frequency: Int = 3) -> AthleteProfile {
        AthleteProfile(
            weight: weight, height: 175, weeklyFrequency: frequency, hasRaced: true, hasRunMarathon: false,
            bestRace: .init(distance: 5000, time: .seconds(minutes * 60)))
    }

    static func marathoner(_ time: Duration = .seconds(3 * 3600 + 45 * 60), frequency: Int = 4) -> AthleteProfile {
        AthleteProfile(
            weight: 65, height: 178, weeklyFrequency: frequency, hasRaced: true, hasRunMarathon: true, bestMarathon: time)
    }

    static func goal(_ key: String) -> Goal { try! GoalCatalog.goal(key) }

    static func plan(_ profile: AthleteProfile, _ goal: String, weeks: Int = 12) throws -> TrainingPlan {
        try PlanGenerator.generate(profile: profile, goal: Athletes.goal(goal), start: start, deadline: start.adding(days: 7 * weeks))
    }
}

extension TrainingPlan {
    /// Workouts by week (generated plans: `frequency` per week, in order).
    func weeks(_ frequency: Int) -> [[Workout]] {
        stride(from: 0, to: workouts.count, by: frequency).map { Array(workouts[$0..<$0 + frequency]) }
    }
}

extension Workout {
    var title: String { SafetyBounds.title(of: self) }
    var minutes: Double { duration.inSeconds / 60 }
    func phases(named name: String) -> [Phase] { phases.filter { $0.name == name } }
}

extension Phase {
    var minKmh: Double { Pace.kilometresPerHour(minimumSpeed) }
    var maxKmh: Double { Pace.kilometresPerHour(maximumSpeed) }
    var minutes: Double { duration.inSeconds / 60 }
}

@Suite("Goal catalog")
struct GoalCatalogTests {
    @Test func catalogHoldsTheRequiredGoals() throws {
        let keys = GoalCatalog.entries.map(\.key)
        #expect(keys == ["5k", "7k-35", "marathon", "recreational"])
        #expect(Athletes.goal("5k") == Goal(distance: 5000, time: nil, name: "run 5 km"))
        #expect(Athletes.goal("7k-35").speed == 7000 / 2100.0)
        #expect(Athletes.goal("marathon").isMarathon && Athletes.goal("marathon").time == nil)
        #expect(Athletes.goal("recreational").isRecreational)
        #expect(GoalCatalog.entries.allSatisfy { $0.description.count > 40 })
        #expect(Athletes.goal(" Marathon ") == Athletes.goal("marathon"))
    }

    @Test(arguments: [
        ("10km-in-50:00", 10_000.0, 3000, "10 km in 50:00"),
        ("21.1km-in-1:55:00", 21_100, 6900, "21.1 km in 1:55:00"),
        ("42.195km-in-3:30:00", 42_195, 12_600, "marathon in 3:30:00"),
        ("marathon-in-3:45:00", 42_195, 13_500, "marathon in 3:45:00"),
        ("5KM-IN-24:59", 5000, 1499, "5 km in 24:59"),
        ("12km", 12_000, 0, "run 12 km"),
        ("1.5km", 1500, 0, "run 1.5 km"),
        // What runners type.
        ("10k", 10_000, 0, "run 10 km"),
        ("10K", 10_000, 0, "run 10 km"),
        ("10k-in-50:00", 10_000, 3000, "10 km in 50:00"),
        ("half", 21_097.5, 0, "finish a half marathon"),
        ("Half-Marathon", 21_097.5, 0, "finish a half marathon"),
        ("half-in-1:55:00", 21_097.5, 6900, "half marathon in 1:55:00"),
    ])
    func goalsOfOnesOwnParse(text: String, metres: Double, seconds: Int, name: String) throws {
        let goal = try GoalCatalog.goal(text)
        #expect(goal.distance == metres)
        #expect(goal.time == (seconds == 0 ? nil : .seconds(seconds)))
        #expect(goal.name == name)
    }

    /// A time-less goal compares as slower than any timed one (R9).
    @Test func timelessGoalsAreSlowerThanTimedOnes() throws {
        let sorted = try ["7k-35", "marathon", "10km-in-1:30:00", "recreational", "5k", "marathon-in-5:00:00"]
            .map { try GoalCatalog.goal($0) }.sorted()
        #expect(sorted.map(\.name) == ["recreational", "run 5 km", "finish a marathon", "10 km in 1:30:00",
                                       "marathon in 5:00:00", "7 km in 35:00"])
    }

    @Test(arguments: [
        ("", "unknown goal ''"),
        ("fast", "unknown goal 'fast': the goals are 5k, 7k-35, marathon, recreational"),
        ("10kk", "goal '10kk': expected a distance like 12km or 10k"),
        ("half-in-soon", "'soon' is not a time"),
        ("quarter-in-50:00", "'quarter' is not a distance like 10km, 10k, 21.1km, half or marathon"),
        ("10km-in-", "goal '10km-in-': '' is not a time like 50:00"),
        ("10km-in-50", "'50' is not a time"),
        ("10km-in-50:60", "'50:60' is not a time"),
        ("10km-in-1:5:00", "'1:5:00' is not a time"),
        ("10km-in-0:00", "'0:00' is not a time"),
        ("km-in-50:00", "'km' is not a distance"),
        ("10.1234km-in-50:00", "'10.1234km' is not a distance"),
        ("-5km", "goal '-5km': expected a distance"),
        ("0km", "goal '0km': expected a distance"),
        ("3km-in-15:00", "a timed goal needs at least 5 km"),
        ("0.5km", "shorter than 1 km"),
        ("50km", "longer than the marathon"),
        ("42.2km", "longer than the marathon"),
        ("5km-in-2:00:00", "slower than a walk"),
        ("5km-in-10:00", "beyond world class"),
    ])
    func badGoalsAreRefusedWithTheReason(text: String, fragment: String) {
        #expect {
            try GoalCatalog.goal(text)
        } throws: { error in
            let message = (error as? PlanGeneratorError)?.description ?? ""
            return message.contains(fragment)
        }
    }

    @Test func refusalsListTheGoalsAndTheSyntax() {
        let message = PlanGeneratorError.unknownGoal("x").description
        #expect(message.contains("5k, 7k-35, marathon, recreational"))
        #expect(message.contains("10k, half, marathon") && message.contains("10km-in-50:00"))
        #expect(PlanGeneratorError.malformedGoal("10km-in-5", "bad").description.contains("M:SS or H:MM:SS"))
    }
}

@Suite("Fitness model (Daniels–Gilbert VDOT)")
struct FitnessModelTests {
    /// Daniels' table (DRF 3rd ed., table 3.1): VDOT → 5 km and marathon times.
    @Test(arguments: [
        (30.0, 30 * 60 + 40, 4 * 3600 + 49 * 60 + 17),
        (40.0, 24 * 60 + 8, 3 * 3600 + 49 * 60 + 45),
        (50.0, 19 * 60 + 57, 3 * 3600 + 10 * 60 + 49),
    ])
    func predictionsMatchDanielsTable(vdot: Double, fiveK: Int, marathon: Int) {
        let t5 = VDOT.raceTime(distance: 5000, vdot: vdot).inSeconds
        let tM = VDOT.raceTime(distance: Goal.marathonDistance, vdot: vdot).inSeconds
        #expect(abs(t5 / Double(fiveK) - 1) < 0.01, "5 km at VDOT \(vdot): \(t5) s")
        #expect(abs(tM / Double(marathon) - 1) < 0.015, "marathon at VDOT \(vdot): \(tM) s")
    }

    @Test func vdotOfARace() {
        // 5 km in 24:34 is VDOT 39.1 with the Oxygen Power formulas.
        #expect(abs(VDOT.of(distance: 5000, time: .seconds(24 * 60 + 34)) - 39.11) < 0.01)
        // 10 km in 40:00 is 51.9.
        #expect(abs(VDOT.of(distance: 10_000, time: .seconds(2400)) - 51.94) < 0.01)
    }

    /// Riegel's T2 = T1·(D2/D1)^1.06 and the VDOT model agree within 3 % from 5 km to the
    /// half marathon: either translates a mark between distances.
    @Test(arguments: [(5000.0, 1500.0, 10_000.0), (5000, 1500, 21_097.5), (10_000, 3000, 21_097.5), (5000, 1200, 7000)])
    func vdotAgreesWithRiegel(from d1: Double, seconds t1: Double, to d2: Double) {
        let riegel = t1 * exp(1.06 * log(d2 / d1))
        let vdot = VDOT.raceTime(distance: d2, vdot: VDOT.of(distance: d1, time: .seconds(t1))).inSeconds
        #expect(abs(vdot / riegel - 1) < 0.03, "\(d1) in \(t1) s → \(d2): VDOT \(vdot) s, Riegel \(riegel) s")
    }

    @Test func zonesAreOrderedAndWithinDanielsFractions() {
        for vdot in stride(from: 20.0, through: 85, by: 5) {
            let e = TrainingZone.easy.speeds(at: vdot), t = TrainingZone.threshold.speeds(at: vdot)
            let i = TrainingZone.interval.speeds(at: vdot)
            let m = VDOT.raceSpeed(distance: Goal.marathonDistance, vdot: vdot)
            #expect(e.upperBound < m && m < t.upperBound && t.upperBound < i.lowerBound)
            #expect(abs(i.upperBound - VDOT.speedAtMaximum(vdot)) < 1e-12)
            #expect(abs(VDOT.oxygenCost(metresPerMinute: e.lowerBound * 60) - 0.59 * vdot) < 1e-9)
        }
    }

    @Test(arguments: [
        // (has raced, has run a marathon, weight at 175 cm, expected VDOT)
        (false, false, 70.0, 30.0), (true, false, 70, 32), (true, true, 70, 34),
        (false, false, 76.5625, 30), // BMI 25 exactly
        (false, false, 91.875, 27.5), // BMI 30
        (false, false, 140, 20), // BMI 45.7: the floor
    ])
    func defaultFitnessByExperienceAndBMI(raced: Bool, marathon: Bool, weight: Double, vdot: Double) {
        let profile = AthleteProfile(weight: weight, height: 175, weeklyFrequency: 3, hasRaced: raced, hasRunMarathon: marathon)
        let fitness = RunningFitness(profile: profile)
        #expect(abs(fitness.vdot - vdot) < 1e-9)
        #expect(fitness.source == .estimate)
    }

    @Test func theBetterMarkWins() {
        var profile = Athletes.marathoner(.seconds(4 * 3600))
        #expect(RunningFitness(profile: profile).source == .bestMarathon(.seconds(4 * 3600)))
        profile.bestRace = .init(distance: 10_000, time: .seconds(45 * 60))
        #expect(RunningFitness(profile: profile).source == .bestRace(.init(distance: 10_000, time: .seconds(45 * 60))))
        #expect(RunningFitness(profile: profile).level == .marathoner)
    }

    @Test func loadFactorFallsWithBMI() {
        #expect(RunningFitness.loadFactor(bodyMassIndex: 22) == 1)
        #expect(abs(RunningFitness.loadFactor(bodyMassIndex: 30) - 0.8) < 1e-12)
        #expect(RunningFitness.loadFactor(bodyMassIndex: 45) == 0.6)
    }
}

@Suite("Plan generator")
struct PlanGeneratorTests {
    // MARK: Deadline

    @Test(arguments: [(7, 1), (13, 1), (14, 2), (84, 12), (112, 16), (364, 52)])
    func deadlineSetsTheWeeksAndThePlansDeadline(days: Int, weeks: Int) throws {
        let deadline = Athletes.start.adding(days: days)
        let plan = try PlanGenerator.generate(
            profile: Athletes.racer(frequency: 4), goal: Athletes.goal("7k-35"), start: Athletes.start, deadline: deadline)
        #expect(plan.deadline == deadline)
        #expect(plan.workouts.count == 4 * weeks)
        #expect(plan.workouts.last?.name.hasPrefix("Week \(weeks) · day 4: ") == true)
        #expect(plan.name == "7 km in 35:00 by \(deadline)")
        #expect(plan.summary?.contains("A \(weeks)-week plan for the goal '7 km in 35:00'") == true)
        // The plan expires with the deadline (R14): its workouts start up to that day only.
        #expect(throws: Never.self) { try plan.workoutToStart(at: 0, on: deadline) }
        #expect(throws: PlanStartError.expired(plan: plan.name, deadline: deadline, today: deadline.adding(days: 1))) {
            try plan.workoutToStart(at: 0, on: deadline.adding(days: 1))
        }
    }

    @Test(arguments: [
        (0, "is not after the start"), (-30, "is not after the start"),
        (1, "a plan spans whole weeks, at least one (deadline 2026-12-08 or later)"),
        (6, "is 6 days after the start"),
        (365, "more than 52 weeks after the start 2026-12-01 (at most 2027-11-30)"),
    ])
    func badDeadlinesAreRefused(days: Int, fragment: String) {
        #expect {
            try PlanGenerator.generate(
                profile: Athletes.racer(), goal: Athletes.goal("5k"), start: Athletes.start,
                deadline: Athletes.start.adding(days: days))
        } throws: { error in
            (error as? PlanGeneratorError)?.description.contains(fragment) == true
        }
    }

    @Test func defaultDeadlineIs12WeeksOr16ForAMarathon() {
        #expect(PlanGenerator.defaultDeadline(for: Athletes.goal("7k-35"), start: Athletes.start) == Athletes.start.adding(days: 84))
        #expect(PlanGenerator.defaultDeadline(for: Athletes.goal("marathon-in-4:00:00"), start: Athletes.start)
            == Athletes.start.adding(days: 112))
    }

    // MARK: Frequency

    @Test(arguments: 1...7)
    func workoutsPerWeekFollowTheFrequency(frequency: Int) throws {
        for key in ["recreational", "5k", "7k-35", "10km-in-50:00", "marathon"] {
            let plan = try Athletes.plan(Athletes.racer(frequency: frequency), key, weeks: 6)
            #expect(plan.workouts.count == 6 * frequency)
            for (w, week) in plan.weeks(frequency).enumerated() {
                #expect(week.enumerated().allSatisfy { d, workout in workout.name.hasPrefix("Week \(w + 1) · day \(d + 1): ") })
                #expect(week.filter { SafetyBounds.hardTitles.contains($0.title) }.count <= 2, "\(key) \(frequency)")
            }
        }
    }

    // MARK: Goal kind

    @Test(arguments: [
        // (goal, frequency, racer?, the titles of a week)
        ("recreational", 3, true, ["easy run", "easy run", "easy run"]),
        ("5k", 1, false, ["long run"]),
        ("5k", 3, true, ["easy run", "easy run", "long run"]),
        ("marathon", 1, true, ["long steady run"]),
        ("marathon", 3, false, ["easy run", "easy run", "long steady run"]),
        ("marathon", 4, true, ["tempo", "easy run", "easy run", "long steady run"]),
        ("7k-35", 1, true, ["goal-pace repeats"]),
        ("7k-35", 2, true, ["goal-pace repeats", "easy run"]),
        ("7k-35", 3, false, ["goal-pace repeats", "easy run", "easy run"]),
        // Repetitions, then intervals (`DanielsPlanTests` has the weeks of each).
        ("7k-35", 3, true, ["goal-pace repeats", "easy run", "repetitions|intervals"]),
        ("7k-35", 5, true, ["goal-pace repeats", "easy run", "repetitions|intervals", "easy run", "long run"]),
        ("21.1km-in-1:55:00", 4, true, ["goal-pace repeats", "easy run", "tempo", "long run"]),
    ])
    func goalKindSetsTheWorkouts(goal: String, frequency: Int, racer: Bool, titles: [String]) throws {
        let profile = racer ? Athletes.racer(frequency: frequency) : Athletes.novice(frequency: frequency)
        let plan = try Athletes.plan(profile, goal)
        for week in plan.weeks(frequency).dropLast() {
            #expect(week.count == titles.count)
            for (workout, title) in zip(week, titles) {
                #expect(title.split(separator: "|").contains(Substring(workout.title)), "\(workout.name)")
            }
        }
        #expect(plan.weeks(frequency).last!.allSatisfy { $0.name.hasSuffix(" (taper)") } == (goal != "recreational"))
    }

    @Test func marathonLongRunsHoldOneSteadySpeed() throws {
        let plan = try Athletes.plan(Athletes.racer(frequency: 4), "marathon", weeks: 16)
        let long = plan.workouts.filter { $0.title == "long steady run" }
        #expect(long.count == 16)
        for run in long {
            #expect(run.phases.map(\.name) == ["warm-up", "steady", "cool-down"])
        }
        // No time in the goal: the steady range stays the runner's, week after week.
        #expect(Set(long.map { $0.phases[1].minimumSpeed }).count == 1)
        #expect(Set(long.map { $0.phases[1].maximumSpeed }).count == 1)
    }

    @Test func recreationalRunsAreEasyAndModest() throws {
        let plan = try Athletes.plan(Athletes.racer(frequency: 3), "recreational", weeks: 20)
        let easy = TrainingZone.easy.speeds(at: RunningFitness(profile: Athletes.racer()).vdot)
        for workout in plan.workouts {
            #expect(workout.phases.map(\.name) == ["warm-up", "easy", "cool-down"])
            #expect(workout.phases[1].minutes <= 45)
            #expect(workout.phases[1].maximumSpeed <= easy.upperBound + 0.05 / 3.6)
        }
        #expect(plan.workouts.map { $0.phases[1].minutes }.max() == 45)
    }

    // MARK: Fitness

    /// A fitter athlete gets more demanding phases: faster, and more of them.
    /// (A 5 km finish goal caps the long run at the distance: a fitter runner needs less time.)
    @Test(arguments: ["7k-35", "10km-in-50:00", "21.1km-in-2:00:00", "marathon", "recreational"])
    func fitterAthletesGetMoreDemandingPlans(goal: String) throws {
        let ladder = [Athletes.novice(frequency: 4), Athletes.racer(fiveK: 28, frequency: 4), Athletes.racer(fiveK: 22, frequency: 4),
                      Athletes.marathoner(.seconds(3 * 3600), frequency: 4)]
        let plans = try ladder.map { try Athletes.plan($0, goal) }
        let fastest = plans.map { $0.workouts.flatMap(\.phases).map(\.maximumSpeed).max()! }
        let firstWeek = plans.map { $0.weeks(4)[0].reduce(0) { $0 + $1.minutes } }
        for i in 1..<plans.count {
            #expect(fastest[i] > fastest[i - 1], "\(goal): \(fastest)")
            #expect(firstWeek[i] >= firstWeek[i - 1], "\(goal): \(firstWeek)")
        }
        #expect(firstWeek.last! > firstWeek.first!)
    }

    /// Daniels' I repeats last at most 5 minutes; the generator keeps a racer's to 4: at these
    /// runners' I paces, 800 m and 1000 m.
    @Test func intervalRepeatsLengthenWithExperience() throws {
        let racer = try Athletes.plan(Athletes.racer(frequency: 3), "7k-35")
        let marathoner = try Athletes.plan(Athletes.marathoner(frequency: 3), "7k-35")
        let first = { (plan: TrainingPlan) in plan.workouts.first { $0.title == "intervals" }?.phases(named: "interval").first }
        #expect(first(racer)?.distanceLimit == 800)
        #expect(first(marathoner)?.distanceLimit == 1000)
    }

    // MARK: Weight

    /// Durations and speeds scale inversely with weight (R3): a higher BMI starts gentler.
    @Test(arguments: ["5k", "7k-35", "marathon", "recreational"])
    func higherBMIStartsGentler(goal: String) throws {
        // BMI 19.6, 24.5, 27.8, 31.0 (over 30: the first week under 3 km), 35.9.
        let weights = [60.0, 75, 85, 95, 110]
        let plans = try weights.map { try Athletes.plan(Athletes.novice(weight: $0, frequency: 3), goal) }
        let firstWeek = plans.map { $0.weeks(3)[0].reduce(0) { $0 + $1.minutes } }
        let firstWeekMetres = plans.map { PlanGenerator.runningMetres($0.weeks(3)[0]) }
        let easySpeed = plans.map { $0.workouts.flatMap { $0.phases(named: "easy") }.first!.maximumSpeed }
        for i in 1..<plans.count {
            #expect(easySpeed[i] <= easySpeed[i - 1])
            if i < 4 {
                #expect(firstWeek[i] <= firstWeek[i - 1], "\(goal): \(firstWeek)")
                #expect(firstWeekMetres[i] <= firstWeekMetres[i - 1], "\(goal): \(firstWeekMetres)")
            } else {
                // Both over BMI 30: both under 3 km, the heavier one at a slower speed.
                #expect(firstWeekMetres[i] < 3000)
            }
        }
        #expect(firstWeek[3] < firstWeek[0] && firstWeekMetres[3] < firstWeekMetres[0] / 2)
        #expect(easySpeed.last! < easySpeed.first!)
        // With a race mark the speeds come from the mark; only the durations fall.
        let light = try Athletes.plan(Athletes.racer(weight: 65), goal), heavy = try Athletes.plan(Athletes.racer(weight: 100), goal)
        #expect(light.workouts[1].phases(named: "easy") .map(\.maximumSpeed) == heavy.workouts[1].phases(named: "easy").map(\.maximumSpeed))
        #expect(heavy.weeks(3)[0].reduce(0) { $0 + $1.minutes } < light.weeks(3)[0].reduce(0) { $0 + $1.minutes })
    }

    /// Nielsen et al. 2014: novices over BMI 30 ran into injuries above 3 km in their first week.
    @Test(arguments: [1, 3, 7])
    func aHeavyNovicesFirstWeekHasLessThan3kmOfRunning(frequency: Int) throws {
        for goal in ["5k", "7k-35", "recreational", "marathon"] {
            let plan = try Athletes.plan(Athletes.novice(weight: 100, height: 170, frequency: frequency), goal)
            #expect(PlanGenerator.runningMetres(plan.weeks(frequency)[0]) < 3000)
            #expect(plan.summary?.contains("under 3 km of running (Nielsen et al. 2014)") == true)
        }
    }

    // MARK: Progression

    @Test func goalPaceProgressesAndIsReachedWhenFeasible() throws {
        // 5 km in 25:00 (VDOT 38.3) → 7 km in 35:00 (VDOT 39.1): within 1 VDOT per 4 weeks.
        let plan = try Athletes.plan(Athletes.racer(frequency: 3), "7k-35")
        let goalKmh = 12.0
        let fast = plan.weeks(3).map { $0[0].phases(named: "goal pace").first! }
        for (a, b) in zip(fast, fast.dropFirst()) {
            #expect(b.targetSpeed >= a.targetSpeed)
        }
        #expect(fast[0].maxKmh < goalKmh + 0.05 && fast[0].targetSpeed < goalKmh / 3.6)
        #expect(fast[10].minKmh <= goalKmh && goalKmh <= fast[10].maxKmh, "week 11 holds the goal pace")
        #expect(fast[11].unrepeated == fast[10].unrepeated, "the taper keeps the speeds")
        #expect(plan.summary?.contains("to the goal pace (12.0 km/h, 5:00 /km, VDOT 39.1) by week 11") == true)
        #expect(plan.summary?.contains("NOT") == false)
    }

    @Test func anUnreachableGoalProgressesSafelyAndSaysSo() throws {
        let profile = Athletes.novice(frequency: 3)
        let plan = try Athletes.plan(profile, "7k-35")
        let fast = plan.weeks(3).map { $0[0].phases(named: "goal pace").first! }
        #expect(fast.last!.maxKmh < 12)
        #expect(fast.last!.targetSpeed > fast.first!.targetSpeed)
        #expect(plan.summary?.contains("so this plan does NOT reach the goal") == true)
        // At most 0.25 VDOT a week (11 build weeks from VDOT 30: 32.5), and no faster than 5 %
        // above today's VO2max speed, which binds first here.
        let ceiling = VDOT.at(speedAtMaximum: 1.05 * VDOT.speedAtMaximum(30))
        #expect(ceiling < 32.5 && ceiling > 31.5)
        #expect(plan.summary?.contains("reaches VDOT \(String(format: "%.1f", ceiling)) by week 11") == true)
    }

    @Test func aGoalWithinCurrentFitnessIsTrainedAtItsPace() throws {
        let plan = try Athletes.plan(Athletes.racer(fiveK: 20), "10km-in-55:00")
        let fast = plan.workouts.flatMap { $0.phases(named: "goal pace") }
        let goalKmh = Pace.kilometresPerHour(10_000 / 3300.0)
        #expect(fast.allSatisfy { $0.minKmh <= goalKmh && goalKmh <= $0.maxKmh })
        #expect(plan.summary?.contains("is within current fitness") == true)
    }

    @Test func aTimedMarathonAddsAGrowingMarathonPacePart() throws {
        // 3:45 → 3:40 in 16 weeks: reachable.
        let plan = try Athletes.plan(Athletes.marathoner(frequency: 4), "marathon-in-3:40:00", weeks: 16)
        let long = plan.workouts.filter { $0.title == "long steady run" }
        let pace = long.map { $0.phases(named: "marathon pace").first }
        #expect(pace.allSatisfy { $0 != nil })
        let goalKmh = Pace.kilometresPerHour(Goal.marathonDistance / (3 * 3600 + 40 * 60))
        #expect(pace[13]!.minKmh <= goalKmh && goalKmh <= pace[13]!.maxKmh)
        #expect(pace[13]!.minutes > pace[0]!.minutes)
        #expect(pace.allSatisfy { $0!.minutes <= PlanGenerator.marathonPaceMinutes })
    }

    // MARK: Volume

    @Test(arguments: [1, 2, 4, 7])
    func marathonLongRunsGrowAtMost10PercentAndAreCapped(frequency: Int) throws {
        for profile in [Athletes.novice(frequency: frequency), Athletes.racer(frequency: frequency),
                        Athletes.marathoner(.seconds(2 * 3600 + 50 * 60), frequency: frequency)] {
            let plan = try Athletes.plan(profile, "marathon", weeks: 52)
            let long = plan.workouts.filter { $0.title == "long steady run" }
            var largest = 0.0
            for run in long {
                #expect(largest == 0 || run.minutes <= largest * 1.1 + 1e-9)
                largest = max(largest, run.minutes)
                #expect(run.minutes <= 150)
                #expect(run.phases.reduce(0) { $0 + $1.impliedDistance } <= PlanGenerator.longRunMetres + 1)
            }
            // A year is enough to reach a cap: 2.5 hours, or 32 km for the fast.
            #expect(largest == 150 || long.contains { $0.phases.reduce(0) { $0 + $1.impliedDistance } > 31_500 })
        }
    }

    @Test func everyFourthWeekEasesOffAndVolumeNeverJumps() throws {
        let plan = try Athletes.plan(Athletes.racer(frequency: 4), "10km-in-50:00", weeks: 16)
        let weeks = plan.weeks(4).map { $0.reduce(0) { $0 + $1.minutes } }
        #expect(weeks[3] < weeks[2] && weeks[7] < weeks[6])
        var biggest = weeks[0]
        for minutes in weeks.dropFirst() {
            #expect(minutes <= biggest * 1.1 + 1e-9)
            biggest = max(biggest, minutes)
        }
    }

    @Test(arguments: [("7k-35", 12, 1), ("5k", 12, 1), ("marathon", 16, 2), ("marathon", 6, 1), ("7k-35", 2, 0)])
    func raceGoalsTaper(goal: String, weeks: Int, taperWeeks: Int) throws {
        let plan = try Athletes.plan(Athletes.racer(frequency: 3), goal, weeks: weeks)
        let perWeek = plan.weeks(3).map { $0.reduce(0) { $0 + $1.minutes } }
        let tapered = plan.weeks(3).map { $0.allSatisfy { $0.name.hasSuffix(" (taper)") } }
        #expect(tapered == Array(repeating: false, count: weeks - taperWeeks) + Array(repeating: true, count: taperWeeks))
        guard taperWeeks > 0 else { return }
        let peak = perWeek.dropLast(taperWeeks).max()!
        // Bosquet et al. 2007: volume down 41–60 % over the taper (minutes of warm-up and
        // cool-down keep the whole-session total a little higher).
        #expect(perWeek.last! < 0.75 * peak)
        // Same speeds and frequency.
        let before = plan.weeks(3)[weeks - taperWeeks - 1], last = plan.weeks(3)[weeks - 1]
        #expect(before.map { $0.phases.map(\.maximumSpeed).max() } == last.map { $0.phases.map(\.maximumSpeed).max() })
    }

    // MARK: Bounds, determinism, refusals

    @Test func safeBoundsHoldAcrossAGridOfProfilesGoalsAndDeadlines() throws {
        let profiles: [AthleteProfile] = [
            Athletes.novice(weight: 55, height: 160), Athletes.novice(weight: 130, height: 165), Athletes.novice(weight: 95, height: 200),
            Athletes.racer(fiveK: 40), Athletes.racer(fiveK: 17),
            Athletes.marathoner(.seconds(2 * 3600 + 15 * 60)), Athletes.marathoner(.seconds(6 * 3600)),
        ]
        let goals = ["recreational", "5k", "7k-35", "10km-in-38:00", "21.1km-in-2:30:00", "marathon", "marathon-in-2:50:00", "1km"]
        var plans = 0
        for var profile in profiles {
            for frequency in [1, 3, 5, 7] {
                profile.weeklyFrequency = frequency
                let fitness = RunningFitness(profile: profile)
                let ceiling = SafetyBounds.ceilingKmh(for: fitness)
                let repetitionCeiling = SafetyBounds.repetitionCeilingKmh(for: fitness)
                #expect(repetitionCeiling >= ceiling && repetitionCeiling <= 25)
                #expect(repetitionCeiling > ceiling || fitness.vdot < 30, "R pace is above VO2max pace from VDOT 30")
                for goal in goals {
                    for weeks in [1, 3, 12, 52] {
                        let plan = try Athletes.plan(profile, goal, weeks: weeks)
                        plans += 1
                        #expect(SafetyBounds.violations(of: plan, frequency: frequency, fitness: fitness).isEmpty)
                        for workout in plan.workouts {
                            #expect(workout.minutes <= 210)
                            for phase in workout.phases {
                                #expect(phase.minutes <= 180)
                                if let metres = phase.distanceLimit {
                                    // Daniels' repeats end on distance: 200 m or more, in whole metres.
                                    #expect(metres >= 200 && metres == metres.rounded())
                                } else {
                                    // What the plan file holds: half minutes.
                                    #expect(phase.minutes >= 1 && phase.minutes == (phase.minutes * 2).rounded() / 2)
                                }
                                // A recovery jog without a target is not judged.
                                guard phase.speedBand != nil else {
                                    #expect(phase.name == "recovery")
                                    continue
                                }
                                #expect(phase.minKmh >= 4 && phase.maxKmh <= 25 && phase.minKmh < phase.maxKmh)
                                // Repetitions run at R pace, faster than VO2max pace, within their own ceiling.
                                #expect(phase.maxKmh <= (phase.name == "repetition" ? repetitionCeiling : ceiling) + 1e-9)
                                // What the plan file holds: 0.1 km/h.
                                #expect(phase.minimumSpeed == Pace.metresPerSecond(kilometresPerHour: (phase.minKmh * 10).rounded() / 10))
                                #expect(phase.maximumSpeed == Pace.metresPerSecond(kilometresPerHour: (phase.maxKmh * 10).rounded() / 10))
                            }
                        }
                    }
                }
            }
        }
        #expect(plans == profiles.count * 4 * goals.count * 4)
    }

    @Test func theSameInputsGiveTheSamePlan() throws {
        let a = try Athletes.plan(Athletes.racer(frequency: 5), "21.1km-in-1:55:00", weeks: 14)
        let b = try Athletes.plan(Athletes.racer(frequency: 5), "21.1km-in-1:55:00", weeks: 14)
        #expect(a == b)
        // A later start with the same span: the same workouts, their dates and the deadline
        // shifted (the default training days follow the start).
        let later = Athletes.start.adding(days: 45)
        let shifted = try PlanGenerator.generate(
            profile: Athletes.racer(frequency: 5), goal: Athletes.goal("21.1km-in-1:55:00"), start: later,
            deadline: later.adding(days: 98))
        #expect(shifted.workouts.map(\.date) == a.workouts.map { $0.date?.adding(days: 45) })
        #expect(shifted.workouts.map { var w = $0; w.date = nil; return w } == a.workouts.map { var w = $0; w.date = nil; return w })
        #expect(shifted.deadline == a.deadline?.adding(days: 45))
        // Other inputs, another plan.
        #expect(try Athletes.plan(Athletes.racer(frequency: 5), "21.1km-in-1:50:00", weeks: 14).workouts != a.workouts)
    }

    @Test(arguments: [
        (AthleteProfile(weight: 20, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false),
         "athlete profile: weight: 20 kg is outside 30–250 kg"),
        (AthleteProfile(weight: .nan, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false), "weight"),
        (AthleteProfile(weight: 70, height: 300, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false),
         "height: 300 cm is outside 120–230 cm"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 0, hasRaced: false, hasRunMarathon: false),
         "weekly frequency: 0 days a week is outside 1–7"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 8, hasRaced: false, hasRunMarathon: false), "8 days a week"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: true),
         "has run a marathon but has not raced"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: false, hasRunMarathon: false,
                        bestRace: .init(distance: 5000, time: .seconds(1500))), "best race: given, but"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: false,
                        bestMarathon: .seconds(14_400)), "best marathon: given, but"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: false,
                        bestRace: .init(distance: 800, time: .seconds(180))), "0.8 km is outside 1.5–42.195 km"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: false,
                        bestRace: .init(distance: 5000, time: .seconds(3600))), "5 km in 1:00:00 is slower than the generator plans for"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: false,
                        bestRace: .init(distance: 5000, time: .seconds(600))), "5 km in 10:00 is beyond world class"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: false,
                        bestRace: .init(distance: 5000, time: .zero)), "the time must be positive"),
        (AthleteProfile(weight: 70, height: 175, weeklyFrequency: 3, hasRaced: true, hasRunMarathon: true,
                        bestMarathon: .seconds(60 * 60)), "beyond world class"),
    ])
    func badProfilesAreRefusedWithTheReason(profile: AthleteProfile, fragment: String) {
        #expect {
            try Athletes.plan(profile, "7k-35")
        } throws: { error in
            (error as? PlanGeneratorError)?.description.contains(fragment) == true
        }
    }

    @Test func aGoalGivenDirectlyIsCheckedToo() {
        let goal = Goal(distance: 100_000, time: nil, name: "100 km")
        #expect(throws: PlanGeneratorError.self) {
            try PlanGenerator.generate(profile: Athletes.racer(), goal: goal, start: Athletes.start, deadline: Athletes.start.adding(days: 70))
        }
        #expect(throws: PlanGeneratorError.goalOutOfRange("odd", "a time without a distance: give the distance too (10km-in-50:00)")) {
            try PlanGenerator.check(goal: Goal(distance: nil, time: .seconds(60), name: "odd"))
        }
    }

    @Test func summaryNamesTheSourcesAndTheFitness() throws {
        let summary = try #require(try Athletes.plan(Athletes.racer(), "7k-35").summary)
        for fragment in ["VDOT 38.3 from the best race, 5 km in 25:00 (Daniels–Gilbert)", "Daniels' zones: easy 8.3–9.9 km/h",
                         "no phase is faster than 13.2 km/h", "at most 10 % a week", "Bosquet et al. 2007"] {
            #expect(summary.contains(fragment), "\(fragment)")
        }
        let estimate = try #require(try Athletes.plan(Athletes.novice(weight: 90), "5k").summary)
        #expect(estimate.contains("VDOT 27.8, a cautious estimate without a race mark for a runner who has not raced, lowered for BMI 29.4"))
        #expect(estimate.contains("Durations start at 82 % for BMI 29.4."))
    }

    @Test func finishGoalsSayWhenTheLongRunCoversTheDistance() throws {
        let racer = try #require(try Athletes.plan(Athletes.racer(), "5k").summary)
        #expect(racer.contains("The weekly long run covers 5 km from week 1."))
        let long = try #require(try Athletes.plan(Athletes.novice(weight: 100, height: 170), "21.1km").summary)
        #expect(long.contains("which this plan does not reach"))
    }
}
