import Coaching
import PacerCore
import Storage
import Testing

/// An activity as laps (`ActivityLaps`, issue 26), on a made-up recording whose phase
/// changes fall between its points (a point every 30 s, phases of 45 s and 75 s) and which
/// pauses within a phase.
@Suite("Activity laps")
struct ActivityLapsTests {
    static let t0: Int64 = 1_777_705_200_000

    /// Points every 30 s at 3 m/s on the timer; a 60 s pause after the point at timer 60 s
    /// (segment 1's point at timer 90 s); the run ends at timer 120 s, 30 s past the last
    /// stored point, at 360 m.
    static func detail(state: ActivityState = .completed) -> ActivityDetail {
        var points: [TrackPoint] = []
        for (i, timer) in [0, 30, 60, 90].enumerated() {
            let paused: Int64 = timer > 60 ? 60_000 : 0
            points.append(TrackPoint(
                segment: timer > 60 ? 1 : 0, time: UTCTimestamp(millisecondsSince1970: t0 + Int64(timer) * 1000 + paused),
                position: GeoPoint(latitude: 52 + Double(i) * 0.0008, longitude: 4.3), altitude: 5, speed: 3,
                timer: .seconds(timer), distance: Double(timer) * 3))
        }
        let phases = [
            PhaseResult(index: 0, name: "warm-up", duration: .seconds(45), timeInBand: .seconds(45), distance: 135,
                        minimumSpeed: 3, maximumSpeed: 3),
            PhaseResult(index: 1, name: "recovery jog", duration: .seconds(75), timeInBand: .seconds(75), distance: 225,
                        minimumSpeed: 3, maximumSpeed: 3),
        ]
        let summary = ActivitySummary(
            id: 1, name: "Laps", plan: nil, workout: nil, profile: "medium", startedAt: UTCTimestamp(millisecondsSince1970: t0),
            endedAt: UTCTimestamp(millisecondsSince1970: t0 + 180_000), state: state, activeTime: .seconds(120),
            source: nil, distance: 360, elapsedTime: .seconds(180), movingTime: .seconds(120), maximumSpeed: 3,
            elevationGain: 0, elevationLoss: 0, minimumElevation: 5, maximumElevation: 5, pointCount: points.count)
        return ActivityDetail(summary: summary, points: points, waypoints: [], cues: [], phaseResults: phases,
                              statistics: ActivityStatistics(points: points))
    }

    @Test func phaseChangesBetweenPointsAndAPauseWithinALap() {
        let export = ActivityLaps.laps(of: Self.detail())
        let laps = export.laps
        #expect(laps.count == 2)
        #expect(laps.map(\.distance) == [135, 225])
        #expect(laps.map(\.totalTime) == [.seconds(45), .seconds(75)])
        #expect(laps.map(\.resting) == [false, true])
        #expect(laps.map(\.trigger) == [.time, .time])
        // The second lap starts when the timer read 45 s: 15 s after the point at 30 s.
        #expect(laps[1].start.millisecondsSince1970 == Self.t0 + 45_000)
        // Its points: the one at 60 s, then after the pause the one at 90 s, then the
        // odometer's reading at the end (timer 120 s, 30 s after the last point), alone.
        #expect(laps[0].tracks.map(\.count) == [2])
        #expect(laps[1].tracks.map(\.count) == [1, 2])
        let end = laps[1].tracks[1][1]
        #expect(end.position == nil && end.distance == 360)
        #expect(end.time.millisecondsSince1970 == Self.t0 + 180_000)
        // Within their laps' distances, never going back.
        #expect(laps[0].tracks.joined().allSatisfy { (0...135).contains($0.distance ?? -1) })
        #expect(laps[1].tracks.joined().allSatisfy { (135...360).contains($0.distance ?? -1) })
        #expect(export.report.storedPoints == 4 && export.report.segments == 3)
    }

    @Test func aRunStoppedBeforeItsEndEndsWithAManualLap() {
        var detail = Self.detail(state: .stopped)
        detail.phaseResults.removeLast()
        let laps = ActivityLaps.laps(of: detail).laps
        // The warm-up by its time; the rest of the run, 75 s and 225 m, by the runner.
        #expect(laps.map(\.trigger) == [.time, .manual])
        #expect(laps.map(\.distance) == [135, 225])
        #expect(laps[1].name == nil && laps[1].totalTime == .seconds(75))
    }

    @Test func speedsAndElevationsLeftOutAreNotInTheLaps() {
        let laps = ActivityLaps.laps(of: Self.detail(), options: GPXExportOptions(speeds: false, elevations: false)).laps
        #expect(laps.allSatisfy { $0.maximumSpeed == nil })
        #expect(laps.flatMap { $0.tracks.joined() }.allSatisfy { $0.speed == nil && $0.altitude == nil })
    }

    /// Issue 39, item 6: every lap's fastest was its phase's band top (3.389 m/s where the
    /// run's fastest record was 3.166 m/s). It is the fastest the runner ran in the lap.
    @Test func aLapsFastestIsTheRunnersNotItsBandsTop() {
        var detail = Self.detail()
        for i in detail.phaseResults.indices {
            detail.phaseResults[i].minimumSpeed = 2.5
            detail.phaseResults[i].maximumSpeed = 3.389
        }
        for (i, speed) in [2.9, 3.1, 3.05, 2.8].enumerated() { detail.points[i].speed = speed }
        let laps = ActivityLaps.laps(of: detail).laps
        #expect(laps.map(\.maximumSpeed) == [3.1, 3.05])
    }
}
