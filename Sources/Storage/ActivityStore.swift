import Coaching
import Foundation
import GRDB
import PacerCore
import Synchronization

/// Activities, their points, waypoints, cues and phase results, and imported routes, in one
/// SQLite file (`<data_dir>/pacer.sqlite`) through GRDB. The runtime's storage port
/// (`ActivityLog`, R20, R28) and the queries behind the activity commands (R6, R10, R19, R22).
///
/// **Recording.** `append` and `add` only put the item in a buffer in memory, under a lock:
/// the runtime's loop never waits on the disk for a point. `commit()` writes the whole buffer
/// in one transaction; the runtime calls it at its profile's flush interval. `finish` commits
/// and closes the activity in the same transaction. An activity's row is written (and made
/// durable) by `begin`, so a recording that never reaches its first commit still leaves a
/// trace.
///
/// **Durability across power cuts (R28).** The database runs in WAL mode with
/// `synchronous = FULL`. In WAL mode a commit appends the transaction to the `-wal` file;
/// with `NORMAL`, that file is only fsynced at checkpoints, so a power cut can lose the last
/// few commits (the database is never corrupted, but committed points can vanish). With
/// `FULL`, every commit fsyncs the WAL before returning: a point that `commit()` returned
/// for survives any power cut, which is what "a restart finds the unfinished activity with
/// every committed point" needs. The cost is one fsync per commit, and the runtime commits
/// every few seconds, not per point. WAL also lets the commands read while the runtime writes.
///
/// **Restart.** `recoverUnfinished()`, called by the runtime at start-up, closes every
/// activity left in `recording` as `recovered`, ended at its last stored point.
public final class ActivityStore: ActivityLog, Sendable {
    /// The database file's name inside the data folder.
    public static let fileName = "pacer.sqlite"

    public let path: String
    let pool: DatabasePool
    private let recording = Mutex(Recording())
    /// The data folder's lock, held for the store's life by a writer.
    private let lock: DataFolderLock?
    /// The database file's device and inode when opened (`checkStillThere`).
    private let identity: (device: UInt64, inode: UInt64)

    /// How a command uses the data folder.
    public enum Access: Sendable {
        /// Reads only: the database must exist (a mistyped folder is an error, not a new
        /// empty database); no lock, so it works while a device records.
        case read
        /// Writes: creates the folder and the database when needed and takes the folder's
        /// lock first (`DataFolderLock`), refused while another writer holds it.
        case write(holder: String)

        /// A writer named after this process's command line (`pacer device`).
        public static var write: Access { .write(holder: processName) }

        static var processName: String {
            let args = CommandLine.arguments
            let name = (args.first.map { ($0 as NSString).lastPathComponent } ?? "pacer")
            return ([name] + args.dropFirst().prefix(2)).joined(separator: " ")
        }
    }

    /// Opens `<directory>/pacer.sqlite`: for writing (the default), creating the folder and
    /// the database when needed, under the folder's lock; for reading, only when it exists.
    public convenience init(directory: String, access: Access = .write) throws {
        let file = (directory as NSString).appendingPathComponent(Self.fileName)
        switch access {
        case .read:
            guard FileManager.default.fileExists(atPath: file) else { throw StorageError.noDatabase(directory: directory) }
            try self.init(path: file, lock: nil)
        case .write(let holder):
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StorageError.cannotOpen(path: directory, reason: "cannot create the data folder (\(Self.reason(error)))")
            }
            let lock = try DataFolderLock(directory: directory, holder: holder)
            try self.init(path: file, lock: lock)
        }
    }

    /// Opens (creating when needed) the database file at `path` and brings its schema up to
    /// date; `lock`: the folder's lock, kept as long as the store.
    public init(path: String, lock: DataFolderLock? = nil) throws {
        self.path = path
        self.lock = lock
        var configuration = Configuration()
        configuration.label = "pacer"
        // Another process (the runtime, a command) may hold the write lock for a moment.
        configuration.busyMode = .timeout(10)
        do {
            // A DatabasePool always runs in WAL mode (journal_mode = WAL)...
            pool = try DatabasePool(path: path, configuration: configuration)
            // ...and sets synchronous = NORMAL on its writer connection when it sets WAL up,
            // after `prepareDatabase` has run: FULL has to be set here, on that connection
            // (it lives as long as the pool). Each commit is then durable when it returns;
            // see the type's documentation. `durability()` reads it back.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(pool)
        } catch {
            throw StorageError.cannotOpen(path: path, reason: Self.reason(error))
        }
        var info = stat()
        _ = stat(path, &info)
        identity = (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Closes the database; the store must not be used afterwards. Buffered items that were
    /// not committed are dropped, as a power cut would drop them.
    public func close() throws {
        try pool.close()
    }

    /// The journal mode and the synchronous level of the connection that writes
    /// (`("wal", 2)`: WAL, FULL), for checks and diagnostics.
    public func durability() throws -> (journalMode: String, synchronous: Int) {
        try pool.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "", try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
        }
    }

    // MARK: - Schema

    /// The schema, one migration per version. Times are milliseconds since 1970 UTC, durations
    /// milliseconds, distances metres, speeds metres per second, altitudes metres.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE activities (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    plan TEXT,
                    workout TEXT,
                    profile TEXT,
                    started_at INTEGER,
                    ended_at INTEGER,
                    state TEXT NOT NULL DEFAULT 'recording'
                        CHECK (state IN ('recording', 'completed', 'stopped', 'recovered')),
                    active_time_ms INTEGER,
                    -- the GPX file an imported activity came from; NULL when recorded here
                    source TEXT,
                    -- statistics, computed once when the activity closes (NULL while recording)
                    distance_m REAL,
                    elapsed_ms INTEGER,
                    moving_ms INTEGER,
                    max_speed REAL,
                    elevation_gain REAL,
                    elevation_loss REAL,
                    min_elevation REAL,
                    max_elevation REAL,
                    point_count INTEGER
                );
                CREATE INDEX activities_by_state ON activities(state);
                CREATE TABLE track_points (
                    activity_id INTEGER NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    segment INTEGER NOT NULL,
                    time INTEGER NOT NULL,
                    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                    alt REAL,
                    speed REAL,
                    PRIMARY KEY (activity_id, seq)
                ) WITHOUT ROWID;
                CREATE TABLE waypoints (
                    activity_id INTEGER NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                    alt REAL,
                    at_last_known INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (activity_id, seq)
                ) WITHOUT ROWID;
                CREATE TABLE cues (
                    activity_id INTEGER NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    elapsed_ms INTEGER NOT NULL,
                    cue TEXT NOT NULL,
                    phase INTEGER,
                    PRIMARY KEY (activity_id, seq)
                ) WITHOUT ROWID;
                CREATE TABLE phase_results (
                    activity_id INTEGER NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
                    phase_index INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    duration_ms INTEGER NOT NULL,
                    time_in_band_ms INTEGER NOT NULL,
                    distance_m REAL NOT NULL,
                    min_speed REAL NOT NULL,
                    max_speed REAL NOT NULL,
                    PRIMARY KEY (activity_id, phase_index)
                ) WITHOUT ROWID;
                CREATE TABLE routes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL,
                    source TEXT,
                    distance_m REAL NOT NULL,
                    duration_ms INTEGER,
                    elevation_gain REAL NOT NULL,
                    elevation_loss REAL NOT NULL,
                    min_elevation REAL,
                    max_elevation REAL,
                    point_count INTEGER NOT NULL,
                    waypoint_count INTEGER NOT NULL,
                    start_lat REAL,
                    start_lon REAL
                );
                CREATE TABLE route_points (
                    route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                    alt REAL,
                    time INTEGER,
                    PRIMARY KEY (route_id, seq)
                ) WITHOUT ROWID;
                CREATE TABLE route_waypoints (
                    route_id INTEGER NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    name TEXT,
                    description TEXT,
                    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                    alt REAL,
                    time INTEGER,
                    PRIMARY KEY (route_id, seq)
                ) WITHOUT ROWID;
                """)
        }
        // The athlete profile with its history of changes, and the stored plans.
        migrator.registerMigration("v2") { db in try Self.createAthleteAndPlanTables(db) }
        // The runtime's running totals (from every fix and the device's clock), written with
        // every commit: a closed activity takes its distance and times from them, and one
        // recovered after a power cut keeps those of its last commit. NULL for imports.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                ALTER TABLE activities ADD COLUMN live_started_at INTEGER;
                ALTER TABLE activities ADD COLUMN live_elapsed_ms INTEGER;
                ALTER TABLE activities ADD COLUMN live_timer_ms INTEGER;
                ALTER TABLE activities ADD COLUMN live_moving_ms INTEGER;
                ALTER TABLE activities ADD COLUMN live_distance_m REAL;
                ALTER TABLE activities ADD COLUMN live_max_speed REAL;
                """)
        }
        // Plans by identity (`PlanKey`), not by name, and the device's active plan.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: """
                ALTER TABLE activities ADD COLUMN plan_key TEXT;
                ALTER TABLE activities ADD COLUMN workout_index INTEGER;
                CREATE INDEX activities_by_plan_key ON activities(plan_key, workout_index);
                CREATE TABLE device_state (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    changed_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        return migrator
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
        /// The latest running totals of each activity.
        var totals: [Int64: ActivityTotals] = [:]
        /// Points given up while commits kept failing (the bound).
        var dropped = 0

        var isEmpty: Bool {
            points.isEmpty && waypoints.isEmpty && cues.isEmpty && results.isEmpty && totals.isEmpty
        }

        /// What is waiting, for messages.
        var count: Int { points.count + waypoints.count + cues.count + results.count }

        /// Puts a batch that failed to commit back in front of what came since, within the
        /// bound: past `maximumPendingPoints` the oldest points go (counted in `dropped`).
        mutating func restore(_ earlier: Pending) {
            points = earlier.points + points
            if points.count > ActivityStore.maximumPendingPoints {
                let excess = points.count - ActivityStore.maximumPendingPoints
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
                    INSERT INTO activities (name, plan, workout, profile, started_at, state, plan_key, workout_index)
                    VALUES (?, ?, ?, ?, ?, 'recording', ?, ?)
                    """,
                arguments: [start.name, start.plan, start.workout, start.profile, start.startedAt?.millisecondsSince1970,
                            start.planKey?.rawValue, start.workoutIndex])
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
        let p = point
        try buffer(activity) { pending, counters in
            pending.points.append((activity, counters.point, p))
            counters.point += 1
        }
    }

    public func add(_ waypoint: Waypoint, to activity: Int64) throws {
        try Self.check(waypoint.position, activity: activity)
        var waypoint = waypoint
        waypoint.altitude = waypoint.altitude.flatMap { $0.isFinite ? $0 : nil }
        let w = waypoint
        try buffer(activity) { pending, counters in
            pending.waypoints.append((activity, counters.waypoint, w))
            counters.waypoint += 1
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
            try checkStillThere()
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

    /// The database file must still be the one opened: a data folder removed or replaced
    /// under a running device would take every later commit into an unlinked file.
    private func checkStillThere() throws {
        var now = stat()
        guard stat(path, &now) == 0, UInt64(now.st_ino) == identity.inode, UInt64(now.st_dev) == identity.device else {
            throw StorageError.database("\(path) is gone (the data folder was removed or replaced): nothing more can be stored there")
        }
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
            try checkStillThere()
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
                INSERT INTO track_points (activity_id, seq, segment, time, lat, lon, alt, speed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (activity, seq, p) in batch.points {
                try statement.execute(arguments: [
                    activity, seq, p.segment, p.time.millisecondsSince1970,
                    p.position.latitude, p.position.longitude, p.altitude, p.speed,
                ])
            }
        }
        if !batch.waypoints.isEmpty {
            let statement = try db.cachedStatement(sql: """
                INSERT INTO waypoints (activity_id, seq, name, time, lat, lon, alt, at_last_known)
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
                    (activity_id, phase_index, name, duration_ms, time_in_band_ms, distance_m, min_speed, max_speed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (activity, r) in batch.results {
                try statement.execute(arguments: [
                    activity, r.index, r.name, r.duration.milliseconds, r.timeInBand.milliseconds,
                    r.distance, r.minimumSpeed, r.maximumSpeed,
                ])
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
            db, sql: "SELECT segment, time, lat, lon, alt, speed FROM track_points WHERE activity_id = ? ORDER BY seq",
            arguments: [activity])
        var points: [TrackPoint] = []
        while let row = try rows.next() {
            points.append(TrackPoint(
                segment: row[0], time: UTCTimestamp(millisecondsSince1970: row[1]),
                position: GeoPoint(latitude: row[2], longitude: row[3]), altitude: row[4], speed: row[5]))
        }
        return points
    }

    /// A write transaction, with database errors said for a person.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch let error as StorageError {
            throw error
        } catch let error as GPXError {
            throw error
        } catch {
            throw StorageError.database(Self.reason(error))
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch let error as StorageError {
            throw error
        } catch let error as ShareError {
            throw error
        } catch {
            throw StorageError.database(Self.reason(error))
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "\(error.message ?? "SQLite error") (SQLite error \(error.resultCode.rawValue))"
        }
        if let error = error as? StorageError { return error.description }
        if let error = error as? GPXError { return error.description }
        // Foundation's file errors carry the system's reason underneath ("Permission denied").
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? any Error {
            let posix = underlying as NSError
            if posix.domain == NSPOSIXErrorDomain, let message = strerror(Int32(posix.code)) {
                return String(cString: message)
            }
        }
        return ns.localizedDescription
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}
