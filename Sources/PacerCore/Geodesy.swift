// libm's sin, cos, asin, sqrt, and nothing else of the system: no Foundation in the domain.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the Earth, for track lengths and speeds.
public enum Geodesy {
    /// The IUGG mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres (haversine). Within 0.5 % of the ellipsoidal distance
    /// everywhere, and far better than that between consecutive GPS fixes; exact at the
    /// antimeridian and the poles.
    public static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let lat1 = a.latitude * .pi / 180, lat2 = b.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }
}
