import Coaching
import PacerCore
import Testing

/// The receiver's Doppler speeds calibrated by its positions (issue 39, item 4): a receiver
/// whose speeds read 3 % low shortened every kilometre by 3 %; the positions, compared over
/// 60 s stretches, establish the scale and the odometer counts the speeds at it. An unbiased
/// receiver's speeds are counted as they are.
@Suite("Doppler scale")
struct DopplerScaleTests {
    static let metresPerDegree = Geodesy.distance(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 1))

    /// A runner at 3 m/s for `seconds` at 1 Hz round a block of streets (a turn every 100 m),
    /// the receiver's positions off by a seeded ±`noise` m, its speeds times `bias`, its
    /// courses true. Each fix: position, speed, course.
    static func run(seconds: Int, bias: Double, noise: Double = 2) -> [(GeoPoint, Double, Double)] {
        var fixes: [(GeoPoint, Double, Double)] = []
        var east = 0.0, north = 0.0, heading = 0.0
        var seed: UInt64 = 7
        func jitter() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return (Double(seed >> 11) / Double(1 << 53) * 2 - 1) * noise
        }
        for s in 0...seconds {
            if s > 0 && s % 34 == 0 { heading = (heading + (s % 68 == 0 ? 90 : 270)).truncatingRemainder(dividingBy: 360) }
            let (sine, cosine) = PortableMath.sinCos(heading * PortableMath.radians)
            east += 3 * sine
            north += 3 * cosine
            let position = GeoPoint(latitude: (north + jitter()) / metresPerDegree, longitude: (east + jitter()) / metresPerDegree)
            fixes.append((position, 3 * bias, heading))
        }
        return fixes
    }

    @Test func aBiasOfThreePercentIsEstablishedAndAnUnbiasedReceiverIsLeftAlone() {
        for (bias, expected) in [(0.97, 1 / 0.97), (1.0, 1.0), (1.03, 1 / 1.03)] {
            var scale = DopplerScale()
            for (i, (p, v, c)) in Self.run(seconds: 600, bias: bias).enumerated() {
                scale.add(p, speed: v, course: c, at: Instant.zero + .seconds(i))
            }
            #expect(scale.count == 10, "a stretch every 60 s")
            #expect(abs(scale.factor - expected) < 0.005, "bias \(bias): factor \(scale.factor), estimate \(String(describing: scale.estimate))")
        }
    }

    /// Without courses nothing is compared (a dense stretch needs the velocity's direction),
    /// and a pause or a loss ends the stretch under way.
    @Test func withoutCoursesNothingIsCompared() {
        var scale = DopplerScale()
        for (i, (p, v, _)) in Self.run(seconds: 600, bias: 0.97).enumerated() {
            scale.add(p, speed: v, course: nil, at: Instant.zero + .seconds(i))
        }
        #expect(scale.count == 0)
        #expect(scale.factor == 1)
    }

    /// The odometer counts the speeds at the scale once it is established, and counts again
    /// at it what the speeds decided before: ten minutes at 3 m/s read 1800 m within 0.5 %,
    /// where the receiver's speeds alone say 1746 m.
    @Test func theOdometerCountsTheWholeRunAtTheEstablishedScale() {
        var odometer = Odometer()
        for (i, (p, v, c)) in Self.run(seconds: 600, bias: 0.97).enumerated() {
            odometer.add(p, speed: v, course: c, at: Instant.zero + .seconds(i))
        }
        #expect(abs(odometer.distance - 1800) / 1800 < 0.005, "\(odometer.distance) m")
        var unscaled = Odometer()
        for (i, (p, v, _)) in Self.run(seconds: 600, bias: 0.97).enumerated() {
            unscaled.add(p, speed: v, course: nil, at: Instant.zero + .seconds(i))
        }
        #expect(abs(unscaled.distance - 1746) < 1, "\(unscaled.distance) m")
    }
}
