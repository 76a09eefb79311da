import PacerCore

/// How far a receiver's Doppler speeds read from what its positions say, over the run: the
/// odometer counts the Doppler speeds (they carry none of the positions' jitter), so a
/// receiver whose speeds read 3 % low would shorten every kilometre by 3 %; its positions,
/// compared over tens of seconds, do not share that bias. This is where the two are fused:
/// the positions calibrate the speeds' scale, the speeds give the path's shape
/// (docs/figures.md, "A receiver's speed bias").
///
/// Pairs of (what the speeds say, what the positions say), each a stretch of dense fixes (at
/// most `denseGap` apart) of at least `span`: the displacement the speeds and courses
/// integrate to, against the straight line between its ends' positions. Both are
/// displacements, so a bend bends both alike; only the positions' noise (a few metres over a
/// stretch of 150 m or more) stays, and averages out. Only stretches of at least
/// `minimumLength` by the speeds, the runner moving at `minimumSpeed` or more, count.
/// Sparse fixes (a fix every 30 s) tell nothing here: the path between two of them is
/// unknown, and a bend's worth of it (1 to 2 % on a park's paths) is more than the bias
/// sought; a sparse profile calibrates in its first minutes, tracking
/// (`PowerProfile.calibration`).
///
/// The scale is the least-squares ratio of the positions' lengths to the speeds' (b ≈ k·a),
/// with its standard error from the residuals. It is taken (`factor`) only once it is
/// established: `minimumPairs` stretches, and `k` off 1 by at least `minimumEffect` and by
/// `significance` standard errors; an unbiased receiver's `k` stays within its noise of 1,
/// and its speeds are counted as they are. Never more than `limit` off 1. The residuals
/// overstate the noise (each stretch begins at the fix where the last one ended, so their
/// ends' errors partly cancel over the run): on twelve seeded synthesized runs, five minutes
/// at 1 Hz put an unbiased receiver's `k` within 0.9 % of 1 and at most 1.4 standard errors
/// off, a receiver 3 % low's at 1.027 to 1.040 and at least 2.3 off (docs/figures.md).
public struct DopplerScale: Sendable {
    public struct Parameters: Hashable, Sendable {
        /// A dense stretch is at least this long in time.
        public var span: Duration = .seconds(60)
        /// Fixes further apart than this end a dense stretch (the odometer's dense gap).
        public var denseGap: Duration = .milliseconds(2500)
        /// A stretch counts when the speeds say it is at least this long (metres).
        public var minimumLength: Double = 50
        /// And the runner moved at least this fast at every fix of it (m/s).
        public var minimumSpeed: Double = 1.5
        /// Stretches needed before the scale is taken.
        public var minimumPairs: Int = 4
        /// Standard errors by which the scale must be off 1.
        public var significance: Double = 2
        /// A scale closer to 1 than this is not taken.
        public var minimumEffect: Double = 0.01
        /// The scale taken is at most this far off 1.
        public var limit: Double = 0.1

        public init() {}
    }

    public var parameters: Parameters
    private var pairs = 0
    private var sab = 0.0, saa = 0.0, sbb = 0.0
    /// The dense stretch under way: where it began, and the displacement (east, north) its
    /// speeds integrate to so far.
    private var anchor: (at: Instant, position: GeoPoint)?
    private var east = 0.0, north = 0.0
    private var previous: (at: Instant, position: GeoPoint, speed: Double, course: Double)?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// The stretches compared so far.
    public var count: Int { pairs }

    /// The least-squares scale and its standard error; nil before two stretches.
    public var estimate: (scale: Double, standardError: Double)? {
        guard pairs >= 2, saa > 0 else { return nil }
        let k = sab / saa
        let residuals = max(0, sbb - 2 * k * sab + k * k * saa)
        return (k, (residuals / Double(pairs - 1)).squareRoot() / saa.squareRoot())
    }

    /// The factor the receiver's speeds are multiplied by: 1 until a bias is established.
    public var factor: Double {
        guard pairs >= parameters.minimumPairs, let (k, se) = estimate else { return 1 }
        let off = abs(k - 1)
        guard off >= parameters.minimumEffect, off >= parameters.significance * se else { return 1 }
        return min(max(k, 1 - parameters.limit), 1 + parameters.limit)
    }

    /// A fix with its Doppler speed (m/s) and course (degrees); either missing ends the
    /// stretch under way.
    public mutating func add(_ position: GeoPoint, speed: Double?, course: Double?, at t: Instant) {
        guard let speed, let course, speed.isFinite, course.isFinite else {
            breakStretch()
            return
        }
        defer { previous = (t, position, speed, course) }
        guard let last = previous, t > last.at else {
            restart(at: t, position)
            return
        }
        let gap = t - last.at
        let moving = min(speed, last.speed) >= parameters.minimumSpeed
        // A sparse leg ends the stretch under way: no stretch runs across it.
        guard gap <= parameters.denseGap, moving, let start = anchor else {
            restart(at: t, position)
            return
        }
        // The two ends' velocities, averaged over the leg.
        let seconds = gap.inSeconds
        for (v, c) in [(last.speed, last.course), (speed, course)] {
            let (sine, cosine) = PortableMath.sinCos(c * PortableMath.radians)
            east += v * sine * seconds / 2
            north += v * cosine * seconds / 2
        }
        if t - start.at >= parameters.span {
            let byspeeds = (east * east + north * north).squareRoot()
            if byspeeds >= parameters.minimumLength {
                record(speeds: byspeeds, positions: Geodesy.distance(start.position, position))
            }
            restart(at: t, position)
        }
    }

    /// A new stretch begins at this fix.
    private mutating func restart(at t: Instant, _ position: GeoPoint) {
        anchor = (t, position)
        east = 0
        north = 0
    }

    /// A pause or a loss of fix: the stretch under way ends uncompared; what was compared stays.
    public mutating func breakStretch() {
        anchor = nil
        previous = nil
        east = 0
        north = 0
    }

    private mutating func record(speeds a: Double, positions b: Double) {
        pairs += 1
        sab += a * b
        saa += a * a
        sbb += b * b
    }
}
