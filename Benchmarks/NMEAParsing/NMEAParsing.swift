// The NMEA engine's hot path: bytes in, epochs out, through `NMEADecoder`.
//
// The input is generated here (no recordings needed): a runner lapping a 400 m track at 1 Hz,
// each receiver cycle seven sentences, GGA, RMC, GSA, three GSV and VTG, as a u-blox or SiRF
// receiver sends them, with correct checksums and CRLF endings.
//
// What the benchmarks show: `mallocCountTotal` per decode pass does not grow with the number
// of sentences. Every iteration is one whole pass (feed, then finish), and the interposer counts
// every malloc in the process, so the empty baseline gives the harness's own count per
// iteration. The 1 000 and 10 000 sentence runs, with a decoder made before the measurement
// starts, report exactly that count: decoding allocates nothing. The fresh-decoder run reports
// one more, the framer's line buffer, whatever the input size. The chunked run feeds 64-byte
// reads, as from a UART, so that most lines are split across reads and gathered in that buffer:
// again no allocation.
//
//   cd Benchmarks && swift package --disable-sandbox benchmark
//   swift package --disable-sandbox benchmark --filter "10000" --metric mallocCountTotal

import Benchmark
import NMEA

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // `instructions` needs hardware perf counters: shown where the kernel offers them (not in
        // most VMs), silently left out elsewhere.
        metrics: [.wallClock, .throughput, .instructions, .mallocCountTotal, .mallocBytesCount],
        warmupIterations: 10,
        scalingFactor: .one,  // one decode pass per iteration: malloc counts are per pass
        maxDuration: .seconds(2),
        maxIterations: 10_000)

    // The floor: what the harness itself allocates around one measured iteration (the
    // interposer counts every malloc in the process, the sampling thread's included). Read
    // the decoding benchmarks' malloc counts against this one.
    Benchmark("Baseline: empty iteration") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(benchmark.currentIteration)
        }
    }

    for sentences in [1_000, 10_000] {
        let input = NMEAInput(sentences: sentences)
        Benchmark("Decode \(sentences) sentences, reused decoder", configuration: input.configuration) { benchmark in
            var decoder = NMEADecoder()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                input.check(decode(input.bytes, with: &decoder), benchmark)
            }
        }
    }

    let input = NMEAInput(sentences: 1_000)

    Benchmark("Decode 1000 sentences, fresh decoder", configuration: input.configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var decoder = NMEADecoder()
            input.check(decode(input.bytes, with: &decoder), benchmark)
        }
    }

    Benchmark("Decode 1000 sentences in 64-byte reads, reused decoder", configuration: input.configuration) { benchmark in
        var decoder = NMEADecoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            input.check(decode(input.bytes, with: &decoder, chunkSize: 64), benchmark)
        }
    }
}

/// Feeds all of `bytes` and ends the stream; returns the number of fixes. `finish` leaves the
/// decoder ready for the next stream, so one decoder serves every iteration. The callbacks are
/// closure literals passed straight to non-escaping parameters, so they live on the stack.
@inline(never)
func decode(_ bytes: [UInt8], with decoder: inout NMEADecoder, chunkSize: Int? = nil) -> Int {
    var fixes = 0
    bytes.withUnsafeBufferPointer { all in
        guard let chunkSize else {
            decoder.feed(all) { fixes += fixCount($0) }
            return
        }
        var start = 0
        while start < all.count {
            let end = min(start + chunkSize, all.count)
            decoder.feed(UnsafeBufferPointer(rebasing: all[start..<end])) { fixes += fixCount($0) }
            start = end
        }
    }
    decoder.finish { fixes += fixCount($0) }
    return fixes
}

@inline(__always)
func fixCount(_ epoch: NMEAEpoch) -> Int {
    guard case .fix(let fix) = epoch else { return 0 }
    blackHole(fix)
    return 1
}

/// A generated recording of `sentences` sentences and what decoding it must give.
struct NMEAInput: Sendable {
    static let sentencesPerCycle = 7

    let bytes: [UInt8]
    let sentences: Int
    /// Every cycle starts with a valid GGA, so a cycle cut short is still a fix.
    let expectedFixes: Int

    init(sentences: Int) {
        var generator = RecordingGenerator()
        var bytes: [UInt8] = []
        var produced = 0
        while produced < sentences {
            for sentence in generator.nextCycle() where produced < sentences {
                bytes += sentence
                produced += 1
            }
        }
        self.bytes = bytes
        self.sentences = sentences
        self.expectedFixes = (sentences + Self.sentencesPerCycle - 1) / Self.sentencesPerCycle

        // Refuse to measure input the engine does not accept in full: a wrong checksum would
        // make the benchmark time the rejection path instead.
        var decoder = NMEADecoder(checksumPolicy: .require)
        let fixes = decode(bytes, with: &decoder)
        let s = decoder.statistics
        precondition(
            fixes == expectedFixes && s.sentences == sentences && s.rejected == 0 && s.skipped == 0,
            "generated input decodes to \(fixes) fixes, \(s.sentences) sentences, \(s.rejected) rejected")
    }

    /// The default configuration, tagged with the input size (shown next to the name).
    var configuration: Benchmark.Configuration {
        .init(tags: ["bytes": String(bytes.count)])
    }

    func check(_ fixes: Int, _ benchmark: Benchmark) {
        if fixes != expectedFixes {
            benchmark.error("decoded \(fixes) fixes, expected \(expectedFixes)")
        }
        blackHole(fixes)
    }
}

/// A runner lapping a 400 m track in Zurich at about 3.4 m/s, one receiver cycle per second,
/// from 2024-05-18 07:30:00 UTC. Deterministic: the same input on every run.
struct RecordingGenerator {
    private var second = 7 * 3600 + 30 * 60
    private var day = 18
    private var seed: UInt64 = 0x5EED_1234_ABCD_0001

    // Track centre and radius (a circle of 400 m circumference).
    private let centreLatitude = 47.376_887
    private let centreLongitude = 8.541_694
    private let radius = 400.0 / (2 * Double.pi)
    private let metresPerDegreeLatitude = 111_132.0
    private let metresPerDegreeLongitude = 111_320.0 * 0.677_3  // cos(47.38°)

    mutating func nextCycle() -> [[UInt8]] {
        let speed = 3.4 + 0.3 * random()  // m/s
        let angle = Double(second) * 3.4 / radius  // radians round the track
        let latitude = centreLatitude + radius * sin(angle) / metresPerDegreeLatitude
        let longitude = centreLongitude + radius * cos(angle) / metresPerDegreeLongitude
        let course = (360 + 360 - angle.truncatingRemainder(dividingBy: 2 * .pi) * 180 / .pi)
            .truncatingRemainder(dividingBy: 360)
        let knots = speed * 3600 / 1852
        let altitude = 408.0 + 2 * random()
        let hdop = 0.8 + 0.4 * random()

        let time = digits(second / 3600 % 24, 2) + digits(second / 60 % 60, 2) + digits(second % 60, 2) + ".00"
        let date = digits(day, 2) + "0524"
        let lat = degreesMinutes(latitude, degreeDigits: 2) + ",N"
        let lon = degreesMinutes(longitude, degreeDigits: 3) + ",E"

        var cycle: [String] = []
        cycle.append("GPGGA,\(time),\(lat),\(lon),1,09,\(fixed(hdop, 2)),\(fixed(altitude, 1)),M,47.3,M,,")
        cycle.append("GPRMC,\(time),A,\(lat),\(lon),\(fixed(knots, 3)),\(fixed(course, 2)),\(date),,,A")
        cycle.append("GPGSA,A,3,02,05,07,09,13,15,18,20,30,,,,\(fixed(hdop * 1.7, 2)),\(fixed(hdop, 2)),\(fixed(hdop * 1.4, 2))")
        let satellites = [2, 5, 7, 9, 13, 15, 18, 20, 30, 29, 11]
        for message in 0..<3 {
            var gsv = "GPGSV,3,\(message + 1),11"
            for prn in satellites.dropFirst(message * 4).prefix(4) {
                let elevation = (prn * 37) % 80 + 5
                let azimuth = (prn * 97) % 360
                let snr = 20 + (prn * 7) % 25 + Int(random() * 5)
                gsv += "," + digits(prn, 2) + "," + digits(elevation, 2) + "," + digits(azimuth, 3) + "," + digits(snr, 2)
            }
            cycle.append(gsv)
        }
        cycle.append("GPVTG,\(fixed(course, 2)),T,,M,\(fixed(knots, 3)),N,\(fixed(speed * 3.6, 3)),K,A")

        second += 1
        if second == 86_400 {
            second = 0
            day += 1
        }
        return cycle.map(Self.frame)
    }

    /// `$body*hh\r\n`
    static func frame(_ body: String) -> [UInt8] {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF".utf8)
        return Array("$\(body)*".utf8) + [hex[Int(checksum >> 4)], hex[Int(checksum & 0xF)], 0x0D, 0x0A]
    }

    /// In [0, 1), from a 64-bit LCG (Knuth's MMIX constants).
    private mutating func random() -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53)
    }
}

/// `ddmm.mmmmm` or `dddmm.mmmmm` for a non-negative angle.
func degreesMinutes(_ degrees: Double, degreeDigits: Int) -> String {
    let hundredThousandthsOfMinute = Int((degrees * 60 * 100_000).rounded())
    let whole = hundredThousandthsOfMinute / 6_000_000
    let minutes = hundredThousandthsOfMinute % 6_000_000
    return digits(whole, degreeDigits) + digits(minutes / 100_000, 2) + "." + digits(minutes % 100_000, 5)
}

/// A non-negative value with `places` decimals, rounded half up.
func fixed(_ value: Double, _ places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * Double(scale)).rounded())
    return "\(scaled / scale).\(digits(scaled % scale, places))"
}

/// Zero-padded to `width` digits.
func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}
