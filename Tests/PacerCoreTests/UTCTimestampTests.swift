import PacerCore
import Testing

@Suite("UTCTimestamp")
struct UTCTimestampTests {
    @Test(arguments: [
        (Int64(1_275_576_763_000), "2010-06-03T14:52:43.000Z"),
        (0, "1970-01-01T00:00:00.000Z"),
        (951_782_400_123, "2000-02-29T00:00:00.123Z"),
        (946_684_799_999, "1999-12-31T23:59:59.999Z"),
        (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
        // Before 1970.
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_001, "1969-12-30T23:59:59.999Z"),
        (-2_208_988_800_000, "1900-01-01T00:00:00.000Z"),
    ])
    func iso8601(_ milliseconds: Int64, _ expected: String) {
        let time = UTCTimestamp(millisecondsSince1970: milliseconds)
        #expect(time.iso8601 == expected)
        #expect(time.description == expected)
    }

    @Test func appendsISO8601ToExistingBytes() {
        var bytes = Array("t=".utf8)
        UTCTimestamp(millisecondsSince1970: 1_275_576_763_042).appendISO8601(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "t=2010-06-03T14:52:43.042Z")
    }

    @Test func buildsFromDateAndTimeOfDay() throws {
        let date = try #require(CivilDate(year: 2010, month: 6, day: 3))
        let time = UTCTimestamp(date: date, millisecondOfDay: 53_563_000)
        #expect(time.millisecondsSince1970 == 1_275_576_763_000)
        #expect(time.date == date)
        #expect(time.millisecondOfDay == 53_563_000)
    }

    @Test func splitsNegativeTimestampIntoDateAndTimeOfDay() {
        let time = UTCTimestamp(millisecondsSince1970: -1)
        #expect(time.date == CivilDate(year: 1969, month: 12, day: 31))
        #expect(time.millisecondOfDay == 86_399_999)
    }

    @Test func ordersByTime() {
        #expect(UTCTimestamp(millisecondsSince1970: -5) < UTCTimestamp(millisecondsSince1970: 3))
        #expect(!(UTCTimestamp(millisecondsSince1970: 3) < UTCTimestamp(millisecondsSince1970: 3)))
    }
}
