internal import CLibXML2
import Foundation
import PacerCore

/// Why a GPX file was refused: the file, the line and the reason (R19, R26).
public struct GPXError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the problem is not at one place (an empty file, nothing to import).
    public var line: Int?
    public var reason: String

    /// The reasons a file could not be read at all (not there, a folder, no permission).
    static let noSuchFile = "no such file"
    static let folder = "is a folder, not a GPX file"
    static let unreadable = "cannot read the file"

    /// The file could not be read at all: an input that is not there, not a broken one.
    public var isUnreadable: Bool {
        line == nil && (reason == Self.noSuchFile || reason == Self.folder || reason.hasPrefix(Self.unreadable))
    }

    /// The file was not read because libxml2 could not be opened: the installation is at
    /// fault, not the file.
    public var isLibraryMissing: Bool {
        line == nil && reason.hasPrefix(LibXML2Error.prefix)
    }

    public init(file: String, line: Int?, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}

/// A GPX point (`wpt`, `rtept` or `trkpt`) as read, with the line it is on.
public struct GPXPoint: Hashable, Sendable {
    public var position: GeoPoint
    public var altitude: Double?
    public var time: UTCTimestamp?
    /// Metres per second: GPX 1.0's `<speed>`, or a `speed` element in the point's extensions
    /// (Garmin's TrackPointExtension v2, as `GPXWriter` writes it).
    public var speed: Double?
    public var name: String?
    public var description: String?
    public var type: String?
    public var line: Int

    public init(position: GeoPoint, altitude: Double? = nil, time: UTCTimestamp? = nil, speed: Double? = nil,
                name: String? = nil, description: String? = nil, type: String? = nil, line: Int = 0) {
        self.position = position
        self.altitude = altitude
        self.time = time
        self.speed = speed
        self.name = name
        self.description = description
        self.type = type
        self.line = line
    }
}

public struct GPXRoute: Hashable, Sendable {
    public var name: String?
    public var points: [GPXPoint]
}

public struct GPXTrack: Hashable, Sendable {
    public var name: String?
    public var segments: [[GPXPoint]]
}

/// Where a route or track point read from a GPX file belongs.
public enum GPXPlace: Hashable, Sendable {
    /// In the file's `<rte>` number `route` (from 0).
    case route(Int)
    /// In the file's `<trk>` number `track`, its `<trkseg>` number `segment` (from 0).
    case track(Int, segment: Int)
}

/// A GPX document as read: what the runner needs of it (names, times, points), nothing more.
public struct GPXDocument: Hashable, Sendable {
    /// "1.1" or "1.0", from the namespace (and the `version` attribute, which must agree).
    public var version: String
    public var name: String?
    public var time: UTCTimestamp?
    public var waypoints: [GPXPoint] = []
    /// Routes and tracks with their names; their points are here unless they were handed to
    /// a reader's `points` function as they were read.
    public var routes: [GPXRoute] = []
    public var tracks: [GPXTrack] = []
    /// The line of the `<gpx>` element.
    public var line: Int
    /// The points read, wherever they went.
    public var trackPointCount = 0
    public var routePointCount = 0
    /// Points with a heart rate or a cadence in their extensions (Garmin's `hr` and `cad`, as
    /// watches write them): not kept by Pacer, but counted so an import can say so.
    public var heartRateCount = 0
    public var cadenceCount = 0

    public init(version: String, line: Int) {
        self.version = version
        self.line = line
    }
}

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
/// times, elevations) is `GPXPlausibility`'s to judge, not the format's.
public enum GPXReader {
    public static let namespaces = [
        "http://www.topografix.com/GPX/1/1": "1.1",
        "http://www.topografix.com/GPX/1/0": "1.0",
    ]

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
    public static func read(path: String, points: ((GPXPoint, GPXPlace) throws -> Void)?) throws -> GPXDocument {
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
    static func parse(_ input: Input, file: String, points: ((GPXPoint, GPXPlace) throws -> Void)?) throws -> GPXDocument {
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

    // MARK: - The SAX handler

    final class Handler {
        let file: String
        /// The parser's context while it parses (libxml2's), nil before and after.
        var context: xmlParserCtxtPtr?
        var error: GPXError?
        /// The first error the XML parser reported (later ones follow from it).
        var xmlError: (code: Int, line: Int)?
        var document: GPXDocument?
        var namespace = ""
        /// `namespace` as a C string, compared with each element's.
        var namespaceBytes: [UInt8] = [0]

        /// Open elements: local name, whether in the GPX namespace, line.
        var stack: [(name: String, gpx: Bool, line: Int)] = []
        /// How many elements on `stack` are not GPX's (extensions, foreign namespaces): counted
        /// as they open and close, so that no element looks down the whole stack (a file nested
        /// a million deep took minutes, quadratically).
        var foreignOpen = 0
        /// The text of the element being read, as the parser's UTF-8 bytes: trimmed and parsed
        /// as bytes, made a String only for a name, a description or a type.
        var text: [UInt8] = []
        var capturing = false
        var point: GPXPoint?
        var route: GPXRoute?
        var track: GPXTrack?
        var segment: [GPXPoint]?
        unowned let input: Input
        /// libxml2, for the handler functions and the helpers that call it.
        let xml: LibXML2
        /// Where route and track points go as they are read; nil to keep them in the document.
        let points: ((GPXPoint, GPXPlace) throws -> Void)?
        /// What `points` threw; the reading stopped there.
        var pointsError: (any Error)?

        init(file: String, input: Input, xml: LibXML2, points: ((GPXPoint, GPXPlace) throws -> Void)?) {
            self.file = file
            self.input = input
            self.xml = xml
            self.points = points
        }

        /// Hands a point to `points`, or says whether to keep it in the document.
        func handOver(_ point: GPXPoint, _ place: GPXPlace) -> Bool {
            guard let points else { return true }
            do {
                try points(point, place)
            } catch {
                if pointsError == nil, self.error == nil {
                    pointsError = error
                    abortParsing()
                }
            }
            return false
        }

        func fail(_ reason: String, line: Int? = nil) {
            // A well-formedness error reported first is the real problem (libxml2 recovers
            // and goes on, e.g. with an unquoted attribute dropped).
            guard error == nil, xmlError == nil else { return }
            error = GPXError(file: file, line: line ?? lineNumber, reason: reason)
            abortParsing()
        }

        /// The line the parser is at (0 before it starts).
        var lineNumber: Int {
            Int(pacer_xml_line(context))
        }

        func abortParsing() {
            if let context { pacer_xml_stop(xml.functions, context) }
        }

        /// An element starts: its local name, prefix and namespace as libxml2 gives them.
        func didStartElement(_ localName: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?,
                             namespaceURI uri: UnsafePointer<UInt8>?, attributes: SAXAttributes) {
            guard error == nil, pointsError == nil else { return }
            let line = lineNumber
            let elementName = String(cString: localName)
            guard document != nil else {
                let namespaceURI = uri.map { String(cString: $0) }
                let qName = prefix.map { String(cString: $0) + ":" + elementName }
                input.scanning = false
                if let declaration = input.entityDeclarationLine, declaration <= line {
                    fail("the file declares entities (<!ENTITY ...>) in a DTD: GPX needs none, and they are not "
                         + "expanded here, so the file is refused rather than imported with their text missing",
                         line: declaration)
                    return
                }
                // The root element decides whether this is GPX at all.
                let ns = namespaceURI ?? ""
                guard elementName == "gpx", let version = GPXReader.namespaces[ns] else {
                    let shown = qName ?? elementName
                    if elementName == "gpx" {
                        fail(ns.isEmpty
                             ? "<gpx> has no namespace: not GPX 1.1 (xmlns=\"http://www.topografix.com/GPX/1/1\") or 1.0"
                             : "<gpx> is in namespace \(ns), not GPX 1.1 or 1.0", line: line)
                    } else {
                        fail("not a GPX file: the root element is <\(shown)>, not <gpx>", line: line)
                    }
                    return
                }
                // The schema fixes version="1.1" (GPX 1.0's, "1.0"); a file that says another, or
                // none, or contradicts its namespace, was not written to either schema.
                guard let stated = attributes.string("version") else {
                    fail("<gpx> has no version attribute: GPX \(version) files say version=\"\(version)\"", line: line)
                    return
                }
                guard stated == version else {
                    fail(GPXReader.namespaces.values.contains(stated)
                         ? "<gpx> version=\"\(stated)\" but its namespace is GPX \(version)'s (\(ns)): which is it?"
                         : "<gpx> version=\"\(stated)\" is not a GPX version this reads (1.1 or 1.0)", line: line)
                    return
                }
                namespace = ns
                namespaceBytes = Array(ns.utf8) + [0]
                self.document = GPXDocument(version: version, line: line)
                stack.append((elementName, true, line))
                return
            }
            let inGPX = uri.map { GPXReader.same($0, namespaceBytes) } ?? false
            guard stack.count < GPXReader.maximumDepth else {
                fail("elements nested more than \(GPXReader.maximumDepth) deep: no GPX needs that many "
                     + "(a point is four deep, its extensions a few more)", line: line)
                return
            }
            let parent = stack.last
            let insideForeign = foreignOpen > 0
            stack.append((elementName, inGPX, line))
            if !inGPX { foreignOpen += 1 }
            if !inGPX || insideForeign {
                // Extensions: only a point's speed is read; its heart rate and cadence are counted.
                if elementName == "speed", point != nil { startText() }
                if elementName == "hr", point != nil { document?.heartRateCount += 1 }
                if elementName == "cad", point != nil { document?.cadenceCount += 1 }
                return
            }
            switch elementName {
            case "wpt", "rtept", "trkpt":
                guard let p = readPoint(elementName, attributes, line: line) else { return }
                point = p
            case "rte":
                route = GPXRoute(name: nil, points: [])
            case "trk":
                track = GPXTrack(name: nil, segments: [])
            case "trkseg":
                segment = []
            case "name", "desc", "type", "time", "ele", "speed":
                if point != nil || parent?.name == "metadata" || parent?.name == "gpx"
                    || parent?.name == "rte" || parent?.name == "trk" {
                    startText()
                }
            default:
                break
            }
        }

        func startText() {
            text.removeAll(keepingCapacity: true)
            capturing = true
        }

        func readPoint(_ tag: String, _ attributes: SAXAttributes, line: Int) -> GPXPoint? {
            func coordinate(_ key: StaticString, limit: Double) -> Double? {
                guard let bytes = attributes.value(key) else {
                    fail("<\(tag)> without \(key)", line: line)
                    return nil
                }
                var raw: String { String(decoding: bytes, as: UTF8.self) }
                guard let value = GPXReader.parseNumber(bytes: UnsafeBufferPointer(rebasing: bytes[GPXReader.trimmed(bytes, newlines: false)]))
                else {
                    fail("<\(tag)> \(key)=\"\(raw)\" is not a number", line: line)
                    return nil
                }
                guard abs(value) <= limit else {
                    fail("<\(tag)> \(key)=\"\(raw)\" is out of range (-\(Int(limit)) to \(Int(limit)) degrees)", line: line)
                    return nil
                }
                return value
            }
            guard let lat = coordinate("lat", limit: 90), let lon = coordinate("lon", limit: 180) else { return nil }
            return GPXPoint(position: GeoPoint(latitude: lat, longitude: lon), line: line)
        }

        func foundCharacters(_ bytes: UnsafeBufferPointer<UInt8>) {
            if capturing { text.append(contentsOf: bytes) }
        }

        func foundCDATA(_ bytes: UnsafeBufferPointer<UInt8>) {
            // As a String first, as XMLParser's delegate did: bytes that are not UTF-8 become U+FFFD.
            if capturing { text.append(contentsOf: String(decoding: bytes, as: UTF8.self).utf8) }
        }

        /// An element ends (the open elements' stack says which).
        func didEndElement() {
            guard error == nil, pointsError == nil, let (name, inGPX, line) = stack.popLast() else { return }
            if !inGPX { foreignOpen -= 1 }
            let parent = stack.last?.name
            let wasCapturing = capturing
            capturing = false
            guard wasCapturing else {
                ended(name, inGPX: inGPX)
                return
            }
            text.withUnsafeBufferPointer { all in
                let value = UnsafeBufferPointer(rebasing: all[GPXReader.trimmed(all, newlines: true)])
                endedText(name, inGPX: inGPX, parent: parent, value: value, line: line)
            }
        }

        /// The end of an element whose text was read: a name, a time, a number.
        func endedText(_ name: String, inGPX: Bool, parent: String?, value bytes: UnsafeBufferPointer<UInt8>, line: Int) {
            var value: String { String(decoding: bytes, as: UTF8.self) }
            if !inGPX || foreignOpen > 0 {
                if name == "speed", point != nil { setSpeed(bytes, line: line) }
                return
            }
            switch name {
            case "name", "desc", "type":
                if point != nil {
                    if name == "name" { point?.name = value }
                    if name == "desc" { point?.description = value }
                    if name == "type" { point?.type = value }
                } else if name == "name" {
                    switch parent {
                    case "metadata", "gpx": document?.name = value
                    case "rte": route?.name = value
                    case "trk": track?.name = value
                    default: break
                    }
                }
            case "time":
                guard let time = GPXReader.parseTime(bytes: bytes) else {
                    fail("<time> \"\(value)\" is not an ISO 8601 UTC date and time (like 2024-05-01T07:30:00Z)", line: line)
                    return
                }
                if point != nil {
                    point?.time = time
                } else if parent == "metadata" || parent == "gpx" {
                    document?.time = time
                }
            case "ele":
                guard point != nil else { return }
                guard let ele = GPXReader.parseNumber(bytes: bytes) else {
                    fail("<ele> \"\(value)\" is not a number", line: line)
                    return
                }
                point?.altitude = ele
            case "speed":
                if point != nil { setSpeed(bytes, line: line) }
            default:
                ended(name, inGPX: inGPX)
            }
        }

        /// The end of an element whose text was not read: a point, a route, a track.
        func ended(_ name: String, inGPX: Bool) {
            if !inGPX || foreignOpen > 0 { return }
            switch name {
            case "wpt":
                if let point { document?.waypoints.append(point) }
                point = nil
            case "rtept":
                if let point, route != nil, let index = document?.routes.count {
                    document?.routePointCount += 1
                    if handOver(point, .route(index)) { route?.points.append(point) }
                }
                point = nil
            case "trkpt":
                if let point, segment != nil, let index = document?.tracks.count, let segmentIndex = track?.segments.count {
                    document?.trackPointCount += 1
                    if handOver(point, .track(index, segment: segmentIndex)) { segment?.append(point) }
                }
                point = nil
            case "rte":
                if let route { document?.routes.append(route) }
                route = nil
            case "trkseg":
                if let segment { track?.segments.append(segment) }
                segment = nil
            case "trk":
                if let track { document?.tracks.append(track) }
                track = nil
            default:
                break
            }
        }

        func setSpeed(_ value: UnsafeBufferPointer<UInt8>, line: Int) {
            guard let speed = GPXReader.parseNumber(bytes: value), speed >= 0 else {
                fail("<speed> \"\(String(decoding: value, as: UTF8.self))\" is not a speed (metres per second)", line: line)
                return
            }
            point?.speed = speed
        }

        /// libxml2 reports an error (or a warning): its code (`xmlParserErrors`).
        func parseErrorOccurred(_ code: Int) {
            if xmlError == nil, error == nil {
                xmlError = (code, lineNumber)
                abortParsing()
            }
        }
    }
}
