import Coaching
import GRDB
import PacerCore

/// Imported routes with their points and waypoints (R19), and the routes the device follows
/// (R21, R23): an imported one, or a past activity made a route.
public final class RouteStore: DatabasePart {
    let database: PacerDatabase

    init(database: PacerDatabase) {
        self.database = database
    }

    /// Every imported route, oldest first.
    public func routes() throws -> [RouteSummary] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM routes ORDER BY id").map(Self.routeSummary)
        }
    }

    /// Everything stored for one route.
    public func route(_ id: Int64) throws -> RouteDetail {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM routes WHERE id = ?", arguments: [id]) else {
                throw StorageError.unknownRoute(id)
            }
            let points = try Row.fetchAll(
                db, sql: "SELECT lat, lon, alt, time FROM route_points WHERE route_id = ? ORDER BY seq", arguments: [id]
            ).map { row in
                RoutePoint(position: GeoPoint(latitude: row[0], longitude: row[1]), altitude: row[2],
                           time: (row[3] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)))
            }
            let waypoints = try Row.fetchAll(
                db, sql: "SELECT name, description, lat, lon, alt, time FROM route_waypoints WHERE route_id = ? ORDER BY seq",
                arguments: [id]
            ).map { row in
                RouteWaypoint(name: row[0], description: row[1], position: GeoPoint(latitude: row[2], longitude: row[3]),
                              altitude: row[4], time: (row[5] as Int64?).map(UTCTimestamp.init(millisecondsSince1970:)))
            }
            let statistics = PathStatistics(segments: [points.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) }])
            return RouteDetail(summary: try Self.routeSummary(row), points: points, waypoints: waypoints,
                               statistics: statistics)
        }
    }

    /// Route `id` as the device follows it: its line and its named waypoints (unnamed ones
    /// get their number).
    public func followedRoute(_ id: Int64) throws -> FollowedRoute {
        let detail = try route(id)
        guard detail.points.count >= 2 else {
            throw StorageError.tooFewPoints("route #\(id) has \(detail.points.count) point(s): a route to follow needs two or more")
        }
        return FollowedRoute(
            name: detail.summary.name, points: detail.points.map(\.position), elevations: detail.points.map(\.altitude),
            waypoints: detail.waypoints.enumerated().map { i, w in
                .init(name: w.name ?? "waypoint \(i + 1)", position: w.position, elevation: w.altitude)
            })
    }

    /// Makes a route of activity `detail` (R23): its track points in order, across its
    /// segments (a pause or a lost fix joins the points either side), its waypoints, its times.
    /// Said like a GPX import. Refused for an activity still recording.
    public func importRoute(fromActivity detail: ActivityDetail, name: String? = nil) throws -> ImportResult {
        let id = detail.summary.id
        guard detail.summary.state != .recording else { throw StorageError.notRecording(id, .recording) }
        let points = detail.points
        guard points.count >= 2 else {
            throw StorageError.tooFewPoints("activity #\(id) has \(points.count) track point(s): a route needs two or more")
        }
        let routeName = name ?? detail.summary.name
        let line = points.map { PathPoint(position: $0.position, altitude: $0.altitude, time: $0.time) }
        let stats = PathStatistics(segments: [line])
        let duration = points.last!.time.millisecondsSince1970 - points.first!.time.millisecondsSince1970
        return try write { db in
            try db.execute(
                sql: """
                    INSERT INTO routes (name, source, distance_m, duration_ms, elevation_gain, elevation_loss, min_elevation,
                        max_elevation, point_count, waypoint_count, start_lat, start_lon)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [routeName, "activity #\(id)", stats.distance, max(0, duration), stats.elevationGain,
                            stats.elevationLoss, stats.minimumElevation, stats.maximumElevation, points.count,
                            detail.waypoints.count, stats.start?.latitude, stats.start?.longitude])
            let route = db.lastInsertedRowID
            let point = try db.cachedStatement(
                sql: "INSERT INTO route_points (route_id, seq, lat, lon, alt, time) VALUES (?, ?, ?, ?, ?, ?)")
            for (seq, p) in points.enumerated() {
                try point.execute(arguments: [route, seq, p.position.latitude, p.position.longitude, p.altitude,
                                              p.time.millisecondsSince1970])
            }
            let waypoint = try db.cachedStatement(sql: """
                INSERT INTO route_waypoints (route_id, seq, name, description, lat, lon, alt, time)
                VALUES (?, ?, ?, NULL, ?, ?, ?, ?)
                """)
            for (seq, w) in detail.waypoints.enumerated() {
                try waypoint.execute(arguments: [route, seq, w.name, w.position.latitude, w.position.longitude,
                                                 w.altitude, w.time.millisecondsSince1970])
            }
            return ImportResult(kind: .route, id: route, name: routeName, pointCount: points.count,
                                   waypointCount: detail.waypoints.count, distance: stats.distance,
                                   pointsRead: points.count, droppedPoints: 0, droppedElevations: 0, notes: [],
                                   notesLeftOut: 0)
        }
    }

    static func routeSummary(_ row: Row) throws -> RouteSummary {
        let start: GeoPoint?
        if let lat = row["start_lat"] as Double?, let lon = row["start_lon"] as Double? {
            start = GeoPoint(latitude: lat, longitude: lon)
        } else {
            start = nil
        }
        return RouteSummary(
            id: row["id"], name: row["name"], source: row["source"], distance: row["distance_m"],
            duration: (row["duration_ms"] as Int64?).map { .milliseconds($0) },
            elevationGain: row["elevation_gain"], elevationLoss: row["elevation_loss"],
            minimumElevation: row["min_elevation"], maximumElevation: row["max_elevation"],
            pointCount: row["point_count"], waypointCount: row["waypoint_count"], start: start)
    }
}
