import ArgumentParser
import Configurator
import HAL
import Logging

/// `pacer say TEXT`: speaks on the speaker, as the device would say a split.
struct SayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say", abstract: "Say words on the speaker.",
        discussion: """
            The speaker is --speaker: espeak:DEVICE?voice=en&rate=170&volume=100 (espeak-ng on \
            the ALSA device DEVICE), wav:PATH (the same words into a WAV file) or null. Without \
            it, espeak-ng speaks on the buzzer's ALSA device (the settings' buzzer, or --buzzer), \
            through the buzzer's queue. Exits 69 when speech is unavailable (no espeak-ng data, \
            no such voice, no sound output), saying why; 78 for a speaker that cannot be \
            configured.
            """)

    @Argument(help: "What to say.")
    var text: [String]

    @Option(name: .long, help: "espeak:DEVICE?voice=&rate=&volume=, wav:PATH, or null.")
    var speaker: String?

    @OptionGroup var device: DeviceOptions

    func validate() throws {
        let words = text.joined(separator: " ")
        if words.allSatisfy(\.isWhitespace) { throw ValidationError("give the words to say") }
        guard words.count <= Utterance.maximumCharacters else {
            throw ValidationError("\(words.count) characters is more than one announcement says (at most \(Utterance.maximumCharacters))")
        }
    }

    func run() throws {
        let settings = try device.settings()
        let uri: DeviceURI
        do {
            if let speaker {
                uri = try DeviceURI(parsing: speaker)
            } else {
                let buzzer = settings.buzzer
                uri = try DeviceURI(parsing: buzzer.scheme == "alsa" && !buzzer.path.isEmpty ? "espeak:\(buzzer.path)" : "espeak:default")
            }
        } catch {
            throw CommandFailure(.usage, "--speaker: \(error)")
        }
        let logger = Logger(label: "pacer.say")
        var buzzer: (any Buzzer)?
        if speaker == nil, settings.buzzer.scheme == "alsa" {
            buzzer = try? Configurator.makeBuzzer(settings.buzzer, logger: logger)
        }
        let voice: any Speaker
        do {
            voice = try Configurator.makeSpeaker(uri, buzzer: buzzer, language: settings.speech.language, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
        if let reason = voice.unavailableReason {
            throw CommandFailure(.unavailable, "no speech on \(voice.name): \(reason)")
        }
        let words = text.joined(separator: " ")
        let duration = voice.duration(of: words)
        voice.say(Utterance(text: words, key: "say", priority: .safety))
        voice.drain()
        if let reason = voice.unavailableReason {
            throw CommandFailure(.unavailable, "no speech on \(voice.name): \(reason)")
        }
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        print("said \"\(words)\" (\(ms) ms) on \(voice.name)")
    }
}
