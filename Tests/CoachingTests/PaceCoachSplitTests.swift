import Coaching
import PacerCore
import Testing

/// A coach with a split distance, fed a fix a second of a runner heading east along the
/// equator, each fix as far from the last as its speed carries them (so the odometer's
/// distance is the speeds' sum).
struct SplitDriver {
    var coach: PaceCoach
    var now = Instant.zero
    var east = 0.0
    var cues: [(Int, Cue)] = []

    init(_ workout: Workout, split: Double?) {
        coach = PaceCoach(workout: workout, settings: CoachSettings(
            alertInterval: .seconds(60), smoothingWindow: .seconds(10), splitDistance: split))
        record(coach.start(at: now))
    }

    mutating func record(_ out: [CoachOutput]) {
        for case .cue(let cue, _) in out { cues.append((Int(now.seconds.rounded()), cue)) }
    }

    /// Seconds `from` through `to` at `speed(s)` m/s: a fix each second (moving `speed` on).
    mutating func run(_ from: Int, _ to: Int, speed: (Int) -> Double) {
        for s in from...to {
            now = Instant.zero + .seconds(s)
            record(coach.tick(at: now))
            let v = speed(s)
            east += v
            record(coach.track(GeoPoint(latitude: 0, longitude: east / metresPerDegree), speed: v, at: now))
        }
    }

    var splits: [Int] { cues.filter { $0.1 == .split }.map(\.0) }
    /// Along the equator, on the odometer's sphere.
    let metresPerDegree = Geodesy.earthRadius * .pi / 180
}

@Suite("Pace coach: splits and auto-pause")
struct PaceCoachSplitTests {
    let long = workout(("steady", 3600, 2.5, 3.5))

    /// At 3 m/s the distance passes 1000 m between 333 s (999 m) and 334 s (1002 m): one split
    /// cue there, one at 2001 m, none twice.
    @Test func aSplitSoundsOnceEachTimeTheDistancePassesAKilometre() {
        var d = SplitDriver(long, split: 1000)
        d.run(0, 700) { _ in 3.0 }
        #expect(d.splits == [334, 667])
        #expect(d.coach.odometer.distance > 2000 && d.coach.odometer.distance < 3000)
    }

    @Test func withoutASplitDistanceNoSplitSounds() {
        var d = SplitDriver(long, split: nil)
        d.run(0, 700) { _ in 3.0 }
        #expect(d.splits.isEmpty)
    }

    /// Paused at 900 m: whatever the fixes say meanwhile, nothing sounds, and the kilometre
    /// is announced when the runner, resumed, gets there.
    @Test func noSplitWhilePaused() {
        var d = SplitDriver(long, split: 1000)
        d.run(0, 300) { _ in 3.0 }
        d.record(d.coach.pause(at: d.now))
        d.run(301, 400) { _ in 3.0 }  // fixes while paused are not counted
        #expect(d.splits.isEmpty)
        d.record(d.coach.resume(at: d.now))
        d.run(401, 500) { _ in 3.0 }
        // 900 m at the pause; the first fix after the resume (401 s) counts the second before
        // it at its speed; 1002 m at 434 s.
        #expect(d.splits == [434])
    }

    /// One leg that passes two kilometres (the fix after an outage the runner ran through)
    /// sounds one split cue, and the next kilometre its own.
    @Test func aLegPassingSeveralKilometresSoundsOnce() {
        var d = SplitDriver(long, split: 1000)
        d.run(0, 10) { _ in 3.0 }
        d.record(d.coach.fixLost(at: Instant.zero + .seconds(11)))
        // 690 s later, 2071 m on: a sparse leg (its length the straight line, a little over the
        // speed's 2070 m), to 2101 m in all.
        d.east += 2071
        d.now = Instant.zero + .seconds(700)
        d.record(d.coach.track(GeoPoint(latitude: 0, longitude: d.east / d.metresPerDegree), speed: 3, at: d.now))
        #expect(d.splits == [700])
        d.run(701, 1000) { _ in 3.0 }
        // 3000 m passed at 2101 + 3 × 300.
        #expect(d.splits == [700, 1000])
    }

    /// A new split distance counts on from the last one announced: 1 km announced, then
    /// splits of 500 m sound at 1.5 km and 2 km, never at 1 km again.
    @Test func aNewSplitDistanceNeverRepeatsOne() {
        var d = SplitDriver(long, split: 1000)
        d.run(0, 400) { _ in 3.0 }
        #expect(d.splits == [334])
        d.coach.change(settings: CoachSettings(
            alertInterval: .seconds(60), smoothingWindow: .seconds(10), splitDistance: 500))
        d.run(401, 700) { _ in 3.0 }
        #expect(d.splits == [334, 500, 667])
    }

    /// An auto-pause made at 105 s for a runner who stopped at 100 s: the timer stops at
    /// 100 s, so the standing seconds are not run time; resumed at 150 s it runs on from there.
    @Test func aPauseDatedBackStopsTheTimerWhenTheRunnerStopped() {
        var d = SplitDriver(long, split: nil)
        d.run(0, 100) { _ in 3.0 }
        d.run(101, 105) { _ in 0.0 }
        d.record(d.coach.pause(at: d.now, stoppedAt: Instant.zero + .seconds(100)))
        #expect(d.coach.elapsed(at: Instant.zero + .seconds(140)) == .seconds(100))
        d.record(d.coach.resume(at: Instant.zero + .seconds(150)))
        #expect(d.coach.elapsed(at: Instant.zero + .seconds(160)) == .seconds(110))
        // 100 s at 3 m/s and the second of braking at its ends' mean (1.5 m); standing adds nothing.
        #expect(abs(d.coach.odometer.distance - 301.5) < 1e-6, "\(d.coach.odometer.distance)")
    }

    /// A pause dated back to before the current phase began stops the timer at the phase's
    /// start: the phase change has sounded and stands.
    @Test func aPauseDatedBackNeverUndoesAPhaseChange() {
        var d = SplitDriver(workout(("one", 60, 2.5, 3.5), ("two", 600, 2.5, 3.5)), split: nil)
        d.run(0, 57) { _ in 3.0 }
        d.run(58, 63) { _ in 0.0 }
        #expect(d.cues.contains { $0.0 == 60 && $0.1 == .phaseChange })
        d.record(d.coach.pause(at: d.now, stoppedAt: Instant.zero + .seconds(58)))
        #expect(d.coach.isPaused)
        #expect(d.coach.elapsed(at: Instant.zero + .seconds(90)) == .seconds(60))
        #expect(d.coach.status(at: Instant.zero + .seconds(90)).phaseIndex == 1)
    }
}
