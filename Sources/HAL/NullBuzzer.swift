import PacerCore

/// The do-nothing buzzer (ArduPilot's `AP_HAL_Empty` idea): the device runs silent.
public final class NullBuzzer: Buzzer {
    public init() {}
    public var name: String { "null" }
    public func play(_ cue: Cue, tones: [Tone]) {}
    public func drain() {}
}

/// Several buzzers sounding every cue: a scenario's recording buzzer and the WAV file its
/// cues are rendered to. Named after its parts, `record+wav:/tmp/cues.wav`.
public final class TeeBuzzer: Buzzer {
    public let buzzers: [any Buzzer]

    public init(_ buzzers: [any Buzzer]) {
        self.buzzers = buzzers
    }

    public var name: String { buzzers.map(\.name).joined(separator: "+") }

    public func play(_ cue: Cue, tones: [Tone]) {
        for b in buzzers { b.play(cue, tones: tones) }
    }

    public func drain() {
        for b in buzzers { b.drain() }
    }

    /// Every part that plays clips gets the clip; true when one did.
    public func play(_ clip: SoundClip) -> Bool {
        var played = false
        for b in buzzers where b.play(clip) { played = true }
        return played
    }

    public func cutClips() {
        for b in buzzers { b.cutClips() }
    }

    /// The first part's problem, if any has one.
    public var unavailableReason: String? { buzzers.lazy.compactMap(\.unavailableReason).first }
}
