/// Warnings said at most once per kind per interval, with a count of those held back: a
/// client flooding the control socket gives the journal one line every ten seconds, not one
/// per refused connection (it gave 2.7 million lines, 3.5 MB/s on an SD card, in 100 s).
struct WarningLimiter: Sendable {
    /// One line per kind per this long.
    static let interval = Duration.seconds(10)

    private var kinds: [String: (said: ContinuousClock.Instant, heldBack: Int)] = [:]

    /// The line to log for a warning of `kind` at `now`, or nil when it is held back. A line
    /// after held-back ones says how many there were.
    mutating func line(_ kind: String, _ text: String, at now: ContinuousClock.Instant) -> String? {
        if let entry = kinds[kind], now - entry.said < Self.interval {
            kinds[kind] = (entry.said, entry.heldBack + 1)
            return nil
        }
        let held = kinds[kind]?.heldBack ?? 0
        kinds[kind] = (now, 0)
        return held > 0 ? "\(text) (and \(held) more like it in the \(Int(Self.interval.components.seconds)) s before)" : text
    }
}
