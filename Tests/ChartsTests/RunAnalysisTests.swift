@testable import Charts
import Coaching
import PacerCore
import Testing

/// The points on the runner's timer, legs against the bands, kilometre splits.
@Suite("Run analysis")
struct RunAnalysisTests {
    static func phase(_ index: Int, seconds: Int64, band: ClosedRange<Double>) -> PhaseResult {
        PhaseResult(index: index, name: "p\(index)", duration: .seconds(seconds), timeInBand: .seconds(seconds),
                    distance: 0, minimumSpeed: band.lowerBound, maximumSpeed: band.upperBound)
    }

    @Test func withoutPausesTheTimerIsTheTimeSinceTheStartAndLegsAreJudgedByTheirPhase() {
        let points = northbound(count: 10, speed: 3, start: morning)
        let run = RunAnalysis(activity(points: points, phases: [
            Self.phase(0, seconds: 60, band: 2.5...3.5), Self.phase(1, seconds: 40, band: 3.6...4),
        ]))
        #expect(run.onTimer)
        #expect(run.seconds == (0..<10).map { Double($0) * 10 })
        #expect(run.phases.map(\.start) == [0, 60] && run.phases.map(\.end) == [60, 100])
        // Legs ending at 10…50 s end in the first phase (in band at 3 m/s), the rest in the
        // second (too slow for 3.6 m/s); the first point ends no leg.
        #expect(run.legClasses == [.unbanded, .inBand, .inBand, .inBand, .inBand, .inBand, .slow, .slow, .slow, .slow])
    }

    /// A jog or a heart-rate phase has no pace band (stored 0…0): its legs are not "faster
    /// than the band".
    @Test func aPhaseWithoutAPaceBandJudgesNoLeg() {
        let points = northbound(count: 10, speed: 3, start: morning)
        let run = RunAnalysis(activity(points: points, phases: [
            Self.phase(0, seconds: 60, band: 0...0), Self.phase(1, seconds: 40, band: 2.5...3.5),
        ]))
        #expect(run.legClasses == [.unbanded, .unbanded, .unbanded, .unbanded, .unbanded, .unbanded, .inBand, .inBand, .inBand, .inBand])
    }

    @Test func aPauseByHandIsLeftOutAndTheRunningAfterTheResumeIsPutBack() {
        // Running 0…50 s; paused by hand at 50 s (the timer's reading), resumed at 115 s of
        // wall time; the next position update at 120 s. Elapsed 170 s, timer 105 s.
        let before = northbound(count: 6, speed: 3, start: morning)
        let after = northbound(count: 6, from: before.last!.position.latitude + 0.0001, speed: 3,
                               start: morning.adding(seconds: 120), segment: 1)
        var input = activity(points: before + after,
                             cues: [CueRecord(elapsed: .seconds(50), cue: "paused", phase: nil),
                                    CueRecord(elapsed: .seconds(50), cue: "resumed", phase: nil)],
                             timer: .seconds(105))
        input.elapsedTime = .seconds(170)
        let run = RunAnalysis(input)
        #expect(run.seconds == [0, 10, 20, 30, 40, 50, 55, 65, 75, 85, 95, 105])
    }

    @Test func anAutoPauseResumesAtTheTimersReadingWhenTheRunnerStopped() {
        // Standing from 40 s; auto-paused at 45 s (a point there), the timer held at 40 s;
        // auto-resumed at the fix of 100 s, the first of the next segment.
        let before = northbound(count: 5, speed: 3, start: morning)
            + [TrackPoint(segment: 0, time: morning.adding(seconds: 45), position: GeoPoint(latitude: 52.0011, longitude: 4.3),
                          altitude: 10, speed: 0)]
        let after = northbound(count: 3, from: 52.0012, speed: 3, start: morning.adding(seconds: 100), segment: 1)
        var input = activity(points: before + after,
                             cues: [CueRecord(elapsed: .seconds(40), cue: "paused", phase: nil),
                                    CueRecord(elapsed: .seconds(40), cue: "resumed", phase: nil)],
                             timer: .seconds(60))
        input.elapsedTime = .seconds(120)
        let run = RunAnalysis(input)
        #expect(run.seconds == [0, 10, 20, 30, 40, 40, 40, 50, 60])
    }

    @Test func anImportHasNoTimerAndNoBands() {
        let points = northbound(count: 5, speed: 3, start: morning)
        let run = RunAnalysis(activity(points: points, phases: [Self.phase(0, seconds: 60, band: 2.5...3.5)],
                                       source: "run.gpx"))
        #expect(!run.onTimer)
        #expect(run.phases.isEmpty)
        #expect(run.legClasses.allSatisfy { $0 == .unbanded })
    }

    @Test func splitsAndKilometreMarksFollowTheStoredTrack() {
        // 3 m/s for 400 s: 1200 m; the first kilometre at 333.3 s.
        let run = RunAnalysis(activity(points: northbound(count: 41, speed: 3, start: morning)))
        let splits = run.splits
        #expect(splits.count == 2)
        #expect(abs(splits[0].seconds - 1000.0 / 3) < 0.5)
        #expect(splits[0].distance == 1000)
        #expect(abs(splits[1].distance - 200) < 0.5 && abs(splits[1].seconds - 200.0 / 3) < 0.5)
        let marks = run.kilometreMarks
        #expect(marks.count == 1)
        #expect(abs(Geodesy.distance(run.points[0].position, marks[0].position) - 1000) < 0.5)
    }

    @Test func pointsAcrossTheAntimeridianAreInterpolatedTheShortWay() {
        let p = RunAnalysis.between(GeoPoint(latitude: -16.8, longitude: 179.999), GeoPoint(latitude: -16.8, longitude: -179.999), 0.5)
        #expect(abs(abs(p.longitude) - 180) < 1e-9)
    }
}
