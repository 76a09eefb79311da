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
/// `ReceiverPower` (the receiver's power and its sleep), `CuePlayer` (the buzzer),
/// `BatteryWatch` (levels, the low-battery cue) and `StorageWriter` (writes, commits, faults).
///
/// Uses only the HAL and the storage port, so the same code runs on the board and in
/// scenarios. All its state lives on the clock's loop: public commands may be called from any
/// thread and hop onto the loop with `execute`.
public final class DeviceRuntime: Sendable {
    /// Presses closer together than this are one press.
    public static let waypointDebounce = Duration.seconds(1)

    private struct State {
        var coach: PaceCoach
        /// Stops the timer while the runner stands still, when the profile asks for it.
        var autoPause: AutoPause
        var activity: Int64?
        /// The receiver's latest fix, position update or not.
        var lastFix: Fix?
        /// When `lastFix` arrived, on the device's clock.
        var lastFixArrival: Instant?
        /// Each phase's result as the runner was told it at the phase's end.
        var told: [Int: PhaseResult] = [:]
        /// When the workout started, on the device's clock.
        var startedAt: Instant?
        var track: TrackClock
        var hasFixNow = false
        var waypoints = 0
        var lastWaypointAt: Instant?
        /// Waypoints stored at the press, placed between fixes at the next one.
        var placer = WaypointPlacer()
        /// The coach's next deadline and the battery's minute (`DeviceJob`).
        var tasks = TaskTable()
        /// The sink this workout hears the receiver through (its sampling is the profile's).
        var sink: GPSEventSink?
        var battery = BatteryWatch()
        var finished = false
        /// The profile in force (a step-down replaces it).
        var profile: PowerProfile
        /// Follows the route the runner follows, when there is one.
        var follower: RouteFollower?
        /// The runtime switched the Wi-Fi radio off (and switches it on at the end).
        var radioOff = false
    }

    public let parts: Parts
    public let plan: TrainingPlan
    public let planKey: PlanKey?
    public let workoutIndex: Int
    public let workout: Workout
    let logger: Logger
    private let state: LoopBound<State>
    /// What `status` shows, for other threads (the page, the control socket's greeting, the
    /// keys): published by the loop whenever it reports or reschedules.
    private let shown: Mutex<Shown>
    private let writer: StorageWriter
    private let player: CuePlayer
    /// The voice, when the device speaks.
    let announcer: Announcer?
    private let receiver: ReceiverPower
    private let onFinish: @Sendable (ActivityEnd) -> Void
    private let onEvent: @Sendable (RuntimeEvent, RuntimeStatus) -> Void

    /// `onEvent` hears everything the device does, as it happens, with the status right
    /// after it (the terminal shows the cues; a scenario writes its timeline); `onFinish`
    /// hears the end of the activity (the CLI stops the clock).
    /// `planKey`: the plan's identity, recorded with the activity so that the plan's progress
    /// is its own.
    public init(
        parts: Parts, plan: TrainingPlan, workoutIndex: Int, planKey: PlanKey? = nil, positioning: Bool = true,
        route: FollowedRoute? = nil, logger: Logger = Logger(label: "pacer.runtime"),
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
        receiver = ReceiverPower(clock: parts.clock, gps: parts.gps, monitor: parts.power, hotStart: parts.gpsHotStart)
        if parts.speech.speaksAnywhere, let book = parts.phrases, parts.speaker.unavailableReason == nil {
            announcer = Announcer(
                speaker: parts.speaker, settings: parts.speech, book: book, clock: parts.clock, power: parts.power)
            announcer?.profile(parts.profile.name)
        } else {
            announcer = nil
        }
        let coach = PaceCoach(
            workout: plan.workouts[workoutIndex], settings: parts.profile.coachSettings,
            positioning: positioning && parts.gps != nil)
        var state = State(
            coach: coach, autoPause: AutoPause(settings: parts.profile.autoPauseSettings),
            track: TrackClock(logger: logger), profile: parts.profile)
        if let route, parts.gps != nil, positioning {
            state.follower = RouteFollower(route: route, settings: parts.profile.routeSettings)
        }
        self.state = LoopBound(state, clock: parts.clock)
        shown = Mutex(Shown(state, lastCue: nil))
        announcer?.attach { [weak self] event in self?.report(event) }
    }

    // MARK: Commands (any thread)

    /// Begins the activity and the workout. Throws when storage refuses to begin.
    ///
    /// The activity is begun at once; the workout's start is queued on the loop even when
    /// called there (the one place the runtime queues itself): it runs after what is already
    /// due at this instant, before what the receiver attached below reports, and its first
    /// battery reading after that (a device's receiver reports where it stands at once).
    public func start() throws {
        let activity = try writer.begin(ActivityStart(
            name: "\(plan.name): \(workout.name)", startedAt: nil, plan: plan.name, workout: workout.name,
            profile: parts.profile.name, planKey: planKey, workoutIndex: workoutIndex))
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
            parts.power?.gps(parts.gps == nil ? .off : .acquiring, at: now)
            parts.power?.boardMaySuspend(parts.profile.boardSuspend, at: now)
            parts.clock.allowSuspend(parts.profile.boardSuspend)
            if parts.profile.wifiOffDuringWorkout { switchRadio(off: true) }
            writer.flush(every: parts.profile.trackFlushInterval) { [self] in commit() }
            state.withValue { s in
                s.tasks.every(.workoutBattery, .seconds(60), firstAt: now, on: parts.clock) { [self] in checkBattery() }
            }
            rescheduleTick()
        }
        if let gps = parts.gps {
            var onReport: (@Sendable () -> Void)?
            if let power = parts.power {
                let clock = parts.clock
                onReport = { power.wakeup(at: clock.now) }
            }
            let sink = GPSEventSink(
                clock: parts.clock, samplingInterval: parts.profile.positionInterval, onReport: onReport
            ) { [self] event in
                gpsEvent(event)
            }
            sink.restPeriod = ReceiverPower.restPeriod(parts.profile)
            state.withValue { $0.sink = sink }
            receiver.attach(sink)
            gps.start(sink)
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
    private struct Shown {
        var profile: String
        var coach: PaceCoach
        var activity: Int64?
        var points: Int
        var waypoints: Int
        var battery: BatteryReading?
        var route: RouteFollower.Progress?
        var sink: GPSEventSink?
        var lastCue: Cue?

        init(_ s: State, lastCue: Cue?) {
            profile = s.profile.name
            coach = s.coach
            activity = s.activity
            points = s.track.points
            waypoints = s.waypoints
            battery = s.battery.reading
            route = s.follower?.progress
            sink = s.sink
            self.lastCue = lastCue
        }
    }

    /// A snapshot for displays: on the loop, the state now; on another thread, the state as
    /// the loop last published it, at the clock's time now.
    public var status: RuntimeStatus {
        let shown = parts.clock.isInLoop ? Shown(state.current, lastCue: player.lastCue) : self.shown.withLock { $0 }
        return status(shown, at: parts.clock.now)
    }

    private func status(_ s: Shown, at now: Instant) -> RuntimeStatus {
        // The receiver's status as the sink handed it to this workout (the sink owns it).
        RuntimeStatus(
            plan: plan.name, workout: workout.name, profile: s.profile, coach: s.coach.status(at: now),
            gps: s.sink?.delivered.status ?? .disconnected, positioning: s.coach.positioning, activityID: s.activity,
            points: s.points, waypoints: s.waypoints, lastCue: s.lastCue, battery: s.battery, route: s.route)
    }

    /// Publishes what `status` shows to other threads.
    private func publish() {
        let now = Shown(state.current, lastCue: player.lastCue)
        shown.withLock { $0 = now }
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

    private func gpsEvent(_ received: GPSEvent) {
        let now = parts.clock.now
        // The receiver's time as the device uses it (a week-rollover fault corrected).
        let event: GPSEvent = switch received {
        case .fix(let fix): .fix(parts.receiverTime.corrected(fix))
        case .reading(let fix): .reading(parts.receiverTime.corrected(fix))
        case .status: received
        }
        let finished = state.withValue { $0.finished }
        var out: [CoachOutput] = []
        var point: (TrackPoint, Int64)?
        var sleepNow = false
        var power: GPSPowerState?
        // Auto-pause: the coach's outputs at a pause, and what to report.
        var pauseOut: [CoachOutput] = []
        var autoPaused: Duration?
        var autoResumed: Double?
        var routeEvents: [RouteFollower.Event] = []
        state.withValue { s in
            guard !s.finished else { return }
            switch event {
            case .status(let status, let detail):
                power = ReceiverPower.powerState(after: status, mode: s.profile.gpsMode)
                logger.info("gps \(status.rawValue)\(detail.map { ": \($0)" } ?? "")")
                switch status {
                case .fix:
                    s.hasFixNow = true
                case .fixLost, .disconnected, .acquiring:
                    if s.hasFixNow { s.track.breakSegment() }
                    // No next fix to place a press by: the places stored at the presses stay.
                    s.placer.drop()
                    s.hasFixNow = false
                    // No speed is not zero speed: a loss never counts toward an auto-pause.
                    s.autoPause.fixLost()
                    out = s.coach.fixLost(at: now)
                case .connected:
                    break
                }
            case .fix(let fix), .reading(let fix):
                let update = if case .fix = event { true } else { false }
                s.hasFixNow = true
                s.lastFix = fix
                s.lastFixArrival = now
                // The fix after a press places it (paused or not: where the runner was at the
                // press does not change).
                for p in s.placer.next(fix, at: now) {
                    writer.revise(p.waypoint, number: p.number, of: p.activity)
                    logger.info("waypoint '\(p.waypoint.name)' placed between fixes at \(DeviceRuntime.describe(p.waypoint.position))")
                }
                let decision = s.autoPause.observe(
                    speed: fix.speed, at: now, running: s.coach.isRunning && s.activity != nil,
                    phaseMinimumSpeed: s.coach.currentPhase.minimumSpeed)
                if case .resume(let speed) = decision {
                    // This fix is the first of the new segment and of the new stretch of distance.
                    _ = s.coach.resume(at: now)
                    autoResumed = speed
                }
                guard s.coach.isRunning, s.activity != nil else { return }
                s.track.anchor(at: now, gpsTime: fix.time)
                // Every fix the receiver delivers places the runner on the route: the more
                // fixes, the sooner a wrong turn is heard.
                routeEvents = s.follower?.fix(fix.position, speed: fix.speed, elevation: fix.altitude, at: now) ?? []
                if update { sleepNow = s.profile.gpsMode == .backup }
                // Between position updates: counted for distance, not stored, not judged. A
                // runner standing while auto-pause makes sure is not judged either: they are
                // about to be paused, not to be told to speed up.
                let pausing = if case .pause = decision { true } else { false }
                let standing = s.autoPause.isPending || pausing
                // The fix's quality (HDOP, satellites, an estimated fix) goes with its speed: the
                // coach judges pace only on speeds it can trust.
                out = update && !standing
                    ? s.coach.fix(fix.position, speed: fix.speed, quality: FixTrust(fix), at: now)
                    : s.coach.track(fix.position, speed: fix.speed, quality: FixTrust(fix), at: now)
                if case .pause(let since) = decision {
                    pauseOut = s.coach.pause(at: now, stoppedAt: since)
                    // The track ends where the runner stands, as at a press; the point's timer
                    // is the one wound back to when they stopped.
                    point = trackPoint(fix, &s)
                    s.track.breakSegment()
                    if s.coach.isPaused {
                        autoPaused = now - since
                    } else {
                        // The workout ended on the way: nothing is paused.
                        s.autoPause.handOver()
                    }
                } else if update {
                    // Stored after the coach has counted it: the point carries the timer and
                    // the odometer's distance with this fix's leg in them.
                    point = trackPoint(fix, &s)
                }
            }
        }
        if let power { receiver.set(power) }
        if let speed = autoResumed {
            report(.autoResumed(speed: speed))
            logger.info("auto-resumed: moving at \(RuntimeStatus.kmh(speed)) km/h")
            sound(.resumed, phase: nil)
        }
        store(point)
        if case .status(let status, let detail) = event, !finished { report(.gps(status, detail: detail)) }
        handle(out)
        handle(pauseOut)
        if let announcer, point != nil { announcer.progress(status.coach) }
        for e in routeEvents { routeEvent(e) }
        if let standing = autoPaused {
            report(.autoPaused(standing: standing))
            logger.info("auto-paused: standing still for \(RuntimeStatus.clock(standing))")
            sound(.paused, phase: nil)
        }
        rescheduleTick()
        if sleepNow { sleepReceiver() }
    }

    /// A fix as the next track point (in a new segment after a pause or a loss of fix).
    private func trackPoint(_ fix: Fix, _ s: inout State) -> (TrackPoint, Int64)? {
        guard let activity = s.activity else { return nil }
        // Compared at the fix's arrival: a fix kept since (the latest at a pause) is old.
        let arrival = s.lastFix == fix ? (s.lastFixArrival ?? parts.clock.now) : parts.clock.now
        guard let (time, segment) = s.track.place(fix, arrival: arrival) else { return nil }
        let now = parts.clock.now
        return (TrackPoint(segment: segment, time: time, position: fix.position,
                           altitude: fix.altitude, speed: fix.speed,
                           timer: s.coach.elapsed(at: now), distance: s.coach.distance(at: now)), activity)
    }

    /// The receiver's latest fix as a track point, when it is live and newer than the last
    /// one stored: at a pause, a stop or the end the track reaches where the runner is.
    private func latestPoint(_ s: inout State) -> (TrackPoint, Int64)? {
        guard s.hasFixNow, let fix = s.lastFix else { return nil }
        return trackPoint(fix, &s)
    }

    private func store(_ point: (TrackPoint, Int64)?) {
        guard let (p, activity) = point else { return }
        writer.append(p, to: activity)
    }

    /// The running totals at `now`.
    private func totals(_ s: State, at now: Instant) -> ActivityTotals {
        let start = s.startedAt ?? now
        let odometer = s.coach.odometer
        return ActivityTotals(
            startedAt: s.track.utcStart(startedAt: start), elapsed: now - start, timer: s.coach.elapsed(at: now),
            moving: odometer.movingTime, distance: s.coach.distance(at: now), maximumSpeed: odometer.maximumSpeed)
    }

    /// After a position in the backup mode: the receiver sleeps until shortly before the next.
    private func sleepReceiver() {
        let now = parts.clock.now
        let interval = state.withValue { s -> Duration? in
            guard !s.finished, s.profile.gpsMode == .backup, s.coach.isRunning else { return nil }
            // The next position comes an interval from now, however often they came before.
            s.coach.receiverSleeps(until: now + s.profile.positionInterval)
            return s.profile.positionInterval
        }
        guard let interval else { return }
        receiver.sleep(positionInterval: interval) { [self] in parts.power?.wakeup(at: parts.clock.now) }
    }

    private func tick() {
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

    private func handle(_ outputs: [CoachOutput]) {
        for output in outputs {
            switch output {
            case .cue(let cue, let phase):
                sound(cue, phase: phase)
            case .phaseStarted(let index):
                logger.info("phase \(index + 1)/\(workout.phases.count) \(workout.phases[index].name)")
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
            case .workoutCompleted:
                store(state.withValue { latestPoint(&$0) })
                finish(.completed)
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
        publish()
        let status = status
        onEvent(event, status)
        guard let announcer else { return }
        switch event {
        case .paused, .autoPaused: announcer.paused(true)
        case .resumed, .autoResumed: announcer.paused(false)
        case .phaseStarted(let index): announcer.phaseStarted(workout.phases[index], index: index)
        case .finished: announcer.finished(timer: status.coach.elapsed, distance: status.coach.distance)
        default: break
        }
    }

    /// Says where the runner stands (a press, `pacer ctl say-status`): false when the device
    /// does not speak or no workout runs.
    public func sayStatus(reply: @escaping @Sendable (Bool) -> Void = { _ in }) {
        parts.clock.onLoop { [self] in
            guard let announcer, state.withValue({ $0.activity != nil && !$0.finished }) else { return reply(false) }
            announcer.status(status.coach)
            reply(true)
        }
    }

    private func captureWaypoint(_ name: String) -> WaypointOutcome {
        let now = parts.clock.now
        // The receiver's latest fix, newer than the last sampled one when the profile samples slowly.
        let current = state.withValue { $0.sink?.latestFix }.map(parts.receiverTime.corrected)
        let outcome: WaypointOutcome = state.withValue { s in
            guard let activity = s.activity, !s.finished else { return .notRecording }
            if let last = s.lastWaypointAt, now - last < DeviceRuntime.waypointDebounce { return .duplicate }
            // A live fix from the receiver is the position now; otherwise the last one seen.
            let live = current ?? (s.hasFixNow ? s.lastFix : nil)
            guard let fix = live ?? s.lastFix else { return .noPositionYet }
            s.lastWaypointAt = now
            // When the fix arrived: the one the runtime has handled, or one the receiver has
            // just handed on.
            let arrival = fix == s.lastFix ? (s.lastFixArrival ?? now) : now
            // The press's time on the run's time line (a sparse profile's fix is up to a
            // minute old); at a live fix, the place carried on to the press (WaypointPlacer).
            let pressed = s.track.utc(at: now)
                ?? UTCTimestamp(millisecondsSince1970: fix.time.millisecondsSince1970 + (now - arrival).nanoseconds / 1_000_000)
            let waypoint = Waypoint(
                name: name, time: pressed,
                position: live != nil ? WaypointPlacer.deadReckoned(fix, arrival: arrival, now: now) : fix.position,
                altitude: fix.altitude, atLastKnownPosition: live == nil)
            let number: Int
            do {
                number = try writer.add(waypoint, to: activity)
            } catch {
                logger.error("cannot store waypoint '\(name)': \(error)")
                return .notRecording
            }
            if live != nil {
                s.placer.hold(.init(number: number, activity: activity, waypoint: waypoint, pressedAt: now,
                                    before: fix, beforeArrival: arrival))
            }
            s.waypoints += 1
            return live != nil ? .stored(waypoint) : .storedAtLastKnownPosition(waypoint)
        }
        switch outcome {
        case .stored, .storedAtLastKnownPosition: sound(.waypointSaved, phase: nil)
        default: break
        }
        return outcome
    }

    private func checkBattery() {
        let reading = BatteryWatch.read(parts)
        let seen = state.withValue { s -> BatteryWatch.Outcome? in s.finished ? nil : s.battery.observe(reading) }
        guard let seen else { return }
        if seen.changed, let reading { report(.battery(percent: reading.percent)) }
        if seen.warnLow { sound(.lowBattery, phase: nil, facts: .init(battery: reading?.percent)) }
        if let reading, !reading.charging { stepDownIfDue(reading.percent) }
    }

    /// Switches to the profile's step-down profile once the battery is at its level: fewer
    /// positions, fewer alerts, a resting GPS, for the rest of the run.
    private func stepDownIfDue(_ percent: Double) {
        let now = parts.clock.now
        let switched = state.withValue { s -> (PowerProfile, PowerProfile)? in
            guard !s.finished, let step = s.profile.stepDown, percent <= step.percent,
                  let next = parts.profiles[step.to] else { return nil }
            let previous = s.profile
            s.profile = next
            s.coach.change(settings: next.coachSettings)
            s.autoPause.change(settings: next.autoPauseSettings)
            return (previous, next)
        }
        guard let (previous, next) = switched else { return }
        if let sink = state.withValue({ $0.sink }) {
            sink.samplingInterval = next.positionInterval
            sink.restPeriod = ReceiverPower.restPeriod(next)
        }
        writer.flush(every: next.trackFlushInterval) { [self] in commit() }
        parts.power?.boardMaySuspend(next.boardSuspend, at: now)
        parts.clock.allowSuspend(next.boardSuspend)
        if next.wifiOffDuringWorkout != previous.wifiOffDuringWorkout { switchRadio(off: next.wifiOffDuringWorkout) }
        // The receiver follows the new mode: woken if it no longer may sleep, put in
        // power-save if that is the new mode and it has a fix.
        let power = receiver.current
        if receiver.isAsleep && next.gpsMode != .backup { receiver.wake() }
        if next.gpsMode == .powerSave && power == .tracking { receiver.set(.powerSave) }
        if next.gpsMode == .tracking && power == .powerSave { receiver.set(.tracking) }
        // From power-save into backup: the receiver, which had its fix, sleeps now until
        // shortly before the next position (left in power-save, its next update would come
        // after the silence a backup-mode receiver is allowed, a false "GPS lost").
        if next.gpsMode == .backup && power == .powerSave { sleepReceiver() }
        logger.info("battery at \(Int(percent)) %: profile \(previous.name) steps down to \(next.name)")
        announcer?.profile(next.name)
        report(.profileChanged(from: previous.name, to: next.name, percent: percent))
        rescheduleTick()
    }

    /// Switches the Wi-Fi radio off for the workout, or on again (only when the runtime
    /// switched it off), and reports it; a radio that refuses is reported, and the workout
    /// goes on. On the loop.
    private func switchRadio(off: Bool) {
        guard let radio = parts.radio else { return }
        let wasOff = state.withValue { $0.radioOff }
        guard off != wasOff else { return }
        let now = parts.clock.now
        var failure: String?
        do {
            if off { try radio.block() } else { try radio.unblock() }
        } catch {
            failure = error.description
        }
        // Switched off only when the block took; "on" stands even when a hard block keeps
        // it off: Pacer's own block is lifted.
        let nowOff = off && failure == nil
        state.withValue { $0.radioOff = nowOff }
        if nowOff || wasOff { parts.power?.radio(blocked: nowOff, at: now) }
        if let failure {
            logger.warning("radio \(radio.name): switching it \(off ? "off" : "on") failed: \(failure)")
        } else {
            logger.info("radio \(radio.name) switched \(off ? "off" : "on")")
        }
        report(.radio(off: off, failure: failure))
    }

    private func commit() {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        let update = state.withValue { s in s.activity.map { (totals(s, at: now), $0) } }
        if case .failed(let reason, first: true) = writer.commit(update) {
            report(.storageFault(reason))
            sound(.storageFault, phase: nil)
        }
    }

    private func finish(_ end: ActivityEnd) {
        let now = parts.clock.now
        let done = state.withValue { s -> (Int64?, Duration, ActivityTotals)? in
            guard !s.finished else { return nil }
            s.finished = true
            s.placer.drop()
            s.tasks.cancelAll()
            return (s.activity, s.coach.elapsed(at: now), totals(s, at: now))
        }
        guard let (activity, elapsed, totals) = done else { return }
        writer.stopFlushing()
        receiver.stop()
        state.withValue { $0.sink }?.restPeriod = nil
        parts.gps?.stop()
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
