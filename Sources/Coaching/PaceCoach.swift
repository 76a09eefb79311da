import PacerCore

/// The pace coach: follows a workout phase by phase and decides every cue (R1, R2, R8).
///
/// Pure and deterministic: it reads no clock. The runtime passes the clock's `Instant` with
/// every input and calls `tick(at:)` at `nextDeadline`. Rules:
/// - Phase time is active time (pauses excluded) on the clock, never GPS time. When a phase's
///   time is up the next begins with a phase-change cue; after the last, a workout-complete
///   cue. Those two cues sound for no other reason.
/// - Every fix the receiver delivers (`track`) is counted by the odometer and its speed goes
///   into a smoother (the profile's window). Pace is judged only at position updates (`fix`,
///   the profile's cadence), never between them, so that at most one pace cue sounds at an
///   instant and a repeat is never sounded on stale data just before a fix that changes it.
///   Below the phase's minimum: speed-up; above its maximum: slow-down; within: on-pace. A
///   cue sounds when the state changes, and repeats at the first position update once the
///   alert interval has passed while it lasts. Leaving slow or fast needs the speed
///   `hysteresis` inside the range (at most a quarter of the range's width). After the start,
///   a phase change or a resume, the first judgement waits `settleTime`, on the speeds since.
/// - Only trusted speeds are smoothed and judged (`SpeedTrust`: the fix's quality floor, and
///   a speed the positions support). A judgement needs `minimumSamples` of them (those in the
///   window, or the latest when it holds fewer), and their mean and the mean of their newer
///   half must each be on the side of the band the cue would tell (below the minimum for
///   speed-up, above the maximum for slow-down, within the band or its hysteresis for
///   on-pace); otherwise the coach is unsure (`PaceState.unsure`) and the cue is held back,
///   not guessed. Still slow or fast by the hysteresis alone is unsure too. Speeds that
///   scatter more than the hysteresis from one fix to the next (`SpeedScatter`: speeds
///   derived from positions, not a receiver's Doppler) must put the mean across the edge by
///   `uncertainty` standard errors of that excess scatter as well.
/// - Distance, per phase and in all, is the odometer's, attributed by time: a phase ending
///   between two fixes gets, at its end, the distance carried on from the last fix at that
///   fix's speed; the next fix closes the leg across the end and the phase's result is
///   revised with the part of that leg run before the end (`Odometer.Leg.length(until:)`).
///   Time in band is the time whose legs (between consecutive fixes) were run at a speed
///   inside the phase's range, split at the phase's end the same way, so a phase run in
///   band throughout reports its average inside the band.
/// - GPS lost: a gps-lost cue, a reminder every alert interval (and `reminderGrace`), a
///   gps-back cue on recovery; no pace cues until two trusted speeds have arrived since.
///   A gps-back due less than `reminderGrace` (2 s) after a gps-lost cue (a reminder due in
///   the very second a fix returns) waits until 2 s after it: the runner never hears "lost"
///   and "back" together. A loss again before it sounds cancels it (the runner's last word
///   was "lost", and stays true).
///   Started before the first fix, the loss is told after `reminderGrace` (a first fix
///   within it is silent: no "lost" then "back" at the start). Nothing more is carried on
///   from the last fix across a loss; what was carried on up to it stands (the distance
///   never runs backwards, `Odometer.hold`). Positioning off: phases run on time alone, no
///   pace cues.
/// - Paused: nothing sounds and phase time stands still. A pause may be dated back (auto-pause:
///   to when the runner stopped), never before the run resumed or the current phase began.
/// - Splits (when the settings give a split distance): a split cue each time the distance
///   handed out passes a multiple of it, at the fix (or the pause) that takes it past; once,
///   however many multiples one leg passes (a leg across an outage), and never while paused.
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
    /// How much the receiver's trusted speeds scatter from one to the next.
    private var scatter = SpeedScatter()
    /// The last judgement was held back (`PaceState.unsure`).
    private var unsure = false
    /// This path's recent fixes (the last `trust.referenceSpan` and the one before), to check
    /// a speed against the positions; emptied at a loss, a pause, a resume.
    private var recent: [(at: Instant, position: GeoPoint, speed: Double?)] = []
    /// Speeds the positions before them did not support, until later fixes confirm or drop them.
    private var suspects: [(at: Instant, position: GeoPoint, speed: Double)] = []
    private var lastPaceCue: Instant?
    /// The last position update and the time since the one before: a repeat is due at the
    /// update nearest `alertInterval` after the last cue (within half that spacing), not only
    /// at one that is late by it. Updates 30 s apart that reach a board a few hundredths of a
    /// second early (29.95 s) would otherwise drop every other reminder (the emulated board
    /// showed it: an on-pace at 3:05 and a speed-up at 11:05 never came).
    private var lastUpdateAt: Instant?
    private var updateSpacing = Duration.zero
    private var gpsLost = false
    /// Whether a fix has come since the start: a workout started while the receiver searches
    /// is not told "lost" at once (below), and one that ran to its end without one measured
    /// nothing and is not completed (`ActivityEnd.noFix`).
    public private(set) var hadFix = false
    /// Whether the runner was told of the current loss (a gps-back answers only a told loss).
    private var lossTold = false
    private var lastLostCue: Instant?
    /// When a gps-back held back (too soon after a gps-lost cue) sounds.
    private var pendingBack: Instant?
    /// No pace judgement before this (the settle time after a start, phase change, resume).
    private var judgeFrom: Instant?
    /// The multiple of the split distance the last split cue announced, in metres.
    private var lastSplit = 0.0
    /// The current phase's to-go cue has sounded (or will not: the phase is too short).
    private var toGoDone = false
    /// The next countdown beep of the current phase, in seconds before its end (0: none left).
    private var countdownNext = 0

    /// The distance from every fix.
    public private(set) var odometer = Odometer()

    // Per-phase accounting.
    /// The odometer's metres at the current phase's start (provisional while `open` holds
    /// phases: the leg across their ends has not closed yet).
    private var phaseStartDistance = 0.0
    /// When the current phase began, on the clock.
    private var phaseStartInstant: Instant?
    /// Time in band of the current phase, from the legs closed so far.
    private var timeInBand = Duration.zero
    /// The last leg's end and the speed run on past it (its last fix's), carried on to a
    /// phase's end, a pause or a stop.
    private var lastLeg: (end: Instant, speed: Double)?
    private var phaseStartElapsed = Duration.zero

    /// A phase that ended since the last fix: its result waits for the leg across its end.
    private struct OpenPhase {
        var result: PhaseResult
        var start: Instant
        var end: Instant
        var startDistance: Double
        /// Its time in band from the legs closed before its end.
        var bandBefore: Duration
    }
    private var open: [OpenPhase] = []

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
        // The countdown under way goes on under the new profile's length (none: none).
        countdownNext = new.countdown == 0 ? 0 : settings.countdown == 0 ? new.countdown : min(countdownNext, new.countdown)
        settings = new
        smoother.window = new.smoothingWindow
    }

    /// The phase under way (the last one once the workout is over).
    public var currentPhase: Phase { workout.phases[currentPhaseIndex] }
    /// Its index in the workout.
    public var currentPhaseIndex: Int { min(phaseIndex, workout.phases.count - 1) }

    public mutating func start(at t: Instant) -> [CoachOutput] {
        guard !started else { return [] }
        started = true
        runningSince = t
        judgeFrom = t + settings.settleTime
        phaseStartInstant = t
        odometer.startPath(at: t)
        resetAnticipation()
        return [.phaseStarted(0)]
    }

    /// A fix between position updates: counted and smoothed, never judged. `speed` is the
    /// receiver's speed over ground in m/s.
    public mutating func track(_ position: GeoPoint, speed measured: Double?, course: Double? = nil,
                               quality: FixTrust = .unknown, at t: Instant) -> [CoachOutput] {
        guard isRunning, positioning else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        // A phase that ended since the last fix is where the runner was told to change pace.
        if let leg = odometer.add(position, speed: measured, course: course, at: t, paceChangeAt: open.last?.end) {
            out += close(leg)
        }
        // The speed as the odometer counts it: the receiver's, times its established scale.
        let speed = measured.map { $0 * odometer.speedFactor }
        out += split(at: t)
        // A distance end this fix's leg ran past (the runner went faster than carried on).
        out += advance(to: t)
        guard !finished else { return out }
        out += anticipate(at: t)
        hadFix = true
        if gpsLost {
            gpsLost = false
            if lossTold {
                if let told = lastLostCue, t - told < CoachSettings.reminderGrace {
                    pendingBack = told + CoachSettings.reminderGrace
                } else {
                    out.append(.cue(.gpsBack, phase: phaseIndex))
                }
            }
            lastLostCue = nil
        }
        if let speed, speed.isFinite, settings.trust.meetsFloor(quality) {
            confirmSuspects(at: position, speed: speed, t)
            if trusts(speed, at: position, t) {
                smoother.add(speed, at: t)
                scatter.add(speed, at: t)
            } else {
                suspects.append((t, position, speed))
            }
        }
        remember(position, speed: speed, at: t)
        return out
    }

    /// A speed the positions before it did not support is a spike, or a change of pace right
    /// at its fix (the runner told to speed up at a phase change): the fixes after it tell
    /// which. At the first fix `referenceSpan` or more after it (the next one, for fixes 30 s
    /// apart), a suspect that the straight line since and the speed now support is judged on
    /// after all (a sudden change of pace that lasts); the others are dropped.
    private mutating func confirmSuspects(at position: GeoPoint, speed: Double, _ t: Instant) {
        let trust = settings.trust
        while let first = suspects.first, t - first.at >= trust.referenceSpan {
            suspects.removeFirst()
            if trust.supported(speed: first.speed, chord: Geodesy.distance(first.position, position),
                               span: t - first.at, previous: speed) {
                smoother.add(first.speed, at: first.at)
            }
        }
    }

    /// Whether `speed`, at a fix at `position`, is supported by the positions before it
    /// (`SpeedTrust`).
    private func trusts(_ speed: Double, at position: GeoPoint, _ t: Instant) -> Bool {
        let trust = settings.trust
        guard let last = recent.last, t > last.at else { return true }
        let reference = recent.last(where: { t - $0.at >= trust.referenceSpan }) ?? recent[0]
        return trust.supported(
            speed: speed, chord: Geodesy.distance(reference.position, position),
            span: t - reference.at, previous: last.speed)
    }

    /// Keeps the fixes a later speed is checked against: those within the reference span,
    /// and the latest before it.
    private mutating func remember(_ position: GeoPoint, speed: Double?, at t: Instant) {
        recent.append((t, position, speed.flatMap { $0.isFinite ? $0 : nil }))
        if let keep = recent.lastIndex(where: { t - $0.at >= settings.trust.referenceSpan }), keep > 0 {
            recent.removeFirst(keep)
        }
    }

    /// A position update (a fix sampled at the profile's interval): counted like every fix,
    /// then the pace is judged.
    public mutating func fix(_ position: GeoPoint, speed: Double?, course: Double? = nil, quality: FixTrust = .unknown,
                             at t: Instant) -> [CoachOutput] {
        var out = track(position, speed: speed, course: course, quality: quality, at: t)
        if let last = lastUpdateAt, t > last { updateSpacing = t - last }
        lastUpdateAt = t
        guard isRunning, positioning else { return out }
        out += judge(at: t)
        return out
    }

    /// The firmware put the receiver to sleep until about `due`: its silence until then is
    /// the cadence, not a stop (the live distance carries the speed on).
    public mutating func receiverSleeps(until due: Instant) {
        odometer.receiverSleeps(until: due)
    }

    /// The receiver lost its fix (or went away).
    public mutating func fixLost(at t: Instant) -> [CoachOutput] {
        guard isRunning, positioning, !gpsLost else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        gpsLost = true
        // The distance shown up to the loss stands: the runner ran it, or near enough; it is
        // never taken back while the receiver is lost (the leg across counts when fixes return).
        odometer.fixLost(at: t)
        // Nothing is carried on from the last fix across a loss: the leg across it is
        // measured if and when fixes come back.
        timeInBand += bandTail(to: t)
        lastLeg = nil
        smoother.reset()
        recent.removeAll()
        suspects.removeAll()
        setPace(.unknown, at: t)
        if let pending = pendingBack {
            // Lost again before the gps-back held back sounded: the runner's last word,
            // "lost", stays true; the reminders go on from it.
            pendingBack = nil
            lastLostCue = pending - CoachSettings.reminderGrace
            return out
        }
        lastLostCue = t
        // Started while the receiver still searches (no fix yet since the start): its first
        // fix often follows within the second (a real receiver's first sentences say "no fix"),
        // and "GPS lost" then "GPS back" at the start is noise. The loss is told after
        // `reminderGrace`, if it still lasts; a gps-back answers only a loss that was told.
        lossTold = hadFix
        if lossTold { out.append(.cue(.gpsLost, phase: phaseIndex)) }
        return out
    }

    /// The clock reached `nextDeadline` (or any time): phase ends and gps-lost reminders.
    /// Pace is not judged here: only a position update brings a speed to judge.
    public mutating func tick(at t: Instant) -> [CoachOutput] {
        guard isRunning else { return [] }
        var out = advance(to: t)
        guard !finished else { return out }
        out += anticipate(at: t)
        if gpsLost, let last = lastLostCue, t - last >= lostCueWait {
            lastLostCue = t
            lossTold = true
            out.append(.cue(.gpsLost, phase: phaseIndex))
        }
        if let due = pendingBack, t >= due {
            pendingBack = nil
            out.append(.cue(.gpsBack, phase: phaseIndex))
        }
        return out
    }

    /// Pauses at `t`; the timer stops at `stoppedAt` when given (an auto-pause: the runner
    /// stopped then, and was only seen to stand still until `t`), but never before the run
    /// resumed or the current phase began: a phase change that has sounded stands.
    public mutating func pause(at t: Instant, stoppedAt: Instant? = nil) -> [CoachOutput] {
        guard isRunning else { return [] }
        var out = advance(to: t)
        guard !finished, let since = runningSince else { return out }
        let at = max(min(stoppedAt ?? t, t), since, phaseStartInstant ?? since)
        // No leg runs across a pause: what ran on from the last fix stands.
        timeInBand += bandTail(to: at)
        open.removeAll()
        lastLeg = nil
        accumulated += at - since
        runningSince = nil
        pace = .unknown
        unsure = false
        lastPaceCue = nil
        smoother.reset()
        recent.removeAll()
        suspects.removeAll()
        // Distance runs up to the pause, and not across it; what was shown up to the press
        // (after `at`, when dated back) stands.
        odometer.hold(at: t)
        if !gpsLost { odometer.settle(at: at) }
        out += split(at: at)
        odometer.breakPath()
        return out
    }

    public mutating func resume(at t: Instant) -> [CoachOutput] {
        guard started, !finished, runningSince == nil else { return [] }
        runningSince = t
        judgeFrom = t + settings.settleTime
        odometer.startPath(at: t)
        return []
    }

    /// The runner stops the workout: the current phase is closed as it stands.
    public mutating func stop(at t: Instant) -> [CoachOutput] {
        guard started, !finished else { return [] }
        var out = isRunning ? advance(to: t) : []
        guard !finished else { return out }
        if let since = runningSince {
            timeInBand += bandTail(to: t)
            if !gpsLost { odometer.settle(at: t) }
            accumulated += t - since
            runningSince = nil
        }
        open.removeAll()
        out.append(.phaseFinished(result(endingAt: accumulated, how: .stop)))
        finished = true
        return out
    }

    // MARK: Outputs

    public var isRunning: Bool { started && !finished && runningSince != nil }
    public var isPaused: Bool { started && !finished && runningSince == nil }

    /// Active time at `t`.
    public func elapsed(at t: Instant) -> Duration {
        accumulated + (runningSince.map { max(.zero, t - $0) } ?? .zero)
    }

    /// From the last gps-lost cue to the next: the alert interval and `reminderGrace`; from a
    /// loss not yet told (started before the first fix), `reminderGrace`.
    private var lostCueWait: Duration {
        lossTold ? settings.alertInterval + CoachSettings.reminderGrace : CoachSettings.reminderGrace
    }

    /// When the runtime should call `tick` next: the phase's end, the next gps-lost reminder.
    public var nextDeadline: Instant? {
        guard isRunning, let since = runningSince else { return nil }
        var deadlines: [Instant] = []
        if let end = timeEnd { deadlines.append(since + (end - accumulated)) }
        if let goal = distanceGoal, let at = odometer.instant(projecting: goal) { deadlines.append(at) }
        if let at = anticipations(since: since).map(\.at).min() { deadlines.append(at) }
        if gpsLost, let last = lastLostCue { deadlines.append(last + lostCueWait) }
        if let pendingBack { deadlines.append(pendingBack) }
        return deadlines.min()
    }

    public func status(at t: Instant) -> CoachStatus {
        let index = min(phaseIndex, workout.phases.count - 1)
        let phase = workout.phases[index]
        let e = elapsed(at: t)
        let left = max(.zero, timeEnd.map { $0 - e } ?? .zero)
        let distance = distance(at: t)
        let phaseDistance = max(0, distance - phaseStartDistance)
        let distanceLeft = phase.distanceLimit.map { max(0, $0 - phaseDistance) }
        var needed: Double?
        if isRunning, positioning, !gpsLost, phase.timeLimit != nil, phase.speedBand != nil,
           left >= CoachSettings.neededSpeedMinimumTimeLeft {
            let speed = max(0, phase.impliedDistance - phaseDistance) / left.inSeconds
            if speed >= phase.minimumSpeed && speed <= phase.maximumSpeed { needed = speed }
        }
        return CoachStatus(
            phaseIndex: index, phaseCount: workout.phases.count, phaseName: phase.name, phase: phase,
            elapsed: e, phaseTimeLeft: left, smoothedSpeed: isRunning ? judgedSpeed : nil,
            pace: unsure ? .unsure : pace,
            phaseDistance: phaseDistance, phaseDistanceLeft: distanceLeft, distance: distance, neededSpeed: needed,
            gpsLost: gpsLost, paused: isPaused, finished: finished)
    }

    // MARK: Rules

    /// The current phase's end in active time, when it ends on time (a distance phase run
    /// without positioning ends at its planned time).
    private var timeEnd: Duration? {
        let phase = workout.phases[min(phaseIndex, workout.phases.count - 1)]
        if let limit = phase.timeLimit { return phaseStartElapsed + limit }
        if phase.distanceLimit != nil && !positioning { return phaseStartElapsed + phase.duration }
        return nil
    }

    /// The current phase's end on the odometer, when it ends on distance.
    private var distanceGoal: Double? {
        guard positioning, let metres = workout.phases[min(phaseIndex, workout.phases.count - 1)].distanceLimit else { return nil }
        return phaseStartDistance + metres
    }

    /// Where the current phase ended by `t`, if it has: the instant, the active time and the
    /// odometer's reading there.
    private func boundary(upTo t: Instant, since: Instant) -> (at: Instant, elapsed: Duration, reading: Double, how: PhaseEnding)? {
        if let end = timeEnd {
            guard accumulated + (t - since) >= end else { return nil }
            let at = since + (end - accumulated)
            return (at, end, distance(at: at), .time)
        }
        guard let goal = distanceGoal else { return nil }
        let from = max(since, phaseStartInstant ?? since)
        if let at = odometer.instant(projecting: goal) {
            // Predicted from the last fix's speed: the end sounds where the runner crosses it.
            guard at <= t else { return nil }
            let at = max(at, from)
            return (at, accumulated + (at - since), goal, .distance)
        }
        // Reached at a fix whose leg ran past it (faster than carried on), or by a reading held.
        guard odometer.projection(at: t) >= goal else { return nil }
        return (t, accumulated + (t - since), max(goal, distance(at: t)), .distance)
    }

    /// Moves through every phase boundary up to `t`.
    private mutating func advance(to t: Instant) -> [CoachOutput] {
        var out: [CoachOutput] = []
        while !finished, let since = runningSince, let end = boundary(upTo: t, since: since) {
            out += finishPhase(at: end.at, elapsed: end.elapsed, reading: end.reading, how: end.how)
        }
        return out
    }

    /// Ends the current phase at `boundary` (active time `end`, the odometer at `reading`)
    /// and begins the next, or completes the workout.
    private mutating func finishPhase(at boundary: Instant, elapsed end: Duration, reading: Double,
                                      how: PhaseEnding) -> [CoachOutput] {
        var out: [CoachOutput] = []
        // Provisional: carried on from the last fix; revised when the next fix closes the leg.
        let provisional = result(endingAt: end, distance: reading, timeInBand: timeInBand + bandTail(to: boundary),
                                 how: how)
        out.append(.phaseFinished(provisional))
        if let start = phaseStartInstant {
            open.append(OpenPhase(result: provisional, start: start, end: boundary,
                                  startDistance: phaseStartDistance, bandBefore: timeInBand))
        }
        if phaseIndex + 1 < workout.phases.count {
            phaseIndex += 1
            phaseStartElapsed = end
            phaseStartDistance = reading
            phaseStartInstant = boundary
            timeInBand = .zero
            setPace(.unknown, at: boundary)
            judgeFrom = boundary + settings.settleTime
            smoother.reset()
            suspects.removeAll()
            resetAnticipation()
            out.append(.cue(.phaseChange, phase: phaseIndex))
            out.append(.phaseStarted(phaseIndex))
        } else {
            // The end: no later fix will tell better, what ran on from the last one stands.
            if !gpsLost { odometer.settle(at: boundary) }
            open.removeAll()
            finished = true
            accumulated = end
            runningSince = nil
            out.append(.cue(.workoutComplete, phase: phaseIndex))
            out.append(.workoutCompleted)
        }
        return out
    }

    // MARK: Anticipation

    private enum Anticipation: Equatable {
        case toGo(metres: Double?, time: Duration?)
        case countdown(Int)
    }

    private mutating func resetAnticipation() {
        toGoDone = false
        countdownNext = settings.countdown
    }

    /// The current phase's to-go cue and countdown beeps still due, with when: before a
    /// timed end on the clock; before a distance end when the odometer's projection reaches
    /// it (the countdown from the end as predicted from the speed, so it moves with the fixes).
    /// None for a phase too short for them, an open phase, or without positioning on distance.
    private func anticipations(since: Instant) -> [(at: Instant, what: Anticipation)] {
        guard !finished else { return [] }
        let phase = workout.phases[phaseIndex]
        var out: [(at: Instant, what: Anticipation)] = []
        var end: Instant?
        if let e = timeEnd {
            let endAt = since + (e - accumulated)
            end = endAt
            let length = e - phaseStartElapsed
            if !toGoDone, let s = settings.toGoTime, phase.timeLimit != nil, length > s {
                out.append((endAt - s, .toGo(metres: nil, time: s)))
            }
        } else if let goal = distanceGoal, let limit = phase.distanceLimit {
            end = odometer.instant(projecting: goal)
            if !toGoDone, let m = settings.toGoMetres, limit > m {
                if let at = odometer.instant(projecting: goal - m) {
                    out.append((at, .toGo(metres: m, time: nil)))
                } else if odometer.projection(at: odometer.lastFix ?? since) >= goal - m {
                    // Reached at a fix whose leg ran past it: now.
                    out.append((odometer.lastFix ?? since, .toGo(metres: m, time: nil)))
                }
            }
        }
        if let end, countdownNext > 0 {
            let from = phaseStartInstant ?? since
            for k in stride(from: countdownNext, through: 1, by: -1) {
                let at = end - .seconds(k)
                if at > from { out.append((at, .countdown(k))) }
            }
        }
        return out
    }

    /// Sounds what of the anticipation is due by `t`: the to-go cue once, and of the countdown
    /// beeps due only the latest (a late fix does not make a burst of them).
    private mutating func anticipate(at t: Instant) -> [CoachOutput] {
        guard isRunning, let since = runningSince else { return [] }
        var out: [CoachOutput] = []
        let due = anticipations(since: since).filter { $0.at <= t }
        for item in due {
            if case .toGo(let metres, let time) = item.what {
                toGoDone = true
                out.append(.cue(.toGo, phase: phaseIndex))
                out.append(.toGo(metres: metres, time: time))
            }
        }
        let beeps = due.compactMap { if case .countdown(let k) = $0.what { k } else { nil } }
        if let k = beeps.min() {
            countdownNext = k - 1
            out.append(.cue(.countdown, phase: phaseIndex))
        }
        return out
    }

    /// The runner pressed lap at `t`: a phase that a lap press ends (an open phase, or one
    /// marked so) ends now; any other phase goes on as it was, and the press splits the
    /// activity into laps (`lapMarked`).
    public mutating func lap(at t: Instant) -> [CoachOutput] {
        guard isRunning else { return [] }
        var out = advance(to: t)
        guard !finished, let since = runningSince else { return out }
        if workout.phases[phaseIndex].lapEndsEarly {
            out += finishPhase(at: t, elapsed: accumulated + (t - since), reading: distance(at: t), how: .lap)
        } else {
            out.append(.lapMarked(elapsed: accumulated + (t - since), distance: distance(at: t)))
        }
        return out
    }

    /// The trusted speeds a judgement rests on (`SpeedSmoother.evidence(atLeast:)`).
    private var evidence: [Double] { smoother.evidence(atLeast: max(1, settings.minimumSamples)) }

    /// The speed the runner is told and shown: the mean of the speeds a judgement rests on,
    /// so that a cue's figure is the one it was judged on (a window holding one speed lends
    /// the one before it to both), never one fix's speed alone.
    private var judgedSpeed: Double? { Self.mean(evidence) }

    private static func mean(_ speeds: [Double]) -> Double? {
        speeds.isEmpty ? nil : speeds.reduce(0, +) / Double(speeds.count)
    }

    /// Compares the smoothed speed with the phase's range at a position update; cues on a
    /// change of state and when a repeat is due.
    private mutating func judge(at t: Instant) -> [CoachOutput] {
        guard positioning, !gpsLost else {
            if pace != .unknown { setPace(.unknown, at: t) }
            return []
        }
        if let from = judgeFrom, t < from { return [] }
        let phase = workout.phases[phaseIndex]
        // A phase without a pace target (a recovery, an open phase, a free run) is not judged.
        guard phase.speedBand != nil else { return [] }
        // A narrow band (a goal pace within 0.4 km/h) limits the hysteresis to a quarter
        // of its width: otherwise the way back in would be narrower than the band itself,
        // or closed, and a runner right on the goal pace could never be on pace again.
        let h = min(settings.hysteresis, (phase.maximumSpeed - phase.minimumSpeed) / 4)
        // The speeds the judgement rests on: never one alone, which could be the spike that
        // decides (a window as long as the interval between fixes lends the one before it).
        let evidence = self.evidence
        // Their mean: the window's, or with the speed before it when the window holds one.
        guard evidence.count >= settings.minimumSamples, let speed = Self.mean(evidence), let latest = smoother.latest,
              t - latest <= settings.trust.freshness else {
            // Too few trusted speeds (none: the receiver reports none, or none was trusted),
            // or none recent (this update's own speed was not trusted).
            unsure = true
            return []
        }
        let next: PaceState
        switch pace {
        case .slow where speed < phase.minimumSpeed + h: next = .slow
        case .fast where speed > phase.maximumSpeed - h: next = .fast
        default:
            next = speed < phase.minimumSpeed ? .slow : speed > phase.maximumSpeed ? .fast : .onPace
        }
        // The mean and the newer half of the evidence must each say what the cue would tell:
        // the runner who changed pace within the window is judged on what they run now, not
        // on the mean that still holds what they ran before; an older speed that pulls the
        // mean across an edge leaves the coach unsure. Still slow (or fast) by the hysteresis
        // alone is unsure too: a repeat would tell a runner in the band to change.
        let half = evidence.count / 2
        let newer = evidence[half...].reduce(0, +) / Double(evidence.count - half)
        // The newer speeds must say it by a margin (half the hysteresis): a speed just across
        // an edge is as likely noise, or a runner already on the way back, as the pace run.
        let m = h * settings.trust.edgeMargin
        let says: (Double, Double) -> Bool = switch next {
        case .slow: { $0 < phase.minimumSpeed - $1 }
        case .fast: { $0 > phase.maximumSpeed + $1 }
        default: { $0 >= phase.minimumSpeed - h + $1 && $0 <= phase.maximumSpeed + h - $1 }
        }
        // And the mean beyond its own uncertainty: a mean of scattered speeds just across an
        // edge says no more than the scatter (`SpeedScatter`). Only the scatter beyond the
        // hysteresis counts (a receiver's Doppler speeds, a few hundredths of a m/s, are judged
        // as before; speeds derived from positions 5 s apart scatter by tenths); on-pace by at
        // most a quarter of the band, so that a narrow band (a goal pace within 0.4 km/h) can
        // still be on pace.
        let excess = max(0, scatter.sigma * scatter.sigma - settings.hysteresis * settings.hysteresis).squareRoot()
        let uncertainty = settings.trust.uncertainty * excess / Double(evidence.count).squareRoot()
        let uncertain = next == .onPace ? min(uncertainty, (phase.maximumSpeed - phase.minimumSpeed) / 4) : uncertainty
        guard says(speed, uncertain), says(newer, m) else {
            unsure = true
            return []
        }
        unsure = false
        if next != pace {
            setPace(next, at: t)
        } else if let last = lastPaceCue,
                  !Reminder.isDue(sinceLastCue: t - last, interval: settings.alertInterval, updateSpacing: updateSpacing) {
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

    /// A split cue when the distance handed out has passed the next multiple of the split
    /// distance since the last one. A new split distance (a step-down) counts on from the
    /// multiple last announced, so a kilometre is never announced twice.
    private mutating func split(at t: Instant) -> [CoachOutput] {
        guard let every = settings.splitDistance, every > 0 else { return [] }
        let reached = (odometer.settledReading / every).rounded(.down) * every
        guard reached > lastSplit else { return [] }
        lastSplit = reached
        return [.cue(.split, phase: phaseIndex)]
    }

    private mutating func setPace(_ next: PaceState, at t: Instant) {
        pace = next
        unsure = false
        lastPaceCue = nil
    }

    /// A leg closed at a fix: the phases that ended during it get their results measured to
    /// their ends (revised), and the current phase its share of the leg's time in band.
    private mutating func close(_ leg: Odometer.Leg) -> [CoachOutput] {
        var out: [CoachOutput] = []
        let before = odometer.distance - leg.length
        for var p in open {
            let atEnd = before + leg.length(until: p.end)
            let legStart = max(leg.from, p.start)
            let inLeg = p.end - legStart
            let band = p.result.minimumSpeed...p.result.maximumSpeed
            let inBand = inLeg > .zero ? leg.timeInBand(band, from: legStart, to: p.end) : .zero
            let revised = PhaseResult(
                index: p.result.index, name: p.result.name, duration: p.result.duration,
                timeInBand: min(p.result.duration, p.bandBefore + inBand),
                distance: max(0, atEnd - p.startDistance),
                minimumSpeed: p.result.minimumSpeed, maximumSpeed: p.result.maximumSpeed, ending: p.result.ending,
                repetition: p.result.repetition)
            if revised != p.result { out.append(.phaseRevised(revised)) }
            p.result = revised
            phaseStartDistance = atEnd
        }
        open.removeAll()
        let from = max(leg.from, phaseStartInstant ?? leg.from)
        timeInBand += leg.timeInBand(band, from: from, to: leg.to)
        lastLeg = (leg.to, leg.closingSpeed)
        return out
    }

    /// Metres covered at `t`: carried on from the last fix at its speed while running with a
    /// fix; what was handed out otherwise.
    public func distance(at t: Instant) -> Double {
        gpsLost || !isRunning ? odometer.settledReading : odometer.reading(at: t)
    }

    /// The time in band from the last leg's end to `t`, at the last leg's speed.
    private func bandTail(to t: Instant) -> Duration {
        guard let last = lastLeg, inBand(last.speed) else { return .zero }
        let from = max(last.end, phaseStartInstant ?? last.end)
        return t > from ? t - from : .zero
    }

    private func inBand(_ speed: Double) -> Bool { band.contains(speed) }

    /// The current phase's range (m/s).
    private var band: ClosedRange<Double> {
        let phase = workout.phases[min(phaseIndex, workout.phases.count - 1)]
        return phase.minimumSpeed...phase.maximumSpeed
    }

    private func result(endingAt end: Duration, distance: Double? = nil, timeInBand band: Duration? = nil,
                        how: PhaseEnding) -> PhaseResult {
        let phase = workout.phases[phaseIndex]
        return PhaseResult(
            index: phaseIndex, name: phase.name, duration: end - phaseStartElapsed,
            timeInBand: min(band ?? timeInBand, end - phaseStartElapsed),
            distance: max(0, (distance ?? odometer.settledReading) - phaseStartDistance),
            minimumSpeed: phase.minimumSpeed, maximumSpeed: phase.maximumSpeed, ending: how, repetition: phase.repetition)
    }
}
