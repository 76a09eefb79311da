import Coaching
import GRDB
import PacerCore

/// A point of an imported file as read, with where it is in the file: a GPX point (`wpt`,
/// `rtept` or `trkpt`) and its line, or a FIT record and its number. What the plausibility
/// check (`TrackPlausibility`) judges and the import stores.
public struct ImportedPoint: Hashable, Sendable {
    public var position: GeoPoint
    public var altitude: Double?
    public var time: UTCTimestamp?
    /// Metres per second: GPX 1.0's `<speed>`, or a `speed` element in the point's extensions
    /// (Garmin's TrackPointExtension v2, as `GPXWriter` writes it); FIT's record speed.
    public var speed: Double?
    public var name: String?
    public var description: String?
    public var type: String?
    /// Beats per minute: Garmin's TrackPointExtension `hr` (v1 or v2) in a GPX point's
    /// extensions; FIT's record heart_rate. An activity import keeps it, a route does not.
    public var heartRate: Int?
    /// Seconds between beats: FIT's hrv messages after the record (GPX has no place for them).
    public var rrIntervals: [Double] = []
    /// The GPX line, or the FIT record's number from 1.
    public var line: Int

    public init(position: GeoPoint, altitude: Double? = nil, time: UTCTimestamp? = nil, speed: Double? = nil,
                name: String? = nil, description: String? = nil, type: String? = nil, heartRate: Int? = nil,
                rrIntervals: [Double] = [], line: Int = 0) {
        self.position = position
        self.altitude = altitude
        self.time = time
        self.speed = speed
        self.name = name
        self.description = description
        self.type = type
        self.heartRate = heartRate
        self.rrIntervals = rrIntervals
        self.line = line
    }
}

/// What an imported file (GPX or FIT) becomes.
public enum ImportKind: String, Hashable, Sendable, CaseIterable {
    /// A route to follow (R19): its line, waypoints, distance and elevation.
    case route
    /// A past activity (completed), from the file's track and its times.
    case activity
}

/// What an import stored, and what it left out of the file and why.
public struct ImportResult: Hashable, Sendable {
    public var kind: ImportKind
    public var id: Int64
    public var name: String
    /// Points stored.
    public var pointCount: Int
    public var waypointCount: Int
    /// Metres.
    public var distance: Double
    /// Points read from the file: `pointCount` plus those dropped.
    public var pointsRead: Int = 0
    /// Points dropped as GPS glitches, and elevations left out of their point (`TrackPlausibility`).
    public var droppedPoints: Int = 0
    public var droppedElevations: Int = 0
    /// A route's times, left out because they went back or were all the same.
    public var timesLeftOut = false
    /// Where and why, for the first few (10) of each; `notesLeftOut` more were not listed.
    public var notes: [ImportNote] = []
    public var notesLeftOut = 0
    /// The file's points with a heart rate that the import did not keep (a route keeps none;
    /// an activity keeps those of the points it stores), and with a cadence: Pacer keeps none.
    public var heartRatesNotKept = 0
    public var cadencesNotKept = 0
}

/// The one path an imported file's points take into the store, whatever the format
/// (`GPXExchange.importGPX`, `FITExchange.importFIT`): each point judged by
/// `TrackPlausibility` (`TrackPointFilter`), then written to the activity's or the route's
/// rows, within the caller's transaction.
enum TrackImport {
    /// A new activity imported from `path` (GPX or FIT), and the filter that stores its points
    /// in order, each checked by `rules` first.
    static func beginActivity(name: String, path: String, rules: TrackPlausibility,
                                 _ db: Database) throws -> (id: Int64, filter: TrackPointFilter) {
        try db.execute(sql: "INSERT INTO activities (name, profile, state, source) VALUES (?, NULL, 'completed', ?)",
                       arguments: [name, path])
        let id = db.lastInsertedRowID
        let statement = try db.cachedStatement(sql: """
            INSERT INTO track_points (activity_id, seq, segment, time, lat, lon, alt, speed, heart_rate, rr_intervals)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var seq = 0
        let filter = TrackPointFilter(rules: rules, file: path, timed: true) { p, segment in
            // The filter refuses an activity's point without a time before handing it on. A
            // rate of 0 (a watch's strap off the skin) is no heart rate.
            try statement.execute(arguments: [id, seq, segment, p.time?.millisecondsSince1970 ?? 0, p.position.latitude,
                                           p.position.longitude, p.altitude, p.speed, HeartRateRecords.rate(p.heartRate),
                                           HeartRateRecords.text(HeartRateRecords.kept(p.rrIntervals))])
            seq += 1
        }
        return (id, filter)
    }

    /// Closes an imported activity (its statistics computed, as a recorded one's are) and
    /// returns its distance in metres. Unless `again`, a run the store has already (another
    /// activity started within 2 s of it, its distance within 2 % or 50 m: the same file
    /// imported twice, or a recorded run's own export) is refused, and the transaction with it:
    /// `stats` would count the run twice.
    static func finishActivity(_ id: Int64, path: String, again: Bool, _ db: Database) throws -> Double {
        try ActivityLogStore.close(id, state: .completed, endedAt: nil, activeTime: nil, db)
        let row = try Row.fetchOne(db, sql: "SELECT started_at, distance_m FROM activities WHERE id = ?", arguments: [id])
        let distance: Double = row?[1] ?? 0
        if !again, let started: Int64 = row?[0],
           let same = try Row.fetchOne(db, sql: """
               SELECT id, started_at, distance_m FROM activities
               WHERE id != ? AND started_at IS NOT NULL AND ABS(started_at - ?) <= 2000
                 AND ABS(distance_m - ?) <= MAX(50.0, 0.02 * ?)
               ORDER BY id LIMIT 1
               """, arguments: [id, started, distance, distance]) {
            throw StorageError.alreadyImported(
                path: path, activity: same[0], started: (same[1] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)),
                distance: same[2] ?? 0)
        }
        return distance
    }

    /// A new route imported from `path`, named `name` until `finishRoute` names it, and the
    /// statement that stores its points (route, seq, lat, lon, alt, time).
    static func beginRoute(name: String, path: String, _ db: Database) throws -> (id: Int64, insert: Statement) {
        try db.execute(sql: """
            INSERT INTO routes (name, source, distance_m, elevation_gain, elevation_loss, point_count, waypoint_count)
            VALUES (?, ?, 0, 0, 0, 0, 0)
            """, arguments: [name, path])
        let id = db.lastInsertedRowID
        let insert = try db.cachedStatement(
            sql: "INSERT INTO route_points (route_id, seq, lat, lon, alt, time) VALUES (?, ?, ?, ?, ?, ?)")
        return (id, insert)
    }

    /// A route's times dropped, when they go back or are all the same: its line is its
    /// points in order.
    static func clearRouteTimes(_ id: Int64, _ db: Database) throws {
        try db.execute(sql: "UPDATE route_points SET time = NULL WHERE route_id = ?", arguments: [id])
    }

    /// Names route `id` and stores what its `line` (its points as stored) measures, and its
    /// waypoints; returns the measures.
    static func finishRoute(_ id: Int64, name: String, line: [PathPoint], waypoints: [ImportedPoint],
                            _ db: Database) throws -> PathStatistics {
        let stats = PathStatistics(segments: [line])
        var duration: Int64?
        if let first = line.first?.time, let last = line.last?.time, last >= first {
            duration = last.millisecondsSince1970 - first.millisecondsSince1970
        }
        try db.execute(
            sql: """
                UPDATE routes SET name = ?, distance_m = ?, duration_ms = ?, elevation_gain = ?, elevation_loss = ?,
                    min_elevation = ?, max_elevation = ?, point_count = ?, waypoint_count = ?, start_lat = ?, start_lon = ?
                WHERE id = ?
                """,
            arguments: [name, stats.distance, duration, stats.elevationGain, stats.elevationLoss,
                        stats.minimumElevation, stats.maximumElevation, line.count, waypoints.count,
                        stats.start?.latitude, stats.start?.longitude, id])
        let waypoint = try db.cachedStatement(sql: """
            INSERT INTO route_waypoints (route_id, seq, name, description, lat, lon, alt, time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (seq, w) in waypoints.enumerated() {
            try waypoint.execute(arguments: [id, seq, w.name, w.description, w.position.latitude,
                                             w.position.longitude, w.altitude, w.time?.millisecondsSince1970])
        }
        return stats
    }
}
