import PacerCore

/// The distance along a recording at each of its points: the one rule the activity's figures,
/// its files (FIT, GPX, TCX laps) and its charts share.
///
/// - The odometer's reading, when every point carries one (a recording on the device): the
///   distance the coach counted, which the activity's total is. The straight lines between the
///   points kept every 30 s are shorter.
/// - Else the straight legs between consecutive points, summed within each segment only: a
///   pause or a loss of fix starts a new segment, and the straight line across the gap was not
///   run.
public struct TrackDistance: Hashable, Sendable {
    /// Metres from the start at each point, in the points' order (segment by segment).
    public var along: [Double]
    /// True when `along` holds the odometer's readings.
    public var onOdometer: Bool
    /// The straight legs' sum over every segment, whichever `along` holds.
    public var legs: Double

    /// The points of `segments`, each in order. `odometer` false: the legs, even where the
    /// points carry readings (an activity not recorded here).
    public init(segments: [[PathPoint]], odometer: Bool = true) {
        self.init(segments, position: \.position, reading: \.odometer, odometer: odometer)
    }

    /// `points` in order, a new segment wherever the segment number changes.
    public init(points: [TrackPoint], odometer: Bool = true) {
        self.init(ActivityStatistics.segments(of: points), position: \.position, reading: \.distance, odometer: odometer)
    }

    /// The straight legs' sum over `segments`, the gaps between them adding nothing.
    public static func legs(_ segments: [[GeoPoint]]) -> Double {
        legs(segments, position: { $0 }).total
    }

    private init<Point>(_ segments: [[Point]], position: (Point) -> GeoPoint, reading: (Point) -> Double?,
                        odometer: Bool) {
        let straight = TrackDistance.legs(segments, position: position)
        legs = straight.total
        onOdometer = odometer && segments.contains { !$0.isEmpty }
            && segments.allSatisfy { $0.allSatisfy { reading($0) != nil } }
        along = onOdometer ? segments.flatMap { $0.map { reading($0)! } } : straight.along
    }

    private static func legs<Point>(_ segments: [[Point]], position: (Point) -> GeoPoint)
        -> (along: [Double], total: Double) {
        var along: [Double] = []
        along.reserveCapacity(segments.reduce(0) { $0 + $1.count })
        var total = 0.0
        for segment in segments {
            var previous: GeoPoint?
            for point in segment {
                let here = position(point)
                if let previous { total += Geodesy.distance(previous, here) }
                previous = here
                along.append(total)
            }
        }
        return (along, total)
    }
}
