import PacerCore
import Testing

@Suite("Times shown in a zone")
struct DisplayZoneTests {
    /// Central European time around the switch to summer time on 2026-03-29 at 01:00 UTC.
    static let oslo = DisplayZone(periods: [
        .init(from: 1_774_746_000_000, offset: 7200, label: "CEST"),
        .init(from: .min, offset: 3600, label: "CET"),
        .init(from: 1_792_890_000_000, offset: 3600, label: "CET"),
    ])

    @Test func eachTimeFallsInItsPeriodWhateverTheOrderGiven() {
        let beforeSwitch = UTCTimestamp(millisecondsSince1970: 1_774_745_999_999)
        let atSwitch = UTCTimestamp(millisecondsSince1970: 1_774_746_000_000)
        #expect(Self.oslo.period(at: beforeSwitch).label == "CET")
        #expect(Self.oslo.period(at: atSwitch).label == "CEST")
        #expect(Self.oslo.period(at: UTCTimestamp(millisecondsSince1970: 0)).label == "CET", "the first covers the past")
        #expect(Self.oslo.period(at: UTCTimestamp(millisecondsSince1970: 1_800_000_000_000)).offset == 3600)
    }

    @Test func theWallClockIsLocal() {
        // 2026-05-02 23:10 UTC is 01:10 on 3 May in Oslo (summer time).
        let late = Self.oslo.wallClock(UTCTimestamp(millisecondsSince1970: 1_777_763_400_000))
        #expect(late.date == CivilDate(year: 2026, month: 5, day: 3))
        #expect(late.millisecondOfDay == 4_200_000)
        #expect(Self.oslo.isUTC == false && DisplayZone.utc.isUTC)
    }

    @Test func anOffsetWithoutANameIsSaidAsAnOffset() {
        #expect(DisplayZone.label(offset: 0) == "UTC")
        #expect(DisplayZone.label(offset: 19_800) == "UTC+05:30")
        #expect(DisplayZone.label(offset: -14_400) == "UTC-04:00")
        #expect(DisplayZone.label(offset: 45_900) == "UTC+12:45")
    }
}
