import Foundation
import HAL
import LinuxHardware
import PacerCore
import Simulation
import Synchronization
import Testing

/// The virtual clock paced against real time by the monotonic waiter. These check behaviour
/// with loose bounds (a loaded two-core machine is slow, never fast), not performance.
@Suite("Paced virtual clock")
struct PacedClockTests {
    /// Real time, as the board measures it.
    static func wall() -> Instant { MonotonicWaiter().now }

    /// Ticks every 100 ms of virtual time and a phase change at 1.25 s, until 2 s; notes
    /// what ran at which virtual instant.
    static func program(_ clock: VirtualClock) -> TaskLog {
        let log = TaskLog()
        let ticks = clock.scheduleRepeating(every: .milliseconds(100)) {
            log.add("tick@\(clock.now.nanoseconds / 1_000_000)")
        }
        clock.schedule(at: Instant.zero + .milliseconds(1250)) {
            log.add("phase@\(clock.now.nanoseconds / 1_000_000)")
        }
        clock.schedule(at: Instant.zero + .seconds(2)) {
            ticks.cancel()
            log.add("end@\(clock.now.nanoseconds / 1_000_000)")
        }
        return log
    }

    @Test func twoVirtualSecondsAtSpeed20TakeAboutATenthOfASecondAndRunTheSameTasks() {
        let unpaced = VirtualClock()
        let expected = Self.program(unpaced)
        unpaced.run()

        let clock = VirtualClock(pacedBy: MonotonicWaiter(), speed: 20)
        let log = Self.program(clock)
        let start = Self.wall()
        clock.run()
        let took = Self.wall() - start
        #expect(took >= .milliseconds(80), "ran too fast: \(took)")
        #expect(took < .seconds(1), "ran too slow: \(took)")
        #expect(log.all == expected.all)
        #expect(log.all.count == 21)  // 19 ticks (the end cancels the one at 2 s), phase, end
        #expect(clock.now == unpaced.now)
    }

    @Test func aTaskFromAnotherThreadRunsPromptlyDuringALongWait() {
        let clock = VirtualClock(pacedBy: MonotonicWaiter(), speed: 1)
        let ran = Mutex<(virtual: Instant, afterWall: Duration)?>(nil)
        let late = Mutex(false)
        let reached = DispatchSemaphore(value: 0)
        clock.schedule(at: Instant.zero + .seconds(1)) { reached.signal() }  // virtual time reaches 1 s
        clock.schedule(at: Instant.zero + .seconds(30)) {  // a safety net: the wait to beat
            late.withLock { $0 = true }
            clock.stop()
        }
        let start = Self.wall()
        let thread = Thread {
            _ = reached.wait(timeout: .now() + 10)
            usleep(200_000)  // the stimulus: the task comes into the 29 s wait
            clock.execute {
                ran.withLock { $0 = (clock.now, Self.wall() - start) }
                clock.stop()
            }
        }
        thread.start()
        clock.run()
        #expect(!late.withLock { $0 }, "the submitted task waited for the next deadline")
        let result = ran.withLock { $0 }
        #expect(result?.virtual == Instant.zero + .seconds(1), "it runs at the virtual time last reached")
        #expect(result.map { $0.afterWall < .seconds(5) } == true, "\(String(describing: result))")
    }

    @Test func stopFromAnotherThreadEndsRun() {
        let clock = VirtualClock(pacedBy: MonotonicWaiter(), speed: 1)
        let late = Mutex(false)
        clock.schedule(at: Instant.zero + .seconds(30)) {
            late.withLock { $0 = true }
            clock.stop()
        }
        let thread = Thread {
            usleep(100_000)  // the stimulus: the stop comes during the 30 s wait
            clock.stop()
        }
        let start = Self.wall()
        thread.start()
        clock.run()
        #expect(!late.withLock { $0 })
        #expect(Self.wall() - start < .seconds(5))
        #expect(clock.now == .zero, "stopped before the deadline came")
    }

    @Test func anIdlePacedClockReturnsAtOnce() {
        let clock = VirtualClock(pacedBy: MonotonicWaiter(), speed: 1)
        let start = Self.wall()
        clock.run()
        #expect(Self.wall() - start < .seconds(1))
    }

    @Test func aWakeBeforeTheWaitIsKept() {
        let waiter = MonotonicWaiter()
        waiter.wake()
        let start = waiter.now
        waiter.wait(until: start + .seconds(30))
        #expect(waiter.now - start < .seconds(5))
        waiter.wait(until: start + .milliseconds(20))  // consumed: this one waits its time
        #expect(waiter.now - start >= .milliseconds(20))
    }
}

/// What ran, from any thread.
final class TaskLog: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
