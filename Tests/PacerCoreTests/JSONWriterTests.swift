import Foundation
import PacerCore
import Testing

/// The one JSON writer: what it escapes, how it writes numbers, nesting in both layouts, and
/// that it refuses a key given twice. Texts are read back with Foundation's JSON reader.
@Suite("JSON writer")
struct JSONWriterTests {
    private func string(_ s: String) -> String {
        var out: [UInt8] = []
        JSONValue.writeString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func readBack(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test func quotesAndBackslashes() throws {
        #expect(string(#"say "hi" \ C:\dir\"#) == #""say \"hi\" \\ C:\\dir\\""#)
        #expect(string("/") == #""/""#)  // a slash needs no escape
        #expect(try readBack(string(#"a"b\c"#)) as? String == #"a"b\c"#)
    }

    @Test func controlCharacters() throws {
        #expect(string("a\nb\rc\td") == #""a\nb\rc\td""#)
        #expect(string("\u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F}") == #""\u0000\u0001\u0008\u000c\u001b\u001f""#)
        // Every control character, one by one: escaped, and read back as itself.
        for code in 0..<0x20 {
            let s = String(UnicodeScalar(UInt8(code)))
            let written = string(s)
            #expect(written.utf8.allSatisfy { $0 >= 0x20 }, "U+\(code): \(written)")
            #expect(try readBack(written) as? String == s, "U+\(code)")
        }
        // DEL and the two JavaScript line ends are escaped too: a line stays one line anywhere.
        #expect(string("\u{7F}\u{2028}\u{2029}") == #""\u007f\u2028\u2029""#)
    }

    @Test func nonASCIIStaysUTF8() throws {
        let text = "Café — 日本 🚰 \u{85}\u{A0}"
        let written = string(text)
        #expect(written == "\"" + text + "\"")
        #expect(try readBack(written) as? String == text)
        #expect(string("e\u{301}") == "\"e\u{301}\"")  // combining marks kept, not normalised
    }

    @Test func everythingNastyReadsBackUnchanged() throws {
        let nasty = "Water \"🚰\" \\ tab\there\nnew line\r\u{0}\u{1}\u{1F}\u{7F} Café — \u{2028}\u{2029} 日本"
        let line = JSONValue.object([("name", .text(nasty))]).compact
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{2028}"))
        let object = try #require(try readBack(line) as? [String: Any])
        #expect(object["name"] as? String == nasty)
    }

    @Test func numbers() {
        func text(_ v: JSONValue) -> String { v.compact }
        #expect(text(.int(0)) == "0")
        #expect(text(.int(-3)) == "-3")
        #expect(text(.int(.max)) == "9223372036854775807")
        #expect(text(.int(.min)) == "-9223372036854775808")
        #expect(text(.number(2.5, places: 2)) == "2.5")
        #expect(text(.number(10_000, places: 3)) == "10000.0")
        #expect(text(.number(0.125, places: 3)) == "0.125")
        #expect(text(.number(0.0625, places: 3)) == "0.063")  // a half rounded away from zero
        #expect(text(.number(-0.0625, places: 3)) == "-0.063")
        #expect(text(.number(-117.7471233, places: 7)) == "-117.7471233")
        #expect(text(.number(-0.00004, places: 3)) == "0.0")  // no "-0.0"
        #expect(text(.number(48.11730001, places: 9)) == "48.11730001")
        #expect(text(.number(.nan, places: 1)) == "null")
        #expect(text(.number(.infinity, places: 1)) == "null")
        #expect(text(.number(-.infinity, places: 3)) == "null")
        #expect(text(.number(1e300, places: 1)) == "null")
        #expect(text(.bool(true)) == "true" && text(.bool(false)) == "false" && text(.null) == "null")
    }

    static let nested: JSONValue = .object([
        ("name", .text("run")), ("band_kmh", .array([.number(10, places: 2), .number(11.5, places: 2)])),
        ("next", .object([("name", .text("Bridge")), ("distance_m", .number(250.04, places: 1))])),
        ("runs", .array([.object([("from_s", .number(0, places: 3))]), .object([])])),
        ("empty", .array([])), ("none", .null),
    ])

    @Test func nestingCompactKeepsTheOrderGiven() throws {
        #expect(Self.nested.compact == #"{"name":"run","band_kmh":[10.0,11.5],"next":{"name":"Bridge","distance_m":250.0},"#
                + #""runs":[{"from_s":0.0},{}],"empty":[],"none":null}"#)
        let object = try #require(try readBack(Self.nested.compact) as? [String: Any])
        #expect((object["next"] as? [String: Any])?["distance_m"] as? Double == 250.0)
        #expect((object["runs"] as? [Any])?.count == 2)
    }

    @Test func nestingIndented() throws {
        #expect(Self.nested.indented == """
            {
              "name": "run",
              "band_kmh": [10.0, 11.5],
              "next": {
                "name": "Bridge",
                "distance_m": 250.0
              },
              "runs": [
                {
                  "from_s": 0.0
                },
                {}
              ],
              "empty": [],
              "none": null
            }
            """)
        #expect(try readBack(Self.nested.indented) is [String: Any])
        #expect(JSONValue.object([]).indented == "{}")
        #expect(JSONValue.text("a\"b").indented == #""a\"b""#)
    }

    @Test func buildingAnObject() {
        var object: JSONObject = ["b": .int(2), "a": .int(1)]  // a dictionary literal keeps its order
        object.add("c", .null)
        object.add(contentsOf: [("e", .bool(true)), ("d", .text("x"))])
        #expect(object.members.map(\.key) == ["b", "a", "c", "e", "d"])
        #expect(object.contains("e") && !object.contains("z"))
        #expect(object.count == 5)
        #expect(object.compact == #"{"b":2,"a":1,"c":null,"e":true,"d":"x"}"#)
        var bytes = Array("[".utf8)
        object.write(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "[" + object.compact)
        #expect(JSONObject().isEmpty && JSONObject().compact == "{}")
        // The same key in two objects, or nested, is not a key given twice.
        #expect(JSONValue.object([("a", .object([("a", .int(1))]))]).compact == #"{"a":{"a":1}}"#)
    }

    // A key given twice is refused, however the object is built (each in a child process:
    // the refusal is a precondition).

    @Test func addingAKeyTwiceIsRefused() async {
        await #expect(processExitsWith: .failure) {
            var object: JSONObject = [("distance_m", .number(1, places: 1))]
            object.add("distance_m", .number(2, places: 1))
        }
    }

    @Test func aLiteralWithAKeyTwiceIsRefused() async {
        await #expect(processExitsWith: .failure) {
            let object: JSONObject = [("a", .int(1)), ("b", .int(2)), ("a", .int(3))]
            _ = object.compact
        }
        await #expect(processExitsWith: .failure) {
            let object: JSONObject = ["a": .int(1), "a": .int(2)]
            _ = object.compact
        }
    }

    @Test func fieldsWithAKeyTwiceAreRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = JSONObject([("x", .int(1)), ("y", .int(2)), ("x", .int(1))])
        }
        await #expect(processExitsWith: .failure) {
            var object: JSONObject = [("event", .text("cue"))]
            object.add(contentsOf: [("cue", .text("go")), ("event", .text("again"))])
        }
    }

    @Test func keysAreComparedAsSwiftComparesText() async {
        let object: JSONObject = [("a", .int(1)), ("A", .int(2)), ("é", .int(3)), ("e", .int(4))]
        #expect(object.count == 4)
        // U+00E9 and e + U+0301 are one key to a Swift reader's dictionary: refused too.
        await #expect(processExitsWith: .failure) {
            _ = JSONObject([("\u{E9}", .int(1)), ("e\u{301}", .int(2))])
        }
    }
}
