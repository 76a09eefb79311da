/// Small allocation-free number formatting onto byte buffers, for the hot output paths
/// (JSON lines of fixes, GPX points). `String(describing:)` would allocate per number.
extension Array where Element == UInt8 {
    /// Appends a non-negative integer, zero-padded to `width` digits.
    @inlinable
    public mutating func appendDigits(_ value: Int, width: Int) {
        var v = value
        if v < 0 {
            append(UInt8(ascii: "-"))
            v = -v
        }
        var digits = 1
        var p = 10
        while p <= v, digits < 19 {
            digits += 1
            p &*= 10
        }
        var n = Swift.max(width, digits)
        let start = count
        for _ in 0..<n { append(UInt8(ascii: "0")) }
        while n > 0 {
            n -= 1
            self[start + n] = UInt8(ascii: "0") &+ UInt8(v % 10)
            v /= 10
        }
    }

    /// Appends a decimal number rounded to `places` fraction digits, trailing zeros trimmed but
    /// at least one fraction digit kept: 34.03294, 0.0, -117.7471233. `places` is at most 9.
    @inlinable
    public mutating func appendDecimal(_ value: Double, places: Int) {
        precondition(places >= 1 && places <= 9)
        sinkDecimal(value, places: places)
    }
}

/// Where the allocation-free formatters write: a growing byte array, or a raw writer at a
/// pointer the caller has made room behind (`Fix.writeJSON`). Each format is written once,
/// here, for both.
public protocol ByteSink {
    /// One byte.
    mutating func sinkByte(_ byte: UInt8)
    /// A non-negative integer, zero-padded to `width` digits.
    mutating func sinkDigits(_ value: UInt64, width: Int)
}

extension ByteSink {
    /// A decimal number rounded to `places` (1…9) fraction digits, trailing zeros trimmed but
    /// one kept (34.03294, 0.0, -117.7471233); `null` when not finite or too large.
    @inlinable @inline(__always)
    public mutating func sinkDecimal(_ value: Double, places: Int) {
        var scale: Int64 = 1
        for _ in 0..<places { scale &*= 10 }
        guard value.isFinite, abs(value) < 9.0e9 else {
            for b in "null".utf8 { sinkByte(b) }
            return
        }
        var scaled = (abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero)
        if scaled >= 9.2e18 { scaled = 9.2e18 }
        let units = Int64(scaled)
        if value < 0, units != 0 { sinkByte(UInt8(ascii: "-")) }
        sinkDigits(UInt64(units / scale), width: 1)
        sinkByte(UInt8(ascii: "."))
        var frac = units % scale
        var width = places
        while width > 1, frac % 10 == 0 {
            frac /= 10
            width -= 1
        }
        sinkDigits(UInt64(frac), width: width)
    }
}

extension Array: ByteSink where Element == UInt8 {
    @inlinable
    public mutating func sinkByte(_ byte: UInt8) { append(byte) }

    @inlinable
    public mutating func sinkDigits(_ value: UInt64, width: Int) { appendDigits(Int(value), width: width) }
}

extension Array where Element == UInt8 {
    /// Appends a non-negative decimal number with exactly `places` fraction digits, trailing
    /// zeros kept: 1.00, 0.004, 77.50. NMEA fields are written this way (a receiver prints a
    /// fixed number of digits, and a reader may count on it); `places` 0 writes an integer.
    /// Negative values are written with a sign; `places` is at most 9.
    @inlinable
    public mutating func appendFixed(_ value: Double, places: Int) {
        precondition(places >= 0 && places <= 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale &*= 10 }
        guard value.isFinite, abs(value) < 9.0e9 else {
            append(contentsOf: "null".utf8)
            return
        }
        let units = Int64((abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero))
        if value < 0, units != 0 { append(UInt8(ascii: "-")) }
        appendDigits(Int(units / scale), width: 1)
        guard places > 0 else { return }
        append(UInt8(ascii: "."))
        appendDigits(Int(units % scale), width: places)
    }
}
