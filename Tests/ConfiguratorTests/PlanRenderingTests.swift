import Coaching
import Configurator
import PacerCore
import TestSupport
import Testing

/// What `pacer plan show` and `pacer plan list` print (R11).
@Suite("Plan rendering")
struct PlanRenderingTests {
    static let today = CivilDate(year: 2026, month: 6, day: 18)!

    @Test func aPlanRendersItsWorkoutsAndPhases() throws {
        let plan = try PlanLoader.load(file: "test.yaml", text: PlanLoaderTests.valid)
        #expect(PlanRendering.render(plan, today: Self.today) == """
            Plan: Test plan
            Two workouts for tests.
            Deadline: 2026-06-30 (the last day to start a workout; 12 days left)

            Workout 1: Short (5 min, 0.88 km)
              #  Phase    Minutes           Speed            Pace  Distance
              1  warm-up      0.5    6.0–8.5 km/h  10:00–7:04 /km   0.06 km
              2  fast           1  12.0–13.3 km/h   5:00–4:30 /km   0.21 km
              3  easy        1.25   9.0–10.0 km/h   6:40–6:00 /km   0.20 km
              4  fast           1  12.0–13.3 km/h   5:00–4:30 /km   0.21 km
              5  easy        1.25   9.0–10.0 km/h   6:40–6:00 /km   0.20 km

            Workout 2: Steady (20 min, 3.25 km)
              #  Phase   Minutes          Speed           Pace  Distance
              1  steady       20  9.0–10.5 km/h  6:40–5:43 /km   3.25 km

            """)
    }

    /// A dated workout shows its day; a phase that ends on distance shows the distance and its
    /// minutes as an estimate; a jog without a target is "not judged". The undated, time-only
    /// workout after it renders as it always has.
    @Test func datesDistancesAndJogsWithoutATarget() {
        let kmh = { (v: Double) in v / 3.6 }
        let plan = TrainingPlan(name: "Dated", workouts: [
            Workout(name: "Reps", date: CivilDate(year: 2026, month: 12, day: 3)!, phases: [
                Phase(name: "warm-up", duration: .seconds(600), minimumSpeed: kmh(5), maximumSpeed: kmh(9)),
                Phase(name: "repetition", end: .distance(400), target: .speed(minimum: kmh(16), maximum: kmh(17))),
                Phase(name: "recovery", end: .distance(400), target: .none),
                Phase(name: "tempo", end: .distance(1600), target: .speed(minimum: kmh(13.6), maximum: kmh(14))),
                Phase(name: "recovery", end: .time(.seconds(90)), target: .none),
                Phase(name: "easy", end: .lapPress, target: .speed(minimum: kmh(9), maximum: kmh(10))),
            ]),
            Workout(name: "Steady", phases: [Phase(name: "steady", duration: .seconds(1200), minimumSpeed: kmh(9), maximumSpeed: kmh(10.5))]),
        ])
        #expect(PlanRendering.render(plan, today: Self.today) == """
            Plan: Dated
            Deadline: none (the plan does not expire)
            Minutes marked ~ are estimates: the phase ends on its distance, timed here at
            its target speed (8 km/h for a jog without one).

            Workout 1: Reps (~22.9 min, 3.57 km), Thu 2026-12-03
              #  Phase         Minutes           Speed            Pace  Distance
              1  warm-up            10    5.0–9.0 km/h  12:00–6:40 /km   1.17 km
              2  repetition       ~1.5  16.0–17.0 km/h   3:45–3:32 /km     400 m
              3  recovery           ~3      not judged                     400 m
              4  tempo              ~7  13.6–14.0 km/h   4:25–4:17 /km   1.60 km
              5  recovery          1.5      not judged
              6  easy        until lap   9.0–10.0 km/h   6:40–6:00 /km

            Workout 2: Steady (20 min, 3.25 km)
              #  Phase   Minutes          Speed           Pace  Distance
              1  steady       20  9.0–10.5 km/h  6:40–5:43 /km   3.25 km

            """)
    }

    @Test func theDeadlineSaysHowLongIsLeftOrThatThePlanExpired() {
        let plan = TrainingPlan(name: "P", deadline: CivilDate(year: 2026, month: 6, day: 30), workouts: [])
        #expect(PlanRendering.deadline(plan, today: Self.today.adding(days: 11))
            == "2026-06-30 (the last day to start a workout; 1 day left)")
        #expect(PlanRendering.deadline(plan, today: Self.today.adding(days: 12))
            == "2026-06-30 (today is the last day to start a workout)")
        #expect(PlanRendering.deadline(plan, today: Self.today.adding(days: 13))
            == "2026-06-30, expired (today is 2026-07-01): its workouts can be viewed but not started")
        #expect(PlanRendering.deadline(TrainingPlan(name: "P", workouts: []), today: Self.today)
            == "none (the plan does not expire)")
    }

    @Test func anExpiredPlanIsStillShown() throws {
        let plan = try PlanLoader.load(file: "old.yaml", text: PlanLoaderTests.valid.replacingOccurrences(of: "2026-06-30", with: "2026-03-31"))
        let text = PlanRendering.render(plan, today: Self.today)
        #expect(text.contains("Deadline: 2026-03-31, expired (today is 2026-06-18)"))
        #expect(text.contains("Workout 2: Steady"))
    }

    @Test func minutesAndNumbersAreShortAndLocaleFree() {
        #expect(PlanRendering.minutes(.seconds(30)) == "0.5")
        #expect(PlanRendering.minutes(.seconds(20)) == "0.33")
        #expect(PlanRendering.minutes(.seconds(90 * 60)) == "90")
        #expect(PlanRendering.kilometres(1234.5) == "1.23 km")
        #expect(PlanRendering.kilometres(0) == "0.00 km")
    }

    @Test func theListShowsEachPlanOrWhyItDoesNotLoad() throws {
        let good = try PlanLoader.load(file: "test.yaml", text: PlanLoaderTests.valid)
        var old = good
        old.name = "Old plan"
        old.deadline = CivilDate(year: 2026, month: 1, day: 31)
        let broken = DataFileError(file: "plans/broken.yaml", line: 3, key: "workouts", reason: "needs at least one workout")
        let text = PlanRendering.list(
            [(file: "test.yaml", plan: .success(good)), (file: "old.yaml", plan: .success(old)),
             (file: "broken.yaml", plan: .failure(broken))],
            today: Self.today)
        #expect(text == """
            File         Plan                        Workouts  Deadline
            test.yaml    Test plan                          2  2026-06-30
            old.yaml     Old plan                           2  2026-01-31 (expired)
            broken.yaml  (does not load, see below)

            plans/broken.yaml:3: workouts: needs at least one workout

            """)
        #expect(PlanRendering.list([], today: Self.today) == "No plans.\n")
    }

    @Test func everyBundledPlanRenders() throws {
        for file in try PlanLoader.available(plansDir: PlanLoader.directory(hardwareDir: hardwareDirectory)) {
            let plan = try PlanLoader.load(path: file)
            let text = PlanRendering.render(plan, today: Self.today)
            #expect(text.hasPrefix("Plan: \(plan.name)\n"))
            for line in text.split(separator: "\n") {
                #expect(line.count <= 80, "\(file): \(line)")
            }
        }
    }
}
