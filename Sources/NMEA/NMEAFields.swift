import PacerCore

/// The comma-separated fields of one sentence body, as byte ranges into the caller's buffer.
///
/// The body runs from the address (`GPRMC`) to the last byte before `*`. The field offsets
/// are read through a pointer: the decoder's come from the framer's pass over the line
/// (`LineScan`, on the stack), so parsing a sentence allocates nothing and copies no table
/// of offsets per field read (an `InlineArray` is copied whole at each subscript). Every
/// accessor returns nil for an empty or malformed field, which is how NMEA marks "unknown".
public struct NMEAFields {
    /// Fields past this many are ignored (the longest standard sentence, GSV with a
    /// signal id, has 21).
    public static let capacity = 40

    @usableFromInline let body: UnsafeBufferPointer<UInt8>
    /// `bounds[k]` is where field k starts; field k ends one byte before `bounds[k + 1]`.
    @usableFromInline let bounds: UnsafePointer<UInt16>
    public let count: Int
    /// Keeps the offsets of a set of fields made by `init(body:)` alive.
    private let storage: BoundsStorage?

    /// Splits `body` at commas. `body` must stay valid while the fields are used. (For tests
    /// and tools: the offsets go on the heap. The decoder's fields come from its line scan.)
    public init(body: UnsafeBufferPointer<UInt8>) {
        let storage = BoundsStorage()
        let bounds = storage.pointer
        var n = 0
        var i = 0
        let comma = UInt8(ascii: ",")
        while i < body.count {
            if body[i] == comma {
                n += 1
                bounds[n] = UInt16(truncatingIfNeeded: i + 1)
                if n == NMEAFields.capacity { break }
            }
            i += 1
        }
        self.init(body: body, bounds: bounds, commas: n, storage: storage)
    }

    /// The fields of `body` (a line's bytes from offset 1) with the offsets of its first
    /// commas already at `bounds[1…]` (a `LineScan`'s layout; `bounds[0]` is 0), `commas` of
    /// them in all. Writes the end of the last field after them. `bounds` must stay valid
    /// while the fields are used.
    @inline(__always)
    init(body: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutablePointer<UInt16>, commas: Int, storage: BoundsStorage? = nil) {
        self.body = body
        self.bounds = UnsafePointer(bounds)
        self.storage = storage
        // Commas past the body (after a `*`) are not field separators.
        var n = min(commas, NMEAFields.capacity)
        while n > 0, Int(bounds[n]) > body.count { n -= 1 }
        if n == NMEAFields.capacity {
            count = n
        } else {
            count = n + 1
            bounds[n + 1] = UInt16(truncatingIfNeeded: body.count + 1)
        }
    }

    @inlinable @inline(__always)
    func range(_ index: Int) -> Range<Int>? {
        guard index >= 0, index < count else { return nil }
        return Int(bounds[index])..<(Int(bounds[index &+ 1]) &- 1)
    }

    /// True when the field is absent or empty.
    @inlinable @inline(__always)
    public func isEmpty(_ index: Int) -> Bool {
        guard index >= 0, index < count else { return true }
        return bounds[index &+ 1] &- 1 == bounds[index]
    }

    /// The field's bytes (empty when absent).
    @inlinable @inline(__always)
    public func bytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        // Offsets only grow, so the end is never before the start: no `Range` and its check.
        guard index >= 0, index < count, let base = body.baseAddress else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        let start = Int(bounds[index])
        return UnsafeBufferPointer(start: base + start, count: Int(bounds[index &+ 1]) &- 1 &- start)
    }

    /// A one-character field such as a status (`A`/`V`) or hemisphere.
    @inlinable @inline(__always)
    public func character(_ index: Int) -> UInt8? {
        let b = bytes(index)
        return b.count == 1 ? b[0] : nil
    }

    /// An unsigned decimal integer.
    @inlinable @inline(__always)
    public func integer(_ index: Int) -> Int? {
        NMEAFields.unsigned(bytes(index))
    }

    @inlinable @inline(__always)
    static func unsigned(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !b.isEmpty, b.count <= 9, let p = b.baseAddress else { return nil }
        var v = 0
        var i = 0
        while i < b.count {  // nine digits at most: no overflow
            let d = p[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            v = v &* 10 &+ Int(d)
            i &+= 1
        }
        return v
    }

    /// A decimal integer with an optional sign (GSV elevations can be negative).
    @inlinable @inline(__always)
    public func signedInteger(_ index: Int) -> Int? {
        let b = bytes(index)
        guard let first = b.first else { return nil }
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            let rest = NMEAFields.unsigned(UnsafeBufferPointer(rebasing: b[1...]))
            return first == UInt8(ascii: "-") ? rest.map { -$0 } : rest
        }
        return NMEAFields.unsigned(b)
    }

    /// A signed decimal number such as `-19.6` or `1127.70`.
    @inlinable @inline(__always)
    public func number(_ index: Int) -> Double? {
        NMEAFields.parseDecimal(bytes(index))
    }

    /// Parses `[+-]digits[.digits]` exactly: the digits become one integer, divided once by a
    /// power of ten, so the result is the correctly rounded double for up to 15 significant
    /// digits. Anything else (exponents, letters, two dots) is malformed.
    @inlinable @inline(__always)
    public static func parseDecimal(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !b.isEmpty else { return nil }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "-") || b[0] == UInt8(ascii: "+") {
            negative = b[0] == UInt8(ascii: "-")
            i = 1
        }
        if b.count <= 16, let p = b.baseAddress {
            // At most 16 digits: none is dropped below, so one plain loop does.
            var mantissa: Int64 = 0
            var digits = 0
            var dot = -1  // digits before the dot, once seen
            while i < b.count {
                let c = p[i]
                i &+= 1
                let d = c &- UInt8(ascii: "0")
                if d < 10 {
                    mantissa = mantissa &* 10 &+ Int64(d)
                    digits &+= 1
                } else if c == UInt8(ascii: "."), dot < 0 {
                    dot = digits
                } else {
                    return nil
                }
            }
            guard digits > 0, (dot < 0 ? digits : dot) <= 12 else { return nil }
            let value = Double(mantissa) / powersOfTen[dot < 0 ? 0 : digits &- dot]
            return negative ? -value : value
        }
        var mantissa: Int64 = 0
        var significant = 0      // digits kept in the mantissa, leading zeros excluded
        var fractionDigits = 0   // how many of the kept digits are after the dot
        var integerDigits = 0
        var anyDigit = false
        var seenDot = false
        while i < b.count {
            let c = b[i]
            i += 1
            if c == UInt8(ascii: ".") {
                if seenDot { return nil }
                seenDot = true
                continue
            }
            let d = c &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            anyDigit = true
            if !seenDot {
                integerDigits += 1
                guard integerDigits <= 12 else { return nil }  // no real NMEA value is this long
            }
            // Digits past 17 significant ones, or 18 fraction digits, are below a double's
            // precision for these magnitudes: drop them.
            guard significant < 17, fractionDigits < 18 else { continue }
            mantissa = mantissa * 10 + Int64(d)
            if mantissa != 0 { significant += 1 }
            if seenDot { fractionDigits += 1 }
        }
        guard anyDigit else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    @usableFromInline static let powersOfTen: [Double] = (0...18).map { p in
        var v = 1.0
        for _ in 0..<p { v *= 10 }
        return v
    }

    /// A latitude or longitude: `ddmm.mmmm` (or `dddmm.mmmm`) in field `index`, hemisphere
    /// letter in `index + 1`. Returns degrees, negative for S and W; nil when malformed or out
    /// of range.
    @inlinable @inline(__always)
    public func coordinate(_ index: Int, isLatitude: Bool) -> Double? {
        guard let raw = number(index), raw >= 0 else { return nil }
        let hemisphere = character(index + 1)
        let degrees = (raw / 100).rounded(.towardZero)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        var value = degrees + minutes / 60
        switch hemisphere {
        case UInt8(ascii: "N") where isLatitude, UInt8(ascii: "E") where !isLatitude: break
        case UInt8(ascii: "S") where isLatitude, UInt8(ascii: "W") where !isLatitude: value = -value
        default: return nil
        }
        guard abs(value) <= (isLatitude ? 90 : 180) else { return nil }
        return value
    }

    /// A time of day `hhmmss[.sss…]` in milliseconds since midnight. A 60th second (leap
    /// second) is allowed; fractions beyond milliseconds are truncated.
    @inlinable @inline(__always)
    public func timeOfDay(_ index: Int) -> Int32? {
        let b = bytes(index)
        guard b.count >= 6 else { return nil }
        guard let hours = NMEAFields.twoDigits(b, at: 0), let minutes = NMEAFields.twoDigits(b, at: 2),
              let seconds = NMEAFields.twoDigits(b, at: 4),
              hours < 24, minutes < 60, seconds <= 60 else { return nil }
        var ms = 0
        if b.count > 6 {
            guard b[6] == UInt8(ascii: ".") else { return nil }
            var scale = 100
            var i = 7
            while i < b.count {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                ms += Int(d) * scale
                scale /= 10
                i += 1
            }
        }
        return Int32(((hours * 60 + minutes) * 60 + seconds) * 1000 + ms)
    }

    @inlinable @inline(__always)
    static func twoDigits(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        let hi = b[i] &- UInt8(ascii: "0"), lo = b[i + 1] &- UInt8(ascii: "0")
        guard hi < 10, lo < 10 else { return nil }
        return Int(hi) * 10 + Int(lo)
    }

    /// An RMC date `ddmmyy`.
    @inlinable @inline(__always)
    public func shortDate(_ index: Int) -> ShortDate? {
        let b = bytes(index)
        guard b.count == 6 else { return nil }
        guard let day = NMEAFields.twoDigits(b, at: 0), let month = NMEAFields.twoDigits(b, at: 2),
              let year = NMEAFields.twoDigits(b, at: 4),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        return ShortDate(day: day, month: month, yearOfCentury: year)
    }
}

/// A date with a two-digit year, as RMC sends it; the century is the epoch assembler's call.
public struct ShortDate: Hashable, Sendable {
    public var day: Int
    public var month: Int
    public var yearOfCentury: Int

    public init(day: Int, month: Int, yearOfCentury: Int) {
        self.day = day
        self.month = month
        self.yearOfCentury = yearOfCentury
    }
}

/// The offsets of a set of fields made by `NMEAFields.init(body:)`.
final class BoundsStorage {
    let pointer = UnsafeMutablePointer<UInt16>.allocate(capacity: NMEAFields.capacity + 1)

    init() { pointer.initialize(repeating: 0, count: NMEAFields.capacity + 1) }

    deinit { pointer.deallocate() }
}
