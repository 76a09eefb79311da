import PacerCore
import Configurator
import Foundation
import HAL
import LinuxHardware
import TestSupport
import Testing

/// Every cue of the real `Hardware/cues.yaml`, in both styles, played through `ALSABuzzer`
/// and the real libasound into ALSA's `file` plugin, then measured from the captured
/// samples alone: each tone's pitch and length, each silence's length, the total.
@Suite("Cue book through ALSA")
struct CueBookPlaybackTests {
    static let rate = ToneSynthesizer.defaultSampleRate

    static func capture(_ tones: [Tone], cue: Cue) throws -> [Int16] {
        let capture = ALSACapture(directory: try makeTemporaryDirectory("capture-\(cue.rawValue)"))
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: rate, configuration: capture.configuration)
        #expect(!buzzer.isSilent, "\(buzzer.problem.map(String.init(describing:)) ?? "")")
        buzzer.play(cue, tones: tones)
        buzzer.drain()
        return try capture.samples()
    }

    @Test(arguments: CueStyle.allCases)
    func everyCueSoundsAsDefined(style: CueStyle) throws {
        let book = try CueBookLoader.load(hardwareDir: hardwareDirectory)
        var worstPitch = (error: 0.0, at: "")
        var worstLength = (error: 0.0, at: "")
        var heard: [Cue: [SoundSegment]] = [:]
        for cue in Cue.allCases {
            let tones = book.tones(for: cue, style: style)
            let samples = try CueBookPlaybackTests.capture(tones, cue: cue)
            let total = tones.reduce(0) { $0 + $1.duration.inSeconds }
            #expect(abs(Double(samples.count) - total * Double(CueBookPlaybackTests.rate)) <= 1, "\(cue) total")
            let found = CaptureAnalysis.segments(samples, sampleRate: CueBookPlaybackTests.rate)
            let wanted = CaptureAnalysis.expected(tones)
            heard[cue] = found
            guard found.count == wanted.count else {
                Issue.record("\(cue) \(style): \(found.count) segments \(found), expected \(wanted.count)")
                continue
            }
            for (n, (segment, want)) in zip(found, wanted).enumerated() {
                let place = "\(cue.rawValue) \(style.rawValue) #\(n)"
                let seconds = Double(segment.length) / Double(CueBookPlaybackTests.rate)
                let lengthError = abs(seconds - want.seconds) / want.seconds
                #expect(lengthError <= 0.02, "\(place): \(seconds) s, expected \(want.seconds) s")
                if lengthError > worstLength.error { worstLength = (lengthError, place) }
                switch (segment.frequency, want.frequency) {
                case (nil, nil): break
                case (let f?, let g?):
                    let pitchError = abs(f - g) / g
                    #expect(pitchError <= 0.02, "\(place): \(f) Hz, expected \(g) Hz")
                    if pitchError > worstPitch.error { worstPitch = (pitchError, place) }
                default:
                    Issue.record("\(place): \(segment), expected \(want)")
                }
            }
        }
        print(
            "cues.yaml \(style.rawValue) through ALSA: worst pitch error \(percent(worstPitch.error)) (\(worstPitch.at)),",
            "worst length error \(percent(worstLength.error)) (\(worstLength.at))")
        // Any two cues can be told apart by what comes out of the device.
        for (i, a) in Cue.allCases.enumerated() {
            for b in Cue.allCases.dropFirst(i + 1) {
                guard let x = heard[a], let y = heard[b] else { continue }
                #expect(CaptureAnalysis.distinguishable(x, y), "\(a) and \(b) sound alike as \(style)")
            }
        }
    }

    /// The analysis is not fooled by sounds played back to back: two cues queued together
    /// come out as the sum of both, in order.
    @Test func twoCuesQueuedTogetherComeOutInOrder() throws {
        let book = try CueBookLoader.load(hardwareDir: hardwareDirectory)
        let capture = ALSACapture(directory: try makeTemporaryDirectory())
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration)
        let first = book.tones(for: .gpsBack, style: .melody)
        let second = book.tones(for: .speedUp, style: .beeps)
        buzzer.play(.gpsBack, tones: first)
        buzzer.play(.speedUp, tones: second)
        buzzer.drain()
        let found = CaptureAnalysis.segments(try capture.samples(), sampleRate: CueBookPlaybackTests.rate)
        let wanted = CaptureAnalysis.expected(first + second)
        #expect(found.count == wanted.count)
        for (segment, want) in zip(found, wanted) {
            #expect((segment.frequency == nil) == (want.frequency == nil))
            if let f = segment.frequency, let g = want.frequency { #expect(abs(f - g) / g <= 0.02) }
        }
    }

    private func percent(_ x: Double) -> String {
        String(format: "%.3f %%", x * 100)
    }
}
