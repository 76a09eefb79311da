import NMEA
import Testing

// `NMEAFields`: the number, time, coordinate and date scanners every sentence parser uses.

/// Runs `body` on the fields of `text` (a sentence body without `$` and checksum).
private func withFields<R>(_ text: String, _ body: (NMEAFields) -> R) -> R {
    Array(text.utf8).withUnsafeBufferPointer { body(NMEAFields(body: $0)) }
}

private func decimal(_ text: String) -> Double? {
    Array(text.utf8).withUnsafeBufferPointer { NMEAFields.parseDecimal($0) }
}

@Suite("Field scanner")
struct FieldScannerTests {
    @Test(arguments: [
        ("1.", 1.0), (".5", 0.5), ("-19.6", -19.6), ("+3", 3.0), ("0", 0.0), ("1127.70", 1127.7),
        ("-.5", -0.5), ("0.98", 0.98), ("4916.45", 4916.45), ("123456789012", 123_456_789_012.0),
        ("00012.5", 12.5),
    ])
    func parsesDecimal(_ text: String, _ expected: Double) {
        #expect(decimal(text) == expected)
    }

    @Test(arguments: ["", "-", "+", ".", "1.2.3", "1e5", "--1", " 1", "1 ", "0x1F", "1,5", "N", "1234567890123"])
    func refusesMalformedDecimal(_ text: String) {
        #expect(decimal(text) == nil)
    }

    @Test func manyFractionDigitsDoNotOverflow() throws {
        let tiny = try #require(decimal("0.0000000000000000000001"))
        #expect(tiny >= 0 && tiny < 1e-17)
        let long = try #require(decimal("12.345678901234567890123456789"))
        #expect(abs(long - 12.345678901234567) < 1e-12)
        let wide = try #require(decimal("99999999999.99999999999"))
        #expect(abs(wide - 99_999_999_999.999_999) < 1e-3)
    }

    @Test func integerFieldAndFieldCount() {
        withFields("GPGSV,3,1,12,,x") { f in
            #expect(f.count == 6)
            #expect(f.integer(1) == 3)
            #expect(f.integer(3) == 12)
            #expect(f.integer(4) == nil)
            #expect(f.isEmpty(4))
            #expect(f.integer(5) == nil)
            #expect(f.integer(6) == nil)
            #expect(f.isEmpty(6))
        }
    }

    @Test func fieldsPastCapacityAreIgnored() {
        let text = Array(repeating: "7", count: NMEAFields.capacity + 5).joined(separator: ",")
        withFields(text) { f in
            #expect(f.count == NMEAFields.capacity)
            #expect(f.integer(NMEAFields.capacity - 1) == 7)
            #expect(f.integer(NMEAFields.capacity) == nil)
        }
    }

    @Test(arguments: [
        ("123519", Int32(45_319_000)), ("123519.5", 45_319_500), ("123519.25", 45_319_250),
        ("123519.123456", 45_319_123), ("123519.", 45_319_000), ("000000", 0), ("000000.00", 0),
        ("235959.999", 86_399_999),
        // A leap second.
        ("235960", 86_400_000),
    ])
    func parsesTimeOfDay(_ text: String, _ expected: Int32) {
        #expect(withFields(text) { $0.timeOfDay(0) } == expected)
    }

    @Test(arguments: ["246000", "240000", "236000", "235961", "12351", "", "12a519", "123519x", "123519.5x", "-12351"])
    func refusesMalformedTimeOfDay(_ text: String) {
        #expect(withFields(text) { $0.timeOfDay(0) } == nil)
    }

    @Test(arguments: [
        ("4916.45,N", true, 49.274166666667), ("4916.45,S", true, -49.274166666667),
        ("12311.12,W", false, -123.185333333333), ("12311.12,E", false, 123.185333333333),
        ("0000.0000,N", true, 0.0), ("9000.00,S", true, -90.0), ("18000.00,W", false, -180.0),
        ("4807.038,N", true, 48.1173), ("00833.915187,E", false, 8.565253116667),
    ])
    func parsesCoordinate(_ text: String, _ isLatitude: Bool, _ expected: Double) throws {
        let value = try #require(withFields(text) { $0.coordinate(0, isLatitude: isLatitude) })
        #expect(abs(value - expected) < 1e-9)
    }

    @Test(arguments: [
        ("9100.00,N", true), ("9000.01,N", true), ("18000.01,E", false), ("4960.00,N", true),
        ("4916.45,E", true), ("12311.12,N", false), ("4916.45,X", true), ("4916.45,", true),
        ("4916.45,NN", true), ("-4916.45,N", true), (",N", true), ("49I6.45,N", true),
    ])
    func refusesBadCoordinate(_ text: String, _ isLatitude: Bool) {
        #expect(withFields(text) { $0.coordinate(0, isLatitude: isLatitude) } == nil)
    }

    @Test(arguments: [
        ("191194", ShortDate(day: 19, month: 11, yearOfCentury: 94)),
        ("290223", ShortDate(day: 29, month: 2, yearOfCentury: 23)),
        ("010100", ShortDate(day: 1, month: 1, yearOfCentury: 0)),
    ])
    func parsesShortDate(_ text: String, _ expected: ShortDate) {
        #expect(withFields(text) { $0.shortDate(0) } == expected)
    }

    @Test(arguments: ["321194", "001194", "191394", "190094", "1911941", "19119", "19x194"])
    func refusesBadShortDate(_ text: String) {
        #expect(withFields(text) { $0.shortDate(0) } == nil)
    }
}
