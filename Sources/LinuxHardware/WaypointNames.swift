import Synchronization

/// `Waypoint 1`, `Waypoint 2`, …: names for waypoints marked without a name (a key, a
/// signal). Share one between the terminal and the signal controls so that their names
/// do not repeat.
public final class WaypointNames: Sendable {
    public let prefix: String
    private let count = Mutex(0)

    public init(prefix: String = "Waypoint") {
        self.prefix = prefix
    }

    public func next() -> String {
        let n = count.withLock { c -> Int in
            c += 1
            return c
        }
        return "\(prefix) \(n)"
    }
}
