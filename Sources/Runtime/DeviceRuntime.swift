import Coaching
import HAL
import Logging
import PacerCore
import Synchronization

/// The firmware's main loop (R1, R2, R4, R8, R20, R28): takes fixes from the GPS source, time
/// from the clock and presses from the controls; follows the runner through a workout with
/// the pace coach, sounds its cues, captures waypoints and records the track.
///
/// Uses only the HAL and the storage port, so the same code runs on the board and in
/// scenarios. All its state lives on the clock's loop: public commands may be called from any
/// thread and hop onto the loop with `execute`.
public final class DeviceRuntime: Sendable {
    public struct Parts: Sendable {
        public var clock: any PacerClock
        public var gps: (any GPSSource)?
        public var buzzer: any Buzzer
        public var battery: any BatteryGauge
        public var profile: PowerProfile
        public var cues: CueBook
        public var log: any ActivityLog
        /// Hears what costs energy (the simulator's battery drains by it); nil: nobody counts.
        public var power: (any PowerMonitor)?
        /// The profiles a step-down may switch to, by name.
        public var profiles: [String: PowerProfile]
        /// The receiver's time from a wake out of backup to a fix.
        public var gpsHotStart: Duration

        public init(clock: any PacerClock, gps: (any GPSSource)?, buzzer: any Buzzer, battery: any BatteryGauge,
                    profile: PowerProfile, cues: CueBook, log: any ActivityLog, power: (any PowerMonitor)? = nil,
                    profiles: [String: PowerProfile] = [:], gpsHotStart: Duration = .seconds(1)) {
            self.clock = clock
            self.gps = gps
            self.buzzer = buzzer
            self.battery = battery
            self.profile = profile
            self.cues = cues
            self.log = log
            self.power = power
            self.profiles = profiles
            self.gpsHotStart = gpsHotStart
        }
    }

    /// A waypoint press that could not be stored, and why.
    public enum WaypointOutcome: Hashable, Sendable {
        case stored(Waypoint)
        case storedAtLastKnownPosition(Waypoint)
        case duplicate
        case noPositionYet
        case notRecording
    }

    /// Battery level at which the low-battery cue sounds (once).
    public static let lowBatteryPercent = 15.0
    /// Battery readings are reported as events in steps of this many percent.
    public static let batteryReportStep = 5
    /// Presses closer together than this are one press.
    public static let waypointDebounce = Duration.seconds(1)
    /// A receiver put in backup is woken this long plus its hot-start time before the next
    /// position is due, so that the fix is there in time.
    public static let wakeMargin = Duration.seconds(2)
    /// After a wake, a receiver that has not found a fix within its hot-start time plus this
    /// is lost (until then "no fix yet" is expected, not a loss).
    public static let wakeGrace = Duration.seconds(10)

    private struct State {
        var coach: PaceCoach
        /// Stops the timer while the runner stands still, when the profile asks for it.
        var autoPause: AutoPause
        var activity: Int64?
        var segment = 0
        var newSegmentPending = false
        /// The receiver's latest fix, position update or not.
        var lastFix: Fix?
        /// When `lastFix` arrived, on the device's clock.
        var lastFixArrival: Instant?
        /// The time of the last stored track point.
        var lastStored: UTCTimestamp?
        /// Each phase's result as the runner was told it at the phase's end.
        var told: [Int: PhaseResult] = [:]
        /// When the workout started, on the device's clock.
        var startedAt: Instant?
        /// GPS time at an instant of the device's clock: the first fix of the activity. The
        /// activity's UTC times are the clock's, anchored there once.
        var anchor: (at: Instant, time: UTCTimestamp)?
        /// The receiver's time disagrees with the anchored clock (`recordTime`).
        var timeJumped = false
        /// Why commits fail now (nil: they work); whether the runner was told.
        var storageProblem: String?
        var toldStorage = false
        /// Why the activity could not be closed in storage.
        var endProblem: String?
        var hasFixNow = false
        var gps = GPSStatus.disconnected
        var points = 0
        var waypoints = 0
        var lastWaypointAt: Instant?
        var lastCue: Cue?
        var timer: ScheduledTask?
        var flushTimer: ScheduledTask?
        var batteryTimer: ScheduledTask?
        var warnedLowBattery = false
        var finished = false
        var battery: BatteryReading?
        /// The profile in force (a step-down replaces it).
        var profile: PowerProfile
        /// What the receiver is doing, as the energy model sees it.
        var gpsPower = GPSPowerState.acquiring
        /// The receiver was put in backup by the firmware: its silence is expected.
        var asleep = false
        var wakeTimer: ScheduledTask?
        /// When the receiver was last woken from backup.
        var wokeAt: Instant?
        /// Follows the route the runner follows, when there is one.
        var follower: RouteFollower?
    }

    public let parts: Parts
    public let plan: TrainingPlan
    public let planKey: PlanKey?
    public let workoutIndex: Int
    public let workout: Workout
    private let logger: Logger
    private let state: Mutex<State>
    private let onFinish: @Sendable (ActivityEnd) -> Void
    private let onEvent: @Sendable (RuntimeEvent, RuntimeStatus) -> Void
    private let sink = Mutex<GPSEventSink?>(nil)

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
        let coach = PaceCoach(
            workout: plan.workouts[workoutIndex], settings: DeviceRuntime.coachSettings(parts.profile),
            positioning: positioning && parts.gps != nil)
        var state = State(
            coach: coach, autoPause: AutoPause(settings: DeviceRuntime.autoPauseSettings(parts.profile)),
            profile: parts.profile)
        if let route, parts.gps != nil, positioning {
            state.follower = RouteFollower(route: route, settings: DeviceRuntime.routeSettings(parts.profile))
        }
        self.state = Mutex(state)
    }

    // MARK: Commands (any thread)

    /// Begins the activity and the workout. Throws when storage refuses to begin.
    public func start() throws {
        let activity = try parts.log.begin(ActivityStart(
            name: "\(plan.name): \(workout.name)", startedAt: nil, plan: plan.name, workout: workout.name,
            profile: parts.profile.name, planKey: planKey, workoutIndex: workoutIndex))
        parts.clock.execute { [self] in
            let now = parts.clock.now
            let out = state.withLock { s -> [CoachOutput] in
                s.activity = activity
                s.startedAt = now
                return s.coach.start(at: now)
            }
            report(.started(activity: activity))
            // The runner hears the timer start: the device has no screen.
            sound(.started, phase: nil)
            handle(out)
            parts.power?.gps(parts.gps == nil ? .off : .acquiring, at: now)
            parts.power?.boardMaySuspend(parts.profile.boardSuspend, at: now)
            (parts.clock as? any SuspendingClock)?.allowSuspend(parts.profile.boardSuspend)
            let flush = parts.clock.scheduleRepeating(every: parts.profile.trackFlushInterval) { [self] in commit() }
            let battery = parts.clock.scheduleRepeating(every: .seconds(60), firstAt: now) { [self] in checkBattery() }
            state.withLock {
                $0.flushTimer = flush
                $0.batteryTimer = battery
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
            sink.restPeriod = DeviceRuntime.restPeriod(parts.profile)
            self.sink.withLock { $0 = sink }
            gps.start(sink)
        }
    }

    /// Captures a waypoint at the current position (R20). The answer arrives on the loop.
    public func waypoint(_ name: String, reply: @escaping @Sendable (WaypointOutcome) -> Void = { _ in }) {
        parts.clock.execute { [self] in
            let outcome = captureWaypoint(name)
            report(.waypoint(name: name, outcome: outcome))
            reply(outcome)
        }
    }

    public func pause() {
        parts.clock.execute { [self] in
            let now = parts.clock.now
            let (out, wasRunning, point, takenOver) = state.withLock {
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
                s.newSegmentPending = true
                return (s.coach.pause(at: now), true, point, false)
            }
            store(point)
            handle(out)
            // A phase boundary on the way may have finished the workout: then nothing pauses.
            if takenOver || wasRunning && state.withLock({ $0.coach.isPaused }) {
                report(.paused)
                logger.info(takenOver ? "paused by hand (was auto-paused)" : "paused")
                sound(.paused, phase: nil)
            }
            rescheduleTick()
        }
    }

    public func resume() {
        parts.clock.execute { [self] in
            let now = parts.clock.now
            let (out, wasPaused) = state.withLock { s in
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
        parts.clock.execute { [self] in
            let now = parts.clock.now
            let (out, point, live) = state.withLock { s in
                let point = s.coach.isRunning ? latestPoint(&s) : nil
                return (s.coach.stop(at: now), point, !s.finished && s.activity != nil)
            }
            store(point)
            handle(out)
            if live { sound(.stopped, phase: nil) }
            finish(.stopped)
        }
    }

    /// Answers a control command (the socket, keys, SIGUSR1, a scenario's script) with one
    /// line: what was done, or `error: …` when it could not be.
    public func handle(_ command: ControlCommand, reply: @escaping @Sendable (String) -> Void) {
        parts.clock.execute { [self] in parts.power?.wakeup(at: parts.clock.now) }
        switch command {
        case .waypoint(let name):
            waypoint(name) { outcome in
                switch outcome {
                case .stored(let w):
                    reply("waypoint '\(w.name)' stored at \(DeviceRuntime.describe(w.position))")
                case .storedAtLastKnownPosition(let w):
                    reply("waypoint '\(w.name)' stored at the last known position \(DeviceRuntime.describe(w.position)) (no fix now)")
                case .duplicate:
                    reply("error: a waypoint was stored less than a second ago (one press)")
                case .noPositionYet:
                    reply("error: no position yet: the GPS has had no fix since the start")
                case .notRecording:
                    reply("error: not recording")
                }
            }
        case .pause:
            pause()
            parts.clock.execute { [self] in reply(status.line) }
        case .resume:
            resume()
            parts.clock.execute { [self] in reply(status.line) }
        case .stop, .shutdown:
            // Answer first: once the activity ends the loop stops, and a later answer would be lost.
            reply("stopping: \(status.line)")
            stop()
        case .start:
            parts.clock.execute { [self] in
                reply(state.withLock { $0.finished } ? "error: the workout is over" : "error: the workout is already running")
            }
        case .status:
            parts.clock.execute { [self] in reply(status.line) }
        }
    }

    static func describe(_ p: GeoPoint) -> String {
        func f(_ v: Double) -> String {
            let scaled = Int((abs(v) * 100_000).rounded())
            let frac = String(scaled % 100_000)
            return (v < 0 ? "-" : "") + "\(scaled / 100_000)." + String(repeating: "0", count: 5 - frac.count) + frac
        }
        return "\(f(p.latitude)), \(f(p.longitude))"
    }

    /// A snapshot for displays; safe from any thread.
    public var status: RuntimeStatus {
        let now = parts.clock.now
        return state.withLock { s in
            RuntimeStatus(
                plan: plan.name, workout: workout.name, profile: s.profile.name, coach: s.coach.status(at: now),
                gps: s.gps, positioning: s.coach.positioning, activityID: s.activity, points: s.points,
                waypoints: s.waypoints, lastCue: s.lastCue, battery: s.battery, route: s.follower?.progress)
        }
    }

    // MARK: On the loop

    private func gpsEvent(_ event: GPSEvent) {
        let now = parts.clock.now
        let finished = state.withLock { $0.finished }
        var out: [CoachOutput] = []
        var point: (TrackPoint, Int64)?
        var ignored = false
        var sleepNow = false
        var power: GPSPowerState?
        // Auto-pause: the coach's outputs at a pause, and what to report.
        var pauseOut: [CoachOutput] = []
        var autoPaused: Duration?
        var autoResumed: Double?
        var routeEvents: [RouteFollower.Event] = []
        state.withLock { s in
            guard !s.finished else { return }
            switch event {
            case .status(let status, let detail):
                // A receiver the firmware put to sleep is silent, and one just woken has no
                // fix yet: neither is a loss.
                let waking = s.wokeAt.map { now - $0 < parts.gpsHotStart + DeviceRuntime.wakeGrace } ?? false
                if status != .disconnected && status != .fix && (s.asleep || waking) {
                    ignored = true
                    return
                }
                if status == .fix { s.wokeAt = nil }
                power = DeviceRuntime.powerState(after: status, mode: s.profile.gpsMode)
                s.gps = status
                logger.info("gps \(status.rawValue)\(detail.map { ": \($0)" } ?? "")")
                switch status {
                case .fix:
                    s.hasFixNow = true
                case .fixLost, .disconnected, .acquiring:
                    if s.hasFixNow { s.newSegmentPending = true }
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
                let decision = s.autoPause.observe(
                    speed: fix.speed, at: now, running: s.coach.isRunning && s.activity != nil,
                    phaseMinimumSpeed: s.coach.currentPhase.minimumSpeed)
                if case .resume(let speed) = decision {
                    // This fix is the first of the new segment and of the new stretch of distance.
                    _ = s.coach.resume(at: now)
                    autoResumed = speed
                }
                guard s.coach.isRunning, s.activity != nil else { return }
                if s.anchor == nil { s.anchor = (now, fix.time) }
                // Every fix the receiver delivers places the runner on the route: the more
                // fixes, the sooner a wrong turn is heard.
                routeEvents = s.follower?.fix(fix.position, speed: fix.speed, elevation: fix.altitude, at: now) ?? []
                if update {
                    point = trackPoint(fix, &s)
                    sleepNow = s.profile.gpsMode == .backup
                }
                // Between position updates: counted for distance, not stored, not judged. A
                // runner standing while auto-pause makes sure is not judged either: they are
                // about to be paused, not to be told to speed up.
                let pausing = if case .pause = decision { true } else { false }
                let standing = s.autoPause.isPending || pausing
                out = update && !standing
                    ? s.coach.fix(fix.position, speed: fix.speed, at: now)
                    : s.coach.track(fix.position, speed: fix.speed, at: now)
                if case .pause(let since) = decision {
                    // The track ends where the runner stands, as at a press.
                    if !update { point = latestPoint(&s) }
                    s.newSegmentPending = true
                    pauseOut = s.coach.pause(at: now, stoppedAt: since)
                    if s.coach.isPaused {
                        autoPaused = now - since
                    } else {
                        // The workout ended on the way: nothing is paused.
                        s.autoPause.handOver()
                    }
                }
            }
        }
        if ignored { return }
        if let power { setGPSPower(power) }
        if let speed = autoResumed {
            report(.autoResumed(speed: speed))
            logger.info("auto-resumed: moving at \(RuntimeStatus.kmh(speed)) km/h")
            sound(.resumed, phase: nil)
        }
        store(point)
        if case .status(let status, let detail) = event, !finished { report(.gps(status, detail: detail)) }
        handle(out)
        handle(pauseOut)
        for e in routeEvents { routeEvent(e) }
        if let standing = autoPaused {
            report(.autoPaused(standing: standing))
            logger.info("auto-paused: standing still for \(RuntimeStatus.clock(standing))")
            sound(.paused, phase: nil)
        }
        rescheduleTick()
        if sleepNow { sleepReceiver() }
    }

    /// The route follower's settings under `profile`.
    static func routeSettings(_ profile: PowerProfile) -> RouteFollower.Settings {
        RouteFollower.Settings(offRoute: profile.route.offRoute, backOn: profile.route.backOn,
                               waypointAhead: profile.route.waypointAhead)
    }

    /// Reports a route event and sounds its cue: off the route, back on it, a waypoint ahead,
    /// a turn-around, the end. Joining the route and passing a waypoint are silent (the
    /// waypoint was announced before it).
    private func routeEvent(_ e: RouteFollower.Event) {
        report(.route(e))
        switch e {
        case .joined(let along):
            logger.info("on the route \(Int(along.rounded())) m from its start")
        case .offRoute(let by, _):
            logger.info("off the route by \(Int(by.rounded())) m")
            sound(.offRoute, phase: nil)
        case .backOnRoute(let along):
            logger.info("back on the route \(Int(along.rounded())) m from its start")
            sound(.onRoute, phase: nil)
        case .waypointAhead(_, let name, let distance, let climb):
            logger.info("waypoint '\(name)' \(Int(distance.rounded())) m ahead\(climb.map { ", \(Int($0.rounded())) m up" } ?? "")")
            sound(.waypointAhead, phase: nil)
        case .waypointPassed(_, let name):
            logger.info("passed waypoint '\(name)'")
        case .turnAround:
            sound(.turnAround, phase: nil)
        case .finished:
            logger.info("the end of the route")
            sound(.routeEnd, phase: nil)
        }
    }

    /// The coach's settings under `profile`.
    static func coachSettings(_ profile: PowerProfile) -> CoachSettings {
        CoachSettings(alertInterval: profile.alertInterval, smoothingWindow: profile.smoothingWindow,
                      splitDistance: profile.splitDistance)
    }

    /// Auto-pause's thresholds under `profile`; nil when it has none.
    static func autoPauseSettings(_ profile: PowerProfile) -> AutoPause.Settings? {
        profile.autoPause.map { AutoPause.Settings(below: $0.below, after: $0.after, resumeAbove: $0.resumeAbove) }
    }

    /// A fix as the next track point (in a new segment after a pause or a loss of fix).
    private func trackPoint(_ fix: Fix, _ s: inout State) -> (TrackPoint, Int64)? {
        guard let activity = s.activity else { return nil }
        let time = recordTime(of: fix, &s)
        if let last = s.lastStored, time <= last { return nil }
        if s.newSegmentPending {
            s.segment += s.points > 0 ? 1 : 0
            s.newSegmentPending = false
        }
        s.points += 1
        s.lastStored = time
        return (TrackPoint(segment: s.segment, time: time, position: fix.position,
                           altitude: fix.altitude, speed: fix.speed), activity)
    }

    /// How far the receiver's time may differ from the run's clock (anchored to GPS time at
    /// the first fix) before it is taken as the receiver's clock jumping: a reset, a week
    /// rollover (−1024 weeks), a leap handled twice. Arrival delays are well under it.
    static let timeJumpTolerance = Duration.seconds(5)

    /// The time a fix is recorded at: the receiver's own while it agrees with the run's
    /// clock, the clock's while it has jumped. So the record has one time line, in order,
    /// whatever the receiver says; a jump is logged when it starts and when it ends.
    private func recordTime(of fix: Fix, _ s: inout State) -> UTCTimestamp {
        guard let anchor = s.anchor else { return fix.time }
        // Compared at the fix's arrival: a fix kept since (the latest at a pause, in a
        // profile that samples every 30 s) is old, which is no jump.
        let now = s.lastFix == fix ? (s.lastFixArrival ?? parts.clock.now) : parts.clock.now
        let clockTime = UTCTimestamp(millisecondsSince1970: anchor.time.millisecondsSince1970
            + (now - anchor.at).nanoseconds / 1_000_000)
        let offset = fix.time.millisecondsSince1970 - clockTime.millisecondsSince1970
        let jumped = abs(offset) > DeviceRuntime.timeJumpTolerance.nanoseconds / 1_000_000
        if jumped != s.timeJumped {
            s.timeJumped = jumped
            if jumped {
                logger.warning("the GPS time jumped by \(DeviceRuntime.describeJump(offset)) (receiver \(fix.time.iso8601), run clock \(clockTime.iso8601)): recording on the run's clock")
            } else {
                logger.notice("the GPS time agrees with the run's clock again")
            }
        }
        return jumped ? clockTime : fix.time
    }

    /// The run's clock as UTC at `now` (nil before the first fix anchors it).
    private func clockTime(_ s: State, at now: Instant) -> UTCTimestamp? {
        s.anchor.map { a in
            UTCTimestamp(millisecondsSince1970: a.time.millisecondsSince1970 + (now - a.at).nanoseconds / 1_000_000)
        }
    }

    /// `-1 h 0 min 0 s`, `+1 d 0 h`, in the largest units that matter.
    static func describeJump(_ ms: Int64) -> String {
        let sign = ms < 0 ? "-" : "+"
        let s = abs(ms) / 1000
        if s >= 86_400 { return "\(sign)\(s / 86_400) d \(s % 86_400 / 3600) h" }
        if s >= 3600 { return "\(sign)\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(sign)\(s) s"
    }

    /// The receiver's latest fix as a track point, when it is live and newer than the last
    /// one stored: at a pause, a stop or the end the track reaches where the runner is.
    private func latestPoint(_ s: inout State) -> (TrackPoint, Int64)? {
        guard s.hasFixNow, let fix = s.lastFix else { return nil }
        return trackPoint(fix, &s)
    }

    private func store(_ point: (TrackPoint, Int64)?) {
        guard let (p, activity) = point else { return }
        do {
            try parts.log.append(p, to: activity)
        } catch {
            logger.error("cannot store a track point: \(error)")
        }
    }

    /// The running totals at `now`.
    private func totals(_ s: State, at now: Instant) -> ActivityTotals {
        let start = s.startedAt ?? now
        let utcStart = s.anchor.map { a in
            UTCTimestamp(millisecondsSince1970: a.time.millisecondsSince1970 - (a.at - start).nanoseconds / 1_000_000)
        }
        let odometer = s.coach.odometer
        return ActivityTotals(
            startedAt: utcStart, elapsed: now - start, timer: s.coach.elapsed(at: now), moving: odometer.movingTime,
            distance: s.coach.distance(at: now),
            maximumSpeed: odometer.maximumSpeed)
    }

    /// How long the receiver rests between fixes in the profile's GPS mode: in power-save it
    /// sends one per position interval, and its silence until the next is no loss.
    static func restPeriod(_ profile: PowerProfile) -> Duration? {
        profile.gpsMode == .powerSave ? profile.positionInterval + wakeGrace : nil
    }

    /// The energy model's state for the receiver after a status change, in `mode`.
    static func powerState(after status: GPSStatus, mode: GPSPowerMode) -> GPSPowerState? {
        switch status {
        case .disconnected: .off
        case .connected, .acquiring, .fixLost: .acquiring
        case .fix: mode == .powerSave ? .powerSave : .tracking
        }
    }

    /// Tells the receiver (where it can be told) and the energy model.
    private func setGPSPower(_ next: GPSPowerState) {
        let changed = state.withLock { s -> Bool in
            guard s.gpsPower != next else { return false }
            s.gpsPower = next
            return true
        }
        guard changed else { return }
        if next == .powerSave || next == .backup || next == .tracking {
            (parts.gps as? any GPSPowerControl)?.setPower(next)
        }
        parts.power?.gps(next, at: parts.clock.now)
    }

    /// After a position in the backup mode: the receiver sleeps until a hot-start time (and a
    /// margin) before the next position is due.
    private func sleepReceiver() {
        let now = parts.clock.now
        let wakeAt = state.withLock { s -> Instant? in
            guard !s.finished, !s.asleep, s.profile.gpsMode == .backup, s.coach.isRunning else { return nil }
            let at = now + s.profile.positionInterval - parts.gpsHotStart - DeviceRuntime.wakeMargin
            // Not worth it for a nap shorter than the hot start itself.
            guard at - now > parts.gpsHotStart else { return nil }
            s.asleep = true
            return at
        }
        guard let wakeAt else { return }
        setGPSPower(.backup)
        let timer = parts.clock.schedule(at: wakeAt) { [self] in
            parts.power?.wakeup(at: parts.clock.now)
            wakeReceiver()
        }
        state.withLock { $0.wakeTimer = timer }
    }

    private func wakeReceiver() {
        let now = parts.clock.now
        let wake = state.withLock { s -> Bool in
            s.wakeTimer?.cancel()
            s.wakeTimer = nil
            guard s.asleep else { return false }
            s.asleep = false
            s.wokeAt = now
            return true
        }
        guard wake else { return }
        (parts.gps as? any GPSPowerControl)?.setPower(.tracking)
        state.withLock { $0.gpsPower = .acquiring }
        parts.power?.gps(.acquiring, at: now)
    }

    private func tick() {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        handle(state.withLock { $0.coach.tick(at: now) })
        rescheduleTick()
    }

    /// One timer at the coach's next deadline: the device sleeps until something is due.
    private func rescheduleTick() {
        let deadline = state.withLock { s -> Instant? in
            s.timer?.cancel()
            s.timer = nil
            return s.finished ? nil : s.coach.nextDeadline
        }
        guard let deadline else { return }
        let task = parts.clock.schedule(at: deadline) { [self] in tick() }
        state.withLock { $0.timer = task }
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
                if let activity = state.withLock({ s in
                    s.told[result.index] = result
                    return s.activity
                }) {
                    do { try parts.log.add(result, to: activity) } catch { logger.error("cannot store a phase result: \(error)") }
                }
                report(.phaseFinished(result))
            case .phaseRevised(let result):
                // Stored over the result given at the phase's end; told only when it changed
                // by what a runner could notice.
                let (activity, told) = state.withLock { s in (s.activity, s.told[result.index]) }
                if let activity {
                    do { try parts.log.add(result, to: activity) } catch { logger.error("cannot store a phase result: \(error)") }
                }
                if let told, abs(result.distance - told.distance) >= 0.5
                    || abs((result.timeInBand - told.timeInBand).inSeconds) >= 0.5 {
                    report(.phaseRevised(result))
                }
            case .workoutCompleted:
                store(state.withLock { latestPoint(&$0) })
                finish(.completed)
            }
        }
    }

    private func sound(_ cue: Cue, phase: Int?) {
        let style = state.withLock { $0.profile.style(for: cue) }
        let tones = parts.cues.tones(for: cue, style: style)
        parts.buzzer.play(cue, tones: tones)
        let now = parts.clock.now
        parts.power?.buzzer(sounding: tones.reduce(Duration.zero) { $0 + ($1.isRest ? .zero : $1.duration) }, at: now)
        let (activity, elapsed) = state.withLock { s -> (Int64?, Duration) in
            s.lastCue = cue
            return (s.activity, s.coach.elapsed(at: now))
        }
        if let activity {
            do {
                try parts.log.add(CueRecord(elapsed: elapsed, cue: cue.rawValue, phase: phase), to: activity)
            } catch {
                logger.error("cannot store a cue: \(error)")
            }
        }
        report(.cue(cue, phase: phase))
    }

    /// Tells the observer, outside every lock.
    private func report(_ event: RuntimeEvent) {
        onEvent(event, status)
    }

    private func captureWaypoint(_ name: String) -> WaypointOutcome {
        let now = parts.clock.now
        // The receiver's latest fix, newer than the last sampled one when the profile samples slowly.
        let current = sink.withLock { $0?.latestFix }
        let outcome: WaypointOutcome = state.withLock { s in
            guard let activity = s.activity, !s.finished else { return .notRecording }
            if let last = s.lastWaypointAt, now - last < DeviceRuntime.waypointDebounce { return .duplicate }
            // A live fix from the receiver is the position now; otherwise the last one seen.
            let live = current ?? (s.hasFixNow ? s.lastFix : nil)
            guard let fix = live ?? s.lastFix else { return .noPositionYet }
            s.lastWaypointAt = now
            let waypoint = Waypoint(
                // On the run's time line: the fix's own time, or the clock's while the
                // receiver's has jumped (track points tell; a waypoint's fix may be old).
                name: name, time: s.timeJumped ? clockTime(s, at: now) ?? fix.time : fix.time,
                position: fix.position, altitude: fix.altitude,
                atLastKnownPosition: live == nil)
            do {
                try parts.log.add(waypoint, to: activity)
            } catch {
                logger.error("cannot store waypoint '\(name)': \(error)")
                return .notRecording
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
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        parts.power?.settle(at: now)
        let reading = parts.battery.read()
        let (warn, changed) = state.withLock { s -> (Bool, Bool) in
            // Reported at the first reading and then every 5 % (the status line shows it always).
            let step = { (r: BatteryReading) in Int(r.percent.rounded(.down)) / DeviceRuntime.batteryReportStep }
            let before = s.battery.map(step)
            s.battery = reading
            let changed = reading.map(step) != before && !s.finished

            guard let reading, !reading.charging, reading.percent <= DeviceRuntime.lowBatteryPercent,
                  !s.warnedLowBattery, !s.finished else { return (false, changed) }
            s.warnedLowBattery = true
            return (true, changed)
        }
        if changed, let reading { report(.battery(percent: reading.percent)) }
        if warn { sound(.lowBattery, phase: nil) }
        if let reading, !reading.charging { stepDownIfDue(reading.percent) }
    }

    /// Switches to the profile's step-down profile once the battery is at its level: fewer
    /// positions, fewer alerts, a resting GPS, for the rest of the run.
    private func stepDownIfDue(_ percent: Double) {
        let now = parts.clock.now
        let switched = state.withLock { s -> (PowerProfile, PowerProfile)? in
            guard !s.finished, let step = s.profile.stepDown, percent <= step.percent,
                  let next = parts.profiles[step.to] else { return nil }
            let previous = s.profile
            s.profile = next
            s.coach.change(settings: DeviceRuntime.coachSettings(next))
            s.autoPause.change(settings: DeviceRuntime.autoPauseSettings(next))
            s.flushTimer?.cancel()
            return (previous, next)
        }
        guard let (previous, next) = switched else { return }
        sink.withLock { sink in
            sink?.samplingInterval = next.positionInterval
            sink?.restPeriod = DeviceRuntime.restPeriod(next)
        }
        let flush = parts.clock.scheduleRepeating(every: next.trackFlushInterval) { [self] in commit() }
        state.withLock { $0.flushTimer = flush }
        parts.power?.boardMaySuspend(next.boardSuspend, at: now)
        (parts.clock as? any SuspendingClock)?.allowSuspend(next.boardSuspend)
        // The receiver follows the new mode: woken if it no longer may sleep, put in
        // power-save if that is the new mode and it has a fix.
        let (asleep, power) = state.withLock { ($0.asleep, $0.gpsPower) }
        if asleep && next.gpsMode != .backup { wakeReceiver() }
        if next.gpsMode == .powerSave && power == .tracking { setGPSPower(.powerSave) }
        if next.gpsMode == .tracking && power == .powerSave { setGPSPower(.tracking) }
        logger.info("battery at \(Int(percent)) %: profile \(previous.name) steps down to \(next.name)")
        report(.profileChanged(from: previous.name, to: next.name, percent: percent))
        rescheduleTick()
    }

    private func commit() {
        let now = parts.clock.now
        parts.power?.wakeup(at: now)
        do {
            let update = state.withLock { s in s.activity.map { (totals(s, at: now), $0) } }
            if let (totals, activity) = update { try parts.log.update(totals, for: activity) }
            try parts.log.commit()
            if state.withLock({ s in defer { s.storageProblem = nil }; return s.storageProblem != nil }) {
                logger.notice("storage works again: what was waiting is stored")
            }
        } catch {
            storageFailed(error)
        }
    }

    /// A commit failed (a full disk, a read-only or vanished folder): nothing is lost yet (the
    /// log keeps what it could not write and tries again at the next commit); the runner
    /// hears the storage-fault cue once, the journal hears every failure.
    private func storageFailed(_ error: any Error) {
        let reason = "\(error)"
        let (first, waiting) = state.withLock { s -> (Bool, (waiting: Int, dropped: Int)) in
            defer { s.storageProblem = reason }
            return (!s.toldStorage, parts.log.uncommitted)
        }
        logger.error("cannot store the track: \(reason) (\(waiting.waiting) items waiting\(waiting.dropped > 0 ? ", \(waiting.dropped) points given up" : ""))")
        guard first else { return }
        state.withLock { $0.toldStorage = true }
        report(.storageFault(reason))
        sound(.storageFault, phase: nil)
    }

    /// What could not be stored when the activity ended, and why (nil: everything was).
    public var storageLoss: (reason: String, waiting: Int, dropped: Int)? {
        guard let reason = state.withLock({ $0.endProblem }) else { return nil }
        let left = parts.log.uncommitted
        return (reason, left.waiting, left.dropped)
    }

    private func finish(_ end: ActivityEnd) {
        let now = parts.clock.now
        let done = state.withLock { s -> (Int64?, Duration, ActivityTotals)? in
            guard !s.finished else { return nil }
            s.finished = true
            s.timer?.cancel()
            s.flushTimer?.cancel()
            s.batteryTimer?.cancel()
            s.wakeTimer?.cancel()
            return (s.activity, s.coach.elapsed(at: now), totals(s, at: now))
        }
        guard let (activity, elapsed, totals) = done else { return }
        sink.withLock { $0?.restPeriod = nil }
        parts.gps?.stop()
        (parts.clock as? any SuspendingClock)?.allowSuspend(false)
        if let activity {
            do {
                try parts.log.update(totals, for: activity)
                try parts.log.finish(activity, end: end, endedAt: totals.endedAt, activeTime: elapsed)
            } catch {
                logger.error("cannot close the activity: \(error)")
                state.withLock { $0.endProblem = "\(error)" }
            }
        }
        parts.buzzer.drain()
        parts.power?.settle(at: now)
        report(.finished(end))
        logger.info("activity \(activity.map(String.init) ?? "-") \(end.rawValue) after \(RuntimeStatus.clock(elapsed))")
        onFinish(end)
    }
}
