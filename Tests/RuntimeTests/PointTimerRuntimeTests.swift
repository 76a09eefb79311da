import Coaching
import Foundation
import HAL
import PacerCore
import Testing

/// The runtime stores each track point with the coach's timer and odometer there (R20), so a
/// report's splits and pauses need not be rebuilt from the points.
@Suite("Device runtime: timer and distance per point")
struct PointTimerRuntimeTests {
    /// Running 3 m/s, paused by hand from 30 s to 60 s: every point carries the timer, which
    /// leaves the 30 s out exactly, and the odometer's distance, 3 m for each second of it.
    @Test func eachPointCarriesTheTimerAndTheOdometer() throws {
        let rig = try Rig(recording(seconds: 200) { _ in 3.0 }, plan: plan(("run", 100, 2.5, 3.5)),
                          profile: profile(position: 1, alert: 60, window: 3))
        let runtime = rig.runtime
        rig.clock.schedule(at: Instant.zero + .seconds(30)) { runtime.pause() }
        rig.clock.schedule(at: Instant.zero + .seconds(60)) { runtime.resume() }
        try rig.run()
        let detail = try rig.store.activity(#require(rig.runtime.status.activityID))
        let points = detail.points
        #expect(points.count == 100, "one a second for the 100 s run")
        let timers = points.compactMap(\.timer), distances = points.compactMap(\.distance)
        try #require(timers.count == points.count && distances.count == points.count, "every point has both")
        #expect(zip(timers, timers.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 <= $1 })
        // The wall clock less the timer: constant within a segment, 30 s more after the pause.
        let offsets = points.map { Double($0.time.millisecondsSince1970) / 1000 - $0.timer!.inSeconds }
        let before = Set(zip(points, offsets).filter { $0.0.segment == 0 }.map(\.1))
        let after = Set(zip(points, offsets).filter { $0.0.segment == 1 }.map(\.1))
        #expect(before.count == 1 && after.count == 1, "\(before) \(after)")
        #expect(after.first! - before.first! == 30)
        for (t, d) in zip(timers, distances) { #expect(abs(d - 3 * t.inSeconds) < 3.5, "\(t): \(d) m") }
        #expect(timers.last! <= detail.summary.activeTime!)
        #expect(distances.last! <= detail.summary.distance + 1e-9)
    }
}
