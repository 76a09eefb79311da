import Coaching
import Foundation
import PacerCore
import Storage
import TestSupport
import Testing

/// The athlete profile with its history, and the stored plans with their progress, on a real
/// SQLite file.
@Suite("PacerStore: athlete profile and plans")
struct AthleteStoreTests {
    static let runner = AthleteProfile(
        weight: 70.5, height: 178, weeklyFrequency: 4, hasRaced: true, hasRunMarathon: false,
        bestRace: AthleteProfile.Mark(distance: 10_000, time: .seconds(48 * 60 + 30)))

    func at(hours: Double) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: t0.millisecondsSince1970 + Int64(hours * 3_600_000))
    }

    @Test func noProfileBeforeTheFirstSet() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        #expect(try store.athlete.athlete() == nil)
        #expect(try store.athlete.athleteHistory().isEmpty)
        #expect(try store.athlete.athleteFieldsSince().isEmpty)
    }

    @Test func profileRoundTripsThroughTheFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var marathoner = Self.runner
        marathoner.hasRunMarathon = true
        marathoner.bestMarathon = .seconds(3 * 3600 + 59 * 60 + 59)
        marathoner.bestRace = AthleteProfile.Mark(distance: 21_097.5, time: .milliseconds(6_300_250))
        do {
            let store = try PacerStore(directory: dir)
            #expect(try store.athlete.setAthlete(marathoner, at: t0))
            let current = try #require(try store.athlete.athlete())
            #expect(current.profile == marathoner)
            #expect(current.since == t0)
            try store.database.close()
        }
        // A fresh connection: everything comes from the file.
        let store = try PacerStore(directory: dir)
        let current = try #require(try store.athlete.athlete())
        #expect(current.profile == marathoner)
        #expect(current.since == t0)
        #expect(try store.athlete.athleteHistory().count == 1)
        #expect(try store.database.rowCounts()["athlete_profile"] == 1)
    }

    @Test func historyIsOldestFirstAndTheCurrentValueIsTheLatest() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        var profile = Self.runner
        try store.athlete.setAthlete(profile, at: at(hours: 0))
        profile.weight = 69
        try store.athlete.setAthlete(profile, at: at(hours: 24))
        profile.weeklyFrequency = 5
        profile.hasRunMarathon = true
        profile.bestMarathon = .seconds(4 * 3600)
        try store.athlete.setAthlete(profile, at: at(hours: 48))

        let history = try store.athlete.athleteHistory()
        #expect(history.map(\.1) == [at(hours: 0), at(hours: 24), at(hours: 48)])
        #expect(history.map(\.0.weight) == [70.5, 69, 69])
        #expect(history.map(\.0.weeklyFrequency) == [4, 4, 5])
        let current = try #require(try store.athlete.athlete())
        #expect(current.profile == profile)
        #expect(current.since == at(hours: 48))

        // When each field last changed: from the entry that changed it.
        let since = try store.athlete.athleteFieldsSince()
        #expect(since[.height] == at(hours: 0))
        #expect(since[.hasRaced] == at(hours: 0))
        #expect(since[.bestRace] == at(hours: 0))
        #expect(since[.weight] == at(hours: 24))
        #expect(since[.weeklyFrequency] == at(hours: 48))
        #expect(since[.hasRunMarathon] == at(hours: 48))
        #expect(since[.bestMarathon] == at(hours: 48))
        #expect(Set(since.keys) == Set(AthleteProfile.Field.allCases))
    }

    @Test func settingTheSameProfileAgainStoresNothing() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        #expect(try store.athlete.setAthlete(Self.runner, at: at(hours: 0)))
        #expect(try store.athlete.setAthlete(Self.runner, at: at(hours: 5)) == false)
        // Below a millisecond, the stored value is the same value.
        var finer = Self.runner
        finer.bestRace?.time += .microseconds(300)
        #expect(try store.athlete.setAthlete(finer, at: at(hours: 6)) == false)
        #expect(try store.athlete.athleteHistory().count == 1)
        #expect(try store.athlete.athlete()?.since == at(hours: 0))
        // Changing a field and changing it back are two changes.
        var heavier = Self.runner
        heavier.weight = 72
        #expect(try store.athlete.setAthlete(heavier, at: at(hours: 7)))
        #expect(try store.athlete.setAthlete(Self.runner, at: at(hours: 8)))
        #expect(try store.athlete.athleteHistory().count == 3)
        #expect(try store.athlete.athleteFieldsSince()[.weight] == at(hours: 8))
    }

    @Test func implausibleProfilesAreRefusedAndNothingIsStored() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        var cases: [AthleteProfile] = []
        for change in [
            { (p: inout AthleteProfile) in p.weight = 29.9 },
            { p in p.weight = 250.1 },
            { p in p.weight = .nan },
            { p in p.height = 119 },
            { p in p.height = 231 },
            { p in p.weeklyFrequency = 0 },
            { p in p.weeklyFrequency = 8 },
            { p in p.hasRaced = false },  // with a best race
            { p in p.bestRace = AthleteProfile.Mark(distance: 999, time: .seconds(300)) },
            { p in p.bestRace = AthleteProfile.Mark(distance: 100_001, time: .seconds(40_000)) },
            { p in p.bestRace = AthleteProfile.Mark(distance: 10_000, time: .seconds(20 * 60)) },  // 30 km/h
            { p in p.bestRace = AthleteProfile.Mark(distance: 10_000, time: .seconds(6 * 3600)) },  // 1.7 km/h
            { p in p.bestMarathon = .seconds(4 * 3600) },  // without a marathon
            { p in p.hasRunMarathon = true; p.bestMarathon = .seconds(7199) },
            { p in p.hasRunMarathon = true; p.bestMarathon = .seconds(8 * 3600 + 1) },
        ] {
            var profile = Self.runner
            change(&profile)
            cases.append(profile)
        }
        for profile in cases {
            #expect(throws: StorageError.self, "\(profile)") { try store.athlete.setAthlete(profile, at: t0) }
        }
        #expect(try store.database.rowCounts()["athlete_profile"] == 0)
        #expect(try store.athlete.athlete() == nil)
    }

    @Test func aChangeDatedBeforeTheLatestIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        try store.athlete.setAthlete(Self.runner, at: at(hours: 10))
        var lighter = Self.runner
        lighter.weight = 68
        #expect(throws: StorageError.athleteChangeOutOfOrder(latest: at(hours: 10), given: at(hours: 9))) {
            try store.athlete.setAthlete(lighter, at: at(hours: 9))
        }
        // The same instant is not before it.
        #expect(try store.athlete.setAthlete(lighter, at: at(hours: 10)))
        #expect(try store.athlete.athlete()?.profile == lighter)
    }

    @Test func fieldsSinceFollowsEachField() {
        var b = Self.runner
        b.hasRaced = false
        b.bestRace = nil
        let since = AthleteStore.fieldsSince([(Self.runner, at(hours: 0)), (b, at(hours: 1))])
        #expect(since[.hasRaced] == at(hours: 1))
        #expect(since[.bestRace] == at(hours: 1))
        #expect(since[.weight] == at(hours: 0))
        #expect(AthleteStore.fieldsSince([]).isEmpty)
    }

    // MARK: - Plans

    static let marathonGoal = Goal(distance: Goal.marathonDistance, time: nil, name: "marathon")
    static let sevenIn35 = Goal(distance: 7000, time: .seconds(35 * 60), name: "7 km in 35:00")
    static let recreational = Goal(distance: nil, time: nil, name: "recreational")

    @Test func plansRoundTripThroughTheFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let yaml = "name: Spring marathon\nworkouts:\n  - name: Long run\n    phases: []\n"
        let deadline = try #require(CivilDate(year: 2026, month: 10, day: 4))
        let ids: [Int64]
        do {
            let store = try PacerStore(directory: dir)
            ids = [
                try store.plans.storePlan(name: "Spring marathon", goal: Self.marathonGoal, deadline: deadline, yaml: yaml,
                                    workouts: 24, createdAt: at(hours: 1)),
                try store.plans.storePlan(name: "7 in 35", goal: Self.sevenIn35, deadline: nil, yaml: "name: 7 in 35\n",
                                    workouts: 12, createdAt: at(hours: 2)),
                try store.plans.storePlan(name: "Easy", goal: Self.recreational, deadline: nil, yaml: "name: Easy\n",
                                    workouts: 3, createdAt: at(hours: 3)),
            ]
            try store.database.close()
        }
        let store = try PacerStore(directory: dir)
        let plans = try store.plans.plans()
        #expect(plans.map(\.id) == ids)
        #expect(plans.map(\.name) == ["Spring marathon", "7 in 35", "Easy"])
        #expect(plans.map(\.goal) == [Self.marathonGoal, Self.sevenIn35, Self.recreational])
        #expect(plans.map(\.deadline) == [deadline, nil, nil])
        #expect(plans.map(\.workoutCount) == [24, 12, 3])
        #expect(plans.map(\.createdAt) == [at(hours: 1), at(hours: 2), at(hours: 3)])
        let first = try store.plans.plan(id: ids[0])
        #expect(first == plans[0])
        #expect(first.yaml == yaml)
        #expect(first.goal.isMarathon)
        #expect(try store.plans.plan(id: ids[1]).goal.speed == 7000.0 / (35 * 60))
        #expect(throws: StorageError.unknownPlan(99)) { try store.plans.plan(id: 99) }
    }

    @Test func badPlansAreRefusedAndNothingIsStored() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let attempts: [(String, Goal, Int)] = [
            ("", Self.marathonGoal, 3),
            ("  ", Self.marathonGoal, 3),
            ("Plan", Goal(distance: 5000, time: nil, name: ""), 3),
            ("Plan", Self.marathonGoal, -1),
            ("Plan", Goal(distance: 0, time: nil, name: "nothing"), 3),
            ("Plan", Goal(distance: 5000, time: .zero, name: "instant"), 3),
        ]
        for (name, goal, workouts) in attempts {
            #expect(throws: StorageError.self, "\(name) \(goal) \(workouts)") {
                try store.plans.storePlan(name: name, goal: goal, deadline: nil, yaml: "", workouts: workouts, createdAt: t0)
            }
        }
        #expect(try store.plans.plans().isEmpty)
        #expect(try store.database.rowCounts()["plans"] == 0)
    }

    /// Progress counts the distinct workouts of the plan with a completed activity: a workout
    /// run twice counts once, stopped and unfinished runs and other plans' runs do not count,
    /// and a plan is known by its identity: another plan with the same name keeps its own.
    @Test func progressCountsDistinctCompletedWorkoutsOfThePlan() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        let spring = PlanKey(contents: "name: Spring marathon\n".utf8)
        let sameName = PlanKey(contents: "name: Spring marathon\n# another\n".utf8)
        let other = PlanKey(contents: "name: Another plan\n".utf8)
        #expect(spring != sameName)
        #expect(try store.plans.workoutsDone(plan: spring) == [])

        func record(_ key: PlanKey?, workout: Int?, end: ActivityEnd?) throws {
            var sample = SampleActivity()
            sample.start = ActivityStart(name: "run", startedAt: t0, plan: "Spring marathon", workout: "w",
                                         profile: "medium", planKey: key, workoutIndex: workout)
            let id = try store.activities.begin(sample.start)
            for p in sample.points.prefix(5) { try store.activities.append(p, to: id) }
            if let end {
                try store.activities.finish(id, end: end, endedAt: time(5), activeTime: .seconds(5))
            } else {
                try store.activities.commit()  // still recording
            }
        }
        try record(spring, workout: 0, end: .completed)
        try record(spring, workout: 0, end: .completed)  // again: counts once
        try record(spring, workout: 2, end: .completed)
        try record(spring, workout: 1, end: .stopped)
        try record(spring, workout: 3, end: nil)
        try record(sameName, workout: 1, end: .completed)
        try record(other, workout: 0, end: .completed)
        try record(nil, workout: nil, end: .completed)

        #expect(try store.plans.workoutsDone(plan: spring) == [0, 2])
        #expect(try store.plans.workoutsDone(plan: sameName) == [1])
        #expect(try store.plans.workoutsDone(plan: other) == [0])
        // The unfinished one, recovered after a restart, still does not count.
        _ = try store.activities.recoverUnfinished()
        #expect(try store.plans.workoutsDone(plan: spring) == [0, 2])
    }

    /// The device's plan: none at first, then the one activated last, with its file.
    @Test func theActivePlanIsKept() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try PacerStore(directory: dir)
        #expect(try store.plans.activePlan() == nil)
        let a = PlanKey(contents: "a".utf8), b = PlanKey(contents: "b".utf8)
        try store.plans.setActivePlan(a, source: "/plans/a.yaml", at: t0)
        try store.plans.setActivePlan(b, source: "/plans/b.yaml", at: t0)
        let reopened = try PacerStore(directory: dir)
        let active = try #require(try reopened.plans.activePlan())
        #expect(active.key == b && active.source == "/plans/b.yaml")
        #expect(PlanKey(rawValue: a.rawValue) == a)
        #expect(PlanKey(rawValue: "plan:xyz") == nil)
    }

    /// A database made before the athlete tables existed (schema "v1" only) gains them when
    /// opened, with its activities intact.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
                   "needs the sqlite3 shell (apt-get install sqlite3)"))
    func anOlderDatabaseIsMigrated() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let store = try PacerStore(directory: dir)
            _ = try SampleActivity().record(into: store)
            try store.database.close()
        }
        // Back to v1: drop what v2 made and forget that it ran (and v9, which adds to its table).
        let path = "\(dir)/\(PacerDatabase.fileName)"
        let downgrade = try Program.run("/usr/bin/sqlite3", [path, PacerTestShell.undoV9 + """
            DROP TABLE athlete_profile; DROP TABLE plans; DROP INDEX activities_by_plan;
            DELETE FROM grdb_migrations WHERE identifier = 'v2';
            """])
        try #require(downgrade.status == 0, "\(downgrade.output)")

        let store = try PacerStore(directory: dir)
        #expect(try store.activities.activities().count == 1)
        #expect(try store.athlete.athlete() == nil)
        try store.athlete.setAthlete(Self.runner, at: t0)
        #expect(try store.athlete.athlete()?.profile == Self.runner)
    }
}
