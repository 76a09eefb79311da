/// How times are shown to a person: in UTC, or in the board's time zone, since a runner reads
/// local time. Times are stored, exported and compared in UTC; only their text changes.
///
/// A zone is its offsets from UTC over time, daylight saving included, as periods: the
/// command line makes it from the system's zone (`TZ`, `/etc/localtime`), so that the inner
/// layers need no time-zone database and a zone is a plain value.
public struct DisplayZone: Hashable, Sendable {
    /// From `from` (milliseconds since 1970 UTC) on, until the next period: `offset` seconds
    /// east of UTC, said as `label` (`CEST`, `UTC+05:30`).
    public struct Period: Hashable, Sendable {
        public var from: Int64
        public var offset: Int32
        public var label: String

        public init(from: Int64, offset: Int32, label: String) {
            self.from = from
            self.offset = offset
            self.label = label
        }
    }

    /// In order of `from`; the first also covers every time before it.
    public let periods: [Period]

    /// `periods` in any order; none at all is UTC.
    public init(periods: [Period]) {
        self.periods = periods.isEmpty ? DisplayZone.utc.periods : periods.sorted { $0.from < $1.from }
    }

    private init(sorted: [Period]) {
        periods = sorted
    }

    public static let utc = DisplayZone(sorted: [Period(from: .min, offset: 0, label: "UTC")])

    /// Every period is UTC itself.
    public var isUTC: Bool { periods.allSatisfy { $0.offset == 0 } }

    /// The period `time` falls in.
    public func period(at time: UTCTimestamp) -> Period {
        var lo = 0, hi = periods.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if periods[mid].from <= time.millisecondsSince1970 { lo = mid } else { hi = mid - 1 }
        }
        return periods[lo]
    }

    /// `time` moved to the zone's wall clock: its date and time of day are what a clock on the
    /// wall shows there.
    public func wallClock(_ time: UTCTimestamp) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: time.millisecondsSince1970 + Int64(period(at: time).offset) * 1000)
    }

    /// `UTC+05:30` for an offset in seconds (`UTC` for none).
    public static func label(offset: Int32) -> String {
        guard offset != 0 else { return "UTC" }
        let minutes = abs(Int(offset)) / 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "UTC\(offset < 0 ? "-" : "+")\(two(minutes / 60)):\(two(minutes % 60))"
    }
}
