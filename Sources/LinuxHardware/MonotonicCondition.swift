#if canImport(Glibc)
import PacerCore
import Glibc
#endif
import HAL

/// A mutex and a condition variable whose timed waits are measured on `CLOCK_MONOTONIC`, so a
/// wait lasts its length whatever happens to the wall clock (NTP stepping it after the board
/// boots without a network, the user setting the date). `MonotonicClock` and the gpsd reader
/// sleep on one.
///
/// The usual condition-variable rules apply: `wait` and `wait(until:)` are called with the
/// lock held, release it while they sleep and hold it again when they return; they can return
/// without a signal, so callers wait in a loop on the state the lock guards.
///
/// `@unchecked Sendable`: the pthread objects are heap-allocated (they must not move) and are
/// there to be shared between threads.
final class MonotonicCondition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
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

    /// Now on `CLOCK_MONOTONIC`, the clock `wait(until:)` deadlines are measured on.
    static var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    func lock() {
        pthread_mutex_lock(mutex)
    }

    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Wakes one waiter.
    func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// Sleeps until signalled. Call with the lock held.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Sleeps until signalled or until `deadline` (on `CLOCK_MONOTONIC`, see `now`). Call with
    /// the lock held. Returns true when it returned because the deadline had come.
    @discardableResult
    func wait(until deadline: Instant) -> Bool {
        let nanoseconds = max(deadline.nanoseconds, 0)
        var ts = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &ts) == ETIMEDOUT
    }
}
