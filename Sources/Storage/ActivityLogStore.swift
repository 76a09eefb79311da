import Coaching
import GRDB
import PacerCore
import Synchronization

/// Activities with their track points, waypoints, cues and phase results: the runtime's
/// storage port (`ActivityLog`, R20, R28) and the activity queries (R6, R10, R22), in the
/// shared database (`PacerDatabase`).
///
/// **Recording.** `append` and `add` only put the item in a buffer in memory, under a lock:
/// the runtime's loop never waits on the disk for a point. `commit()` writes the whole buffer
/// in one transaction; the runtime calls it at its profile's flush interval. `finish` commits
/// and closes the activity in the same transaction. An activity's row is written (and made
/// durable) by `begin`, so a recording that never reaches its first commit still leaves a
/// trace.
///
/// **Durability.** A commit is durable when it returns (`PacerDatabase`: WAL, `synchronous = FULL`).
///
/// **Restart.** `recoverUnfinished()`, called by the runtime at start-up, closes every
/// activity left in `recording` as `recovered`, ended at its last stored point.
public final class ActivityLogStore: ActivityLog, DatabasePart {
    let database: PacerDatabase
    private let recording = Mutex(Recording())

    init(database: PacerDatabase) {
        self.database = database
    }

    // MARK: - The recording buffer

    /// The next sequence numbers of an activity open for recording in this store.
    struct Counters: Sendable {
        var point = 0
        var waypoint = 0
        var cue = 0
    }

    struct Pending: Sendable {
        var points: [(activity: Int64, seq: Int, point: TrackPoint)] = []
        var waypoints: [(activity: Int64, seq: Int, waypoint: Waypoint)] = []
        var cues: [(activity: Int64, seq: Int, cue: CueRecord)] = []
        var results: [(activity: Int64, result: PhaseResult)] = []
        var laps: [(activity: Int64, seq: Int, lap: LapMark)] = []
        /// The latest running totals of each activity.
        var totals: [Int64: ActivityTotals] = [:]
        /// Points given up while commits kept failing (the bound).
        var dropped = 0

        var isEmpty: Bool {
            points.isEmpty && waypoints.isEmpty && cues.isEmpty && results.isEmpty && laps.isEmpty && totals.isEmpty
        }

        /// What is waiting, for messages.
        var count: Int { points.count + waypoints.count + cues.count + results.count + laps.count }

        /// Puts a batch that failed to commit back in front of what came since, within the
        /// bound: past `maximumPendingPoints` the oldest points go (counted in `dropped`).
        mutating func restore(_ earlier: Pending) {
            points = earlier.points + points
            if points.count > ActivityLogStore.maximumPendingPoints {
                let excess = points.count - ActivityLogStore.maximumPendingPoints
                points.removeFirst(excess)
                dropped += excess
            }
            waypoints = earlier.waypoints + waypoints
            cues = earlier.cues + cues
            results = earlier.results + results
            totals = earlier.totals.merging(totals) { _, newer in newer }
        }

        mutating func drop(_ activity: Int64) {
            points.removeAll { $0.activity == activity }
            waypoints.removeAll { $0.activity == activity }
            cues.removeAll { $0.activity == activity }
            results.removeAll { $0.activity == activity }
            totals[activity] = nil
        }
    }

    struct Recording: Sendable {
        var open: [Int64: Counters] = [:]
        var pending = Pending()
    }


    // MARK: - ActivityLog

    public func begin(_ start: ActivityStart) throws -> Int64 {
        let id = try write { db in
            try db.execute(
                sql: """
                    INSERT INTO activities (name, plan, workout, profile, started_at, state, plan_key, workout_index, ghost)
                    VALUES (?, ?, ?, ?, ?, 'recording', ?, ?, ?)
                    """,
                arguments: [start.name, start.plan, start.workout, start.profile, start.startedAt?.millisecondsSince1970,
                            start.planKey?.rawValue, start.workoutIndex, start.ghost])
            return db.lastInsertedRowID
        }
        recording.withLock { $0.open[id] = Counters() }
        return id
    }

    public func append(_ point: TrackPoint, to activity: Int64) throws {
        try Self.check(point.position, activity: activity)
        var point = point
        point.altitude = point.altitude.flatMap { $0.isFinite ? $0 : nil }
        point.speed = point.speed.flatMap { $0.isFinite ? $0 : nil }
        point.distance = point.distance.flatMap { $0.isFinite ? $0 : nil }
        // A rate or an interval no strap sends is not stored (`HeartRateRecords`).
        point.heartRate = HeartRateRecords.stored(point.heartRate)
        point.rrIntervals = HeartRateRecords.kept(point.rrIntervals)
        point.readings = TrackReadings.kept(point.readings, before: point.time)
        point.ghostGap = point.ghostGap.flatMap { $0.isFinite ? $0 : nil }
        let p = point
        try buffer(activity) { pending, counters in
            pending.points.append((activity, counters.point, p))
            counters.point += 1
        }
    }

    @discardableResult
    public func add(_ waypoint: Waypoint, to activity: Int64) throws -> Int {
        try Self.check(waypoint.position, activity: activity)
        var waypoint = waypoint
        waypoint.altitude = waypoint.altitude.flatMap { $0.isFinite ? $0 : nil }
        let w = waypoint
        var number = 0
        try buffer(activity) { pending, counters in
            number = counters.waypoint
            pending.waypoints.append((activity, counters.waypoint, w))
            counters.waypoint += 1
        }
        return number
    }

    /// Buffers the new waypoint under the old one's sequence number: the commit writes it in
    /// the old one's place (in the same batch, after it; in a later one, over the stored row).
    public func revise(_ waypoint: Waypoint, number: Int, of activity: Int64) throws {
        try Self.check(waypoint.position, activity: activity)
        var waypoint = waypoint
        waypoint.altitude = waypoint.altitude.flatMap { $0.isFinite ? $0 : nil }
        let w = waypoint
        try buffer(activity) { pending, counters in
            pending.waypoints.append((activity, number, w))
            // A store opened again since the add (its counters read from what was committed)
            // may not know the number: the revision is the waypoint, and what comes next
            // goes after it.
            counters.waypoint = max(counters.waypoint, number + 1)
        }
    }

    public func add(_ cue: CueRecord, to activity: Int64) throws {
        try buffer(activity) { pending, counters in
            pending.cues.append((activity, counters.cue, cue))
            counters.cue += 1
        }
    }

    /// Adds a phase's result; a second result for the same phase index replaces the first.
    public func add(_ result: PhaseResult, to activity: Int64) throws {
        try buffer(activity) { pending, _ in
            pending.results.append((activity, result))
        }
    }

    /// Adds a lap press that ended no phase; `number` counts the activity's laps from 0.
    public func add(_ lap: LapMark, number: Int, to activity: Int64) throws {
        try buffer(activity) { pending, _ in
            pending.laps.append((activity, number, lap))
        }
    }

    public func update(_ totals: ActivityTotals, for activity: Int64) throws {
        try buffer(activity) { pending, _ in
            pending.totals[activity] = totals
        }
    }

    /// Writes what is buffered in one transaction. When it fails (a full disk, a read-only
    /// or vanished folder) nothing is lost: the batch stays buffered and the next commit
    /// tries it again, up to `maximumPendingPoints` points.
    public func commit() throws {
        let batch = recording.withLock { r in
            var batch = r.pending
            r.pending = Pending()
            r.pending.dropped = batch.dropped
            batch.dropped = 0
            return batch
        }
        guard !batch.isEmpty else { return }
        do {
            try write { db in try Self.insert(batch, db) }
        } catch {
            recording.withLock { $0.pending.restore(batch) }
            throw error
        }
    }

    /// How many track points may wait in memory while commits fail: a day at 1 Hz
    /// (about 10 MB). Past it the oldest waiting points are given up, and counted.
    public static let maximumPendingPoints = 86_400

    /// What is waiting to be committed (points, waypoints, cues, phase results), and the
    /// points given up at the bound: what a failed end leaves unstored.
    public var uncommitted: (waiting: Int, dropped: Int) {
        recording.withLock { ($0.pending.count, $0.pending.dropped) }
    }

    /// Commits, then closes the activity: its state, its end (the last point's time when
    /// `endedAt` is nil), the runner's timer, and its statistics, in one transaction.
    public func finish(_ activity: Int64, end: ActivityEnd, endedAt: UTCTimestamp?, activeTime: Duration) throws {
        let batch = recording.withLock { r in
            let batch = r.pending
            r.pending = Pending()
            return batch
        }
        do {
            try write { db in
                try Self.insert(batch, db)
                guard try Self.exists(activity, db) else { throw StorageError.unknownActivity(activity) }
                try Self.close(activity, state: ActivityState(end), endedAt: endedAt, activeTime: activeTime, db)
            }
        } catch {
            recording.withLock { $0.pending.restore(batch) }
            throw error
        }
        recording.withLock { _ = $0.open.removeValue(forKey: activity) }
    }

    /// Cancels a recording (R20: cancelling stores nothing): drops what is buffered for it and
    /// deletes the activity with everything committed for it.
    public func discard(_ activity: Int64) throws {
        recording.withLock { r in
            r.pending.drop(activity)
            r.open[activity] = nil
        }
        let deleted = try write { db in
            try db.execute(sql: "DELETE FROM activities WHERE id = ?", arguments: [activity])
            return db.changesCount
        }
        if deleted == 0 { throw StorageError.unknownActivity(activity) }
    }

    /// Closes every activity left in the `recording` state by a crash, a kill or a power cut
    /// (R28) as `recovered`: ended at its last stored point's time (its start when it has no
    /// point), its timer taken as the sum of its segments' spans (pauses start new segments),
    /// its statistics computed. Activities this store is recording itself are left alone.
    /// Returns the ids it recovered, oldest first. The runtime calls it once at start-up.
    public func recoverUnfinished() throws -> [Int64] {
        let own = recording.withLock { Set($0.open.keys) }
        return try write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM activities WHERE state = 'recording' ORDER BY id")
                .filter { !own.contains($0) }
            for id in ids {
                try Self.close(id, state: .recovered, endedAt: nil, activeTime: nil, db)
            }
            return ids
        }
    }


    // MARK: - Helpers

    private func buffer(_ activity: Int64, _ body: (inout Pending, inout Counters) -> Void) throws {
        let known = recording.withLock { r -> Bool in
            guard var counters = r.open[activity] else { return false }
            body(&r.pending, &counters)
            r.open[activity] = counters
            return true
        }
        if known { return }
        // Not begun by this store: continue an activity still recording in the database
        // (the sequence numbers go on from what is stored), or refuse.
        let resumed = try read { db -> Counters in
            guard let text = try String.fetchOne(db, sql: "SELECT state FROM activities WHERE id = ?", arguments: [activity])
            else { throw StorageError.unknownActivity(activity) }
            let state = ActivityState(rawValue: text) ?? .recording
            guard state == .recording else { throw StorageError.notRecording(activity, state) }
            func next(_ table: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(seq) + 1, 0) FROM \(table) WHERE activity_id = ?",
                                 arguments: [activity]) ?? 0
            }
            return Counters(point: try next("track_points"), waypoint: try next("waypoints"), cue: try next("cues"))
        }
        recording.withLock { r in
            var counters = r.open[activity] ?? resumed
            body(&r.pending, &counters)
            r.open[activity] = counters
        }
    }

    static func check(_ position: GeoPoint, activity: Int64) throws {
        guard position.latitude.isFinite, position.longitude.isFinite,
              (-90...90).contains(position.latitude), (-180...180).contains(position.longitude)
        else {
            throw StorageError.invalidPoint(
                activity: activity, reason: "position \(position.latitude), \(position.longitude) is not on the Earth")
        }
    }

    static func exists(_ activity: Int64, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM activities WHERE id = ?)", arguments: [activity]) ?? false
    }

    static func insert(_ batch: Pending, _ db: Database) throws {
        for (activity, t) in batch.totals {
            try db.execute(
                sql: """
                    UPDATE activities SET live_started_at = ?, live_elapsed_ms = ?, live_timer_ms = ?,
                        live_moving_ms = ?, live_distance_m = ?, live_max_speed = ?
                    WHERE id = ?
                    """,
                arguments: [t.startedAt?.millisecondsSince1970, t.elapsed.milliseconds, t.timer.milliseconds,
                            t.moving.milliseconds, t.distance, t.maximumSpeed, activity])
        }
        if !batch.points.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT INTO track_points (activity_id, seq, segment, time, lat, lon, alt, speed, timer_ms, distance_m,
                    heart_rate, rr_intervals, readings, ghost_m)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (activity, seq, p) in batch.points {
                try statement.execute(arguments: [
                    activity, seq, p.segment, p.time.millisecondsSince1970,
                    p.position.latitude, p.position.longitude, p.altitude, p.speed, p.timer?.milliseconds, p.distance,
                    p.heartRate, HeartRateRecords.text(p.rrIntervals), TrackReadings.text(p.readings, pointTime: p.time),
                    p.ghostGap,
                ])
            }
        }
        if !batch.waypoints.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO waypoints (activity_id, seq, name, time, lat, lon, alt, at_last_known)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (activity, seq, w) in batch.waypoints {
                try statement.execute(arguments: [
                    activity, seq, w.name, w.time.millisecondsSince1970,
                    w.position.latitude, w.position.longitude, w.altitude, w.atLastKnownPosition,
                ])
            }
        }
        if !batch.cues.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT INTO cues (activity_id, seq, elapsed_ms, cue, phase) VALUES (?, ?, ?, ?, ?)
                """)
            for (activity, seq, c) in batch.cues {
                try statement.execute(arguments: [activity, seq, c.elapsed.milliseconds, c.cue, c.phase])
            }
        }
        if !batch.results.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO phase_results
                    (activity_id, phase_index, name, duration_ms, time_in_band_ms, distance_m, min_speed, max_speed, ending,
                     repeat_number, repeats)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (activity, r) in batch.results {
                try statement.execute(arguments: [
                    activity, r.index, r.name, r.duration.milliseconds, r.timeInBand.milliseconds,
                    r.distance, r.minimumSpeed, r.maximumSpeed, r.ending.rawValue, r.repetition?.number, r.repetition?.count,
                ])
            }
        }
        if !batch.laps.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO laps (activity_id, seq, timer_ms, distance_m) VALUES (?, ?, ?, ?)
                """)
            for (activity, seq, lap) in batch.laps {
                try statement.execute(arguments: [activity, seq, lap.timer.milliseconds, lap.distance])
            }
        }
    }

    /// Sets an activity's end and caches its statistics. Distance, times and maximum speed
    /// come from the runtime's running totals when it wrote any (a recording on the device,
    /// finished or recovered at its last commit), else from the stored points (an import, a
    /// recording from before the totals). `endedAt` nil: the start plus the totals' elapsed
    /// time, else the last point's time, else the start. `activeTime` nil: the totals' timer,
    /// else the sum of the segments' spans.
    static func close(_ activity: Int64, state: ActivityState, endedAt: UTCTimestamp?, activeTime: Duration?,
                      _ db: Database) throws {
        let points = try fetchPoints(activity, db)
        let stats = ActivityStatistics(points: points)
        let live = try Row.fetchOne(
            db, sql: """
                SELECT live_started_at, live_elapsed_ms, live_timer_ms, live_moving_ms, live_distance_m, live_max_speed
                FROM activities WHERE id = ? AND live_distance_m IS NOT NULL
                """, arguments: [activity])
        let liveStart: Int64? = live?[0]
        let liveElapsed: Int64? = live?[1]
        let liveEnd = liveStart.flatMap { s in liveElapsed.map { s + $0 } }
        try db.execute(
            sql: """
                UPDATE activities SET
                    state = ?,
                    started_at = COALESCE(started_at, ?, ?),
                    ended_at = COALESCE(?, ?, ?, started_at),
                    active_time_ms = ?,
                    distance_m = ?, elapsed_ms = ?, moving_ms = ?, max_speed = ?,
                    elevation_gain = ?, elevation_loss = ?, min_elevation = ?, max_elevation = ?, point_count = ?
                WHERE id = ?
                """,
            arguments: [
                state.rawValue,
                liveStart, stats.startTime?.millisecondsSince1970,
                endedAt?.millisecondsSince1970, liveEnd, stats.endTime?.millisecondsSince1970,
                activeTime?.milliseconds ?? live?[2] ?? stats.segmentTime.milliseconds,
                live?[4] ?? stats.distance, liveElapsed ?? stats.elapsedTime.milliseconds,
                live?[3] ?? stats.movingTime.milliseconds, live?[5] ?? stats.maximumSpeed,
                stats.elevationGain, stats.elevationLoss, stats.minimumElevation, stats.maximumElevation,
                stats.pointCount, activity,
            ])
    }

    static func fetchPoints(_ activity: Int64, _ db: Database) throws -> [TrackPoint] {
        let rows = try Row.fetchCursor(
            db, sql: """
                SELECT segment, time, lat, lon, alt, speed, timer_ms, distance_m, heart_rate, rr_intervals, readings, ghost_m
                FROM track_points WHERE activity_id = ? ORDER BY seq
                """,
            arguments: [activity])
        var points: [TrackPoint] = []
        while let row = try rows.next() {
            let time = UTCTimestamp(millisecondsSince1970: row[1])
            var point = TrackPoint(
                segment: row[0], time: time,
                position: GeoPoint(latitude: row[2], longitude: row[3]), altitude: row[4], speed: row[5],
                timer: (row[6] as Int64?).map { .milliseconds($0) }, distance: row[7], heartRate: row[8],
                rrIntervals: HeartRateRecords.intervals(row[9]), readings: TrackReadings.readings(row[10], pointTime: time))
            point.ghostGap = row[11]
            points.append(point)
        }
        return points
    }

}
