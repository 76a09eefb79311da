import PacerCore

/// Where the runner's smoothed speed is relative to the phase's range.
public enum PaceState: String, Hashable, Sendable {
    /// No judgement: no speed yet, no fix, positioning off, or paused.
    case unknown
    case slow
    case onPace = "on-pace"
    case fast
}

/// What the coach decides; the runtime sounds the cues and records the rest.
public enum CoachOutput: Hashable, Sendable {
    case cue(Cue, phase: Int)
    /// Phase `index` has begun (0 at the start).
    case phaseStarted(Int)
    /// A phase ended (its time was up, or the runner stopped).
    case phaseFinished(PhaseResult)
    /// The last phase is over.
    case workoutCompleted
}

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

    public init(alertInterval: Duration, smoothingWindow: Duration, hysteresis: Double = 0.1) {
        self.alertInterval = alertInterval
        self.smoothingWindow = smoothingWindow
        self.hysteresis = hysteresis
    }
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
    /// Metres covered in this phase.
    public var phaseDistance: Double
    /// Metres covered in the workout.
    public var distance: Double
    /// The speed that would still cover the phase's implied distance in the time left (m/s);
    /// nil when no time is left.
    public var neededSpeed: Double?
    public var gpsLost: Bool
    public var paused: Bool
    public var finished: Bool
}

/// The pace coach: follows a workout phase by phase and decides every cue (R1, R2, R8).
///
/// Pure and deterministic: it reads no clock. The runtime passes the clock's `Instant` with
/// every input and calls `tick(at:)` at `nextDeadline`. Rules:
/// - Phase time is active time (pauses excluded) on the clock, never GPS time. When a phase's
///   time is up the next begins with a phase-change cue; after the last, a workout-complete
///   cue. Those two cues sound for no other reason.
/// - Each fix's speed goes into a smoother (the profile's window). Below the phase's minimum:
///   speed-up; above its maximum: slow-down; within: on-pace. A cue sounds when the state
///   changes and repeats every alert interval while it lasts. Leaving slow or fast needs the
///   speed `hysteresis` inside the range (at most a quarter of the range's width).
/// - GPS lost: a gps-lost cue, a reminder every alert interval, a gps-back cue on recovery;
///   no pace cues until a fresh speed arrives. Positioning off: phases run on time alone, no
///   pace cues.
/// - Paused: nothing sounds and phase time stands still.
public struct PaceCoach: Sendable {
    public let workout: Workout
    public private(set) var settings: CoachSettings
    public let positioning: Bool

    private var smoother: SpeedSmoother
    private var phaseIndex = 0
    /// Active time accumulated before the current run of activity.
    private var accumulated = Duration.zero
    /// When the current run of activity began; nil while paused or before start.
    private var runningSince: Instant?
    private var started = false
    public private(set) var finished = false

    private var pace = PaceState.unknown
    private var lastPaceCue: Instant?
    private var gpsLost = false
    private var lastLostCue: Instant?
    private var lastPosition: GeoPoint?

    // Per-phase accounting.
    private var phaseDistance = 0.0
    private var totalDistance = 0.0
    private var timeInBand = Duration.zero
    private var inBandSince: Instant?
    private var phaseStartElapsed = Duration.zero

    public init(workout: Workout, settings: CoachSettings, positioning: Bool = true) {
        precondition(!workout.phases.isEmpty, "a workout has at least one phase")
        self.workout = workout
        self.settings = settings
        self.positioning = positioning
        smoother = SpeedSmoother(window: settings.smoothingWindow)
    }

    // MARK: Inputs

    /// New settings mid-run (the device stepped down to a lower power profile): repeats
    /// follow the new alert interval from the next one; speed is averaged over the new
    /// window from the next sample (the samples so far are kept).
    public mutating func change(settings new: CoachSettings) {
        settings = new
        smoother.window = new.smoothingWindow
    }

    public mutating func start(at t: Instant) -> [CoachOutput] {
        guard !started else { return [] }
        started = true
        runningSince = t
        return [.phaseStarted(0)]
    }

    /// A position update (already sampled at the profile's interval). `speed` is the
    /// receiver's speed over ground in m/s.
    public mutating func fix(_ position: GeoPoint, speed: Double?, at t: Instant) -> [CoachOutput] {
        guard isRunning, positioning else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        if let last = lastPosition {
            let d = Geodesy.distance(last, position)
            phaseDistance += d
            totalDistance += d
        }
        lastPosition = position
        if gpsLost {
            gpsLost = false
            lastLostCue = nil
            out.append(.cue(.gpsBack, phase: phaseIndex))
        }
        if let speed { smoother.add(speed, at: t) }
        out += judge(at: t)
        return out
    }

    /// The receiver lost its fix (or went away).
    public mutating func fixLost(at t: Instant) -> [CoachOutput] {
        guard isRunning, positioning, !gpsLost else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        gpsLost = true
        smoother.reset()
        setPace(.unknown, at: t)
        lastLostCue = t
        out.append(.cue(.gpsLost, phase: phaseIndex))
        return out
    }

    /// The clock reached `nextDeadline` (or any time): phase ends and repeated cues.
    public mutating func tick(at t: Instant) -> [CoachOutput] {
        guard isRunning else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        if gpsLost, let last = lastLostCue, t - last >= settings.alertInterval {
            lastLostCue = t
            out.append(.cue(.gpsLost, phase: phaseIndex))
        }
        out += judge(at: t)
        return out
    }

    public mutating func pause(at t: Instant) -> [CoachOutput] {
        guard isRunning else { return [] }
        let out = advance(to: t)
        guard !finished, let since = runningSince else { return out }
        closeBand(at: t)
        inBandSince = nil
        accumulated += t - since
        runningSince = nil
        pace = .unknown
        lastPaceCue = nil
        smoother.reset()
        lastPosition = nil  // distance does not run across a pause
        return out
    }

    public mutating func resume(at t: Instant) -> [CoachOutput] {
        guard started, !finished, runningSince == nil else { return [] }
        runningSince = t
        return []
    }

    /// The runner stops the workout: the current phase is closed as it stands.
    public mutating func stop(at t: Instant) -> [CoachOutput] {
        guard started, !finished else { return [] }
        var out = isRunning ? advance(to: t) : []
        guard !finished else { return out }
        if let since = runningSince {
            closeBand(at: t)
            inBandSince = nil
            accumulated += t - since
            runningSince = nil
        }
        out.append(.phaseFinished(result(endingAt: accumulated)))
        finished = true
        return out
    }

    // MARK: Outputs

    public var isRunning: Bool { started && !finished && runningSince != nil }
    public var isPaused: Bool { started && !finished && runningSince == nil }

    /// Active time at `t`.
    public func elapsed(at t: Instant) -> Duration {
        accumulated + (runningSince.map { t - $0 } ?? .zero)
    }

    /// When the runtime should call `tick` next: the phase's end, the next repeated cue.
    public var nextDeadline: Instant? {
        guard isRunning, let since = runningSince else { return nil }
        var deadlines: [Instant] = [since + (phaseEnd(phaseIndex) - accumulated)]
        if let last = lastPaceCue, pace != .unknown { deadlines.append(last + settings.alertInterval) }
        if gpsLost, let last = lastLostCue { deadlines.append(last + settings.alertInterval) }
        return deadlines.min()
    }

    public func status(at t: Instant) -> CoachStatus {
        let index = min(phaseIndex, workout.phases.count - 1)
        let phase = workout.phases[index]
        let e = elapsed(at: t)
        let left = max(.zero, phaseEnd(index) - e)
        var smoother = self.smoother
        let remaining = max(0, phase.impliedDistance - phaseDistance)
        return CoachStatus(
            phaseIndex: index, phaseCount: workout.phases.count, phaseName: phase.name, phase: phase,
            elapsed: e, phaseTimeLeft: left, smoothedSpeed: isRunning ? smoother.speed(at: t) : nil, pace: pace,
            phaseDistance: phaseDistance, distance: totalDistance,
            neededSpeed: left > .zero ? remaining / left.inSeconds : nil,
            gpsLost: gpsLost, paused: isPaused, finished: finished)
    }

    // MARK: Rules

    /// The end of phase `i` in active time.
    private func phaseEnd(_ i: Int) -> Duration {
        workout.phases.prefix(i + 1).reduce(.zero) { $0 + $1.duration }
    }

    /// Moves through every phase boundary up to `t`.
    private mutating func advance(to t: Instant) -> [CoachOutput] {
        var out: [CoachOutput] = []
        guard let since = runningSince else { return out }
        while !finished, accumulated + (t - since) >= phaseEnd(phaseIndex) {
            let end = phaseEnd(phaseIndex)
            let boundary = since + (end - accumulated)
            closeBand(at: boundary)
            out.append(.phaseFinished(result(endingAt: end)))
            if phaseIndex + 1 < workout.phases.count {
                phaseIndex += 1
                phaseStartElapsed = end
                phaseDistance = 0
                timeInBand = .zero
                setPace(.unknown, at: boundary)
                out.append(.cue(.phaseChange, phase: phaseIndex))
                out.append(.phaseStarted(phaseIndex))
            } else {
                finished = true
                accumulated = end
                runningSince = nil
                out.append(.cue(.workoutComplete, phase: phaseIndex))
                out.append(.workoutCompleted)
            }
        }
        return out
    }

    /// Compares the smoothed speed with the phase's range; cues on a change of state and
    /// when a repeat is due.
    private mutating func judge(at t: Instant) -> [CoachOutput] {
        guard positioning, !gpsLost else {
            if pace != .unknown { setPace(.unknown, at: t) }
            return []
        }
        let next: PaceState
        if let speed = smoother.speed(at: t) {
            let phase = workout.phases[phaseIndex]
            // A narrow band (a goal pace within 0.4 km/h) limits the hysteresis to a quarter
            // of its width: otherwise the way back in would be narrower than the band itself,
            // or closed, and a runner right on the goal pace could never be on pace again.
            let h = min(settings.hysteresis, (phase.maximumSpeed - phase.minimumSpeed) / 4)
            switch pace {
            case .slow where speed < phase.minimumSpeed + h: next = .slow
            case .fast where speed > phase.maximumSpeed - h: next = .fast
            default:
                next = speed < phase.minimumSpeed ? .slow : speed > phase.maximumSpeed ? .fast : .onPace
            }
        } else {
            // No sample inside the window just now (the window is as long as the interval
            // between fixes): the last judgement stands until a fresh speed arrives.
            next = pace
        }
        guard next != .unknown else { return [] }
        if next != pace {
            setPace(next, at: t)
        } else if let last = lastPaceCue, t - last < settings.alertInterval {
            return []
        }
        lastPaceCue = t
        let cue: Cue = switch next {
        case .slow: .speedUp
        case .fast: .slowDown
        default: .onPace
        }
        return [.cue(cue, phase: phaseIndex)]
    }

    private mutating func setPace(_ next: PaceState, at t: Instant) {
        closeBand(at: t)
        pace = next
        lastPaceCue = nil
        inBandSince = next == .onPace ? t : nil
    }

    /// Adds the time spent on pace up to `t` to the phase's tally; the count goes on from `t`
    /// while the pace stays the same.
    private mutating func closeBand(at t: Instant) {
        if let since = inBandSince {
            timeInBand += t - since
            inBandSince = t
        }
    }

    private func result(endingAt end: Duration) -> PhaseResult {
        let phase = workout.phases[phaseIndex]
        return PhaseResult(
            index: phaseIndex, name: phase.name, duration: end - phaseStartElapsed, timeInBand: timeInBand,
            distance: phaseDistance, minimumSpeed: phase.minimumSpeed, maximumSpeed: phase.maximumSpeed)
    }
}
