import HAL
import PacerCore

/// A scripted system clock for scenarios and tests: `start` at the device clock's zero
/// (the moment the simulated board booted), moving with the device's clock; or unset (a
/// board without a real-time clock: 1970 plus the time since boot).
public final class SimulatedSystemTime: SystemTime {
    public let name: String
    private let clock: any PacerClock
    private let start: UTCTimestamp?
    private let synchronized: Bool
    private let origin: Instant

    /// `start`: the system clock's time now (nil: not set). `synchronized`: NTP keeps it.
    public init(clock: any PacerClock, start: UTCTimestamp?, synchronized: Bool = false, name: String = "sim") {
        self.clock = clock
        self.start = start
        self.synchronized = synchronized
        self.name = name
        origin = clock.now
    }

    public func read() -> SystemTimeReading {
        let elapsed = (clock.now - origin).nanoseconds / 1_000_000
        guard let start else {
            return SystemTimeReading(time: UTCTimestamp(millisecondsSince1970: elapsed), quality: .unset)
        }
        let time = UTCTimestamp(millisecondsSince1970: start.millisecondsSince1970 + elapsed)
        return SystemTimeReading(time: time, quality: SystemTimeReading.quality(of: time, synchronized: synchronized))
    }
}
