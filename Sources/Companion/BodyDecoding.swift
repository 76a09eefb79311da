import Hummingbird
import MultipartKit

/// A POST's body as the pages read it: `application/x-www-form-urlencoded` through
/// Hummingbird's `URLEncodedFormDecoder`, `multipart/form-data` through MultipartKit's parser,
/// bounded (the body itself by `BodyLimitMiddleware`). Each failure says what was wrong.
enum BodyDecoding {
    /// At most this many fields in a form, and this many parts in a multipart body.
    static let maximumFields = 64

    struct Failure: Error, CustomStringConvertible, Equatable {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The fields and files of a body with this Content-Type.
    static func decode(_ body: [UInt8], contentType: String?) throws(Failure) -> (form: [String: String], uploads: [String: Upload]) {
        guard !body.isEmpty else { return ([:], [:]) }
        let type = contentType ?? ""
        let media = MediaType(from: type)
        if media?.isType(.applicationUrlEncoded) == true {
            return (try urlEncoded(body), [:])
        }
        if media?.isType(.multipartForm) == true {
            guard let boundary = media?.parameter.flatMap({ $0.name.lowercased() == "boundary" ? $0.value : nil }) else {
                throw Failure("multipart: the Content-Type has no boundary")
            }
            return try multipart(body, boundary: boundary)
        }
        throw Failure("the body's Content-Type '\(type.prefix(80))' is not a form (application/x-www-form-urlencoded or multipart/form-data)")
    }

    /// `a=1&b=two+words`: the fields (a name given twice is refused).
    static func urlEncoded(_ body: [UInt8], what: String = "form") throws(Failure) -> [String: String] {
        guard let text = String(validating: body, as: UTF8.self) else { throw Failure("\(what): not UTF-8") }
        guard text.split(separator: "&").count <= maximumFields else { throw Failure("\(what): more than \(maximumFields) fields") }
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: text)
        } catch {
            throw Failure("\(what): \(error)")
        }
    }

    /// A `multipart/form-data` body (RFC 7578): its text fields and its files. Each part
    /// needs a `Content-Disposition: form-data; name="…"`; one with a `filename` is a file.
    static func multipart(_ body: [UInt8], boundary: String) throws(Failure) -> (form: [String: String], uploads: [String: Upload]) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw Failure("multipart: the boundary must be 1 to 70 characters")
        }
        guard headerNamesAreASCII(body, boundary: boundary) else {
            throw Failure("multipart: a part's header name holds a byte that is not ASCII")
        }
        let parser = MultipartParser(boundary: boundary)
        var parts: [MultipartPart] = []
        var headers = HTTPHeaders()
        var content = ByteBuffer()
        // Something of a part was read that no boundary has closed yet.
        var open = false
        parser.onHeader = { name, value in
            headers.add(name: name, value: value)
            open = true
        }
        parser.onBody = { bytes in
            content.writeBuffer(&bytes)
            open = true
        }
        parser.onPartComplete = {
            parts.append(MultipartPart(headers: headers, body: content))
            headers = HTTPHeaders()
            content = ByteBuffer()
            open = false
        }
        do {
            try parser.execute(body)
        } catch {
            throw Failure("multipart: part \(parts.count + 1) is not well formed (its headers or its boundary)")
        }
        // A part started (its delimiter was seen) that its headers or the closing boundary never ended.
        let started = open || (parts.isEmpty && body.firstRange(of: Array("--\(boundary)".utf8)) != nil)
        guard !started else { throw Failure("multipart: part \(parts.count + 1) is not closed by the boundary") }
        guard !parts.isEmpty else { throw Failure("multipart: no part starts with the boundary") }
        guard parts.count <= maximumFields else { throw Failure("multipart: more than \(maximumFields) parts") }

        var form: [String: String] = [:]
        var uploads: [String: Upload] = [:]
        for (index, part) in parts.enumerated() {
            let disposition = part.headers.first(name: "Content-Disposition") ?? ""
            guard disposition.split(separator: ";").first?.trimmingSpaces.lowercased() == "form-data",
                  let name = parameter("name", of: disposition) else {
                throw Failure("multipart: part \(index + 1) has no Content-Disposition: form-data; name=\"…\"")
            }
            let bytes = Array(part.body.readableBytesView)
            if let filename = parameter("filename", of: disposition) {
                if uploads[name] == nil { uploads[name] = Upload(filename: filename, bytes: bytes) }
            } else {
                guard let value = String(validating: bytes, as: UTF8.self) else {
                    throw Failure("multipart: field '\(name.prefix(40))' is not UTF-8")
                }
                if form[name] == nil { form[name] = value }
            }
        }
        return (form, uploads)
    }

    /// A header value's parameter: `filename` of `form-data; name="file"; filename="run.fit"`
    /// (MultipartKit reads a part's `name` only).
    static func parameter(_ name: String, of header: String) -> String? {
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
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}

extension BodyDecoding {
    /// Whether every header name the multipart parser could read is ASCII. MultipartKit
    /// 4.7.1 looks a header name's bytes up in a table of 128 and traps on a byte over 127,
    /// so one hostile upload would end the device: such a name is refused first.
    ///
    /// The header sections are read as the parser reads them, from every `--BOUNDARY`
    /// wherever it stands (more places than the parser takes): after the delimiter's line,
    /// a name runs to its colon and its value to a CR, which a LF must follow (a lone LF is
    /// part of the value); a CR where a name would start ends the headers. What the parser
    /// would refuse ends the scan of that section: it never reads further.
    static func headerNamesAreASCII(_ body: [UInt8], boundary: String) -> Bool {
        let delimiter = Array("--\(boundary)".utf8)
        let cr: UInt8 = 13, lf: UInt8 = 10, colon = UInt8(ascii: ":")
        var from = body.startIndex
        while let found = body[from...].firstRange(of: delimiter) {
            from = found.upperBound
            guard var k = body[found.upperBound...].firstIndex(of: lf).map({ $0 + 1 }) else { break }
            while k < body.endIndex, body[k] != cr {
                var j = k
                while j < body.endIndex, body[j] != colon, body[j] != cr, body[j] != lf {
                    if body[j] > 127 { return false }
                    j += 1
                }
                guard j < body.endIndex, body[j] == colon, let end = body[j...].firstIndex(of: cr),
                      end + 1 < body.endIndex, body[end + 1] == lf else { break }
                k = end + 2
            }
        }
        return true
    }
}
