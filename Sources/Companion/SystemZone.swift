import PacerCore
import Foundation

extension DisplayZone {
    /// The system's time zone (`TZ`, else `/etc/localtime`; UTC when neither names one), as
    /// its periods from 1970 to 2100: what the commands and the companion page show times in. A zone without
    /// daylight saving is one period.
    public static let system: DisplayZone = {
        let zone = TimeZone.current
        func period(at date: Date, from: Int64) -> Period {
            let offset = Int32(zone.secondsFromGMT(for: date))
            let name = zone.abbreviation(for: date) ?? ""
            let isName = (2...5).contains(name.count) && name.allSatisfy { $0.isASCII && $0.isUppercase }
            return Period(from: from, offset: offset, label: isName && offset != 0 ? name : DisplayZone.label(offset: offset))
        }
        var date = Date(timeIntervalSince1970: 0)
        var periods = [period(at: date, from: .min)]
        let end = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next < end, periods.count < 1000 {
            periods.append(period(at: next, from: Int64((next.timeIntervalSince1970 * 1000).rounded())))
            date = next
        }
        let found = DisplayZone(periods: periods)
        return found.isUTC ? .utc : found
    }()
}
