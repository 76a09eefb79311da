#if canImport(Glibc)
import Glibc
#endif
import CLinuxInput
import HAL
import PacerCore

/// The board's wall clock, `CLOCK_REALTIME`, as the HAL's `SystemTime` (the one place the
/// firmware reads it). Set when it reads at or after `GPSTimeCheck.earliestPlausible` (a
/// board without a real-time clock boots at 1970, or at the time `fake-hwclock` saved at
/// its last shutdown, which is "set" but may lag by as long as the board was off);
/// synchronized when the kernel says NTP keeps it so (`adjtimex` with no change asked: the
/// `STA_UNSYNC` status bit clear; chrony and systemd-timesyncd clear it once synchronized).
/// Reading `adjtimex` needs no privilege.
public final class RealtimeSystemTime: SystemTime {
    public let name = "system"
    private let earliest: UTCTimestamp

    public init(earliest: UTCTimestamp = GPSTimeCheck.earliestPlausible) {
        self.earliest = earliest
    }

    public func read() -> SystemTimeReading {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let time = UTCTimestamp(millisecondsSince1970: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
        return SystemTimeReading(
            time: time, quality: SystemTimeReading.quality(of: time, synchronized: Self.synchronized, earliest: earliest))
    }

    /// Whether NTP keeps the clock synchronized, as the kernel says (`adjtimex`).
    static var synchronized: Bool { pacer_clock_synchronized() != 0 }
}
