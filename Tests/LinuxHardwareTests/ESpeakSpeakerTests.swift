import Foundation
import PacerCore
import HAL
import LinuxHardware
import TestSupport
import Testing

/// Words spelled as the recogniser's dictionary has them: digits to words, commas dropped,
/// British spelling to the CMU dictionary's (`kilometre` is there with another sound, `metres`
/// not at all).
enum SpokenWords {
    static let ones = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
        .split(separator: " ").map(String.init)
    static let tens = [2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"]

    static func number(_ n: Int) -> String {
        n < 20 ? ones[n] : tens[n / 10]! + (n % 10 == 0 ? "" : " " + ones[n % 10])
    }

    static func words(_ text: String) -> String {
        text.replacingOccurrences(of: ",", with: "").lowercased().split(separator: " ").map { token -> String in
            if let n = Int(token) { return number(n) }
            return token.replacingOccurrences(of: "kilometre", with: "kilometer").replacingOccurrences(of: "metres", with: "meters")
        }.joined(separator: " ")
    }

    /// The phrase with one of its numbers moved by ±1, ±2 or ±10: what a recogniser that did
    /// not hear the number could as well have chosen.
    static func neighbours(_ text: String) -> Set<String> {
        let tokens = text.replacingOccurrences(of: ",", with: "").split(separator: " ").map(String.init)
        var out: Set<String> = []
        for (i, token) in tokens.enumerated() {
            guard let n = Int(token) else { continue }
            for d in [-10, -2, -1, 1, 2, 10] where (1..<100).contains(n + d) {
                var changed = tokens
                changed[i] = String(n + d)
                out.insert(words(changed.joined(separator: " ")))
            }
        }
        return out
    }

    /// A JSGF grammar whose sentences are the phrases and all their neighbours: to give the
    /// meant phrase back, the recogniser must hear every number and word of it.
    static func grammar(_ phrases: [String]) -> String {
        var sentences: Set<String> = []
        for p in phrases {
            sentences.insert(words(p))
            sentences.formUnion(neighbours(p))
        }
        return "#JSGF V1.0;\ngrammar pacer;\npublic <utt> = " + sentences.sorted().joined(separator: " | ") + ";\n"
    }
}

/// A 16-bit mono PCM WAV file.
func wavFile(_ samples: [Int16], sampleRate: Int) -> Data {
    var d = Data()
    func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
    let bytes = UInt32(samples.count * 2)
    d.append(contentsOf: Array("RIFF".utf8)); le(36 + bytes); d.append(contentsOf: Array("WAVE".utf8))
    d.append(contentsOf: Array("fmt ".utf8)); le(UInt32(16)); le(UInt16(1)); le(UInt16(1))
    le(UInt32(sampleRate)); le(UInt32(sampleRate * 2)); le(UInt16(2)); le(UInt16(16))
    d.append(contentsOf: Array("data".utf8)); le(bytes)
    for s in samples { le(s) }
    return d
}

/// What pocketsphinx (Debian's 0.8+5prealpha: `pocketsphinx_continuous`, the en-us model)
/// hears in `samples` (16 kHz), restricted to `grammar`.
func transcribe(_ samples: [Int16], grammar: String, in directory: String) throws -> String {
    let wav = directory + "/speech.wav"
    let gram = directory + "/phrases.gram"
    try wavFile(samples, sampleRate: 16_000).write(to: URL(fileURLWithPath: wav))
    try grammar.write(toFile: gram, atomically: true, encoding: .utf8)
    let result = try Program.run(
        "/usr/bin/pocketsphinx_continuous",
        // One utterance, the whole file: with its silence detection on, the pause at a comma
        // split a phrase in two, and neither half is a sentence of the grammar. Its noise
        // removal and default beams lost one of espeak-ng's renderings of a phrase (they
        // differ by some milliseconds from call to call) as well.
        ["-infile", wav, "-jsgf", gram, "-logfn", "/dev/null", "-remove_silence", "no", "-remove_noise", "no",
         "-beam", "1e-80", "-wbeam", "1e-60"])
    return result.stdout.split(separator: "\n").last.map(String.init) ?? ""
}

/// espeak-ng through the speaker, the buzzer's queue and the real libasound (ALSA's `file`
/// plugin captures what would have played, at 16 kHz), transcribed by an offline recogniser.
@Suite("espeak-ng speaker", .serialized)
struct ESpeakSpeakerTests {
    static let phrases = [
        "split 1, 5 minutes 41 seconds, pace 5 41 per kilometre",
        "split 2, 5 minutes 37 seconds, pace 5 37 per kilometre",
        "kilometre 8 done, 2 kilometres to go",
        "pace 4 50 per kilometre",
        "split 12, 6 minutes 3 seconds, pace 6 3 per kilometre",
        // Safety words (alerts: both), as the English phrase book says them.
        "battery low, 15 percent",
        "off the route by 60 metres",
    ]

    /// Each announcement said through the ALSA buzzer, captured, and heard back word for word.
    @Test(arguments: phrases)
    func theRecogniserHearsTheMeantWordsAndNumbers(_ phrase: String) throws {
        let capture = try ALSACapture("speech" + String(phrase.filter(\.isNumber)))
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 16_000, configuration: capture.configuration)
        let speaker = ESpeakSpeaker(name: "espeak:\(ALSACapture.device)", output: buzzer)
        #expect(speaker.unavailableReason == nil)
        speaker.say(Utterance(text: phrase, key: "split", priority: .announcement))
        speaker.drain()
        let samples = try capture.samples()
        let seconds = Double(samples.count) / 16_000
        #expect(seconds > 1 && seconds < 8)
        // The rendered length is what `duration(of:)` says (16 kHz against espeak's 22 050 Hz).
        let said = speaker.duration(of: phrase)
        #expect(abs(Double(said.components.seconds) + Double(said.components.attoseconds) / 1e18 - seconds) < 0.01)
        let heard = try transcribe(
            samples, grammar: SpokenWords.grammar(ESpeakSpeakerTests.phrases),
            in: (capture.output as NSString).deletingLastPathComponent)
        #expect(heard == SpokenWords.words(phrase))
    }

    /// A word and a beep take turns: the cue's tones are written after the words, whole.
    @Test func wordsAndBeepsShareOneQueue() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 16_000, configuration: capture.configuration)
        let speaker = ESpeakSpeaker(name: "espeak:test", output: buzzer)
        let tones = [Tone(frequency: 2000, duration: .milliseconds(100))]
        speaker.say(Utterance(text: "pace 4 50 per kilometre", key: "pace", priority: .pace))
        speaker.drain()
        buzzer.play(.speedUp, tones: tones)
        buzzer.drain()
        let samples = try capture.samples()
        let beep = buzzer.synthesizer.render(tones)
        #expect(Array(samples.suffix(beep.count)) == beep)
        #expect(samples.count > beep.count + 16_000)
    }

    /// `cutAnnouncements` stops an announcement being played and drops those waiting; a pace
    /// utterance queued afterwards plays whole.
    @Test func cutStopsAnnouncements() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 16_000, configuration: capture.configuration)
        let speaker = ESpeakSpeaker(name: "espeak:test", output: buzzer)
        let long = "split 1, 5 minutes 41 seconds, pace 5 41 per kilometre"
        let full = speaker.duration(of: long)
        speaker.say(Utterance(text: long, key: "split", priority: .announcement))
        speaker.say(Utterance(text: long, key: "split", priority: .announcement))
        // The file plugin over a null device plays as fast as it is written; cut at once.
        speaker.cutAnnouncements()
        speaker.drain()
        let written = Double(try capture.samples().count) / 16_000
        let fullSeconds = Double(full.components.seconds) + Double(full.components.attoseconds) / 1e18
        #expect(written < 2 * fullSeconds - 0.5)
    }

    /// A voice espeak-ng does not have: the speaker says why and says nothing; the buzzer beeps.
    @Test func anUnknownVoiceIsUnavailableAndTheBuzzerKeepsBeeping() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 16_000, configuration: capture.configuration)
        let speaker = ESpeakSpeaker(name: "espeak:test", voice: ESpeakVoice(name: "xx-nonesuch"), output: buzzer)
        let reason = try #require(speaker.unavailableReason)
        #expect(reason.contains("no voice 'xx-nonesuch'"))
        speaker.say(Utterance(text: "split 1", key: "split", priority: .safety))
        speaker.drain()
        #expect(try capture.samples().isEmpty)
        buzzer.play(.speedUp, tones: [Tone(frequency: 2000, duration: .milliseconds(50))])
        buzzer.drain()
        #expect(try capture.samples().count == 800)
        // Its duration is an estimate at the rate: 2 words at 170 per minute.
        #expect(speaker.duration(of: "split 1") == .milliseconds(705))
    }

    /// The recogniser is no rubber stamp: a phrase it did not hear is not what it gives back.
    @Test func aWrongExpectationFails() throws {
        let capture = try ALSACapture()
        let buzzer = ALSABuzzer(device: ALSACapture.device, sampleRate: 16_000, configuration: capture.configuration)
        let speaker = ESpeakSpeaker(name: "espeak:test", output: buzzer)
        let phrase = ESpeakSpeakerTests.phrases[0]
        speaker.say(Utterance(text: phrase, key: "split", priority: .safety))
        speaker.drain()
        let heard = try transcribe(
            try capture.samples(), grammar: SpokenWords.grammar(ESpeakSpeakerTests.phrases),
            in: (capture.output as NSString).deletingLastPathComponent)
        #expect(heard == SpokenWords.words(phrase))
        #expect(heard != SpokenWords.words("split 1, 5 minutes 42 seconds, pace 5 41 per kilometre"))
        #expect(heard != SpokenWords.words("split 1, 5 minutes 41 seconds, pace 5 40 per kilometre"))
    }
}

/// A buzzer that keeps the clips it is given (their lengths), and plays nothing.
final class ClipCountingBuzzer: Buzzer, @unchecked Sendable {
    let name = "clips"
    private let lock = NSLock()
    private var lengths: [Int] = []
    var clips: [Int] { lock.withLock { lengths } }
    func play(_ cue: Cue, tones: [Tone]) {}
    func drain() {}
    func play(_ clip: SoundClip) -> Bool {
        lock.withLock { lengths.append(clip.samples.count) }
        return true
    }
    func cutClips() {}
}

/// Issue 38, case 4: the engine rendered a whole utterance into memory at once (1 MB of text
/// took 4.4 GB before it was capped). Now it renders a sentence at a time: an utterance of
/// three sentences reaches the output as three clips, each one sentence's sound, and its
/// duration is theirs together.
@Suite("espeak-ng sentences", .serialized)
struct ESpeakSentenceTests {
    @Test func theSentencesOfATextAreItsEndMarksBeforeASpace() {
        #expect(Utterance.sentences(of: "Phase 2 of 5. Tempo, 4 50 per kilometre! Go.") == ["Phase 2 of 5.", "Tempo, 4 50 per kilometre!", "Go."])
        #expect(Utterance.sentences(of: "5.2 kilometres done") == ["5.2 kilometres done"], "a decimal point is no end")
        #expect(Utterance.sentences(of: "  one.   two?  ") == ["one.", "two?"])
        #expect(Utterance.sentences(of: "").isEmpty)
    }

    @Test func anUtteranceIsRenderedASentenceAtATime() throws {
        let buzzer = ClipCountingBuzzer()
        let speaker = ESpeakSpeaker(name: "espeak:test", output: buzzer)
        try #require(speaker.unavailableReason == nil, "\(speaker.unavailableReason ?? "")")
        let text = "Phase 2 of 5. Tempo, 4 50 per kilometre. Hold it for 20 minutes."
        speaker.say(Utterance(text: text, key: "phase-start", priority: .announcement))
        speaker.drain()
        let clips = buzzer.clips
        #expect(clips.count == 3, "\(clips)")
        let parts = Utterance.sentences(of: text).map { speaker.duration(of: $0) }
        let total = speaker.duration(of: text)
        #expect(total == parts.reduce(.zero, +))
        // Each clip is one sentence's: none holds the whole utterance's sound.
        let whole = clips.reduce(0, +)
        #expect(clips.allSatisfy { $0 < whole * 2 / 3 }, "\(clips)")
    }
}
