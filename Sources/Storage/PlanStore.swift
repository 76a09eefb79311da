import Coaching
import GRDB
import PacerCore

/// A training plan kept in the database (R3, R9, R14): what the generator made, for `pacer
/// plan list` and for running it later. Its progress is counted from the activities that name
/// it (`PlanStore.workoutsDone(plan:)`).
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

/// The stored plans (R3, R9, R14), their progress read off the activities that name them,
/// and the plan the device follows.
public final class PlanStore: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }

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
