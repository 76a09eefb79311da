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
    /// How the GPS receiver is used between position updates.
    public var gpsMode: GPSPowerMode
    /// Whether the board may suspend to RAM between wakeups (where it can).
    public var boardSuspend: Bool
    /// Whether the Wi-Fi radio is switched off (rfkill soft block) for the workout and on
    /// again after it: the companion page is served only while the device waits.
    public var wifiOffDuringWorkout: Bool
    /// A lower profile the device steps down to when the battery falls to a level.
    public var stepDown: StepDown?
    /// The timer stops while the runner stands still and runs again when they move on; nil:
    /// only a press pauses.
    public var autoPause: AutoPause?
    /// A split cue sounds each time the distance passes a multiple of this many metres; nil:
    /// no split cue.
    public var splitDistance: Double?
    /// Following a route: when the runner is off it and back on it, and how early a
    /// waypoint is announced.
    public var route: RouteGuidance
    /// For this long from a workout's start the receiver tracks (a fix a second, counted for
    /// distance between the profile's positions) whatever `gpsMode` says: a second's fixes
    /// let the positions calibrate the receiver's Doppler speeds (the odometer's
    /// `DopplerScale`), which a fix every 30 s cannot do within a run. Zero: none.
    public var calibration: Duration
    /// Before a phase's end: "200 metres to go" / "30 seconds to go" (the to-go cue, and its
    /// words on a speaking device), and a countdown beep in each of its last seconds.
    public var anticipation: Anticipation
    /// How heart rate is judged (`heart_rate` in the profile): how long the heart is left to
    /// settle after a phase change, and the window its rate is averaged over.
    public var heartRate = HeartRateJudging()
    /// Racing a ghost: the gap is told this often (`ghost_interval_s`; by default a minute,
    /// and never more often than the position updates that measure it).
    public var ghostInterval = Duration.seconds(60)

    /// `heart_rate: {settle_s: 45, window_s: 20}`: the heart lags the legs by tens of seconds,
    /// so a judgement waits `settle` after a change of effort and averages `window`.
    public struct HeartRateJudging: Hashable, Sendable {
        public var settle: Duration
        public var window: Duration

        public init(settle: Duration = .seconds(45), window: Duration = .seconds(20)) {
            self.settle = settle
            self.window = window
        }
    }

    /// What sounds before a phase ends (`to_go` in the profile); all nil or zero: nothing.
    public struct Anticipation: Hashable, Sendable {
        /// Before a phase that ends on distance: this many metres before its end.
        public var metres: Double?
        /// Before a phase that ends on time: this long before its end.
        public var time: Duration?
        /// A countdown beep at each of the last this many seconds before a phase's end (on
        /// distance, its end as predicted from the speed).
        public var countdown: Int

        public init(metres: Double? = nil, time: Duration? = nil, countdown: Int = 0) {
            self.metres = metres
            self.time = time
            self.countdown = countdown
        }

        public static let none = Anticipation()
        /// What `battery compare --to-go` tries on a profile that has none.
        public static let standard = Anticipation(metres: 200, time: .seconds(30), countdown: 3)
        public var isNone: Bool { metres == nil && time == nil && countdown == 0 }
    }

    /// "At `percent` % switch to profile `to`".
    public struct StepDown: Hashable, Sendable {
        public var percent: Double
        public var to: String

        public init(percent: Double, to: String) {
            self.percent = percent
            self.to = to
        }
    }

    /// "Pause once the speed has stayed below `below` for `after`; resume above `resumeAbove`"
    /// (speeds in m/s).
    public struct AutoPause: Hashable, Sendable {
        public var below: Double
        public var after: Duration
        public var resumeAbove: Double

        public init(below: Double, after: Duration, resumeAbove: Double) {
            self.below = below
            self.after = after
            self.resumeAbove = resumeAbove
        }
    }

    /// "Off route beyond `offRoute` metres from the line, back on within `backOn`; a
    /// waypoint announced `waypointAhead` metres before it".
    public struct RouteGuidance: Hashable, Sendable {
        public var offRoute: Double
        public var backOn: Double
        public var waypointAhead: Double

        public init(offRoute: Double, backOn: Double, waypointAhead: Double) {
            self.offRoute = offRoute
            self.backOn = backOn
            self.waypointAhead = waypointAhead
        }

        /// When the profile says nothing: a street's width of GPS error and some, and a
        /// waypoint heard a minute or so before it.
        public static let standard = RouteGuidance(offRoute: 40, backOn: 20, waypointAhead: 150)
    }

    public init(
        name: String, summary: String, positionInterval: Duration, alertInterval: Duration,
        cueStyle: CueStyle, cueStyleOverrides: [Cue: CueStyle] = [:], smoothingWindow: Duration,
        trackFlushInterval: Duration, gpsMode: GPSPowerMode = .tracking, boardSuspend: Bool = false,
        stepDown: StepDown? = nil, autoPause: AutoPause? = nil, splitDistance: Double? = nil,
        route: RouteGuidance = .standard, wifiOffDuringWorkout: Bool = false, calibration: Duration = .zero,
        anticipation: Anticipation = .none
    ) {
        self.anticipation = anticipation
        self.calibration = calibration
        self.wifiOffDuringWorkout = wifiOffDuringWorkout
        self.route = route
        self.autoPause = autoPause
        self.splitDistance = splitDistance
        self.gpsMode = gpsMode
        self.boardSuspend = boardSuspend
        self.stepDown = stepDown
        self.name = name
        self.summary = summary
        self.positionInterval = positionInterval
        self.alertInterval = alertInterval
        self.cueStyle = cueStyle
        self.cueStyleOverrides = cueStyleOverrides
        self.smoothingWindow = smoothingWindow
        self.trackFlushInterval = trackFlushInterval
    }

    /// The profile a workout starts in: while it calibrates the receiver's speeds, the same
    /// profile with the receiver tracking (and the board awake for its fixes); else itself.
    public var starting: PowerProfile {
        guard calibration > .zero, gpsMode != .tracking else { return self }
        var p = self
        p.gpsMode = .tracking
        p.boardSuspend = false
        return p
    }

    /// The style a cue sounds in under this profile.
    public func style(for cue: Cue) -> CueStyle {
        cueStyleOverrides[cue] ?? cueStyle
    }
}
