import PacerCore

/// A power profile (R13, R16, R17): how often the device looks at the GPS, how often it
/// repeats alerts and how they sound, how much it smooths speed, how often it writes the
/// track. Profiles are data files (`Hardware/profiles/*.yaml`); adding one needs no code.
public struct PowerProfile: Hashable, Sendable {
    public var name: String
    /// What the runner gets and gives up with this profile, in a sentence or two.
    public var summary: String
    /// Position updates reach the runtime at most this often (R16).
    public var positionInterval: Duration
    /// Speed-up, slow-down and on-pace cues repeat at this interval while they last (R17).
    public var alertInterval: Duration
    /// Beeps or melodies (R17).
    public var cueStyle: CueStyle
    /// Per-cue exceptions to `cueStyle`.
    public var cueStyleOverrides: [Cue: CueStyle]
    /// Speed is averaged over this window before it is compared with the phase's range.
    public var smoothingWindow: Duration
    /// The track is written to storage at least this often.
    public var trackFlushInterval: Duration

    public init(
        name: String, summary: String, positionInterval: Duration, alertInterval: Duration,
        cueStyle: CueStyle, cueStyleOverrides: [Cue: CueStyle] = [:], smoothingWindow: Duration,
        trackFlushInterval: Duration
    ) {
        self.name = name
        self.summary = summary
        self.positionInterval = positionInterval
        self.alertInterval = alertInterval
        self.cueStyle = cueStyle
        self.cueStyleOverrides = cueStyleOverrides
        self.smoothingWindow = smoothingWindow
        self.trackFlushInterval = trackFlushInterval
    }

    /// The style a cue sounds in under this profile.
    public func style(for cue: Cue) -> CueStyle {
        cueStyleOverrides[cue] ?? cueStyle
    }
}
