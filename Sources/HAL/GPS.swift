import NMEA
import PacerCore
import Synchronization

/// Where a GPS source stands. Reported to the runtime as it changes.
public enum GPSStatus: String, Hashable, Sendable {
    /// The device or gpsd is not (or no longer) reachable.
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
    case fix(Fix)
}

/// A source of positions: gpsd, NMEA on a serial port, or a replayed recording.
///
/// A source does only the raw part (open, read, reconnect) and reports through its
/// `GPSEventSink`, which owns the logic every source shares: status changes, the power
/// profile's sampling interval, and handing events to the clock's loop.
public protocol GPSSource: AnyObject, Sendable {
    /// The source's URI, for logs and errors (`gpsd://localhost:2947`).
    var name: String { get }
    /// Starts reading; events go to `sink`. A source is started once.
    func start(_ sink: GPSEventSink)
    /// Stops reading and releases the device.
    func stop()
}

/// The shared half of every GPS source (as ArduPilot's HAL interfaces own the shared logic
/// and backends implement raw primitives). Thread-safe: backends call it from their reader
/// threads; the handler always runs on the clock's loop, in the order events were reported.
public final class GPSEventSink: Sendable {
    private struct State {
        var tracker = GPSStatusTracker()
        var throttle: FixThrottle
        var latest: Fix?
    }

    private let clock: any PacerClock
    private let handler: @Sendable (GPSEvent) -> Void
    private let onReport: (@Sendable () -> Void)?
    private let state: Mutex<State>

    /// `samplingInterval`: at most one fix per interval reaches the handler (nil: every fix).
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

    public var status: GPSStatus { state.withLock { $0.tracker.status } }

    /// The receiver's most recent fix, whether or not the sampling interval let it through:
    /// a waypoint is taken here, not at the last sampled position. Nil once the fix is lost.
    public var latestFix: Fix? { state.withLock { $0.latest } }

    /// The device or daemon is open.
    public func opened(_ detail: String? = nil) {
        emit(state.withLock { $0.tracker.opened(detail) })
    }

    /// The device vanished or the daemon went away.
    public func closed(_ reason: String) {
        emit(state.withLock { s in
            s.latest = nil
            return s.tracker.closed(reason)
        })
    }

    /// Nothing heard for a while: a fix, if there was one, is lost.
    public func silent(_ detail: String) {
        emit(state.withLock { s in
            s.latest = nil
            return s.tracker.silent(detail)
        })
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
        let events: [GPSEvent] = state.withLock { s in
            s.latest = fix
            var out = s.tracker.fix()
            if s.throttle.admit(at: now) { out.append(.fix(fix)) }
            return out
        }
        emit(events)
    }

    /// A report that says there is no position.
    public func noFix() {
        onReport?()
        emit(state.withLock { s in
            s.latest = nil
            return s.tracker.noFix()
        })
    }

    private func emit(_ events: [GPSEvent]) {
        guard !events.isEmpty else { return }
        let handler = self.handler
        clock.execute {
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
/// Time is the clock's, not the receiver's.
public struct FixThrottle: Sendable {
    public var interval: Duration?
    private var last: Instant?

    public init(interval: Duration?) {
        self.interval = interval
    }

    public mutating func admit(at now: Instant) -> Bool {
        if let interval, let last, now - last < interval { return false }
        last = now
        return true
    }
}
