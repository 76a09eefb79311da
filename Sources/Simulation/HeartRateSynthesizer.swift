import HAL
import PacerCore

/// Makes the heart-rate stream of a synthesized run from its true speeds, so that a scenario's
/// heart rate is known as its positions are: what the coach should have heard is computable.
///
/// The model, the simplest that behaves like a runner's heart:
/// - at a steady speed the rate tends to a steady state, linear in speed through two anchors
///   the scenario gives (an easy and a hard pace with their rates; running economy makes the
///   relation close to linear between them), clamped to the resting and maximum rates;
/// - it gets there as a first-order lag, quicker up than down (`riseSeconds`, `fallSeconds`:
///   a heart takes 20-40 s to rise most of the way to a new effort, and longer to come down);
/// - cardiac drift adds `driftPerHour` bpm an hour of running at the same speed;
/// - a seeded Gaussian noise of `noise` bpm, and RR intervals of the beats in each second.
public struct HeartRateModel: Hashable, Sendable {
    public var restingBpm: Double
    public var maximumBpm: Double
    /// Two anchors of the steady state: (km/h, bpm).
    public var easy: (kmh: Double, bpm: Double)
    public var hard: (kmh: Double, bpm: Double)
    public var riseSeconds: Double
    public var fallSeconds: Double
    public var driftPerHour: Double
    public var noise: Double
    public var seed: UInt64
    /// Windows (seconds from the start) in which the strap is away: no rows, a `lost` at the
    /// start of each.
    public var lost: [ClosedRange<Double>]
    /// Windows in which the strap stays connected and sends nothing (on the chest, no contact).
    public var silent: [ClosedRange<Double>] = []

    public init(restingBpm: Double = 55, maximumBpm: Double = 190, easy: (kmh: Double, bpm: Double) = (9.5, 140),
                hard: (kmh: Double, bpm: Double) = (15, 178), riseSeconds: Double = 25, fallSeconds: Double = 40,
                driftPerHour: Double = 5, noise: Double = 1, seed: UInt64 = 1, lost: [ClosedRange<Double>] = []) {
        self.restingBpm = restingBpm
        self.maximumBpm = maximumBpm
        self.easy = easy
        self.hard = hard
        self.riseSeconds = riseSeconds
        self.fallSeconds = fallSeconds
        self.driftPerHour = driftPerHour
        self.noise = noise
        self.seed = seed
        self.lost = lost
    }

    public static func == (a: HeartRateModel, b: HeartRateModel) -> Bool {
        a.restingBpm == b.restingBpm && a.maximumBpm == b.maximumBpm && a.easy == b.easy && a.hard == b.hard
            && a.riseSeconds == b.riseSeconds && a.fallSeconds == b.fallSeconds && a.driftPerHour == b.driftPerHour
            && a.noise == b.noise && a.seed == b.seed && a.lost == b.lost && a.silent == b.silent
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(restingBpm)
        hasher.combine(maximumBpm)
        hasher.combine(seed)
    }

    /// The rate a speed tends to, bpm.
    public func steadyState(kmh: Double) -> Double {
        guard kmh > 0.5 else { return restingBpm }
        let slope = (hard.bpm - easy.bpm) / (hard.kmh - easy.kmh)
        return min(maximumBpm, max(restingBpm, easy.bpm + slope * (kmh - easy.kmh)))
    }

    /// The stream for a run whose true speed (m/s) is `speeds[i]` at second `i` (1 Hz).
    public func stream(speeds: [Double]) -> HeartRateStream {
        var random = SeededRandom(seed: seed, stream: 7)
        var rows: [(seconds: Double, row: HeartRateStream.Row)] = []
        var hr = steadyState(kmh: (speeds.first ?? 0) * 3.6)
        var moving = 0.0
        var beatPhase = 0.0
        var wasLost = false
        for (i, speed) in speeds.enumerated() {
            let t = Double(i)
            if speed > 0.5 { moving += 1 }
            let target = min(maximumBpm, steadyState(kmh: speed * 3.6) + driftPerHour * moving / 3600)
            let tau = target > hr ? riseSeconds : fallSeconds
            hr += (target - hr) * (1 - exp(-1 / max(tau, 0.1)))
            let measured = Int((hr + noise * random.gaussian()).rounded())
            if lost.contains(where: { $0.contains(t) }) {
                if !wasLost { rows.append((t, .lost)) }
                wasLost = true
                continue
            }
            wasLost = false
            if silent.contains(where: { $0.contains(t) }) { continue }
            // The beats that fall in this second, each interval 60/rate.
            var rr: [Double] = []
            beatPhase += hr / 60
            while beatPhase >= 1 {
                beatPhase -= 1
                rr.append((60 / hr * 1024).rounded() / 1024)
            }
            rows.append((t, .measurement(HeartRateMeasurement(bpm: measured, contact: .detected, rrIntervals: rr))))
        }
        return HeartRateStream(rows: rows)
    }
}

private func exp(_ x: Double) -> Double { PortableMath.exp(x) }
