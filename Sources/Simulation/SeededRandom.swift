import PacerCore

/// A small deterministic random number generator: xoshiro256** seeded through SplitMix64
/// (Blackman and Vigna), with uniform and Gaussian draws of its own.
///
/// The standard library's generators and `Double.random(in:using:)` are not used: the first
/// are not seedable and the second's algorithm is not promised to stay the same between Swift
/// releases. Synthesized recordings must come out byte-identical from the same seed on any
/// machine and any toolchain, so every step from the 64-bit state to a Gaussian is written
/// out here (the logarithm and sine from `PortableMath`).
public struct SeededRandom: Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64
    /// Box–Muller makes Gaussians in pairs; the second waits here.
    private var spareGaussian: Double?

    /// A generator for `seed`. `stream` picks an independent sequence for the same seed, so
    /// that one part of a simulation (satellites, say) drawing more or fewer numbers does not
    /// shift another's (the position noise).
    public init(seed: UInt64, stream: UInt64 = 0) {
        var mixer = SplitMix64(state: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
        // xoshiro's state must not be all zeros; SplitMix64 cannot give four zeros in a row,
        // but say so rather than rely on it silently.
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// Uniform in [0, 1), in steps of 2⁻⁵³.
    public mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [low, high).
    public mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * uniform()
    }

    /// A whole number in 0..<bound, without modulo bias worth the name (bound ≪ 2⁶⁴).
    public mutating func integer(below bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A standard normal draw (mean 0, standard deviation 1), by Box–Muller.
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        let u1 = 1 - uniform()  // (0, 1]: the logarithm is finite
        let u2 = uniform()
        let r = (-2 * PortableMath.log(u1)).squareRoot()
        let (s, c) = PortableMath.sinCos(2 * PortableMath.pi * u2)
        spareGaussian = r * s
        return r * c
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}

/// SplitMix64 (Steele, Lea and Flood): spreads a seed over xoshiro's state, and serves as a
/// stateless hash where a value must depend only on its inputs (`mix`).
struct SplitMix64: Sendable {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// SplitMix64's output function: a good 64-bit hash of `z`.
    static func mix(_ z: UInt64) -> UInt64 {
        var z = z
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
