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
    private var suspendAllowed = false
    /// Time the board spent suspended: `CLOCK_MONOTONIC` does not count it, the clock does.
    private var suspended = Duration.zero
    private var late = LoopLateness()
    private let condition = MonotonicCondition()
    /// The thread in `run()`: its tasks' thread.
    public let loop = LoopOwner()
    private let suspender: (any BoardSuspender)?
    private let suspendThreshold: Duration
    private let resume: Duration

    /// `suspender`: how to suspend the board while waiting (nil: the board idles). A wait of
    /// at least `suspendThreshold` is slept suspended, waking `resume` before the deadline.
    public init(suspender: (any BoardSuspender)? = nil, suspendThreshold: Duration = .seconds(3),
                resume: Duration = .seconds(1)) {
        self.suspender = suspender
        self.suspendThreshold = suspendThreshold
        self.resume = resume
    }

    public var now: Instant { condition.withLock { MonotonicCondition.now + suspended } }

    public var lateness: LoopLateness? { condition.withLock { late } }

    /// Time spent suspended so far.
    public var suspendedTime: Duration { condition.withLock { suspended } }

    /// Wakes the loop only when the task is due before everything it waits for: a task for
    /// later is found when the loop wakes for the earlier one (or after the task it is
    /// running). The signal is given after the lock is released, so the woken loop does not
    /// find the lock still held and block on it again (two system calls less each time).
    @discardableResult
    public func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        let (handle, wake) = condition.withLock {
            let earliest = queue.nextDeadline
            let handle = queue.insert(at: deadline, task)
            return (handle, earliest.map { deadline < $0 } ?? true)
        }
        if wake { condition.signal() }
        return handle
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        schedule(at: now, task)
    }

    /// Runs tasks as they come due until `stop()` is called (from a task or another thread).
    public func run() {
        let previous = loop.enter()
        defer { loop.leave(restoring: previous) }
        condition.lock()
        while !stopped {
            let current = MonotonicCondition.now + suspended
            if let entry = queue.popDue(at: current) {
                if !entry.handle.isCancelled { late.record(current - entry.deadline) }
                condition.unlock()
                if !entry.handle.isCancelled { entry.task() }
                condition.lock()
                continue
            }
            if let next = queue.nextDeadline {
                // A long wait with the profile's leave: suspended to RAM, woken by the RTC a
                // resume time early. Other threads' tasks wait for the resume.
                if suspendAllowed, let suspender, next - current >= suspendThreshold {
                    let sleep = next - current - resume
                    condition.unlock()
                    let slept = suspender.suspend(for: sleep)
                    condition.lock()
                    suspended += slept
                    if slept > .zero { continue }
                }
                condition.wait(until: next - suspended)
            } else {
                condition.wait()
            }
        }
        stopped = false  // a later run() starts afresh; a stop() before run() is not lost
        condition.unlock()
    }

    /// Makes `run()` return after the task it is running, if any; called before `run()`,
    /// makes the next `run()` return at once.
    public func allowSuspend(_ allowed: Bool) {
        condition.withLock {
            suspendAllowed = allowed
            condition.signal()
        }
    }

    public func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }
}
