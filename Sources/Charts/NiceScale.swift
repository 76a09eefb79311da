import PacerCore

/// An axis with round ticks: 1, 2 or 5 × 10ⁿ apart, the axis running from the tick at or
/// below the lowest value to the tick at or above the highest, so the first and last ticks
/// are the axis's ends and every value is inside.
public struct NiceScale: Hashable, Sendable {
    public var lower: Double
    public var upper: Double
    public var step: Double

    /// About `ticks` intervals over `low...high`; a span narrower than
    /// `minimumSpan` is widened about its middle first (a flat elevation profile stays flat:
    /// its decimetres are not stretched over the chart's height).
    public init(low: Double, high: Double, ticks: Int = 5, minimumSpan: Double = 0) {
        var low = low.isFinite ? low : 0
        var high = high.isFinite ? high : low
        if high < low { swap(&low, &high) }
        let span = max(minimumSpan, 0)
        if high - low < span {
            let middle = (low + high) / 2
            // Keep a range that starts at zero at zero (a speed, a distance).
            if low >= 0 && middle - span / 2 < 0 {
                low = 0
                high = span
            } else {
                low = middle - span / 2
                high = middle + span / 2
            }
        }
        if high - low <= 0 {
            let pad = max(abs(low) * 0.1, 1)
            low -= pad
            high += pad
        }
        // Of the round steps either side of span / ticks, the one whose axis has the number
        // of intervals nearest `ticks` (the coarser on a tie).
        let wanted = (high - low) / Double(max(1, ticks))
        let step = [NiceScale.round(wanted), NiceScale.roundDown(wanted)].min { a, b in
            abs(NiceScale.intervals(low, high, a) - ticks) < abs(NiceScale.intervals(low, high, b) - ticks)
        }!
        self.init(low: low, high: high, step: step)
    }

    /// About `ticks` intervals over `low...high`, `step` the smallest of `steps` (ascending)
    /// that gives no more: for time, whose round numbers are 1, 2, 5, 10, 15, 20, 30 minutes.
    public init(low: Double, high: Double, ticks: Int, steps: [Double]) {
        let base = NiceScale(low: low, high: high, ticks: ticks)
        let wanted = (max(high, low) - min(high, low)) / Double(max(1, ticks))
        guard let largest = steps.last, wanted > 0 else {
            self = base
            return
        }
        let step = steps.first { $0 >= wanted * (1 - 1e-9) } ?? NiceScale.round(wanted / largest) * largest
        self.init(low: min(low, high), high: max(low, high), step: step)
    }

    /// From the tick at or below `low` to the tick at or above `high`, `step` apart.
    init(low: Double, high: Double, step: Double) {
        self.step = step
        // A value a hair past a tick (binary noise) does not add a tick.
        var lower = (low / step + 1e-9).rounded(.down) * step
        var upper = (high / step - 1e-9).rounded(.up) * step
        if upper <= lower { upper = lower + step }
        lower = NiceScale.clean(lower, step: step)
        upper = NiceScale.clean(upper, step: step)
        self.lower = lower
        self.upper = upper
    }

    static func intervals(_ low: Double, _ high: Double, _ step: Double) -> Int {
        Int((high / step - 1e-9).rounded(.up) - (low / step + 1e-9).rounded(.down))
    }

    /// The smallest 1, 2 or 5 × 10ⁿ at least `x` (> 0).
    public static func round(_ x: Double) -> Double {
        guard x.isFinite, x > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude > x { magnitude /= 10 }
        while magnitude * 10 <= x { magnitude *= 10 }
        for m in [1.0, 2, 5, 10] where m * magnitude >= x * (1 - 1e-9) { return m * magnitude }
        return 10 * magnitude
    }

    /// The largest 1, 2 or 5 × 10ⁿ at most `x` (> 0).
    public static func roundDown(_ x: Double) -> Double {
        guard x.isFinite, x > 0 else { return 1 }
        var magnitude = 1.0
        while magnitude > x { magnitude /= 10 }
        while magnitude * 10 <= x { magnitude *= 10 }
        for m in [5.0, 2, 1] where m * magnitude <= x * (1 + 1e-9) { return m * magnitude }
        return magnitude
    }

    /// A multiple of `step` without the binary noise (0.30000000000000004 → 0.3).
    static func clean(_ value: Double, step: Double) -> Double {
        let n = (value / step).rounded()
        var decimals = 0
        var s = step
        while s < 1, decimals < 9 {
            s *= 10
            decimals += 1
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let v = (n * step * scale).rounded() / scale
        return v == 0 ? 0 : v
    }

    /// Every tick from `lower` to `upper`.
    public var ticks: [Double] {
        let count = Int(((upper - lower) / step).rounded())
        return (0...max(0, count)).map { NiceScale.clean(lower + Double($0) * step, step: step) }
    }

    /// Decimal places that write every tick exactly.
    public var places: Int {
        var decimals = 0
        var s = step
        while s < 1 - 1e-9, decimals < 9 {
            s *= 10
            decimals += 1
        }
        return decimals
    }

    /// A tick's label: fixed places, a minus sign (U+2212) for negatives, `0` never `-0`.
    public func label(_ value: Double) -> String {
        let text = NiceScale.fixed(abs(value) < step * 1e-9 ? 0 : value, places: places)
        return text.hasPrefix("-") ? "\u{2212}" + text.dropFirst() : text
    }

    /// Where `value` falls between `from` (at `lower`) and `to` (at `upper`).
    public func position(_ value: Double, from: Double, to: Double) -> Double {
        from + (value - lower) / (upper - lower) * (to - from)
    }

    static func fixed(_ value: Double, places: Int) -> String {
        var out: [UInt8] = []
        out.appendFixed(value, places: places)
        return String(decoding: out, as: UTF8.self)
    }
}
