import Coaching
import Companion
import PacerCore
import Storage
import TestSupport
import Testing

/// Which of the athlete's heart-rate zones a report counts a run in (`PacerStore.heartRateZones(at:)`).
@Suite struct ReportZonesTests {
    let folder = TemporaryDirectory()

    static func time(_ hours: Int64) -> UTCTimestamp {
        UTCTimestamp(millisecondsSince1970: 1_777_705_200_000 + hours * 3_600_000)
    }

    static func runner(maximum: Int?) -> AthleteProfile {
        AthleteProfile(weight: 70, height: 178, weeklyFrequency: 4, hasRaced: false, hasRunMarathon: false,
                       heartRate: HeartRateFigures(maximum: maximum))
    }

    @Test func theZonesInForceWhenTheRunStartedElseTheCurrentOnes() throws {
        let store = try PacerStore(directory: folder.path + "/data")
        #expect(try store.heartRateZones(at: Self.time(0)) == nil, "no profile: no zones")
        try store.athlete.setAthlete(Self.runner(maximum: nil), at: Self.time(0))
        try store.athlete.setAthlete(Self.runner(maximum: 180), at: Self.time(10))
        try store.athlete.setAthlete(Self.runner(maximum: 190), at: Self.time(20))
        let at180 = HeartRateZones.percentOfMaximum(180, estimated: false)
        let at190 = HeartRateZones.percentOfMaximum(190, estimated: false)
        #expect(try store.heartRateZones(at: Self.time(15)) == at180, "the figures of the run's day")
        #expect(try store.heartRateZones(at: Self.time(25)) == at190)
        #expect(try store.heartRateZones(at: Self.time(5)) == at190, "none then: the current ones")
        #expect(try store.heartRateZones(at: nil) == at190, "no start: the current ones")
    }
}
