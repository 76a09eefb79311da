import PacerCore

/// How cues sound (R17): plain beeps, or short melodies.
public enum CueStyle: String, CaseIterable, Hashable, Sendable {
    case beeps
    case melody
}

/// One note of a cue: a frequency (0 for a rest) held for a duration.
public struct Tone: Hashable, Sendable {
    public var frequency: Double
    public var duration: Duration

    public init(frequency: Double, duration: Duration) {
        self.frequency = frequency
        self.duration = duration
    }

    public static func rest(_ duration: Duration) -> Tone { Tone(frequency: 0, duration: duration) }

    public var isRest: Bool { frequency <= 0 }
}

/// What each cue sounds like in each style: data (loaded from `Hardware/cues.yaml` by the
/// configurator), not code.
public struct CueBook: Hashable, Sendable {
    public var sounds: [Cue: [CueStyle: [Tone]]]

    public init(sounds: [Cue: [CueStyle: [Tone]]]) {
        self.sounds = sounds
    }

    /// The tones for a cue in a style; empty when the book has none.
    public func tones(for cue: Cue, style: CueStyle) -> [Tone] {
        sounds[cue]?[style] ?? []
    }
}

/// A sound output. `play` returns at once (the runtime loop never waits for audio);
/// sounds queue and play in order.
public protocol Buzzer: AnyObject, Sendable {
    /// The buzzer's URI (`alsa:default`, `wav:/tmp/cues.wav`, `null`).
    var name: String { get }
    /// Queues a cue's tones.
    func play(_ cue: Cue, tones: [Tone])
    /// Waits until everything queued has played (for a command that exits afterwards).
    func drain()
    /// Why the buzzer cannot sound (the device did not open, it failed while playing), or
    /// nil while it works. Cues still "play", silently: the device runs on.
    var unavailableReason: String? { get }
}

extension Buzzer {
    public var unavailableReason: String? { nil }
}
