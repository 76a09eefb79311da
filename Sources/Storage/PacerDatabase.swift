import Foundation
import GRDB
import PacerCore
import Synchronization

/// The store's one SQLite file (`<data_dir>/pacer.sqlite`) through GRDB: the connection pool,
/// the data folder's lock, and the one ordered list of migrations for every part of the store
/// (`ActivityLogStore`, `AthleteStore`, `PlanStore`, `RouteStore`, `GPXExchange`, `TCXExchange`,
/// `FITExchange`), which share it.
///
/// **Durability across power cuts (R28).** The database runs in WAL mode with
/// `synchronous = FULL`. In WAL mode a commit appends the transaction to the `-wal` file;
/// with `NORMAL`, that file is only fsynced at checkpoints, so a power cut can lose the last
/// few commits (the database is never corrupted, but committed points can vanish). With
/// `FULL`, every commit fsyncs the WAL before returning: a point that `commit()` returned
/// for survives any power cut, which is what "a restart finds the unfinished activity with
/// every committed point" needs. The cost is one fsync per commit, and the runtime commits
/// every few seconds, not per point. WAL also lets the commands read while the runtime writes.
public final class PacerDatabase: Sendable {
    /// The database file's name inside the data folder.
    public static let fileName = "pacer.sqlite"

    public let path: String
    /// The data folder's lock, held for the store's life by a writer.
    let lock: DataFolderLock?
    /// The connection pool and the database file's device and inode when opened: both are
    /// replaced when a writer makes a removed data folder again (`checkStillThere`).
    private let connection: Mutex<(pool: DatabasePool, identity: FileIdentity)>

    /// Held while a removed data folder is made again, so that it is made once.
    private let remaking = Mutex(())

    var pool: DatabasePool { connection.withLock { $0.pool } }

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
        let pool = try Self.open(path)
        connection = Mutex((pool, FileIdentity(path: path) ?? FileIdentity(device: 0, inode: 0)))
    }

    /// Opens (creating when needed) the database at `path` with Pacer's settings and schema.
    private static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "pacer"
        // Another process (the runtime, a command) may hold the write lock for a moment.
        configuration.busyMode = .timeout(10)
        do {
            // A DatabasePool always runs in WAL mode (journal_mode = WAL)...
            let pool = try DatabasePool(path: path, configuration: configuration)
            // ...and sets synchronous = NORMAL on its writer connection when it sets WAL up,
            // after `prepareDatabase` has run: FULL has to be set here, on that connection
            // (it lives as long as the pool). Each commit is then durable when it returns;
            // see the type's documentation. `durability()` reads it back.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Self.migrator.migrate(pool)
            return pool
        } catch {
            throw StorageError.cannotOpen(path: path, reason: Self.reason(error))
        }
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

    /// The schema, one migration per version, for every part of the store, in one list that
    /// only grows at its end (a data folder knows which migrations it has run). Times are
    /// milliseconds since 1970 UTC, durations milliseconds, distances metres, speeds metres
    /// per second, altitudes metres.
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
        migrator.registerMigration("v2") { db in
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
        // The runtime's running totals (from every fix and the device's clock), written with
        // every commit: a closed activity takes its distance and times from them, and one
        // recovered after a power cut keeps those of its last commit. For imports: NULL, but
        // a FIT file's one session's distance and times (`FITExchange.keepSessionTotals`).
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
        // Each track point's timer reading and odometer distance, as the runtime had them, so
        // that the report's splits, charts and header share one distance and pauses are
        // exact. NULL for imports and for points recorded before.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: """
                ALTER TABLE track_points ADD COLUMN timer_ms INTEGER;
                ALTER TABLE track_points ADD COLUMN distance_m REAL;
                """)
        }
        // The device's share secret (`ShareSecret`): 16 random bytes, made once and never
        // changed, from which a share derives how its hidden circles are moved off the places
        // they hide. A share reads it; nothing writes it again.
        migrator.registerMigration("v6") { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO device_state (key, value, changed_at)
                    VALUES ('share_secret', lower(hex(randomblob(16))), 0);
                """)
        }
        // A workout whose time ran out without a single fix ends 'no-fix' (not completed: the
        // plan offers it again). SQLite cannot change a CHECK constraint in place: the table is
        // made again from its own definition with the new state allowed, its rows (ids kept),
        // indexes and AUTOINCREMENT counter carried over (foreign keys are off while GRDB
        // migrates, and checked after).
        migrator.registerMigration("v7") { db in
            let allowed = "CHECK (state IN ('recording', 'completed', 'stopped', 'recovered'))"
            guard let definition = try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'activities'"),
                definition.contains(allowed), let open = definition.firstIndex(of: "(") else {
                throw StorageError.database("the activities table is not as version 6 made it: cannot allow the no-fix state")
            }
            let indexes = try String.fetchAll(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'activities' AND sql IS NOT NULL")
            let counter = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'activities'") ?? 0
            // `CREATE TABLE activities (…`, or `"activities"` once a table was renamed to it.
            let made = "CREATE TABLE activities_v7 " + definition[open...]
                .replacingOccurrences(of: allowed,
                                      with: "CHECK (state IN ('recording', 'completed', 'stopped', 'recovered', 'no-fix'))")
            try db.execute(sql: made)
            try db.execute(sql: """
                INSERT INTO activities_v7 SELECT * FROM activities;
                DROP TABLE activities;
                ALTER TABLE activities_v7 RENAME TO activities;
                """)
            for index in indexes { try db.execute(sql: index) }
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'activities'", arguments: [counter])
        }
        // Workouts that end on distance and at lap presses: how each phase ended (NULL: on its
        // time, as every phase did before), its pass through a repeated group, and the lap presses that ended no phase (a free
        // run split by hand), so that files and reports carry the runner's laps.
        migrator.registerMigration("v8") { db in
            try db.execute(sql: """
                ALTER TABLE phase_results ADD COLUMN ending TEXT
                    CHECK (ending IS NULL OR ending IN ('time', 'distance', 'lap', 'stop'));
                ALTER TABLE phase_results ADD COLUMN repeat_number INTEGER;
                ALTER TABLE phase_results ADD COLUMN repeats INTEGER;
                CREATE TABLE laps (
                    activity_id INTEGER NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    timer_ms INTEGER NOT NULL,
                    distance_m REAL NOT NULL,
                    PRIMARY KEY (activity_id, seq)
                ) WITHOUT ROWID;
                """)
        }
        // Heart rate from a strap or an imported file (issue 41): each track point's rate
        // (bpm; 0 is a strap that lost the skin, kept as the strap said it) and the intervals
        // between beats the strap sent since the point before (`TrackPoint.rrIntervals`) as
        // text: seconds, comma-separated, each the shortest decimal that reads back to the
        // same Double (`RRIntervals`), so that BLE's 1/1024 s and FIT's milliseconds are both
        // kept exactly and sqlite3 shows them as they are; NULL when there were none. Points
        // recorded before have neither. The athlete's heart-rate figures, in the profile's
        // history like its other fields: NULL until set.
        migrator.registerMigration("v9") { db in
            try db.execute(sql: """
                ALTER TABLE track_points ADD COLUMN heart_rate INTEGER
                    CHECK (heart_rate IS NULL OR heart_rate BETWEEN 0 AND 255);
                ALTER TABLE track_points ADD COLUMN rr_intervals TEXT;
                ALTER TABLE athlete_profile ADD COLUMN max_hr INTEGER;
                ALTER TABLE athlete_profile ADD COLUMN resting_hr INTEGER;
                ALTER TABLE athlete_profile ADD COLUMN threshold_hr INTEGER;
                ALTER TABLE athlete_profile ADD COLUMN age INTEGER;
                """)
        }
        // The fixes between each track point and the one before that were no position update
        // (`TrackPoint.readings`, as `TrackReadings` writes them), so that a run can be coached
        // again exactly as it was (issue 43): NULL when there were none, and for points
        // recorded before.
        migrator.registerMigration("v10") { db in
            try db.execute(sql: "ALTER TABLE track_points ADD COLUMN readings TEXT")
        }
        // Racing a ghost (issue 43): the ghost an activity raced (its name, `Ghost.name`), and
        // at each point the metres the runner was ahead of it (negative: behind). NULL
        // without a ghost.
        migrator.registerMigration("v11") { db in
            try db.execute(sql: """
                ALTER TABLE activities ADD COLUMN ghost TEXT;
                ALTER TABLE track_points ADD COLUMN ghost_m REAL;
                """)
        }
        return migrator
    }

    /// Rows per table, for checks that an operation stored nothing (or something).
    public func rowCounts() throws -> [String: Int] {
        try read { db in
            var counts: [String: Int] = [:]
            for table in ["activities", "track_points", "waypoints", "cues", "phase_results", "laps",
                          "routes", "route_points", "route_waypoints", "athlete_profile", "plans"] {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return counts
        }
    }


    /// The database file must still be the one opened. A data folder removed under a writer
    /// (`rm -r`, a card formatted again) is made again: the database, still open, is copied
    /// there whole (`VACUUM INTO`: everything committed, read through the open connection
    /// from the unlinked file) and used from then on, with the folder's lock taken again,
    /// so nothing stored is lost and later writes land on the disk. A file put in its place,
    /// or a folder that cannot be made (its parent read-only or not the user's), is an
    /// error: nothing is written into an unlinked file, and the next write tries again.
    func checkStillThere() throws {
        let opened = connection.withLock { $0.identity }
        let now = FileIdentity(path: path)
        if now == opened { return }
        let missing = now == nil && (errno == ENOENT || errno == ENOTDIR)
        guard missing, let lock else {
            throw StorageError.database(
                "\(path) is gone (the data folder was removed or replaced): nothing more can be stored there")
        }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.database(
                "\(path) is gone (the data folder was removed) and the folder cannot be made again (\(Self.reason(error))): "
                    + "what is not stored yet waits in memory")
        }
        try remaking.withLock { _ throws in
            guard FileIdentity(path: path) == nil else { return }  // made by another thread
            try remake(lock)
        }
    }

    /// Copies the open database to `path` (its folder made again), then uses the copy.
    private func remake(_ lock: DataFolderLock) throws {
        try lock.retake()
        try saidForAPerson {
            let old = pool
            try old.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
            let pool = try Self.open(path)
            guard let identity = FileIdentity(path: path) else { throw StorageError.database("\(path) vanished again") }
            connection.withLock { $0 = (pool, identity) }
            try? old.close()
        }
    }

    /// Commits, then closes the activity: its state, its end (the last point's time when

    /// A write transaction, with database errors said for a person; a writer's database
    /// file must still be there (`checkStillThere`), or nothing would reach the disk.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        if lock != nil { try checkStillThere() }
        return try saidForAPerson { try pool.write(body) }
    }

    /// A read, with database errors said for a person.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try saidForAPerson { try pool.read(body) }
    }

    /// Pacer's own errors pass as they are (a GPX or share refusal thrown inside a
    /// transaction); the database's are said with SQLite's reason.
    private func saidForAPerson<T>(_ work: () throws -> T) throws -> T {
        try Self.passingPacersOwn(work) { StorageError.database(Self.reason($0)) }
    }

    /// Runs `work`; Pacer's own errors (storage, GPX, FIT, share) pass as they are, any other is
    /// turned into one by `said`.
    static func passingPacersOwn<T>(_ work: () throws -> T, said: (any Error) -> StorageError) throws -> T {
        do {
            return try work()
        } catch let error as StorageError {
            throw error
        } catch let error as GPXError {
            throw error
        } catch let error as FITError {
            throw error
        } catch let error as ShareError {
            throw error
        } catch {
            throw said(error)
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "\(error.message ?? "SQLite error") (SQLite error \(error.resultCode.rawValue))"
        }
        if let error = error as? StorageError { return error.description }
        if let error = error as? GPXError { return error.description }
        if let error = error as? FITError { return error.description }
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

/// A file's device and inode: what tells the file opened from another put at its path.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the file at `path`; nil (with `errno` set) when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}

/// A part of the store: what it stores lives in the shared database.
protocol DatabasePart: Sendable {
    var database: PacerDatabase { get }
}

extension DatabasePart {
    func write<T>(_ body: (Database) throws -> T) throws -> T { try database.write(body) }
    func read<T>(_ body: (Database) throws -> T) throws -> T { try database.read(body) }
}
