import Foundation
import HAL
import PacerCore
import Simulation
import Synchronization
import Testing

/// State bound to the clock's loop: where the loop is, and what a command from it does.
@Suite("Loop-bound state")
struct LoopBoundTests {
    /// Work handed to the loop from one of its own tasks runs there and then; from outside a
    /// running loop it is queued behind what is already due.
    @Test func aTaskOnTheLoopRunsAtOnceOneFromOutsideIsQueued() {
        let clock = VirtualClock()
        let order = Mutex<[String]>([])
        @Sendable func note(_ s: String) { order.withLock { $0.append(s) } }
        clock.onLoop { note("queued before the loop runs") }
        clock.schedule(at: Instant.zero + .seconds(1)) {
            clock.onLoop { note("from the loop: at once") }
            note("after it, in the same task")
        }
        clock.schedule(at: Instant.zero + .seconds(1)) { note("the next task due") }
        note("outside")
        clock.runUntilIdle()
        #expect(order.withLock { $0 } == [
            "outside", "queued before the loop runs", "from the loop: at once", "after it, in the same task", "the next task due",
        ])
    }

    /// While the loop runs, only its thread is on it; before and after, nothing races it.
    @Test func onlyTheLoopsThreadIsOnTheLoopWhileItRuns() {
        let clock = VirtualClock()
        let seen = Mutex<(loop: Bool, other: Bool)?>(nil)
        clock.schedule(at: Instant.zero + .seconds(1)) {
            let other = Mutex(true)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                other.withLock { $0 = clock.isInLoop }
                done.signal()
            }
            thread.start()
            done.wait()
            seen.withLock { $0 = (clock.isInLoop, other.withLock { $0 }) }
        }
        #expect(clock.isInLoop, "no loop runs yet")
        clock.run()
        #expect(seen.withLock { $0?.loop } == true)
        #expect(seen.withLock { $0?.other } == false, "another thread is not on the loop while it runs")
        #expect(clock.isInLoop, "the loop has stopped")
    }

    @Test func loopBoundStateIsReadAndChangedOnTheLoop() {
        let clock = VirtualClock()
        let count = LoopBound(0, clock: clock)
        for s in 1...3 { clock.schedule(at: Instant.zero + .seconds(Int64(s))) { count.withValue { $0 += s } } }
        clock.runUntilIdle()
        #expect(count.current == 6)
    }
}
