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

/// What one pass over a line gives the parser: the XOR of its bytes after the start character
/// and where its first `NMEAFields.capacity` commas are. The framer fills it while it looks
/// for the line's end, so framing, checksum and field boundaries take one pass over the bytes.
struct LineScan {
    /// XOR of every byte scanned (all of the line after its `$` or `!`).
    var xor: UInt8 = 0
    /// Commas seen (all of them, even past the capacity).
    var commas = 0
    /// `bounds[k + 1]` is the offset in the line (from its start character) of comma `k`, for
    /// the first `NMEAFields.capacity` commas: `NMEAFields`' layout, read in place. (64 rather
    /// than 41 entries: an index masked with 63 needs no bounds check in the scan's loop.)
    var bounds: InlineArray<64, UInt16> = InlineArray(repeating: 0)

    @inline(__always)
    mutating func reset() {
        xor = 0
        commas = 0
    }

    @inline(__always)
    mutating func comma(at offset: Int) {
        LineScan.comma(at: offset, &commas, &bounds)
    }

    /// `comma(at:)` on a count held apart (in a register, through the scan's hot loop).
    @inline(__always)
    static func comma(at offset: Int, _ commas: inout Int, _ bounds: inout InlineArray<64, UInt16>) {
        if commas < NMEAFields.capacity { bounds[commas &+ 1] = UInt16(truncatingIfNeeded: offset) }
        commas &+= 1
    }

    /// Scans a whole line given from outside the framer (whatever bytes it holds), from the
    /// byte after its start character.
    init(wholeLine line: UnsafeBufferPointer<UInt8>) {
        var sum: UInt8 = 0
        var i = 1
        while i < line.count {
            let c = line[i]
            sum ^= c
            if c == UInt8(ascii: ",") { comma(at: i) }
            i += 1
        }
        xor = sum
    }

    init() {}
}

extension ByteScanning {
    /// The bytes of `x` that are zero, as their high bits (exact, unlike `hasZeroByte`'s test).
    @inline(__always)
    static func zeroBytes(_ x: UInt64) -> UInt64 {
        ~(((x & ~highs) &+ ~highs) | x) & highs
    }

    /// True when some byte of `word` is below `*` or above `~`: every byte that ends a line
    /// (control and 8-bit bytes, `$`, `!`) is, and of a sentence's own bytes only a space and
    /// a few rare signs. Cheaper than `hasLineBreak`, and exact about whether there is one.
    @inline(__always)
    static func mayHaveLineBreak(_ word: UInt64) -> Bool {
        ((word &- ones &* 0x2A) & ~word | word | (word &+ ones)) & highs != 0
    }

    /// `lineEnd(in:from:to:)` that also XORs the bytes it passes over into `scan` and notes
    /// its commas at their offsets from `lineStart`: eight bytes a step, commas picked out of
    /// each word by their bit positions; a word that may hold the line's end (or its `*`) is
    /// read a byte at a time.
    @inline(__always)
    static func scanLine(
        in buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, lineStart: Int,
        into scan: inout LineScan
    ) -> Int {
        let comma = UInt8(ascii: ",")
        var i = start
        var word: UInt64 = 0
        var sum: UInt8 = 0
        var n = scan.commas
        defer { scan.commas = n }
        scanning: if let base = buffer.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i &+ 8 <= end {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                if mayHaveLineBreak(w) {
                    let stop = i &+ 8
                    while i < stop {
                        let c = base[i]
                        guard NMEAFramer.isLineByte(c) else { break scanning }
                        sum ^= c
                        if c == comma { LineScan.comma(at: i &- lineStart, &n, &scan.bounds) }
                        i &+= 1
                    }
                    continue
                }
                word ^= w
                var commas = zeroBytes(w ^ (ones &* 0x2C))
                if n < NMEAFields.capacity &- 8 {  // room for the word's commas: no check each
                    while commas != 0 {
                        scan.bounds[(n &+ 1) & 63] = UInt16(truncatingIfNeeded: i &- lineStart &+ commas.trailingZeroBitCount &>> 3)
                        n &+= 1
                        commas &= commas &- 1
                    }
                } else {
                    while commas != 0 {
                        LineScan.comma(at: i &- lineStart &+ commas.trailingZeroBitCount &>> 3, &n, &scan.bounds)
                        commas &= commas &- 1
                    }
                }
                i &+= 8
            }
            while i < end {
                let c = base[i]
                guard NMEAFramer.isLineByte(c) else { break }
                sum ^= c
                if c == comma { LineScan.comma(at: i &- lineStart, &n, &scan.bounds) }
                i &+= 1
            }
        }
        word ^= word &>> 32
        word ^= word &>> 16
        word ^= word &>> 8
        scan.xor ^= sum ^ UInt8(truncatingIfNeeded: word)
        return i
    }
}
