import Coaching
import GRDB
import PacerCore

/// The route the next workout follows: chosen from the companion page or
/// `pacer routes follow ID|none`, kept as a key of `device_state` (`followed_route`: the
/// route's id), read by the device when a workout starts (`pacer device --route`, when
/// given, still wins). A route that cannot be followed (fewer than two points) is refused
/// when chosen, with the same message as `--route ID`.
extension RouteStore {
    /// The chosen route's id; nil when none is chosen.
    public func chosenRoute() throws -> Int64? {
        try read { db in
            guard let value = try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = 'followed_route'")
            else { return nil }
            guard let id = Int64(value) else {
                throw StorageError.database("the followed route '\(value)' is not a route id")
            }
            return id
        }
    }

    /// Makes route `id` the one the next workout follows (nil: follow no route). Refused
    /// (nothing changed) for a route that does not exist or cannot be followed.
    public func chooseRoute(_ id: Int64?, at time: UTCTimestamp) throws {
        guard let id else {
            try write { db in try db.execute(sql: "DELETE FROM device_state WHERE key = 'followed_route'") }
            return
        }
        _ = try followedRoute(id)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO device_state (key, value, changed_at) VALUES ('followed_route', ?, ?)",
                arguments: [String(id), time.millisecondsSince1970])
        }
    }

    /// The chosen route as the device follows it; nil when none is chosen.
    public func chosenFollowedRoute() throws -> FollowedRoute? {
        try chosenRoute().map { try followedRoute($0) }
    }
}
