import Foundation
import TestSupport
import Testing

/// FIT workouts in through `pacer plan import` and out through `pacer plan export --fit`,
/// against encoders and decoders that are not Pacer's: workout files written by fit-tool
/// (`scripts/fit-workout.py`, pip fit-tool) import to the plan file expected line by line;
/// Pacer's own export is read by Garmin's FIT SDK (`scripts/fit-dump.py`) field by field and
/// imports back to the plan it came from; steps Pacer cannot coach are refused naming the
/// file and the step (65), and nothing is written. Both Python packages are installed by
/// scripts/setup.sh; without them these tests fail and say so.
@Suite("FIT workouts end to end", .serialized)
struct FITWorkoutEndToEndTests {
    static let writer = repositoryRoot + "/scripts/fit-workout.py"

    /// `spec` (JSON, scripts/fit-workout.py's) written as a FIT workout by fit-tool at `path`.
    static func fitTool(_ spec: String, _ path: String) async throws {
        let json = path + ".json"
        try spec.write(toFile: json, atomically: true, encoding: .utf8)
        let run = try await Program.runOffThePool("/usr/bin/python3", [writer, json, path])
        try #require(run.status == 0, "fit-workout.py: \(run.stderr) (scripts/setup.sh installs fit-tool)")
    }

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The scenario's workout (`Scenarios/fit-workout`): fit-tool writes the committed
    /// workout.fit from workout.json byte for byte, so the scenario runs a file an independent
    /// encoder made; `pacer run --plan` and `plan show` take the .fit as it is, and a step the
    /// device cannot coach is refused naming the file and the step.
    @Test func theScenariosWorkoutIsFitToolsAndRunsAsItIs() async throws {
        let dir = try makeTemporaryDirectory()
        let fit = dir + "/again.fit"
        let spec = try Self.text(repositoryRoot + "/Scenarios/fit-workout/workout.json")
        try await Self.fitTool(spec, fit)
        let made = try Data(contentsOf: URL(fileURLWithPath: fit))
        let committed = try Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Scenarios/fit-workout/workout.fit"))
        #expect(made == committed, "fit-tool no longer writes the committed workout.fit")
        let shown = try await Pacer.runOffThePool(["plan", "show", repositoryRoot + "/Scenarios/fit-workout/workout.fit"])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("Workout 1: 5 x 1 km") && shown.stdout.contains("  12  Cool down  until lap"), "\(shown.stdout)")
        let power = dir + "/power.fit"
        try await Self.fitTool("""
            {"name": "Power", "steps": [{"name": "Hard", "duration": "time", "seconds": 60, "target": "power", "zone": 4}]}
            """, power)
        let refused = try await Pacer.runOffThePool(["plan", "show", power])
        #expect(refused.status != 0 && refused.stderr.contains(power) && refused.stderr.contains("step 1"), "\(refused.stderr)")
    }

    /// A coach's workout as fit-tool writes it: time, distance, open and repeat steps, speed
    /// ranges (one in km/h, one in m/s as it is), no target, names, an unnamed step, notes and
    /// the workout's description. The plan file written is exactly this.
    @Test func aWorkoutFitToolWroteImportsToThePhasesItHolds() async throws {
        let dir = try makeTemporaryDirectory()
        let fit = dir + "/coach.fit"
        try await Self.fitTool("""
            {"name": "Track Tuesday", "description": "Five by a kilometre, then easy home", "steps": [
             {"name": "Warm up", "duration": "time", "seconds": 600, "target": "open", "intensity": "warmup"},
             {"name": "Km rep", "duration": "distance", "metres": 1000, "target": "speed", "low": 3.889, "high": 4.167,
              "intensity": "active", "notes": "even splits"},
             {"duration": "time", "seconds": 90, "target": "open", "intensity": "recovery"},
             {"duration": "repeat_until_steps_cmplt", "from": 1, "count": 5},
             {"name": "Mile home", "duration": "distance", "metres": 1609.34, "target": "speed", "low": 2.5, "high": 3.123,
              "intensity": "cooldown"},
             {"name": "Stretch", "duration": "open", "intensity": "rest"}
            ]}
            """, fit)
        let run = try await Pacer.runOffThePool(["plan", "import", fit, "--data-dir", dir + "/data"])
        try #require(run.status == 0, "\(run.stderr)")
        let path = dir + "/data/plans/track-tuesday.yaml"
        #expect(run.stdout == """
            Imported 'Track Tuesday' from \(fit) (6 steps, 13 phases) as plan 'Track Tuesday' in \(path)
            `pacer plan show \(path)` lists it; `pacer plan activate \(path)` makes it the device's.

            """)
        #expect(try Self.text(path) == """
            # Plan "Track Tuesday": imported from the FIT workout coach.fit by `pacer plan import`.
            # Its 6 steps (1 repeat) make 13 phases; `pacer plan show FILE` lists them.
            name: "Track Tuesday"
            summary: "Five by a kilometre, then easy home"
            workouts:
              - name: "Track Tuesday"
                phases:
                  - {name: "Warm up", minutes: 10}
                  - repeat: 5
                    phases:
                      - {name: "Km rep", km: 1, speed_kmh: [14, 15], notes: "even splits"}
                      - {name: "recovery", minutes: 1.5}
                  - {name: "Mile home", m: 1609.34, speed_kmh: [9, 11.2428]}
                  - {name: "Stretch", until: lap}

            """)
        // The device's own reading of it: `pacer plan show` lists the 13 phases.
        let show = try await Pacer.runOffThePool(["plan", "show", path])
        try #require(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("13  Stretch"), "\(show.stdout)")
        // --name names the plan; the file is not replaced without --force.
        let again = try await Pacer.runOffThePool(["plan", "import", fit, "--data-dir", dir + "/data", "--name", "Track Tuesday"])
        #expect(again.status == 73 && again.stderr.contains("\(path): already exists"), "\(again.stderr)")
        let named = try await Pacer.runOffThePool(["plan", "import", fit, "--out", dir + "/mine.yaml", "--name", "Mine"])
        try #require(named.status == 0, "\(named.stderr)")
        #expect(try Self.text(dir + "/mine.yaml").contains("\nname: \"Mine\"\n"))
    }

    /// The source plan, in the plan writer's own form so that the import's text can be
    /// compared with it: a repeat, distances, a pace range, notes, a lap-press end.
    static let plan = """
        name: "Track"
        workouts:
          - name: "6 x 800 m"
            phases:
              - {name: "warm-up", minutes: 10, speed_kmh: [8, 10]}
              - repeat: 6
                phases:
                  - {name: "fast", m: 800, pace_min_per_km: ["4:20", "4:05"], notes: "relax the shoulders"}
                  - {name: "jog", minutes: 1.5}
              - {name: "strides", m: 100, speed_kmh: [16, 18.5]}
              - {name: "home", until: lap}

        """

    /// Pacer's export read by Garmin's SDK field by field: time in s, distance in m, open, the
    /// repeat back to its first step with its count, custom speed ranges in m/s, open
    /// targets, intensity, notes; then imported back to the very phases.
    @Test func pacersExportReadsInGarminsSDKAndImportsBackTheSame() async throws {
        let dir = try makeTemporaryDirectory()
        let source = try write(Self.plan, to: "track.yaml", in: dir)
        let fit = dir + "/track.fit"
        let export = try await Pacer.runOffThePool(["plan", "export", source, "--workout", "1", "--fit", fit])
        try #require(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Workout 1 of Track, 6 x 800 m (15 phases in 6 steps), written to \(fit) (FIT, "))

        let dump = try await FITEndToEndTests.dump(fit)
        #expect(dump.integrity && dump.errors.isEmpty, "\(dump.errors)")
        #expect(dump.of("file_id").first?["type"] as? String == "workout")
        let workout = try #require(dump.of("workout").first)
        #expect(workout["wkt_name"] as? String == "6 x 800 m" && workout["sport"] as? String == "running")
        #expect(FITEndToEndTests.number(workout, "num_valid_steps") == 6)
        let steps = dump.of("workout_step")
        try #require(steps.count == 6)
        func n(_ i: Int, _ key: String) -> Double? { FITEndToEndTests.number(steps[i], key) }
        func s(_ i: Int, _ key: String) -> String? { steps[i][key] as? String }
        #expect((0..<6).map { n($0, "message_index") } == [0, 1, 2, 3, 4, 5])
        #expect((0..<6).map { s($0, "wkt_step_name") } == ["warm-up", "fast", "jog", nil, "strides", "home"])
        #expect((0..<6).map { s($0, "duration_type") }
                == ["time", "distance", "time", "repeat_until_steps_cmplt", "distance", "open"])
        #expect(n(0, "duration_time") == 600 && n(2, "duration_time") == 90)
        #expect(n(1, "duration_distance") == 800 && n(4, "duration_distance") == 100)
        #expect(steps[5]["duration_value"] == nil)
        #expect(n(3, "duration_step") == 1 && n(3, "repeat_steps") == 6)
        #expect((0..<6).map { s($0, "target_type") } == ["speed", "speed", "open", "open", "speed", "open"])
        let ranges: [Int: (Double, Double)] = [0: (8 / 3.6, 10 / 3.6), 1: (1000 / 260, 1000 / 245), 4: (16 / 3.6, 18.5 / 3.6)]
        for (i, range) in ranges {
            #expect(n(i, "target_speed_zone") == 0)
            #expect(abs((n(i, "custom_target_speed_low") ?? 0) - range.0) <= 0.0005, "step \(i)")
            #expect(abs((n(i, "custom_target_speed_high") ?? 0) - range.1) <= 0.0005, "step \(i)")
        }
        #expect(steps[2]["custom_target_speed_low"] == nil && steps[5]["custom_target_value_high"] == nil)
        #expect((0..<6).map { s($0, "intensity") } == ["warmup", "active", "active", nil, "active", "active"])
        #expect(s(1, "notes") == "relax the shoulders" && s(0, "notes") == nil)

        // Imported back: the workout as it was, line for line.
        let back = dir + "/back.yaml"
        let run = try await Pacer.runOffThePool(["plan", "import", fit, "--out", back])
        try #require(run.status == 0, "\(run.stderr)")
        let workouts = { (text: String) in text.components(separatedBy: "\nworkouts:\n").last ?? "" }
        #expect(workouts(try Self.text(back)) == workouts(Self.plan))
        #expect(try Self.text(back).contains("# Its 6 steps (1 repeat) make 15 phases;"))
    }

    /// Steps Pacer cannot coach, as fit-tool writes them: refused with the file, the step
    /// and why (65), and no plan file written. A truncated file and a FIT file that is no
    /// workout are refused too; a file not there is 66.
    @Test func stepsPacerCannotCoachAreRefusedNamingTheStep() async throws {
        let dir = try makeTemporaryDirectory()
        let time = #"{"name": "easy", "duration": "time", "seconds": 300, "target": "open"}"#
        let cases: [(name: String, steps: String, expected: String)] = [
            ("power", #"{"duration": "time", "seconds": 60, "target": "power", "low_raw": 1250, "high_raw": 1300}"#,
             "step 2: a power target: Pacer has no power meter"),
            ("cadence", #"{"duration": "time", "seconds": 60, "target": "cadence", "low_raw": 170, "high_raw": 180}"#,
             "step 2: a cadence target: Pacer coaches speed, not cadence"),
            ("heart-rate duration", #"{"duration": "hr_less_than", "value": 230, "target": "open"}"#,
             "step 2: ends when the heart rate falls below a value (hr_less_than): Pacer ends a step on a time, "
                + "a distance or a lap press, and judges the heart within it"),
            ("heart rate as % of the maximum", #"{"duration": "time", "seconds": 60, "target": "heart_rate", "zone": 0, "low_raw": 70, "high_raw": 80}"#,
             "step 2: a heart-rate range as % of the maximum (70-80 %)"),
            ("speed zone", #"{"duration": "time", "seconds": 60, "target": "speed", "zone": 3}"#,
             "step 2: a speed target of the watch's speed zone 3: Pacer has no speed zones"),
            ("repeat until time", #"{"duration": "repeat_until_time", "value": 600000, "target": "open"}"#,
             "step 2: a repeat until a time is reached (repeat_until_time)"),
            ("nested repeat", #"""
                {"duration": "time", "seconds": 60, "target": "open"},
                {"duration": "repeat_until_steps_cmplt", "from": 1, "count": 3},
                {"duration": "time", "seconds": 60, "target": "open"},
                {"duration": "repeat_until_steps_cmplt", "from": 0, "count": 2}
                """#,
             "step 5: a repeat of steps 1 to 4, which hold the repeat at step 3: a repeat inside a repeat"),
        ]
        for (i, c) in cases.enumerated() {
            let fit = "\(dir)/refused-\(i).fit"
            try await Self.fitTool(#"{"name": "x", "steps": [\#(time), \#(c.steps)]}"#, fit)
            let run = try await Pacer.runOffThePool(["plan", "import", fit, "--data-dir", dir + "/data"])
            #expect(run.status == 65, "\(c.name): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("\(fit): \(c.expected)"), "\(c.name): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/data/plans"), "nothing written")

        // A workout cut short: the bytes it has are not what its header says.
        let whole = "\(dir)/whole.fit"
        try await Self.fitTool(#"{"name": "x", "steps": [\#(time), \#(time)]}"#, whole)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = "\(dir)/cut.fit"
        try bytes.prefix(bytes.count - 20).write(to: URL(fileURLWithPath: cut))
        let truncated = try await Pacer.runOffThePool(["plan", "import", cut, "--data-dir", dir + "/data"])
        #expect(truncated.status == 65 && truncated.stderr.contains("\(cut): the header says")
                && truncated.stderr.contains("truncated"), "\(truncated.stderr)")
        // A FIT file that is an activity's.
        let activity = "\(dir)/activity.fit"
        try await Self.fitTool(#"{"name": "x", "file_type": "activity", "steps": [\#(time)]}"#, activity)
        let notWorkout = try await Pacer.runOffThePool(["plan", "import", activity, "--data-dir", dir + "/data"])
        #expect(notWorkout.status == 65 && notWorkout.stderr.contains("\(activity): byte ")
                && notWorkout.stderr.contains(": a FIT activity file, not a workout (file_id type 5) (an activity imports "
                    + "with `pacer activities import`)"), "\(notWorkout.stderr)")
        let missing = try await Pacer.runOffThePool(["plan", "import", dir + "/none.fit", "--data-dir", dir + "/data"])
        #expect(missing.status == 66 && missing.stderr.contains("\(dir)/none.fit: no such file"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/data/plans"), "nothing written")
    }
}
