import PacerCore
import HAL
import Simulation
import Synchronization
import Testing

/// Records what ran and when, from any thread.
final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ s: String) { entries.withLock { $0.append(s) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite("Virtual clock")
struct VirtualClockTests {
    @Test func timeStartsAtZeroAndMovesOnlyWhenTold() {
        let clock = VirtualClock()
        #expect(clock.now == .zero)
        clock.advance(by: .seconds(3))
        #expect(clock.now == Instant.zero + .seconds(3))
    }

    @Test func aTaskRunsExactlyAtItsDeadline() {
        let clock = VirtualClock()
        let log = Log()
        clock.schedule(after: .seconds(5)) { log.add("fired at \(clock.now.nanoseconds)") }
        clock.advance(by: .nanoseconds(4_999_999_999))
        #expect(log.all.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(log.all == ["fired at 5000000000"])
    }

    @Test func nowIsTheTasksDeadlineWhileItRuns() {
        let clock = VirtualClock()
        let log = Log()
        clock.schedule(after: .seconds(2)) { log.add("\(clock.now.seconds)") }
        clock.schedule(after: .seconds(7)) { log.add("\(clock.now.seconds)") }
        clock.advance(by: .seconds(10))
        #expect(log.all == ["2.0", "7.0"])
        #expect(clock.now.seconds == 10)
    }

    @Test func tasksDueTogetherRunInTheOrderScheduled() {
        let clock = VirtualClock()
        let log = Log()
        for name in ["a", "b", "c", "d"] {
            clock.schedule(after: .seconds(1)) { log.add(name) }
        }
        clock.execute { log.add("now") }
        clock.advance(by: .seconds(1))
        #expect(log.all == ["now", "a", "b", "c", "d"])
    }

    @Test func aTaskMayScheduleAnotherDueOnTheWay() {
        let clock = VirtualClock()
        let log = Log()
        clock.schedule(after: .seconds(1)) {
            log.add("first")
            clock.schedule(after: .seconds(1)) { log.add("second at \(clock.now.seconds)") }
        }
        clock.advance(by: .seconds(5))
        #expect(log.all == ["first", "second at 2.0"])
    }

    @Test func cancelledTasksDoNotRun() {
        let clock = VirtualClock()
        let log = Log()
        let task = clock.schedule(after: .seconds(1)) { log.add("ran") }
        task.cancel()
        clock.advance(by: .seconds(2))
        #expect(log.all.isEmpty)
    }

    @Test func timeNeverGoesBackwards() {
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        clock.advance(to: Instant.zero + .seconds(1))
        #expect(clock.now.seconds == 5)
        let log = Log()
        clock.schedule(at: .zero) { log.add("\(clock.now.seconds)") }  // a deadline in the past
        clock.runPending()
        #expect(log.all == ["5.0"])
    }

    @Test func repeatingTimersDoNotDrift() {
        let clock = VirtualClock()
        let log = Log()
        let timer = clock.scheduleRepeating(every: .seconds(10)) { log.add("\(clock.now.seconds)") }
        clock.advance(by: .seconds(35))
        #expect(log.all == ["10.0", "20.0", "30.0"])
        timer.cancel()
        clock.advance(by: .seconds(100))
        #expect(log.all.count == 3)
    }

    @Test func runUntilIdleJumpsFromDeadlineToDeadline() {
        let clock = VirtualClock()
        let log = Log()
        clock.schedule(after: .seconds(3600)) { log.add("hour") }
        clock.schedule(after: .seconds(60)) { log.add("minute") }
        clock.runUntilIdle()
        #expect(log.all == ["minute", "hour"])
        #expect(clock.now.seconds == 3600)
        #expect(clock.pendingCount == 0)
    }

    @Test func runUntilIdleStopsAtItsLimit() {
        let clock = VirtualClock()
        let log = Log()
        clock.scheduleRepeating(every: .seconds(1)) { log.add("tick") }
        clock.runUntilIdle(limit: Instant.zero + .seconds(5))
        #expect(log.all.count == 5)
        #expect(clock.now.seconds == 5)
    }

    @Test func stopEndsTheRunBeforeTheTasksDueAtTheSameInstant() {
        let clock = VirtualClock()
        let ran = Mutex<[String]>([])
        clock.schedule(at: Instant(nanoseconds: 5_000_000_000)) { ran.withLock { $0.append("before") } }
        clock.schedule(at: Instant(nanoseconds: 5_000_000_000)) {
            ran.withLock { $0.append("stop") }
            clock.stop()
        }
        clock.schedule(at: Instant(nanoseconds: 5_000_000_000)) { ran.withLock { $0.append("after") } }
        clock.schedule(at: Instant(nanoseconds: 9_000_000_000)) { ran.withLock { $0.append("later") } }
        clock.run()
        #expect(ran.withLock { $0 } == ["before", "stop"])
        #expect(clock.now == Instant(nanoseconds: 5_000_000_000))
        // The rest waits for the next run.
        clock.run()
        #expect(ran.withLock { $0 } == ["before", "stop", "after", "later"])
    }

    @Test func executeFromAnotherThreadRunsOnTheNextAdvance() async {
        let clock = VirtualClock()
        let log = Log()
        await Task.detached { clock.execute { log.add("from elsewhere") } }.value
        #expect(log.all.isEmpty)
        clock.runPending()
        #expect(log.all == ["from elsewhere"])
    }

    /// The program both clocks run in the pacing tests: tasks at 1, 3, 3 and 10 s, one of
    /// which schedules another a second later.
    static func program(_ clock: VirtualClock, _ log: Log) {
        clock.schedule(at: Instant.zero + .seconds(1)) { log.add("a@\(clock.now.seconds)") }
        clock.schedule(at: Instant.zero + .seconds(3)) {
            log.add("b@\(clock.now.seconds)")
            clock.schedule(after: .seconds(1)) { log.add("d@\(clock.now.seconds)") }
        }
        clock.schedule(at: Instant.zero + .seconds(3)) { log.add("c@\(clock.now.seconds)") }
        clock.schedule(at: Instant.zero + .seconds(10)) { log.add("e@\(clock.now.seconds)") }
    }

    @Test func aPacedRunWaitsForEachDeadlineAndRunsTheSameTasks() {
        let unpaced = VirtualClock(), plain = Log()
        Self.program(unpaced, plain)
        unpaced.run()

        let waiter = FakeWaiter()
        let paced = VirtualClock(pacedBy: waiter, speed: 2)
        #expect(paced.speed == 2 && unpaced.speed == nil)
        let log = Log()
        Self.program(paced, log)
        paced.run()
        #expect(log.all == plain.all)
        #expect(log.all == ["a@1.0", "b@3.0", "c@3.0", "d@4.0", "e@10.0"])
        #expect(paced.now == unpaced.now)
        // Each deadline at half its virtual time, measured from the real start; the second
        // task at 3 s and the tasks due at once need no wait.
        #expect(waiter.waits == [0.5, 1.5, 2, 5])
    }

    @Test func aPacedClockStillStepsWithoutWaiting() {
        let waiter = FakeWaiter()
        let clock = VirtualClock(pacedBy: waiter, speed: 1)
        let log = Log()
        Self.program(clock, log)
        clock.runUntilIdle()
        #expect(log.all.count == 5)
        #expect(waiter.waits.isEmpty)
    }
}

/// Real time that passes only when waited on, so a test sees exactly what a paced clock asks
/// of its waiter: each wait's deadline, in seconds after the first reading of `now`.
final class FakeWaiter: RealTimeWaiter {
    private static let start = Instant.zero + .seconds(1000)
    private let state = Mutex<(now: Instant, waits: [Instant])>((FakeWaiter.start, []))

    var now: Instant { state.withLock { $0.now } }

    func wait(until deadline: Instant) {
        state.withLock { s in
            s.waits.append(deadline)
            s.now = max(s.now, deadline)
        }
    }

    func wake() {}

    var waits: [Double] { state.withLock { $0.waits.map { ($0 - Self.start).inSeconds } } }
}
