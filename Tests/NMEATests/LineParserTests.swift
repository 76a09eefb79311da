import NMEA
import PacerCore
import TestSupport
import Testing

// The validation layers of `NMEALineParser.parse(String)`: checksum, start character,
// address, then the sentence's own fields.

@Suite("Line parser")
struct LineParserTests {
    static let gga = "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"

    @Test func checksumHelperMatchesPublishedSentences() {
        #expect(nmea("GPRMC,081836,A,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E")
            == "$GPRMC,081836,A,3751.65,S,14507.36,E,000.0,360.0,130998,011.3,E*62")
        #expect(nmea("GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000")
            == "$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C")
    }

    @Test(arguments: [
        nmea("PGRME,15.0,M,45.0,M,25.0,M"),
        nmea("PUBX,00,081350.00,4717.113210,N,00833.915187,E,546.589,G3,2.1,2.0,0.007,77.52,0.007,,0.92,1.19,0.77,9,0,0"),
        nmea("PSRF103,00,01,00,01"),
    ])
    func proprietarySentencesAreSkipped(_ text: String) {
        #expect(NMEALineParser.parse(text) == .proprietary)
    }

    @Test(arguments: [
        nmea("GPTXT,01,01,02,u-blox ag - www.u-blox.com"),
        nmea("GPBOD,099.3,T,105.6,M,POINTB,POINTA"),
        nmea("AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0", start: "!"),
        nmea("GPrmc,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPRMCX,225446,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"),
    ])
    func unknownSentencesAreSkipped(_ text: String) {
        #expect(NMEALineParser.parse(text) == .unknown)
    }

    @Test func wrongChecksumDigits() {
        let wrong = checksum(Self.gga) == "00" ? "01" : "00"
        #expect(NMEALineParser.parse("$\(Self.gga)*\(wrong)") == .badChecksum)
    }

    @Test(arguments: ["*G1", "*1G", "*", "*4", "*-1", "* 1"])
    func malformedChecksumField(_ suffix: String) {
        #expect(NMEALineParser.parse("$\(Self.gga)\(suffix)") == .badChecksum)
    }

    @Test func checksumOfProprietarySentenceIsChecked() {
        let body = "PGRME,15.0,M,45.0,M,25.0,M"
        let wrong = checksum(body) == "00" ? "01" : "00"
        #expect(NMEALineParser.parse("$\(body)*\(wrong)") == .badChecksum)
    }

    @Test func lowercaseChecksumIsAccepted() throws {
        // A body whose checksum has a hex letter, so that lowercasing changes it.
        let body = "GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000"
        let upper = nmea(body)
        let lower = "$\(body)*\(checksum(body).lowercased())"
        try #require(upper != lower)
        #expect(NMEALineParser.parse(lower) == NMEALineParser.parse(upper))
        guard case .sentence(.gga) = NMEALineParser.parse(lower) else {
            Issue.record("lowercase checksum refused: \(NMEALineParser.parse(lower))")
            return
        }
    }

    @Test(arguments: [
        "$" + gga,
        "$PGRME,15.0,M,45.0,M,25.0,M",
        "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A",
    ])
    func missingChecksumIsRefusedWhenRequired(_ text: String) {
        #expect(NMEALineParser.parse(text) == .missingChecksum)
    }

    @Test(arguments: [" ", "   ", "  \r\n", "\r\n", "\n"])
    func trailingSpacesAndLineEndingsAreTolerated(_ suffix: String) throws {
        let plain = NMEALineParser.parse(nmea(Self.gga))
        guard case .sentence(.gga) = plain else {
            Issue.record("reference sentence not parsed: \(plain)")
            return
        }
        #expect(NMEALineParser.parse(nmea(Self.gga) + suffix) == plain)
    }

    @Test(arguments: [
        // Time of day out of range or not digits.
        nmea("GPRMC,25xxxx,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPRMC,250000,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPGGA,25xxxx,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GPGLL,4916.45,N,12311.12,W,2254xx,A"),
        nmea("GPZDA,25xxxx,13,04,2015,,"),
        // Minutes of 60 or more.
        nmea("GPRMC,225446,A,4960.00,N,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPGGA,123519,4807.038,N,01160.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        // Latitude beyond 90 degrees.
        nmea("GPGGA,123519,9100.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        // Garbled digits.
        nmea("GPRMC,225446,A,|2037.|72792,N,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPGGA,123519,2037.|72792,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GNGNS,014035.00,4332.6x262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,"),
        // Hemisphere X.
        nmea("GPRMC,225446,A,4916.45,X,12311.12,W,000.5,054.7,191194,020.3,E"),
        nmea("GPGGA,123519,4807.038,N,01131.000,X,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GPGLL,4916.45,X,12311.12,W,225444,A"),
        // Day 32, GGA quality not a digit, GSV message 4 of 3.
        nmea("GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7,321194,020.3,E"),
        nmea("GPGGA,123519,4807.038,N,01131.000,E,X,08,0.9,545.4,M,46.9,M,,"),
        nmea("GPGSV,3,4,12,09,88,089,31"),
        // Too few fields.
        nmea("GPRMC,225446,A,4916.45,N,12311.12,W,000.5,054.7"),
        nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9"),
        nmea("GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9"),
        nmea("GPGLL,4916.45,N,12311.12,W,225444"),
        nmea("GPVTG,054.7,T,034.4"),
        nmea("GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98"),
        nmea("GPGSV,3,1"),
        nmea("GPZDA,202640.000,13,04"),
    ])
    func malformedFieldsAreRefused(_ text: String) {
        #expect(NMEALineParser.parse(text) == .malformed)
    }

    /// The checksum is computed over bodies of every length (word-at-a-time loops have a
    /// tail), and a change to any one byte of the body is caught.
    @Test func checksumCoversEveryByteAtEveryLength() {
        var failures: [String] = []
        for length in 0..<40 {
            let body = "GPTXT," + String(String("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH").prefix(length))
            if NMEALineParser.parse(nmea(body)) != .unknown { failures.append("length \(length) refused") }
            var bytes = Array(nmea(body).utf8)
            for k in 1..<(bytes.count - 3) {
                bytes[k] ^= 0x01
                let verdict = String(decoding: bytes, as: UTF8.self)
                if NMEALineParser.parse(verdict) != .badChecksum { failures.append("length \(length) byte \(k) not caught") }
                bytes[k] ^= 0x01
            }
        }
        #expect(failures == [])
    }

    @Test func emptyLineIsMalformed() {
        #expect(NMEALineParser.parse("$") == .malformed)
    }

    /// `NMEAFields` keeps field offsets in 16 bits; a line longer than 65 535 bytes handed to
    /// the public parser must still get a verdict, not a trap. (Run in a child process.)
    @Test func veryLongLineDoesNotCrash() async {
        await #expect(processExitsWith: .success) {
            // Field 1 ends below 65 536 bytes, field 2 straddles it.
            let body = "GPRMC," + String(repeating: "1", count: 60_000) + "," + String(repeating: "A", count: 10_000)
                + ",4916.45,N,12311.12,W,000.5,054.7,191194,,"
            _ = NMEALineParser.parse(nmea(body))
        }
    }
}
