#if canImport(Glibc)
import Glibc
#endif
import HAL

/// The board's clock: `CLOCK_MONOTONIC` (immune to NTP steps and the user setting the date),
/// and a loop that runs scheduled tasks on the thread that calls `run()`.
///
/// Waiting uses a condition variable bound to the monotonic clock, so a timer set for ten
/// seconds fires after ten seconds whatever happens to the wall clock.
public final class MonotonicClock: RunnableClock, @unchecked Sendable {
    // Guarded by `mutex`.
    private var queue = TimerQueue()
    private var stopped = false
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    @discardableResult
    public func schedule(at deadline: Instant, _ task: @escaping @Sendable () -> Void) -> ScheduledTask {
        pthread_mutex_lock(mutex)
        let handle = queue.insert(at: deadline, task)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        return handle
    }

    public func execute(_ task: @escaping @Sendable () -> Void) {
        schedule(at: now, task)
    }

    /// Runs tasks as they come due until `stop()` is called (from a task or another thread).
    public func run() {
        pthread_mutex_lock(mutex)
        while !stopped {
            let current = now
            if let entry = queue.popDue(at: current) {
                pthread_mutex_unlock(mutex)
                if !entry.handle.isCancelled { entry.task() }
                pthread_mutex_lock(mutex)
                continue
            }
            if let next = queue.nextDeadline {
                var ts = timespec(
                    tv_sec: Int(next.nanoseconds / 1_000_000_000), tv_nsec: Int(next.nanoseconds % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &ts)
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        stopped = false  // a later run() starts afresh; a stop() before run() is not lost
        pthread_mutex_unlock(mutex)
    }

    /// Makes `run()` return after the task it is running, if any; called before `run()`,
    /// makes the next `run()` return at once.
    public func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }
}
