import PacerCore

/// The runner's speed averaged over a time window, so that GPS speed noise at a steady pace
/// does not set off cues. Samples older than the window are dropped as new ones arrive.
public struct SpeedSmoother: Sendable {
    public var window: Duration
    private var samples: [(at: Instant, speed: Double)] = []
    /// The latest samples the window dropped (at most `kept`), for `evidence(atLeast:)`.
    private var earlier: [(at: Instant, speed: Double)] = []
    private static let kept = 4

    public init(window: Duration) {
        self.window = window
    }

    /// Adds a sample; one older than the latest (a speed confirmed later) takes its place in
    /// time, and is dropped when the window has already passed it.
    public mutating func add(_ speed: Double, at t: Instant) {
        if let latest = samples.last?.at, t < latest {
            guard t > latest - window else { return }
            let i = samples.lastIndex(where: { $0.at <= t }).map { $0 + 1 } ?? 0
            samples.insert((t, speed), at: i)
            return
        }
        samples.append((t, speed))
        prune(at: t)
    }

    /// The mean of the samples within the window ending at the latest sample, or nil when
    /// there are none. It changes only when a sample arrives: time passing alone never
    /// changes it (a judgement between fixes would otherwise change by itself).
    public var speed: Double? {
        guard !samples.isEmpty else { return nil }
        return samples.reduce(0) { $0 + $1.speed } / Double(samples.count)
    }

    /// When the latest sample was taken.
    public var latest: Instant? { samples.last?.at }

    /// The samples' speeds within the window, oldest first.
    public var speeds: [Double] { samples.map(\.speed) }

    /// The speeds a judgement rests on, oldest first: those within the window, and when it
    /// holds fewer than `n` (a window as long as the interval between fixes holds one), the
    /// latest samples before it to make `n`, since the last reset and at most two windows
    /// old; fewer when there are not that many.
    public func evidence(atLeast n: Int) -> [Double] {
        guard samples.count < n, let latest = samples.last?.at else { return speeds }
        let older = earlier.filter { latest - $0.at < window * 2 }.suffix(n - samples.count)
        return older.map(\.speed) + speeds
    }

    public mutating func reset() {
        samples.removeAll()
        earlier.removeAll()
    }

    private mutating func prune(at t: Instant) {
        let oldest = t - window
        let firstKept = samples.firstIndex(where: { $0.at > oldest }) ?? samples.count
        earlier.append(contentsOf: samples.prefix(firstKept))
        earlier = Array(earlier.suffix(Self.kept))
        samples.removeFirst(firstKept)
    }
}

/// What the receiver said of a fix's quality, when it said it: the coach judges pace only on
/// speeds it can trust.
public struct FixTrust: Hashable, Sendable {
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Satellites used in the solution.
    public var satellites: Int?
    /// The receiver estimated the fix (dead reckoning, NMEA mode `E`): its speed was not measured.
    public var estimated: Bool

    public init(hdop: Double? = nil, satellites: Int? = nil, estimated: Bool = false) {
        self.hdop = hdop
        self.satellites = satellites
        self.estimated = estimated
    }

    /// Nothing said: only the positions can tell.
    public static let unknown = FixTrust()

    public init(_ fix: Fix) {
        self.init(hdop: fix.hdop, satellites: fix.satellitesUsed, estimated: fix.quality == .estimated)
    }
}

/// Which speeds the pace coach judges on (docs/figures.md, "Pace cues"): a speed is trusted
/// when the fix's quality is above the floor and the positions support it.
///
/// A Doppler speed is checked against the straight line from the latest earlier fix at least
/// `referenceSpan` before it (the previous fix when fixes are further apart; the earliest of
/// the path when it is younger): a second's straight line between 1 Hz fixes is mostly the
/// positions' noise, 20 s of them tell the runner's speed.
/// - **Too high**: above `detour` times the straight line's speed (the line lengthened by
///   `chordNoise`, two positions' errors), when it is also a jump from the previous
///   fix's speed (`jump` times it): a spike, the positions say the runner did not go that
///   fast. A runner who keeps their speed on a bendy path (a track's oval, where the line
///   between fixes 60 s apart is far shorter than the path) makes no jump, and is kept.
/// - **Too low**: below `slack` times the straight line's speed (shortened by `chordNoise`),
///   when it is also a drop from the previous fix's speed (below it divided by `jump`): the
///   straight line is a lower bound of the path, so a speed far below it says the runner did
///   not move as they did (a Doppler dropout). A runner who really stopped at that fix is
///   confirmed by the next one.
/// The first fix after the start, a resume or a loss has nothing to be checked against.
public struct SpeedTrust: Hashable, Sendable {
    /// Above this HDOP a fix's speed is not judged (a poor geometry: the receiver's speed
    /// wanders as much as its position).
    public var maximumHDOP: Double = 5
    /// With fewer satellites used a fix's speed is not judged (four: a 3D solution's least).
    public var minimumSatellites: Int = 4
    /// The speed is checked against the straight line from a fix at least this far back.
    public var referenceSpan: Duration = .seconds(20)
    /// Metres two positions' errors may lengthen or shorten the straight line.
    public var chordNoise: Double = 10
    /// How much longer than the straight line a path between the two fixes may plausibly be.
    public var detour: Double = 1.3
    /// A speed below this share of the straight line's speed is too low.
    public var slack: Double = 0.5
    /// A spike or a dropout is also a change from the last trusted speed by this factor.
    public var jump: Double = 1.25
    /// A judgement needs a trusted speed at most this old: a cue tells the runner what they
    /// ran over the last seconds, and a position update whose own speed is not trusted, on a
    /// receiver sending one fix per 30 s, has only speeds from half a minute before.
    public var freshness: Duration = .seconds(10)
    /// The newer speeds must be across a band's edge (or inside the band's hysteresis, for
    /// on-pace) by this share of the hysteresis.
    public var edgeMargin: Double = 0.5
    /// The mean must be across a band's edge (inside it, for on-pace, by at most a quarter of
    /// the band) by this many of its standard errors, counting only the speeds' scatter
    /// beyond the hysteresis (`SpeedScatter`): a receiver's Doppler speeds scatter by less
    /// and are judged as before; speeds derived from positions 5 s apart scatter by a km/h
    /// under trees, and their mean with them (docs/figures.md, "Pace cues against the runner").
    public var uncertainty: Double = 3

    public init() {}

    /// The quality floor: HDOP and satellites when the receiver gives them, and a measured
    /// (not estimated) fix.
    public func meetsFloor(_ trust: FixTrust) -> Bool {
        if trust.estimated { return false }
        if let hdop = trust.hdop, hdop > maximumHDOP { return false }
        if let satellites = trust.satellites, satellites < minimumSatellites { return false }
        return true
    }

    /// Whether the positions support `speed` (m/s): `chord` metres between the reference fix
    /// and this one, `span` apart; `previous` the previous fix's speed, when it had one.
    public func supported(speed: Double, chord: Double, span: Duration, previous: Double?) -> Bool {
        let seconds = span.inSeconds
        guard seconds > 0 else { return true }
        let high = detour * (chord + chordNoise) / seconds
        let low = slack * max(0, chord - chordNoise) / seconds
        if speed > high, previous.map({ speed > $0 * jump }) ?? true { return false }
        if speed < low, previous.map({ speed < $0 / jump }) ?? true { return false }
        return true
    }
}

/// How much a receiver's speeds scatter from one to the next, over its last `capacity` pairs
/// of trusted speeds at most `lag` apart: σ from the median of their absolute differences
/// (for Gaussian noise the median of |x₂ − x₁| is 0.954 σ). A few seconds apart the runner's
/// own pace barely moves, so the differences are the speeds' noise; the median leaves out a
/// change of pace (one large difference among many), which the window's own spread would
/// count as noise. Fixes further apart (a power-save receiver's, 30 s) tell nothing of it:
/// a window of two speeds 30 s apart is judged by what the receiver's speeds did when they
/// came closer (at the start, or never: then 0).
public struct SpeedScatter: Sendable {
    public static let capacity = 30
    public static let lag: Duration = .milliseconds(5500)
    private var differences: [Double] = []
    private var last: (speed: Double, at: Instant)?

    public init() {}

    public mutating func add(_ speed: Double, at t: Instant) {
        defer { last = (speed, t) }
        guard let last, t > last.at, t - last.at <= Self.lag else { return }
        if differences.count == Self.capacity { differences.removeFirst() }
        differences.append(abs(speed - last.speed))
    }

    /// The speeds' noise, m/s: 0 until three differences are known.
    public var sigma: Double {
        guard differences.count >= 3 else { return 0 }
        let sorted = differences.sorted()
        let n = sorted.count
        let median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        return median / 0.9539
    }
}
