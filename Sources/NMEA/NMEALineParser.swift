/// What one framed line turned out to be.
public enum NMEALine: Hashable, Sendable {
    case sentence(NMEASentence)
    /// `$P…`: a maker's own sentence. Skipped.
    case proprietary
    /// A well-formed sentence of a type the engine does not use (`$GPBOD`, `$GPTXT`, AIS). Skipped.
    case unknown
    case badChecksum
    case missingChecksum
    /// Framing or fields that do not parse.
    case malformed
}

/// Validates and parses one line, in layers: checksum, then framing, then the address, then
/// the sentence's own parser.
public enum NMEALineParser {
    /// `line` starts at `$` or `!` and has no line ending. A line without `*hh` is accepted
    /// only when `acceptMissingChecksum` is set (see `NMEADecoder.ChecksumPolicy`).
    public static func parse(_ line: UnsafeBufferPointer<UInt8>, acceptMissingChecksum: Bool) -> NMEALine {
        // Field offsets are 16-bit; the framer never hands out lines near that, direct callers might.
        guard line.count < Int(UInt16.max) else { return .malformed }
        var scan = LineScan(wholeLine: line)
        return parse(line, scan: &scan, acceptMissingChecksum: acceptMissingChecksum)
    }

    /// `parse(_:acceptMissingChecksum:)` given the pass over the line (`LineScan`): the
    /// checksum and the fields come from it, so the line is not read again, bar its last bytes.
    @inline(__always)
    static func parse(_ line: UnsafeBufferPointer<UInt8>, scan: inout LineScan, acceptMissingChecksum: Bool) -> NMEALine {
        var end = line.count
        while end > 1, line[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard end > 1 else { return .malformed }

        // Checksum: XOR of everything between the start character and `*`.
        var star = -1
        var i = end - 1
        while i > 0, i >= end - 3 {
            if line[i] == UInt8(ascii: "*") { star = i; break }
            i -= 1
        }
        let bodyEnd: Int
        if star >= 0 {
            guard star + 3 == end, let hi = hexValue(line[star + 1]), let lo = hexValue(line[star + 2]) else {
                return .badChecksum
            }
            // The scan XORed the whole line after its start character: take its tail back out.
            var tail: UInt8 = 0
            for k in star..<line.count { tail ^= line[k] }
            guard scan.xor ^ tail == hi << 4 | lo else { return .badChecksum }
            bodyEnd = star
        } else {
            guard acceptMissingChecksum else { return .missingChecksum }
            bodyEnd = end
        }
        guard line[0] == UInt8(ascii: "$") else { return .unknown }  // `!` is AIS

        let body = UnsafeBufferPointer(rebasing: line[1..<bodyEnd])
        // The address is the body up to its first comma.
        let addressEnd = scan.commas > 0 && Int(scan.bounds[1]) <= body.count ? Int(scan.bounds[1]) - 1 : body.count
        let address = UnsafeBufferPointer(rebasing: body[..<addressEnd])
        if address.first == UInt8(ascii: "P") { return .proprietary }
        guard address.count == 5 else { return .unknown }
        let commas = scan.commas
        return withUnsafeMutablePointer(to: &scan.bounds) { storage in
            // InlineArray keeps its elements one after the other.
            let bounds = UnsafeMutableRawPointer(storage).assumingMemoryBound(to: UInt16.self)
            return parse(address: address, NMEAFields(body: body, bounds: bounds, commas: commas))
        }
    }

    /// The sentence of a line whose checksum and address passed: by its address's last three letters.
    @inline(__always)
    static func parse(address: UnsafeBufferPointer<UInt8>, _ fields: NMEAFields) -> NMEALine {
        let a = UInt8(ascii: "A")
        guard address[0] &- a < 26, address[1] &- a < 26, address[2] &- a < 26, address[3] &- a < 26,
              address[4] &- a < 26 else {
            return .unknown
        }
        let talker = Talker(address[0], address[1])
        let sentence: NMEASentence?
        switch (address[2], address[3], address[4]) {
        case (UInt8(ascii: "R"), UInt8(ascii: "M"), UInt8(ascii: "C")): sentence = RMC.parse(fields, talker: talker).map { .rmc($0) }
        case (UInt8(ascii: "G"), UInt8(ascii: "G"), UInt8(ascii: "A")): sentence = GGA.parse(fields, talker: talker).map { .gga($0) }
        case (UInt8(ascii: "G"), UInt8(ascii: "N"), UInt8(ascii: "S")): sentence = GNS.parse(fields, talker: talker).map { .gns($0) }
        case (UInt8(ascii: "G"), UInt8(ascii: "L"), UInt8(ascii: "L")): sentence = GLL.parse(fields, talker: talker).map { .gll($0) }
        case (UInt8(ascii: "V"), UInt8(ascii: "T"), UInt8(ascii: "G")): sentence = VTG.parse(fields, talker: talker).map { .vtg($0) }
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "A")): sentence = GSA.parse(fields, talker: talker).map { .gsa($0) }
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "V")): sentence = GSV.parse(fields, talker: talker).map { .gsv($0) }
        case (UInt8(ascii: "Z"), UInt8(ascii: "D"), UInt8(ascii: "A")): sentence = ZDA.parse(fields, talker: talker).map { .zda($0) }
        default: return .unknown
        }
        return sentence.map { .sentence($0) } ?? .malformed
    }

    /// Parses a whole sentence given as text, checksum required. For tests and tools.
    public static func parse(_ text: String) -> NMEALine {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
        return bytes.withUnsafeBufferPointer { parse($0, acceptMissingChecksum: false) }
    }

    /// True when the line ends in `*hh` (trailing spaces aside).
    static func hasChecksum(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = line.count
        while end > 1, line[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return end >= 4 && line[end - 3] == UInt8(ascii: "*")
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
