/// The request's parts the companion reads, decoded by hand and bounded: percent-encoding,
/// `application/x-www-form-urlencoded`, `multipart/form-data`, the query and cookies. Every
/// function here takes arbitrary bytes (the HTTP fuzz target feeds them) and fails with a
/// reason naming what was wrong, never by trapping.
public enum FormDecoding {
    /// At most this many fields in a form or query, and this many parts in a multipart body.
    public static let maximumFields = 64

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// `%XX` decoded (and `+` as a space when `plusIsSpace`); nil when an escape is broken or
    /// the result is not UTF-8.
    public static func percentDecode(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `a=1&b=two+words`: the fields (the first of a repeated name wins).
    public static func urlEncoded(_ text: Substring, what: String = "form") throws(Failure) -> [String: String] {
        var fields: [String: String] = [:]
        var count = 0
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            count += 1
            guard count <= maximumFields else { throw Failure("\(what): more than \(maximumFields) fields") }
            let equals = pair.firstIndex(of: "=")
            let rawName = equals.map { pair[..<$0] } ?? pair
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
            guard let name = percentDecode(rawName, plusIsSpace: true) else {
                throw Failure("\(what): a field's name is not valid percent-encoded UTF-8")
            }
            guard let value = percentDecode(rawValue, plusIsSpace: true) else {
                throw Failure("\(what): field '\(name.prefix(40))' is not valid percent-encoded UTF-8")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    public static func urlEncoded(_ bytes: [UInt8], what: String = "form") throws(Failure) -> [String: String] {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure("\(what): not UTF-8") }
        return try urlEncoded(Substring(text), what: what)
    }

    /// `Cookie: a=1; pacer_session=…`: the cookies by name (values as sent).
    public static func cookies(_ header: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for part in header.split(separator: ";") {
            let trimmed = part.drop { $0 == " " }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            let name = String(trimmed[..<equals])
            var value = trimmed[trimmed.index(after: equals)...]
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            if cookies[name] == nil { cookies[name] = String(value) }
        }
        return cookies
    }

    /// A header value's parameter: `boundary` of `multipart/form-data; boundary=XYZ`.
    public static func parameter(_ name: String, of header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let trimmed = part.trimmingSpaces
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].trimmingSpaces.lowercased() == name else { continue }
            var value = trimmed[trimmed.index(after: equals)...].trimmingSpaces
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    /// The media type of a Content-Type header, lowercased, without its parameters.
    public static func mediaType(_ header: String) -> String {
        String(header.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingSpaces ?? "")
            .lowercased()
    }

    /// A `multipart/form-data` body (RFC 7578): its text fields and its files. Each part
    /// needs a `Content-Disposition: form-data; name="…"`; one with a `filename` is a file.
    public static func multipart(_ body: [UInt8], boundary: String) throws(Failure) -> (fields: [String: String], uploads: [String: Upload]) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw Failure("multipart: the boundary must be 1 to 70 characters")
        }
        let delimiter = Array("--\(boundary)".utf8)
        var fields: [String: String] = [:]
        var uploads: [String: Upload] = [:]
        guard var position = find(delimiter, in: body, from: 0) else {
            throw Failure("multipart: no part starts with the boundary")
        }
        var parts = 0
        while true {
            position += delimiter.count
            // `--` after a delimiter closes the body.
            if position + 1 < body.count, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") {
                return (fields, uploads)
            }
            guard let lineEnd = find(crlf, in: body, from: position) else {
                throw Failure("multipart: the body ends inside a boundary line")
            }
            let headersStart = lineEnd + 2
            guard let headersEnd = find(crlf + crlf, in: body, from: headersStart) else {
                throw Failure("multipart: part \(parts + 1) has no end to its headers")
            }
            guard let next = find(crlf + delimiter, in: body, from: headersEnd + 4) else {
                throw Failure("multipart: part \(parts + 1) is not closed by the boundary")
            }
            parts += 1
            guard parts <= maximumFields else { throw Failure("multipart: more than \(maximumFields) parts") }
            guard let headerText = String(validating: body[headersStart..<headersEnd], as: UTF8.self) else {
                throw Failure("multipart: part \(parts)'s headers are not UTF-8")
            }
            var disposition: String?
            for line in headerText.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else {
                    throw Failure("multipart: part \(parts) has a header line without ':'")
                }
                if line[..<colon].trimmingSpaces.lowercased() == "content-disposition" {
                    disposition = String(line[line.index(after: colon)...].trimmingSpaces)
                }
            }
            guard let disposition, mediaType(disposition) == "form-data", let name = parameter("name", of: disposition) else {
                throw Failure("multipart: part \(parts) has no Content-Disposition: form-data; name=\"…\"")
            }
            let content = Array(body[(headersEnd + 4)..<next])
            if let filename = parameter("filename", of: disposition) {
                if uploads[name] == nil { uploads[name] = Upload(filename: filename, bytes: content) }
            } else {
                guard let value = String(validating: content, as: UTF8.self) else {
                    throw Failure("multipart: field '\(name.prefix(40))' is not UTF-8")
                }
                if fields[name] == nil { fields[name] = value }
            }
            position = next + 2
        }
    }

    static let crlf: [UInt8] = [13, 10]

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start >= 0, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}

extension String {
    var trimmingSpaces: Substring { self[...].trimmingSpaces }
}
