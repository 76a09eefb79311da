import Foundation
import PacerCore

/// The system's wall clock, read in one place: the commands may read it (a profile change's
/// time, a plan's creation, today's date for a deadline), and so may the edges that stamp
/// what they send (`pacer ctl watch`'s lines); the runtime never does, it has only the clock
/// protocol.
public enum WallClock {
    public static var now: UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
    }

    /// Today in UTC (the date the GPS gives the device).
    public static var today: CivilDate { now.date }
}
