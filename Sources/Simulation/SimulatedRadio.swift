import HAL
import PacerCore
import Synchronization

/// The simulator's Wi-Fi radio (`radio: sim`): a soft switch kept in memory that records
/// every block and unblock at the device clock's time, for scenarios and tests. `hard`
/// simulates a radio blocked by hardware, which no unblock lifts.
public final class SimulatedRadio: WirelessRadio {
    /// One switching: the time and whether the radio went off (`true`) or on.
    public struct Change: Hashable, Sendable {
        public var at: Instant
        public var blocked: Bool

        public init(at: Instant, blocked: Bool) {
            self.at = at
            self.blocked = blocked
        }
    }

    private struct Inner {
        var soft: Bool
        var changes: [Change] = []
    }

    public let name: String
    private let clock: any PacerClock
    private let hard: Bool
    private let inner: Mutex<Inner>

    /// A radio on (`blocked` false) or left off (a power cut mid-workout), soft-switched on
    /// `clock`'s time.
    public init(clock: any PacerClock, blocked: Bool = false, hard: Bool = false, name: String = "sim") {
        self.clock = clock
        self.hard = hard
        self.name = name
        inner = Mutex(Inner(soft: blocked))
    }

    public func read() -> RadioState? {
        RadioState(softBlocked: inner.withLock { $0.soft }, hardBlocked: hard)
    }

    public func block() throws(RadioError) { set(true) }

    public func unblock() throws(RadioError) {
        set(false)
        if hard { throw RadioError("\(name): hard-blocked (a switch or the firmware): it stays off") }
    }

    /// Every switching so far, in order.
    public var changes: [Change] { inner.withLock { $0.changes } }

    public var unavailableReason: String? { nil }

    private func set(_ blocked: Bool) {
        let now = clock.now
        inner.withLock { i in
            guard i.soft != blocked else { return }
            i.soft = blocked
            i.changes.append(Change(at: now, blocked: blocked))
        }
    }
}
