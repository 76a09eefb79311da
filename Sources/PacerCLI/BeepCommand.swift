import PacerCore
import ArgumentParser
import Configurator
#if canImport(Glibc)
import Glibc
#endif
import HAL
import Logging

/// `pacer beep CUE`: plays one cue on a buzzer, to try the sound hardware and the cue sounds;
/// `pacer beep --list` prints every cue with both of its renderings.
struct BeepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beep", abstract: "Play a cue on the buzzer, or list the cue sounds.",
        discussion: """
            Cue sounds come from cues.yaml in the settings' hardware_dir. The buzzer is --buzzer, \
            else the settings' buzzer. The style is --style, else the one the power profile \
            (--profile, else the settings' profile) gives the cue.
            """)

    @Argument(help: "The cue: \(Cue.allCases.map(\.rawValue).joined(separator: ", ")).")
    var cue: String?

    @Flag(name: .long, help: "List every cue with its meaning, beep pattern and melody.")
    var list = false

    @Option(name: .long, help: "beeps or melody.")
    var style: String?

    @OptionGroup var device: DeviceOptions

    func validate() throws {
        if list && cue != nil { throw ValidationError("give either a cue or --list, not both") }
        if !list && cue == nil { throw ValidationError("name a cue to play, or --list") }
        if let cue, Cue(rawValue: cue) == nil {
            throw ValidationError("unknown cue '\(cue)' (cues: \(Cue.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if let style, CueStyle(rawValue: style) == nil {
            throw ValidationError("unknown style '\(style)' (expected beeps or melody)")
        }
    }

    func run() throws {
        let settings = try device.settings()
        let book: CueBook
        do {
            book = try Configurator.loadCues(hardwareDir: settings.hardwareDirectory)
        } catch {
            throw CommandFailure(error)
        }
        if list {
            print(BeepCommand.listing(book), terminator: "")
            return
        }
        let cue = Cue(rawValue: self.cue!)!
        var chosen = style.flatMap(CueStyle.init(rawValue:))
        if chosen == nil {
            do {
                chosen = try PowerProfileLoader.load(name: settings.profile, hardwareDir: settings.hardwareDirectory)
                    .style(for: cue)
            } catch {
                throw CommandFailure(error)
            }
        }
        let style = chosen ?? .beeps
        let tones = book.tones(for: cue, style: style)
        let buzzer: any Buzzer
        // A silent buzzer's warning ("cues will be silent") is for the device; here its
        // reason is this command's error.
        var logger = Logger(label: "pacer.beep")
        logger.logLevel = .error
        do {
            buzzer = try Configurator.makeBuzzer(settings.buzzer, logger: logger)
        } catch {
            throw CommandFailure(error)
        }
        buzzer.play(cue, tones: tones)
        buzzer.drain()
        if let reason = buzzer.unavailableReason {
            throw CommandFailure(.unavailable, BeepCommand.cannotPlay(on: buzzer.name, reason: reason))
        }
        print("\(cue.rawValue) (\(style.rawValue), \(BeepCommand.seconds(tones))) on \(buzzer.name)")
    }

    /// Why nothing sounded (issue 42: a board without a sound card heard a warning and exit
    /// 1): the output, ALSA's reason, and where to look.
    static func cannotPlay(on output: String, reason: String) -> String {
        var text = "pacer beep: cannot play on \(output): \(reason)"
        if output.hasPrefix("alsa:") {
            text += ". `aplay -l` lists the sound cards; name one with --buzzer alsa:plughw:CARD,0 (or the settings' "
                + "buzzer:), or make it ALSA's default in /etc/asound.conf (Hardware/README.md, step 5)"
        }
        return text
    }

    /// Every cue: its name and meaning, then each rendering's notes and length.
    static func listing(_ book: CueBook) -> String {
        var out = ""
        for cue in Cue.allCases {
            out += "\(cue.rawValue): \(cue.meaning)\n"
            for style in CueStyle.allCases {
                let tones = book.tones(for: cue, style: style)
                let notes = tones.map { describe($0, style: style) }.joined(separator: ", ")
                out += "  \(style.rawValue.padding(6)) \(seconds(tones)): \(notes)\n"
            }
        }
        return out
    }

    /// `2400 Hz 60 ms` for a beep, `G6 100 ms` for a melody note, `rest 40 ms`.
    static func describe(_ tone: Tone, style: CueStyle) -> String {
        let ms = milliseconds(tone.duration)
        if tone.isRest { return "rest \(ms) ms" }
        if style == .melody { return "\(noteName(tone.frequency)) \(ms) ms" }
        return "\(Int(tone.frequency.rounded())) Hz \(ms) ms"
    }

    /// The nearest equal-tempered note: `C7`, `F#6`.
    static func noteName(_ frequency: Double) -> String {
        let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let midi = Int((69 + 12 * log2(frequency / 440)).rounded())
        return "\(names[((midi % 12) + 12) % 12])\(midi / 12 - 1)"
    }

    static func milliseconds(_ d: Duration) -> String {
        let ms = Double(d.nanoseconds) / 1e6
        return ms == ms.rounded() ? String(Int(ms)) : String(Double(Int((ms * 10).rounded())) / 10)
    }

    static func seconds(_ tones: [Tone]) -> String {
        let total = tones.reduce(Duration.zero) { $0 + $1.duration }
        let centis = Int((total.inSeconds * 100).rounded())
        return "\(centis / 100).\(centis % 100 < 10 ? "0" : "")\(centis % 100) s"
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
