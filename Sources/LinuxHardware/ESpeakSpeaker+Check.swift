#if canImport(Glibc)
import Glibc
#endif
import HAL

extension HardwareProbe {
    // MARK: speech

    /// Whether the device can speak: espeak-ng starts and has `voice`, a phrase
    /// renders (how long it took), and, given an ALSA `device`, the words play on it through a
    /// buzzer as they would on a run. Speech is optional: what fails is a warning, with why
    /// (no espeak-ng data, no such voice, no output) — the device keeps beeping.
    public static func speech(
        voice: ESpeakVoice, device: String?, configuration: String? = nil, timeout: Duration = .seconds(10),
        phrase: String = "split 1, 5 minutes 41 seconds"
    ) -> ProbeFinding {
        runBounded(timeout) { speechNow(voice: voice, device: device, configuration: configuration, phrase: phrase) }
            ?? ProbeFinding(
                status: .warning, found: ["espeak-ng did not answer within \(seconds(timeout))"],
                problem: "speech hangs: the device beeps only",
                fix: ["check the sound device: aplay -l; speaker-test -D \(device ?? "default") -c 1"])
    }

    static func speechNow(voice: ESpeakVoice, device: String?, configuration: String?, phrase: String) -> ProbeFinding {
        let engine = ESpeakEngine.shared
        let check = engine.check(voice)
        var found = ["espeak-ng \(check.version), voice \(voice.name), \(voice.rate) words a minute, volume \(voice.volume)"]
        var facts = ["espeak_version": check.version, "espeak_data": check.dataPath, "voice": voice.name]
        if let problem = check.problem {
            facts["speech_error"] = problem.reason
            return ProbeFinding(
                status: .warning, found: found, problem: "no speech: \(problem); the device beeps only",
                fix: [
                    "install espeak-ng's data and library: apt-get install espeak-ng-data libespeak-ng1",
                    "list the voices: espeak-ng --voices (set one with espeak:DEVICE?voice=NAME)",
                ], facts: facts)
        }
        let start = monotonicNanoseconds()
        let rendered = engine.render(phrase, voice: voice)
        let renderMs = (monotonicNanoseconds() - start) / 1_000_000
        guard case .success(let clip) = rendered else {
            if case .failure(let error) = rendered { facts["speech_error"] = error.reason }
            return ProbeFinding(
                status: .warning, found: found, problem: "espeak-ng cannot render: the device beeps only",
                fix: ["reinstall espeak-ng-data"], facts: facts)
        }
        let audio = Double(clip.samples.count) / Double(max(clip.sampleRate, 1))
        found.append("rendered \"\(phrase)\" in \(renderMs) ms (\(seconds(clip.duration)) of audio at \(clip.sampleRate) Hz)")
        facts["render_ms"] = "\(renderMs)"
        facts["audio_seconds"] = "\(audio)"
        guard let device else {
            found.append("no ALSA output to play it on (the buzzer is not alsa:): rendering only")
            return ProbeFinding(status: .ok, found: found, facts: facts)
        }
        let buzzer = ALSABuzzer(device: device, configuration: configuration)
        if let problem = buzzer.problem {
            facts["alsa_error"] = problem.description
            return ProbeFinding(
                status: .warning, found: found, problem: "no output for speech: \(problem); the device beeps only",
                fix: ["list the cards: aplay -l", "Hardware/README.md: the I2S amplifier (MAX98357A) and its overlay"],
                facts: facts)
        }
        var played = clip
        played.cuttable = false
        _ = buzzer.play(played)
        buzzer.drain()
        if let problem = buzzer.problem {
            facts["alsa_error"] = problem.description
            return ProbeFinding(
                status: .warning, found: found, problem: "speech did not play: \(problem); the device beeps only",
                fix: ["list the cards: aplay -l"], facts: facts)
        }
        found.append("played on ALSA device '\(device)'")
        return ProbeFinding(status: .ok, found: found, facts: facts)
    }
}
