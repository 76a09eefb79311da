import PacerCore

/// Where the runner's smoothed speed is relative to the phase's range.
public enum PaceState: String, Hashable, Sendable {
    /// No judgement: no speed yet, no fix, positioning off, or paused.
    case unknown
    case slow
    case onPace = "on-pace"
    case fast
    /// The speeds to judge do not agree, or are too few: the cue is held back rather than
    /// guessed (the last judgement still decides the hysteresis and when a repeat is due).
    case unsure
}

/// What the coach decides; the runtime sounds the cues and records the rest.
public enum CoachOutput: Hashable, Sendable {
    case cue(Cue, phase: Int)
    /// Phase `index` has begun (0 at the start).
    case phaseStarted(Int)
    /// A phase ended (its time was up, or the runner stopped). When it ended between two
    /// fixes, its distance and time in band run on from the last fix at that fix's speed.
    case phaseFinished(PhaseResult)
    /// The fix after a phase's end closed the leg across it: the phase's result measured to
    /// its end, replacing the one given when it ended.
    case phaseRevised(PhaseResult)
    /// The last phase is over.
    case workoutCompleted
    /// A lap press that ended no phase: the activity is split into laps there, the coaching
    /// unchanged. `elapsed`: active time; `distance`: the odometer's metres.
    case lapMarked(elapsed: Duration, distance: Double)
    /// The phase ends soon (the to-go cue sounds with it): `metres` left of a distance phase,
    /// or `time` left of a timed one.
    case toGo(metres: Double?, time: Duration?)
}

/// What the runner can see (R1): where they are in the workout and what to do.
public struct CoachStatus: Hashable, Sendable {
    public var phaseIndex: Int
    public var phaseCount: Int
    public var phaseName: String
    public var phase: Phase
    public var elapsed: Duration
    public var phaseTimeLeft: Duration
    public var smoothedSpeed: Double?
    public var pace: PaceState
    /// Metres covered in this phase, from every fix (the odometer), current to `t`.
    public var phaseDistance: Double
    /// Metres left in a phase that ends on distance; nil for the others.
    public var phaseDistanceLeft: Double?
    /// Metres covered in the workout, from every fix (the odometer), current to `t`.
    public var distance: Double
    /// The steady speed (m/s) that covers what is left of the phase's implied distance (its
    /// mean speed times its duration) in the phase's time left. Shown only when it means
    /// something: running, a fix, at least `CoachSettings.neededSpeedMinimumTimeLeft` left,
    /// and inside the phase's range (a speed outside it would contradict the cues, which keep
    /// the runner in the range whatever the distance); nil otherwise.
    public var neededSpeed: Double?
    public var gpsLost: Bool
    public var paused: Bool
    public var finished: Bool
}
