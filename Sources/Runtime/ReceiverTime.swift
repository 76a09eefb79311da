import HAL
import Logging
import PacerCore

/// Where the receiver's time enters the device: every fix's time is
/// checked against the system clock (`GPSTimeCheck`) before the device uses it, so a receiver
/// with a week-rollover fault from its first fix neither dates the activity 1024 weeks early
/// nor lets an expired plan start. One for the device's life, on the clock's loop: the
/// firmware corrects each fix once as the receiver's sink hands it on (today's date, for the
/// plan's deadline; the running workout's track clock, every point), and the runtime the
/// freshest fix a waypoint is taken at.
///
/// Each fix is judged as it comes (a receiver that was wrong at its first fix and later
/// finds the right era is followed); a verdict is logged when it changes, so a steady fault
/// is logged once, with both dates. Without a system clock (`nil`: a replayed recording is
/// of its own day) every time is taken as it is.
public final class ReceiverTime: Sendable {
    private let system: (any SystemTime)?
    private let earliest: UTCTimestamp
    private let logger: Logger
    /// The verdict on the last fix: a change is logged.
    private let last: LoopBound<GPSTimeCheck.Verdict?>

    public init(system: (any SystemTime)?, clock: any PacerClock,
                earliest: UTCTimestamp = GPSTimeCheck.earliestPlausible, logger: Logger = Logger(label: "pacer.time")) {
        self.system = system
        self.earliest = earliest
        self.logger = logger
        last = LoopBound(nil, clock: clock)
    }

    /// The fix with its time as the device uses it.
    public func corrected(_ fix: Fix) -> Fix {
        var fix = fix
        fix.time = corrected(fix.time)
        return fix
    }

    /// The receiver's time `gps` as the device uses it.
    public func corrected(_ gps: UTCTimestamp) -> UTCTimestamp {
        guard let system else { return gps }
        let reading = system.read()
        let verdict = GPSTimeCheck.judge(gps: gps, system: reading, earliest: earliest)
        let delta = GPSTimeCheck.correction(verdict, gps: gps, system: reading)
        let time = UTCTimestamp(millisecondsSince1970: gps.millisecondsSince1970 + delta)
        let changed = last.withValue { previous in
            defer { previous = verdict }
            return previous != verdict
        }
        if changed { log(verdict, gps: gps, time: time, reading: reading) }
        return time
    }

    private func log(_ verdict: GPSTimeCheck.Verdict, gps: UTCTimestamp, time: UTCTimestamp, reading: SystemTimeReading) {
        let clock = reading.quality == .unset
            ? "system clock not set (\(reading.time.iso8601)), earliest plausible date \(earliest.date)"
            : "system clock \(reading.time.iso8601)\(reading.quality == .synchronized ? ", synchronized" : "")"
        switch verdict {
        case .asIs(let reason):
            logger.info("GPS time \(gps.iso8601) taken as it is: \(reason) (\(clock))")
        case .rollover(let eras):
            logger.warning("GPS time \(gps.iso8601) is \(eras * 1024) weeks early (a week-rollover fault of the receiver; \(clock)): corrected to \(time.iso8601)")
        case .useSystemTime:
            logger.warning("GPS time \(gps.iso8601) is far from the \(clock) and no week rollover explains it: the system clock's \(time.iso8601) is used")
        case .implausible:
            logger.warning("GPS time \(gps.iso8601) is before the earliest plausible date and no week rollover explains it (\(clock)): kept as it is")
        }
    }
}
