#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PacerCore

/// How cues sound (R17): plain beeps, or short melodies.
public enum CueStyle: String, CaseIterable, Hashable, Sendable {
    case beeps
    case melody
}

/// One note of a cue: a frequency (0 for a rest) held for a duration.
public struct Tone: Hashable, Sendable {
    public var frequency: Double
    public var duration: Duration

    public init(frequency: Double, duration: Duration) {
        self.frequency = frequency
        self.duration = duration
    }

    public static func rest(_ duration: Duration) -> Tone { Tone(frequency: 0, duration: duration) }

    public var isRest: Bool { frequency <= 0 }
}

/// What each cue sounds like in each style: data (loaded from `Hardware/cues.yaml` by the
/// configurator), not code.
public struct CueBook: Hashable, Sendable {
    public var sounds: [Cue: [CueStyle: [Tone]]]

    public init(sounds: [Cue: [CueStyle: [Tone]]]) {
        self.sounds = sounds
    }

    /// The tones for a cue in a style; empty when the book has none.
    public func tones(for cue: Cue, style: CueStyle) -> [Tone] {
        sounds[cue]?[style] ?? []
    }
}

/// A sound output. `play` returns at once (the runtime loop never waits for audio);
/// sounds queue and play in order.
public protocol Buzzer: AnyObject, Sendable {
    /// The buzzer's URI (`alsa:default`, `wav:/tmp/cues.wav`, `null`).
    var name: String { get }
    /// Queues a cue's tones.
    func play(_ cue: Cue, tones: [Tone])
    /// Waits until everything queued has played (for a command that exits afterwards).
    func drain()
    /// Queues rendered audio (a speaker's words) in the same queue as the cues; false when
    /// this buzzer cannot play it (the default). See `SoundClip`.
    func play(_ clip: SoundClip) -> Bool
    /// Drops the cuttable clips waiting and stops the one playing, if it is cuttable.
    func cutClips()
    /// Why the buzzer cannot sound (the device did not open, it failed while playing), or
    /// nil while it works. Cues still "play", silently: the device runs on.
    var unavailableReason: String? { get }
}

extension Buzzer {
    public var unavailableReason: String? { nil }
}

/// Rendered audio that is not a cue's tones: a speaker's words, 16-bit mono PCM.
public struct SoundClip: Hashable, Sendable {
    public var samples: [Int16]
    public var sampleRate: Int
    /// An announcement that a cue may cut (`Buzzer.cutClips`): dropped while it waits, stopped
    /// while it plays. Pace and safety words are not cuttable.
    public var cuttable: Bool

    public init(samples: [Int16], sampleRate: Int, cuttable: Bool) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.cuttable = cuttable
    }

    /// How long the clip plays.
    public var duration: Duration {
        sampleRate > 0 ? .nanoseconds(Int64(samples.count) * 1_000_000_000 / Int64(sampleRate)) : .zero
    }

    /// The clip at `rate`: linear interpolation (espeak-ng's 22 050 Hz to a buzzer's
    /// 44 100 Hz); going down, a low-pass filter first (a 31-tap windowed sinc at 0.45 of the
    /// new rate), so what lies above the new Nyquist frequency does not fold back as noise.
    public func resampled(to rate: Int) -> SoundClip {
        guard rate != sampleRate, rate > 0, sampleRate > 0, !samples.isEmpty else { return self }
        let samples = rate < sampleRate ? Self.lowPass(self.samples, cutoff: 0.45 * Double(rate) / Double(sampleRate)) : self.samples
        let count = Int((Int64(samples.count) * Int64(rate)) / Int64(sampleRate))
        var out = [Int16](repeating: 0, count: count)
        let step = Double(sampleRate) / Double(rate)
        let last = samples.count - 1
        for i in 0..<count {
            let x = Double(i) * step
            let j = min(Int(x), last)
            let k = min(j + 1, last)
            let f = x - Double(j)
            out[i] = Int16(clamping: Int((Double(samples[j]) * (1 - f) + Double(samples[k]) * f).rounded()))
        }
        return SoundClip(samples: out, sampleRate: rate, cuttable: cuttable)
    }

    /// A Hamming-windowed sinc low-pass; `cutoff` in cycles per sample.
    static func lowPass(_ x: [Int16], cutoff: Double) -> [Int16] {
        let half = 15
        var h = [Double](repeating: 0, count: 2 * half + 1)
        for k in -half...half {
            let t = Double(k)
            let sinc = k == 0 ? 2 * cutoff : sin(2 * Double.pi * cutoff * t) / (Double.pi * t)
            h[k + half] = sinc * (0.54 + 0.46 * cos(Double.pi * t / Double(half)))
        }
        let gain = h.reduce(0, +)
        var y = [Int16](repeating: 0, count: x.count)
        for i in 0..<x.count {
            var acc = 0.0
            for k in -half...half {
                let j = i - k
                if j >= 0 && j < x.count { acc += h[k + half] * Double(x[j]) }
            }
            y[i] = Int16(clamping: Int((acc / gain).rounded()))
        }
        return y
    }
}

/// Speech shares the buzzer's output: a speaker hands its rendered words to the buzzer, whose
/// one queue plays them in turn with the cues' tones, so a word and a beep never sound
/// together (on ALSA there is one PCM stream, one writing thread). A buzzer that cannot play
/// clips (a piezo, the recording buzzer) keeps the default: the clip is refused.
extension Buzzer {
    /// Queues `clip` behind what is queued; false when this buzzer does not play clips.
    public func play(_ clip: SoundClip) -> Bool { false }
    /// Drops the cuttable clips waiting and stops the one playing, if it is cuttable.
    public func cutClips() {}
}
