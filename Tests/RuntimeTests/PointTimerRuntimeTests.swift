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
        let detail = try rig.store.activities.activity(#require(rig.runtime.status.activityID))
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

    /// Standing from 40 s to 70 s with auto-pause: the points stored while auto-pause makes
    /// sure (41–44 s) read the timer as it ran then; the point stored at the pause carries the
    /// timer wound back to the stop (40 s), and from there on it never reads less (a report caps
    /// the earlier readings at the later ones), nor counts the standing.
    @Test func anAutoPausePointCarriesTheTimerOfTheStop() throws {
        let rig = try Rig(recording(seconds: 200) { s in (40..<70).contains(s) ? 0.0 : 3.0 },
                          plan: plan(("run", 100, 2.5, 3.5)), profile: autoPauseProfile())
        try rig.run()
        let points = try rig.store.activities.activity(#require(rig.runtime.status.activityID)).points
        let timers = try points.map { try #require($0.timer) }
        let last = try #require(points.last { $0.segment == 0 })
        let after = timers[try #require(points.lastIndex { $0.segment == 0 })...]
        #expect(zip(after, after.dropFirst()).allSatisfy { $0 <= $1 }, "\(timers.map(\.inSeconds))")
        #expect(timers.max() == .seconds(99), "100 s of running, none of standing")
        #expect(last.timer == .seconds(40), "the pause's point: \(String(describing: last.timer))")
        let first = try #require(points.first { $0.segment == 1 })
        #expect(first.timer == .seconds(40), "the first point after the resume: \(String(describing: first.timer))")
    }
}
