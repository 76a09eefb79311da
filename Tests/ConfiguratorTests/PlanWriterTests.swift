import Coaching
import Configurator
import Foundation
import PacerCore
import TestSupport
import Testing

@Suite("Plan writer")
struct PlanWriterTests {
    static let start = CivilDate(year: 2026, month: 12, day: 1)!

    static func generated(_ goal: String, frequency: Int = 4, weeks: Int = 12, raced: Bool = true) throws -> TrainingPlan {
        let profile = AthleteProfile(
            weight: 72, height: 178, weeklyFrequency: frequency, hasRaced: raced, hasRunMarathon: false,
            bestRace: raced ? .init(distance: 10_000, time: .seconds(52 * 60)) : nil)
        return try PlanGenerator.generate(
            profile: profile, goal: GoalCatalog.goal(goal), start: start, deadline: start.adding(days: 7 * weeks))
    }

    static func roundTrip(_ plan: TrainingPlan, header: [String] = []) throws -> TrainingPlan {
        try PlanLoader.load(file: "written.yaml", text: PlanWriter.text(plan, header: header))
    }

    @Test(arguments: ["recreational", "5k", "7k-35", "10km-in-50:00", "21.1km-in-1:55:00", "marathon", "marathon-in-3:50:00"])
    func generatedPlansReadBackEqual(goal: String) throws {
        for frequency in [1, 4, 7] {
            let plan = try Self.generated(goal, frequency: frequency, weeks: goal.contains("marathon") ? 16 : 12)
            #expect(try Self.roundTrip(plan, header: ["generated for a test"]) == plan)
        }
        let novice = try Self.generated(goal, frequency: 3, raced: false)
        #expect(try Self.roundTrip(novice) == novice)
    }

    @Test func bundledPlansReadBackEqual() throws {
        let files = try PlanLoader.available(plansDir: PlanLoader.directory(hardwareDir: hardwareDirectory))
        #expect(files.count >= 5)
        for file in files {
            let plan = try PlanLoader.load(path: file)
            #expect(try Self.roundTrip(plan) == plan, "\(file)")
        }
    }

    @Test func repeatsAreWrittenAsGroups() throws {
        let plan = try PlanLoader.load(path: "\(PlanLoader.directory(hardwareDir: hardwareDirectory))/intervals.yaml")
        let text = PlanWriter.text(plan)
        #expect(text.contains("""
                  - repeat: 6
                    phases:
                      - {name: "fast", minutes: 2, pace_min_per_km: ["4:50", "4:20"]}
                      - {name: "recovery", minutes: 2, speed_kmh: [6, 9]}
            """))
        // A range read from paces is written as those paces.
        #expect(text.contains("{name: \"warm-up\", minutes: 10, pace_min_per_km: [\"7:00\", \"6:00\"]}"))
    }

    @Test func theTextIsDeterministicAndStartsWithTheHeader() throws {
        let plan = try Self.generated("7k-35")
        let header = ["Plan \"x\": generated.", "", "Athlete: 72 kg."]
        let text = PlanWriter.text(plan, header: header)
        #expect(text == PlanWriter.text(try Self.generated("7k-35"), header: header))
        #expect(text.hasPrefix("# Plan \"x\": generated.\n#\n# Athlete: 72 kg.\nname: \"7 km in 35:00 by 2027-02-23\"\nsummary: \"A 12-week plan"))
        #expect(text.contains("\ndeadline: 2027-02-23\nworkouts:\n  - name: \"Week 1 · day 1: goal-pace repeats\"\n    date: 2026-12-01\n    phases:\n"))
        #expect(text.range(of: "[0-9][eE][-+]?[0-9]", options: .regularExpression) == nil, "no exponents")
    }

    @Test func anyTextAndAnySpeedReadBack() throws {
        let names = ["a \"quoted\" name", "back\\slash", "colon: and # hash", "two\nlines\tand tab", "café · 5:00 /km",
                     "'single'", "- dash", "{braces}", "[list]", "  leading spaces", "yes", "null", "12", "\u{7}bell"]
        let speeds = [1.0, 2.7777777777777777, 1000 / 337.0, 3.14159265358979, 11.1 / 3.6, 0.1 / 3.6, 40 / 3.6]
        var phases: [Phase] = []
        for (i, name) in names.enumerated() {
            let a = speeds[i % speeds.count], b = speeds[(i + 3) % speeds.count]
            phases.append(Phase(name: name, duration: .milliseconds(Int64(1000 + i * 12_345)),
                                minimumSpeed: min(a, b), maximumSpeed: max(a, b) == min(a, b) ? max(a, b) * 1.1 : max(a, b)))
        }
        let plan = TrainingPlan(
            name: "Odd: \"plan\" #1", summary: "Line one.\nLine \"two\": it's \\ fine.", deadline: nil,
            workouts: [Workout(name: "all of them", phases: phases), Workout(name: "one", phases: [phases[3]])])
        let back = try Self.roundTrip(plan)
        #expect(back == plan)
        #expect(back.deadline == nil)
    }

    @Test func durationsReadBackToTheMillisecond() throws {
        let durations: [Duration] = [.seconds(1), .milliseconds(1001), .seconds(30), .milliseconds(4_321_987), .seconds(24 * 3600)]
        let plan = TrainingPlan(name: "Durations", workouts: [Workout(
            name: "w", phases: durations.map { Phase(name: "p", duration: $0, minimumSpeed: 2, maximumSpeed: 3) })])
        #expect(try Self.roundTrip(plan) == plan)
        #expect(PlanWriter.text(plan).contains("minutes: 0.016667,"))
        #expect(PlanWriter.text(plan).contains("minutes: 1440,"))
    }

    @Test func writingRefusesToReplaceAFileUnlessAsked() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/plan.yaml"
        let plan = try Self.generated("5k")
        try PlanWriter.write(plan, header: ["test"], to: path)
        #expect(try PlanLoader.load(path: path) == plan)
        #expect(throws: DataFileError(file: path, reason: "already exists: choose another file, or replace it (--force)")) {
            try PlanWriter.write(plan, to: path)
        }
        let other = try Self.generated("recreational")
        try PlanWriter.write(other, to: path, replace: true)
        #expect(try PlanLoader.load(path: path) == other)
        #expect(throws: DataFileError.self) { try PlanWriter.write(plan, to: "\(dir)/missing/plan.yaml") }
    }

    /// A generated plan is an ordinary plan: shown like one, and not startable after its deadline.
    @Test func aGeneratedPlanFileBehavesLikeAHandWrittenOne() throws {
        let plan = try Self.roundTrip(try Self.generated("7k-35", frequency: 3))
        let deadline = try #require(plan.deadline)
        let shown = PlanRendering.render(plan, today: deadline)
        #expect(shown.contains("Workout 1: Week 1 · day 1: goal-pace repeats ("))
        #expect(shown.contains("Deadline: 2027-02-23 (today is the last day to start a workout)"))
        #expect(try PlanLoader.checkStartable(plan: plan, workoutIndex: 35, today: deadline).name
            == "Week 12 · day 3: intervals (taper)")
        #expect(throws: PlanStartError.expired(plan: plan.name, deadline: deadline, today: deadline.adding(days: 1))) {
            try PlanLoader.checkStartable(plan: plan, workoutIndex: 0, today: deadline.adding(days: 1))
        }
    }
}
