import PacerCore

/// What a GPS source reports to the runtime.
public enum GPSEvent: Hashable, Sendable {
    case connected
    case fix(Fix)
    /// The receiver is talking but has no valid position.
    case noFix
    case disconnected(reason: String)
}

/// A source of positions: gpsd, NMEA on a serial port, or a replayed recording.
public protocol GPSSource: Sendable {
    /// A human-readable name for logs and errors (`gpsd://localhost:2947`, `serial:///dev/ttyACM0`).
    var name: String { get }
}
