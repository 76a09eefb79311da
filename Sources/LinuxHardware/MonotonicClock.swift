#if canImport(Glibc)
import PacerCore
import Glibc
#endif
import HAL

/// The board's clock: `CLOCK_MONOTONIC` (immune to NTP steps and the user setting the date),
/// and a loop that runs scheduled tasks on the thread that calls `run()`.
///
/// Waiting uses a condition variable bound to the monotonic clock, so a timer set for ten
/// seconds fires after ten seconds whatever happens to the wall clock.
public final class MonotonicClock: RunnableClock, @unchecked Sendable {
    // Guarded by `condition`'s lock.
    private var queue = TimerQueue()
    private var stopped = false
    private let condition = MonotonicCondition()

    public init() {}

    public var now: Instant { MonotonicCondition.now }

    @discardableResult
    public func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        condition.withLock {
            let handle = queue.insert(at: deadline, task)
            condition.signal()
            return handle
        }
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        schedule(at: now, task)
    }

    /// Runs tasks as they come due until `stop()` is called (from a task or another thread).
    public func run() {
        condition.lock()
        while !stopped {
            let current = now
            if let entry = queue.popDue(at: current) {
                condition.unlock()
                if !entry.handle.isCancelled { entry.task() }
                condition.lock()
                continue
            }
            if let next = queue.nextDeadline {
                condition.wait(until: next)
            } else {
                condition.wait()
            }
        }
        stopped = false  // a later run() starts afresh; a stop() before run() is not lost
        condition.unlock()
    }

    /// Makes `run()` return after the task it is running, if any; called before `run()`,
    /// makes the next `run()` return at once.
    public func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }
}
