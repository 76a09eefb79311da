import PacerCore

/// Coaching by heart rate: a phase's heart-rate band (a zone, or bpm) or its ceiling beside a
/// pace band, judged on the strap's measurements. Pure, as `PaceCoach`: the runtime hands it
/// each measurement, each phase's start, pauses and losses, and sounds what it returns.
///
/// The heart lags the legs: after a change of effort it takes half a minute to a minute and a
/// half to settle (the "heart rate lag" every coach warns of). So nothing is judged for
/// `settle` after a phase starts, the workout resumes or the strap comes back, and a judgement
/// is the mean of the last `window` of measurements, never one beat's rate. Leaving a band
/// needs the mean to cross its edge; coming back needs it `hysteresis` bpm inside, so that a
/// rate on the edge does not flip the cue.
///
/// Cues: above the band or the ceiling, `hr-high` (ease off); below a band, `hr-low` (pick it
/// up); both again every `alertInterval` while they last. Back inside, `hr-in-zone`, once.
/// A band's first judgement inside it says `hr-in-zone` too; a ceiling's first judgement under
/// it says nothing (the runner is where the ceiling wants them).
public struct HeartRateCoach: Sendable {
    public struct Settings: Hashable, Sendable {
        /// How long after a phase's start (a resume, the strap's return) the heart is left to
        /// catch up before it is judged.
        public var settle: Duration
        /// The measurements averaged for a judgement.
        public var window: Duration
        /// Out-of-band cues repeat at this interval while they last.
        public var alertInterval: Duration
        /// How far inside the band the mean must come back, bpm.
        public var hysteresis: Int
        /// The window must hold at least this many measurements (a strap sends about one a
        /// second).
        public var minimumSamples: Int
        /// The heart counts as settled when its window's last third and first third differ by
        /// at most this, bpm.
        public var steadiness: Int
        /// A heart that keeps moving is judged anyway this long after `settle`.
        public var settleLimit: Duration

        public init(settle: Duration = .seconds(45), window: Duration = .seconds(20), alertInterval: Duration = .seconds(60),
                    hysteresis: Int = 3, minimumSamples: Int = 5, steadiness: Int = 3, settleLimit: Duration = .seconds(60)) {
            self.settle = settle
            self.window = window
            self.alertInterval = alertInterval
            self.hysteresis = hysteresis
            self.minimumSamples = minimumSamples
            self.steadiness = steadiness
            self.settleLimit = settleLimit
        }
    }

    /// Where the runner's heart rate is against the phase's band or ceiling.
    public enum State: String, Hashable, Sendable {
        /// Not judged: no band or ceiling, settling, too few measurements, paused.
        case unknown
        case low
        /// In the band, or under the ceiling.
        case inZone = "in-zone"
        case high
    }

    /// What the runner is held to in the current phase, bpm.
    public enum Limit: Hashable, Sendable {
        case band(ClosedRange<Int>)
        case ceiling(Int)

        public var upper: Int {
            switch self {
            case .band(let r): r.upperBound
            case .ceiling(let c): c
            }
        }

        /// A band's lowest rate; nil for a ceiling.
        public var lower: Int? {
            if case .band(let r) = self { return r.lowerBound }
            return nil
        }
    }

    /// A cue and what it was judged on.
    public struct Judgement: Hashable, Sendable {
        public var cue: Cue
        public var phase: Int
        /// The window's mean, bpm.
        public var bpm: Int
        public var limit: Limit
    }

    public let settings: Settings
    public let zones: HeartRateZones?
    public private(set) var state = State.unknown
    /// The current phase's limit; nil when it has none, or names a zone the athlete has not.
    public private(set) var limit: Limit?
    private var phaseIndex = 0
    private var settledAt: Instant?
    private var running = false
    private var samples: [(at: Instant, bpm: Int)] = []
    private var lastCueAt: Instant?
    /// The time between the last two measurements, for `Reminder`: a strap's notification a
    /// few milliseconds early does not put a reminder off by a whole second.
    private var sampleSpacing = Duration.zero
    /// The latest measurement's rate, bpm.
    public private(set) var latest: Int?

    public init(settings: Settings = Settings(), zones: HeartRateZones?) {
        self.settings = settings
        self.zones = zones
    }

    /// The window's last third and its first differ by more than `by` bpm.
    static func moving(_ samples: [(at: Instant, bpm: Int)], by: Int) -> Bool {
        let third = max(1, samples.count / 3)
        func mean(_ s: ArraySlice<(at: Instant, bpm: Int)>) -> Double { Double(s.reduce(0) { $0 + $1.bpm }) / Double(s.count) }
        return abs(mean(samples.suffix(third)) - mean(samples.prefix(third))) > Double(by)
    }

    /// The limit `phase` holds the runner to with these zones; nil without one.
    public static func limit(of phase: Phase, zones: HeartRateZones?) -> Limit? {
        if let target = phase.heartRateTarget { return target.range(zones).map(Limit.band) }
        if let ceiling = phase.heartRateCeiling { return ceiling.bpm(zones).map(Limit.ceiling) }
        return nil
    }

    /// The heart rate is over the phase's ceiling (or its band's top): what the runtime
    /// sounds first, holding back the pace cues that would ask for more.
    public var isHigh: Bool { state == .high }

    /// Judging (a phase runs, not paused).
    public var isRunning: Bool { running }

    /// Phase `index` began at `t`.
    public mutating func phaseStarted(_ phase: Phase, index: Int, at t: Instant) {
        phaseIndex = index
        limit = Self.limit(of: phase, zones: zones)
        running = true
        state = .unknown
        lastCueAt = nil
        settledAt = t + settings.settle
    }

    public mutating func pause() {
        running = false
        state = .unknown
    }

    /// The timer runs again: the heart settles again from here.
    public mutating func resume(at t: Instant) {
        running = true
        settledAt = t + settings.settle
        lastCueAt = nil
    }

    public mutating func stop() {
        running = false
        limit = nil
        state = .unknown
    }

    /// The strap was lost: what was measured before says nothing about when it comes back.
    public mutating func lost() {
        samples.removeAll()
        latest = nil
        state = .unknown
    }

    /// The strap is back at `t`: judged again once the window has filled.
    public mutating func back(at t: Instant) {
        settledAt = max(settledAt ?? t, t + settings.window)
        lastCueAt = nil
    }

    /// A measurement of `bpm` at `t`; the cue it calls for, if any.
    public mutating func sample(_ bpm: Int, at t: Instant) -> Judgement? {
        latest = bpm
        if let last = samples.last?.at, t > last { sampleSpacing = t - last }
        samples.append((t, bpm))
        let from = t - settings.window
        if let first = samples.firstIndex(where: { $0.at > from }), first > 0 { samples.removeFirst(first) }
        guard running, let limit, let settledAt, t >= settledAt, samples.count >= settings.minimumSamples else {
            return nil
        }
        let mean = Int((Double(samples.reduce(0) { $0 + $1.bpm }) / Double(samples.count)).rounded())
        let h = settings.hysteresis
        // A first judgement inside the band waits while the heart is still climbing or falling
        // through it (the window's last third against its first): "in zone" said on the way
        // up to a rate above it would be taken back seconds later. Outside the band, the trend
        // only takes it further out, and the cue is due.
        if state == .unknown, t < settledAt + settings.settleLimit, Self.moving(samples, by: settings.steadiness) {
            let inside: Bool = switch limit {
            case .band(let r): r.contains(mean)
            case .ceiling(let c): mean <= c
            }
            if inside { return nil }
        }
        let next: State
        switch (limit, state) {
        case (.ceiling(let c), .high): next = mean <= c - h ? .inZone : .high
        case (.ceiling(let c), _): next = mean > c ? .high : .inZone
        case (.band(let r), .high): next = mean <= r.upperBound - h ? (mean < r.lowerBound ? .low : .inZone) : .high
        case (.band(let r), .low): next = mean >= r.lowerBound + h ? (mean > r.upperBound ? .high : .inZone) : .low
        case (.band(let r), _): next = mean > r.upperBound ? .high : mean < r.lowerBound ? .low : .inZone
        }
        let was = state
        state = next
        let cue: Cue?
        switch next {
        case .high, .low:
            // A reminder only while the rate is still beyond the edge: inside the band but not
            // yet `hysteresis` in, the state holds and nothing is said ("161, under 161" would
            // contradict itself).
            let beyond = next == .high ? mean > limit.upper : mean < (limit.lower ?? 0)
            let due = was != next || (beyond && lastCueAt.map { Reminder.isDue(sinceLastCue: t - $0, interval: settings.alertInterval, updateSpacing: sampleSpacing) } ?? true)
            cue = due ? (next == .high ? .hrHigh : .hrLow) : nil
        case .inZone:
            // Back in, or a band's first judgement; a ceiling's first judgement is silent.
            if case .ceiling = limit, was == .unknown {
                cue = nil
            } else {
                cue = was != .inZone ? .hrInZone : nil
            }
        case .unknown:
            cue = nil
        }
        guard let cue else { return nil }
        lastCueAt = t
        return Judgement(cue: cue, phase: phaseIndex, bpm: mean, limit: limit)
    }
}
