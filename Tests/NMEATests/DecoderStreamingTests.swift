import NMEA
import PacerCore
import TestSupport
import Testing

// The same bytes give the same epochs and statistics however a serial port chunks them.

@Suite("Decoder streaming")
struct DecoderStreamingTests {
    /// Several cycles with every kind of damage and interleaving the framer handles.
    static let recordingBytes: [UInt8] = {
        var bytes: [UInt8] = Array("garbage".utf8) + [0x00, 0x00]
        bytes += recording(cycle(time: "145243.00"))
        bytes += ubxPacket(class: 0x01, id: 0x07, payload: Array("$GPGGA,\r\n$".utf8) + [0xB5, 0x62, 0x00])
        bytes += recording(cycle(time: "145244.00"), ending: "\n")
        bytes += sirfPacket(payload: [0x02] + Array("$\n!".utf8))
        bytes += recording([withWrongChecksum(cycle(time: "145245.00")[0])])
        bytes += Array(cycle(time: "145245.00")[1].utf8.prefix(30))  // cut short by the next `$`
        bytes += recording(cycle(time: "145245.00"), ending: "\r")
        bytes += Array(("$GPTXT,01,01,02," + String(repeating: "x", count: 600) + "\r\n").utf8)
        bytes += recording([nmea("PGRME,15.0,M,45.0,M,25.0,M"), nmea("GPTXT,01,01,02,hello")])
        var damaged = Array(cycle(time: "145246.00")[0].utf8)
        damaged.insert(0x00, at: 12)
        bytes += damaged + Array("\r\n".utf8)
        bytes += recording(Array(cycle(time: "145246.00")[1...]))
        bytes += [0x00, 0xB5, 0x00, 0xA0, 0x00]
        bytes += recording(cycle(time: "145247.00"))
        bytes += Array(nmea("GPRMC,145248.00,A,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,A").utf8)
        return bytes
    }()

    static let whole = decode(recordingBytes)

    @Test func recordingExercisesTheFramer() {
        let s = Self.whole.statistics
        #expect(Self.whole.fixes.count == 6)
        #expect(s.binaryPackets == 2)
        #expect(s.badChecksum == 1)
        #expect(s.malformed == 2)
        #expect(s.overlong == 1)
        #expect(s.skipped == 2)
        #expect(s.garbageBytes > 0)
        #expect(s.missingChecksum == 0)
    }

    /// Statistics first: a mismatch there is short to read.
    private func expectSameAsWhole(_ decoded: Decoded, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(decoded.statistics == Self.whole.statistics, sourceLocation: sourceLocation)
        #expect(decoded.epochs == Self.whole.epochs, sourceLocation: sourceLocation)
    }

    @Test func oneByteAtATime() {
        expectSameAsWhole(decode(chunks: chunked(Self.recordingBytes, sizes: [1])))
    }

    @Test(arguments: [[2], [3], [7], [64], [1, 2, 3, 5, 8, 13], [0, 1, 0, 17]])
    func fixedChunkSizes(_ sizes: [Int]) {
        expectSameAsWhole(decode(chunks: chunked(Self.recordingBytes, sizes: sizes)))
    }

    @Test(arguments: [UInt64(1), 2, 3, 42, 2024, 0xDEAD_BEEF])
    func randomChunkSizes(_ seed: UInt64) {
        expectSameAsWhole(decode(chunks: randomlyChunked(Self.recordingBytes, seed: seed)))
    }

    /// Every two-chunk split of one cycle decodes like the whole: lists the split points that
    /// do not.
    @Test func everySplitPointOfACycle() {
        let bytes = recording(cycle())
        let reference = decode(bytes)
        var differing: [Int] = []
        for k in 0...bytes.count where decode(chunks: [Array(bytes[..<k]), Array(bytes[k...])]) != reference {
            differing.append(k)
        }
        #expect(differing == [])
    }

    /// The smallest case of a chunk that ends on a sentence's `$`.
    @Test func chunkEndingWithDollar() {
        let sentence = nmea("GPRMC,145243.00,A,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,A") + "\r\n"
        let decoded = decode(chunks: [Array("$".utf8), Array(sentence.utf8.dropFirst())])
        #expect(decoded.statistics.sentences == 1)
        #expect(decoded.statistics.badChecksum == 0)
        #expect(decoded.fixes.count == 1)
    }
}
