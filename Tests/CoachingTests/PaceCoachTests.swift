import Coaching
import PacerCore
import Testing

/// Drives a coach second by second the way the runtime does (a fix every `every` seconds,
/// ticks at `nextDeadline`), and records each cue with the second it sounded.
struct CoachDriver {
    var coach: PaceCoach
    var now = Instant.zero
    var cues: [(Int, Cue)] = []
    var outputs: [CoachOutput] = []

    init(_ workout: Workout, alert: Int = 10, window: Int = 10, positioning: Bool = true) {
        coach = PaceCoach(
            workout: workout,
            settings: CoachSettings(alertInterval: .seconds(alert), smoothingWindow: .seconds(window)),
            positioning: positioning)
        record(coach.start(at: now))
    }

    static func t(_ s: Int) -> Instant { Instant.zero + .seconds(s) }

    mutating func record(_ out: [CoachOutput]) {
        outputs += out
        for case .cue(let cue, _) in out { cues.append((Int(now.seconds.rounded()), cue)) }
    }

    /// Runs to second `end`; `speed(s)` is the fix speed at second s (nil: no fix then).
    mutating func run(to end: Int, every: Int = 1, speed: (Int) -> Double?) {
        var s = Int(now.seconds.rounded())
        while s < end {
            s += 1
            // Ticks due before this second.
            while let d = coach.nextDeadline, d < CoachDriver.t(s) {
                now = d
                record(coach.tick(at: d))
            }
            now = CoachDriver.t(s)
            record(coach.tick(at: now))
            if s % every == 0, let v = speed(s) {
                record(coach.fix(GeoPoint(latitude: 0, longitude: Double(s) * 1e-5), speed: v, at: now))
            }
        }
    }

    func cues(_ kind: Cue) -> [Int] { cues.filter { $0.1 == kind }.map(\.0) }
}

func workout(_ phases: (String, Int, Double, Double)...) -> Workout {
    Workout(name: "test", phases: phases.map {
        Phase(name: $0.0, duration: .seconds($0.1), minimumSpeed: $0.2, maximumSpeed: $0.3)
    })
}

@Suite("Pace coach")
struct PaceCoachTests {
    let oneBand = workout(("steady", 600, 2.5, 3.5))

    @Test func onPaceConfirmsAtTheAlertInterval() {
        var d = CoachDriver(oneBand, alert: 10)
        d.run(to: 45) { _ in 3.0 }
        #expect(d.cues(.onPace) == [1, 11, 21, 31, 41])
        #expect(d.cues(.speedUp).isEmpty && d.cues(.slowDown).isEmpty)
    }

    @Test func tooSlowCuesSpeedUpAndRepeats() {
        var d = CoachDriver(oneBand, alert: 10)
        d.run(to: 35) { _ in 2.0 }
        #expect(d.cues(.speedUp) == [1, 11, 21, 31])
    }

    @Test func tooFastCuesSlowDownAndRepeats() {
        var d = CoachDriver(oneBand, alert: 15)
        d.run(to: 35) { _ in 4.2 }
        #expect(d.cues(.slowDown) == [1, 16, 31])
    }

    /// Too slow for 20 s, then on pace: the cue changes as soon as the smoothed speed is
    /// back inside the range by the hysteresis margin, not at the raw edge.
    /// A window as long as the interval between fixes holds one sample at a time: the state
    /// must not fall back to unknown (and cue afresh) between fixes.
    @Test func aWindowOfOneFixIntervalCuesOnlyAtTheAlertInterval() {
        var d = CoachDriver(oneBand, alert: 60, window: 10)
        d.run(to: 130, every: 10) { _ in 2.0 }
        #expect(d.cues(.speedUp) == [10, 70, 130])
    }

    @Test func recoveringFromSlowNeedsTheHysteresisMargin() {
        var d = CoachDriver(oneBand, alert: 25, window: 1)
        d.run(to: 20) { _ in 2.0 }
        d.run(to: 30) { _ in 2.55 }   // inside the range, but within 0.1 m/s of its edge
        d.run(to: 40) { _ in 2.7 }
        #expect(d.cues(.speedUp) == [1, 26], "still too slow at 2.55 m/s: the repeat sounds")
        #expect(d.cues(.onPace) == [31])
    }

    /// Noisy GPS speed around a steady on-pace run does not set off speed-up or slow-down.
    @Test func smoothingAbsorbsSpeedNoise() {
        // A realistic band (±1.1 km/h) and ±0.5 m/s of noise on every 1 Hz fix.
        var d = CoachDriver(workout(("steady", 300, 2.7, 3.3)), alert: 10, window: 10)
        var seed: UInt64 = 42
        d.run(to: 300) { _ in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let noise = Double(seed >> 33) / Double(1 << 31) - 0.5  // ±0.5 m/s per fix
            return 3.0 + noise
        }
        #expect(d.cues(.speedUp).isEmpty)
        #expect(d.cues(.slowDown).isEmpty)
        #expect(d.cues(.onPace).count == 30)
    }

    @Test func phasesChangeOnTheClockAndTheWorkoutCompletes() {
        var d = CoachDriver(workout(("warm-up", 60, 1.5, 2.5), ("fast", 120, 3.5, 4.5), ("cool-down", 60, 1.5, 2.5)))
        d.run(to: 300) { _ in nil }  // no fixes at all: phase time runs on the clock
        #expect(d.cues(.phaseChange) == [60, 180])
        #expect(d.cues(.workoutComplete) == [240])
        #expect(d.cues.count == 3, "phase-change and workout-complete sound for no other reason")
        #expect(d.coach.finished)
        #expect(d.outputs.contains(.workoutCompleted))
    }

    @Test func theNewPhasesBandAppliesAtOnce() {
        var d = CoachDriver(workout(("easy", 30, 2.5, 3.5), ("fast", 60, 3.8, 4.5)), alert: 10, window: 5)
        d.run(to: 50) { _ in 3.0 }
        #expect(d.cues(.onPace) == [1, 11, 21])
        #expect(d.cues(.phaseChange) == [30])
        #expect(d.cues(.speedUp) == [30, 40, 50])
    }

    @Test func gpsLostCuesOnceRemindsAndCuesBack() {
        var d = CoachDriver(oneBand, alert: 10)
        d.run(to: 20) { _ in 3.0 }
        d.record(d.coach.fixLost(at: d.now))
        d.run(to: 45) { _ in nil }
        #expect(d.cues(.gpsLost) == [20, 30, 40])
        d.run(to: 50) { s in s >= 48 ? 3.0 : nil }
        #expect(d.cues(.gpsBack) == [48])
        #expect(d.cues(.onPace) == [1, 11, 48], "no pace cues while there is no fix")
    }

    @Test func withPositioningOffOnlyPhaseCuesSound() {
        var d = CoachDriver(workout(("a", 60, 2, 3), ("b", 60, 3, 4)), positioning: false)
        d.run(to: 130) { _ in 1.0 }
        #expect(d.cues.map(\.1) == [.phaseChange, .workoutComplete])
        #expect(d.cues.map(\.0) == [60, 120])
    }

    @Test func pauseStopsPhaseTimeAndCues() {
        var d = CoachDriver(workout(("a", 60, 2.5, 3.5), ("b", 60, 2.5, 3.5)), alert: 10)
        d.run(to: 30) { _ in 3.0 }
        d.record(d.coach.pause(at: d.now))
        #expect(d.coach.isPaused)
        d.run(to: 130) { _ in 3.0 }  // fixes while paused are ignored
        d.record(d.coach.resume(at: d.now))
        d.run(to: 230) { _ in 3.0 }
        // 30 s before the pause + 30 s after it: the phase changes at 160, not 60.
        #expect(d.cues(.phaseChange) == [160])
        #expect(d.cues(.workoutComplete) == [220])
        #expect(!d.cues.contains { $0.0 > 30 && $0.0 <= 130 }, "nothing sounds while paused")
    }

    @Test func stopClosesTheCurrentPhase() throws {
        var d = CoachDriver(workout(("a", 600, 2.5, 3.5)), alert: 10)
        d.run(to: 100) { _ in 3.0 }
        let out = d.coach.stop(at: d.now)
        let result = try #require(out.compactMap { if case .phaseFinished(let r) = $0 { r } else { nil } }.first)
        #expect(result.duration == .seconds(100))
        #expect(result.timeInBand == .seconds(99))  // on pace from the first fix at 1 s
        #expect(!out.contains(.workoutCompleted))
        #expect(d.coach.finished)
        #expect(d.coach.tick(at: CoachDriver.t(200)).isEmpty)
    }

    @Test func statusShowsTheSpeedNeededForThePhasesDistance() {
        // 10 minutes at 3 m/s implies 1800 m. After 5 minutes with 600 m covered, 1200 m remain
        // in 300 s: 4 m/s needed.
        var d = CoachDriver(workout(("tempo", 600, 2.5, 3.5)))
        var lon = 0.0
        let metresPerDegree = Geodesy.distance(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1))
        _ = d.coach.fix(GeoPoint(latitude: 0, longitude: 0), speed: 2, at: CoachDriver.t(0))
        for s in stride(from: 10, through: 300, by: 10) {
            lon += 20 / metresPerDegree
            _ = d.coach.fix(GeoPoint(latitude: 0, longitude: lon), speed: 2, at: CoachDriver.t(s))
        }
        let status = d.coach.status(at: CoachDriver.t(300))
        #expect(abs(status.phaseDistance - 600) < 0.01)
        #expect(status.phaseTimeLeft == .seconds(300))
        #expect(abs(status.neededSpeed! - 4.0) < 1e-4)
        #expect(status.pace == .slow)
    }

    @Test func phaseResultsTallyTimeInBandAndDistance() {
        var d = CoachDriver(workout(("a", 100, 2.5, 3.5), ("b", 100, 2.5, 3.5)), alert: 10, window: 1)
        d.run(to: 200) { s in s <= 50 || s > 100 ? 3.0 : 2.0 }
        let results = d.outputs.compactMap { if case .phaseFinished(let r) = $0 { r } else { nil } }
        #expect(results.count == 2)
        #expect(results[0].duration == .seconds(100))
        #expect(results[0].timeInBand == .seconds(50))   // on pace from 1 to 51
        #expect(results[1].timeInBand == .seconds(99))   // on pace again from the first fix at 101
    }
}
