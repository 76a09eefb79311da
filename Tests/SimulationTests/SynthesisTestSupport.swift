import Foundation
import NMEA
import PacerCore
import Simulation

// Helpers for the synthesizer tests: routes made here (a circle, a straight line), a
// synthesis with its ground truth, and the project's own decoder run over the result.

enum SynthFixture {
    /// The point `metres` from `origin` towards `bearing` (degrees), on a sphere of the mean
    /// Earth radius; longitudes kept in −180…180.
    static func offset(_ origin: GeoPoint, metres: Double, bearing: Double) -> GeoPoint {
        let d = metres / Geodesy.earthRadius
        let b = bearing * .pi / 180
        let lat1 = origin.latitude * .pi / 180, lon1 = origin.longitude * .pi / 180
        let lat2 = asin(sin(lat1) * cos(d) + cos(lat1) * sin(d) * cos(b))
        let lon2 = lon1 + atan2(sin(b) * sin(d) * cos(lat1), cos(d) - sin(lat1) * sin(lat2))
        var lon = lon2 * 180 / .pi
        if lon >= 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return GeoPoint(latitude: lat2 * 180 / .pi, longitude: lon)
    }

    /// A closed loop: `count` points on a circle of `radius` metres (the last point is not
    /// repeated; the route's ends are one leg apart, well within 30 m).
    static func circle(center: GeoPoint, radius: Double, count: Int = 72) -> NMEASynthesisRecipe.Route {
        let points = (0..<count).map { offset(center, metres: radius, bearing: 360 * Double($0) / Double(count)) }
        return NMEASynthesisRecipe.Route(points: points, name: "circle")
    }

    /// An open straight route of `length` metres towards `bearing`, a point every `step` metres.
    static func line(from start: GeoPoint, bearing: Double, length: Double, step: Double = 50,
                     altitudes: ((Double) -> Double)? = nil) -> NMEASynthesisRecipe.Route {
        let n = Int((length / step).rounded())
        let along = (0...n).map { Double($0) * length / Double(n) }
        return NMEASynthesisRecipe.Route(
            points: along.map { offset(start, metres: $0, bearing: bearing) },
            altitudes: altitudes.map { f in along.map(f) }, name: "line")
    }

    static let hague = GeoPoint(latitude: 52.0705, longitude: 4.3016)
    static let start = UTCTimestamp(millisecondsSince1970: 1_777_705_200_000)  // 2026-05-02T07:00:00Z

    /// Synthesizes the recipe in full: the bytes and every epoch's ground truth.
    static func synthesize(_ recipe: NMEASynthesisRecipe, header: Bool = true) throws -> (bytes: [UInt8], epochs: [SynthesizedEpoch]) {
        var synthesizer = try NMEASynthesizer(recipe, writesHeader: header)
        var epochs: [SynthesizedEpoch] = []
        let bytes = synthesizer.recording { epochs.append($0) }
        return (bytes, epochs)
    }

    /// What the project's NMEA engine makes of the bytes.
    struct Decoded {
        var epochs: [NMEAEpoch] = []
        var statistics = NMEAStatistics()
        var rejections: [NMEARejection] = []

        var fixes: [Fix] {
            epochs.compactMap {
                if case .fix(let f) = $0 { return f }
                return nil
            }
        }

        /// Times of the cycles without a fix.
        var noFixTimes: [UTCTimestamp] {
            epochs.compactMap {
                if case .noFix(let t) = $0 { return t }
                return nil
            }
        }
    }

    static func decode(_ bytes: [UInt8], chunk: Int = 4096) -> Decoded {
        var decoder = NMEADecoder(checksumPolicy: .require)
        var result = Decoded()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            decoder.feed(bytes[start..<end], onEpoch: { result.epochs.append($0) }, onReject: { result.rejections.append($0) })
            start = end
        }
        decoder.finish(onEpoch: { result.epochs.append($0) }, onReject: { result.rejections.append($0) })
        result.statistics = decoder.statistics
        return result
    }

    /// The recording's lines (without CR LF).
    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// North and east offsets in metres from `truth` to `p` (small distances).
    static func error(_ p: GeoPoint, from truth: GeoPoint) -> (north: Double, east: Double) {
        let m = Geodesy.earthRadius * .pi / 180
        var dLon = p.longitude - truth.longitude
        if dLon > 180 { dLon -= 360 }
        if dLon < -180 { dLon += 360 }
        return ((p.latitude - truth.latitude) * m, dLon * m * cos(truth.latitude * .pi / 180))
    }

    /// Sum of great-circle legs between successive points.
    static func length(_ points: [GeoPoint]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + Geodesy.distance($1.0, $1.1) }
    }
}
