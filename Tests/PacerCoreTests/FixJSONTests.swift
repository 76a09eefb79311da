import PacerCore
import Testing

@Suite("Fix JSON")
struct FixJSONTests {
    static let time = UTCTimestamp(millisecondsSince1970: 1_275_576_763_000)
    static let position = GeoPoint(latitude: 34.03294, longitude: -117.7471233)

    private func json(_ fix: Fix) -> String {
        var bytes: [UInt8] = []
        fix.appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func fullFix() {
        let fix = Fix(
            time: Self.time, position: Self.position, altitude: 234.7, speed: 0.0, course: 119.27,
            mode: .threeD, quality: .gps, hdop: 0.9, satellitesUsed: 8, satellitesInView: 11)
        #expect(json(fix)
            == #"{"time":"2010-06-03T14:52:43.000Z","lat":34.03294,"lon":-117.7471233,"alt":234.7,"speed":0.0,"track":119.27,"mode":3}"#)
    }

    @Test func unknownMembersAreLeftOut() {
        let fix = Fix(time: Self.time, position: Self.position, mode: .twoD)
        #expect(json(fix) == #"{"time":"2010-06-03T14:52:43.000Z","lat":34.03294,"lon":-117.7471233,"mode":2}"#)
    }

    @Test func onlySpeedKnown() {
        let fix = Fix(time: Self.time, position: Self.position, speed: 5.144444444444445, mode: .twoD)
        #expect(json(fix)
            == #"{"time":"2010-06-03T14:52:43.000Z","lat":34.03294,"lon":-117.7471233,"speed":5.144,"mode":2}"#)
    }

    @Test func appendsToExistingBytes() {
        var bytes = Array("[".utf8)
        Fix(time: Self.time, position: GeoPoint(latitude: -0.5, longitude: 0.25), mode: .twoD).appendJSON(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self)
            == #"[{"time":"2010-06-03T14:52:43.000Z","lat":-0.5,"lon":0.25,"mode":2}"#)
    }
}
