import HAL
import PacerCore

/// Real waiting on `CLOCK_MONOTONIC`, for a `VirtualClock` paced against real time: the
/// configurator builds `Timing.paced(speed:)` from a virtual clock and one of these, so the
/// simulation keeps pace with the wall without importing the board's adapters.
///
/// Waits on a `MonotonicCondition`, as `MonotonicClock` does, so a paced scenario is not
/// stretched or cut short when NTP steps the wall clock. A `wake()` is remembered until the
/// next wait returns (see `RealTimeWaiter`).
///
/// `@unchecked Sendable`: `woken` is guarded by `condition`'s lock.
public final class MonotonicWaiter: RealTimeWaiter, @unchecked Sendable {
    private let condition = MonotonicCondition()
    private var woken = false

    public init() {}

    public var now: Instant { MonotonicCondition.now }

    public func wait(until deadline: Instant) {
        condition.withLock {
            while !woken, MonotonicCondition.now < deadline {
                condition.wait(until: deadline)
            }
            woken = false
        }
    }

    public func wake() {
        condition.withLock {
            woken = true
            condition.signal()
        }
    }
}
