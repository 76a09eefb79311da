import PacerCore
import Foundation
import HAL
import Simulation
import TestSupport
import Testing

private func ms(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1_000_000).rounded())) }

/// A WAV file read the way a player reads it: chunk by chunk, checking every size.
private struct WAVFile {
    var channels = 0
    var sampleRate = 0
    var byteRate = 0
    var blockAlign = 0
    var bitsPerSample = 0
    var format = 0
    var samples: [Int16] = []

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else { throw Invalid(description: "not RIFF/WAVE") }
        guard u32(4) == bytes.count - 8 else { throw Invalid(description: "RIFF size \(u32(4)), file \(bytes.count)") }
        var at = 12
        var sawFormat = false, sawData = false
        while at + 8 <= bytes.count {
            let size = u32(at + 4)
            guard at + 8 + size <= bytes.count else { throw Invalid(description: "chunk \(tag(at)) overruns the file") }
            switch tag(at) {
            case "fmt ":
                guard size == 16 else { throw Invalid(description: "fmt size \(size)") }
                format = u16(at + 8)
                channels = u16(at + 10)
                sampleRate = u32(at + 12)
                byteRate = u32(at + 16)
                blockAlign = u16(at + 20)
                bitsPerSample = u16(at + 22)
                sawFormat = true
            case "data":
                guard sawFormat else { throw Invalid(description: "data before fmt") }
                samples = stride(from: at + 8, to: at + 8 + size, by: 2).map {
                    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
                }
                sawData = true
            default:
                break
            }
            at += 8 + size + size % 2
        }
        guard at == bytes.count, sawFormat, sawData else { throw Invalid(description: "missing chunks or trailing bytes") }
    }
}

private func temporaryPath(_ name: String = #function) throws -> String {
    try makeTemporaryDirectory("wav") + "/\(name.filter(\.isLetter)).wav"
}

@Suite("WAV buzzer")
struct WAVBuzzerTests {
    static let cues: [(Cue, [Tone])] = [
        (.speedUp, [Tone(frequency: 2400, duration: ms(60)), .rest(ms(40)), Tone(frequency: 3600, duration: ms(60))]),
        (.slowDown, [Tone(frequency: 2000, duration: ms(250))]),
        (.workoutComplete, [Tone(frequency: 1568, duration: ms(166.7)), Tone(frequency: 2093, duration: ms(333.3)), .rest(ms(83.3))]),
    ]

    @Test func theFileIsAValidWAVOfTheSynthesizedCuesInOrder() throws {
        let path = try temporaryPath()
        let buzzer = try WAVBuzzer(path: path)
        #expect(buzzer.name == "wav:\(path)")
        let synth = ToneSynthesizer()
        var expected: [Int16] = []
        for (cue, tones) in WAVBuzzerTests.cues {
            buzzer.play(cue, tones: tones)
            buzzer.drain()
            expected += synth.render(tones)
            // Valid after every drain, not only at the end.
            let wav = try WAVFile(path: path)
            #expect(wav.format == 1)
            #expect(wav.channels == 1)
            #expect(wav.sampleRate == 44_100)
            #expect(wav.byteRate == 88_200)
            #expect(wav.blockAlign == 2)
            #expect(wav.bitsPerSample == 16)
            #expect(wav.samples == expected)
        }
        #expect(buzzer.sampleCount == expected.count)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 44 + expected.count * 2)
    }

    @Test func aNewBuzzerStartsAnEmptyValidFile() throws {
        let path = try temporaryPath()
        try Data(repeating: 0x55, count: 1000).write(to: URL(fileURLWithPath: path))
        let buzzer = try WAVBuzzer(path: path, synthesizer: ToneSynthesizer(sampleRate: 22_050))
        var wav = try WAVFile(path: path)
        #expect(wav.samples.isEmpty)
        #expect(wav.sampleRate == 22_050)
        buzzer.play(.onPace, tones: [Tone(frequency: 2800, duration: ms(50))])
        buzzer.play(.onPace, tones: [])
        wav = try WAVFile(path: path)
        #expect(wav.samples == ToneSynthesizer(sampleRate: 22_050).render([Tone(frequency: 2800, duration: ms(50))]))
        #expect(wav.samples.count == 1103)
    }

    @Test func concurrentPlaysAppendWholeCues() async throws {
        let path = try temporaryPath()
        let buzzer = try WAVBuzzer(path: path)
        let cue = [Tone(frequency: 3000, duration: ms(20)), .rest(ms(10))]
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { buzzer.play(.onPace, tones: cue) } }
        }
        buzzer.drain()
        let one = ToneSynthesizer().render(cue)
        #expect(try WAVFile(path: path).samples == Array([[Int16]](repeating: one, count: 16).joined()))
    }

    @Test func aFileThatCannotBeCreatedIsRefusedWithPathAndReason() {
        #expect {
            _ = try WAVBuzzer(path: "/nonexistent-dir-xyz/cues.wav")
        } throws: { error in
            let text = "\(error)"
            return text.contains("/nonexistent-dir-xyz/cues.wav") && text.contains("No such file or directory")
        }
    }

    @Test func theHeaderIsTheCanonical44Bytes() {
        let header = WAVBuzzer.header(sampleRate: 44_100, dataBytes: 10)
        #expect(header.count == 44)
        #expect(Array(header[0..<4]) == Array("RIFF".utf8))
        #expect(Array(header[4..<8]) == [46, 0, 0, 0])
        #expect(Array(header[36..<40]) == Array("data".utf8))
        #expect(Array(header[40..<44]) == [10, 0, 0, 0])
    }
}
