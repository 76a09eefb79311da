import Coaching
import Configurator
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// FIT workouts and plan files: what `pacer plan import` reads keeps the plan loader's bounds,
/// every bundled plan's workouts go out as FIT and come back as they were, and an imported
/// workout is a plan file the loader reads back equal.
@Suite("FIT workouts as plans")
struct FITWorkoutPlanTests {
    /// The reader's bounds are the loader's, one for one.
    @Test func theImportKeepsThePlanLoadersBounds() {
        let limits = PlanActions.fitWorkoutLimits
        #expect(limits.maximumPhases == PlanLoader.maximumPhasesPerWorkout)
        #expect(limits.maximumRepeat == PlanLoader.maximumRepeat)
        #expect(limits.time == .seconds(1) ... .seconds(Int64(PlanLoader.maximumMinutes * 60)))
        #expect(limits.distance == PlanLoader.minimumMetres...PlanLoader.maximumMetres)
        #expect(limits.maximumSpeed == PlanLoader.maximumSpeedKmh / 3.6)
    }

    /// `phase` as a FIT file gives it back: a free run is an open step (a lap press ends it),
    /// and a lap press ending a timed or distance phase has no field, nor has a heart-rate
    /// ceiling beside a pace band (a step has one target).
    static func asFITSaysIt(_ phase: Phase) -> Phase {
        var p = phase
        p.heartRateCeiling = nil
        if p.end == .stop { p.end = .lapPress }
        p.lapEndsEarly = p.end == .lapPress
        return p
    }

    /// Equal, a speed allowed the last bits of a double (12 km/h and 5:00 /km are the same
    /// speed, written two ways).
    static func same(_ a: Phase, _ b: Phase) -> Bool {
        var a = a, b = b
        guard let x = a.speedBand, let y = b.speedBand else { return a == b }
        guard abs(x.lowerBound - y.lowerBound) < 1e-12, abs(x.upperBound - y.upperBound) < 1e-12 else { return false }
        a.target = .none
        b.target = .none
        return a == b
    }

    /// Every workout of every bundled plan (Hardware/plans, Scenarios/plans) exported and read back.
    @Test func everyBundledWorkoutGoesOutAndComesBack() throws {
        var workouts = 0
        for folder in [hardwareDirectory + "/plans", repositoryRoot + "/Scenarios/plans"] {
            for path in try PlanLoader.available(plansDir: folder) {
                let plan = try PlanLoader.load(path: path)
                for (n, workout) in plan.workouts.enumerated() {
                    let bytes = FITWriter.workout(workout, name: workout.name, createdAt: UTCTimestamp(millisecondsSince1970: 0))
                    let read = try FITWorkoutReader.parse(bytes, file: path, limits: PlanActions.fitWorkoutLimits)
                    let expected = workout.phases.map(Self.asFITSaysIt)
                    #expect(read.workout.name == workout.name)
                    #expect(read.workout.phases.count == expected.count, "\(path) workout \(n + 1)")
                    for (i, (got, want)) in zip(read.workout.phases, expected).enumerated() {
                        #expect(Self.same(got, want), "\(path) workout \(n + 1) phase \(i + 1): \(got) != \(want)")
                    }
                    workouts += 1
                }
            }
        }
        #expect(workouts >= 14, "\(workouts) workouts")
    }

    /// A workout written from a plan file's text, imported: the plan of that one workout,
    /// named as asked, its header saying where it came from, its text read back equal.
    @Test func anImportedWorkoutIsAPlanFileThatReadsBackEqual() throws {
        let dir = try makeTemporaryDirectory()
        let plan = try PlanLoader.load(file: "p.yaml", text: """
            name: Track
            workouts:
              - name: "6 x 800 m"
                phases:
                  - {name: warm-up, minutes: 10, speed_kmh: [8, 10]}
                  - repeat: 6
                    phases:
                      - {name: fast, m: 800, pace_min_per_km: ["4:20", "4:05"], notes: "relax the shoulders"}
                      - {name: jog, minutes: 1.5}
                  - {name: home, until: lap}
            """)
        let fit = dir + "/Track Tuesday.fit"
        try Data(FITWriter.workout(plan.workouts[0], name: "6 x 800 m", createdAt: UTCTimestamp(millisecondsSince1970: 0)))
            .write(to: URL(fileURLWithPath: fit))
        let imported = try PlanActions.importFITWorkout(path: fit, name: " Tuesdays ")
        #expect(imported.plan.name == "Tuesdays")
        #expect(imported.plan.workouts == [plan.workouts[0]])
        #expect(imported.read.steps == 5)
        #expect(imported.header == [
            "Plan \"Tuesdays\": imported from the FIT workout Track Tuesday.fit by `pacer plan import`.",
            "Its 5 steps (1 repeat) make 14 phases; `pacer plan show FILE` lists them.",
        ])
        let path = try PlanActions.saveImported((imported.plan, imported.header), dataFolder: dir + "/data")
        #expect(path == dir + "/data/plans/tuesdays.yaml")
        #expect(try PlanLoader.load(path: path) == imported.plan)
        #expect(throws: PlanActionError.self) {
            try PlanActions.saveImported((imported.plan, imported.header), dataFolder: dir + "/data")
        }
        #expect(try PlanActions.saveImported((imported.plan, imported.header), dataFolder: dir + "/data", replace: true)
                == path)
        // Without a name: the workout's.
        #expect(try PlanActions.importFITWorkout(path: fit).plan.name == "6 x 800 m")
    }

    @Test func anImportedPlansFileIsNamedAfterIt() {
        #expect(PlanActions.importedFileName("6 x 800 m") == "6-x-800-m")
        #expect(PlanActions.importedFileName("  Tempo: Tuesday!! ") == "tempo-tuesday")
        #expect(PlanActions.importedFileName("Über Lauf") == "ber-lauf")
        #expect(PlanActions.importedFileName("··") == "workout")
        #expect(PlanActions.importedFileName(String(repeating: "a", count: 80)).count == 60)
    }
}
