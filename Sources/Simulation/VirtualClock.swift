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
///
/// **Paced.** Built with `init(pacedBy:speed:)`, the clock's `run()` also waits, in real
/// time, before it moves to each next deadline: a scenario then plays in real time (speed 1)
/// or N× real time while staying the same program, with the firmware's timers and the replay
/// on this one clock. Only the waiting changes: time still jumps from deadline to deadline,
/// and tasks run at their virtual deadlines in the same order, so a paced run gives exactly
/// the same outputs as an unpaced one. Virtual time is tied to real time once, when `run()`
/// starts (deadline D is due at the real start + (D − the virtual start) / speed), so a loop
/// that falls behind catches up instead of drifting, and waking early does not stretch time.
/// A task that another thread submits with `execute` (the control socket, a signal handler)
/// wakes the wait and runs at once, at the virtual time the loop last reached (the last
/// deadline: virtual time does not move between deadlines, else the program's own timers
/// would depend on how long the machine took); a `schedule` from another thread for an
/// earlier deadline, and `stop()`, wake it too. `advance(to:)`, `runPending()` and
/// `runUntilIdle(limit:)` never wait: a test steps a paced clock as it steps any other.
public final class VirtualClock: RunnableClock {
    private struct State {
        var now = Instant.zero
        var queue = TimerQueue()
        var stopped = false
        /// The loop is waiting in real time (paced only): a submitted task must wake it.
        var waiting = false
        /// Paced, while `run()` runs: the virtual and real instants it tied together.
        var origin: (virtual: Instant, real: Instant)?
        var late = LoopLateness()
    }

    /// A paced clock's real-time side.
    private struct Pacing: Sendable {
        let waiter: any RealTimeWaiter
        let speed: Double
    }

    private let state = Mutex(State())
    private let pacing: Pacing?
    /// The thread advancing the clock: its tasks' thread.
    public let loop = LoopOwner()

    /// A clock that runs as fast as possible.
    public init() {
        pacing = nil
    }

    /// A clock whose `run()` keeps pace with real time, `speed` times faster than the wall
    /// (1: real time), waiting with `waiter`. `speed` must be positive and finite.
    public init(pacedBy waiter: any RealTimeWaiter, speed: Double) {
        precondition(speed > 0 && speed.isFinite, "a paced clock needs a positive speed, not \(speed)")
        pacing = Pacing(waiter: waiter, speed: speed)
    }

    /// The pace of `run()` against real time; nil when it runs as fast as possible.
    public var speed: Double? { pacing?.speed }

    public var now: Instant { state.withLock { $0.now } }

    /// How many tasks are waiting (cancelled ones included until their time comes).
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// The deadline of the next pending task.
    public var nextDeadline: Instant? { state.withLock { $0.queue.nextDeadline } }

    @discardableResult
    public func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        let task = timed(task, due: deadline)
        let (handle, wake) = state.withLock { s in (s.queue.insert(at: deadline, task), s.waiting) }
        if wake { pacing?.waiter.wake() }
        return handle
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        let task = timed(task, due: nil)
        let wake = state.withLock { s in
            _ = s.queue.insert(at: s.now, task)
            return s.waiting
        }
        if wake { pacing?.waiter.wake() }
    }

    /// Paced: how late the task begins in real time, from its submission or, for a later
    /// deadline, from when that deadline is due in real time (`LoopLateness`). Unpaced: the
    /// task itself.
    private func timed(_ task: @escaping @Sendable () -> Void, due deadline: Instant?) -> @Sendable () -> Void {
        guard let pacing else { return task }
        let submitted = pacing.waiter.now
        return { [weak self] in
            let now = pacing.waiter.now
            self?.state.withLock { s in
                guard let origin = s.origin else { return }
                var due = submitted
                if let deadline {
                    let ahead = max(deadline - origin.virtual, .zero)
                    due = max(due, origin.real + .nanoseconds(Int64((Double(ahead.nanoseconds) / pacing.speed).rounded())))
                }
                s.late.record(now - due)
            }
            task()
        }
    }

    public var lateness: LoopLateness? {
        guard pacing != nil else { return nil }
        return state.withLock { $0.late }
    }

    /// Moves time to `deadline`, running every task due up to it, in order.
    public func advance(to deadline: Instant) {
        advance(to: deadline, honouringStop: false)
    }

    /// `run()`'s step: `stop()` takes effect after the task that calls it, so the tasks due
    /// at the same instant behind it do not run (a scenario's power cut leaves no flush
    /// behind it).
    private func advance(to deadline: Instant, honouringStop: Bool) {
        let previous = loop.enter()
        defer { loop.leave(restoring: previous) }
        while let entry = nextDue(before: deadline, honouringStop: honouringStop) {
            if !entry.handle.isCancelled { entry.task() }
        }
        state.withLock { s in
            if !(honouringStop && s.stopped) { s.now = max(s.now, deadline) }
        }
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

    /// Runs every pending task, until none is left or `stop()` is called: as fast as
    /// possible, or, on a paced clock, each deadline at its real time. Idle, it returns, paced
    /// or not: nothing is left that could move time, and a replay's end must end its run
    /// (tasks submitted after that wait for the next `run()`).
    public func run() {
        let previous = loop.enter()
        defer { loop.leave(restoring: previous) }
        state.withLock { $0.stopped = false }
        guard let pacing else {
            while !state.withLock({ $0.stopped }), let next = nextDeadline {
                advance(to: next, honouringStop: true)
            }
            return
        }
        let (virtualStart, realStart) = (now, pacing.waiter.now)
        state.withLock { $0.origin = (virtualStart, realStart) }
        defer { state.withLock { $0.origin = nil } }
        /// When deadline `d` is due in real time.
        func realDeadline(_ d: Instant) -> Instant {
            let ahead = max(d - virtualStart, .zero)
            return realStart + .nanoseconds(Int64((Double(ahead.nanoseconds) / pacing.speed).rounded()))
        }
        while true {
            // One look under the lock: the next deadline, and whether to wait for it. A task
            // submitted after this look sees `waiting` and wakes the waiter (which keeps the
            // wake if it comes before the wait starts).
            let step: (next: Instant, waitUntil: Instant?)? = state.withLock { s in
                guard !s.stopped, let next = s.queue.nextDeadline else { return nil }
                let due = realDeadline(next)
                guard pacing.waiter.now < due else { return (next, nil) }
                s.waiting = true
                return (next, due)
            }
            guard let step else { return }
            if let due = step.waitUntil {
                pacing.waiter.wait(until: due)
                state.withLock { $0.waiting = false }
                continue  // look again: a new task, an earlier deadline, stop(), or time's up
            }
            advance(to: step.next, honouringStop: true)
        }
    }

    public func stop() {
        let wake = state.withLock { s in
            s.stopped = true
            return s.waiting
        }
        if wake { pacing?.waiter.wake() }
    }

    private func nextDue(before deadline: Instant, honouringStop: Bool) -> TimerQueue.Entry? {
        state.withLock { s in
            if honouringStop && s.stopped { return nil }
            guard let next = s.queue.nextDeadline, next <= deadline else { return nil }
            s.now = max(s.now, next)
            return s.queue.popDue(at: s.now)
        }
    }
}
