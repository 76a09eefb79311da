import Coaching
import Foundation
import PacerCore

/// A GPX file read as a route to follow (a scenario's, R21); the stored ones come from
/// `RouteStore.followedRoute(_:)`.
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
