import ArgumentParser
import Coaching
import Foundation
import Storage

/// `--route ROUTE`: an imported route's id (`pacer routes list`), or a GPX file (a path with
/// a `/` or ending in `.gpx`), read as a route to follow.
enum RouteChoice {
    static let help = ArgumentHelp(
        "A route to follow by ear: an imported route's id (pacer routes list), or a GPX file (./FILE.gpx). "
            + "Cues when off the route and back on it, before each of its waypoints, at a turn-around and at its end.",
        valueName: "ROUTE")

    static func load(_ choice: String, store: PacerStore?) throws -> FollowedRoute {
        if let id = Int64(choice) {
            do {
                guard let store else { throw StorageError.database("the data folder cannot be used") }
                return try store.routes.followedRoute(id)
            } catch {
                throw CommandFailure(error, "--route \(choice)")
            }
        }
        guard choice.contains("/") || choice.lowercased().hasSuffix(".gpx") else {
            throw ValidationError("--route \(choice): not a route id (a number: pacer routes list) nor a GPX file (./FILE.gpx)")
        }
        do {
            return try FollowedRoute.load(gpx: choice)
        } catch {
            throw CommandFailure(error, "--route")
        }
    }

    /// `Following route 'Park loop': 1.52 km, 3 waypoints.`
    static func describe(_ route: FollowedRoute) -> String {
        let follower = RouteFollower(route: route)
        let km = (follower.length / 10).rounded() / 100
        let waypoints = route.waypoints.count == 1 ? "1 waypoint" : "\(route.waypoints.count) waypoints"
        let turns = follower.turnArounds.isEmpty ? "" : ", \(follower.turnArounds.count) turn-around(s)"
        return "Following route '\(route.name)': \(km) km, \(waypoints)\(turns)."
    }
}
