import Foundation
import PacerCore

/// The system's wall clock, read in one place: the commands may read it (a profile change's
/// time, a plan's creation, today's date for a deadline); the runtime never does, it has only
/// the clock protocol.
enum WallClock {
    static var now: UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
    }

    /// Today in UTC (the date the GPS gives the device).
    static var today: CivilDate { now.date }
}
