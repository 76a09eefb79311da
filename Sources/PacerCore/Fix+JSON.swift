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

extension UTCTimestamp {
    /// `appendISO8601(to:)`'s 24 bytes, through a raw writer.
    func writeISO8601(_ w: inout RawByteWriter) {
        let d = date
        let ms = UInt64(millisecondOfDay)
        if d.year < 0 { w.byte(UInt8(ascii: "-")) }
        w.digits(UInt64(d.year.magnitude), width: 4)
        w.byte(UInt8(ascii: "-"))
        w.digits(UInt64(truncatingIfNeeded: d.month), width: 2)
        w.byte(UInt8(ascii: "-"))
        w.digits(UInt64(truncatingIfNeeded: d.day), width: 2)
        w.byte(UInt8(ascii: "T"))
        w.digits(ms / 3_600_000, width: 2)
        w.byte(UInt8(ascii: ":"))
        w.digits(ms / 60_000 % 60, width: 2)
        w.byte(UInt8(ascii: ":"))
        w.digits(ms / 1000 % 60, width: 2)
        w.byte(UInt8(ascii: "."))
        w.digits(ms % 1000, width: 3)
        w.byte(UInt8(ascii: "Z"))
    }
}

/// Writes bytes at a pointer the caller has made room behind: no bounds checks, no arrays.
/// The formatting is `appendDigits` and `appendDecimal`'s, byte for byte.
struct RawByteWriter {
    var pointer: UnsafeMutablePointer<UInt8>

    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }

    @inline(__always)
    mutating func byte(_ b: UInt8) {
        pointer.pointee = b
        pointer += 1
    }

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
    /// trimmed but one kept; `null` when not finite or too large.
    @inline(__always)
    mutating func decimal(_ value: Double, places: Int) {
        var scale: Int64 = 1
        for _ in 0..<places { scale &*= 10 }
        guard value.isFinite, abs(value) < 9.0e9 else {
            ascii("null")
            return
        }
        var scaled = (abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero)
        if scaled >= 9.2e18 { scaled = 9.2e18 }
        let units = Int64(scaled)
        if value < 0, units != 0 { byte(UInt8(ascii: "-")) }
        digits(UInt64(units / scale), width: 1)
        byte(UInt8(ascii: "."))
        var frac = units % scale
        var width = places
        while width > 1, frac % 10 == 0 {
            frac /= 10
            width -= 1
        }
        digits(UInt64(frac), width: width)
    }
}
