import Configurator
import Foundation
import HAL
import LinuxHardware
import Simulation
import TestSupport
import Testing

/// `Configurator.makeSpeaker`: the speaker URIs, and the words going into the buzzer's own
/// output when it is the same one.
@Suite("Speaker factory")
struct SpeakerFactoryTests {
    /// `wav:PATH` beside a `wav:PATH` buzzer (in a tee, as a scenario has it) writes into that
    /// same file: the words, then the cue after them.
    @Test func aWAVSpeakerSharesTheScenariosWAVBuzzer() throws {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/cues.wav"
        let wav = try WAVBuzzer(path: path)
        let buzzer = TeeBuzzer([NullBuzzer(), wav])
        let speaker = try Configurator.makeSpeaker(DeviceURI(parsing: "wav:\(path)?voice=en&rate=170"), buzzer: buzzer)
        let espeak = try #require(speaker as? ESpeakSpeaker)
        #expect(espeak.output === wav)
        #expect(speaker.unavailableReason == nil)
        speaker.say(Utterance(text: "split 1", key: "split", priority: .announcement))
        speaker.drain()
        let words = wav.sampleCount
        // The file holds the words at its own rate (44.1 kHz) for as long as they are said.
        let said = speaker.duration(of: "split 1")
        let seconds = Double(said.components.seconds) + Double(said.components.attoseconds) / 1e18
        #expect(abs(Double(words) / 44_100 - seconds) < 0.01)
        buzzer.play(.speedUp, tones: [Tone(frequency: 2000, duration: .milliseconds(100))])
        #expect(wav.sampleCount == words + 4410)
    }

    /// Issue 39, item 11: a German phrase book with a speaker line naming no voice spoke with
    /// the English voice. The voice follows the book's language unless `voice=` says
    /// otherwise (then it is taken, with a warning when its language is not the book's).
    @Test func theVoiceFollowsThePhraseBooksLanguageUnlessOneIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        func voice(_ uri: String, language: String?) throws -> String {
            let speaker = try Configurator.makeSpeaker(DeviceURI(parsing: uri), language: language)
            return try #require(speaker as? ESpeakSpeaker).voice.name
        }
        #expect(try voice("wav:\(dir)/a.wav", language: "de") == "de")
        #expect(try voice("wav:\(dir)/b.wav", language: nil) == "en")
        #expect(try voice("wav:\(dir)/c.wav?voice=en-us", language: "de") == "en-us")
    }

    /// `record?wav=PATH&voice=…` (a speaking scenario with `--buzzer wav:PATH`): the record's
    /// estimates time the device, the engine says the words into the shared file.
    @Test func aRecordingSpeakerCanAlsoRenderIntoTheWAVFile() throws {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.wav"
        let wav = try WAVBuzzer(path: path)
        let clock = VirtualClock()
        let speaker = try Configurator.makeSpeaker(
            DeviceURI(parsing: "record?wav=\(path)&voice=de"), buzzer: TeeBuzzer([NullBuzzer(), wav]), clock: clock)
        let tee = try #require(speaker as? TeeSpeaker)
        let record = try #require(tee.speakers.first as? RecordingSpeaker)
        #expect((tee.speakers.last as? ESpeakSpeaker)?.output === wav)
        #expect(speaker.duration(of: "Abschnitt 1") == record.duration(of: "Abschnitt 1"))
        speaker.say(Utterance(text: "Abschnitt 1", key: "split", priority: .announcement))
        speaker.drain()
        #expect(record.said.map(\.utterance.text) == ["Abschnitt 1"])
        #expect(wav.sampleCount > 44_100 / 2)
        do {
            _ = try Configurator.makeSpeaker(DeviceURI(parsing: "record?loud=yes"), clock: clock)
            Issue.record("an unknown setting was taken")
        } catch {
            #expect("\(error)".contains("unknown setting 'loud' (known: wav, voice, rate, volume)"))
        }
    }

    @Test func settingsAreChecked() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try Configurator.makeSpeaker(DeviceURI(parsing: text))
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(problem("espeak:default?rate=20")?.contains("outside espeak-ng's 80 to 450 words per minute") == true)
        #expect(problem("espeak:default?volume=300")?.contains("outside 0 to 200") == true)
        #expect(problem("espeak:default?pitch=50")?.contains("unknown setting 'pitch'") == true)
        #expect(problem("wav:")?.contains("names no file") == true)
        #expect(problem("festival:x")?.contains("unknown speaker") == true)
        #expect(problem("null") == nil)
        #expect(try Configurator.makeSpeaker(DeviceURI(parsing: "null")).unavailableReason != nil)
    }

    /// An `espeak:` speaker on a device that does not exist: unavailable, saying why.
    @Test func anESpeakSpeakerWithoutAnOutputSaysWhy() throws {
        let speaker = try Configurator.makeSpeaker(DeviceURI(parsing: "espeak:pacer_no_such_device"))
        #expect(speaker.unavailableReason?.hasPrefix("no sound output for speech: cannot open ALSA device 'pacer_no_such_device'") == true)
    }
}
