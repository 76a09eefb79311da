extension Fix {
    /// The most bytes `writeJSON(to:)` writes: every member present, each number at its widest.
    public static let maximumJSONLength = 192

    /// Appends the fix as one JSON object (no newline), in the field order and units gpsd uses
    /// for TPV reports: `{"time":"…Z","lat":…,"lon":…,"alt":…,"speed":…,"track":…,"mode":3}`
    /// (`pacer nmea decode --json`, `pacer gps --json`). Optional members are left out when
    /// unknown. The bytes are those the JSON writer (`JSONObject`) gives for the same members
    /// (a test holds them equal); they are written straight into the buffer, as a decoder
    /// printing a fix per receiver cycle needs.
    public func appendJSON(to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: Fix.maximumJSONLength))
        let written = out.withUnsafeMutableBufferPointer { writeJSON(to: $0.baseAddress! + start) }
        out.removeLast(Fix.maximumJSONLength - written)
    }

    /// Writes the JSON object of `appendJSON(to:)` at `out`, which has room for
    /// `maximumJSONLength` bytes; returns how many were written.
    public func writeJSON(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var w = RawByteWriter(out)
        w.ascii("{\"time\":\"")
        time.writeISO8601(&w)
        w.ascii("\",\"lat\":")
        w.decimal(position.latitude, places: 9)
        w.ascii(",\"lon\":")
        w.decimal(position.longitude, places: 9)
        if let altitude {
            w.ascii(",\"alt\":")
            w.decimal(altitude, places: 4)
        }
        if let speed {
            w.ascii(",\"speed\":")
            w.decimal(speed, places: 3)
        }
        if let course {
            w.ascii(",\"track\":")
            w.decimal(course, places: 4)
        }
        w.ascii(",\"mode\":")
        w.digits(UInt64(mode.rawValue), width: 1)
        w.byte(UInt8(ascii: "}"))
        return w.pointer - out
    }
}

/// Writes bytes at a pointer the caller has made room behind: no bounds checks, no arrays.
/// The formatting is `appendDigits` and `appendDecimal`'s, byte for byte.
struct RawByteWriter: ByteSink {
    var pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }

    @inline(__always)
    mutating func byte(_ b: UInt8) {
        pointer.pointee = b
        pointer += 1
    }

    @inline(__always)
    mutating func sinkByte(_ b: UInt8) { byte(b) }

    @inline(__always)
    mutating func sinkDigits(_ value: UInt64, width: Int) { digits(value, width: width) }

    @inline(__always)
    mutating func ascii(_ s: StaticString) {
        pointer.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        pointer += s.utf8CodeUnitCount
    }

    /// A non-negative integer, zero-padded to `width` digits.
    @inline(__always)
    mutating func digits(_ value: UInt64, width: Int) {
        var n = 1
        var power: UInt64 = 10
        while n < 20, value >= power {  // 10^19 is the last power below 2^64
            n &+= 1
            power = power &* 10
        }
        if n < width { n = width }
        var v = value
        var i = n
        while i > 0 {
            i -= 1
            pointer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        pointer += n
    }

    /// `appendDecimal(_:places:)`: rounded to `places` (1…9) fraction digits, trailing zeros
    /// trimmed but one kept; `null` when not finite or too large (`ByteSink.sinkDecimal`).
    @inline(__always)
    mutating func decimal(_ value: Double, places: Int) {
        sinkDecimal(value, places: places)
    }
}
