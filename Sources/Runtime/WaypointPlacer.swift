import Coaching
import HAL
import PacerCore

/// Where a waypoint press goes: the place the runner was at the press, on a
/// profile whose fixes are 30 or 60 s apart as on one that has a fix every second.
///
/// - At the press the waypoint is stored at once, dated the press, at the receiver's latest
///   fix carried on by its Doppler speed and course for the time since it (at most
///   `maximumDeadReckoning`; not at all below `minimumCourseSpeed`, where the course means
///   nothing). This is the place the press is answered with, and the one that survives a
///   power cut before the next fix: it is committed with the next commit, as any waypoint.
/// - It stays pending until the receiver's next fix; that fix places it where a runner
///   moving evenly between the two fixes was at the press (by time, on the device's own
///   clock), and the stored waypoint is revised to that place (the same row, `revise`).
/// - A loss of fix, the end of the activity, or a next fix more than `maximumGap` after the
///   one before leave the first place as it is. A press without a fix at all is stored at
///   the last known position, marked so, and never revised.
struct WaypointPlacer {
    /// The fix before the press is carried on by its speed and course for at most this long.
    static let maximumDeadReckoning = Duration.seconds(60)
    /// Below this speed (m/s) a fix's course is noise: the waypoint stays at the fix.
    static let minimumCourseSpeed = 0.5
    /// Two fixes further apart than this do not place a press between them.
    static let maximumGap = Duration.seconds(130)

    /// A waypoint stored at the press, waiting for the next fix.
    struct Pending {
        var number: Int
        var activity: Int64
        var waypoint: Waypoint
        var pressedAt: Instant
        var before: Fix
        var beforeArrival: Instant
    }

    private(set) var pending: [Pending] = []

    /// The place at the press, from `fix` (arrived at `arrival`), `now`.
    static func deadReckoned(_ fix: Fix, arrival: Instant, now: Instant) -> GeoPoint {
        let age = min(now - arrival, maximumDeadReckoning)
        guard age > .zero, let speed = fix.speed, speed >= minimumCourseSpeed, speed.isFinite,
              let course = fix.course, course.isFinite
        else { return fix.position }
        return moved(fix.position, metres: speed * age.inSeconds, course: course)
    }

    /// `metres` from `p` towards `course` (degrees true), in the local plane: the few hundred
    /// metres of a dead reckoning.
    static func moved(_ p: GeoPoint, metres: Double, course: Double) -> GeoPoint {
        let (sinC, cosC) = PortableMath.sinCos(course * PortableMath.radians)
        return LocalPlane(origin: p, leastCosine: 1e-6).point(east: metres * sinC, north: metres * cosC)
    }

    /// Waits for the next fix to place `waypoint`.
    mutating func hold(_ p: Pending) {
        pending.append(p)
    }

    /// The receiver's next fix, `fix` at `now`: each pending waypoint pressed before it, at
    /// its place between the fix before the press and this one. Returns them, revised, with
    /// their numbers; they are no longer pending.
    mutating func next(_ fix: Fix, at now: Instant) -> [Pending] {
        var placed: [Pending] = []
        pending.removeAll { p in
            // The same fix the press was placed from (handed on after the press): not the next.
            // Compared as fixes and by the device's clock, not by the receiver's time, which
            // may jump.
            guard fix != p.before, now > p.beforeArrival else { return false }
            let gap = now - p.beforeArrival
            guard gap <= WaypointPlacer.maximumGap else { return true }
            let f = min(1, max(0, (p.pressedAt - p.beforeArrival) / gap))
            var w = p.waypoint
            w.position = WaypointPlacer.between(p.before, fix, f, gap: gap.inSeconds)
            if let a = p.before.altitude, let b = fix.altitude { w.altitude = a + (b - a) * f }
            var revised = p
            revised.waypoint = w
            placed.append(revised)
            return true
        }
        return placed
    }

    /// The fix is lost or the activity ends: the places stored at the presses stay.
    mutating func drop() {
        pending.removeAll()
    }

    /// Where a runner moving from fix `a` to fix `b` in `gap` seconds was a fraction `f` of
    /// the time between them: on the curve that leaves `a` and reaches `b` at their Doppler
    /// velocities (a cubic Hermite curve, in the local plane at `a`), which follows a bend the
    /// straight line between them cuts; on that straight line when a fix has no velocity (no
    /// course, or slower than `minimumCourseSpeed`). Longitudes across the antimeridian are
    /// taken the short way.
    static func between(_ a: Fix, _ b: Fix, _ f: Double, gap: Double) -> GeoPoint {
        let plane = LocalPlane(origin: a.position, leastCosine: 1e-6)
        // b in metres east and north of a.
        let (bx, by) = plane.metres(b.position)
        var x = bx * f, y = by * f
        if let va = velocity(a), let vb = velocity(b) {
            let f2 = f * f, f3 = f2 * f
            let h10 = f3 - 2 * f2 + f, h01 = -2 * f3 + 3 * f2, h11 = f3 - f2
            x = h10 * gap * va.east + h01 * bx + h11 * gap * vb.east
            y = h10 * gap * va.north + h01 * by + h11 * gap * vb.north
        }
        return plane.point(east: x, north: y)
    }

    /// A fix's Doppler velocity, metres per second east and north; nil when it has none.
    private static func velocity(_ fix: Fix) -> (east: Double, north: Double)? {
        guard let speed = fix.speed, speed.isFinite, speed >= minimumCourseSpeed,
              let course = fix.course, course.isFinite else { return nil }
        let (sinC, cosC) = PortableMath.sinCos(course * PortableMath.radians)
        return (speed * sinC, speed * cosC)
    }
}
