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

/// One report per receiver cycle from gpsd's TPV stream.
///
/// gpsd sends a TPV whenever a sentence changes its picture of the fix, so one receiver cycle
/// (GGA, RMC, GSA, … sharing one time) can yield several TPVs with the same time and growing
/// content: the GGA's has no speed, the RMC's adds it, the GSA's settles the mode. (Once gpsd
/// has learned which sentence ends the cycle it mostly sends one, but not during the first
/// cycles, nor after a receiver changes its sentence set.) The runtime wants one fix per
/// cycle, the most complete one, so the filter holds the latest report of the current time and
/// delivers it when
///
/// - the report is complete: a 3D fix with its speed, altitude, HDOP and satellites in use.
///   Nothing a later TPV of the cycle could add is missing, so it goes at once, without the
///   reader's settle wait (at 1 Hz that wait would cost a wakeup and a system call a
///   second, and a quarter of a second of lateness); later TPVs of its time are dropped, or
/// - a report with a different time arrives (the receiver started its next cycle), or
/// - the caller calls `flush()` because gpsd has been quiet for a while (the reader does so
///   when its `poll` times out), so the last cycle of a burst is not held until the next.
///
/// A report for a time already delivered is dropped (a TPV gpsd sends late for a cycle that
/// was flushed, or repeats after a reconnect), so each fix time reaches the runtime once.
/// A report without a time (a receiver still searching) cannot be grouped: it is delivered at
/// once, after the held report. Not thread-safe; the reader thread owns it.
public struct GPSDCycleFilter: Sendable {
    private var held: GPSDReport?
    private var lastDelivered: UTCTimestamp?

    public init() {}

    /// A report is held, waiting for its cycle to end.
    public var isHolding: Bool { held != nil }

    /// Takes one TPV's report; `deliver` receives the reports whose cycle has ended, in order.
    public mutating func offer(_ report: GPSDReport, deliver: (GPSDReport) -> Void) {
        guard let time = report.time else {
            flush(deliver: deliver)
            deliver(report)
            return
        }
        if time == lastDelivered { return }
        if let current = held, current.time != time {
            flush(deliver: deliver)
        }
        held = report
        if report.isComplete { flush(deliver: deliver) }
    }

    /// Delivers the held report, if any: its cycle is taken to be over.
    public mutating func flush(deliver: (GPSDReport) -> Void) {
        guard let report = held else { return }
        held = nil
        lastDelivered = report.time
        deliver(report)
    }

    /// Forgets the held report without delivering it (the source is stopping).
    public mutating func discard() {
        held = nil
    }
}
