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

    /// The direct writer gives the JSON writer's bytes: signs, rounding up into the next
    /// digit, trailing zeros, values that are not finite, years before 1000.
    @Test func sameBytesAsTheJSONWriter() {
        let values: [Double] = [
            0, -0.0, 0.5, -0.5, 1e-10, -1e-10, 0.00004999, 0.00005, 9.99999999995, -9.99999999995,
            123.45678, -87.068079667, 179.9999999999, 8_999_999_999, 9.1e9, .nan, .infinity, -.infinity,
        ]
        let times = [UTCTimestamp(millisecondsSince1970: 1_275_576_763_042), UTCTimestamp(millisecondsSince1970: -30_000_000_000_000)]
        for time in times {
            for (k, v) in values.enumerated() {
                let other = values[(k + 5) % values.count]
                let fix = Fix(
                    time: time, position: GeoPoint(latitude: v, longitude: other), altitude: k % 3 == 0 ? nil : v,
                    speed: k % 4 == 1 ? nil : other, course: k % 5 == 2 ? nil : v, mode: k % 2 == 0 ? .twoD : .threeD)
                var object: JSONObject = [
                    ("time", .text(fix.time.iso8601)), ("lat", .number(fix.position.latitude, places: 9)),
                    ("lon", .number(fix.position.longitude, places: 9)),
                ]
                if let a = fix.altitude { object.add("alt", .number(a, places: 4)) }
                if let s = fix.speed { object.add("speed", .number(s, places: 3)) }
                if let c = fix.course { object.add("track", .number(c, places: 4)) }
                object.add("mode", .int(fix.mode.rawValue))
                var expected: [UInt8] = []
                object.write(to: &expected)
                #expect(json(fix) == String(decoding: expected, as: UTF8.self))
                #expect(expected.count <= Fix.maximumJSONLength)
            }
        }
    }
}
