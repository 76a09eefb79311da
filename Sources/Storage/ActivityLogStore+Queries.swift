import Coaching
import GRDB
import PacerCore

/// What the activity commands read (R6, R10, R22). Reads see committed data only: points
/// still in a recorder's buffer are not in the file yet.
extension ActivityLogStore {
    /// Every activity, oldest first. Closed activities carry the statistics computed when they
    /// closed; one still recording is measured on its committed points.
    public func activities() throws -> [ActivitySummary] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM activities ORDER BY COALESCE(started_at, 0), id")
                .map { try Self.summary($0, db) }
        }
    }

    /// Everything stored for one activity.
    public func activity(_ id: Int64) throws -> ActivityDetail {
        try read { db in try Self.detail(id, db) }
    }

    /// Everything stored for activity `id`, read in `db`.
    static func detail(_ id: Int64, _ db: Database) throws -> ActivityDetail {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM activities WHERE id = ?", arguments: [id]) else {
            throw StorageError.unknownActivity(id)
        }
        let points = try Self.fetchPoints(id, db)
        let statistics = ActivityStatistics(points: points)
        let waypoints = try Row.fetchAll(
            db, sql: "SELECT name, time, lat, lon, alt, at_last_known FROM waypoints WHERE activity_id = ? ORDER BY seq",
            arguments: [id]
        ).map { row in
            Waypoint(name: row[0], time: UTCTimestamp(millisecondsSince1970: row[1]),
                     position: GeoPoint(latitude: row[2], longitude: row[3]), altitude: row[4],
                     atLastKnownPosition: row[5])
        }
        let cues = try Row.fetchAll(
            db, sql: "SELECT elapsed_ms, cue, phase FROM cues WHERE activity_id = ? ORDER BY seq", arguments: [id]
        ).map { row in
            CueRecord(elapsed: .milliseconds(row[0] as Int64), cue: row[1], phase: row[2])
        }
        let results = try Self.fetchPhaseResults(id, db)
        return ActivityDetail(
            summary: try Self.summary(row, db, statistics: statistics), points: points, waypoints: waypoints,
            cues: cues, phaseResults: results, lapMarks: try Self.fetchLapMarks(id, db), statistics: statistics)
    }

    /// The plan (by identity) and the workout (from 0) an activity followed, as the device
    /// stored them; nil for an import or a run before plans had identities.
    public func plan(of id: Int64) throws -> (key: PlanKey?, workoutIndex: Int?) {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT plan_key, workout_index FROM activities WHERE id = ?", arguments: [id]) else {
                throw StorageError.unknownActivity(id)
            }
            return ((row[0] as String?).flatMap(PlanKey.init(rawValue:)), row[1])
        }
    }

    /// General statistics (R10) over every closed activity; one still recording is left out
    /// until it is finished or recovered.
    public func overallStatistics() throws -> OverallStatistics {
        OverallStatistics(try activities().filter { $0.state != .recording }.map(\.digest))
    }

    // MARK: - Rows to values

    static func summary(_ row: Row, _ db: Database, statistics: ActivityStatistics? = nil) throws -> ActivitySummary {
        let id: Int64 = row["id"]
        let state = ActivityState(rawValue: row["state"]) ?? .recording
        var summary = ActivitySummary(
            id: id, name: row["name"], plan: row["plan"], workout: row["workout"], profile: row["profile"],
            startedAt: (row["started_at"] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)),
            endedAt: (row["ended_at"] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)),
            state: state, activeTime: (row["active_time_ms"] as Int64?).map { .milliseconds($0) },
            source: row["source"], distance: 0, elapsedTime: .zero, movingTime: .zero, maximumSpeed: 0,
            elevationGain: 0, elevationLoss: 0, minimumElevation: nil, maximumElevation: nil, pointCount: 0)
        summary.ghost = row["ghost"]
        if let distance = row["distance_m"] as Double? {
            // Closed: the figures it was closed with (the runtime's totals, or its points'
            // for an import), whoever asks.
            summary.distance = distance
            summary.elapsedTime = .milliseconds(row["elapsed_ms"] as Int64? ?? 0)
            summary.movingTime = .milliseconds(row["moving_ms"] as Int64? ?? 0)
            summary.maximumSpeed = row["max_speed"] ?? 0
            summary.elevationGain = row["elevation_gain"] ?? 0
            summary.elevationLoss = row["elevation_loss"] ?? 0
            summary.minimumElevation = row["min_elevation"]
            summary.maximumElevation = row["max_elevation"]
            summary.pointCount = row["point_count"] ?? 0
        } else {
            let stats = try statistics ?? ActivityStatistics(points: fetchPoints(id, db))
            summary.distance = stats.distance
            summary.elapsedTime = stats.elapsedTime
            summary.movingTime = stats.movingTime
            summary.maximumSpeed = stats.maximumSpeed
            summary.elevationGain = stats.elevationGain
            summary.elevationLoss = stats.elevationLoss
            summary.minimumElevation = stats.minimumElevation
            summary.maximumElevation = stats.maximumElevation
            summary.pointCount = stats.pointCount
            if summary.startedAt == nil { summary.startedAt = stats.startTime }
            // Still recording: the runtime's totals of its last commit, where it wrote any.
            if let live = row["live_distance_m"] as Double? {
                summary.distance = live
                summary.elapsedTime = .milliseconds(row["live_elapsed_ms"] as Int64? ?? 0)
                summary.movingTime = .milliseconds(row["live_moving_ms"] as Int64? ?? 0)
                summary.maximumSpeed = row["live_max_speed"] ?? 0
                summary.activeTime = (row["live_timer_ms"] as Int64?).map { .milliseconds($0) }
                if let start = row["live_started_at"] as Int64? { summary.startedAt = UTCTimestamp(millisecondsSince1970: start) }
            }
        }
        return summary
    }

    /// The activity's phase results, in order.
    static func fetchPhaseResults(_ id: Int64, _ db: Database) throws -> [PhaseResult] {
        try Row.fetchAll(
            db, sql: """
                SELECT phase_index, name, duration_ms, time_in_band_ms, distance_m, min_speed, max_speed, ending,
                       repeat_number, repeats
                FROM phase_results WHERE activity_id = ? ORDER BY phase_index
                """, arguments: [id]
        ).map { row in
            // A pass through a repeated group (its group is not stored: the laps only say the pass).
            let repetition: Repetition? = if let n = row[8] as Int?, let count = row[9] as Int? {
                Repetition(group: 0, number: n, count: count)
            } else { nil }
            return PhaseResult(index: row[0], name: row[1], duration: .milliseconds(row[2] as Int64),
                               timeInBand: .milliseconds(row[3] as Int64), distance: row[4],
                               minimumSpeed: row[5], maximumSpeed: row[6],
                               ending: (row[7] as String?).flatMap(PhaseEnding.init(rawValue:)) ?? .time,
                               repetition: repetition)
        }
    }

    /// The activity's lap presses that ended no phase, in order.
    static func fetchLapMarks(_ id: Int64, _ db: Database) throws -> [LapMark] {
        try Row.fetchAll(
            db, sql: "SELECT timer_ms, distance_m FROM laps WHERE activity_id = ? ORDER BY seq", arguments: [id]
        ).map { row in LapMark(timer: .milliseconds(row[0] as Int64), distance: row[1]) }
    }
}
