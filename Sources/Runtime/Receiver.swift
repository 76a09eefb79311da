import HAL
import PacerCore

/// The device's one receiver (R28), made by the firmware for the device's life: its source,
/// the one sink that hears it, the status the device acts on, its power and its sleep. Each
/// workout's runtime acts on the same receiver the waiting device listens to; nothing else
/// keeps a copy of where the receiver stands.
///
/// The sink takes the source's reports on the source's thread and hands each event to the
/// clock's loop once; everything else here lives on the loop. In the backup mode the receiver
/// sleeps between positions: put in backup after a position, woken a hot-start time and a
/// margin before the next is due. Its silence while asleep, and its search for a fix just
/// after a wake, are expected, not a loss: `admit` holds those statuses back.
final class Receiver: Sendable {
    /// A receiver put in backup is woken this long plus its hot-start time before the next
    /// position is due, so that the fix is there in time.
    static let wakeMargin = Duration.seconds(2)
    /// After a wake, a receiver that has not found a fix within its hot-start time plus this
    /// is lost (until then "no fix yet" is expected, not a loss).
    static let wakeGrace = Duration.seconds(10)

    /// The receiver's status as the device acts on it: the last one admitted, with its
    /// detail and the one before it.
    struct Status: Hashable, Sendable {
        var status = GPSStatus.disconnected
        var detail: String?
        var previous = GPSStatus.disconnected
    }

    private struct State {
        var status = Status()
        /// The latest fix admitted (position update or not); nil once the fix is lost.
        var latest: Fix?
        /// What the receiver is doing, as the energy model sees it.
        var power = GPSPowerState.acquiring
        /// Put in backup by the firmware: its silence is expected.
        var asleep = false
        /// Woken from backup: having no fix yet is expected until then.
        var searchingUntil: Instant?
        var wakeTimer: ScheduledTask?
    }

    private let clock: any PacerClock
    /// The receiver's source; nil in a test of the power alone.
    let source: (any GPSSource)?
    /// The one sink the source reports through.
    let sink: GPSEventSink?
    private let monitor: (any PowerMonitor)?
    /// The receiver's time from a wake out of backup to a fix.
    let hotStart: Duration
    private let state: LoopBound<State>

    init(clock: any PacerClock, source: (any GPSSource)?, sink: GPSEventSink?, monitor: (any PowerMonitor)?,
         hotStart: Duration) {
        self.clock = clock
        self.source = source
        self.sink = sink
        self.monitor = monitor
        self.hotStart = hotStart
        state = LoopBound(State(), clock: clock)
    }

    /// Opens the receiver: the source reports to the sink from now on.
    func open() {
        if let source, let sink { source.start(sink) }
    }

    /// Closes the receiver (the device switches off).
    func close() {
        stopWaking()
        source?.stop()
    }

    // MARK: What the device acts on (on the loop)

    /// Whether the device acts on `event`, as the sink hands it on: a status the receiver's
    /// sleep or its wake makes expected is held back (being unplugged never is). The status
    /// and the latest fix follow what is admitted.
    func admit(_ event: GPSEvent) -> Bool {
        let now = clock.now
        return state.withValue { s in
            switch event {
            case .fix(let fix), .reading(let fix):
                s.latest = fix
                return true
            case .status(let status, let detail):
                let searching = s.searchingUntil.map { now < $0 } ?? false
                if status != .disconnected && status != .fix && (s.asleep || searching) { return false }
                if status == .fix { s.searchingUntil = nil } else { s.latest = nil }
                s.status = Status(status: status, detail: detail, previous: s.status.status)
                return true
            }
        }
    }

    var status: Status { state.withValue { $0.status } }
    /// The receiver has a position the device acts on.
    var hasFix: Bool { state.withValue { $0.status.status == .fix } }

    /// The receiver's most recent fix, whether or not the loop has handled it yet: a
    /// waypoint is taken here.
    var freshestFix: Fix? { sink?.latestFix }

    // MARK: Workouts

    /// A workout starts in `profile`: sampling begins afresh at its interval, the receiver
    /// may rest as its mode says, and the answer is where the receiver stands, as the events
    /// the workout acts on first (its status, and its latest fix as the first position
    /// update; nothing before the receiver was ever heard).
    func startWorkout(_ profile: PowerProfile) -> [GPSEvent] {
        let (status, latest) = state.withValue { s in (s.status, s.latest) }
        sink?.sample(every: profile.positionInterval, from: latest?.time)
        sink?.restPeriod = Receiver.restPeriod(profile)
        guard status != Status() else { return [] }
        var standing: [GPSEvent] = [.status(status.status, detail: status.detail)]
        if status.status == .fix, let latest { standing.append(.fix(latest)) }
        return standing
    }

    /// The energy model hears the receiver's state as the workout starts.
    func workoutStarts() {
        let now = clock.now
        monitor?.gps(state.withValue { $0.power }, at: now)
    }

    /// A step-down: the new profile's sampling and rest.
    func follow(_ profile: PowerProfile) {
        sink?.samplingInterval = profile.positionInterval
        sink?.restPeriod = Receiver.restPeriod(profile)
    }

    /// The workout is over: no more wakes, no rest between fixes.
    func workoutFinished() {
        stopWaking()
        sink?.restPeriod = nil
    }

    /// Back to waiting after a workout: the receiver tracks again (woken, if the workout
    /// left it asleep) and every fix is a position update.
    func backToWaiting() {
        sink?.sample(every: nil, from: nil)
        if state.withValue({ $0.asleep }) {
            wake()
            return
        }
        source?.setPower(.tracking)
        heard(state.withValue { $0.status.status })
    }

    // MARK: Power

    var isAsleep: Bool { state.withValue { $0.asleep } }
    var current: GPSPowerState { state.withValue { $0.power } }

    /// Between workouts the receiver tracks, whatever its status: the energy model hears
    /// the state `status` means; the receiver is given no command.
    func heard(_ status: GPSStatus) {
        guard let next = Receiver.powerState(after: status, mode: .tracking) else { return }
        state.withValue { $0.power = next }
        monitor?.gps(next, at: clock.now)
    }

    /// Tells the receiver (the states it can be told) and the energy model, when it changes.
    func set(_ next: GPSPowerState) {
        let changed = state.withValue { s -> Bool in
            guard s.power != next else { return false }
            s.power = next
            return true
        }
        guard changed else { return }
        if next == .powerSave || next == .backup || next == .tracking {
            source?.setPower(next)
        }
        monitor?.gps(next, at: clock.now)
    }

    /// After a position in the backup mode: the receiver sleeps until a hot-start time and a
    /// margin before the next position, `interval` from now, is due; not at all for a nap
    /// shorter than the hot start itself. `onWake` runs on the loop at the wake.
    func sleep(positionInterval interval: Duration, onWake: @escaping @Sendable () -> Void) {
        let now = clock.now
        let wakeAt = state.withValue { s -> Instant? in
            guard !s.asleep else { return nil }
            let at = now + interval - hotStart - Receiver.wakeMargin
            guard at - now > hotStart else { return nil }
            s.asleep = true
            return at
        }
        guard let wakeAt else { return }
        set(.backup)
        let timer = clock.schedule(at: wakeAt) { [self] in
            onWake()
            wake()
        }
        state.withValue { $0.wakeTimer = timer }
    }

    /// Wakes a sleeping receiver: it tracks again and searches for its fix.
    func wake() {
        let now = clock.now
        let woke = state.withValue { s -> Bool in
            s.wakeTimer?.cancel()
            s.wakeTimer = nil
            guard s.asleep else { return false }
            s.asleep = false
            s.searchingUntil = now + hotStart + Receiver.wakeGrace
            s.power = .acquiring
            return true
        }
        guard woke else { return }
        source?.setPower(.tracking)
        monitor?.gps(.acquiring, at: now)
    }

    /// No more wakes (the activity is over).
    func stopWaking() {
        state.withValue { s in
            s.wakeTimer?.cancel()
            s.wakeTimer = nil
        }
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
}
