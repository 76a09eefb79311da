import Coaching
import HAL
import Logging
import PacerCore
import Synchronization

/// The firmware's main loop (R1, R2, R4, R8, R20, R28): takes fixes from the GPS source, time
/// from the clock and presses from the controls; follows the runner through a workout with
/// the pace coach, sounds its cues, captures waypoints and records the track.
///
/// It orchestrates named parts, each of which holds one concern: the coach and auto-pause
/// (Coaching), the route follower, `TrackClock` (the run's time line and segments),
/// the device's `Receiver` (its status, power and sleep), `CuePlayer` (the buzzer),
/// `BatteryWatch` (levels, the low-battery cue) and `StorageWriter` (writes, commits, faults).
///
/// Uses only the HAL and the storage port, so the same code runs on the board and in
/// scenarios. The firmware makes it for each workout and hands it the receiver's events. All
/// its state lives on the clock's loop: public commands may be called from any thread and
/// hop onto the loop with `execute`.
public final class DeviceRuntime: Sendable {
    /// Presses closer together than this are one press.
    public static let waypointDebounce = Duration.seconds(1)

    struct State {
        var coach: PaceCoach
        /// Stops the timer while the runner stands still, when the profile asks for it.
        var autoPause: AutoPause
        var activity: Int64?
        /// The receiver's latest fix, position update or not.
        var lastFix: Fix?
        /// When `lastFix` arrived, on the device's clock.
        var lastFixArrival: Instant?
        /// The fixes since the last track point that were not position updates, for the next
        /// point (`TrackPoint.readings`); emptied where the track breaks.
        var readings: [TrackReading] = []
        /// Each phase's result as the runner was told it at the phase's end.
        var told: [Int: PhaseResult] = [:]
        /// When the workout started, on the device's clock.
        var startedAt: Instant?
        var track: TrackClock
        var waypoints = 0
        /// Lap presses that ended no phase, so far.
        var laps = 0
        var lastWaypointAt: Instant?
        /// Waypoints stored at the press, placed between fixes at the next one.
        var placer = WaypointPlacer()
        /// The coach's next deadline and the battery's minute (`DeviceJob`).
        var tasks = TaskTable()
        var battery = BatteryWatch()
        var finished = false
        /// The profile in force (a step-down replaces it; its `starting` variant while the
        /// receiver's speeds are calibrated).
        var profile: PowerProfile
        /// The calibration at the start ends at the first position update from then on (its
        /// fix is the last the receiver tracks for: the profile's own mode rests from it).
        var calibrationEnds: Instant?
        /// Follows the route the runner follows, when there is one.
        var follower: RouteFollower?
        /// The runtime switched the Wi-Fi radio off (and switches it on at the end).
        var radioOff = false
        /// Racing a ghost, when there is one.
        var ghost: GhostCoach?
        /// Coaching by heart rate, and where the strap stands (`DeviceRuntime+HeartRate`).
        var heart: HeartRateCoach
        var strap = StrapState()
    }

    public let parts: Parts
    public let plan: TrainingPlan
    public let planKey: PlanKey?
    public let workoutIndex: Int
    public let workout: Workout
    let logger: Logger
    let state: LoopBound<State>
    /// What `status` shows, for other threads (the page, the control socket's greeting, the
    /// keys): published by the loop whenever it reports or reschedules.
    private let shown: Mutex<Shown>
    let writer: StorageWriter
    let player: CuePlayer
    /// The voice, when the device speaks.
    let announcer: Announcer?
    /// The status shows the heart rate: a strap is set, or the workout is coached by it.
    let showsHeart: Bool
    /// The device's receiver; nil without a GPS.
    let receiver: Receiver?
    private let onFinish: @Sendable (ActivityEnd) -> Void
    private let onEvent: @Sendable (RuntimeEvent, RuntimeStatus) -> Void

    /// `onEvent` hears everything the device does, as it happens, with the status right
    /// after it (the terminal shows the cues; a scenario writes its timeline); `onFinish`
    /// hears the end of the activity (the CLI stops the clock).
    /// `planKey`: the plan's identity, recorded with the activity so that the plan's progress
    /// is its own. `receiver`: the device's, whose events the firmware hands to `gpsEvent`.
    init(
        parts: Parts, receiver: Receiver?, plan: TrainingPlan, workoutIndex: Int, planKey: PlanKey? = nil,
        route: FollowedRoute? = nil, ghost: Ghost? = nil, logger: Logger = Logger(label: "pacer.runtime"),
        onEvent: @escaping @Sendable (RuntimeEvent, RuntimeStatus) -> Void = { _, _ in },
        onFinish: @escaping @Sendable (ActivityEnd) -> Void = { _ in }
    ) {
        self.parts = parts
        self.plan = plan
        self.planKey = planKey
        self.workoutIndex = workoutIndex
        self.workout = plan.workouts[workoutIndex]
        self.logger = logger
        self.onFinish = onFinish
        self.onEvent = onEvent
        writer = StorageWriter(log: parts.log, clock: parts.clock, logger: logger)
        player = CuePlayer(buzzer: parts.buzzer, cues: parts.cues, clock: parts.clock, power: parts.power, writer: writer)
        self.receiver = receiver
        if parts.speech.speaksAnywhere, let book = parts.phrases, parts.speaker.unavailableReason == nil {
            announcer = Announcer(
                speaker: parts.speaker, settings: parts.speech, book: book, clock: parts.clock, power: parts.power)
            announcer?.profile(parts.profile.name)
        } else {
            announcer = nil
        }
        let coach = PaceCoach(
            workout: plan.workouts[workoutIndex], settings: parts.profile.coachSettings,
            positioning: receiver != nil)
        var state = State(
            coach: coach, autoPause: AutoPause(settings: parts.profile.autoPauseSettings),
            track: TrackClock(logger: logger), profile: parts.profile.starting,
            heart: HeartRateCoach(settings: parts.profile.heartRateSettings, zones: parts.zones))
        if let route, receiver != nil {
            state.follower = RouteFollower(route: route, settings: parts.profile.routeSettings)
        }
        if let ghost, receiver != nil {
            state.ghost = GhostCoach(ghost: ghost, settings: parts.profile.ghostSettings)
        }
        self.state = LoopBound(state, clock: parts.clock)
        showsHeart = parts.heartRate != nil || workout.phases.contains(where: \.usesHeartRate)
        shown = Mutex(Shown(state, gps: .disconnected, lastCue: nil, showsHeart: showsHeart))
        announcer?.attach { [weak self] event in self?.report(event) }
    }

    // MARK: Commands (any thread)

    /// Begins the activity and the workout. Throws when storage refuses to begin.
    ///
    /// The activity is begun at once; the workout's start is queued on the loop even when
    /// called there (the one place the runtime queues itself): it runs after what is already
    /// due at this instant, before the receiver's events the firmware hands on after it
    /// (where the receiver stands, first), and its first battery reading after that.
    func start() throws {
        let activity = try writer.begin(ActivityStart(
            name: "\(plan.name): \(workout.name)", startedAt: nil, plan: plan.name, workout: workout.name,
            profile: parts.profile.name, planKey: planKey, workoutIndex: workoutIndex,
            ghost: state.withValue { $0.ghost?.ghost.name }))
        parts.clock.execute { [self] in
            let now = parts.clock.now
            let out = state.withValue { s -> [CoachOutput] in
                s.activity = activity
                s.startedAt = now
                return s.coach.start(at: now)
            }
            announcer?.started()
            report(.started(activity: activity))
            // The runner hears the timer start: the device has no screen.
            sound(.started, phase: nil)
            handle(out)
            if let receiver { receiver.workoutStarts() } else { parts.power?.gps(.off, at: now) }
            let starting = parts.profile.starting
            parts.power?.boardMaySuspend(starting.boardSuspend, at: now)
            parts.clock.allowSuspend(starting.boardSuspend)
            if parts.profile.wifiOffDuringWorkout { switchRadio(off: true) }
            state.withValue { s in
                s.tasks.every(.trackFlush, parts.profile.trackFlushInterval, on: parts.clock) { [self] in commit() }
                s.tasks.every(.workoutBattery, .seconds(60), firstAt: now, on: parts.clock) { [self] in checkBattery() }
                if starting != parts.profile { s.calibrationEnds = now + parts.profile.calibration }
            }
            rescheduleTick()
        }
    }

    /// Captures a waypoint at the current position (R20). The answer arrives on the loop.
    public func waypoint(_ name: String, reply: @escaping @Sendable (WaypointOutcome) -> Void = { _ in }) {
        parts.clock.onLoop { [self] in
            let outcome = captureWaypoint(name)
            report(.waypoint(name: name, outcome: outcome))
            reply(outcome)
        }
    }

    public func pause() {
        parts.clock.onLoop { [self] in
            let now = parts.clock.now
            let (out, wasRunning, point, takenOver) = state.withValue {
                s -> ([CoachOutput], Bool, (TrackPoint, Int64)?, Bool) in
                if s.coach.isPaused, s.autoPause.isPaused {
                    // A press while auto-paused makes the pause the runner's: moving on will
                    // not end it, they resume by hand.
                    s.autoPause.handOver()
                    return ([], false, nil, true)
                }
                guard s.coach.isRunning else { return ([], false, nil, false) }
                s.autoPause.handOver()
                // The track ends where the runner paused, not at the last position update.
                let point = latestPoint(&s)
                s.track.breakSegment()
                s.readings.removeAll()
                return (s.coach.pause(at: now), true, point, false)
            }
            store(point)
            handle(out)
            // A phase boundary on the way may have finished the workout: then nothing pauses.
            if takenOver || wasRunning && state.withValue({ $0.coach.isPaused }) {
                report(.paused)
                logger.info(takenOver ? "paused by hand (was auto-paused)" : "paused")
                sound(.paused, phase: nil)
            }
            rescheduleTick()
        }
    }

    /// A lap press: the coach ends a phase that a lap press ends, or splits the activity.
    public func lap() {
        parts.clock.onLoop { [self] in
            let now = parts.clock.now
            handle(state.withValue { $0.coach.lap(at: now) })
            rescheduleTick()
        }
    }

    public func resume() {
        parts.clock.onLoop { [self] in
            let now = parts.clock.now
            let (out, wasPaused) = state.withValue { s in
                let wasPaused = s.coach.isPaused
                if wasPaused { s.autoPause.handOver() }
                return (s.coach.resume(at: now), wasPaused)
            }
            if wasPaused {
                report(.resumed)
                logger.info("resumed")
                sound(.resumed, phase: nil)
            }
            handle(out)
            rescheduleTick()
        }
    }

    /// Stops the workout now; the activity is stored as stopped.
    public func stop() {
        parts.clock.onLoop { [self] in
            let now = parts.clock.now
            let (out, point, live) = state.withValue { s in
                let point = s.coach.isRunning ? latestPoint(&s) : nil
                return (s.coach.stop(at: now), point, !s.finished && s.activity != nil)
            }
            store(point)
            handle(out)
            if live { sound(.stopped, phase: nil) }
            finish(.stopped)
        }
    }

    /// Whether the workout is over (the answer to a second start).
    var isFinished: Bool { state.withValue { $0.finished } }

    /// What the status is made of, as the loop last left it.
    struct Shown {
        var profile: String
        var coach: PaceCoach
        var activity: Int64?
        var points: Int
        var waypoints: Int
        var battery: BatteryReading?
        var route: RouteFollower.Progress?
        var gps: GPSStatus
        var lastCue: Cue?
        var heart: HeartStatus?
        var ghost: GhostGap?

        init(_ s: State, gps: GPSStatus, lastCue: Cue?, showsHeart: Bool) {
            ghost = s.ghost?.gap
            if showsHeart { heart = HeartStatus(s.heart, strap: s.strap) }
            profile = s.profile.name
            coach = s.coach
            activity = s.activity
            points = s.track.points
            waypoints = s.waypoints
            battery = s.battery.reading
            route = s.follower?.progress
            self.gps = gps
            self.lastCue = lastCue
        }
    }

    /// A snapshot for displays: on the loop, the state now; on another thread, the state as
    /// the loop last published it, at the clock's time now.
    public var status: RuntimeStatus {
        // Lock: off the loop, the page's, the control socket's and the keys' threads read.
        let shown = parts.clock.isInLoop ? current : self.shown.withLock { $0 }
        return status(shown, at: parts.clock.now)
    }

    func status(_ s: Shown, at now: Instant) -> RuntimeStatus {
        RuntimeStatus(
            plan: plan.name, workout: workout.name, profile: s.profile, coach: s.coach.status(at: now),
            gps: s.gps, positioning: s.coach.positioning, activityID: s.activity,
            points: s.points, waypoints: s.waypoints, lastCue: s.lastCue, battery: s.battery, route: s.route,
            heart: s.heart, ghost: s.ghost)
    }

    /// What `status` shows, on the loop: the receiver's status is the device's.
    private var current: Shown {
        Shown(state.current, gps: receiver?.status.status ?? .disconnected, lastCue: player.lastCue, showsHeart: showsHeart)
    }

    /// Publishes what `status` shows to other threads.
    @discardableResult
    func publish() -> Shown {
        let now = current
        // Lock: the loop writes what other threads read through `status`.
        shown.withLock { $0 = now }
        return now
    }

    /// What could not be stored when the activity ended, and why (nil: everything was).
    public var storageLoss: (reason: String, waiting: Int, dropped: Int)? {
        writer.loss
    }

    /// Tries again to store what the end could not (storage may work again): true when the
    /// activity is stored whole now.
    public func storeWhatWaits() -> Bool {
        writer.finishAgain()
    }

    // MARK: On the loop

    func tick() {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        handle(state.withValue { $0.coach.tick(at: now) })
        rescheduleTick()
    }

    /// One timer at the coach's next deadline: the device sleeps until something is due.
    func rescheduleTick() {
        state.withValue { s in
            s.tasks.cancel(.coach)
            guard !s.finished, let deadline = s.coach.nextDeadline else { return }
            s.tasks.once(.coach, at: deadline, on: parts.clock) { [self] in tick() }
        }
        publish()
    }

    func handle(_ outputs: [CoachOutput]) {
        for output in outputs {
            switch output {
            case .cue(let cue, let phase):
                // The heart-rate ceiling first: over it, no pace cue asks for more, or for
                // the same thing again.
                if Self.paceCues.contains(cue), state.withValue({ $0.heart.isHigh }) {
                    logger.debug("\(cue.rawValue) held: heart rate over the phase's limit")
                    continue
                }
                sound(cue, phase: phase)
            case .phaseStarted(let index):
                logger.info("phase \(index + 1)/\(workout.phases.count) \(workout.phases[index].name)")
                let now = parts.clock.now
                state.withValue { $0.heart.phaseStarted(workout.phases[index], index: index, at: now) }
                report(.phaseStarted(index: index))
            case .phaseFinished(let result):
                if let activity = state.withValue({ s in
                    s.told[result.index] = result
                    return s.activity
                }) {
                    writer.add(result, to: activity)
                }
                report(.phaseFinished(result))
            case .phaseRevised(let result):
                // Stored over the result given at the phase's end; told only when it changed
                // by what a runner could notice.
                let (activity, told) = state.withValue { s in (s.activity, s.told[result.index]) }
                if let activity { writer.add(result, to: activity) }
                if let told, abs(result.distance - told.distance) >= 0.5
                    || abs((result.timeInBand - told.timeInBand).inSeconds) >= 0.5 {
                    report(.phaseRevised(result))
                }
            case .lapMarked(let elapsed, let distance):
                let (activity, number) = state.withValue { s in
                    s.laps += 1
                    return (s.activity, s.laps)
                }
                if let activity { writer.add(LapMark(timer: elapsed, distance: distance), number: number - 1, to: activity) }
                logger.info("lap \(number) at \(RuntimeStatus.clock(elapsed))")
                // The beep first, then the lap's words (a cue cuts words being said).
                sound(.lap, phase: state.withValue { $0.coach.currentPhaseIndex })
                report(.lap(number: number, timer: elapsed, distance: distance))
            case .toGo(let metres, let time):
                // The to-go cue sounded just before (its own output): its words follow.
                announcer?.toGo(metres: metres, time: time)
            case .workoutCompleted:
                store(state.withValue { latestPoint(&$0) })
                // Run to its end without a fix, it measured nothing: not completed, so the
                // plan offers it again.
                finish(state.withValue { $0.coach.hadFix } ? .completed : .noFix)
            }
        }
    }

    /// Sounds a cue in the profile's style, records it, reports it.
    /// `facts`: what the cue's words need (the battery's level, how far off the route).
    func sound(_ cue: Cue, phase: Int?, facts: SpeechFormatter.AlertFacts = .init()) {
        let now = parts.clock.now
        let (style, activity, elapsed) = state.withValue { s in
            (s.profile.style(for: cue), s.activity, s.coach.elapsed(at: now))
        }
        let length = player.play(
            cue, style: style, phase: phase, activity: activity, elapsed: elapsed, beep: announcer?.beeps(cue) ?? true)
        report(.cue(cue, phase: phase))
        announcer?.cue(cue, length: length, coach: status.coach, facts: facts)
    }

    /// Tells the observer, outside every lock; the voice hears it too.
    func report(_ event: RuntimeEvent) {
        // One snapshot for the event and for the other threads.
        let status = status(publish(), at: parts.clock.now)
        if case .finished = event, let announcer {
            // The end's summary before the end: a watcher's stream (`ctl watch --until-end`)
            // ends at `finished`, and what the runner hears of the workout belongs to it.
            announcer.finished(timer: status.coach.elapsed, distance: status.coach.distance)
            onEvent(event, status)
            return
        }
        onEvent(event, status)
        guard let announcer else { return }
        switch event {
        case .paused, .autoPaused: announcer.paused(true)
        case .resumed, .autoResumed: announcer.paused(false)
        case .phaseStarted(let index):
            announcer.phaseStarted(workout.phases[index], index: index, previous: index > 0 ? workout.phases[index - 1] : nil,
                                   coach: status.coach)
        case .lap(let number, let timer, let distance): announcer.lap(number: number, timer: timer, distance: distance)
        default: break
        }
    }

    /// Says where the runner stands (a press, `pacer ctl say-status`): false when the device
    /// does not speak or no workout runs.
    public func sayStatus(reply: @escaping @Sendable (Bool) -> Void = { _ in }) {
        parts.clock.onLoop { [self] in
            guard let announcer, state.withValue({ $0.activity != nil && !$0.finished }) else { return reply(false) }
            let status = status
            announcer.status(status.coach, heart: status.heart?.bpm)
            reply(true)
        }
    }

    func commit() {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        let update = state.withValue { s in s.activity.map { (totals(s, at: now), $0) } }
        if case .failed(let reason, first: true) = writer.commit(update) {
            report(.storageFault(reason))
            sound(.storageFault, phase: nil)
        }
    }

    func finish(_ end: ActivityEnd) {
        let now = parts.clock.now
        let done = state.withValue { s -> (Int64?, Duration, ActivityTotals)? in
            guard !s.finished else { return nil }
            s.finished = true
            s.placer.drop()
            s.tasks.cancelAll()
            s.heart.stop()
            return (s.activity, s.coach.elapsed(at: now), totals(s, at: now))
        }
        guard let (activity, elapsed, totals) = done else { return }
        receiver?.workoutFinished()
        parts.clock.allowSuspend(false)
        if let activity { writer.finish(activity, totals: totals, end: end, activeTime: elapsed) }
        player.drain()
        parts.power?.settle(at: now)
        // The radio on again whatever the end: completed, stopped.
        switchRadio(off: false)
        report(.finished(end))
        // The end's summary was just queued: the program may exit once this returns, and the
        // runner must still hear it.
        parts.speaker.drain()
        logger.info("activity \(activity.map(String.init) ?? "-") \(end.rawValue) after \(RuntimeStatus.clock(elapsed))")
        onFinish(end)
    }
}
