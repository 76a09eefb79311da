import PacerCore

/// The system's wall clock as the device reads it (UTC), and how far it can be trusted.
///
/// The runtime never reads the wall clock itself (no `Date()`): on the board the adapter
/// reads `CLOCK_REALTIME` and asks the kernel whether NTP keeps it synchronized
/// (`LinuxHardware.RealtimeSystemTime`); in simulation it is scripted
/// (`Simulation.SimulatedSystemTime`). The receiver's time is checked against it
/// (`GPSTimeCheck`), because a receiver may be wrong too: a week-rollover fault.
public protocol SystemTime: AnyObject, Sendable {
    /// The adapter's name, for logs (`system`, `sim?at=2026-05-02T07:00:00Z`).
    var name: String { get }
    /// The system's time now, with how it was set.
    func read() -> SystemTimeReading
}

/// One reading of the system clock.
public struct SystemTimeReading: Hashable, Sendable {
    public enum Quality: Hashable, Sendable {
        /// Not known to be set: before `GPSTimeCheck.earliestPlausible` (a board without a
        /// real-time clock boots at 1970, or wherever a saved clock left it).
        case unset
        /// Set (after the earliest plausible date: an RTC, a clock saved at the last shutdown)
        /// but not known to be synchronized: it may lag, a saved clock by as long as the
        /// board was off.
        case set
        /// Kept synchronized by NTP (the kernel's `STA_UNSYNC` clear).
        case synchronized
    }

    public var time: UTCTimestamp
    public var quality: Quality

    public init(time: UTCTimestamp, quality: Quality) {
        self.time = time
        self.quality = quality
    }

    /// The quality of a clock reading `time` that NTP does (or does not) keep synchronized:
    /// before the earliest plausible date it is unset, whatever NTP says.
    public static func quality(
        of time: UTCTimestamp, synchronized: Bool, earliest: UTCTimestamp = GPSTimeCheck.earliestPlausible
    ) -> Quality {
        time < earliest ? .unset : synchronized ? .synchronized : .set
    }
}

/// What to make of the receiver's time, a pure decision that guards against a receiver with a
/// week-rollover fault (its dates 1024 weeks early from its first fix).
///
/// A GPS week number has 10 bits in the legacy navigation message: it rolls over every
/// 1024 weeks (7168 days, about 19.6 years), and a receiver whose firmware takes the wrong
/// 1024-week era reports a date exactly that much early (2006-09-16 for 2026-05-02). Such a
/// date is corrected by adding 1024 weeks (k = 1…3 times) when that lands where the system
/// clock says it is; when no correction does, the system clock dates the activity; when
/// there is no set system clock, the date must at least not be before this firmware was
/// made (`earliestPlausible`), and the smallest correction that gets it there is taken.
///
/// The rules, with `s` the system clock and `g` the receiver's time:
/// - synchronized clock: `g` (or `g` + k×1024 weeks) within `tolerance` of `s`;
/// - set clock, not synchronized: the same, except that `g` may also be up to `clockLag`
///   ahead of `s` (a clock saved at shutdown lags by as long as the board was off; a
///   rollover fault only ever makes the receiver early, never late);
/// - otherwise, a set clock: the system clock's time (`useSystemTime`);
/// - no set clock: `g` as it is when it is at or after `earliestPlausible`, else the
///   smallest k×1024 weeks that brings it there; a date still implausible is kept as it
///   is (nothing better is known) and said so.
public enum GPSTimeCheck {
    /// 1024 weeks in milliseconds: one GPS week-number era.
    public static let rollover: Int64 = 1024 * 7 * 86_400_000
    /// The largest number of eras a date is corrected by (a receiver three eras early would
    /// be reporting the 1960s).
    public static let maximumEras = 3
    /// How far the receiver and a set system clock may disagree and still agree: a day
    /// (an RTC kept in local time is off by up to 14 hours; NTP by milliseconds).
    public static let tolerance: Int64 = 86_400_000
    /// How far a set but unsynchronized system clock may lag the receiver: two years (a
    /// board stored for a winter or two with a clock saved at its last shutdown).
    public static let clockLag: Int64 = 731 * 86_400_000
    /// The earliest plausible date, the one place it is written: no board runs this
    /// firmware (version 0.1.0) before 2026-01-01, the year it was made. A system clock before
    /// it is not set; with no set clock, a receiver's date before it is a rollover fault.
    /// Pacer has no build date baked into its binary (its version is a constant), so this
    /// constant stands for it; a later release may move it forward, never past its own date.
    public static let earliestPlausible = UTCTimestamp(date: CivilDate(year: 2026, month: 1, day: 1)!, millisecondOfDay: 0)

    /// The date a plan's deadline is judged on: the later of the receiver's date (as the
    /// device uses it) and the system clock's when that one is set (at or after
    /// `earliestPlausible`; a board without a real-time clock reads 1970 until it is). A
    /// deadline passed by either clock is passed: a replayed receiver 1024 weeks early, with
    /// no system clock to correct its times, does not start a plan that ended (`pacer run`
    /// judges on the system's date too).
    public static func deadlineDate(gps: CivilDate?, system: UTCTimestamp) -> CivilDate {
        let clock = system >= earliestPlausible ? system.date : nil
        switch (gps, clock) {
        case let (gps?, clock?): return max(gps, clock)
        case let (gps?, nil): return gps
        case let (nil, clock?): return clock
        case (nil, nil): return system.date
        }
    }

    public enum Verdict: Hashable, Sendable {
        /// The receiver's time is right (`reason` says why it is trusted).
        case asIs(reason: String)
        /// A week-rollover fault: add `eras` × 1024 weeks.
        case rollover(eras: Int)
        /// The receiver's time is far from a set system clock and no rollover explains it:
        /// the system clock's time is used.
        case useSystemTime
        /// No set system clock and a date that no correction makes plausible: kept as is.
        case implausible
    }

    /// The verdict on the receiver's time `gps`, against the system clock's reading
    /// (nil: there is no system clock to ask) and the earliest plausible date.
    public static func judge(
        gps: UTCTimestamp, system: SystemTimeReading?, earliest: UTCTimestamp = earliestPlausible
    ) -> Verdict {
        let g = gps.millisecondsSince1970
        if let system, system.quality != .unset {
            let s = system.time.millisecondsSince1970
            let ahead = system.quality == .synchronized ? tolerance : clockLag
            for eras in 0...maximumEras {
                let c = g + Int64(eras) * rollover
                if c >= s - tolerance && c <= s + ahead {
                    return eras == 0
                        ? .asIs(reason: c >= s - tolerance && c <= s + tolerance
                            ? "agrees with the system clock" : "ahead of a system clock not synchronized (taken as lagging)")
                        : .rollover(eras: eras)
                }
            }
            return .useSystemTime
        }
        let b = earliest.millisecondsSince1970
        for eras in 0...maximumEras where g + Int64(eras) * rollover >= b {
            return eras == 0 ? .asIs(reason: "not before the earliest plausible date") : .rollover(eras: eras)
        }
        return .implausible
    }

    /// How much to add to the receiver's time under `verdict`, in milliseconds.
    public static func correction(_ verdict: Verdict, gps: UTCTimestamp, system: SystemTimeReading?) -> Int64 {
        switch verdict {
        case .asIs, .implausible: 0
        case .rollover(let eras): Int64(eras) * rollover
        case .useSystemTime: (system?.time.millisecondsSince1970 ?? gps.millisecondsSince1970) - gps.millisecondsSince1970
        }
    }
}
