import PacerCore

/// How the coach behaves: from the power profile, plus the band-edge hysteresis.
public struct CoachSettings: Hashable, Sendable {
    /// Speed-up, slow-down and on-pace repeat at this interval while they last (R1, R17).
    public var alertInterval: Duration
    /// Speed is averaged over this window (the profile's smoothing window).
    public var smoothingWindow: Duration
    /// Once off pace, the smoothed speed must come this far back inside the range before the
    /// runner counts as on pace again (m/s), so that a speed on the edge does not flip the
    /// cue back and forth.
    public var hysteresis: Double
    /// After the start, a phase change or a resume, pace is first judged at the first position
    /// update at least this long after it, on the speeds since: the runner gets time to find
    /// the new pace before a correction, and is never judged on the previous phase's speed.
    public var settleTime: Duration
    /// A split cue sounds each time the distance passes a multiple of this many metres; nil:
    /// none (the profile's `split_cue_km`).
    public var splitDistance: Double?
    /// A pace cue needs at least this many trusted speeds in the window: one speed alone
    /// could be the spike that decides.
    public var minimumSamples: Int
    /// Which speeds are trusted (the quality floor, the positions' support).
    public var trust: SpeedTrust
    /// "To go" before a distance phase's end, this many metres before it; nil: none.
    public var toGoMetres: Double?
    /// "To go" before a timed phase's end, this long before it; nil: none.
    public var toGoTime: Duration?
    /// A countdown beep at each of a phase's last this many seconds (0: none).
    public var countdown = 0
    /// The needed speed is shown only while at least this much of the phase is left: in the
    /// last seconds it would swing wildly.
    public static let neededSpeedMinimumTimeLeft = Duration.seconds(30)
    /// A gps-lost reminder waits this long past its alert interval: a receiver in power-save
    /// sends its fix on the same cadence, and a reminder must not sound in the very second the
    /// fix comes back.
    public static let reminderGrace = Duration.seconds(2)

    public init(alertInterval: Duration, smoothingWindow: Duration, hysteresis: Double = 0.1,
                settleTime: Duration = .seconds(10), splitDistance: Double? = nil,
                minimumSamples: Int = 2, trust: SpeedTrust = SpeedTrust()) {
        self.alertInterval = alertInterval
        self.smoothingWindow = smoothingWindow
        self.hysteresis = hysteresis
        self.settleTime = settleTime
        self.splitDistance = splitDistance
        self.minimumSamples = minimumSamples
        self.trust = trust
    }
}
