import NMEA
import PacerCore
import Synchronization

/// Where a GPS source stands. Reported to the runtime as it changes.
public enum GPSStatus: String, Hashable, Sendable {
    /// The device or gpsd is not reachable (never was, or went away).
    case disconnected
    /// The device is open; nothing heard yet.
    case connected
    /// The receiver talks but has no position yet.
    case acquiring
    /// The receiver has a position.
    case fix
    /// The receiver had a position and lost it (or fell silent).
    case fixLost = "fix-lost"
}

/// What a GPS source tells the runtime.
public enum GPSEvent: Hashable, Sendable {
    case status(GPSStatus, detail: String?)
    /// A position update: a fix the power profile's sampling interval lets through. The
    /// runtime stores it as a track point and judges pace on it.
    case fix(Fix)
    /// A fix between position updates: the receiver delivered it, the sampling interval did
    /// not let it through. Counted for distance, never stored. Only a sink with a sampling
    /// interval reports these.
    case reading(Fix)
}

/// A source of positions: gpsd, NMEA on a serial port, or a replayed recording.
///
/// A source does only the raw part (open, read, reconnect) and reports through its
/// `GPSEventSink`, which owns the logic every source shares: status changes, the silence
/// watchdog, the power profile's sampling interval, and handing events to the clock's loop.
public protocol GPSSource: AnyObject, Sendable {
    /// The source's URI, for logs and errors (`gpsd://localhost:2947`).
    var name: String { get }
    /// Starts reading; events go to `sink`. A source is started once.
    func start(_ sink: GPSEventSink)
    /// Stops reading and releases the device.
    func stop()

    /// Asks the receiver for a power state (`.tracking` wakes it; `.powerSave`, `.backup`):
    /// on the board, UBX or PMTK commands on the serial port; in simulation, the replay
    /// withholds what a sleeping receiver would not send. A source that cannot command its
    /// receiver keeps the default, which ignores it: the receiver keeps tracking.
    func setPower(_ state: GPSPowerState)
}

extension GPSSource {
    /// A receiver that cannot be commanded keeps tracking.
    public func setPower(_ state: GPSPowerState) {}
}

/// The shared half of every GPS source (as ArduPilot's HAL interfaces own the shared logic
/// and backends implement raw primitives). Thread-safe: backends call it from their reader
/// threads; the handler always runs on the clock's loop, in the order events were reported.
public final class GPSEventSink: Sendable {
    private struct State {
        var tracker = GPSStatusTracker()
        var throttle: FixThrottle
        var latest: Fix?
        var restPeriod: Duration?
        var lastFixAt: Instant?
        var restWatch: ScheduledTask?
        var silence: SilenceWatch?
    }

    /// The silence watchdog: how long the receiver may say nothing before its fix is lost.
    private struct SilenceWatch {
        var timeout: Duration
        var detail: String
        /// When the receiver was last heard (or the device opened).
        var lastHeard: Instant
        /// The device is open: silence counts (a closed device is reported as such).
        var open = true
        /// This silence was reported: once per silence.
        var reported = false
        /// A check is scheduled (at most one at a time).
        var armed = false
        var task: ScheduledTask?
    }

    private let clock: any PacerClock
    private let handler: @Sendable (GPSEvent) -> Void
    private let onReport: (@Sendable () -> Void)?
    private let state: Mutex<State>

    /// `samplingInterval`: at most one fix per interval reaches the handler as a position
    /// update (`.fix`), the others as `.reading` (nil: every fix is a position update).
    /// `onReport` hears every receiver cycle as it arrives, on the source's thread, whether
    /// or not the interval lets it through: each is work the device woke up for.
    public init(
        clock: any PacerClock, samplingInterval: Duration? = nil, onReport: (@Sendable () -> Void)? = nil,
        handler: @escaping @Sendable (GPSEvent) -> Void
    ) {
        self.clock = clock
        self.handler = handler
        self.onReport = onReport
        state = Mutex(State(throttle: FixThrottle(interval: samplingInterval)))
    }

    /// The power profile's position update interval; changes take effect at the next fix.
    public var samplingInterval: Duration? {
        get { state.withLock { $0.throttle.interval } }
        set { state.withLock { $0.throttle.interval = newValue } }
    }

    /// Sampling begins afresh (a workout starts, or ends): one fix per `interval` from the
    /// fix taken at `time` on, which counts as the last position update (nil: from the next).
    public func sample(every interval: Duration?, from time: UTCTimestamp?) {
        state.withLock { s in
            s.throttle = FixThrottle(interval: interval)
            if let time { _ = s.throttle.admit(time: time) }
        }
    }

    public var status: GPSStatus { state.withLock { $0.tracker.status } }

    /// How long the receiver may rest between fixes (a power-save mode sends one per update
    /// period; this is that period plus a grace). While it is set, a silence the source
    /// reports within it after a fix is the receiver resting, not a loss; once it has passed
    /// with no fix, the fix is lost. Nil: any silence the source reports is a loss.
    public var restPeriod: Duration? {
        get { state.withLock { $0.restPeriod } }
        set {
            state.withLock { s in
                s.restPeriod = newValue
                s.restWatch?.cancel()
                s.restWatch = nil
            }
            if newValue != nil, let last = state.withLock({ $0.lastFixAt }) { watchRest(after: last) }
        }
    }

    /// The receiver's most recent fix, whether or not the sampling interval let it through:
    /// a waypoint is taken here, not at the last sampled position. Nil once the fix is lost.
    public var latestFix: Fix? { state.withLock { $0.latest } }

    /// The device or daemon is open.
    public func opened(_ detail: String? = nil) {
        let now = clock.now
        let (events, arm) = state.withLock { s in
            let arm = heardLocked(&s, at: now, opening: true)
            return (s.tracker.opened(detail), arm)
        }
        emit(events)
        if let arm { armSilence(at: arm) }
    }

    /// The device vanished or the daemon went away.
    public func closed(_ reason: String) {
        emit(state.withLock { s in
            s.latest = nil
            if s.silence != nil {
                s.silence?.open = false
                s.silence?.armed = false
                s.silence?.task?.cancel()
                s.silence?.task = nil
            }
            return s.tracker.closed(reason)
        })
    }

    // MARK: The silence watchdog

    /// Watches the receiver for silence, on the clock, from each time the device opens: when
    /// it has said nothing (`heard`, a cycle, a fix) for `timeout` while the device is open,
    /// the sink reports `silent(detail)` once, as if the source had (a fix, if there was one,
    /// is lost). A source calls it once, before it first opens; it then only reports its
    /// traffic.
    ///
    /// The check costs at most one timer per `timeout` while the receiver talks, none while
    /// it is closed or already reported silent, and nothing on the source's thread.
    public func watchSilence(timeout: Duration, detail: String) {
        let now = clock.now
        state.withLock { s in
            s.silence?.task?.cancel()
            s.silence = SilenceWatch(timeout: timeout, detail: detail, lastHeard: now, open: false)
        }
    }

    /// The source heard from its receiver (bytes on the port, a report from gpsd, a cycle):
    /// the silence starts again from now. Cycles and fixes count by themselves.
    public func heard() {
        let now = clock.now
        if let arm = state.withLock({ s in heardLocked(&s, at: now, opening: false) }) { armSilence(at: arm) }
    }

    /// No more silence checks (the source stopped).
    public func stopWatchingSilence() {
        state.withLock { s in
            s.silence?.task?.cancel()
            s.silence = nil
        }
    }

    /// Notes traffic at `now`; returns when to check, if a check must be scheduled.
    private func heardLocked(_ s: inout State, at now: Instant, opening: Bool) -> Instant? {
        guard var watch = s.silence else { return nil }
        defer { s.silence = watch }
        watch.lastHeard = now
        watch.reported = false
        if opening { watch.open = true }
        guard watch.open, !watch.armed else { return nil }
        watch.armed = true
        return now + watch.timeout
    }

    private func armSilence(at deadline: Instant) {
        let task = clock.schedule(at: deadline) { [self] in checkSilence() }
        state.withLock { s in
            if s.silence?.armed == true { s.silence?.task = task } else { task.cancel() }
        }
    }

    /// A check is due: the next is a timeout after the last traffic; or, when the timeout has
    /// passed, the silence is confirmed (`confirming`) after whatever else is due at this
    /// instant, so that a cycle arriving exactly at the deadline is in time, then reported.
    private func checkSilence(confirming: Bool = false) {
        let now = clock.now
        enum Step { case none, check(at: Instant), confirm, report(String) }
        let step = state.withLock { s -> Step in
            guard var watch = s.silence else { return .none }
            defer { s.silence = watch }
            watch.armed = false
            watch.task = nil
            guard watch.open, !watch.reported else { return .none }
            let deadline = watch.lastHeard + watch.timeout
            // Until the next check or the confirmation, no other check is scheduled.
            watch.armed = now < deadline || !confirming
            if now < deadline { return .check(at: deadline) }
            guard confirming else { return .confirm }
            watch.reported = true
            return .report(watch.detail)
        }
        switch step {
        case .none: break
        case .check(let at): armSilence(at: at)
        case .confirm: clock.execute { [self] in checkSilence(confirming: true) }
        case .report(let detail): silent(detail)
        }
    }

    /// Nothing heard for a while: a fix, if there was one, is lost (unless the receiver is
    /// resting within its `restPeriod`).
    public func silent(_ detail: String) {
        let now = clock.now
        emit(state.withLock { s in
            if let rest = s.restPeriod, let last = s.lastFixAt, now - last < rest, s.tracker.status == .fix { return [] }
            s.latest = nil
            return s.tracker.silent(detail)
        })
    }

    private func watchRest(after last: Instant) {
        guard let rest = restPeriod else { return }
        let task = clock.schedule(at: last + rest) { [self] in
            let now = clock.now
            emit(state.withLock { s in
                guard let rest = s.restPeriod, let last = s.lastFixAt, now - last >= rest else { return [] }
                s.latest = nil
                return s.tracker.silent("no position for \(Int(rest.inSeconds)) s in power-save")
            })
        }
        state.withLock { s in
            s.restWatch?.cancel()
            s.restWatch = task
        }
    }

    /// One receiver cycle from the NMEA engine.
    public func epoch(_ epoch: NMEAEpoch) {
        switch epoch {
        case .fix(let fix): self.fix(fix)
        case .noFix: noFix()
        }
    }

    /// A report with a valid position.
    public func fix(_ fix: Fix) {
        onReport?()
        let now = clock.now
        let (events, resting, arm): ([GPSEvent], Bool, Instant?) = state.withLock { s in
            s.latest = fix
            s.lastFixAt = now
            var out = s.tracker.fix()
            out.append(s.throttle.admit(time: fix.time) ? .fix(fix) : .reading(fix))
            return (out, s.restPeriod != nil, heardLocked(&s, at: now, opening: false))
        }
        emit(events)
        if let arm { armSilence(at: arm) }
        if resting { watchRest(after: now) }
    }

    /// A report that says there is no position.
    public func noFix() {
        onReport?()
        let now = clock.now
        let (events, arm) = state.withLock { s in
            s.latest = nil
            return (s.tracker.noFix(), heardLocked(&s, at: now, opening: false))
        }
        emit(events)
        if let arm { armSilence(at: arm) }
    }

    /// Hands the events to the clock's loop, once, in the order they were reported.
    private func emit(_ events: [GPSEvent]) {
        guard !events.isEmpty else { return }
        clock.execute { [self] in
            for e in events { handler(e) }
        }
    }
}

/// The status state machine shared by every source. Each call returns the status events the
/// report causes (none when nothing changed).
public struct GPSStatusTracker: Sendable {
    public private(set) var status = GPSStatus.disconnected
    private var hadFix = false
    /// The starting `.disconnected` has not been reported yet: a device missing from the
    /// start must still reach the runtime once, with its reason.
    private var announced = false

    public init() {}

    private mutating func move(to next: GPSStatus, _ detail: String? = nil) -> [GPSEvent] {
        guard next != status || !announced else { return [] }
        status = next
        announced = true
        return [.status(next, detail: detail)]
    }

    public mutating func opened(_ detail: String?) -> [GPSEvent] {
        hadFix = false
        return move(to: .connected, detail)
    }

    public mutating func closed(_ reason: String) -> [GPSEvent] {
        move(to: .disconnected, reason)
    }

    public mutating func fix() -> [GPSEvent] {
        var out: [GPSEvent] = []
        if status == .disconnected { out += move(to: .connected) }
        hadFix = true
        return out + move(to: .fix)
    }

    public mutating func noFix() -> [GPSEvent] {
        var out: [GPSEvent] = []
        if status == .disconnected { out += move(to: .connected) }
        return out + move(to: hadFix ? .fixLost : .acquiring)
    }

    public mutating func silent(_ detail: String) -> [GPSEvent] {
        status == .fix ? move(to: .fixLost, detail) : []
    }
}

/// At most one fix per interval: how a power profile slows position updates down.
///
/// By the fix's own time, not its arrival: a 1 Hz receiver's fixes are a second apart by
/// their timestamps however their sentences arrive (a fix 0.98 s after the last by the
/// clock is still the next second's), so a 1 s interval keeps every fix and a 30 s one
/// keeps one in 30, on the receiver's grid, without drifting a second per interval. A
/// receiver whose time jumps (back, or more than an hour ahead: a reset, a week rollover)
/// starts the grid afresh at that fix.
public struct FixThrottle: Sendable {
    public var interval: Duration?
    private var last: UTCTimestamp?

    public init(interval: Duration?) {
        self.interval = interval
    }

    /// Whether the fix taken at `time` (the receiver's) is the next position update.
    public mutating func admit(time: UTCTimestamp) -> Bool {
        guard let interval else { return true }
        let intervalMs = interval.nanoseconds / 1_000_000
        if let last {
            let gap = time.millisecondsSince1970 - last.millisecondsSince1970
            let jumped = gap < 0 || gap > 3_600_000 + intervalMs
            if !jumped && gap < intervalMs { return false }
        }
        last = time
        return true
    }
}
