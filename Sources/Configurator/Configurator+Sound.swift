import Coaching
import Foundation
import HAL
import LinuxHardware
import Logging
import NMEA
import PacerCore
import Runtime
import Simulation
import Storage

/// What the runner hears: the buzzer and the voice, by their URIs.
extension Configurator {
    /// `alsa:DEVICE` (`alsa` alone: the default device), `wav:PATH`, `null`, or `record`
    /// (remembers each cue and when it sounded on `clock`, plays nothing: scenarios).
    public static func makeBuzzer(
        _ uri: DeviceURI, clock: (any PacerClock)? = nil, logger: Logger = Logger(label: "pacer.buzzer")
    ) throws(ConfigurationError) -> any Buzzer {
        do {
            switch uri.scheme {
            case "alsa":
                return ALSABuzzer(device: uri.path.isEmpty ? "default" : uri.path, logger: logger)
            case "wav":
                guard !uri.path.isEmpty else { throw ConfigurationError("'\(uri)' names no file (expected wav:PATH.wav)") }
                if let unknown = uri.query.keys.sorted().first(where: { $0 != "timed" }) {
                    throw ConfigurationError("'\(uri)': unknown setting '\(unknown)' (known: timed)")
                }
                // `timed=yes`: each sound where it fell on the device's clock, silence between.
                let timed: Bool
                switch uri.query["timed"] ?? "no" {
                case "yes": timed = true
                case "no": timed = false
                case let other: throw ConfigurationError("'\(uri)': timed=\(other) is not yes or no")
                }
                if timed && clock == nil {
                    throw ConfigurationError("'\(uri)': a timed WAV file needs the device's clock")
                }
                return try WAVBuzzer(path: uri.path, timedBy: timed ? clock : nil)
            case "null":
                return NullBuzzer()
            case "record":
                guard let clock else { throw ConfigurationError("'\(uri)': a recording buzzer needs the device's clock") }
                return RecordingBuzzer(clock: clock)
            default:
                throw ConfigurationError("unknown buzzer '\(uri)' (known: alsa:DEVICE, wav:PATH, null, record)")
            }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }

    /// A speaker: `espeak:DEVICE?voice=en&rate=170&volume=100` (espeak-ng's words
    /// on the ALSA PCM DEVICE, `espeak` alone: `default`), `wav:PATH?voice=…` (the same
    /// engine's words into a WAV file: the simulator's), `null` (beeps only), `record`.
    ///
    /// The words play through the buzzer's queue when `buzzer` is the same output (an
    /// `alsa:DEVICE` buzzer for `espeak:DEVICE`, a `wav:PATH` buzzer for `wav:PATH`, alone or
    /// in a tee), so a word and a beep never sound together and a scenario's cues.wav holds
    /// both; otherwise the speaker opens that output for itself.
    /// No URI: `NullSpeaker`. `record` remembers what was said and when on `clock`, saying
    /// nothing (scenarios), its lengths estimated at `wordsPerMinute`.
    ///
    /// The voice: the URI's `voice=`, else `language` (the phrase book's, `speech.language`:
    /// a German book is read by the German voice), else `en`. A `voice=` of another language
    /// than the book's is taken (a builder may want it) with a warning: its words would be
    /// read in the wrong language's sounds.
    public static func makeSpeaker(
        _ uri: DeviceURI?, buzzer: (any Buzzer)? = nil, clock: (any PacerClock)? = nil,
        wordsPerMinute: Double = 160, language: String? = nil, logger: Logger = Logger(label: "pacer.speaker")
    ) throws(ConfigurationError) -> any Speaker {
        guard let uri else { return NullSpeaker() }
        func parts(_ b: (any Buzzer)?) -> [any Buzzer] {
            guard let b else { return [] }
            if let tee = b as? TeeBuzzer { return tee.buzzers.flatMap { parts($0) } }
            return [b]
        }
        func voice() throws(ConfigurationError) -> ESpeakVoice {
            do {
                let rate = try uri.integer("rate", default: ESpeakVoice.defaultRate)
                let volume = try uri.integer("volume", default: 100)
                guard (80...450).contains(rate) else {
                    throw ConfigurationError("'\(uri)': rate=\(rate) is outside espeak-ng's 80 to 450 words per minute")
                }
                guard (0...200).contains(volume) else {
                    throw ConfigurationError("'\(uri)': volume=\(volume) is outside 0 to 200 (100 is normal)")
                }
                let name = uri.query["voice"] ?? language ?? "en"
                guard !name.isEmpty else { throw ConfigurationError("'\(uri)': voice= names no voice") }
                if let language, let given = uri.query["voice"], Self.voiceLanguage(given) != Self.voiceLanguage(language) {
                    logger.warning("""
                        speaker '\(uri)': voice=\(given) reads the \(language) phrase book with another language's \
                        sounds (leave voice= out to use the book's)
                        """)
                }
                if let unknown = uri.query.keys.first(where: { !["voice", "rate", "volume"].contains($0) }) {
                    throw ConfigurationError("'\(uri)': unknown setting '\(unknown)' (known: voice, rate, volume)")
                }
                return ESpeakVoice(name: name, rate: rate, volume: volume)
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError("\(error)")
            }
        }
        switch uri.scheme {
        case "espeak":
            let device = uri.path.isEmpty ? "default" : uri.path
            let output = parts(buzzer).first { ($0 as? ALSABuzzer)?.device == device }
                ?? ALSABuzzer(device: device, logger: logger)
            return ESpeakSpeaker(name: uri.text, voice: try voice(), output: output, logger: logger)
        case "wav":
            guard !uri.path.isEmpty else { throw ConfigurationError("'\(uri)' names no file (expected wav:PATH.wav)") }
            let voice = try voice()
            let output: any Buzzer
            if let shared = parts(buzzer).first(where: { ($0 as? WAVBuzzer)?.path == uri.path }) {
                output = shared
            } else {
                do {
                    output = try WAVBuzzer(path: uri.path, logger: logger)
                } catch {
                    throw ConfigurationError("\(error)", cause: error)
                }
            }
            return ESpeakSpeaker(name: uri.text, voice: voice, output: output, logger: logger)
        case "null":
            return NullSpeaker()
        case "record":
            guard let clock else { throw ConfigurationError("'\(uri)': a recording speaker needs the device's clock") }
            let recorder = RecordingSpeaker(clock: clock, wordsPerMinute: wordsPerMinute)
            // `record?wav=PATH&voice=…`: the words also rendered by the engine into the WAV
            // file the cues go to (a scenario's `--buzzer wav:PATH`), the record's estimates
            // still timing the run.
            guard let wav = uri.query["wav"] else {
                if let unknown = uri.query.keys.sorted().first {
                    throw ConfigurationError("'\(uri)': unknown setting '\(unknown)' (known: wav, voice, rate, volume)")
                }
                return recorder
            }
            let voice = uri.query.filter { $0.key != "wav" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            let engineURI: DeviceURI
            do {
                engineURI = try DeviceURI(parsing: "wav:\(wav)" + (voice.isEmpty ? "" : "?" + voice.joined(separator: "&")))
            } catch {
                throw ConfigurationError("'\(uri)': \(error)")
            }
            let engine = try makeSpeaker(engineURI, buzzer: buzzer, clock: clock, wordsPerMinute: wordsPerMinute,
                                         language: language, logger: logger)
            return TeeSpeaker(recorder, also: [engine])
        default:
            throw ConfigurationError("unknown speaker '\(uri)' (known: espeak:DEVICE, wav:PATH, null, record)")
        }
    }

    /// A voice's language: `en-us` and `en` are both English (espeak-ng's names).
    static func voiceLanguage(_ voice: String) -> String {
        String(voice.lowercased().prefix { $0 != "-" && $0 != "_" && $0 != "+" })
    }
}
