import Coaching
import PacerCore
import Testing

/// Feeds an `AutoPause` a fix a second, as the runtime does, and records its decisions with
/// the second they came.
struct AutoPauseDriver {
    var autoPause: AutoPause
    /// Whether the workout runs (the runtime's coach): paused by the decisions, or by hand.
    var running = true
    var phaseMinimum = 2.5
    var decisions: [(Int, AutoPause.Decision)] = []

    init(below: Double = 0.55, after: Int = 5, resumeAbove: Double = 1.1) {
        autoPause = AutoPause(settings: .init(below: below, after: .seconds(after), resumeAbove: resumeAbove))
    }

    static func t(_ s: Int) -> Instant { Instant.zero + .seconds(s) }

    /// Seconds `from` through `to`; `speed(s)` is that second's Doppler speed (nil: none).
    mutating func run(_ from: Int, _ to: Int, speed: (Int) -> Double?) {
        for s in from...to {
            guard let d = autoPause.observe(speed: speed(s), at: Self.t(s), running: running,
                                            phaseMinimumSpeed: phaseMinimum) else { continue }
            decisions.append((s, d))
            switch d {
            case .pause: running = false
            case .resume: running = true
            }
        }
    }

    var pauses: [(at: Int, since: Int)] {
        decisions.compactMap { if case .pause(let since) = $0.1 { ($0.0, Int(since.seconds.rounded())) } else { nil } }
    }
    var resumes: [Int] { decisions.compactMap { if case .resume = $0.1 { $0.0 } else { nil } } }
}

@Suite("Auto-pause")
struct AutoPauseTests {
    /// Standing from 20 s: nothing for 4 s, the pause at 25 s, dated back to 20 s, when the
    /// runner stopped.
    @Test func pausesAfterTheDelayFromTheMomentTheRunnerStopped() {
        var d = AutoPauseDriver(after: 5)
        d.run(0, 40) { $0 < 20 ? 3.0 : 0.1 }
        #expect(d.pauses.map(\.at) == [25])
        #expect(d.pauses.map(\.since) == [20])
        #expect(d.autoPause.isPaused)
    }

    /// A stop shorter than the delay is no pause, and a later stop counts from its own start.
    @Test func aStopShorterThanTheDelayIsNotAPause() {
        var d = AutoPauseDriver(after: 5)
        d.run(0, 60) { s in (20..<24).contains(s) || s >= 40 ? 0.0 : 3.0 }
        #expect(d.pauses.map(\.since) == [40])
        #expect(d.pauses.map(\.at) == [45])
    }

    /// The threshold is a speed: a runner at a shuffle just above it is moving.
    @Test func slowerThanTheThresholdIsAStopAndAtItIsNot() {
        var d = AutoPauseDriver(below: 0.55, after: 3)
        d.run(0, 30) { _ in 0.55 }
        #expect(d.pauses.isEmpty)
        d.run(31, 40) { _ in 0.54 }
        #expect(d.pauses.map(\.since) == [31])
    }

    /// Between the two thresholds an auto-paused runner stays paused; above the resume
    /// threshold the timer runs again at that fix.
    @Test func resumesOnlyAboveTheResumeThreshold() {
        var d = AutoPauseDriver(below: 0.55, after: 5, resumeAbove: 1.1)
        d.run(0, 30) { _ in 0.0 }
        #expect(d.pauses.count == 1)
        d.run(31, 50) { _ in 0.9 }
        #expect(d.resumes.isEmpty)
        d.run(51, 52) { _ in 1.2 }
        #expect(d.resumes == [51])
        #expect(d.decisions.last?.1 == .resume(speed: 1.2))
        #expect(!d.autoPause.isPaused)
    }

    /// Paused by hand, the runner is not resumed by moving, nor paused again by standing: the
    /// pause is theirs. A press during an auto-pause makes it theirs too.
    @Test func aPauseByHandIsNeverEndedByMoving() {
        var d = AutoPauseDriver()
        d.running = false
        d.run(0, 30) { s in s < 10 ? 0.0 : 3.0 }
        #expect(d.decisions.isEmpty)

        var e = AutoPauseDriver()
        e.run(0, 20) { _ in 0.0 }
        #expect(e.pauses.count == 1)
        e.autoPause.handOver()  // the runner presses pause while auto-paused
        e.run(21, 40) { _ in 3.0 }
        #expect(e.resumes.isEmpty)
    }

    /// No speed is not zero speed: a loss of fix (or a fix without a speed) in a stop means
    /// the stop must be seen for the whole delay again after it.
    @Test func aLossOfFixIsNotAStop() {
        var d = AutoPauseDriver(after: 5)
        d.run(0, 19) { _ in 3.0 }
        d.run(20, 23) { _ in 0.0 }
        d.autoPause.fixLost()
        d.run(24, 26) { _ in nil }
        #expect(d.pauses.isEmpty)
        d.run(27, 40) { _ in 0.0 }
        #expect(d.pauses.map(\.since) == [27])
        #expect(d.pauses.map(\.at) == [32])

        var e = AutoPauseDriver(after: 5)
        e.run(0, 60) { s in s % 4 == 0 ? nil : 0.0 }
        #expect(e.pauses.isEmpty, "a stop is broken by every fix without a speed")
    }

    /// A lost fix while auto-paused leaves the pause as it is; the runner moving resumes it.
    @Test func aLossOfFixDuringAnAutoPauseKeepsIt() {
        var d = AutoPauseDriver()
        d.run(0, 10) { _ in 0.0 }
        d.autoPause.fixLost()
        d.run(11, 20) { _ in nil }
        #expect(d.autoPause.isPaused && d.resumes.isEmpty)
        d.run(21, 22) { _ in 3.0 }
        #expect(d.resumes == [21])
    }

    /// A phase whose range reaches below the threshold (a standing rest) is never auto-paused,
    /// or its time would never run out.
    @Test func aPhaseThatAllowsStandingIsNotAutoPaused() {
        var d = AutoPauseDriver(below: 0.55)
        d.phaseMinimum = 0.3
        d.run(0, 60) { _ in 0.0 }
        #expect(d.pauses.isEmpty)
        d.phaseMinimum = 0.55
        d.run(61, 70) { _ in 0.0 }
        #expect(d.pauses.map(\.since) == [61])
    }

    /// A step-down to a profile without auto-pause: no new pause, but a pause in force still
    /// ends when the runner moves, at the threshold it was made with.
    @Test func aProfileWithoutAutoPauseNeverStrandsARunner() {
        var d = AutoPauseDriver(resumeAbove: 1.1)
        d.run(0, 10) { _ in 0.0 }
        #expect(d.pauses.count == 1)
        d.autoPause.change(settings: nil)
        d.run(11, 20) { _ in 1.0 }
        #expect(d.resumes.isEmpty)
        d.run(21, 21) { _ in 1.2 }
        #expect(d.resumes == [21])
        d.run(22, 60) { _ in 0.0 }
        #expect(d.pauses.count == 1)
    }

    /// With no delay the first standing fix pauses, from itself.
    @Test func aZeroDelayPausesAtTheFirstStandingFix() {
        var d = AutoPauseDriver(after: 0)
        d.run(0, 12) { $0 < 10 ? 3.0 : 0.0 }
        #expect(d.pauses.map(\.at) == [10] && d.pauses.map(\.since) == [10])
    }
}
