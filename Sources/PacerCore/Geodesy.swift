/// Distances and bearings on the Earth, for track lengths and speeds, the route follower and
/// the NMEA synthesizer: one haversine for all of them.
///
/// In `PortableMath` (no libm): the same bits on every machine, so a figure the desktop
/// computes is the one the board computes, and a synthesized recording is byte-identical
/// wherever it is made.
public enum Geodesy {
    /// The IUGG mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres (haversine). Within 0.5 % of the ellipsoidal distance
    /// everywhere, and far better than that between consecutive GPS fixes; exact at the
    /// antimeridian and the poles.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let lat1 = a.latitude * PortableMath.radians, lat2 = b.latitude * PortableMath.radians
        let dLon = normalizedLongitude(b.longitude - a.longitude) * PortableMath.radians
        let s1 = PortableMath.sin((lat2 - lat1) / 2), s2 = PortableMath.sin(dLon / 2)
        let h = s1 * s1 + PortableMath.cos(lat1) * PortableMath.cos(lat2) * s2 * s2
        return 2 * earthRadius * PortableMath.asin(min(1, h.squareRoot()))
    }

    /// Initial great-circle bearing from `a` to `b`, degrees true in 0 ..< 360.
    public static func bearing(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let (sin1, cos1) = PortableMath.sinCos(a.latitude * PortableMath.radians)
        let (sin2, cos2) = PortableMath.sinCos(b.latitude * PortableMath.radians)
        let (sinD, cosD) = PortableMath.sinCos(normalizedLongitude(b.longitude - a.longitude) * PortableMath.radians)
        let theta = PortableMath.atan2(sinD * cos2, cos1 * sin2 - sin1 * cos2 * cosD) * PortableMath.degrees
        let course = theta < 0 ? theta + 360 : theta
        return course < 360 ? course : 0
    }

    /// A longitude in −180 ..< 180.
    public static func normalizedLongitude(_ lon: Double) -> Double {
        var x = lon
        if x >= 180 || x < -180 {
            x = (x + 180).truncatingRemainder(dividingBy: 360)
            if x < 0 { x += 360 }
            x -= 180
        }
        return x
    }
}
