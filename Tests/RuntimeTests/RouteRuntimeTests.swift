import Coaching
import Foundation
import HAL
import PacerCore
import Runtime
import Simulation
import Storage
import Synchronization
import TestSupport
import Testing

/// The runtime following a route on a replayed recording: the route's events reported, their
/// cues sounded on the buzzer, the route in the status line, `pacer ctl status` and the JSON
/// status.
@Suite("Following a route in the runtime")
struct RouteRuntimeTests {
    /// The recording runs due north from 52° N 4.3° E at 3 m/s for 200 s (600 m); the route
    /// goes 400 m north, then 400 m east: the runner misses the turn.
    static let route = FollowedRoute(
        name: "Turn east", points: [
            GeoPoint(latitude: 52.0, longitude: 4.3), GeoPoint(latitude: 52.0 + 400 / 111_195.0, longitude: 4.3),
            GeoPoint(latitude: 52.0 + 400 / 111_195.0, longitude: 4.3 + 400 / (111_195.0 * cos(52.0 * .pi / 180))),
        ],
        waypoints: [.init(name: "Gate", position: GeoPoint(latitude: 52.0 + 300 / 111_195.0, longitude: 4.3), elevation: 10)])

    @Test("missing a turn: the waypoint announced with its climb, off-route heard, and both in the status")
    func missedTurn() throws {
        let clock = VirtualClock()
        let dir = try makeTemporaryDirectory()
        let path = dir + "/run.nmea"
        try recording(seconds: 200) { _ in 3.0 }.write(toFile: path, atomically: true, encoding: .utf8)
        let buzzer = RecordingBuzzer(clock: clock)
        let events = Mutex<[(t: Double, event: RuntimeEvent, line: String, json: String)]>([])
        let runtime = TestWorkout(
            parts: .init(clock: clock, gps: try NMEAFileSource(path: path, clock: clock), buzzer: buzzer,
                         battery: NoBattery(level: 80), profile: profile(position: 1, alert: 60, window: 3),
                         cues: testCues, log: try PacerStore(directory: dir).activities),
            plan: plan(("steady", 190, 2.5, 3.5)), workoutIndex: 0, route: Self.route,
            onEvent: { event, status in
                let t = (clock.now - Instant.zero).inSeconds
                events.withLock { $0.append((t, event, status.line, event.jsonLine(status: status))) }
            },
            onFinish: { _ in clock.stop() })
        let replies = Mutex<[String]>([])
        clock.schedule(at: Instant.zero + .seconds(100)) { runtime.handle(.status) { r in replies.withLock { $0.append(r) } } }
        clock.schedule(at: Instant.zero + .seconds(170)) { runtime.handle(.status) { r in replies.withLock { $0.append(r) } } }
        try runtime.start()
        clock.runUntilIdle(limit: Instant.zero + .seconds(300))

        let all = events.withLock { $0 }
        let route = all.compactMap { e -> (Double, RouteFollower.Event, String)? in
            if case .route(let r) = e.event { (e.t, r, e.json) } else { nil }
        }
        #expect(route.map { $0.1.kindName } == ["joined", "waypoint-ahead", "waypoint-passed", "off-route"])
        // Gate, 300 m north, is 150 m ahead after 150 m: 50 s; 5 m higher than the receiver's
        // 5 m (the route has no elevations).
        guard case .waypointAhead(_, let name, let distance, let climb) = route[1].1 else { return }
        #expect(name == "Gate" && abs(distance - 150) < 4 && climb == 5)
        #expect(abs(route[1].0 - 50) <= 2)
        let ahead = try EventJSONTests.object(route[1].2)
        #expect(ahead["event"] as? String == "waypoint-ahead" && ahead["climb_m"] as? Double == 5)
        #expect((ahead["ahead_m"] as? Double).map { abs($0 - 150) < 4 } == true, "\(route[1].2)")
        // Every line as `pacer ctl watch` streams it, each key once (a reader keeps only one).
        for line in all.map(\.json) {
            #expect(try StrictJSON.duplicateKeys(line) == [], "\(line)")
        }
        // Off beyond 40 m of the eastward leg's corner: 440 m, 147 s, confirmed at the next fix.
        #expect(abs(route[3].0 - 148) <= 2)
        let off = try EventJSONTests.object(route[3].2)
        let status = try #require(off["status"] as? [String: Any])
        let followed = try #require(status["route"] as? [String: Any])
        #expect(followed["place"] as? String == "off-route" && followed["name"] as? String == "Turn east")
        #expect((followed["off_by_m"] as? Double).map { $0 > 40 && $0 < 45 } == true)

        // The cues sounded, in that order, among the others.
        let routeCues = buzzer.cues.filter { [.waypointAhead, .offRoute, .onRoute, .turnAround, .routeEnd].contains($0) }
        #expect(routeCues == [.waypointAhead, .offRoute])

        // `pacer ctl status`: the next waypoint with its distance and climb before the gate…
        let answers = replies.withLock { $0 }
        #expect(answers.count == 2)
        #expect(answers.first?.contains("route 0.30/0.80 km  left 0.50 km") == true, "\(answers)")
        // …the runner was on the route at 100 s (300 m) and the gate passed; off it at 170 s.
        #expect(answers.last?.contains("OFF ROUTE by") == true, "\(answers)")
        // The status line at the cue before the gate (on pace, 49 s: 147 m in).
        let before = all.first { $0.t >= 20 && $0.t < 50 }?.line
        #expect(before?.contains("route 0.15/0.80 km  next Gate 0.15 km +5 m  left 0.65 km") == true, "\(before ?? "no line")")
    }
}

extension RouteFollower.Event {
    var kindName: String {
        switch self {
        case .joined: "joined"
        case .offRoute: "off-route"
        case .backOnRoute: "on-route"
        case .waypointAhead: "waypoint-ahead"
        case .waypointPassed: "waypoint-passed"
        case .turnAround: "turn-around"
        case .finished: "route-end"
        }
    }
}
