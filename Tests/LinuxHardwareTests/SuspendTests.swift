import Foundation
import HAL
import LinuxHardware
import PacerCore
import Synchronization
import TestSupport
import Testing

/// A suspender that does not suspend this machine: it reports the board asleep for the
/// time asked and returns at once, as a resume from suspend looks to the monotonic clock.
final class InstantSuspender: BoardSuspender {
    let asked = Mutex<[Duration]>([])
    func suspend(for duration: Duration) -> Duration {
        asked.withLock { $0.append(duration) }
        return duration
    }
}

@Suite("Board suspend")
struct SuspendTests {
    @Test func aLongWaitIsSuspendedAndTheClockCountsTheTimeAsleep() {
        let suspender = InstantSuspender()
        let clock = MonotonicClock(suspender: suspender, suspendThreshold: .seconds(3), resume: .seconds(1))
        clock.allowSuspend(true)
        let start = clock.now
        let ranAt = Mutex<Instant?>(nil)
        let wall = ContinuousClock.now
        clock.schedule(at: start + .seconds(60)) {
            ranAt.withLock { $0 = clock.now }
            clock.stop()
        }
        clock.run()
        let took = ContinuousClock.now - wall
        // Suspended for the gap less the resume time, then the last second waited for real.
        #expect(suspender.asked.withLock { $0 }.count == 1)
        let asked = suspender.asked.withLock { $0 }[0]
        #expect(asked > .seconds(58.9) && asked <= .seconds(59), "\(asked)")
        #expect(clock.suspendedTime == asked)
        #expect(took < .seconds(3), "the minute went by asleep, not waited out")
        #expect(took > .milliseconds(800), "the resume second is waited for real")
        let at = ranAt.withLock { $0 }
        #expect(at != nil, "the task ran")
        #expect((at.map { $0 - start } ?? .zero) >= .seconds(60))
    }

    @Test func withoutTheProfilesLeaveOrForAShortWaitTheBoardIdles() {
        let suspender = InstantSuspender()
        let clock = MonotonicClock(suspender: suspender, suspendThreshold: .seconds(3), resume: .seconds(1))
        // Allowed, but the wait (2 s) is under the threshold.
        clock.allowSuspend(true)
        clock.schedule(at: clock.now + .milliseconds(300)) {}
        clock.schedule(at: clock.now + .milliseconds(600)) { clock.stop() }
        clock.run()
        #expect(suspender.asked.withLock { $0 }.isEmpty)
        // Not allowed: a long wait is waited out (cut short here by a stop from another thread).
        clock.allowSuspend(false)
        clock.schedule(at: clock.now + .seconds(30)) {}
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)  // the stimulus: the stop comes during the long wait
            clock.stop()
        }
        clock.run()
        #expect(suspender.asked.withLock { $0 }.isEmpty)
    }

    @Test func sysfsSuspendSetsTheWakeAlarmThenWritesMem() throws {
        let root = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(atPath: "\(root)/class/rtc/rtc0", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/power", withIntermediateDirectories: true)
        try "".write(toFile: "\(root)/class/rtc/rtc0/wakealarm", atomically: true, encoding: .utf8)
        try "".write(toFile: "\(root)/power/state", atomically: true, encoding: .utf8)
        let suspender = SysfsSuspender(root: root)
        // A folder of files does not suspend anything: nothing was slept.
        #expect(suspender.suspend(for: .milliseconds(42_700)) == .zero)
        #expect(try String(contentsOfFile: "\(root)/class/rtc/rtc0/wakealarm", encoding: .utf8) == "+42")
        #expect(try String(contentsOfFile: "\(root)/power/state", encoding: .utf8) == "mem")
        #expect(suspender.lastError == nil)
        // Under a second: not worth an alarm.
        try "".write(toFile: "\(root)/power/state", atomically: true, encoding: .utf8)
        #expect(suspender.suspend(for: .milliseconds(900)) == .zero)
        #expect(try String(contentsOfFile: "\(root)/power/state", encoding: .utf8) == "")
    }

    @Test func aBoardWithoutTheFilesSaysWhyAndIdles() {
        let suspender = SysfsSuspender(root: "/nonexistent-sysfs")
        #expect(suspender.suspend(for: .seconds(10)) == .zero)
        #expect(suspender.lastError?.contains("/nonexistent-sysfs/class/rtc/rtc0/wakealarm") == true)
    }
}
