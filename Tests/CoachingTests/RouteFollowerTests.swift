import Coaching
import Foundation
import PacerCore
import Testing

/// Places in metres east and north of a point in Zürich.
enum Plane {
    static let origin = GeoPoint(latitude: 47.37, longitude: 8.54)

    static func point(_ x: Double, _ y: Double) -> GeoPoint {
        let lat = origin.latitude + y / Geodesy.earthRadius * 180 / .pi
        let lon = origin.longitude + x / (Geodesy.earthRadius * cos(origin.latitude * .pi / 180)) * 180 / .pi
        return GeoPoint(latitude: lat, longitude: lon)
    }

    static func route(_ xy: [(Double, Double)], waypoints: [(String, Double, Double, Double?)] = [],
                      elevations: [Double?] = []) -> FollowedRoute {
        FollowedRoute(
            name: "test", points: xy.map { point($0.0, $0.1) }, elevations: elevations,
            waypoints: waypoints.map { .init(name: $0.0, position: point($0.1, $0.2), elevation: $0.3) })
    }
}

/// Runs a runner along a path (metres, in the plane) at a steady speed, a fix every `every`
/// seconds, through a follower; keeps its events with the second they came and its progress.
struct RouteRun {
    var follower: RouteFollower
    var events: [(t: Double, event: RouteFollower.Event)] = []
    var progress: [(t: Double, along: Double)] = []
    var t = 0.0

    init(_ route: FollowedRoute, settings: RouteFollower.Settings = .standard) {
        follower = RouteFollower(route: route, settings: settings)
    }

    /// Runs the path's legs in order at `speed` m/s; `offset` moves each fix sideways (noise).
    mutating func run(_ path: [(Double, Double)], speed: Double = 3, every: Double = 1,
                      offset: (Double) -> (Double, Double) = { _ in (0, 0) }) {
        var legs: [(from: (Double, Double), to: (Double, Double), length: Double)] = []
        for i in 1..<path.count {
            let a = path[i - 1], b = path[i]
            legs.append((a, b, ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()))
        }
        let total = legs.reduce(0) { $0 + $1.length }
        var covered = 0.0
        while covered <= total + 1e-9 {
            var rest = covered
            var here = path[path.count - 1]
            for leg in legs {
                if rest <= leg.length {
                    let f = leg.length > 0 ? rest / leg.length : 0
                    here = (leg.from.0 + f * (leg.to.0 - leg.from.0), leg.from.1 + f * (leg.to.1 - leg.from.1))
                    break
                }
                rest -= leg.length
            }
            let o = offset(t)
            let fixEvents = follower.fix(Plane.point(here.0 + o.0, here.1 + o.1), speed: speed,
                                         at: Instant.zero + .milliseconds(Int64(t * 1000)))
            events += fixEvents.map { (t, $0) }
            progress.append((t, follower.progress.along))
            t += every
            covered += speed * every
        }
    }

    func count(_ match: (RouteFollower.Event) -> Bool) -> Int { events.filter { match($0.event) }.count }
    var offRoutes: Int { count { if case .offRoute = $0 { true } else { false } } }
    var backOns: Int { count { if case .backOnRoute = $0 { true } else { false } } }
    var finishes: Int { count { if case .finished = $0 { true } else { false } } }
    var turnArounds: Int { count { if case .turnAround = $0 { true } else { false } } }
    /// The largest distance between the progress and the distance run at `speed`, for a
    /// runner who runs the route itself from its start (until its last 20 m: progress stops
    /// at the finish).
    func largestError(speed: Double = 3) -> Double {
        progress.filter { $0.t * speed < follower.length - 20 }.map { abs($0.along - $0.t * speed) }.max() ?? 0
    }

    /// The largest step forward of the progress between two fixes.
    var largestStep: Double {
        zip(progress, progress.dropFirst()).map { $1.along - $0.along }.max() ?? 0
    }
}

@Suite("Route following")
struct RouteFollowerTests {
    @Test("An out-and-back: the return leg lies on the outbound one, yet progress never jumps to it")
    func outAndBack() {
        let route = Plane.route([(0, 0), (500, 0), (1000, 0), (500, 0), (0, 0)])
        var run = RouteRun(route)
        #expect(run.follower.turnArounds.count == 1 && abs(run.follower.turnArounds[0] - 1000) < 1)
        run.run([(0, 0), (1000, 0), (0, 0)], offset: { t in (0, 4 * sin(t / 7)) })
        #expect(run.offRoutes == 0)
        #expect(run.turnArounds == 1)
        #expect(run.finishes == 1)
        // 3 m a second: a step of more than 3 m plus noise would be a jump along the route.
        #expect(run.largestStep < 10)
        #expect(run.largestError() < 10)
        // At 200 s the runner is 600 m out (not 1,400 m in, on the way back).
        let at200 = run.progress.first { $0.t == 200 }!.along
        #expect(abs(at200 - 600) < 10)
        let turn = run.events.first { if case .turnAround = $0.event { true } else { false } }!
        #expect(abs(turn.t - 1000.0 / 3) < 10)
    }

    @Test("Fixes 30 s (90 m) apart: the turn-around is still heard, and the return leg still told from the outbound one")
    func sparseOutAndBack() {
        let route = Plane.route([(0, 0), (500, 0), (1000, 0), (500, 0), (0, 0)])
        var run = RouteRun(route)
        run.run([(0, 0), (1000, 0), (0, 0)], every: 30, offset: { t in (0, 4 * sin(t / 7)) })
        #expect(run.offRoutes == 0)
        #expect(run.turnArounds == 1)
        // The last fix, 1,980 m in, is 20 m short of the end.
        #expect(abs(run.follower.progress.left - 20) < 8)
        #expect(run.largestError() < 10)
        // 330 s: 990 m out; 360 s: 1,080 m, on the way back (920 m from the start, not 920 m in).
        #expect(abs(run.progress.first { $0.t == 360 }!.along - 1080) < 10)
    }

    @Test("The end between two fixes a minute apart: heard at the fix after it, and a runner coming back is not off the route by 1 m")
    func endBetweenSparseFixes() {
        let route = Plane.route([(0, 0), (1000, 0)])
        var run = RouteRun(route)
        // 180 m a fix: 900 m, then 1,000 m and back to 920 m, then on back down the route.
        run.run([(0, 0), (1000, 0), (500, 0)], every: 60)
        #expect(run.finishes == 1)
        #expect(run.offRoutes == 0)
        let end = run.events.first { if case .finished = $0.event { true } else { false } }!
        #expect(end.t == 360)
    }

    @Test("The end between two fixes 30 s apart, the runner carrying on past it onto another part of the route: the end, not off-route")
    func endPassedOntoAnotherPartOfTheRoute() {
        // A hook: east 600 m, north 300 m, west 300 m, south 240 m to the end, 60 m short of
        // the first leg. 93 m a fix: 1,395 m in (45 m before the end), then 48 m past it,
        // 12 m from the first leg, then along the first leg, away from the end.
        let route = Plane.route([(0, 0), (600, 0), (600, 300), (300, 300), (300, 60)])
        var run = RouteRun(route, settings: RouteFollower.Settings(offRoute: 40, backOn: 20, waypointAhead: 200))
        run.run([(0, 0), (600, 0), (600, 300), (300, 300), (300, 0), (600, 0)], speed: 3.1, every: 30)
        #expect(run.finishes == 1)
        #expect(run.offRoutes == 0)
        let end = run.events.first { if case .finished = $0.event { true } else { false } }
        #expect(end?.t == 480, "at the fix 48 m past the end")
        #expect(run.follower.progress.place == .finished)
    }

    @Test("A loop that ends where it starts, with sparse fixes: the end is not heard at the start")
    func loopEndNotHeardAtTheStart() {
        let route = Plane.route([(0, 0), (300, 0), (300, 300), (0, 300), (0, 0)])
        var run = RouteRun(route)
        // From the start, which is the end: the first leg leaves from it. Round the loop and
        // 60 m on past the end: the fixes at 390 s and 420 s straddle it.
        run.run([(0, 0), (300, 0), (300, 300), (0, 300), (0, 0), (0, -60)], every: 30)
        #expect(run.finishes == 1)
        let end = run.events.first { if case .finished = $0.event { true } else { false } }
        #expect(end?.t == 420, "at the end of the loop, not at its start: \(String(describing: end))")
    }

    @Test("A figure-eight (a bow tie) crossing itself: at the crossing, progress stays on the branch being run")
    func figureEight() {
        // A bow tie: two diagonals joined by two sides; the diagonals cross at (0, 0), 141 m and
        // 624 m along the route.
        let route = Plane.route([(-100, -100), (100, 100), (100, -100), (-100, 100), (-100, -100)])
        var run = RouteRun(route)
        run.run([(-100, -100), (100, 100), (100, -100), (-100, 100), (-100, -100)], speed: 3,
                offset: { t in (3 * sin(t / 5), 3 * cos(t / 3)) })
        #expect(run.offRoutes == 0)
        #expect(run.finishes == 1)
        // Corners of 135° pull a noisy fix onto the next side for a few metres; the other branch
        // is 480 m away.
        #expect(run.largestStep < 20)
        #expect(run.largestError() < 15)
        // The second pass through the crossing (at 624 m, 208 s) is not taken for the first.
        let at208 = run.progress.first { $0.t == 208 }!.along
        #expect(abs(at208 - 624) < 10)
        // And the first pass (47 s, 141 m) did not jump ahead to the second.
        let at48 = run.progress.first { $0.t == 48 }!.along
        #expect(abs(at48 - 144) < 10)
        #expect(run.follower.turnArounds.isEmpty)
    }

    @Test("A wrong turn and back: one off-route cue, one back-on cue, progress held while away")
    func wrongTurn() {
        let route = Plane.route([(0, 0), (1000, 0)])
        var run = RouteRun(route)
        // Out 400 m, 150 m down a side street and back, then on to the end.
        run.run([(0, 0), (400, 0), (400, 150), (400, 0), (1000, 0)])
        #expect(run.offRoutes == 1)
        #expect(run.backOns == 1)
        #expect(run.finishes == 1)
        let off = run.events.first { if case .offRoute = $0.event { true } else { false } }!
        // Off beyond 40 m (confirmed at the second fix): about 14 to 15 s after the turn at 133 s.
        #expect(off.t > 133 + 13 && off.t < 133 + 17)
        guard case .offRoute(let by, let along) = off.event else { return }
        #expect(by > 40 && by < 50)
        #expect(abs(along - 400) < 45)
        let back = run.events.first { if case .backOnRoute = $0.event { true } else { false } }!
        // Back within 20 m: 130 m of the way back, at about 133 + 50 + 43 s.
        #expect(abs(back.t - (133 + 50 + 43.5)) < 2)
    }

    @Test("A runner on the edge of the corridor does not flicker: off beyond 40 m, back within 20 m")
    func hysteresis() {
        let route = Plane.route([(0, 0), (2000, 0)])
        var run = RouteRun(route)
        // Swinging between 25 m and 45 m from the line, a 60 s period.
        run.run([(0, 0), (1500, 0)], offset: { t in (0, t < 30 ? 0 : 35 + 10 * sin(t / 60 * 2 * .pi)) })
        #expect(run.offRoutes == 1)
        #expect(run.backOns == 0)
        #expect(run.finishes == 0)
    }

    @Test("One fix thrown 60 m off by multipath is no wrong turn; with sparse fixes one fix is enough")
    func singleFixOff() {
        let route = Plane.route([(0, 0), (1000, 0)])
        var dense = RouteRun(route)
        dense.run([(0, 0), (600, 0)], offset: { t in t == 100 ? (0, 60) : (0, 0) })
        #expect(dense.offRoutes == 0)
        var sparse = RouteRun(route)
        sparse.run([(0, 0), (600, 0)], every: 30, offset: { t in t == 90 ? (0, 60) : (0, 0) })
        #expect(sparse.offRoutes == 1)
        #expect(sparse.backOns == 1)
    }

    @Test("Waypoints: announced once each, 150 m ahead, with their distance and climb, then passed")
    func waypoints() {
        let route = Plane.route(
            [(0, 0), (500, 0), (1000, 0)],
            waypoints: [("Bridge", 700, 5, 430), ("Fountain", 300, -3, nil)],
            elevations: [400, 410, 420])
        var run = RouteRun(route)
        #expect(run.follower.placed.map(\.waypoint.name) == ["Fountain", "Bridge"])
        run.run([(0, 0), (1000, 0)], speed: 2.5)
        let aheads = run.events.compactMap { e -> (Double, String, Double, Double?)? in
            if case .waypointAhead(_, let name, let distance, let climb) = e.event { (e.t, name, distance, climb) } else { nil }
        }
        #expect(aheads.map(\.1) == ["Fountain", "Bridge"])
        // Fountain: 300 m in, 3 m off the line, no elevation of its own: the route's 406 m.
        #expect(abs(aheads[0].2 - 153) < 3.5)
        #expect(abs(aheads[0].3! - (406 - 402.9)) < 0.3)
        // Bridge: 700 m in, 5 m off; it says 430 m, the runner is at the route's 410.9 m.
        #expect(abs(aheads[1].2 - 155) < 3.5)
        #expect(abs(aheads[1].3! - (430 - 410.9)) < 0.3)
        let passed = run.count { if case .waypointPassed = $0 { true } else { false } }
        #expect(passed == 2)
        // The progress lists what is left: nothing at the end.
        #expect(run.follower.progress.ahead.isEmpty)
        #expect(run.follower.progress.place == .finished)
    }

    @Test("Progress shows the next waypoint, the distance left, and the distance to the start before joining")
    func progress() {
        let route = Plane.route([(0, 0), (1000, 0)], waypoints: [("Gate", 800, 0, nil)])
        var follower = RouteFollower(route: route)
        #expect(follower.progress.place == .approaching(toStart: nil))
        _ = follower.fix(Plane.point(-300, 0), speed: 3, at: .zero)
        guard case .approaching(let toStart) = follower.progress.place else {
            Issue.record("not approaching: \(follower.progress.place)")
            return
        }
        #expect(abs(toStart! - 300) < 1)
        let joined = follower.fix(Plane.point(-10, 0), speed: 3, at: .zero + .seconds(97))
        #expect(joined.count == 1)
        _ = follower.fix(Plane.point(200, 0), speed: 3, at: .zero + .seconds(167))
        let p = follower.progress
        #expect(p.place == .onRoute)
        #expect(abs(p.along - 200) < 1)
        #expect(abs(p.left - 800) < 1)
        #expect(p.ahead.map(\.name) == ["Gate"])
        #expect(abs(p.ahead[0].distance - 600) < 1)
    }

    @Test("A runner who joins the route in its middle hears nothing of what lies behind")
    func joinInTheMiddle() {
        let route = Plane.route([(0, 0), (500, 0), (1000, 0), (500, 0), (0, 0)],
                                waypoints: [("Behind", 100, 0, nil), ("Ahead", 900, 0, nil)])
        var run = RouteRun(route)
        run.run([(600, 40), (600, 0), (1000, 0)])
        let names = run.events.compactMap { e -> String? in
            switch e.event {
            case .waypointAhead(_, let name, _, _): "ahead:" + name
            case .waypointPassed(_, let name): "passed:" + name
            default: nil
            }
        }
        #expect(names == ["ahead:Ahead", "passed:Ahead"])
        #expect(run.turnArounds == 1)
    }

    @Test("A route across the antimeridian is one line")
    func antimeridian() {
        let route = FollowedRoute(name: "dateline", points: [
            GeoPoint(latitude: -16.8, longitude: 179.995), GeoPoint(latitude: -16.8, longitude: -179.995),
        ])
        let follower = RouteFollower(route: route)
        #expect(abs(follower.length - 1065) < 5)
        var f = follower
        let e = f.fix(GeoPoint(latitude: -16.8, longitude: 180.0), speed: 3, at: .zero)
        #expect(e == [.joined(along: f.progress.along)])
        #expect(abs(f.progress.along - 532) < 5)
    }
}
