import PacerCore

/// The runner's speed averaged over a time window, so that GPS speed noise at a steady pace
/// does not set off cues. Samples older than the window are dropped as new ones arrive.
public struct SpeedSmoother: Sendable {
    public var window: Duration
    private var samples: [(at: Instant, speed: Double)] = []

    public init(window: Duration) {
        self.window = window
    }

    public mutating func add(_ speed: Double, at t: Instant) {
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

    public mutating func reset() {
        samples.removeAll()
    }

    private mutating func prune(at t: Instant) {
        let oldest = t - window
        if let firstKept = samples.firstIndex(where: { $0.at > oldest }) {
            samples.removeFirst(firstKept)
        } else {
            samples.removeAll()
        }
    }
}
