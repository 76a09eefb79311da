import PacerCore

/// How late a clock's loop ran its tasks in real time: a task is late by the time between
/// when it was due (its deadline, or its submission for one run "now") and when it began.
/// Everything the device does runs on that loop (a fix, a cue, a button press), so this is
/// how late a cue can be heard; the figure a load test reads (the companion page
/// must never delay a cue), and what `pacer device` writes to the journal when it stops.
public struct LoopLateness: Hashable, Sendable {
    /// The buckets' upper limits: 0.1, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500 and 1000 ms.
    public static let limits: [Duration] = [
        .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(20), .milliseconds(50), .milliseconds(100), .milliseconds(200),
        .milliseconds(500), .seconds(1),
    ]

    public private(set) var tasks = 0
    public private(set) var worst = Duration.zero
    /// Tasks per bucket; the last counts those over a second.
    public private(set) var counts = [Int](repeating: 0, count: LoopLateness.limits.count + 1)

    public init() {}

    public mutating func record(_ late: Duration) {
        let late = max(late, .zero)
        tasks += 1
        worst = max(worst, late)
        let bucket = Self.limits.firstIndex { late <= $0 } ?? Self.limits.count
        counts[bucket] += 1
    }

    /// The least bucket limit within which at least `fraction` of the tasks began; nil for
    /// none run, or when the fraction goes past a second.
    public func within(fraction: Double) -> Duration? {
        guard tasks > 0 else { return nil }
        var seen = 0
        for (i, limit) in Self.limits.enumerated() {
            seen += counts[i]
            if Double(seen) >= fraction * Double(tasks) { return limit }
        }
        return nil
    }

    /// `4210 tasks; 99 % began within 1 ms of their time, 99.9 % within 5 ms; the latest 7.3 ms late`.
    public var summary: String {
        guard tasks > 0 else { return "no task ran" }
        func ms(_ d: Duration?) -> String {
            guard let d else { return "over 1000 ms" }
            let tenths = (d.nanoseconds + 50_000) / 100_000
            return tenths % 10 == 0 ? "\(tenths / 10) ms" : "\(tenths / 10).\(tenths % 10) ms"
        }
        return "\(tasks) tasks; 99 % began within \(ms(within(fraction: 0.99))) of their time, "
            + "99.9 % within \(ms(within(fraction: 0.999))); the latest \(ms(worst)) late"
    }
}
