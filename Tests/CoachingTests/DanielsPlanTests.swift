import Coaching
import PacerCore
import Testing

/// Rows of the training-intensity table of Daniels' Running Formula ("Training intensities
/// based on current VDOT": table 5.2 in the 3rd ed., 2014; table 3.2 in the 2nd, 2005), as the
/// pages below quote them. A pace is seconds per `metres`, rounded by the book to the second.
/// Each row is the book's, found with the library's `search` on 2026-12-02:
///
/// - VDOT 49: T 4:20 /km, I 3:59 /km and 1:35 /400 m, R 1:29 /400 m and 0:44 /200 m
///   (fit360.blogspot.com, "Gear guide: Daniels' Running Formula", 2009-05-04);
/// - VDOT 51: T 6:44 /mile (40minute10k.blogspot.com, "Threshold intervals", 2007-03-22);
/// - VDOT 40: T 8:12 /mile, and VDOT 80: T 4:41 /mile (run-fit.com, Jason Karp, "Pace tables").
///
/// The table's own precision is half a second on its figure: a per-km figure is held to a
/// second a km; a per-400 m or per-200 m figure to the half second it was rounded to (1.25
/// and 2.5 s a km).
enum DanielsTable {
    struct Row: Sendable, CustomStringConvertible {
        var vdot: Double
        var pace: DanielsPace
        var metres: Double
        var seconds: Double
        var source: String

        var description: String { "VDOT \(vdot) \(pace.rawValue) \(metres) m in \(seconds) s (\(source))" }
        /// Seconds a kilometre.
        var perKilometre: Double { seconds * 1000 / metres }
        /// How far the generator's pace may be, seconds a kilometre.
        var tolerance: Double { metres >= 1000 ? 1 : 0.5 * 1000 / metres }
    }

    static let mile = DanielsPace.mile
    static let rows: [Row] = [
        Row(vdot: 49, pace: .threshold, metres: 1000, seconds: 4 * 60 + 20, source: "fit360"),
        Row(vdot: 49, pace: .interval, metres: 1000, seconds: 3 * 60 + 59, source: "fit360"),
        Row(vdot: 49, pace: .interval, metres: 400, seconds: 60 + 35, source: "fit360"),
        Row(vdot: 49, pace: .repetition, metres: 400, seconds: 60 + 29, source: "fit360"),
        Row(vdot: 49, pace: .repetition, metres: 200, seconds: 44, source: "fit360"),
        Row(vdot: 51, pace: .threshold, metres: mile, seconds: 6 * 60 + 44, source: "40minute10k"),
        Row(vdot: 40, pace: .threshold, metres: mile, seconds: 8 * 60 + 12, source: "run-fit.com"),
        Row(vdot: 80, pace: .threshold, metres: mile, seconds: 4 * 60 + 41, source: "run-fit.com"),
    ]

    /// The row's pace at VDOT 49, m/s: the plan below trains at VDOT 49.
    static func speed49(_ pace: DanielsPace) -> Double {
        let row = rows.first { $0.vdot == 49 && $0.pace == pace && ($0.metres == 1000 || pace == .repetition) }!
        return row.metres / row.seconds
    }
}

@Suite("Daniels' paces")
struct DanielsPaceTests {
    @Test(arguments: DanielsTable.rows)
    func pacesMatchTheBooksTable(row: DanielsTable.Row) {
        let ours = 1000 / row.pace.speed(at: row.vdot)
        #expect(abs(ours - row.perKilometre) <= row.tolerance, "\(row): ours \(ours) s/km")
    }

    /// R faster than I faster than T over the table's VDOTs (30–85); T at the top of the
    /// threshold zone, I inside the interval zone, R faster than VO2max pace. (Below the table a
    /// mile lasts longer than the 11 minutes or so VO2max is held, and R nears I pace.)
    @Test func pacesAreOrderedAndInTheirZones() {
        for vdot in stride(from: 30.0, through: 85, by: 5) {
            let t = DanielsPace.threshold.speed(at: vdot), i = DanielsPace.interval.speed(at: vdot)
            let r = DanielsPace.repetition.speed(at: vdot)
            #expect(t < i && i < r, "VDOT \(vdot)")
            #expect(abs(t - TrainingZone.threshold.speeds(at: vdot).upperBound) < 1e-12)
            #expect(TrainingZone.interval.speeds(at: vdot).contains(i))
            #expect(r > VDOT.speedAtMaximum(vdot), "R pace is faster than VO2max pace")
        }
    }
}

/// A 10 km goal for a runner at VDOT 49 (a 5 km in the time Daniels–Gilbert give VDOT 49),
/// 4 days a week: the goal (10 km in 45:00, VDOT 45.3) is within reach, so the plan trains at
/// VDOT 49 throughout and its paces are the table's row.
enum TenK {
    static let start = CivilDate(year: 2026, month: 12, day: 3)!  // a Thursday
    static let weeks = 12
    static let profile = AthleteProfile(
        weight: 68, height: 178, weeklyFrequency: 4, hasRaced: true, hasRunMarathon: false,
        bestRace: .init(distance: 5000, time: VDOT.raceTime(distance: 5000, vdot: 49)))

    static func plan(days: [Weekday]? = nil) throws -> TrainingPlan {
        try PlanGenerator.generate(profile: profile, goal: Athletes.goal("10km-in-45:00"), start: start,
                                   deadline: start.adding(days: 7 * weeks), trainingDays: days)
    }
}

@Suite("Plan generator: Daniels' sessions and dates")
struct DanielsPlanTests {
    @Test func theRunnerTrainsAtVDOT49() {
        #expect(abs(RunningFitness(profile: TenK.profile).vdot - 49) < 1e-4)
    }

    // MARK: Dates

    @Test(arguments: [nil, [Weekday.monday, .wednesday, .saturday, .sunday], [.friday, .tuesday, .sunday, .thursday]])
    func everyWorkoutIsDatedOnATrainingDayFromTheStart(days: [Weekday]?) throws {
        let plan = try TenK.plan(days: days)
        let trainingDays = Set(days ?? PlanGenerator.defaultTrainingDays(frequency: 4, start: TenK.start))
        let dates = plan.workouts.compactMap(\.date)
        #expect(dates.count == plan.workouts.count && dates.count == 4 * TenK.weeks)
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 < $1 }, "strictly increasing")
        #expect(dates.allSatisfy { trainingDays.contains(Weekday(of: $0)) })
        #expect(dates.last! <= plan.deadline!)
        // The first on the first training day on or after the start.
        #expect(dates.first! >= TenK.start && dates.first! < TenK.start.adding(days: 7))
        #expect((TenK.start.daysSince1970..<dates.first!.daysSince1970).allSatisfy {
            !trainingDays.contains(Weekday(of: CivilDate(daysSince1970: $0)))
        })
        // Week w: its four workouts within the 7 days from start + 7(w − 1), each on the same
        // weekday as the week before.
        for (w, week) in plan.weeks(4).enumerated() {
            let from = TenK.start.adding(days: 7 * w)
            #expect(week.allSatisfy { $0.date! >= from && $0.date! < from.adding(days: 7) })
            #expect(week.enumerated().allSatisfy { d, workout in workout.name.hasPrefix("Week \(w + 1) · day \(d + 1): ") })
            #expect(week.map { Weekday(of: $0.date!) } == plan.weeks(4)[0].map { Weekday(of: $0.date!) })
        }
    }

    /// Without training days the plan runs on the start's weekday and the designed spread
    /// from it: from a Tuesday, Tue, Thu, Fri and Sun, the long run on Sunday; from this
    /// Thursday the same days after it.
    @Test func theDefaultDaysSpreadTheWeekFromTheStart() throws {
        let tuesday = CivilDate(year: 2026, month: 12, day: 1)!
        #expect(PlanGenerator.defaultTrainingDays(frequency: 3, start: tuesday) == [.tuesday, .thursday, .sunday])
        #expect(PlanGenerator.defaultTrainingDays(frequency: 4, start: tuesday) == [.tuesday, .thursday, .friday, .sunday])
        #expect(PlanGenerator.defaultTrainingDays(frequency: 4, start: TenK.start) == [.tuesday, .thursday, .saturday, .sunday])
        #expect(PlanGenerator.defaultTrainingDays(frequency: 7, start: TenK.start) == Weekday.allCases)
        let plan = try TenK.plan()
        #expect(plan.workouts[0].date == TenK.start && plan.workouts[0].title == "goal-pace repeats")
        let long = plan.workouts.filter { $0.title == "long run" }
        #expect(long.count == TenK.weeks && long.allSatisfy { Weekday(of: $0.date!) == .tuesday })
        #expect(long[0].date == TenK.start.adding(days: 5))
    }

    @Test(arguments: [
        ([Weekday.monday, .monday, .sunday, .friday], "names a day twice"),
        ([.monday, .sunday], "2 days (Mon, Sun) for 4 workouts a week: name one day for each"),
    ])
    func badTrainingDaysAreRefused(days: [Weekday], fragment: String) {
        #expect {
            try TenK.plan(days: days)
        } throws: { error in
            let message = (error as? PlanGeneratorError)?.description ?? ""
            return message.hasPrefix("athlete profile: training days: ") && message.contains(fragment)
        }
    }

    @Test func weekdaysAreTheCalendars() {
        #expect(Weekday(of: CivilDate(year: 1970, month: 1, day: 1)!) == .thursday)
        #expect(Weekday(of: CivilDate(year: 1969, month: 12, day: 29)!) == .monday)
        #expect(Weekday(of: CivilDate(year: 2026, month: 12, day: 1)!) == .tuesday)
        #expect(Weekday(of: CivilDate(year: 2028, month: 2, day: 29)!) == .tuesday)
    }

    // MARK: Sessions by distance

    /// Daniels' season: repetitions first, then intervals, then threshold for a 10 km race.
    @Test func theQualitySessionsFollowDanielsPhases() throws {
        let plan = try TenK.plan()
        let quality = plan.weeks(4).map { week in
            week.map(\.title).first { ["repetitions", "intervals", "tempo"].contains($0) }
        }
        #expect(quality == Array(repeating: "repetitions", count: 3) + Array(repeating: "intervals", count: 4)
            + Array(repeating: "tempo", count: 5))
        // Under 10 km the race's emphasis is intervals; from 15 km threshold throughout.
        let sevenK = try Athletes.plan(Athletes.racer(frequency: 4), "7k-35")
        #expect(sevenK.workouts.filter { $0.title == "intervals" }.count == 9)
        let half = try Athletes.plan(Athletes.racer(frequency: 4), "21.1km-in-1:55:00")
        #expect(half.workouts.filter { $0.title == "tempo" }.count == 12)
    }

    @Test func intervalsAreRepeatsBy800To1200MetresOfAtMostFiveMinutes() throws {
        let plan = try TenK.plan()
        let sessions = plan.workouts.filter { $0.title == "intervals" }
        #expect(!sessions.isEmpty)
        for workout in sessions {
            let fast = workout.phases(named: "interval")
            #expect(fast.count >= 2, "\(workout.name)")
            for (i, phase) in workout.phases.enumerated() where phase.name == "interval" {
                let metres = try #require(phase.distanceLimit)
                #expect([800.0, 1000, 1200].contains(metres))
                #expect(metres / DanielsTable.speed49(.interval) <= 5 * 60, "at most 5 minutes at I pace")
                // The jog after it: as long in time or a little less, and not judged.
                let jog = workout.phases[i + 1]
                #expect(jog.name == "recovery" && jog.target == .none)
                let jogSeconds = try #require(jog.timeLimit).inSeconds
                #expect(jogSeconds <= metres / DanielsTable.speed49(.interval) && jogSeconds >= metres / DanielsTable.speed49(.interval) - 30)
                #expect(phase.repetition != nil)
            }
        }
    }

    @Test func repetitionsAre400MetresWithEqualJogs() throws {
        let plan = try TenK.plan()
        let sessions = plan.workouts.filter { $0.title == "repetitions" }
        #expect(sessions.count == 3)
        for workout in sessions {
            #expect(workout.phases(named: "repetition").count >= 2)
            for (i, phase) in workout.phases.enumerated() where phase.name == "repetition" {
                #expect(phase.distanceLimit == 400)
                #expect(workout.phases[i + 1].name == "recovery" && workout.phases[i + 1].distanceLimit == 400)
                #expect(workout.phases[i + 1].target == .none)
            }
        }
    }

    @Test func tempoIsTwentyMinutesOrCruiseIntervalsOf1600Metres() throws {
        let plans = [try TenK.plan(), try Athletes.plan(Athletes.marathoner(frequency: 6), "21.1km-in-1:35:00", weeks: 16)]
        var kinds: Set<String> = []
        for plan in plans {
            for workout in plan.workouts where workout.title == "tempo" {
                let tempo = workout.phases(named: "tempo")
                if tempo.count == 1, let time = tempo[0].timeLimit {
                    #expect(time <= .seconds(20 * 60))
                    kinds.insert("tempo run")
                } else {
                    #expect(tempo.count >= 2 && tempo.allSatisfy { $0.distanceLimit == 1600 })
                    let rests = workout.phases(named: "recovery")
                    #expect(rests.allSatisfy { $0.target == .none && $0.timeLimit != nil && $0.timeLimit! <= .seconds(120) })
                    kinds.insert("cruise intervals")
                }
            }
        }
        #expect(kinds == ["tempo run", "cruise intervals"])
    }

    // MARK: Paces

    /// Every T, I and R phase is built around the table's pace for VDOT 49: its speed range
    /// holds the book's figure, its notes give the pace, and the pace it is built on is the
    /// book's within the table's precision.
    @Test func thePacesAreTheTablesAtVDOT49() throws {
        let plan = try TenK.plan()
        let kinds: [String: DanielsPace] = ["tempo": .threshold, "interval": .interval, "repetition": .repetition]
        var seen: Set<String> = []
        for workout in plan.workouts {
            for phase in workout.phases {
                guard let kind = kinds[phase.name], SafetyBounds.title(of: workout) != "goal-pace repeats" else { continue }
                seen.insert(phase.name)
                let band = try #require(phase.speedBand)
                let book = DanielsTable.speed49(kind)
                #expect(band.contains(book), "\(workout.name), \(phase.name): \(band) m/s, the book \(book) m/s")
                // The band is narrow: a few per cent around the pace.
                #expect(band.upperBound / band.lowerBound < 1.06)
                #expect(phase.notes?.hasPrefix("\(kind.rawValue) pace ") == true && phase.notes?.hasSuffix("VDOT 49.0 (Daniels)") == true)
            }
        }
        #expect(seen == ["tempo", "interval", "repetition"])
        for pace in DanielsPace.allCases {
            let rows = DanielsTable.rows.filter { $0.vdot == 49 && $0.pace == pace }
            #expect(!rows.isEmpty)
            for row in rows {
                #expect(abs(1000 / pace.speed(at: RunningFitness(profile: TenK.profile).vdot) - row.perKilometre) <= row.tolerance, "\(row)")
            }
        }
    }

    // MARK: Volume

    /// Daniels' limits on a session's fast running, as shares of the week's distance (every
    /// phase: warm-ups and recoveries too): R ≤ min(8 km, 5 %), I ≤ min(10 km, 8 %), T ≤ 10 %.
    @Test(arguments: [4, 6])
    func volumeLimitsHold(frequency: Int) throws {
        var profile = TenK.profile
        profile.weeklyFrequency = frequency
        let plan = try PlanGenerator.generate(profile: profile, goal: Athletes.goal("10km-in-45:00"), start: TenK.start,
                                              deadline: TenK.start.adding(days: 7 * TenK.weeks))
        var checked: Set<String> = []
        for week in plan.weeks(frequency) {
            let total = week.flatMap(\.phases).reduce(0) { $0 + $1.impliedDistance }
            #expect(total > 10_000)
            for workout in week {
                let metres = { (name: String) in workout.phases(named: name).reduce(0) { $0 + $1.impliedDistance } }
                switch workout.title {
                case "repetitions":
                    #expect(metres("repetition") <= min(8000, 0.05 * total), "\(workout.name): \(metres("repetition")) of \(total)")
                case "intervals":
                    #expect(metres("interval") <= min(10_000, 0.08 * total), "\(workout.name): \(metres("interval")) of \(total)")
                case "tempo":
                    #expect(metres("tempo") <= 0.10 * total, "\(workout.name): \(metres("tempo")) of \(total)")
                default:
                    continue
                }
                checked.insert(workout.title)
            }
        }
        #expect(checked == ["repetitions", "intervals", "tempo"])
    }

    // MARK: The summary

    @Test func theSummarySaysWhichMethodPrescribesEachSession() throws {
        let summary = try #require(try TenK.plan().summary)
        for fragment in [
            "Every workout is dated: Tue, Thu, Sat and Sun each week, from the first on or after 2026-12-03.",
            "Quality sessions as Daniels prescribes them (Daniels' Running Formula, 3rd ed., 2014, ch. 4–5)",
            "repetitions in weeks 1–3: 400 m at R pace (mile race pace, 1:29 /400 m in week 1) with 400 m jogs, at most 5 % of the week's distance and 8 km",
            "intervals in weeks 4–7: 1000 m at I pace (3:59 /km in week 1)",
            "tempo in weeks 8–12: 20 minutes at T pace (4:19 /km in week 1)",
            "The goal-pace repeats are this generator's race-pace practice, not Daniels', and stay in minutes.",
        ] {
            #expect(summary.contains(fragment), "\(fragment)\n\(summary)")
        }
        // A plan without them says nothing of them.
        let easy = try #require(try Athletes.plan(Athletes.racer(), "recreational").summary)
        #expect(!easy.contains("Quality sessions"))
    }
}
