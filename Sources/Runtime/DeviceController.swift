import Coaching
import HAL
import Logging
import PacerCore
import Synchronization

/// Where the device stands (`pacer device`), each state heard as its own cue.
public enum DeviceState: String, Hashable, Sendable {
    /// Power-on: the parts are being checked.
    case starting
    /// No position yet: a faint `searching` tick repeats.
    case searching
    /// A position: `ready`, then today's workout counted in beeps; a start press starts it.
    case ready
    /// A workout runs (the runtime's cues).
    case running
    /// Asked to end (SIGTERM): a running workout is stopped and stored first.
    case off
}

/// Today's workout, as the plan and its progress offer it.
public enum TodaysWorkout: Hashable, Sendable {
    /// `again`: every workout was done, so the plan starts over.
    case workout(plan: TrainingPlan, key: PlanKey?, index: Int, again: Bool)
    /// The plan's deadline has passed: nothing may start (R4).
    case expired(plan: String, deadline: CivilDate)
    /// No plan, or the plan cannot be read: the reason, for the journal.
    case unavailable(String)
}

/// Where the device's plan and its progress come from (the activity store, through the
/// configurator): asked at power-on, at the first fix (the GPS knows the date) and after
/// each workout.
public protocol WorkoutAgenda: Sendable {
    func today(on date: CivilDate) -> TodaysWorkout
    /// The route the runner chose for the next workout to follow (the companion page,
    /// `pacer routes follow`), read when a workout starts; nil for none. `--route` wins.
    func chosenRoute() throws -> FollowedRoute?
    /// The power profile and the announcements as the runner last chose them (the companion
    /// page, `pacer settings set`), read when a workout starts; nil: as at power-on.
    func workoutSettings() -> WorkoutSettings?
}

extension WorkoutAgenda {
    public func chosenRoute() throws -> FollowedRoute? { nil }
    public func workoutSettings() -> WorkoutSettings? { nil }
}

/// What a workout starts with that the runner may have changed since power-on.
public struct WorkoutSettings: Sendable {
    public var profile: PowerProfile
    /// The profiles `profile` steps down to, by name.
    public var profiles: [String: PowerProfile]
    public var speech: SpeechSettings

    public init(profile: PowerProfile, profiles: [String: PowerProfile], speech: SpeechSettings) {
        self.profile = profile
        self.profiles = profiles
        self.speech = speech
    }
}

/// What the device did between and around workouts, as it happens (the journal, a
/// scenario's timeline, `pacer ctl watch`). Reported on the clock's loop, in order.
public enum DeviceEvent: Hashable, Sendable {
    case state(DeviceState, detail: String?)
    /// A cue of the device itself (the workout's own are in `.workout`).
    case cue(Cue)
    /// A number counted in beeps (`count-five` per five, `count` per one): the workout offered.
    case counted(Int)
    /// A part missing or failed, or no plan: what the journal says.
    case fault(String)
    /// The workout a start press would start (number from 1).
    case offered(plan: String, workout: Int, of: Int, name: String, again: Bool)
    /// A start press refused, and why.
    case refused(String)
    /// A press pattern and what it did.
    case pressed(PressPattern, action: String)
    /// The receiver's status between workouts.
    case gps(GPSStatus, detail: String?)
    /// Something the workout's runtime did, with its status after it.
    case workout(RuntimeEvent, RuntimeStatus)

    public var kind: String {
        switch self {
        case .state: "state"
        case .cue, .counted: "cue"
        case .fault: "fault"
        case .offered: "offered"
        case .refused: "refused"
        case .pressed: "button"
        case .gps: "gps"
        case .workout(let e, _): e.kind
        }
    }
}

/// The device in a runner's hands (`pacer device`, what the systemd unit runs): power-on →
/// parts checked, heard as `power-on` or `fault` → `searching` (a faint tick) → `ready` once
/// there is a position, with today's workout counted in beeps → a start press → the
/// workout (a `DeviceRuntime`) → back to ready, offering the next. The timer starts on the
/// press, never at boot. Presses do what `ButtonActions` says for the state; the control
/// socket and signals reach the same commands.
///
/// The receiver is opened once, at power-on, and kept open between workouts (`GPSHub`), so
/// that a workout starts with the fix the device already has. Everything runs on the
/// clock's loop, like the runtime; commands may come from any thread.
public final class DeviceController: Sendable {
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
        /// The route every workout follows (`pacer device --route`), when there is one.
        public var route: FollowedRoute?

        public init(actions: ButtonActions = .defaults, searchingCueInterval: Duration = .seconds(20),
                    bootCheckDelay: Duration = .seconds(3), knownFaults: [String] = [], route: FollowedRoute? = nil) {
            self.route = route
            self.actions = actions
            self.searchingCueInterval = searchingCueInterval
            self.bootCheckDelay = bootCheckDelay
            self.knownFaults = knownFaults
        }
    }

    private struct State {
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
        /// Workouts whose end could not be stored (a full card, a folder gone): what they
        /// left waits in memory and is stored again every `storageRetryInterval` while the
        /// device is on.
        var unstored: [DeviceRuntime] = []
        var storageTimer: ScheduledTask?
        var searchTimer: ScheduledTask?
        var batteryTimer: ScheduledTask?
        /// The battery between workouts (the runtime watches it during one).
        var battery = BatteryWatch()
        var waypoints = 0
        var workouts = 0
        /// The offer last told (plan name, workout index): told again only when it changes,
        /// or after a workout.
        var told: (plan: String, index: Int)?
    }

    public let parts: DeviceRuntime.Parts
    public let settings: Settings
    private let agenda: any WorkoutAgenda
    private let today: @Sendable (UTCTimestamp?) -> CivilDate
    private let hub: GPSHub?
    /// The device's own listener on the receiver.
    private let deviceSink: GPSEventSink?
    private let logger: Logger
    private let onEvent: @Sendable (DeviceEvent) -> Void
    private let onOff: @Sendable () -> Void
    private let state = Mutex(State())

    /// `parts.gps`: the receiver, opened once at power-on. `today`: the date the plan's
    /// deadline is checked against, given the receiver's latest time (nil before a fix).
    /// `onOff` hears the device switch off (the CLI stops the clock).
    public init(
        parts: DeviceRuntime.Parts, agenda: any WorkoutAgenda, settings: Settings = Settings(),
        today: @escaping @Sendable (UTCTimestamp?) -> CivilDate,
        logger: Logger = Logger(label: "pacer.device"),
        onEvent: @escaping @Sendable (DeviceEvent) -> Void = { _ in },
        onOff: @escaping @Sendable () -> Void = {}
    ) {
        self.agenda = agenda
        self.settings = settings
        self.today = today
        self.logger = logger
        self.onEvent = onEvent
        self.onOff = onOff
        var shared = parts
        if let source = parts.gps {
            let box = Mutex<DeviceController?>(nil)
            let clock = parts.clock
            let power = parts.power
            var onReport: (@Sendable () -> Void)?
            if let power { onReport = { power.wakeup(at: clock.now) } }
            let sink = GPSEventSink(clock: parts.clock, onReport: onReport) { event in
                box.withLock { $0 }?.gpsEvent(event)
            }
            let hub = GPSHub(source: source, device: sink)
            self.hub = hub
            deviceSink = sink
            shared.gps = hub
            self.parts = shared
            box.withLock { $0 = self }
        } else {
            hub = nil
            deviceSink = nil
            self.parts = shared
        }
    }

    // MARK: Commands (any thread)

    /// Power-on: opens the receiver, judges the parts a moment later.
    public func powerOn() {
        parts.clock.execute { [self] in
            let now = parts.clock.now
            report(.state(.starting, detail: nil))
            logger.info("power on")
            parts.power?.gps(hub == nil ? .off : .acquiring, at: now)
            hub?.open()
            parts.clock.schedule(at: now + settings.bootCheckDelay) { [self] in bootCheck() }
            let battery = parts.clock.scheduleRepeating(every: .seconds(60), firstAt: now) { [self] in checkBattery() }
            state.withLock { $0.batteryTimer = battery }
        }
    }

    /// A press pattern from the buttons (the decoder's output), on the loop; `pacer ctl press`
    /// comes here too, with `reply` to hear what the press did.
    public func press(_ pattern: PressPattern, reply: (@Sendable (String) -> Void)? = nil) {
        parts.clock.execute { [self] in
            parts.power?.wakeup(at: parts.clock.now)
            let said = "\(pattern.rawValue) press"
            let (phase, runtime) = state.withLock { ($0.phase, $0.runtime) }
            if phase == .running, let runtime {
                let command = settings.actions.runningCommand(
                    for: pattern, name: { nextWaypointName() }, isPaused: runtime.status.coach.paused)
                report(.pressed(pattern, action: command?.line ?? "none"))
                if let command {
                    runtime.handle(command) { [logger] answer in
                        logger.info("\(pattern.rawValue) press: \(answer)")
                        reply?("\(said): \(command.line): \(answer)")
                    }
                } else {
                    reply?("\(said): none (button_actions gives it no action while running)")
                }
                return
            }
            guard phase != .off else {
                reply?("error: the device is switching off")
                return
            }
            let action = settings.actions.waiting[pattern] ?? .none
            report(.pressed(pattern, action: action.rawValue))
            switch action {
            case .start:
                let answer = startWorkout()
                reply?(answer.hasPrefix("error:") ? answer : "\(said): start: \(answer)")
            case .nextWorkout:
                step(by: 1)
                reply?("\(said): next-workout: \(statusLine)")
            case .previousWorkout:
                step(by: -1)
                reply?("\(said): previous-workout: \(statusLine)")
            case .announce:
                announce(withState: true)
                reply?("\(said): announce: \(statusLine)")
            case .none:
                reply?("\(said): none (button_actions gives it no action while \(phase.rawValue))")
            }
        }
    }

    /// A control command (the socket, signals): while a workout runs, the runtime answers;
    /// between workouts, `start` starts and `status` tells where the device stands.
    public func handle(_ command: ControlCommand, reply: @escaping @Sendable (String) -> Void) {
        parts.clock.execute { [self] in
            let (phase, runtime) = state.withLock { ($0.phase, $0.runtime) }
            switch command {
            case .shutdown:
                reply("switching off")
                switchOff()
            case .press(let pattern):
                // What the button's decoder hands on, with the reply: the same path.
                press(pattern, reply: reply)
            case .start where phase != .running:
                reply(startWorkout())
            case .status where phase != .running:
                reply(statusLine)
            default:
                if let runtime, phase == .running {
                    runtime.handle(command, reply: reply)
                } else {
                    reply("error: no workout is running (the device is \(phase.rawValue); `start` starts one)")
                }
            }
        }
    }

    /// Where the device stands, in a line: `ready  Easy weeks: workout 2/8 Easy 30  gps fix`.
    public var statusLine: String {
        let (s, runtime) = state.withLock { ($0, $0.runtime) }
        if s.phase == .running, let runtime { return runtime.status.line }
        var parts = [s.phase.rawValue]
        switch s.today {
        case .workout(let plan, _, _, _):
            if let i = s.offered { parts.append("\(plan.name): workout \(i + 1)/\(plan.workouts.count) \(plan.workouts[i].name)") }
        case .expired(let plan, let deadline): parts.append("plan '\(plan)' expired on \(deadline)")
        case .unavailable(let reason): parts.append(reason)
        case nil: break
        }
        parts.append("gps \(gps.status.rawValue)")
        return parts.joined(separator: "  ")
    }

    public var phase: DeviceState { state.withLock { $0.phase } }

    /// The receiver's status as the device's own sink handed it on (the sink owns it);
    /// disconnected when the device has no GPS.
    private var gps: GPSEventSink.DeliveredStatus { deviceSink?.delivered ?? GPSEventSink.DeliveredStatus() }

    /// The running workout's runtime, if one runs.
    public var runtime: DeviceRuntime? { state.withLock { $0.runtime } }

    // MARK: On the loop

    private func bootCheck() {
        var faults = settings.knownFaults
        state.withLock { $0.booted = true }
        let (gps, detail) = (self.gps.status, self.gps.detail)
        if hub == nil {
            faults.append("GPS: none configured (the workout runs on time alone)")
        } else if gps == .disconnected {
            faults.append("GPS missing: \(parts.gps?.name ?? "-")" + (detail.map { ": \($0)" } ?? ""))
        }
        let offer = refreshToday()
        if case .unavailable(let reason) = offer { faults.append(reason) }
        for fault in faults {
            logger.error("\(fault)")
            report(.fault(fault))
        }
        sound(faults.isEmpty ? .powerOn : .fault)
        if case .expired = offer { sound(.planExpired) }
        if self.gps.status == .fix {
            becomeReady()
        } else {
            becomeSearching()
        }
        // A start pressed during the checks: now.
        if state.withLock({ s in defer { s.startPending = false }; return s.startPending }) {
            _ = startWorkout()
        }
    }

    private func gpsEvent(_ event: GPSEvent) {
        let now = parts.clock.now
        switch event {
        case .fix(let fix), .reading(let fix):
            // The receiver's time as the device uses it: the plan's deadline is judged by it.
            let time = parts.receiverTime.corrected(fix.time)
            state.withLock { $0.lastFixTime = time }
        case .status(let status, let detail):
            let (phase, booted) = state.withLock { s in (s.phase, s.booted) }
            let was = gps.previous
            guard phase != .running, phase != .off else { return }
            report(.gps(status, detail: detail))
            if let power = ReceiverPower.powerState(after: status, mode: .tracking) { parts.power?.gps(power, at: now) }
            guard booted else { return }
            if status == .fix, phase == .searching {
                becomeReady()
            } else if status != .fix, phase == .ready {
                becomeSearching()
            }
            if status == .disconnected, was != .disconnected {
                let fault = "GPS gone: \(parts.gps?.name ?? "-")" + (detail.map { ": \($0)" } ?? "")
                logger.error("\(fault)")
                report(.fault(fault))
                sound(.fault)
            }
        }
    }

    /// Asks the agenda for today's workout, with the receiver's date when it has one.
    @discardableResult
    private func refreshToday() -> TodaysWorkout {
        let time = state.withLock { $0.lastFixTime }
        let offer = agenda.today(on: today(time))
        state.withLock { s in
            s.today = offer
            if case .workout(_, _, let index, _) = offer { s.offered = index } else { s.offered = nil }
        }
        if case .workout(let plan, _, let index, let again) = offer, state.withLock({ s in
            defer { s.told = (plan.name, index) }
            return s.told.map { $0.plan != plan.name || $0.index != index } ?? true
        }) {
            report(.offered(plan: plan.name, workout: index + 1, of: plan.workouts.count, name: plan.workouts[index].name,
                            again: again))
        }
        return offer
    }

    private func becomeSearching() {
        let timer = parts.clock.scheduleRepeating(
            every: settings.searchingCueInterval, firstAt: parts.clock.now + settings.searchingCueInterval
        ) { [self] in
            if state.withLock({ $0.phase == .searching }) { sound(.searching) }
        }
        state.withLock { s in
            s.searchTimer?.cancel()
            s.searchTimer = timer
            s.phase = .searching
        }
        report(.state(.searching, detail: nil))
    }

    private func becomeReady() {
        state.withLock { s in
            s.searchTimer?.cancel()
            s.searchTimer = nil
            s.phase = .ready
        }
        // The receiver now knows the date: the plan's deadline is judged against it.
        refreshToday()
        report(.state(.ready, detail: nil))
        announce(withState: true)
    }

    /// The state's cue, then today's workout: its number counted in beeps (a long one per
    /// five, a short one per one), or why none can start.
    private func announce(withState: Bool) {
        let (phase, today, offered) = state.withLock { ($0.phase, $0.today, $0.offered) }
        if withState {
            switch phase {
            case .ready: sound(.ready)
            case .searching, .starting: sound(.searching)
            case .running, .off: return
            }
        }
        switch today {
        case .workout?:
            if let offered { count(offered + 1) }
        case .expired?: sound(.planExpired)
        case .unavailable?: sound(.fault)
        case nil: break
        }
    }

    private func count(_ n: Int) {
        let rest = Tone.rest(.milliseconds(250))
        var tones: [Tone] = []
        var cost = Duration.zero
        for cue in Array(repeating: Cue.countFive, count: n / 5) + Array(repeating: .count, count: n % 5) {
            let style = parts.profile.style(for: cue)
            let t = parts.cues.tones(for: cue, style: style)
            if !tones.isEmpty { tones.append(rest) }
            tones += t
            cost += t.reduce(Duration.zero) { $0 + ($1.isRest ? .zero : $1.duration) }
        }
        guard !tones.isEmpty else { return }
        parts.buzzer.play(n % 5 == 0 ? .countFive : .count, tones: tones)
        parts.power?.buzzer(sounding: cost, at: parts.clock.now)
        report(.counted(n))
    }

    private func step(by delta: Int) {
        let moved = state.withLock { s -> Bool in
            guard case .workout(let plan, _, _, _) = s.today, let current = s.offered else { return false }
            let n = plan.workouts.count
            s.offered = ((current + delta) % n + n) % n
            return true
        }
        guard moved else {
            announce(withState: false)
            return
        }
        if case .workout(let plan, _, _, let again)? = state.withLock({ $0.today }), let i = state.withLock({ $0.offered }) {
            state.withLock { $0.told = (plan.name, i) }
            report(.offered(plan: plan.name, workout: i + 1, of: plan.workouts.count, name: plan.workouts[i].name, again: again))
        }
        announce(withState: false)
    }

    /// The parts a workout starts with: the power-on's, with the profile and announcements
    /// the runner chose since (`WorkoutAgenda.workoutSettings`). The speaker's voice was made
    /// at power-on: a new language is heard after the next start, and says so.
    private func partsForTheWorkout() -> DeviceRuntime.Parts {
        var parts = self.parts
        guard let chosen = agenda.workoutSettings() else { return parts }
        if chosen.profile.name != parts.profile.name {
            logger.notice("profile \(chosen.profile.name) for this workout, as chosen since power-on (was \(parts.profile.name))")
        }
        parts.profile = chosen.profile
        parts.profiles = chosen.profiles
        var speech = chosen.speech
        if speech.language != parts.speech.language {
            logger.warning("speech language \(speech.language) is heard after the next start of pacer device: the voice is made at power-on")
            speech.language = parts.speech.language
        }
        parts.speech = speech
        return parts
    }

    /// Starts the workout offered; the reply for `pacer ctl start`.
    private func startWorkout() -> String {
        let (phase, today, offered) = state.withLock { ($0.phase, $0.today, $0.offered) }
        guard phase != .running, phase != .off else { return "error: a workout is already running" }
        if phase == .starting {
            // Power-on's checks come first (the boot check and its cue, a few seconds): the
            // start waits for them, then the workout starts, as if pressed then.
            state.withLock { $0.startPending = true }
            logger.info("start asked for during power-on: it follows the checks")
            return "starting after the power-on checks (\(Int(settings.bootCheckDelay.inSeconds)) s)"
        }
        // What made no workout available (storage that could not be used, a plan missing)
        // may be mended since: asked again at the press.
        let unavailable = if case .unavailable? = today { true } else { false }
        let offer = unavailable ? refreshToday() : today ?? refreshToday()
        let reason: String
        switch offer {
        case .workout(let plan, let key, _, _):
            let index = offered ?? 0
            // `--route` wins; else the route chosen for the next workout, if any.
            var route = settings.route
            if route == nil {
                do {
                    route = try agenda.chosenRoute()
                } catch {
                    logger.error("the route chosen to follow cannot be read, the workout follows none: \(error)")
                }
            }
            let parts = partsForTheWorkout()
            let runtime = DeviceRuntime(
                parts: parts, plan: plan, workoutIndex: index, planKey: key, positioning: hub != nil,
                route: route, logger: logger,
                onEvent: { [self] event, status in report(.workout(event, status)) },
                onFinish: { [self] end in workoutEnded(end) })
            state.withLock { s in
                s.searchTimer?.cancel()
                s.searchTimer = nil
                s.runtime = runtime
                s.phase = .running
                s.told = nil
            }
            // The receiver rests between fixes in a power-save profile: not a loss.
            deviceSink?.restPeriod = ReceiverPower.restPeriod(parts.profile)
            report(.state(.running, detail: "\(plan.name): \(plan.workouts[index].name)"))
            do {
                try runtime.start()
            } catch {
                let fault = "cannot start the activity: \(error)"
                logger.error("\(fault)")
                state.withLock { s in
                    s.runtime = nil
                    s.phase = .ready
                }
                report(.fault(fault))
                sound(.fault)
                backToWaiting()
                return "error: \(fault)"
            }
            logger.info("workout \(index + 1)/\(plan.workouts.count) '\(plan.workouts[index].name)' of '\(plan.name)' started")
            return "started: \(plan.name): workout \(index + 1) \(plan.workouts[index].name)"
        case .expired(let plan, let deadline):
            reason = "plan '\(plan)' ended on \(deadline): make a new plan the device's (`pacer plan activate PLAN`)"
            sound(.planExpired)
        case .unavailable(let why):
            reason = why
            sound(.fault)
        }
        logger.warning("start refused: \(reason)")
        report(.refused(reason))
        return "error: \(reason)"
    }

    /// The workout ended (completed, stopped): back to waiting, offering the next one.
    private func workoutEnded(_ end: ActivityEnd) {
        parts.clock.execute { [self] in
            if let runtime = state.withLock({ $0.runtime }), let loss = runtime.storageLoss {
                let fault = "the activity could not be stored yet: \(loss.reason) (\(loss.waiting) items wait in memory, "
                    + "tried again every \(Int(Self.storageRetryInterval.inSeconds)) s while the device is on)"
                logger.error("\(fault)")
                report(.fault(fault))
                keepTrying(runtime)
            }
            let off = state.withLock { s -> Bool in
                s.runtime = nil
                s.workouts += 1
                return s.shuttingDown
            }
            // The runtime may have left the receiver resting or asleep (its profile's mode).
            hub?.setPower(.tracking)
            deviceSink?.restPeriod = nil
            if let power = ReceiverPower.powerState(after: gps.status, mode: .tracking) { parts.power?.gps(power, at: parts.clock.now) }
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
        let start = state.withLock { s -> Bool in
            s.unstored.append(runtime)
            return s.storageTimer == nil
        }
        guard start else { return }
        let timer = parts.clock.scheduleRepeating(every: Self.storageRetryInterval) { [self] in storeWhatWaits() }
        state.withLock { $0.storageTimer = timer }
    }

    /// Tries every unstored end again; says which are stored now.
    private func storeWhatWaits() {
        let waiting = state.withLock { $0.unstored }
        let stored = waiting.filter { $0.storeWhatWaits() }
        for runtime in stored {
            let id = runtime.status.activityID.map(String.init) ?? "-"
            logger.notice("storage works again: activity \(id) is stored whole")
        }
        state.withLock { s in
            s.unstored.removeAll { r in stored.contains { $0 === r } }
            if s.unstored.isEmpty {
                s.storageTimer?.cancel()
                s.storageTimer = nil
            }
        }
    }

    private func backToWaiting() {
        if gps.status == .fix {
            becomeReady()
        } else {
            refreshToday()
            becomeSearching()
        }
    }

    private func switchOff() {
        let runtime = state.withLock { s -> DeviceRuntime? in
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
        for runtime in state.withLock({ $0.unstored }) {
            let id = runtime.status.activityID.map(String.init) ?? "-"
            let left = runtime.storageLoss
            let reason = left?.reason ?? "storage fails"
            logger.error("switching off with activity \(id) not stored whole: \(reason) (\(left?.waiting ?? 0) items lost; what reached the disk is recovered at the next power-on)")
        }
        state.withLock { s in
            s.phase = .off
            s.searchTimer?.cancel()
            s.batteryTimer?.cancel()
        }
        hub?.close()
        parts.buzzer.drain()
        report(.state(.off, detail: nil))
        logger.info("switched off")
        onOff()
    }

    private func checkBattery() {
        let now = parts.clock.now
        guard state.withLock({ $0.phase != .running }) else { return }  // the runtime watches it then
        parts.power?.wakeup(at: now)
        parts.power?.settle(at: now)
        let reading = parts.battery.read()
        let warn = state.withLock { $0.battery.observe(reading).warnLow }
        if warn { sound(.lowBattery) }
    }

    private func nextWaypointName() -> String {
        "Waypoint \(state.withLock { s in s.waypoints += 1; return s.waypoints })"
    }

    private func sound(_ cue: Cue) {
        let tones = parts.cues.tones(for: cue, style: parts.profile.style(for: cue))
        parts.buzzer.play(cue, tones: tones)
        parts.power?.buzzer(sounding: tones.reduce(Duration.zero) { $0 + ($1.isRest ? .zero : $1.duration) },
                            at: parts.clock.now)
        report(.cue(cue))
    }

    private func report(_ event: DeviceEvent) {
        onEvent(event)
    }
}

extension DeviceEvent {
    /// The event as a JSON line for `pacer ctl watch`: the workout's own as `RuntimeEvent`
    /// writes them; the device's as `{"event":"state","state":"ready"}`, `{"event":"cue",
    /// "cue":"ready"}`, `{"event":"offered","plan":…,"workout":2,"of":8,"name":…}`, ….
    public func jsonLine(time: UTCTimestamp? = nil) -> String {
        let fields: [(String, EventJSON.Value)]
        switch self {
        case .workout(let event, let status): return event.jsonLine(status: status, time: time)
        case .state(let state, let detail):
            fields = [("state", .text(state.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        case .cue(let cue): fields = [("cue", .text(cue.rawValue))]
        case .counted(let n): fields = [("cue", .text(n % 5 == 0 ? Cue.countFive.rawValue : Cue.count.rawValue)), ("count", .int(n))]
        case .fault(let text): fields = [("detail", .text(text))]
        case .offered(let plan, let workout, let of, let name, let again):
            fields = [("plan", .text(plan)), ("workout", .int(workout)), ("of", .int(of)), ("name", .text(name)),
                      ("again", .bool(again))]
        case .refused(let reason): fields = [("reason", .text(reason))]
        case .pressed(let pattern, let action): fields = [("press", .text(pattern.rawValue)), ("action", .text(action))]
        case .gps(let status, let detail):
            fields = [("gps", .text(status.rawValue))] + (detail.map { [("detail", .text($0))] } ?? [])
        }
        return EventJSON.line(kind: kind, time: time, fields: fields)
    }
}

extension DeviceController {
    /// Where the device stands, as the first line a watcher gets: the running workout's
    /// status, or `{"event":"status","state":"ready","line":"ready  Plan: workout 2/8 …"}`.
    public func statusJSONLine(time: UTCTimestamp? = nil) -> String {
        if phase == .running, let runtime { return runtime.status.jsonLine(time: time) }
        return EventJSON.line(kind: "status", time: time, fields: [("state", .text(phase.rawValue)), ("line", .text(statusLine))])
    }
}
