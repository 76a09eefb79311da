import Coaching
import GRDB
import PacerCore

/// A training plan kept in the database (R3, R9, R14): what the generator made, for `pacer
/// plan list` and for running it later. Its progress is counted from the activities that name
/// it (`ActivityStore.workoutsDone(plan:)`).
public struct StoredPlan: Hashable, Sendable {
    public var id: Int64
    /// The plan's name, as its file gives it; activities run from it carry this name.
    public var name: String
    public var goal: Goal
    /// The last day its workouts can be started (R14); nil: it does not expire.
    public var deadline: CivilDate?
    public var createdAt: UTCTimestamp
    /// The plan file's text (YAML, the format `PlanLoader` reads).
    public var yaml: String
    /// How many workouts the plan has.
    public var workoutCount: Int

    public init(id: Int64, name: String, goal: Goal, deadline: CivilDate?, createdAt: UTCTimestamp, yaml: String,
                workoutCount: Int) {
        self.id = id
        self.name = name
        self.goal = goal
        self.deadline = deadline
        self.createdAt = createdAt
        self.yaml = yaml
        self.workoutCount = workoutCount
    }
}

/// The athlete profile with the history of its changes (R12, R15), and the stored plans.
///
/// **The profile.** Each change is a row of `athlete_profile` holding the whole profile as it
/// became, with `changed_at`: the current profile is the latest row, the history is every
/// row, and when a field last changed is read off consecutive rows. A set that changes nothing
/// stores nothing; a change dated before the latest stored one is refused (the history stays
/// in time order). The store refuses a profile whose `problems` are not empty, whoever calls.
extension ActivityStore {
    /// The tables of migration "v2". Times are milliseconds since 1970 UTC, as in "v1".
    static func createAthleteAndPlanTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE athlete_profile (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                changed_at INTEGER NOT NULL,
                weight_kg REAL NOT NULL,
                height_cm REAL NOT NULL,
                weekly_frequency INTEGER NOT NULL CHECK (weekly_frequency BETWEEN 1 AND 7),
                has_raced INTEGER NOT NULL CHECK (has_raced IN (0, 1)),
                has_run_marathon INTEGER NOT NULL CHECK (has_run_marathon IN (0, 1)),
                best_race_distance_m REAL,
                best_race_time_ms INTEGER,
                best_marathon_ms INTEGER,
                CHECK ((best_race_distance_m IS NULL) = (best_race_time_ms IS NULL))
            );
            CREATE INDEX athlete_profile_by_time ON athlete_profile(changed_at, id);
            CREATE TABLE plans (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL,
                goal_name TEXT NOT NULL,
                goal_distance_m REAL,
                goal_time_ms INTEGER,
                deadline TEXT
                    CHECK (deadline IS NULL OR deadline GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
                created_at INTEGER NOT NULL,
                yaml TEXT NOT NULL,
                workout_count INTEGER NOT NULL CHECK (workout_count >= 0)
            );
            CREATE INDEX plans_by_name ON plans(name);
            CREATE INDEX activities_by_plan ON activities(plan, workout);
            """)
    }

    // MARK: - The athlete profile

    /// Records `profile` as the athlete's, changed at `time`. Returns false, storing nothing,
    /// when it equals the current profile. Durations are kept to the millisecond.
    /// Throws `invalidAthlete` when the profile has problems, `athleteChangeOutOfOrder` when
    /// `time` is before the latest change.
    @discardableResult
    public func setAthlete(_ profile: AthleteProfile, at time: UTCTimestamp) throws -> Bool {
        let profile = Self.toMilliseconds(profile)
        let problems = profile.problems
        guard problems.isEmpty else {
            throw StorageError.invalidAthlete(problems.map(\.message).joined(separator: "; "))
        }
        return try write { db in
            if let latest = try Self.latestAthlete(db) {
                if latest.profile == profile { return false }
                guard latest.since <= time else {
                    throw StorageError.athleteChangeOutOfOrder(latest: latest.since, given: time)
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO athlete_profile (changed_at, weight_kg, height_cm, weekly_frequency, has_raced,
                        has_run_marathon, best_race_distance_m, best_race_time_ms, best_marathon_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    time.millisecondsSince1970, profile.weight, profile.height, profile.weeklyFrequency,
                    profile.hasRaced, profile.hasRunMarathon, profile.bestRace?.distance,
                    profile.bestRace?.time.milliseconds, profile.bestMarathon?.milliseconds,
                ])
            return true
        }
    }

    /// The current profile and when it last changed; nil when none was ever set.
    public func athlete() throws -> (profile: AthleteProfile, since: UTCTimestamp)? {
        try read { db in try Self.latestAthlete(db) }
    }

    /// Every change, oldest first: the whole profile as it became, and when.
    public func athleteHistory() throws -> [(AthleteProfile, UTCTimestamp)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM athlete_profile ORDER BY changed_at, id").map(Self.athleteRow)
        }
    }

    /// When each field of the current profile last changed; empty when there is no profile.
    public func athleteFieldsSince() throws -> [AthleteProfile.Field: UTCTimestamp] {
        Self.fieldsSince(try athleteHistory())
    }

    /// When each field last took its current value, from a history oldest first: every field
    /// dates from the first entry, then from each later entry that changed it.
    public static func fieldsSince(_ history: [(AthleteProfile, UTCTimestamp)]) -> [AthleteProfile.Field: UTCTimestamp] {
        var since: [AthleteProfile.Field: UTCTimestamp] = [:]
        var previous: AthleteProfile?
        for (profile, time) in history {
            let changed = previous.map { profile.fields(differingFrom: $0) } ?? AthleteProfile.Field.allCases
            for field in changed { since[field] = time }
            previous = profile
        }
        return since
    }

    static func latestAthlete(_ db: Database) throws -> (profile: AthleteProfile, since: UTCTimestamp)? {
        try Row.fetchOne(db, sql: "SELECT * FROM athlete_profile ORDER BY changed_at DESC, id DESC LIMIT 1")
            .map(athleteRow)
    }

    static func athleteRow(_ row: Row) throws -> (profile: AthleteProfile, since: UTCTimestamp) {
        var race: AthleteProfile.Mark?
        if let distance = row["best_race_distance_m"] as Double?, let time = row["best_race_time_ms"] as Int64? {
            race = AthleteProfile.Mark(distance: distance, time: .milliseconds(time))
        }
        let profile = AthleteProfile(
            weight: row["weight_kg"], height: row["height_cm"], weeklyFrequency: row["weekly_frequency"],
            hasRaced: row["has_raced"], hasRunMarathon: row["has_run_marathon"], bestRace: race,
            bestMarathon: (row["best_marathon_ms"] as Int64?).map { .milliseconds($0) })
        return (profile, UTCTimestamp(millisecondsSince1970: row["changed_at"]))
    }

    /// The profile with its durations truncated to the millisecond, as the table keeps them,
    /// so that setting the same profile again compares equal to what was stored.
    static func toMilliseconds(_ profile: AthleteProfile) -> AthleteProfile {
        var profile = profile
        if let race = profile.bestRace {
            profile.bestRace = AthleteProfile.Mark(distance: race.distance, time: .milliseconds(race.time.milliseconds))
        }
        profile.bestMarathon = profile.bestMarathon.map { .milliseconds($0.milliseconds) }
        return profile
    }

    // MARK: - Stored plans

    /// Stores a plan; returns its id. `workouts` is how many workouts `yaml` holds.
    /// Throws `invalidPlan` for an empty name or goal name, a negative workout count, or a
    /// goal whose distance or time is not positive.
    public func storePlan(name: String, goal: Goal, deadline: CivilDate?, yaml: String, workouts: Int,
                          createdAt: UTCTimestamp) throws -> Int64 {
        if name.allSatisfy(\.isWhitespace) { throw StorageError.invalidPlan("a plan needs a name") }
        if goal.name.allSatisfy(\.isWhitespace) { throw StorageError.invalidPlan("plan '\(name)': the goal needs a name") }
        if workouts < 0 { throw StorageError.invalidPlan("plan '\(name)': \(workouts) workouts") }
        if let distance = goal.distance, !(distance.isFinite && distance > 0) {
            throw StorageError.invalidPlan("plan '\(name)': the goal's distance must be positive")
        }
        if let time = goal.time, time <= .zero {
            throw StorageError.invalidPlan("plan '\(name)': the goal's time must be positive")
        }
        return try write { db in
            try db.execute(
                sql: """
                    INSERT INTO plans (name, goal_name, goal_distance_m, goal_time_ms, deadline, created_at, yaml,
                        workout_count)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    name, goal.name, goal.distance, goal.time?.milliseconds, deadline?.description,
                    createdAt.millisecondsSince1970, yaml, workouts,
                ])
            return db.lastInsertedRowID
        }
    }

    /// Every stored plan, oldest first.
    public func plans() throws -> [StoredPlan] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM plans ORDER BY id").map(Self.planRow)
        }
    }

    /// One stored plan; throws `unknownPlan` when there is none with that id.
    public func plan(id: Int64) throws -> StoredPlan {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM plans WHERE id = ?", arguments: [id]) else {
                throw StorageError.unknownPlan(id)
            }
            return try Self.planRow(row)
        }
    }

    /// The workouts (indices from 0) of the plan with identity `key` that have a completed
    /// activity (run to their last phase; stopped and recovered ones do not count).
    public func workoutsDone(plan key: PlanKey) throws -> Set<Int> {
        try read { db in
            Set(try Int.fetchAll(
                db, sql: "SELECT DISTINCT workout_index FROM activities WHERE plan_key = ? AND workout_index IS NOT NULL AND state = ?",
                arguments: [key.rawValue, ActivityState.completed.rawValue]))
        }
    }

    /// The plan the device follows (`pacer plan activate`): its identity and the plan file's
    /// path; nil when none was activated.
    public func activePlan() throws -> (key: PlanKey, source: String)? {
        try read { db in
            guard let value = try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = 'active_plan'") else {
                return nil
            }
            let parts = value.split(separator: "\n", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = PlanKey(rawValue: parts[0]) else {
                throw StorageError.database("the active plan '\(value)' is not a plan key and a source")
            }
            return (key, parts[1])
        }
    }

    /// Makes the plan with identity `key`, read from `source`, the device's plan.
    public func setActivePlan(_ key: PlanKey, source: String, at time: UTCTimestamp) throws {
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO device_state (key, value, changed_at) VALUES ('active_plan', ?, ?)",
                arguments: [key.rawValue + "\n" + source, time.millisecondsSince1970])
        }
    }

    static func planRow(_ row: Row) throws -> StoredPlan {
        let id: Int64 = row["id"]
        var deadline: CivilDate?
        if let text = row["deadline"] as String? {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3, let date = CivilDate(year: parts[0], month: parts[1], day: parts[2]) else {
                throw StorageError.database("plan #\(id): the deadline '\(text)' is not a date")
            }
            deadline = date
        }
        let goal = Goal(distance: row["goal_distance_m"], time: (row["goal_time_ms"] as Int64?).map { .milliseconds($0) },
                        name: row["goal_name"])
        return StoredPlan(id: id, name: row["name"], goal: goal, deadline: deadline,
                          createdAt: UTCTimestamp(millisecondsSince1970: row["created_at"]), yaml: row["yaml"],
                          workoutCount: row["workout_count"])
    }
}
