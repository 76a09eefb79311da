#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Which thread runs a clock's loop, if one does: the clock marks its `run()` (and a test's
/// `advance`) with `enter` and `leave`, and `isCurrent` tells a caller whether it runs on
/// that thread. While no loop runs, nothing can race the caller for loop-bound state (the
/// device is being built, or has stopped), so that counts as on the loop.
public final class LoopOwner: Sendable {
    private let thread = Atomic<UInt>(0)

    public init() {}

    /// Marks the calling thread as the loop's; returns what `leave` restores (a loop entered
    /// again from one of its own tasks stays the same thread's).
    public func enter() -> UInt {
        thread.exchange(UInt(pthread_self()), ordering: .acquiringAndReleasing)
    }

    public func leave(restoring previous: UInt) {
        thread.store(previous, ordering: .releasing)
    }

    /// On the loop's thread, or no loop runs: loop-bound state may be touched.
    public var isCurrent: Bool {
        let owner = thread.load(ordering: .acquiring)
        return owner == 0 || owner == UInt(pthread_self())
    }

    /// On the loop's thread, running one of its tasks.
    public var isRunningHere: Bool {
        thread.load(ordering: .acquiring) == UInt(pthread_self())
    }
}

/// State that belongs to one clock's loop, as SwiftNIO's `NIOLoopBound`: only the tasks the
/// clock runs read and write it, so no lock guards it, and every access checks that it is
/// made on the loop (a precondition in debug builds). Work from another thread is handed to
/// the loop (`PacerClock.execute`); code already on the loop calls straight through.
public final class LoopBound<Value>: @unchecked Sendable {
    private var value: Value
    private let clock: any PacerClock

    public init(_ value: Value, clock: any PacerClock) {
        self.value = value
        self.clock = clock
    }

    /// The value, read or changed in place; on the loop only.
    @inline(__always)
    public func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        assert(clock.isInLoop, "loop-bound state touched off its clock's loop")
        return try body(&value)
    }

    /// The value; on the loop only.
    public var current: Value { withValue { $0 } }
}

extension PacerClock {
    /// Whether the caller may touch this clock's loop-bound state (`LoopOwner.isCurrent`).
    public var isInLoop: Bool { loop.isCurrent }

    /// Runs `task` now when called from one of the loop's tasks, else hands it to the loop:
    /// a command from another thread (or before the loop runs) is queued once; one from the
    /// loop itself is not queued again.
    public func onLoop(_ task: @escaping @Sendable () -> Void) {
        if loop.isRunningHere { task() } else { execute(task) }
    }
}
