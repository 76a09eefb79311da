/// A point in UTC time with millisecond resolution: milliseconds since 1970-01-01T00:00:00Z.
///
/// Pure arithmetic on the proleptic Gregorian calendar (no Foundation, no time zones), so the
/// NMEA engine can build timestamps from receiver fields without touching the system clock.
public struct UTCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// Builds a timestamp from a calendar date and a time of day in milliseconds.
    public init(date: CivilDate, millisecondOfDay: Int32) {
        self.millisecondsSince1970 = Int64(date.daysSince1970) * 86_400_000 + Int64(millisecondOfDay)
    }

    public var date: CivilDate {
        CivilDate(daysSince1970: Int(millisecondsSince1970.floorDiv(86_400_000)))
    }

    public var millisecondOfDay: Int32 {
        Int32(millisecondsSince1970.floorMod(86_400_000))
    }

    public static func < (a: UTCTimestamp, b: UTCTimestamp) -> Bool {
        a.millisecondsSince1970 < b.millisecondsSince1970
    }

    /// ISO 8601 with milliseconds and a `Z`, as gpsd and GPX write it: `2010-06-03T14:52:43.000Z`.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { iso8601 }

    /// Appends the ISO 8601 form to a byte buffer, allocation-free when it has capacity.
    public func appendISO8601(to out: inout [UInt8]) {
        writeISO8601(&out)
    }

    /// The 24 bytes of `appendISO8601(to:)` into any sink (an array, or `Fix.writeJSON`'s raw
    /// writer): the one place the format is written.
    @inline(__always)
    func writeISO8601<Sink: ByteSink>(_ out: inout Sink) {
        let d = date
        let ms = UInt64(millisecondOfDay)
        if d.year < 0 { out.sinkByte(UInt8(ascii: "-")) }
        out.sinkDigits(UInt64(d.year.magnitude), width: 4)
        out.sinkByte(UInt8(ascii: "-"))
        out.sinkDigits(UInt64(truncatingIfNeeded: d.month), width: 2)
        out.sinkByte(UInt8(ascii: "-"))
        out.sinkDigits(UInt64(truncatingIfNeeded: d.day), width: 2)
        out.sinkByte(UInt8(ascii: "T"))
        out.sinkDigits(ms / 3_600_000, width: 2)
        out.sinkByte(UInt8(ascii: ":"))
        out.sinkDigits(ms / 60_000 % 60, width: 2)
        out.sinkByte(UInt8(ascii: ":"))
        out.sinkDigits(ms / 1000 % 60, width: 2)
        out.sinkByte(UInt8(ascii: "."))
        out.sinkDigits(ms % 1000, width: 3)
        out.sinkByte(UInt8(ascii: "Z"))
    }
}

/// A calendar date in the proleptic Gregorian calendar.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Returns nil for a date that does not exist (month 13, 30 February, ...).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative before). Howard Hinnant's civil_from_days.
    public init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01. Howard Hinnant's days_from_civil.
    public var daysSince1970: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public func adding(days: Int) -> CivilDate {
        CivilDate(daysSince1970: daysSince1970 + days)
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public var description: String {
        var bytes: [UInt8] = []
        bytes.appendDigits(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDigits(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDigits(day, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Int64 {
    @inlinable func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }

    @inlinable func floorMod(_ d: Int64) -> Int64 {
        let r = self % d
        return r < 0 ? r + d : r
    }
}
