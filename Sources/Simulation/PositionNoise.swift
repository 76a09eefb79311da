import PacerCore

/// The position error of a receiver: for each axis (north, east, up), a first-order
/// Gauss–Markov process (correlation time `correlationSeconds`, the wander of satellite
/// geometry and atmosphere) seen through a first-order low-pass (`smoothingSeconds`, the
/// receiver's own navigation filter).
///
/// A first-order process alone has increments that grow with the square root of the interval:
/// at 1 Hz and 3 m it moves the position by ~0.8 m every second, and at 10 Hz by ~0.3 m
/// every tenth, so speeds computed from positions would be off by metres per second and a
/// track's length inflated by tens of percent. The filtered process is smooth: its speed error
/// is about σ/10 m/s at any rate, and a track's length is within a fraction of a percent,
/// as with a real receiver. The pair is scaled so that each horizontal axis has standard
/// deviation `sigma` in the steady state (and `verticalNoiseFactor` × `sigma` vertically),
/// and it starts in the steady state (a burn-in of several correlation times).
struct PositionNoise {
    struct Error {
        var north: Double
        var east: Double
        var up: Double
    }

    static let correlationSeconds = 25.0
    static let smoothingSeconds = 8.0

    private let sigma: Double
    private let a: Double
    private let b: Double
    /// Standard deviation of each step's innovation, for a unit output.
    private let drive: Double
    private var driving: (Double, Double, Double) = (0, 0, 0)
    private var output: (Double, Double, Double) = (0, 0, 0)
    private var random: SeededRandom

    init(sigma: Double, interval dt: Double, seed: UInt64) {
        self.sigma = sigma
        a = PortableMath.exp(-dt / PositionNoise.correlationSeconds)
        b = PortableMath.exp(-dt / PositionNoise.smoothingSeconds)
        // Steady-state variance of y(k+1) = b·y(k) + (1 − b)·x(k) when x is AR(1) with
        // coefficient a and variance v: v·(1 − b)(1 + ab) / ((1 + b)(1 − ab)). Choose v for 1.
        let drivingVariance = (1 + b) * (1 - a * b) / ((1 - b) * (1 + a * b))
        drive = (drivingVariance * (1 - a * a)).squareRoot()
        random = SeededRandom(seed: seed, stream: 1)
        guard sigma > 0 else { return }
        let s = drivingVariance.squareRoot()
        driving = (s * random.gaussian(), s * random.gaussian(), s * random.gaussian())
        output = driving
        let burnIn = Int(5 * PositionNoise.correlationSeconds / dt) + 1
        for _ in 0..<burnIn { _ = step() }
    }

    /// The error at the next epoch, metres.
    mutating func step() -> Error {
        guard sigma > 0 else { return Error(north: 0, east: 0, up: 0) }
        output.0 = b * output.0 + (1 - b) * driving.0
        output.1 = b * output.1 + (1 - b) * driving.1
        output.2 = b * output.2 + (1 - b) * driving.2
        driving.0 = a * driving.0 + drive * random.gaussian()
        driving.1 = a * driving.1 + drive * random.gaussian()
        driving.2 = a * driving.2 + drive * random.gaussian()
        return Error(north: sigma * output.0, east: sigma * output.1,
                     up: NMEASynthesizer.verticalNoiseFactor * sigma * output.2)
    }
}
