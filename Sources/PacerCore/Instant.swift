/// A monotonic instant on the device's clock, in nanoseconds from an arbitrary origin.
///
/// All firmware timing goes through a `PacerClock`: the board's clock reads the kernel's
/// monotonic time, the simulator's virtual clock moves only when told. Nothing in the
/// runtime reads the wall clock.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static let zero = Instant(nanoseconds: 0)

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds + d.nanoseconds)
    }

    public static func - (a: Instant, d: Duration) -> Instant {
        Instant(nanoseconds: a.nanoseconds - d.nanoseconds)
    }

    public static func - (a: Instant, b: Instant) -> Duration {
        .nanoseconds(a.nanoseconds - b.nanoseconds)
    }

    /// Seconds since the clock's origin, for logs and timelines.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "t+\(seconds)s" }
}
