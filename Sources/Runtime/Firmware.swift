import Coaching
import HAL
import Logging
import PacerCore
import Synchronization

/// The device's firmware: one object that owns the device's state machine and hands each
/// workout to a `DeviceRuntime`. `Configurator.firmware` assembles it, and only there;
/// `pacer run`, `pacer device`, both scenario modes and the companion page drive it.
///
/// Waiting (`pacer device`, what the systemd unit runs): power-on → the parts checked, heard
/// as `power-on` or `fault` → `searching` (a faint tick) → `ready` once there is a position,
/// with today's workout counted in beeps → a start press → `running` (the runtime) → back to
/// ready, offering the next. The timer starts on the press, never at boot.
///
/// A workout at once (`pacer run`, a scenario's workout): the workout starts at power-on,
/// with no checks and no sounds of the device's own, and the device is off at its end.
///
/// Every input (the button's presses, the control socket, signals, keys, a scenario's
/// script, the page) reaches it as a `ControlCommand` through `handle`. Its state belongs to
/// the clock's loop (`LoopBound`); what other threads read is published after each change.
public final class Firmware: Sendable {
    public struct Settings: Sendable {
        public var actions: ButtonActions
        /// The searching tick's period.
        public var searchingCueInterval: Duration
        /// How long after power-on the parts are judged (gpsd or a USB receiver takes a
        /// moment to answer).
        public var bootCheckDelay: Duration
        /// Faults found while the device was built (a sound device that could not be
        /// opened), told at the boot check with the others.
        public var knownFaults: [String]
        /// The route every workout follows (`--route`), when there is one.
        public var route: FollowedRoute?
        /// The ghost every workout races (`--ghost`), when there is one.
        public var ghost: Ghost?

        public init(actions: ButtonActions = .defaults, searchingCueInterval: Duration = .seconds(20),
                    bootCheckDelay: Duration = .seconds(3), knownFaults: [String] = [], route: FollowedRoute? = nil,
                    ghost: Ghost? = nil) {
            self.route = route
            self.ghost = ghost
            self.actions = actions
            self.searchingCueInterval = searchingCueInterval
            self.bootCheckDelay = bootCheckDelay
            self.knownFaults = knownFaults
        }
    }

    /// How the device starts.
    public enum Start: Sendable {
        /// Waits for a start press (`pacer device`).
        case waiting
        /// Runs this workout at power-on and switches off at its end (`pacer run`).
        case workout(plan: TrainingPlan, index: Int, key: PlanKey?)
    }

    struct State {
        var phase = DeviceState.starting
        var today: TodaysWorkout?
        /// The workout offered (stepping moves it); nil when none can start.
        var offered: Int?
        var lastFixTime: UTCTimestamp?
        var booted = false
        /// A start asked for while the parts were being checked: the workout starts when
        /// they have been (it is never started before, and never forgotten).
        var startPending = false
        var shuttingDown = false
        var runtime: DeviceRuntime?
        /// The last workout's runtime, once it ended (`pacer run` reports its end).
        var lastWorkout: DeviceRuntime?
        /// Workouts whose end could not be stored (a full card, a folder gone): what they
        /// left waits in memory and is stored again every `storageRetryInterval` while the
        /// device is on.
        var unstored: [DeviceRuntime] = []
        var tasks = TaskTable()
        /// The battery between workouts (the runtime watches it during one).
        var battery = BatteryWatch()
        var waypoints = 0
        /// The offer last told (plan name, workout index): told again only when it changes,
        /// or after a workout.
        var told: (plan: String, index: Int)?
    }

    /// What other threads read (the page, `pacer ctl watch`'s greeting, the keys' pause
    /// toggle): published by the loop after each change.
    struct Published {
        var phase = DeviceState.starting
        var line = DeviceState.starting.rawValue
        var runtime: DeviceRuntime?
        var offer: Offer?
    }

    /// The workout a waiting device offers: its plan's name, and the workout's number of the
    /// plan's and name (`2/48 Easy 40`).
    public struct Offer: Hashable, Sendable {
        public var plan: String
        public var workout: String
    }

    public let parts: DeviceRuntime.Parts
    public let settings: Settings
    public let start: Start
    let agenda: any WorkoutAgenda
    let today: @Sendable (UTCTimestamp?) -> CivilDate
    /// The device's one receiver, open from power-on to off; nil without a GPS.
    let receiver: Receiver?
    /// The heart-rate strap's sink, from power-on to off; nil without a strap set.
    let heartRate: HeartRateEventSink?
    let logger: Logger
    private let onEvent: @Sendable (DeviceEvent) -> Void
    private let onOff: @Sendable () -> Void
    let state: LoopBound<State>
    /// Read by the page's, the control socket's and the terminal's threads.
    private let published = Mutex(Published())

    /// `parts.gps`: the receiver. `today`: the date the plan's deadline is checked against,
    /// given the receiver's latest time (nil before a fix). `onEvent` hears everything the
    /// device does, on the loop, in order; `onOff` hears the device switch off (the clock
    /// is stopped there).
    public init(
        parts: DeviceRuntime.Parts, agenda: any WorkoutAgenda, settings: Settings = Settings(), start: Start = .waiting,
        today: @escaping @Sendable (UTCTimestamp?) -> CivilDate,
        logger: Logger = Logger(label: "pacer.device"),
        onEvent: @escaping @Sendable (DeviceEvent) -> Void = { _ in },
        onOff: @escaping @Sendable () -> Void = {}
    ) {
        self.agenda = agenda
        self.settings = settings
        self.start = start
        self.today = today
        self.logger = logger
        self.onEvent = onEvent
        self.onOff = onOff
        state = LoopBound(State(), clock: parts.clock)
        self.parts = parts
        let heartHearer = parts.heartRate.map { _ in HeartRateHearer() }
        heartRate = heartHearer.map { hearer in
            HeartRateEventSink(clock: parts.clock) { event, t in hearer.hear(event, at: t) }
        }
        if let source = parts.gps {
            // One sink for the device's life: every report enters the loop once, in the
            // firmware, which hands it to the running workout in the same task.
            let hearer = GPSHearer()
            let clock = parts.clock
            let power = parts.power
            var onReport: (@Sendable () -> Void)?
            if let power { onReport = { power.wakeup(at: clock.now) } }
            let sink = GPSEventSink(clock: parts.clock, onReport: onReport) { event in hearer.hear(event) }
            receiver = Receiver(clock: parts.clock, source: source, sink: sink, monitor: parts.power,
                                hotStart: parts.gpsHotStart)
            hearer.firmware = self
        } else {
            receiver = nil
        }
        heartHearer?.firmware = self
    }

    /// Starts looking for the strap (its source turns the radio on): at power-on, or a
    /// workout's start at once.
    private func startHeartRate() {
        guard let source = parts.heartRate, let heartRate else { return }
        logger.info("heart-rate strap: \(source.name)")
        source.start(heartRate)
    }

    /// Stops the strap's source: the radio rests (BlueZ powers it off if Pacer powered it on).
    private func stopHeartRate() {
        guard let source = parts.heartRate else { return }
        source.stop()
        parts.power?.bluetooth(.off, at: parts.clock.now)
    }

    /// The strap's events: the running workout's. Each measurement wakes the board (a strap
    /// notifies about once a second: a board that could suspend between GPS fixes no longer
    /// sleeps as long), and the radio's state is the energy model's.
    func heartRateEvent(_ event: HeartRateEvent, at t: Instant) {
        switch event {
        case .measurement: parts.power?.wakeup(at: t)
        case .status(let status, _): parts.power?.bluetooth(BluetoothRadioState(status), at: t)
        case .battery: break
        }
        let runtime = state.withValue { s in s.phase == .running ? s.runtime : nil }
        runtime?.heartRateEvent(event, at: t)
    }

    // MARK: Any thread

    /// Powers the device on. Waiting: opens the receiver and judges the parts a moment later.
    /// A workout at once: starts it; throws when storage refuses to begin it.
    public func powerOn() throws {
        if case .workout(let plan, let index, let key) = start {
            try startAtOnce(plan: plan, index: index, key: key)
            return
        }
        parts.clock.onLoop { [self] in
            let now = parts.clock.now
            report(.state(.starting, detail: nil))
            logger.info("power on")
            parts.power?.gps(receiver == nil ? .off : .acquiring, at: now)
            receiver?.open()
            startHeartRate()
            state.withValue { s in
                s.tasks.once(.powerOnCheck, at: now + settings.bootCheckDelay, on: parts.clock) { [self] in bootCheck() }
                s.tasks.every(.idleBattery, .seconds(60), firstAt: now, on: parts.clock) { [self] in checkBattery() }
            }
        }
    }

    /// The one entry point of every input: a press pattern from the buttons' decoder
    /// (`.press`), a control command from the socket, signals, keys, a script or the page.
    /// `reply` hears the one-line answer.
    ///
    /// An input from another thread is queued on the loop once, and taken in the order
    /// inputs arrive, after what was already due at that instant; one decoded on the loop
    /// (the button's patterns) is taken there and then. It wakes the board once (the energy
    /// model counts it).
    public func handle(_ command: ControlCommand, reply: @escaping @Sendable (String) -> Void = { _ in }) {
        parts.clock.onLoop { [self] in
            parts.power?.wakeup(at: parts.clock.now)
            let (phase, runtime) = state.withValue { ($0.phase, $0.runtime) }
            switch command {
            case .shutdown:
                reply("switching off")
                switchOff()
            case .press(let pattern):
                press(pattern, reply: reply)
            case .start where phase != .running:
                reply(startWorkout())
            case .status where phase != .running:
                // Asked afresh: a plan activated since (the page, `pacer plan activate`) is
                // the one offered now, not after the next workout.
                if phase == .ready || phase == .searching { refreshToday() }
                reply(waitingLine)
            default:
                if let runtime, phase == .running {
                    let named = command == .markWaypoint ? .waypoint(nextWaypointName()) : command
                    runtime.handle(named, reply: reply)
                } else {
                    reply("error: no workout is running (the device is \(phase.rawValue); `start` starts one)")
                }
            }
            publish()
        }
    }

    /// Where the device stands, in a line: the running workout's status, or
    /// `ready  Easy weeks: workout 2/8 Easy 30  gps fix`.
    /// The workout offered while the device waits (nil while one runs, or none is offered).
    /// Lock: read by the page's thread.
    public var offer: Offer? { published.withLock { $0.offer } }

    public var statusLine: String {
        // Lock: read by the page's, the control socket's and the keys' threads.
        let (line, runtime) = published.withLock { ($0.line, $0.runtime) }
        return runtime?.status.line ?? line
    }

    /// Lock: read by the page's thread (its snapshot) and by callers after the loop.
    public var phase: DeviceState { published.withLock { $0.phase } }

    /// The running workout's runtime, if one runs. Lock: read by the page's and the keys' threads.
    public var runtime: DeviceRuntime? { published.withLock { $0.runtime } }

    /// The last workout, once it ended (`pacer run` reports it: its activity, what could not
    /// be stored).
    public var lastWorkout: DeviceRuntime? { state.withValue { $0.lastWorkout } }

    /// Whether the running workout is paused (the keys' pause toggle).
    public var isPaused: Bool { runtime?.status.coach.paused ?? false }

    /// Where the device stands, as the first line a watcher gets: the running workout's
    /// status, or `{"event":"status","state":"ready","line":"ready  Plan: workout 2/8 …"}`.
    public func statusJSONLine(time: UTCTimestamp? = nil) -> String {
        // Lock: read on the control socket's thread, as a watcher connects.
        let (phase, line, runtime) = published.withLock { ($0.phase, $0.line, $0.runtime) }
        if phase == .running, let runtime { return runtime.status.jsonLine(time: time) }
        return EventJSON.line(kind: "status", time: time, fields: [("state", .text(phase.rawValue)), ("line", .text(line))])
    }

    // MARK: On the loop

    /// The receiver's status as the device acts on it; disconnected when it has no GPS.
    var gps: Receiver.Status { receiver?.status ?? Receiver.Status() }

    /// Where the waiting device stands, in a line (a running one's is its runtime's).
    var waitingLine: String {
        let s = state.current
        var parts = [s.phase.rawValue]
        switch s.today {
        case .workout:
            if let offer = offer(s) { parts.append("\(offer.plan): workout \(offer.workout)") }
        case .expired(let plan, let deadline): parts.append("plan '\(plan)' expired on \(deadline)")
        case .unavailable(let reason): parts.append(reason)
        case nil: break
        }
        parts.append("gps \(gps.status.rawValue)")
        return parts.joined(separator: "  ")
    }

    /// The workout `s` offers: today's plan and its offered workout, when there are both.
    private func offer(_ s: State) -> Offer? {
        guard case .workout(let plan, _, _, _) = s.today, let i = s.offered, plan.workouts.indices.contains(i) else { return nil }
        return Offer(plan: plan.name, workout: "\(i + 1)/\(plan.workouts.count) \(plan.workouts[i].name)")
    }

    /// What other threads read, as the loop leaves it.
    func publish() {
        let s = state.current
        let line = s.phase == .running ? "" : waitingLine
        let offer = s.phase == .running ? nil : self.offer(s)
        // Lock: the loop writes what the threads above read.
        published.withLock { p in
            p.phase = s.phase
            p.line = line
            p.runtime = s.phase == .running ? s.runtime : nil
            p.offer = offer
        }
    }

    func report(_ event: DeviceEvent) {
        publish()
        onEvent(event)
    }

    /// A workout at once: the device is running from the start, the receiver opened for
    /// it, and off at the workout's end.
    private func startAtOnce(plan: TrainingPlan, index: Int, key: PlanKey?) throws {
        let runtime = makeRuntime(plan: plan, index: index, key: key, route: settings.route, parts: parts)
        state.withValue { s in
            s.runtime = runtime
            s.phase = .running
        }
        publish()
        // Nothing heard yet: nothing stands to be handed over.
        _ = receiver?.startWorkout(parts.profile.starting)
        try runtime.start()
        receiver?.open()
        startHeartRate()
    }

    func makeRuntime(plan: TrainingPlan, index: Int, key: PlanKey?, route: FollowedRoute?, parts: DeviceRuntime.Parts)
        -> DeviceRuntime
    {
        DeviceRuntime(
            parts: parts, receiver: receiver, plan: plan, workoutIndex: index, planKey: key,
            route: route, ghost: settings.ghost, logger: logger,
            onEvent: { [self] event, status in report(.workout(event, status)) },
            onFinish: { [self] end in workoutEnded(end) })
    }

    /// The workout ended (completed, stopped): a workout at once switches the device off
    /// there and then (nothing due at the same instant runs after it); a waiting device goes
    /// back to waiting, offering the next one.
    private func workoutEnded(_ end: ActivityEnd) {
        if case .workout = start {
            receiver?.close()
            stopHeartRate()
            state.withValue { s in
                s.lastWorkout = s.runtime
                s.runtime = nil
                s.phase = .off
            }
            publish()
            onOff()
            return
        }
        parts.clock.onLoop { [self] in
            if let runtime = state.withValue({ $0.runtime }), let loss = runtime.storageLoss {
                let fault = "the activity could not be stored yet: \(loss.reason) (\(loss.waiting) items wait in memory, "
                    + "tried again every \(Int(Self.storageRetryInterval.inSeconds)) s while the device is on)"
                logger.error("\(fault)")
                report(.fault(fault))
                keepTrying(runtime)
            }
            let off = state.withValue { s -> Bool in
                s.lastWorkout = s.runtime
                s.runtime = nil
                return s.shuttingDown
            }
            // The runtime may have left the receiver resting or asleep (its profile's mode).
            receiver?.backToWaiting()
            if off {
                finishSwitchingOff()
                return
            }
            backToWaiting()
        }
    }

    /// How often what a workout's end could not store is tried again.
    public static let storageRetryInterval = Duration.seconds(5)

    /// Keeps `runtime`'s unstored end, and tries it again on a timer until it is stored.
    private func keepTrying(_ runtime: DeviceRuntime) {
        state.withValue { s in
            s.unstored.append(runtime)
            guard !s.tasks.isScheduled(.storageRetry) else { return }
            s.tasks.every(.storageRetry, Self.storageRetryInterval, on: parts.clock) { [self] in storeWhatWaits() }
        }
    }

    /// Tries every unstored end again; says which are stored now.
    private func storeWhatWaits() {
        let waiting = state.withValue { $0.unstored }
        let stored = waiting.filter { $0.storeWhatWaits() }
        for runtime in stored {
            let id = runtime.status.activityID.map(String.init) ?? "-"
            logger.notice("storage works again: activity \(id) is stored whole")
        }
        state.withValue { s in
            s.unstored.removeAll { r in stored.contains { $0 === r } }
            if s.unstored.isEmpty { s.tasks.cancel(.storageRetry) }
        }
    }

    func switchOff() {
        let runtime = state.withValue { s -> DeviceRuntime? in
            s.shuttingDown = true
            return s.phase == .running ? s.runtime : nil
        }
        if let runtime {
            runtime.stop()  // its end switches the device off
        } else {
            finishSwitchingOff()
        }
    }

    private func finishSwitchingOff() {
        // What still waits gets a last try; what fails now is lost with the power, except
        // what reached the disk, which the next power-on recovers.
        storeWhatWaits()
        for runtime in state.withValue({ $0.unstored }) {
            let id = runtime.status.activityID.map(String.init) ?? "-"
            let left = runtime.storageLoss
            let reason = left?.reason ?? "storage fails"
            logger.error("switching off with activity \(id) not stored whole: \(reason) (\(left?.waiting ?? 0) items lost; what reached the disk is recovered at the next power-on)")
        }
        state.withValue { s in
            s.phase = .off
            s.tasks.cancel(.searching)
            s.tasks.cancel(.idleBattery)
        }
        receiver?.close()
        stopHeartRate()
        parts.buzzer.drain()
        report(.state(.off, detail: nil))
        logger.info("switched off")
        onOff()
    }
}

/// The device's sink hands the receiver's events to the firmware, which is made after it:
/// set once, before the receiver is opened, and read on the loop.
final class GPSHearer: @unchecked Sendable {
    weak var firmware: Firmware?

    func hear(_ event: GPSEvent) { firmware?.gpsEvent(event) }
}

/// The strap's sink hands its events to the firmware, as `GPSHearer` does the receiver's.
final class HeartRateHearer: @unchecked Sendable {
    weak var firmware: Firmware?

    func hear(_ event: HeartRateEvent, at t: Instant) { firmware?.heartRateEvent(event, at: t) }
}
