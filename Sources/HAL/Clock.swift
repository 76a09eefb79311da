import PacerCore

/// A monotonic instant on the device's clock, in nanoseconds from an arbitrary origin.
///
/// All firmware timing goes through a `PacerClock`: the board's clock reads the kernel's
/// monotonic time, the simulator's virtual clock moves only when told. Nothing in the
/// runtime reads the wall clock.
public struct Instant: Hashable, Comparable, Sendable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }

    public func advanced(bySeconds s: Double) -> Instant {
        Instant(nanoseconds: nanoseconds + Int64((s * 1e9).rounded()))
    }

    public func seconds(since earlier: Instant) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1e9
    }
}

/// The clock protocol. `now` never goes backwards.
public protocol PacerClock: Sendable {
    var now: Instant { get }
}
