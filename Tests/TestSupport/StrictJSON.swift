/// A strict reading of one JSON text that reports every object key given twice, which
/// Foundation's reader (and most others) silently resolves by keeping the last value. The
/// event lines, events.jsonl and summary.json must never carry one (a `waypoint-ahead` line
/// once had `distance_m` twice: the waypoint's, then the runner's).
public enum StrictJSON {
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// The keys that occur twice in one object, as `path.key`; empty when there are none.
    public static func duplicateKeys(_ text: String) throws -> [String] {
        var reader = Reader(bytes: Array(text.utf8))
        var found: [String] = []
        try reader.value(path: "$", found: &found)
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { throw Malformed(description: "text after the value at \(reader.index)") }
        return found
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else {
                throw Malformed(description: "expected '\(Character(UnicodeScalar(byte)))' at \(index)")
            }
            index += 1
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.count else { throw Malformed(description: "unterminated string at \(start)") }
            defer { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func value(path: String, found: inout [String]) throws {
            skipSpace()
            guard index < bytes.count else { throw Malformed(description: "no value at \(index)") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var keys = Set<String>()
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
                while true {
                    let key = try string()
                    if !keys.insert(key).inserted { found.append("\(path).\(key)") }
                    try expect(UInt8(ascii: ":"))
                    try value(path: "\(path).\(key)", found: &found)
                    skipSpace()
                    guard index < bytes.count else { throw Malformed(description: "unterminated object") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw Malformed(description: "expected ',' or '}' at \(index - 1)") }
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
                var n = 0
                while true {
                    try value(path: "\(path)[\(n)]", found: &found)
                    n += 1
                    skipSpace()
                    guard index < bytes.count else { throw Malformed(description: "unterminated array") }
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return }
                    guard bytes[index - 1] == UInt8(ascii: ",") else { throw Malformed(description: "expected ',' or ']' at \(index - 1)") }
                }
            case UInt8(ascii: "\""):
                _ = try string()
            default:   // a number, true, false or null
                let start = index
                while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
                guard index > start else { throw Malformed(description: "no value at \(start)") }
            }
        }
    }
}
