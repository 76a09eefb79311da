import Coaching
import PacerCore
import Testing

@Suite("Narrow bands")
struct PaceCoachNarrowBandTests {
    /// A goal-pace phase of 11.6-12.0 km/h (0.11 m/s wide, narrower than twice the default
    /// 0.1 m/s hysteresis): a runner who was too slow and comes up to 11.8 km/h, the middle
    /// of the band, is on pace again.
    @Test func aRunnerInTheMiddleOfANarrowBandIsOnPace() {
        let phase = Phase(name: "goal pace", duration: .seconds(600), minimumSpeed: 11.6 / 3.6, maximumSpeed: 12.0 / 3.6)
        var coach = PaceCoach(
            workout: Workout(name: "w", phases: [phase]),
            settings: CoachSettings(alertInterval: .seconds(30), smoothingWindow: .seconds(10)))
        var cues: [(Int, Cue)] = []
        func record(_ out: [CoachOutput], _ t: Int) {
            for case .cue(let c, _) in out { cues.append((t, c)) }
        }
        let t0 = Instant.zero
        record(coach.start(at: t0), 0)
        var north = 0.0
        for s in 1...120 {
            let v = s < 40 ? 10.0 / 3.6 : 11.8 / 3.6
            north += v
            let at = t0 + .seconds(s)
            record(coach.fix(GeoPoint(latitude: 52 + north / 111_195, longitude: 4), speed: v, at: at), s)
            record(coach.tick(at: at), s)
        }
        #expect(cues.first?.1 == .speedUp)
        let after = cues.filter { $0.0 > 60 }.map(\.1)
        #expect(after.contains(.onPace))
        #expect(!after.contains(.speedUp) && !after.contains(.slowDown), "\(cues)")
    }
}
