import ArgumentParser
import Configurator
import Foundation
import HAL
#if canImport(Glibc)
import Glibc
#endif
import NMEA
import PacerCore
import Simulation
import Storage

struct NMEACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nmea", abstract: "Work with NMEA 0183 recordings.",
        subcommands: [Decode.self, Synth.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Decode NMEA into fixes, one line per fix.",
            discussion: """
                Reads FILE (or standard input for -) as a raw receiver byte stream: any chunking, \
                CRLF or LF, binary packets interleaved. Prints one line per receiver cycle with a \
                valid position; a summary of sentences read, rejected and skipped goes to stderr.
                """)

        @Flag(name: .long, help: "One JSON object per fix: time, lat, lon, and alt, speed, track, mode when known.")
        var json = false

        @Flag(name: .long, help: "List every refused line on stderr, with its line number and the reason.")
        var explain = false

        @Argument(help: "An NMEA recording, or - for standard input.")
        var file: String

        func run() throws {
            let out = OutputBuffer()
            var line: [UInt8] = []  // the text form of a fix, reused
            var reader = RecordingReader(path: file)
            let file = self.file
            let report: ((NMEARejection) -> Void)? = explain ? { rejection in
                StandardStream.error.writeQuietly("\(file):\(rejection)\n")
            } : nil
            do {
                try reader.decode(onEpoch: { epoch in
                    guard case .fix(let fix) = epoch else { return }
                    if json {
                        out.write(Fix.maximumJSONLength + 1) { p in
                            let n = fix.writeJSON(to: p)
                            p[n] = 0x0A
                            return n + 1
                        }
                    } else {
                        line.removeAll(keepingCapacity: true)
                        fix.appendText(to: &line)
                        line.append(0x0A)
                        out.append(line)
                    }
                }, onReject: report)
            } catch {
                out.flush()
                throw CommandFailure(error)
            }
            out.flush()
            let s = reader.decoder.statistics
            var summary = "\(file): \(s.bytes) bytes, \(s.sentences) sentences read, \(s.rejected) rejected"
            summary += " (\(s.badChecksum) bad checksum, \(s.missingChecksum) missing checksum, "
            summary += "\(s.malformed) malformed, \(s.overlong) overlong), \(s.skipped) skipped, "
            summary += "\(s.binaryPackets) binary packets, \(s.fixes) fixes\n"
            StandardStream.error.writeQuietly(summary)
        }
    }
}

extension NMEACommand {
    /// `pacer nmea synth`: a realistic recording from a route and a speed script, for scenarios.
    struct Synth: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "synth",
            abstract: "Write a realistic NMEA recording from a GPX route and a speed script.",
            discussion: """
                RECIPE is a YAML file (route, start, rate_hz, seed, noise_m, constellations, \
                sky_every_s, acquire_s, altitude_m, sentences, speeds, outages; see \
                SynthRecipeLoader); the options override its keys. Without a recipe, --route and \
                at least one --stretch are needed and the rest take their defaults (start \
                2026-05-02T07:00:00Z, 1 Hz, seed 1, noise 2.5 m, GP,GL,GA, sky every epoch). \
                The same recipe and seed give the same bytes on any machine. A summary (epochs, \
                duration, distance, bytes) goes to stderr. \
                With --track, a past run instead: a GPX, TCX or FIT file, or activity:ID of the \
                data folder, written as its receiver would have sent it, one cycle a second (what \
                `pacer run --source file:RUN.gpx` replays).
                """)

        @Option(name: .long, help: "A past run to write instead of a recipe: a GPX, TCX or FIT file, or activity:ID (with --data-dir).")
        var track: String?

        @Option(name: .long, help: "The data folder of --track activity:ID (default: the settings' data_dir).")
        var dataDir: String?

        @OptionGroup var settingsFile: SettingsOption

        @Argument(help: "A synthesis recipe (YAML).")
        var recipe: String?

        @Option(name: .long, help: "Where to write the recording (- for standard output, the default).")
        var out: String = "-"

        @Option(name: .long, help: "The route: a GPX file (its first track, else its first route).")
        var route: String?

        @Option(name: .long, help: "The first epoch, UTC: 2026-05-02T07:00:00Z.")
        var start: String?

        @Option(name: .long, help: "Epochs per second (1/60 to 20): 1, 5, 10, 0.5.")
        var rate: Double?

        @Option(name: .long, help: "Seed of the noise and the sky (0 to 2^64-1).")
        var seed: UInt64?

        @Option(name: .long, help: "Position error, metres (standard deviation per axis; 0 for none).")
        var noise: Double?

        @Option(name: .customLong("speed-scale"), help: "What the receiver's speeds read against the truth: 0.97 reads 3 % low (0.5 to 1.5).")
        var speedScale: Double?

        @Option(name: .long, parsing: .singleValue,
                help: "A stretch of the speed script (repeatable, replaces the recipe's): DURATION@KMH (10:00@9.5, 90@0), DISTkm@KMH (2.5km@12), DURATION@KMH-KMH (3:00@9-12).")
        var stretch: [String] = []

        @Option(name: .long, parsing: .singleValue,
                help: "An outage (repeatable, replaces the recipe's), from the start: FROM-TO[:invalid|silent] (4:00-4:40:silent).")
        var outage: [String] = []

        @Option(name: .long, help: "Constellations: GP,GL,GA,GB.")
        var constellations: String?

        @Option(name: .customLong("sky-every"), help: "Seconds between GSA/GSV reports (default: every epoch).")
        var skyEvery: Double?

        @Option(name: .long, help: "Seconds of searching (no fix) before the script starts.")
        var acquire: Double?

        @Flag(name: .customLong("no-header"), help: "Leave out the # lines that name the generator and the recipe.")
        var noHeader = false

        func validate() throws {
            if track != nil, recipe != nil || route != nil || !stretch.isEmpty || !outage.isEmpty {
                throw ValidationError("--track writes a past run as it was: give it without a recipe, --route, --stretch or --outage")
            }
        }

        func run() throws {
            if let track {
                try writeTrack(track)
                return
            }
            let recipe = try makeRecipe()
            var synthesizer: NMEASynthesizer
            do {
                synthesizer = try NMEASynthesizer(recipe, writesHeader: !noHeader)
            } catch {
                throw CommandFailure(error, self.recipe ?? "the command line")
            }
            let summary = try emit { (sink: ([UInt8]) throws(SynthOutputError) -> Void) throws(SynthOutputError) in
                try synthesizer.write(to: sink)
            }
            var line = "\(out == "-" ? "stdout" : out): \(summary.epochs) epochs (\(summary.fixes) fixes, "
            line += "\(summary.noFixes) without a fix, \(summary.silent) silent) over "
            line += "\(NMEASynthesisRecipe.showTime(summary.duration)), "
            line += "\(NMEASynthesisRecipe.show((summary.distance / 10).rounded() / 100)) km, \(summary.bytes) bytes\n"
            StandardStream.error.writeQuietly(line)
        }

        /// Writes a recording to `--out` (standard output for `-`): `write` hands its chunks to
        /// the sink it is given.
        func emit(
            _ write: (([UInt8]) throws(SynthOutputError) -> Void) throws(SynthOutputError) -> NMEASynthesisSummary
        ) throws -> NMEASynthesisSummary {
            if out == "-" {
                return try write { StandardStream.output.writeQuietly($0) }
            }
            let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw CommandFailure(.cannotCreate, "\(out): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            return try write { (bytes: [UInt8]) throws(SynthOutputError) in try SynthOutputError.write(bytes, to: fd, path: out) }
        }

        /// `--track`: a past run written as its receiver would have sent it.
        func writeTrack(_ track: String) throws {
            let timeline: TrackTimeline
            do {
                if track.hasPrefix("activity:") {
                    let uri = try DeviceURI(parsing: track)
                    let directory = try dataDir ?? settingsFile.settings().dataDirectory
                    timeline = try Configurator.storedActivity(uri, dataDirectory: directory)
                } else {
                    timeline = try TrackReplayLoader.load(path: track)
                }
            } catch let error as ConfigurationError {
                throw CommandFailure(error)
            }
            var synthesizer = TrackSynthesizer(timeline, writesHeader: !noHeader)
            let summary = try emit { (sink: ([UInt8]) throws(SynthOutputError) -> Void) throws(SynthOutputError) in
                try synthesizer.write(to: sink)
            }
            var line = "\(out == "-" ? "stdout" : out): \(summary.epochs) epochs (\(summary.fixes) fixes, "
            line += "\(summary.noFixes) without a fix) over \(NMEASynthesisRecipe.showTime(summary.duration)), "
            line += "\(NMEASynthesisRecipe.show((summary.distance / 10).rounded() / 100)) km, \(summary.bytes) bytes"
            if timeline.dropped > 0 { line += "; \(timeline.dropped) points less than a second after the one before left out" }
            StandardStream.error.writeQuietly(line + "\n")
        }

        /// The recipe file's recipe with the options laid over it, or one from the options alone.
        func makeRecipe() throws -> NMEASynthesisRecipe {
            var r: NMEASynthesisRecipe
            var overrides: [String] = []
            if let file = self.recipe {
                do {
                    r = try SynthRecipeLoader.load(path: file)
                } catch {
                    throw ValidationError(error.description)
                }
            } else {
                guard route != nil, !stretch.isEmpty else {
                    throw ValidationError("give a recipe file, or --route and at least one --stretch")
                }
                r = NMEASynthesisRecipe(route: NMEASynthesisRecipe.Route(points: []), stretches: [])
            }
            if let route {
                do {
                    r.route = try SynthRecipeLoader.route(gpxPath: route)
                } catch {
                    throw ValidationError(error.description)
                }
                overrides.append("--route \((route as NSString).lastPathComponent)")
            }
            if let start {
                guard let t = SynthRecipeLoader.start(start) else {
                    throw ValidationError("--start: expected a UTC date and time like 2026-05-02T07:00:00Z, got '\(start)'")
                }
                r.start = t
                overrides.append("--start \(start)")
            }
            if let rate {
                try Self.check("--rate", NMEASynthesisRecipe.problem(rateHz: rate))
                r.rateHz = rate
                overrides.append("--rate \(NMEASynthesisRecipe.show(rate))")
            }
            if let seed {
                r.seed = seed
                overrides.append("--seed \(seed)")
            }
            if let noise {
                try Self.check("--noise", NMEASynthesisRecipe.problem(noiseMetres: noise))
                r.noiseMetres = noise
                overrides.append("--noise \(NMEASynthesisRecipe.show(noise))")
            }
            if let speedScale {
                try Self.check("--speed-scale", NMEASynthesisRecipe.problem(speedScale: speedScale))
                r.speedScale = speedScale
                overrides.append("--speed-scale \(NMEASynthesisRecipe.show(speedScale))")
            }
            if !stretch.isEmpty {
                r.stretches = []
                for text in stretch {
                    guard let s = SynthRecipeLoader.stretch(text) else {
                        throw ValidationError(
                            "--stretch '\(text)': expected DURATION@KMH (10:00@9.5), DISTkm@KMH (2.5km@12) or DURATION@KMH-KMH (3:00@9-12)")
                    }
                    try Self.check("--stretch '\(text)'",
                                   NMEASynthesisRecipe.problem(kmh: s.fromKmh) ?? NMEASynthesisRecipe.problem(kmh: s.toKmh)
                                   ?? NMEASynthesisRecipe.problem(stretch: s))
                    r.stretches.append(s)
                    overrides.append("--stretch \(text)")
                }
            }
            if !outage.isEmpty {
                r.outages = []
                for text in outage {
                    guard let o = SynthRecipeLoader.outage(text) else {
                        throw ValidationError("--outage '\(text)': expected FROM-TO or FROM-TO:invalid|silent, like 4:00-4:40:silent")
                    }
                    r.outages.append(o)
                    overrides.append("--outage \(text)")
                }
            }
            if let constellations {
                guard let list = SynthRecipeLoader.constellations(constellations) else {
                    throw ValidationError(
                        "--constellations '\(constellations)': expected a list like GP,GL,GA of \(NMEASynthesisRecipe.Constellation.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                try Self.check("--constellations", NMEASynthesisRecipe.problem(constellations: list))
                r.constellations = list
                overrides.append("--constellations \(constellations)")
            }
            if let skyEvery {
                try Self.check("--sky-every", NMEASynthesisRecipe.problem(skyEverySeconds: skyEvery))
                r.skyEverySeconds = skyEvery
                overrides.append("--sky-every \(NMEASynthesisRecipe.show(skyEvery))")
            }
            if let acquire {
                try Self.check("--acquire", NMEASynthesisRecipe.problem(acquireSeconds: acquire))
                r.acquireSeconds = acquire
                overrides.append("--acquire \(NMEASynthesisRecipe.show(acquire))")
            }
            if !overrides.isEmpty {
                // Each on a line of its own: header lines stay short whatever the options.
                r.comments.append("command line:")
                r.comments += overrides.map { "  \($0)" }
            }
            return r
        }

        static func check(_ option: String, _ problem: String?) throws {
            if let problem { throw ValidationError("\(option): \(problem)") }
        }
    }
}

/// A recording that could not be written (a full disk, a closed pipe), with the file and the
/// system's reason.
struct SynthOutputError: Error, CustomStringConvertible {
    let path: String
    let code: Int32

    var description: String { "\(path): \(String(cString: strerror(code)))" }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
    static func write(_ bytes: [UInt8], to fd: Int32, path: String) throws(SynthOutputError) {
        let failure: Int32? = bytes.withUnsafeBytes { p in
            var offset = 0
            while offset < p.count {
                let n = Glibc.write(fd, p.baseAddress! + offset, p.count - offset)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    return Glibc.errno
                }
                offset += n
            }
            return nil
        }
        if let failure { throw SynthOutputError(path: path, code: failure) }
    }
}

extension Fix {
    /// `2010-06-03T14:52:43.000Z  34.032940000 -117.747123300  alt 234.7  0.000 m/s  119.27°  3D`
    func appendText(to out: inout [UInt8]) {
        time.appendISO8601(to: &out)
        out.append(contentsOf: "  ".utf8)
        out.appendDecimal(position.latitude, places: 7)
        out.append(0x20)
        out.appendDecimal(position.longitude, places: 7)
        if let altitude {
            out.append(contentsOf: "  alt ".utf8)
            out.appendDecimal(altitude, places: 1)
            out.append(contentsOf: " m".utf8)
        }
        if let speed {
            out.append(contentsOf: "  ".utf8)
            out.appendDecimal(speed, places: 2)
            out.append(contentsOf: " m/s".utf8)
        }
        if let course {
            out.append(contentsOf: "  ".utf8)
            out.appendDecimal(course, places: 1)
            out.append(contentsOf: " deg".utf8)
        }
        out.append(contentsOf: mode == .threeD ? "  3D".utf8 : "  2D".utf8)
        if let satellitesUsed {
            out.append(contentsOf: "  sats ".utf8)
            out.appendDigits(satellitesUsed, width: 1)
        }
    }
}

/// Standard output through one reused buffer, written in large blocks: fixes are written
/// straight into it (no array or string per fix).
final class OutputBuffer {
    static let threshold = 64 * 1024
    static let capacity = threshold + 1024
    private let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: OutputBuffer.capacity)
    private var count = 0

    deinit { storage.deallocate() }

    /// Lets `body` write at most `maximum` (at most 1024) bytes at the end; it returns how
    /// many it wrote. Flushes once the buffer holds `threshold` bytes.
    @inline(__always)
    func write(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        assert(maximum <= OutputBuffer.capacity - OutputBuffer.threshold)
        count += body(storage + count)
        if count >= OutputBuffer.threshold { flush() }
    }

    func append(_ bytes: [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = min(rest.count, OutputBuffer.capacity - count)
            rest.prefix(n).withUnsafeBufferPointer { (storage + count).update(from: $0.baseAddress!, count: n) }
            count += n
            rest = rest.dropFirst(n)
            if count >= OutputBuffer.threshold { flush() }
        }
    }

    func flush() {
        StandardStream.output.writeQuietly(UnsafeRawBufferPointer(start: storage, count: count))
        count = 0
    }
}
