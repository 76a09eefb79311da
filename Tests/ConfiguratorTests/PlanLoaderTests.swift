import Coaching
import Configurator
import Foundation
import PacerCore
import TestSupport
import Testing

@Suite("Training plans")
struct PlanLoaderTests {
    static let plansDirectory = PlanLoader.directory(hardwareDir: hardwareDirectory)

    @Test func bundledPlansAllLoad() throws {
        let files = try PlanLoader.available(plansDir: Self.plansDirectory)
        let names = files.map { ($0 as NSString).lastPathComponent }
        for expected in ["easy-run.yaml", "intervals.yaml", "tempo.yaml", "long-run.yaml", "demo.yaml"] {
            #expect(names.contains(expected))
        }
        for file in files {
            let plan = try PlanLoader.load(path: file)
            #expect(!plan.name.isEmpty)
            #expect(plan.summary?.isEmpty == false, "\(file)")
            #expect(!plan.workouts.isEmpty)
            // A bundled plan with a deadline would stop working on that day.
            #expect(plan.deadline == nil, "\(file)")
            for workout in plan.workouts {
                #expect(!workout.phases.isEmpty)
                for phase in workout.phases {
                    // A band, when the phase has one (a jog or a free run has none).
                    #expect(phase.speedBand.map { $0.lowerBound > 0 && $0.lowerBound < $0.upperBound } ?? true)
                }
            }
            // Each bundled file documents the format in its header.
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.hasPrefix("# Plan \"\(plan.name)\""), "\(file)")
            #expect(text.contains("pace_min_per_km: [\"SLOW\", \"FAST\"]") && text.contains("repeat: N"), "\(file)")
        }
    }

    @Test func bundledIntervalsExpandTheirRepeats() throws {
        let plan = try PlanLoader.load(path: "\(Self.plansDirectory)/intervals.yaml")
        let phases = try #require(plan.workouts.first).phases
        #expect(phases.map(\.name) == ["warm-up"] + Array(repeating: ["fast", "recovery"], count: 6).flatMap { $0 } + ["cool-down"])
        #expect(plan.workouts[0].duration == .seconds(42 * 60))
    }

    static let valid = """
        name: Test plan
        summary: >-
          Two workouts
          for tests.
        deadline: 2026-06-30
        workouts:
          - name: Short
            phases:
              - name: warm-up
                minutes: 0.5
                speed_kmh: [6, 8.5]
              - repeat: 2
                phases:
                  - {name: fast, minutes: 1, pace_min_per_km: ["5:00", "4:30"]}
                  - {name: easy, minutes: 1.25, pace_min_per_km: [6:40, 6:00]}
          - name: Steady
            phases:
              - name: steady
                minutes: 20
                speed_kmh: [9, 10.5]
        """

    static let validModel: TrainingPlan = {
        let fast = Phase(name: "fast", duration: .seconds(60), minimumSpeed: 1000 / 300, maximumSpeed: 1000 / 270)
        let easy = Phase(name: "easy", duration: .seconds(75), minimumSpeed: 1000 / 400, maximumSpeed: 1000 / 360)
        return TrainingPlan(
            name: "Test plan", summary: "Two workouts for tests.", deadline: CivilDate(year: 2026, month: 6, day: 30),
            workouts: [
                Workout(name: "Short", phases: [
                    Phase(name: "warm-up", duration: .seconds(30), minimumSpeed: 6 / 3.6, maximumSpeed: 8.5 / 3.6),
                ] + (1...2).flatMap { n in
                    [fast, easy].map { p in
                        var p = p
                        p.repetition = Repetition(group: 0, number: n, count: 2)
                        return p
                    }
                }),
                Workout(name: "Steady", phases: [
                    Phase(name: "steady", duration: .seconds(1200), minimumSpeed: 9 / 3.6, maximumSpeed: 10.5 / 3.6),
                ]),
            ])
    }()

    @Test func aValidPlanLoadsExactly() throws {
        let dir = try makeTemporaryDirectory()
        let path = try write(Self.valid, to: "test.yaml", in: dir)
        #expect(try PlanLoader.load(path: path) == Self.validModel)
        #expect(try PlanLoader.load(file: "inline.yaml", text: Self.valid) == Self.validModel)
    }

    /// Each broken file is refused with the file, the line, the key and the reason.
    @Test(arguments: [
        // unknown keys, at any depth
        ("minutes: 20", "minutes: 20\n        pase: fast", 20, "workouts[1].phases[0].pase", "unknown key"),
        ("deadline: 2026-06-30", "deadline: 2026-06-30\ncoach: me", 6, "coach", "unknown key"),
        ("minutes: 20", "mintues: 20", 19, "workouts[1].phases[0].mintues",
         "unknown key (expected one of: hr_bpm, hr_max_bpm, hr_max_zone, hr_zone, km, lap_ends, m, mi, minutes, name, notes, pace_min_per_km, speed_kmh, until)"),
        ("  - name: Steady", "  - name: Steady\n    notes: hilly", 17, "workouts[1].notes", "unknown key (expected one of: date, name, phases)"),
        ("repeat: 2", "repeat: 2\n        minutes: 3", 13, "workouts[0].phases[1].minutes", "unknown key (expected one of: phases, repeat)"),
        // missing keys
        ("  - name: Steady\n    phases:", "  - phases:", 16, nil, "missing key 'workouts[1].name'"),
        ("  - name: Steady", "  - title: Steady", 16, "workouts[1].title", "unknown key (expected one of: date, name, phases)"),
        ("        minutes: 20\n", "", 18, nil, "missing how the phase ends: one of 'workouts[1].phases[0].minutes', 'workouts[1].phases[0].m'"),
        // durations
        ("minutes: 20", "minutes: 0", 19, "workouts[1].phases[0].minutes", "must be above 0 and at most 1440 minutes (a day), got 0"),
        ("minutes: 20", "minutes: -5", 19, "workouts[1].phases[0].minutes", "must be above 0 and at most 1440 minutes (a day), got -5"),
        ("minutes: 20", "minutes: twenty", 19, "workouts[1].phases[0].minutes", "expected a number, got 'twenty'"),
        ("minutes: 20", "minutes: 2000", 19, "workouts[1].phases[0].minutes", "must be above 0 and at most 1440 minutes (a day), got 2000"),
        // speed ranges
        ("[9, 10.5]", "[11, 10.5]", 20, "workouts[1].phases[0].speed_kmh", "minimum 11 km/h is above maximum 10.5 km/h"),
        ("[9, 10.5]", "[9, 9]", 20, "workouts[1].phases[0].speed_kmh", "the range needs some width"),
        ("[6, 8.5]", "[-6, 8.5]", 11, "workouts[0].phases[0].speed_kmh", "minimum: must be positive, got -6 km/h"),
        ("[6, 8.5]", "[0, 8.5]", 11, "workouts[0].phases[0].speed_kmh", "minimum: must be positive, got 0 km/h"),
        ("[9, 10.5]", "[9, 45]", 20, "workouts[1].phases[0].speed_kmh", "maximum: 45 km/h is over 40 km/h, faster than any human runs"),
        ("[9, 10.5]", "[9, fast]", 20, "workouts[1].phases[0].speed_kmh", "maximum: expected a number of km/h, got 'fast'"),
        ("[9, 10.5]", "10", 20, "workouts[1].phases[0].speed_kmh", "expected two values"),
        ("[9, 10.5]", "[9, 10, 11]", 20, "workouts[1].phases[0].speed_kmh", "expected two values"),
        ("speed_kmh: [9, 10.5]", "speed_kmh: [9, 10.5]\n        pace_min_per_km: [\"6:00\", \"5:30\"]", 21,
         "workouts[1].phases[0].pace_min_per_km", "either speed_kmh or pace_min_per_km, not both"),
        // paces
        ("\"4:30\"", "\"4:3\"", 14, "workouts[0].phases[1].phases[0].pace_min_per_km", "faster pace: expected minutes:seconds per km like \"5:30\", got '4:3'"),
        ("\"4:30\"", "\"4:75\"", 14, "workouts[0].phases[1].phases[0].pace_min_per_km", "got '4:75'"),
        ("\"4:30\"", "4.5", 14, "workouts[0].phases[1].phases[0].pace_min_per_km", "got '4.5'"),
        ("\"4:30\"", "\"0:00\"", 14, "workouts[0].phases[1].phases[0].pace_min_per_km", "faster pace: must be positive"),
        ("\"4:30\"", "\"1:20\"", 14, "workouts[0].phases[1].phases[0].pace_min_per_km", "faster than any human runs"),
        ("[\"5:00\", \"4:30\"]", "[\"4:30\", \"5:00\"]", 14, "workouts[0].phases[1].phases[0].pace_min_per_km",
         "the slower pace comes first: 4:30 /km is faster than 5:00 /km (write [\"5:00\", \"4:30\"])"),
        // dates
        ("2026-06-30", "2026-02-30", 5, "deadline", "2026-02-30 is not a day of the calendar"),
        ("2026-06-30", "30/06/2026", 5, "deadline", "expected a date as YYYY-MM-DD"),
        ("2026-06-30", "2026-6-30", 5, "deadline", "expected a date as YYYY-MM-DD"),
        // lists
        ("    phases:\n      - name: steady\n        minutes: 20\n        speed_kmh: [9, 10.5]", "    phases: []",
         17, "workouts[1].phases", "needs at least one phase"),
        ("    phases:\n      - name: steady\n        minutes: 20\n        speed_kmh: [9, 10.5]", "    phases: {name: steady}",
         17, "workouts[1].phases", "expected a list of phases"),
        ("  - name: Steady\n    phases:\n      - name: steady\n        minutes: 20\n        speed_kmh: [9, 10.5]", "  - Steady",
         16, "workouts[1]", "expected a mapping"),
        // repeats
        ("repeat: 2", "repeat: 0", 12, "workouts[0].phases[1].repeat", "must be from 1 to 100 times, got 0"),
        ("repeat: 2", "repeat: 2.5", 12, "workouts[0].phases[1].repeat", "must be a whole number"),
        ("repeat: 2", "repeat: 1000", 12, "workouts[0].phases[1].repeat", "must be from 1 to 100 times, got 1000"),
        ("repeat: 2\n        phases:", "repeat: 2\n        steps:", 13, "workouts[0].phases[1].steps", "unknown key (expected one of: phases, repeat)"),
        ("      - repeat: 2\n        phases:\n          - {name: fast, minutes: 1, pace_min_per_km: [\"5:00\", \"4:30\"]}\n          - {name: easy, minutes: 1.25, pace_min_per_km: [6:40, 6:00]}\n",
         "      - repeat: 2\n", 12, nil, "missing key 'workouts[0].phases[1].phases'"),
    ] as [(String, String, Int, String?, String)])
    func brokenPlansAreRefused(replace: String, with replacement: String, line: Int, key: String?, reason: String) throws {
        #expect(Self.valid.contains(replace))
        let dir = try makeTemporaryDirectory()
        let path = try write(Self.valid.replacingOccurrences(of: replace, with: replacement), to: "broken.yaml", in: dir)
        let error = #expect(throws: DataFileError.self) { try PlanLoader.load(path: path) }
        #expect(error?.file == path)
        #expect(error?.line == line, "\(String(describing: error))")
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func anEmptyWorkoutListIsRefused() throws {
        let text = Self.valid.components(separatedBy: "workouts:")[0] + "workouts: []\n"
        let error = #expect(throws: DataFileError.self) { try PlanLoader.load(file: "empty.yaml", text: text) }
        #expect(error == DataFileError(file: "empty.yaml", line: 6, key: "workouts", reason: "needs at least one workout"))
    }

    @Test func aRepeatThatExpandsTooFarIsRefused() throws {
        let text = """
            name: Huge
            workouts:
              - name: W
                phases:
                  - repeat: 100
                    phases:
                      - {name: a, minutes: 1, speed_kmh: [9, 10]}
                      - {name: b, minutes: 1, speed_kmh: [9, 10]}
                      - {name: c, minutes: 1, speed_kmh: [9, 10]}
                      - {name: d, minutes: 1, speed_kmh: [9, 10]}
                      - {name: e, minutes: 1, speed_kmh: [9, 10]}
                      - {name: f, minutes: 1, speed_kmh: [9, 10]}
            """
        let error = #expect(throws: DataFileError.self) { try PlanLoader.load(file: "huge.yaml", text: text) }
        #expect(error == DataFileError(
            file: "huge.yaml", line: 5, key: "workouts[0].phases[0].repeat",
            reason: "expands to 600 phases; a workout may have at most 500"))
    }

    /// Issue 38, case 1: 140 kB whose aliases repeat one 500-phase workout 20,000 times (10
    /// million phases) was taken, and took the board past 1 GB. The values a file holds are
    /// counted with its aliases expanded, and counting stops at the limit.
    @Test func aPlanWhoseAliasesExpandPastTheLimitIsRefused() throws {
        let phases = (0..<500).map { "{name: p\($0), minutes: 1, speed_kmh: [8, 10]}" }.joined(separator: ", ")
        let text = "name: bomb\nworkouts:\n  - &w {name: w, phases: [\(phases)]}\n"
            + String(repeating: "  - *w\n", count: 20_000)
        #expect(text.utf8.count < 200_000)
        let error = #expect(throws: DataFileError.self) { try PlanLoader.load(file: "bomb.yaml", text: text) }
        #expect(error?.description == "bomb.yaml: holds more than 250000 values once its aliases (*name) are expanded: "
            + "a data file may hold at most that many (does an alias repeat a large block?)")
        // An alias that repeats a small block stays welcome.
        let small = "name: ok\nworkouts:\n  - &w {name: w, phases: [{name: p, minutes: 1, speed_kmh: [8, 10]}]}\n  - *w\n"
        #expect(try PlanLoader.load(file: "ok.yaml", text: small).workouts.count == 2)
    }

    /// Without aliases, the plan's own bounds: workouts, and phases over the whole plan.
    @Test func aPlanIsBoundedInWorkoutsAndInPhasesOverAll() throws {
        let one = "{name: w, phases: [{name: p, minutes: 1, speed_kmh: [8, 10]}]}"
        let many = "name: many\nworkouts:\n" + String(repeating: "  - \(one)\n", count: 1001)
        let tooMany = #expect(throws: DataFileError.self) { try PlanLoader.load(file: "many.yaml", text: many) }
        #expect(tooMany?.reason == "1001 workouts; a plan may have at most 1000", "\(String(describing: tooMany))")
        let repeated = "{name: w, phases: [{repeat: 100, phases: [{name: a, minutes: 1, speed_kmh: [8, 10]}, "
            + "{name: b, minutes: 1, speed_kmh: [8, 10]}, {name: c, minutes: 1, speed_kmh: [8, 10]}, "
            + "{name: d, minutes: 1, speed_kmh: [8, 10]}, {name: e, minutes: 1, speed_kmh: [8, 10]}]}]}"
        let long = "name: long\nworkouts:\n" + String(repeating: "  - \(repeated)\n", count: 41)
        let tooLong = #expect(throws: DataFileError.self) { try PlanLoader.load(file: "long.yaml", text: long) }
        #expect(tooLong?.key == "workouts[40]", "\(String(describing: tooLong))")
        #expect(tooLong?.reason.contains("more than 20000 phases") == true)
        let fits = "name: fits\nworkouts:\n" + String(repeating: "  - \(repeated)\n", count: 40)
        #expect(try PlanLoader.load(file: "fits.yaml", text: fits).workouts.count == 40)
    }

    @Test func notYAMLEmptyAndMissingFilesAreRefused() throws {
        let broken = #expect(throws: DataFileError.self) {
            try PlanLoader.load(file: "bad.yaml", text: "name: x\nworkouts: [unclosed\n")
        }
        #expect(broken?.reason.hasPrefix("not valid YAML") == true)
        #expect(broken?.line != nil)
        #expect(throws: DataFileError.self) { try PlanLoader.load(file: "empty.yaml", text: "") }
        let missing = #expect(throws: DataFileError.self) { try PlanLoader.load(path: "/nonexistent/plan.yaml") }
        #expect(missing?.reason == "no such file")
        #expect(throws: DataFileError.self) { try PlanLoader.available(plansDir: "/nonexistent/plans") }
    }

    /// An expired plan can be loaded and shown, but none of its workouts can be started (R4, R14).
    @Test func anExpiredPlanLoadsButCannotBeStarted() throws {
        let plan = try PlanLoader.load(file: "old.yaml", text: Self.valid.replacingOccurrences(of: "2026-06-30", with: "2026-03-31"))
        let lastDay = try #require(CivilDate(year: 2026, month: 3, day: 31))
        #expect(try PlanLoader.checkStartable(plan: plan, workoutIndex: 1, today: lastDay) == plan.workouts[1])
        let error = #expect(throws: PlanStartError.self) {
            try PlanLoader.checkStartable(plan: plan, workoutIndex: 0, today: lastDay.adding(days: 1))
        }
        #expect(error == .expired(plan: "Test plan", deadline: lastDay, today: lastDay.adding(days: 1)))
        #expect(error?.description == "plan 'Test plan' expired: its deadline was 2026-03-31 (today is 2026-04-01); "
            + "a workout of an expired plan cannot be started")
    }

    @Test func aWorkoutThePlanDoesNotHaveCannotBeStarted() throws {
        let plan = Self.validModel
        let today = try #require(CivilDate(year: 2026, month: 1, day: 1))
        for index in [-1, 2] {
            let error = #expect(throws: PlanStartError.self) {
                try PlanLoader.checkStartable(plan: plan, workoutIndex: index, today: today)
            }
            #expect(error == .noSuchWorkout(plan: "Test plan", index: index, count: 2))
        }
        #expect(PlanStartError.noSuchWorkout(plan: "P", index: 2, count: 2).description == "plan 'P' has no workout 3: its workouts are 1 to 2")
        #expect(try PlanLoader.checkStartable(plan: plan, workoutIndex: 0, today: today) == plan.workouts[0])
        let open = TrainingPlan(name: "Open", workouts: plan.workouts)
        #expect(try PlanLoader.checkStartable(plan: open, workoutIndex: 0, today: today.adding(days: 100_000)).name == "Short")
    }

    @Test func aBareNameResolvesToTheBundledPlan() throws {
        let dir = Self.plansDirectory
        #expect(PlanLoader.resolve("intervals", plansDir: dir) == "\(dir)/intervals.yaml")
        // `intervals.yaml` ends in .yaml: a path (of the working directory), not a name.
        #expect(PlanLoader.isPath("intervals.yaml") && PlanLoader.isPath("./intervals") && !PlanLoader.isPath("intervals"))
        #expect(PlanLoader.resolve("intervals.yaml", plansDir: dir) == nil)
        #expect(PlanLoader.resolve("\(dir)/tempo.yaml", plansDir: nil) == "\(dir)/tempo.yaml")
        #expect(PlanLoader.resolve("sprints", plansDir: dir) == nil)
        #expect(PlanLoader.resolve("elsewhere/intervals", plansDir: dir) == nil)
    }
}

/// Distance, open and free-run phases, repeats that know their pass, dates and notes (issue 40).
@Suite("Plan loader: how phases end")
struct PlanLoaderEndsTests {
    static let text = """
        name: Track night
        workouts:
          - name: 6 x 800 m
            date: 2026-12-03
            phases:
              - {name: warm-up, km: 2, pace_min_per_km: ["7:00", "6:00"]}
              - repeat: 6
                phases:
                  - {name: fast, m: 800, pace_min_per_km: ["4:40", "4:25"], notes: "relaxed shoulders"}
                  - {name: jog, m: 400}
              - {name: easy, until: lap, speed_kmh: [8, 10]}
              - {name: strides, minutes: 2, lap_ends: true}
              - {name: home, mi: 1}
          - name: Free run
            phases:
              - {name: run, until: stop}
        """

    @Test func everyEndLoads() throws {
        let plan = try PlanLoader.load(file: "track.yaml", text: Self.text)
        let w = plan.workouts[0]
        #expect(w.date == CivilDate(year: 2026, month: 12, day: 3))
        #expect(w.phases.count == 1 + 12 + 3)
        #expect(w.phases[0].end == .distance(2000) && w.phases[0].speedBand == 1000.0 / 420...1000.0 / 360)
        #expect(w.phases[1].end == .distance(800) && w.phases[1].notes == "relaxed shoulders")
        #expect(w.phases[2].end == .distance(400) && w.phases[2].target == .none)
        #expect(w.phases[1...12].map { $0.repetition?.number } == (1...6).flatMap { [$0, $0] })
        #expect(w.phases[1...12].allSatisfy { $0.repetition?.count == 6 && $0.repetition?.group == 0 })
        #expect(w.phases[13].end == .lapPress && w.phases[13].lapEndsEarly)
        #expect(w.phases[14].end == .time(.seconds(120)) && w.phases[14].lapEndsEarly && w.phases[14].target == .none)
        #expect(w.phases[15].end == .distance(1609.344) && !w.phases[15].lapEndsEarly)
        #expect(plan.workouts[1].phases == [Phase(name: "run", end: .stop, target: .none)])
    }

    @Test func itReadsBackAsWritten() throws {
        let plan = try PlanLoader.load(file: "track.yaml", text: Self.text)
        let text = PlanWriter.text(plan)
        #expect(try PlanLoader.load(file: "written.yaml", text: text) == plan)
        #expect(text.contains("- repeat: 6\n") && text.contains("{name: \"fast\", m: 800, pace_min_per_km: [\"4:40\", \"4:25\"], notes: \"relaxed shoulders\"}"))
        #expect(text.contains("{name: \"warm-up\", km: 2,") && text.contains("until: lap") && text.contains("lap_ends: true"))
        #expect(text.contains("    date: 2026-12-03\n"))
    }

    @Test(arguments: [
        ("m: 800, pace", "m: 800, km: 1, pace", "workouts[0].phases[1].phases[0].km", "give one of m and km: a phase ends on one thing"),
        ("{name: jog, m: 400}", "{name: jog}", nil, "missing how the phase ends: one of 'workouts[0].phases[1].phases[1].minutes'"),
        ("until: lap", "until: later", "workouts[0].phases[2].until", "expected lap (the phase ends at a lap press) or stop"),
        ("m: 400}", "m: 20}", "workouts[0].phases[1].phases[1].m", "must be from 50 to 200000 metres, got 20"),
        ("mi: 1}", "mi: 200}", "workouts[0].phases[4].mi", "must be from"),
        ("lap_ends: true", "lap_ends: sometimes", "workouts[0].phases[3].lap_ends", "expected true or false, got 'sometimes'"),
        ("date: 2026-12-03", "date: 2026-13-03", "workouts[0].date", "2026-13-03 is not a day of the calendar"),
        ("          - {name: jog, m: 400}", "          - repeat: 2\n            phases: [{name: jog, m: 400}]",
         "workouts[0].phases[1].phases[1].repeat", "a repeat inside a repeat: one level of repeats is enough"),
    ] as [(String, String, String?, String)])
    func brokenEndsAreRefused(replace: String, with replacement: String, key: String?, reason: String) throws {
        #expect(Self.text.contains(replace))
        let error = #expect(throws: DataFileError.self) {
            try PlanLoader.load(file: "track.yaml", text: Self.text.replacingOccurrences(of: replace, with: replacement))
        }
        #expect(error?.file == "track.yaml" && error?.line != nil)
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }
}
