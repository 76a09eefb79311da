import Coaching
import PacerCore
import Testing

@Suite("Odometer")
struct OdometerTests {
    static let metresPerDegree = Geodesy.distance(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1))
    static func east(_ m: Double, north: Double = 0) -> GeoPoint {
        GeoPoint(latitude: north / metresPerDegree, longitude: m / metresPerDegree)
    }
    static func t(_ s: Double) -> Instant { Instant.zero + .milliseconds(Int64(s * 1000)) }

    /// Dense fixes count their Doppler speeds over the leg's time, not the straight line
    /// between two noisy positions; without speeds, the straight line.
    @Test func denseFixesCountTheirDopplerSpeeds() {
        var o = Odometer()
        #expect(o.add(Self.east(0), speed: 3, at: Self.t(0)) == nil, "the first fix closes no leg")
        let leg = o.add(Self.east(3, north: 4), speed: 3, at: Self.t(1))
        #expect(abs((leg?.length ?? 0) - 3) < 1e-6, "3 m/s for 1 s, though the positions are 5 m apart")
        #expect(abs(o.distance - 3) < 1e-6)
        #expect(o.movingTime == .seconds(1))
        var blind = Odometer()
        blind.add(Self.east(0), speed: nil, at: Self.t(0))
        let line = blind.add(Self.east(3, north: 4), speed: nil, at: Self.t(1))
        #expect(abs((line?.length ?? 0) - 5) < 1e-6)
    }

    /// A minute at 3 m/s east at 1 Hz, the positions jittering 2 m north and south in turn:
    /// the straight lines would sum to 3.6 m a second (+20 %); the Doppler speeds say 180 m.
    @Test func positionJitterAtOneHertzAddsNoDistance() {
        var o = Odometer()
        var chords = 0.0
        for s in 0...60 {
            let p = Self.east(3 * Double(s), north: s % 2 == 0 ? -1 : 1)
            if s > 0 { chords += Geodesy.distance(Self.east(3 * Double(s - 1), north: s % 2 == 0 ? 1 : -1), p) }
            o.add(p, speed: 3, at: Self.t(Double(s)))
        }
        #expect(chords > 200)
        #expect(abs(o.distance - 180) < 1e-6, "\(o.distance)")
    }

    /// A sparse leg from 11 to 8.4 km/h (a runner who slowed somewhere in the 30 s) against a
    /// band of 10 to 12 km/h: in band while the speed is above 10 km/h, the first 38 % of the
    /// leg, not wholly out by its mean (9.7 km/h). Two ends 0.3 km/h apart (the Doppler
    /// speeds' noise at a steady pace) are judged by their mean against a narrow band.
    @Test func timeInBandFollowsAChangeOfPaceThroughALeg() throws {
        let kmh = 1 / 3.6
        var o = Odometer()
        o.add(Self.east(0), speed: 11 * kmh, at: Self.t(0))
        let slowingLeg = o.add(Self.east(30 * 9.7 * kmh), speed: 8.4 * kmh, at: Self.t(30))
        let slowing = try #require(slowingLeg)
        let band = (10 * kmh)...(12 * kmh)
        let share = slowing.timeInBand(band, from: Self.t(0), to: Self.t(30)).inSeconds / 30
        #expect(abs(share - 1.0 / 2.6) < 0.001, "\(share)")
        #expect(slowing.timeInBand(band, from: Self.t(15), to: Self.t(30)) == .zero, "past 11.5 s the runner is under 10 km/h")
        #expect(abs(slowing.closingSpeed - 8.4 * kmh) < 1e-9, "what is carried on past the leg: the last fix's speed")

        var steady = Odometer()
        steady.add(Self.east(0), speed: 11.9 * kmh, at: Self.t(0))
        let noisyLeg = steady.add(Self.east(30 * 11.75 * kmh), speed: 11.55 * kmh, at: Self.t(30))
        let noisy = try #require(noisyLeg)
        #expect(noisy.timeInBand((11.6 * kmh)...(12 * kmh), from: Self.t(0), to: Self.t(30)) == .seconds(30))
        #expect(abs(noisy.closingSpeed - 11.725 * kmh) < 1e-3, "the mean, not the noisy last speed")
    }

    /// Standing still, the position wanders but the Doppler speed does not: no distance.
    @Test func standingStillCountsNothing() {
        var o = Odometer()
        for s in 0..<60 {
            o.add(Self.east(Double(s % 3), north: Double(s % 2)), speed: 0.1, at: Self.t(Double(s)))
        }
        #expect(o.distance == 0)
        #expect(o.movingTime == .zero)
        #expect(o.maximumSpeed == 0)
    }

    /// Fixes 30 s apart on a path that bends: the Doppler speeds say more than the chord.
    @Test func sparseFixesAreEstimatedFromTheirDopplerSpeeds() {
        var o = Odometer()
        o.add(Self.east(0), speed: 3, at: Self.t(0))
        // 60 m apart as the crow flies; 3 m/s for 30 s is 90 m along the streets.
        let leg = o.add(Self.east(60), speed: 3, at: Self.t(30))
        #expect(abs((leg?.length ?? 0) - 90) < 1e-6)
        // Never shorter than the straight line less two positions' noise (10 m), whatever the
        // speeds say.
        let straight = o.add(Self.east(60 + 120), speed: 3, at: Self.t(60))
        #expect(abs((straight?.length ?? 0) - 110) < 1e-6)
        #expect(abs(o.distance - 200) < 1e-6)
    }

    /// A leg across a phase's end is run at one end's speed before the end and the other's
    /// after, and bounded by the straight line exactly as any sparse leg is (less two
    /// positions' noise): the same run measures the same whether or not a phase ended in it.
    /// On synthesized runs (against their recipe's path) and the real trail at 1 Hz (against
    /// its watch's odometer) the full straight line at a phase's end read long (docs/figures.md).
    @Test func aLegAcrossAPhasesEndIsBoundedLikeAnyOther() {
        func leg(change: Instant?) -> Double {
            var o = Odometer()
            o.add(Self.east(0), speed: 3, at: Self.t(0))
            // 3 m/s for 10 s, then 2.5 m/s for 20 s: 80 m by the speeds; the positions 86 m apart.
            return o.add(Self.east(86), speed: 2.5, at: Self.t(30), paceChangeAt: change)?.length ?? 0
        }
        #expect(abs(leg(change: Self.t(10)) - 80) < 1e-6, "\(leg(change: Self.t(10)))")
        #expect(abs(leg(change: nil) - 82.5) < 1e-6, "without a phase's end, the mean speed")
        // A straight line longer than the speeds allow by more than the noise still bounds it.
        var o = Odometer()
        o.add(Self.east(0), speed: 3, at: Self.t(0))
        let long = o.add(Self.east(100), speed: 2.5, at: Self.t(30), paceChangeAt: Self.t(10))
        #expect(abs((long?.length ?? 0) - 90) < 1e-6)
    }

    /// A gap while the runner stood: 74 s of silence while the runner stood, the two fixes
    /// 9.5 m apart at 3.05 and 0.67 m/s. The mean speed over the gap would be 137.6 m; the
    /// watch counted 0.2 m. With an end nearly standing, the positions bound the leg.
    @Test func aGapWithAStandingEndAddsLittleMoreThanItsStraightLine() {
        var o = Odometer()
        o.add(Self.east(0), speed: 3.05, at: Self.t(0))
        let leg = o.add(Self.east(9.5), speed: 0.67, at: Self.t(74))
        let length = leg?.length ?? .infinity
        #expect(length >= 9.5 - 1e-6, "never shorter than the straight line")
        #expect(length < 15, "\(length) m")
        #expect(abs(o.distance - length) < 1e-9)
        // Running at both ends, the same gap is a loop run through the outage: the mean speed.
        var loop = Odometer()
        loop.add(Self.east(0), speed: 3.05, at: Self.t(0))
        let ran = loop.add(Self.east(9.5), speed: 2.9, at: Self.t(74))
        #expect(abs((ran?.length ?? 0) - (3.05 + 2.9) / 2 * 74) < 1e-6)
        // Stopping at a light on a straight street: the straight line, whatever the bound.
        var light = Odometer()
        light.add(Self.east(0), speed: 3, at: Self.t(0))
        let stopped = light.add(Self.east(60), speed: 0.2, at: Self.t(30))
        #expect(abs((stopped?.length ?? 0) - 60) < 1e-6)
    }

    @Test func aSpeedNoRunnerRunsIsIgnored() {
        var o = Odometer()
        o.add(Self.east(0), speed: 3, at: Self.t(0))
        o.add(Self.east(3), speed: 60, at: Self.t(1))
        #expect(o.maximumSpeed == 3)
        #expect(abs(o.distance - 3) < 1e-6, "the straight line, not a 60 m/s estimate")
    }

    /// Between fixes a reading carries the last fix's speed on; a settled reading is kept
    /// when the next leg turns out shorter, and readings never go backwards.
    @Test func readingsExtrapolateAndSettledOnesStand() {
        var o = Odometer()
        o.add(Self.east(0), speed: 2, at: Self.t(0))
        o.add(Self.east(20), speed: 2, at: Self.t(10))
        #expect(abs(o.reading(at: Self.t(15)) - 30) < 1e-6)
        #expect(abs(o.settle(at: Self.t(16)) - 32) < 1e-6)
        // The next fix says only 8.75 m were run by 17 s (5 m apart, 2 slowing to 0.5 m/s over
        // 7 s): the 12 m settled stand, and the 6 s settled are not counted twice as moving.
        o.add(Self.east(25), speed: 0.5, at: Self.t(17))
        #expect(abs(o.distance - 32) < 1e-6)
        #expect(o.movingTime == .seconds(17))
    }

    @Test func noLegRunsAcrossABreak() {
        var o = Odometer()
        o.add(Self.east(0), speed: 2, at: Self.t(0))
        o.add(Self.east(2), speed: 2, at: Self.t(1))
        o.settle(at: Self.t(2))
        o.breakPath()
        #expect(abs(o.distance - 4) < 1e-6, "the runner ran on to the pause")
        #expect(o.movingTime == .seconds(2), "moving to the pause too")
        #expect(o.add(Self.east(500), speed: 2, at: Self.t(100)) == nil)
        #expect(abs(o.distance - 4) < 1e-6)
    }

    /// The share of a leg run by an instant, the speed changing steadily between its ends.
    @Test func aLegIsSplitByTimeAtItsSpeeds() throws {
        var o = Odometer()
        o.add(Self.east(0), speed: 2, at: Self.t(0))
        let added = o.add(Self.east(90), speed: 4, at: Self.t(30))
        let leg = try #require(added)
        // 2 m/s rising to 4 m/s over 30 s: 90 m; by 15 s, 2 × 15 + 2/30 × 15² / 2 = 37.5 m.
        #expect(abs(leg.length(until: Self.t(15)) - 37.5) < 1e-6)
        #expect(leg.length(until: Self.t(-5)) == 0)
        #expect(abs(leg.length(until: Self.t(40)) - 90) < 1e-6)
    }
}

@Suite("The next workout of a plan")
struct NextWorkoutTests {
    let plan = TrainingPlan(
        name: "p", deadline: CivilDate(year: 2026, month: 6, day: 30),
        workouts: ["a", "b", "c"].map { Workout(name: $0, phases: [Phase(name: "run", duration: .seconds(60), minimumSpeed: 2, maximumSpeed: 3)]) })
    let june = CivilDate(year: 2026, month: 6, day: 1)!

    @Test func theFirstWorkoutNotCompletedComesNext() {
        #expect(plan.nextWorkout(done: [], on: june) == .workout(0))
        #expect(plan.nextWorkout(done: [0, 2], on: june) == .workout(1))
        #expect(plan.nextWorkout(done: [0, 1, 2], on: june) == .allDone)
    }

    @Test func anExpiredPlanOffersNothing() {
        let deadline = CivilDate(year: 2026, month: 6, day: 30)!
        #expect(plan.nextWorkout(done: [], on: deadline) == .workout(0), "the deadline's own day still counts")
        #expect(plan.nextWorkout(done: [], on: CivilDate(year: 2026, month: 7, day: 1)!) == .expired(deadline: deadline))
    }
}
