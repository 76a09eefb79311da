import PacerCore

/// The satellites a synthesized receiver sees: for each constellation, which are above the
/// horizon, where (elevation, azimuth), how strong (C/N0), and which the fix uses.
///
/// Not an orbit propagator, but shaped like the real sky: each satellite passes overhead once
/// per orbital period of its constellation (GPS 11 h 58 min, GLONASS 11 h 16 min, Galileo
/// 14 h 05 min, BeiDou MEO 12 h 53 min), above the horizon for about a third of it, rising to
/// a maximum elevation of its own and sweeping across part of the sky. Passes are spread
/// evenly over the period, so about as many satellites are in view at any time as a receiver
/// in the open reports (GPS ~12, the others ~8–10), rising and setting slowly during a long
/// run. Signal strength grows with elevation, with a per-satellite bias and a slow wobble.
/// Everything is drawn from the seed: the same recipe gives the same sky.
struct SkyModel {
    struct Satellite {
        /// The satellite id as NMEA 4.1 numbers it (GPS 1–32, GLONASS 65–96, Galileo 1–36
        /// and BeiDou 1–37 under their own talkers), as a u-blox M8 does.
        let id: Int
        /// Where in its period the satellite is at the recording's start, 0 ..< 1.
        let phase: Double
        /// The part of each period spent above the horizon.
        let passFraction: Double
        let maximumElevation: Double
        let azimuthStart: Double
        let azimuthSweep: Double
        /// dB-Hz added to every reading (antenna pattern, satellite age).
        let signalBias: Double
        /// Keys the satellite's signal wobble (a hash, not a stream: the wobble depends on the
        /// time alone, not on how often the sky was looked at).
        let wobbleKey: UInt64
    }

    /// A satellite in view at the last update, as GSV reports it.
    struct InView {
        var id: Int
        /// Degrees, 0…90.
        var elevation: Int
        /// Degrees true, 0 ..< 360.
        var azimuth: Int
        /// dB-Hz; nil when the receiver is not tracking (searching, in a tunnel).
        var snr: Int?
        var used: Bool
    }

    struct System {
        let constellation: NMEASynthesisRecipe.Constellation
        let period: Double
        let satellites: [Satellite]
        /// In id order, as receivers list them. Reused between updates.
        var inView: [InView] = []
        var usedCount = 0
    }

    private(set) var systems: [System]
    private(set) var usedTotal = 0
    private(set) var inViewTotal = 0
    /// Whether the last update was for a receiver with a fix.
    private(set) var tracking = false

    /// Elevation mask: lower satellites are not reported.
    static let horizonDegrees = 2.5
    /// A satellite this high with this much signal goes into the fix.
    static let usedElevation = 10.0
    static let usedSNR = 28
    /// GSA lists at most twelve satellites per system.
    static let maximumUsedPerSystem = 12
    /// Seconds between the signal wobble's knots.
    static let wobbleSeconds = 10.0

    init(constellations: [NMEASynthesisRecipe.Constellation], seed: UInt64) {
        var systems: [System] = []
        for c in constellations {
            var random = SeededRandom(seed: seed, stream: 100 + UInt64(c.systemID))
            let ids = SkyModel.ids(c)
            // Spread the passes evenly over the period, in a shuffled order, so that the count
            // in view stays steady while which satellites are up is left to the seed.
            var slots = Array(0..<ids.count)
            for i in stride(from: slots.count - 1, to: 0, by: -1) {
                slots.swapAt(i, random.integer(below: i + 1))
            }
            var satellites: [Satellite] = []
            for (i, id) in ids.enumerated() {
                let sweep = random.uniform(40, 160)
                satellites.append(Satellite(
                    id: id,
                    phase: (Double(slots[i]) + random.uniform(0, 0.8)) / Double(ids.count),
                    passFraction: random.uniform(0.32, 0.42),
                    maximumElevation: random.uniform(12, 88),
                    azimuthStart: random.uniform(0, 360),
                    azimuthSweep: random.uniform(0, 1) < 0.5 ? -sweep : sweep,
                    signalBias: random.uniform(-3, 3),
                    wobbleKey: random.next()))
            }
            systems.append(System(constellation: c, period: SkyModel.period(c), satellites: satellites))
        }
        self.systems = systems
    }

    /// The sky `t` seconds after the recording's start; `tracking` is false for a receiver
    /// without a fix (satellites are listed from the almanac, without signal, none used).
    mutating func update(at t: Double, tracking: Bool) {
        self.tracking = tracking
        usedTotal = 0
        inViewTotal = 0
        for s in systems.indices {
            var system = systems[s]
            system.inView.removeAll(keepingCapacity: true)
            system.usedCount = 0
            for sat in system.satellites {
                var p = sat.phase + t / system.period
                p -= p.rounded(.down)
                guard p < sat.passFraction else { continue }
                let q = p / sat.passFraction
                let elevation = sat.maximumElevation * PortableMath.sin(PortableMath.pi * q)
                guard elevation >= SkyModel.horizonDegrees else { continue }
                var azimuth = Int((sat.azimuthStart + sat.azimuthSweep * q).rounded())
                azimuth %= 360
                if azimuth < 0 { azimuth += 360 }
                var view = InView(id: sat.id, elevation: Int(elevation.rounded()), azimuth: azimuth, snr: nil, used: false)
                if tracking {
                    let signal = 20 + 27 * (elevation / 90).squareRoot() + sat.signalBias
                        + 2.5 * SkyModel.wobble(sat.wobbleKey, t)
                    let snr = min(52, max(12, Int(signal.rounded())))
                    view.snr = snr
                    if elevation >= SkyModel.usedElevation, snr >= SkyModel.usedSNR,
                       system.usedCount < SkyModel.maximumUsedPerSystem {
                        view.used = true
                        system.usedCount += 1
                    }
                }
                system.inView.append(view)
            }
            usedTotal += system.usedCount
            inViewTotal += system.inView.count
            systems[s] = system
        }
        if tracking, usedTotal < 4 { useHighest(4 - usedTotal) }
    }

    /// A fix needs four satellites: with a poor sky (one constellation, a low mask) the
    /// highest ones not yet used make up the number.
    private mutating func useHighest(_ missing: Int) {
        for _ in 0..<missing {
            var best: (system: Int, index: Int, elevation: Int)?
            for (s, system) in systems.enumerated() where system.usedCount < SkyModel.maximumUsedPerSystem {
                for (i, v) in system.inView.enumerated() where !v.used && v.elevation > (best?.elevation ?? -1) {
                    best = (s, i, v.elevation)
                }
            }
            guard let best else { return }
            systems[best.system].inView[best.index].used = true
            systems[best.system].usedCount += 1
            usedTotal += 1
        }
    }

    /// Horizontal dilution of precision for the satellites used: better with more of them, as
    /// receivers report it (about 0.6 with twenty-five, 1.0 with eight, 1.5 with four).
    var hdop: Double { 0.45 + 4.2 / Double(max(usedTotal, 1)) }
    var vdop: Double { hdop * 1.45 + 0.05 }
    var pdop: Double { (hdop * hdop + vdop * vdop).squareRoot() }

    /// A smooth value in −1 ..< 1 that changes over tens of seconds: straight lines between
    /// hashed knots `wobbleSeconds` apart.
    static func wobble(_ key: UInt64, _ t: Double) -> Double {
        let x = t / wobbleSeconds
        let knot = x.rounded(.down)
        let f = x - knot
        let k = UInt64(bitPattern: Int64(knot))
        let a = knotValue(key, k), b = knotValue(key, k &+ 1)
        return a + (b - a) * f
    }

    private static func knotValue(_ key: UInt64, _ knot: UInt64) -> Double {
        let h = SplitMix64.mix(key ^ (knot &* 0x9E37_79B9_7F4A_7C15))
        return Double(h >> 11) * 0x1.0p-52 - 1
    }

    static func period(_ c: NMEASynthesisRecipe.Constellation) -> Double {
        switch c {
        case .gps: 43_082
        case .glonass: 40_544
        case .galileo: 50_680
        case .beidou: 46_404
        }
    }

    /// The satellites of each system, by their NMEA ids.
    static func ids(_ c: NMEASynthesisRecipe.Constellation) -> [Int] {
        switch c {
        case .gps: Array(1...32)
        case .glonass: Array(65...88)
        case .galileo: [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 19, 21, 24, 25, 26, 27, 29, 30, 31, 33, 34, 36]
        case .beidou: Array(6...14) + [16] + Array(19...37)
        }
    }
}
