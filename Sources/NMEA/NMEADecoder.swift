import PacerCore

/// The NMEA engine's front door: bytes in, one `NMEAEpoch` per receiver cycle out.
///
/// Owns a framer, the line parser and an epoch assembler, and keeps the statistics. Feed it
/// chunks of any size as they arrive from a serial port, gpsd raw mode or a file.
public struct NMEADecoder {
    /// What to do with a line that has no `*hh` checksum.
    public enum ChecksumPolicy: Sendable {
        /// Accept lines without a checksum only from a receiver that has never sent a
        /// checksummed sentence in this stream (some old Garmin and Magellan modes send none);
        /// once one checksummed sentence has been seen, a line without one is rejected.
        case acceptFromReceiversWithoutChecksums
        /// Reject every line without a checksum.
        case require
    }

    private var framer = NMEAFramer()
    /// Everything after framing. Kept apart from the framer so that the framer can run in place
    /// (no copy of its buffer) while lines are handed to this state.
    private var lines: LineState
    public let checksumPolicy: ChecksumPolicy

    public init(checksumPolicy: ChecksumPolicy = .acceptFromReceiversWithoutChecksums) {
        self.checksumPolicy = checksumPolicy
        lines = LineState(checksumPolicy: checksumPolicy)
    }

    public var statistics: NMEAStatistics {
        var s = framer.statistics
        let p = lines.parsed
        s.sentences = p.sentences
        s.skipped = p.skipped
        s.badChecksum = p.badChecksum
        s.missingChecksum = p.missingChecksum
        s.malformed += p.malformed
        s.fixes = p.fixes
        return s
    }

    /// Feeds a chunk of bytes; `onEpoch` is called for every cycle that completes, and
    /// `onReject`, when given, for every line refused (with its line number and reason).
    public mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>,
        onEpoch: (NMEAEpoch) -> Void,
        onReject: ((NMEARejection) -> Void)? = nil
    ) {
        var state = lines
        framer.feed(
            chunk,
            onScannedLine: { line, number, scan in
                state.handle(line, number, scan: scan, onEpoch: onEpoch, onReject: onReject)
            },
            onDamage: onReject)
        lines = state
    }

    /// Feeds bytes from any sequence (tests, strings).
    public mutating func feed(
        _ bytes: some Sequence<UInt8>, onEpoch: (NMEAEpoch) -> Void, onReject: ((NMEARejection) -> Void)? = nil
    ) {
        let array = Array(bytes)
        array.withUnsafeBufferPointer { feed($0, onEpoch: onEpoch, onReject: onReject) }
    }

    /// Ends the stream: a last unterminated line and the cycle in progress are delivered.
    public mutating func finish(onEpoch: (NMEAEpoch) -> Void, onReject: ((NMEARejection) -> Void)? = nil) {
        var state = lines
        framer.finish { line, number in state.handle(line, number, scan: nil, onEpoch: onEpoch, onReject: onReject) }
        state.finish(onEpoch: onEpoch)
        lines = state
    }
}

private struct LineState {
    let checksumPolicy: NMEADecoder.ChecksumPolicy
    var assembler = EpochAssembler()
    var parsed = NMEAStatistics()
    var sawChecksum = false

    init(checksumPolicy: NMEADecoder.ChecksumPolicy) {
        self.checksumPolicy = checksumPolicy
    }

    /// `scan` is the framer's pass over the line (a line it hands out in place is at most
    /// `maximumLineLength` bytes); nil when the line was gathered across chunks.
    @inline(__always)
    mutating func handle(
        _ line: UnsafeBufferPointer<UInt8>, _ lineNumber: Int, scan: UnsafeMutablePointer<LineScan>?,
        onEpoch: (NMEAEpoch) -> Void, onReject: ((NMEARejection) -> Void)?
    ) {
        let acceptMissing = checksumPolicy == .acceptFromReceiversWithoutChecksums && !sawChecksum
        let verdict: NMEALine
        if let scan {
            verdict = NMEALineParser.parse(line, scan: &scan.pointee, acceptMissingChecksum: acceptMissing)
        } else if line.count < Int(UInt16.max) {
            var scan = LineScan(wholeLine: line)
            verdict = NMEALineParser.parse(line, scan: &scan, acceptMissingChecksum: acceptMissing)
        } else {
            verdict = .malformed
        }
        switch verdict {
        case .sentence(let sentence):
            parsed.sentences += 1
            if let epoch = assembler.add(sentence) { deliver(epoch, onEpoch) }
        case .proprietary, .unknown:
            parsed.skipped += 1
        case .badChecksum:
            parsed.badChecksum += 1
            onReject?(NMEARejection(line: lineNumber, reason: .badChecksum, text: NMEARejection.excerpt(line)))
        case .missingChecksum:
            parsed.missingChecksum += 1
            onReject?(NMEARejection(line: lineNumber, reason: .missingChecksum, text: NMEARejection.excerpt(line)))
        case .malformed:
            parsed.malformed += 1
            onReject?(NMEARejection(line: lineNumber, reason: .malformedFields, text: NMEARejection.excerpt(line)))
        }
        if !sawChecksum, verdict != .badChecksum, verdict != .missingChecksum, NMEALineParser.hasChecksum(line) {
            sawChecksum = true
        }
    }

    mutating func finish(onEpoch: (NMEAEpoch) -> Void) {
        if let epoch = assembler.finish() { deliver(epoch, onEpoch) }
    }

    mutating func deliver(_ epoch: NMEAEpoch, _ onEpoch: (NMEAEpoch) -> Void) {
        if case .fix = epoch { parsed.fixes += 1 }
        onEpoch(epoch)
    }
}
