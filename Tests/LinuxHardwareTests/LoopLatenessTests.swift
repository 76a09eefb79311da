import Foundation
import HAL
import LinuxHardware
import PacerCore
import Simulation
import Testing

/// How late a real-time loop began its tasks (`LoopLateness`): what `pacer device` reports
/// when it stops, and what the companion's load test reads. Bounds are loose
/// where a loaded machine makes a loop late; the blocked loop is late by construction.
@Suite("Loop lateness")
struct LoopLatenessTests {
    @Test func bucketsAndTheSummaryCountEveryTask() {
        var l = LoopLateness()
        #expect(l.summary == "no task ran")
        for _ in 0..<990 { l.record(.microseconds(50)) }
        for _ in 0..<9 { l.record(.milliseconds(3)) }
        l.record(.milliseconds(73))
        #expect(l.tasks == 1000)
        #expect(l.worst == .milliseconds(73))
        #expect(l.within(fraction: 0.99) == .microseconds(100))
        #expect(l.within(fraction: 0.999) == .milliseconds(5))
        #expect(l.within(fraction: 1) == .milliseconds(100))
        #expect(l.summary == "1000 tasks; 99 % began within 0.1 ms of their time, 99.9 % within 5 ms; the latest 73 ms late")
        l.record(.seconds(3))
        #expect(l.within(fraction: 1) == nil)
        l.record(.milliseconds(-2))  // a task begun early counts as on time
        #expect(l.counts[0] == 991)
    }

    /// A task that holds the loop for 150 ms makes the tasks due meanwhile late by about
    /// that; on-time tasks are counted too.
    @Test func aPacedClockCountsATaskHeldUpByABusyLoop() {
        let clock = VirtualClock(pacedBy: MonotonicWaiter(), speed: 1)
        clock.schedule(at: Instant.zero + .milliseconds(10)) { usleep(150_000) }  // the stimulus: a busy loop
        clock.schedule(at: Instant.zero + .milliseconds(60)) {}
        clock.schedule(at: Instant.zero + .milliseconds(300)) {}
        clock.run()
        let late = try! #require(clock.lateness)
        #expect(late.tasks == 3)
        #expect(late.worst >= .milliseconds(80), "\(late.worst)")
        #expect(late.worst < .seconds(2))
        #expect(VirtualClock().lateness == nil, "a fast replay has no lateness")
    }

    @Test func theBoardsClockCountsATaskHeldUpByABusyLoop() {
        let clock = MonotonicClock()
        let start = clock.now
        clock.schedule(at: start + .milliseconds(10)) { usleep(150_000) }  // the stimulus: a busy loop
        clock.schedule(at: start + .milliseconds(60)) {}
        clock.schedule(at: start + .milliseconds(300)) { clock.stop() }
        clock.run()
        let late = try! #require(clock.lateness)
        #expect(late.tasks == 3)
        #expect(late.worst >= .milliseconds(80), "\(late.worst)")
    }
}
