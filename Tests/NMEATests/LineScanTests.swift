import NMEA
import Testing
import TestSupport

/// The framer reads each line once: its search for the line's end also XORs the checksum and
/// notes the commas (a line lying in one read). A line gathered across reads is scanned again
/// whole. Both must give what the line parser gives on its own, whatever the layout.
@Suite("One pass over each line")
struct LineScanTests {
    /// Lines whose commas, `*` and spaces fall at every place of an eight-byte word.
    static let lines: [String] = [
        nmea("GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000"),
        nmea("GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D"),
        nmea("GPRMC,202641.000,A,4404.1306,N,12118.8515,W,+0.03,225.97,130415,,,D") + "   ",
        nmea("GPGSV,3,1,12,09,88,089,31,07,60,281,44,23,55,123,33,10,44,274,32,1"),
        nmea("GPGSV,1,1,04" + String(repeating: ",1", count: 45)),  // past the 40 fields kept
        nmea("GPVTG,,,,,,,,,,"),
        lowercaseChecksum(nmea("GPVTG,225.97,T,,M,0.03,N,0.05,K,D")),
        nmea("GPTXT,01,01,02,a*b,c"),
        nmea("GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31"),
        wrongChecksum(nmea("GPGGA,202642.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000")),
        "$GPGLL,4404.1306,N,12118.8515,W,202643.000,A,A",
        "$GPGLL,4404.1306,N,12118.8515,W,202644.000,A,A*",
        nmea("GPZDA,202645.000,13,04,2015,,"),
        nmea("GPRMC,202646.000,A,4404.13x6,N,12118.8515,W,0.03,225.97,130415,,,D"),
        nmea("PGRME,15.0,M,45.0,M,25.0,M"),
        nmea("GP,1,2,3"),
    ]

    @Test func theScanReadsEveryLineAsTheWholeLineParserDoes() {
        let bytes = recording(Self.lines)
        let whole = decode(bytes)
        #expect(whole.statistics.sentences == 9)
        #expect(whole.statistics.badChecksum >= 1)
        #expect(whole.statistics.malformed >= 1)
        #expect(!whole.fixes.isEmpty)
        // A byte a read: every line is gathered across reads and scanned again whole.
        #expect(decode(chunks: chunked(bytes, sizes: [1])) == whole)
        for seed in UInt64(1)...20 {
            #expect(decode(chunks: randomlyChunked(bytes, seed: seed)) == whole)
        }
        // And each line's verdict, one line at a time, matches the line parser's.
        for line in Self.lines {
            let s = decode(recording([line]), checksumPolicy: .require).statistics
            switch NMEALineParser.parse(line.trimmingSuffix(" ")) {
            case .sentence: #expect(s.sentences == 1, "\(line)")
            case .proprietary, .unknown: #expect(s.skipped == 1, "\(line)")
            case .badChecksum: #expect(s.badChecksum == 1, "\(line)")
            case .missingChecksum: #expect(s.missingChecksum == 1, "\(line)")
            case .malformed: #expect(s.malformed == 1, "\(line)")
            }
        }
    }
}

private func lowercaseChecksum(_ line: String) -> String {
    String(line.dropLast(2)) + line.suffix(2).lowercased()
}

private func wrongChecksum(_ line: String) -> String {
    String(line.dropLast()) + (line.last == "0" ? "1" : "0")
}

extension String {
    fileprivate func trimmingSuffix(_ c: Character) -> String {
        var s = self
        while s.last == c { s.removeLast() }
        return s
    }
}
