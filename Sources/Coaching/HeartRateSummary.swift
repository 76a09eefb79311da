import PacerCore

/// A run's heart rate as its reports give it: the average and the maximum of the stored points
/// that carry one, and the time spent in each zone. Here, in the domain, because both reports
/// need the same figures: the page (`Charts`) and the text `pacer activities show` prints
/// (`Storage`), which cannot import each other.
///
/// **Time in zones.** Time is counted between consecutive track points that both carry a heart
/// rate, each interval given to the zone of the earlier point's rate: a point stores the
/// strap's last reading, which holds until the next point's. An interval is not counted (a
/// gap) when:
///
/// - either point has no heart rate (the strap was lost, or taken off);
/// - the second point starts a new segment (a pause, a lost fix: the timer was not running
///   over it, or the track does not say what happened);
/// - it is longer than `gapLimit`: 10 s, or one and a half times the run's usual interval
///   between points with a heart rate (their median) when that is longer. A device stores a
///   point every 10, 30 or 60 s by its power profile, so a fixed 10 s would count nothing on
///   the medium and low profiles; an imported file's second-by-second points keep 10 s.
///
/// So the zones' times add up to the time with a heart rate (`countedMilliseconds`), not to
/// the timer, and each share is of that time. The chart draws its line by the same rule
/// (`joined`): two points are joined exactly when the time between them is counted.
public struct HeartRateSummary: Hashable, Sendable {
    /// Beats per minute: the mean of the points' rates, rounded.
    public var average: Int
    public var maximum: Int
    /// The points with a heart rate.
    public var samples: Int
    /// The time counted (see the type's documentation), milliseconds.
    public var countedMilliseconds: Int64
    /// The longest interval counted, milliseconds.
    public var gapLimit: Int64
    /// The zones the time was counted in; nil when the athlete has none.
    public var zones: HeartRateZones?
    /// By `HeartRateZones.zone(of:)`'s numbering: 0 below zone 1, 1 to 5 the zones, 6 above
    /// zone 5; milliseconds. Seven zeros without zones.
    public var millisecondsInZone: [Int64]

    /// The shortest interval that may be a gap, whatever the run's own interval.
    public static let minimumGapLimit: Int64 = 10_000

    /// Nil when no point has a heart rate: a report without one says nothing about it.
    public init?(points: [TrackPoint], zones: HeartRateZones?) {
        let rates = points.compactMap(Self.rate)
        guard let (average, maximum) = Self.averageAndMaximum(rates) else { return nil }
        self.maximum = maximum
        self.average = average
        samples = rates.count
        self.zones = zones
        let limit = Self.gapLimit(points)
        gapLimit = limit
        var inZone = [Int64](repeating: 0, count: 7)
        var counted: Int64 = 0
        for (i, join) in Self.joined(points, limit: limit).enumerated() where join {
            let dt = points[i].time.millisecondsSince1970 - points[i - 1].time.millisecondsSince1970
            counted += dt
            if let zones, let rate = Self.rate(points[i - 1]) { inZone[zones.zone(of: rate)] += dt }
        }
        countedMilliseconds = counted
        millisecondsInZone = inZone
    }

    /// The rates' mean, rounded, and their maximum; nil for none. The one rule for a run's,
    /// a lap's and a file's average (the files' laps and sessions use it too).
    public static func averageAndMaximum(_ rates: some Sequence<Int>) -> (average: Int, maximum: Int)? {
        var sum = 0, count = 0, maximum = 0
        for r in rates {
            sum += r
            count += 1
            maximum = max(maximum, r)
        }
        guard count > 0 else { return nil }
        return (Int((Double(sum) / Double(count)).rounded()), maximum)
    }

    /// A point's heart rate, when it has one (a rate of zero is a strap off the chest).
    public static func rate(_ point: TrackPoint) -> Int? {
        guard let r = point.heartRate, r > 0 else { return nil }
        return r
    }

    /// `gapLimit` for these points (see the type's documentation).
    public static func gapLimit(_ points: [TrackPoint]) -> Int64 {
        var intervals: [Int64] = []
        for i in points.indices.dropFirst() where points[i - 1].segment == points[i].segment
            && rate(points[i - 1]) != nil && rate(points[i]) != nil {
            let dt = points[i].time.millisecondsSince1970 - points[i - 1].time.millisecondsSince1970
            if dt > 0 { intervals.append(dt) }
        }
        guard !intervals.isEmpty else { return minimumGapLimit }
        intervals.sort()
        return max(minimumGapLimit, intervals[intervals.count / 2] * 3 / 2)
    }

    /// One per point: whether the time from the point before is counted (and the chart joins
    /// the two). The first point's is false.
    public static func joined(_ points: [TrackPoint], limit: Int64) -> [Bool] {
        points.indices.map { i in
            guard i > 0, points[i - 1].segment == points[i].segment, rate(points[i - 1]) != nil,
                  rate(points[i]) != nil else { return false }
            let dt = points[i].time.millisecondsSince1970 - points[i - 1].time.millisecondsSince1970
            return dt > 0 && dt <= limit
        }
    }

    /// `gapLimit` in seconds: `10 s`, `45 s`, `10.5 s`.
    public var gapLimitText: String {
        (gapLimit % 1000 == 0 ? "\(gapLimit / 1000)" : ActivityFormat.fixed(Double(gapLimit) / 1000, places: 1)) + " s"
    }

    /// Zone `n`'s time (0 below zone 1, 6 above zone 5) as a share of the time counted, 0…1.
    public func share(zone n: Int) -> Double {
        countedMilliseconds > 0 ? Double(millisecondsInZone[n]) / Double(countedMilliseconds) : 0
    }

    /// `mm:ss`, the minutes running past 59 (`75:02`): a zone's time reads as minutes.
    public static func minutesAndSeconds(_ milliseconds: Int64) -> String {
        let seconds = (milliseconds + 500) / 1000
        let m = seconds / 60, s = seconds % 60
        return (m < 10 ? "0" : "") + "\(m):" + (s < 10 ? "0" : "") + "\(s)"
    }

    /// The zones shown: 0 (below zone 1) and 6 (above zone 5) only when time was spent there.
    public var shownZones: [Int] {
        (0...6).filter { (1...5).contains($0) || millisecondsInZone[$0] > 0 }
    }

    /// A zone's name in a table: `Z2 endurance`, `below Z1`, `above Z5`.
    public static func zoneName(_ n: Int) -> String {
        n == 0 ? "below Z1" : n == 6 ? "above Z5" : "Z\(n) " + HeartRateZones.names[n - 1]
    }

    /// A zone's rates, bpm, with `dash` between: `131-143`, `< 100`, `> 190`.
    public static func zoneRange(_ n: Int, _ zones: HeartRateZones, dash: String = "-") -> String {
        if n == 0 { return "< \(zones.floors[0])" }
        if n == 6 { return "> \(zones.floors[5])" }
        let r = zones.range(zone: n)
        return "\(r.lowerBound)\(dash)\(r.upperBound)"
    }

    /// The method the zones were made by, as a report names it: its title, and that it is a
    /// guess when the maximum was estimated from age.
    public static func methodLine(_ zones: HeartRateZones) -> String {
        zones.method.title + (zones.isEstimate ? ", estimated from age" : "")
    }

    /// What a report says when the run has a heart rate and the athlete no zones.
    public static let noZones = "no heart-rate zones set: set them with `pacer profile set --max-hr BPM` "
        + "(or --threshold-hr, --resting-hr, --age)"
}
