import Foundation
import HAL
import LinuxHardware
import TestSupport
import Testing

private func ms(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1_000_000).rounded())) }

/// The ALSA buzzer through the real libasound: output captured by ALSA's `file` plugin.
/// Frequency and duration analysis of every cue of `Hardware/cues.yaml` is in
/// ConfiguratorTests/CueBookPlaybackTests (this target cannot load the cue book).
@Suite("ALSA buzzer")
struct ALSABuzzerTests {
    static let beeps = [
        Tone(frequency: 2400, duration: ms(60)), .rest(ms(40)),
        Tone(frequency: 3000, duration: ms(60)), .rest(ms(40)),
        Tone(frequency: 3600, duration: ms(60)),
    ]
    static let melody = [
        Tone(frequency: 1567.98, duration: ms(100)), Tone(frequency: 2093.0, duration: ms(100)),
        Tone(frequency: 2637.02, duration: ms(100)), Tone(frequency: 3135.96, duration: ms(200)),
    ]

    /// What reaches libasound is the synthesizer's output, sample for sample, cues in the
    /// order they were played, back to back.
    @Test func libasoundReceivesTheSynthesizedSamplesInOrder() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration)
        #expect(!buzzer.isSilent)
        #expect(buzzer.problem == nil)
        #expect(buzzer.name == "alsa:pacer_capture")
        buzzer.play(.speedUp, tones: ALSABuzzerTests.beeps)
        buzzer.play(.workoutComplete, tones: ALSABuzzerTests.melody)
        buzzer.play(.onPace, tones: [])
        buzzer.drain()
        let synth = ToneSynthesizer()
        let expected = synth.render(ALSABuzzerTests.beeps) + synth.render(ALSABuzzerTests.melody)
        let captured = try capture.samples()
        #expect(captured.count == expected.count)
        #expect(captured == expected)
        #expect(buzzer.synthesizer == synth)
    }

    /// After `drain()` the device is idle; the next cue opens nothing new and plays at once.
    @Test func playsAfterADrainAreAppended() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 22_050, configuration: capture.configuration)
        let synth = ToneSynthesizer(sampleRate: 22_050)
        var expected: [Int16] = []
        for round in 0..<3 {
            let tones = [Tone(frequency: 2000 + Double(round) * 500, duration: ms(30)), .rest(ms(30))]
            buzzer.play(.waypointSaved, tones: tones)
            buzzer.drain()
            expected += synth.render(tones)
            #expect(try capture.samples() == expected)
        }
    }

    /// `play` only queues: it returns long before the cue has been synthesized and written.
    @Test func playDoesNotWaitForTheSound() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration)
        let long = (0..<40).map { i in Tone(frequency: 2000 + Double(i * 40), duration: ms(1500)) }  // 60 s
        let clock = ContinuousClock()
        let playing = clock.measure { buzzer.play(.workoutComplete, tones: long) }
        let draining = clock.measure { buzzer.drain() }
        // Rendering and writing a minute of sound is the worker's job; `play` only queues it.
        // (A ratio rather than a bound, with a wide margin: tests share two cores with the rest
        // of the suite, and 10 s of sound once drained in under ten times a busy play.)
        #expect(playing * 5 < draining, "play \(playing), drain \(draining)")
        #expect(try capture.samples().count == 2_646_000)
    }

    /// Plays queued when the buzzer goes away still sound: deinit plays them out and closes.
    @Test func releasingTheBuzzerPlaysOutTheQueue() throws {
        let capture = try ALSACapture()
        do {
            let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration)
            buzzer.play(.gpsBack, tones: ALSABuzzerTests.melody)
        }
        #expect(try capture.samples() == ToneSynthesizer().render(ALSABuzzerTests.melody))
    }

    /// Plays from many threads at once: every cue arrives whole.
    @Test func concurrentPlaysArriveWhole() async throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration)
        let cue = [Tone(frequency: 3000, duration: ms(20)), .rest(ms(10))]
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { buzzer.play(.onPace, tones: cue) } }
        }
        buzzer.drain()
        let one = ToneSynthesizer().render(cue)
        #expect(try capture.samples() == Array([[Int16]](repeating: one, count: 16).joined()))
    }

    /// A device that cannot be opened: one warning naming it and ALSA's reason, then silence;
    /// `play` and `drain` return at once, nothing crashes, nothing more is logged.
    @Test func aMissingDeviceWarnsOnceAndStaysSilent() {
        let log = LogRecorder()
        let buzzer = ALSABuzzer(device: "nonexistent_device_xyz", logger: log.logger)
        #expect(buzzer.isSilent)
        #expect(buzzer.name == "alsa:nonexistent_device_xyz")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<5 { buzzer.play(.gpsLost, tones: ALSABuzzerTests.melody) }
            buzzer.drain()
        }
        // Five melodies would take seconds to play; a silent buzzer returns at once. The bound
        // leaves room for a loaded machine.
        #expect(elapsed < .seconds(1))
        let messages = log.entries
        #expect(messages.count == 1)
        #expect(messages.first?.level == .warning)
        let text = messages.first?.message ?? ""
        #expect(text.hasPrefix("no sound: cannot open ALSA device 'nonexistent_device_xyz' ("))
        #expect(text.contains("No such file or directory"))
        #expect(text.contains("Unknown PCM nonexistent_device_xyz"))  // ALSA's own words
        #expect(text.hasSuffix("; cues will be silent"))
        #expect(buzzer.problem?.operation == .open)
        #expect(buzzer.problem?.code == -ENOENT)
    }

    /// A device that fails while playing (here ALSA's file plugin writing to /dev/full, as a
    /// USB speaker pulled out would): one warning with ALSA's reason, then silence.
    @Test func aDeviceThatFailsWhilePlayingWarnsOnceAndGoesSilent() {
        let log = LogRecorder()
        let capture = ALSACapture(output: "/dev/full")
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration, logger: log.logger)
        #expect(!buzzer.isSilent)
        buzzer.play(.gpsLost, tones: ALSABuzzerTests.melody)
        buzzer.drain()
        #expect(buzzer.isSilent)
        #expect(buzzer.problem?.operation == .write)
        for _ in 0..<3 { buzzer.play(.gpsLost, tones: ALSABuzzerTests.melody) }
        buzzer.drain()
        #expect(log.entries.count == 1)
        let text = log.entries.first?.message ?? ""
        #expect(text.hasPrefix("no sound: writing to ALSA device 'pacer_capture' failed (Input/output error: "), "\(text)")
        #expect(text.contains("No space left on device"), "\(text)")
    }

    /// A sound card that appears after the device started (the emulated board's USB card came
    /// 10 s after `pacer device`): here the card's definition, a file the capture's ALSA
    /// configuration refers to (`@func refer`), missing when the buzzer opens, so the open
    /// fails as for a missing card. Silent with one warning; a cue within 2 s of the last try
    /// does not try again; one after it opens the device on the buzzer's thread, plays whole,
    /// and one info message says so.
    @Test func aCardThatAppearsLaterIsOpenedByALaterCue() throws {
        let log = LogRecorder()
        let folder = try makeTemporaryDirectory("alsaLateCard")
        let capture = ALSACapture(directory: folder)
        let card = folder + "/card.conf"
        let configuration = """
            pcm.\(ALSACapture.device) {
                type file
                slave.pcm { @func refer file "\(card)" name pcm.pacer_card }
                file "\(capture.output)"
                format "raw"
            }
            """
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: configuration, logger: log.logger)
        #expect(buzzer.isSilent)
        #expect(buzzer.problem?.operation == .open)
        #expect(buzzer.unavailableReason?.hasPrefix("cannot open ALSA device 'pacer_capture' (No such file") == true)
        try "pcm.pacer_card { type null }\n".write(toFile: card, atomically: true, encoding: .utf8)
        // Too soon after the failed open: dropped at once, the device not tried.
        let clock = ContinuousClock()
        let soon = clock.measure {
            buzzer.play(.gpsLost, tones: ALSABuzzerTests.beeps)
            buzzer.drain()
        }
        #expect(soon < .seconds(1))
        #expect(buzzer.isSilent)
        #expect(!FileManager.default.fileExists(atPath: capture.output))
        Thread.sleep(forTimeInterval: 2.1)
        let later = clock.measure { buzzer.play(.gpsBack, tones: ALSABuzzerTests.melody) }
        #expect(later < .seconds(1))  // the open is the buzzer's thread's
        buzzer.drain()
        #expect(!buzzer.isSilent)
        #expect(buzzer.problem == nil)
        #expect(buzzer.unavailableReason == nil)
        #expect(try capture.samples() == ToneSynthesizer().render(ALSABuzzerTests.melody))
        buzzer.play(.onPace, tones: ALSABuzzerTests.beeps)
        buzzer.drain()
        #expect(try capture.samples() == ToneSynthesizer().render(ALSABuzzerTests.melody + ALSABuzzerTests.beeps))
        #expect(log.entries.map(\.level) == [.warning, .info], "\(log.messages)")
        #expect(log.messages.first?.hasPrefix("no sound: cannot open ALSA device 'pacer_capture' (") == true)
        #expect(log.messages.last == "sound is back: ALSA device 'pacer_capture' plays again")
    }

    /// An output that fails at the first cue (the `file` plugin's folder is missing: it opens
    /// its file then) and can be used later (the folder made): a cue 2 s after the failure
    /// opens the device again and plays whole.
    @Test func aDeviceThatFailedWhilePlayingIsOpenedAgainByALaterCue() throws {
        let log = LogRecorder()
        let folder = try makeTemporaryDirectory("alsaLateFolder") + "/out"
        let capture = ALSACapture(directory: folder)
        let buzzer = ALSABuzzer(device: ALSACapture.device, configuration: capture.configuration, logger: log.logger)
        buzzer.play(.gpsLost, tones: ALSABuzzerTests.beeps)
        buzzer.drain()
        #expect(buzzer.isSilent)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        Thread.sleep(forTimeInterval: 2.1)
        buzzer.play(.gpsBack, tones: ALSABuzzerTests.melody)
        buzzer.drain()
        #expect(!buzzer.isSilent)
        #expect(try capture.samples() == ToneSynthesizer().render(ALSABuzzerTests.melody))
        #expect(log.entries.map(\.level) == [.warning, .info], "\(log.messages)")
    }

    /// A device that opens again but still cannot play (here: writes to /dev/full), tried by
    /// cue after cue: the one warning of its first failure and nothing more, no "back".
    @Test func aDeviceThatStillFailsWhenTriedAgainSaysNothingMore() {
        let log = LogRecorder()
        let capture = ALSACapture(output: "/dev/full")
        let buzzer = ALSABuzzer(
            device: ALSACapture.device, configuration: capture.configuration, retryInterval: .zero, logger: log.logger)
        for _ in 0..<4 {
            buzzer.play(.gpsLost, tones: ALSABuzzerTests.beeps)
            buzzer.drain()
            #expect(buzzer.isSilent)
            #expect(buzzer.problem?.operation == .write)
        }
        #expect(log.entries.count == 1, "\(log.messages)")
        #expect(log.entries.first?.level == .warning)
    }

    /// A configuration that does not parse is reported like a missing device.
    @Test func aBrokenConfigurationIsReported() {
        let log = LogRecorder()
        let buzzer = ALSABuzzer(device: "x", configuration: "pcm.x { type", logger: log.logger)
        #expect(buzzer.isSilent)
        #expect(buzzer.problem?.operation == .readConfiguration)
        #expect(log.entries.count == 1)
        #expect(log.entries.first?.message.contains("cannot read the ALSA configuration given for device 'x'") == true)
    }

    @Test func probeOpensAndClosesTheDevice() throws {
        let capture = try ALSACapture()
        switch ALSABuzzer.probe(device: ALSACapture.device, configuration: capture.configuration) {
        case .success: break
        case .failure(let error): Issue.record("probe failed: \(error)")
        }
        switch ALSABuzzer.probe(device: "nonexistent_device_xyz") {
        case .success: Issue.record("a device that does not exist opened")
        case .failure(let error):
            #expect(error.device == "nonexistent_device_xyz")
            #expect(error.reason == "No such file or directory")
            #expect(error.description.hasPrefix("cannot open ALSA device 'nonexistent_device_xyz' (No such file or directory"))
        }
    }
}
