import Coaching
import PacerCore
import Testing

@Suite("Dates and times said in the board's zone")
struct ActivityFormatZoneTests {
    static let oslo = DisplayZone(periods: [
        .init(from: .min, offset: 3600, label: "CET"),
        .init(from: 1_774_746_000_000, offset: 7200, label: "CEST"),
    ])

    @Test func aTimeIsSaidOnTheLocalClockWithItsZone() {
        // 2026-05-02 07:00 UTC is 09:00 in Oslo (summer time).
        let t = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)
        #expect(ActivityFormat.dateTime(t, zone: Self.oslo) == "2026-05-02 09:00")
        #expect(ActivityFormat.dateTimeZoned(t, seconds: true, zone: Self.oslo) == "2026-05-02 09:00:00 CEST")
        #expect(ActivityFormat.dateTimeZoned(t, seconds: true) == "2026-05-02 07:00:00 UTC")
        // Across midnight: the local date is the next day.
        let late = UTCTimestamp(millisecondsSince1970: 1_777_763_400_000)
        #expect(ActivityFormat.dateTime(late, zone: Self.oslo) == "2026-05-03 01:10")
    }
}
