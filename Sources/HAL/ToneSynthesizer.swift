#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Renders tones as 16-bit mono PCM: what every sound-making buzzer (ALSA, WAV) plays, so a
/// WAV file from the simulator holds exactly the samples the board would send to its speaker.
///
/// - Sample rate: 44 100 Hz by default. Nearly every codec and USB DAC runs at 44.1 or 48 kHz
///   natively (22 050 Hz would often be resampled anyway), and it leaves room above the
///   piezo range (1–4 kHz) for the soft square's 3rd and 5th harmonics without aliasing.
/// - Waveform: a softened square (`tanh(3·sin)`), the buzz of a piezo, louder than a sine at
///   the same peak, with far weaker high harmonics than a hard square; or a pure sine. Both
///   are odd-symmetric and start each tone at phase zero, so zero crossings fall where the
///   sine's do (clean for measuring pitch).
/// - Envelope: a raised-cosine attack and release (4 ms, at most a quarter of the tone each)
///   that start and end every tone at zero, so consecutive notes and rests do not click.
///   Rests are exact zeros.
/// - Timing: tone boundaries are placed at the sample nearest their start time measured from
///   the start of the sequence, so each tone has `round(duration × rate)` samples give or
///   take one, and rounding never accumulates: the whole sequence is exactly
///   `round(total × rate)` samples.
public struct ToneSynthesizer: Hashable, Sendable {
    public enum Waveform: String, Hashable, Sendable, CaseIterable {
        case sine
        case softSquare = "soft-square"
    }

    public static let defaultSampleRate = 44_100

    public var sampleRate: Int
    public var waveform: Waveform
    /// Peak level as a fraction of full scale (0…1).
    public var amplitude: Double
    /// Attack and release length (each is at most a quarter of its tone).
    public var ramp: Duration

    public init(
        sampleRate: Int = ToneSynthesizer.defaultSampleRate, waveform: Waveform = .softSquare,
        amplitude: Double = 0.8, ramp: Duration = .milliseconds(4)
    ) {
        precondition(sampleRate > 0, "a sample rate must be positive")
        self.sampleRate = sampleRate
        self.waveform = waveform
        self.amplitude = min(max(amplitude, 0), 1)
        self.ramp = ramp
    }

    /// The sample index nearest to `nanoseconds` after the start.
    func sampleIndex(atNanoseconds ns: Int64) -> Int {
        // Overflows only past 58 hours of sound at 44.1 kHz.
        let (product, overflow) = ns.multipliedReportingOverflow(by: Int64(sampleRate))
        precondition(!overflow, "a tone sequence too long to render")
        return Int((product + 500_000_000) / 1_000_000_000)
    }

    /// Where each tone starts, in samples, followed by the end of the last one
    /// (`tones.count + 1` entries).
    public func boundaries(of tones: [Tone]) -> [Int] {
        var result = [0]
        result.reserveCapacity(tones.count + 1)
        var elapsed: Int64 = 0
        for tone in tones {
            elapsed += max(tone.duration.nanoseconds, 0)
            result.append(sampleIndex(atNanoseconds: elapsed))
        }
        return result
    }

    /// How many samples `render(tones)` produces.
    public func sampleCount(of tones: [Tone]) -> Int {
        let total = tones.reduce(Int64(0)) { $0 + max($1.duration.nanoseconds, 0) }
        return sampleIndex(atNanoseconds: total)
    }

    /// The tones as PCM samples.
    public func render(_ tones: [Tone]) -> [Int16] {
        var samples: [Int16] = []
        render(tones, appendingTo: &samples)
        return samples
    }

    /// Appends the tones' samples to `samples`.
    public func render(_ tones: [Tone], appendingTo samples: inout [Int16]) {
        let edges = boundaries(of: tones)
        samples.reserveCapacity(samples.count + edges[edges.count - 1])
        for (k, tone) in tones.enumerated() {
            let count = edges[k + 1] - edges[k]
            if tone.isRest || tone.frequency >= Double(sampleRate) / 2 {
                samples.append(contentsOf: repeatElement(0, count: count))
            } else {
                appendTone(frequency: tone.frequency, count: count, to: &samples)
            }
        }
    }

    private func appendTone(frequency: Double, count: Int, to samples: inout [Int16]) {
        let peak = amplitude * Double(Int16.max)
        let step = 2 * Double.pi * frequency / Double(sampleRate)
        let rampSamples = min(sampleIndex(atNanoseconds: ramp.nanoseconds), count / 4)
        let hardness = 3.0
        let normaliser = 1 / tanh(hardness)
        for n in 0..<count {
            let s = sin(step * Double(n))
            var value = waveform == .sine ? s : tanh(hardness * s) * normaliser
            let fromEdge = min(n, count - 1 - n)
            if fromEdge < rampSamples {
                value *= 0.5 - 0.5 * cos(Double.pi * Double(fromEdge) / Double(rampSamples))
            }
            samples.append(Int16((value * peak).rounded()))
        }
    }
}
