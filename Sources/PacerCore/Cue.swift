/// The cues the device sounds. Their names are the ones people type (`pacer beep speed-up`)
/// and write in data files.
public enum Cue: String, CaseIterable, Hashable, Sendable {
    case speedUp = "speed-up"
    case slowDown = "slow-down"
    case onPace = "on-pace"
    case phaseChange = "phase-change"
    case workoutComplete = "workout-complete"
    case gpsLost = "gps-lost"
    case gpsBack = "gps-back"
    case waypointSaved = "waypoint-saved"
    case lowBattery = "low-battery"

    /// What the cue means to the runner.
    public var meaning: String {
        switch self {
        case .speedUp: "slower than the phase's range: speed up"
        case .slowDown: "faster than the phase's range: slow down"
        case .onPace: "within the phase's range"
        case .phaseChange: "the next phase begins"
        case .workoutComplete: "the last phase is over"
        case .gpsLost: "the GPS has no position"
        case .gpsBack: "the GPS has a position again"
        case .waypointSaved: "a waypoint was stored"
        case .lowBattery: "the battery is low"
        }
    }
}
