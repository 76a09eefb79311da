#if canImport(Glibc)
import Glibc
#endif
import CALSA

extension HardwareProbe {
    // MARK: sound

    /// Opens the ALSA playback device `device` as the buzzer does (`ALSABuzzer.probe`:
    /// non-blocking, so a busy device answers at once, then set to 16-bit mono) and closes it
    /// again. On failure the problem carries `snd_strerror`'s text and what ALSA itself said;
    /// the fix lists what to check. `cardsFile` lists the sound cards.
    public static func alsa(
        device: String, timeout: Duration = .seconds(3), cardsFile: String = "/proc/asound/cards"
    ) -> ProbeFinding {
        runBounded(timeout) { ALSAProbe.run(device: device, cardsFile: cardsFile) }
            ?? ProbeFinding(
                status: .missing, found: ["snd_pcm_open(\"\(device)\") did not return within \(seconds(timeout))"],
                problem: "the ALSA device '\(device)' hangs when opened",
                fix: [
                    "a sound server (PulseAudio, PipeWire) behind 'default' may be stuck: try a hardware device, --buzzer alsa:plughw:CARD=<name>",
                    "list the cards: aplay -l",
                ])
    }

    /// The text libasound gives for an error code (`snd_strerror`).
    public static func alsaErrorDescription(_ code: Int32) -> String {
        LibASound.errorText(code)
    }

    /// The sound cards the kernel has (`/proc/asound/cards`): `0 [Headphones]: bcm2835 Headphones`.
    public static func soundCards(cardsFile: String = "/proc/asound/cards") -> [String]? {
        guard let text = SysfsBattery.readValue(cardsFile) else {
            return access(cardsFile, F_OK) == 0 ? [] : nil
        }
        var cards: [String] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " })
            guard let first = trimmed.first, first.isNumber,
                  let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"), open < close
            else { continue }
            let number = trimmed[..<open].trimmed(" ")
            let id = trimmed[trimmed.index(after: open)..<close].trimmed(" ")
            var name = ""
            if let dash = trimmed.firstRange(ofText: " - ") {
                name = trimmed[dash.upperBound...].trimmed(" ")
            }
            cards.append(name.isEmpty ? "\(number) [\(id)]" : "\(number) [\(id)]: \(name)")
        }
        return cards
    }
}

// MARK: - ALSA

enum ALSAProbe {
    static func run(device: String, cardsFile: String) -> ProbeFinding {
        // Opened as the buzzer opens it; ALSA's own messages are kept (it reports the reason
        // for "No such file or directory" only as a message: `Unknown PCM nosuchcard`).
        let (opened, said) = ALSABuzzer.probeInDetail(device: device)

        let cards = HardwareProbe.soundCards(cardsFile: cardsFile)
        var found: [String] = []
        switch cards {
        case nil: found.append("no sound cards (\(cardsFile) is missing: no ALSA driver is loaded)")
        case let list? where list.isEmpty: found.append("no sound cards (\(cardsFile) lists none)")
        case let list?: found.append("sound cards: \(list.joined(separator: "; "))")
        }
        let error: ALSAError
        switch opened {
        case .success(let kind):
            found.insert("ALSA playback device '\(device)' opens\(kind.isEmpty ? "" : " (\(kind))")", at: 0)
            return ProbeFinding(status: .ok, found: found, facts: ["alsa_device": device, "pcm_type": kind])
        case .failure(let failure) where failure.operation == .load:
            return ProbeFinding(
                status: .missing, found: found, problem: "\(failure)", fix: [LibASound.install],
                facts: ["alsa_device": device, "alsa_error": String(failure.code)])
        case .failure(let failure):
            error = failure
        }
        let rc = error.code
        let text = HardwareProbe.alsaErrorDescription(rc)
        for message in said.prefix(3) { found.append("ALSA says: \(message)") }
        var fix: [String] = []
        let noCards = cards?.isEmpty ?? true
        switch -rc {
        case EBUSY:
            fix.append("another program plays on the device: use a mixing device (alsa:default with dmix, see /usr/share/doc/pacer/examples/asound.conf or Hardware/alsa/asound.conf), or stop the other program (sudo fuser -v /dev/snd/*)")
        case EACCES, EPERM:
            fix.append("add the user to the audio group: sudo usermod -aG audio $USER (then log in again)")
        default:
            if noCards {
                fix.append("no sound card: on a Raspberry Pi, dtparam=audio=on in /boot/firmware/config.txt (and for PWM audio on GPIO 18/19, dtoverlay=audremap,pins_18_19), then reboot")
                fix.append("or plug in a USB sound card; sudo apt install alsa-utils, then aplay -l must list it")
            } else {
                fix.append("aplay -l lists the cards; name one: --buzzer alsa:plughw:CARD=<name>,DEV=0")
            }
            fix.append("make it the default with /etc/asound.conf (example: /usr/share/doc/pacer/examples/asound.conf; in the source, Hardware/alsa/asound.conf)")
        }
        fix.append("test it: speaker-test -D \(device) -c 1 -t sine -f 1000 -l 1")
        return ProbeFinding(
            status: .missing, found: found,
            problem: error.operation == .configure
                ? "ALSA playback device '\(device)' opens but cannot be set to 16-bit mono: \(text)"
                : "cannot open ALSA playback device '\(device)': \(text)",
            fix: fix,
            facts: ["alsa_device": device, "alsa_error": String(rc), "alsa_strerror": text])
    }
}

extension Substring {
    fileprivate func trimmed(_ set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}

extension StringProtocol {
    /// The range of the first occurrence of `needle`, searching `range` (or everything).
    fileprivate func firstRange(ofText needle: String, within range: Range<Index>? = nil) -> Range<Index>? {
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return nil }
        var i = range?.lowerBound ?? startIndex
        let end = range?.upperBound ?? endIndex
        while i < end {
            if self[i...].utf8.starts(with: n) {
                let upper = utf8.index(i, offsetBy: n.count)
                if upper <= end { return i..<upper }
                return nil
            }
            i = index(after: i)
        }
        return nil
    }
}
