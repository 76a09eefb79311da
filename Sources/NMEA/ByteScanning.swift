/// Word-at-a-time byte tests (SWAR) for the two loops that touch every byte of the stream:
/// finding where a line ends and XOR-ing its checksum. Eight bytes per step instead of one.
enum ByteScanning {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// True when some byte of `x` is zero (exact, with no false positives).
    @inline(__always)
    private static func hasZeroByte(_ x: UInt64) -> Bool {
        (x &- ones) & ~x & highs != 0
    }

    /// True when some byte of `word` is not ordinary sentence text: below 0x20, 0x7F or
    /// above, `$` or `!`.
    @inline(__always)
    static func hasLineBreak(_ word: UInt64) -> Bool {
        let below20 = (word &- ones &* 0x20) & ~word & highs
        return below20 | (word & highs) != 0
            || hasZeroByte(word ^ (ones &* 0x7F))
            || hasZeroByte(word ^ (ones &* 0x24))
            || hasZeroByte(word ^ (ones &* 0x21))
    }

    /// The index of the first byte at or after `start` that is not ordinary sentence text,
    /// or `end` if there is none.
    @inline(__always)
    static func lineEnd(in buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var i = start
        if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= end, !hasLineBreak(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
            }
        }
        while i < end, NMEAFramer.isLineByte(buffer[i]) { i += 1 }
        return i
    }

    /// XOR of `buffer[start..<end]`.
    @inline(__always)
    static func xor(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> UInt8 {
        var i = start
        var word: UInt64 = 0
        if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= end {
                word ^= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        word ^= word >> 32
        word ^= word >> 16
        word ^= word >> 8
        var sum = UInt8(truncatingIfNeeded: word)
        while i < end {
            sum ^= buffer[i]
            i += 1
        }
        return sum
    }
}
