import Coaching
import Foundation
import GRDB
import PacerCore

/// Routes to follow (R21, R23): an imported route, a past activity made a route, or a GPX
/// file read as one (a scenario's).
extension ActivityStore {
    /// Route `id` as the device follows it: its line and its named waypoints (unnamed ones
    /// get their number).
    public func followedRoute(_ id: Int64) throws -> FollowedRoute {
        let detail = try route(id)
        guard detail.points.count >= 2 else {
            throw StorageError.database("route #\(id) has \(detail.points.count) point(s): a route to follow needs two or more")
        }
        return FollowedRoute(
            name: detail.summary.name, points: detail.points.map(\.position), elevations: detail.points.map(\.altitude),
            waypoints: detail.waypoints.enumerated().map { i, w in
                .init(name: w.name ?? "waypoint \(i + 1)", position: w.position, elevation: w.altitude)
            })
    }

    /// Makes a route of activity `id` (R23): its track points in order, across its segments
    /// (a pause or a lost fix joins the points either side), its waypoints, its times. Said
    /// like a GPX import. Refused for an activity still recording.
    public func importRoute(fromActivity id: Int64, name: String? = nil) throws -> GPXImportResult {
        let detail = try activity(id)
        guard detail.summary.state != .recording else { throw StorageError.notRecording(id, .recording) }
        let points = detail.points
        guard points.count >= 2 else {
            throw StorageError.database("activity #\(id) has \(points.count) track point(s): a route needs two or more")
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
            return GPXImportResult(kind: .route, id: route, name: routeName, pointCount: points.count,
                                   waypointCount: detail.waypoints.count, distance: stats.distance,
                                   pointsRead: points.count, droppedPoints: 0, droppedElevations: 0, notes: [],
                                   notesLeftOut: 0)
        }
    }
}

extension FollowedRoute {
    /// A GPX file read as a route to follow: its `<rte>` points when it has any, else its
    /// track points as one line; its waypoints (unnamed ones get their number). Refused, with
    /// the file and the reason, when it holds fewer than two points.
    public static func load(gpx path: String) throws(GPXError) -> FollowedRoute {
        let document = try GPXReader.read(path: path)
        let routePoints = document.routes.flatMap(\.points)
        let points = routePoints.isEmpty ? document.tracks.flatMap { $0.segments.flatMap { $0 } } : routePoints
        guard points.count >= 2 else {
            throw GPXError(file: path, line: document.line,
                           reason: "\(points.count) route or track point(s): a route to follow needs two or more")
        }
        let fallback = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = document.name ?? document.routes.first(where: { $0.name != nil })?.name
            ?? document.tracks.first(where: { $0.name != nil })?.name ?? fallback
        return FollowedRoute(
            name: name, points: points.map(\.position), elevations: points.map(\.altitude),
            waypoints: document.waypoints.enumerated().map { i, w in
                .init(name: w.name ?? "waypoint \(i + 1)", position: w.position, elevation: w.altitude)
            })
    }
}
