/// Cuts a byte stream into NMEA lines, whatever the chunking.
///
/// A serial read can end anywhere, so the framer keeps state between chunks: CR, LF or CRLF
/// end a line; a `$` inside a line means the previous one was cut short; control and 8-bit
/// bytes corrupt a line; u-blox UBX (`B5 62`), SiRF (`A0 A2`) and CASIC (`BA CE`, the
/// AT6558 in Quectel L76K modules) binary packets interleaved with NMEA are recognised by
/// their headers and skipped by their length fields; a line
/// longer than `maximumLineLength` is dropped and the rest of it discarded, so memory never
/// grows with the input.
///
/// A line that starts with `#` is a comment (the header of a recording file, as gpsd's test
/// logs and Pacer's scenario recordings have) and is passed over.
///
/// Lines that lie wholly inside one chunk are handed out in place, without a copy; only a
/// line split across chunks is gathered in the framer's fixed-capacity buffer.
public struct NMEAFramer {
    /// NMEA 0183 allows 82 characters; real receivers send up to about 200 in proprietary
    /// sentences. Lines are bounded at this many bytes from `$` to the last checksum digit.
    public static let maximumLineLength = 255

    private enum State {
        case hunting
        case line
        case discarding
        case comment
        /// The first sync byte of `format` was seen.
        case binarySync(BinaryFormat)
        /// `seen` bytes of the header after the sync bytes; the payload length so far.
        case binaryHeader(BinaryFormat, seen: Int, length: Int)
        case skipping(remaining: Int)
    }

    private var state = State.hunting
    /// Line feeds seen so far: the current line's number is this plus one.
    private var lineFeeds = 0
    /// True at the start of the stream and right after a line feed.
    private var atLineStart = true
    /// The start of a line split across chunks.
    private var pending: [UInt8]
    public private(set) var statistics = NMEAStatistics()

    public init() {
        pending = []
        pending.reserveCapacity(NMEAFramer.maximumLineLength)
    }

    /// The 1-based number of the line being read (line feeds outside binary packets, plus one).
    public var lineNumber: Int { lineFeeds + 1 }

    /// Feeds a chunk; `onLine` receives each complete line (from `$` or `!`, without the line
    /// ending), valid only during the call, with its line number. `onDamage`, when given, hears of every line the
    /// framer itself refuses.
    public mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>,
        onLine: (UnsafeBufferPointer<UInt8>, Int) -> Void,
        onDamage: ((NMEARejection) -> Void)? = nil
    ) {
        feed(chunk, onScannedLine: { line, number, _ in onLine(line, number) }, onDamage: onDamage)
    }

    /// `feed(_:onLine:onDamage:)`, with what the search for each line's end learnt of it (its
    /// checksum XOR and commas) for a line that lay wholly in the chunk; nil for a line
    /// gathered across chunks.
    @inline(__always)
    mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>,
        onScannedLine: (UnsafeBufferPointer<UInt8>, Int, UnsafeMutablePointer<LineScan>?) -> Void,
        onDamage: ((NMEARejection) -> Void)?
    ) {
        statistics.bytes += chunk.count
        var scan = LineScan()
        let n = chunk.count
        var i = 0
        // Where the current line began in this chunk; -1 while it began in an earlier chunk
        // (its first part is then in `pending`).
        var lineStart = -1
        while i < n {
            switch state {
            case .line:
                let j: Int
                if lineStart >= 0 {  // then i is lineStart + 1
                    scan.reset()
                    j = ByteScanning.scanLine(in: chunk, from: i, to: n, lineStart: lineStart, into: &scan)
                } else {
                    j = ByteScanning.lineEnd(in: chunk, from: i, to: n)
                }
                let length = lineStart >= 0 ? j - lineStart : pending.count + (j - i)
                if length > NMEAFramer.maximumLineLength {
                    statistics.overlong += 1
                    onDamage?(damage(.overlong, chunk, lineStart, i, j))
                    pending.removeAll(keepingCapacity: true)
                    lineStart = -1
                    state = .discarding
                    i = j
                    continue
                }
                if j == n {  // the chunk ends inside the line: what we have carries over
                    if lineStart < 0 {
                        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[i..<n]))
                    }
                    i = n
                    continue
                }
                let c = chunk[j]
                if c == 0x0D || c == 0x0A {
                    // CR LF, the usual ending, is stepped over at once rather than hunted through.
                    let crlf = c == 0x0D && j + 1 < n && chunk[j + 1] == 0x0A
                    if lineStart >= 0 {
                        if j - lineStart > 1 {
                            let line = UnsafeBufferPointer(rebasing: chunk[lineStart..<j])
                            withUnsafeMutablePointer(to: &scan) { onScannedLine(line, lineNumber, $0) }
                        }
                    } else {
                        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[i..<j]))
                        if pending.count > 1 { pending.withUnsafeBufferPointer { onScannedLine($0, lineNumber, nil) } }
                        pending.removeAll(keepingCapacity: true)
                    }
                    lineStart = -1
                    state = .hunting
                    if c == 0x0A || crlf { lineFeeds += 1 }
                    atLineStart = true
                    i = crlf ? j + 2 : j + 1
                } else if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") {
                    statistics.malformed += 1  // the line before was cut short
                    onDamage?(damage(.cutShort, chunk, lineStart, i, j))
                    pending.removeAll(keepingCapacity: true)
                    lineStart = j
                    i = j + 1
                } else {
                    statistics.malformed += 1  // control, NUL or binary byte inside a sentence
                    onDamage?(damage(.corrupted(byte: c), chunk, lineStart, i, j))
                    pending.removeAll(keepingCapacity: true)
                    lineStart = -1
                    state = .hunting
                    i = j  // look at it again: it may start a binary packet
                }

            case .hunting:
                let c = chunk[i]
                i += 1
                let lineStartBefore = atLineStart
                atLineStart = c == 0x0A
                switch c {
                case UInt8(ascii: "#") where lineStartBefore:
                    state = .comment  // a `# Name: …` header line of a recording file
                case UInt8(ascii: "$"), UInt8(ascii: "!"):
                    state = .line
                    lineStart = i - 1
                case BinaryFormat.ubx.sync.0: state = .binarySync(.ubx)
                case BinaryFormat.sirf.sync.0: state = .binarySync(.sirf)
                case BinaryFormat.casic.sync.0: state = .binarySync(.casic)
                case 0x0A: lineFeeds += 1
                case 0x0D, 0x20: break
                default: statistics.garbageBytes += 1
                }

            case .discarding:
                let c = chunk[i]
                i += 1
                if c == 0x0D || c == 0x0A {
                    state = .hunting
                    if c == 0x0A { lineFeeds += 1 }
                    atLineStart = true
                } else if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") {
                    state = .line
                    lineStart = i - 1
                }

            case .comment:
                while i < n, chunk[i] != 0x0A { i += 1 }
                if i < n {
                    lineFeeds += 1
                    atLineStart = true
                    state = .hunting
                    i += 1
                }

            case .skipping(let remaining):
                let step = min(remaining, n - i)
                i += step
                state = remaining > step ? .skipping(remaining: remaining - step) : .hunting

            case .binarySync, .binaryHeader:
                if binaryHeader(chunk[i]) { i += 1 }  // else: no packet after all; hunt from this byte
            }
        }
        // A line that began in this chunk and is still open (the chunk ended on its `$`, or
        // inside it) carries over in `pending`.
        if case .line = state, lineStart >= 0 {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[lineStart..<n]))
        }
    }

    /// Ends the stream: a last line without a line ending is still delivered.
    public mutating func finish(onLine: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        if case .line = state, pending.count > 1 {
            pending.withUnsafeBufferPointer { onLine($0, lineNumber) }
        }
        pending.removeAll(keepingCapacity: true)
        state = .hunting
    }

    /// A rejection for the line being read: its start is at `lineStart` in the chunk, or in
    /// `pending` followed by `chunk[i..<j]`. Only built when someone listens.
    private func damage(
        _ reason: NMEARejection.Reason, _ chunk: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ i: Int, _ j: Int
    ) -> NMEARejection {
        let bytes = lineStart >= 0 ? Array(chunk[lineStart..<j]) : pending + Array(chunk[i..<j])
        let text = bytes.withUnsafeBufferPointer { NMEARejection.excerpt($0) }
        return NMEARejection(line: lineNumber, reason: reason, text: text)
    }

    /// Printable ASCII other than the sentence starters.
    @inline(__always)
    static func isLineByte(_ c: UInt8) -> Bool {
        c &- 0x20 < 0x5F && c != UInt8(ascii: "$") && c != UInt8(ascii: "!")
    }

    /// One byte of a binary packet's sync or header. Returns false when the sync fails: the
    /// state is then `.hunting` and the caller looks at the byte again.
    private mutating func binaryHeader(_ byte: UInt8) -> Bool {
        switch state {
        case .binarySync(let format):
            guard byte == format.sync.1 else {
                statistics.garbageBytes += 1
                state = .hunting
                return false
            }
            state = .binaryHeader(format, seen: 0, length: 0)

        case .binaryHeader(let format, let seen, var length):
            if let shift = format.lengthShift(at: seen) { length |= Int(byte) << shift }
            if seen + 1 < format.headerLength {
                state = .binaryHeader(format, seen: seen + 1, length: length)
            } else if length & format.lengthMask <= format.maximumPayload {
                statistics.binaryPackets += 1
                state = .skipping(remaining: length & format.lengthMask + format.trailerLength)
            } else {
                statistics.garbageBytes += 2 + format.headerLength  // a length no packet has: noise
                state = .hunting
            }

        default:
            break
        }
        return true
    }
}

/// How a binary protocol that receivers interleave with NMEA frames its packets: two sync
/// bytes, a header holding the payload length, the payload, a trailer (checksum, end bytes).
/// The framer only needs to step over them.
struct BinaryFormat: Sendable {
    var sync: (UInt8, UInt8)
    /// Header bytes after the sync bytes.
    var headerLength: Int
    /// Where in the header the two length bytes are, and their order.
    var lengthOffset: Int
    var bigEndian: Bool
    var lengthMask: Int
    var trailerLength: Int
    /// A longer length field is taken for noise, not a packet.
    var maximumPayload: Int

    /// u-blox UBX: B5 62, class, id, length (LE), payload, two checksum bytes.
    static let ubx = BinaryFormat(
        sync: (0xB5, 0x62), headerLength: 4, lengthOffset: 2, bigEndian: false, lengthMask: 0xFFFF,
        trailerLength: 2, maximumPayload: 4096)
    /// SiRF binary: A0 A2, 15-bit length (BE), payload, two checksum bytes, B0 B3.
    static let sirf = BinaryFormat(
        sync: (0xA0, 0xA2), headerLength: 2, lengthOffset: 0, bigEndian: true, lengthMask: 0x7FFF,
        trailerLength: 4, maximumPayload: 1023)
    /// CASIC (the AT6558 in Quectel L76K modules): BA CE, length (LE), class, id, payload,
    /// four checksum bytes.
    static let casic = BinaryFormat(
        sync: (0xBA, 0xCE), headerLength: 4, lengthOffset: 0, bigEndian: false, lengthMask: 0xFFFF,
        trailerLength: 4, maximumPayload: 2048)

    /// The bit shift of header byte `index` within the length, or nil when it is not a length byte.
    func lengthShift(at index: Int) -> Int? {
        switch index - lengthOffset {
        case 0: bigEndian ? 8 : 0
        case 1: bigEndian ? 0 : 8
        default: nil
        }
    }
}
