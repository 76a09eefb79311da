import PacerCore
import Foundation
import HAL
import LinuxHardware
import Synchronization
import Testing

@Suite("Monotonic clock")
struct MonotonicClockTests {
    @Test func nowMovesForward() {
        let clock = MonotonicClock()
        let a = clock.now
        let b = clock.now
        #expect(b >= a)
    }

    /// Real time, on the loop thread: a 50 ms timer fires no earlier than 50 ms, timers fire
    /// in deadline order, and `stop()` makes `run()` return.
    @Test func runsTimersInOrderAndStops() {
        let clock = MonotonicClock()
        let order = Mutex<[String]>([])
        let start = clock.now
        let firedAfter = Mutex<Duration?>(nil)
        clock.schedule(after: .milliseconds(80)) {
            order.withLock { $0.append("80ms") }
            clock.stop()
        }
        clock.schedule(after: .milliseconds(50)) {
            firedAfter.withLock { $0 = clock.now - start }
            order.withLock { $0.append("50ms") }
        }
        clock.execute { order.withLock { $0.append("now") } }
        clock.run()  // returns when the 80 ms task stops it
        #expect(order.withLock { $0 } == ["now", "50ms", "80ms"])
        #expect(firedAfter.withLock { $0 }! >= .milliseconds(50))
        #expect(clock.now - start < .seconds(60), "run() returned rather than hanging")
    }

    @Test func aStopBeforeRunIsNotLost() {
        let clock = MonotonicClock()
        clock.stop()
        let safetyNet = Mutex(false)
        let start = clock.now
        clock.schedule(after: .seconds(10)) {  // had the stop been lost, this ends the wait
            safetyNet.withLock { $0 = true }
            clock.stop()
        }
        clock.run()
        #expect(!safetyNet.withLock { $0 }, "run() waited for the safety net: the early stop was lost")
        #expect(clock.now - start < .seconds(10))
    }

    @Test func executeFromAnotherThreadWakesTheLoop() {
        let clock = MonotonicClock()
        let ran = Mutex(false)
        let thread = Thread {
            usleep(20_000)  // the stimulus: the task comes while run() waits
            clock.execute {
                ran.withLock { $0 = true }
                clock.stop()
            }
        }
        thread.start()
        clock.schedule(after: .seconds(10)) { clock.stop() }  // a safety net, never reached
        let start = clock.now
        clock.run()
        #expect(ran.withLock { $0 })
        #expect(clock.now - start < .seconds(60), "run() returned rather than hanging")
    }
}
