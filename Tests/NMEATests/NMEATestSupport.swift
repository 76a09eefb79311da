import NMEA
import PacerCore
import TestSupport

// Helpers shared by the NMEA tests: decoding a byte stream in chunks, a seeded random
// generator, and floating-point tolerance for whole-value comparisons. Sentences and their
// checksums come from TestSupport.

/// The sentences as one recording, each followed by `ending`.
func recording(_ sentences: [String], ending: String = "\r\n") -> [UInt8] {
    Array(sentences.map { $0 + ending }.joined().utf8)
}

/// What a decoder made of a stream: the epochs in order and its final statistics.
struct Decoded: Hashable {
    var epochs: [NMEAEpoch] = []
    var statistics = NMEAStatistics()

    var fixes: [Fix] {
        epochs.compactMap { epoch in
            if case .fix(let fix) = epoch { return fix }
            return nil
        }
    }
}

/// Feeds `chunks` one after another to a fresh decoder, then finishes the stream.
func decode(
    chunks: [[UInt8]],
    checksumPolicy: NMEADecoder.ChecksumPolicy = .acceptFromReceiversWithoutChecksums
) -> Decoded {
    var decoder = NMEADecoder(checksumPolicy: checksumPolicy)
    var epochs: [NMEAEpoch] = []
    for chunk in chunks {
        decoder.feed(chunk, onEpoch: { epochs.append($0) })
    }
    decoder.finish(onEpoch: { epochs.append($0) })
    return Decoded(epochs: epochs, statistics: decoder.statistics)
}

/// Feeds `bytes` in one chunk.
func decode(
    _ bytes: [UInt8],
    checksumPolicy: NMEADecoder.ChecksumPolicy = .acceptFromReceiversWithoutChecksums
) -> Decoded {
    decode(chunks: [bytes], checksumPolicy: checksumPolicy)
}

/// Feeds the sentences, each ended by CR LF, in one chunk.
func decode(
    _ sentences: [String],
    checksumPolicy: NMEADecoder.ChecksumPolicy = .acceptFromReceiversWithoutChecksums
) -> Decoded {
    decode(recording(sentences), checksumPolicy: checksumPolicy)
}

/// Cuts `bytes` into chunks of the given sizes, cycling through `sizes` (0 gives an empty chunk).
func chunked(_ bytes: [UInt8], sizes: [Int]) -> [[UInt8]] {
    precondition(sizes.contains { $0 > 0 })
    var chunks: [[UInt8]] = []
    var start = 0
    var k = 0
    while start < bytes.count {
        let end = min(start + sizes[k % sizes.count], bytes.count)
        chunks.append(Array(bytes[start..<end]))
        start = end
        k += 1
    }
    return chunks
}

/// A linear congruential generator (Knuth's MMIX constants): reproducible chunk sizes
/// without system randomness.
struct LCG {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(upTo bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound + 1))
    }
}

/// Cuts `bytes` into chunks of pseudo-random sizes 0...maximum.
func randomlyChunked(_ bytes: [UInt8], seed: UInt64, maximum: Int = 40) -> [[UInt8]] {
    var generator = LCG(seed: seed)
    var sizes: [Int] = []
    var total = 0
    while total < bytes.count {
        let size = generator.next(upTo: maximum)
        sizes.append(size)
        total += size
    }
    return chunked(bytes, sizes: sizes)
}

// MARK: - Floating tolerance

let tolerance = 1e-9

func isClose(_ a: Double?, _ b: Double?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let a?, let b?): return abs(a - b) <= tolerance
    default: return false
    }
}

/// `actual`, with its floating values replaced by the expected ones when they agree within
/// `tolerance`, so that a whole-value `==` tests everything else exactly and the floats
/// approximately (and a mismatch still shows the actual numbers).
func snapped(_ actual: GeoPoint?, to expected: GeoPoint?) -> GeoPoint? {
    guard let a = actual, let e = expected, isClose(a.latitude, e.latitude),
          isClose(a.longitude, e.longitude) else { return actual }
    return e
}

func snapped(_ actual: Double?, to expected: Double?) -> Double? {
    isClose(actual, expected) ? expected : actual
}

func snapped(_ actual: Fix, to expected: Fix) -> Fix {
    var fix = actual
    if let p = snapped(fix.position, to: expected.position) { fix.position = p }
    fix.speed = snapped(fix.speed, to: expected.speed)
    fix.course = snapped(fix.course, to: expected.course)
    return fix
}

func snapped(_ actual: [NMEAEpoch], to expected: [NMEAEpoch]) -> [NMEAEpoch] {
    guard actual.count == expected.count else { return actual }
    return zip(actual, expected).map { a, e in
        if case .fix(let fa) = a, case .fix(let fe) = e { return .fix(snapped(fa, to: fe)) }
        return a
    }
}

func snapped(_ actual: NMEALine, to expected: NMEALine) -> NMEALine {
    guard case .sentence(let a) = actual, case .sentence(let e) = expected else { return actual }
    switch (a, e) {
    case (.rmc(var s), .rmc(let t)):
        s.position = snapped(s.position, to: t.position)
        return .sentence(.rmc(s))
    case (.gga(var s), .gga(let t)):
        s.position = snapped(s.position, to: t.position)
        return .sentence(.gga(s))
    case (.gns(var s), .gns(let t)):
        s.position = snapped(s.position, to: t.position)
        return .sentence(.gns(s))
    case (.gll(var s), .gll(let t)):
        s.position = snapped(s.position, to: t.position)
        return .sentence(.gll(s))
    default:
        return actual
    }
}

/// Parses `text` (checksum required) and snaps its position to `expected`'s.
func parse(_ text: String, like expected: NMEALine) -> NMEALine {
    snapped(NMEALineParser.parse(text), to: expected)
}

// MARK: - A receiver cycle

/// One receiver cycle at `time` on `date` (ddmmyy), as a u-blox-style receiver sends it:
/// GGA, RMC, GSA, VTG, two GPGSV (8 in view) and a GLGSV (3 in view).
func cycle(time: String = "145243.00", date: String = "030610") -> [String] {
    [
        nmea("GPGGA,\(time),3401.9764,N,11744.827398,W,1,08,0.9,234.7,M,-32.1,M,,"),
        nmea("GPRMC,\(time),A,3401.9764,N,11744.827398,W,0.00,119.27,\(date),,,A"),
        nmea("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.8,0.9,1.5"),
        nmea("GPVTG,119.27,T,,M,0.00,N,0.00,K,A"),
        nmea("GPGSV,2,1,08,04,45,120,38,05,30,060,40,09,10,300,25,12,70,010,41"),
        nmea("GPGSV,2,2,08,24,45,120,38,25,30,060,40,29,10,300,25,31,70,010,41"),
        nmea("GLGSV,1,1,03,65,40,083,30,66,20,300,35,67,10,200,28"),
    ]
}

/// 2010-06-03T14:52:43Z.
let cycleTime = UTCTimestamp(millisecondsSince1970: 1_275_576_763_000)

/// 34.03294 -117.7471233.
let cyclePosition = GeoPoint(latitude: 34.03294, longitude: -117.7471233)

/// The fix `cycle()` describes.
let cycleFix = Fix(
    time: cycleTime, position: cyclePosition, altitude: 234.7, speed: 0.0, course: 119.27,
    mode: .threeD, quality: .gps, hdop: 0.9, satellitesUsed: 8, satellitesInView: 11)

/// `cycleFix` as it is when the cycle's GGA is lost: no altitude and no satellite count.
let cycleFixWithoutGGA = Fix(
    time: cycleTime, position: cyclePosition, altitude: nil, speed: 0.0, course: 119.27,
    mode: .threeD, quality: .gps, hdop: 0.9, satellitesUsed: nil, satellitesInView: 11)

/// The epochs, positions and speeds snapped to `expected` within `tolerance`.
func epochs(_ decoded: Decoded, like expected: [NMEAEpoch]) -> [NMEAEpoch] {
    snapped(decoded.epochs, to: expected)
}

/// A one-line summary per epoch, for date tests: `fix 2000-01-01T00:00:00.000Z`,
/// `noFix 2000-…`, or `noFix` when the time is unknown.
func timeline(_ decoded: Decoded) -> [String] {
    decoded.epochs.map { epoch in
        switch epoch {
        case .fix(let fix): "fix \(fix.time.iso8601)"
        case .noFix(let time?): "noFix \(time.iso8601)"
        case .noFix(nil): "noFix"
        }
    }
}

/// A sentence with its `*hh` removed.
func withoutChecksum(_ sentence: String) -> String {
    precondition(sentence.dropLast(2).hasSuffix("*"))
    return String(sentence.dropLast(3))
}

/// A sentence with a wrong checksum.
func withWrongChecksum(_ sentence: String) -> String {
    let body = String(withoutChecksum(sentence).dropFirst())
    return "$\(body)*\(checksum(body) == "00" ? "01" : "00")"
}
