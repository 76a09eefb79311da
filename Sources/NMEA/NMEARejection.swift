/// A line the engine refused, with where it was and why: what `pacer nmea decode --explain`
/// prints, and what the device logs when a receiver sends rubbish.
public struct NMEARejection: Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case badChecksum
        /// No `*hh` from a receiver that sends checksums.
        case missingChecksum
        /// A known sentence whose fields do not parse (time, position, date or quality).
        case malformedFields
        /// A new `$` arrived before the line ended.
        case cutShort
        /// A control, NUL or 8-bit byte inside the sentence.
        case corrupted(byte: UInt8)
        /// Longer than `NMEAFramer.maximumLineLength`.
        case overlong
    }

    /// 1-based line number in the stream (counting line feeds outside binary packets).
    public var line: Int
    public var reason: Reason
    /// The start of the refused line, printable ASCII only, at most 100 characters.
    public var text: String

    public init(line: Int, reason: Reason, text: String) {
        self.line = line
        self.reason = reason
        self.text = text
    }

    public var description: String {
        let why = switch reason {
        case .badChecksum: "bad checksum"
        case .missingChecksum: "no checksum, from a receiver that sends them"
        case .malformedFields: "malformed fields"
        case .cutShort: "cut short by a new sentence"
        case .corrupted(let byte): "corrupted by byte 0x" + String(byte, radix: 16, uppercase: true)
        case .overlong: "longer than \(NMEAFramer.maximumLineLength) bytes"
        }
        return "line \(line): \(why): \(text)"
    }

    /// The printable start of a line, for messages.
    static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes.prefix(100).filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
    }
}
