import Coaching
import PacerCore
import Testing

/// Coaching by heart rate: settling, the window, hysteresis, repeats, and what is said when.
@Suite("Heart-rate coach")
struct HeartRateCoachTests {
    /// Karvonen zones from 188 and 52: zone 2 134-146, zone 4 161-173.
    static let zones = HeartRateFigures(maximum: 188, resting: 52).zones!

    /// Feeds one measurement a second from `from` to `to` (seconds) with the rate `bpm(t)`;
    /// the cues with their seconds.
    static func feed(_ coach: inout HeartRateCoach, from: Int, to: Int, _ bpm: (Int) -> Int) -> [(Int, Cue)] {
        var cues: [(Int, Cue)] = []
        for t in from..<to {
            if let j = coach.sample(bpm(t), at: Instant.zero + .seconds(t)) { cues.append((t, j.cue)) }
        }
        return cues
    }

    @Test func zonesAreKarvonensFromMaximumAndResting() {
        #expect(Self.zones.method == .karvonen)
        #expect(Self.zones.range(zone: 2) == 134...146)
        #expect(Self.zones.range(zone: 4) == 161...173)
        #expect(Self.zones.range(zone: 5) == 174...188)
        #expect(Self.zones.zone(of: 150) == 3)
        #expect(Self.zones.zone(of: 100) == 0)
        #expect(Self.zones.zone(of: 195) == 6)
    }

    @Test func theMethodFollowsTheFiguresGiven() {
        #expect(HeartRateFigures(maximum: 190, threshold: 170).zones?.method == .friel)
        // Friel's running zones: Z2 from 85 % of LTHR, Z4 95-99 %, Z5 from 100 %.
        let friel = HeartRateFigures(threshold: 170).zones!
        #expect(friel.range(zone: 2).lowerBound == 145)
        #expect(friel.range(zone: 4) == 162...169)
        #expect(friel.range(zone: 5).lowerBound == 170)
        #expect(HeartRateFigures(maximum: 190).zones?.method == .percentOfMaximum)
        #expect(HeartRateFigures(maximum: 190).zones?.range(zone: 3) == 133...151)
        // Age alone: Tanaka's 208 - 0.7 x age, marked as an estimate.
        let estimate = HeartRateFigures(age: 40).zones!
        #expect(estimate.isEstimate)
        #expect(estimate.maximum == 180)
        #expect(HeartRateFigures().zones == nil)
        #expect(HeartRateFigures(maximum: 180, resting: 150).inconsistency != nil)
    }

    @Test func nothingIsJudgedWhileTheHeartSettles() {
        var coach = HeartRateCoach(zones: Self.zones)
        coach.phaseStarted(Phase(name: "hard", end: .time(.seconds(180)), target: .heartRate(.zone(4))), index: 1, at: .zero)
        // Far above the zone from the start: the first cue waits for the settle (45 s).
        let cues = Self.feed(&coach, from: 0, to: 60) { _ in 185 }
        #expect(cues.first?.0 == 45)
        #expect(cues.first?.1 == .hrHigh)
        #expect(cues.count == 1)
    }

    @Test func aRisingHeartIsNotToldItIsInTheZone() {
        var coach = HeartRateCoach(zones: Self.zones)
        coach.phaseStarted(Phase(name: "hard", end: .time(.seconds(180)), target: .heartRate(.zone(4))), index: 1, at: .zero)
        // Climbing 1 bpm a second through zone 4 (161 at 21 s, 173 at 33 s, 185 at 45 s... ):
        // at 45 s the window's mean is in the zone, but the heart is still rising.
        let cues = Self.feed(&coach, from: 0, to: 90) { t in min(130 + t, 185) }
        #expect(!cues.contains { $0.1 == .hrInZone }, "\(cues)")
        #expect(cues.first?.1 == .hrHigh)
    }

    @Test func aCeilingIsSilentUnderItAndSaysWhenItIsBackUnder() {
        var coach = HeartRateCoach(settings: .init(alertInterval: .seconds(60)), zones: Self.zones)
        coach.phaseStarted(Phase(name: "easy", end: .time(.seconds(3600)), target: .speed(minimum: 2, maximum: 3),
                                 heartRateCeiling: .zoneTop(2)), index: 0, at: .zero)
        #expect(coach.limit == .ceiling(146))
        var cues = Self.feed(&coach, from: 0, to: 300) { _ in 140 }
        #expect(cues.isEmpty)
        // Over it: hr-high once the window's mean passes 146 (12 s in), again a minute later.
        cues = Self.feed(&coach, from: 300, to: 430) { _ in 150 }
        #expect(cues.map(\.0) == [312, 372])
        #expect(cues.map(\.1) == [.hrHigh, .hrHigh])
        #expect(coach.isHigh)
        // 145 is under the ceiling but not 3 bpm under: still high (no flapping at the edge).
        cues = Self.feed(&coach, from: 430, to: 500) { _ in 145 }
        #expect(cues.allSatisfy { $0.1 == .hrHigh })
        #expect(coach.isHigh)
        cues = Self.feed(&coach, from: 500, to: 560) { _ in 141 }
        #expect(cues.map(\.1) == [.hrInZone])
        #expect(!coach.isHigh)
    }

    /// A strap's notifications come a few milliseconds early or late: the reminder is due
    /// at the measurement nearest a minute after the last cue, not a second later.
    @Test func aReminderIsDueAtTheMeasurementNearestTheAlertInterval() {
        var coach = HeartRateCoach(settings: .init(alertInterval: .seconds(60)), zones: Self.zones)
        coach.phaseStarted(Phase(name: "easy", end: .time(.seconds(3600)), target: .speed(minimum: 2, maximum: 3),
                                 heartRateCeiling: .zoneTop(2)), index: 0, at: .zero)
        _ = Self.feed(&coach, from: 0, to: 300) { _ in 140 }
        var cues: [Double] = []
        for t in 300..<400 {
            // the measurement due at 372 (a minute after the first hr-high) comes 20 ms early
            let at = Instant.zero + .milliseconds(t * 1000 - (t == 372 ? 20 : 0))
            if let j = coach.sample(150, at: at), j.cue == .hrHigh { cues.append(at.seconds) }
        }
        #expect(cues == [312, 371.98], "\(cues)")
    }

    @Test func aZoneSaysLowHighAndInZone() {
        var coach = HeartRateCoach(zones: Self.zones)
        coach.phaseStarted(Phase(name: "hard", end: .time(.seconds(600)), target: .heartRate(.zone(4))), index: 3, at: .zero)
        var cues = Self.feed(&coach, from: 0, to: 100) { _ in 150 }
        #expect(cues.first?.1 == .hrLow)
        // A reminder at 105 s (a minute after the first) while the mean still climbs, then in.
        cues = Self.feed(&coach, from: 100, to: 160) { _ in 167 }
        #expect(cues.map(\.1) == [.hrLow, .hrInZone])
        cues = Self.feed(&coach, from: 160, to: 200) { _ in 180 }
        #expect(cues.map(\.1) == [.hrHigh])
    }

    @Test func aLostStrapIsJudgedAgainOnlyOnceItsWindowHasFilled() {
        var coach = HeartRateCoach(zones: Self.zones)
        coach.phaseStarted(Phase(name: "hard", end: .time(.seconds(600)), target: .heartRate(.bpm(minimum: 150, maximum: 160))),
                           index: 0, at: .zero)
        _ = Self.feed(&coach, from: 0, to: 100) { _ in 155 }
        coach.lost()
        coach.back(at: .zero + .seconds(200))
        let cues = Self.feed(&coach, from: 200, to: 260) { _ in 175 }
        #expect(cues.first?.0 == 220, "\(cues)")
    }

    @Test func pausedNothingIsJudgedAndAResumeSettlesAgain() {
        var coach = HeartRateCoach(zones: Self.zones)
        coach.phaseStarted(Phase(name: "z2", end: .time(.seconds(900)), target: .heartRate(.zone(2))), index: 0, at: .zero)
        _ = Self.feed(&coach, from: 0, to: 100) { _ in 140 }
        coach.pause()
        #expect(Self.feed(&coach, from: 100, to: 200) { _ in 100 }.isEmpty)
        coach.resume(at: .zero + .seconds(200))
        let cues = Self.feed(&coach, from: 200, to: 300) { _ in 120 }
        #expect(cues.first?.0 == 245)
    }

    @Test func aZoneTheAthleteHasNotIsNoLimit() {
        var coach = HeartRateCoach(zones: nil)
        coach.phaseStarted(Phase(name: "z2", end: .time(.seconds(900)), target: .heartRate(.zone(2))), index: 0, at: .zero)
        #expect(coach.limit == nil)
        #expect(Self.feed(&coach, from: 0, to: 200) { _ in 190 }.isEmpty)
    }
}
