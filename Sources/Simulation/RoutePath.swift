import PacerCore

/// A route prepared for following: distances along it, each leg's direction, and the rule
/// at its end (laps on a closed route, out and back on an open one).
///
/// Legs are great-circle lengths (haversine on the mean Earth radius, as `Geodesy` measures
/// tracks); a point within a leg is interpolated linearly in latitude and longitude, the
/// longitude the short way round, so a leg across the antimeridian (179.9° to −179.9°) is
/// 0.2° long, not 359.8°. GPX legs are tens of metres, where the two agree to far below what
/// NMEA can write.
struct RoutePath {
    struct Location {
        var position: GeoPoint
        var altitude: Double?
        /// Degrees true, the direction of travel.
        var course: Double
    }

    private let points: [GeoPoint]
    private let altitudes: [Double]?
    /// Metres from the first point to each point.
    private let cumulative: [Double]
    /// Longitude change of each leg, −180…180.
    private let deltaLongitude: [Double]
    /// Direction of each leg from its first point, degrees true.
    private let bearings: [Double]
    /// One lap, or one way.
    let length: Double
    /// Followed in laps (the ends within `closedRouteMetres`), else out and back.
    let isClosed: Bool
    /// The leg of the last lookup: lookups move along the route, so the next leg is found
    /// from here in a step or two.
    private var leg = 0

    /// Nil for a route without two distinct points.
    init?(_ route: NMEASynthesisRecipe.Route) {
        var points: [GeoPoint] = []
        var altitudes: [Double] = []
        for (i, p) in route.points.enumerated() {
            // Repeated points (a GPS standing still) make legs without a direction.
            if let last = points.last, Geodesy.distance(last, p) < 0.001 { continue }
            points.append(p)
            if let a = route.altitudes { altitudes.append(a[i]) }
        }
        guard points.count >= 2 else { return nil }
        let gap = Geodesy.distance(points[points.count - 1], points[0])
        isClosed = gap <= NMEASynthesisRecipe.closedRouteMetres
        if isClosed, gap >= 0.001 {
            // The leg from the last point back to the first is part of each lap.
            points.append(points[0])
            if route.altitudes != nil { altitudes.append(altitudes[0]) }
        } else if isClosed {
            points[points.count - 1] = points[0]
        }
        var cumulative = [0.0]
        var delta: [Double] = []
        var bearings: [Double] = []
        for i in 1..<points.count {
            cumulative.append(cumulative[i - 1] + Geodesy.distance(points[i - 1], points[i]))
            delta.append(Geodesy.normalizedLongitude(points[i].longitude - points[i - 1].longitude))
            bearings.append(Geodesy.bearing(points[i - 1], points[i]))
        }
        self.points = points
        self.altitudes = route.altitudes == nil ? nil : altitudes
        self.cumulative = cumulative
        self.deltaLongitude = delta
        self.bearings = bearings
        length = cumulative[cumulative.count - 1]
    }

    /// Where the runner is after `distance` metres from the route's start.
    mutating func locate(distance: Double) -> Location {
        let d = max(0, distance)
        if isClosed {
            return at(d.truncatingRemainder(dividingBy: length), backwards: false)
        }
        let u = d.truncatingRemainder(dividingBy: 2 * length)
        return u <= length ? at(u, backwards: false) : at(2 * length - u, backwards: true)
    }

    private mutating func at(_ u: Double, backwards: Bool) -> Location {
        let last = cumulative.count - 2
        while leg < last, cumulative[leg + 1] <= u { leg += 1 }
        while leg > 0, cumulative[leg] > u { leg -= 1 }
        let a = points[leg], b = points[leg + 1]
        let legLength = cumulative[leg + 1] - cumulative[leg]
        let f = min(1, max(0, (u - cumulative[leg]) / legLength))
        let position = GeoPoint(
            latitude: a.latitude + f * (b.latitude - a.latitude),
            longitude: Geodesy.normalizedLongitude(a.longitude + f * deltaLongitude[leg]))
        let altitude = altitudes.map { $0[leg] + f * ($0[leg + 1] - $0[leg]) }
        var course = bearings[leg]
        if backwards { course = course >= 180 ? course - 180 : course + 180 }
        return Location(position: position, altitude: altitude, course: course)
    }
}
