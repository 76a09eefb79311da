import PacerCore
import Synchronization

/// A task scheduled on a clock; cancel it to stop it from running (or running again).
public final class ScheduledTask: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    public var isCancelled: Bool {
        cancelled.load(ordering: .relaxed)
    }
}

/// The clock and timer protocol: a monotonic `now`, and a loop that runs scheduled tasks.
///
/// Every implementation runs its tasks one at a time, in deadline order, tasks due at the
/// same instant in the order they were scheduled (as NIO's `EmbeddedEventLoop` does). The
/// runtime's state lives on that loop; adapters that read hardware on threads of their own
/// hand their results over with `execute`.
public protocol PacerClock: AnyObject, Sendable {
    /// Monotonic time; never goes backwards.
    var now: Instant { get }

    /// Runs `task` on the clock's loop once `now` has reached `deadline`.
    @discardableResult
    func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask

    /// Runs `task` on the clock's loop as soon as it can, after tasks already due. Safe to
    /// call from any thread.
    func execute(_ task: @escaping @Sendable () -> Void)

    /// Which thread runs the clock's loop (`LoopOwner`): where loop-bound state may be
    /// touched (`LoopBound`).
    var loop: LoopOwner { get }

    /// Lets the board suspend to RAM while the loop waits for a distant deadline (the runtime
    /// allows it when the power profile says so). Only the board's clock with a board that
    /// can suspend does anything; every other clock keeps the default, which ignores it.
    func allowSuspend(_ allowed: Bool)
}

extension PacerClock {
    /// A clock that cannot suspend the board ignores the permission.
    public func allowSuspend(_ allowed: Bool) {}
}

extension PacerClock {
    /// Runs `task` once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        schedule(at: now + delay, task)
    }

    /// Runs `task` every `interval`, first at `first` (default: one interval from now).
    /// Deadlines are computed from the first one, so the timer does not drift however long
    /// each run takes. Cancel the returned task to stop it.
    @discardableResult
    public func scheduleRepeating(
        every interval: Duration, firstAt first: Instant? = nil, _ task: @escaping @Sendable () -> Void
    ) -> ScheduledTask {
        precondition(interval > .zero, "a repeating timer needs a positive interval")
        let handle = ScheduledTask()
        let start = first ?? now + interval
        scheduleRepeat(handle: handle, deadline: start, interval: interval, task: task)
        return handle
    }

    private func scheduleRepeat(
        handle: ScheduledTask, deadline: Instant, interval: Duration, task: @escaping @Sendable () -> Void
    ) {
        schedule(at: deadline) { [weak self] in
            guard !handle.isCancelled else { return }
            task()
            guard !handle.isCancelled, let self else { return }
            self.scheduleRepeat(handle: handle, deadline: deadline + interval, interval: interval, task: task)
        }
    }
}

/// A clock whose loop a program runs: the board's monotonic clock runs tasks as real time
/// passes; the virtual clock runs them as fast as it can, or paced N× faster than real time.
/// `run()` returns after `stop()` (the virtual clock also when nothing is left to run).
public protocol RunnableClock: PacerClock {
    func run()
    func stop()
    /// How late, in real time, `run()` began its tasks so far; nil for a clock that does
    /// not keep pace with real time (a fast replay has no lateness).
    var lateness: LoopLateness? { get }
}

extension RunnableClock {
    public var lateness: LoopLateness? { nil }
}

/// Real waiting, for a virtual clock paced against real time (`VirtualClock(pacedBy:speed:)`).
///
/// The simulation cannot read or wait on the board's clock itself (it does not import the
/// Linux adapters); the configurator hands it a waiter that does (`MonotonicWaiter`, on
/// `CLOCK_MONOTONIC`). One thread waits (the clock's loop); any thread may wake it.
public protocol RealTimeWaiter: AnyObject, Sendable {
    /// Real monotonic time, the scale `wait(until:)` deadlines are on.
    var now: Instant { get }

    /// Blocks the calling thread until `now` reaches `deadline`, or until `wake()` is called,
    /// whichever comes first. A `wake()` that came while nobody was waiting is kept, and makes
    /// the next wait return at once, so a wake between the waiter's last look at its work and
    /// its call to `wait` is never lost. May also return early for no reason: callers wait in
    /// a loop.
    func wait(until deadline: Instant)

    /// Ends the current wait, or the next one if nobody is waiting.
    func wake()
}

/// The ordered set of pending tasks both clocks keep: by deadline, then by the order they
/// were scheduled. Not thread-safe on its own; each clock guards it with its lock.
public struct TimerQueue: Sendable {
    public struct Entry: Sendable {
        public let deadline: Instant
        let sequence: UInt64
        public let handle: ScheduledTask
        public let task: @Sendable () -> Void
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { heap.isEmpty }
    public var count: Int { heap.count }
    public var nextDeadline: Instant? { heap.first?.deadline }

    @discardableResult
    public mutating func insert(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        let handle = ScheduledTask()
        heap.append(Entry(deadline: deadline, sequence: nextSequence, handle: handle, task: task))
        nextSequence += 1
        siftUp(heap.count - 1)
        return handle
    }

    /// Removes and returns the earliest entry due at or before `now`.
    public mutating func popDue(at now: Instant) -> Entry? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ index: Int) {
        var i = index
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.before(heap[i], heap[parent]) else { return }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var i = index
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, Self.before(heap[l], heap[m]) { m = l }
            if r < heap.count, Self.before(heap[r], heap[m]) { m = r }
            if m == i { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}
