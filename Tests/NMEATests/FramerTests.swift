import NMEA
import PacerCore
import TestSupport
import Testing

// Framing through `NMEADecoder.feed`: line endings, noise, binary packets, damaged and
// over-long lines, and the last line of a stream.

@Suite("Framer")
struct FramerTests {
    @Test(arguments: ["\r\n", "\n", "\r", "\n\r"])
    func lineEndings(_ ending: String) {
        let decoded = decode(recording(cycle(), ending: ending))
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.rejected == 0)
        #expect(decoded.statistics.garbageBytes == 0)
    }

    @Test func leadingGarbageIsCountedAndSkipped() {
        let garbage: [UInt8] = Array("xyz".utf8) + [0x01, 0x7F, 0xFF, 0x00]
        let decoded = decode(garbage + recording(cycle()))
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.garbageBytes == 7)
        #expect(decoded.statistics.rejected == 0)
    }

    @Test func ubxPacketBetweenSentencesIsSkipped() {
        let sentences = cycle()
        // The payload holds `$`, line feeds and a whole sentence of another cycle.
        let payload = Array("$\n\r$".utf8) + recording([nmea("GPRMC,145250.00,V,,,,,,,030610,,,N")]) + [0x00, 0xB5]
        let bytes = recording([sentences[0]]) + ubxPacket(class: 0x01, id: 0x07, payload: payload)
            + recording(Array(sentences[1...]))
        let decoded = decode(bytes)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.binaryPackets == 1)
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.malformed == 0)
        #expect(decoded.statistics.garbageBytes == 0)
    }

    @Test func ubxPacketsBackToBack() {
        let sentences = cycle()
        let bytes = recording([sentences[0]]) + ubxPacket(class: 0x01, id: 0x07, payload: Array(repeating: 0x24, count: 92))
            + ubxPacket(class: 0x05, id: 0x01, payload: [0x06, 0x01]) + ubxPacket(class: 0x0A, id: 0x04, payload: [])
            + recording(Array(sentences[1...]))
        let decoded = decode(bytes)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.binaryPackets == 3)
        #expect(decoded.statistics.rejected == 0)
    }

    @Test func sirfPacketBetweenSentencesIsSkipped() {
        let sentences = cycle()
        let payload = [0x29] + Array("$\n".utf8) + recording([nmea("GPRMC,145250.00,V,,,,,,,030610,,,N")]) + [0xA0, 0x0A]
        let bytes = recording(Array(sentences[..<3])) + sirfPacket(payload: payload) + recording(Array(sentences[3...]))
        let decoded = decode(bytes)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.binaryPackets == 1)
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.malformed == 0)
        #expect(decoded.statistics.garbageBytes == 0)
    }

    @Test func casicPacketBetweenSentencesIsSkipped() {
        let sentences = cycle()
        // BA CE, length 8 (little-endian), class 0x01, id 0x03, payload, 32-bit checksum.
        let payload = Array("$\r\n$GPGG".utf8)
        let casic: [UInt8] = [0xBA, 0xCE, 0x08, 0x00, 0x01, 0x03] + payload + [0x24, 0x0A, 0x11, 0x22]
        let bytes = recording([sentences[0]]) + casic + recording(Array(sentences[1...]))
        let decoded = decode(bytes)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.binaryPackets == 1)
        #expect(decoded.statistics.rejected == 0)
        #expect(decoded.statistics.garbageBytes == 0)
    }

    /// Every byte value, at every offset modulo 16 inside a sentence: printable text other
    /// than `$`, `!` and `*` leaves the sentence intact; a control or 8-bit byte (other than a
    /// line ending) makes it malformed.
    @Test func everyByteValueInsideASentence() {
        var failures: [String] = []
        for value in 0...255 {
            let byte = UInt8(value)
            if byte == 0x0D || byte == 0x0A || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "!")
                || byte == UInt8(ascii: "*") {
                continue
            }
            for offset in 0..<16 {
                var body = Array("GPTXT,01,01,02,".utf8) + Array(repeating: UInt8(ascii: "x"), count: 24)
                body[15 + offset] = byte
                let line = Array("$".utf8) + body + Array("*\(checksum(bytes: body))\r\n".utf8)
                let s = decode(line).statistics
                let printable = byte >= 0x20 && byte < 0x7F
                if printable ? (s.skipped != 1 || s.rejected != 0) : (s.malformed != 1 || s.skipped != 0) {
                    failures.append("byte 0x\(String(value, radix: 16)) at \(offset): \(s)")
                }
            }
        }
        #expect(failures == [])
    }

    @Test func nulBytesBetweenSentencesAreGarbage() {
        let bytes: [UInt8] = cycle().map { Array(($0 + "\r\n").utf8) + [0, 0, 0] }.flatMap { $0 }
        let decoded = decode(bytes)
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.garbageBytes == 21)
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.rejected == 0)
    }

    @Test func nulInsideASentenceRejectsOnlyThatSentence() {
        let sentences = cycle()
        let gga = Array(sentences[0].utf8)
        let damaged = Array(gga[..<20]) + [0x00] + Array(gga[20...]) + Array("\r\n".utf8)
        let decoded = decode(damaged + recording(Array(sentences[1...])))
        #expect(epochs(decoded, like: [.fix(cycleFixWithoutGGA)]) == [.fix(cycleFixWithoutGGA)])
        #expect(decoded.statistics.malformed == 1)
        #expect(decoded.statistics.sentences == 6)
    }

    @Test func sentenceCutShortByANewDollarIsMalformed() {
        let sentences = cycle()
        let cut = Array(sentences[0].utf8.prefix(25))
        let decoded = decode(cut + recording(Array(sentences[1...])))
        #expect(epochs(decoded, like: [.fix(cycleFixWithoutGGA)]) == [.fix(cycleFixWithoutGGA)])
        #expect(decoded.statistics.malformed == 1)
        #expect(decoded.statistics.sentences == 6)
    }

    @Test func overlongLineIsDroppedAndTheNextDecodes() {
        // A GGA of another second, padded to 10 000 printable bytes: it must not count.
        let start = "$GPGGA,145242.00,3401.9764,N,11744.827398,W,1,08,0.9,234.7,M,-32.1,M,,"
        let overlong = start + String(repeating: "0", count: 10_000 - start.utf8.count)
        #expect(overlong.utf8.count == 10_000)
        let decoded = decode(Array((overlong + "\r\n").utf8) + recording(cycle()))
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.overlong == 1)
        #expect(decoded.statistics.malformed == 0)
        #expect(decoded.statistics.sentences == 7)
        #expect(decoded.statistics.garbageBytes == 0)
    }

    @Test func lineOfMaximumLengthIsKeptOneMoreIsOverlong() {
        func line(length: Int) -> String {
            let head = "GPTXT,01,01,02,"
            let body = head + String(repeating: "a", count: length - head.utf8.count - 4)
            return nmea(body)
        }
        let longest = line(length: NMEAFramer.maximumLineLength)
        let tooLong = line(length: NMEAFramer.maximumLineLength + 1)
        #expect(longest.utf8.count == NMEAFramer.maximumLineLength)
        let decoded = decode([longest, tooLong])
        #expect(decoded.statistics.skipped == 1)
        #expect(decoded.statistics.overlong == 1)
    }

    @Test func lastLineWithoutEndingIsDeliveredAtFinish() {
        var bytes = recording(cycle())
        bytes += Array(nmea("GPRMC,145244.00,A,3401.9764,N,11744.827398,W,0.00,119.27,030610,,,A").utf8)
        var decoder = NMEADecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(bytes, onEpoch: { epochs.append($0) })
        #expect(epochs.isEmpty)
        #expect(decoder.statistics.sentences == 7)
        decoder.finish(onEpoch: { epochs.append($0) })
        #expect(decoder.statistics.sentences == 8)
        #expect(epochs.count == 2)
        #expect(decoder.statistics.fixes == 2)
    }

    @Test func aisLinesAreFramedAndSkipped() {
        let decoded = decode([nmea("AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0", start: "!")] + cycle())
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.skipped == 1)
    }

    @Test func proprietaryAndUnknownSentencesAreSkipped() {
        let decoded = decode([
            nmea("PUBX,00,081350.00,4717.113210,N,00833.915187,E,546.589,G3,2.1,2.0,0.007,77.52,0.007,,0.92,1.19,0.77,9,0,0"),
            nmea("GPTXT,01,01,02,u-blox ag - www.u-blox.com"),
        ] + cycle())
        #expect(epochs(decoded, like: [.fix(cycleFix)]) == [.fix(cycleFix)])
        #expect(decoded.statistics.skipped == 2)
        #expect(decoded.statistics.rejected == 0)
    }

    @Test func bytesAreCounted() {
        let bytes = recording(cycle())
        #expect(decode(bytes).statistics.bytes == bytes.count)
    }
}
