import HAL
import PacerCore

/// The receiver's power as the runtime drives it (R28): what the energy model hears of it,
/// the commands the receiver is given (where its source can be commanded), and in the
/// backup mode its sleep between positions: put in backup after a position, woken a
/// hot-start time and a margin before the next is due. Its silence while asleep, and its
/// search for a fix just after a wake, are expected, not a loss: the GPS sink is told of the
/// sleep and the wake, and hands those statuses on to nobody.
final class ReceiverPower: Sendable {
    /// A receiver put in backup is woken this long plus its hot-start time before the next
    /// position is due, so that the fix is there in time.
    static let wakeMargin = Duration.seconds(2)
    /// After a wake, a receiver that has not found a fix within its hot-start time plus this
    /// is lost (until then "no fix yet" is expected, not a loss).
    static let wakeGrace = Duration.seconds(10)

    private struct State {
        /// What the receiver is doing, as the energy model sees it.
        var power = GPSPowerState.acquiring
        /// Put in backup by the firmware: its silence is expected.
        var asleep = false
        var wakeTimer: ScheduledTask?
        /// The sink that hears the receiver for the workout (once it is started).
        var sink: GPSEventSink?
    }

    private let clock: any PacerClock
    private let gps: (any GPSSource)?
    private let monitor: (any PowerMonitor)?
    /// The receiver's time from a wake out of backup to a fix.
    let hotStart: Duration
    private let state: LoopBound<State>

    init(clock: any PacerClock, gps: (any GPSSource)?, monitor: (any PowerMonitor)?, hotStart: Duration) {
        self.clock = clock
        self.gps = gps
        self.monitor = monitor
        self.hotStart = hotStart
        state = LoopBound(State(), clock: clock)
    }

    var isAsleep: Bool { state.withValue { $0.asleep } }
    var current: GPSPowerState { state.withValue { $0.power } }

    /// The workout's sink: told when the receiver sleeps and wakes.
    func attach(_ sink: GPSEventSink) {
        state.withValue { $0.sink = sink }
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
            gps?.setPower(next)
        }
        monitor?.gps(next, at: clock.now)
    }

    /// After a position in the backup mode: the receiver sleeps until a hot-start time and a
    /// margin before the next position, `interval` from now, is due; not at all for a nap
    /// shorter than the hot start itself. `onWake` runs on the loop at the wake.
    func sleep(positionInterval interval: Duration, onWake: @escaping @Sendable () -> Void) {
        let now = clock.now
        let sleep = state.withValue { s -> (at: Instant, sink: GPSEventSink?)? in
            guard !s.asleep else { return nil }
            let at = now + interval - hotStart - ReceiverPower.wakeMargin
            guard at - now > hotStart else { return nil }
            s.asleep = true
            return (at, s.sink)
        }
        guard let (wakeAt, sink) = sleep else { return }
        sink?.receiverSleeps()
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
        let wake = state.withValue { s -> (woke: Bool, sink: GPSEventSink?) in
            s.wakeTimer?.cancel()
            s.wakeTimer = nil
            guard s.asleep else { return (false, nil) }
            s.asleep = false
            return (true, s.sink)
        }
        guard wake.woke else { return }
        wake.sink?.receiverWoke(searching: hotStart + ReceiverPower.wakeGrace)
        gps?.setPower(.tracking)
        state.withValue { $0.power = .acquiring }
        monitor?.gps(.acquiring, at: now)
    }

    /// The activity is over: no more wakes.
    func stop() {
        state.withValue { $0.wakeTimer?.cancel() }
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
