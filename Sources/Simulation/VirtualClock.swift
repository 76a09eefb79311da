import PacerCore
import HAL
import Synchronization

/// A clock whose time moves only when told, for deterministic replays and tests (after
/// NIO's `EmbeddedEventLoop`): time starts at zero; `advance(to:)` runs every task due on
/// the way, setting `now` to each task's deadline before it runs; tasks due at the same
/// instant run in the order they were scheduled; time never goes backwards.
///
/// Tasks run on the thread that advances the clock. `execute` and `schedule` may be called
/// from any thread.
public final class VirtualClock: RunnableClock {
    private struct State {
        var now = Instant.zero
        var queue = TimerQueue()
        var stopped = false
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    /// How many tasks are waiting (cancelled ones included until their time comes).
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// The deadline of the next pending task.
    public var nextDeadline: Instant? { state.withLock { $0.queue.nextDeadline } }

    @discardableResult
    public func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        state.withLock { $0.queue.insert(at: deadline, task) }
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        state.withLock { s in _ = s.queue.insert(at: s.now, task) }
    }

    /// Moves time to `deadline`, running every task due up to it, in order.
    public func advance(to deadline: Instant) {
        while let entry = nextDue(before: deadline) {
            if !entry.handle.isCancelled { entry.task() }
        }
        state.withLock { s in s.now = max(s.now, deadline) }
    }

    /// Moves time on by `duration`.
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Runs the tasks due now, and those they schedule for now.
    public func runPending() {
        advance(to: now)
    }

    /// Runs until nothing is pending, jumping from deadline to deadline: a replay as fast as
    /// possible. Stops at `limit` when given (repeating timers never run dry).
    public func runUntilIdle(limit: Instant? = nil) {
        while let next = nextDeadline {
            if let limit, next > limit {
                advance(to: limit)
                return
            }
            advance(to: next)
        }
    }

    /// Runs every pending task as fast as possible, until none is left or `stop()` is called.
    public func run() {
        state.withLock { $0.stopped = false }
        while !state.withLock({ $0.stopped }), let next = nextDeadline {
            advance(to: next)
        }
    }

    public func stop() {
        state.withLock { $0.stopped = true }
    }

    private func nextDue(before deadline: Instant) -> TimerQueue.Entry? {
        state.withLock { s in
            guard let next = s.queue.nextDeadline, next <= deadline else { return nil }
            s.now = max(s.now, next)
            return s.queue.popDue(at: s.now)
        }
    }
}
