/// A flat map about a point: equirectangular metres east and north of `origin`, east-west
/// distances scaled by the cosine of one latitude. Exact to well under a metre over the few
/// hundred metres a route's leg, a privacy circle or a dead reckoning spans, and to scale over
/// a run's map. The route follower, the privacy circles, the waypoint placer, the maps and
/// the NMEA synthesizer all project with it, in `PortableMath` (the same bits everywhere).
public struct LocalPlane: Hashable, Sendable {
    /// Metres per degree of latitude (and of longitude on the equator).
    public static let metresPerDegree = Geodesy.earthRadius * PortableMath.radians

    /// The point at (0, 0).
    public var origin: GeoPoint
    /// Metres per degree of longitude: `metresPerDegree` times the scale latitude's cosine.
    public var metresPerDegreeEast: Double

    /// The plane tangent at `origin`, or about `scaleLatitude` (a map's middle latitude) when
    /// given. The cosine is taken as at least `leastCosine`: near a pole, where it vanishes, a
    /// few metres east would be many degrees of longitude.
    public init(origin: GeoPoint, scaleLatitude: Double? = nil, leastCosine: Double = 0) {
        self.origin = origin
        let cosine = PortableMath.cos((scaleLatitude ?? origin.latitude) * PortableMath.radians)
        metresPerDegreeEast = LocalPlane.metresPerDegree * max(leastCosine, cosine)
    }

    /// A map's plane for `points`: about the south-west corner of the box round them, scaled
    /// at its middle latitude, so that every point is east and north of the origin. When the
    /// points span more than 180° of longitude they cross the antimeridian, and the west edge
    /// is the westernmost point east of it. Nil for no points.
    public static func map(of points: [GeoPoint]) -> LocalPlane? {
        guard let first = points.first else { return nil }
        var south = first.latitude, north = first.latitude, west = first.longitude, east = first.longitude
        for p in points {
            south = min(south, p.latitude)
            north = max(north, p.latitude)
            west = min(west, p.longitude)
            east = max(east, p.longitude)
        }
        if east - west > 180 {
            west = points.lazy.map(\.longitude).filter { $0 >= 0 }.min() ?? west
        }
        return LocalPlane(origin: GeoPoint(latitude: south, longitude: west), scaleLatitude: (south + north) / 2)
    }

    /// Metres east and north of `origin`; longitudes are taken the short way round.
    public func metres(_ p: GeoPoint) -> (east: Double, north: Double) {
        (Geodesy.normalizedLongitude(p.longitude - origin.longitude) * metresPerDegreeEast,
         (p.latitude - origin.latitude) * LocalPlane.metresPerDegree)
    }

    /// The position `east` and `north` metres from `origin` (latitude held within ±90°,
    /// longitude within −180 ..< 180).
    public func point(east: Double, north: Double) -> GeoPoint {
        GeoPoint(latitude: min(90, max(-90, origin.latitude + north / LocalPlane.metresPerDegree)),
                 longitude: Geodesy.normalizedLongitude(origin.longitude + east / metresPerDegreeEast))
    }

    /// Metres from `p` to the nearest point of the segment from `a` to `b`, in the plane
    /// tangent at `p`.
    public static func distance(from p: GeoPoint, toSegment a: GeoPoint, _ b: GeoPoint) -> Double {
        let plane = LocalPlane(origin: p)
        let (ax, ay) = plane.metres(a), (bx, by) = plane.metres(b)
        let dx = bx - ax, dy = by - ay
        let squared = dx * dx + dy * dy
        let t = squared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / squared)) : 0
        let x = ax + t * dx, y = ay + t * dy
        return (x * x + y * y).squareRoot()
    }
}
