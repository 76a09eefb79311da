import Coaching
import Foundation
import PacerCore

/// A track point's heart rate and RR intervals as the store and the files keep them (issue 41):
/// what is stored (the checks), how the intervals are written in their column, and the
/// average and maximum a file's laps and session state.
enum HeartRateRecords {
    /// The rates stored: a byte, as the strap's 8-bit field, FIT's `uint8` and TCX's
    /// `unsignedByte` carry them. 0 is stored (a strap that lost the skin says 0) but never
    /// written to a file: it is no heart rate (`rate`).
    static let storedRates = 0...255

    /// The longest interval kept, seconds: FIT's largest (a `uint16` of milliseconds). Any
    /// real one is under 3 s (20 bpm).
    static let longestInterval = 65.534

    /// The most intervals one point keeps: at 220 bpm, 4 minutes and a half between points.
    /// A file that says more for one point (a damaged or crafted one) has the rest dropped:
    /// a point's row stays small whatever the file says.
    static let maximumIntervalsPerPoint = 1000

    /// The point's rate when the store keeps it: in `storedRates`, else nil.
    static func stored(_ rate: Int?) -> Int? {
        rate.flatMap { storedRates.contains($0) ? $0 : nil }
    }

    /// A rate that is a heart rate, for a file: 1 to 255 (0, the strap off the skin, is none).
    static func rate(_ rate: Int?) -> Int? {
        rate.flatMap { $0 > 0 && $0 <= 255 ? $0 : nil }
    }

    /// The intervals the store keeps: finite, above zero, up to `longestInterval`, at most
    /// `maximumIntervalsPerPoint`.
    static func kept(_ intervals: [Double]) -> [Double] {
        guard !intervals.isEmpty else { return [] }
        return Array(intervals.lazy.filter { $0.isFinite && $0 > 0 && $0 <= longestInterval }
            .prefix(maximumIntervalsPerPoint))
    }

    /// The `rr_intervals` column's text: seconds, comma-separated, each Swift's shortest
    /// decimal that reads back to the same Double (`0.8203125,0.81`); nil for none.
    static func text(_ intervals: [Double]) -> String? {
        guard !intervals.isEmpty else { return nil }
        return intervals.map { "\($0)" }.joined(separator: ",")
    }

    /// The intervals of a column's text; what is not a kept interval (a row edited by hand)
    /// is skipped rather than failing the whole activity's read.
    static func intervals(_ text: String?) -> [Double] {
        guard let text, !text.isEmpty else { return [] }
        return kept(text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// The average (the points' mean, rounded, as `HeartRateSummary` reports it) and the
    /// maximum of the rates given (0s left out); nil when there is none.
    static func averageAndMaximum(_ rates: some Sequence<Int?>) -> (average: Int, maximum: Int)? {
        HeartRateSummary.averageAndMaximum(rates.lazy.compactMap(rate))
    }
}
