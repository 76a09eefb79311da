internal import CLibXML2
import Foundation
import PacerCore

/// Reads GPX 1.1 and 1.0 with libxml2's SAX2 parser (no tree in memory; see `SAXParser`),
/// streaming the file to it in chunks; a caller that stores points as they come (an import)
/// holds none of them.
///
/// Refused, with the line and the reason: a file that is not well-formed XML (truncated
/// included), one whose root element is not `gpx` in the GPX 1.1 or 1.0 namespace, or whose
/// `version` attribute is missing, another version or not the namespace's; a file that
/// declares entities in a DTD (see `Input`); a point without `lat` or `lon` or with one that
/// is not a number or out of range, an `ele` or `speed` that is not a finite number, a `time`
/// that is not an ISO 8601 date and time. Whether the points make sense together (speeds,
/// times, elevations) is `TrackPlausibility`'s to judge, not the format's.
public enum GPXReader {
    public static let namespaces = [
        "http://www.topografix.com/GPX/1/1": "1.1",
        "http://www.topografix.com/GPX/1/0": "1.0",
    ]

    /// The namespaces a point's `hr` is read in: Garmin's TrackPointExtension v1 (older
    /// watches, Strava's exports) and v2 (newer watches, Pacer's own), as C strings.
    static let heartRateNamespaces: [[UInt8]] = [
        "http://www.garmin.com/xmlschemas/TrackPointExtension/v1",
        "http://www.garmin.com/xmlschemas/TrackPointExtension/v2",
    ].map { Array($0.utf8) + [0] }

    /// The encodings a GPX file may declare: those libxml2 (under Foundation's parser) reads
    /// itself. It hands any other to iconv, and crashes on some of them: a file declaring
    /// UTF-7 with a NUL byte in it is a segmentation fault (found by `scripts/fuzz.sh gpx`).
    /// GPX writers write UTF-8.
    static let encodings: Set<String> = [
        "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "iso-8859-1", "iso_8859-1", "latin1", "us-ascii", "ascii",
    ]

    /// The first bytes of the encodings libxml2 detects on its own and hands to iconv (XML
    /// 1.0, appendix F): refused for the same reason as a declared one.
    static let iconvSignatures: [(bytes: [UInt8], name: String)] = [
        ([0x00, 0x00, 0x00, 0x3C], "UCS-4"), ([0x3C, 0x00, 0x00, 0x00], "UCS-4"),
        ([0x00, 0x00, 0xFE, 0xFF], "UCS-4"), ([0xFF, 0xFE, 0x00, 0x00], "UCS-4"),
        ([0x4C, 0x6F, 0xA7, 0x94], "EBCDIC"),
    ]

    /// The text of a file in UTF-16 (a byte-order mark, or `<` as its first 16-bit unit) as
    /// its 16-bit units; nil for any other file.
    static func utf16Units(_ data: Data) -> [UInt16]? {
        let bigEndian: Bool
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0x3C, 0x00]) {
            bigEndian = false
        } else if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0x00, 0x3C]) {
            bigEndian = true
        } else {
            return nil
        }
        var units: [UInt16] = []
        units.reserveCapacity(data.count / 2)
        var bytes = data.makeIterator()
        while let a = bytes.next(), let b = bytes.next() {
            units.append(bigEndian ? UInt16(a) << 8 | UInt16(b) : UInt16(b) << 8 | UInt16(a))
        }
        return units
    }

    /// The line of the first surrogate without its pair in UTF-16 text, or nil. libxml2's
    /// UTF-16 decoder reads past its buffer on one (`FF FE E3 DB DB FF`, found by
    /// `scripts/fuzz.sh gpx`): a segmentation fault.
    static func unpairedSurrogateLine(_ units: [UInt16]) -> Int? {
        var line = 1
        var i = 0
        while i < units.count {
            let u = units[i]
            if u == 0x0A { line += 1 }
            if (0xD800...0xDBFF).contains(u) {
                guard i + 1 < units.count, (0xDC00...0xDFFF).contains(units[i + 1]) else { return line }
                i += 2
                continue
            }
            if (0xDC00...0xDFFF).contains(u) { return line }
            i += 1
        }
        return nil
    }

    /// The line of the first processing instruction with a target and no data (`<?x?>`) in
    /// `units` (the file's bytes, or its UTF-16 units), or nil. Foundation's parser hands
    /// libxml2's null data pointer for it to `strlen`, a segmentation fault (found by
    /// `scripts/fuzz.sh gpx`), wherever it is in the document, so it is looked for before
    /// parsing. A comment or CDATA section holding one is refused too, which costs no real
    /// GPX file anything.
    static func emptyProcessingInstructionLine(_ units: [UInt16]) -> Int? {
        emptyProcessingInstructionLine(in: units)
    }

    /// The same over a file's bytes, in place: a 30 MB file is not copied to look at it.
    static func emptyProcessingInstructionLine(bytes data: Data) -> Int? {
        data.withUnsafeBytes { raw in emptyProcessingInstructionLine(in: raw.bindMemory(to: UInt8.self)) }
    }

    static func emptyProcessingInstructionLine<C: RandomAccessCollection>(in units: C) -> Int?
    where C.Element: FixedWidthInteger, C.Index == Int {
        let lt = C.Element(UInt8(ascii: "<")), question = C.Element(UInt8(ascii: "?")), gt = C.Element(UInt8(ascii: ">"))
        guard units.contains(question) else { return nil }
        let space: Set<C.Element> = [0x20, 0x09, 0x0A, 0x0D]
        var line = 1
        var i = units.startIndex
        while i + 1 < units.endIndex {
            if units[i] == 0x0A { line += 1 }
            if units[i] == lt, units[i + 1] == question {
                var j = i + 2
                while j < units.endIndex, !space.contains(units[j]), units[j] != question, units[j] != gt { j += 1 }
                if j > i + 2, j + 1 < units.endIndex, units[j] == question, units[j + 1] == gt { return line }
            }
            i += 1
        }
        return nil
    }

    /// The `encoding` an XML declaration at the start of `data` names (after a UTF-8
    /// byte-order mark), or nil: none, or a declaration not in an ASCII-compatible encoding
    /// (UTF-16's, which its byte-order mark or first bytes already say).
    static func declaredEncoding(_ data: Data) -> String? {
        var bytes = data.prefix(512)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard bytes.starts(with: Array("<?xml".utf8)) else { return nil }
        let end = bytes.firstIndex(of: UInt8(ascii: ">")) ?? bytes.endIndex
        let declaration = String(decoding: bytes[..<end], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        return String(rest.prefix { $0 != quote })
    }

    /// What Foundation's parser would crash on or mis-read, looked for in the bytes before
    /// parsing (found by `scripts/fuzz.sh gpx`): a declared encoding or a signature that
    /// libxml2 hands to iconv, and an empty processing instruction (`<?x?>`). A file is
    /// mapped, not read into memory, for it.
    static func preflight(_ data: Data, file: String) throws(GPXError) {
        if let encoding = declaredEncoding(data), !encodings.contains(encoding.lowercased()) {
            throw GPXError(
                file: file, line: 1,
                reason: "declares encoding '\(encoding)': GPX is read as UTF-8, UTF-16, ISO-8859-1 or US-ASCII")
        }
        if let signature = iconvSignatures.first(where: { data.starts(with: $0.bytes) }) {
            throw GPXError(
                file: file, line: 1, reason: "is in \(signature.name): GPX is read as UTF-8, UTF-16, ISO-8859-1 or US-ASCII")
        }
        let utf16 = utf16Units(data)
        if let utf16, let line = unpairedSurrogateLine(utf16) {
            throw GPXError(file: file, line: line, reason: "is not valid UTF-16: a surrogate without its pair")
        }
        if let line = utf16.map({ emptyProcessingInstructionLine($0) }) ?? emptyProcessingInstructionLine(bytes: data) {
            throw GPXError(file: file, line: line, reason: "a processing instruction without data (<?name?>) is not GPX")
        }
    }

    /// The deepest nesting of elements read: far beyond any GPX (a track point is four deep;
    /// Garmin's extensions add three), and a bound on the reader's work and memory.
    public static let maximumDepth = 64
    /// The longest name (and type) kept, in characters; a longer one is cut there. A route's
    /// waypoint name of 100 kB, said at every approach, took the device to 1.28 GB.
    public static let maximumNameLength = 100
    /// The longest description kept, in characters.
    public static let maximumDescriptionLength = 1000

    /// Reads the file at `path`, with every point.
    public static func read(path: String) throws(GPXError) -> GPXDocument {
        do {
            return try read(path: path, points: nil)
        } catch let error as GPXError {
            throw error
        } catch {
            throw GPXError(file: path, line: nil, reason: "\(error)")
        }
    }

    /// Reads the file at `path`, handing each route and track point to `points` as soon as it
    /// is read, in the file's order, instead of keeping it: the returned document has the
    /// waypoints, the names and the counts. An error `points` throws stops the reading and is
    /// rethrown as it is.
    public static func read(path: String, points: ((ImportedPoint, GPXPlace) throws -> Void)?) throws -> GPXDocument {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw GPXError(file: path, line: nil, reason: GPXError.noSuchFile)
        }
        guard !isDirectory.boolValue else { throw GPXError(file: path, line: nil, reason: GPXError.folder) }
        // Only a regular file: a FIFO would block the open (for ever, with nobody writing),
        // a device would never end.
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw GPXError(file: path, line: nil, reason: "\(GPXError.unreadable): not a regular file (a FIFO, a device, a socket)")
        }
        guard let base = InputStream(fileAtPath: path), access(path, R_OK) == 0 else {
            throw GPXError(file: path, line: nil, reason: "\(GPXError.unreadable) (permission?)")
        }
        if let mapped = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) {
            try preflight(mapped, file: path)
        }
        return try parse(Input(base), file: path, points: points)
    }

    /// Reads a document; `file` names it in errors.
    public static func parse(_ data: Data, file: String) throws(GPXError) -> GPXDocument {
        do {
            try preflight(data, file: file)
            return try parse(Input(InputStream(data: data)), file: file, points: nil)
        } catch let error as GPXError {
            throw error
        } catch {
            throw GPXError(file: file, line: nil, reason: "\(error)")
        }
    }

    /// Parses from a stream, fed to libxml2's push parser in chunks (128 KiB), as
    /// FoundationXML's `XMLParser(stream:)` fed it before (see `SAXParser`). Handing libxml2
    /// the whole document as one chunk (what `XMLParser(data:)` did) is refused for more than
    /// 10,000,000 bytes left to parse unless XML_PARSE_HUGE is set: that was the "XML parser
    /// error 1" (XML_ERR_INTERNAL_ERROR, "Huge input lookup") at the last line of any GPX
    /// over 10 MB. Fed in chunks, the parser never holds more than a chunk and what is not
    /// parsed yet of the one before.
    static func parse(_ input: Input, file: String, points: ((ImportedPoint, GPXPlace) throws -> Void)?) throws -> GPXDocument {
        let xml: LibXML2
        switch LibXML2.loaded {
        case .success(let library): xml = library
        case .failure(let error): throw GPXError(file: file, line: nil, reason: error.description)
        }
        let handler = Handler(file: file, input: input, xml: xml, points: points)
        let parser = SAXParser(handler: handler)
        // Kept until the error's line is read.
        defer { parser.close() }
        let ok = parser.parse(input)
        if let error = handler.pointsError { throw error }
        if let error = handler.error { throw error }
        if let error = input.error { throw GPXError(file: file, line: nil, reason: "cannot read the file: \(error)") }
        guard !input.blank else { throw GPXError(file: file, line: nil, reason: "the file is empty: not a GPX file") }
        if !ok || handler.xmlError != nil {
            let code = handler.xmlError?.code ?? parser.result
            let line = handler.xmlError?.line ?? handler.lineNumber
            throw GPXError(file: file, line: line, reason: describe(code, open: handler.stack.last?.name))
        }
        guard let document = handler.document else {
            throw GPXError(file: file, line: nil, reason: "no XML element: not a GPX file")
        }
        return document
    }

    /// The bytes on their way to the parser, looked at for what the parser does not report.
    ///
    /// - Whether there was anything but blanks: the parser takes a file of blanks for a
    ///   document not begun, not for an empty file.
    /// - Entity declarations (`<!ENTITY`) before the root element, in the DTD. Foundation's
    ///   parser on Linux expands a DTD's entities in attribute values but drops them from
    ///   text without a word ("Run at &place; today" read as "Run at  today"), and reports
    ///   neither the declarations nor the drop to its delegate. GPX has no DTD and needs no
    ///   entities beyond XML's own five (`&amp;` and the like, which are not declared), so a
    ///   file that declares any is refused, at the line of the first declaration, rather than
    ///   imported with text missing. Only declarations before the root element count (the
    ///   handler compares lines): "<!ENTITY" inside the document can only be a comment's or
    ///   a CDATA section's text.
    final class Input: InputStream {
        let base: InputStream
        private(set) var blank = true
        /// The line of the first "<!ENTITY" seen, while the root element was not reached.
        private(set) var entityDeclarationLine: Int?
        /// Set when the root element starts: what follows is the document, not the DTD.
        var scanning = true
        private(set) var error: (any Error)?
        private var line = 1
        private var matched = 0
        private static let declaration = Array("<!ENTITY".utf8)

        init(_ base: InputStream) {
            self.base = base
            super.init(data: Data())
        }

        override func open() { base.open() }
        override func close() { base.close() }
        override var hasBytesAvailable: Bool { base.hasBytesAvailable }
        override var streamStatus: Stream.Status { base.streamStatus }
        override var streamError: (any Error)? { base.streamError }

        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
            let count = base.read(buffer, maxLength: length)
            if count < 0 { error = base.streamError ?? POSIXError(.EIO) }
            guard count > 0, blank || (scanning && entityDeclarationLine == nil) else { return count }
            for byte in UnsafeBufferPointer(start: buffer, count: count) {
                if blank, !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) { blank = false }
                guard scanning, entityDeclarationLine == nil else { break }
                if byte == 0x0A { line += 1 }
                if byte == Self.declaration[matched] {
                    matched += 1
                    if matched == Self.declaration.count { entityDeclarationLine = line }
                } else {
                    matched = byte == Self.declaration[0] ? 1 : 0
                }
            }
            return count
        }
    }

    /// The XML parser's first error in words. The codes are libxml2's (`xmlParserErrors`),
    /// which Foundation's parser reports on every platform; `XMLParser.ErrorCode` is not used
    /// because swift-corelibs-foundation numbers it differently from the codes it reports.
    static func describe(_ code: Int, open element: String?) -> String {
        let what: String
        switch code {
        case 3, 4: what = "no XML document: the file is not XML"
        case 5, 77:
            if let element {
                what = "the file ends before <\(element)> is closed (truncated?)"
            } else {
                what = "there is content after the end of the document"
            }
        case 76: what = "an element is closed by the wrong end tag"
        case 72, 73: what = "a '<' or '>' is missing"
        case 23, 24, 26, 27, 68: what = "a bad entity reference (a bare '&'?)"
        case 39, 40, 41, 42: what = "a badly written attribute (values need quotes)"
        case 9: what = "a character that XML does not allow"
        case 32: what = "the encoding is not supported"
        default: what = "XML parser error \(code)"
        }
        return "not well-formed XML: \(what)"
    }

    /// Parses an xsd:dateTime as GPX writes it: `2024-05-01T07:30:00Z`, with optional
    /// fractional seconds, and `Z`, `+hh:mm`, `-hh:mm` or nothing (taken as UTC).
    public static func parseTime(_ text: Substring) -> UTCTimestamp? {
        var text = text
        return text.withUTF8 { parseTime(bytes: $0) }
    }

    /// The same on UTF-8 bytes (a reader's text, not made a String).
    static func parseTime(bytes b: UnsafeBufferPointer<UInt8>) -> UTCTimestamp? {
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = b[i + k]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              expect("T"), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
              let second = digits(2),
              let date = CivilDate(year: year, month: month, day: day), hour < 24, minute < 60, second < 60
        else { return nil }
        var millisecond = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 100
            var any = false
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                millisecond += Int(b[i] - 0x30) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offsetMinutes = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let h = digits(2), expect(":"), let m = digits(2), h <= 14, m < 60 else { return nil }
                offsetMinutes = sign * (h * 60 + m)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let ms = Int64(((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millisecond)
        return UTCTimestamp(millisecondsSince1970: Int64(date.daysSince1970) * 86_400_000 + ms)
    }

    /// A decimal number as XML Schema writes one (`-12.5`, `+3`, `.5`, `1e3`), finite.
    /// Refuses what `Double(_:)` alone would take: `nan`, `inf`, hexadecimal.
    public static func parseNumber(_ text: Substring) -> Double? {
        guard !text.isEmpty,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 }),
              let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// The powers of ten a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { product, _ in product * 10 } }

    /// `parseNumber` on UTF-8 bytes, the same value for the same text. What GPX files hold
    /// (`-12.345678901`: a sign, at most 15 digits, a point) is worked out here: the digits as
    /// an integer below 2^53 divided by a power of ten up to 10^15, both exact, so the one
    /// rounding of the division is the correctly rounded value `Double(_:)` gives. Anything
    /// else (an exponent, more digits) goes to `parseNumber(_:)`.
    static func parseNumber(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !b.isEmpty else { return nil }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "-") || b[0] == UInt8(ascii: "+") {
            negative = b[0] == UInt8(ascii: "-")
            i = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var point = false
        var simple = true
        while i < b.count {
            let c = b[i]
            if c >= 0x30, c <= 0x39 {
                mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                digits += 1
                if point { fraction += 1 }
            } else if c == UInt8(ascii: "."), !point {
                point = true
            } else {
                simple = false
                break
            }
            i += 1
        }
        guard simple, digits > 0, digits <= 15 else {
            return parseNumber(Substring(String(decoding: b, as: UTF8.self)))
        }
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }

    /// The bounds of `b` without the characters Foundation's `trimmingCharacters(in:)` takes
    /// off either end with `.whitespaces` (`newlines` false) or `.whitespacesAndNewlines`
    /// (true), found on the UTF-8 bytes: tab and space, U+00A0, U+1680, U+2000 to U+200B,
    /// U+202F, U+205F, U+3000, and with newlines U+000A to U+000D, U+0085, U+2028, U+2029.
    /// `b` is valid UTF-8 (the parser's output).
    static func trimmed(_ b: UnsafeBufferPointer<UInt8>, newlines: Bool) -> Range<Int> {
        var start = 0
        var end = b.count
        while start < end {
            let n = spaceLength(b, from: start, to: end, newlines: newlines)
            if n == 0 { break }
            start += n
        }
        while end > start {
            let n = spaceLength(b, endingAt: end, from: start, newlines: newlines)
            if n == 0 { break }
            end -= n
        }
        return start..<end
    }

    /// The number of bytes of the white space character at `i`, or 0.
    private static func spaceLength(_ b: UnsafeBufferPointer<UInt8>, from i: Int, to end: Int, newlines: Bool) -> Int {
        let c = b[i]
        if c < 0x80 { return isASCIISpace(c, newlines: newlines) ? 1 : 0 }
        if end - i >= 2, c == 0xC2 { return isTwoByteSpace(b[i + 1], newlines: newlines) ? 2 : 0 }
        if end - i >= 3, c >= 0xE1, c <= 0xE3 { return isThreeByteSpace(c, b[i + 1], b[i + 2], newlines: newlines) ? 3 : 0 }
        return 0
    }

    /// The number of bytes of the white space character that ends before `end`, or 0.
    private static func spaceLength(_ b: UnsafeBufferPointer<UInt8>, endingAt end: Int, from start: Int, newlines: Bool) -> Int {
        let c = b[end - 1]
        if c < 0x80 { return isASCIISpace(c, newlines: newlines) ? 1 : 0 }
        if end - start >= 2, b[end - 2] == 0xC2 { return isTwoByteSpace(c, newlines: newlines) ? 2 : 0 }
        if end - start >= 3 { return isThreeByteSpace(b[end - 3], b[end - 2], c, newlines: newlines) ? 3 : 0 }
        return 0
    }

    private static func isASCIISpace(_ c: UInt8, newlines: Bool) -> Bool {
        c == 0x20 || c == 0x09 || (newlines && c >= 0x0A && c <= 0x0D)
    }

    /// U+0080 to U+00BF, after the byte 0xC2.
    private static func isTwoByteSpace(_ c: UInt8, newlines: Bool) -> Bool {
        c == 0xA0 || (newlines && c == 0x85)
    }

    private static func isThreeByteSpace(_ a: UInt8, _ b: UInt8, _ c: UInt8, newlines: Bool) -> Bool {
        switch (a, b) {
        case (0xE1, 0x9A): return c == 0x80  // U+1680
        case (0xE2, 0x80): return (c >= 0x80 && c <= 0x8B) || c == 0xAF || (newlines && (c == 0xA8 || c == 0xA9))
        case (0xE2, 0x81): return c == 0x9F  // U+205F
        case (0xE3, 0x80): return c == 0x80  // U+3000
        default: return false
        }
    }
}
