import PacerCore

/// The do-nothing buzzer (ArduPilot's `AP_HAL_Empty` idea): the device runs silent.
public final class NullBuzzer: Buzzer {
    public init() {}
    public var name: String { "null" }
    public func play(_ cue: Cue, tones: [Tone]) {}
    public func drain() {}
}
