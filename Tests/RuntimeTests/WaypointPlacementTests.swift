import Coaching
import Foundation
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import TestSupport
import Testing

/// Where a waypoint press is stored, against where the runner really was at the press: a
/// recording synthesized on a route with bends, whose every second's true
/// position is known, replayed as each profile's receiver delivers it (high: every second;
/// medium: power-save, one fix per 30 s; low: backup, one per minute), presses at times
/// between fixes.
@Suite("Waypoint placement")
struct WaypointPlacementTests {
    /// A zig-zag of 150 m legs turning 60° left and right: a straight line between two sparse
    /// fixes cuts its corners, as a street does.
    static let route: NMEASynthesisRecipe.Route = {
        var points = [GeoPoint(latitude: 52.0705, longitude: 4.3016)]
        var bearing = 30.0
        for i in 0..<24 {
            points.append(offset(points[points.count - 1], metres: 150, bearing: bearing))
            bearing += i % 2 == 0 ? 60 : -60
        }
        return NMEASynthesisRecipe.Route(points: points, name: "zig-zag")
    }()

    static func offset(_ origin: GeoPoint, metres: Double, bearing: Double) -> GeoPoint {
        let d = metres / Geodesy.earthRadius, b = bearing * .pi / 180
        let lat1 = origin.latitude * .pi / 180, lon1 = origin.longitude * .pi / 180
        let lat2 = asin(sin(lat1) * cos(d) + cos(lat1) * sin(d) * cos(b))
        let lon2 = lon1 + atan2(sin(b) * sin(d) * cos(lat1), cos(d) - sin(lat1) * sin(lat2))
        return GeoPoint(latitude: lat2 * 180 / .pi, longitude: lon2 * 180 / .pi)
    }

    /// Presses (seconds from the start), none on a 30 s or 60 s fix.
    static let presses: [Double] = [37, 52.5, 76, 98, 113, 149, 171.5, 206, 238, 262, 287, 316, 344, 371, 409, 433, 467]

    struct Measured {
        var errors: [Double]
        var maximum: Double { errors.max() ?? .infinity }
        var mean: Double { errors.reduce(0, +) / Double(errors.count) }
    }

    /// Runs the presses on the profile; the stored waypoints' distances from the truth.
    static func measure(mode: GPSPowerMode, position: Int, flush: Int) throws -> Measured {
        let recipe = NMEASynthesisRecipe(
            route: route, start: NMEASynthesisRecipe.defaultStart, rateHz: 1,
            stretches: [.init(.seconds(540), kmh: 11)], seed: 2424, noiseMetres: 2.5, skyEverySeconds: 5)
        var synthesizer = try NMEASynthesizer(recipe)
        var truth: [SynthesizedEpoch] = []
        let bytes = synthesizer.recording { truth.append($0) }
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let clock = VirtualClock()
        let source = try NMEAFileSource(
            path: path, clock: clock, hotStart: .seconds(1), powerSavePeriod: .seconds(position))
        let store = try PacerStore(directory: dir)
        var p = profile(position: position, alert: position, window: 2 * position, flush: flush)
        p.gpsMode = mode
        let runtime = TestWorkout(
            parts: .init(clock: clock, gps: source, buzzer: RecordingBuzzer(clock: clock), battery: NoBattery(),
                         profile: p, cues: testCues, log: store.activities, gpsHotStart: .seconds(1)),
            plan: plan(("run", 500, 2.5, 3.5)), workoutIndex: 0,
            onFinish: { _ in clock.stop() })
        for (i, t) in presses.enumerated() {
            clock.schedule(at: Instant.zero + .milliseconds(Int64(t * 1000))) { runtime.waypoint("W\(i)") }
        }
        try runtime.start()
        clock.run()
        let stored = try store.activities.activity(#require(runtime.status.activityID)).waypoints
        #expect(stored.count == presses.count)
        var errors: [Double] = []
        for (t, w) in zip(presses, stored) {
            // The true position at the press: between the two seconds around it.
            let a = truth[Int(t)].truePosition, b = truth[Int(t) + 1].truePosition
            let f = t - t.rounded(.down)
            let at = GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * f,
                              longitude: a.longitude + (b.longitude - a.longitude) * f)
            errors.append(Geodesy.distance(at, w.position))
            // The press's own time, not its fix's.
            let pressed = NMEASynthesisRecipe.defaultStart.millisecondsSince1970 + Int64(t * 1000)
            #expect(abs(w.time.millisecondsSince1970 - pressed) <= 1000, "W at \(t) s dated \(w.time.iso8601)")
        }
        return Measured(errors: errors)
    }

    static func report(_ name: String, _ m: Measured) {
        print("waypoint placement \(name): mean \(String(format: "%.1f", m.mean)) m, max \(String(format: "%.1f", m.maximum)) m over \(m.errors.count) presses: \(m.errors.map { String(format: "%.0f", $0) }.joined(separator: " "))")
    }

    /// A press between two sparse fixes is stored at once, at the fix before it carried on by
    /// its speed and course, and committed with the next commit: a power cut before the next
    /// fix leaves it there. The next fix places it again, in the same row.
    @Test func aPressIsCommittedBeforeTheNextFixPlacesIt() throws {
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try recording(seconds: 200) { _ in 3.0 }.write(toFile: path, atomically: true, encoding: .utf8)
        let clock = VirtualClock()
        let source = try NMEAFileSource(path: path, clock: clock, powerSavePeriod: .seconds(30))
        let store = try PacerStore(directory: dir)
        var p = profile(position: 30, alert: 30, window: 60, flush: 5)
        p.gpsMode = .powerSave
        let runtime = TestWorkout(
            parts: .init(clock: clock, gps: source, buzzer: RecordingBuzzer(clock: clock), battery: NoBattery(),
                         profile: p, cues: testCues, log: store.activities),
            plan: plan(("run", 150, 2.5, 3.5)), workoutIndex: 0, onFinish: { _ in clock.stop() })
        clock.schedule(at: Instant.zero + .seconds(45)) { runtime.waypoint("Gate") }
        try runtime.start()
        // The runner heads north at 3 m/s: at second s they are 3 (s + 1) m from 52° N.
        func north(_ w: Waypoint) -> Double { (w.position.latitude - 52) * 111_195 }
        clock.runUntilIdle(limit: Instant.zero + .seconds(52))
        let id = try #require(runtime.status.activityID)
        let cut = try #require(try store.activities.activity(id).waypoints.first, "committed at 50 s, before the fix at 60 s")
        #expect(abs(north(cut) - 138) < 5, "carried on from the fix at 30 s: \(north(cut)) m")
        #expect(cut.time.millisecondOfDay == Int32((7 * 3600 + 45) * 1000))
        clock.run()
        let placed = try store.activities.activity(id).waypoints
        #expect(placed.count == 1)
        #expect(abs(north(placed[0]) - 138) < 3, "between the fixes at 30 and 60 s: \(north(placed[0])) m")
        #expect(placed[0].time == cut.time)
    }

    @Test func onHighAPressIsStoredWithin10MetresOfTheRunner() throws {
        let m = try Self.measure(mode: .tracking, position: 10, flush: 10)
        Self.report("high", m)
        #expect(m.maximum <= 10)
    }

    @Test func onMediumAPressIsStoredWithin25MetresOfTheRunner() throws {
        let m = try Self.measure(mode: .powerSave, position: 30, flush: 30)
        Self.report("medium", m)
        #expect(m.maximum <= 25)
    }

    @Test func onLowAPressIsStoredNearTheRunner() throws {
        let m = try Self.measure(mode: .backup, position: 60, flush: 60)
        Self.report("low", m)
        #expect(m.maximum <= 30)
    }
}
