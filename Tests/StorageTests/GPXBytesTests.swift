import Foundation
import PacerCore
@testable import Storage
import Testing

/// The reader trims and parses text on the parser's UTF-8 bytes (issue 27); these check that
/// it reads what Foundation's `trimmingCharacters` and `Double(_:)` read before.
@Suite("GPX text on bytes")
struct GPXBytesTests {
    func onBytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// Bit for bit, -0 and all: the byte parser's fast path against `Double(_:)`, on numbers
    /// as GPX files write them and on what they should not.
    @Test func numbersOnBytesAreWhatDoubleReads() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let alphabet = Array("0123456789.-+eE")
        var texts = ["0", "-0", "+0", "-0.0", "0.", ".0", "5.", "-.5", "+.5", ".", "-", "+", "1e3", "1E-3", "999999999999999",
                     "9999999999999999", "0.000000000000001", "45.123456789", "-179.999999999", "123456789.123456",
                     "00000000000000012.5", "1..2", "1-2", "--1", "1e", "e1"]
        for _ in 0..<20_000 {
            var text = ""
            if next(3) == 0 { text.append(next(2) == 0 ? "-" : "+") }
            let digits = 1 + next(17)
            let point = next(digits + 2)
            for i in 0..<digits {
                if i == point { text.append(".") }
                text.append(alphabet[next(next(10) == 0 ? alphabet.count : 10)])
            }
            texts.append(text)
        }
        for text in texts {
            let expected = GPXReader.parseNumber(Substring(text))
            let read = onBytes(text) { GPXReader.parseNumber(bytes: $0) }
            #expect(read?.bitPattern == expected?.bitPattern, "\(text): \(String(describing: read)) != \(String(describing: expected))")
        }
    }

    /// Every character either set of Foundation's holds, and a few it does not, at either
    /// end and inside: the byte trimming leaves what `trimmingCharacters(in:)` leaves.
    @Test func trimmingOnBytesIsFoundations() {
        var scalars: [Unicode.Scalar] = []
        for v in [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x180E, 0x2028, 0x2029, 0x202F, 0x205F,
                  0x3000, 0xFEFF, 0x200C, 0x200D, 0x2060, 0xE9, 0x1F3C3] + Array(0x2000...0x200B) {
            scalars.append(Unicode.Scalar(v)!)
        }
        for a in scalars {
            for b in scalars {
                for inner in ["", "12.5", "x\(a)y"] {
                    let text = "\(a)\(b)\(inner)\(b)\(a)"
                    for (set, newlines) in [(CharacterSet.whitespaces, false), (.whitespacesAndNewlines, true)] {
                        let expected = text.trimmingCharacters(in: set)
                        let read = onBytes(text) { String(decoding: UnsafeBufferPointer(rebasing: $0[GPXReader.trimmed($0, newlines: newlines)]), as: UTF8.self) }
                        #expect(read == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) }) newlines: \(newlines)")
                    }
                }
            }
        }
    }

    /// Issue 38, case 3: a route's waypoint named with 100 kB, said at every approach, took the
    /// device to 1.28 GB. Names are kept to 100 characters, descriptions to 1000.
    @Test func longNamesAreCutWhereAPersonStopsReading() throws {
        let name = String(repeating: "Ü", count: 100_000)
        let document = try GPXReader.parse(Data(gpxDocument("""
            <wpt lat="45.5" lon="6.25"><name>\(name)</name><desc>\(name)</desc></wpt>
            """).utf8), file: "t.gpx")
        let point = try #require(document.waypoints.first)
        #expect(point.name == String(repeating: "Ü", count: 100))
        #expect(point.description?.count == 1000)
    }

    @Test func textAndAttributesAreTrimmedAsBefore() throws {
        let document = try GPXReader.parse(Data(gpxDocument("""
            <wpt lat="\t45.5\u{A0}" lon="\u{3000}6.25 "><ele>\u{2028}\u{2003}312.5\u{85}
            </ele><name>\u{200B} Col du Test\u{202F}</name><time>
              2024-05-01T07:30:00Z\u{2029}</time></wpt>
            """).utf8), file: "t.gpx")
        let point = try #require(document.waypoints.first)
        #expect(point.position == GeoPoint(latitude: 45.5, longitude: 6.25))
        #expect(point.altitude == 312.5)
        #expect(point.name == "Col du Test")
        #expect(point.time == GPXReader.parseTime("2024-05-01T07:30:00Z"))
    }

    /// A newline is not white space in an attribute (`.whitespaces`), as before; libxml2
    /// makes a written one a space, so only a character reference keeps it.
    @Test func aNewlineInACoordinateIsNotTrimmed() {
        #expect(throws: GPXError(file: "t.gpx", line: 3, reason: "<wpt> lat=\"45.5\n\" is not a number")) {
            try GPXReader.parse(Data(gpxDocument("<wpt lat=\"45.5&#10;\" lon=\"6\"/>").utf8), file: "t.gpx")
        }
        #expect(throws: Never.self) {
            try GPXReader.parse(Data(gpxDocument("<wpt lat=\"45.5\n\" lon=\"6\"/>").utf8), file: "t.gpx")
        }
    }

    /// Elements are GPX's by their namespace, whatever their prefix; attributes are read only
    /// without one (a `g:lat` is another attribute), as XMLParser's dictionary had them.
    @Test func prefixesAreReadByNamespace() throws {
        let namespaced = try GPXReader.parse(Data(gpxDocument("""
            <g:wpt xmlns:g="http://www.topografix.com/GPX/1/1" lat="1" lon="2"><g:name>A</g:name></g:wpt>
            """).utf8), file: "t.gpx")
        #expect(namespaced.waypoints.map(\.name) == ["A"])
        #expect(throws: GPXError(file: "t.gpx", line: 3, reason: "<wpt> without lat")) {
            try GPXReader.parse(Data(gpxDocument("""
                <wpt xmlns:g="http://www.topografix.com/GPX/1/1" g:lat="1" lon="2"/>
                """).utf8), file: "t.gpx")
        }
    }
}
