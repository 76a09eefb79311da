import Foundation
import TestSupport
import Testing

/// A person enters their profile, picks a goal and a deadline, gets a plan, looks at its
/// phases, runs its first workout, and sees the plan's progress.
@Suite("From a goal to a run", .serialized)
struct GoalToRunEndToEndTests {
    @Test func profileGoalPlanRunAndProgress() throws {
        let data = try makeTemporaryDirectory()
        let set = try Pacer.run(["profile", "set", "--weight", "70", "--height", "175", "--frequency", "3",
                                 "--raced", "yes", "--best-race", "5km@25:00", "--data-dir", data,
                                 "--now", "2026-04-30T18:00:00Z"])
        #expect(set.status == 0, "\(set.stderr)")

        // The stored profile makes the plan. The bundled scenario's plan was made from options
        // with the same values before the generator dated its workouts and prescribed Daniels'
        // sessions by distance (issue 40), and is kept as it was so that the scenario's goldens
        // stay: the workout the scenario runs, the first, is still what the generator makes,
        // but for its date.
        let plan = "\(data)/plan.yaml"
        let create = try Pacer.run(["plan", "create", "--goal", "7k-35", "--start", "2026-05-01",
                                    "--deadline", "2026-07-24", "--save", "--out", plan, "--data-dir", data])
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.stdout.contains("stored as plan 1"))
        let bundled = repositoryRoot + "/Scenarios/generated-plan/plan.yaml"
        let made = try String(contentsOfFile: plan, encoding: .utf8)
        #expect(made.contains("\n    date: 2026-05-01\n"), "the first workout on the start")
        #expect(Self.firstWorkout(made) == Self.firstWorkout(try String(contentsOfFile: bundled, encoding: .utf8)),
                "Scenarios/generated-plan/plan.yaml's first workout is no longer what the generator makes")
        #expect(Self.firstWorkout(made).contains("- repeat: 2\n"))

        let show = try Pacer.run(["plan", "show", plan])
        #expect(show.status == 0)
        #expect(show.stdout.contains("Workout 1: Week 1 · day 1: goal-pace repeats"))
        #expect(show.stdout.contains("goal pace        5  11.6–12.0 km/h"))

        var list = try Pacer.run(["plan", "list", "--data-dir", data])
        // (Listed as expired on the machine's date, after 2026-07-24.)
        #expect(list.stdout.contains("goal: 7 km in 35:00  deadline 2026-07-24"), "\(list.stdout)")
        #expect(list.stdout.contains("0/36 workouts done"), "\(list.stdout)")

        // The first workout, on the scenario's recording, as fast as the machine goes.
        let run = try Pacer.run(["run", "--plan", plan, "--workout", "1", "--fast", "--buzzer", "null",
                                 "--source", "file:Scenarios/generated-plan/run.nmea", "--today", "2026-05-02",
                                 "--data-dir", data])
        #expect(run.status == 0, "\(run.stderr)")
        list = try Pacer.run(["plan", "list", "--data-dir", data])
        #expect(list.stdout.contains("1/36 workouts done"), "\(list.stdout)")

        // After the deadline the plan cannot be started.
        let late = try Pacer.run(["run", "--plan", plan, "--fast", "--buzzer", "null",
                                  "--source", "file:Scenarios/generated-plan/run.nmea", "--today", "2026-07-25",
                                  "--data-dir", data])
        #expect(late.status != 0)
        #expect(late.stderr.contains("2026-07-24"), "\(late.stderr)")
    }

    /// A plan file's first workout, from its `- name:` to the next, without its date.
    static func firstWorkout(_ text: String) -> String {
        let blocks = text.components(separatedBy: "\n  - name: ")
        guard blocks.count > 1 else { return "" }
        return blocks[1].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("    date: ") }.joined(separator: "\n")
    }
}
