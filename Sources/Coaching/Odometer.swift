import PacerCore

/// The distance the runner covered, counted from every fix the receiver delivers, whatever
/// the power profile stores or judges. The profile's position interval decides which fixes
/// become track points and when the coach judges pace; it does not shorten the distance.
///
/// Each pair of consecutive fixes is a leg:
/// - Standing still (the mean of both fixes' Doppler speeds at most `stationarySpeed`): no distance, no
///   moving time, whatever the positions' jitter.
/// - Dense (the fixes at most `denseGap` apart, a receiver tracking at 1 Hz or faster): the
///   mean of the two Doppler speeds over the leg's time (without speeds, the straight line).
///   A second's straight line collects the positions' jitter (2 to 5 m for a real receiver):
///   summed at 1 Hz it grows with the noise, the Doppler speeds' sum does not.
/// - Sparse (further apart: a receiver duty-cycled by the low or medium profile, or an outage
///   the runner ran through): the path is estimated from the two fixes' times and Doppler
///   speeds (`sparseLength`: the Doppler speed measures motion along the path, bends
///   included), never shorter than the straight line less two positions' noise. When an end is (nearly) standing
///   (`stoppingSpeed`), the runner may have stood for most of the gap: at most `detour` times
///   the straight line (a 74 s silence at a stop, 9.5 m between its ends: 14 m, not the
///   mean speed's 138 m). Across a phase's end, where the runner
///   was told to change pace, the speed is one end's before it and the other's after, with
///   the same bound (the straight line less the noise): a run measures the same whatever
///   its plan.
///   Without speeds, the straight line.
///
/// Between fixes a `reading` extrapolates with the last fix's speed (for at most
/// `maximumExtrapolation`, and not beyond the longest leg of that span before it: the
/// receiver's cadence, after which a fix is overdue and not guessed at): the live figure. `settle` hands such a reading out for good (a
/// pause, a stop: no later leg will tell better); a later leg then counts only what goes
/// beyond it. `breakPath` (a pause) starts afresh: no leg runs across it; `startPath` (a
/// start, a resume) counts the run from that instant to the first fix after it.
///
/// The live figure never runs backwards. What a reading carried on past the last fix is
/// provisional: the next fix may say the runner slowed (a 60 s leg across a phase's end from
/// 11 to 8.3 km/h is 33 m shorter than 60 s at 11 km/h), and after `fixLost` nothing is
/// carried on. So the highest reading so far is held (`hold`, at each fix, a loss and a
/// pause): `reading` and `settledReading` never fall below it, and until the legs catch up
/// with it the figure stands still. The legs are not lengthened by it (`distance` stays
/// theirs): the hold is counted only where the run ends (or pauses) before they catch up.
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
        /// Metres a straight line between two sparse fixes may be longer than the path through
        /// their positions' noise alone (two fixes' errors of 2 to 5 m, independent 30 s apart).
        public var chordNoise: Double = 10
        /// A Doppler speed (m/s) at or below which the runner may have stopped (slower than a
        /// walk): a sparse leg with such an end is not credited more than `detour` times its
        /// straight line.
        public var stoppingSpeed: Double = 1.0
        /// How much longer than the straight line a path with a stop in it may be credited.
        public var detour: Double = 1.5
        /// Ends' Doppler speeds (m/s) further apart than this are a change of pace, not their
        /// noise (0.1 to 0.2 m/s each): the time in band follows the change through the leg
        /// (`Leg.timeInBand`); closer, the leg is judged by the mean of its ends.
        public var paceStep: Double = 0.5

        public init() {}
    }

    /// One leg, as it was counted.
    public struct Leg: Hashable, Sendable {
        public var from: Instant
        public var to: Instant
        public var length: Double
        /// Metres per second over the leg: the mean of its ends' Doppler speeds for a dense leg
        /// (when known), its length over its time for a sparse one.
        public var speed: Double
        public var moving: Bool
        /// The Doppler speeds at its ends, when both are known.
        public var speeds: (start: Double, end: Double)? {
            guard let startSpeed, let endSpeed else { return nil }
            return (startSpeed, endSpeed)
        }
        var startSpeed: Double?
        var endSpeed: Double?
        /// Where the pace changed, when the leg spans a known change (a phase's end).
        public var paceChangeAt: Instant?
        /// Its ends' speeds differ by more than their noise (`Parameters.paceStep`).
        var changesPace = false

        /// The part of the leg run by `t`. The speed is taken to be one end's Doppler speed up
        /// to a known change of pace and the other's after it; without one, to change linearly
        /// from one to the other (evenly over time without speeds).
        public func length(until t: Instant) -> Double {
            guard t > from else { return 0 }
            guard t < to else { return length }
            let span = (to - from).inSeconds, tau = (t - from).inSeconds
            var share = tau / span
            if let (v0, v1) = speeds, v0 + v1 > 0 {
                if let change = paceChangeAt {
                    let c = min(max((change - from).inSeconds, 0), span)
                    share = (v0 * min(tau, c) + v1 * max(0, tau - c)) / (v0 * c + v1 * (span - c))
                } else {
                    share = (v0 * tau + (v1 - v0) * tau * tau / (2 * span)) / ((v0 + v1) / 2 * span)
                }
            }
            return length * min(1, max(0, share))
        }

        /// The time between `a` and `b` within the leg whose speed lies in `band`. When its ends'
        /// speeds differ by more than their noise (a change of pace), the speed is modelled as
        /// `length(until:)` models it: one end's Doppler speed up to a known change of pace and
        /// the other's after it, else changing linearly from one to the other, scaled so that
        /// it runs the leg's length (a sparse leg's estimate). A leg from 11 to 8.4 km/h against
        /// a band from 10 km/h is in band for its first 38 %, not wholly out by its mean: at a
        /// fix every 30 s a sudden 90 s spell out of the band is counted about 1:38 out, not
        /// 2:00. Otherwise (a steady pace, or no speeds) the leg's speed throughout, so that
        /// the Doppler speeds' noise does not take a steady runner out of a narrow band.
        public func timeInBand(_ band: ClosedRange<Double>, from a: Instant, to b: Instant) -> Duration {
            let a = max(a, from), b = min(b, to)
            guard b > a else { return .zero }
            guard changesPace, let (v0, v1) = speeds, v0 + v1 > 0, to > from else {
                return band.contains(speed(from: a, to: b)) ? b - a : .zero
            }
            let span = (to - from).inSeconds
            let ta = (a - from).inSeconds, tb = (b - from).inSeconds
            let seconds: Double
            if let change = paceChangeAt {
                let c = min(max((change - from).inSeconds, 0), span)
                let k = length / (v0 * c + v1 * (span - c))
                seconds = (band.contains(k * v0) ? max(0, min(tb, c) - ta) : 0)
                    + (band.contains(k * v1) ? max(0, tb - max(ta, c)) : 0)
            } else {
                let k = length / ((v0 + v1) / 2 * span)
                // The speed at τ: k (v0 + (v1 − v0) τ / span), a line; the τ where it is in band
                // form one interval.
                let slope = k * (v1 - v0) / span
                if abs(slope) < 1e-12 {
                    seconds = band.contains(k * v0) ? tb - ta : 0
                } else {
                    let t1 = (band.lowerBound - k * v0) / slope, t2 = (band.upperBound - k * v0) / slope
                    seconds = max(0, min(tb, max(t1, t2)) - max(ta, min(t1, t2)))
                }
            }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }

        /// The speed (m/s) the runner ran on at past the leg's end: after a change of pace its
        /// last fix's Doppler speed, as the distance carries it on; else the leg's speed.
        public var closingSpeed: Double { changesPace ? endSpeed ?? speed : speed }

        /// Metres per second between `a` and `b` within the leg: the leg's speed, scaled by
        /// how much of its length falls in that part of its time.
        public func speed(from a: Instant, to b: Instant) -> Double {
            let a = max(a, from), b = min(b, to)
            guard b > a, length > 0, a > from || b < to else { return speed }
            let lengthShare = (length(until: b) - length(until: a)) / length
            let timeShare = (b - a).inSeconds / (to - from).inSeconds
            return speed * lengthShare / timeShare
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
    /// How far past the last fix a settle counted moving time.
    private var settledUntil: Instant?
    /// Where the path begins afresh (a start, a resume), until its first fix.
    private var pathStart: Instant?
    /// The highest figure a reading handed out, held at each fix, loss and pause (`hold`):
    /// no reading falls below it.
    private var held = 0.0
    /// The receiver lost its fix since the last one: nothing is carried on from that fix.
    private var lost = false
    /// The legs closed within `maximumExtrapolation` before the last fix (their ends and
    /// lengths in time): the longest is the receiver's cadence (1 s at 1 Hz, 30 s in
    /// power-save, the sleep between a backup receiver's bursts). Past it the next fix is
    /// overdue (a tunnel, the runner stopped under a roof): the reading waits for it rather
    /// than carry on a guess it would then have to hold (a 1 Hz receiver silent for 5 s before
    /// its loss is declared: 15 m shown, none of them run).
    private var recentGaps: [(end: Instant, gap: Duration)] = []
    /// When the next fix is due, told by the firmware when it puts the receiver to sleep
    /// (`receiverSleeps`): a gap longer than the cadence so far that is no loss.
    private var nextFixDue: Instant?
    /// The receiver's Doppler speeds against its positions (`DopplerScale`): every speed
    /// counted is the receiver's times its `factor` (1 until a bias is established).
    public private(set) var dopplerScale = DopplerScale()
    /// The metres of `distance` that the speeds decided (not a straight line), at the factor
    /// in force: when the factor changes they are counted again at the new one.
    private var bySpeeds = 0.0

    /// What the receiver's speeds are multiplied by (`DopplerScale.factor`).
    public var speedFactor: Double { dopplerScale.factor }

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Counts a fix; returns the leg it closed (nil for the first fix after a start or pause).
    /// `paceChangeAt`: an instant since the last fix where the runner was told to change pace
    /// (a phase's end): a sparse leg across it is run at one end's speed before it and the
    /// other's after.
    @discardableResult
    public mutating func add(_ position: GeoPoint, speed rawSpeed: Double?, course: Double? = nil, at t: Instant,
                             paceChangeAt change: Instant? = nil) -> Leg? {
        let measured = rawSpeed.flatMap { $0.isFinite && $0 >= 0 && $0 <= parameters.plausibleSpeed ? $0 : nil }
        let factor = dopplerScale.factor
        let speed = measured.map { $0 * factor }
        // The scale learns from this fix once its leg is counted at the factor in force; a
        // factor newly established counts again what the speeds decided so far.
        defer {
            dopplerScale.add(position, speed: measured, course: course, at: t)
            let now = dopplerScale.factor
            if now != factor {
                let extra = bySpeeds * (now / factor - 1)
                distance += extra
                bySpeeds += extra
            }
        }
        // What the live figure showed up to this fix stands, whatever the leg turns out to be.
        hold(at: t)
        defer {
            last = (t, position, speed)
            lost = false
            nextFixDue = nil
        }
        guard let last, t > last.at else {
            defer { pathStart = nil }
            guard self.last == nil, let leg = firstLeg(to: t, speed: speed) else { return nil }
            bySpeeds += leg.length
            return leg
        }
        let gap = t - last.at
        recentGaps.removeAll { t - $0.end > parameters.maximumExtrapolation }
        recentGaps.append((t, gap))
        let seconds = gap.inSeconds
        let chord = Geodesy.distance(last.position, position)
        let doppler: Double? = if let a = last.speed, let b = speed { (a + b) / 2 } else { nil }
        let moving: Bool
        var length: Double
        // The length the speeds give, where they decide it.
        var fromSpeeds: Double?
        if let doppler, doppler <= parameters.stationarySpeed {
            moving = false
            length = 0
        } else {
            moving = doppler != nil || chord / seconds > parameters.stationarySpeed
            length = chord
            if gap <= parameters.denseGap, let doppler {
                // Dense: the Doppler speeds over the leg's time. A second's straight line between
                // two positions collects their noise (2 to 5 m for a real receiver), the Doppler
                // speed does not: at 1 Hz the sum of straight lines grows with the jitter.
                length = doppler * seconds
                fromSpeeds = length
            } else if gap > parameters.denseGap, let doppler, let a = last.speed, let b = speed {
                if let change, change >= last.at, change <= t {
                    let before = (change - last.at).inSeconds
                    let run = a * before + b * (seconds - before)
                    fromSpeeds = run
                    length = max(chord - parameters.chordNoise, run)
                } else {
                    fromSpeeds = doppler * seconds
                    length = sparseLength(chord: chord, seconds: seconds, speeds: (a, b), mean: doppler)
                }
                // An end (nearly) standing: the runner may have stood for any part of the gap,
                // so its speeds say nothing of the time between; the positions bound the path.
                if min(a, b) <= parameters.stoppingSpeed {
                    length = max(chord, min(length, chord * parameters.detour))
                }
            }
        }
        if moving {
            // Less what a settle already counted past the last fix.
            let counted = settledUntil.map { max(.zero, min($0, t) - last.at) } ?? .zero
            movingTime += gap - counted
            maximumSpeed = max(maximumSpeed, last.speed ?? 0, speed ?? 0)
        }
        if let fromSpeeds, length == fromSpeeds { bySpeeds += length }
        // What was settled for this leg is not counted twice, nor taken back.
        distance += max(length, credited)
        credited = 0
        settledUntil = nil
        // A dense leg's speed is the Doppler speeds' (steadier than a second's chord); a sparse
        // one's is its estimated length over its time, so speed and distance agree.
        let legSpeed = gap > parameters.denseGap ? length / seconds : doppler ?? chord / seconds
        let knownChange = change.flatMap { $0 >= last.at && $0 <= t && gap > parameters.denseGap ? $0 : nil }
        let changesPace = if let a = last.speed, let b = speed { abs(a - b) > parameters.paceStep } else { false }
        return Leg(from: last.at, to: t, length: length, speed: legSpeed, moving: moving,
                   startSpeed: last.speed, endSpeed: speed, paceChangeAt: knownChange, changesPace: changesPace)
    }

    /// The path begins afresh at `t` (the workout starts, or resumes after a pause): the first
    /// fix after it, when it comes later (a receiver resting in power-save sends one per
    /// position interval), counts the run from `t` at its Doppler speed. Without it the
    /// seconds between the press and the first fix would be lost, up to a whole interval.
    public mutating func startPath(at t: Instant) {
        pathStart = t
    }

    /// The receiver has no fix at `t`: where the runner was at the path's start is not known,
    /// so nothing is counted before the first fix; nothing is carried on from the last fix
    /// until the next (the leg across the loss is measured then), and what the live figure
    /// showed up to the loss is held.
    public mutating func fixLost(at t: Instant) {
        hold(at: t)
        dopplerScale.breakStretch()
        lost = true
        pathStart = nil
    }

    /// The firmware put the receiver to sleep until about `due` (a step-down to the backup
    /// mode): the speed is carried on until then (at most `maximumExtrapolation`), though the
    /// fixes so far came more often.
    public mutating func receiverSleeps(until due: Instant) {
        nextFixDue = due
    }

    /// The reading at `t` was handed out (the live figure showed it): no later reading falls
    /// below it. Deterministic whoever looked: between two fixes a reading only grows, so the
    /// highest one shown is the one at the instant the state changes (a fix, a loss, a pause).
    public mutating func hold(at t: Instant) {
        held = max(held, reading(at: t))
    }

    /// The leg from the path's start to its first fix: run at that fix's speed, when moving.
    private mutating func firstLeg(to t: Instant, speed: Double?) -> Leg? {
        guard let start = pathStart, t > start, let speed, speed > parameters.stationarySpeed else { return nil }
        let run = min(t - start, parameters.maximumExtrapolation)
        let from = t - run
        let length = speed * run.inSeconds
        distance += length
        movingTime += run
        maximumSpeed = max(maximumSpeed, speed)
        return Leg(from: from, to: t, length: length, speed: speed, moving: true, startSpeed: speed, endSpeed: speed,
                   paceChangeAt: nil)
    }

    /// The distance handed out so far: up to the last fix, or the last `settle` when later;
    /// never less than a reading held (`hold`).
    public var settledReading: Double { max(held, distance + credited) }

    /// A sparse leg's path from its ends' Doppler speeds: their mean over the gap (the
    /// Doppler speed measures motion along the path, bends included; sampled at the ends of
    /// the gap it is as likely to read high as low, so the sum over a run does not drift).
    /// The straight line bounds it from below only when it is longer than the speeds allow by
    /// more than two positions' noise (`chordNoise`): taking the longer of the two at every leg
    /// would keep every chord that noise or a brief surge lengthens and add 1 to 2.5 % on a
    /// real trail at one fix per 30 s.
    func sparseLength(chord: Double, seconds: Double, speeds: (Double, Double), mean: Double) -> Double {
        max(mean * seconds, chord - parameters.chordNoise)
    }

    /// The distance at `t`: up to the last fix, plus the last fix's speed carried on to `t`
    /// (not after a loss); never less than a reading held (`hold`).
    public func reading(at t: Instant) -> Double {
        max(held, distance + max(credited, extrapolation(to: t)))
    }

    /// The distance at `t`, handed out for good (a phase's end, a stop): later legs count only
    /// what goes beyond it.
    @discardableResult
    public mutating func settle(at t: Instant) -> Double {
        credited = max(credited, extrapolation(to: t))
        // The runner ran on from the last fix: moving, at the speed carried on.
        if let last, let speed = last.speed, speed > parameters.stationarySpeed {
            let from = max(settledUntil ?? last.at, last.at)
            let to = min(t, last.at + carryLimit)
            if to > from {
                movingTime += to - from
                settledUntil = to
            }
        }
        return settledReading
    }

    /// No leg runs across what comes next (a pause): the distance so far stands, with what
    /// was settled.
    public mutating func breakPath() {
        distance += credited
        credited = 0
        settledUntil = nil
        last = nil
        dopplerScale.breakStretch()
    }

    /// Where the runner is reckoned to be at `t` for a phase that ends on distance: the
    /// reading, or the last fix's speed carried on for up to `maximumExtrapolation` (through
    /// a late fix and a loss of fix, which the live figure does not guess across: the runner
    /// is told the end where they cross it, not when the receiver next speaks).
    public func projection(at t: Instant) -> Double {
        max(reading(at: t), distance + deadReckoning(to: t))
    }

    /// The instant `projection` reaches `metres`, from the last fix; nil when it never does
    /// (standing, no speed, no fix, or beyond `maximumExtrapolation`) or already has.
    public func instant(projecting metres: Double) -> Instant? {
        guard let last, let speed = last.speed, speed > parameters.stationarySpeed,
              max(held, distance + credited) < metres else { return nil }
        let seconds = (metres - distance) / speed
        guard seconds <= parameters.maximumExtrapolation.inSeconds else { return nil }
        return last.at + .milliseconds(Int64((max(0, seconds) * 1000).rounded(.up)))
    }

    /// When the last fix came, if one has since the path began.
    public var lastFix: Instant? { last?.at }

    private func deadReckoning(to t: Instant) -> Double {
        guard let last, let speed = last.speed, speed > parameters.stationarySpeed, t > last.at else { return 0 }
        return speed * min(t - last.at, parameters.maximumExtrapolation).inSeconds
    }

    private func extrapolation(to t: Instant) -> Double {
        guard !lost, let last, let speed = last.speed, speed > parameters.stationarySpeed, t > last.at else { return 0 }
        return speed * min(t - last.at, carryLimit).inSeconds
    }

    /// How far past the last fix its speed is carried on: `maximumExtrapolation`, and no
    /// further than the receiver's cadence (`recentGaps`), once a leg tells it.
    private var carryLimit: Duration {
        guard var cadence = recentGaps.map(\.gap).max() else { return parameters.maximumExtrapolation }
        if let due = nextFixDue, let last { cadence = max(cadence, due - last.at) }
        return min(parameters.maximumExtrapolation, cadence)
    }
}
