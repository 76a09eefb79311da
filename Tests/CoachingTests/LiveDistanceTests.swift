import Coaching
import PacerCore
import Testing

/// The live distance (what the status shows and the announcements say) never runs backwards:
/// what was carried on from the last fix and shown stands through a loss of fix, a leg that
/// turns out shorter, a pause and the end; the legs themselves are not lengthened by it.
@Suite("Live distance")
struct LiveDistanceTests {
    static let metresPerDegree = Geodesy.distance(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1))
    static func east(_ m: Double) -> GeoPoint { GeoPoint(latitude: 0, longitude: m / metresPerDegree) }
    static func t(_ s: Double) -> Instant { Instant.zero + .milliseconds(Int64(s * 1000)) }

    /// A coach on a power-save receiver's cadence: a position update every 30 s.
    struct Run {
        var coach = PaceCoach(workout: workout(("steady", 600, 2.5, 3.5), ("easy", 300, 1.5, 2.5)),
                              settings: CoachSettings(alertInterval: .seconds(60), smoothingWindow: .seconds(30)))
        /// The status's distance, each second looked at.
        var shown: [(second: Int, metres: Double)] = []

        init() { _ = coach.start(at: .zero) }

        mutating func look(_ from: Int, _ to: Int) {
            for s in from...to {
                _ = coach.tick(at: LiveDistanceTests.t(Double(s)))
                shown.append((s, coach.status(at: LiveDistanceTests.t(Double(s))).distance))
            }
        }

        mutating func fix(_ s: Int, at metres: Double, speed: Double) {
            _ = coach.fix(LiveDistanceTests.east(metres), speed: speed, at: LiveDistanceTests.t(Double(s)))
        }

        func distance(at s: Int) -> Double { coach.status(at: LiveDistanceTests.t(Double(s))).distance }

        /// Every time the figure fell from one look (or input) to the next.
        var falls: [String] {
            zip(shown, shown.dropFirst()).compactMap { a, b in
                b.metres < a.metres ? "\(a.metres) m at \(a.second) s, \(b.metres) m at \(b.second) s" : nil
            }
        }
    }

    /// Fixes every 30 s at 3 m/s to 120 s (360 m); the receiver goes quiet and is declared lost
    /// at 160 s, 40 s after its last fix (as the power-save receiver is): the status carried
    /// the speed on for one cadence (30 s, to 450 m at 150 s) and waited for the overdue fix;
    /// at the loss it must not fall back to the 360 m of the last fix (the waypoints
    /// scenario's 0.712 km falling to 0.590 km). The fix at 190 s measures the leg across the
    /// loss (210 m): the figure goes on from there, no more than the legs.
    @Test func aLossOfFixNeverTakesTheDistanceBack() {
        var r = Run()
        for s in stride(from: 0, through: 120, by: 30) {
            r.fix(s, at: 3 * Double(s), speed: 3)
            r.look(s, s + 29)
        }
        #expect(abs(r.distance(at: 149) - 447) < 1e-6)
        #expect(abs(r.distance(at: 159) - 450) < 1e-6, "carried on for one cadence, then waiting for the fix")
        _ = r.coach.fixLost(at: Self.t(160))
        r.look(160, 189)
        #expect(abs(r.distance(at: 160) - 450) < 1e-6, "what was shown up to the loss stands")
        #expect(abs(r.distance(at: 189) - 450) < 1e-6, "nothing more is carried on while lost")
        r.fix(190, at: 570, speed: 3)
        r.look(190, 200)
        #expect(abs(r.distance(at: 190) - 570) < 1e-6, "the leg across the loss counts, no more")
        #expect(abs(r.coach.odometer.distance - 570) < 1e-6)
        #expect(r.falls.isEmpty, "\(r.falls)")
    }

    /// The runner slows between two updates: 60 s at 3 m/s carried on would be 450 m at 150 s,
    /// the fix there says 435 m (3 slowing to 2 m/s). The figure holds at 450 m until the
    /// legs pass it (at 157.5 s); the legs stay the legs.
    @Test func aShorterLegThanWasCarriedOnHoldsTheFigure() {
        var r = Run()
        for s in stride(from: 0, through: 120, by: 30) {
            r.fix(s, at: 3 * Double(s), speed: 3)
            r.look(s, s + 29)
        }
        r.fix(150, at: 435, speed: 2)
        #expect(abs(r.coach.odometer.distance - 435) < 1e-6)
        #expect(abs(r.distance(at: 150) - 450) < 1e-6, "450 m was shown at 150 s")
        r.look(150, 179)
        #expect(abs(r.distance(at: 155) - 450) < 1e-6, "held while the legs catch up (435 + 2 × 5)")
        #expect(abs(r.distance(at: 165) - 465) < 1e-6, "theirs again once past it (435 + 2 × 15)")
        r.fix(180, at: 495, speed: 2)
        r.look(180, 200)
        #expect(abs(r.distance(at: 180) - 495) < 1e-6)
        #expect(r.falls.isEmpty, "\(r.falls)")
    }

    /// Through a loss, a pause (dated back or not), a resume, a phase's end and the end of the
    /// workout, the figure never falls, and the last one is the phases' sum.
    @Test func theFigureNeverFallsThroughAWholeWorkout() {
        var r = Run()
        var phases: [Int: Double] = [:]
        func keep(_ out: [CoachOutput]) {
            for o in out {
                switch o {
                case .phaseFinished(let p), .phaseRevised(let p): phases[p.index] = p.distance
                default: break
                }
            }
        }
        var metres = 0.0
        var s = 0
        // 3 m/s, a slower stretch (2.2 m/s) from 180 s, a loss from 270 to 330 s, a pause from
        // 390 s (the runner stopped at 380 s) to 450 s, then 3 m/s to the end (970 s: 900 s
        // of phases and 70 s paused).
        while s <= 960 {
            let speed: Double = (180..<240).contains(s) ? 2.2 : 3
            if (270..<330).contains(s) {
                if s == 270 { keep(r.coach.fixLost(at: Self.t(Double(s)))) }
            } else if s == 390 {
                keep(r.coach.pause(at: Self.t(Double(s)), stoppedAt: Self.t(380)))
            } else if (390..<450).contains(s) {
                // Standing, paused.
            } else {
                if s == 450 { keep(r.coach.resume(at: Self.t(Double(s)))) }
                keep(r.coach.fix(Self.east(metres), speed: speed, at: Self.t(Double(s))))
            }
            for k in s..<(s + 30) {
                keep(r.coach.tick(at: Self.t(Double(k))))
                r.shown.append((k, r.coach.status(at: Self.t(Double(k))).distance))
            }
            if !(390..<450).contains(s) { metres += speed * 30 }
            s += 30
        }
        #expect(r.coach.finished)
        #expect(r.falls.isEmpty, "\(r.falls)")
        let total = r.coach.status(at: Self.t(1000)).distance
        #expect(abs(phases.values.reduce(0, +) - total) < 1e-6, "\(phases) against \(total)")
    }
}

@Suite("Odometer: what was shown is held")
struct OdometerHoldTests {
    static func t(_ s: Double) -> Instant { Instant.zero + .seconds(s) }

    /// A reading carries the speed on for one cadence (the last leg's 30 s); a loss holds
    /// what it reached; the leg across the loss is measured as before when fixes return.
    @Test func aLossHoldsTheReadingAndStopsCarryingOn() {
        var o = Odometer()
        o.add(LiveDistanceTests.east(0), speed: 3, at: Self.t(0))
        o.add(LiveDistanceTests.east(90), speed: 3, at: Self.t(30))
        #expect(abs(o.reading(at: Self.t(50)) - 150) < 1e-6)
        #expect(abs(o.reading(at: Self.t(70)) - 180) < 1e-6, "the fix due at 60 s is overdue: not guessed at")
        o.fixLost(at: Self.t(70))
        #expect(abs(o.reading(at: Self.t(100)) - 180) < 1e-6, "nothing carried on while lost")
        #expect(abs(o.settledReading - 180) < 1e-6)
        // The runner stood in the tunnel: the fix at 130 s is 30 m on, and the legs say 135 m
        // (across a stop at most half as long again as the straight line); the figure stays
        // at what was shown, never back.
        o.add(LiveDistanceTests.east(120), speed: 0.2, at: Self.t(130))
        #expect(abs(o.distance - 135) < 1e-6, "the legs: 90 m, then 30 m × 1.5 at most across a stop")
        #expect(abs(o.reading(at: Self.t(131)) - 180) < 1e-6)
    }

    /// A step-down to the backup mode: the receiver, which gave a fix every 30 s, is put to
    /// sleep for a minute; the figure carries the speed on for that minute, not for 30 s only,
    /// and the next fix's distance is no jump.
    @Test func aLongerSleepTheFirmwareOrderedIsCarriedOnAcross() {
        var o = Odometer()
        o.add(LiveDistanceTests.east(0), speed: 3, at: Self.t(0))
        o.add(LiveDistanceTests.east(90), speed: 3, at: Self.t(30))
        #expect(abs(o.reading(at: Self.t(80)) - 180) < 1e-6, "the cadence so far: 30 s")
        o.receiverSleeps(until: Self.t(90))
        #expect(abs(o.reading(at: Self.t(80)) - 240) < 1e-6)
        #expect(abs(o.reading(at: Self.t(100)) - 270) < 1e-6, "carried on to the fix due at 90 s, no further")
        o.add(LiveDistanceTests.east(270), speed: 3, at: Self.t(90))
        #expect(abs(o.reading(at: Self.t(90)) - 270) < 1e-6)
    }

    /// Holding a reading does not lengthen the legs: once they pass it, the figure is theirs.
    @Test func heldReadingsDoNotLengthenTheLegs() {
        var o = Odometer()
        o.add(LiveDistanceTests.east(0), speed: 3, at: Self.t(0))
        o.add(LiveDistanceTests.east(90), speed: 3, at: Self.t(30))
        o.add(LiveDistanceTests.east(165), speed: 2, at: Self.t(60))  // 180 m was carried on to 60 s
        #expect(abs(o.distance - 165) < 1e-6)
        #expect(abs(o.reading(at: Self.t(60)) - 180) < 1e-6)
        o.add(LiveDistanceTests.east(225), speed: 2, at: Self.t(90))
        #expect(abs(o.distance - 225) < 1e-6)
        #expect(abs(o.reading(at: Self.t(90)) - 225) < 1e-6)
    }
}
