/// The one JSON writer: every JSON text Pacer writes goes through it — a scenario's
/// `events.jsonl` and `summary.json`, the lines `pacer ctl watch` streams, and every `--json`
/// output. Build a value, then write it compact (one line: events, watch lines) or indented
/// (documents a person diffs: `summary.json`).
///
///     var fix: JSONObject = [("lat", .number(48.1173, places: 7)), ("name", .text("Water"))]
///     fix.add("ok", .bool(true))
///     JSONValue.object(fix).compact   // {"lat":48.1173,"name":"Water","ok":true}
///
/// - Keys stay in the order they were added.
/// - A key given twice in one object is a programming error, refused with a precondition
///   (most JSON readers silently keep only the last value; a `waypoint-ahead` line once lost
///   the waypoint's `distance_m` that way).
/// - Strings (RFC 8259 §7): `"` and `\` escaped; line feed, carriage return and tab as `\n`,
///   `\r`, `\t`; every other control character (U+0000–U+001F), DEL (U+007F) and U+2028 and
///   U+2029 (which some JavaScript readers take for line ends) as `\u00XX`; all other text
///   stays UTF-8. So a compact text never holds a line break of its own.
/// - Numbers are written the way the goldens have them: an integer as it is, a real number
///   rounded to a fixed count of fraction digits (`places`, 1…9), trailing zeros trimmed but
///   one kept (`2.5`, `0.0`, `-117.7471233`), the same bytes on every machine; a real number
///   that is not finite (or beyond ±9e9) is written `null`.
public indirect enum JSONValue: Sendable {
    case text(String)
    case int(Int)
    /// Rounded to `places` fraction digits (1…9), trailing zeros trimmed; not finite: `null`.
    case number(Double, places: Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object(JSONObject)

    /// The value as JSON on one line, without spaces.
    public var compact: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The value as an indented document (see `writeIndented`), without a final newline.
    public var indented: String {
        var out: [UInt8] = []
        writeIndented(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value as JSON on one line, without spaces: `{"a":[1,2],"b":"x"}`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            object.write(to: &out)
        default:
            writeScalar(to: &out)
        }
    }

    /// Appends the value as a document a person reads and diffs line by line: two spaces of
    /// indentation a level, `"key": value`, one member or item a line; an array of plain values
    /// (no objects or arrays in it) stays on one line, `[10.0, 11.5]`; an empty object or array
    /// is `{}` or `[]`. `indent` is the level's indentation in spaces, for a value nested in text
    /// written otherwise.
    public func writeIndented(to out: inout [UInt8], indent: Int = 0) {
        func newline(_ spaces: Int) {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: spaces))
        }
        switch self {
        case .object(let object):
            guard !object.isEmpty else { return out.append(contentsOf: "{}".utf8) }
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 2)
                JSONValue.writeString(member.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                member.value.writeIndented(to: &out, indent: indent + 2)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            guard !items.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            if items.allSatisfy(\.isPlain) {
                out.append(UInt8(ascii: "["))
                for (i, item) in items.enumerated() {
                    if i > 0 { out.append(contentsOf: ", ".utf8) }
                    item.writeScalar(to: &out)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 2)
                item.writeIndented(to: &out, indent: indent + 2)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        default:
            writeScalar(to: &out)
        }
    }

    /// Neither an object nor an array.
    public var isPlain: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    private func writeScalar(to out: inout [UInt8]) {
        switch self {
        case .text(let s): JSONValue.writeString(s, to: &out)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .number(let v, let places): out.appendDecimal(v, places: places)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array, .object: write(to: &out)
        }
    }

    /// Appends `s` as a JSON string, quotes included (see the type's documentation for what is
    /// escaped).
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append(contentsOf: #"\""#.utf8)
            case 0x5C: out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20, 0x7F, 0x2028, 0x2029:
                out.append(contentsOf: #"\u"#.utf8)
                for shift: UInt32 in [12, 8, 4, 0] { out.append(hexDigits[Int((scalar.value >> shift) & 0xF)]) }
            case 0x20..<0x80:
                out.append(UInt8(scalar.value))
            default:
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

/// A JSON object being built: its members in the order they were added, each key once.
/// Written from an array literal of pairs, `[("a", .int(1)), ("b", .null)]`, or a dictionary
/// literal, `["a": .int(1), "b": .null]` (the literal's order is kept); either refuses a key
/// given twice, as `add` does.
public struct JSONObject: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)] = []

    public init() {}

    /// An object with `members`, in their order. Precondition: no key given twice.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        for (key, value) in members { add(key, value) }
    }

    public init(arrayLiteral members: (String, JSONValue)...) {
        self.init(members)
    }

    public init(dictionaryLiteral members: (String, JSONValue)...) {
        self.init(members)
    }

    /// Adds a member after the others. Precondition: the object has no member `key` yet —
    /// a JSON reader would keep only one of the two values, and which one depends on the reader.
    /// Keys are compared as Swift compares text (canonical equivalence: `é` precomposed and `e`
    /// with a combining accent are one key), as a Swift reader's dictionary would.
    public mutating func add(_ key: String, _ value: JSONValue) {
        precondition(!contains(key), "JSON object: the key \"\(key)\" is given twice")
        members.append((key, value))
    }

    /// Adds `members` after the others, in their order (each key once, as `add`).
    public mutating func add(contentsOf members: some Sequence<(String, JSONValue)>) {
        for (key, value) in members { add(key, value) }
    }

    public func contains(_ key: String) -> Bool {
        members.contains { $0.key == key }
    }

    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    /// Appends the object as JSON on one line: `{"a":1,"b":null}`.
    public func write(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            member.value.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The object as JSON on one line.
    public var compact: String { JSONValue.object(self).compact }
}
