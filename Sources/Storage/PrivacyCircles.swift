import Foundation
import PacerCore

// The places a share hides (R18) and how: each hidden circle is moved off the place by the
// device's secret, so that the track's cut points do not point at it (docs/using.md, "What
// a share hides, and what it tells").

/// A place whose points are never shared: the runner's home, their work (`privacy_zones:` in
/// the settings). A point is in the zone when it is no further than `radius` from its centre.
public struct PrivacyZone: Hashable, Sendable {
    public var name: String
    public var center: GeoPoint
    /// Metres.
    public var radius: Double

    public init(name: String, center: GeoPoint, radius: Double) {
        self.name = name
        self.center = center
        self.radius = radius
    }

    public func contains(_ point: GeoPoint) -> Bool {
        Geodesy.distance(center, point) <= radius
    }
}

/// The device's share secret: 16 random bytes made once, when the data folder is created or
/// first opened by a version that has it (migration v6, `device_state.share_secret`, 32 hex
/// digits), and never written again. A share reads it (the share opens the database for
/// reading) and derives from it, by a keyed hash, how far and which way each hidden circle
/// is moved off the place it hides (`PrivacyCircle`): the same place always gets the same
/// circle on this device, and without the secret the offset cannot be told.
public struct ShareSecret: Hashable, Sendable, CustomStringConvertible {
    let k0: UInt64
    let k1: UInt64

    /// The key as two 64-bit words (SipHash's `k0`, `k1`: the 16 bytes read little-endian).
    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// 32 hex digits (as the database holds it); nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32, digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) })
        else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        k0 = Self.littleEndian(bytes[0..<8])
        k1 = Self.littleEndian(bytes[8..<16])
    }

    /// Never the key itself, should a secret end up in a log.
    public var description: String { "ShareSecret(…)" }

    static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// SipHash-2-4 of `bytes` under this key (Aumasson and Bernstein, 2012: a keyed hash
    /// made for short inputs; without the key its outputs cannot be told from random ones,
    /// and the key cannot be found from them). Foundation has none, and the package takes
    /// no cryptographic library: it is twenty lines, checked against the paper's vectors.
    public func sipHash(_ bytes: [UInt8]) -> UInt64 {
        var v0 = k0 ^ 0x736f_6d65_7073_6575, v1 = k1 ^ 0x646f_7261_6e64_6f6d
        var v2 = k0 ^ 0x6c79_6765_6e65_7261, v3 = k1 ^ 0x7465_6462_7974_6573
        func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }
        func absorb(_ m: UInt64) {
            v3 ^= m
            round(); round()
            v0 ^= m
        }
        let whole = bytes.count / 8 * 8
        for i in stride(from: 0, to: whole, by: 8) { absorb(Self.littleEndian(bytes[i..<i + 8])) }
        absorb(UInt64(truncatingIfNeeded: bytes.count) << 56 | Self.littleEndian(bytes[whole...]))
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    /// Two numbers in 0 ..< 1 for a place: the hash of a tag (what kind of place) and the
    /// exact bits of the numbers that name it, split in two 32-bit halves.
    func uniforms(_ tag: String, _ values: [Double]) -> (Double, Double) {
        var bytes = Array(tag.utf8) + [0]
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        let h = sipHash(bytes)
        return (Double(h >> 32) / 4_294_967_296, Double(h & 0xffff_ffff) / 4_294_967_296)
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ n: UInt64) -> UInt64 { self << n | self >> (64 - n) }
}

/// A circle a share hides: not the place's own circle, whose centre a
/// circle fitted to where the track stops would find within a metre, but a larger one
/// moved off it. For a place of radius `r` the centre is moved by `d`, its length a
/// fraction of `r` in `zoneOffset` (a settings zone) or `endOffset` (`--hide-within`) and
/// its direction any, both derived from the device's secret and the place (`ShareSecret`);
/// the radius is `r` times one more than the range's top (and a thousandth of `r` for the
/// plane's approximation, and the anchor distance round a start or end), the same whatever
/// `d`, so the radius says nothing of how far the centre was moved. Every point within `r`
/// of the place is inside; the centre is never nearer the place than the range's bottom
/// times `r` (less the anchor's distance from the place, round a start or end).
public struct PrivacyCircle: Hashable, Sendable {
    public var center: GeoPoint
    /// Metres.
    public var radius: Double
    /// 0 the start and end (`--hide-within`), `i + 1` the privacy zone `i`.
    public var place: Int

    public init(center: GeoPoint, radius: Double, place: Int) {
        self.center = center
        self.radius = radius
        self.place = place
    }

    /// A settings privacy zone's centre is moved 0.6 r to 0.8 r.
    public static let zoneOffset = 0.6...0.8
    /// Around the start and the end the centre is moved 0.65 r to 0.85 r: the circle is the
    /// first recorded start or end near there (its anchor), a few metres of GPS error off.
    public static let endOffset = 0.65...0.85

    /// How near an earlier start or end must be to anchor the circle of a start or end
    /// hidden within `r` (`--hide-within`): an eighth of `r`, and never under 20 m, twice
    /// the usual error of a first fix. The centre is then at least `0.65 r` less the
    /// anchor's distance from the place away from it: above `r / 2` for `r` above 133 m
    /// whatever the anchor, and for any `r` when the anchor is the first run's start from
    /// the place (a few metres off it).
    public static func anchorDistance(_ r: Double) -> Double { max(r / 8, 20) }

    /// The circle that hides `zone`.
    public static func hiding(_ zone: PrivacyZone, place: Int, secret: ShareSecret) -> PrivacyCircle {
        let (u, v) = secret.uniforms("privacy-zone", [zone.center.latitude, zone.center.longitude, zone.radius])
        return moved(zone.center, radius: zone.radius, offset: zoneOffset, u, v, extra: 0, place: place)
    }

    /// The circle that hides everything within `r` of a start or end whose anchor (the first
    /// recorded start or end within `anchorDistance(r)` of it) is `anchor`: every run from
    /// the same door gets the same circle, whatever its fix's few metres of error, so many
    /// shares average nothing out. Its radius has `anchorDistance(r)` more, so that it holds
    /// everything within `r` of any start or end that takes this anchor.
    public static func hiding(within r: Double, of anchor: GeoPoint, secret: ShareSecret) -> PrivacyCircle {
        let (u, v) = secret.uniforms("hide-within", [anchor.latitude, anchor.longitude, r])
        return moved(anchor, radius: r, offset: endOffset, u, v, extra: anchorDistance(r), place: 0)
    }

    static func moved(_ center: GeoPoint, radius r: Double, offset: ClosedRange<Double>, _ u: Double, _ v: Double,
                      extra: Double, place: Int) -> PrivacyCircle {
        let length = r * (offset.lowerBound + (offset.upperBound - offset.lowerBound) * v)
        let (sin, cos) = PortableMath.sinCos(2 * PortableMath.pi * u)
        let moved = LocalPlane(origin: center, leastCosine: 1e-9).point(east: length * sin, north: length * cos)
        return PrivacyCircle(center: moved,
                             radius: r * (1 + offset.upperBound) + r / 1000 + extra, place: place)
    }

    public func contains(_ point: GeoPoint) -> Bool {
        Geodesy.distance(center, point) <= radius
    }
}

/// The places a shared file hides: the circles (`PrivacyCircle`) round the track's first and
/// last stored points and round the privacy zones.
struct PrivacyMask {
    var circles: [PrivacyCircle]

    var isEmpty: Bool { circles.isEmpty }

    /// Which place hides `point`: 0 the start and end, `i + 1` the zone `i`; nil: none.
    func place(of point: GeoPoint) -> Int? {
        circles.first { $0.contains(point) }?.place
    }

    /// Whether the straight line from `a` to `b` (two points outside every place) passes
    /// through one: sparse points (one every 77 m in the medium profile) either side of a
    /// 30 m zone would otherwise draw a line across it. The track is cut there. Measured in
    /// the plane tangent at the circle's centre: places are hundreds of metres across, legs
    /// tens to hundreds, and the plane is exact to well under a metre there.
    func crosses(from a: GeoPoint, to b: GeoPoint) -> Bool {
        circles.contains { LocalPlane.distance(from: $0.center, toSegment: a, b) <= $0.radius }
    }
}
