import NMEA
import PacerCore
import TestSupport
import Testing

// How the epoch assembler dates a cycle: RMC's two-digit year, ZDA's four-digit one,
// midnight for cycles without a date, and the century boundary.

@Suite("Epoch dates")
struct EpochDateTests {
    static func rmc(_ time: String, _ date: String) -> String {
        nmea("GPRMC,\(time),A,4807.038,N,01131.000,E,022.4,084.4,\(date),003.1,W")
    }

    static func gga(_ time: String) -> String {
        nmea("GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    static func zda(_ time: String, _ day: Int, _ month: Int, _ year: Int) -> String {
        nmea("GPZDA,\(time),\(day),\(month),\(year),00,00")
    }

    @Test(arguments: [("94", "1994"), ("80", "1980"), ("99", "1999"), ("00", "2000"), ("15", "2015"), ("79", "2079")])
    func twoDigitYearWithoutZDA(_ yy: String, _ year: String) {
        #expect(timeline(decode([Self.rmc("123519", "0101\(yy)")])) == ["fix \(year)-01-01T12:35:19.000Z"])
    }

    @Test func zdaGivesTheYear() {
        let decoded = decode([Self.zda("202640.000", 13, 4, 2015), Self.gga("202640.000")])
        #expect(timeline(decoded) == ["fix 2015-04-13T20:26:40.000Z"])
    }

    @Test func zdaYearPlacesTheCenturyOfLaterRMC() {
        // 85 alone would be 1985; after a ZDA in 2084 it is the nearest, 2085.
        let decoded = decode([Self.zda("120000", 1, 6, 2084), Self.gga("120000"), Self.rmc("120001", "010685")])
        #expect(timeline(decoded) == ["fix 2084-06-01T12:00:00.000Z", "fix 2085-06-01T12:00:01.000Z"])
    }

    @Test func ggaOnlyCyclesAfterMidnightTakeTheNextDay() {
        let decoded = decode([
            Self.rmc("235959", "311299"), Self.gga("235959"),
            Self.gga("000000"),
            Self.gga("000001"),
        ])
        #expect(timeline(decoded) == [
            "fix 1999-12-31T23:59:59.000Z", "fix 2000-01-01T00:00:00.000Z", "fix 2000-01-01T00:00:01.000Z",
        ])
    }

    @Test func ggaOnlyCyclesBeforeMidnightKeepTheDate() {
        let decoded = decode([Self.rmc("120000", "150610"), Self.gga("120001"), Self.gga("235959")])
        #expect(timeline(decoded) == [
            "fix 2010-06-15T12:00:00.000Z", "fix 2010-06-15T12:00:01.000Z", "fix 2010-06-15T23:59:59.000Z",
        ])
    }

    @Test func rmcAfterZDAIn1999CrossesIntoYear2000() {
        let decoded = decode([Self.zda("235959", 31, 12, 1999), Self.gga("235959"), Self.rmc("000000", "010100")])
        #expect(timeline(decoded) == ["fix 1999-12-31T23:59:59.000Z", "fix 2000-01-01T00:00:00.000Z"])
    }

    @Test func rmcAfterZDAIn2099CrossesIntoYear2100() {
        let decoded = decode([Self.zda("235959", 31, 12, 2099), Self.rmc("235959", "311299"), Self.rmc("000000", "010100")])
        #expect(timeline(decoded) == ["fix 2099-12-31T23:59:59.000Z", "fix 2100-01-01T00:00:00.000Z"])
    }

    @Test func rmcAlone1999To2000() {
        let decoded = decode([Self.rmc("235959", "311299"), Self.rmc("000000", "010100")])
        #expect(timeline(decoded) == ["fix 1999-12-31T23:59:59.000Z", "fix 2000-01-01T00:00:00.000Z"])
    }

    @Test func leapDayIsValid() {
        #expect(timeline(decode([Self.rmc("123519", "290224")])) == ["fix 2024-02-29T12:35:19.000Z"])
    }

    @Test func leapDayOfACommonYearGivesNoDate() {
        let decoded = decode([Self.rmc("123519", "290223")])
        #expect(decoded.epochs == [.noFix(nil)])
        #expect(decoded.statistics.sentences == 1)
    }

    @Test func cyclesWithoutAnyDateHaveNoTime() {
        let decoded = decode([Self.gga("123519"), Self.gga("123520")])
        #expect(decoded.epochs == [.noFix(nil), .noFix(nil)])
    }

    /// Found by `scripts/fuzz.sh nmea`: a ZDA with the year 320222670 trapped the decoder (the
    /// date's milliseconds overflowed Int64), so `pacer nmea decode` died, and so would the
    /// device on such a line from its receiver. The input as found, fed in the 5-byte chunks
    /// its first byte chose; the ZDA's date is not used, and the GGA after it has no date.
    @Test func aZDAYearBeyondFourDigitsIsNotADate() {
        let found: [UInt8] = Array("$GNZDA,235610.00,11,2,320222670,00,\n$GNGGA,000353.,2,N,04,E,1,22,,26".utf8)
        let decoded = decode(chunks: chunked(found, sizes: [5]))
        #expect(timeline(decoded).allSatisfy { !$0.contains("320222670") }, "\(timeline(decoded))")
        #expect(decoded.epochs.allSatisfy { if case .fix = $0 { false } else { true } })

        #expect(timeline(decode([Self.zda("120000", 31, 12, 9999), Self.gga("120000")])) == ["fix 9999-12-31T12:00:00.000Z"])
        #expect(timeline(decode([Self.zda("120000", 1, 1, 10000), Self.gga("120000")])) == ["noFix"])
    }
}
