import PacerCore

/// The distance the runner covered, counted from every fix the receiver delivers, whatever
/// the power profile stores or judges. The profile's position interval decides which fixes
/// become track points and when the coach judges pace; it does not shorten the distance.
///
/// Each pair of consecutive fixes is a leg:
/// - Standing still (both fixes' Doppler speeds at most `stationarySpeed`): no distance, no
///   moving time, whatever the positions' jitter.
/// - Dense (the fixes at most `denseGap` apart, a receiver tracking at 1 Hz or faster): the
///   straight line between them. At that rate the straight line is the recorded track itself.
/// - Sparse (further apart: a receiver duty-cycled by the low or medium profile, or an outage
///   the runner ran through): the path is estimated from the two fixes' times and Doppler
///   speeds (their mean times the gap), never shorter than the straight line, since the
///   Doppler speed measures motion along the path, bends included. Without a speed, the
///   straight line.
///
/// Between fixes a `reading` extrapolates with the last fix's speed (for at most
/// `maximumExtrapolation`): the live figure. `settle` hands such a reading out for good (a
/// pause, a stop: no later leg will tell better); a later leg then counts only what goes
/// beyond it. `breakPath` (a pause) starts afresh: no leg runs across it.
public struct Odometer: Sendable {
    public struct Parameters: Hashable, Sendable {
        /// Doppler speed (m/s) at or below which the runner is standing still.
        public var stationarySpeed: Double = 0.5
        /// Fixes at most this far apart are joined by the straight line.
        public var denseGap: Duration = .milliseconds(2500)
        /// A reading extrapolates at most this far past the last fix.
        public var maximumExtrapolation: Duration = .seconds(90)
        /// Doppler speeds above this (m/s, 43 km/h) are not a runner's: the leg falls back to the
        /// straight line and the speed counts for no maximum.
        public var plausibleSpeed: Double = 12

        public init() {}
    }

    /// One leg, as it was counted.
    public struct Leg: Hashable, Sendable {
        public var from: Instant
        public var to: Instant
        public var length: Double
        /// Metres per second over the leg (the mean Doppler speed when known).
        public var speed: Double
        public var moving: Bool
        /// The Doppler speeds at its ends, when both are known.
        public var speeds: (start: Double, end: Double)? {
            guard let startSpeed, let endSpeed else { return nil }
            return (startSpeed, endSpeed)
        }
        var startSpeed: Double?
        var endSpeed: Double?

        /// The part of the leg run by `t`: the speed taken to change linearly from one end's
        /// Doppler speed to the other's (evenly over time without them).
        public func length(until t: Instant) -> Double {
            guard t > from else { return 0 }
            guard t < to else { return length }
            let span = (to - from).inSeconds, tau = (t - from).inSeconds
            var share = tau / span
            if let (v0, v1) = speeds, v0 + v1 > 0 {
                share = (v0 * tau + (v1 - v0) * tau * tau / (2 * span)) / ((v0 + v1) / 2 * span)
            }
            return length * min(1, max(0, share))
        }
    }

    public var parameters: Parameters
    /// Metres, up to the last fix (or the last reading, when that went further).
    public private(set) var distance = 0.0
    /// Time spent moving (legs that were not standing still).
    public private(set) var movingTime = Duration.zero
    /// The highest plausible Doppler speed of a moving runner (m/s).
    public private(set) var maximumSpeed = 0.0
    private var last: (at: Instant, position: GeoPoint, speed: Double?)?
    /// What readings handed out beyond `distance` since the last fix.
    private var credited = 0.0

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Counts a fix; returns the leg it closed (nil for the first fix after a start or pause).
    @discardableResult
    public mutating func add(_ position: GeoPoint, speed rawSpeed: Double?, at t: Instant) -> Leg? {
        let speed = rawSpeed.flatMap { $0.isFinite && $0 >= 0 && $0 <= parameters.plausibleSpeed ? $0 : nil }
        defer { last = (t, position, speed) }
        guard let last, t > last.at else { return nil }
        let gap = t - last.at
        let seconds = gap.inSeconds
        let chord = Geodesy.distance(last.position, position)
        let doppler: Double? = if let a = last.speed, let b = speed { (a + b) / 2 } else { nil }
        let moving: Bool
        var length: Double
        if let doppler, doppler <= parameters.stationarySpeed {
            moving = false
            length = 0
        } else {
            moving = doppler != nil || chord / seconds > parameters.stationarySpeed
            length = chord
            if gap > parameters.denseGap, let doppler { length = max(chord, doppler * seconds) }
        }
        if moving {
            movingTime += gap
            if let speed { maximumSpeed = max(maximumSpeed, speed) }
        }
        // What was settled for this leg is not counted twice, nor taken back.
        distance += max(length, credited)
        credited = 0
        return Leg(from: last.at, to: t, length: length, speed: doppler ?? chord / seconds, moving: moving,
                   startSpeed: last.speed, endSpeed: speed)
    }

    /// The distance handed out so far: up to the last fix, or the last `settle` when later.
    public var settledReading: Double { distance + credited }

    /// The distance at `t`: up to the last fix, plus the last fix's speed carried on to `t`.
    public func reading(at t: Instant) -> Double {
        distance + max(credited, extrapolation(to: t))
    }

    /// The distance at `t`, handed out for good (a phase's end, a stop): later legs count only
    /// what goes beyond it.
    @discardableResult
    public mutating func settle(at t: Instant) -> Double {
        credited = max(credited, extrapolation(to: t))
        return distance + credited
    }

    /// No leg runs across what comes next (a pause): the distance so far stands, with what
    /// was settled.
    public mutating func breakPath() {
        distance += credited
        credited = 0
        last = nil
    }

    private func extrapolation(to t: Instant) -> Double {
        guard let last, let speed = last.speed, speed > parameters.stationarySpeed, t > last.at else { return 0 }
        return speed * min(t - last.at, parameters.maximumExtrapolation).inSeconds
    }
}
