import NMEA
import PacerCore

/// What one gpsd TPV report amounts to, reduced to what the runtime uses.
public enum GPSDReport: Hashable, Sendable {
    /// gpsd has a 2D or 3D position with a full UTC time.
    case fix(Fix)
    /// gpsd says it has no position (TPV mode 0 or 1); the receiver's time when it gave one.
    case noFix(UTCTimestamp?)

    /// A 3D fix with everything a cycle's TPVs carry: speed, altitude, HDOP, satellites used
    /// (the course is left out: gpsd has none for a runner standing still).
    public var isComplete: Bool {
        guard case .fix(let fix) = self else { return false }
        return fix.mode == .threeD && fix.speed != nil && fix.altitude != nil && fix.hdop != nil
            && fix.satellitesUsed != nil
    }

    /// The receiver time the report belongs to: the cycle it is part of.
    public var time: UTCTimestamp? {
        switch self {
        case .fix(let fix): fix.time
        case .noFix(let time): time
        }
    }
}

/// What one cycle of gpsd's TPV reports adds up to: the latest of them.
///
/// gpsd sends a TPV whenever a sentence changes its picture of the fix, so one receiver cycle
/// (GGA, RMC, GSA, … sharing one time) can yield several TPVs with the same time and growing
/// content: the GGA's has no speed, the RMC's adds it, the GSA's settles the mode. (Once gpsd
/// has learned which sentence ends the cycle it mostly sends one, but not during the first
/// cycles, nor after a receiver changes its sentence set.) The runtime wants one fix per
/// cycle, the most complete one, so the `CycleAssembler` holds the latest report of the
/// current time and delivers it when
///
/// - the report is complete: a 3D fix with its speed, altitude, HDOP and satellites in use.
///   Nothing a later TPV of the cycle could add is missing, so it goes at once, without the
///   reader's settle wait (at 1 Hz that wait would cost a wakeup and a system call a
///   second, and a quarter of a second of lateness); later TPVs of its time are dropped, or
/// - a report with a different time arrives (the receiver started its next cycle), or
/// - the reader flushes it because gpsd has been quiet for a while (its `poll` timed out),
///   so the last cycle of a burst is not held until the next.
///
/// A report for a time already delivered is dropped (a TPV gpsd sends late for a cycle that
/// was flushed, or repeats after a reconnect), so each fix time reaches the runtime once.
/// A report without a time (a receiver still searching) cannot be grouped: it is delivered at
/// once, after the held report.
public struct GPSDCycle: CycleContent {
    private var latest: GPSDReport?

    public init() {}

    public static func key(of report: GPSDReport) -> CycleKey<UTCTimestamp> {
        report.time.map { .time($0) } ?? .untimed
    }

    public mutating func add(_ report: GPSDReport, context: inout Void) {
        latest = report
    }

    public var isComplete: Bool {
        guard let latest else { return false }
        return latest.isComplete || latest.time == nil
    }

    public static var dropsLateReports: Bool { true }

    public func output(context: inout Void) -> GPSDReport? { latest }
}
