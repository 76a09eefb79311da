import PacerCore

/// A route to follow (R21, R23): an imported route's line and waypoints, or a recorded
/// activity's track taken as a route.
public struct FollowedRoute: Hashable, Sendable {
    public struct Waypoint: Hashable, Sendable {
        public var name: String
        public var position: GeoPoint
        /// Metres above mean sea level, when the file gives it.
        public var elevation: Double?

        public init(name: String, position: GeoPoint, elevation: Double? = nil) {
            self.name = name
            self.position = position
            self.elevation = elevation
        }
    }

    public var name: String
    /// The line, in the order it is run; at least two points.
    public var points: [GeoPoint]
    /// One per point, or empty when the route has no elevations.
    public var elevations: [Double?]
    public var waypoints: [Waypoint]

    public init(name: String, points: [GeoPoint], elevations: [Double?] = [], waypoints: [Waypoint] = []) {
        self.name = name
        self.points = points
        self.elevations = elevations.count == points.count ? elevations : []
        self.waypoints = waypoints
    }
}

/// Follows a runner along a route by ear (R21, R23): where on the route they are, how far it
/// is to the next waypoint and how much higher or lower it lies, and when they leave the
/// route and come back to it.
///
/// Pure: fed each fix (position, Doppler speed, the instant it arrived), it answers with what
/// happened; the runtime sounds the cues. How a fix is placed on the route (map matching):
/// - The route is a polyline measured along its length. A fix is projected onto every
///   segment near where the runner is expected to be: from a little behind the last place
///   matched to as far ahead as they could have run since (the distance they covered by
///   their Doppler speed or by the straight line between fixes, whichever is longer, half
///   again, plus a margin). Never the nearest vertex of the whole route: a route that crosses
///   itself or doubles back has two places near one fix, and the one far along the route is
///   out of reach.
/// - Of the segments within the off-route distance, the one chosen is the one whose place
///   best fits both the fix (its distance from the line) and the expected progress (the last
///   place plus the distance covered): on an out-and-back the outbound and return legs are
///   both near a fix, and only the distance run tells which one the runner is on.
/// - Off route: no segment within reach lies within `offRoute` metres at two fixes in a row
///   (one fix alone when the fixes are sparse, a position interval apart): one fix thrown off
///   by multipath is not a wrong turn. Back on route: a fix within `backOn` metres of a segment
///   within reach, which grows with the distance run off the route (so a runner who takes
///   another street and joins the route further on is found there). The two thresholds are
///   the hysteresis: a runner at the edge of the corridor does not flicker.
/// - Progress never goes back. The end is reached within `arrival` metres of it, or when the
///   distance run since the last fix reaches past it and the runner is on its last stretch
///   (fixes a minute apart may never fall within a few metres of it), or when the straight
///   leg between two fixes passes within `arrival` metres of it and the distance run since
///   the last place matched reaches it (the fix after it may be off the route's end, on
///   another part of the route).
/// Waypoints are placed on the route where it passes nearest to them (the first such place
/// along the route when it passes them twice). Turn-arounds are the places where the route
/// reverses its direction within a few tens of metres.
public struct RouteFollower: Sendable {
    public struct Settings: Hashable, Sendable {
        /// Metres from the line beyond which the runner is off route.
        public var offRoute: Double
        /// Metres from the line within which an off-route runner is back on it (below
        /// `offRoute`: the hysteresis).
        public var backOn: Double
        /// The waypoint-ahead cue sounds when the next waypoint is this many metres ahead
        /// along the route.
        public var waypointAhead: Double

        public init(offRoute: Double, backOn: Double, waypointAhead: Double) {
            precondition(backOn > 0 && backOn < offRoute, "back-on is within the off-route distance")
            self.offRoute = offRoute
            self.backOn = backOn
            self.waypointAhead = waypointAhead
        }

        public static let standard = Settings(offRoute: 40, backOn: 20, waypointAhead: 150)
    }

    /// What a fix made happen, in order.
    public enum Event: Hashable, Sendable {
        /// The runner reached the route (the first fix on it): `along` metres from its start.
        case joined(along: Double)
        /// The runner left the route: `by` metres from it, last matched `along` metres in.
        case offRoute(by: Double, along: Double)
        /// Back on the route, `along` metres in.
        case backOnRoute(along: Double)
        /// Waypoint `index` (in route order) is `distance` metres ahead along the route;
        /// `climb` metres higher (negative: lower), when elevations are known.
        case waypointAhead(index: Int, name: String, distance: Double, climb: Double?)
        /// The runner passed waypoint `index`.
        case waypointPassed(index: Int, name: String)
        /// The route turns back here.
        case turnAround(along: Double)
        /// The end of the route.
        case finished(length: Double)
    }

    public enum Place: Hashable, Sendable {
        /// Not on the route yet: `toStart` metres from its start (nil: no position yet).
        case approaching(toStart: Double?)
        case onRoute
        /// `by` metres from the line.
        case offRoute(by: Double)
        /// Past its end.
        case finished
    }

    /// A waypoint still ahead.
    public struct Ahead: Hashable, Sendable {
        public var index: Int
        public var name: String
        /// Metres along the route (plus the waypoint's own distance from the line).
        public var distance: Double
        /// Metres higher (negative: lower) than the runner, when elevations are known.
        public var climb: Double?
    }

    /// What the status line and `pacer ctl status` show.
    public struct Progress: Hashable, Sendable {
        public var route: String
        public var length: Double
        public var place: Place
        /// Metres from the route's start to where the runner is on it.
        public var along: Double
        public var left: Double { max(0, length - along) }
        /// The waypoints ahead, nearest first.
        public var ahead: [Ahead]
    }

    /// A waypoint placed on the route.
    public struct PlacedWaypoint: Hashable, Sendable {
        public var waypoint: FollowedRoute.Waypoint
        /// Metres along the route where it passes nearest.
        public var along: Double
        /// Metres from the line to the waypoint.
        public var offset: Double
    }

    public let route: FollowedRoute
    public let settings: Settings
    /// Metres from the route's start to each point.
    public var cumulative: [Double] { line.cumulative }
    public var length: Double { line.cumulative[line.cumulative.count - 1] }
    /// The route's line, measured.
    let line: RouteLine
    /// The waypoints in route order.
    public let placed: [PlacedWaypoint]
    /// Metres along the route of each turn-around.
    public let turnArounds: [Double]

    /// Progress a little behind the last match is still the runner (GPS noise, a step back).
    static let backTolerance = 30.0
    /// Room ahead beyond the distance run, for the error of two fixes.
    static let reachMargin = 50.0
    /// A waypoint, a turn-around or the end is reached this many metres before it.
    static let arrival = 15.0
    /// Fixes further apart than this are sparse: one off-route fix is enough.
    static let sparseFixes = Duration.seconds(5)

    // The runner.
    private(set) var matched: Double?
    private var off: Double?
    private var offPending = false
    private var runSinceMatch = 0.0
    private var last: (position: GeoPoint, at: Instant)?
    private var finished = false
    private var announced: Set<Int> = []
    private var passed: Set<Int> = []
    private var turned: Set<Int> = []
    private var elevationNow: Double?

    public init(route: FollowedRoute, settings: Settings = .standard) {
        precondition(route.points.count >= 2, "a route has at least two points")
        self.route = route
        self.settings = settings
        var cumulative = [0.0]
        cumulative.reserveCapacity(route.points.count)
        for i in 1..<route.points.count {
            cumulative.append(cumulative[i - 1] + Geodesy.distance(route.points[i - 1], route.points[i]))
        }
        let line = RouteLine(points: route.points, cumulative: cumulative)
        self.line = line
        placed = route.waypoints.map { w in
            let best = line.nearest(w.position, in: 0...cumulative[cumulative.count - 1])
            return PlacedWaypoint(waypoint: w, along: best.along, offset: best.distance)
        }.sorted { $0.along < $1.along }
        turnArounds = line.turnArounds(excludingEnd: RouteFollower.reachMargin)
    }

    /// The runner is at `position` (moving at `speed` m/s, when known; `elevation` from the
    /// receiver) at `at`.
    public mutating func fix(_ position: GeoPoint, speed: Double?, elevation: Double? = nil, at: Instant) -> [Event] {
        defer { last = (position, at) }
        var run = 0.0
        var sparse = true
        if let last {
            let dt = max(0, (at - last.at).inSeconds)
            run = max(Geodesy.distance(last.position, position), (speed ?? 0) * dt)
            sparse = at - last.at >= RouteFollower.sparseFixes
        }
        runSinceMatch += run
        var events: [Event] = []

        guard let matched else {
            // Not on the route yet: the first place along it within the back-on distance.
            let candidates = line.projections(position, in: 0...length).filter { $0.distance <= settings.backOn }
            guard let first = candidates.min(by: { $0.along < $1.along }) else { return [] }
            self.matched = first.along
            runSinceMatch = 0
            elevationNow = line.elevation(at: first.along, route.elevations) ?? elevation
            events.append(.joined(along: first.along))
            events += arrivals(from: nil, to: first.along)
            return events
        }
        if finished { return [] }

        // The end passed between two fixes: the leg from the last fix to this one passes
        // within `arrival` of it (fixes 30 s apart may fall 45 m either side of it, and the
        // one after it on another part of the route, or none), and the distance run since
        // the last place matched reaches it. Progress decides, not the place: at the start of
        // a loop or an out-and-back, which ends where it starts, the end is a route away.
        // A fix within `arrival` of the end reaches it below, at its own place.
        let end = route.points[route.points.count - 1]
        if let last, matched + runSinceMatch >= length - RouteFollower.arrival,
           Geodesy.distance(position, end) > RouteFollower.arrival,
           LocalPlane.distance(from: end, toSegment: last.position, position) <= RouteFollower.arrival {
            offPending = false
            off = nil
            self.matched = length
            runSinceMatch = 0
            elevationNow = line.elevation(at: length, route.elevations) ?? elevation
            return arrivals(from: matched, to: length)
        }

        let expected = matched + runSinceMatch
        let reach = max(0, matched - RouteFollower.backTolerance)...min(length, matched + runSinceMatch * 1.5 + RouteFollower.reachMargin)
        let threshold = off == nil ? settings.offRoute : settings.backOn
        let candidates = line.projections(position, in: reach).filter { $0.distance <= threshold }
        guard let best = candidates.min(by: {
            $0.distance + 0.5 * abs($0.along - expected) < $1.distance + 0.5 * abs($1.along - expected)
        }) else {
            // Nothing within reach is near: off route (confirmed by a second fix when fixes are dense).
            elevationNow = elevation
            // How far from the route where the runner could be: a runner going back along it
            // the wrong way is on the line, but not where the route goes on.
            let by = line.nearest(position, in: reach).distance
            if off == nil {
                if offPending || sparse {
                    off = by
                    offPending = false
                    events.append(.offRoute(by: by, along: matched))
                } else {
                    offPending = true
                }
            } else {
                off = by
            }
            return events
        }
        offPending = false
        var along = max(matched, best.along)
        // The end between two sparse fixes: the distance run since the last one reaches past
        // it, and the runner is on its last stretch (coming back from it, or standing there).
        if expected >= length, best.along >= length - runSinceMatch - RouteFollower.reachMargin {
            along = length
        }
        self.matched = along
        runSinceMatch = 0
        elevationNow = line.elevation(at: along, route.elevations) ?? elevation
        if off != nil {
            off = nil
            events.append(.backOnRoute(along: along))
        }
        events += arrivals(from: matched, to: along)
        return events
    }

    /// Waypoints, turn-arounds and the end reached on the way from `previous` to `along`
    /// (metres along the route). Joining the route (`previous` nil), what lies behind is
    /// passed without a word: the runner did not run it.
    private mutating func arrivals(from previous: Double?, to along: Double) -> [Event] {
        var events: [Event] = []
        for (i, p) in placed.enumerated() where !passed.contains(i) {
            let distance = p.along - along
            if distance <= RouteFollower.arrival {
                passed.insert(i)
                announced.insert(i)
                if previous != nil || distance > -RouteFollower.arrival {
                    events.append(.waypointPassed(index: i, name: p.waypoint.name))
                }
            } else if distance <= settings.waypointAhead, !announced.contains(i) {
                announced.insert(i)
                events.append(.waypointAhead(index: i, name: p.waypoint.name, distance: distance + p.offset,
                                             climb: climb(to: p)))
            }
        }
        // A turn-around is heard when the runner reaches it, however far the fix that shows it
        // is past it (fixes a minute apart are 150 m apart).
        for (i, t) in turnArounds.enumerated() where !turned.contains(i) && along >= t - RouteFollower.arrival {
            turned.insert(i)
            if previous != nil { events.append(.turnAround(along: t)) }
        }
        if along >= length - RouteFollower.arrival {
            finished = true
            events.append(.finished(length: length))
        }
        return events
    }

    private func climb(to p: PlacedWaypoint) -> Double? {
        guard let here = elevationNow,
              let there = p.waypoint.elevation ?? line.elevation(at: p.along, route.elevations)
        else { return nil }
        return there - here
    }

    public var progress: Progress {
        let along = matched ?? 0
        let place: Place
        if finished {
            place = .finished
        } else if let off {
            place = .offRoute(by: off)
        } else if matched == nil {
            place = .approaching(toStart: last.map { Geodesy.distance($0.position, route.points[0]) })
        } else {
            place = .onRoute
        }
        let ahead = placed.enumerated().filter { !passed.contains($0.offset) && $0.element.along >= along }.map { i, p in
            Ahead(index: i, name: p.waypoint.name, distance: p.along - along + p.offset, climb: climb(to: p))
        }
        return Progress(route: route.name, length: length, place: place, along: along, ahead: ahead)
    }
}

/// A polyline measured along its length, with projections onto its segments in a local
/// plane per segment (longitude differences wrapped, so a route across the antimeridian is
/// one line).
struct RouteLine {
    let points: [GeoPoint]
    let cumulative: [Double]

    struct Projection {
        var along: Double
        var distance: Double
    }

    /// The projection of `p` onto each segment that overlaps `range` (metres along), clamped
    /// to the range.
    func projections(_ p: GeoPoint, in range: ClosedRange<Double>) -> [Projection] {
        var out: [Projection] = []
        var i = firstSegment(endingAfter: range.lowerBound)
        while i < points.count - 1, cumulative[i] <= range.upperBound {
            let a = points[i], b = points[i + 1]
            let segmentLength = cumulative[i + 1] - cumulative[i]
            let plane = LocalPlane(origin: a)
            let (bx, by) = plane.metres(b)
            let (px, py) = plane.metres(p)
            let squared = bx * bx + by * by
            var t = squared > 0 ? (px * bx + py * by) / squared : 0
            t = min(1, max(0, t))
            var along = cumulative[i] + t * segmentLength
            along = min(range.upperBound, max(range.lowerBound, along))
            let at = segmentLength > 0 ? (along - cumulative[i]) / segmentLength : 0
            let dx = px - at * bx, dy = py - at * by
            out.append(Projection(along: along, distance: (dx * dx + dy * dy).squareRoot()))
            i += 1
        }
        return out
    }

    /// The nearest place within `range`; the first along the line among places equally near
    /// (within a metre).
    func nearest(_ p: GeoPoint, in range: ClosedRange<Double>) -> Projection {
        let all = projections(p, in: range)
        guard let best = all.min(by: { $0.distance < $1.distance }) else { return Projection(along: 0, distance: .infinity) }
        return all.filter { $0.distance <= best.distance + 1 }.min(by: { $0.along < $1.along }) ?? best
    }

    /// The index of the first segment that ends after `along`.
    func firstSegment(endingAfter along: Double) -> Int {
        var lo = 0, hi = points.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid + 1] <= along { lo = mid + 1 } else { hi = mid }
        }
        return min(lo, max(0, points.count - 2))
    }

    /// The point `along` metres from the start.
    func point(at along: Double) -> GeoPoint {
        let i = firstSegment(endingAfter: along)
        let segmentLength = cumulative[i + 1] - cumulative[i]
        let t = segmentLength > 0 ? min(1, max(0, (along - cumulative[i]) / segmentLength)) : 0
        let a = points[i], b = points[i + 1]
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        var lon = a.longitude + t * dLon
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return GeoPoint(latitude: a.latitude + t * (b.latitude - a.latitude), longitude: lon)
    }

    func elevation(at along: Double, _ elevations: [Double?]) -> Double? {
        guard elevations.count == points.count else { return nil }
        let i = firstSegment(endingAfter: along)
        guard let a = elevations[i], let b = elevations[i + 1] else { return elevations[i] ?? elevations[i + 1] }
        let segmentLength = cumulative[i + 1] - cumulative[i]
        let t = segmentLength > 0 ? min(1, max(0, (along - cumulative[i]) / segmentLength)) : 0
        return a + t * (b - a)
    }

    /// Where the line reverses: the direction over the `span` metres before a vertex and the
    /// `span` after it differ by more than 150°. One place per reversal (the sharpest vertex
    /// of a run of them); none within `excludingEnd` metres of either end.
    func turnArounds(excludingEnd: Double, span: Double = 25) -> [Double] {
        guard points.count >= 3 else { return [] }
        let total = cumulative[cumulative.count - 1]
        var found: [(along: Double, angle: Double)] = []
        for i in 1..<(points.count - 1) {
            let s = cumulative[i]
            guard s > excludingEnd, s < total - excludingEnd else { continue }
            let here = points[i]
            let (ux, uy) = LocalPlane(origin: point(at: s - span)).metres(here)
            let (vx, vy) = LocalPlane(origin: here).metres(point(at: s + span))
            let nu = (ux * ux + uy * uy).squareRoot(), nv = (vx * vx + vy * vy).squareRoot()
            guard nu > 1, nv > 1 else { continue }
            let cosine = (ux * vx + uy * vy) / (nu * nv)
            guard cosine < -0.866 else { continue }
            if let previous = found.last, s - previous.along < 2 * span {
                if cosine < previous.angle { found[found.count - 1] = (s, cosine) }
            } else {
                found.append((s, cosine))
            }
        }
        return found.map(\.along)
    }
}
