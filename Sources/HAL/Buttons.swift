import PacerCore
import Synchronization

/// What a runner does with a button: the patterns the device tells apart.
public enum PressPattern: String, Hashable, Sendable, CaseIterable {
    /// A press shorter than `long`, with no second one within the double-press window.
    case short
    /// Two short presses, the second beginning within the double-press window.
    case double
    /// Held for `long` or more, released before `veryLong`.
    case long
    /// Held for `veryLong`: recognised while still held (the runner hears it happen).
    case veryLong = "very-long"
}

/// How presses are told apart (the settings' `buttons:` timing).
public struct ButtonTiming: Hashable, Sendable {
    /// Contact chatter: a release followed by a press within this is one press; a release is
    /// final only once this has passed.
    public var debounce: Duration
    /// A second short press beginning within this after the first's release makes a double.
    public var doubleWindow: Duration
    public var long: Duration
    public var veryLong: Duration

    public init(debounce: Duration = .milliseconds(30), doubleWindow: Duration = .milliseconds(400),
                long: Duration = .seconds(1), veryLong: Duration = .seconds(3)) {
        self.debounce = debounce
        self.doubleWindow = doubleWindow
        self.long = long
        self.veryLong = veryLong
    }
}

/// One button's raw edges in, its press patterns out. Pure and deterministic: it reads no
/// clock; the owner passes each edge's instant and calls `tick(at:)` at `nextDeadline`.
///
/// A release becomes final `debounce` after it, unless a press comes first (chatter: the
/// press goes on). A final release classifies the press by how long it was held: `long` or
/// more is long; shorter is short, unless it is the second short press within the double
/// window of the first, which makes a double; a lone short press is told once the double
/// window has passed with no second press. Held for `veryLong`, it is a very long press at
/// once, and its release says nothing more. Edges that change nothing (a press while down,
/// a release while up) are ignored.
public struct PressDecoder: Hashable, Sendable {
    public var timing: ButtonTiming
    private var downSince: Instant?
    private var releasedAt: Instant?
    private var veryLongTold = false
    /// A short press told nothing yet: its release, waiting for a possible second press.
    private var pendingShort: Instant?

    public init(timing: ButtonTiming = ButtonTiming()) {
        self.timing = timing
    }

    /// Whether the button is down (its release not final yet counts as down).
    public var isDown: Bool { downSince != nil }

    public mutating func press(at t: Instant) -> [PressPattern] {
        var out = tick(at: t)
        if releasedAt != nil {
            releasedAt = nil  // chatter: the press goes on
            return out
        }
        guard downSince == nil else { return out }
        downSince = t
        veryLongTold = false
        if let first = pendingShort, t - first > timing.doubleWindow {
            pendingShort = nil
            out.append(.short)
        }
        return out
    }

    public mutating func release(at t: Instant) -> [PressPattern] {
        let out = tick(at: t)
        guard downSince != nil, releasedAt == nil else { return out }
        releasedAt = t
        return out
    }

    /// What time alone decides by `t`: a final release, a lone short press, a very long hold.
    public mutating func tick(at t: Instant) -> [PressPattern] {
        var out: [PressPattern] = []
        if let down = downSince, !veryLongTold, releasedAt.map({ $0 - down >= timing.veryLong }) ?? true,
           t - down >= timing.veryLong {
            veryLongTold = true
            pendingShort = nil
            out.append(.veryLong)
        }
        if let released = releasedAt, let down = downSince, t - released >= timing.debounce {
            releasedAt = nil
            downSince = nil
            let held = released - down
            if veryLongTold {
                // Told while held.
            } else if held >= timing.long {
                if pendingShort != nil { out.append(.short) }
                pendingShort = nil
                out.append(.long)
            } else if pendingShort != nil {
                pendingShort = nil
                out.append(.double)
            } else {
                pendingShort = released
            }
        }
        if let first = pendingShort, downSince == nil, t - first >= timing.doubleWindow {
            pendingShort = nil
            out.append(.short)
        }
        return out
    }

    /// When `tick` should next be called: a release turning final, a lone short press's
    /// window closing, a hold turning very long.
    public var nextDeadline: Instant? {
        var deadlines: [Instant] = []
        if let released = releasedAt { deadlines.append(released + timing.debounce) }
        if let down = downSince, !veryLongTold, releasedAt == nil { deadlines.append(down + timing.veryLong) }
        if let first = pendingShort, downSince == nil { deadlines.append(first + timing.doubleWindow) }
        return deadlines.min()
    }
}

/// What a button source tells the device.
public enum ButtonEvent: Hashable, Sendable {
    /// A pattern on the button with this key code (Linux `KEY_*`; the terminal and scenarios
    /// use `ButtonSink.anyButton`).
    case pressed(PressPattern, button: UInt16)
    /// The input device is open (again).
    case connected(String)
    /// The input device went away (unplugged, a FIFO's writer gone); the source retries.
    case gone(String)
}

/// A source of button edges: Linux input events (evdev), the terminal, a scenario's script.
/// It does only the raw part and reports through its `ButtonSink`, which tells the
/// patterns apart on the clock.
public protocol ButtonSource: AnyObject, Sendable {
    var name: String { get }
    func start(_ sink: ButtonSink)
    func stop()
}

/// The shared half of every button source: raw edges in (from any thread), debounced press
/// patterns out, on the clock's loop, in order. Each button has its own decoder; the
/// decoders' deadlines run on one timer of the clock.
public final class ButtonSink: Sendable {
    /// The code a source without key codes reports (the terminal, a scenario).
    public static let anyButton: UInt16 = 0

    private struct State {
        var decoders: [UInt16: PressDecoder] = [:]
        var timer: ScheduledTask?
    }

    public let timing: ButtonTiming
    private let clock: any PacerClock
    private let handler: @Sendable (ButtonEvent) -> Void
    private let state = Mutex(State())

    public init(clock: any PacerClock, timing: ButtonTiming = ButtonTiming(),
                handler: @escaping @Sendable (ButtonEvent) -> Void) {
        self.clock = clock
        self.timing = timing
        self.handler = handler
    }

    /// A press (`down`) or release edge of `button` at `at` (the clock's instant of the edge;
    /// a source with the kernel's timestamps maps them onto the clock).
    public func edge(_ button: UInt16, down: Bool, at: Instant) {
        clock.execute { [self] in
            let patterns = state.withLock { s -> [PressPattern] in
                var d = s.decoders[button] ?? PressDecoder(timing: timing)
                let out = down ? d.press(at: at) : d.release(at: at)
                s.decoders[button] = d
                return out
            }
            for p in patterns { handler(.pressed(p, button: button)) }
            reschedule()
        }
    }

    public func connected(_ detail: String) {
        clock.execute { [self] in handler(.connected(detail)) }
    }

    /// The device went away: a button held down is released where it stood (no pattern).
    public func gone(_ reason: String) {
        clock.execute { [self] in
            state.withLock { s in
                s.decoders = [:]
                s.timer?.cancel()
                s.timer = nil
            }
            handler(.gone(reason))
        }
    }

    private func reschedule() {
        let deadline = state.withLock { s -> Instant? in
            s.timer?.cancel()
            s.timer = nil
            return s.decoders.values.compactMap(\.nextDeadline).min()
        }
        guard let deadline else { return }
        let task = clock.schedule(at: deadline) { [self] in
            let now = clock.now
            let out = state.withLock { s -> [(UInt16, PressPattern)] in
                var out: [(UInt16, PressPattern)] = []
                for code in s.decoders.keys.sorted() {
                    var d = s.decoders[code]!
                    out += d.tick(at: now).map { (code, $0) }
                    s.decoders[code] = d
                }
                return out
            }
            for (code, p) in out { handler(.pressed(p, button: code)) }
            reschedule()
        }
        state.withLock { $0.timer = task }
    }
}

/// What a press pattern does while a workout runs (the settings' `button_actions`).
public enum ButtonAction: String, Hashable, Sendable, CaseIterable {
    /// Capture a waypoint (`Waypoint N`).
    case waypoint
    /// Pause, or resume when paused.
    case pause
    case stop
    /// A lap: ends an open phase (or one a lap press may end early), else splits the activity.
    case lap
    /// Say where the runner stands (phase, time left, pace, distance) on a speaking device.
    case status
    /// Nothing.
    case none
}

/// What a press pattern does while the device waits for a start (`pacer device`).
public enum WaitingAction: String, Hashable, Sendable, CaseIterable {
    /// Start the workout offered.
    case start
    /// Offer the plan's next workout (announced by its number in beeps).
    case nextWorkout = "next-workout"
    /// Offer the previous one.
    case previousWorkout = "previous-workout"
    /// Say again where the device stands and which workout it offers.
    case announce
    case none
}

/// Which pattern does what. The defaults a runner learns in a minute: waiting, a short press
/// starts, a double press offers the next workout, a long one the previous, a very long one
/// repeats the offer; while running, a short press marks a waypoint, a long one pauses and
/// resumes, a very long one stops.
public struct ButtonActions: Hashable, Sendable {
    public var running: [PressPattern: ButtonAction]
    public var waiting: [PressPattern: WaitingAction]

    public init(running: [PressPattern: ButtonAction], waiting: [PressPattern: WaitingAction] = ButtonActions.defaults.waiting) {
        self.running = running
        self.waiting = waiting
    }

    private init(defaultRunning: [PressPattern: ButtonAction], waiting: [PressPattern: WaitingAction]) {
        running = defaultRunning
        self.waiting = waiting
    }

    /// The command `pattern` asks of a running workout, if any: a waypoint named by `name`,
    /// pause (resume when `isPaused`), stop. The button, `pacer device` and `pacer ctl press`
    /// all map a press through this.
    public func runningCommand(for pattern: PressPattern, name: () -> String, isPaused: Bool) -> ControlCommand? {
        switch running[pattern] ?? .none {
        case .waypoint: .waypoint(name())
        case .pause: isPaused ? .resume : .pause
        case .stop: .stop
        case .lap: .lap
        case .status: .sayStatus
        case .none: nil
        }
    }

    public static let defaults = ButtonActions(
        defaultRunning: [.short: .waypoint, .double: .none, .long: .pause, .veryLong: .stop],
        waiting: [.short: .start, .double: .nextWorkout, .long: .previousWorkout, .veryLong: .announce])
}
