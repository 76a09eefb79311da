/// The elementary functions the NMEA synthesizer and the plan generator need, computed with IEEE 754 additions,
/// multiplications, divisions and square roots only.
///
/// Why not the C library's `sin`, `log`, …: glibc, macOS's libm and musl each round a few
/// results differently in the last bit, and a synthesized recording must be byte-identical
/// from the same recipe on any machine. The basic operations are correctly rounded
/// everywhere (Swift never fuses a multiply and an add behind one's back), so functions built
/// from them alone give the same bits everywhere. They are accurate to a few units in the
/// last place over the ranges used here, which is far below the 2 cm an NMEA position can
/// express.
public enum PortableMath {
    public static let pi = 3.141592653589793
    public static let degrees = 180 / pi
    public static let radians = pi / 180

    // π/2 and ln 2 split in a short head (exact when multiplied by a small integer) and the
    // rest, for argument reduction (Cody and Waite; the constants are fdlibm's).
    private static let halfPiHead = 1.57079632673412561417e+00
    private static let halfPiTail = 6.07710050650619224932e-11
    private static let ln2Head = 6.93147180369123816490e-01
    private static let ln2Tail = 1.90821492927058770002e-10
    private static let ln2 = 0.6931471805599453
    private static let sqrt2 = 1.4142135623730951
    private static let sqrt3 = 1.7320508075688772
    private static let tanPiOver12 = 0.2679491924311227

    /// Sine and cosine together. Meant for arguments up to some thousands of radians.
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        let n = (x * (2 / pi)).rounded()
        let r = (x - n * halfPiHead) - n * halfPiTail
        let z = r * r
        // Taylor series on |r| ≤ π/4, to r^17 and r^16: the next terms are below 1e-16.
        var s = 1 - z / 272
        s = 1 - z / 210 * s
        s = 1 - z / 156 * s
        s = 1 - z / 110 * s
        s = 1 - z / 72 * s
        s = 1 - z / 42 * s
        s = 1 - z / 20 * s
        s = r * (1 - z / 6 * s)
        var c = 1 - z / 240
        c = 1 - z / 182 * c
        c = 1 - z / 132 * c
        c = 1 - z / 90 * c
        c = 1 - z / 56 * c
        c = 1 - z / 30 * c
        c = 1 - z / 12 * c
        c = 1 - z / 2 * c
        switch Int(n) & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    public static func sin(_ x: Double) -> Double { sinCos(x).sin }
    public static func cos(_ x: Double) -> Double { sinCos(x).cos }

    /// Natural logarithm of a positive finite number.
    public static func log(_ x: Double) -> Double {
        precondition(x > 0 && x.isFinite, "log of \(x)")
        var e = Double(Int(x.exponent))
        var m = x.significand  // [1, 2), exact
        if m > sqrt2 {
            m *= 0.5
            e += 1
        }
        // log m = 2 artanh s with s = (m − 1)/(m + 1), |s| ≤ 0.172: the series in s² converges
        // to double precision in a dozen terms.
        let s = (m - 1) / (m + 1)
        let z = s * s
        var p = 1.0 / 25
        for k in stride(from: 11, through: 0, by: -1) {
            p = 1 / Double(2 * k + 1) + z * p
        }
        return e * ln2Head + (2 * s * p + e * ln2Tail)
    }

    /// e^x for |x| below about 700.
    public static func exp(_ x: Double) -> Double {
        precondition(abs(x) < 700, "exp of \(x)")
        let n = (x / ln2).rounded()
        let r = (x - n * ln2Head) - n * ln2Tail  // |r| ≤ 0.347
        var p = 1.0
        for k in stride(from: 15, through: 1, by: -1) {
            p = 1 + r * p / Double(k)
        }
        return p * Double(sign: .plus, exponent: Int(n), significand: 1)
    }

    /// Arc tangent, in radians.
    public static func atan(_ x: Double) -> Double {
        guard !x.isNaN else { return x }
        var a = abs(x)
        let inverted = a > 1
        if inverted { a = 1 / a }
        // atan a = π/6 + atan((√3·a − 1)/(√3 + a)) brings a into [−tan π/12, tan π/12].
        let shifted = a > tanPiOver12
        if shifted { a = (sqrt3 * a - 1) / (sqrt3 + a) }
        let z = a * a
        var p = 1.0 / 31
        for k in stride(from: 14, through: 0, by: -1) {
            p = 1 / Double(2 * k + 1) - z * p
        }
        var r = a * p
        if shifted { r += pi / 6 }
        if inverted { r = pi / 2 - r }
        return x < 0 ? -r : r
    }

    /// The angle of the point (x, y) from the x axis, in (−π, π].
    public static func atan2(_ y: Double, _ x: Double) -> Double {
        if x > 0 { return atan(y / x) }
        if x < 0 { return y < 0 ? atan(y / x) - pi : atan(y / x) + pi }
        if y > 0 { return pi / 2 }
        if y < 0 { return -pi / 2 }
        return 0
    }

    /// Arc sine of a number in [−1, 1].
    public static func asin(_ x: Double) -> Double {
        atan2(x, ((1 - x) * (1 + x)).squareRoot())
    }
}
