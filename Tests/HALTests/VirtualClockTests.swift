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

    @Test func executeFromAnotherThreadRunsOnTheNextAdvance() async {
        let clock = VirtualClock()
        let log = Log()
        await Task.detached { clock.execute { log.add("from elsewhere") } }.value
        #expect(log.all.isEmpty)
        clock.runPending()
        #expect(log.all == ["from elsewhere"])
    }
}
