import Foundation
import HAL

/// One stretch of a capture: a tone with its measured pitch, or silence.
struct SoundSegment: CustomStringConvertible {
    /// nil for silence.
    var frequency: Double?
    var start: Int
    var end: Int

    var length: Int { end - start }

    var description: String {
        let what = frequency.map { "\(Int($0.rounded())) Hz" } ?? "rest"
        return "\(what) \(start)..<\(end)"
    }
}

/// Cuts a capture into tones and silences knowing nothing of what was played.
///
/// - Silence: at least 1 ms of exact zeros (inside a tone, zeros come one or two at a time:
///   at zero crossings and in the first samples of a ramp).
/// - Tones: in each stretch of sound, the signal is cut into lobes (runs of samples of one
///   sign). A tone is a run of loud lobes (peak over 30 % of the stretch's loudest); between
///   two tones played without a rest, the release and attack ramps make a dip of quiet lobes,
///   and the boundary is put in the middle of it.
/// - Pitch: from the zero crossings of the tone's lobes, each interpolated between the
///   samples either side, half a period apart.
enum CaptureAnalysis {
    static func segments(_ x: [Int16], sampleRate: Int) -> [SoundSegment] {
        let minimumSilence = sampleRate / 1000
        var silences: [Range<Int>] = []
        var i = 0
        while i < x.count {
            guard x[i] == 0 else {
                i += 1
                continue
            }
            var j = i
            while j < x.count && x[j] == 0 { j += 1 }
            if j - i >= minimumSilence { silences.append(i..<j) }
            i = j
        }
        var result: [SoundSegment] = []
        var cursor = 0
        for silence in silences + [x.count..<x.count] {
            if silence.lowerBound > cursor {
                result += tones(x, in: cursor..<silence.lowerBound, sampleRate: sampleRate)
            }
            if !silence.isEmpty {
                result.append(SoundSegment(frequency: nil, start: silence.lowerBound, end: silence.upperBound))
            }
            cursor = silence.upperBound
        }
        return result
    }

    private struct Lobe {
        var start: Int
        var end: Int
        var peak: Int
        var crossing: Double?
    }

    static func tones(_ x: [Int16], in region: Range<Int>, sampleRate: Int) -> [SoundSegment] {
        var lobes: [Lobe] = []
        var lastNonzero: Int?
        var i = region.lowerBound
        while i < region.upperBound {
            guard x[i] != 0 else {
                i += 1
                continue
            }
            let positive = x[i] > 0
            var j = i
            var peak = 0
            while j < region.upperBound && x[j] != 0 && (x[j] > 0) == positive {
                peak = max(peak, abs(Int(x[j])))
                j += 1
            }
            var crossing: Double?
            if let p = lastNonzero, (x[p] > 0) != positive {
                let a = Double(x[p]), b = Double(x[i])
                crossing = Double(p) + a / (a - b) * Double(i - p)
            }
            lobes.append(Lobe(start: i, end: j, peak: peak, crossing: crossing))
            lastNonzero = j - 1
            i = j
        }
        let threshold = (lobes.map(\.peak).max() ?? 0) * 3 / 10
        var runs: [Range<Int>] = []
        var k = 0
        while k < lobes.count {
            guard lobes[k].peak >= threshold else {
                k += 1
                continue
            }
            var m = k
            while m < lobes.count && lobes[m].peak >= threshold { m += 1 }
            runs.append(k..<m)
            k = m
        }
        return runs.enumerated().map { n, run in
            let start = n == 0 ? region.lowerBound : (lobes[runs[n - 1].upperBound - 1].end + lobes[run.lowerBound].start) / 2
            let end = n == runs.count - 1 ? region.upperBound : (lobes[run.upperBound - 1].end + lobes[runs[n + 1].lowerBound].start) / 2
            let crossings = lobes[run].compactMap(\.crossing)
            var frequency = 0.0
            if crossings.count >= 3 {
                frequency = Double(crossings.count - 1) / 2 / ((crossings.last! - crossings.first!) / Double(sampleRate))
            }
            return SoundSegment(frequency: frequency, start: start, end: end)
        }
    }

    /// What the analysis should find for `tones`: consecutive rests are one silence.
    static func expected(_ tones: [Tone]) -> [(frequency: Double?, seconds: Double)] {
        var result: [(frequency: Double?, seconds: Double)] = []
        for tone in tones {
            let seconds = tone.duration.inSeconds
            if tone.isRest, let last = result.last, last.frequency == nil {
                result[result.count - 1].seconds += seconds
            } else {
                result.append((tone.isRest ? nil : tone.frequency, seconds))
            }
        }
        return result
    }

    /// Whether two analysed sounds differ: in the number of tones and silences, or in some
    /// tone's pitch (by more than 3 %) or some segment's length (by more than 10 %).
    static func distinguishable(_ a: [SoundSegment], _ b: [SoundSegment]) -> Bool {
        guard a.count == b.count else { return true }
        for (s, t) in zip(a, b) {
            switch (s.frequency, t.frequency) {
            case (nil, nil): break
            case (let f?, let g?): if abs(f - g) / g > 0.03 { return true }
            default: return true
            }
            if abs(Double(s.length - t.length)) / Double(t.length) > 0.10 { return true }
        }
        return false
    }
}
